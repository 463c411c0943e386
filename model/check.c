/*
 * Feasibility checks (semantics 3): the spatial fan-out a mapping needs
 * against each level's instances and mesh, and the kept tiles against each
 * level's effective size and min_utilization. An infeasible mapping is
 * recorded in the result (model_result_fail), not reported as an error.
 */
#include "model/model_int.h"

#include "util/ckmath.h"

/* Fail if the spatial expansion (x, y) does not fit 'instances' on a mesh. */
static int check_fanout(struct model_result *out, int level, const char *name,
			uint64_t x, uint64_t y, uint64_t instances, unsigned mesh_x,
			unsigned mesh_y)
{
	if (x * y > instances)
		return model_result_fail(out, EVAL_FANOUT, level, -1,
					 "'%s' needs %llu spatial instances (%llux%llu), it has %llu",
					 name, (unsigned long long)(x * y), (unsigned long long)x,
					 (unsigned long long)y, (unsigned long long)instances);
	if (x > mesh_x || y > mesh_y)
		return model_result_fail(out, EVAL_FANOUT, level, -1,
					 "'%s' needs a %llux%llu mesh, it is %ux%u", name,
					 (unsigned long long)x, (unsigned long long)y, mesh_x, mesh_y);
	return 0;
}

/* The kept tiles of level l against its effective size and min_utilization. */
static int check_capacity(struct model_ws *ws, unsigned l, struct model_result *out)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	uint64_t need = 0, big = 0;
	int big_pv = -1;
	unsigned pv;

	if (!lvl->has_size)
		return 0;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		if (!t->is_kept)
			continue;
		if (!ck_add_u64(need, t->utilized_capacity, &need))
			return model_result_fail(out, EVAL_OVER_CAPACITY, (int)l, (int)pv,
						 "tiles at '%s' need more than 2^64 - 1 words, it "
						 "holds %llu", lvl->name,
						 (unsigned long long)lvl->effective_size_words);
		if (t->utilized_capacity >= big) {
			big = t->utilized_capacity;
			big_pv = (int)pv;
		}
	}
	if (need > lvl->effective_size_words)
		return model_result_fail(out, EVAL_OVER_CAPACITY, (int)l, big_pv,
					 "tiles at '%s' need %llu words (the largest, '%s', %llu), "
					 "it holds %llu", lvl->name, (unsigned long long)need,
					 ws->s->workload.tensors[big_pv].name, (unsigned long long)big,
					 (unsigned long long)lvl->effective_size_words);
	if (lvl->min_utilization > 0 &&
	    (double)need < lvl->min_utilization * (double)lvl->effective_size_words)
		return model_result_fail(out, EVAL_UNDER_UTILIZATION, (int)l, big_pv,
					 "tiles at '%s' use %llu of %llu words, under min_utilization %.2f",
					 lvl->name, (unsigned long long)need,
					 (unsigned long long)lvl->effective_size_words,
					 lvl->min_utilization);
	return 0;
}

int model_check_levels_fanout(struct model_ws *ws, struct model_result *out)
{
	const struct spec_arch *a = &ws->s->arch;
	unsigned l;

	if (check_fanout(out, -1, a->compute.name, ws->compute_max_x, ws->compute_max_y,
			 a->compute.instances, a->compute.mesh_x, a->compute.mesh_y) < 0)
		return -1;
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &a->levels[l];
		if (check_fanout(out, (int)l, lvl->name, ws->lv[l].max_x, ws->lv[l].max_y,
				 lvl->instances, lvl->mesh_x, lvl->mesh_y) < 0)
			return -1;
	}
	return 0;
}

int model_check_fanout_at(struct model_ws *ws, int level, uint64_t x, uint64_t y,
			  struct model_result *out)
{
	const struct spec_arch *a = &ws->s->arch;

	if (level < 0)
		return check_fanout(out, -1, a->compute.name, x, y, a->compute.instances,
				    a->compute.mesh_x, a->compute.mesh_y);
	return check_fanout(out, level, a->levels[level].name, x, y, a->levels[level].instances,
			    a->levels[level].mesh_x, a->levels[level].mesh_y);
}

/*
 * A bound on the counts of a mapping, before they are counted. Level l
 * receives at most W(l, t) = (iterations and instances above its tile) x
 * (points of its tile's hull) words of tensor t (every iteration refetching
 * the whole tile; reuse only lowers that), the computes read at most one
 * word of each operand per operation point, a level's reads are its
 * children's fills (or the computes' reads) and updates mirror fills: every
 * access count, and any sum of them, is at most
 * 2 x (sum over l, t of W(l, t) + n_tensors x T), with T the product of the
 * loops' trip counts (>= the operation points). Format accesses and
 * capacities are checked where they are converted (model/sparse_occupancy.c).
 *
 * The hull of a rank is 1 + sum |c| (x - 1) over its terms (dimension
 * extents x), which is at most the product of max(|c|, 1) x over its terms
 * (a + b - 1 <= a b for a, b >= 1). When no dimension appears twice in a
 * tensor's projection, the tile's points times the iterations above it are
 * then at most K_t x T, K_t the product of max(|c|, 1) over the tensor's
 * terms: the bound is at most T x 2 x (n_tensors + n_levels x sum K_t), a
 * factor fixed by the design (model_count_range_factor) and one product of
 * trip counts per evaluation. Only when that is not enough is the bound
 * computed level by level. The limit is 2^64 less a margin of 2^-20, for
 * the rounding of these products and of counts converted from doubles.
 */
