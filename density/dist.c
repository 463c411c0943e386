/*
 * What the density kinds share: probability vectors and their operations,
 * the hypergeometric distribution, grid indexes, tile sizes and the
 * models' cache of joint distributions. Nothing here calls back into
 * density.c or into a kind.
 */
#include "density/density_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/xalloc.h"

/* ------------------------------------------------------ probability vectors */

void density_dist_release(struct density_dist *d)
{
	free(d->p);
	*d = (struct density_dist)DENSITY_DIST_INIT;
}

void density_dist_zero(struct density_dist *d, uint64_t lo, size_t n)
{
	free(d->p);
	d->lo = lo;
	d->n = n;
	d->p = xcalloc(n ? n : 1, sizeof(double));
}

void density_dist_point(struct density_dist *d, uint64_t v)
{
	density_dist_zero(d, v, 1);
	d->p[0] = 1.0;
}

void density_dist_conv(const struct density_dist *a, const struct density_dist *b,
		       struct density_dist *out)
{
	struct density_dist r = DENSITY_DIST_INIT;
	size_t i, j;

	if (a->n == 0 || b->n == 0) {
		density_dist_release(out);
		return;
	}
	density_dist_zero(&r, a->lo + b->lo, a->n + b->n - 1);
	for (i = 0; i < a->n; i++) {
		if (a->p[i] == 0.0)
			continue;
		for (j = 0; j < b->n; j++)
			r.p[i + j] += a->p[i] * b->p[j];
	}
	density_dist_trim(&r);
	density_dist_release(out);
	*out = r;
}

void density_dist_pow(const struct density_dist *a, uint64_t k, struct density_dist *out)
{
	struct density_dist result = DENSITY_DIST_INIT, base = DENSITY_DIST_INIT;

	density_dist_point(&result, 0);
	density_dist_zero(&base, a->lo, a->n);
	if (a->n)
		memcpy(base.p, a->p, a->n * sizeof(double));
	while (k) {
		if (k & 1)
			density_dist_conv(&result, &base, &result);
		k >>= 1;
		if (k)
			density_dist_conv(&base, &base, &base);
	}
	density_dist_release(&base);
	density_dist_release(out);
	*out = result;
}

void density_dist_add(struct density_dist *acc, const struct density_dist *d, double w)
{
	uint64_t lo, hi;
	size_t i;

	if (d->n == 0)
		return;
	if (acc->n == 0) {
		density_dist_zero(acc, d->lo, d->n);
	} else if (d->lo < acc->lo || d->lo + d->n > acc->lo + acc->n) {
		struct density_dist g = DENSITY_DIST_INIT;
		lo = d->lo < acc->lo ? d->lo : acc->lo;
		hi = d->lo + d->n > acc->lo + acc->n ? d->lo + d->n : acc->lo + acc->n;
		density_dist_zero(&g, lo, (size_t)(hi - lo));
		memcpy(g.p + (acc->lo - lo), acc->p, acc->n * sizeof(double));
		density_dist_release(acc);
		*acc = g;
	}
	for (i = 0; i < d->n; i++)
		acc->p[d->lo - acc->lo + i] += w * d->p[i];
}

void density_dist_scale(struct density_dist *d, double total)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		d->p[i] /= total;
}

void density_dist_trim(struct density_dist *d)
{
	size_t a = 0, b = d->n;

	while (a < b && d->p[a] < 1e-300)
		a++;
	while (b > a && d->p[b - 1] < 1e-300)
		b--;
	if (a == 0 && b == d->n)
		return;
	if (a == b) {
		density_dist_release(d);
		return;
	}
	memmove(d->p, d->p + a, (b - a) * sizeof(double));
	d->lo += a;
	d->n = b - a;
}

double density_dist_at(const struct density_dist *d, uint64_t v)
{
	if (v < d->lo || v - d->lo >= d->n)
		return 0.0;
	return d->p[v - d->lo];
}

/* The tail of Stirling's series for ln Gamma(x): 1/(12x) - 1/(360x^3) + ... */
static long double stirling_tail(long double x)
{
	long double x2 = x * x;

	return (1.0L / 12 - (1.0L / 360 - (1.0L / 1260 - 1.0L / (1680 * x2)) / x2) / x2) / x;
}

