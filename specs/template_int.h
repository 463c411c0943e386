/*
 * Templates: the design files that hold Jinja2 syntax, rendered by the
 * fiberloop-jinja helper (a Python 3 process with Jinja2, started on the
 * first template met and spoken to over a socket), then parsed with their
 * lines located in the files they came from and their include() and
 * include_all() placeholders replaced by the files they name, loaded the
 * same way. Internal to specs/; the process handle is 'struct spec_jinja'
 * (spec.h). Library code: nothing is printed, failures come back as text.
 */
#ifndef SPECS_TEMPLATE_INT_H
#define SPECS_TEMPLATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "specs/spec.h"
#include "specs/ysrc_int.h"
#include "util/strbuf.h"

/* The YAML tag the helper writes where include() or include_all() was called. */
#define JINJA_INCLUDE_TAG "!fiberloop-include"

/* One include() or include_all() call of a rendered template. */
struct jinja_include {
	unsigned id;
	bool single;                   /* include(): exactly one file */
	char *indices;                 /* "a.b": the key path to take, "" for all */
	size_t n_paths;
	char **paths;                  /* absolute */
	size_t n_displays;             /* == n_paths in a well-formed answer */
	char **displays;               /* as messages show them */
	size_t n_dirs;
	char **dirs;                   /* include directories in force at the call */
};

/* What the helper returned for one template. */
struct jinja_result {
	struct strbuf text;            /* the rendered YAML */
	bool has_text;                 /* a 'text' field came (before any 'map') */
	size_t n_files;
	char **files;                  /* display names; 0 is the template */
	size_t n_lines;
	unsigned *line_file;           /* per rendered line: index into 'files' */
	unsigned *line_src;            /* per rendered line: its 1-based line there */
	size_t n_includes;
	struct jinja_include *includes;
	/* a template error instead (jinja_render() returned 1) */
	char *error;
	bool syntax_error;
	char *error_file;              /* display name */
	unsigned error_line;           /* 0: unknown */
};

/*
 * Render the template 'path' (shown as 'name') with the variables
 * vars[0..n_vars) ("NAME=VALUE") and include directories dirs[0..n_dirs).
 * Returns 0 with '*res' filled, 1 when the template itself failed (the
 * error fields of '*res' say where and why), or -1 when the helper could
 * not run or answer ('why' says why). A helper that cannot start fails
 * later calls the same way; one that stopped or answered wrongly (a
 * template can write to its output) is started again by the next call.
 * Release '*res' with jinja_result_release() in every case.
 */
int jinja_render(struct spec_jinja *j, const char *path, const char *name,
		 const char *const *vars, size_t n_vars, const char *const *dirs, size_t n_dirs,
		 struct jinja_result *res, struct strbuf *why);

/* Free what a jinja_result holds; it becomes empty. */
void jinja_result_release(struct jinja_result *res);

/* How files are loaded: their arena, diagnostics and template settings. */
struct tmpl_ctx {
	struct arena *a;               /* nodes and file names */
	struct diag_list *dl;
	const char *const *vars;       /* "NAME=VALUE" for templates */
	size_t n_vars;
	struct spec_jinja *jinja;      /* NULL: the shared one, spec_jinja_shared() */
	unsigned depth;                /* include nesting */
};

/*
 * Read and parse the file 'path', shown in messages as 'name' (a string
 * kept alive by the caller). A file that holds template syntax ('{{', '{%'
 * or '{#') is rendered first, with include directories dirs[0..n_dirs).
 * On success '*root' is the document's root (NULL for an empty file) and 0
 * is returned; otherwise everything is reported to t->dl and -1 returned.
 */
int tmpl_parse_file(struct tmpl_ctx *t, const char *path, const char *name,
		    const char *const *dirs, size_t n_dirs, struct ysrc_node **root);

/* Forget the helper of 't' (the caller's, or the shared one: neither is freed here). */
void tmpl_ctx_release(struct tmpl_ctx *t);

#endif
