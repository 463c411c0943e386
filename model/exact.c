/*
 * Exact footprints (MODEL_FOOTPRINT_EXACT) through poly/: the number of
 * tensor points an op-space box touches, holes excluded.
 */
#include "model/model_int.h"

int fp_init(struct model_ws *ws)
{
	ws->poly = NULL;
	return -1;
}

void fp_release(struct model_ws *ws)
{
	ws->poly = NULL;
}

uint64_t fp_exact_size(struct poly_bridge *pb, unsigned pv, const int64_t *op_lo,
		       const uint64_t *op_ext)
{
	(void)pb; (void)pv; (void)op_lo; (void)op_ext;
	return 0;
}

uint64_t fp_exact_delta(struct poly_bridge *pb, unsigned pv, const int64_t *new_lo,
			const uint64_t *new_ext, const int64_t *old_lo, const uint64_t *old_ext)
{
	(void)pb; (void)pv; (void)new_lo; (void)new_ext; (void)old_lo; (void)old_ext;
	return 0;
}
