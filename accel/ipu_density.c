/*
 * What each X/Y partition of W holds, from W's density: the rows of actual
 * data (exact) or of a banded pattern (exact, it is deterministic), or
 * patterns drawn from the density model's distribution of non-zeros per
 * partition (a partition is a tile of the density model). From those: the
 * partitioner, the propagation steps (their mean, standard error and a
 * high percentile over the draws) and the realized cost of every pass.
 *
 * Draws: a hypergeometric or fixed density fixes W's total, so partitions
 * are drawn one after another, each conditioned on what the rest of W
 * holds (the model's constrained query); other kinds are drawn
 * independently. A hypergeometric partition's k blocks are then drawn row by
 * row the same way; other kinds give a partition holding k blocks the
 * expected number of non-empty rows given k (the model's P(row empty | k)),
 * the k blocks spread evenly over them. When no partition can exceed its buckets (the
 * probability is below 1e-9), no draw is needed: no spill, no step, and
 * the distribution compute is that of the expected fullest partition.
 * A power law along W's rows is drawn row by row: the rows' lengths are
 * the model's, each row's share of every Y partition is drawn from it.
 * Block-structured and N:M densities are drawn per partition, independently.
 */
#include "accel/ipu_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density/density.h"
#include "util/rng.h"

/* ---------------------------------------------------------- row lists */

/* Rows of partition x (kernel-block rows) in 'g'. */
static uint64_t part_rows_x(const struct ipu_geom *g, uint64_t x)
{
	uint64_t lo = x * g->nx;
	return lo >= g->Nx ? 0 : (g->Nx - lo < g->nx ? g->Nx - lo : g->nx);
}

static uint64_t part_cols_y(const struct ipu_geom *g, uint64_t y)
{
	uint64_t lo = y * g->ny;
	return lo >= g->Ny ? 0 : (g->Ny - lo < g->ny ? g->Ny - lo : g->ny);
}

/* Counters of blocks per (partition, row in it): [part * nx + row]. */
struct counts {
	uint64_t n_parts, nx;
	uint32_t *c;
};

static void counts_add(struct counts *k, const struct ipu_geom *g, uint64_t r, uint64_t col,
		       uint32_t n)
{
	uint64_t part = (r / g->nx) * g->py + col / g->ny;
	k->c[part * g->nx + r % g->nx] += n;
}

/* The non-empty rows of every partition from the counters. */
static void counts_to_rows(const struct counts *k, struct ipu_row ***rows, uint32_t **n_rows)
{
	uint64_t p, r;

	*rows = xcalloc(k->n_parts, sizeof(**rows));
	*n_rows = xcalloc(k->n_parts, sizeof(**n_rows));
	for (p = 0; p < k->n_parts; p++) {
		uint32_t n = 0;
		for (r = 0; r < k->nx; r++)
			n += k->c[p * k->nx + r] != 0;
		(*rows)[p] = xmalloc((n ? n : 1) * sizeof(struct ipu_row));
		n = 0;
		for (r = 0; r < k->nx; r++)
			if (k->c[p * k->nx + r])
				(*rows)[p][n++] = (struct ipu_row){ (uint32_t)r, k->c[p * k->nx + r] };
		(*n_rows)[p] = n;
	}
}

static void counts_init(struct counts *k, const struct ipu_geom *g)
{
	k->n_parts = (uint64_t)g->px * g->py;
	k->nx = g->nx;
	k->c = xcalloc(k->n_parts * k->nx, sizeof(*k->c));
}

int ipu_rows_actual(const struct spec_set *s, const struct ipu_layer *L, const struct ipu_geom *g,
		    struct ipu_row ***part_rows, uint32_t **n_rows)
{
	const struct spec_matrix *mx = s->workload.tensors[L->l->tensor].density.data;
	struct counts k;
	size_t e;
	unsigned a, c;

	if (!mx)
		return -1;
	counts_init(&k, g);
	for (e = 0; e < mx->nnz; e++) {
		if (mx->values[e] == 0)
			continue;
		for (a = 0; a < L->q; a++)
			for (c = 0; c < L->q; c++)
				counts_add(&k, g, mx->coords[2 * e] * L->q + a,
					   mx->coords[2 * e + 1] * L->q + c, 1);
	}
	counts_to_rows(&k, part_rows, n_rows);
	free(k.c);
	return 0;
}

