/*
 * Loop nests derived from per-level mapping directives (semantics 1.4).
 */
#include "specs/spec.h"

#include <string.h>

#include "util/xalloc.h"

/* Append the loops of one tiling level (in permutation order) to both nests. */
static void add_tiling_level(struct spec_mapping *m, unsigned level, enum spec_spacetime kind,
			     const uint64_t *factors, const uint64_t *residuals,
			     const uint8_t *perm, unsigned split)
{
	unsigned i, n_kept = 0;

	for (i = 0; i < m->n_dims; i++) {
		struct spec_loop lp;
		lp.dim = perm[i];
		lp.level = (uint8_t)level;
		lp.end = factors[perm[i]];
		lp.residual_end = residuals[perm[i]];
		if (kind == SPEC_TEMPORAL)
			lp.spacetime = SPEC_TEMPORAL;
		else
			lp.spacetime = i < split ? SPEC_SPATIAL_X : SPEC_SPATIAL_Y;
		if (m->n_complete >= SPEC_MAX_LOOPS || m->n_loops >= SPEC_MAX_LOOPS)
			BUG("loop nest longer than %d loops", SPEC_MAX_LOOPS);
		m->complete[m->n_complete++] = lp;
		if (lp.residual_end != lp.end)
			m->is_imperfect = true;
		if (lp.end > 1) {
			m->loops[m->n_loops++] = lp;
			n_kept++;
		}
	}
	if (kind == SPEC_TEMPORAL && n_kept == 0) {
		struct spec_loop lp = { 0 };
		lp.dim = (uint8_t)(m->n_dims - 1);
		lp.level = (uint8_t)level;
		lp.spacetime = SPEC_TEMPORAL;
		lp.end = 1;
		lp.residual_end = 1;
		m->loops[m->n_loops++] = lp;
	}
}

/*
 * True when the factors of dimension 'd' over all tiling levels give
 * 'bound': with residuals, exactly; a padded dimension's, at least.
 */
static bool dim_factors_ok(const struct spec_mapping *m, unsigned d, uint64_t bound)
{
	uint64_t v = 0;
	bool first = true;
	int i;

	if (m->pad_mask & (1u << d)) {
		for (i = 0, v = 1; i < (int)m->n_complete; i++)
			if (m->complete[i].dim == d) {
				if (m->complete[i].residual_end != m->complete[i].end)
					return false;
				v *= m->complete[i].end;
			}
		return v >= bound;
	}
	/* fold from the outermost tiling level inwards: v = (v - 1) * f + r */
	for (i = (int)m->n_complete - 1; i >= 0; i--) {
		const struct spec_loop *lp = &m->complete[i];
		if (lp->dim != d)
			continue;
		if (first) {
			v = lp->residual_end;
			first = false;
		} else {
			if (v == 0)
				return false;
			v = (v - 1) * lp->end + lp->residual_end;
		}
	}
	return v == bound;
}

int spec_mapping_derive(struct spec_mapping *m, const struct spec_workload *w)
{
	unsigned l, d;

	if (m->n_levels > SPEC_MAX_LEVELS || m->n_dims != w->n_dims)
		BUG("mapping has %u levels and %u dims", m->n_levels, m->n_dims);
	m->n_loops = 0;
	m->n_complete = 0;
	m->is_imperfect = false;
	for (l = 0; l < m->n_levels; l++) {
		const struct spec_map_level *ml = &m->levels[l];
		m->complete_begin[l] = m->n_complete;
		if (ml->has_spatial)
			add_tiling_level(m, l, SPEC_SPATIAL_X, ml->spatial_factors,
					 ml->spatial_residuals, ml->spatial_perm, ml->split);
		add_tiling_level(m, l, SPEC_TEMPORAL, ml->temporal_factors,
				 ml->temporal_residuals, ml->temporal_perm, 0);
		m->boundary[l] = m->n_loops - 1;
	}
	m->complete_begin[m->n_levels] = m->n_complete;
	for (d = 0; d < m->n_dims; d++)
		if (!dim_factors_ok(m, d, w->bounds[d]))
			return -1;
	return 0;
}