static const double count_limit = 0x1p64 * (1 - 0x1p-20);

double model_count_range_factor(const struct model_ws *ws)
{
	double sum_k = 0;
	unsigned pv, r, t;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct proj *p = &ws->proj[pv];
		uint32_t seen = 0;
		double k = 1;
		for (r = 0; r < p->n_ranks; r++) {
			for (t = 0; t < p->ranks[r].n_terms; t++) {
				uint32_t bit = UINT32_C(1) << p->ranks[r].dim[t];
				if (seen & bit)
					return 0;   /* a dimension twice: no shortcut */
				seen |= bit;
				if (p->ranks[r].abs_coef[t] > 1)
					k *= (double)p->ranks[r].abs_coef[t];
			}
		}
		sum_k += k;
	}
	return 2 * ((double)ws->n_tensors + (double)ws->n_levels * sum_k);
}

/* Points of the hull of tensor p's tile over the op-space box 'op_ext' (>= exact). */
static long double hull_points(const struct proj *p, const uint64_t *op_ext)
{
	long double n = 1;
	unsigned r, t;

	for (r = 0; r < p->n_ranks; r++) {
		long double e = 1;
		for (t = 0; t < p->ranks[r].n_terms; t++)
			e += (long double)p->ranks[r].abs_coef[t] *
			     (long double)(op_ext[p->ranks[r].dim[t]] - 1);
		n *= e;
	}
	return n;
}

/* The bound level by level, in long double (whose range cannot overflow here). */
static long double count_bound(const struct model_ws *ws, long double *trips)
{
	long double above[SPEC_MAX_LOOPS + 1], bound;
	unsigned L, l, pv;

	above[ws->n_loops] = 1;
	for (L = ws->n_loops; L-- > 0;)
		above[L] = above[L + 1] * (long double)ws->loops[L].end;
	*trips = above[0];
	bound = above[0] * ws->n_tensors;
	for (l = 0; l < ws->n_levels; l++) {
		const uint64_t *ext = ws->loops[ws->lv[l].boundary].extent;
		for (pv = 0; pv < ws->n_tensors; pv++)
			bound += above[ws->lv[l].boundary + 1] * hull_points(&ws->proj[pv], ext);
	}
	return 2 * bound;
}

int model_check_count_range(struct model_ws *ws, struct model_result *out)
{
	long double bound, trips;
	double t = 1;
	unsigned L;

	for (L = 0; L < ws->n_loops; L++)
		t *= (double)ws->loops[L].end;
	if (ws->count_factor > 0 && t * ws->count_factor <= count_limit)
		return 0;
	bound = count_bound(ws, &trips);
	if (bound <= count_limit)
		return 0;
	return model_result_fail(out, EVAL_TOO_LARGE, -1, -1, "its counts could exceed 2^64 - 1 "
				 "(up to %.3Lg words moved for %.3Lg loop iterations); counts are "
				 "exact 64-bit integers", bound, trips);
}

/* Sum of units x word bits over a tile's format ranks; false past 2^64 - 1. */
static bool format_bits(const struct model_tile *t, const uint64_t (*units)[2], uint64_t *bits)
{
	uint64_t md, pl;
	unsigned r;

	*bits = 0;
	for (r = 0; r < t->n_fmt_ranks; r++)
		if (!ck_mul_u64(units[r][0], t->fmt_md_bits[r], &md) ||
		    !ck_mul_u64(units[r][1], t->fmt_pl_bits[r], &pl) ||
		    !ck_add_u64(*bits, md, bits) || !ck_add_u64(*bits, pl, bits))
			return false;
	return true;
}

/*
 * Does a tile's format certainly stay below 2^64 - 1 bits? Each sum is of
 * at most 2 x MODEL_MAX_FMT_RANKS = 2^4 products, so units and word bits
 * below 2^40 and 2^16 keep it below 2^60 (one pass of ORs, no products).
 */
static bool format_bits_small(const struct model_tile *t)
{
	uint64_t units = 0, bits = 0;
	unsigned r, op, c;

	for (r = 0; r < t->n_fmt_ranks; r++) {
		bits |= t->fmt_md_bits[r] | t->fmt_pl_bits[r];
		units |= t->fmt_capacity[r][0] | t->fmt_capacity[r][1];
		for (op = 0; op < MODEL_FMT_OP_COUNT; op++)
			for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
				units |= t->fmt_access[op][c][r][0] | t->fmt_access[op][c][r][1];
	}
	return units < (UINT64_C(1) << 40) && bits < (1u << 16);
}

int model_check_format_bits(struct model_ws *ws, struct model_result *out)
{
	unsigned l, pv, op, c;
	uint64_t bits;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			const struct model_tile *t = &out->tiles[l][pv];
			bool ok;
			if (!t->is_kept || !t->n_fmt_ranks || format_bits_small(t))
				continue;
			ok = format_bits(t, t->fmt_capacity, &bits);
			for (op = 0; op < MODEL_FMT_OP_COUNT; op++)
				for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
					ok = ok && format_bits(t, t->fmt_access[op][c], &bits);
			if (!ok)
				return model_result_fail(out, EVAL_TOO_LARGE, (int)l, (int)pv,
							 "the format of '%s' at '%s' would hold or "
							 "move more than 2^64 - 1 bits",
							 ws->s->workload.tensors[pv].name,
							 ws->s->arch.levels[l].name);
		}
	}
	return 0;
}

int model_check_levels(struct model_ws *ws, struct model_result *out)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		if (check_capacity(ws, l, out) < 0)
			return -1;
	return 0;
}
