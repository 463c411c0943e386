/*
 * The analytical model: evaluate one mapping of a workload on an architecture.
 *
 * model_ws_new() prepares everything that depends only on the spec set
 * (projections, per-action energies from the ERT or an energy preset) into a
 * per-thread workspace; model_eval() then evaluates a mapping without
 * allocating: nest analysis (delta recursion, multicast, link transfers) ->
 * collapse into per-level tiles -> [sparse analysis] -> per-level energy,
 * bandwidth and cycles -> totals. It follows Timeloop/Sparseloop count for
 * count (docs/sources.md §2). An infeasible mapping is an answer, not
 * an error: 'status' says why, 'reason' says where. Counts are per instance
 * unless a name says otherwise; energies are in pJ, bandwidths in words/cycle.
 */
#ifndef MODEL_MODEL_H
#define MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy/energy.h"
#include "specs/spec.h"

/* ------------------------------------------------------------------ enums */

/* Why an evaluation failed; EVAL_OK on success (Timeloop's EvalStatus). */
enum model_status {
	EVAL_OK,
	EVAL_OVER_CAPACITY,       /* the kept tiles exceed a level's effective size */
	EVAL_METADATA_CAPACITY,   /* the metadata exceeds a level's metadata storage */
	EVAL_UNDER_UTILIZATION,   /* the tiles fill less than min_utilization */
	EVAL_FANOUT,              /* more spatial instances than the mesh provides */
	EVAL_BAD_MAPPING,         /* the mapping does not fit the architecture */
	EVAL_SPARSE,              /* the sparse analysis rejected the mapping */
	EVAL_TOO_LARGE,           /* its counts could exceed 2^64 - 1 */
	EVAL_STATUS_COUNT
};

/* How tile footprints are counted (docs/model.md, "Footprints"). */
enum model_footprint {
	MODEL_FOOTPRINT_TIMELOOP, /* convex hull per rank (holes counted), as Timeloop */
	MODEL_FOOTPRINT_EXACT,    /* the exact set of tensor points (poly/) */
};

/* Where a level's per-action energies come from. */
enum model_energy_source {
	MODEL_ENERGY_NONE,        /* no energy at all (dummy levels) */
	MODEL_ENERGY_ERT,         /* the user's ERT table */
	MODEL_ENERGY_USER,        /* a vector_access_energy / energy attribute */
	MODEL_ENERGY_PRESET,      /* an embedded preset (result.energy_preset) */
	MODEL_ENERGY_PAT,         /* Timeloop's built-in fallback */
	MODEL_ENERGY_ESTIMATE,    /* estimated as Accelergy would (energy/) */
};

/*
 * The 21 storage action types of Timeloop (semantics 3.1), in the order of
 * its tables. Fine-grained counts, per-action energies and vector accesses
 * are indexed by them.
 */
enum model_op {
	MODEL_OP_RANDOM_READ, MODEL_OP_GATED_READ, MODEL_OP_SKIPPED_READ,
	MODEL_OP_RANDOM_FILL, MODEL_OP_GATED_FILL, MODEL_OP_SKIPPED_FILL,
	MODEL_OP_RANDOM_UPDATE, MODEL_OP_GATED_UPDATE, MODEL_OP_SKIPPED_UPDATE,
	MODEL_OP_RANDOM_MD_READ, MODEL_OP_GATED_MD_READ, MODEL_OP_SKIPPED_MD_READ,
	MODEL_OP_RANDOM_MD_FILL, MODEL_OP_GATED_MD_FILL, MODEL_OP_SKIPPED_MD_FILL,
	MODEL_OP_RANDOM_MD_UPDATE, MODEL_OP_GATED_MD_UPDATE, MODEL_OP_SKIPPED_MD_UPDATE,
	MODEL_OP_DECOMPRESSION, MODEL_OP_COMPRESSION,
	MODEL_OP_LEAK,
	MODEL_OP_COUNT
};

/* The three compute action types. */
enum model_compute_op {
	MODEL_COMPUTE_RANDOM, MODEL_COMPUTE_GATED, MODEL_COMPUTE_SKIPPED,
	MODEL_COMPUTE_OP_COUNT
};

