/*
 * Plots of a results table as gnuplot scripts (gnuplot draws them; cli/
 * runs it and writes the image). A line plot has one line per value of the
 * series columns, points sorted by x, one panel per y column; a text x
 * column is laid out as categories in the order they first appear. The
 * 'levels' plot stacks the energy of every storage level (the table's
 * LEVEL_METRIC.LEVEL columns, energy_pj.DRAM ...) in one bar per row. The data go inline, so the
 * script alone makes the picture.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* 's' as a gnuplot single-quoted string. */
static void quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\'');
		if (*s != '\n')
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* 's' as a field of an inline data block: double-quoted, without double quotes inside. */
static void data_label(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++)
		strbuf_addch(sb, *s == '"' ? '\'' : *s == '\n' ? ' ' : *s);
	strbuf_addch(sb, '"');
}

/* The column named 'name', or -1 after an error with a hint in 'err'. */
static long column(const struct table *t, const char *name, const char *option,
		   struct strbuf *err)
{
	long c = table_col(t, name);
	const char *h;

	if (c >= 0)
		return c;
	strbuf_addf(err, "%s: no column '%s' in the results", option, name);
	h = diag_suggest(name, t->cols, t->n_cols);
	if (h)
		strbuf_addf(err, "; did you mean '%s'?", h);
	return -1;
}

static bool is_number(struct table_cell x)
{
	return x.type == TABLE_INT || x.type == TABLE_REAL;
}

/* The terminal and the settings every plot starts with. */
static void preamble(const struct report_plot *p, unsigned panels, struct strbuf *sb)
{
	unsigned height = 120 + 360 * panels;

	if (p->image == REPORT_IMAGE_PNG)
		strbuf_addf(sb, "set terminal pngcairo size 900,%u noenhanced font 'Sans,11'\n",
			    height);
	else
		strbuf_addf(sb, "set terminal svg size 900,%u noenhanced font 'Sans,12' "
			    "background rgb 'white'\n", height);
	strbuf_addstr(sb, "set encoding utf8\nset grid\nset key outside right top\n");
	if (p->title && panels == 1) {
		strbuf_addstr(sb, "set title ");
		quoted(sb, p->title);
		strbuf_addch(sb, '\n');
	}
}

/* One point of a line plot. */
struct pt {
	size_t series;
	double x;
	const char *y;
	size_t row;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *u = a, *v = b;
	if (u->series != v->series)
		return u->series < v->series ? -1 : 1;
	if (u->x != v->x)
		return u->x < v->x ? -1 : 1;
	return (u->row > v->row) - (u->row < v->row);
}

/* The label of row 'r' by the series columns sc[0..n) ("" for none). */
static void series_label(const struct table *t, size_t r, const long *sc, size_t n,
			 struct strbuf *sb)
{
	size_t i;
	strbuf_reset(sb);
	for (i = 0; i < n; i++) {
		struct table_cell x = table_get(t, r, (size_t)sc[i]);
		strbuf_addf(sb, "%s%s", i ? " " : "", x.text ? x.text : "-");
	}
}

/* Index of 's' in names[0..*n), added when new. */
static size_t intern(char ***names, size_t *n, size_t *alloc, const char *s)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], s))
			return i;
	XGROW(*names, *n + 1, *alloc);
	(*names)[*n] = xstrdup(s);
	return (*n)++;
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

/* One panel: the y column 'yc' against 'xc', one line per series. */
static void line_panel(const struct table *t, const struct report_plot *p, long xc, long yc,
		       const long *sc, unsigned panel, struct strbuf *sb)
{
	struct strbuf label = STRBUF_INIT;
	char **series = NULL, **cats = NULL;
	size_t n_series = 0, a_series = 0, n_cats = 0, a_cats = 0, n = 0, r, i, s;
	struct pt *pts = xcalloc(t->n_rows + 1, sizeof(*pts));
	bool categorical = false;

	for (r = 0; r < t->n_rows; r++) {
		struct table_cell x = table_get(t, r, (size_t)xc);
		if (x.text && !is_number(x))
			categorical = true;
	}
	for (r = 0; r < t->n_rows; r++) {
		struct table_cell x = table_get(t, r, (size_t)xc), y = table_get(t, r, (size_t)yc);
		if (!x.text || !is_number(y))
			continue;
		series_label(t, r, sc, p->n_series, &label);
		pts[n].series = intern(&series, &n_series, &a_series, label.buf);
		pts[n].x = categorical ? (double)intern(&cats, &n_cats, &a_cats, x.text)
				       : strtod(x.text, NULL);
		pts[n].y = y.text;
		pts[n].row = r;
		n++;
	}
	qsort(pts, n, sizeof(*pts), cmp_pt);
	for (s = 0; s < n_series; s++) {
		strbuf_addf(sb, "$p%us%zu << EOD\n", panel, s);
		for (i = 0; i < n; i++)
			if (pts[i].series == s)
				strbuf_addf(sb, "%.17g %s\n", pts[i].x, pts[i].y);
		strbuf_addstr(sb, "EOD\n");
	}
	strbuf_addstr(sb, "set xlabel ");
	quoted(sb, p->x);
	strbuf_addstr(sb, "\nset ylabel ");
	quoted(sb, p->ys[panel]);
	strbuf_addch(sb, '\n');
	if (categorical) {
		strbuf_addstr(sb, "set xtics rotate by -30 (");
		for (i = 0; i < n_cats; i++) {
			strbuf_addstr(sb, i ? ", " : "");
			quoted(sb, cats[i]);
			strbuf_addf(sb, " %zu", i);
		}
		strbuf_addf(sb, ")\nset xrange [-0.5:%zu.5]\n", n_cats ? n_cats - 1 : 0);
	}
	if (!n_series) {
		strbuf_addstr(sb, "set label 'no data' at graph 0.5, graph 0.5 center\n"
			      "plot [0:1] [0:1] NaN notitle\nunset label\n");
	} else {
		strbuf_addstr(sb, "plot ");
		for (s = 0; s < n_series; s++) {
			strbuf_addf(sb, "%s$p%us%zu using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 title ",
				    s ? ", \\\n     " : "", panel, s);
			quoted(sb, p->n_series ? series[s] : p->ys[panel]);
		}
		strbuf_addch(sb, '\n');
	}
	if (categorical)
		strbuf_addstr(sb, "set xtics autofreq norotate\nset autoscale x\n");
	free_names(series, n_series);
	free_names(cats, n_cats);
	free(pts);
	strbuf_release(&label);
}

