/*
 * The density-aware estimate of STPU-C0's groups per partition, from the
 * density model alone (docs/stpu.md, "Density-aware estimate").
 *
 * Two effects bound first-fit from below and each dominates one regime:
 *
 * - Rows. Each non-zero of a row must sit in a different group, so a
 *   partition needs at least max_r (non-zeros of row r) groups. When the
 *   columns of a partition hold one non-zero each, first-fit puts the k-th
 *   non-zero of a row in group k, which is exactly that maximum. With rows
 *   independent and P(row holds <= k) = F(k):
 *     E[max] = sum_{k >= 0} (1 - F(k)^R).
 * - Columns. When columns hold several non-zeros, groups fill with holes.
 *   The mean field follows each group g's occupancy distribution d_g(k)
 *   (k occupied rows of R) as the columns arrive in order; a column of m
 *   non-zeros at uniformly random rows fits a group of occupancy k with
 *   probability h(k, m) = C(R - k, m) / C(R, m), and reaches group g with
 *   probability rej_g(m) = prod_{j<g} (1 - sum_k d_j(k) h(k, m)) (groups
 *   taken as independent). Arriving at g it moves occupancy k to k + m with
 *   probability rej_g(m) h(k, m) d_g(k). A column rejected everywhere opens
 *   a group: a new group starts as the point mass 1 - r at 0 plus
 *   rej(m) at m. The expected groups are sum_g (1 - d_g(0)).
 *   To keep the cost down, groups opened within the same window of
 *   columns (at most STPU_EST_COHORTS windows) form one cohort of n
 *   identical copies: the arrivals rej(m) at the cohort are shared equally,
 *   rej(m) (1 - (1 - a(m))^n) / (n a(m)) per copy where a(m) is a copy's
 *   acceptance, and rej(m) (1 - a(m))^n passes on. The column stream is cut
 *   into at most STPU_EST_STEPS steps of B columns: a cohort whose copies
 *   accept little over a step (B x P(accept) <= 0.05) takes the step's B
 *   columns at once (a linear update); the first other cohort and all after
 *   it take them one at a time.
 *
 * The estimate is the larger of the two. It assumes uniformly placed
 * non-zeros (uniform density models); tests/accel/test_stpu_estimate.c
 * checks it against the exact packer.
 */
#include "accel/stpu_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define STPU_EST_STEPS 1000
#define STPU_EST_COHORTS 128
#define STPU_EST_BATCH_LIMIT 0.05
#define STPU_EST_TINY 1e-15

/* E[max over 'rows' independent rows] from the per-row distribution. */
static double expected_max_row(unsigned rows, const double *pk, size_t n)
{
	double cdf = 0.0, e = 0.0;
	size_t k;

	for (k = 0; k < n; k++) {
		cdf += pk[k];
		if (cdf > 1.0)
			cdf = 1.0;
		e += 1.0 - pow(cdf, (double)rows);
	}
	return e;
}

