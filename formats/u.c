/*
 * U: an uncompressed rank without metadata. Every fiber position is stored
 * and elements are found by offset arithmetic, so nothing but the data (or
 * the next rank) is stored: no metadata, no payload units.
 */
#include "formats/format_int.h"

static struct fmt_rank_occupancy u_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o = { q->n_fibers, 0.0, 0.0 };
	return o;
}

const struct fmt_ops fmt_u_ops = {
	.kind = FMT_U, .name = "u", .compressed = false, .implicit = true,
	.default_metadata_word_bits = 0, .occupancy = u_occupancy,
};
