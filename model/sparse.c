/*
 * The sparse hook (semantics 4.1), between collapse and evaluation.
 *
 * Every run starts from the dense defaults of semantics 3.1 and 4.1 step 1:
 * actual counts equal the algorithmic ones, tiles are full (occupancy =
 * shape, density 1), the average replication is the replication. A run
 * whose sparse_optimizations list nothing stops there (dense numbers, sparse
 * print layout). Otherwise the analysis runs in Sparseloop's order: formats
 * bound to the loops, expected occupancies and format accesses, the action
 * optimizations, spatial skipping, their combination, the compute classes,
 * and the capacities the evaluation checks.
 */
#include "model/sparse_int.h"

#include <math.h>
#include <stddef.h>

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Dense defaults of every tile and of the arithmetic level. */
static void sparse_dense_defaults(struct model_ws *ws, struct model_result *out)
{
	struct model_compute *mc = &out->compute;
	const char *name[SPEC_MAX_TENSORS];
	unsigned l, pv;

	for (pv = 0; pv < ws->n_tensors; pv++)
		name[pv] = ws->sp ? density_type_name(ws->sp->density[pv]) : ws->density_name[pv];
	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			t->density_name = name[pv];
			t->vector_ratio = 1.0;
			if (!t->is_kept) {   /* a kept tile's were cleared by the collapse */
				t->has_metadata = t->is_compressed = false;
				t->n_fmt_ranks = 0;
				continue;
			}
			t->actions[MODEL_OP_RANDOM_READ] = t->reads;
			t->actions[MODEL_OP_RANDOM_FILL] = t->fills;
			t->actions[MODEL_OP_RANDOM_UPDATE] = t->updates;
			t->utilized_capacity = t->shape;
			t->expected_occupancy = (double)t->shape;
			t->expected_density = t->shape ? 1.0 : 0.0;
		}
	}
	memset(mc, 0, sizeof(*mc));
	mc->max_x = ws->compute_max_x;
	mc->max_y = ws->compute_max_y;
	if (ws->exact) {   /* the nest counted every compute of every instance */
		mc->algorithmic = ws->nest.compute_accesses;
		mc->avg_replication = (double)ws->compute_instances;
		mc->accesses = ws->compute_instances ?
			       (uint64_t)llround((double)mc->algorithmic / (double)ws->compute_instances) : 0;
	} else {
		mc->accesses = ws->nest.compute_accesses;
		mc->avg_replication = ws->compute_replication;
		mc->algorithmic = (uint64_t)(ws->compute_replication * (double)mc->accesses);
	}
	mc->random = mc->algorithmic;
}

static void sparse_ws_free(struct sparse_ws *sp);

/* The optimizations of one target, recorded per storage level. */
static void index_target(struct sparse_ws *sp, const struct spec_sparse_target *tg)
{
	unsigned i, j;

	if (tg->is_compute) {
		sp->compute_gating |= tg->compute_gating;
		sp->compute_skipping |= tg->compute_skipping;
		return;
	}
	sp->target[tg->level] = tg;
	for (i = 0; i < tg->n_formats; i++)
		sp->fmt[tg->level][tg->formats[i].tensor] = &tg->formats[i];
	for (j = 0; j < tg->n_groups; j++)
		if (tg->groups[j].kind == SPEC_SAF_SPATIAL_SKIPPING)
			sp->has_spatial_skip = true;
}

/*
 * The sparse part of a workspace for its spec set, or NULL when the design
 * lists nothing sparse. 'keep' (may be NULL) is an earlier one, released:
 * its memory (2 MB, mostly per-mapping tables) is used again. Its spec set's
 * part is cleared as calloc cleared it; the per-mapping part is left as an
 * evaluation leaves it for the next mapping (each evaluation sets what it
 * reads of it, as in the mapper's workspace), its scratch kept.
 */
static struct sparse_ws *sparse_ws_new(const struct model_ws *ws, struct sparse_ws *keep)
{
	const struct spec_set *s = ws->s;
	struct sparse_ws *sp;
	unsigned i, pv;

	if (!s->sparse.present || s->sparse.n_targets == 0) {
		sparse_ws_free(keep);
		return NULL;
	}
	if (keep) {
		sp = keep;
		memset(sp, 0, offsetof(struct sparse_ws, nest));
	} else {
		sp = xcalloc(1, sizeof(*sp));
	}
	sp->active = true;
	for (pv = 0; pv < ws->n_tensors; pv++)
		sp->density[pv] = density_model_new(&s->workload.tensors[pv]);
	for (i = 0; i < s->sparse.n_targets; i++)
		index_target(sp, &s->sparse.targets[i]);
	model_sparse_memo_reset(sp, (size_t)ws->n_levels * ws->n_tensors);
	return sp;
}

void model_sparse_prepare(struct model_ws *ws, struct sparse_ws *keep)
{
	ws->sp = sparse_ws_new(ws, keep);
}

/* The density models of 'sp' freed; the rest (its memory) kept. */
static void sparse_ws_clear(struct sparse_ws *sp)
{
	unsigned pv;

	for (pv = 0; pv < SPEC_MAX_TENSORS; pv++) {
		density_model_free(sp->density[pv]);
		sp->density[pv] = NULL;
	}
}

static void sparse_ws_free(struct sparse_ws *sp)
{
	if (!sp)
		return;
	sparse_ws_clear(sp);
	free(sp->probs);
	free(sp->memo);
	free(sp);
}

struct sparse_ws *model_sparse_detach(struct model_ws *ws)
{
	struct sparse_ws *sp = ws->sp;

	if (sp)
		sparse_ws_clear(sp);
	ws->sp = NULL;
	return sp;
}

void model_sparse_release(struct model_ws *ws)
{
	sparse_ws_free(ws->sp);
	ws->sp = NULL;
}

bool model_sparse_defers_fanout(const struct model_ws *ws)
{
	return ws->sp && ws->sp->has_spatial_skip;
}

bool model_sparse_has_format(const struct model_ws *ws, unsigned l, unsigned pv)
{
	return ws->sp && ws->sp->fmt[l][pv];
}

int model_sparse_hook(struct model_ws *ws, struct model_result *out)
{
	struct sparse_ws *sp = ws->sp;

	sparse_dense_defaults(ws, out);
	if (!sp)
		return 0;
	sp->nest.n_loops = ws->m->n_complete;
	sp->nest.loops = ws->m->complete;
	sp->nest.n_levels = ws->n_levels;
	sp->nest.level_begin = ws->m->complete_begin;
	if (model_sparse_formats(ws, out) < 0)
		return -1;
	if (model_sparse_occupancy(ws, out) < 0)
		return -1;
	if (model_sparse_define_safs(ws, out) < 0)
		return -1;
	if (sp->has_spatial_skip && model_sparse_spatial_instances(ws, out) < 0)
		return -1;
	model_sparse_combine(ws, out);
	model_sparse_classify(ws, out);
	return model_sparse_capacity(ws, out);
}
