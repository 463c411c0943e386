/*
 * Action optimizations in the model (semantics 4.4): each option's target
 * level and probability (saf/), the best option of each group, and the
 * spatial skipping of instances (the thinned replication and fan-out).
 */
#include "model/sparse_int.h"

#include <math.h>
#include <string.h>

double model_sparse_position_ratio(const struct model_ws *ws)
{
	return ws->sp && ws->sp->pos_skipped ? ws->sp->pos_ratio : 1.0;
}

int model_sparse_keeping_level(const struct model_result *out, unsigned l, unsigned pv)
{
	for (; l < out->n_levels; l++)
		if (out->tiles[l][pv].is_kept && out->tiles[l][pv].shape)
			return (int)l;
	return -1;
}

/* The nearest level below 'l' that keeps 'pv', or -1 (the compute). */
static int child_below(const struct model_result *out, unsigned l, unsigned pv)
{
	while (l-- > 0)
		if (out->tiles[l][pv].is_kept && out->tiles[l][pv].shape)
			return (int)l;
	return -1;
}

/* Metadata units of a tile's expected occupancy, summed over ranks. */
static double md_units(const struct sp_tile *st)
{
	double u = 0;
	unsigned r;

	if (!st->has_metadata)
		return 0;
	for (r = 0; r < st->exp_md.n_ranks; r++)
		u += st->exp_md.rank[r].metadata_units + st->exp_md.rank[r].payload_units;
	return u;
}

/* One evaluated option: where it acts, with what probability and saving. */
struct option_eval {
	int tl;
	double p, saving;
};

static int eval_option(struct model_ws *ws, unsigned s, const struct spec_saf_option *o,
		       struct model_result *out, struct option_eval *oe)
{
	const struct spec_workload *w = &ws->s->workload;
	struct sparse_ws *sp = ws->sp;
	struct saf_prob_query q;
	const struct spec_level *lvl;
	const struct model_tile *t;
	unsigned i;
	int md_level;

	oe->tl = model_sparse_keeping_level(out, s, o->target);
	if (oe->tl < 0)
		return model_result_fail(out, EVAL_SPARSE, (int)s, (int)o->target,
					 "no level at or above '%s' keeps '%s', the target of an "
					 "action optimization", ws->s->arch.levels[s].name,
					 w->tensors[o->target].name);
	lvl = &ws->s->arch.levels[oe->tl];
	t = &out->tiles[oe->tl][o->target];
	memset(&q, 0, sizeof(q));
	q.nest = &sp->nest;
	q.target = &w->tensors[o->target];
	q.target_level = (unsigned)oe->tl;
	q.child_level = t->child_level;
	q.block_size = lvl->block_size;
	q.n_conditions = o->n_conditions;
	for (i = 0; i < o->n_conditions; i++) {
		q.conditions[i] = &w->tensors[o->conditions[i]];
		q.densities[i] = sp->density[o->conditions[i]];
	}
	oe->p = saf_ineffectual_prob(&q);
	md_level = t->child_level >= 0 ? t->child_level : oe->tl;
	oe->saving = saf_option_saving(ws->lev_energy[oe->tl].op_pj[MODEL_OP_RANDOM_READ],
				       lvl->block_size, t->expected_occupancy,
				       md_units(&sp->t[md_level][o->target]),
				       lvl->metadata_word_bits, lvl->word_bits, oe->p);
	return 0;
}

/* Record the chosen option of a gating or skipping group. */
static void record(struct sparse_ws *sp, const struct spec_saf_option *o,
		   const struct option_eval *oe, enum spec_saf_kind kind)
{
	struct sp_tile *st = &sp->t[oe->tl][o->target];

	if (st->action != SAF_NONE && !(oe->p > st->p))
		return;
	st->action = kind == SPEC_SAF_GATING ? SAF_GATE : SAF_SKIP;
	st->p = oe->p;
	st->cond_mask = o->condition_mask;
}

/* The best option of a gating or skipping group at level s. */
static int define_group(struct model_ws *ws, unsigned s, const struct spec_saf_group *g,
			struct model_result *out)
{
	struct option_eval best = { -1, 0, 0 }, oe;
	const struct spec_saf_option *bo = NULL;
	unsigned i;

