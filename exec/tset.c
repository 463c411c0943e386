/*
 * Tile sets: products of per-rank coordinate sets (intervals for hull
 * footprints, bitsets for exact ones) and the set algebra the executor
 * needs: sizes, intersections, canonical differences and their points.
 */
#include "exec/exec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/xalloc.h"

#define WORD_BITS 64

void exec_tlayout_init(struct tlayout *tl, const struct xgeom *g, bool exact)
{
	unsigned r, off = 0;

	memset(tl, 0, sizeof(*tl));
	tl->n_ranks = g->n_ranks;
	tl->exact = exact;
	for (r = 0; r < g->n_ranks; r++) {
		tl->extent[r] = g->extent[r];
		tl->word_off[r] = off;
		if (exact)
			off += (unsigned)((g->extent[r] + WORD_BITS - 1) / WORD_BITS);
	}
	tl->word_off[g->n_ranks] = off;
}

static unsigned n_words(const struct tlayout *tl)
{
	return tl->word_off[tl->n_ranks];
}

void exec_tset_array_init(struct tset *ts, size_t n, const struct tlayout *tl)
{
	size_t i;
	uint64_t *block = NULL;

	if (tl->exact && n_words(tl))
		block = xcalloc(n * n_words(tl), sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		memset(&ts[i], 0, sizeof(ts[i]));
		ts[i].empty = true;
		ts[i].bits = block ? block + i * n_words(tl) : NULL;
	}
}

void exec_tset_array_release(struct tset *ts, size_t n)
{
	if (n && ts[0].bits)
		free(ts[0].bits);
}

static uint64_t *rank_bits(const struct tset *a, const struct tlayout *tl, unsigned r)
{
	return a->bits + tl->word_off[r];
}

static unsigned rank_words(const struct tlayout *tl, unsigned r)
{
	return tl->word_off[r + 1] - tl->word_off[r];
}

/* Set the bounding interval of rank 'r' of 'a' from its bits; false if empty. */
static bool fix_bounds(struct tset *a, const struct tlayout *tl, unsigned r)
{
	const uint64_t *b = rank_bits(a, tl, r);
	unsigned w, nw = rank_words(tl, r);
	int64_t lo = -1, hi = -1;

	for (w = 0; w < nw; w++) {
		if (!b[w])
			continue;
		if (lo < 0)
			lo = (int64_t)w * WORD_BITS + __builtin_ctzll(b[w]);
		hi = (int64_t)w * WORD_BITS + 63 - __builtin_clzll(b[w]);
	}
	a->lo[r] = lo;
	a->hi[r] = hi;
	return lo >= 0;
}

static void set_bit(uint64_t *b, uint64_t i)
{
	b[i / WORD_BITS] |= 1ull << (i % WORD_BITS);
}

/* Exact rank 'r': every value of sum(coef * x) - origin over the op box. */
static void project_rank_exact(struct tset *ts, const struct tlayout *tl, const struct xgeom *g,
			       unsigned r, const int64_t *op_lo, const int64_t *op_hi)
{
	const struct spec_rank_proj *pr = &g->proj[r];
	uint64_t *b = rank_bits(ts, tl, r);
	int64_t idx[SPEC_MAX_TERMS];
	unsigned t, n = pr->n_terms;

	memset(b, 0, rank_words(tl, r) * sizeof(uint64_t));
	for (t = 0; t < n; t++)
		idx[t] = op_lo[pr->terms[t].dim];
	for (;;) {
		int64_t v = -g->origin[r];
		for (t = 0; t < n; t++)
			v += pr->terms[t].coef * idx[t];
		set_bit(b, (uint64_t)v);
		for (t = 0; t < n; t++) {
			if (idx[t] < op_hi[pr->terms[t].dim]) {
				idx[t]++;
				break;
			}
			idx[t] = op_lo[pr->terms[t].dim];
		}
		if (t == n)
			break;
	}
}