/* The banded pattern |row - col| <= w on W's layer blocks, as row lists. */
static void rows_banded(const struct spec_set *s, const struct ipu_layer *L,
			const struct ipu_geom *g, struct ipu_row ***part_rows, uint32_t **n_rows)
{
	uint64_t w = s->workload.tensors[L->l->tensor].density.band_width;
	uint64_t rows = L->X / L->l->block_size, cols = L->Y / L->l->block_size, i, y;
	struct counts k;
	unsigned a;

	counts_init(&k, g);
	for (i = 0; i < rows; i++) {
		uint64_t lo = i > w ? i - w : 0, hi = i + w < cols - 1 ? i + w : cols - 1;
		for (y = 0; y < g->py; y++) {
			uint64_t c0 = y * g->ny / L->q, c1 = (y * g->ny + part_cols_y(g, y)) / L->q;
			uint64_t a0 = lo > c0 ? lo : c0, a1 = hi + 1 < c1 ? hi + 1 : c1;
			if (a0 >= a1)
				continue;
			for (a = 0; a < L->q; a++)
				counts_add(&k, g, i * L->q + a, y * g->ny,
					   (uint32_t)((a1 - a0) * L->q));
		}
	}
	counts_to_rows(&k, part_rows, n_rows);
	free(k.c);
}

void ipu_rows_free(struct ipu_row **part_rows, uint32_t *n_rows, uint64_t n)
{
	uint64_t i;

	if (part_rows)
		for (i = 0; i < n; i++)
			free(part_rows[i]);
	free(part_rows);
	free(n_rows);
}

/* ------------------------------------------------- the model's partitions */

/* A partition shape in W's layer blocks and its block counts' distribution. */
struct shape {
	uint64_t ex, ey;           /* layer blocks */
	uint64_t kx;               /* kernel-block rows */
	uint64_t lo;               /* pmf[i] = P(lo + i) */
	size_t n;
	double *pmf;
	double *row_empty;         /* [k]: P(a row is empty | the partition holds k), lazily */
	bool *row_known;
};

struct draw_ctx {
	struct density_model *m;
	const struct ipu_layer *L;
	const struct ipu_geom *g;
	bool conditional;          /* total fixed: draw partitions one after another */
	uint64_t total_points, total_nz;
	unsigned n_shapes;
	struct shape shapes[4];
	uint8_t *shape_of;         /* [partition] */
	/* power law along W's rows: each row's length, heaviest first */
	bool power_law, permute_rows;
	uint64_t n_rows;
	uint64_t *row_len;
	struct density_model *hg;  /* hypergeometric: a row's share of a window of it */
};

static uint64_t layer_extent(uint64_t kernel, unsigned q)
{
	uint64_t e = (kernel + q / 2) / q;
	return e ? e : 1;
}

/*
 * The distribution of a partition's count: the whole support for the
 * geometric kinds; for the count-only kinds (fixed, hypergeometric) the
 * window mean +- (12 sqrt(mean) + 20), outside which the hypergeometric
 * law (variance below its mean) leaves less than 1e-30.
 */
static void shape_pmf(struct draw_ctx *d, struct shape *sh, const struct density_tile *t)
{
	enum spec_density_kind k = density_kind(d->m);

	if (k == SPEC_DENSITY_HYPERGEOMETRIC || k == SPEC_DENSITY_FIXED_STRUCTURED) {
		double mean = density_expected_occupancy(d->m, t), w = 12.0 * sqrt(mean) + 20.0;
		uint64_t hi = (uint64_t)(mean + w) + 1, pts = density_tile_points(t);
		sh->lo = mean > w ? (uint64_t)(mean - w) : 0;
		if (hi > pts)
			hi = pts;
		sh->n = (size_t)(hi - sh->lo + 1);
		sh->pmf = xcalloc(sh->n, sizeof(double));
		density_prob_range(d->m, t, NULL, sh->lo, sh->n, sh->pmf);
		return;
	}
	sh->lo = 0;
	sh->n = density_distribution(d->m, t, NULL, NULL, 0);
	sh->pmf = xcalloc(sh->n, sizeof(double));
	density_distribution(d->m, t, NULL, sh->pmf, sh->n);
}

