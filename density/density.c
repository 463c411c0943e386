/*
 * Density models: construction, the closed forms of fixed_structured and
 * hypergeometric (semantics 4.2), the per-model distribution cache of the
 * geometric kinds, and the queries, dispatched to a kind's ops table.
 */
#include "density/density.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density/density_int.h"
#include "util/ckmath.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

/* 't' clipped to the tensor of 'm' (extents in [1, shape]). */
static struct density_tile clip_tile(const struct density_model *m, const struct density_tile *t)
{
	struct density_tile c;
	unsigned i;

	if (t->n_ranks != m->n_ranks)
		BUG("a tile of %u ranks for a tensor of %u", t->n_ranks, m->n_ranks);
	memset(&c, 0, sizeof(c));
	c.n_ranks = t->n_ranks;
	for (i = 0; i < t->n_ranks; i++) {
		c.extent[i] = t->extent[i] < m->shape[i] ? t->extent[i] : m->shape[i];
		if (c.extent[i] == 0)
			c.extent[i] = 1;
	}
	return c;
}

/* ------------------------------------------------------------------ cache */

/* The query a cached distribution answers (padding-free: compared by bytes). */
struct cache_key {
	uint64_t tile[SPEC_MAX_TENSOR_RANKS];
	uint64_t parent[SPEC_MAX_TENSOR_RANKS];
	uint64_t occupancy;
	uint64_t constrained;
};

_Static_assert(sizeof(struct cache_key) == (2 * SPEC_MAX_TENSOR_RANKS + 2) * sizeof(uint64_t),
	       "a cache key has no padding");

/* cache_key -> struct density_dist * (owned by the cache). */
struct density_cache {
	struct hashmap map;
};

static struct density_cache *cache_new(void)
{
	struct density_cache *c = xmalloc(sizeof(*c));

	hashmap_init(&c->map, sizeof(struct cache_key), sizeof(struct density_dist *));
	return c;
}

static void cache_free(struct density_cache *c)
{
	struct density_dist **d;
	size_t pos = 0;

	if (!c)
		return;
	while (hashmap_next(&c->map, &pos, NULL, (void **)&d)) {
		density_dist_release(*d);
		free(*d);
	}
	hashmap_release(&c->map);
	free(c);
}

/*
 * The distribution of the (clipped) tile 't' under 'cons', computed once
 * per model and then borrowed from the cache. A model belongs to one
 * thread (each model workspace builds its own), so the cache needs no lock.
 */
static const struct density_dist *cached_distribution(struct density_model *m,
						      const struct density_tile *t,
						      const struct density_constraint *cons)
{
	struct cache_key k;
	struct density_dist **slot, *d;
	bool is_new;

	memset(&k, 0, sizeof(k));
	memcpy(k.tile, t->extent, t->n_ranks * sizeof(uint64_t));
	if (cons) {
		k.constrained = 1;
		memcpy(k.parent, cons->parent.extent, cons->parent.n_ranks * sizeof(uint64_t));
		k.occupancy = cons->occupancy;
	}
	slot = hashmap_put(&m->cache->map, &k, &is_new);
	if (!is_new)
		return *slot;
	d = xcalloc(1, sizeof(*d));
	*slot = d;
	m->ops->distribution(m, t, cons, d);
	return d;
}

/* The cached distribution of 't' under 'c' (either clipped first). */
static const struct density_dist *geometric(struct density_model *m, const struct density_tile *t,
					    const struct density_constraint *c)
{
	struct density_tile ct = clip_tile(m, t);
	struct density_constraint cc;

	if (!c)
		return cached_distribution(m, &ct, NULL);
	cc.parent = clip_tile(m, &c->parent);
	cc.occupancy = c->occupancy;
	return cached_distribution(m, &ct, &cc);
}

/* ----------------------------------------------------------- construction */

/* The tensor rank whose projection uses dimension 'dim'; the last rank if none. */
static unsigned rank_of_dim(const struct spec_tensor *t, unsigned dim)
{
	unsigned i, k;

	for (i = 0; i < t->n_ranks; i++)
		for (k = 0; k < t->ranks[i].n_terms; k++)
			if (t->ranks[i].terms[k].dim == dim)
				return i;
	return t->n_ranks ? t->n_ranks - 1 : 0;
}

struct density_model *density_model_new(const struct spec_tensor *t)
{
	struct density_model *m;

	m = density_model_new_shape(&t->density, t->n_ranks, t->rank_extent,
				    rank_of_dim(t, t->density.kind == SPEC_DENSITY_POWER_LAW
							   ? t->density.row_dim : t->density.nm_dim));
	if (t->density.kind == SPEC_DENSITY_HYPERGEOMETRIC && !t->density.workload_tensor_size &&
	    t->size) {
		m->size = t->size;
		m->hg_nonzeros = (uint64_t)ceil(m->spec.density * (double)m->size);
		m->global_density = m->size ? (double)m->hg_nonzeros / (double)m->size : 0.0;
	}
	return m;
}

