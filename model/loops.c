/*
 * Per-loop properties of a mapping's nest (semantics 2.1, 2.2): strides,
 * working-set molds, spatial element counts and fan-outs, and the loops that
 * delimit each storage level's block.
 */
#include "model/model_int.h"

#include <string.h>

#include "util/xalloc.h"

/*
 * Strides and molds: walk inner to outer keeping a running extent per dim.
 * The extents on the last iteration (extent_res) are set for an imperfect
 * mapping only (a perfect one's are its extents).
 */
static void prepare_molds(struct model_ws *ws)
{
	uint64_t scale[SPEC_MAX_DIMS], scale_res[SPEC_MAX_DIMS];
	bool imperfect_seen[SPEC_MAX_DIMS] = { false };
	unsigned L, d;

	for (d = 0; d < ws->n_dims; d++)
		scale[d] = scale_res[d] = 1;
	for (L = 0; L < ws->n_loops; L++) {
		struct mloop *lp = &ws->loops[L];
		lp->stride = scale[lp->dim];
		lp->dim_imperfect_below = imperfect_seen[lp->dim];
		scale_res[lp->dim] += scale[lp->dim] * (lp->residual - 1);
		scale[lp->dim] *= lp->end;
		if (lp->residual != lp->end)
			imperfect_seen[lp->dim] = true;
		memcpy(lp->extent, scale, ws->n_dims * sizeof(*scale));
		if (ws->m->is_imperfect)   /* only the walk of an imperfect mapping reads them */
			memcpy(lp->extent_res, scale_res, ws->n_dims * sizeof(*scale_res));
	}
}

/* Link every loop to the next outer loop on its dimension (the walk's last_global). */
static void prepare_outer_same(struct model_ws *ws)
{
	uint8_t next[SPEC_MAX_DIMS];
	unsigned L;

	memset(next, MLOOP_NONE, sizeof(next));
	for (L = ws->n_loops; L-- > 0;) {
		ws->loops[L].outer_same = next[ws->loops[L].dim];
		next[ws->loops[L].dim] = (uint8_t)L;
	}
}

/* Effective trip count of the loops outside 'L' on 'dim', folded outer->inner. */
static uint64_t outer_trips(const struct model_ws *ws, unsigned L, unsigned dim)
{
	uint64_t outer = 1;
	bool first = true;
	unsigned k;

	for (k = ws->n_loops; k-- > L + 1;) {
		const struct mloop *lp = &ws->loops[k];
		if (lp->dim != dim)
			continue;
		outer = first ? lp->residual : lp->residual + lp->end * (outer - 1);
		first = false;
	}
	return outer;
}

/* Spatial element counts (semantics 2.2) for every loop. */
static void prepare_spatial(struct model_ws *ws)
{
	uint64_t num = 1;
	double util = 1.0;
	unsigned L;

	for (L = ws->n_loops; L-- > 0;) {
		struct mloop *lp = &ws->loops[L];
		lp->num_spatial_elems = num;
		lp->utilized_spatial_elems = util;
		if (!lp->is_spatial)
			continue;
		num *= lp->end;
		if (lp->residual != lp->end) {
			uint64_t outer = outer_trips(ws, L, lp->dim);
			util *= (double)(lp->residual + lp->end * (outer - 1)) / (double)outer;
		} else {
			util *= (double)lp->end;
		}
	}
}

/* Masters, their groups and logical fan-outs. */
static void prepare_masters(struct model_ws *ws)
{
	unsigned L;

	for (L = 0; L < ws->n_loops; L++) {
		struct mloop *lp = &ws->loops[L];
		unsigned k;
		lp->is_master = lp->is_spatial &&
			(L + 1 == ws->n_loops || !ws->loops[L + 1].is_spatial);
		lp->logical_fanout = lp->fanout_x = lp->fanout_y = 1;
		if (!lp->is_master)
			continue;
		k = L;
		while (k > 0 && ws->loops[k - 1].is_spatial)
			k--;
		lp->group_lo = k;
		for (; k <= L; k++) {
			const struct mloop *g = &ws->loops[k];
			lp->logical_fanout *= g->end;
			if (g->is_x)
				lp->fanout_x *= g->end;
			else
				lp->fanout_y *= g->end;
		}
	}
}

/* The spatial ends of one loop, folded into the expansion (x, y). */
static void fold_spatial(const struct mloop *lp, uint64_t *x, uint64_t *y)
{
	if (lp->is_spatial && lp->is_x)
		*x *= lp->end;
	else if (lp->is_spatial)
		*y *= lp->end;
}

/*
 * Block limits, innermost valid loop and spatial expansion of each level:
 * one pass from the outermost loop, the levels outer to inner (a level's
 * expansion is the spatial ends above its block; its 'in' is its block's
 * outermost master).
 */