/* Format access tables: which data op, and which class of action. */
enum model_fmt_op { MODEL_FMT_READ, MODEL_FMT_FILL, MODEL_FMT_UPDATE, MODEL_FMT_OP_COUNT };
enum model_fmt_class { MODEL_FMT_ACTUAL, MODEL_FMT_GATED, MODEL_FMT_SKIPPED, MODEL_FMT_CLASS_COUNT };

#define MODEL_MAX_FMT_RANKS 16    /* representation-format ranks kept per tile */
#define MODEL_REASON_MAX 256

/*
 * How a mapping with residuals (imperfect factors) is counted (docs/model.md,
 * "Imperfect factorizations"). Perfect mappings are counted the same way
 * under both.
 */
enum model_imperfect {
	MODEL_IMPERFECT_EXACT,    /* every residual iteration and partial spatial round as
				     it happens: the executor's counts */
	MODEL_IMPERFECT_TIMELOOP, /* Timeloop's extrapolation: the last tile's delivery counted
				     as a full one, the temporal iterations' product as cycles,
				     a partial spatial round's computes as full ones */
};

/* -------------------------------------------------------------- options */

struct model_options {
	enum model_footprint footprint;
	const char *energy_preset;    /* for levels without an ERT entry; NULL = default */
	bool no_fast_path;            /* always walk the nest (testing, benchmarks) */
	enum model_imperfect imperfect;
	/*
	 * Estimated energy and area tables (energy_estimate()), borrowed for the
	 * workspace's life: they price what the user's tables leave open, before
	 * any preset. NULL: none.
	 */
	const struct energy_tables *energy;
	/*
	 * Run the fast nest analysis and the walk on every mapping the fast
	 * path takes, and stop the program (BUG) at the first count in which
	 * they differ (testing). The environment sets this and no_fast_path
	 * too: FIBERLOOP_NEST=check or FIBERLOOP_NEST=walk (docs/model.md).
	 */
	bool check_fast_path;
};

#define MODEL_OPTIONS_INIT { MODEL_FOOTPRINT_TIMELOOP, NULL, false, MODEL_IMPERFECT_EXACT, NULL, false }

/* ---------------------------------------------------------------- result */

/*
 * One tensor at one storage level. Counts are per instance of the level
 * (per cluster for address generations). In a dense run the "actual" counts
 * equal the algorithmic ones and gated/skipped counts are 0. A tile that is
 * not kept (bypassed) has is_kept, replication, avg_replication, max_x,
 * max_y, confidence and parent/child_level set and its counts and energies
 * zero; its other fields are unspecified.
 */
struct model_tile {
	bool is_kept;                 /* the level stores this tensor */
	bool has_metadata;            /* a representation format is given */
	bool is_compressed;
	uint64_t shape;               /* points in the tile ("Data tile shape") */
	uint64_t partition_size;      /* share of the tensor one instance ever holds */
	uint64_t utilized_capacity;   /* words reserved (max occupancy) */
	double expected_occupancy;    /* expected non-zeros in the tile */
	double expected_density;
	double confidence;            /* 1 unless overbooking is allowed */
	const char *density_name;     /* "fixed_structured", "hypergeometric", ... */
	unsigned n_fmt_ranks;         /* ranks of the representation format, 0 = none */
	uint8_t fmt_kind[MODEL_MAX_FMT_RANKS];   /* enum fmt_kind, rank 0 = innermost */
	uint32_t fmt_md_bits[MODEL_MAX_FMT_RANKS];   /* metadata word bits per rank */
	uint32_t fmt_pl_bits[MODEL_MAX_FMT_RANKS];   /* payload word bits per rank */
	double vector_ratio;          /* compressed-tile vector access correction (3.2) */

	uint64_t replication;         /* instances holding such a tile (max) */
	double avg_replication;       /* the same, averaged (sparse: expected) */
	double keep_ratio;            /* share of those whose tile is non-empty, when empty
					 compressed tiles are dropped (else 1): the counts
					 are per instance that keeps a tile */
	uint64_t max_x, max_y;        /* spatial expansion above the level */
	uint64_t utilized_clusters;
	int parent_level, child_level;  /* nearest kept levels, -1 when none */

