/*
 * N:M structured density: along one tensor rank, every group of M
 * consecutive elements (groups start at multiples of M) holds exactly N
 * non-zeros, at positions drawn uniformly among the C(M, N) patterns,
 * independently per group and per line. A trailing group cut by the
 * tensor's edge behaves as the first positions of a full group.
 *
 * A tile meets some groups whole (N non-zeros each) and at most two in
 * part; o positions of a group hold HG(.; N, o, M) non-zeros. Every line of
 * a tile has the same phase, so the tile's count is the sum over its lines.
 * P(n) averages over the grid tiles of the queried shape. Under a
 * constraint, it is the exact P(child = n | parent = O) averaged over the
 * (parent, child) pairs of the two grids, from the joint distribution of
 * each line's (child, rest-of-parent) counts.
 */
#include "density/density_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/xalloc.h"

/* A line class of a grid: 'weight' tiles whose segment on the N:M rank is [x0, x0 + len). */
struct seg_class {
	uint64_t x0, len;
	double weight;
};

/*
 * The classes of segments of the grid of extent 'e' over [base, base + D):
 * tiles with the same phase modulo M and length are merged. Returns the
 * count written to 'out' (at most M + 1).
 */
static size_t seg_classes(uint64_t base, uint64_t D, uint64_t e, uint64_t M, struct seg_class *out)
{
	uint64_t k_full = D / e, rem = D % e, step = e % M;
	uint64_t period = step ? M / gcd_u64(step, M) : 1, i;
	size_t n = 0;

	for (i = 0; i < period && i < k_full; i++) {
		out[n].x0 = base + i * e;
		out[n].len = e;
		out[n].weight = (double)(k_full / period + (i < k_full % period));
		n++;
	}
	if (rem) {
		out[n].x0 = base + k_full * e;
		out[n].len = rem;
		out[n].weight = 1.0;
		n++;
	}
	return n;
}

/* Overlap of [x0, x1) with group g = [gM, gM + M). */
static uint64_t overlap(uint64_t x0, uint64_t x1, uint64_t g, uint64_t M)
{
	uint64_t a = g * M > x0 ? g * M : x0, b = (g + 1) * M < x1 ? (g + 1) * M : x1;
	return b > a ? b - a : 0;
}

/* The count of non-zeros in the segment [x0, x0 + len) of one line. */
static void row_dist(uint64_t N, uint64_t M, uint64_t x0, uint64_t len, struct density_dist *out)
{
	struct density_dist part = DENSITY_DIST_INIT;
	uint64_t g0 = x0 / M, g1 = (x0 + len - 1) / M, g, shift = 0;

	density_dist_point(out, 0);
	for (g = g0; g <= g1; g = g == g0 && g1 > g0 + 1 ? g1 : g + 1) {
		uint64_t o = overlap(x0, x0 + len, g, M);
		if (o == M) {
			shift += N;
			continue;
		}
		density_hg_dist(M, N, o, &part);
		density_dist_conv(out, &part, out);
	}
	if (g1 > g0 + 1)
		shift += N * (g1 - g0 - 1);
	out->lo += shift;
	density_dist_release(&part);
}

/* A class of lines: 'weight' tiles of 'rows' lines (children: 'child_rows' of them). */
struct rows_class {
	uint64_t rows, child_rows;
	double weight;
};

/* Merge (rows, child_rows, w) into 'v' (n entries, grows). */
static void rows_add(struct rows_class **v, size_t *n, size_t *alloc, uint64_t rows,
		     uint64_t child_rows, double w)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].rows == rows && (*v)[i].child_rows == child_rows) {
			(*v)[i].weight += w;
			return;
		}
	XGROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct rows_class){ rows, child_rows, w };
}

/*
 * Line classes over the ranks other than the N:M rank: for parent tiles of
 * extents 'pe' and child tiles 'ce' inside them (ce == pe: the tiles alone),
 * every combination of full and edge-clipped tiles with its multiplicity.
 */
