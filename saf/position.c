/*
 * Position skipping (docs/sparse.md, "Position skipping"): a level that
 * knows the empty positions of a tensor's fiber (its metadata) sends only
 * the non-empty ones and packs them onto its lanes, as the dual-side sparse
 * tensor core (DSTC, Wang et al., ISCA 2021) packs the non-zeros of a
 * column of A and a row of B into its outer-product array. Timeloop's
 * 'position-skipping' SAF did this for Sparseloop's DSTC case study and was
 * later removed (timeloop#224); this is its model of the steps.
 */
#include "saf/saf.h"

#include <math.h>

#include "density/density.h"
#include "formats/format.h"

/*
 * The packed steps of the target's fiber at 'level': the level's loops
 * (temporal and spatial) over the dimensions that project to the target and
 * to no other operand walk F positions, f of them side by side (the
 * spatial loops). With X the fiber's non-zeros (its tile over those loops,
 * from the density model), packing the non-zeros into rows of f lanes takes
 * ceil(X / f) steps instead of F / f:
 *     expected steps = sum over n of P(X = n) ceil(n / f)
 *     ratio          = expected steps / (F / f)
 * The ratio lies between the density (perfect packing: f = 1 or f | X) and
 * 1 (dense); at f = F it is P(X > 0), a lane row per non-empty fiber.
 */
struct saf_position_effect saf_position_skip(const struct saf_position_query *q)
{
	struct saf_position_effect e = { 1, 1, 1.0, 1.0 };
	uint64_t box[SPEC_MAX_DIMS], ext[SPEC_MAX_TENSOR_RANKS], n, max;
	const struct saf_nest *nest = q->nest;
	struct density_tile tile;
	unsigned i, d;
	double steps = 0;

	for (d = 0; d < SPEC_MAX_DIMS; d++)
		box[d] = 1;
	for (i = nest->level_begin[q->level]; i < nest->level_begin[q->level + 1]; i++) {
		const struct spec_loop *lp = &nest->loops[i];
		if (!((q->target->dim_mask >> lp->dim) & 1) || ((q->shared_dims >> lp->dim) & 1))
			continue;
		box[lp->dim] *= lp->end;
		e.positions *= lp->end;
		if (lp->spacetime != SPEC_TEMPORAL)
			e.lanes *= lp->end;
	}
	e.expected_steps = (double)(e.positions / e.lanes);
	if (e.positions == 1)
		return e;
	fmt_box_points(q->target, box, ext);
	tile = density_tile_box(q->target->n_ranks, ext);
	max = density_max_occupancy(q->density, &tile, 1.0);
	for (n = 1; n <= max; n++)
		steps += density_prob(q->density, &tile, NULL, n) * (double)((n + e.lanes - 1) / e.lanes);
	e.expected_steps = steps;
	e.ratio = steps / (double)(e.positions / e.lanes);
	return e;
}
