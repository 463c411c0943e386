/*
 * The ops table, word bits, and the per-tile walk over ranks (semantics
 * 4.3.2 and 4.3.3).
 */
#include "formats/format.h"

#include <math.h>

#include "formats/format_int.h"
#include "util/xalloc.h"

static const struct fmt_ops *const ops[] = {
	[FMT_U] = &fmt_u_ops,
	[FMT_UOP] = &fmt_uop_ops,
	[FMT_CP] = &fmt_cp_ops,
	[FMT_B] = &fmt_b_ops,
	[FMT_RLE] = &fmt_rle_ops,
	[FMT_UB] = &fmt_ub_ops,
};
_Static_assert(ARRAY_SIZE(ops) == FMT_COUNT, "one model per rank format");

const struct fmt_ops *fmt_get(enum fmt_kind kind)
{
	if ((unsigned)kind >= ARRAY_SIZE(ops))
		BUG("bad format kind %d", (int)kind);
	return ops[kind];
}

enum fmt_bits_status fmt_word_bits(enum fmt_kind kind, bool is_metadata, int spec_bits,
				   unsigned level_default_bits, unsigned storage_width_bits,
				   unsigned *out)
{
	unsigned bits;

	if (spec_bits < 0) {
		bits = level_default_bits;
		if (is_metadata && fmt_get(kind)->default_metadata_word_bits)
			bits = fmt_get(kind)->default_metadata_word_bits;
		*out = bits;
		return FMT_BITS_OK;
	}
	bits = (unsigned)spec_bits;
	*out = bits;
	if (bits == 0 || storage_width_bits == 0)
		return FMT_BITS_OK;
	if (bits > storage_width_bits)
		return FMT_BITS_TOO_WIDE;
	if (storage_width_bits % bits == 0)
		return FMT_BITS_OK;
	while (storage_width_bits % bits != 0)
		bits++;
	*out = bits;
	return FMT_BITS_ADJUSTED;
}

/* True when rank 'r' of 'lay' is skipped: fiber shape 1 and not the top rank. */
static bool rank_is_empty(const struct fmt_layout *lay, unsigned r)
{
	unsigned top = lay->inner_to_outer ? 0 : lay->n_ranks - 1;
	return lay->fiber_shape[r] == 1 && r != top;
}

void fmt_tile_occupancy(const struct fmt_layout *lay, double p_empty_data,
			const double *p_empty_sub, struct fmt_tile_occupancy *out)
{
	double n_fibers = 1.0;
	unsigned r;
	int innermost = -1;

	if (lay->n_ranks == 0 || lay->n_ranks > SPEC_MAX_FMT_RANKS)
		BUG("layout with %u ranks", lay->n_ranks);
	out->n_ranks = lay->n_ranks;
	for (r = lay->n_ranks; r-- > 0;) {
		struct fmt_rank_query q;

		q.fiber_shape = lay->fiber_shape[r];
		q.n_fibers = n_fibers;
		q.p_empty_cur = r == lay->n_ranks - 1 ? p_empty_data : p_empty_sub[r + 1];
		q.p_empty_next = p_empty_sub[r];
		q.fixed_coords = lay->fixed_coords[r];
		out->empty[r] = rank_is_empty(lay, r);
		if (out->empty[r]) {
			out->rank[r] = (struct fmt_rank_occupancy){ 0.0, 0.0, 0.0 };
		} else {
			out->rank[r] = fmt_get(lay->kind[r])->occupancy(&q);
			innermost = (int)r;
		}
		n_fibers *= (double)lay->fiber_shape[r];
	}
	if (innermost >= 0)
		out->rank[innermost].payload_units = 0.0;
}

double fmt_tile_bits(const struct fmt_layout *lay, const struct fmt_tile_occupancy *occ,
		     bool ceil_units)
{
	double bits = 0.0;
	unsigned r;

	for (r = 0; r < occ->n_ranks; r++) {
		double md = occ->rank[r].metadata_units, pl = occ->rank[r].payload_units;
		if (ceil_units) {
			md = ceil(md);
			pl = ceil(pl);
		}
		bits += md * lay->metadata_word_bits[r] + pl * lay->payload_word_bits[r];
	}
	return bits;
}

/* Add 'w' times the occupancy of a tile holding 'n' non-zeros to '*acc'. */
static void accumulate_metadata(const struct fmt_layout *lay, uint64_t n, double w,
				fmt_p_empty_fn p_empty, void *ctx, struct fmt_tile_occupancy *acc)
{
	double p_sub[SPEC_MAX_FMT_RANKS];
	struct fmt_tile_occupancy occ;
	unsigned r;

	for (r = 0; r < lay->n_ranks; r++)
		p_sub[r] = p_empty(ctx, r, n);
	fmt_tile_occupancy(lay, p_empty(ctx, lay->n_ranks, n), p_sub, &occ);
	for (r = 0; r < lay->n_ranks; r++) {
		acc->rank[r].fibers += w * occ.rank[r].fibers;
		acc->rank[r].metadata_units += w * occ.rank[r].metadata_units;
		acc->rank[r].payload_units += w * occ.rank[r].payload_units;
		acc->empty[r] = occ.empty[r];
	}
}

void fmt_expected_occupancy(const struct fmt_layout *lay, uint64_t n_min, size_t n_probs,
			    const double *probs, bool drop_empty, fmt_p_empty_fn p_empty,
			    void *ctx, struct fmt_expected *out)
{
	size_t i, first = n_probs;
	double scale = 1.0;

	*out = (struct fmt_expected){ .keep_ratio = 1.0 };
	out->metadata.n_ranks = lay ? lay->n_ranks : 0;
	for (i = 0; i < n_probs && first == n_probs; i++)
		if (probs[i] != 0.0)
			first = i;
	if (first == n_probs)
		return;
	drop_empty = drop_empty && n_min + first == 0;   /* only P(0): see format.h */
	if (drop_empty) {
		out->keep_ratio = 1.0 - probs[first];
		if (out->keep_ratio <= 0.0)
			return;
		scale = 1.0 / out->keep_ratio;
	}
	for (i = first; i < n_probs; i++) {
		double w = probs[i] * scale;
		if (probs[i] == 0.0 || (drop_empty && i == first))
			continue;
		out->data_occupancy += w * (double)(n_min + i);
		if (lay)
			accumulate_metadata(lay, n_min + i, w, p_empty, ctx, &out->metadata);
	}
}

bool fmt_any_compressed(const enum fmt_kind *kinds, unsigned n)
{
	unsigned r;

	for (r = 0; r < n; r++)
		if (fmt_get(kinds[r])->compressed)
			return true;
	return false;
}

bool fmt_has_metadata(const enum fmt_kind *kinds, unsigned n)
{
	if (n == 0)
		return false;
	return fmt_any_compressed(kinds, n) || n > 1 || !fmt_get(kinds[0])->implicit;
}

bool fmt_compressed_above_uncompressed(const enum fmt_kind *kinds, unsigned n)
{
	bool uncompressed_below = false;
	unsigned r;

	for (r = 0; r < n; r++) {
		bool c = fmt_get(kinds[r])->compressed;
		if (c && uncompressed_below)
			return true;
		if (!c)
			uncompressed_below = true;
	}
	return false;
}
