/*
 * Design files that are Jinja2 templates: detected by their syntax,
 * rendered by the helper (jinja.c), parsed with a line map into the files
 * the lines came from, and with every include() / include_all() placeholder
 * replaced by the files it names (themselves loaded by tmpl_parse_file, so
 * they may be templates too), taken at the key path the call gave.
 */
#include "specs/template_int.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/xalloc.h"

#define TMPL_MAX_DEPTH 32

/* Byte offset of the first '{{', '{%' or '{#' of 'text', or -1 when none. */
static long template_syntax(const char *text, size_t len)
{
	size_t i;
	for (i = 0; i + 1 < len; i++)
		if (text[i] == '{' && (text[i + 1] == '{' || text[i + 1] == '%' || text[i + 1] == '#'))
			return (long)i;
	return -1;
}

/* The location of byte 'off' of 'text' (columns count characters, not bytes). */
static struct diag_loc loc_of(const char *name, const char *text, size_t off)
{
	struct diag_loc loc = { name, 1, 1 };
	size_t i;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			loc.line++;
			loc.col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			loc.col++;
		}
	}
	return loc;
}

struct hook_ctx {
	struct tmpl_ctx *t;
	const struct jinja_result *res;
};

/* The node at key path 'indices' ("a.b") of 'root', or NULL after an error at 'at'. */
static const struct ysrc_node *take_keys(struct tmpl_ctx *t, const struct ysrc_node *root,
					 const char *indices, const char *file,
					 const struct ysrc_node *at)
{
	const struct ysrc_node *n = root;
	const char *s = indices;

	while (*s) {
		size_t len = strcspn(s, ".");
		char *key = arena_strndup(t->a, s, len);
		const struct ysrc_node *next = len ? ysrc_map_get(n, key) : n;
		if (!next) {
			diag_error(t->dl, at->loc, "cannot include '%s' of '%s': %s", indices, file,
				   n && n->kind == YSRC_MAP ? "there is no such key" :
				   "it is not a mapping there");
			if (n && n->kind == YSRC_MAP && len)
				diag_note(t->dl, n->loc, "'%s' is not among the keys here", key);
			return NULL;
		}
		n = next;
		s += len + (s[len] == '.');
	}
	return n;
}

/* Is the last diagnostic of 'dl' the note "'name' is included here" at 'loc'? */
static bool same_note(const struct diag_list *dl, struct diag_loc loc, const char *name)
{
	const struct diag *d = dl->n ? &dl->items[dl->n - 1] : NULL;
	size_t len = strlen(name);

	return d && d->severity == DIAG_NOTE && d->loc.line == loc.line && d->loc.col == loc.col &&
	       d->loc.file && loc.file && !strcmp(d->loc.file, loc.file) && d->message[0] == '\'' &&
	       !strncmp(d->message + 1, name, len) && !strcmp(d->message + 1 + len, "' is included here");
}

/* Load file i of include 'inc' and take its key path; NULL after an error. */
static const struct ysrc_node *load_one(struct tmpl_ctx *t, const struct jinja_include *inc,
					size_t i, const struct ysrc_node *at)
{
	const char *name = arena_strdup(t->a, inc->displays[i]);
	struct ysrc_node *root = NULL;
	int rc;

	t->depth++;
	rc = tmpl_parse_file(t, inc->paths[i], name, (const char *const *)inc->dirs, inc->n_dirs,
			     &root);
	t->depth--;
	if (rc < 0) {
		if (!same_note(t->dl, at->loc, name))   /* a file including itself: once */
			diag_note(t->dl, at->loc, "'%s' is included here", name);
		return NULL;
	}
	if (!root)
		root = ysrc_scalar_new(t->a, "", (struct diag_loc){ name, 1, 1 });
	return take_keys(t, root, inc->indices, name, at);
}

