/*
 * The one JSON writer: appends a JSON document to a strbuf, member by
 * member, in one of two layouts. JSON_PRETTY puts every member on a line of
 * its own, indented two spaces per depth, with "key": value; a container
 * opened with json_open_inline() keeps its members on one line, separated by
 * ", " (for small leaf records). JSON_COMPACT writes no white space at all.
 * Strings are escaped, doubles that are not finite are written as null, and
 * doubles are printed with %.17g so that they round-trip. The writer never
 * allocates beyond the strbuf and never prints.
 */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;

enum json_layout { JSON_PRETTY, JSON_COMPACT };

#define JSON_MAX_DEPTH 32

struct json_writer {
	struct strbuf *sb;             /* borrowed: where the document goes */
	enum json_layout layout;
	unsigned depth;
	bool first;                    /* no member yet in the open container */
	unsigned inline_from;          /* depth of the outermost inline container, or 0 */
};

/* Start writing to 'sb' in 'layout'; nothing is written yet. */
void json_init(struct json_writer *w, struct strbuf *sb, enum json_layout layout);

/*
 * Open an object ('{') or array ('['): as member 'key' of the enclosing
 * object, or as an item when 'key' is NULL (also for the document's root).
 */
void json_open(struct json_writer *w, const char *key, char bracket);

/* json_open() whose members stay on one line (pretty layout only). */
void json_open_inline(struct json_writer *w, const char *key, char bracket);

/* Close the innermost container with ']' or '}'. */
void json_close(struct json_writer *w, char bracket);

/* Members: "key": value, or an array item when 'key' is NULL. */
void json_u64(struct json_writer *w, const char *key, uint64_t v);
void json_i64(struct json_writer *w, const char *key, int64_t v);
void json_double(struct json_writer *w, const char *key, double v);
void json_bool(struct json_writer *w, const char *key, bool v);
/* A string, or null when 'v' is NULL. */
void json_str(struct json_writer *w, const char *key, const char *v);
void json_null(struct json_writer *w, const char *key);
/* A member whose value is 'text' as it is (a number its caller formatted). */
void json_raw(struct json_writer *w, const char *key, const char *text);

/* A double, or null when 'has' is false. */
void json_opt_double(struct json_writer *w, const char *key, bool has, double v);

/* Append 's' to 'sb' as a quoted, escaped JSON string (NULL: ""). */
void json_quote(struct strbuf *sb, const char *s);

#endif
