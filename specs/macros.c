/*
 * The v0.4 front end's constraint macros and its merging of constraints,
 * as its ConstraintAttacher and ConstraintMacro processors define them:
 *
 *   factors_only: F          the factors F; every other dimension is 1
 *   no_iteration_over_dataspaces: [D]   every dimension of D's projections is 1
 *   must_iterate_over_dataspaces: [D]   every dimension of no D's projection is 1
 *   maximize_dims: [[A, B], [C]]        per group, the largest factors of its
 *                            dimensions that fit the capacity (the fan-out of a
 *                            spatial level, or maximize_dims_capacity), chosen
 *                            greedily over prime factors
 *   keep_only: [D] / bypass_only: [D]   keep (bypass) D, bypass (keep) the rest
 *
 * Constraints of one kind on one level, from any source (a node's own
 * constraints, 'constraints' targets, a mapping given as constraints), are
 * merged as the front end combines them: factors are joined (one dimension
 * with two different values is an error), keep and bypass lists are joined
 * (a data space both kept and bypassed is an error), so are no_reuse and
 * no_link_transfer, and a permutation, a split or a minimum utilization
 * given twice must be the same.
 */
#include "specs/specs_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const kind_names[] = {
	[SPEC_CON_TEMPORAL] = "temporal", [SPEC_CON_SPATIAL] = "spatial",
	[SPEC_CON_BYPASS] = "dataspace", [SPEC_CON_UTILIZATION] = "utilization",
};

/* Fix dim 'd' = 'v' in 'c' as the front end adds a factor: a repeat is fine, a change is not. */
static int fix_factor(struct ld *ld, struct spec_constraint *c, unsigned d, uint64_t v,
		      const struct ysrc_node *at, const struct kpath *p, const char *macro)
{
	const struct spec_workload *w = &ld->s->workload;
	uint32_t bit = 1u << d;

	if ((c->fixed_mask & bit) && c->factors[d] != v)
		return ld_error(ld, at, p, "'%s' makes %s=%llu, but the factors give %s=%llu", macro,
				w->dim_names[d], (unsigned long long)v, w->dim_names[d],
				(unsigned long long)c->factors[d]);
	if ((c->max_mask & bit) && !(c->fixed_mask & bit) && c->max_factors[d] != v)
		return ld_error(ld, at, p, "'%s' makes %s=%llu, but the factors give %s<=%llu", macro,
				w->dim_names[d], (unsigned long long)v, w->dim_names[d],
				(unsigned long long)c->max_factors[d]);
	c->fixed_mask |= bit;
	c->factors[d] = v;
	return 0;
}

/* Join the factors of a 'factors_only' list into 'c'. */
static int factors_only(struct ld *ld, const struct ysrc_node *f, const struct kpath *p,
			struct spec_constraint *c)
{
	const struct spec_workload *w = &ld->s->workload;
	struct factor_item items[SPEC_MAX_DIMS];
	unsigned n = 0, k;
	int rc = 0;

	if (ysrc_is_null(f) || (f->kind == YSRC_SEQ && f->n == 0))
		return 0;
	if (spec_parse_factors(ld, f, p, true, items, &n) < 0)
		return -1;
	for (k = 0; k < n; k++) {
		unsigned d = items[k].dim;
		if (!items[k].is_max) {
			if (fix_factor(ld, c, d, items[k].value, f, p, "factors_only") < 0)
				rc = -1;
		} else if (!(c->max_mask & (1u << d)) || c->max_factors[d] == items[k].value) {
			c->max_mask |= 1u << d;
			c->max_factors[d] = items[k].value;
		} else {
			rc = ld_error(ld, f, p, "'factors_only' bounds %s<=%llu, but the factors give "
				      "%s<=%llu", w->dim_names[d], (unsigned long long)items[k].value,
				      w->dim_names[d], (unsigned long long)c->max_factors[d]);
		}
	}
	return rc;
}

/* The dimensions of the projections of the data spaces listed in 'n'. */
static int dataspace_dims(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			  uint32_t *dims)
{
	const struct spec_workload *w = &ld->s->workload;
	uint32_t mask = 0;
	unsigned t;

	*dims = 0;
	if (ld_tensor_list(ld, n, p, &mask, NULL, NULL) < 0)
		return -1;
	for (t = 0; t < w->n_tensors; t++)
		if (mask & (1u << t))
			*dims |= w->tensors[t].dim_mask;
	return 0;
}