	/* algorithmic counts (semantics 2.6) */
	uint64_t reads, fills, updates;
	uint64_t temporal_reductions;
	uint64_t address_generations;   /* per cluster */
	double content_accesses;        /* accesses the level serves (after masking) */
	double parent_access_share;
	double link_transfers, peer_accesses, peer_fills;

	/* fine-grained counts (semantics 3.1) */
	uint64_t actions[MODEL_OP_COUNT];

	/* energy (semantics 3.3) */
	double energy_pj;               /* per instance */
	double energy_total_pj;         /* per instance x avg_replication */
	double energy_per_access_pj;    /* per actual scalar access */
	double temporal_reduction_energy_pj;   /* per instance */
	double addr_gen_energy_pj;      /* per cluster */

	/* bandwidth (semantics 3.5), per instance, after throttling */
	double bw_consumption_scale;
	double read_bw, write_bw, shared_bw;
	double fmt_read_ratio, fmt_write_ratio, fmt_shared_ratio;

	/*
	 * Per-rank format tables, last and large: only ranks [0, n_fmt_ranks)
	 * are meaningful (the rest is not cleared between evaluations).
	 */
	uint64_t fmt_capacity[MODEL_MAX_FMT_RANKS][2];     /* (metadata, payload) units */
	uint64_t fmt_access[MODEL_FMT_OP_COUNT][MODEL_FMT_CLASS_COUNT]
			   [MODEL_MAX_FMT_RANKS][2];     /* format accesses (4.3.4) */
};

/* One storage level. */
struct model_level {
	enum model_energy_source energy_source;
	double op_energy_pj[MODEL_OP_COUNT];  /* energy per vector action */
	double vector_access_energy_pj;       /* printed "Vector access energy" */
	double leakage_energy_pj;             /* total over instances and cycles */
	double power_gating_instances;        /* "Instances sharing power gating" */
	double non_power_gated_utilization;   /* fraction */
	uint64_t cycles;
	double slowdown;                      /* "Bandwidth throttling" */
	/* the roofline of the level, per instance over the whole run (waves included) */
	double read_words, write_words;       /* as its bandwidth counts them (with metadata) */
	double total_words;                   /* read + write words summed over the instances */
	double bw_cycles;                     /* those words at its bandwidth; 0 = unlimited */
	uint64_t latency_cycles;              /* its tile fills at fill_latency; 0 = none */
	double energy_pj;                     /* level total incl. leakage */
	uint64_t max_x, max_y;                /* spatial expansion above the level */
	uint64_t total_scalar_accesses;       /* op-intensity block */
	double area_um2;                      /* per instance */
	bool is_inconsequential;              /* no accesses and no energy (hidden) */
	uint64_t warps;                       /* warps holding its tile (warp_registers); 0 = none */
};

/* The arithmetic units. */
struct model_compute {
	enum model_energy_source energy_source;
	double op_energy_pj[MODEL_COMPUTE_OP_COUNT];
	uint64_t accesses;              /* computes per instance */
	uint64_t algorithmic;           /* accesses x replication */
	uint64_t random, gated, skipped;
	uint64_t max_x, max_y;          /* utilized instances (max) */
	double avg_replication;
	uint64_t max_temporal_iterations;
	uint64_t waves;                 /* rounds of the concurrent_instances (1 without) */
	uint64_t cycles_per_wave;       /* cycles = cycles_per_wave x waves */
	uint64_t block_tiles;           /* output tiles a wave-level instance runs in turn per wave */
	uint64_t prologue_cycles;       /* per such tile, not overlapped: serial_prologue_epilogue */
	uint64_t epilogue_cycles;       /* (docs/model.md, "Prologue and epilogue") */
	uint64_t cycles;
	double ideal_cycles;
	double energy_pj;
	double area_um2;                /* per instance */
};

/* The network Timeloop infers between level l and its inner neighbour. */
struct model_network {
	double energy_pj;
	double ingresses;               /* words injected, summed over tensors */
};

/*
 * Everything an evaluation produces: a fixed-size value (no pointers into
 * the workspace), so the mapper can keep a copy of the best one. Only the
 * first n_levels x n_tensors tiles are meaningful.
 */