static void shapes_init(struct draw_ctx *d)
{
	const struct ipu_geom *g = d->g;
	uint64_t x, y, p;
	unsigned i;

	d->shape_of = xcalloc((size_t)g->px * g->py, 1);
	for (x = 0; x < g->px; x++)
		for (y = 0; y < g->py; y++) {
			uint64_t kx = part_rows_x(g, x), ex = layer_extent(kx, d->L->q);
			uint64_t ey = layer_extent(part_cols_y(g, y), d->L->q);
			for (i = 0; i < d->n_shapes; i++)
				if (d->shapes[i].ex == ex && d->shapes[i].ey == ey && d->shapes[i].kx == kx)
					break;
			if (i == d->n_shapes) {
				struct shape *sh = &d->shapes[d->n_shapes++];
				uint64_t ext[2] = { ex, ey };
				struct density_tile t = density_tile_box(2, ext);
				if (d->n_shapes > 4)
					BUG("more than four partition shapes");
				memset(sh, 0, sizeof(*sh));
				sh->ex = ex;
				sh->ey = ey;
				sh->kx = kx;
				shape_pmf(d, sh, &t);
				sh->row_empty = xcalloc(ex * ey + 1, sizeof(double));
				sh->row_known = xcalloc(ex * ey + 1, sizeof(bool));
			}
			p = x * g->py + y;
			d->shape_of[p] = (uint8_t)i;
		}
}

static void shapes_free(struct draw_ctx *d)
{
	unsigned i;

	for (i = 0; i < d->n_shapes; i++) {
		free(d->shapes[i].pmf);
		free(d->shapes[i].row_empty);
		free(d->shapes[i].row_known);
	}
	free(d->shape_of);
}

/* Non-empty rows of a partition of shape 'sh' holding 'k' layer blocks. */
static uint64_t expected_rows(struct draw_ctx *d, struct shape *sh, uint64_t k)
{
	uint64_t lo, hi, r;
	double e;

	if (k == 0)
		return 0;
	if (k > sh->ex * sh->ey)
		k = sh->ex * sh->ey;
	if (!sh->row_known[k]) {
		uint64_t row[2] = { 1, sh->ey }, part[2] = { sh->ex, sh->ey };
		struct density_tile t = density_tile_box(2, row);
		struct density_constraint c = { density_tile_box(2, part), k };
		sh->row_empty[k] = density_prob_empty(d->m, &t, &c);
		sh->row_known[k] = true;
	}
	e = (double)sh->ex * (1.0 - sh->row_empty[k]);
	r = (uint64_t)floor(e + 0.5);
	lo = (k + sh->ey - 1) / sh->ey;
	hi = k < sh->ex ? k : sh->ex;
	return r < lo ? lo : r > hi ? hi : r;
}

/* Inverse-CDF draw from P(lo + i) = p[i], i < n (renormalised). */
static uint64_t draw_pmf(struct rng *r, uint64_t lo, const double *p, size_t n)
{
	double total = 0, u, acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += p[i];
	if (total <= 0)
		return lo;
	u = rng_double(r) * total;
	for (i = 0; i < n; i++) {
		acc += p[i];
		if (u < acc)
			return lo + i;
	}
	return lo + n - 1;
}

/*
 * HG(.; succ, sample, pop) drawn point by point: each of the 'sample'
 * points is non-zero with the probability that what is left of the
 * population holds (an exact hypergeometric draw, cheaper than its
 * probabilities for small samples).
 */
static uint64_t hg_draw_points(struct rng *r, uint64_t pop, uint64_t succ, uint64_t sample)
{
	uint64_t j, k = 0;

	for (j = 0; j < sample && succ > 0 && pop > j; j++)
		if (rng_below(r, pop - j) < succ) {
			succ--;
			k++;
		}
	return k;
}

#define POINT_DRAW_MAX 256   /* samples drawn point by point at most */

/*
 * One partition's layer-block count: from its shape's distribution, or
 * conditioned on the rest of W holding 'left_nz' in 'left_points'.
 */
static uint64_t draw_count(struct draw_ctx *d, struct shape *sh, struct rng *r,
			   uint64_t left_points, uint64_t left_nz)
{
	uint64_t ext[2] = { sh->ex, sh->ey }, pts = sh->ex * sh->ey, lo, hi;
	struct density_tile t;
	struct density_constraint c;
	double mean, w, *p;
	uint64_t v;

	if (!d->conditional)
		return draw_pmf(r, sh->lo, sh->pmf, sh->n);
	if (left_points <= pts)
		return left_nz < pts ? left_nz : pts;
	if (density_kind(d->m) == SPEC_DENSITY_HYPERGEOMETRIC && pts <= POINT_DRAW_MAX)
		return hg_draw_points(r, left_points, left_nz, pts);
	t = density_tile_box(2, ext);
	c.parent = density_tile_flat(left_points);
	c.occupancy = left_nz;
	mean = (double)pts * (double)left_nz / (double)left_points;
	w = 10.0 * sqrt(mean) + 10.0;
	lo = mean > w ? (uint64_t)(mean - w) : 0;
	hi = (uint64_t)(mean + w) + 1;
	if (hi > pts)
		hi = pts;
	if (hi > left_nz)
		hi = left_nz;
	if (hi < lo)
		hi = lo;
	p = xmalloc((size_t)(hi - lo + 1) * sizeof(double));
	density_prob_range(d->m, &t, &c, lo, (size_t)(hi - lo + 1), p);
	v = draw_pmf(r, lo, p, (size_t)(hi - lo + 1));
	free(p);
	return v;
}