/* no_iteration_over_dataspaces and must_iterate_over_dataspaces. */
static int iteration_macro(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			   const char *key, bool must, struct spec_constraint *c)
{
	const struct spec_workload *w = &ld->s->workload;
	const struct ysrc_node *n = ld_get(e, key);
	struct kpath kp = KP_KEY(p, key);
	uint32_t dims, ones;
	unsigned d;
	int rc = 0;

	if (!n)
		return 0;
	if (dataspace_dims(ld, n, &kp, &dims) < 0)
		return -1;
	ones = must ? ((1u << w->n_dims) - 1) & ~dims : dims;
	for (d = 0; d < w->n_dims; d++)
		if ((ones & (1u << d)) && fix_factor(ld, c, d, 1, n, &kp, key) < 0)
			rc = -1;
	return rc;
}

/* keep_only and bypass_only. */
static int dataspace_macro(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			   const char *key, bool keep, struct spec_constraint *c)
{
	const struct spec_workload *w = &ld->s->workload;
	const struct ysrc_node *n = ld_get(e, key);
	struct kpath kp = KP_KEY(p, key);
	uint32_t mask = 0, rest;

	if (!n)
		return 0;
	if (ld_tensor_list(ld, n, &kp, &mask, NULL, NULL) < 0)
		return -1;
	rest = ((1u << w->n_tensors) - 1) & ~mask;
	if ((keep && ((c->bypass_mask & mask) || (c->keep_mask & rest))) ||
	    (!keep && ((c->keep_mask & mask) || (c->bypass_mask & rest))))
		return ld_error(ld, n, &kp, "'%s' disagrees with the 'keep' and 'bypass' lists", key);
	c->keep_mask |= keep ? mask : rest;
	c->bypass_mask |= keep ? rest : mask;
	return 0;
}

void spec_con_source(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		     struct con_extra *x)
{
	memset(x, 0, sizeof(*x));
	x->n = 1;
	x->entries[0] = e;
	x->paths[0] = ld_kpath_strdup(ld, p);
}

/* The first source of 'x' that gives 'key' (0 when several give it: an error). */
static const struct ysrc_node *one_source(struct ld *ld, const struct con_extra *x,
					  const char *key, const char **path)
{
	const struct ysrc_node *found = NULL;
	size_t i;
	for (i = 0; i < x->n; i++) {
		const struct ysrc_node *v = ld_get(x->entries[i], key);
		if (!v)
			continue;
		if (found) {
			diag_error(ld->dl, v->loc, "'%s' is given twice for one level", key);
			diag_note(ld->dl, found->loc, "the other one is here");
			return NULL;
		}
		found = v;
		*path = x->paths[i];
	}
	return found;
}

/* The macros of every source of constraint 'c', in the front end's order. */
static int macros_of(struct ld *ld, struct spec_constraint *c, struct con_extra *x)
{
	const struct spec_workload *w = &ld->s->workload;
	const struct ysrc_node *v;
	bool only = false;
	size_t i;
	unsigned d;
	int rc = 0;

	for (i = 0; i < x->n; i++) {
		struct kpath p = KP_KEY(NULL, x->paths[i]), fp = KP_KEY(&p, "factors_only");
		if ((v = ysrc_map_get(x->entries[i], "factors_only"))) {
			only = true;
			if (factors_only(ld, v, &fp, c) < 0)
				rc = -1;
		}
	}
	for (d = 0; only && d < w->n_dims; d++)
		if (!((c->fixed_mask | c->max_mask) & (1u << d))) {
			c->fixed_mask |= 1u << d;
			c->factors[d] = 1;
		}
	for (i = 0; i < x->n; i++) {
		struct kpath p = KP_KEY(NULL, x->paths[i]);
		const struct ysrc_node *e = x->entries[i];
		if (iteration_macro(ld, e, &p, "no_iteration_over_dataspaces", false, c) < 0 ||
		    iteration_macro(ld, e, &p, "must_iterate_over_dataspaces", true, c) < 0 ||
		    dataspace_macro(ld, e, &p, "keep_only", true, c) < 0 ||
		    dataspace_macro(ld, e, &p, "bypass_only", false, c) < 0)
			rc = -1;
	}
	return rc;
}

/* ------------------------------------------------------------- merging */

/* 'perm' without the dimensions of bound 1, into 'out'; the count. */
static unsigned perm_core(const struct spec_workload *w, const uint8_t *perm, unsigned n,
			  uint8_t *out)
{
	unsigned k, m = 0;
	for (k = 0; k < n; k++)
		if (w->bounds[perm[k]] != 1)
			out[m++] = perm[k];
	return m;
}

