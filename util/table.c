/*
 * Typed tables: columns appended at any time (a row created before a
 * column reads it as null), rows of cells in one arena.
 */
#include "util/table.h"

#include <math.h>
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

/* 10^k, k = 0..22: the powers of ten a double holds exactly. */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define P15_LO 100000000000000LL    /* 10^14: the smallest 15-digit integer */
#define P15_HI 1000000000000000LL   /* 10^15 */

/*
 * What snprintf("%.15g") writes for 'v', when that text reads back as 'v'
 * (true), without printf: v = m * 10^(e - 14) with m a 15-digit integer.
 * m / 10^k (or m * 10^k) for |k| <= 22 is one correctly rounded operation,
 * so it is the double that the text of m and k reads as (strtod's exact
 * case); when that is 'v', the text is v's 15-digit rounding (two doubles
 * never share a 15-digit text), which is what %.15g prints: 1. When it is
 * not 'v' and m is surely v's 15-digit rounding (the product or quotient is
 * off by at most 0.12 from the exact one, so a product within 0.38 of m
 * rounds to m), %.15g does not read back: -1. Else 0: the caller asks
 * printf.
 */
static int format_15(double v, char *buf, size_t size)
{
	double a = fabs(v), back, scaled = 0;
	char digits[16], *o = buf;
	long long m;
	int e, k, tries, i, n;

	if (size < 32 || !(a >= 1e-7) || !(a < 1e22))   /* also NaN, inf, 0 */
		return 0;
	e = (int)floor(log10(a));
	for (tries = 0; tries < 3; tries++) {
		k = 14 - e;
		if (k < -22 || k > 22)
			return 0;
		scaled = k >= 0 ? a * pow10_exact[k] : a / pow10_exact[-k];
		m = llround(scaled);
		if (m >= P15_HI)
			e++;
		else if (m < P15_LO)
			e--;
		else
			break;
	}
	if (tries == 3)
		return 0;
	back = k >= 0 ? (double)m / pow10_exact[k] : (double)m * pow10_exact[-k];
	if (back != a)
		return m > P15_LO && m < P15_HI - 1 && fabs(scaled - (double)m) <= 0.38 ? -1 : 0;
	u64_decimal_back(digits + 15, (uint64_t)m);   /* 15 digits: P15_LO <= m < P15_HI */
	for (n = 15; n > 1 && digits[n - 1] == '0'; n--)   /* %g drops trailing zeros */
		;
	if (v < 0)
		*o++ = '-';
	if (e >= -4 && e < 15) {           /* %f style */
		if (e < 0) {
			*o++ = '0';
			*o++ = '.';
			for (i = -1; i > e; i--)
				*o++ = '0';
			memcpy(o, digits, (size_t)n);
			o += n;
		} else {
			memcpy(o, digits, (size_t)(e + 1));
			o += e + 1;
			if (n > e + 1) {
				*o++ = '.';
				memcpy(o, digits + e + 1, (size_t)(n - e - 1));
				o += n - e - 1;
			}
		}
		*o = '\0';
	} else {                            /* %e style: d[.ddd]e+XX */
		*o++ = digits[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)(n - 1));
			o += n - 1;
		}
		snprintf(o, size - (size_t)(o - buf), "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
	return 1;
}

/*
 * The shortest of %.15g, %.16g, %.17g that reads back as 'v' (%.17g always
 * does). Integers and values exact at 15 digits, most of a sweep's, take
 * format_15(); it writes what %.15g writes.
 */
void table_format_real(double v, char *buf, size_t size)
{
	int prec, fast = format_15(v, buf, size);

	if (fast > 0)
		return;
	for (prec = fast < 0 ? 16 : 15; prec < 17; prec++) {
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