/* "block_structured-16x16": the block extents. */
static void type_name_block(struct density_model *m)
{
	size_t at = (size_t)snprintf(m->type_name, sizeof(m->type_name), "block_structured-");
	unsigned r;

	for (r = 0; r < m->n_ranks && at < sizeof(m->type_name); r++)
		at += (size_t)snprintf(m->type_name + at, sizeof(m->type_name) - at, "%s%llu",
				       r ? "x" : "", (unsigned long long)m->spec.block_shape[r]);
}

/* Fill the kind-specific fields of a new model. */
static void init_kind(struct density_model *m)
{
	const struct spec_density *d = &m->spec;

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
		snprintf(m->type_name, sizeof(m->type_name), "fixed_structured");
		m->global_density = d->density;
		break;
	case SPEC_DENSITY_HYPERGEOMETRIC:
		snprintf(m->type_name, sizeof(m->type_name), "hypergeometric");
		if (d->workload_tensor_size)
			m->size = d->workload_tensor_size;
		m->hg_nonzeros = (uint64_t)ceil(d->density * (double)m->size);
		if (m->hg_nonzeros > m->size)
			m->hg_nonzeros = m->size;
		m->global_density = m->size ? (double)m->hg_nonzeros / (double)m->size : 0.0;
		break;
	case SPEC_DENSITY_BANDED:
		snprintf(m->type_name, sizeof(m->type_name), "banded-%llu",
			 (unsigned long long)d->band_width);
		m->ops = &density_banded_ops;
		if (m->n_ranks != 2)
			BUG("banded density on a tensor of %u ranks", m->n_ranks);
		m->global_density = density_banded_global(m);
		break;
	case SPEC_DENSITY_NM:
		snprintf(m->type_name, sizeof(m->type_name), "structured_nm-%u:%u", d->nm_n, d->nm_m);
		m->ops = &density_nm_ops;
		if (d->nm_m == 0 || d->nm_n > d->nm_m || m->nm_rank >= m->n_ranks)
			BUG("bad N:M density %u:%u on rank %u", d->nm_n, d->nm_m, m->nm_rank);
		m->global_density = (double)d->nm_n / (double)d->nm_m;
		break;
	case SPEC_DENSITY_ACTUAL:
		snprintf(m->type_name, sizeof(m->type_name), "actual_data");
		m->ops = &density_actual_ops;
		if (!d->data || d->data->n_ranks != m->n_ranks)
			BUG("actual data of the wrong rank count");
		m->global_density = m->size ? (double)d->data->nnz / (double)m->size : 0.0;
		break;
	case SPEC_DENSITY_BLOCK:
		type_name_block(m);
		m->ops = &density_block_ops;
		density_block_init(m);
		m->global_density = m->n_blocks ? (double)m->n_nonzero_blocks / (double)m->n_blocks
						: 0.0;
		break;
	case SPEC_DENSITY_POWER_LAW:
		snprintf(m->type_name, sizeof(m->type_name), "power_law-%g", d->exponent);
		m->ops = &density_power_law_ops;
		if (m->nm_rank >= m->n_ranks || d->exponent < 0)
			BUG("bad power-law density on rank %u", m->nm_rank);
		density_power_law_init(m);
		m->global_density = m->size ? (double)llround(d->density * (double)m->size) /
					      (double)m->size : 0.0;
		break;
	default:
		BUG("bad density kind %d", (int)m->kind);
	}
}

struct density_model *density_model_new_shape(const struct spec_density *d, unsigned n_ranks,
					      const uint64_t *shape, unsigned nm_rank)
{
	struct density_model *m = xcalloc(1, sizeof(*m));
	unsigned i;

	if (n_ranks > SPEC_MAX_TENSOR_RANKS)
		BUG("tensor of %u ranks", n_ranks);
	m->spec = *d;
	m->kind = d->kind;
	m->n_ranks = n_ranks;
	m->nm_rank = nm_rank;
	m->work_budget = DENSITY_WORK_BUDGET;
	m->joint_max_entries = DENSITY_JOINT_MAX_ENTRIES;
	m->size = 1;
	for (i = 0; i < n_ranks; i++) {
		m->shape[i] = d->kind == SPEC_DENSITY_ACTUAL && d->data ? d->data->shape[i] : shape[i];
		if (!ck_mul_u64(m->size, m->shape[i], &m->size))
			BUG("tensor size overflows");
	}
	init_kind(m);
	if (m->ops)
		m->cache = cache_new();
	return m;
}

void density_model_free(struct density_model *m)
{
	if (!m)
		return;
	cache_free(m->cache);
	density_joints_free(m->joints);
	free(m->row_len);
	free(m);
}