struct model_result {
	enum model_status status;
	int fail_level;               /* storage level, -1 = compute / none */
	int fail_tensor;              /* tensor, -1 = none */
	char reason[MODEL_REASON_MAX];

	unsigned n_levels, n_tensors;
	bool is_sparse_layout;        /* sparse_optimizations given */
	const char *energy_preset;    /* preset feeding some level, or NULL */
	enum model_footprint footprint;
	bool nest_walked;             /* the general nest walk ran (not the fast path) */

	/* summary (semantics 3.6) */
	double energy_pj;
	uint64_t cycles;
	double utilization;           /* fraction */
	uint64_t algorithmic_computes;
	uint64_t actual_computes;
	/* a padded mapping (spec_mapping.pad_mask): the computes of the problem
	 * itself (the product of its bounds; the rest compute padding), and the
	 * utilization counting only them */
	bool padded;
	uint64_t useful_computes;
	double useful_utilization;
	double pj_per_compute;        /* per actual compute */
	double edp_j_cycles;          /* cycles x joules */
	uint64_t last_level_accesses; /* scalar accesses of the outermost level */
	double gflops;                /* total ops / cycles (at 1 GHz) */
	double area_mm2;              /* always 0 after evaluation (Timeloop quirk) */
	double area_total_um2;        /* every level's and the compute unit's area x instances */

	/* operational intensity */
	uint64_t total_elementwise_ops, total_reduction_ops, total_ops;
	uint64_t total_memory_accesses;
	double optimal_op_per_byte;