void exec_tset_project(struct tset *ts, const struct tlayout *tl, const struct xgeom *g,
		       const int64_t *op_lo, const int64_t *op_hi)
{
	unsigned r, t;

	ts->empty = false;
	for (r = 0; r < g->n_ranks; r++) {
		const struct spec_rank_proj *pr = &g->proj[r];
		int64_t lo = -g->origin[r], hi = -g->origin[r];
		for (t = 0; t < pr->n_terms; t++) {
			int64_t c = pr->terms[t].coef;
			unsigned d = pr->terms[t].dim;
			lo += c >= 0 ? c * op_lo[d] : c * op_hi[d];
			hi += c >= 0 ? c * op_hi[d] : c * op_lo[d];
		}
		ts->lo[r] = lo;
		ts->hi[r] = hi;
		if (tl->exact)
			project_rank_exact(ts, tl, g, r, op_lo, op_hi);
	}
}

static uint64_t rank_size(const struct tset *a, const struct tlayout *tl, unsigned r)
{
	uint64_t n = 0;
	unsigned w;

	if (!tl->exact)
		return (uint64_t)(a->hi[r] - a->lo[r] + 1);
	for (w = 0; w < rank_words(tl, r); w++)
		n += (uint64_t)__builtin_popcountll(rank_bits(a, tl, r)[w]);
	return n;
}

uint64_t exec_tset_size(const struct tset *a, const struct tlayout *tl)
{
	uint64_t n = 1;
	unsigned r;

	if (a->empty)
		return 0;
	for (r = 0; r < tl->n_ranks; r++)
		n *= rank_size(a, tl, r);
	return n;
}

static uint64_t rank_inter_size(const struct tset *a, const struct tset *b,
				const struct tlayout *tl, unsigned r)
{
	int64_t lo = a->lo[r] > b->lo[r] ? a->lo[r] : b->lo[r];
	int64_t hi = a->hi[r] < b->hi[r] ? a->hi[r] : b->hi[r];
	uint64_t n = 0;
	unsigned w;

	if (lo > hi)
		return 0;
	if (!tl->exact)
		return (uint64_t)(hi - lo + 1);
	for (w = (unsigned)(lo / WORD_BITS); w <= (unsigned)(hi / WORD_BITS); w++)
		n += (uint64_t)__builtin_popcountll(rank_bits(a, tl, r)[w] &
						    rank_bits(b, tl, r)[w]);
	return n;
}

uint64_t exec_tset_inter_size(const struct tset *a, const struct tset *b, const struct tlayout *tl)
{
	uint64_t n = 1;
	unsigned r;

	if (a->empty || b->empty)
		return 0;
	for (r = 0; r < tl->n_ranks && n; r++)
		n *= rank_inter_size(a, b, tl, r);
	return n;
}

static uint64_t rank_inter3_size(const struct tset *a, const struct tset *b,
				 const struct tset *c, const struct tlayout *tl, unsigned r)
{
	int64_t lo = a->lo[r], hi = a->hi[r];
	uint64_t n = 0;
	unsigned w;

	lo = b->lo[r] > lo ? b->lo[r] : lo;
	lo = c->lo[r] > lo ? c->lo[r] : lo;
	hi = b->hi[r] < hi ? b->hi[r] : hi;
	hi = c->hi[r] < hi ? c->hi[r] : hi;
	if (lo > hi)
		return 0;
	if (!tl->exact)
		return (uint64_t)(hi - lo + 1);
	for (w = (unsigned)(lo / WORD_BITS); w <= (unsigned)(hi / WORD_BITS); w++)
		n += (uint64_t)__builtin_popcountll(rank_bits(a, tl, r)[w] &
						    rank_bits(b, tl, r)[w] &
						    rank_bits(c, tl, r)[w]);
	return n;
}

