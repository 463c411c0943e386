/*
 * Typed tables: columns appended at any time (a row created before a
 * column reads it as null), rows of cells in one arena.
 */
#include "util/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* Each row is allocated with room for this many columns more than the table has. */
#define ROW_SLACK 8

struct row_head {
	size_t n;                      /* cells allocated in this row */
};

/* The cell array of row 'r' and its capacity. */
static struct table_cell *row_cells(const struct table *t, size_t r, size_t *cap)
{
	struct row_head *h = (struct row_head *)(void *)t->rows[r] - 1;
	*cap = h->n;
	return t->rows[r];
}

size_t table_add_col(struct table *t, const char *name)
{
	XGROW(t->cols, t->n_cols + 1, t->alloc_cols);
	t->cols[t->n_cols] = arena_strdup(&t->arena, name);
	return t->n_cols++;
}

long table_col(const struct table *t, const char *name)
{
	size_t c;
	for (c = 0; c < t->n_cols; c++)
		if (!strcmp(t->cols[c], name))
			return (long)c;
	return -1;
}

/* A row of 'n' null cells, preceded by its head, in the arena. */
static struct table_cell *new_row(struct table *t, size_t n)
{
	struct row_head *h = arena_alloc(&t->arena, sizeof(*h) + n * sizeof(struct table_cell));
	h->n = n;
	return (struct table_cell *)(void *)(h + 1);
}

size_t table_add_row(struct table *t)
{
	XGROW(t->rows, t->n_rows + 1, t->alloc_rows);
	t->rows[t->n_rows] = new_row(t, t->n_cols + ROW_SLACK);
	return t->n_rows++;
}

void table_set(struct table *t, size_t r, size_t c, enum table_type type, const char *text)
{
	struct table_cell *cells;
	size_t cap;

	if (r >= t->n_rows || c >= t->n_cols)
		BUG("cell (%zu, %zu) outside a %zu x %zu table", r, c, t->n_rows, t->n_cols);
	cells = row_cells(t, r, &cap);
	if (c >= cap) {
		struct table_cell *grown = new_row(t, t->n_cols + ROW_SLACK);
		memcpy(grown, cells, cap * sizeof(*cells));
		t->rows[r] = cells = grown;
	}
	cells[c].type = text ? type : TABLE_NULL;
	cells[c].text = text ? arena_strdup(&t->arena, text) : NULL;
}

struct table_cell table_get(const struct table *t, size_t r, size_t c)
{
	struct table_cell none = { TABLE_NULL, NULL };
	const struct table_cell *cells;
	size_t cap;

	if (r >= t->n_rows || c >= t->n_cols)
		BUG("cell (%zu, %zu) outside a %zu x %zu table", r, c, t->n_rows, t->n_cols);
	cells = row_cells(t, r, &cap);
	return c < cap ? cells[c] : none;
}

void table_release(struct table *t)
{
	arena_release(&t->arena);
	free(t->cols);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void table_format_real(double v, char *buf, size_t size)
{
	int prec;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, size, "%.17g", v);
}

void table_csv_field(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}
