/*
 * A table of typed cells: column names and rows of text cells, each with
 * its type (null, integer, real, text), as a query returns them. The
 * results database fills one (store/), the writers print one (report/),
 * and nothing else about either is shared. Everything lives in the table's
 * arena until table_release().
 */
#ifndef UTIL_TABLE_H
#define UTIL_TABLE_H

#include <stddef.h>

#include "util/arena.h"

struct strbuf;

enum table_type { TABLE_NULL, TABLE_INT, TABLE_REAL, TABLE_TEXT };

struct table_cell {
	enum table_type type;
	const char *text;              /* NULL for TABLE_NULL */
};

struct table {
	struct arena arena;            /* owns the names and the texts */
	size_t n_cols, alloc_cols;
	const char **cols;
	size_t n_rows, alloc_rows;
	struct table_cell **rows;      /* rows[r][c], c < n_cols at the row's creation */
};

#define TABLE_INIT { ARENA_INIT, 0, 0, NULL, 0, 0, NULL }

/* Append a column named 'name' (copied); its index. Rows added before hold NULL there. */
size_t table_add_col(struct table *t, const char *name);

/* Index of the column named 'name', or -1. */
long table_col(const struct table *t, const char *name);

/* Append a row of n_cols null cells; its index. */
size_t table_add_row(struct table *t);

/* Set cell (r, c) to 'text' (copied; NULL gives a null cell) of type 'type'. */
void table_set(struct table *t, size_t r, size_t c, enum table_type type, const char *text);

/* Cell (r, c); a null cell for a column added after the row. */
struct table_cell table_get(const struct table *t, size_t r, size_t c);

/* The text of a real cell: the shortest of %.15g, %.16g and %.17g that reads back as 'v'. */
void table_format_real(double v, char *buf, size_t size);

/* Append 's' as a CSV field: quoted when it holds a comma, a quote or a line break. */
void table_csv_field(struct strbuf *sb, const char *s);

/* Free everything; 't' becomes an empty table again. */
void table_release(struct table *t);

#endif
