/*
 * B: bitmask. Each non-empty fiber stores one bit per coordinate and the
 * payloads of its non-empty elements: F' = F (1 - P0(cur)), metadata F' f,
 * payload F' ceil(f (1 - P0(next))). Metadata words default to 1 bit.
 */
#include "formats/format_int.h"

#include <math.h>

static struct fmt_rank_occupancy b_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o;

	o.fibers = fmt_nonempty_fibers(q);
	o.metadata_units = o.fibers * (double)q->fiber_shape;
	o.payload_units = o.fibers * ceil(fmt_nonempty_elements(q));
	return o;
}

const struct fmt_ops fmt_b_ops = {
	.kind = FMT_B, .name = "b", .compressed = true, .implicit = false,
	.default_metadata_word_bits = 1, .occupancy = b_occupancy,
};
