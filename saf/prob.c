/*
 * The probability that an access is ineffectual (semantics 4.4.1,
 * ComputeIneffectualReadImpact) and the saving that ranks the options of a
 * group (4.4.3).
 */
#include "saf/saf.h"

#include <math.h>
#include <string.h>

#include "formats/format.h"
#include "density/density.h"
#include "util/xalloc.h"

/* Does dimension 'dim' project to tensor 't'? */
static bool projects(const struct spec_tensor *t, unsigned dim)
{
	return (t->dim_mask >> dim) & 1;
}

/* Extents per dim of the maxtile mold of loop 'k': ends of loops 0..k. */
static void mold_of(const struct saf_nest *n, int k, uint64_t *box)
{
	int i;

	for (i = 0; i < SPEC_MAX_DIMS; i++)
		box[i] = 1;
	for (i = 0; i <= k; i++)
		box[n->loops[i].dim] *= n->loops[i].end;
}

/* Is the loop after 'k' in level 'lvl's subnest temporal (or absent)? */
static bool next_is_temporal(const struct saf_nest *n, unsigned lvl, unsigned k)
{
	if (k + 1 >= n->level_begin[lvl + 1])
		return true;
	return n->loops[k + 1].spacetime == SPEC_TEMPORAL;
}

/*
 * The target loop (semantics 4.4.1 step 3): its index, and whether the
 * target granularity is a scalar.
 */
static int target_loop(const struct saf_prob_query *q, bool *scalar)
{
	const struct saf_nest *n = q->nest;
	unsigned lvl = (unsigned)(q->child_level + 1), k;

	*scalar = false;
	for (; lvl <= q->target_level; lvl++) {
		for (k = n->level_begin[lvl]; k < n->level_begin[lvl + 1]; k++) {
			const struct spec_loop *lp = &n->loops[k];
			bool useful = lp->end > 1 && projects(q->target, lp->dim);
			if (q->child_level >= 0) {
				if (useful)
					return (int)k;
				continue;
			}
			if (next_is_temporal(n, lvl, k)) {
				*scalar = lp->spacetime == SPEC_TEMPORAL;
				return (int)k;
			}
			if (useful)
				return (int)k;
		}
	}
	return (int)n->level_begin[q->target_level + 1] - 1;
}

/* The condition box and the relevant loops (semantics 4.4.1 step 4). */
struct cond_box {
	uint64_t box[SPEC_MAX_DIMS];
	unsigned n_rel;
	unsigned rel[SPEC_MAX_LOOPS];
	bool target_spatial;
	uint8_t target_dim;
	uint64_t g0;                     /* target points in the target tile */
};

static void condition_box(const struct saf_prob_query *q, int tk, bool scalar,
			  struct cond_box *cb)
{
	const struct saf_nest *n = q->nest;
	unsigned k, end = n->level_begin[q->target_level + 1];
	bool passed_relevant_temporal = false;
	int d;

	if (scalar) {
		for (d = 0; d < SPEC_MAX_DIMS; d++)
			cb->box[d] = 1;
	} else {
		mold_of(n, tk, cb->box);
	}
	cb->g0 = fmt_box_points(q->target, cb->box, NULL);
	cb->target_spatial = n->loops[tk].spacetime != SPEC_TEMPORAL;
	cb->target_dim = n->loops[tk].dim;
	cb->n_rel = 0;
	cb->rel[cb->n_rel++] = (unsigned)tk;
	for (k = (unsigned)tk + 1; k < end; k++) {
		const struct spec_loop *lp = &n->loops[k];
		bool spatial = lp->spacetime != SPEC_TEMPORAL;
		bool relevant = projects(q->target, lp->dim);
		if (lp->end <= 1)
			continue;
		if (spatial || (cb->target_spatial && !passed_relevant_temporal && !relevant &&
				q->child_level >= 0)) {
			cb->box[lp->dim] *= lp->end;
			cb->rel[cb->n_rel++] = k;
		}
		if (!spatial && relevant)
			passed_relevant_temporal = true;
	}
}

/*
 * P(the condition tile of 'cond' is empty), or -1 when the option is
 * ineffective for this condition (semantics 4.4.1 step 5).
 */
static double condition_p_empty(const struct saf_prob_query *q, const struct cond_box *cb,
				bool scalar, unsigned ci)
{
	const struct spec_tensor *c = q->conditions[ci];
	uint64_t factor[SPEC_MAX_DIMS], box[SPEC_MAX_DIMS], agg = 1, k, ext[SPEC_MAX_TENSOR_RANKS];
	uint32_t coiter = q->target->dim_mask & c->dim_mask;
	bool seen_coiter = false;
	struct density_tile tile;
	unsigned i, d;

	for (d = 0; d < SPEC_MAX_DIMS; d++) {
		factor[d] = 1;
		box[d] = cb->box[d];
	}
	for (i = 0; !scalar && i < cb->n_rel; i++) {
		const struct spec_loop *lp = &q->nest->loops[cb->rel[i]];
		if (cb->target_spatial && seen_coiter && projects(c, lp->dim))
			return -1.0;
		if ((coiter >> lp->dim) & 1) {
			factor[lp->dim] *= lp->end;
			agg *= lp->end;
			seen_coiter = true;
		}
	}
	k = (uint64_t)ceil((double)(q->block_size ? q->block_size : 1) /
			   ((double)cb->g0 / (double)agg));
	for (d = 0; d < SPEC_MAX_DIMS; d++) {
		uint64_t e;
		if (!((coiter >> d) & 1))
			continue;
		e = k ? factor[d] / k : 0;
		if (e > 1)
			box[d] = (box[d] + e - 1) / e;
		k /= factor[d];
	}
	if (k > 1)
		box[cb->target_dim] *= k;
	fmt_box_points(c, box, ext);
	tile = density_tile_box(c->n_ranks, ext);
	return density_prob_empty(q->densities[ci], &tile, NULL);
}

double saf_ineffectual_prob(const struct saf_prob_query *q)
{
	struct cond_box cb;
	double effectual = 1.0;
	bool scalar;
	unsigned ci;
	int tk;

	if (q->target_level >= q->nest->n_levels || q->child_level >= (int)q->target_level)
		BUG("SAF target level %u, child %d", q->target_level, q->child_level);
	tk = target_loop(q, &scalar);
	condition_box(q, tk, scalar, &cb);
	for (ci = 0; ci < q->n_conditions; ci++) {
		double p0 = condition_p_empty(q, &cb, scalar, ci);
		if (p0 >= 0)
			effectual *= 1.0 - p0;
	}
	return 1.0 - effectual;
}

double saf_option_saving(double read_energy_pj, unsigned block_size, double data_occupancy,
			 double metadata_units, unsigned default_md_word_bits,
			 unsigned word_bits, double p)
{
	double per_word = read_energy_pj / (double)(block_size ? block_size : 1);
	unsigned md_words = word_bits ? default_md_word_bits / word_bits : 0;

	return per_word * (data_occupancy + metadata_units * (double)md_words) * p;
}
