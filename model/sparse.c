/*
 * The sparse hook (semantics 4.1), between collapse and evaluation.
 *
 * Every run starts from the dense defaults of semantics 3.1 and 4.1 step 1:
 * actual counts equal the algorithmic ones, tiles are full (occupancy =
 * shape, density 1), the average replication is the replication. A run
 * whose sparse_optimizations list nothing stops there (dense numbers, sparse
 * print layout). The sparse analysis proper (formats, SAFs, compute classes)
 * plugs in after sparse_dense_defaults().
 */
#include "model/model_int.h"

#include <string.h>

/* Dense defaults of every tile and of the arithmetic level. */
static void sparse_dense_defaults(struct model_ws *ws, struct model_result *out)
{
	struct model_compute *mc = &out->compute;
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			t->density_name = ws->density_name[pv];
			t->vector_ratio = 1.0;
			if (!t->is_kept)
				continue;
			t->actions[MODEL_OP_RANDOM_READ] = t->reads;
			t->actions[MODEL_OP_RANDOM_FILL] = t->fills;
			t->actions[MODEL_OP_RANDOM_UPDATE] = t->updates;
			t->utilized_capacity = t->shape;
			t->expected_occupancy = (double)t->shape;
			t->expected_density = t->shape ? 1.0 : 0.0;
		}
	}
	memset(mc, 0, sizeof(*mc));
	mc->accesses = ws->nest.compute_accesses;
	mc->avg_replication = ws->compute_replication;
	mc->algorithmic = (uint64_t)(ws->compute_replication * (double)mc->accesses);
	mc->random = mc->algorithmic;
}

int sparse_hook(struct model_ws *ws, struct model_result *out)
{
	sparse_dense_defaults(ws, out);
	return 0;
}
