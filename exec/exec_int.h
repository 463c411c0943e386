/*
 * Internals of the executor shared by its source files.
 *
 * The plan (plan.c) is the mapping's loop nest prepared for walking: loop
 * strides in the op space, tile extents per storage level, the chain of
 * levels that keep each tensor, and each tensor's coordinate space (the
 * convex hull of its projection, shifted to start at 0). Tile sets
 * (tset.c) are per-rank coordinate sets: one interval per rank for hull
 * footprints, a bitset per rank for exact footprints.
 */
#ifndef EXEC_EXEC_INT_H
#define EXEC_EXEC_INT_H

#include "exec/exec.h"

#include <stdbool.h>
#include <stdint.h>

#define XR SPEC_MAX_TENSOR_RANKS
#define XD SPEC_MAX_DIMS

/* --------------------------------------------------------------- tensors */

struct exec_tensor {
	unsigned n_ranks;
	uint64_t extent[XR];
	uint64_t stride[XR];           /* row-major, rank 0 outermost */
	uint64_t size;
	double *values;
	uint32_t *prefix;              /* summed-area table of non-zeros, or NULL */
};

/* Number of non-zeros of 'x' in the box [lo, hi] (inclusive, clipped). */
uint64_t exec_tensor_box_nnz(struct exec_tensor *x, const int64_t *lo, const int64_t *hi);

/* --------------------------------------------------------------- fibertree */

/*
 * Units of every rank of a tile whose leaf elements are non-empty where
 * 'leaf_ne' is set (one byte per leaf position, row-major over 'shapes',
 * outermost rank first), counted with the rules of exec_fibertree_units().
 * 'top_is_rank0' says which rank is "the top" that stays when its fiber
 * shape is 1 (rank 0 for outer-to-inner application order). Results are
 * outermost first. 'fixed' (may be NULL; outermost first, 0 = none) gives a
 * CP rank a fixed width w (a sparse_fixed axis, ELL): every fiber position
 * keeps min(w, f) padded coordinate slots.
 */
void exec_ft_units(unsigned n_ranks, const enum fmt_kind *kinds, const uint64_t *shapes,
		   const uint64_t *fixed, const uint8_t *leaf_ne, bool top_is_rank0,
		   uint64_t *md_units, uint64_t *pl_units);

/* ------------------------------------------------------------------ plan */

struct xloop {
	unsigned dim;
	uint64_t end;
	uint64_t stride;               /* op-space step of one iteration */
	bool spatial;
	unsigned level;
};

/* A tensor's coordinate space. */
struct xgeom {
	unsigned n_ranks;
	struct spec_rank_proj proj[XR];
	int64_t origin[XR];            /* min coordinate of each rank */
	uint64_t extent[XR];
	uint64_t stride[XR];           /* linearization, rank 0 outermost */
	uint64_t size;
	bool read_write;
	uint32_t dim_mask;
};

/*
 * The coordinate space of tensor 't' of 'w': the convex hull of its
 * projection of the whole op space. Returns 0, or -1 with 'why' filled when
 * it has too many points to materialize.
 */
int exec_geom_init(struct xgeom *g, const struct spec_workload *w, unsigned t, char why[256]);

struct xplan {
	const struct spec_set *s;
	unsigned n_dims, n_levels, n_tensors;
	uint64_t bound[XD];
	unsigned n_loops;
	struct xloop loops[SPEC_MAX_LOOPS];   /* innermost first */
	int boundary[SPEC_MAX_LEVELS];        /* level l's outermost loop */
	/* extent[k][d]: op-space extent of loops 0..k on dim d (k = -1: all 1) */
	uint64_t (*extent)[XD];
	struct xgeom geom[SPEC_MAX_TENSORS];
	unsigned n_chain[SPEC_MAX_TENSORS];
	int chain[SPEC_MAX_TENSORS][SPEC_MAX_LEVELS];  /* kept levels, inner first */
	bool exact;                           /* exact footprints */
	bool perfect;                         /* the loops tile the op space exactly */
	bool clipped[XD];                     /* the loops on d reach past its bound (residuals) */
	/* the workload run: the spec's, or a copy whose padded dimensions (the
	 * mapping's pad_mask) reach the extent the factors cover */
	const struct spec_workload *w;
	struct spec_workload padded;
	struct spec_tensor padded_tensors[SPEC_MAX_TENSORS];
};