/* Rows of a partition of 'k' layer blocks: even, in kernel blocks. */
static void fill_rows(struct draw_ctx *d, struct shape *sh, uint64_t k, struct ipu_row **rows,
		      uint32_t *n)
{
	unsigned q = d->L->q, a;
	uint64_t r = expected_rows(d, sh, k), i, out = 0;

	*rows = xmalloc((r * q > 0 ? r * q : 1) * sizeof(**rows));
	for (i = 0; i < r; i++) {
		uint64_t nz = k / r + (i < k % r ? 1 : 0);
		for (a = 0; a < q && out < sh->kx; a++)
			(*rows)[out++] = (struct ipu_row){ (uint32_t)(i * q + a), (uint32_t)(nz * q) };
	}
	*n = (uint32_t)out;
}

/*
 * Rows of a partition of 'k' layer blocks drawn one after another, each
 * conditioned on what the rest of the partition holds (the model's
 * constrained query on a row tile), for a density with a fixed total.
 */
static void draw_rows(struct draw_ctx *d, struct shape *sh, uint64_t k, struct rng *r,
		      struct ipu_row **rows, uint32_t *n)
{
	unsigned q = d->L->q, a;
	uint64_t row_pts[2] = { 1, sh->ey }, i, left = k, out = 0, lo, hi, c;
	struct density_tile t = density_tile_box(2, row_pts);
	double p[1024];

	*rows = xmalloc((sh->ex * q > 0 ? sh->ex * q : 1) * sizeof(**rows));
	for (i = 0; i < sh->ex && left > 0; i++) {
		uint64_t cells = (sh->ex - i) * sh->ey;
		struct density_constraint con = { density_tile_flat(cells), left };
		if (i + 1 == sh->ex) {
			c = left;
		} else if (sh->ey <= POINT_DRAW_MAX) {
			c = hg_draw_points(r, cells, left, sh->ey);
		} else {
			lo = left + sh->ey > cells ? left + sh->ey - cells : 0;
			hi = left < sh->ey ? left : sh->ey;
			if (hi - lo + 1 > sizeof(p) / sizeof(p[0]))
				hi = lo + sizeof(p) / sizeof(p[0]) - 1;
			density_prob_range(d->m, &t, &con, lo, (size_t)(hi - lo + 1), p);
			c = draw_pmf(r, lo, p, (size_t)(hi - lo + 1));
		}
		left -= c;
		for (a = 0; c && a < q && out < sh->kx; a++)
			(*rows)[out++] = (struct ipu_row){ (uint32_t)(i * q + a), (uint32_t)(c * q) };
	}
	*n = (uint32_t)out;
}

/*
 * The lengths of W's rows under a power-law density along them: the
 * distribution of a whole row's count is the lengths' multiset (each row is
 * one tile of the grid), in Zipf order heaviest first (docs/ipu.md).
 */
static void power_law_rows(struct draw_ctx *d, const struct spec_tensor *t)
{
	uint64_t row[2] = { 1, t->rank_extent[1] }, L, i = 0, k;
	struct density_tile tile = density_tile_box(2, row);
	size_t n = density_distribution(d->m, &tile, NULL, NULL, 0);
	double *p = xcalloc(n ? n : 1, sizeof(double));

	density_distribution(d->m, &tile, NULL, p, n);
	d->n_rows = t->rank_extent[0];
	d->row_len = xcalloc(d->n_rows, sizeof(*d->row_len));
	for (L = n; L-- > 0 && i < d->n_rows;)
		for (k = (uint64_t)floor(p[L] * (double)d->n_rows + 0.5); k > 0 && i < d->n_rows; k--)
			d->row_len[i++] = L;
	free(p);
}

/*
 * One power-law pattern: every row's non-zeros sit at uniformly random
 * distinct places of the row (the model's definition), so the Y partitions'
 * shares of a row are drawn one after another, each hypergeometric given
 * what the rest of the row holds (a hypergeometric density model's
 * constrained query: the power-law model's own constrained queries are
 * about the grid of tiles, not a row's remainder); with permute_rows the
 * lengths go to the rows in a random order.
 */