/* Replace an include placeholder by what it names (a list for include_all). */
static struct ysrc_node *include_hook(void *ctx, const struct ysrc_node *scalar)
{
	struct hook_ctx *h = ctx;
	struct tmpl_ctx *t = h->t;
	const struct jinja_include *inc = NULL;
	struct ysrc_node *seq;
	char *end;
	unsigned long id = strtoul(scalar->str, &end, 10);
	size_t i;

	for (i = 0; i < h->res->n_includes && !*end; i++)
		if (h->res->includes[i].id == id)
			inc = &h->res->includes[i];
	if (!inc || inc->n_displays != inc->n_paths || !inc->n_paths) {
		diag_error(t->dl, scalar->loc, "'%s %s' is not an include of this template",
			   JINJA_INCLUDE_TAG, scalar->str);
		return NULL;
	}
	if (inc->single)
		return (struct ysrc_node *)load_one(t, inc, 0, scalar);
	seq = arena_calloc(t->a, 1, sizeof(*seq));
	seq->kind = YSRC_SEQ;
	seq->loc = scalar->loc;
	seq->n = inc->n_paths;
	seq->items = arena_calloc(t->a, inc->n_paths, sizeof(*seq->items));
	for (i = 0; i < inc->n_paths; i++) {
		seq->items[i] = (struct ysrc_node *)load_one(t, inc, i, scalar);
		if (!seq->items[i])
			return NULL;
	}
	return seq;
}

/* Parse the rendered text of 'res', located through its line map. */
static int parse_rendered(struct tmpl_ctx *t, const char *name, const struct jinja_result *res,
			  struct ysrc_node **root)
{
	const char **files = arena_calloc(t->a, res->n_files + 1, sizeof(*files));
	const char **line_files = arena_calloc(t->a, res->n_lines + 1, sizeof(*line_files));
	unsigned *lines = arena_calloc(t->a, res->n_lines + 1, sizeof(*lines));
	struct ysrc_linemap map = { res->n_lines, line_files, lines };
	struct hook_ctx h = { t, res };
	struct ysrc_opts opts;
	size_t i;

	for (i = 0; i < res->n_files; i++)
		files[i] = i == 0 ? name : arena_strdup(t->a, res->files[i]);
	for (i = 0; i < res->n_lines; i++) {
		line_files[i] = files[res->line_file[i]];
		lines[i] = res->line_src[i];
	}
	memset(&opts, 0, sizeof(opts));
	opts.map = &map;
	opts.hook_tag = JINJA_INCLUDE_TAG;
	opts.hook = include_hook;
	opts.hook_ctx = &h;
	return ysrc_parse_opts(t->a, name, res->text.buf, res->text.len, &opts, t->dl, root);
}

/* Start of line 'line' (1-based) of 'text', or NULL when it has fewer lines. */
static const char *line_start(const char *text, unsigned line)
{
	while (text && line > 1) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
		line--;
	}
	return text;
}

/* The column of 'word' as a whole word in the line 'ln' ('len' bytes), or 0. */
static unsigned word_col(const char *ln, size_t len, const char *word, size_t wlen)
{
	size_t i;
	for (i = 0; wlen && i + wlen <= len; i++) {
		bool before = i == 0 || !(isalnum((unsigned char)ln[i - 1]) || ln[i - 1] == '_');
		bool after = i + wlen == len ||
			     !(isalnum((unsigned char)ln[i + wlen]) || ln[i + wlen] == '_');
		if (before && after && !memcmp(ln + i, word, wlen))
			return (unsigned)i + 1;
	}
	return 0;
}

/*
 * The column of a Jinja2 error on line 'line' of 'text' (Jinja2 gives the
 * line only): the name the message quotes first ("'tile_m' is undefined"),
 * the end of the line for an unexpected end of the template, else the
 * line's first '{{' or '{%', else its first non-blank character.
 */