static size_t line_classes(const struct density_model *m, const uint64_t *pe, const uint64_t *ce,
			   bool pairs, struct rows_class **out)
{
	struct rows_class *cur = NULL, *next = NULL;
	size_t n_cur = 0, a_cur = 0, n_next, a_next = 0, i;
	unsigned r;

	rows_add(&cur, &n_cur, &a_cur, 1, 1, 1.0);
	for (r = 0; r < m->n_ranks; r++) {
		uint64_t pv[2] = { pe[r], m->shape[r] % pe[r] };
		double pw[2] = { (double)(m->shape[r] / pe[r]), 1.0 };
		unsigned a, b;
		if (r == m->nm_rank)
			continue;
		n_next = 0;
		for (i = 0; i < n_cur; i++)
			for (a = 0; a < 2; a++) {
				uint64_t cv[2], P = pv[a];
				double cw[2];
				if (P == 0 || pw[a] == 0.0)
					continue;
				cv[0] = ce[r] < P ? ce[r] : P;
				cv[1] = P % cv[0];
				cw[0] = pairs ? (double)(P / cv[0]) : 1.0;
				cw[1] = pairs ? 1.0 : 0.0;
				for (b = 0; b < 2; b++)
					if (cv[b] && cw[b] > 0.0)
						rows_add(&next, &n_next, &a_next, cur[i].rows * P,
							 cur[i].child_rows * cv[b],
							 cur[i].weight * pw[a] * cw[b]);
			}
		free(cur);
		cur = next;
		n_cur = n_next;
		a_cur = a_next;
		next = NULL;
		a_next = 0;
	}
	*out = cur;
	return n_cur;
}

static void nm_unconstrained(const struct density_model *m, const struct density_tile *t,
			     struct density_dist *out)
{
	uint64_t N = m->spec.nm_n, M = m->spec.nm_m, D = m->shape[m->nm_rank];
	struct seg_class segs[2 * 64 + 2], *sv = segs;
	struct density_dist row = DENSITY_DIST_INIT, tile = DENSITY_DIST_INIT;
	struct rows_class *rows;
	size_t n_segs, n_rows, i, j;
	double total = 0.0;

	if (M + 1 > ARRAY_SIZE(segs))
		sv = xmalloc((M + 1) * sizeof(*sv));
	n_segs = seg_classes(0, D, t->extent[m->nm_rank], M, sv);
	n_rows = line_classes(m, t->extent, t->extent, false, &rows);
	density_dist_release(out);
	for (i = 0; i < n_segs; i++) {
		row_dist(N, M, sv[i].x0, sv[i].len, &row);
		for (j = 0; j < n_rows; j++) {
			double w = sv[i].weight * rows[j].weight;
			density_dist_pow(&row, rows[j].rows, &tile);
			density_dist_add(out, &tile, w);
			total += w;
		}
	}
	density_dist_scale(out, total);
	density_dist_trim(out);
	density_dist_release(&row);
	density_dist_release(&tile);
	free(rows);
	if (sv != segs)
		free(sv);
}

/* ------------------------------------------------------------ constrained */

/* A 2-D distribution: P(a, b) = p[(a - a_lo) * nb + (b - b_lo)]. */
struct joint {
	uint64_t a_lo, b_lo;
	size_t na, nb;
	double *p;
};

static void joint_release(struct joint *j)
{
	free(j->p);
	memset(j, 0, sizeof(*j));
}

/* The joint (child, rest) count of one group with 'oc' child and 'orr' rest positions. */
static void group_joint(uint64_t N, uint64_t M, uint64_t oc, uint64_t orr, struct joint *out)
{
	long double total = density_lchoose(M, N);
	uint64_t a, b;

	out->a_lo = 0;
	out->b_lo = 0;
	out->na = (size_t)(oc < N ? oc : N) + 1;
	out->nb = (size_t)(orr < N ? orr : N) + 1;
	out->p = xcalloc(out->na * out->nb, sizeof(double));
	for (a = 0; a < out->na; a++)
		for (b = 0; b < out->nb; b++) {
			if (a + b > N || N - a - b > M - oc - orr)
				continue;
			out->p[a * out->nb + b] = (double)expl(density_lchoose(oc, a) +
								density_lchoose(orr, b) +
								density_lchoose(M - oc - orr, N - a - b) -
								total);
		}
}