	for (i = 0; i < g->n_options; i++) {
		if (eval_option(ws, s, &g->options[i], out, &oe) < 0)
			return -1;
		if (!bo || oe.saving >= best.saving) {
			best = oe;
			bo = &g->options[i];
		}
	}
	if (bo)
		record(ws->sp, bo, &best, g->kind);
	return 0;
}

/* Does a non-trivial spatial loop of level s distribute tensor c? */
static bool distributes(const struct model_ws *ws, unsigned s, unsigned c)
{
	const struct spec_tensor *t = &ws->s->workload.tensors[c];
	unsigned i;

	for (i = ws->m->complete_begin[s]; i < ws->m->complete_begin[s + 1]; i++) {
		const struct spec_loop *lp = &ws->m->complete[i];
		if (lp->spacetime != SPEC_TEMPORAL && lp->end > 1 && ((t->dim_mask >> lp->dim) & 1))
			return true;
	}
	return false;
}

/*
 * The busy ratio and expansion scales of spatial skipping at level s for
 * 'target' on the conditions of 'o' (each kept at or above s with
 * metadata and spread by a spatial loop of s; the others do not thin the
 * instances, and a level without such a loop records no busy fraction,
 * which would replace the one of a level above it). The busy fraction each
 * leader c gives on its own goes to st->below_lead[c] (bit c of
 * st->below_leads).
 */
static struct saf_spatial_effect spatial_effect(struct model_ws *ws, unsigned s, unsigned target,
						uint32_t cond_mask, const struct model_result *out,
						struct sp_tile *st)
{
	const struct spec_workload *w = &ws->s->workload;
	struct saf_spatial_effect e = { 1.0, 1.0, 1.0 }, one;
	struct saf_spatial_query q;
	unsigned c;

	st->below_leads = 0;
	memset(&q, 0, sizeof(q));
	q.nest = &ws->sp->nest;
	q.target = &w->tensors[target];
	q.level = s;
	q.child_level = child_below(out, s, target);
	for (c = 0; c < ws->n_tensors; c++) {
		int kl;
		if (!((cond_mask >> c) & 1))
			continue;
		kl = model_sparse_keeping_level(out, s, c);
		if (kl < 0 || !out->tiles[kl][c].has_metadata || !distributes(ws, s, c))
			continue;   /* a level that does not spread c says nothing of its busy share */
		q.cond = &w->tensors[c];
		q.density = ws->sp->density[c];
		one = saf_spatial_skip(&q);
		st->below_leads |= 1u << c;
		st->below_lead[c] = one.ratio;
		e.ratio *= one.ratio;
		e.x_scale *= one.x_scale;
		e.y_scale *= one.y_scale;
	}
	return e;
}

/* A spatial-skipping group at level s: its first option acts. */
static void define_spatial(struct model_ws *ws, unsigned s, const struct spec_saf_group *g,
			   const struct model_result *out)
{
	const struct spec_saf_option *o = &g->options[0];
	struct sp_tile *st = &ws->sp->t[s][o->target];

	st->below = spatial_effect(ws, s, o->target, o->condition_mask, out, st);
	st->thins = true;
	st->has_spatial = true;
	st->p_spatial = 1.0 - st->below.ratio;
	st->spatial_cond_mask = o->condition_mask;
}

/* Dimensions that project to a read-only tensor other than 'pv'. */
static uint32_t shared_dims(const struct model_ws *ws, unsigned pv)
{
	uint32_t m = 0;
	unsigned t;

	for (t = 0; t < ws->n_tensors; t++)
		if (t != pv && !ws->proj[t].read_write)
			m |= ws->s->workload.tensors[t].dim_mask;
	return m;
}

/*
 * A position-skipping group at level s: its first option acts. The target's
 * empty positions are skipped where it is kept at or above s, which needs
 * its metadata there (a level that cannot tell the zeros cannot skip them):
 * with P(an element is empty) the levels below and the computes lose those
 * positions (propagation); the level's own reads lose them too unless its
 * tile is compressed (then the zeros are not stored, and the representation
 * already removed their reads). The packing of the non-empty positions onto
 * the lanes of s sets the compute steps (saf_position_skip()).
 */