static void draw_power_law(struct draw_ctx *d, struct rng *r, struct ipu_row ***rows, uint32_t **n)
{
	const struct ipu_geom *g = d->g;
	uint64_t P = (uint64_t)g->px * g->py, i, y, cols = d->L->Y / d->L->l->block_size;
	uint64_t *len = xmalloc(d->n_rows * sizeof(*len));
	unsigned q = d->L->q, a;
	double pr[1024];

	memcpy(len, d->row_len, d->n_rows * sizeof(*len));
	for (i = d->n_rows; d->permute_rows && i > 1; i--) {
		uint64_t j = rng_below(r, i), tmp = len[i - 1];
		len[i - 1] = len[j];
		len[j] = tmp;
	}
	*rows = xcalloc(P, sizeof(**rows));
	*n = xcalloc(P, sizeof(**n));
	for (i = 0; i < P; i++)
		(*rows)[i] = xmalloc((g->nx ? g->nx : 1) * sizeof(struct ipu_row));
	for (i = 0; i < d->n_rows; i++) {
		uint64_t left = len[i], cols_left = cols;
		for (y = 0; y < g->py && left > 0; y++) {
			uint64_t ey = layer_extent(part_cols_y(g, y), q), c, lo, hi;
			struct density_tile t = density_tile_flat(ey);
			struct density_constraint con = { density_tile_flat(cols_left), left };
			if (y + 1 == g->py || ey >= cols_left) {
				c = left;
			} else if (ey <= POINT_DRAW_MAX) {
				c = hg_draw_points(r, cols_left, left, ey);
			} else {
				lo = left + ey > cols_left ? left + ey - cols_left : 0;
				hi = left < ey ? left : ey;
				if (hi - lo + 1 > sizeof(pr) / sizeof(pr[0]))
					hi = lo + sizeof(pr) / sizeof(pr[0]) - 1;
				density_prob_range(d->hg, &t, &con, lo, (size_t)(hi - lo + 1), pr);
				c = draw_pmf(r, lo, pr, (size_t)(hi - lo + 1));
			}
			left -= c;
			cols_left -= ey;
			for (a = 0; c && a < q; a++) {
				uint64_t kr = i * q + a, part = (kr / g->nx) * g->py + y;
				if (kr / g->nx >= g->px)
					continue;
				(*rows)[part][(*n)[part]++] = (struct ipu_row){ (uint32_t)(kr % g->nx),
										(uint32_t)(c * q) };
			}
		}
	}
	free(len);
}

/* One drawn pattern's partitions. */
static void draw_pattern(struct draw_ctx *d, struct rng *r, struct ipu_row ***rows, uint32_t **n)
{
	uint64_t P = (uint64_t)d->g->px * d->g->py, p;
	uint64_t left_points = d->total_points, left_nz = d->total_nz;

	if (d->power_law) {
		draw_power_law(d, r, rows, n);
		return;
	}
	*rows = xcalloc(P, sizeof(**rows));
	*n = xcalloc(P, sizeof(**n));
	for (p = 0; p < P; p++) {
		struct shape *sh = &d->shapes[d->shape_of[p]];
		uint64_t k = draw_count(d, sh, r, left_points, left_nz);
		if (d->conditional && d->m && density_kind(d->m) == SPEC_DENSITY_HYPERGEOMETRIC)
			draw_rows(d, sh, k, r, &(*rows)[p], &(*n)[p]);
		else
			fill_rows(d, sh, k, &(*rows)[p], &(*n)[p]);
		left_points -= left_points > sh->ex * sh->ey ? sh->ex * sh->ey : left_points;
		left_nz -= left_nz > k ? k : left_nz;
	}
}

/* --------------------------------------------------------- evaluation */

struct ipu_part_cfg ipu_part_cfg_of(const struct ipu_layer *L, const struct ipu_method *m,
				    const struct ipu_geom *g, const struct ipu_sizes *z)
{
	struct ipu_part_cfg c;

	c.px = g->px;
	c.py = g->py;
	c.pz = g->pz;
	c.cap_groups = z->nz_elems / ((uint64_t)m->gx * m->gy);
	c.cap_meta = z->meta_words;
	if (!L->block)
		c.fixed_meta = 9 + 5 * (uint64_t)L->W + (L->grad_w ? 4 * (uint64_t)L->W + 1 : 0);
	else
		c.fixed_meta = 7 + (L->grad_w ? 4 * (uint64_t)L->W : 0);
	return c;
}