/* True when two permutations order the dimensions that are not 1 alike. */
static bool same_perm(const struct spec_workload *w, const struct spec_constraint *a,
		      const struct spec_constraint *b)
{
	uint8_t pa[SPEC_MAX_DIMS], pb[SPEC_MAX_DIMS];
	unsigned na = perm_core(w, a->perm, a->n_perm, pa), nb = perm_core(w, b->perm, b->n_perm, pb);
	return na == nb && !memcmp(pa, pb, na);
}

/* The level's name for messages. */
static const char *level_name(const struct ld *ld, unsigned l)
{
	return ld->s->arch.levels[l].name;
}

/* A disagreement of 'c' with the earlier 'into' (same level and kind); returns -1. */
static int disagree(struct ld *ld, const struct spec_constraint *into,
		    const struct spec_constraint *c, const char *what)
{
	diag_error(ld->dl, c->loc, "the %s constraints of '%s' are given twice and disagree: %s",
		   kind_names[c->kind], level_name(ld, c->level), what);
	diag_note(ld->dl, into->loc, "the other ones are here");
	return -1;
}

/* Join the factors of 'c' into 'into'. */
static int merge_factors(struct ld *ld, struct spec_constraint *into, const struct spec_constraint *c)
{
	const struct spec_workload *w = &ld->s->workload;
	char what[160];
	unsigned d;

	for (d = 0; d < w->n_dims; d++) {
		uint32_t bit = 1u << d;
		uint64_t a = into->fixed_mask & bit ? into->factors[d] : into->max_factors[d];
		uint64_t b = c->fixed_mask & bit ? c->factors[d] : c->max_factors[d];
		bool ia = (into->fixed_mask | into->max_mask) & bit, ib = (c->fixed_mask | c->max_mask) & bit;
		if (ia && ib && a != b) {
			snprintf(what, sizeof(what), "%s%s%llu here, %s%s%llu there", w->dim_names[d],
				 c->fixed_mask & bit ? "=" : "<=", (unsigned long long)b, w->dim_names[d],
				 into->fixed_mask & bit ? "=" : "<=", (unsigned long long)a);
			return disagree(ld, into, c, what);
		}
		if (c->fixed_mask & bit) {
			into->fixed_mask |= bit;
			into->factors[d] = c->factors[d];
		} else if ((c->max_mask & bit) && !(into->fixed_mask & bit)) {
			into->max_mask |= bit;
			into->max_factors[d] = c->max_factors[d];
		}
	}
	return 0;
}

/* Join 'c' into 'into' (same level and kind), or report where they disagree. */
static int merge_one(struct ld *ld, struct spec_constraint *into, struct con_extra *xi,
		     const struct spec_constraint *c, const struct con_extra *xc)
{
	const struct spec_workload *w = &ld->s->workload;
	uint32_t clash;
	char what[160];

	if (merge_factors(ld, into, c) < 0)
		return -1;
	if (c->n_perm && into->n_perm && !same_perm(w, into, c))
		return disagree(ld, into, c, "two different permutations");
	if (c->n_perm > into->n_perm) {
		memcpy(into->perm, c->perm, c->n_perm);
		into->n_perm = c->n_perm;
	}
	if (c->has_split && into->has_split && c->split != into->split) {
		snprintf(what, sizeof(what), "split %u here, %u there", c->split, into->split);
		return disagree(ld, into, c, what);
	}
	if (c->has_split) {
		into->has_split = true;
		into->split = c->split;
	}
	clash = (into->keep_mask & c->bypass_mask) | (into->bypass_mask & c->keep_mask);
	if (clash) {
		snprintf(what, sizeof(what), "'%s' is kept by one and bypassed by the other",
			 w->tensors[__builtin_ctz(clash)].name);
		return disagree(ld, into, c, what);
	}
	into->keep_mask |= c->keep_mask;
	into->bypass_mask |= c->bypass_mask;
	into->no_multicast_mask |= c->no_multicast_mask;
	into->no_link_transfer_mask |= c->no_link_transfer_mask;
	into->pad_mask |= c->pad_mask;
	if (c->max_remainder && into->max_remainder && c->max_remainder != into->max_remainder)
		return disagree(ld, into, c, "two different 'remainders'");
	if (c->max_remainder)
		into->max_remainder = c->max_remainder;
	if (c->min_utilization != 0 && into->min_utilization != 0 &&
	    c->min_utilization != into->min_utilization)
		return disagree(ld, into, c, "two different minimum utilizations");
	if (c->min_utilization != 0)
		into->min_utilization = c->min_utilization;
	for (size_t k = 0; k < xc->n && xi->n < CON_MAX_SOURCES; k++) {
		xi->entries[xi->n] = xc->entries[k];
		xi->paths[xi->n++] = xc->paths[k];
	}
	return 0;
}

