/*
 * Sparse acceleration features (semantics 4.4-4.6): gating, skipping and
 * spatial skipping of storage accesses, conditioned on the emptiness of
 * other tensors (leader/follower and double-sided intersections), their
 * propagation through the storage levels, and the classification of the
 * compute operations into random (effectual), gated, skipped and
 * nonexistent ones.
 *
 * Everything here is a pure function of plain values: the loop nest of a
 * mapping (specs/), tensor projections, and density models (density/density.h)
 * that the caller owns. Probabilities are in [0, 1]; counts are per instance
 * of a storage level (computes: over all instances).
 */
#ifndef SAF_SAF_H
#define SAF_SAF_H

#include <stdbool.h>
#include <stdint.h>

#include "specs/spec.h"

struct density_model;

/* ------------------------------------------------------------------ enums */

#define SAF_MAX_RANKS 16          /* format ranks tracked per tile */

/* The data operations of a storage tile. */
enum saf_op { SAF_READ, SAF_FILL, SAF_UPDATE, SAF_OP_COUNT };

/* What happened to an access: done (random), gated (energy only) or skipped. */
enum saf_class { SAF_RANDOM, SAF_GATED, SAF_SKIPPED, SAF_CLASS_COUNT };

/* The temporal action optimization acting on a tile. */
enum saf_action { SAF_NONE, SAF_GATE, SAF_SKIP };

/* ------------------------------------------------------------ loop nests */

/*
 * A mapping's complete loop nest (trivial loops included), innermost loop
 * first; level l owns loops [level_begin[l], level_begin[l+1]), its spatial
 * loops first (spec_mapping.complete and .complete_begin).
 */
struct saf_nest {
	unsigned n_loops;
	const struct spec_loop *loops;
	unsigned n_levels;
	const unsigned *level_begin;       /* n_levels + 1 entries */
};

/* ------------------------------------------- ineffectual access probability */

/*
 * "Skip/gate accesses to 'target' at level 'target_level' when the
 * 'conditions' are empty" (semantics 4.4.1). 'child_level' is the target's
 * next inner level that stores it (-1: the compute units read it directly);
 * 'block_size' the words per vector access of the target level. The
 * density models are borrowed (one per condition, same order).
 */
struct saf_prob_query {
	const struct saf_nest *nest;
	const struct spec_tensor *target;
	unsigned target_level;
	int child_level;
	unsigned block_size;
	unsigned n_conditions;
	const struct spec_tensor *conditions[SPEC_MAX_TENSORS];
	struct density_model *densities[SPEC_MAX_TENSORS];
};

/*
 * The probability that an access to the target at the target level is
 * ineffectual: 1 - prod over conditions C of (1 - P(C's tile is empty)),
 * where C's tile is the condition box of semantics 4.4.1 (the target
 * loop's maxtile mold, or a scalar, widened by the relevant loops above it
 * and rounded to whole vector blocks of the target).
 */
double saf_ineffectual_prob(const struct saf_prob_query *q);

/*
 * Estimated saving of one option of a group (semantics 4.4.3): the energy
 * per word of a read at the target level times (expected data occupancy +
 * metadata units * (default metadata word bits div word bits)) times the
 * probability 'p'. The option with the largest saving wins (the last of
 * equal ones).
 */
double saf_option_saving(double read_energy_pj, unsigned block_size, double data_occupancy,
			 double metadata_units, unsigned default_md_word_bits,
			 unsigned word_bits, double p);

/* -------------------------------------------------------- spatial skipping */

/*
 * Spatial skipping at level 'level' of 'target' conditioned on one tensor
 * 'cond' (semantics 4.4.4): the spatial loops of the level's complete
 * subnest that distribute 'cond' are thinned to the instances whose
 * sub-tile of 'cond' is non-empty. 'child_level' is the target's child
 * below 'level' (-1: compute).
 */
struct saf_spatial_query {
	const struct saf_nest *nest;
	const struct spec_tensor *target;
	unsigned level;
	int child_level;
	const struct spec_tensor *cond;
	struct density_model *density;     /* of 'cond', borrowed */
};

/* The effect of spatial skipping on the instances below a level. */
struct saf_spatial_effect {
	double ratio;                      /* expected fraction of busy instances */
	double x_scale, y_scale;           /* max expansion factors (<= 1) in X and Y */
};

/*
 * The busy fraction and max-expansion scales for one condition tensor:
 * ratio = 1 - P(the sub-tile under the innermost non-trivial spatial loop
 * that projects to 'cond' is empty); every such spatial loop of end f
 * scales its direction's expansion by maxElements/f, maxElements being the
 * largest number of non-empty sub-tiles a fiber of f can hold. A level
 * without such a loop gives ratio 1 and scales 1.
 */
struct saf_spatial_effect saf_spatial_skip(const struct saf_spatial_query *q);

/* -------------------------------------------------------- position skipping */

/*
 * Position skipping of 'target' at 'level' (docs/sparse.md): the level's
 * loops over the dimensions of the target that no other operand shares
 * (not in 'shared_dims') walk the positions of the target's fiber; the
 * empty ones are skipped and the non-empty ones packed onto the spatial
 * lanes. 'density' is the target's model (borrowed).
 */
