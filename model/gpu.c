/*
 * What a GPU kernel does that a Timeloop nest does not say (docs/model.md,
 * "GPUs"): the warps a level's tile is held by (warp_registers) and the
 * prologue and epilogue of a thread block that are not overlapped with its
 * main loop (serial_prologue_epilogue). Both run between the checks and
 * the evaluation of the levels; a design without the attributes is not
 * touched.
 */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- warps */

/*
 * A warp's registers: its share of the read-write tensor (the accumulators,
 * one 32-bit register each: fp32 for fp16/bf16/tf32 operands, int32 for
 * int8) plus its operand fragments, which CUTLASS's warp-level pipeline
 * double-buffers (MmaMultistage: warp_loaded_frag_A[2], _B[2]) and packs
 * 32 / word_bits to a register, plus a compressed operand's format
 * (metadata and payload bits, 32 to a register), double-buffered too: the
 * E operand of a 2:4 kernel (SparseMmaMultistage: warp_frag_E[2]), which
 * every warp loads from shared memory beside its A fragment.
 */
struct warp_plan {
	unsigned n_dims;
	uint8_t dim[SPEC_MAX_DIMS];       /* dimensions of the read-write tensor the level loops over */
	uint64_t end[SPEC_MAX_DIMS];      /* the level's temporal trips over each */
	uint64_t split[SPEC_MAX_DIMS];    /* warps along each (divides 'end') */
	uint64_t best[SPEC_MAX_DIMS];
	double best_cost;
	bool found;
};

/* Warps that read their own copy of tensor 'pv' under 'split': those along the dims it does not index. */
static uint64_t duplicates(const struct model_ws *ws, unsigned pv, const struct warp_plan *wp,
			   const uint64_t *split)
{
	uint64_t dup = 1;
	unsigned i;

	for (i = 0; i < wp->n_dims; i++)
		if (!(ws->proj[pv].dim_mask & (1u << wp->dim[i])))
			dup *= split[i];
	return dup;
}

/* The bits of a tile's representation format (metadata and payload of every rank). */
static double format_bits(const struct model_tile *t)
{
	double bits = 0;
	unsigned r;

	if (!t->has_metadata)
		return 0;
	for (r = 0; r < t->n_fmt_ranks && r < MODEL_MAX_FMT_RANKS; r++)
		bits += (double)t->fmt_capacity[r][0] * t->fmt_md_bits[r] +
			(double)t->fmt_capacity[r][1] * t->fmt_pl_bits[r];
	return bits;
}

/* The registers one warp needs under 'split' at level l, whose read-write tensor is 'z'. */
static double warp_regs(const struct model_ws *ws, const struct model_result *out, unsigned l,
			unsigned z, const struct warp_plan *wp, const uint64_t *split)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	double warps = 1, regs, per_reg = 32.0 / (double)(lvl->word_bits ? lvl->word_bits : 32);
	unsigned i, pv;

	for (i = 0; i < wp->n_dims; i++)
		warps *= (double)split[i];
	regs = (double)out->tiles[l][z].utilized_capacity / warps;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		double share = 1;
		if (pv == z || !t->is_kept)
			continue;
		for (i = 0; i < wp->n_dims; i++)
			if (ws->proj[pv].dim_mask & (1u << wp->dim[i]))
				share *= (double)split[i];
		regs += 2.0 * ((double)t->utilized_capacity / per_reg + format_bits(t) / 32.0) / share;
	}
	return regs;
}

/* The words the warps' own reads add at the parents, relative to one reader per tile. */
static double split_cost(const struct model_ws *ws, const struct model_result *out, unsigned l,
			 unsigned z, const struct warp_plan *wp, const uint64_t *split)
{
	double cost = 0;
	unsigned pv;

	for (pv = 0; pv < ws->n_tensors; pv++)
		if (pv != z && out->tiles[l][pv].is_kept)
			cost += (double)out->tiles[l][pv].fills * (double)(duplicates(ws, pv, wp, split) - 1);
	return cost;
}

