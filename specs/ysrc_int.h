/*
 * ysrc: libyaml turned into a located node tree (internal to specs/).
 *
 * Every node carries its 1-based line and column and the caller's file name
 * string. Anchors and aliases are resolved (an alias node is a copy of the
 * anchored node located at the alias), merge keys ('<<') and the v0.4 front
 * end's recursive merge keys ('<<<') are applied, and a key given twice in
 * one mapping is an error with a note at the first one. Text rendered from
 * a template is located in the template's files through a line map.
 * Keys compare with '-' and '_' taken as equal, as Timeloop's rewrite does.
 * Nodes live in the caller's arena and are never freed one by one. Only this
 * module includes <yaml.h>.
 */
#ifndef SPECS_YSRC_INT_H
#define SPECS_YSRC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/diag.h"

enum ysrc_kind { YSRC_SCALAR, YSRC_SEQ, YSRC_MAP };

/* How a scalar was written: plain scalars may be null, booleans or numbers. */
enum ysrc_style { YSRC_PLAIN, YSRC_QUOTED, YSRC_BLOCK };

struct ysrc_node;

struct ysrc_pair {
	struct ysrc_node *key;
	struct ysrc_node *value;
};

struct ysrc_node {
	enum ysrc_kind kind;
	enum ysrc_style style;        /* scalars */
	const char *tag;              /* "!Container" as written, or NULL */
	const char *str;              /* scalar text (never NULL for scalars) */
	struct diag_loc loc;          /* 1-based; file is the caller's string */
	size_t n;                     /* items (SEQ) or pairs (MAP) */
	struct ysrc_node **items;
	struct ysrc_pair *pairs;
};

/* Where each line of a rendered template came from (line i is lines[i], 0-based). */
struct ysrc_linemap {
	size_t n_lines;
	const char *const *files;      /* per line: the file's name, kept alive by the caller */
	const unsigned *lines;         /* per line: its 1-based line in that file */
};

/* Options of ysrc_parse_opts(); every field may be 0/NULL. */
struct ysrc_opts {
	const struct ysrc_linemap *map;        /* locate text lines through it */
	const char *hook_tag;                  /* scalars with this tag go to 'hook' */
	/*
	 * The node that replaces 'scalar' (in the parser's arena), or NULL after
	 * reporting an error to the diagnostics list.
	 */
	struct ysrc_node *(*hook)(void *ctx, const struct ysrc_node *scalar);
	void *hook_ctx;
	unsigned first_col;                    /* see ysrc_parse_at(); 0 = 1 */
};

/*
 * Parse the YAML text 'text' ('len' bytes) of file 'file' (a string that the
 * caller keeps alive: every location points to it). On success '*root' is
 * the first document's root node (NULL for an empty file) and 0 is returned;
 * on any error everything is reported to 'dl' and -1 is returned.
 */
int ysrc_parse(struct arena *a, const char *file, const char *text, size_t len,
	       struct diag_list *dl, struct ysrc_node **root);

/* ysrc_parse() with options ('opts' may be NULL). */
int ysrc_parse_opts(struct arena *a, const char *file, const char *text, size_t len,
		    const struct ysrc_opts *opts, struct diag_list *dl, struct ysrc_node **root);

/*
 * ysrc_parse() of text that starts at column 'first_col' (1-based) of line 1
 * of 'file': the columns of the first line are shifted, so that a value
 * taken from "PATH=VALUE" is located in the whole text.
 */
int ysrc_parse_at(struct arena *a, const char *file, unsigned first_col, const char *text,
		  size_t len, struct diag_list *dl, struct ysrc_node **root);

/* Read and parse the file 'path' (see ysrc_parse). */
int ysrc_parse_file(struct arena *a, const char *path, struct diag_list *dl,
		    struct ysrc_node **root);

/*
 * True when keys 'a' and 'b' are equal with '-' and '_' taken as equal.
 * Inline: the section parsers call it for every key they look up.
 */
static inline bool ysrc_key_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

/* The pair of 'map' whose key equals 'key' (ysrc_key_eq), or NULL. */
const struct ysrc_pair *ysrc_map_pair(const struct ysrc_node *map, const char *key);

/* The value of 'key' in 'map', or NULL when absent or 'map' is not a map. */
const struct ysrc_node *ysrc_map_get(const struct ysrc_node *map, const char *key);

/* True for a plain scalar '', '~', 'null', 'Null' or 'NULL'. */
bool ysrc_is_null(const struct ysrc_node *n);

/* A new scalar node with text 'text' (copied) at 'loc', owned by 'a'. */
struct ysrc_node *ysrc_scalar_new(struct arena *a, const char *text, struct diag_loc loc);

/*
 * The location of byte 'offset' of a scalar's text when the scalar sits on
 * one line (plain or quoted), else the scalar's own location.
 */
struct diag_loc ysrc_scalar_loc_at(const struct ysrc_node *n, size_t offset);

/* "a mapping", "a list", "a string" etc., for messages. */
const char *ysrc_kind_name(const struct ysrc_node *n);

#endif
