/*
 * Power-law density: the rows (the coordinates of one rank; a row is the
 * slice of S points sharing that coordinate) hold fixed numbers of
 * non-zeros whose shares follow a Zipf law, row i's share proportional to
 * (i + 1)^-alpha; each row's non-zeros sit at uniformly random distinct
 * places of the row. With permute_rows the row lengths are dealt to the
 * rows in a uniformly random order.
 *
 * A grid tile covers h rows and a window of w points of each: a row of L
 * non-zeros holds HG(.; L, w, S) of them, independently of the others, so
 * a tile holds the convolution over its rows. Without permutation P(n)
 * averages this over the grid tiles. With it, each tile's rows are a
 * uniform h-subset of the rows: the subset is drawn group by group over
 * the distinct row lengths (a chain of hypergeometrics) with the tile's
 * count as state; over the model's budget, the rows are drawn with
 * replacement instead (the h-th convolution power of the mixture of the
 * rows' counts, cut to the counts h distinct rows can hold: the mean is
 * exact up to the cut mass, the variance slightly larger).
 * Under a constraint (rows in their Zipf order) the per-row joint (child,
 * rest-of-parent) counts are exact, a multivariate hypergeometric per row
 * of the child; over budget, and for permuted rows, the query falls back
 * to HG(n; O, s, S_parent).
 */
#include "density/density_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* --------------------------------------------------------- the row lengths */

/* A row's fractional quota, for the largest-remainder rounding. */
struct quota {
	double frac;
	uint64_t row;
};

/* Larger fractions first, then lower rows. */
static int cmp_quota(const void *a, const void *b)
{
	const struct quota *x = a, *y = b;

	if (x->frac != y->frac)
		return x->frac > y->frac ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * Spread 'total' non-zeros over rows c .. R-1 of 'len' in proportion to
 * 'w', none above S: each row gets floor(q) of its quota q = total w_i /
 * W_c (W_c = suffix sum), then one more goes to the rows with the largest
 * fractions of q (ties: lower rows first) until the total is met.
 */
static void apportion(uint64_t *len, const double *w, double wsum, uint64_t c, uint64_t R,
		      uint64_t S, uint64_t total)
{
	struct quota *qs = xmalloc((R - c) * sizeof(*qs));
	uint64_t i, sum = 0, k;

	for (i = c; i < R; i++) {
		double q = (double)total * w[i] / wsum, f = floor(q);
		len[i] = f >= (double)S ? S : (uint64_t)f;
		qs[i - c] = (struct quota){ q - f, i };
		sum += len[i];
	}
	qsort(qs, R - c, sizeof(*qs), cmp_quota);
	for (k = 0; sum < total; k = (k + 1) % (R - c))
		if (len[qs[k].row] < S) {
			len[qs[k].row]++;
			sum++;
		}
	for (k = R - c; sum > total; k = k ? k - 1 : R - c)
		if (k < R - c && len[qs[k].row] > 0) {
			len[qs[k].row]--;
			sum--;
		}
	free(qs);
}

/*
 * Row lengths: T = round(rho size) non-zeros; rows whose quota
 * T' (i + 1)^-alpha / W exceeds S are full (heaviest first, T' and W then
 * count the remaining rows), the others share the rest by apportion().
 * W sums the weights from the last row up.
 */
void density_power_law_init(struct density_model *m)
{
	uint64_t R = m->shape[m->nm_rank], S = R ? m->size / R : 0, c, i;
	uint64_t rem = (uint64_t)llround(m->spec.density * (double)m->size);
	double *w = xmalloc((R + 1) * sizeof(double)), *suf = xmalloc((R + 1) * sizeof(double));

	m->row_points = S;
	m->row_len = xcalloc(R ? R : 1, sizeof(uint64_t));
	if (rem > m->size)
		rem = m->size;
	for (i = 0; i < R; i++)
		w[i] = pow((double)(i + 1), -m->spec.exponent);
	suf[R] = 0.0;
	for (i = R; i-- > 0;)
		suf[i] = suf[i + 1] + w[i];
	for (c = 0; c < R && rem > 0 && (double)rem * w[c] / suf[c] > (double)S; c++) {
		m->row_len[c] = S;
		rem -= S;
	}
	if (c < R && rem > 0)
		apportion(m->row_len, w, suf[c], c, R, S, rem);
	free(w);
	free(suf);
}

/* ------------------------------------------------------------------ helpers */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A window class: 'weight' (parent, child) windows of wp and wc points of a row. */
struct win {
	uint64_t wc, wp;
	double weight;
};

static void win_add(struct win **v, size_t *n, size_t *alloc, uint64_t wc, uint64_t wp, double w)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].wc == wc && (*v)[i].wp == wp) {
			(*v)[i].weight += w;
			return;
		}
	XGROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct win){ wc, wp, w };
}