static int define_position(struct model_ws *ws, unsigned s, const struct spec_saf_group *g,
			   struct model_result *out)
{
	static const uint64_t ones[SPEC_MAX_TENSOR_RANKS] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	const struct spec_saf_option *o = &g->options[0];
	const struct spec_tensor *t = &ws->s->workload.tensors[o->target];
	struct sparse_ws *sp = ws->sp;
	struct saf_position_query q;
	struct saf_position_effect e;
	struct density_tile one;
	struct option_eval oe;

	oe.tl = model_sparse_keeping_level(out, s, o->target);
	if (oe.tl < 0 || !out->tiles[oe.tl][o->target].has_metadata)
		return model_result_fail(out, EVAL_SPARSE, (int)s, (int)o->target,
					 "'position_skipping' of '%s' at '%s' needs '%s' stored with "
					 "a representation format at or above '%s' (its metadata finds "
					 "the empty positions)", t->name, ws->s->arch.levels[s].name,
					 t->name, ws->s->arch.levels[s].name);
	one = density_tile_box(t->n_ranks, ones);
	oe.p = density_prob_empty(sp->density[o->target], &one, NULL);
	oe.saving = 0;
	if (out->tiles[oe.tl][o->target].is_compressed) {
		struct sp_tile *st = &sp->t[oe.tl][o->target];
		st->p_spatial = st->has_spatial ? 1 - (1 - st->p_spatial) * (1 - oe.p) : oe.p;
		st->has_spatial = true;
	} else {
		record(sp, o, &oe, SPEC_SAF_SKIPPING);
	}
	memset(&q, 0, sizeof(q));
	q.nest = &sp->nest;
	q.target = t;
	q.level = s;
	q.shared_dims = shared_dims(ws, o->target);
	q.density = sp->density[o->target];
	e = saf_position_skip(&q);
	sp->pos_skipped |= 1u << o->target;
	sp->pos_ratio *= e.ratio;
	return 0;
}

/* Reset the optimization state of every tile. */
static void clear_safs(struct model_ws *ws)
{
	unsigned l, pv;

	ws->sp->pos_skipped = 0;
	ws->sp->pos_ratio = 1.0;
	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct sp_tile *st = &ws->sp->t[l][pv];
			st->action = SAF_NONE;
			st->p = st->p_spatial = 0;
			st->cond_mask = st->spatial_cond_mask = 0;
			st->has_spatial = st->thins = false;
			st->below = (struct saf_spatial_effect){ 1.0, 1.0, 1.0 };
			st->below_leads = 0;
		}
	}
}

int model_sparse_define_safs(struct model_ws *ws, struct model_result *out)
{
	static const enum spec_saf_kind order[] = { SPEC_SAF_GATING, SPEC_SAF_SKIPPING };
	unsigned k, l, g;

	clear_safs(ws);
	for (k = 0; k < 2; k++) {
		for (l = 0; l < ws->n_levels; l++) {
			const struct spec_sparse_target *tg = ws->sp->target[l];
			for (g = 0; tg && g < tg->n_groups; g++)
				if (tg->groups[g].kind == order[k] &&
				    define_group(ws, l, &tg->groups[g], out) < 0)
					return -1;
		}
	}
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_sparse_target *tg = ws->sp->target[l];
		for (g = 0; tg && g < tg->n_groups; g++)
			if (tg->groups[g].kind == SPEC_SAF_SPATIAL_SKIPPING &&
			    tg->groups[g].n_options)
				define_spatial(ws, l, &tg->groups[g], out);
	}
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_sparse_target *tg = ws->sp->target[l];
		for (g = 0; tg && g < tg->n_groups; g++)
			if (tg->groups[g].kind == SPEC_SAF_POSITION_SKIPPING &&
			    tg->groups[g].n_options && define_position(ws, l, &tg->groups[g], out) < 0)
				return -1;
	}
	return 0;
}

/* ------------------------------------------------------- spatial instances */

/*
 * Tensors with metadata distribute only their non-empty sub-tiles
 * (Timeloop's InitializeSpatialInstances): the spatial loops of every level
 * l thin tensor pv when the nearest level at or above l that stores pv
 * knows its zeros (has metadata), whether or not l itself keeps pv. So a
 * register file that bypasses a 2:4 A still spreads only A's non-zeros over
 * its MACs, by the metadata of the shared memory above it.
 */
