/*
 * CP: coordinate payload. Each non-empty fiber lists the coordinate and the
 * payload of each of its non-empty elements: F' = F (1 - P0(cur)), metadata
 * = payload = F' ceil(f (1 - P0(next))). With a fixed width w (a
 * sparse_fixed axis: ELL) every fiber keeps min(w, f) coordinate slots,
 * padded, whether empty or not: F' = F, metadata = payload = F min(w, f).
 */
#include "formats/format_int.h"

#include <math.h>

static struct fmt_rank_occupancy cp_occupancy(const struct fmt_rank_query *q)
{
	struct fmt_rank_occupancy o;

	if (q->fixed_coords) {
		uint64_t w = q->fixed_coords < q->fiber_shape ? q->fixed_coords : q->fiber_shape;
		o.fibers = q->n_fibers;
		o.metadata_units = o.payload_units = q->n_fibers * (double)w;
		return o;
	}
	o.fibers = fmt_nonempty_fibers(q);
	o.metadata_units = o.fibers * ceil(fmt_nonempty_elements(q));
	o.payload_units = o.metadata_units;
	return o;
}

const struct fmt_ops fmt_cp_ops = {
	.kind = FMT_CP, .name = "cp", .compressed = true, .implicit = false,
	.default_metadata_word_bits = 0, .occupancy = cp_occupancy,
};
