/*
 * Accelerator models from the seeds. The IPU model (seed 000): a PopSparse
 * sparse fully-connected layer on a Graphcore IPU. A planner partitions X,
 * Y, Z over tiles and sizes fixed buckets for W's non-zero blocks and their
 * metaInfo; a partitioner fills the buckets per X/Y partition and spills
 * overflow by distance; the device runs a distribution phase, propagation
 * steps (bucket shifts along Z, Y, X plus compute) and a reduction over
 * P_Y. Costs are cycles in the structure of PopLibs' own estimator, from
 * docs/ipu-popsparse.md, docs/reference-figures.md and the seed (each
 * constant's source is above its function; docs/ipu.md has the equations).
 *
 * Results are values (no pointers); everything is deterministic for a given
 * spec and options. Nothing here prints or exits.
 */
#ifndef ACCEL_ACCEL_H
#define ACCEL_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

/* ------------------------------------------------------------------ enums */

enum accel_ipu_status {
	ACCEL_IPU_OK,
	ACCEL_IPU_NO_PLAN,        /* no partition satisfies the tile count / constraint */
	ACCEL_IPU_OVERFLOW,       /* the actual pattern does not fit the buckets */
	ACCEL_IPU_OUT_OF_MEMORY,  /* the chosen plan exceeds the tile memory */
};

/* The on-tile method of a pass (PopLibs' Method, ipu-popsparse §1.2, §3.3). */
enum accel_ipu_method {
	ACCEL_IPU_FORWARD,
	ACCEL_IPU_TRANSPOSE,
	ACCEL_IPU_GRAD_W,
	ACCEL_IPU_FORWARD_AMP_BLOCK,
	ACCEL_IPU_TRANSPOSE_AMP_BLOCK,
	ACCEL_IPU_GRAD_W_BLOCK,
	ACCEL_IPU_GRAD_W_AMP_BLOCK,
	ACCEL_IPU_METHOD_COUNT
};

/* --------------------------------------------------------------- structs */

struct accel_ipu_options {
	unsigned n_samples;        /* patterns drawn from the density model for the
				      expected steps (not used for actual data) */
	uint64_t seed;             /* of those draws */
	double percentile;         /* of the steps distribution reported, in (0, 1] */
};

#define ACCEL_IPU_OPTIONS_INIT { 256, 1, 0.99 }

struct accel_ipu_plan {
	unsigned px, py, pz;       /* partitions of X, Y, Z */
	uint64_t tiles;            /* px * py * pz */
	unsigned gx, gy, gz;       /* grouping (grain) of X, Y, Z in elements */
	uint64_t nx, ny, nz;       /* grains per partition */
	unsigned kernel_block;     /* block side of the on-tile kernel (1: element-wise) */
	enum accel_ipu_method methods[SPEC_IPU_N_PASSES];
	bool grad_w_exchange_buckets;
	uint64_t temp_bound_bytes; /* the memory bound the plan was found under */
	uint64_t n_candidates;     /* partitions costed by the search */
};

struct accel_ipu_buckets {
	uint64_t nz_groups;        /* R_g: non-zero blocks (kernel blocks) of W */
	uint64_t groups_per_bucket;     /* r_b */
	uint64_t nz_elems_per_bucket;
	uint64_t meta_words_per_bucket; /* 16-bit words */
	uint64_t bytes_per_bucket;      /* exchanged per bucket (values + metaInfo) */
	uint64_t header_words;          /* overflow info on the control tile */
};

/* Bytes on one tile (the busiest). */
struct accel_ipu_memory {
	uint64_t tile_bytes;       /* the device's */
	uint64_t temp_limit_bytes; /* available_memory_proportion of it */
	uint64_t bucket_bytes;     /* persistent: W's values and metaInfo */
	uint64_t dense_bytes;      /* persistent: shares of the dense input and output */
	uint64_t temp_bytes;       /* peak temporary of the passes (planner's estimate) */
	uint64_t total_bytes;
};

/* Propagation steps of a pass. */
struct accel_ipu_steps {
	uint64_t best;             /* a uniform pattern: 0 */
	uint64_t worst;            /* all of W in one X/Y partition: P_total - P_Z */
	bool is_exact;             /* actual data: 'exact' is the partitioner's */
	uint64_t exact;
	double expected;           /* over the density model (== exact for data) */
	double std_error;          /* of 'expected' (0 for exact or closed form) */
	uint64_t percentile;       /* the options' percentile of the distribution */
	double p_spill;            /* P(some partition holds more than its buckets) */
	double expected_spill_groups;   /* E[sum over partitions of the excess] */
};

/* Cycles of one pass: the planner's estimate and the realized cost. */
struct accel_ipu_pass {
	bool present;
	enum accel_ipu_method method;
	uint64_t plan_cycles;      /* the planner's (uniform pattern, 0 propagation) */
	uint64_t plan_temp_bytes;
	/* realized: exact for actual data, expected over the density model */
	double transpose_cycles;
	double dist_exchange_cycles;
	double dist_compute_cycles;
	double prop_cycles;        /* exchange + compute + control of every step */
	double reduce_cycles;      /* exchange + compute of the P_Y reduction */
	double total_cycles;
	double total_cycles_percentile;  /* with the percentile's steps */
	struct accel_ipu_steps steps;
	double dense_cycles;       /* the dense IPU matmul of the same pass */
	double speedup;            /* dense / sparse */
	double seconds;
	double nz_flops_per_s;     /* 2 x (non-zero MACs) per second */
};

/* The dense baseline (poplin-style matmul on the same device). */
struct accel_ipu_dense {
	unsigned pm, pk, pn;       /* its plan for the forward pass */
	double fwd_compute_cycles, fwd_exchange_cycles, fwd_reduce_cycles;
	double fwd_peak_fraction;  /* achieved MACs / (tiles x AMP rate x cycles) */
};

struct accel_ipu_result {
	enum accel_ipu_status status;
	char reason[256];
	enum spec_ipu_sparsity sparsity;
	double density;            /* of W (non-zero blocks / blocks) */
	uint64_t nz_blocks;        /* layer blocks of W (expected for a density model) */
	struct accel_ipu_plan plan;
	struct accel_ipu_buckets buckets;
	struct accel_ipu_memory memory;
	struct accel_ipu_pass passes[SPEC_IPU_N_PASSES];
	struct accel_ipu_dense dense;
	/* the partitioner on actual data (else the last density sample's) */
	uint64_t max_bucket_nz_groups, max_bucket_meta_words;
	uint64_t n_subgroups, n_spilled_subgroups, spilled_groups;
	double percentile;         /* the options' percentile of the steps */
	/* totals over the passes present */
	double total_cycles, dense_total_cycles, speedup, seconds;
};

/* ------------------------------------------------------------- functions */

/*
 * Plan and cost the IPU design of 's' (s->ipu must not be NULL). Fills
 * 'out' (a value) and returns 0 when the layer has a plan that fits; else
 * returns -1 with out->status and out->reason (and 'err', when not NULL,
 * holding the reason). 'o' may be NULL (ACCEL_IPU_OPTIONS_INIT).
 */
int accel_ipu_eval(const struct spec_set *s, const struct accel_ipu_options *o,
		   struct accel_ipu_result *out, char *err, size_t err_size);

/* Names for printing: "fwd"-style method names and statuses. */
const char *accel_ipu_method_name(enum accel_ipu_method m);
const char *accel_ipu_status_name(enum accel_ipu_status s);

#endif