/* out := the joint of the sum of independent 'x' and 'y'. */
static void joint_conv(const struct joint *x, const struct joint *y, struct joint *out)
{
	struct joint r;
	size_t i, j, k, l;

	r.a_lo = x->a_lo + y->a_lo;
	r.b_lo = x->b_lo + y->b_lo;
	r.na = x->na + y->na - 1;
	r.nb = x->nb + y->nb - 1;
	r.p = xcalloc(r.na * r.nb, sizeof(double));
	for (i = 0; i < x->na; i++)
		for (j = 0; j < x->nb; j++) {
			double v = x->p[i * x->nb + j];
			if (v == 0.0)
				continue;
			for (k = 0; k < y->na; k++)
				for (l = 0; l < y->nb; l++)
					r.p[(i + k) * r.nb + (j + l)] += v * y->p[k * y->nb + l];
		}
	joint_release(out);
	*out = r;
}

/* The groups of one line that a (parent, child) pair of segments meets, up to shifts. */
struct line_sig {
	uint64_t a_shift, b_shift;     /* whole groups in the child / in the rest */
	unsigned n_var;
	uint64_t var[8][2];            /* (child, rest) positions of the other groups, sorted */
};

/* Record the group of 'oc' child and 'orr' rest positions in 'sig'. */
static void sig_add(struct line_sig *sig, uint64_t N, uint64_t M, uint64_t oc, uint64_t orr)
{
	unsigned i;

	if (oc == 0 && orr == 0)
		return;
	if (oc == M) {
		sig->a_shift += N;
	} else if (orr == M) {
		sig->b_shift += N;
	} else {
		if (sig->n_var == 8)
			BUG("N:M line with more than 8 partial groups");
		for (i = sig->n_var++; i > 0 && (sig->var[i - 1][0] > oc ||
			     (sig->var[i - 1][0] == oc && sig->var[i - 1][1] > orr)); i--) {
			sig->var[i][0] = sig->var[i - 1][0];
			sig->var[i][1] = sig->var[i - 1][1];
		}
		sig->var[i][0] = oc;
		sig->var[i][1] = orr;
	}
}

/*
 * The signature of a line whose parent segment is [px0, px0 + plen) and
 * child segment [cx0, cx0 + clen): only the groups meeting the child or
 * the parent's ends are visited; the others are whole rest groups.
 */
static void line_sig(uint64_t N, uint64_t M, uint64_t px0, uint64_t plen, uint64_t cx0,
		     uint64_t clen, struct line_sig *sig)
{
	uint64_t g0 = px0 / M, g1 = (px0 + plen - 1) / M;
	uint64_t c0 = cx0 / M, c1 = (cx0 + clen - 1) / M, g, seen = 0;

	memset(sig, 0, sizeof(*sig));
	for (g = c0; g <= c1; g++) {
		uint64_t oc = overlap(cx0, cx0 + clen, g, M);
		sig_add(sig, N, M, oc, overlap(px0, px0 + plen, g, M) - oc);
		seen++;
	}
	if (g0 < c0) {
		sig_add(sig, N, M, 0, overlap(px0, px0 + plen, g0, M));
		seen++;
	}
	if (g1 > c1) {
		sig_add(sig, N, M, 0, overlap(px0, px0 + plen, g1, M));
		seen++;
	}
	sig->b_shift += N * (g1 - g0 + 1 - seen);
}

/* The joint (child, rest) count of a line from its signature. */
static void line_joint(uint64_t N, uint64_t M, const struct line_sig *sig, struct joint *out)
{
	struct joint g = { 0 };
	unsigned i;

	joint_release(out);
	out->na = out->nb = 1;
	out->p = xcalloc(1, sizeof(double));
	out->p[0] = 1.0;
	for (i = 0; i < sig->n_var; i++) {
		group_joint(N, M, sig->var[i][0], sig->var[i][1], &g);
		joint_conv(out, &g, out);
		joint_release(&g);
	}
	out->a_lo += sig->a_shift;
	out->b_lo += sig->b_shift;
}

/* Distinct line signatures of a parent class, with their multiplicities. */
struct sig_bucket {
	struct line_sig sig;
	double weight;
};