/*
 * The windows over the ranks other than the rows' rank: parents of extents
 * 'pe' and children 'ce' cut from each parent's origin (pairs), or the
 * tiles 'pe' alone (!pairs), full and edge-clipped, with multiplicities.
 */
static size_t windows(const struct density_model *m, const uint64_t *pe, const uint64_t *ce,
		      bool pairs, struct win **out)
{
	struct win *cur = NULL, *next = NULL;
	size_t n_cur = 0, a_cur = 0, n_next, a_next = 0, i;
	unsigned r, a, b;

	win_add(&cur, &n_cur, &a_cur, 1, 1, 1.0);
	for (r = 0; r < m->n_ranks; r++) {
		uint64_t pv[2] = { pe[r], m->shape[r] % pe[r] };
		double pw[2] = { (double)(m->shape[r] / pe[r]), 1.0 };
		if (r == m->nm_rank)
			continue;
		n_next = 0;
		for (i = 0; i < n_cur; i++)
			for (a = 0; a < 2; a++) {
				uint64_t P = pv[a], cv[2];
				double cw[2];
				if (P == 0 || pw[a] == 0.0)
					continue;
				cv[0] = pairs ? min_u64(ce[r], P) : P;
				cv[1] = P % cv[0];
				cw[0] = pairs ? (double)(P / cv[0]) : 1.0;
				cw[1] = 1.0;
				for (b = 0; b < 2; b++)
					if (cv[b])
						win_add(&next, &n_next, &a_next, cur[i].wc * cv[b],
							cur[i].wp * P, cur[i].weight * pw[a] * cw[b]);
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

/* out := the count of rows [r0, r0 + h) in windows of w points (runs of equal rows by powers). */
static void rows_conv(const struct density_model *m, uint64_t r0, uint64_t h, uint64_t w,
		      struct density_dist *out)
{
	struct density_dist row = DENSITY_DIST_INIT, run = DENSITY_DIST_INIT;
	uint64_t i = r0, j;

	density_dist_point(out, 0);
	while (i < r0 + h) {
		for (j = i + 1; j < r0 + h && m->row_len[j] == m->row_len[i]; j++)
			;
		if (m->row_len[i] > 0) {
			density_hg_dist(m->row_points, m->row_len[i], w, &row);
			density_dist_pow(&row, j - i, &run);
			density_dist_conv(out, &run, out);
		}
		i = j;
	}
	density_dist_release(&row);
	density_dist_release(&run);
}

/* Distinct row lengths and how many rows have each. */
struct len_group {
	uint64_t len, count;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t len_groups(const struct density_model *m, struct len_group **out)
{
	uint64_t R = m->shape[m->nm_rank], *s = xmalloc(R * sizeof(uint64_t)), i;
	struct len_group *g = xmalloc(R * sizeof(*g));
	size_t n = 0;

	memcpy(s, m->row_len, R * sizeof(uint64_t));
	qsort(s, R, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < R; i++) {
		if (n && g[n - 1].len == s[i])
			g[n - 1].count++;
		else
			g[n++] = (struct len_group){ s[i], 1 };
	}
	free(s);
	*out = g;
	return n;
}

/* ------------------------------------------------------------ unconstrained */

static void unpermuted(const struct density_model *m, const struct density_tile *t,
		       struct density_dist *out)
{
	uint64_t R = m->shape[m->nm_rank], a = t->extent[m->nm_rank], r0;
	struct density_dist tile = DENSITY_DIST_INIT;
	struct win *wins;
	size_t n_wins = windows(m, t->extent, t->extent, false, &wins), i;
	double total = 0.0;

	for (r0 = 0; r0 < R; r0 += a)
		for (i = 0; i < n_wins; i++) {
			rows_conv(m, r0, min_u64(a, R - r0), wins[i].wp, &tile);
			density_dist_add(out, &tile, wins[i].weight);
			total += wins[i].weight;
		}
	density_dist_scale(out, total);
	density_dist_trim(out);
	density_dist_release(&tile);
	free(wins);
}

/* Operations of the exact subset chain for h rows in windows of w. */
static double subset_work(const struct len_group *g, size_t n_g, uint64_t h, uint64_t w)
{
	double work = 0.0, states = (double)(h + 1) * (double)(h * w + 1);
	size_t i;

	for (i = 0; i < n_g; i++) {
		double k = (double)min_u64(g[i].count, h);
		work += states * (k + 1) * (k * (double)min_u64(g[i].len, w) + 1);
	}
	return work;
}

/*
 * out := the count of a uniform h-subset of the rows in windows of w
 * points: slab[j] is the count of the j rows chosen so far; a group of c
 * rows of length L, met with 'pop' rows unseen and h - j still to choose,
 * gives k of them with HG(k; h - j, c, pop), adding HG(.; L, w, S)^*k.
 */
static void subset_exact(const struct density_model *m, const struct len_group *g, size_t n_g,
			 uint64_t h, uint64_t w, struct density_dist *out)
{
	struct density_dist *slab = xcalloc(h + 1, sizeof(*slab)), *nx = xcalloc(h + 1, sizeof(*nx));
	struct density_dist *pw = xcalloc(h + 1, sizeof(*pw));
	struct density_dist row = DENSITY_DIST_INIT, hg = DENSITY_DIST_INIT, tmp = DENSITY_DIST_INIT;
	uint64_t pop = m->shape[m->nm_rank], j, k, kmax;
	size_t i;

	density_dist_point(&slab[0], 0);
	for (i = 0; i < n_g; i++) {
		kmax = min_u64(g[i].count, h);
		density_hg_dist(m->row_points, g[i].len, w, &row);
		density_dist_point(&pw[0], 0);
		for (k = 1; k <= kmax; k++)
			density_dist_conv(&pw[k - 1], &row, &pw[k]);
		for (j = 0; j <= h; j++) {
			if (slab[j].n == 0 || h - j > pop)
				continue;
			density_hg_dist(pop, h - j, g[i].count, &hg);
			for (k = hg.lo; k < hg.lo + hg.n; k++) {
				density_dist_conv(&slab[j], &pw[k], &tmp);
				density_dist_add(&nx[j + k], &tmp, hg.p[k - hg.lo]);
			}
		}
		for (j = 0; j <= h; j++) {
			density_dist_release(&slab[j]);
			slab[j] = nx[j];
			nx[j] = (struct density_dist)DENSITY_DIST_INIT;
		}
		pop -= g[i].count;
	}
	density_dist_release(out);
	*out = slab[h];
	slab[h] = (struct density_dist)DENSITY_DIST_INIT;
	for (j = 0; j <= h; j++) {
		density_dist_release(&slab[j]);
		density_dist_release(&pw[j]);
	}
	free(slab);
	free(nx);
	free(pw);
	density_dist_release(&row);
	density_dist_release(&hg);
	density_dist_release(&tmp);
}

/*
 * The support of an h-subset's count in windows of w: from the sum of the
 * h smallest max(0, L - (S - w)) to the sum of the h largest min(L, w)
 * ('g' is sorted by length).
 */
static void subset_support(const struct density_model *m, const struct len_group *g, size_t n_g,
			   uint64_t h, uint64_t w, uint64_t *lo, uint64_t *hi)
{
	uint64_t left = h, S = m->row_points, k;
	size_t i;

	*lo = *hi = 0;
	for (i = 0; i < n_g && left; i++) {
		k = min_u64(left, g[i].count);
		*lo += k * (g[i].len > S - w ? g[i].len - (S - w) : 0);
		left -= k;
	}
	for (i = n_g, left = h; i-- > 0 && left;) {
		k = min_u64(left, g[i].count);
		*hi += k * min_u64(g[i].len, w);
		left -= k;
	}
}

/*
 * out := h rows drawn with replacement (the h-th power of the rows'
 * mixture), cut to the support of a true h-subset and renormalized, so
 * that no count beyond what h distinct rows can hold gets a probability.
 */
static void subset_mixture(const struct density_model *m, const struct len_group *g, size_t n_g,
			   uint64_t h, uint64_t w, struct density_dist *out)
{
	struct density_dist mix = DENSITY_DIST_INIT, row = DENSITY_DIST_INIT;
	double R = (double)m->shape[m->nm_rank], kept = 0.0;
	uint64_t lo, hi, n;
	size_t i;

	for (i = 0; i < n_g; i++) {
		density_hg_dist(m->row_points, g[i].len, w, &row);
		density_dist_add(&mix, &row, (double)g[i].count / R);
	}
	density_dist_pow(&mix, h, &row);
	subset_support(m, g, n_g, h, w, &lo, &hi);
	density_dist_zero(out, lo, (size_t)(hi - lo + 1));
	for (n = lo; n <= hi; n++)
		kept += out->p[n - lo] = density_dist_at(&row, n);
	if (kept > 0.0)
		density_dist_scale(out, kept);
	density_dist_trim(out);
	density_dist_release(&mix);
	density_dist_release(&row);
}

static void permuted(const struct density_model *m, const struct density_tile *t,
		     struct density_dist *out)
{
	uint64_t R = m->shape[m->nm_rank], a = t->extent[m->nm_rank];
	uint64_t hs[2] = { a, R % a };
	double hw[2] = { (double)(R / a), 1.0 }, total = 0.0, budget = m->work_budget;
	struct density_dist tile = DENSITY_DIST_INIT;
	struct len_group *g;
	size_t n_g = len_groups(m, &g), n_wins, i;
	struct win *wins;
	unsigned k;

	n_wins = windows(m, t->extent, t->extent, false, &wins);
	for (k = 0; k < 2; k++) {
		if (hs[k] == 0 || hw[k] == 0.0)
			continue;
		for (i = 0; i < n_wins; i++) {
			double work = subset_work(g, n_g, hs[k], wins[i].wp);
			if (work <= budget) {
				budget -= work;
				subset_exact(m, g, n_g, hs[k], wins[i].wp, &tile);
			} else {
				subset_mixture(m, g, n_g, hs[k], wins[i].wp, &tile);
			}
			density_dist_add(out, &tile, hw[k] * wins[i].weight);
			total += hw[k] * wins[i].weight;
		}
	}
	density_dist_scale(out, total);
	density_dist_trim(out);
	density_dist_release(&tile);
	free(wins);
	free(g);
}

/* -------------------------------------------------------------- constrained */

/* A 2-D distribution: P(a, b) = p[a * nb + b] for a < na, b < nb. */
struct joint {
	size_t na, nb;
	double *p;
};

/*
 * The joint (child, rest) count of a row of L non-zeros in S points with
 * wc points in the child's window and wr more in the parent's:
 * C(wc, a) C(wr, b) C(S - wc - wr, L - a - b) / C(S, L).
 */
static void row_joint(uint64_t S, uint64_t L, uint64_t wc, uint64_t wr, struct joint *j)
{
	long double total = density_lchoose(S, L);
	uint64_t a, b, out = S - wc - wr;

	j->na = (size_t)min_u64(L, wc) + 1;
	j->nb = (size_t)min_u64(L, wr) + 1;
	j->p = xcalloc(j->na * j->nb, sizeof(double));
	for (a = 0; a < j->na; a++)
		for (b = 0; a + b <= L && b < j->nb; b++)
			if (L - a - b <= out)
				j->p[a * j->nb + b] = (double)expl(density_lchoose(wc, a) +
								    density_lchoose(wr, b) +
								    density_lchoose(out, L - a - b) -
								    total);
}

/*
 * What the constrained pairs add up to: num[n] = P(child = n, parent = O),
 * or with 'all_t' num[n * (O + 1) + t] for every parent count t <= O.
 */
struct pair_query {
	uint64_t O, n_cap;
	bool all_t;
	double *num;
	double budget;
};

/*
 * Add w P(child = n, parent = O) to q->num for one pair: child rows
 * [c0, c0 + hc) of parent rows [p0, p0 + hp), windows (wc, wp). The child
 * rows go through a 2-D state (n, b: their count outside the child's
 * window), bounded by what the rows so far can hold; the other rows make
 * the rest's count. Returns false when the budget runs out.
 */
static bool pair(const struct density_model *m, struct pair_query *q, uint64_t p0, uint64_t hp,
		 uint64_t c0, uint64_t hc, const struct win *wn)
{
	uint64_t wr = wn->wp - wn->wc, S = m->row_points, i, n, b, a, k, an = 0, bn = 0, len = 1;
	struct density_dist rest = DENSITY_DIST_INIT, part = DENSITY_DIST_INIT;
	double *st, *nx, work = 0.0;
	struct joint jt;

	for (i = c0; i < c0 + hc; i++) {
		uint64_t ja = min_u64(m->row_len[i], wn->wc), jb = min_u64(m->row_len[i], wr);
		work += (double)(an + 1) * (double)(bn + 1) * (double)(ja + 1) * (double)(jb + 1);
		an = min_u64(an + ja, q->n_cap);
		bn = min_u64(bn + jb, q->O);
	}
	for (i = p0; i < p0 + hp; i++)
		if (i < c0 || i >= c0 + hc) {
			uint64_t l = min_u64(m->row_len[i], wn->wp);
			work += (double)len * (double)(l + 1);
			len += l;
		}
	if (q->all_t)
		work += (double)(an + 1) * (double)(bn + 1) * (double)len;
	if (work > q->budget)
		return false;
	q->budget -= work;
	rows_conv(m, p0, c0 - p0, wn->wp, &rest);
	rows_conv(m, c0 + hc, p0 + hp - c0 - hc, wn->wp, &part);
	density_dist_conv(&rest, &part, &rest);
	st = xcalloc((an + 1) * (bn + 1), sizeof(double));
	nx = xcalloc((an + 1) * (bn + 1), sizeof(double));
	st[0] = 1.0;
	for (i = c0; i < c0 + hc; i++) {
		row_joint(S, m->row_len[i], wn->wc, wr, &jt);
		memset(nx, 0, (an + 1) * (bn + 1) * sizeof(double));
		for (n = 0; n <= an; n++)
			for (b = 0; b <= bn; b++) {
				double v = st[n * (bn + 1) + b];
				if (v == 0.0)
					continue;
				for (a = 0; a < jt.na && n + a <= an; a++)
					for (k = 0; k < jt.nb && b + k <= bn; k++)
						nx[(n + a) * (bn + 1) + b + k] += v * jt.p[a * jt.nb + k];
			}
		memcpy(st, nx, (an + 1) * (bn + 1) * sizeof(double));
		free(jt.p);
	}
	for (n = 0; n <= an; n++)
		for (b = 0; b <= bn && n + b <= q->O; b++) {
			double v = wn->weight * st[n * (bn + 1) + b];
			if (v == 0.0)
				continue;
			if (!q->all_t) {
				q->num[n] += v * density_dist_at(&rest, q->O - n - b);
				continue;
			}
			for (k = rest.lo; k < rest.lo + rest.n && n + b + k <= q->O; k++)
				q->num[n * (q->O + 1) + n + b + k] += v * rest.p[k - rest.lo];
		}
	free(st);
	free(nx);
	density_dist_release(&rest);
	density_dist_release(&part);
	return true;
}

/* Call pair() on every (parent, child) pair of parents 'pe', children 'ce'; false over budget. */
static bool for_pairs(const struct density_model *m, const uint64_t *pe, const uint64_t *ce,
		      struct pair_query *q)
{
	unsigned rr = m->nm_rank;
	uint64_t R = m->shape[rr], A = pe[rr], p0, c0;
	struct win *wins;
	size_t n_wins = windows(m, pe, ce, true, &wins), i;
	bool ok = true;

	for (p0 = 0; p0 < R && ok; p0 += A) {
		uint64_t hp = min_u64(A, R - p0);
		for (c0 = p0; c0 < p0 + hp && ok; c0 += ce[rr])
			for (i = 0; i < n_wins && ok; i++)
				ok = pair(m, q, p0, hp, c0, min_u64(ce[rr], p0 + hp - c0), &wins[i]);
	}
	free(wins);
	return ok;
}

/* The most non-zeros a parent tile of extents 'pe' can hold. */
static uint64_t parent_max(const struct density_model *m, const uint64_t *pe)
{
	uint64_t R = m->shape[m->nm_rank], A = pe[m->nm_rank], p0, i, best = 0;
	struct win *wins;
	size_t n_wins = windows(m, pe, pe, false, &wins), k;

	for (p0 = 0; p0 < R; p0 += A)
		for (k = 0; k < n_wins; k++) {
			uint64_t sum = 0;
			for (i = p0; i < p0 + A && i < R; i++)
				sum += min_u64(m->row_len[i], wins[k].wp);
			best = sum > best ? sum : best;
		}
	free(wins);
	return best;
}

/*
 * P(child = n, parent = t) for every t of the child shape 'ce' under
 * parents 'pe', computed once per model; its 'num' stays NULL when it
 * would be too large or exceed the budget.
 */
static const struct density_joint *joint_of(const struct density_model *m, const uint64_t *pe,
					     const uint64_t *ce)
{
	struct pair_query q;
	struct density_joint *j;
	uint64_t pts = 1;
	bool is_new;
	unsigned r;

	j = density_joint_get(m, pe, ce, &is_new);
	if (!is_new)
		return j;
	for (r = 0; r < m->n_ranks; r++)
		pts *= ce[r];
	q.O = parent_max(m, pe);
	q.n_cap = min_u64(pts, q.O);
	q.all_t = true;
	q.budget = m->work_budget;
	j->n1 = (size_t)q.n_cap + 1;
	j->t1 = (size_t)q.O + 1;
	if ((double)j->n1 * (double)j->t1 > (double)m->joint_max_entries)
		return j;
	q.num = xcalloc(j->n1 * j->t1, sizeof(double));
	if (for_pairs(m, pe, ce, &q))
		j->num = q.num;
	else
		free(q.num);
	return j;
}

/*
 * The exact constrained distribution over all (parent, child) pairs, from
 * the joint when it was kept, else for this O alone; false over budget or
 * when no parent holds O.
 */
static bool constrained_exact(const struct density_model *m, const struct density_constraint *c,
			      const uint64_t *ce, struct density_dist *out)
{
	const struct density_joint *j = joint_of(m, c->parent.extent, ce);
	struct pair_query q = { c->occupancy, 0, false, NULL, m->work_budget };
	uint64_t pts = 1, n;
	double sum = 0.0;
	bool ok;
	unsigned r;

	for (r = 0; r < m->n_ranks; r++)
		pts *= ce[r];
	q.n_cap = min_u64(pts, q.O);
	if (j->num)
		return density_joint_dist(j, q.O, q.n_cap, out);
	q.num = xcalloc((size_t)q.n_cap + 1, sizeof(double));
	ok = for_pairs(m, c->parent.extent, ce, &q);
	for (n = 0; ok && n <= q.n_cap; n++)
		sum += q.num[n];
	if (ok && sum > 0.0) {
		density_dist_zero(out, 0, (size_t)q.n_cap + 1);
		memcpy(out->p, q.num, ((size_t)q.n_cap + 1) * sizeof(double));
		density_dist_scale(out, sum);
		density_dist_trim(out);
	}
	free(q.num);
	return ok && sum > 0.0;
}

static void power_law_distribution(const struct density_model *m, const struct density_tile *t,
				   const struct density_constraint *c, struct density_dist *out)
{
	uint64_t ce[SPEC_MAX_TENSOR_RANKS], pop, pts = 1;
	unsigned r;

	density_dist_release(out);
	if (!c) {
		if (m->spec.permute_rows)
			permuted(m, t, out);
		else
			unpermuted(m, t, out);
		return;
	}
	if (c->occupancy == 0) {
		density_dist_point(out, 0);
		return;
	}
	for (r = 0; r < m->n_ranks; r++) {
		ce[r] = min_u64(t->extent[r], c->parent.extent[r]);
		pts *= ce[r];
	}
	if (!m->spec.permute_rows && constrained_exact(m, c, ce, out))
		return;
	pop = density_tile_points(&c->parent);
	density_hg_dist(pop, min_u64(c->occupancy, pop), pts, out);
}

const struct density_kind_ops density_power_law_ops = { .distribution = power_law_distribution };
