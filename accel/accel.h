/*
 * Accelerator models built from the seed documents, each in its own section
 * of this header (accel/<name>_*.c behind it).
 *
 * Every model reads a validated spec set and fills a caller-owned result
 * that is a plain value (no pointers), so that job/, sweep and batch can
 * copy and keep it. Library code never prints; a failure that is not a spec
 * error (a matrix too large to generate, out-of-range sizes) comes back as
 * -1 with a message in the caller's strbuf 'err'.
 *
 * The IPU model (seed 000): a PopSparse sparse fully-connected layer on a
 * Graphcore IPU (docs/ipu.md). The Sparse-TPU model (seed 004): column
 * packing and packed systolic SpMV against the TPU and KMZ (docs/stpu.md).
 */
#ifndef ACCEL_ACCEL_H
#define ACCEL_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

struct strbuf;

/* ================================================================== STPU
 *
 * Sparse-TPU (ICS'20; docs/stpu.md): a sparse matrix's columns are packed
 * into groups per partition of array-height rows (STPU-C0 collision-free,
 * STPU-C1 collision-aware), and the packed blocks run SpMV on a systolic
 * array whose PEs hold a value with its column index (hold / latch /
 * accumulate / bypass), the vector streamed from the top in input groups,
 * partial sums moving right, weights double-buffered. The TPU (no packing)
 * and KMZ (lossy column combining on full-height columns) are the
 * baselines. Counts are exact integers; energies are in pJ; cycles are
 * array clock cycles.
 */

/* The four evaluated schemes, the baseline first. */
enum accel_stpu_scheme {
	ACCEL_STPU_TPU,      /* no packing, dense MAC array */
	ACCEL_STPU_C0,       /* STPU, collision-free partition-wise packing */
	ACCEL_STPU_C1,       /* STPU, collision-aware partition-wise packing */
	ACCEL_STPU_KMZ,      /* KMZ column combining, multiplexed MAC array */
	ACCEL_STPU_N_SCHEMES
};

struct accel_stpu_options {
	bool estimate;            /* the density-aware packed width (C0, uniform models) */
	unsigned schemes_mask;    /* bit per scheme to evaluate; 0 = all */
};

#define ACCEL_STPU_OPTIONS_INIT { true, 0 }

/* What a packer did, summed over the row partitions. */
struct accel_stpu_packing {
	uint64_t n_partitions;        /* ceil(rows / array_rows) */
	uint64_t packed_width;        /* sum over partitions of the groups (packed columns) */
	uint64_t min_groups, max_groups;   /* per partition */
	double mean_groups;
	double efficiency;            /* the paper's: original columns / packed columns */
	uint64_t n_groups_total;      /* distinct groups (KMZ: one set for every partition) */
	uint64_t max_group_columns;   /* the longest input group (columns streamed) */
	uint64_t n_collisions;        /* C1: entries evicted by relaxed packing; KMZ: conflicts */
	uint64_t n_residual_entries;  /* C1: entries left for the collision-free pass */
	uint64_t n_residual_groups;   /* C1: groups that pass made */
	uint64_t n_dropped;           /* KMZ: non-zeros pruned (lossy) */
};

/* Events of one SpMV run, counted exactly. */
struct accel_stpu_counts {
	uint64_t blocks;              /* array loads (partition x column block) */
	uint64_t cycles;              /* from the first weight load to the last output */
	uint64_t hold, latch, accumulate, bypass;   /* STPU PE states */
	uint64_t mac;                 /* TPU / KMZ PE multiply-adds (zeros included) */
	uint64_t x_forward;           /* vector elements (KMZ: values) moved one PE down */
	uint64_t vector_reads;        /* elements (KMZ: values) read from the vector buffer */
	uint64_t weight_words;        /* words read from the weight buffer */
	uint64_t weight_hops;         /* word moves along the load chains */
	uint64_t output_accesses;     /* read-modify-writes of the output accumulators */
};