/* Add 'w' to the bucket of 'sig' in 'v' (n entries, grows). */
static void bucket_add(struct sig_bucket **v, size_t *n, size_t *alloc, const struct line_sig *sig,
		       double w)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (memcmp(&(*v)[i].sig, sig, sizeof(*sig)) == 0) {
			(*v)[i].weight += w;
			return;
		}
	XGROW(*v, *n + 1, *alloc);
	(*v)[*n].sig = *sig;
	(*v)[(*n)++].weight = w;
}

/* Work above which the exact constrained N:M falls back to the hypergeometric. */
#define NM_EXACT_BUDGET 4e8

/*
 * Add to 'num[n]' (n <= cap_n) the probabilities P(child = n, parent = O)
 * of one (parent, child) pair: 'child_rows' lines with joint 'jl' and
 * 'rows - child_rows' parent-only lines of count 'prow'. Returns false when
 * the work would exceed the budget.
 */
static bool pair_joint(const struct joint *jl, const struct density_dist *prow, uint64_t rows,
		       uint64_t child_rows, uint64_t O, uint64_t cap_n, double w, double *num)
{
	size_t nn = (size_t)cap_n + 1, nt = (size_t)O + 1, n, t, a, b, k;
	double *st, *nx;
	struct density_dist rest = DENSITY_DIST_INIT;

	if ((double)child_rows * (double)nn * (double)nt * (double)(jl->na * jl->nb) >
	    NM_EXACT_BUDGET)
		return false;
	st = xcalloc(nn * nt, sizeof(double));
	nx = xcalloc(nn * nt, sizeof(double));
	st[0] = 1.0;
	for (k = 0; k < child_rows; k++) {
		memset(nx, 0, nn * nt * sizeof(double));
		for (n = 0; n < nn; n++)
			for (t = n; t < nt; t++) {
				double v = st[n * nt + t];
				if (v == 0.0)
					continue;
				for (a = 0; a < jl->na; a++)
					for (b = 0; b < jl->nb; b++) {
						uint64_t an = n + jl->a_lo + a;
						uint64_t tn = t + jl->a_lo + a + jl->b_lo + b;
						if (an < nn && tn < nt)
							nx[an * nt + tn] += v * jl->p[a * jl->nb + b];
					}
			}
		memcpy(st, nx, nn * nt * sizeof(double));
	}
	density_dist_pow(prow, rows - child_rows, &rest);
	for (n = 0; n < nn; n++)
		for (t = n; t < nt; t++)
			if (st[n * nt + t] != 0.0)
				num[n] += w * st[n * nt + t] * density_dist_at(&rest, O - t);
	density_dist_release(&rest);
	free(st);
	free(nx);
	return true;
}

/* The exact constrained distribution; false when over budget. */
static bool nm_constrained_exact(const struct density_model *m, const struct density_tile *t,
				 const struct density_constraint *c, struct density_dist *out)
{
	uint64_t N = m->spec.nm_n, M = m->spec.nm_m, D = m->shape[m->nm_rank];
	uint64_t O = c->occupancy, cap_n = density_tile_size(t), ce[SPEC_MAX_TENSOR_RANKS];
	struct seg_class *ps = xmalloc((M + 1) * sizeof(*ps));
	struct density_dist prow = DENSITY_DIST_INIT;
	struct joint jl = { 0 };
	struct rows_class *rows;
	struct sig_bucket *bk = NULL;
	size_t n_ps, n_rows, n_bk, a_bk = 0, i, j, k;
	double *num, sum = 0.0;
	bool ok = true;
	unsigned r;

	for (r = 0; r < m->n_ranks; r++)
		ce[r] = t->extent[r] < c->parent.extent[r] ? t->extent[r] : c->parent.extent[r];
	if (cap_n > O)
		cap_n = O;
	num = xcalloc((size_t)cap_n + 1, sizeof(double));
	n_ps = seg_classes(0, D, c->parent.extent[m->nm_rank], M, ps);
	n_rows = line_classes(m, c->parent.extent, ce, true, &rows);
	for (i = 0; i < n_ps && ok; i++) {
		uint64_t e = ce[m->nm_rank], x;
		n_bk = 0;
		for (x = 0; x < ps[i].len; x += e) {
			struct line_sig sig;
			uint64_t len = ps[i].len - x < e ? ps[i].len - x : e;
			line_sig(N, M, ps[i].x0, ps[i].len, ps[i].x0 + x, len, &sig);
			bucket_add(&bk, &n_bk, &a_bk, &sig, ps[i].weight);
		}
		row_dist(N, M, ps[i].x0, ps[i].len, &prow);
		for (j = 0; j < n_bk && ok; j++) {
			line_joint(N, M, &bk[j].sig, &jl);
			for (k = 0; k < n_rows && ok; k++)
				ok = pair_joint(&jl, &prow, rows[k].rows, rows[k].child_rows, O, cap_n,
						bk[j].weight * rows[k].weight, num);
		}
	}
	for (i = 0; ok && i <= cap_n; i++)
		sum += num[i];
	density_dist_release(out);
	if (ok && sum > 0.0) {
		density_dist_zero(out, 0, (size_t)cap_n + 1);
		memcpy(out->p, num, ((size_t)cap_n + 1) * sizeof(double));
		density_dist_scale(out, sum);
		density_dist_trim(out);
	}
	joint_release(&jl);
	density_dist_release(&prow);
	free(bk);
	free(rows);
	free(num);
	free(ps);
	return ok && sum > 0.0;
}

