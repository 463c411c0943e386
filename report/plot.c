/*
 * Plots of a results table as gnuplot scripts (gnuplot draws them; cli/
 * runs it and writes the image). A panel per y column; one line per value
 * of the series columns, points sorted by x; a text x column is laid out as
 * categories in the order they first appear, drawn as bars from 0, a
 * cluster per category (never lines between designs). The 'levels' plot
 * stacks the energy of every storage level (the table's LEVEL_METRIC.LEVEL
 * columns, energy_pj.DRAM ...) in one bar per row, 'tensors' the energy of
 * every tensor (LEVEL_METRIC.tensor.NAME). Every series has its colour of a
 * colour-blind-safe palette. The data go inline, so the script alone makes
 * the picture.
 */
#include "report/report_int.h"

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

/*
 * Paul Tol's 'muted' scheme (personal.sron.nl/~pault): ten colours told
 * apart with any colour vision, the most different first.
 */
static const char *const palette[] = {
	"#332288", "#CC6677", "#44AA99", "#DDCC77", "#882255",
	"#88CCEE", "#117733", "#999933", "#AA4499", "#DDDDDD",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

void report_plot_palette(struct strbuf *sb)
{
	size_t i;

	/* a colour per series; past the palette, the colours again dashed */
	for (i = 0; i < 3 * N_PALETTE; i++)
		strbuf_addf(sb, "set linetype %zu lc rgb '%s' lw 1.5 dt %zu pt 7 ps 0.6\n", i + 1,
			    palette[i % N_PALETTE], i / N_PALETTE + 1);
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
	report_plot_palette(sb);
	if (p->title && panels == 1) {
		strbuf_addstr(sb, "set title ");
		quoted(sb, p->title);
		strbuf_addch(sb, '\n');
	}
}

/* SI prefixes on an axis whose numbers would otherwise be long or in e-notation. */
static void axis_format(struct strbuf *sb, char axis, double lo, double hi)
{
	double m = fmax(fabs(lo), fabs(hi));

	if (m >= 1e5 || (m > 0 && m < 1e-3))
		strbuf_addf(sb, "set format %c '%%.1s%%c'\n", axis);
	else
		strbuf_addf(sb, "set format %c '%%g'\n", axis);
}

/* One point of a panel. */
struct pt {
	size_t series;
	double x;
	double y;
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

/* Index of 's' in names[0..n), or -1. */
static long find_name(char *const *names, size_t n, const char *s)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (long)i;
	return -1;
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

/* The points of one panel: y column 'yc' against 'xc', by series. */
struct panel {
	struct pt *pts;
	size_t n;
	char **series, **cats;
	size_t n_series, n_cats;
	bool categorical;
};

static void panel_release(struct panel *pn)
{
	free(pn->pts);
	free_names(pn->series, pn->n_series);
	free_names(pn->cats, pn->n_cats);
}

static void panel_points(const struct table *t, const struct report_plot *p, long xc, long yc,
			 const long *sc, struct panel *pn)
{
	struct strbuf label = STRBUF_INIT;
	size_t a_series = 0, a_cats = 0, r;

	memset(pn, 0, sizeof(*pn));
	pn->pts = xcalloc(t->n_rows + 1, sizeof(*pn->pts));
	for (r = 0; r < t->n_rows; r++) {
		struct table_cell x = table_get(t, r, (size_t)xc);
		if (x.text && !is_number(x))
			pn->categorical = true;
	}
	for (r = 0; r < t->n_rows; r++) {
		struct table_cell x = table_get(t, r, (size_t)xc), y = table_get(t, r, (size_t)yc);
		if (!x.text || !is_number(y))
			continue;
		series_label(t, r, sc, p->n_series, &label);
		pn->pts[pn->n].series = intern(&pn->series, &pn->n_series, &a_series, label.buf);
		pn->pts[pn->n].x = pn->categorical ?
			(double)intern(&pn->cats, &pn->n_cats, &a_cats, x.text) :
			strtod(x.text, NULL);
		pn->pts[pn->n].y = strtod(y.text, NULL);
		pn->pts[pn->n].row = r;
		pn->n++;
	}
	qsort(pn->pts, pn->n, sizeof(*pn->pts), cmp_pt);
	strbuf_release(&label);
}

/*
 * With a baseline, y becomes the baseline's y at the same x over y (lower
 * better: baseline / y; higher better: y / baseline): the speedup over a
 * series, or over one category of the x axis. -1 with 'err' when the
 * baseline is neither.
 */
static int apply_baseline(const struct report_plot *p, unsigned panel, struct panel *pn,
			  struct strbuf *err)
{
	long bs = find_name(pn->series, pn->n_series, p->baseline);
	long bc = pn->categorical ? find_name(pn->cats, pn->n_cats, p->baseline) : -1;
	bool higher = p->higher && p->higher[panel];
	size_t i, j;
	double *base = NULL;

	if (bs < 0 && bc < 0) {
		strbuf_addf(err, "--baseline: '%s' is neither a series nor a value of --x", p->baseline);
		return -1;
	}
	base = xcalloc(pn->n + 1, sizeof(*base));
	for (i = 0; i < pn->n; i++) {
		base[i] = NAN;
		for (j = 0; j < pn->n; j++) {
			bool same = bs >= 0 ? pn->pts[j].series == (size_t)bs && pn->pts[j].x == pn->pts[i].x
					    : pn->pts[j].x == (double)bc &&
					      pn->pts[j].series == pn->pts[i].series;
			if (same) {
				base[i] = pn->pts[j].y;
				break;
			}
		}
	}
	for (i = 0; i < pn->n; i++)
		pn->pts[i].y = higher ? pn->pts[i].y / base[i] : base[i] / pn->pts[i].y;
	free(base);
	return 0;
}

/* One panel: the y column 'yc' against 'xc', one line (or bar) per series. */
static int data_panel(const struct table *t, const struct report_plot *p, long xc, long yc,
		      const long *sc, unsigned panel, struct strbuf *sb, struct strbuf *err)
{
	struct panel pn;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t i, s, c;

	panel_points(t, p, xc, yc, sc, &pn);
	if (p->baseline && apply_baseline(p, panel, &pn, err) < 0) {
		panel_release(&pn);
		return -1;
	}
	for (i = 0; i < pn.n; i++) {
		if (!isfinite(pn.pts[i].y))
			continue;
		xlo = fmin(xlo, pn.pts[i].x);
		xhi = fmax(xhi, pn.pts[i].x);
		ylo = fmin(ylo, pn.pts[i].y);
		yhi = fmax(yhi, pn.pts[i].y);
	}
	strbuf_addstr(sb, "set xlabel ");
	quoted(sb, p->xlabel ? p->xlabel : p->x);
	strbuf_addstr(sb, "\nset ylabel ");
	quoted(sb, p->ylabels ? p->ylabels[panel] : p->ys[panel]);
	strbuf_addch(sb, '\n');
	axis_format(sb, 'y', ylo, yhi);
	if (!pn.n_series) {
		strbuf_addstr(sb, "set label 'no data' at graph 0.5, graph 0.5 center\n"
			      "plot [0:1] [0:1] NaN notitle\nunset label\n");
	} else if (pn.categorical) {
		/* clustered bars from 0: a row per category, a column per series */
		strbuf_addf(sb, "$p%u << EOD\n", panel);
		for (c = 0; c < pn.n_cats; c++) {
			data_label(sb, pn.cats[c]);
			for (s = 0; s < pn.n_series; s++) {
				double y = NAN;
				for (i = 0; i < pn.n && isnan(y); i++)   /* its first row */
					if (pn.pts[i].series == s && pn.pts[i].x == (double)c)
						y = pn.pts[i].y;
				if (isfinite(y))
					strbuf_addf(sb, " %.17g", y);
				else
					strbuf_addstr(sb, " -");
			}
			strbuf_addch(sb, '\n');
		}
		strbuf_addstr(sb, "EOD\nset datafile missing '-'\nset style data histograms\n"
			      "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
			      "set boxwidth 0.9\nset xtics rotate by -30\n");
		if (!(p->logscale & REPORT_LOG_Y))
			strbuf_addstr(sb, "set yrange [0:*]\n");
		strbuf_addstr(sb, "plot ");
		for (s = 0; s < pn.n_series; s++) {
			strbuf_addf(sb, "%s$p%u using %zu%s lt %zu title ", s ? ", \\\n     " : "",
				    panel, s + 2, s == 0 ? ":xtic(1)" : "", s + 1);
			quoted(sb, p->n_series ? pn.series[s] : p->ys[panel]);
		}
		strbuf_addstr(sb, "\nset xtics autofreq norotate\nset autoscale y\n");
	} else {
		axis_format(sb, 'x', xlo, xhi);
		for (s = 0; s < pn.n_series; s++) {
			strbuf_addf(sb, "$p%us%zu << EOD\n", panel, s);
			for (i = 0; i < pn.n; i++)
				if (pn.pts[i].series == s && isfinite(pn.pts[i].y))
					strbuf_addf(sb, "%.17g %.17g\n", pn.pts[i].x, pn.pts[i].y);
			strbuf_addstr(sb, "EOD\n");
		}
		strbuf_addstr(sb, "plot ");
		for (s = 0; s < pn.n_series; s++) {
			strbuf_addf(sb, "%s$p%us%zu using 1:2 with linespoints lt %zu title ",
				    s ? ", \\\n     " : "", panel, s, s + 1);
			quoted(sb, p->n_series ? pn.series[s] : p->ys[panel]);
		}
		strbuf_addch(sb, '\n');
	}
	panel_release(&pn);
	return 0;
}

/*
 * The energy of every part as stacked bars from 0, one bar per row
 * labelled by 'xc': the storage levels (and the computes), or with
 * 'tensors' the tensors (the LEVEL_METRIC.tensor.NAME columns).
 */
static int parts_panel(const struct table *t, const struct report_plot *p, long xc, bool tensors,
		       struct strbuf *sb, struct strbuf *err)
{
	size_t *lc = xcalloc(t->n_cols + 1, sizeof(*lc)), n_lc = 0, c, r, k, n_rows = 0;
	size_t n_prefix = strlen(p->level_metric), n_tp = strlen(REPORT_TENSOR_PREFIX);

	for (c = 0; c < t->n_cols; c++) {
		const char *name = t->cols[c] + n_prefix + 1;
		bool is_tensor;
		if (strncmp(t->cols[c], p->level_metric, n_prefix) || t->cols[c][n_prefix] != '.')
			continue;
		is_tensor = !strncmp(name, REPORT_TENSOR_PREFIX, n_tp);
		if (is_tensor == tensors)
			lc[n_lc++] = c;
	}
	if (!tensors && n_lc && table_col(t, "compute_energy_pj") >= 0)
		lc[n_lc++] = (size_t)table_col(t, "compute_energy_pj");
	if (!n_lc) {
		strbuf_addf(err, "--y %s: the results have no %s energies", tensors ? "tensors" :
			    "levels", tensors ? "tensor" : "level");
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
		      "set xtics rotate by -30\nset ylabel 'energy (pJ)'\nset format y '%.1s%c'\n"
		      "set xlabel ");
	quoted(sb, p->xlabel ? p->xlabel : p->x);
	strbuf_addch(sb, '\n');
	if (!(p->logscale & REPORT_LOG_Y))
		strbuf_addstr(sb, "set yrange [0:*]\n");
	strbuf_addstr(sb, "plot ");
	for (k = 0; k < n_lc; k++) {
		struct strbuf title = STRBUF_INIT;
		if (!strcmp(t->cols[lc[k]], "compute_energy_pj"))
			strbuf_addstr(&title, "compute");
		else
			strbuf_addstr(&title, t->cols[lc[k]] + n_prefix + 1 + (tensors ? n_tp : 0));
		strbuf_addf(sb, "%s$levels using %zu%s lt %zu title ", k ? ", \\\n     " : "", k + 2,
			    k == 0 ? ":xtic(1)" : "", k + 1);
		quoted(sb, title.buf);
		strbuf_release(&title);
	}
	strbuf_addch(sb, '\n');
	if (!n_rows)
		strbuf_addstr(sb, "# no row has these energies\n");
	free(lc);
	return 0;
}

int report_plot_gnuplot(const struct table *t, const struct report_plot *p, struct strbuf *out,
			struct strbuf *err)
{
	long xc, *yc = xcalloc(p->n_ys + 1, sizeof(*yc)), *sc = xcalloc(p->n_series + 1, sizeof(*sc));
	bool levels = p->n_ys == 1 && !strcmp(p->ys[0], "levels");
	bool tensors = p->n_ys == 1 && !strcmp(p->ys[0], "tensors");
	size_t i;
	int rc = -1;

	if ((xc = column(t, p->x, "--x", err)) < 0)
		goto out;
	for (i = 0; i < p->n_ys && !levels && !tensors; i++)
		if ((yc[i] = column(t, p->ys[i], "--y", err)) < 0)
			goto out;
	for (i = 0; i < p->n_series; i++)
		if ((sc[i] = column(t, p->series[i], "--series", err)) < 0)
			goto out;
	preamble(p, levels || tensors ? 1 : (unsigned)p->n_ys, out);
	if (p->logscale & REPORT_LOG_X && !levels && !tensors)
		strbuf_addstr(out, "set logscale x\n");
	if (p->logscale & REPORT_LOG_Y)
		strbuf_addstr(out, "set logscale y\n");
	if (levels || tensors) {
		rc = parts_panel(t, p, xc, tensors, out, err);
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
		if (data_panel(t, p, xc, yc[i], sc, (unsigned)i, out, err) < 0)
			goto out;
	if (p->n_ys > 1)
		strbuf_addstr(out, "unset multiplot\n");
	rc = 0;
out:
	free(yc);
	free(sc);
	return rc;
}
