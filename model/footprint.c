/*
 * Tile footprints: the image of an op-space box on a tensor.
 *
 * Timeloop's default (semantics 1.3) projects a box rank by rank to the
 * convex hull [sum lo*c, sum hi*c], so a strided convolution's input tile
 * counts its holes. MODEL_FOOTPRINT_EXACT counts the points actually
 * touched, through poly/ (isl behind integer functions).
 */
#include "model/model_int.h"

#include "util/xalloc.h"

void model_proj_box(const struct proj *p, const int64_t *op_lo, const uint64_t *op_ext,
		    struct tbox *out)
{
	unsigned r, t;

	for (r = 0; r < p->n_ranks; r++) {
		const struct proj_rank *pr = &p->ranks[r];
		int64_t lo = 0, hi = 0;
		for (t = 0; t < pr->n_terms; t++) {
			int64_t c = pr->coef[t];
			int64_t a = op_lo[pr->dim[t]];
			int64_t b = a + (int64_t)op_ext[pr->dim[t]] - 1;
			if (c >= 0) {
				lo += c * a;
				hi += c * b;
			} else {
				lo += c * b;
				hi += c * a;
			}
		}
		out->lo[r] = lo;
		out->ext[r] = hi - lo + 1;
	}
}

uint64_t model_tbox_size(const struct tbox *b, unsigned n_ranks)
{
	uint64_t n = 1;
	unsigned r;

	for (r = 0; r < n_ranks; r++)
		n *= (uint64_t)b->ext[r];
	return n;
}

uint64_t model_proj_extents(const struct proj *p, const uint64_t *op_ext, uint64_t *ext)
{
	uint64_t n = 1;
	unsigned r, t;

	for (r = 0; r < p->n_ranks; r++) {
		const struct proj_rank *pr = &p->ranks[r];
		uint64_t e = 1;
		for (t = 0; t < pr->n_terms; t++)
			e += pr->abs_coef[t] * (op_ext[pr->dim[t]] - 1);
		ext[r] = e;
		n *= e;
	}
	return n;
}

uint64_t model_fp_size(struct model_ws *ws, unsigned pv, const int64_t *op_lo,
		       const uint64_t *op_ext)
{
	uint64_t ext[SPEC_MAX_TENSOR_RANKS];

	if (ws->poly)
		return model_fp_exact_size(ws->poly, pv, op_lo, op_ext);
	return model_proj_extents(&ws->proj[pv], op_ext, ext);
}

uint64_t model_tile_words(struct model_ws *ws, unsigned tensor, const uint64_t *op_ext)
{
	static const int64_t zero_lo[SPEC_MAX_DIMS];

	return model_fp_size(ws, tensor, zero_lo, op_ext);
}

/* Points shared by two hull boxes. */
static uint64_t tbox_overlap(const struct tbox *a, const struct tbox *b, unsigned n_ranks)
{
	uint64_t n = 1;
	unsigned r;

	for (r = 0; r < n_ranks; r++) {
		int64_t lo = a->lo[r] > b->lo[r] ? a->lo[r] : b->lo[r];
		int64_t ha = a->lo[r] + a->ext[r], hb = b->lo[r] + b->ext[r];
		int64_t hi = ha < hb ? ha : hb;
		if (hi <= lo)
			return 0;
		n *= (uint64_t)(hi - lo);
	}
	return n;
}

uint64_t model_fp_delta(struct model_ws *ws, unsigned pv, const int64_t *new_lo,
			const uint64_t *new_ext, const int64_t *old_lo, const uint64_t *old_ext)
{
	const struct proj *p = &ws->proj[pv];
	struct tbox a, b;

	if (ws->poly)
		return model_fp_exact_delta(ws->poly, pv, new_lo, new_ext, old_lo, old_ext);
	model_proj_box(p, new_lo, new_ext, &a);
	model_proj_box(p, old_lo, old_ext, &b);
	return model_tbox_size(&a, p->n_ranks) - tbox_overlap(&a, &b, p->n_ranks);
}