enum spec_density_kind density_kind(const struct density_model *m)
{
	return m->kind;
}

double density_global(const struct density_model *m)
{
	return m->global_density;
}

const char *density_type_name(const struct density_model *m)
{
	return m->type_name;
}

/* -------------------------------------------------------- fixed_structured */

/* x = s rho, or s O / S under a constraint: the evenly spread occupancy. */
static double fixed_x(const struct density_model *m, uint64_t s, const struct density_constraint *c)
{
	uint64_t so, parent;

	if (!c)
		return (double)s * m->spec.density;
	parent = density_tile_size(&c->parent);
	if (parent == 0)
		return 0.0;
	if (ck_mul_u64(s, c->occupancy, &so))
		return (double)so / (double)parent;
	return (double)s * (double)c->occupancy / (double)parent;
}

/* Timeloop's fixed-structured P(n): the two integers around x. */
static double fixed_prob(double x, uint64_t n)
{
	double f = floor(x), frac = x - f;

	if ((double)n == f)
		return 1.0 - frac;
	if (frac > 0.0 && (double)n == f + 1.0)
		return frac;
	return 0.0;
}

/* ---------------------------------------------------------- hypergeometric */

/* Population and marked items of a hypergeometric query. */
static void hg_params(const struct density_model *m, const struct density_constraint *c,
		      uint64_t *pop, uint64_t *succ)
{
	if (c) {
		*pop = density_tile_size(&c->parent);
		*succ = c->occupancy < *pop ? c->occupancy : *pop;
	} else {
		*pop = m->size;
		*succ = m->hg_nonzeros;
	}
}

/* ------------------------------------------------------------- queries */

/* The points of 't', clipped to the population for the count-only kinds. */
static uint64_t count_points(const struct density_model *m, const struct density_tile *t,
			     const struct density_constraint *c)
{
	uint64_t s = density_tile_size(t), pop, succ;

	if (m->kind == SPEC_DENSITY_HYPERGEOMETRIC) {
		hg_params(m, c, &pop, &succ);
		if (s > pop)
			s = pop;
	}
	return s;
}

double density_prob(struct density_model *m, const struct density_tile *t,
		    const struct density_constraint *c, uint64_t n)
{
	uint64_t s = count_points(m, t, c), pop, succ;

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
		return fixed_prob(fixed_x(m, s, c), n);
	case SPEC_DENSITY_HYPERGEOMETRIC:
		hg_params(m, c, &pop, &succ);
		return density_hg_pmf(pop, succ, s, n);
	default:
		return density_dist_at(geometric(m, t, c), n);
	}
}

/*
 * HG(n; succ, sample, pop) for n in [lo, lo + count) into 'out': the mode
 * exactly, the others by the ratio P(k+1)/P(k) = (succ-k)(sample-k) /
 * ((k+1)(pop-succ-sample+k+1)), walking out from the mode.
 */
static void hg_range(uint64_t pop, uint64_t succ, uint64_t sample, uint64_t lo, size_t count,
		     double *out)
{
	uint64_t a = sample > pop - succ ? sample - (pop - succ) : 0;
	uint64_t b = sample < succ ? sample : succ, hi = lo + count, mode, k;
	double p, pm;

	memset(out, 0, count * sizeof(double));
	if (count == 0 || lo > b || hi <= a)
		return;
	mode = (uint64_t)(((long double)succ + 1) * ((long double)sample + 1) /
			  ((long double)pop + 2));
	mode = mode < a ? a : mode > b ? b : mode;
	pm = density_hg_pmf(pop, succ, sample, mode);
	for (k = mode, p = pm; k < b && k + 1 < hi && p > 0; k++) {
		p *= ((double)(succ - k) * (double)(sample - k)) /
		     ((double)(k + 1) * (double)(pop - succ - sample + k + 1));
		if (k + 1 >= lo)
			out[k + 1 - lo] = p;
	}
	for (k = mode, p = pm; k > a && k > lo && p > 0; k--) {
		p *= ((double)k * (double)(pop - succ - sample + k)) /
		     ((double)(succ - k + 1) * (double)(sample - k + 1));
		if (k - 1 < hi)
			out[k - 1 - lo] = p;
	}
	if (mode >= lo && mode < hi)
		out[mode - lo] = pm;
}

void density_prob_range(struct density_model *m, const struct density_tile *t,
			const struct density_constraint *c, uint64_t lo, size_t count,
			double *probs)
{
	uint64_t s = count_points(m, t, c), pop, succ;
	const struct density_dist *d;
	size_t i;

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED: {
		double x = fixed_x(m, s, c);
		for (i = 0; i < count; i++)
			probs[i] = fixed_prob(x, lo + i);
		return;
	}
	case SPEC_DENSITY_HYPERGEOMETRIC:
		hg_params(m, c, &pop, &succ);
		hg_range(pop, succ, s, lo, count, probs);
		return;
	default:
		d = geometric(m, t, c);
		for (i = 0; i < count; i++)
			probs[i] = density_dist_at(d, lo + i);
		return;
	}
}