/* Steps and realized costs of one layout into per-pass accumulators. */
struct acc {
	double steps, steps2, cost[SPEC_IPU_N_PASSES], dist[SPEC_IPU_N_PASSES];
	double prop[SPEC_IPU_N_PASSES];
	double *step_samples[SPEC_IPU_N_PASSES];
	double *total_samples[SPEC_IPU_N_PASSES];
	double sum_steps[SPEC_IPU_N_PASSES], sum_steps2[SPEC_IPU_N_PASSES];
	unsigned n;
	uint64_t overflows, leftover;
};

static void account(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		    const struct ipu_sizes *z, const struct ipu_layout *lay, struct acc *a)
{
	unsigned p;

	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		struct ipu_pass_est e;
		uint64_t skipped, st;
		if (!((L->l->passes >> p) & 1))
			continue;
		st = ipu_layout_steps(lay, p == SPEC_IPU_GRAD_A, &skipped);
		ipu_pass_realize(L, m, g, z, lay, (enum spec_ipu_pass)p, &e);
		a->dist[p] += e.dist_compute;
		a->prop[p] += e.prop;
		a->cost[p] += e.total;
		a->sum_steps[p] += (double)st;
		a->sum_steps2[p] += (double)st * (double)st;
		a->step_samples[p][a->n] = (double)st;
		a->total_samples[p][a->n] = e.total;
	}
	a->overflows += lay->overflow;
	a->n++;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The q-quantile of v[0..n) (sorted in place): the smallest with P(<=) >= q. */
static double quantile(double *v, unsigned n, double q)
{
	unsigned i;

	qsort(v, n, sizeof(*v), cmp_double);
	i = (unsigned)ceil(q * n);
	return v[i ? i - 1 : 0];
}

/* The partitioner's summary of 'lay' into 'out'. */
static void summarize(const struct ipu_layout *lay, struct accel_ipu_result *out)
{
	uint64_t pn;

	out->max_bucket_nz_groups = out->max_bucket_meta_words = 0;
	for (pn = 0; pn < lay->n_buckets; pn++) {
		if (lay->buckets[pn].nz > out->max_bucket_nz_groups)
			out->max_bucket_nz_groups = lay->buckets[pn].nz;
		if (lay->buckets[pn].meta > out->max_bucket_meta_words)
			out->max_bucket_meta_words = lay->buckets[pn].meta;
	}
	out->n_subgroups = lay->n_subgroups;
	out->n_spilled_subgroups = lay->n_spilled;
	out->spilled_groups = lay->spilled_groups;
}

/* Per-pass results from the accumulators. */
static void finish(const struct ipu_layer *L, struct acc *a, bool exact, double pct,
		   struct accel_ipu_result *out)
{
	unsigned p;

	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		struct accel_ipu_pass *ps = &out->passes[p];
		double n = a->n, mean, var;
		if (!((L->l->passes >> p) & 1))
			continue;
		mean = a->sum_steps[p] / n;
		var = n > 1 ? (a->sum_steps2[p] - n * mean * mean) / (n - 1) : 0;
		ps->dist_compute_cycles = a->dist[p] / n;
		ps->prop_cycles = a->prop[p] / n;
		ps->total_cycles = a->cost[p] / n;
		ps->steps.is_exact = exact;
		ps->steps.expected = mean;
		ps->steps.exact = exact ? (uint64_t)mean : 0;
		ps->steps.std_error = n > 1 && var > 0 ? sqrt(var / n) : 0;
		ps->steps.percentile = (uint64_t)quantile(a->step_samples[p], a->n, pct);
		ps->total_cycles_percentile = quantile(a->total_samples[p], a->n, pct);
	}
}

static void acc_init(struct acc *a, unsigned n)
{
	unsigned p;

	memset(a, 0, sizeof(*a));
	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		a->step_samples[p] = xcalloc(n ? n : 1, sizeof(double));
		a->total_samples[p] = xcalloc(n ? n : 1, sizeof(double));
	}
}

static void acc_release(struct acc *a)
{
	unsigned p;

	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		free(a->step_samples[p]);
		free(a->total_samples[p]);
	}
}

/* Partition one set of rows, account it, keep its summary; true on overflow. */
static bool run_one(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		    const struct ipu_sizes *z, struct ipu_row **rows, uint32_t *n_rows,
		    struct acc *a, struct accel_ipu_result *out)
{
	struct ipu_part_cfg c = ipu_part_cfg_of(L, m, g, z);
	struct ipu_layout *lay = ipu_partition(&c, rows, n_rows);
	bool ov = lay->overflow;

	a->leftover = lay->leftover_groups;
	account(L, m, g, z, lay, a);
	summarize(lay, out);
	ipu_layout_free(lay);
	return ov;
}