uint64_t exec_tset_inter3_size(const struct tset *a, const struct tset *b, const struct tset *c,
			       const struct tlayout *tl)
{
	uint64_t n = 1;
	unsigned r;

	if (a->empty || b->empty || c->empty)
		return 0;
	for (r = 0; r < tl->n_ranks && n; r++)
		n *= rank_inter3_size(a, b, c, tl, r);
	return n;
}

static bool rank_equal(const struct tset *a, const struct tset *b, const struct tlayout *tl,
		       unsigned r)
{
	if (a->lo[r] != b->lo[r] || a->hi[r] != b->hi[r])
		return false;
	if (!tl->exact)
		return true;
	return !memcmp(rank_bits(a, tl, r), rank_bits(b, tl, r),
		       rank_words(tl, r) * sizeof(uint64_t));
}

bool exec_tset_equal(const struct tset *a, const struct tset *b, const struct tlayout *tl)
{
	unsigned r;

	if (a->empty || b->empty)
		return a->empty == b->empty;
	for (r = 0; r < tl->n_ranks; r++)
		if (!rank_equal(a, b, tl, r))
			return false;
	return true;
}

void exec_tset_copy(struct tset *dst, const struct tset *src, const struct tlayout *tl)
{
	uint64_t *bits = dst->bits;
	unsigned r;

	for (r = 0; r < tl->n_ranks; r++) {
		dst->lo[r] = src->lo[r];
		dst->hi[r] = src->hi[r];
	}
	dst->empty = src->empty;
	if (tl->exact && n_words(tl))
		memcpy(bits, src->bits, n_words(tl) * sizeof(uint64_t));
	dst->bits = bits;
}

/* Mean coordinate of rank 'r' of 'a' (non-empty). */
static double rank_mean(const struct tset *a, const struct tlayout *tl, unsigned r)
{
	double sum = 0;
	uint64_t n = 0;
	unsigned w;

	if (!tl->exact)
		return ((double)a->lo[r] + (double)a->hi[r]) / 2;
	for (w = 0; w < rank_words(tl, r); w++) {
		uint64_t x = rank_bits(a, tl, r)[w];
		while (x) {
			sum += (double)w * WORD_BITS + __builtin_ctzll(x);
			n++;
			x &= x - 1;
		}
	}
	return sum / (double)n;
}

void exec_tset_translation(const struct tset *a, const struct tset *b, const struct tlayout *tl,
			   int64_t *t)
{
	unsigned r;

	for (r = 0; r < tl->n_ranks; r++) {
		if (!tl->exact) {
			int64_t d2 = (b->lo[r] + b->hi[r]) - (a->lo[r] + a->hi[r]);
			t[r] = d2 >= 0 ? (d2 + 1) / 2 : -((-d2 + 1) / 2);
		} else {
			t[r] = llround(rank_mean(b, tl, r) - rank_mean(a, tl, r));
		}
	}
}

/* True when rank 'r' of 'w' is a subset of rank 'r' of 'l'. */
static bool rank_subset(const struct tset *w, const struct tset *l, const struct tlayout *tl,
			unsigned r)
{
	unsigned i;

	if (w->lo[r] < l->lo[r] || w->hi[r] > l->hi[r])
		return !tl->exact ? false : rank_inter_size(w, l, tl, r) == rank_size(w, tl, r);
	if (!tl->exact)
		return true;
	for (i = 0; i < rank_words(tl, r); i++)
		if (rank_bits(w, tl, r)[i] & ~rank_bits(l, tl, r)[i])
			return false;
	return true;
}

/* 'out' = a & b on every rank ('out' may alias neither). */
static void tset_intersect(struct tset *out, const struct tset *a, const struct tset *b,
			   const struct tlayout *tl)
{
	unsigned r, i;

	out->empty = a->empty || b->empty;
	for (r = 0; r < tl->n_ranks && !out->empty; r++) {
		out->lo[r] = a->lo[r] > b->lo[r] ? a->lo[r] : b->lo[r];
		out->hi[r] = a->hi[r] < b->hi[r] ? a->hi[r] : b->hi[r];
		if (out->lo[r] > out->hi[r]) {
			out->empty = true;
			break;
		}
		if (!tl->exact)
			continue;
		for (i = 0; i < rank_words(tl, r); i++)
			rank_bits(out, tl, r)[i] = rank_bits(a, tl, r)[i] & rank_bits(b, tl, r)[i];
		if (!fix_bounds(out, tl, r))
			out->empty = true;
	}
}

