/*
 * UOP: uncompressed offset pairs (the upper rank of CSR). Each non-empty
 * fiber stores f + 1 offsets into the next rank: F' = F (1 - P0(cur)),
 * metadata 0, payload F' (f + 1).
 */
#include "formats/format_int.h"

static struct fmt_rank_occupancy uop_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o;

	o.fibers = fmt_nonempty_fibers(q);
	o.metadata_units = 0.0;
	o.payload_units = o.fibers * ((double)q->fiber_shape + 1.0);
	return o;
}

const struct fmt_ops fmt_uop_ops = {
	.kind = FMT_UOP, .name = "uop", .compressed = false, .implicit = false,
	.default_metadata_word_bits = 0, .occupancy = uop_occupancy,
};