static void self_thinning(struct model_ws *ws, const struct model_result *out)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct sp_tile *st = &ws->sp->t[l][pv];
			int kl = model_sparse_keeping_level(out, l, pv);
			if (st->thins || kl < 0 || !out->tiles[kl][pv].has_metadata)
				continue;
			st->below = spatial_effect(ws, l, pv, 1u << pv, out, st);
			st->thins = true;
		}
	}
}

static uint64_t scaled(uint64_t x, double f)
{
	double v = ceil((double)x * f - 1e-9);
	return v < 1 ? 1 : (uint64_t)v;
}

/*
 * Fold the thinning of level 'st' into the running busy fractions of the
 * instances below it: per leader c, the innermost level's fraction
 * replaces the outer ones (its sub-tile of c lies inside theirs, so a
 * non-empty one implies non-empty ones above: the events are nested, and
 * 1 - P(empty) is already the share of all instances that are busy);
 * different leaders multiply. The expansions shrink loop by loop.
 */
static void fold_thinning(const struct sp_tile *st, double *lead, uint32_t *leads,
			  struct saf_spatial_effect *acc)
{
	unsigned c;

	acc->x_scale *= st->below.x_scale;
	acc->y_scale *= st->below.y_scale;
	*leads |= st->below_leads;
	acc->ratio = 1.0;
	for (c = 0; c < SPEC_MAX_TENSORS; c++) {
		if ((st->below_leads >> c) & 1)
			lead[c] = st->below_lead[c];
		if ((*leads >> c) & 1)
			acc->ratio *= lead[c];
	}
}

/*
 * The busy share to apply to tile (l, pv) from the thinning above it. A
 * tile that dropped its empty instances (keep_ratio < 1, set by the
 * occupancy) already counts the instances whose tile of pv is empty; pv's
 * own thinning above is the same event seen on a larger sub-tile that
 * contains this one (a non-empty tile implies a non-empty sub-tile), so
 * only the other leaders multiply.
 */
static double own_share(double keep_ratio, const struct saf_spatial_effect *acc,
			const double *lead, uint32_t leads, unsigned pv)
{
	if (keep_ratio < 1.0 && ((leads >> pv) & 1) && lead[pv] > 0)
		return acc->ratio / lead[pv];
	return acc->ratio;
}

int model_sparse_spatial_instances(struct model_ws *ws, struct model_result *out)
{
	struct model_compute *mc = &out->compute;
	double best_ratio = 0, best_x = 0, best_y = 0;
	unsigned l, pv;
	int lv;

	self_thinning(ws, out);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct saf_spatial_effect acc = { 1.0, 1.0, 1.0 };
		double lead[SPEC_MAX_TENSORS];
		uint32_t leads = 0;
		for (lv = (int)ws->n_levels - 1; lv >= 0; lv--) {
			struct model_tile *t = &out->tiles[lv][pv];
			t->avg_replication *= own_share(ws->sp->t[lv][pv].keep_ratio, &acc, lead,
							leads, pv);
			t->max_x = scaled(t->max_x, acc.x_scale);
			t->max_y = scaled(t->max_y, acc.y_scale);
			if (ws->sp->t[lv][pv].thins)
				fold_thinning(&ws->sp->t[lv][pv], lead, &leads, &acc);
		}
		best_ratio = fmax(best_ratio, acc.ratio);
		best_x = fmax(best_x, acc.x_scale);
		best_y = fmax(best_y, acc.y_scale);
	}
	mc->avg_replication *= best_ratio;
	mc->max_x = scaled(mc->max_x, best_x);
	mc->max_y = scaled(mc->max_y, best_y);
	if (model_check_fanout_at(ws, -1, mc->max_x, mc->max_y, out) < 0)
		return -1;
	for (l = 0; l < ws->n_levels; l++) {
		uint64_t x = 0, y = 0;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			x = out->tiles[l][pv].max_x > x ? out->tiles[l][pv].max_x : x;
			y = out->tiles[l][pv].max_y > y ? out->tiles[l][pv].max_y : y;
		}
		if (model_check_fanout_at(ws, (int)l, x, y, out) < 0)
			return -1;
	}
	return 0;
}