/* Whether a partition of 'k' layer blocks fits its buckets' metaInfo (largest chunk). */
static bool meta_fits(struct draw_ctx *d, struct shape *sh, const struct ipu_part_cfg *c, uint64_t k)
{
	unsigned q = d->L->q;
	uint64_t rows = expected_rows(d, sh, k) * q;
	uint64_t chunk_nz = (k * q * q + d->g->pz - 1) / d->g->pz;
	uint64_t chunk_rows = (rows + d->g->pz - 1) / d->g->pz + (d->g->pz > 1 ? 1 : 0);

	return k == 0 || c->fixed_meta + 2 * chunk_rows + chunk_nz + 1 <= c->cap_meta;
}

/*
 * The most layer blocks a partition holds without spilling: P_z r_b
 * kernel blocks, and its largest chunk's metaInfo (fixed + 2 rows + nz,
 * rows of the chunk ceil(r(k) / P_z) + 1 with a row split) within M - 1.
 */
static uint64_t capacity(struct draw_ctx *d, const struct ipu_sizes *z, const struct ipu_method *m)
{
	struct ipu_part_cfg c = ipu_part_cfg_of(d->L, m, d->g, z);
	unsigned q = d->L->q;
	struct shape *sh = &d->shapes[d->shape_of[0]];
	uint64_t k = d->g->pz * c.cap_groups / (q * q), pts = sh->ex * sh->ey;

	if (k > pts)
		k = pts;
	if (!meta_fits(d, sh, &c, k)) {
		uint64_t lo = 0, hi = k;      /* meta_fits(lo), !meta_fits(hi) */
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (meta_fits(d, sh, &c, mid))
				lo = mid;
			else
				hi = mid;
		}
		k = lo;
	}
	return k;
}

/*
 * The analytic part: with independent partitions of the model's
 * distribution and a capacity of P_z r_b kernel blocks per partition,
 * P(spill) = 1 - prod_i P(c_i <= cap) and E[excess] = sum_i E[(c_i - cap)+];
 * E[max_i c_i] for the fullest partition.
 */
static void analytic(struct draw_ctx *d, const struct ipu_sizes *z, const struct ipu_method *m,
		     double *p_spill, double *excess, double *max_count)
{
	uint64_t P = (uint64_t)d->g->px * d->g->py, p, cap, n, count[4] = { 0 };
	double log_ok = 0, ex = 0, emax = 0, cdf[4] = { 0 }, none_above;
	unsigned q2 = d->L->q * d->L->q, k;
	size_t maxn = 0;

	cap = capacity(d, z, m);
	for (p = 0; p < P; p++)
		count[d->shape_of[p]]++;
	for (k = 0; k < d->n_shapes; k++) {
		const struct shape *sh = &d->shapes[k];
		double ok = 0;
		if (sh->lo + sh->n > maxn)
			maxn = sh->lo + sh->n;
		for (n = 0; n < sh->n; n++) {
			if (sh->lo + n <= cap)
				ok += sh->pmf[n];
			else
				ex += (double)count[k] * sh->pmf[n] * (double)(sh->lo + n - cap) * q2;
		}
		log_ok += (double)count[k] * log(ok > 0 ? ok : 1e-300);
	}
	/* E[max] = sum over n >= 1 of P(max >= n) = 1 - prod over shapes of F(n - 1)^count */
	for (n = 1; n <= maxn; n++) {
		none_above = 1;
		for (k = 0; k < d->n_shapes; k++) {
			const struct shape *sh = &d->shapes[k];
			if (n - 1 >= sh->lo && n - 1 < sh->lo + sh->n)
				cdf[k] += sh->pmf[n - 1 - sh->lo];
			none_above *= pow(cdf[k] > 1 ? 1 : cdf[k], (double)count[k]);
		}
		emax += 1.0 - none_above;
	}
	*p_spill = log_ok < 0 ? -expm1(log_ok) : 0.0;
	*excess = ex;
	*max_count = emax;
}

