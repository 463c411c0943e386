/*
 * Answers from a results table ('fiberloop results' --best, --pivot,
 * --crossovers): the best row of each group with its margin over the
 * runner-up, a pivot of metrics by an x column and a series, and where one
 * series starts to beat another along x. Which way is better comes from the
 * metric vocabulary (job/metric.c). The input is a table as
 * job_results_query() gives it; the answer is another table for the same
 * writers (text, CSV, JSON).
 */
#include "job/job_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* A list of columns of the input table: their indexes. */
struct cols {
	size_t n;
	size_t *c;
};

/* Split "a,b,c" and find each column; -1 with a did-you-mean in 'err'. */
static int find_cols(const struct table *t, const char *list, const char *opt, struct cols *out,
		     struct strbuf *err)
{
	const char *p = list;

	out->n = 0;
	out->c = xcalloc(strlen(list) + 1, sizeof(*out->c));
	for (;;) {
		size_t len = strcspn(p, ",");
		char *name = xstrndup(p, len);
		long c = table_col(t, name);
		if (c < 0) {
			const char *h = diag_suggest(name, t->cols, t->n_cols);
			strbuf_addf(err, "%s: no column '%s' in the results%s%s%s", opt, name,
				    h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
			free(name);
			return -1;
		}
		free(name);
		out->c[out->n++] = (size_t)c;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* The texts of row 'r' in columns 'cs', joined by '/' (a null cell is empty). */
static void key_of(const struct table *t, size_t r, const struct cols *cs, struct strbuf *sb)
{
	size_t i;

	strbuf_reset(sb);
	for (i = 0; i < cs->n; i++) {
		struct table_cell c = table_get(t, r, cs->c[i]);
		strbuf_addf(sb, "%s%s", i ? "/" : "", c.text ? c.text : "");
	}
}

/* The number in cell (r, c); NaN when null or not a number. */
static double num_of(const struct table *t, size_t r, size_t c)
{
	struct table_cell cell = table_get(t, r, c);
	char *end;
	double v;

	if (cell.type != TABLE_INT && cell.type != TABLE_REAL)
		return NAN;
	v = strtod(cell.text, &end);
	return *end ? NAN : v;
}

/* True when metric column 'name' is better higher (the vocabulary; others lower). */
static bool higher_better(const char *name)
{
	int m = job_metric_find(name);
	return m >= 0 && job_metric_get((enum job_metric_id)m)->better == JOB_BETTER_HIGHER;
}

/* True when a beats b for a metric ('higher': higher is better); NaN never wins. */
static bool beats(double a, double b, bool higher)
{
	if (isnan(a))
		return false;
	if (isnan(b))
		return true;
	return higher ? a > b : a < b;
}

/* A real as the answer shows it: 6 significant digits. */
static void set_num(struct table *o, size_t r, size_t c, double v)
{
	char buf[64];

	if (isnan(v))
		return;
	if (fabs(v) >= 1e6 && fabs(v) < 1e15) {   /* no e-notation for what reads as a count */
		snprintf(buf, sizeof(buf), "%.0f", v);
		table_set(o, r, c, TABLE_INT, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "%.6g", v);
	table_set(o, r, c, v == floor(v) && fabs(v) < 1e15 ? TABLE_INT : TABLE_REAL, buf);
}

/* The distinct keys of the rows in order of first appearance. */
struct keys {
	size_t n, alloc;
	char **k;
};

static size_t key_index(struct keys *ks, const char *k, bool add)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (!strcmp(ks->k[i], k))
			return i;
	if (!add)
		return SIZE_MAX;
	XGROW(ks->k, ks->n + 1, ks->alloc);
	ks->k[ks->n] = xstrdup(k);
	return ks->n++;
}

static void keys_release(struct keys *ks)
{
	size_t i;
	for (i = 0; i < ks->n; i++)
		free(ks->k[i]);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}

/* The rows that count: status ok (when the table has a status). */
static bool row_ok(const struct table *t, size_t r)
{
	long s = table_col(t, "status");
	struct table_cell c;

	if (s < 0)
		return true;
	c = table_get(t, r, (size_t)s);
	return c.text && !strcmp(c.text, "ok");
}

/*
 * The columns that tell the rows of a group apart: the sweep's axes (the
 * columns between 'name' and 'status') not in 'by'; none: 'name'.
 */
static void series_cols(const struct table *t, const struct cols *by, struct cols *out)
{
	long name = table_col(t, "name"), status = table_col(t, "status");
	size_t c, i;

	out->n = 0;
	out->c = xcalloc(t->n_cols + 1, sizeof(*out->c));
	for (c = name >= 0 ? (size_t)name + 1 : 0; status >= 0 && c < (size_t)status; c++) {
		bool in_by = false;
		for (i = 0; i < by->n; i++)
			in_by |= by->c[i] == c;
		if (!in_by)
			out->c[out->n++] = c;
	}
	if (!out->n && name >= 0)
		out->c[out->n++] = (size_t)name;
}

/* --best METRIC --by COLS: per group its best row, the runner-up and the margin. */
static int best_of(const struct table *t, const struct job_results_view *v, struct table *o,
		   struct strbuf *err)
{
	struct cols by = { 0, NULL }, ser = { 0, NULL };
	struct strbuf key = STRBUF_INIT, sk = STRBUF_INIT;
	struct keys groups = { 0, 0, NULL };
	long mc = table_col(t, v->best);
	bool higher = higher_better(v->best);
	size_t *best = NULL, *second = NULL, r, g, i;
	int rc = -1;

	if (mc < 0) {
		const char *h = diag_suggest(v->best, t->cols, t->n_cols);
		strbuf_addf(err, "--best: no column '%s' in the results%s%s%s", v->best,
			    h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
		return -1;
	}
	if (v->by && find_cols(t, v->by, "--by", &by, err) < 0)
		goto out;
	series_cols(t, &by, &ser);
	best = xcalloc(t->n_rows + 1, sizeof(*best));
	second = xcalloc(t->n_rows + 1, sizeof(*second));
	for (r = 0; r < t->n_rows; r++) {
		double x = num_of(t, r, (size_t)mc);
		if (!row_ok(t, r) || isnan(x))
			continue;
		key_of(t, r, &by, &key);
		g = key_index(&groups, key.buf, true);
		if (best[g] == 0 || beats(x, num_of(t, best[g] - 1, (size_t)mc), higher)) {
			struct strbuf bk = STRBUF_INIT;
			if (best[g]) {
				key_of(t, best[g] - 1, &ser, &bk);
				key_of(t, r, &ser, &sk);
				if (strcmp(bk.buf, sk.buf))   /* the old best is the runner-up */
					second[g] = best[g];
			}
			strbuf_release(&bk);
			best[g] = r + 1;
		} else {
			struct strbuf bk = STRBUF_INIT;
			key_of(t, best[g] - 1, &ser, &bk);
			key_of(t, r, &ser, &sk);
			if (strcmp(bk.buf, sk.buf) &&
			    (second[g] == 0 || beats(x, num_of(t, second[g] - 1, (size_t)mc), higher)))
				second[g] = r + 1;
			strbuf_release(&bk);
		}
	}
	for (i = 0; i < by.n; i++)
		table_add_col(o, t->cols[by.c[i]]);
	table_add_col(o, "best");
	table_add_col(o, v->best);
	table_add_col(o, "runner_up");
	strbuf_reset(&sk);
	strbuf_addf(&sk, "runner_up_%s", v->best);
	table_add_col(o, sk.buf);
	table_add_col(o, "margin");
	for (g = 0; g < groups.n; g++) {
		size_t row = table_add_row(o), b = best[g] - 1, c = 0;
		double bv = num_of(t, b, (size_t)mc);
		for (i = 0; i < by.n; i++, c++) {
			struct table_cell cell = table_get(t, b, by.c[i]);
			table_set(o, row, c, cell.type, cell.text);
		}
		key_of(t, b, &ser, &sk);
		table_set(o, row, c++, TABLE_TEXT, sk.buf);
		set_num(o, row, c++, bv);
		if (second[g]) {
			double sv = num_of(t, second[g] - 1, (size_t)mc);
			key_of(t, second[g] - 1, &ser, &sk);
			table_set(o, row, c++, TABLE_TEXT, sk.buf);
			set_num(o, row, c++, sv);
			/* how many times better the best is: >= 1 */
			set_num(o, row, c, higher ? bv / sv : sv / bv);
		}
	}
	rc = 0;
out:
	free(best);
	free(second);
	free(by.c);
	free(ser.c);
	keys_release(&groups);
	strbuf_release(&key);
	strbuf_release(&sk);
	return rc;
}

/* The pivot: x values (rows) by series (columns) of the metrics 'ys'. */
struct pivot {
	struct keys xs, series;
	size_t n_y;
	long *yc;                      /* the metrics' columns */
	double *v;                     /* v[(x * n_series + s) * n_y + y] */
	size_t *xrow;                  /* a row of each x (its cell, for the answer) */
	long xc;
};

/* True when every x is a number: then the rows go in numeric order. */
static bool xs_numeric(const struct table *t, const struct pivot *p)
{
	size_t i;
	char *end;

	for (i = 0; i < p->xs.n; i++) {
		if (!*p->xs.k[i])
			return false;
		(void)strtod(p->xs.k[i], &end);
		if (*end)
			return false;
	}
	(void)t;
	return true;
}

/* Keep x 'k' of --at "V1,V2,..." (numbers compare as numbers). */
static bool at_keeps(const char *at, const char *k)
{
	const char *p = at;
	char *end;
	double kv = strtod(k, &end);
	bool knum = *k && !*end;

	for (;;) {
		size_t len = strcspn(p, ",");
		char *w = xstrndup(p, len);
		double wv = strtod(w, &end);
		bool hit = (knum && *w && !*end) ? wv == kv : !strcmp(w, k);
		free(w);
		if (hit)
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

static void pivot_release(struct pivot *p)
{
	keys_release(&p->xs);
	keys_release(&p->series);
	free(p->yc);
	free(p->v);
	free(p->xrow);
}

/* Fill the pivot; -1 with 'err' when two rows fall in one cell or a column is unknown. */
static int pivot_fill(const struct table *t, const struct job_results_view *v, struct pivot *p,
		      struct strbuf *err)
{
	struct cols ser = { 0, NULL }, none = { 0, NULL };
	struct strbuf xk = STRBUF_INIT, sk = STRBUF_INIT;
	size_t r, i, *first;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->xc = table_col(t, v->x);
	if (p->xc < 0) {
		const char *h = diag_suggest(v->x, t->cols, t->n_cols);
		strbuf_addf(err, "--x: no column '%s' in the results%s%s%s", v->x,
			    h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
		return -1;
	}
	if (v->pivot) {
		if (find_cols(t, v->pivot, "--pivot", &ser, err) < 0)
			goto out;
	} else {
		none.c = xcalloc(1, sizeof(*none.c));
		none.c[0] = (size_t)p->xc;
		series_cols(t, &none, &ser);
	}
	p->n_y = v->n_ys ? v->n_ys : 1;
	p->yc = xcalloc(p->n_y, sizeof(*p->yc));
	for (i = 0; i < p->n_y; i++) {
		const char *y = v->n_ys ? v->ys[i] : "energy_pj";
		p->yc[i] = table_col(t, y);
		if (p->yc[i] < 0) {
			const char *h = diag_suggest(y, t->cols, t->n_cols);
			strbuf_addf(err, "--y: no column '%s' in the results%s%s%s", y,
				    h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
			goto out;
		}
	}
	for (r = 0; r < t->n_rows; r++) {   /* the keys first: their counts size the cells */
		struct table_cell xcell = table_get(t, r, (size_t)p->xc);
		if (!row_ok(t, r) || (v->at && !at_keeps(v->at, xcell.text ? xcell.text : "")))
			continue;
		key_index(&p->xs, xcell.text ? xcell.text : "", true);
		key_of(t, r, &ser, &sk);
		key_index(&p->series, sk.buf, true);
	}
	if (xs_numeric(t, p)) {             /* numeric order of x (a stable insertion sort) */
		for (i = 1; i < p->xs.n; i++) {
			char *k = p->xs.k[i];
			size_t j = i;
			while (j > 0 && strtod(p->xs.k[j - 1], NULL) > strtod(k, NULL)) {
				p->xs.k[j] = p->xs.k[j - 1];
				j--;
			}
			p->xs.k[j] = k;
		}
	}
	p->v = xmalloc((p->xs.n * p->series.n * p->n_y + 1) * sizeof(*p->v));
	for (i = 0; i < p->xs.n * p->series.n * p->n_y; i++)
		p->v[i] = NAN;
	p->xrow = xcalloc(p->xs.n + 1, sizeof(*p->xrow));
	first = xcalloc(p->xs.n * p->series.n + 1, sizeof(*first));
	for (r = 0; r < t->n_rows; r++) {
		struct table_cell xcell = table_get(t, r, (size_t)p->xc);
		size_t x, s, cell;
		if (!row_ok(t, r) || (v->at && !at_keeps(v->at, xcell.text ? xcell.text : "")))
			continue;
		x = key_index(&p->xs, xcell.text ? xcell.text : "", false);
		key_of(t, r, &ser, &sk);
		s = key_index(&p->series, sk.buf, false);
		cell = x * p->series.n + s;
		if (first[cell]) {
			strbuf_addf(err, "rows %zu and %zu both have %s=%s and the series '%s': "
				    "name the column that tells them apart in --pivot, or keep one "
				    "with --where", first[cell] - 1, r, v->x, p->xs.k[x], sk.buf);
			free(first);
			goto out;
		}
		first[cell] = r + 1;
		p->xrow[x] = r;
		for (i = 0; i < p->n_y; i++)
			p->v[cell * p->n_y + i] = num_of(t, r, (size_t)p->yc[i]);
	}
	free(first);
	rc = 0;
out:
	free(ser.c);
	free(none.c);
	strbuf_release(&xk);
	strbuf_release(&sk);
	return rc;
}

/* --pivot COLS --x COL --y METRIC...: a row per x, a column per metric and series, the best. */
static void pivot_table(const struct table *t, const struct job_results_view *v,
			const struct pivot *p, struct table *o)
{
	struct strbuf name = STRBUF_INIT;
	size_t x, s, y, c;

	table_add_col(o, v->x);
	for (y = 0; y < p->n_y; y++) {
		for (s = 0; s < p->series.n; s++) {
			strbuf_reset(&name);
			strbuf_addf(&name, "%s %s", t->cols[p->yc[y]], p->series.k[s]);
			table_add_col(o, name.buf);
		}
		if (p->series.n > 1) {
			strbuf_reset(&name);
			strbuf_addf(&name, "%s best", t->cols[p->yc[y]]);
			table_add_col(o, name.buf);
		}
	}
	for (x = 0; x < p->xs.n; x++) {
		size_t row = table_add_row(o);
		struct table_cell xc = table_get(t, p->xrow[x], (size_t)p->xc);
		table_set(o, row, 0, xc.type, xc.text);
		c = 1;
		for (y = 0; y < p->n_y; y++) {
			bool higher = higher_better(t->cols[p->yc[y]]);
			size_t b = SIZE_MAX;
			for (s = 0; s < p->series.n; s++) {
				double val = p->v[(x * p->series.n + s) * p->n_y + y];
				set_num(o, row, c++, val);
				if (!isnan(val) && (b == SIZE_MAX ||
				    beats(val, p->v[(x * p->series.n + b) * p->n_y + y], higher)))
					b = s;
			}
			if (p->series.n > 1) {
				if (b != SIZE_MAX)
					table_set(o, row, c, TABLE_TEXT, p->series.k[b]);
				c++;
			}
		}
	}
	strbuf_release(&name);
}

/*
 * --crossovers: for each metric and each two series, every x where the one
 * that was better at the x before stops being better (ties keep the winner).
 */
static void crossover_table(const struct table *t, const struct pivot *p, struct table *o)
{
	size_t y, a, b, x;

	table_add_col(o, "metric");
	table_add_col(o, "series");
	table_add_col(o, "against");
	table_add_col(o, "x_before");
	table_add_col(o, t->cols[p->xc]);
	table_add_col(o, "from");
	table_add_col(o, "to");
	for (y = 0; y < p->n_y; y++) {
		bool higher = higher_better(t->cols[p->yc[y]]);
		for (a = 0; a < p->series.n; a++)
			for (b = a + 1; b < p->series.n; b++) {
				long winner = -1;
				size_t prev = 0;
				for (x = 0; x < p->xs.n; x++) {
					double va = p->v[(x * p->series.n + a) * p->n_y + y];
					double vb = p->v[(x * p->series.n + b) * p->n_y + y];
					long w;
					size_t row;
					if (isnan(va) || isnan(vb))
						continue;
					w = beats(va, vb, higher) ? (long)a : beats(vb, va, higher) ?
					    (long)b : winner;
					if (winner >= 0 && w != winner) {
						row = table_add_row(o);
						table_set(o, row, 0, TABLE_TEXT, t->cols[p->yc[y]]);
						table_set(o, row, 1, TABLE_TEXT, p->series.k[a]);
						table_set(o, row, 2, TABLE_TEXT, p->series.k[b]);
						table_set(o, row, 3, table_get(t, p->xrow[prev],
							  (size_t)p->xc).type, p->xs.k[prev]);
						table_set(o, row, 4, table_get(t, p->xrow[x],
							  (size_t)p->xc).type, p->xs.k[x]);
						table_set(o, row, 5, TABLE_TEXT, p->series.k[winner]);
						table_set(o, row, 6, TABLE_TEXT, p->series.k[w]);
					}
					winner = w;
					prev = x;
				}
			}
	}
}

int job_results_view(const struct table *t, const struct job_results_view *v, struct table *out,
		     struct strbuf *err)
{
	struct pivot p;

	if (v->best)
		return best_of(t, v, out, err);
	if (!v->x) {
		strbuf_addstr(err, "--pivot and --crossovers need --x COLUMN (the axis along which)");
		return -1;
	}
	if (pivot_fill(t, v, &p, err) < 0) {
		pivot_release(&p);
		return -1;
	}
	if (v->crossovers)
		crossover_table(t, &p, out);
	else
		pivot_table(t, v, &p, out);
	pivot_release(&p);
	return 0;
}