/* Every split of the level's trips over wp->dim[i..] (divisors), keeping the cheapest that fits. */
static void search_splits(const struct model_ws *ws, const struct model_result *out, unsigned l,
			  unsigned z, struct warp_plan *wp, unsigned i)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	uint64_t f;

	if (i == wp->n_dims) {
		double cost;
		if (warp_regs(ws, out, l, z, wp, wp->split) > (double)lvl->warp_registers)
			return;
		cost = split_cost(ws, out, l, z, wp, wp->split);
		if (!wp->found || cost < wp->best_cost) {
			wp->found = true;
			wp->best_cost = cost;
			for (f = 0; f < wp->n_dims; f++)
				wp->best[f] = wp->split[f];
		}
		return;
	}
	for (f = 1; f <= wp->end[i]; f++) {
		if (wp->end[i] % f)
			continue;
		wp->split[i] = f;
		search_splits(ws, out, l, z, wp, i + 1);
	}
}

/* Scale the reads tensor 'pv' makes of its parent, and its fills at level l, by 'k'. */
static void scale_fills(struct model_result *out, unsigned l, unsigned pv, uint64_t k)
{
	struct model_tile *t = &out->tiles[l][pv], *p;
	unsigned c, r, u;

	t->fills *= k;
	for (c = MODEL_OP_RANDOM_FILL; c <= MODEL_OP_SKIPPED_FILL; c++)
		t->actions[c] *= k;
	for (c = MODEL_OP_RANDOM_MD_FILL; c <= MODEL_OP_SKIPPED_MD_FILL; c++)
		t->actions[c] *= k;
	for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
		for (r = 0; r < t->n_fmt_ranks && r < MODEL_MAX_FMT_RANKS; r++)
			for (u = 0; u < 2; u++)
				t->fmt_access[MODEL_FMT_FILL][c][r][u] *= k;
	if (t->parent_level < 0)
		return;
	p = &out->tiles[t->parent_level][pv];
	p->reads *= k;
	for (c = MODEL_OP_RANDOM_READ; c <= MODEL_OP_SKIPPED_READ; c++)
		p->actions[c] *= k;
	for (c = MODEL_OP_RANDOM_MD_READ; c <= MODEL_OP_SKIPPED_MD_READ; c++)
		p->actions[c] *= k;
	for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
		for (r = 0; r < p->n_fmt_ranks && r < MODEL_MAX_FMT_RANKS; r++)
			for (u = 0; u < 2; u++)
				p->fmt_access[MODEL_FMT_READ][c][r][u] *= k;
}

/* The read-write tensor kept at level l, or -1. */
static int kept_output(const struct model_ws *ws, const struct model_result *out, unsigned l)
{
	unsigned pv;

	for (pv = 0; pv < ws->n_tensors; pv++)
		if (ws->proj[pv].read_write && out->tiles[l][pv].is_kept)
			return (int)pv;
	return -1;
}

/*
 * Warps (docs/model.md, "Warps"): a level with warp_registers R holds its
 * tile of the read-write tensor (the accumulators) in warps of at most R
 * registers each, split along the dimensions the level loops over. Each
 * warp loads its own operand fragments: a tensor is read from the parent
 * once per warp along the dimensions it does not index (A once per warp
 * along N, B once per warp along M). The split that adds the fewest reads
 * is taken; none fitting makes the mapping infeasible.
 */
int model_gpu_warps(struct model_ws *ws, struct model_result *out)
{
	unsigned l, i, pv;

	if (!ws->any_warps)   /* out->levels[].warps stay as result_start() cleared them */
		return 0;
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &ws->s->arch.levels[l];
		struct warp_plan wp;
		int z;

		out->levels[l].warps = 0;
		if (!lvl->warp_registers || (z = kept_output(ws, out, l)) < 0)
			continue;
		memset(&wp, 0, sizeof(wp));
		for (i = 0; i < ws->n_loops; i++) {
			const struct mloop *lp = &ws->loops[i];
			unsigned k;
			if (lp->level != l || lp->is_spatial || lp->end < 2 ||
			    !(ws->proj[z].dim_mask & (1u << lp->dim)))
				continue;
			for (k = 0; k < wp.n_dims && wp.dim[k] != lp->dim; k++)
				;
			if (k == wp.n_dims) {
				wp.dim[wp.n_dims] = lp->dim;
				wp.end[wp.n_dims++] = 1;
			}
			wp.end[k] *= lp->end;
		}
		search_splits(ws, out, l, (unsigned)z, &wp, 0);
		if (!wp.found)
			return model_result_fail(out, EVAL_OVER_CAPACITY, (int)l, z,
						 "no split of the tile of '%s' into warps of at most "
						 "%llu registers fits", lvl->name,
						 (unsigned long long)lvl->warp_registers);
		out->levels[l].warps = 1;
		for (i = 0; i < wp.n_dims; i++)
			out->levels[l].warps *= wp.best[i];
		for (pv = 0; pv < ws->n_tensors; pv++) {
			uint64_t dup;
			if ((int)pv == z || !out->tiles[l][pv].is_kept)
				continue;
			dup = duplicates(ws, pv, &wp, wp.best);
			if (dup > 1)
				scale_fills(out, l, pv, dup);
		}
	}
	return 0;
}