/* Energy of one run by part (pJ). */
struct accel_stpu_energy {
	double pe_pj;                 /* PE states / MACs */
	double x_forward_pj;
	double weight_load_pj;        /* weight buffer reads + load-chain hops */
	double vector_read_pj;
	double output_pj;
	double total_pj;
};

struct accel_stpu_scheme_result {
	bool evaluated;
	struct accel_stpu_packing packing;
	struct accel_stpu_counts counts;
	struct accel_stpu_energy energy;
	double speedup_vs_tpu;        /* TPU cycles / cycles (0 when the TPU was not run) */
	double energy_ratio_vs_tpu;   /* TPU energy / energy */
	double array_energy_ratio_vs_tpu;  /* the same for the array alone (PEs + forwards) */
};

/* The density-aware estimate of STPU-C0's packed width (no pattern used). */
struct accel_stpu_estimate {
	bool valid;                   /* false: not asked, or not a uniform density model */
	double packed_width;          /* expected sum over partitions of the groups */
	double efficiency;            /* original columns x partitions / packed_width */
	double groups_full;           /* expected groups of a full partition */
	double max_row_full;          /* E[max non-zeros of a row] in a full partition */
	double mean_field_full;       /* the first-fit mean-field expectation */
};

struct accel_stpu_result {
	uint64_t rows, cols, nnz;     /* the matrix */
	double density;
	char source[96];              /* "generated hypergeometric 0.01 seed 1" / the file */
	unsigned array_rows, array_cols;
	enum spec_stpu_dtype dtype;
	unsigned value_bits, index_bits, accumulator_bits, kmz_select_bits;
	char energy_preset[32];
	double energy_pj[SPEC_STPU_E_COUNT];   /* the resolved table */
	struct accel_stpu_scheme_result scheme[ACCEL_STPU_N_SCHEMES];
	struct accel_stpu_estimate estimate;
};

/* Name of a scheme: "TPU", "STPU-C0", "STPU-C1", "KMZ". */
const char *accel_stpu_scheme_name(enum accel_stpu_scheme k);

/*
 * Evaluate the STPU design s->stpu (which must be non-NULL): build or load
 * the matrix pattern, pack it with every scheme of o->schemes_mask, count
 * the SpMV's cycles and events with the array's scheduling rules and price
 * them with the energy table. 'o' may be NULL (ACCEL_STPU_OPTIONS_INIT).
 * Returns 0, or -1 with a message in 'err' (e.g. a matrix too large to
 * generate).
 */
int accel_stpu_eval(const struct spec_set *s, const struct accel_stpu_options *o,
		    struct accel_stpu_result *out, struct strbuf *err);

/*
 * The matrix of 'st' as a pattern in 'a' (coordinates row-major by entry,
 * sorted by column then row, values 1.0): the file's pattern, or the one
 * accel_stpu_eval() generates from the density model and seed. For handing
 * the same matrix to the executor. NULL with 'err' on failure.
 */
const struct spec_matrix *accel_stpu_matrix(const struct spec_stpu *st, struct arena *a,
					    struct strbuf *err);

/* ------------------------------------------------------------------ enums */

enum accel_ipu_status {
	ACCEL_IPU_OK,
	ACCEL_IPU_NO_PLAN,        /* no partition satisfies the tile count / constraint */
	ACCEL_IPU_OVERFLOW,       /* the actual pattern does not fit the buckets */
	ACCEL_IPU_OUT_OF_MEMORY,  /* the chosen plan exceeds the tile memory */
};

/* The on-tile method of a pass (PopLibs' Method, poplibs §1.2, §3.3). */
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
		   struct accel_ipu_result *out, struct strbuf *err);

/* Names for printing: "fwd"-style method names and statuses. */
const char *accel_ipu_method_name(enum accel_ipu_method m);
const char *accel_ipu_status_name(enum accel_ipu_status s);

#endif