static unsigned jinja_error_col(const char *text, unsigned line, const char *msg)
{
	const char *ln = line_start(text, line), *q, *q2;
	size_t len, i;
	unsigned col;

	if (!ln)
		return 1;
	len = strcspn(ln, "\n");
	if (strstr(msg, "nexpected end of template"))
		return (unsigned)len + 1;
	if ((q = strchr(msg, '\'')) && (q2 = strchr(q + 1, '\'')) &&
	    (col = word_col(ln, len, q + 1, (size_t)(q2 - q - 1))))
		return col;
	for (i = 0; i + 1 < len; i++)
		if (ln[i] == '{' && (ln[i + 1] == '{' || ln[i + 1] == '%'))
			return (unsigned)i + 1;
	return (unsigned)strspn(ln, " \t") < len ? (unsigned)strspn(ln, " \t") + 1 : 1;
}

/*
 * The location of the helper's error 'res' in template 'name' (whose text
 * is 'text') or in the file it names ('file', read again for the column).
 */
static struct diag_loc jinja_error_loc(struct tmpl_ctx *t, const char *name,
				       const struct strbuf *text, long off,
				       const struct jinja_result *res)
{
	struct diag_loc loc = { name, res->error_line, 1 };
	struct strbuf other = STRBUF_INIT, err = STRBUF_INIT;
	const char *body = text->buf;

	if (res->error_file && strcmp(res->error_file, name)) {
		loc.file = arena_strdup(t->a, res->error_file);
		body = fileio_read(res->error_file, &other, &err) == 0 ? other.buf : NULL;
	}
	if (!loc.line && body == text->buf)
		loc = loc_of(name, text->buf, (size_t)off);
	else if (!loc.line)
		loc.line = 1;
	else if (body)
		loc.col = jinja_error_col(body, loc.line, res->error);
	strbuf_release(&other);
	strbuf_release(&err);
	return loc;
}

/* Render the template 'path' (syntax first at byte 'off' of 'text') and parse it. */
static int parse_template(struct tmpl_ctx *t, const char *path, const char *name,
			  const struct strbuf *text, long off, const char *const *dirs,
			  size_t n_dirs, struct ysrc_node **root)
{
	struct jinja_result res;
	struct strbuf why = STRBUF_INIT;
	int rc;

	if (t->depth > TMPL_MAX_DEPTH)
		return diag_error(t->dl, loc_of(name, text->buf, (size_t)off), "includes are nested "
				  "more than %d deep (does a file include itself?)", TMPL_MAX_DEPTH);
	if (!t->jinja)
		t->jinja = spec_jinja_shared();
	rc = jinja_render(t->jinja, path, name, t->vars, t->n_vars, dirs, n_dirs, &res, &why);
	if (rc < 0) {
		diag_error(t->dl, loc_of(name, text->buf, (size_t)off), "this file is a Jinja2 "
			   "template (it uses '%.2s' here) and cannot be rendered: %s",
			   text->buf + off, why.buf);
	} else if (rc > 0) {
		rc = diag_error(t->dl, jinja_error_loc(t, name, text, off, &res), "Jinja2 template "
				"%s: %s", res.syntax_error ? "syntax error" : "error", res.error);
	} else {
		rc = parse_rendered(t, name, &res, root);
	}
	jinja_result_release(&res);
	strbuf_release(&why);
	return rc;
}

int tmpl_parse_file(struct tmpl_ctx *t, const char *path, const char *name,
		    const char *const *dirs, size_t n_dirs, struct ysrc_node **root)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	long off;
	int rc;

	*root = NULL;
	if (fileio_read(path, &text, &err) < 0) {
		diag_error(t->dl, (struct diag_loc){ name, 0, 0 }, "%s", err.buf);
		rc = -1;
	} else if ((off = template_syntax(text.buf, text.len)) < 0) {
		rc = ysrc_parse(t->a, name, text.buf, text.len, t->dl, root);
	} else {
		rc = parse_template(t, path, name, &text, off, dirs, n_dirs, root);
	}
	strbuf_release(&text);
	strbuf_release(&err);
	if (rc < 0)
		*root = NULL;
	return rc;
}

void tmpl_ctx_release(struct tmpl_ctx *t)
{
	t->jinja = NULL;
}