/* Prepare 'p' from 's'. Returns 0, or -1 with 'why' filled. */
int exec_plan_init(struct xplan *p, const struct spec_set *s, bool exact, char why[256]);
void exec_plan_release(struct xplan *p);

/* Op-space extent of the loops of level 'l' and below on dim 'd' (l = -1: 1). */
static inline uint64_t xplan_level_extent(const struct xplan *p, int l, unsigned d)
{
	return l < 0 ? 1 : p->extent[p->boundary[l]][d];
}

/* --------------------------------------------------------------- tile sets */

/*
 * A product of per-rank coordinate sets. In hull mode rank r is the interval
 * [lo[r], hi[r]]; in exact mode 'bits' (nonzero words per rank at
 * 'word_off[r]' of the owner's layout) refines it. Empty when 'empty'.
 */
struct tset {
	bool empty;
	int64_t lo[XR], hi[XR];        /* bounding interval per rank */
	uint64_t *bits;                /* exact mode only, else NULL */
};

/* Layout of exact-mode bitsets for one tensor. */
struct tlayout {
	unsigned n_ranks;
	bool exact;
	uint64_t extent[XR];
	unsigned word_off[XR + 1];     /* word offset of each rank; [n] = total */
};

void exec_tlayout_init(struct tlayout *tl, const struct xgeom *g, bool exact);

/* Allocate the bitsets of 'n' tile sets (exact mode) and mark them empty. */
void exec_tset_array_init(struct tset *ts, size_t n, const struct tlayout *tl);
void exec_tset_array_release(struct tset *ts, size_t n);

/* 'ts' = the tile of tensor 'g' for the op box [lo, hi] (inclusive). */
void exec_tset_project(struct tset *ts, const struct tlayout *tl, const struct xgeom *g,
		       const int64_t *op_lo, const int64_t *op_hi);

uint64_t exec_tset_size(const struct tset *a, const struct tlayout *tl);
uint64_t exec_tset_inter_size(const struct tset *a, const struct tset *b, const struct tlayout *tl);
uint64_t exec_tset_inter3_size(const struct tset *a, const struct tset *b, const struct tset *c,
			       const struct tlayout *tl);
bool exec_tset_equal(const struct tset *a, const struct tset *b, const struct tlayout *tl);
void exec_tset_copy(struct tset *dst, const struct tset *src, const struct tlayout *tl);

/*
 * Translation from 'a' to 'b': the rounded difference of their centroids
 * (half away from zero). Both must be non-empty.
 */
void exec_tset_translation(const struct tset *a, const struct tset *b, const struct tlayout *tl,
			   int64_t *t);

/*
 * The canonical form of the set difference w - l: 'hull' is the product of
 * the difference's per-rank projections and 'hole' = hull & l, so that
 * w - l = hull - hole, and two differences are equal iff their canonical
 * forms are. Returns |w - l|.
 */
uint64_t exec_tset_diff_canon(const struct tset *w, const struct tset *l, const struct tlayout *tl,
			      struct tset *hull, struct tset *hole);

/* Call 'fn' with the linear index of every point of w - l ('l' may be NULL). */
void exec_tset_diff_foreach(const struct tset *w, const struct tset *l, const struct tlayout *tl,
			    const struct xgeom *g, void (*fn)(void *ctx, uint64_t lin), void *ctx);

/* A 64-bit hash of 'a' (hash_combine() of its words, not finalized by hash_u64()). */
uint64_t exec_tset_hash(const struct tset *a, const struct tlayout *tl);

#endif