size_t spec_con_merge(struct ld *ld, struct spec_constraint *v, struct con_extra *x, size_t n,
		      int *rc)
{
	size_t i, j, out = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < out; j++)
			if (v[j].level == v[i].level && v[j].kind == v[i].kind)
				break;
		if (j < out) {
			if (merge_one(ld, &v[j], &x[j], &v[i], &x[i]) < 0)
				*rc = -1;
			continue;
		}
		v[out] = v[i];
		x[out] = x[i];
		out++;
	}
	return out;
}

/* ------------------------------------------------------------ maximize */

#define GREEDY_MAX 64

struct galloc {
	unsigned k;                    /* index into the values */
	uint64_t lo, hi;
};

/* The distinct prime factors of 'v', ascending; their count. */
static unsigned primes_of(uint64_t v, uint64_t *out)
{
	unsigned n = 0;
	uint64_t p;
	for (p = 2; p <= v / p; p++) {
		if (v % p)
			continue;
		out[n++] = p;
		while (v % p == 0)
			v /= p;
	}
	if (v > 1)
		out[n++] = v;
	return n;
}

/*
 * The front end's greedy allocation of the values vals[0..n) (the factors
 * still free per dimension) into 'capacity' instances: the best of splitting
 * one value as evenly as the capacity allows, or taking one of its prime
 * factors and allocating the rest recursively; the utilization reached,
 * with the allocation in best[0..*n_best).
 */
static double greedy(const uint64_t *vals, size_t n, uint64_t capacity, struct galloc *best,
		     size_t *n_best)
{
	double best_util = 1;
	size_t k;

	*n_best = 0;
	if (capacity <= 1)
		return best_util;
	for (k = 0; k < n; k++) {
		uint64_t v = vals[k], primes[64];
		unsigned np, i;
		if (v > capacity) {
			uint64_t remaining = (v + capacity - 1) / capacity;
			uint64_t alloc = (v + remaining - 1) / remaining;
			uint64_t rem = v % alloc;
			double util = (double)(alloc * (remaining - 1) + rem) / (double)remaining;
			if (util > best_util) {
				best_util = util;
				best[0] = (struct galloc){ (unsigned)k, rem, alloc };
				*n_best = 1;
			}
		}
		np = primes_of(v, primes);
		for (i = 0; i < np; i++) {
			uint64_t sub_vals[SPEC_MAX_DIMS];
			struct galloc sub[GREEDY_MAX];
			size_t n_sub;
			double util;
			if (primes[i] > capacity)
				continue;
			memcpy(sub_vals, vals, n * sizeof(*vals));
			sub_vals[k] /= primes[i];
			util = greedy(sub_vals, n, capacity / primes[i], sub, &n_sub) * (double)primes[i];
			if (util > best_util && n_sub + 1 <= GREEDY_MAX) {
				best_util = util;
				best[0] = (struct galloc){ (unsigned)k, primes[i], primes[i] };
				memcpy(best + 1, sub, n_sub * sizeof(*sub));
				*n_best = n_sub + 1;
			}
		}
	}
	return best_util;
}

/* The dimensions of one maximize_dims group (a list of names) into dims[]. */
static int group_dims(struct ld *ld, const struct ysrc_node *g, const struct spec_constraint *c,
		      unsigned *dims, size_t *n)
{
	const struct spec_workload *w = &ld->s->workload;
	size_t i;

	*n = 0;
	for (i = 0; i < g->n; i++) {
		const struct ysrc_node *it = g->items[i];
		int d;
		if (it->kind != YSRC_SCALAR)
			return diag_error(ld->dl, it->loc, "'maximize_dims' is a list of dimension "
					  "names or a list of such lists");
		d = spec_dim_find(w, it->str);
		if (d < 0)
			return diag_error(ld->dl, it->loc, "cannot maximize '%s': it is not a dimension "
					  "of the problem", it->str);
		if ((c->fixed_mask | c->max_mask) & (1u << d))
			return diag_error(ld->dl, it->loc, "cannot maximize '%s': the factors "
					  "already constrain it", it->str);
		dims[(*n)++] = (unsigned)d;
	}
	return 0;
}

