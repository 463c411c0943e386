/*
 * Exact footprints (MODEL_FOOTPRINT_EXACT) through poly/: the number of
 * tensor points an op-space box touches, holes excluded. One poly context
 * per workspace (workspaces are per thread, as poly contexts must be).
 */
#include "model/model_int.h"

#include <stdlib.h>

#include "poly/footprint.h"
#include "util/xalloc.h"

struct poly_bridge {
	struct poly_ctx *pc;
	struct poly_tensor *pt[SPEC_MAX_TENSORS];
	unsigned n_tensors, n_dims;
};

int model_fp_init(struct model_ws *ws)
{
	struct poly_bridge *pb = xcalloc(1, sizeof(*pb));
	unsigned pv;

	pb->pc = poly_ctx_new();
	pb->n_tensors = ws->n_tensors;
	pb->n_dims = ws->n_dims;
	for (pv = 0; pv < ws->n_tensors; pv++)
		pb->pt[pv] = poly_tensor_new(pb->pc, &ws->s->workload, pv);
	ws->poly = pb;
	return 0;
}

void model_fp_release(struct model_ws *ws)
{
	struct poly_bridge *pb = ws->poly;
	unsigned pv;

	if (!pb)
		return;
	for (pv = 0; pv < pb->n_tensors; pv++)
		poly_tensor_free(pb->pt[pv]);
	poly_ctx_free(pb->pc);
	free(pb);
	ws->poly = NULL;
}

/* Inclusive upper corner of the box (lo, ext). */
static void box_hi(unsigned n_dims, const int64_t *lo, const uint64_t *ext, int64_t *hi)
{
	unsigned d;

	for (d = 0; d < n_dims; d++)
		hi[d] = lo[d] + (ext[d] ? (int64_t)ext[d] - 1 : 0);
}

uint64_t model_fp_exact_size(struct poly_bridge *pb, unsigned pv, const int64_t *op_lo,
			     const uint64_t *op_ext)
{
	int64_t hi[SPEC_MAX_DIMS];

	box_hi(pb->n_dims, op_lo, op_ext, hi);
	return poly_footprint_size(pb->pt[pv], op_lo, hi);
}

uint64_t model_fp_exact_delta(struct poly_bridge *pb, unsigned pv, const int64_t *new_lo,
			      const uint64_t *new_ext, const int64_t *old_lo, const uint64_t *old_ext)
{
	int64_t hn[SPEC_MAX_DIMS], ho[SPEC_MAX_DIMS];

	box_hi(pb->n_dims, new_lo, new_ext, hn);
	box_hi(pb->n_dims, old_lo, old_ext, ho);
	return poly_delta_size(pb->pt[pv], new_lo, hn, old_lo, ho);
}
