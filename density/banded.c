/*
 * Banded density (semantics 4.2): a 2-D tensor whose non-zeros are exactly
 * the points with |row - col| <= w. A tile shape cuts the tensor into a grid
 * (edge tiles clipped); the count of every grid tile near the band is
 * computed in closed form, every other tile is empty.
 */
#include "density/density_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* sum over r in [lo, hi] of clamp(r + off, 0, w). */
static __int128 sum_clamp(int64_t lo, int64_t hi, int64_t off, int64_t w)
{
	__int128 sum = 0;
	int64_t a = lo > -off + 1 ? lo : -off + 1;
	int64_t b = hi < w - off - 1 ? hi : w - off - 1;
	int64_t c = lo > w - off ? lo : w - off;

	if (a <= b)
		sum += (__int128)((a + off) + (b + off)) * (b - a + 1) / 2;
	if (c <= hi)
		sum += (__int128)w * (hi - c + 1);
	return sum;
}

/* Number of points (r, c) of [r0, r1] x [c0, c1] with c - r <= k. */
static __int128 count_below(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t k)
{
	return sum_clamp(r0, r1, k - c0 + 1, c1 - c0 + 1);
}

/* Non-zeros of the banded pattern (width 'w') in rows [r0, r1] and columns [c0, c1]. */
static uint64_t count_rect(uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1, uint64_t w)
{
	int64_t k = (int64_t)w;

	return (uint64_t)(count_below((int64_t)r0, (int64_t)r1, (int64_t)c0, (int64_t)c1, k) -
			  count_below((int64_t)r0, (int64_t)r1, (int64_t)c0, (int64_t)c1, -k - 1));
}

double density_banded_global(const struct density_model *m)
{
	if (m->size == 0)
		return 0.0;
	return (double)count_rect(0, m->shape[0] - 1, 0, m->shape[1] - 1, m->spec.band_width) /
	       (double)m->size;
}

/* A grid tile: rows [r0, r1], columns [c0, c1] (inclusive). */
struct rect {
	uint64_t r0, r1, c0, c1;
};

typedef void (*tile_fn)(void *ctx, const struct rect *t, uint64_t count);

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Call 'fn' on every tile of the (a x b) grid of 'area' that may hold a
 * non-zero, with its count; return how many tiles were visited.
 */
static uint64_t for_band_tiles(const struct density_model *m, const struct rect *area,
			       uint64_t a, uint64_t b, tile_fn fn, void *ctx)
{
	uint64_t w = m->spec.band_width, visited = 0, r0, c0;

	for (r0 = area->r0; r0 <= area->r1; r0 += a) {
		uint64_t r1 = min_u64(r0 + a - 1, area->r1);
		uint64_t lo = r0 > w ? r0 - w : 0, hi = r1 + w;
		if (lo < area->c0)
			lo = area->c0;
		if (hi > area->c1)
			hi = area->c1;
		if (lo > hi)
			continue;
		for (c0 = area->c0 + (lo - area->c0) / b * b; c0 <= hi; c0 += b) {
			struct rect t = { r0, r1, c0, min_u64(c0 + b - 1, area->c1) };
			fn(ctx, &t, count_rect(t.r0, t.r1, t.c0, t.c1, w));
			visited++;
		}
	}
	return visited;
}

/* Number of tiles of an (a x b) grid over 'area'. */
static uint64_t n_tiles(const struct rect *area, uint64_t a, uint64_t b)
{
	return ((area->r1 - area->r0) / a + 1) * ((area->c1 - area->c0) / b + 1);
}

/* Histogram accumulation: one more tile holding 'count'. */
static void hist_add(void *ctx, const struct rect *t, uint64_t count)
{
	struct density_dist *h = ctx, one = DENSITY_DIST_INIT;

	if (h->n && count >= h->lo && count - h->lo < h->n) {
		h->p[count - h->lo] += 1.0;
		return;
	}
	density_dist_point(&one, count);
	density_dist_add(ctx, &one, 1.0);
	density_dist_release(&one);
}

/* The children of one parent tile holding exactly the wanted count. */
struct parent_ctx {
	const struct density_model *m;
	uint64_t a, b, want;
	struct density_dist hist;
	double n_children;
};

static void parent_visit(void *vctx, const struct rect *t, uint64_t count)
{
	struct parent_ctx *pc = vctx;

	if (count != pc->want)
		return;
	pc->n_children += (double)n_tiles(t, pc->a, pc->b);
	for_band_tiles(pc->m, t, pc->a, pc->b, hist_add, &pc->hist);
}

/* Add the empty tiles: 'total' tiles in all, the histogram holds the rest. */
static void add_empty(struct density_dist *hist, double total)
{
	struct density_dist zero = DENSITY_DIST_INIT;
	double seen = 0.0;
	size_t i;

	for (i = 0; i < hist->n; i++)
		seen += hist->p[i];
	if (total > seen) {
		density_dist_point(&zero, 0);
		density_dist_add(hist, &zero, total - seen);
		density_dist_release(&zero);
	}
	density_dist_scale(hist, total);
	density_dist_trim(hist);
}

static void banded_distribution(const struct density_model *m, const struct density_tile *t,
				const struct density_constraint *c, struct density_dist *out)
{
	struct rect all = { 0, m->shape[0] - 1, 0, m->shape[1] - 1 };
	struct parent_ctx pc;

	density_dist_release(out);
	if (!c) {
		for_band_tiles(m, &all, t->extent[0], t->extent[1], hist_add, out);
		add_empty(out, (double)n_tiles(&all, t->extent[0], t->extent[1]));
		return;
	}
	if (c->occupancy == 0) {
		density_dist_point(out, 0);
		return;
	}
	memset(&pc, 0, sizeof(pc));
	pc.m = m;
	pc.a = t->extent[0];
	pc.b = t->extent[1];
	pc.want = c->occupancy;
	for_band_tiles(m, &all, c->parent.extent[0], c->parent.extent[1], parent_visit, &pc);
	if (pc.n_children == 0.0) {
		uint64_t pop = density_tile_size(&c->parent);
		density_hg_dist(pop, c->occupancy < pop ? c->occupancy : pop,
				density_tile_size(t), out);
		return;
	}
	add_empty(&pc.hist, pc.n_children);
	*out = pc.hist;
}

const struct density_kind_ops density_banded_ops = { .distribution = banded_distribution };
