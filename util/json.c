#include "util/json.h"

#include <math.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

void json_init(struct json_writer *w, struct strbuf *sb, enum json_layout layout)
{
	w->sb = sb;
	w->layout = layout;
	w->depth = 0;
	w->first = true;
	w->inline_from = 0;
}

void json_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	while (s && *s) {
		unsigned long cp;
		size_t n = strbuf_utf8_len(s, &cp);
		if (n == 0) {
			strbuf_addstr(sb, "\\ufffd");  /* not UTF-8: the replacement character */
			s++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			strbuf_addf(sb, "\\%c", (char)cp);
		else if (cp == '\n')
			strbuf_addstr(sb, "\\n");
		else if (cp == '\t')
			strbuf_addstr(sb, "\\t");
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			strbuf_addf(sb, "\\u%04lx", cp);    /* C0, DEL and C1 controls */
		else
			strbuf_add(sb, s, n);
		s += n;
	}
	strbuf_addch(sb, '"');
}

static bool is_inline(const struct json_writer *w)
{
	return w->layout == JSON_COMPACT || w->inline_from;
}

/* Start a member: separator, line break and indentation as the layout asks, then "key". */
static void member(struct json_writer *w, const char *key)
{
	if (w->depth == 0) {
		w->first = false;   /* the root: no separator, no line */
		return;
	}
	if (!w->first)
		strbuf_addstr(w->sb, w->layout == JSON_COMPACT ? "," : is_inline(w) ? ", " : ",");
	if (!is_inline(w)) {
		strbuf_addch(w->sb, '\n');
		strbuf_addchars(w->sb, ' ', 2 * w->depth);
	}
	if (key) {
		json_quote(w->sb, key);
		strbuf_addstr(w->sb, w->layout == JSON_COMPACT ? ":" : ": ");
	}
	w->first = false;
}

void json_open(struct json_writer *w, const char *key, char bracket)
{
	member(w, key);
	strbuf_addch(w->sb, bracket);
	if (++w->depth >= JSON_MAX_DEPTH)
		BUG("JSON nested deeper than %d", JSON_MAX_DEPTH);
	w->first = true;
}

void json_open_inline(struct json_writer *w, const char *key, char bracket)
{
	json_open(w, key, bracket);
	if (!w->inline_from)
		w->inline_from = w->depth;
}

void json_close(struct json_writer *w, char bracket)
{
	bool was_inline = is_inline(w);

	if (w->depth == 0)
		BUG("JSON container closed twice");
	if (w->inline_from == w->depth)
		w->inline_from = 0;
	w->depth--;
	if (!was_inline) {
		strbuf_addch(w->sb, '\n');
		strbuf_addchars(w->sb, ' ', 2 * w->depth);
	}
	strbuf_addch(w->sb, bracket);
	w->first = false;
}

void json_u64(struct json_writer *w, const char *key, uint64_t v)
{
	member(w, key);
	strbuf_addf(w->sb, "%llu", (unsigned long long)v);
}

void json_i64(struct json_writer *w, const char *key, int64_t v)
{
	member(w, key);
	strbuf_addf(w->sb, "%lld", (long long)v);
}

void json_double(struct json_writer *w, const char *key, double v)
{
	member(w, key);
	if (isfinite(v))
		strbuf_addf(w->sb, "%.17g", v);
	else
		strbuf_addstr(w->sb, "null");
}

void json_bool(struct json_writer *w, const char *key, bool v)
{
	member(w, key);
	strbuf_addstr(w->sb, v ? "true" : "false");
}

void json_str(struct json_writer *w, const char *key, const char *v)
{
	member(w, key);
	if (v)
		json_quote(w->sb, v);
	else
		strbuf_addstr(w->sb, "null");
}

void json_raw(struct json_writer *w, const char *key, const char *text)
{
	member(w, key);
	strbuf_addstr(w->sb, text);
}

void json_null(struct json_writer *w, const char *key)
{
	member(w, key);
	strbuf_addstr(w->sb, "null");
}

void json_opt_double(struct json_writer *w, const char *key, bool has, double v)
{
	if (has)
		json_double(w, key, v);
	else
		json_null(w, key);
}
