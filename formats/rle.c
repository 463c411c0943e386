/*
 * RLE: run-length encoding. Each non-empty element of a non-empty fiber has
 * a run length and a payload: F' = F (1 - P0(cur)), metadata = payload =
 * F' f (1 - P0(next)), an expectation without rounding (unlike CP).
 */
#include "formats/format_int.h"

static struct fmt_rank_occupancy rle_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o;

	o.fibers = fmt_nonempty_fibers(q);
	o.metadata_units = o.fibers * fmt_nonempty_elements(q);
	o.payload_units = o.metadata_units;
	return o;
}

const struct fmt_ops fmt_rle_ops = {
	.kind = FMT_RLE, .name = "rle", .compressed = true, .implicit = false,
	.default_metadata_word_bits = 0, .occupancy = rle_occupancy,
};
