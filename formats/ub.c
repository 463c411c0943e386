/*
 * UB: uncompressed bitmask. Every fiber position, empty or not, stores one
 * bit and one payload per coordinate: F' = F, metadata = payload = F f.
 */
#include "formats/format_int.h"

static struct fmt_rank_occupancy ub_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o;

	o.fibers = q->n_fibers;
	o.metadata_units = q->n_fibers * (double)q->fiber_shape;
	o.payload_units = o.metadata_units;
	return o;
}

const struct fmt_ops fmt_ub_ops = {
	.kind = FMT_UB, .name = "ub", .compressed = false, .implicit = false,
	.default_metadata_word_bits = 0, .occupancy = ub_occupancy,
};
