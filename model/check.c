/*
 * Feasibility checks (semantics 3): the spatial fan-out a mapping needs
 * against each level's instances and mesh, and the kept tiles against each
 * level's effective size and min_utilization. An infeasible mapping is
 * recorded in the result (model_result_fail), not reported as an error.
 */
#include "model/model_int.h"

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
		need += t->utilized_capacity;
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

int model_check_levels(struct model_ws *ws, struct model_result *out)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		if (check_capacity(ws, l, out) < 0)
			return -1;
	return 0;
}
