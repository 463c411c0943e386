/*
 * Density models (semantics 4.2): how many non-zeros a tile of a tensor holds.
 *
 * A tile is a box of tensor coordinates given by its extent on each tensor
 * rank; a query may add the constraint "this tile lies in a parent tile of
 * the given shape known to hold O non-zeros". fixed_structured and
 * hypergeometric (Timeloop's) answer in closed form and only look at the
 * tile's point count; banded, N:M structured, actual data, block structured
 * and power law look at the geometry: the tensor is cut into the grid of
 * tiles of the queried shape and P(n) is the fraction of grid tiles holding
 * n non-zeros (an expectation over the random placement for N:M, block and
 * power law). Those cache each distribution they compute in the model: a
 * model belongs to one thread (a model workspace builds its own), so it is
 * used without locks.
 * Occupancies are counts of non-zero elements; densities are fractions.
 */
#ifndef DENSITY_DENSITY_H
#define DENSITY_DENSITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

/* A tile: its extent on each tensor rank (spec_tensor.ranks order). */
struct density_tile {
	unsigned n_ranks;
	uint64_t extent[SPEC_MAX_TENSOR_RANKS];
};

/* "The tile lies in a tile of shape 'parent' that holds 'occupancy' non-zeros." */
struct density_constraint {
	struct density_tile parent;
	uint64_t occupancy;
};

struct density_model;

/*
 * The density model of tensor 't' (t->density; the default is
 * fixed_structured 1.0). The tensor's extent on each rank is
 * t->rank_extent (the hull of its projection over the workload bounds);
 * hypergeometric uses workload_tensor_size when set, else t->size. 't' (and
 * the actual data matrix) are borrowed for the model's lifetime. Never NULL.
 */
struct density_model *density_model_new(const struct spec_tensor *t);

/*
 * The same from the parts: density spec 'd', a tensor of 'n_ranks' ranks of
 * extents 'shape', whose N:M groups (if any) run along rank 'nm_rank' (for
 * power_law: whose rows are the coordinates of rank 'nm_rank'). 'd' (and
 * d->data) are borrowed for the model's lifetime.
 */
struct density_model *density_model_new_shape(const struct spec_density *d, unsigned n_ranks,
					      const uint64_t *shape, unsigned nm_rank);

/* A tile of one rank holding 'points' points (enough for the count-only models). */
struct density_tile density_tile_flat(uint64_t points);

/* A tile of 'n_ranks' ranks of extents 'extent'. */
struct density_tile density_tile_box(unsigned n_ranks, const uint64_t *extent);

/* Number of points of 't' (the product of its extents). */
uint64_t density_tile_points(const struct density_tile *t);

/* The model's kind. */
enum spec_density_kind density_kind(const struct density_model *m);

/*
 * Expected density of the whole tensor (fixed: rho; N:M: N/M; data:
 * nnz/size; block: K/B, the fraction of non-zero blocks; power law:
 * round(rho size)/size).
 */
double density_global(const struct density_model *m);

/*
 * The distribution's name as Timeloop prints it ("fixed_structured",
 * "hypergeometric", "banded-<w>"; ours: "structured_nm-<N>:<M>",
 * "actual_data", "block_structured-<b0>x<b1>...", "power_law-<alpha>").
 * Borrowed from the model.
 */
const char *density_type_name(const struct density_model *m);

/* P(the tile holds exactly n non-zeros), under 'c' (NULL: no constraint). */
double density_prob(struct density_model *m, const struct density_tile *t,
		    const struct density_constraint *c, uint64_t n);

/*
 * P(the tile holds exactly n non-zeros) for n = lo .. lo + count - 1 into
 * probs[0 .. count), under 'c' (NULL: none): density_prob() for a range,
 * without one binomial evaluation per n (hypergeometric probabilities
 * follow their ratio recurrence from the mode). Does not allocate for
 * fixed_structured and hypergeometric models.
 */
void density_prob_range(struct density_model *m, const struct density_tile *t,
			const struct density_constraint *c, uint64_t lo, size_t count,
			double *probs);

/* P(the tile is empty), under 'c' (NULL: none). The hot path of the SAF analysis. */
double density_prob_empty(struct density_model *m, const struct density_tile *t,
			   const struct density_constraint *c);

/*
 * The distribution of the tile's occupancy under 'c' (NULL: none): writes
 * P(n) to probs[n] for n < cap (zeros past the support) and returns the
 * length of the support, max occupancy + 1 (so a call with cap 0 sizes the
 * array, as snprintf does). 'probs' may be NULL when cap is 0. For the
 * geometric kinds and a 2-D tensor partitioned into groups of R rows and C
 * columns, the tile [R, C] gives the distribution of non-zeros per (R x C)
 * partition (edge partitions clipped, and counted).
 */
size_t density_distribution(struct density_model *m, const struct density_tile *t,
			    const struct density_constraint *c, double *probs, size_t cap);

/* Expected occupancy of the tile (no constraint, as in Timeloop). */
double density_expected_occupancy(struct density_model *m, const struct density_tile *t);

/*
 * Max occupancy of the tile at confidence 'confidence': 1 gives the largest
 * occupancy with non-zero probability; c < 1 the smallest n with
 * P(occupancy <= n) >= c (fixed_structured: floor(x) when c <= P(floor(x)),
 * else ceil(x), as Timeloop).
 */
uint64_t density_max_occupancy(struct density_model *m, const struct density_tile *t,
			       double confidence);

/*
 * Min density of the tile, Timeloop's n_min / points: fixed floor(s rho)/s;
 * hypergeometric (s - N + r) div s in unsigned arithmetic when s > N - r,
 * else 0 (Timeloop's quirk); the others: the smallest occupancy with
 * non-zero probability over the tile's points.
 */
double density_min_density(struct density_model *m, const struct density_tile *t);

/* Free 'm'; density_model_free(NULL) is a no-op. */
void density_model_free(struct density_model *m);

#endif