static double log_choose(double n, double k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

/* A cohort of 'copies' groups with the same occupancy distribution. */
struct mf_group {
	double *d;                  /* rows + 1 */
	unsigned lo, hi;            /* support */
	double copies;
	uint64_t window;            /* column window it was opened in */
};

struct mf {
	unsigned R;
	unsigned mlo, mhi;          /* support of the column sizes */
	double *pm;                 /* P(m | m >= 1) */
	double *h;                  /* h[(m - mlo) * (R + 1) + k] */
	double *rej, *acc, *nd, *hg;
	double *entry;              /* the weights reaching the first one-at-a-time group */
	struct mf_group *g;
	size_t n, alloc;
};

static const double *mf_h(const struct mf *f, unsigned m)
{
	return f->h + (size_t)(m - f->mlo) * (f->R + 1);
}

/* Per-column acceptance of one copy of cohort 'gr' for the arrivals f->rej. */
static double mf_accept(const struct mf *f, const struct mf_group *gr)
{
	double a = 0.0;
	unsigned m, k;

	for (m = f->mlo; m <= f->mhi; m++) {
		const double *h = mf_h(f, m);
		unsigned kmax = f->R - m < gr->hi ? f->R - m : gr->hi;
		double s = 0.0;
		for (k = gr->lo; k <= kmax && m <= f->R; k++)
			s += gr->d[k] * h[k];
		a += f->rej[m] * s;
	}
	return a;
}

/*
 * 'mult' columns arrive at cohort 'gr' with size weights f->rej (per
 * column): update its occupancy and leave in f->rej the weights that pass
 * all its copies.
 */
static void mf_visit(struct mf *f, struct mf_group *gr, double mult)
{
	unsigned R = f->R, lo = gr->lo, hi = gr->hi, nhi = hi, m, k;
	double *d = gr->d, *nd = f->nd, *acc = f->acc, n = gr->copies;

	for (m = f->mlo; m <= f->mhi && m <= R; m++) {
		const double *h = mf_h(f, m);
		unsigned kmax = R - m < hi ? R - m : hi;
		double s = 0.0;
		for (k = lo; k <= kmax; k++)
			s += h[k] * d[k];
		f->hg[m] = s;
	}
	for (k = lo; k <= hi; k++)
		acc[k] = 0.0;
	for (k = lo; k <= R; k++)
		nd[k] = 0.0;
	for (m = f->mlo; m <= f->mhi && m <= R; m++) {
		const double *h = mf_h(f, m);
		double a = f->hg[m], w = f->rej[m], c;
		unsigned kmax = R - m < hi ? R - m : hi;
		if (n > 1.0 && a > 1e-300)
			w *= (1.0 - pow(1.0 - a, n)) / (n * a);
		f->rej[m] *= n > 1.0 ? pow(1.0 - a, n) : 1.0 - a;
		if (kmax < lo)
			continue;
		c = mult * w;
		for (k = lo; k <= kmax; k++) {
			nd[k + m] += c * h[k] * d[k];
			acc[k] += c * h[k];
		}
		if (kmax + m > nhi)
			nhi = kmax + m;
	}
	for (k = lo; k <= hi; k++) {
		double stay = 1.0 - acc[k];
		nd[k] += d[k] * (stay > 0.0 ? stay : 0.0);
	}
	while (lo < nhi && nd[lo] < STPU_EST_TINY)
		lo++;
	while (nhi > lo && nd[nhi] < STPU_EST_TINY)
		nhi--;
	memcpy(d + lo, nd + lo, (size_t)(nhi - lo + 1) * sizeof(*d));
	gr->lo = lo;
	gr->hi = nhi;
}

/*
 * A new group made of the column weights f->rej (the mass 1 - r stays at
 * 0), opened in column window 'window': a copy added to the last cohort
 * when that was opened in the same window.
 */
static void mf_open(struct mf *f, uint64_t window)
{
	struct mf_group *gr;
	double r = 0.0, n;
	unsigned m, k;

	for (m = f->mlo; m <= f->mhi; m++)
		r += f->rej[m];
	if (r <= 1e-12)
		return;
	if (f->n && f->g[f->n - 1].window == window) {
		gr = &f->g[f->n - 1];
		n = gr->copies;
		for (k = gr->lo; k <= gr->hi; k++)
			gr->d[k] *= n / (n + 1.0);
		gr->d[0] += (1.0 - r) / (n + 1.0);
		for (m = f->mlo; m <= f->mhi; m++) {
			gr->d[m] += f->rej[m] / (n + 1.0);
			if (f->rej[m] > 0.0 && m > gr->hi)
				gr->hi = m;
		}
		gr->lo = 0;
		gr->copies = n + 1.0;
		return;
	}
	XGROW(f->g, f->n + 1, f->alloc);
	gr = &f->g[f->n++];
	gr->d = xcalloc((size_t)f->R + 1, sizeof(*gr->d));
	gr->d[0] = 1.0 - r;
	gr->lo = 0;
	gr->hi = 0;
	gr->copies = 1.0;
	gr->window = window;
	for (m = f->mlo; m <= f->mhi; m++) {
		gr->d[m] += f->rej[m];
		if (f->rej[m] > 0.0)
			gr->hi = m;
	}
}

/* The mean-field expected groups (see the top of the file). */
static double mean_field(unsigned R, uint64_t cols, const double *col_pm)
{
	struct mf f;
	double p0 = col_pm[0], ne, groups = 0.0;
	uint64_t n_cols, done = 0, batch, window;
	unsigned m, k;
	size_t i;

	if (p0 >= 1.0)
		return 0.0;
	memset(&f, 0, sizeof(f));
	f.R = R;
	f.pm = xcalloc((size_t)R + 1, sizeof(*f.pm));
	for (m = 1; m <= R; m++)
		f.pm[m] = col_pm[m] / (1.0 - p0);
	f.mlo = 1;
	f.mhi = R;
	while (f.mhi > 1 && f.pm[f.mhi] < 1e-10)
		f.mhi--;
	while (f.mlo < f.mhi && f.pm[f.mlo] < 1e-10)
		f.mlo++;
	f.h = xmalloc((size_t)(f.mhi - f.mlo + 1) * (R + 1) * sizeof(*f.h));
	for (m = f.mlo; m <= f.mhi; m++)
		for (k = 0; k <= R; k++)
			f.h[(size_t)(m - f.mlo) * (R + 1) + k] =
				k + m <= R ? exp(log_choose(R - k, m) - log_choose(R, m)) : 0.0;
	f.rej = xcalloc((size_t)R + 1, sizeof(*f.rej));
	f.acc = xcalloc((size_t)R + 1, sizeof(*f.acc));
	f.nd = xcalloc((size_t)2 * R + 2, sizeof(*f.nd));
	f.entry = xcalloc((size_t)R + 1, sizeof(*f.entry));
	f.hg = xcalloc((size_t)R + 1, sizeof(*f.hg));
	ne = (double)cols * (1.0 - p0);
	n_cols = (uint64_t)llround(ne);
	batch = (n_cols + STPU_EST_STEPS - 1) / STPU_EST_STEPS;
	if (batch < 1)
		batch = 1;
	window = (n_cols + STPU_EST_COHORTS - 1) / STPU_EST_COHORTS;
	if (window < 1)
		window = 1;
	while (done < n_cols) {
		uint64_t b = n_cols - done < batch ? n_cols - done : batch, c;
		size_t front = 0;
		memcpy(f.rej, f.pm, ((size_t)R + 1) * sizeof(*f.rej));
		for (; front < f.n; front++) {
			if ((double)b * mf_accept(&f, &f.g[front]) > STPU_EST_BATCH_LIMIT)
				break;
			mf_visit(&f, &f.g[front], (double)b);
		}
		memcpy(f.entry, f.rej, ((size_t)R + 1) * sizeof(*f.entry));
		for (c = 0; c < b; c++) {
			memcpy(f.rej, f.entry, ((size_t)R + 1) * sizeof(*f.rej));
			for (i = front; i < f.n; i++) {
				double tot = 0.0;
				mf_visit(&f, &f.g[i], 1.0);
				for (m = f.mlo; m <= f.mhi; m++)
					tot += f.rej[m];
				if (tot < STPU_EST_TINY)
					break;
			}
			mf_open(&f, (done + c) / window);
		}
		done += b;
	}
	for (i = 0; i < f.n; i++) {
		groups += f.g[i].copies * (1.0 - f.g[i].d[0]);
		free(f.g[i].d);
	}
	free(f.g);
	free(f.pm);
	free(f.h);
	free(f.rej);
	free(f.acc);
	free(f.nd);
	free(f.entry);
	free(f.hg);
	return groups;
}

double stpu_estimate_groups(unsigned rows, uint64_t cols, const double *col_pm,
			    const double *row_pk, size_t n_row_pk, double *max_row,
			    double *mean_field_out)
{
	double a = expected_max_row(rows, row_pk, n_row_pk);
	double b = mean_field(rows, cols, col_pm);

	if (max_row)
		*max_row = a;
	if (mean_field_out)
		*mean_field_out = b;
	return a > b ? a : b;
}
