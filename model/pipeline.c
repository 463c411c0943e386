/*
 * The evaluation pipeline: the order of the stages of model_eval() (and of
 * its cheap pre-check, model_check_capacity()). This is the only file that
 * calls the stages; each stage calls only shared helpers below it
 * (footprints, fan-out and capacity checks, the result's helpers).
 */
#include "model/model_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * Reset the summary part of 'out' and record the run's settings. The levels
 * are cleared one by one: one memset of them all (2.2 KB on 7 levels) is a
 * string store that costs more than the stores of each level.
 */
static void result_start(struct model_ws *ws, struct model_result *out)
{
	static const struct model_level zero_level;
	static const struct model_network zero_network;
	unsigned l;

	memset(out, 0, offsetof(struct model_result, compute));
	for (l = 0; l < ws->n_levels; l++) {
		out->levels[l] = zero_level;
		out->networks[l] = zero_network;
	}
	out->status = EVAL_OK;
	out->fail_level = out->fail_tensor = -1;
	out->n_levels = ws->n_levels;
	out->n_tensors = ws->n_tensors;
	out->is_sparse_layout = ws->s->sparse.present;
	out->energy_preset = ws->preset_name;
	out->footprint = ws->opt.footprint;
}

static void nest_clear(struct model_ws *ws)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct nest_tile *t = &ws->nest.t[l][pv];
			t->size = t->spatial_size = t->link_transfers = 0;
			t->n_rec = 0;
		}
	}
	ws->nest.compute_accesses = 0;
}

/*
 * FIBERLOOP_NEST=check: the walk on the mapping the fast path just
 * analysed must give every count of the nest, record for record in the
 * same order (the collapse sums them in that order).
 */
static void check_fast_path(struct model_ws *ws)
{
	struct nest_out *fast = xmalloc(sizeof(*fast));
	unsigned l, pv, i;

	memcpy(fast, &ws->nest, sizeof(*fast));
	nest_clear(ws);
	model_nest_walk(ws);
	if (fast->compute_accesses != ws->nest.compute_accesses)
		BUG("fast path: %llu computes, the walk %llu",
		    (unsigned long long)fast->compute_accesses,
		    (unsigned long long)ws->nest.compute_accesses);
	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			const struct nest_tile *a = &fast->t[l][pv], *b = &ws->nest.t[l][pv];
			bool same = a->size == b->size && a->spatial_size == b->spatial_size &&
				    a->link_transfers == b->link_transfers && a->n_rec == b->n_rec;
			for (i = 0; same && i < a->n_rec; i++)
				same = a->rec[i].m == b->rec[i].m &&
				       a->rec[i].scatter == b->rec[i].scatter &&
				       a->rec[i].accesses == b->rec[i].accesses;
			if (!same)
				BUG("fast path != walk at level %u tensor %u: size %llu/%llu, "
				    "spatial %llu/%llu, links %llu/%llu, records %u/%u, first "
				    "(m %llu, scatter %llu, %llu)/(m %llu, scatter %llu, %llu)",
				    l, pv, (unsigned long long)a->size, (unsigned long long)b->size,
				    (unsigned long long)a->spatial_size,
				    (unsigned long long)b->spatial_size,
				    (unsigned long long)a->link_transfers,
				    (unsigned long long)b->link_transfers, a->n_rec, b->n_rec,
				    (unsigned long long)a->rec[0].m,
				    (unsigned long long)a->rec[0].scatter,
				    (unsigned long long)a->rec[0].accesses,
				    (unsigned long long)b->rec[0].m,
				    (unsigned long long)b->rec[0].scatter,
				    (unsigned long long)b->rec[0].accesses);
		}
	}
	free(fast);
}

/*
 * Make room for the largest spatial group of the mapping: under spatial
 * skipping a mapping may spread more children than the hardware has
 * instances (the sparse hook checks the thinned fan-out).
 */
static void reserve_children(struct model_ws *ws)
{
	uint64_t n = 1;
	unsigned i;

	for (i = 0; i < ws->m->n_loops; i++)
		if (ws->m->loops[i].spacetime != SPEC_TEMPORAL)
			n *= ws->m->loops[i].end;
	if (n <= ws->max_children)
		return;
	free(ws->child_key);
	free(ws->child_flag);
	model_nest_walk_release(ws);
	ws->max_children = (size_t)n;
	ws->child_key = xcalloc(ws->max_children, sizeof(*ws->child_key));
	ws->child_flag = xcalloc(ws->max_children, sizeof(*ws->child_flag));
	model_nest_walk_init(ws);
}

int model_eval(struct model_ws *ws, const struct spec_mapping *m, struct model_result *out)
{
	result_start(ws, out);
	model_loops_prepare(ws, m);
	if (model_check_count_range(ws, out) < 0)
		return -1;
	if (model_sparse_defers_fanout(ws))
		reserve_children(ws);
	else if (model_check_levels_fanout(ws, out) < 0)
		return -1;
	/* the fast path sets every tile of the nest it keeps (fast_sizes()) */
	if (ws->opt.no_fast_path || model_nest_fast(ws) < 0) {
		nest_clear(ws);
		model_nest_walk(ws);
		out->nest_walked = true;
	} else if (ws->opt.check_fast_path) {
		check_fast_path(ws);
	}
	model_collapse(ws, out);
	if (model_sparse_hook(ws, out) < 0)
		return -1;
	if (ws->sp && model_check_format_bits(ws, out) < 0)
		return -1;
	if (model_check_levels(ws, out) < 0)
		return -1;
	if (model_gpu_warps(ws, out) < 0)
		return -1;
	model_eval_compute(ws, out);
	model_gpu_tile_overheads(ws, out);
	model_eval_levels(ws, out);
	if (out->status != EVAL_OK)   /* a level's cycles past 2^64 - 1 */
		return -1;
	model_eval_totals(ws, out);
	return 0;
}

int model_check_capacity(struct model_ws *ws, const struct spec_mapping *m,
			 struct model_result *out)
{
	unsigned l, pv;

	result_start(ws, out);
	model_loops_prepare(ws, m);
	if (!model_sparse_defers_fanout(ws) && model_check_levels_fanout(ws, out) < 0)
		return -1;
	for (l = 0; l < ws->n_levels; l++) {
		const uint64_t *ext = ws->loops[ws->lv[l].boundary].extent;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			t->is_kept = ws->m->levels[l].keep_mask & (1u << pv);
			t->utilized_capacity = t->is_kept && !model_sparse_has_format(ws, l, pv) ?
					       model_tile_words(ws, pv, ext) : 0;
		}
	}
	return model_check_levels(ws, out);
}