/*
 * Is the count of every grid tile of 't' the same fixed number? It is when
 * the tiles cut every rank evenly (no clipped edge tiles) and their extent
 * along the N:M rank is a whole number of groups: each line then holds
 * N per group, whatever the patterns. Writes that count to '*count'.
 */
static bool nm_fixed_count(const struct density_model *m, const struct density_tile *t,
			   uint64_t *count)
{
	uint64_t pts = 1, e;
	unsigned r;

	if (t->n_ranks != m->n_ranks)
		return false;
	for (r = 0; r < t->n_ranks; r++) {
		e = t->extent[r] < m->shape[r] ? t->extent[r] : m->shape[r];
		if (!e || m->shape[r] % e || (r == m->nm_rank && e % m->spec.nm_m))
			return false;
		pts *= e;
	}
	*count = pts / m->spec.nm_m * m->spec.nm_n;
	return true;
}

/*
 * Does 'child' cut every (clipped) 'parent' tile evenly on every rank? The
 * children of the parents are then the grid tiles of the tensor.
 */
static bool tiles_parent_evenly(const struct density_model *m, const struct density_tile *child,
				const struct density_tile *parent)
{
	unsigned r;

	if (child->n_ranks != m->n_ranks || parent->n_ranks != m->n_ranks)
		return false;
	for (r = 0; r < m->n_ranks; r++) {
		uint64_t pe = parent->extent[r] < m->shape[r] ? parent->extent[r] : m->shape[r];
		uint64_t ce = child->extent[r] < pe ? child->extent[r] : pe;
		if (!ce || pe % ce)
			return false;
	}
	return true;
}

static void nm_distribution(const struct density_model *m, const struct density_tile *t,
			    const struct density_constraint *c, struct density_dist *out)
{
	uint64_t pop, n, pn;

	if (nm_fixed_count(m, t, &n) &&
	    (!c || (nm_fixed_count(m, &c->parent, &pn) && pn == c->occupancy))) {
		density_dist_point(out, n);       /* whole groups: no randomness */
		return;
	}
	if (c && nm_fixed_count(m, &c->parent, &pn) && pn == c->occupancy &&
	    tiles_parent_evenly(m, t, &c->parent)) {
		nm_unconstrained(m, t, out);      /* every parent holds O: no information */
		return;
	}
	if (!c) {
		nm_unconstrained(m, t, out);
		return;
	}
	if (c->occupancy == 0) {
		density_dist_point(out, 0);
		return;
	}
	if (nm_constrained_exact(m, t, c, out))
		return;
	pop = density_tile_size(&c->parent);
	density_hg_dist(pop, c->occupancy < pop ? c->occupancy : pop, density_tile_size(t), out);
}

const struct density_kind_ops density_nm_ops = { .distribution = nm_distribution };