/* Rank 'r' of 'out' = hull (interval mode) or exact set of w_r - l_r. */
static void rank_difference(struct tset *out, const struct tset *w, const struct tset *l,
			    const struct tlayout *tl, unsigned r)
{
	unsigned i;

	if (tl->exact) {
		for (i = 0; i < rank_words(tl, r); i++)
			rank_bits(out, tl, r)[i] = rank_bits(w, tl, r)[i] & ~rank_bits(l, tl, r)[i];
		fix_bounds(out, tl, r);
		return;
	}
	out->lo[r] = w->lo[r] < l->lo[r] ? w->lo[r] : l->hi[r] + 1;
	out->hi[r] = w->hi[r] > l->hi[r] ? w->hi[r] : l->lo[r] - 1;
}

uint64_t exec_tset_diff_canon(const struct tset *w, const struct tset *l, const struct tlayout *tl,
			      struct tset *hull, struct tset *hole)
{
	uint64_t inter = exec_tset_inter_size(w, l, tl);
	unsigned r, n_out = 0, r0 = 0;

	hole->empty = true;
	if (!inter) {
		exec_tset_copy(hull, w, tl);
		return exec_tset_size(w, tl);
	}
	for (r = 0; r < tl->n_ranks; r++)
		if (!rank_subset(w, l, tl, r)) {
			n_out++;
			r0 = r;
		}
	if (n_out == 0) {
		hull->empty = true;
		return 0;
	}
	exec_tset_copy(hull, w, tl);
	if (n_out == 1)
		rank_difference(hull, w, l, tl, r0);
	tset_intersect(hole, hull, l, tl);
	return exec_tset_size(w, tl) - inter;
}

uint64_t exec_tset_hash(const struct tset *a, const struct tlayout *tl)
{
	uint64_t h = 0;
	unsigned r, i;

	if (a->empty)
		return 0;
	for (r = 0; r < tl->n_ranks; r++) {
		h = hash_combine(h, (uint64_t)a->lo[r]);
		h = hash_combine(h, (uint64_t)a->hi[r]);
		if (tl->exact)
			for (i = 0; i < rank_words(tl, r); i++)
				h = hash_combine(h, rank_bits(a, tl, r)[i]);
	}
	return h;
}

/* ------------------------------------------------------ point enumeration */

struct run {
	int64_t lo, hi;
};

struct runs {
	unsigned n;
	struct run *v;
};

/* The runs of the bitset 'b' of 'nw' words restricted to [lo, hi]. */
static void bits_to_runs(const uint64_t *b, int64_t lo, int64_t hi, struct runs *out)
{
	int64_t i = lo;

	out->n = 0;
	while (i <= hi) {
		while (i <= hi && !(b[i / WORD_BITS] >> (i % WORD_BITS) & 1))
			i++;
		if (i > hi)
			break;
		out->v[out->n].lo = i;
		while (i <= hi && (b[i / WORD_BITS] >> (i % WORD_BITS) & 1))
			i++;
		out->v[out->n++].hi = i - 1;
	}
}

struct enum_ctx {
	const struct xgeom *g;
	struct runs runs[XR];
	void (*fn)(void *ctx, uint64_t lin);
	void *ctx;
};

static void enum_rec(struct enum_ctx *e, unsigned r, uint64_t base)
{
	unsigned i;
	int64_t v;

	if (r == e->g->n_ranks) {
		e->fn(e->ctx, base);
		return;
	}
	for (i = 0; i < e->runs[r].n; i++)
		for (v = e->runs[r].v[i].lo; v <= e->runs[r].v[i].hi; v++)
			enum_rec(e, r + 1, base + (uint64_t)v * e->g->stride[r]);
}