double density_prob_empty(struct density_model *m, const struct density_tile *t,
			  const struct density_constraint *c)
{
	return density_prob(m, t, c, 0);
}

size_t density_distribution(struct density_model *m, const struct density_tile *t,
			    const struct density_constraint *c, double *probs, size_t cap)
{
	struct density_dist d = DENSITY_DIST_INIT;
	const struct density_dist *dp = &d;
	uint64_t s = count_points(m, t, c), pop, succ;
	size_t i, len;

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED: {
		double x = fixed_x(m, s, c);
		uint64_t f = (uint64_t)floor(x);
		density_dist_zero(&d, f, 2);
		d.p[0] = fixed_prob(x, f);
		d.p[1] = fixed_prob(x, f + 1);
		density_dist_trim(&d);
		break;
	}
	case SPEC_DENSITY_HYPERGEOMETRIC:
		hg_params(m, c, &pop, &succ);
		density_hg_dist(pop, succ, s, &d);
		break;
	default:
		dp = geometric(m, t, c);
		break;
	}
	len = dp->n ? (size_t)(dp->lo + dp->n) : 1;
	for (i = 0; i < cap; i++)
		probs[i] = density_dist_at(dp, i);
	if (dp->n == 0 && cap > 0)
		probs[0] = 1.0;   /* nothing can be non-zero */
	density_dist_release(&d);
	return len;
}

double density_expected_occupancy(struct density_model *m, const struct density_tile *t)
{
	uint64_t s = count_points(m, t, NULL);
	const struct density_dist *d;
	double e = 0.0;
	size_t i;

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
		return (double)s * m->spec.density;
	case SPEC_DENSITY_HYPERGEOMETRIC:
		return m->size ? (double)s * (double)m->hg_nonzeros / (double)m->size : 0.0;
	default:
		d = geometric(m, t, NULL);
		for (i = 0; i < d->n; i++)
			e += d->p[i] * (double)(d->lo + i);
		return e;
	}
}

/* Smallest n of 'd' with P(<= n) >= c; the top of the support for c >= 1. */
static uint64_t dist_quantile(const struct density_dist *d, double c)
{
	double cdf = 0.0;
	size_t i;

	if (d->n == 0)
		return 0;
	if (c >= 1.0)
		return d->lo + d->n - 1;
	for (i = 0; i < d->n; i++) {
		cdf += d->p[i];
		if (cdf >= c)
			return d->lo + i;
	}
	return d->lo + d->n - 1;
}

/*
 * Smallest n with P(<= n) >= c for HG(.; succ, sample, pop), summing the
 * probabilities in place (no distribution is built: the overbooking search
 * calls this in the model's hot path).
 */
static uint64_t hg_quantile(uint64_t pop, uint64_t succ, uint64_t sample, double c)
{
	uint64_t lo = sample > pop - succ ? sample - (pop - succ) : 0;
	uint64_t hi = sample < succ ? sample : succ, n;
	double cdf = 0.0;

	for (n = lo; n <= hi; n++) {
		cdf += density_hg_pmf(pop, succ, sample, n);
		if (cdf >= c)
			return n;
	}
	return hi;
}

uint64_t density_max_occupancy(struct density_model *m, const struct density_tile *t,
			       double confidence)
{
	uint64_t s = count_points(m, t, NULL);

	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED: {
		double x = fixed_x(m, s, NULL), f = floor(x);
		return confidence <= fixed_prob(x, (uint64_t)f) ? (uint64_t)f : (uint64_t)ceil(x);
	}
	case SPEC_DENSITY_HYPERGEOMETRIC:
		if (confidence >= 1.0)
			return s < m->hg_nonzeros ? s : m->hg_nonzeros;
		return hg_quantile(m->size, m->hg_nonzeros, s, confidence);
	default:
		return dist_quantile(geometric(m, t, NULL), confidence);
	}
}

double density_min_density(struct density_model *m, const struct density_tile *t)
{
	uint64_t s = count_points(m, t, NULL);
	const struct density_dist *d;

	if (s == 0)
		return 0.0;
	switch (m->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
		return floor((double)s * m->spec.density) / (double)s;
	case SPEC_DENSITY_HYPERGEOMETRIC:
		if (s > m->size - m->hg_nonzeros)
			return (double)((s - m->size + m->hg_nonzeros) / s);
		return 0.0;
	default: {
		struct density_tile ct = clip_tile(m, t);
		d = geometric(m, t, NULL);
		return d->n ? (double)d->lo / (double)density_tile_size(&ct) : 0.0;
	}
	}
}