static void prepare_levels(struct model_ws *ws)
{
	uint64_t x = 1, y = 1;
	unsigned l, L = ws->n_loops;

	for (l = ws->n_levels; l-- > 0;) {
		struct mlevel *lv = &ws->lv[l];
		lv->first = l == 0 ? 0 : ws->m->boundary[l - 1] + 1;
		lv->boundary = ws->m->boundary[l];
		for (; L > lv->boundary + 1; L--)
			fold_spatial(&ws->loops[L - 1], &x, &y);
		lv->max_x = x;
		lv->max_y = y;
		lv->in = lv->first;
		lv->has_master = lv->grows = lv->master_box = false;
		for (; L > lv->first; L--) {
			const struct mloop *lp = &ws->loops[L - 1];
			if (lp->is_master && !lv->has_master) {
				lv->in = L - 1;
				lv->has_master = true;
				lv->master_box = !lv->grows;
			}
			lv->grows |= lp->end > 1;
			fold_spatial(lp, &x, &y);
		}
	}
	for (; L > 0; L--)
		fold_spatial(&ws->loops[L - 1], &x, &y);
	ws->compute_max_x = x;
	ws->compute_max_y = y;
}

/* Replication of the compute level: that of the innermost valid loop. */
static double compute_replication(const struct model_ws *ws)
{
	unsigned L = 0;

	while (ws->loops[L].is_spatial && !ws->loops[L].is_master)
		L++;
	return ws->loops[L].utilized_spatial_elems * (double)ws->loops[L].logical_fanout;
}

/*
 * The tuples of one dimension's digits at the chosen loops that some
 * iteration takes. The loops of 'dim', outer to inner, are the digits of a
 * mixed radix (semantics 1.4) whose last value is N = (r_K - 1, ...,
 * r_0 - 1); an iteration's digits are at most N in lexicographic order.
 * With the unchosen digits at 0 (their smallest), a choice is taken iff it
 * is at most N: a digit below N's makes the rest free ('loose'), one equal
 * to it keeps the choice on N's edge ('tight').
 */
static uint64_t dim_count(const struct model_ws *ws, unsigned dim, bool spatial, int above)
{
	uint64_t loose = 0, tight = 1;
	int L;

	for (L = (int)ws->n_loops - 1; L >= 0; L--) {
		const struct mloop *lp = &ws->loops[L];
		uint64_t n = lp->residual - 1;
		if (lp->dim != dim)
			continue;
		if (L > above && lp->is_spatial == spatial) {
			loose = loose * lp->end + tight * n;
		} else if (n > 0) {
			loose += tight;
			tight = 0;
		}
	}
	return loose + tight;
}

uint64_t model_loops_count(const struct model_ws *ws, uint32_t dims, bool spatial, int above)
{
	uint64_t p = 1;
	unsigned d;

	for (d = 0; d < ws->n_dims; d++)
		if (dims & (1u << d))
			p *= dim_count(ws, d, spatial, above);
	return p;
}

/* Instances and temporal steps of an imperfect mapping, counted exactly. */
static void prepare_exact_counts(struct model_ws *ws)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		ws->level_instances[l] = model_loops_count(ws, UINT32_MAX, true,
							   (int)ws->lv[l].boundary);
	ws->compute_instances = model_loops_count(ws, UINT32_MAX, true, -1);
	ws->temporal_steps = model_loops_count(ws, UINT32_MAX, false, -1);
}

void model_loops_prepare(struct model_ws *ws, const struct spec_mapping *m)
{
	unsigned L;

	if (m->n_levels != ws->n_levels || m->n_dims != ws->n_dims)
		BUG("mapping has %u levels and %u dims, the design %u and %u",
		    m->n_levels, m->n_dims, ws->n_levels, ws->n_dims);
	ws->m = m;
	ws->n_loops = m->n_loops;
	for (L = 0; L < m->n_loops; L++) {
		const struct spec_loop *sl = &m->loops[L];
		struct mloop *lp = &ws->loops[L];
		lp->dim = sl->dim;
		lp->level = sl->level;
		lp->is_spatial = sl->spacetime != SPEC_TEMPORAL;
		lp->is_x = sl->spacetime == SPEC_SPATIAL_X;
		lp->end = sl->end;
		lp->residual = sl->residual_end;
		lp->is_boundary = m->boundary[sl->level] == L;
	}
	prepare_molds(ws);
	prepare_outer_same(ws);
	prepare_spatial(ws);
	prepare_masters(ws);
	prepare_levels(ws);
	ws->compute_replication = compute_replication(ws);
	ws->max_temporal_iterations = model_loops_temporal_product(ws);
	ws->exact = m->is_imperfect && ws->opt.imperfect == MODEL_IMPERFECT_EXACT;
	if (ws->exact)
		prepare_exact_counts(ws);
}

uint64_t model_loops_temporal_product(const struct model_ws *ws)
{
	uint64_t p = 1;
	unsigned L;

	for (L = 0; L < ws->n_loops; L++)
		if (!ws->loops[L].is_spatial)
			p *= ws->loops[L].end;
	return p;
}