/* The no-spill case: the realized cost is the planner's with the fullest partition. */
static void no_spill(struct draw_ctx *d, const struct ipu_method *m, const struct ipu_sizes *z,
		     double max_count, struct acc *a, struct accel_ipu_result *out)
{
	const struct ipu_geom *g = d->g;
	uint64_t P = (uint64_t)g->px * g->py, p, k = (uint64_t)ceil(max_count);
	struct ipu_row **rows = xcalloc(P, sizeof(*rows));
	uint32_t *n = xcalloc(P, sizeof(*n));
	struct shape *sh = &d->shapes[d->shape_of[0]];
	uint64_t cap = capacity(d, z, m);

	if (k > cap)
		k = cap;
	for (p = 0; p < P; p++) {
		/* the first partition is the fullest; the others hold the mean */
		uint64_t kp = p == 0 ? k : (uint64_t)floor(density_expected_occupancy(d->m,
				&(struct density_tile){ 2, { d->shapes[d->shape_of[p]].ex,
							     d->shapes[d->shape_of[p]].ey } }) + 0.5);
		fill_rows(d, p == 0 ? sh : &d->shapes[d->shape_of[p]], kp, &rows[p], &n[p]);
	}
	run_one(d->L, m, g, z, rows, n, a, out);
	ipu_rows_free(rows, n, P);
}

void ipu_density_eval(const struct spec_set *s, const struct ipu_layer *L,
		      const struct ipu_method *m, const struct ipu_geom *g,
		      const struct ipu_sizes *z, const struct accel_ipu_options *o,
		      struct accel_ipu_result *out)
{
	const struct spec_tensor *t = &s->workload.tensors[L->l->tensor];
	uint64_t P = (uint64_t)g->px * g->py;
	struct ipu_row **rows = NULL;
	uint32_t *n_rows = NULL;
	struct acc a;
	unsigned i, p;

	if (t->density.kind == SPEC_DENSITY_ACTUAL || t->density.kind == SPEC_DENSITY_BANDED) {
		acc_init(&a, 1);
		if (t->density.kind == SPEC_DENSITY_ACTUAL)
			ipu_rows_actual(s, L, g, &rows, &n_rows);
		else
			rows_banded(s, L, g, &rows, &n_rows);
		if (run_one(L, m, g, z, rows, n_rows, &a, out)) {
			out->status = ACCEL_IPU_OVERFLOW;
			snprintf(out->reason, sizeof(out->reason), "the pattern does not fit the "
				 "buckets (Overflow in buckets): %llu blocks left over",
				 (unsigned long long)a.leftover);
		}
		ipu_rows_free(rows, n_rows, P);
		finish(L, &a, true, o->percentile, out);
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			out->passes[p].steps.p_spill = out->n_spilled_subgroups ? 1 : 0;
			out->passes[p].steps.expected_spill_groups = (double)out->spilled_groups;
		}
		acc_release(&a);
		return;
	} else {
		struct draw_ctx d;
		double p_spill, excess, max_count;
		struct rng r;

		memset(&d, 0, sizeof(d));
		d.m = density_model_new(t);
		d.L = L;
		d.g = g;
		d.conditional = t->density.kind == SPEC_DENSITY_HYPERGEOMETRIC ||
				t->density.kind == SPEC_DENSITY_FIXED_STRUCTURED;
		d.total_points = t->size;
		d.total_nz = (uint64_t)ceil(density_global(d.m) * (double)t->size);
		d.power_law = t->density.kind == SPEC_DENSITY_POWER_LAW && t->density.row_dim == 0;
		d.permute_rows = t->density.permute_rows;
		if (d.power_law) {
			struct spec_density hd = t->density;
			uint64_t shape[1] = { t->rank_extent[1] };
			hd.kind = SPEC_DENSITY_HYPERGEOMETRIC;
			hd.workload_tensor_size = 0;
			d.hg = density_model_new_shape(&hd, 1, shape, 0);
			power_law_rows(&d, t);
		}
		shapes_init(&d);
		analytic(&d, z, m, &p_spill, &excess, &max_count);
		if (p_spill < 1e-9) {
			acc_init(&a, 1);
			no_spill(&d, m, z, max_count, &a, out);
		} else {
			acc_init(&a, o->n_samples);
			rng_seed(&r, o->seed);
			for (i = 0; i < o->n_samples; i++) {
				draw_pattern(&d, &r, &rows, &n_rows);
				run_one(L, m, g, z, rows, n_rows, &a, out);
				ipu_rows_free(rows, n_rows, P);
			}
		}
		finish(L, &a, false, o->percentile, out);
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			out->passes[p].steps.p_spill = p_spill;
			out->passes[p].steps.expected_spill_groups = excess;
		}
		if (a.overflows * 2 > a.n) {
			out->status = ACCEL_IPU_OVERFLOW;
			snprintf(out->reason, sizeof(out->reason), "%llu of %u patterns drawn from the "
				 "density do not fit the buckets (Overflow in buckets)",
				 (unsigned long long)a.overflows, a.n);
		}
		acc_release(&a);
		free(d.row_len);
		density_model_free(d.hg);
		shapes_free(&d);
		density_model_free(d.m);
	}
}
