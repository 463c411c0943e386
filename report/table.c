/*
 * Typed tables (util/table.h) as CSV (RFC 4180 quoting), as a JSON array of
 * objects (numbers as numbers, nulls as null) and as an aligned text table
 * for people (numbers to the right, long or multi-line text shortened).
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* Longest text shown in a cell of a text table. */
#define TEXT_CELL_MAX 72

void report_table_csv(const struct table *t, const size_t *cols, size_t n_cols,
		      struct strbuf *out)
{
	size_t r, i, n = cols ? n_cols : t->n_cols;

	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(out, ',');
		table_csv_field(out, t->cols[cols ? cols[i] : i]);
	}
	strbuf_addch(out, '\n');
	for (r = 0; r < t->n_rows; r++) {
		for (i = 0; i < n; i++) {
			if (i)
				strbuf_addch(out, ',');
			table_csv_field(out, table_get(t, r, cols ? cols[i] : i).text);
		}
		strbuf_addch(out, '\n');
	}
}

/* One cell as a member of a JSON object. */
static void json_cell(struct json_writer *w, const char *key, struct table_cell x)
{
	switch (x.type) {
	case TABLE_NULL:
		json_null(w, key);
		break;
	case TABLE_INT:
	case TABLE_REAL:
		if (strpbrk(x.text, "in"))
			json_null(w, key);      /* inf or nan: JSON has no such number */
		else
			json_raw(w, key, x.text);   /* the number as it reads back exactly */
		break;
	default:
		json_str(w, key, x.text);
		break;
	}
}

void report_table_json(const struct table *t, const size_t *cols, size_t n_cols,
		       struct strbuf *out)
{
	struct json_writer w;
	size_t r, i, n = cols ? n_cols : t->n_cols;

	json_init(&w, out, JSON_PRETTY);
	json_open(&w, NULL, '[');
	for (r = 0; r < t->n_rows; r++) {
		json_open_inline(&w, NULL, '{');
		for (i = 0; i < n; i++) {
			size_t c = cols ? cols[i] : i;
			json_cell(&w, t->cols[c], table_get(t, r, c));
		}
		json_close(&w, '}');
	}
	json_close(&w, ']');
	strbuf_addch(out, '\n');
}

/*
 * The text of a cell as a text table shows it: reals to 6 significant
 * digits, text on one line of at most TEXT_CELL_MAX characters.
 */
static void shown(struct table_cell x, struct strbuf *sb)
{
	const char *s = x.text ? x.text : "-";
	size_t i;

	strbuf_reset(sb);
	if (x.type == TABLE_REAL) {
		strbuf_addf(sb, "%.6g", strtod(x.text, NULL));
		return;
	}
	for (i = 0; s[i];) {
		unsigned long cp;
		size_t n = strbuf_utf8_len(s + i, &cp);
		if (n == 1 && s[i] == '\n')
			strbuf_addstr(sb, " | ");
		else if (n == 0 || cp < 0x20 || cp == 0x7f)    /* never raw to a terminal */
			strbuf_addf(sb, "\\x%02x", (unsigned char)s[i]);
		else if (cp >= 0x80 && cp <= 0x9f)
			strbuf_addf(sb, "\\u%04lx", cp);
		else
			strbuf_add(sb, s + i, n);
		i += n ? n : 1;
	}
	if (sb->len > TEXT_CELL_MAX) {
		size_t cut = TEXT_CELL_MAX - 3;
		while (cut > 0 && ((unsigned char)sb->buf[cut] & 0xc0) == 0x80)
			cut--;                  /* not inside a character */
		strbuf_setlen(sb, cut);
		strbuf_addstr(sb, "...");
	}
}

/* True when column 'c' of 't' holds nothing but nulls. */
static bool all_null(const struct table *t, size_t c)
{
	size_t r;
	for (r = 0; r < t->n_rows; r++)
		if (table_get(t, r, c).type != TABLE_NULL)
			return false;
	return true;
}

void report_table_text(const struct table *t, const size_t *cols, size_t n_cols,
		       struct strbuf *out)
{
	struct strbuf cell = STRBUF_INIT;
	size_t *use = xcalloc(t->n_cols + 1, sizeof(*use)), *width, n = 0, i, r;

	for (i = 0; i < (cols ? n_cols : t->n_cols); i++) {
		size_t c = cols ? cols[i] : i;
		if (c < t->n_cols && !all_null(t, c))
			use[n++] = c;
	}
	width = xcalloc(n + 1, sizeof(*width));
	for (i = 0; i < n; i++) {
		width[i] = strlen(t->cols[use[i]]);
		for (r = 0; r < t->n_rows; r++) {
			shown(table_get(t, r, use[i]), &cell);
			if (cell.len > width[i])
				width[i] = cell.len;
		}
	}
	for (i = 0; i < n; i++)
		strbuf_addf(out, "%s%-*s", i ? "  " : "", i + 1 < n ? (int)width[i] : 0,
			    t->cols[use[i]]);
	strbuf_addch(out, '\n');
	for (r = 0; r < t->n_rows; r++) {
		for (i = 0; i < n; i++) {
			struct table_cell x = table_get(t, r, use[i]);
			bool num = x.type == TABLE_INT || x.type == TABLE_REAL;
			shown(x, &cell);
			if (i)
				strbuf_addstr(out, "  ");
			if (num)
				strbuf_addf(out, "%*s", (int)width[i], cell.buf);
			else
				strbuf_addf(out, "%-*s", i + 1 < n ? (int)width[i] : 0, cell.buf);
		}
		strbuf_addch(out, '\n');
	}
	free(use);
	free(width);
	strbuf_release(&cell);
}