/* The energy of every level as stacked bars, one bar per row labelled by 'xc'. */
static int levels_panel(const struct table *t, const struct report_plot *p, long xc,
			struct strbuf *sb, struct strbuf *err)
{
	size_t *lc = xcalloc(t->n_cols + 1, sizeof(*lc)), n_lc = 0, c, r, k, n_rows = 0;
	size_t n_prefix = strlen(p->level_metric);

	for (c = 0; c < t->n_cols; c++)
		if (!strncmp(t->cols[c], p->level_metric, n_prefix) && t->cols[c][n_prefix] == '.')
			lc[n_lc++] = c;
	if (n_lc && table_col(t, "compute_energy_pj") >= 0)
		lc[n_lc++] = (size_t)table_col(t, "compute_energy_pj");
	if (!n_lc) {
		strbuf_addstr(err, "--y levels: the results have no level energies");
		free(lc);
		return -1;
	}
	strbuf_addstr(sb, "$levels << EOD\n");
	for (r = 0; r < t->n_rows; r++) {
		struct table_cell x = table_get(t, r, (size_t)xc);
		bool any = false;
		for (k = 0; k < n_lc; k++)
			any |= table_get(t, r, lc[k]).text != NULL;
		if (!any)
			continue;
		data_label(sb, x.text ? x.text : "-");
		for (k = 0; k < n_lc; k++) {
			struct table_cell v = table_get(t, r, lc[k]);
			strbuf_addf(sb, " %s", v.text ? v.text : "0");
		}
		strbuf_addch(sb, '\n');
		n_rows++;
	}
	strbuf_addstr(sb, "EOD\nset style data histograms\nset style histogram rowstacked\n"
		      "set style fill solid 0.85 border -1\nset boxwidth 0.7\n"
		      "set xtics rotate by -30\nset ylabel 'energy (pJ)'\nset xlabel ");
	quoted(sb, p->x);
	strbuf_addstr(sb, "\nplot ");
	for (k = 0; k < n_lc; k++) {
		struct strbuf title = STRBUF_INIT;
		if (!strcmp(t->cols[lc[k]], "compute_energy_pj"))
			strbuf_addstr(&title, "compute");
		else
			strbuf_addstr(&title, t->cols[lc[k]] + n_prefix + 1);
		strbuf_addf(sb, "%s$levels using %zu%s title ", k ? ", \\\n     " : "", k + 2,
			    k == 0 ? ":xtic(1)" : "");
		quoted(sb, title.buf);
		strbuf_release(&title);
	}
	strbuf_addch(sb, '\n');
	if (!n_rows)
		strbuf_addstr(sb, "# no row has level energies\n");
	free(lc);
	return 0;
}

int report_plot_gnuplot(const struct table *t, const struct report_plot *p, struct strbuf *out,
			struct strbuf *err)
{
	long xc, *yc = xcalloc(p->n_ys + 1, sizeof(*yc)), *sc = xcalloc(p->n_series + 1, sizeof(*sc));
	bool levels = p->n_ys == 1 && !strcmp(p->ys[0], "levels");
	size_t i;
	int rc = -1;

	if ((xc = column(t, p->x, "--x", err)) < 0)
		goto out;
	for (i = 0; i < p->n_ys && !levels; i++)
		if ((yc[i] = column(t, p->ys[i], "--y", err)) < 0)
			goto out;
	for (i = 0; i < p->n_series; i++)
		if ((sc[i] = column(t, p->series[i], "--series", err)) < 0)
			goto out;
	preamble(p, levels ? 1 : (unsigned)p->n_ys, out);
	if (p->logscale & REPORT_LOG_X && !levels)
		strbuf_addstr(out, "set logscale x\n");
	if (p->logscale & REPORT_LOG_Y)
		strbuf_addstr(out, "set logscale y\n");
	if (levels) {
		rc = levels_panel(t, p, xc, out, err);
		goto out;
	}
	if (p->n_ys > 1) {
		strbuf_addf(out, "set multiplot layout %zu,1", p->n_ys);
		if (p->title) {
			strbuf_addstr(out, " title ");
			quoted(out, p->title);
		}
		strbuf_addch(out, '\n');
	}
	for (i = 0; i < p->n_ys; i++)
		line_panel(t, p, xc, yc[i], sc, (unsigned)i, out);
	if (p->n_ys > 1)
		strbuf_addstr(out, "unset multiplot\n");
	rc = 0;
out:
	free(yc);
	free(sc);
	return rc;
}