struct saf_position_query {
	const struct saf_nest *nest;
	const struct spec_tensor *target;
	unsigned level;
	uint32_t shared_dims;
	struct density_model *density;
};

/* The packing of one tensor's fiber at a level. */
struct saf_position_effect {
	uint64_t positions;                /* F: positions the level's loops walk */
	uint64_t lanes;                    /* f: of them side by side (spatial loops) */
	double expected_steps;             /* E[ceil(X / f)], X the fiber's non-zeros */
	double ratio;                      /* expected_steps / (F / f), 1 when F = 1 */
};

/*
 * The expected steps and their ratio to the dense steps:
 * sum over n of P(X = n) ceil(n / f), over F / f. A level with no such loop
 * gives F = f = 1 and ratio 1.
 */
struct saf_position_effect saf_position_skip(const struct saf_position_query *q);

/* ------------------------------------------------------------- propagation */

/*
 * One tensor at one storage level while the optimizations are combined
 * (semantics 4.5). The caller fills the inputs; saf_propagate() writes the
 * outputs. Format tables are (metadata, payload) units per rank, rank 0
 * innermost, only ranks [0, n_ranks) used.
 */
struct saf_tile {
	/* inputs */
	bool is_kept;
	bool has_metadata;
	unsigned n_ranks;                  /* format ranks (0 without metadata) */
	int child;                         /* the next inner kept level, -1 none */
	enum saf_action action;            /* temporal gating/skipping here */
	double p;                          /* its probability */
	bool has_spatial;                  /* spatial skipping here */
	double p_spatial;                  /* 1 - busy ratio */
	bool spatial_nested;               /* its conditions are among the temporal ones */
	uint64_t updates;                  /* algorithmic updates */
	/* inputs and outputs */
	uint64_t temporal_reductions;      /* in: algorithmic; out: scaled */
	/* in: [op][SAF_RANDOM] after the representation impact; out: every class */
	uint64_t count[SAF_OP_COUNT][SAF_CLASS_COUNT];
	/* in: [op][SAF_RANDOM] the expected format accesses; out: every class */
	uint64_t fmt[SAF_OP_COUNT][SAF_CLASS_COUNT][SAF_MAX_RANKS][2];
};

/* What the storage optimizations of one tensor do to the computes. */
struct saf_compute_effect {
	uint64_t computes;                 /* in and out: the computes left (all tensors) */
	bool gs_saf;                       /* out: an innermost SAF removed computes */
	double empty_cond_prob;            /* out: its probability, rounded to 1e-6 */
};

/*
 * The probability that the optimizations at one level remove an access of
 * the levels below: the temporal p, the spatial p, or both combined (the
 * larger one when the spatial conditions are among the temporal ones, since
 * the events are then nested; else as independent events). 0 with none.
 */
double saf_tile_p_down(const struct saf_tile *t);

/*
 * Move the ineffectual share 'p' of a tile's reads, updates and format
 * accesses into class 'cls' (SAF_GATED or SAF_SKIPPED), as Timeloop's local
 * application does: reads by ceil for read-write tensors and floor
 * otherwise, updates and format units by floor, fills never; format ranks
 * [0, n_fmt_ranks) only. Read-write tiles scale their temporal reductions by
 * the actual share of the updates.
 */
void saf_apply_local(struct saf_tile *t, double p, enum saf_class cls, bool read_write,
		     unsigned n_fmt_ranks);

/*
 * Combine one tensor's optimizations over its levels (semantics 4.5b, with
 * Timeloop's quirks): from the top, each level with an optimization removes
 * floor(x p) of every count of the levels below it down to the next level
 * with its own optimization (which then applies only its conditional share
 * locally) or past the compute (then, for read-only tensors, the computes
 * lose floor(computes p) too). 't' holds 'n_levels' tiles, level 0
 * innermost. 'ce' accumulates over the tensors (ascending ids).
 */
void saf_propagate(struct saf_tile *t, unsigned n_levels, bool read_write,
		   struct saf_compute_effect *ce);

/* ------------------------------------------------------------------ compute */

/* An operand of the compute units, as its innermost storage level sees it. */
struct saf_operand {
	double density;                    /* expected non-zeros of one element, rounded to 1e-6 */
	bool has_metadata;                 /* its innermost level stores metadata */
	bool gs_saf;                       /* its accesses were gated/skipped on the other's emptiness */
	double empty_cond_prob;            /* that probability (rounded) */
};

/* The computes of each class. */
struct saf_computes {
	uint64_t random, gated, skipped, nonexistent;
};

/*
 * Classify 'total' computes of two operands (semantics 4.6): each operand is
 * non-empty (ENZ), empty but present (EZ, no metadata) or not present (NE,
 * compressed away), with the leader/follower correction for operands whose
 * partner was gated/skipped on them. 'gating' and 'skipping' are the
 * compute optimizations. Fractions are floored; random takes the rest.
 */
struct saf_computes saf_classify_computes(const struct saf_operand *a,
					  const struct saf_operand *b, bool gating,
					  bool skipping, uint64_t total);

#endif