/* ------------------------------------------------- prologue and epilogue */

/*
 * Output tiles each instance of wave level w works through, one after the
 * other, per wave: the temporal loops above w from the innermost one over a
 * dimension of the read-write tensor outwards (a loop inside it, over the
 * reduction only, is the block's main loop; one outside revisits the tiles,
 * each visit a block of its own: a chunk of the grid, split-K partials).
 */
static uint64_t block_tiles(const struct model_ws *ws, unsigned w)
{
	uint64_t n = 1;
	uint32_t out_dims = 0;
	unsigned i, pv;
	bool started = false;

	for (pv = 0; pv < ws->n_tensors; pv++)
		if (ws->proj[pv].read_write)
			out_dims |= ws->proj[pv].dim_mask;
	for (i = 0; i < ws->n_loops; i++) {
		const struct mloop *lp = &ws->loops[i];
		if (lp->level <= w || lp->is_spatial)
			continue;
		if (!started && lp->end > 1 && (out_dims & (1u << lp->dim)))
			started = true;
		if (started)
			n *= lp->end;
	}
	return n;
}

/*
 * Prologue and epilogue of a thread block (docs/model.md, "Prologue and
 * epilogue"), per wave, when the wave level sets serial_prologue_epilogue:
 * the block waits for its first tiles before its first instruction
 * (CUTLASS's MmaMultistage prologue issues the first stages and waits for
 * the oldest before the main loop), one fill latency of every level from
 * the wave level down that has one; after its main loop it drains its
 * output tile through the wave level (EpilogueTensorOp: accumulators to
 * shared memory and back before the global stores), written and read once
 * at the level's bandwidth. Neither overlaps the main loop, and every
 * output tile an instance works through (block_tiles()) pays both.
 */
void model_gpu_tile_overheads(struct model_ws *ws, struct model_result *out)
{
	const struct spec_arch *a = &ws->s->arch;
	const struct spec_level *wl = NULL;
	uint64_t ext[SPEC_MAX_DIMS], words = 0;
	double c = 0;
	unsigned l, w = 0, pv, d;

	out->compute.prologue_cycles = out->compute.epilogue_cycles = 0;
	if (ws->wave_last >= 0) {
		w = (unsigned)ws->wave_last;
		wl = &a->levels[w];
	}
	out->compute.block_tiles = 1;
	if (!wl || !wl->serial_prologue_epilogue)
		return;
	out->compute.block_tiles = block_tiles(ws, w);
	for (l = 0; l <= w; l++)
		out->compute.prologue_cycles += a->levels[l].fill_latency_cycles;
	for (d = 0; d < ws->n_dims; d++)
		ext[d] = ws->loops[ws->lv[w].boundary].extent[d];
	for (pv = 0; pv < ws->n_tensors; pv++)
		if (ws->proj[pv].read_write)
			words += model_tile_words(ws, pv, ext);
	if (wl->has_shared_bw && wl->shared_bw_words_per_cycle > 0) {
		c = 2.0 * (double)words / wl->shared_bw_words_per_cycle;
	} else {
		if (wl->has_write_bw && wl->write_bw_words_per_cycle > 0)
			c += (double)words / wl->write_bw_words_per_cycle;
		if (wl->has_read_bw && wl->read_bw_words_per_cycle > 0)
			c += (double)words / wl->read_bw_words_per_cycle;
	}
	out->compute.epilogue_cycles = (uint64_t)ceil(c);
}
