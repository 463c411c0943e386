/*
 * Spatial skipping (semantics 4.4.4): the instances below a level whose
 * share of a condition tensor is empty get no work, so fewer instances are
 * busy on average and the spatial fan-out a mapping needs shrinks.
 */
#include "saf/saf.h"

#include "formats/format.h"
#include "density/density.h"
#include "util/xalloc.h"

static bool projects(const struct spec_tensor *t, unsigned dim)
{
	return (t->dim_mask >> dim) & 1;
}

/* The tile of 'c' spanned by the op-space box 'box'. */
static struct density_tile tile_of(const struct spec_tensor *c, const uint64_t *box)
{
	uint64_t ext[SPEC_MAX_TENSOR_RANKS];

	fmt_box_points(c, box, ext);
	return density_tile_box(c->n_ranks, ext);
}

/*
 * The op box below loop 'k' (the maxtile mold of loop k - 1), widened when
 * 'extend' by the level's temporal loops that do not move the target,
 * from the innermost one outwards up to the first that does.
 */
static void sub_box(const struct saf_spatial_query *q, unsigned k, bool extend, uint64_t *box)
{
	const struct saf_nest *n = q->nest;
	unsigned i, end = n->level_begin[q->level + 1];

	for (i = 0; i < SPEC_MAX_DIMS; i++)
		box[i] = 1;
	for (i = 0; i < k; i++)
		box[n->loops[i].dim] *= n->loops[i].end;
	if (!extend)
		return;
	for (i = n->level_begin[q->level]; i < end; i++) {
		const struct spec_loop *lp = &n->loops[i];
		if (lp->spacetime != SPEC_TEMPORAL)
			continue;
		if (projects(q->target, lp->dim) && lp->end > 1)
			break;
		box[lp->dim] *= lp->end;
	}
}

/*
 * The most non-empty sub-tiles a fiber of 'f' of them can hold:
 * min(f, max occupancy of the fiber) (semantics 4.2, maxElements).
 */
static uint64_t max_elements(const struct saf_spatial_query *q, const uint64_t *box,
			     unsigned dim, uint64_t f)
{
	uint64_t fiber[SPEC_MAX_DIMS], occ;
	struct density_tile t;
	unsigned i;

	for (i = 0; i < SPEC_MAX_DIMS; i++)
		fiber[i] = box[i];
	fiber[dim] *= f;
	t = tile_of(q->cond, fiber);
	occ = density_max_occupancy(q->density, &t, 1.0);
	return occ < f ? occ : f;
}

struct saf_spatial_effect saf_spatial_skip(const struct saf_spatial_query *q)
{
	const struct saf_nest *n = q->nest;
	struct saf_spatial_effect e = { 1.0, 1.0, 1.0 };
	uint32_t coiter = q->target->dim_mask & q->cond->dim_mask;
	unsigned k, end;
	bool found = false;

	if (q->level >= n->n_levels)
		BUG("spatial skipping at level %u", q->level);
	end = n->level_begin[q->level + 1];
	for (k = n->level_begin[q->level]; k < end; k++) {
		const struct spec_loop *lp = &n->loops[k];
		uint64_t box[SPEC_MAX_DIMS], m;
		bool extend;
		if (lp->spacetime == SPEC_TEMPORAL || lp->end <= 1 || !projects(q->cond, lp->dim))
			continue;
		extend = ((coiter >> lp->dim) & 1) && q->child_level >= 0;
		sub_box(q, k, extend, box);
		if (!found) {
			struct density_tile t = tile_of(q->cond, box);
			e.ratio = 1.0 - density_prob_empty(q->density, &t, NULL);
			found = true;
		}
		m = max_elements(q, box, lp->dim, lp->end);
		if (lp->spacetime == SPEC_SPATIAL_X)
			e.x_scale *= (double)m / (double)lp->end;
		else
			e.y_scale *= (double)m / (double)lp->end;
	}
	return e;
}