/* Fill 'out' with the runs of rank 'r' for the slab: 'mode' 0 = w, 1 = w & l, 2 = w - l. */
static void slab_runs(const struct tset *w, const struct tset *l, const struct tlayout *tl,
		      unsigned r, int mode, struct runs *out, uint64_t *scratch)
{
	unsigned i;

	if (!tl->exact) {
		int64_t lo = w->lo[r], hi = w->hi[r];
		out->n = 0;
		if (mode == 0) {
			out->v[out->n++] = (struct run){ lo, hi };
		} else if (mode == 1) {
			int64_t a = lo > l->lo[r] ? lo : l->lo[r];
			int64_t b = hi < l->hi[r] ? hi : l->hi[r];
			if (a <= b)
				out->v[out->n++] = (struct run){ a, b };
		} else {
			if (lo < l->lo[r])
				out->v[out->n++] = (struct run){ lo, hi < l->lo[r] - 1 ? hi : l->lo[r] - 1 };
			if (hi > l->hi[r])
				out->v[out->n++] = (struct run){ lo > l->hi[r] + 1 ? lo : l->hi[r] + 1, hi };
		}
		return;
	}
	for (i = 0; i < rank_words(tl, r); i++) {
		uint64_t a = rank_bits(w, tl, r)[i];
		if (mode == 1)
			a &= rank_bits(l, tl, r)[i];
		else if (mode == 2)
			a &= ~rank_bits(l, tl, r)[i];
		scratch[i] = a;
	}
	bits_to_runs(scratch, w->lo[r], w->hi[r], out);
}

void exec_tset_diff_foreach(const struct tset *w, const struct tset *l, const struct tlayout *tl,
			    const struct xgeom *g, void (*fn)(void *ctx, uint64_t lin), void *ctx)
{
	struct enum_ctx e = { .g = g, .fn = fn, .ctx = ctx };
	struct run small[XR][2];
	struct run *heap = NULL;
	uint64_t *scratch = NULL;
	unsigned r, s, n = g->n_ranks;
	bool disjoint;

	if (w->empty)
		return;
	if (!tl->exact) {
		/* a single point: no slabs needed */
		uint64_t lin = 0;
		bool inside = l && !l->empty;
		for (r = 0; r < n && w->lo[r] == w->hi[r]; r++) {
			lin += (uint64_t)w->lo[r] * g->stride[r];
			inside = inside && w->lo[r] >= l->lo[r] && w->lo[r] <= l->hi[r];
		}
		if (r == n) {
			if (!inside)
				fn(ctx, lin);
			return;
		}
	}
	if (tl->exact) {
		uint64_t max_ext = 1;
		for (r = 0; r < n; r++)
			if (tl->extent[r] > max_ext)
				max_ext = tl->extent[r];
		heap = xcalloc(n * (max_ext / 2 + 2), sizeof(*heap));
		scratch = xcalloc(n_words(tl) + 1, sizeof(*scratch));
		for (r = 0; r < n; r++)
			e.runs[r].v = heap + r * (max_ext / 2 + 2);
	} else {
		for (r = 0; r < n; r++)
			e.runs[r].v = small[r];
	}
	disjoint = !l || l->empty || !exec_tset_inter_size(w, l, tl);
	if (disjoint) {
		for (r = 0; r < n; r++)
			slab_runs(w, l, tl, r, 0, &e.runs[r], scratch);
		enum_rec(&e, 0, 0);
	} else {
		/* slab s: ranks < s inside l, rank s outside l, ranks > s anything */
		for (s = 0; s < n; s++) {
			for (r = 0; r < n; r++)
				slab_runs(w, l, tl, r, r < s ? 1 : r == s ? 2 : 0, &e.runs[r], scratch);
			enum_rec(&e, 0, 0);
		}
	}
	free(heap);
	free(scratch);
}