/* Allocate one group of constraint 'c' with 'start' instances; update 'free'. */
static int maximize_group(struct ld *ld, const struct ysrc_node *g, struct spec_constraint *c,
			  uint64_t start, uint64_t *freedim)
{
	const struct spec_workload *w = &ld->s->workload;
	unsigned dims[SPEC_MAX_DIMS], d;
	uint64_t vals[SPEC_MAX_DIMS], maxes[SPEC_MAX_DIMS], cap = start;
	struct galloc best[GREEDY_MAX];
	size_t n, n_best, i;

	if (group_dims(ld, g, c, dims, &n) < 0)
		return -1;
	for (d = 0; d < w->n_dims; d++)
		if ((c->fixed_mask & (1u << d)) && c->factors[d] > 0)
			cap /= c->factors[d];
	for (i = 0; i < n; i++) {
		vals[i] = freedim[dims[i]];
		maxes[i] = 1;
	}
	greedy(vals, n, cap, best, &n_best);
	for (i = 0; i < n_best; i++)
		maxes[best[i].k] *= best[i].hi;
	for (i = 0; i < n; i++) {
		c->fixed_mask |= 1u << dims[i];
		c->factors[dims[i]] = maxes[i];
		freedim[dims[i]] = (freedim[dims[i]] + maxes[i] - 1) / maxes[i];
	}
	return 0;
}

/* One constraint's maximize_dims: one group, or a list of groups. */
static int maximize_one(struct ld *ld, struct spec_constraint *c, const struct con_extra *x,
			uint64_t *freedim)
{
	const struct spec_level *L = &ld->s->arch.levels[c->level];
	const char *mpath = NULL, *cpath = NULL;
	const struct ysrc_node *m = one_source(ld, x, "maximize_dims", &mpath);
	const struct ysrc_node *cap = one_source(ld, x, "maximize_dims_capacity", &cpath);
	uint64_t start;
	size_t i;

	if (!m || (m->kind == YSRC_SEQ && m->n == 0))
		return m ? 0 : -1;
	if (m->kind != YSRC_SEQ)
		return diag_error(ld->dl, m->loc, "in '%s.maximize_dims': expected a list of "
				  "dimension names or a list of such lists, got %s", mpath,
				  ysrc_kind_name(m));
	if (cap) {
		struct kpath p = KP_KEY(NULL, cpath), kp = KP_KEY(&p, "maximize_dims_capacity");
		if (ld_uint(ld, cap, &kp, 1, UINT64_MAX, &start) < 0)
			return -1;
	} else if (c->kind == SPEC_CON_SPATIAL) {
		start = (uint64_t)L->fanout_x * L->fanout_y;
	} else {
		return diag_error(ld->dl, m->loc, "in '%s.maximize_dims': a temporal "
				  "'maximize_dims' needs a 'maximize_dims_capacity'", mpath);
	}
	if (m->n && m->items[0]->kind == YSRC_SCALAR)
		return maximize_group(ld, m, c, start, freedim);
	for (i = 0; i < m->n; i++) {
		if (m->items[i]->kind != YSRC_SEQ)
			return diag_error(ld->dl, m->items[i]->loc, "in '%s.maximize_dims': names "
					  "and lists of names mixed", mpath);
		if (maximize_group(ld, m->items[i], c, start, freedim) < 0)
			return -1;
	}
	return 0;
}

/* True when a source of 'x' gives 'key' (and it is not empty). */
static bool has_key(const struct con_extra *x, const char *key)
{
	size_t i;
	for (i = 0; i < x->n; i++)
		if (ld_get(x->entries[i], key))
			return true;
	return false;
}

int spec_con_macros(struct ld *ld, struct spec_constraint *v, struct con_extra *x, size_t n)
{
	static const enum spec_constraint_kind order[] = { SPEC_CON_SPATIAL, SPEC_CON_TEMPORAL };
	const struct spec_workload *w = &ld->s->workload;
	uint64_t freedim[SPEC_MAX_DIMS];
	unsigned d, l, k;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (macros_of(ld, &v[i], &x[i]) < 0)
			rc = -1;
	for (d = 0; d < w->n_dims; d++)
		freedim[d] = w->bounds[d];
	for (i = 0; i < n; i++)
		for (d = 0; d < w->n_dims; d++)
			if ((v[i].kind == SPEC_CON_TEMPORAL || v[i].kind == SPEC_CON_SPATIAL) &&
			    (v[i].fixed_mask & (1u << d)) && v[i].factors[d] > 0)
				freedim[d] = (freedim[d] + v[i].factors[d] - 1) / v[i].factors[d];
	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (l = 0; l < ld->s->arch.n_levels; l++)
			for (i = 0; i < n; i++)
				if (v[i].kind == order[k] && v[i].level == l &&
				    has_key(&x[i], "maximize_dims") &&
				    maximize_one(ld, &v[i], &x[i], freedim) < 0)
					rc = -1;
	return rc;
}