	struct model_compute compute;
	struct model_level levels[SPEC_MAX_LEVELS];
	struct model_network networks[SPEC_MAX_LEVELS];
	struct model_tile tiles[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
};

struct model_ws;
struct strbuf;

/*
 * What one call costs beyond the kernel (the design's 'per_call' key,
 * docs/model.md, "Per call"), in microseconds: model_per_call().
 */
struct model_per_call {
	bool present;                 /* the design has a 'per_call' key */
	double kernel_us;             /* the result's cycles at per_call.clock_mhz */
	unsigned kernels;             /* kernels a call launches: the kernel, copies,
					 compressions, stages */
	double launch_us;             /* per_call.launch_us x kernels */
	double copy_us, compress_us, stages_us;   /* the extra kernels' rooflines */
	double device_us;             /* kernel + launches + extra kernels */
	double host_us;               /* per_call.host_us x ops + setup_us */
	double call_us;               /* the longer: one call in a loop of calls */
};

/* ------------------------------------------------------------- functions */

/*
 * Prepare a workspace for evaluating mappings of 's' (borrowed; it must
 * outlive the workspace). One workspace per thread. 'opt' may be NULL for
 * the defaults. Returns NULL, with the reason in 'err' (when not NULL), if
 * opt->energy_preset names no preset.
 */
struct model_ws *model_ws_new(const struct spec_set *s, const struct model_options *opt,
			      struct strbuf *err);

/*
 * model_ws_new() for 's' and 'opt' on the memory of 'ws' (from model_ws_new()
 * or model_ws_reuse(), or NULL): the workspace is prepared afresh, as a new
 * one would be, but its buffers (about 1 MB with the fixed-size tables) are
 * kept, so that a caller evaluating one design after another on a thread
 * allocates them once. Takes 'ws': returns it prepared, or NULL with 'ws'
 * freed and the reason in 'err' as model_ws_new().
 */
struct model_ws *model_ws_reuse(struct model_ws *ws, const struct spec_set *s,
				const struct model_options *opt, struct strbuf *err);

/*
 * Evaluate mapping 'm' (derived by spec_mapping_derive(), same levels and
 * dimensions as the spec set). Writes 'out' completely; does not allocate.
 * Returns 0 when out->status is EVAL_OK, else -1 (infeasible mapping).
 */
int model_eval(struct model_ws *ws, const struct spec_mapping *m, struct model_result *out);

/*
 * What a call of the kernel evaluated into 'r' costs beyond it, from the
 * design's 'per_call' key; out->present is false without one.
 */
void model_per_call(const struct spec_set *s, const struct model_result *r,
		    struct model_per_call *out);

/*
 * The cheap pre-check the mapper prunes with: tile sizes, capacity,
 * min_utilization and fan-out only (dense tile sizes; a tile with a
 * representation format counts as empty, since compressed it may fit, and
 * under spatial skipping the fan-out is left to model_eval). Fills status,
 * fail_level, fail_tensor and reason of 'out' (nothing else). Returns 0 when
 * the mapping passes, else -1.
 */
int model_check_capacity(struct model_ws *ws, const struct spec_mapping *m,
			 struct model_result *out);

/*
 * Words of the tile of tensor 'tensor' over an op-space box of extents
 * 'op_ext' (one per dimension, 1 <= op_ext[d] <= the bound of d), counted as
 * model_eval() counts a kept tile without a representation format (its
 * utilized_capacity): under the workspace's footprint option, the convex
 * hull of each rank's projection (MODEL_FOOTPRINT_TIMELOOP) or the exact set
 * of tensor points (MODEL_FOOTPRINT_EXACT). The mapper's capacity pre-check
 * counts tiles with it, so that the two cannot disagree.
 */
uint64_t model_tile_words(struct model_ws *ws, unsigned tensor, const uint64_t *op_ext);

/*
 * Copy the meaningful part of 'src' into 'dst': the summary, the first
 * n_levels levels and networks and their n_tensors tiles (a few tens of KB
 * instead of the whole struct). 'dst' is then as good as 'src' for every
 * reader of the result.
 */
void model_result_copy(struct model_result *dst, const struct model_result *src);

/* The spec set the workspace was prepared for. */
const struct spec_set *model_ws_spec(const struct model_ws *ws);

/*
 * A ragged workload's totals (docs/model.md, "Ragged dimensions"): sums over
 * the parent's coordinates, exact for listed extents and expected for a
 * distribution; reads, fills and updates are over all instances of a level.
 */
struct model_ragged_result {
	enum model_status status;
	char reason[MODEL_REASON_MAX];
	size_t n_cases;               /* distinct combinations of extents evaluated */
	unsigned n_levels, n_tensors;
	double computes, actual_computes;
	double cycles, energy_pj;     /* the parent coordinates run one after another */
	double reads[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	double fills[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	double updates[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
};

/*
 * Evaluate ragged workload 's' under mapping 'm' (of the bounding box) case
 * by case; 'opt' as for model_ws_new(). Returns 0, or -1 with out->status
 * and out->reason (the parent's loops are not outermost at the outermost
 * level, or a case is infeasible).
 */
int model_eval_ragged(const struct spec_set *s, const struct spec_mapping *m,
		      const struct model_options *opt, struct model_ragged_result *out);

/*
 * The same with the cases' workspaces kept (the mapper evaluates many
 * mappings): _new borrows 's' (NULL with the reason in 'err' when a
 * workspace cannot be made), _eval is model_eval_ragged() on it, _free(NULL)
 * is a no-op.
 */
struct model_ragged_ws;
struct model_ragged_ws *model_ragged_ws_new(const struct spec_set *s,
					    const struct model_options *opt, struct strbuf *err);
int model_ragged_eval(struct model_ragged_ws *w, const struct spec_mapping *m,
		      struct model_ragged_result *out);
void model_ragged_ws_free(struct model_ragged_ws *w);

/* Free a workspace; model_ws_free(NULL) is a no-op. */
void model_ws_free(struct model_ws *ws);

/* Short name of a status ("ok", "over-capacity", ...). */
const char *model_status_name(enum model_status st);

/* Name of an action type as Timeloop spells it ("random_read", ...). */
const char *model_op_name(enum model_op op);

/* Name of an energy source ("ERT", "user", "preset", "PAT", "none"). */
const char *model_energy_source_name(enum model_energy_source src);

/* Names of the embedded energy presets (NULL-terminated), for help and hints. */
const char *const *model_energy_preset_names(void);

/* The preset used for levels without an ERT entry when none is chosen. */
const char *model_energy_preset_default(void);

/*
 * What preset 'preset' prices storage level 'level' of 's' as (level -1:
 * the compute unit), e.g. "an SRAM of 64 KiB" or "a 16-bit integer MAC",
 * into buf[0..size). An unknown preset writes "?".
 */
void model_energy_preset_describe(const char *preset, const struct spec_set *s, int level,
				  char *buf, size_t size);

#endif
