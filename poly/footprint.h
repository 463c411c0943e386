/*
 * Exact tile footprints: how many points of a tensor an op-space box touches.
 *
 * A tile is a box of the operation space, [lo[d], hi[d]] per dimension
 * (inclusive, lo <= hi), and a tensor rank is an affine projection
 * x_r = sum_k c_k * d_k (spec_tensor.ranks[r]; c_k may be negative or > 1
 * for strides and dilations). Timeloop counts the convex hull per rank,
 * prod_r (sum_k |c_k| (hi - lo) + 1) (poly_hull_size). The exact footprint
 * counts distinct touched points (poly_footprint_size). They differ when
 *  - a rank's image has holes: W = s*P + R with stride s > 1 and a window
 *    narrower than the stride (R extent < s: s = 2, R = 1 touches every other
 *    column), or a dilation larger than the window's step (d*R + P with
 *    P extent < d), or one strided term alone (2*P);
 *  - two ranks vary with the same dimension ([[M], [M]]: a diagonal, n points
 *    of an n x n hull);
 *  - terms of one dimension cancel inside a rank (M - M spans 2(hi-lo)+1 in
 *    the hull, one point exactly).
 * W = 2*P + R with R extent 3 (>= the stride) has no holes: hull = exact.
 *
 * When no two ranks vary with the same dimension, the image is the product of
 * its rank images, and each rank is counted with integer arithmetic: closed
 * forms for arithmetic progressions and two-term sums, else a bitmap of up
 * to 2^16 coordinates (no isl, no allocation: safe in a hot path). Anything
 * else falls back to isl's exact count. isl lives only in
 * this module: no isl type appears here. One poly_ctx per thread; tensors
 * borrow their context and must be freed before it. Sizes are points (words).
 */
#ifndef POLY_FOOTPRINT_H
#define POLY_FOOTPRINT_H

#include <stdint.h>

struct spec_workload;

/* How many queries were answered by each method (for benches and tests). */
struct poly_stats {
	uint64_t n_fast;   /* integer fast path */
	uint64_t n_isl;    /* isl fallback */
};

/* An isl context plus counters; one per thread (isl contexts are not shared). */
struct poly_ctx;

/* The access map of one tensor, prepared once per problem. */
struct poly_tensor;

/*
 * A new context. isl errors are returned quietly to poly/, which turns them
 * into BUG() (they can only come from a defect here, never from user input).
 */
struct poly_ctx *poly_ctx_new(void);

/*
 * Prepare tensor 'tensor' of 'w' (its projection is copied; 'w' need not
 * outlive the result). Borrows 'pc', which must outlive the result.
 */
struct poly_tensor *poly_tensor_new(struct poly_ctx *pc, const struct spec_workload *w,
				    unsigned tensor);

/*
 * Exact number of tensor points touched by the box [lo, hi] ('lo' and 'hi'
 * hold one inclusive bound per workload dimension; dimensions that do not
 * project to the tensor are ignored). Uses the integer fast path when it
 * applies, else isl.
 */
uint64_t poly_footprint_size(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi);

/*
 * Exact |image(new box) \ image(old box)|: the points of the new tile that
 * the old tile did not hold. 'lo_old' and 'hi_old' may both be NULL for an
 * empty old tile (the result is then the new footprint).
 */
uint64_t poly_delta_size(struct poly_tensor *pt, const int64_t *lo_new, const int64_t *hi_new,
			 const int64_t *lo_old, const int64_t *hi_old);

/*
 * Timeloop's footprint of the box: the product over ranks of the hull
 * [sum_k min(c_k lo, c_k hi), sum_k max(c_k lo, c_k hi)], terms as written
 * (semantics 1.3, "Projection of a box"). Integer arithmetic only.
 */
uint64_t poly_hull_size(const struct poly_tensor *pt, const int64_t *lo, const int64_t *hi);

/*
 * Timeloop's delta: |hull(new) \ hull(old)| for the per-rank hulls of the
 * two boxes (an axis-aligned box difference). 'lo_old' and 'hi_old' may both
 * be NULL for an empty old tile. Integer arithmetic only.
 */
uint64_t poly_hull_delta_size(const struct poly_tensor *pt, const int64_t *lo_new,
			      const int64_t *hi_new, const int64_t *lo_old,
			      const int64_t *hi_old);

/* Copy the counters of 'pc' into '*out'. */
void poly_ctx_stats(const struct poly_ctx *pc, struct poly_stats *out);

/* Free 'pt' (NULL is a no-op). */
void poly_tensor_free(struct poly_tensor *pt);

/*
 * Free 'pc' (NULL is a no-op). Every poly_tensor of 'pc' must be freed
 * first: the isl context is freed in abort-on-error mode, so a leaked isl
 * object aborts the program ("isl_ctx not freed ...").
 */
void poly_ctx_free(struct poly_ctx *pc);

#endif