/*
 * ln Gamma(a) - ln Gamma(b) for a >= b > 0 without the cancellation of two
 * large log-gammas: for b >= 64, Stirling's series gives
 * (a - b) ln a + (b - 1/2) log1p((a - b) / b) - (a - b) + S(a) - S(b).
 */
static long double lgamma_diff(long double a, long double b)
{
	long double d = a - b;

	if (b < 64.0L)
		return lgammal(a) - lgammal(b);
	return d * logl(a) + (b - 0.5L) * log1pl(d / b) - d + stirling_tail(a) - stirling_tail(b);
}

long double density_lchoose(uint64_t n, uint64_t k)
{
	if (k > n)
		BUG("C(%llu, %llu)", (unsigned long long)n, (unsigned long long)k);
	if (k > n - k)
		k = n - k;
	if (k == 0)
		return 0.0L;
	return lgamma_diff((long double)n + 1, (long double)(n - k) + 1) - lgammal((long double)k + 1);
}

double density_hg_pmf(uint64_t pop, uint64_t succ, uint64_t sample, uint64_t n)
{
	if (n > succ || n > sample || sample - n > pop - succ)
		return 0.0;
	return (double)expl(density_lchoose(succ, n) + density_lchoose(pop - succ, sample - n) -
			    density_lchoose(pop, sample));
}

void density_hg_dist(uint64_t pop, uint64_t succ, uint64_t sample, struct density_dist *out)
{
	uint64_t lo = sample > pop - succ ? sample - (pop - succ) : 0;
	uint64_t hi = sample < succ ? sample : succ, n;

	density_dist_zero(out, lo, (size_t)(hi - lo + 1));
	for (n = lo; n <= hi; n++)
		out->p[n - lo] = density_hg_pmf(pop, succ, sample, n);
}

uint64_t density_grid_index(unsigned n, const uint64_t *ext, const uint64_t *coord)
{
	uint64_t idx = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		idx = idx * ext[i] + coord[i];
	return idx;
}

/* ------------------------------------------------------------------ tiles */

struct density_tile density_tile_flat(uint64_t points)
{
	struct density_tile t;

	memset(&t, 0, sizeof(t));
	t.n_ranks = 1;
	t.extent[0] = points;
	return t;
}

struct density_tile density_tile_box(unsigned n_ranks, const uint64_t *extent)
{
	struct density_tile t;

	if (n_ranks > SPEC_MAX_TENSOR_RANKS)
		BUG("tile of %u ranks", n_ranks);
	memset(&t, 0, sizeof(t));
	t.n_ranks = n_ranks;
	memcpy(t.extent, extent, n_ranks * sizeof(uint64_t));
	return t;
}

uint64_t density_tile_points(const struct density_tile *t)
{
	return density_tile_size(t);
}

/* ------------------------------------------------------------------ joints */

struct density_joint *density_joint_get(const struct density_model *m, const uint64_t *pe,
					const uint64_t *ce, bool *is_new)
{
	struct density_model *mm = (struct density_model *)m;   /* the model's own cache */
	struct density_joint *j;

	*is_new = false;
	for (j = m->joints; j; j = j->next)
		if (!memcmp(j->child, ce, m->n_ranks * sizeof(uint64_t)) &&
		    !memcmp(j->parent, pe, m->n_ranks * sizeof(uint64_t)))
			return j;
	j = xcalloc(1, sizeof(*j));
	memcpy(j->child, ce, m->n_ranks * sizeof(uint64_t));
	memcpy(j->parent, pe, m->n_ranks * sizeof(uint64_t));
	j->next = mm->joints;
	mm->joints = j;
	*is_new = true;
	return j;
}

bool density_joint_dist(const struct density_joint *j, uint64_t O, uint64_t n_cap,
			struct density_dist *out)
{
	double sum = 0.0;
	uint64_t n;

	density_dist_zero(out, 0, (size_t)n_cap + 1);
	for (n = 0; n <= n_cap && n < j->n1 && O < j->t1; n++)
		sum += out->p[n] = j->num[n * j->t1 + O];
	if (sum <= 0.0) {
		density_dist_release(out);
		return false;
	}
	density_dist_scale(out, sum);
	density_dist_trim(out);
	return true;
}

void density_joints_free(struct density_joint *j)
{
	struct density_joint *next;

	for (; j; j = next) {
		next = j->next;
		free(j->num);
		free(j);
	}
}
