/*
 * The typed, validated, immutable design that every stage reads.
 *
 * spec_set_load() turns one or more YAML files (Timeloop's v0.3 tree, v0.4
 * flattened tree and v0.4 node list dialects, ERT/ART tables, sparse
 * optimizations, mapper settings and constraints) into a 'struct spec_set'.
 * Everything inside lives in the set's arena until spec_set_free(); other
 * modules read it through const pointers and never re-check user input.
 * A 'struct spec_source' holds a design's files parsed once; spec_set_build()
 * makes sets from it, each with its own overrides ("PATH=VALUE", as given by
 * '--set'), without reading or parsing the files again.
 * Storage levels are numbered from 0 = innermost (nearest the compute unit).
 * Units are in the field names (_words, _bits, _pj, _um2, _per_cycle).
 */
#ifndef SPECS_SPEC_H
#define SPECS_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"

struct strbuf;

/* ------------------------------------------------------------------ limits */

#define SPEC_MAX_DIMS 16         /* problem dimensions (bit masks are uint32_t) */
#define SPEC_MAX_TENSORS 16      /* data spaces */
#define SPEC_MAX_TENSOR_RANKS 8  /* ranks of one data space's projection */
#define SPEC_MAX_TERMS 4         /* terms in one rank's projection expression */
#define SPEC_MAX_LEVELS 16       /* storage levels */
#define SPEC_MAX_LOOPS (2 * SPEC_MAX_LEVELS * SPEC_MAX_DIMS)
#define SPEC_MAX_FMT_RANKS 16    /* ranks of one representation format */
#define SPEC_MAX_METRICS 4       /* mapper optimization metrics */
#define SPEC_MAX_THREADS 1024    /* mapper worker threads (num_threads, --threads) */

/* ------------------------------------------------------------------- enums */

/* Which Timeloop dialect the architecture was written in. */
enum spec_dialect {
	SPEC_DIALECT_V03_TREE,   /* subtree/local, nested, attributes inherited */
	SPEC_DIALECT_V04_FLAT,   /* the tree timeloopfe dumps (parsed-processed-input) */
	SPEC_DIALECT_V04_NODES,  /* nodes: with !Container/!Component/!Parallel */
};

enum spec_tech { SPEC_TECH_SRAM, SPEC_TECH_DRAM };

/* Loop kind. */
enum spec_spacetime { SPEC_TEMPORAL, SPEC_SPATIAL_X, SPEC_SPATIAL_Y };

/* Density model of a tensor (semantics 4.2, plus N:M and actual data). */
enum spec_density_kind {
	SPEC_DENSITY_FIXED_STRUCTURED,
	SPEC_DENSITY_HYPERGEOMETRIC,
	SPEC_DENSITY_BANDED,
	SPEC_DENSITY_NM,          /* exactly N non-zeros in every M along one dim */
	SPEC_DENSITY_ACTUAL,      /* non-zero pattern read from a file */
	SPEC_DENSITY_BLOCK,       /* whole blocks non-zero, a fixed number of them */
	SPEC_DENSITY_POWER_LAW,   /* Zipf row lengths, uniform positions in a row */
	SPEC_DENSITY_KIND_COUNT
};

/* Per-rank fibertree representation formats. */
enum fmt_kind {
	FMT_U,    /* uncompressed, no metadata */
	FMT_UOP,  /* uncompressed offset pairs */
	FMT_CP,   /* coordinate payload */
	FMT_B,    /* bitmask */
	FMT_RLE,  /* run-length encoding */
	FMT_UB,   /* uncompressed bitmask */
	FMT_COUNT
};

/* Named formats that expand to per-rank formats at model time. */
enum spec_named_format {
	SPEC_NAMED_NONE,
	SPEC_NAMED_CSR,
	SPEC_NAMED_CSC,
	SPEC_NAMED_COO,
	SPEC_NAMED_BITMASK,
	SPEC_NAMED_CSF,
	SPEC_NAMED_NM,
	SPEC_NAMED_RLE,           /* uncompressed ranks over run-length indices */
	SPEC_NAMED_COUNT
};

/*
 * SparseTIR's axis kinds (docs/formats-and-densities.md, "Axis kinds"): a
 * rank may be declared by its axis kind instead of a rank format; the kind
 * maps onto a rank format (and, for variable axes, offsets in the parent).
 */
enum spec_axis_kind {
	SPEC_AXIS_NONE,            /* the rank gives 'format' */
	SPEC_AXIS_DENSE_FIXED,     /* U */
	SPEC_AXIS_DENSE_VARIABLE,  /* U; the parent rank holds offsets (UOP) */
	SPEC_AXIS_SPARSE_FIXED,    /* CP with exactly n_col coordinates a fiber (ELL) */
	SPEC_AXIS_SPARSE_VARIABLE, /* CP; the rank above holds offsets (UOP) */
	SPEC_AXIS_COUNT
};

/* Storage action optimizations. */
enum spec_saf_kind {
	SPEC_SAF_GATING,
	SPEC_SAF_SKIPPING,
	SPEC_SAF_SPATIAL_SKIPPING,
	SPEC_SAF_POSITION_SKIPPING,   /* the target's own empty positions, packed (DSTC) */
	SPEC_SAF_KIND_COUNT
};

enum spec_metric {
	SPEC_METRIC_ENERGY,
	SPEC_METRIC_DELAY,
	SPEC_METRIC_EDP,
	SPEC_METRIC_LAST_LEVEL_ACCESSES,
	SPEC_METRIC_COUNT
};

enum spec_search {
	SPEC_SEARCH_EXHAUSTIVE,
	SPEC_SEARCH_RANDOM,
	SPEC_SEARCH_RANDOM_PRUNED,
	SPEC_SEARCH_LINEAR_PRUNED,
	SPEC_SEARCH_HYBRID,
	SPEC_SEARCH_COUNT
};

enum spec_constraint_kind {
	SPEC_CON_TEMPORAL,
	SPEC_CON_SPATIAL,
	SPEC_CON_BYPASS,
	SPEC_CON_UTILIZATION,
	SPEC_CON_KIND_COUNT
};

/* ------------------------------------------------------- energy and area */

/* One ERT action: the maximum energy over its argument variants. */
struct spec_ert_action {
	const char *name;
	double energy_pj;
	unsigned n_variants;
	struct diag_loc loc;
};

/* One ERT table ("system_top_level.Buffer[1..1]" -> component "Buffer"). */
struct spec_ert_table {
	const char *name;       /* as written */
	const char *component;  /* the text after the last '.', without [a..b] */
	size_t n_actions;
	const struct spec_ert_action *actions;
	struct diag_loc loc;
};

struct spec_art_entry {
	const char *name;
	const char *component;
	double area_um2;
	struct diag_loc loc;
};

struct spec_energy_tables {
	bool has_ert;
	const char *ert_version;
	size_t n_ert;
	const struct spec_ert_table *ert;
	bool has_art;
	size_t n_art;
	const struct spec_art_entry *art;
};

/* ------------------------------------------ compound components (Accelergy) */

/*
 * Accelergy's compound component classes ('compound_components' and
 * 'components' keys, v0.3 and v0.4), as written: every value is the text of
 * an expression or a literal, evaluated by energy/ when it expands a
 * component of the architecture (docs/energy.md).
 */

/* An attribute, argument or scale as written. */
struct spec_cc_value {
	const char *key;               /* NULL for a scale */
	const char *text;              /* the expression or literal */
	bool is_quoted;                /* a quoted YAML string: text, never evaluated */
	struct diag_loc loc;           /* of the value */
	const char *path;              /* its key path, for messages */
};

/* One action of one subcomponent inside a compound action. */
struct spec_cc_subaction {
	const char *name;
	struct diag_loc loc;
	size_t n_args;
	const struct spec_cc_value *args;
	const struct spec_cc_value *energy_scale;   /* NULL: 1 */
};

/* A subcomponent an action uses: "storage", "comparator[1..depth]", "adder[0]". */
struct spec_cc_use {
	const char *name;              /* as written */
	struct diag_loc loc;
	const char *path;
	size_t n_actions;
	const struct spec_cc_subaction *actions;
};

/* An action of a compound class. */
struct spec_cc_action {
	const char *name;
	struct diag_loc loc;
	size_t n_args;
	const struct spec_cc_value *args;   /* argument defaults */
	size_t n_uses;
	const struct spec_cc_use *uses;
};

/* A subcomponent of a compound class. */
struct spec_cc_sub {
	const char *name;              /* as written; may hold "[first..last]" expressions */
	const char *class_name;
	struct diag_loc loc, class_loc;
	const char *path;
	size_t n_attrs;
	const struct spec_cc_value *attrs;
	const struct spec_cc_value *area_scale;   /* NULL: 1 */
};

/* A compound component class. */
struct spec_cc_class {
	const char *name;
	struct diag_loc loc;
	const char *path;              /* "compound_components.classes[2]" */
	bool is_primitive;             /* no 'subcomponents': defaults for a primitive */
	size_t n_attrs;
	const struct spec_cc_value *attrs;   /* defaults, in order; "must_specify" */
	size_t n_subs;
	const struct spec_cc_sub *subs;
	size_t n_actions;
	const struct spec_cc_action *actions;
};

struct spec_components {
	size_t n_classes;
	const struct spec_cc_class *classes;   /* a name given twice: the later one */
};

/* ----------------------------------------------------------- architecture */

/*
 * A free-form attribute as written (scalars only): its own attributes first,
 * then those inherited from enclosing containers (innermost first).
 */
struct spec_attr {
	const char *key;
	const char *value;
	struct diag_loc loc;
	bool is_quoted;                /* written as a quoted string: text, never a number */
	bool is_inherited;             /* from an enclosing container */
};

/* Parameters of the network Timeloop infers below a buffer (semantics 3.7). */
struct spec_network_params {
	unsigned network_word_bits;        /* 0 = the level's word_bits */
	bool has_energy_per_hop;
	double energy_per_hop_pj;
	double router_energy_pj;
	double ingress_energy_pj;          /* "energy-per-ingress" */
	bool has_wire_energy;
	double wire_energy_pj;             /* per bit per mm */
	double tile_width_mm;
	const char *network_type;          /* e.g. "1:1", "M:N"; NULL = default */
};

/* A storage level (buffer). */
struct spec_level {
	const char *name;          /* without the [a..b] instance range */
	const char *class_name;
	const char *subclass;      /* NULL when absent */
	struct diag_loc loc;
	enum spec_tech technology;
	bool is_dummy;             /* dummy_storage: a spatial container's level */
	uint64_t instances;
	unsigned mesh_x, mesh_y;
	unsigned fanout_x, fanout_y;   /* mesh of the inner neighbour / own mesh */
	unsigned word_bits;
	unsigned block_size;           /* words per vector access */
	unsigned cluster_size;
	bool has_width;
	unsigned width_bits;
	bool has_size;                 /* false: unbounded (DRAM); prints '-' */
	uint64_t size_words;
	uint64_t effective_size_words; /* floor(size / multiple_buffering) */
	unsigned metadata_block_size;
	unsigned metadata_word_bits;   /* default metadata word bits; 0 = unset */
	unsigned metadata_storage_width; /* bits per metadata row; 0 = none */
	bool has_metadata_storage_depth;
	uint64_t metadata_storage_depth;
	uint64_t metadata_size_words;  /* depth * metadata_block_size */
	uint64_t metadata_size_bits;   /* depth * metadata_storage_width */
	uint64_t effective_metadata_size_bits;
	double multiple_buffering;
	double min_utilization;
	bool has_read_bw, has_write_bw, has_shared_bw;
	double read_bw_words_per_cycle;
	double write_bw_words_per_cycle;
	double shared_bw_words_per_cycle;
	double bw_consumption_scale[SPEC_MAX_TENSORS]; /* per data space; 1.0 default */
	unsigned num_ports;
	unsigned num_banks;
	bool reduction_supported;
	uint64_t network_fill_latency_cycles;
	uint64_t concurrent_instances;  /* instances that run at once (the rest in waves); 0 = all */
	uint64_t fill_latency_cycles;   /* from a tile fill's request to its data; 0 = not modelled */
	bool serial_prologue_epilogue;  /* wave level: each instance's first fill and its output's
					   drain are not overlapped with its work (GPU thread blocks) */
	uint64_t warp_registers;        /* registers one warp may hold; 0 = no warps modelled */
	uint64_t network_drain_latency_cycles;
	bool allow_overbooking;
	bool concordant_compressed_tile_traversal;
	bool decompression_supported;
	bool compression_supported;
	bool has_vector_access_energy;
	double vector_access_energy_pj;
	double addr_gen_energy_pj;     /* < 0: adder energy of the technology */
	unsigned power_gated_at;       /* storage level index; own index by default */
	bool has_cluster_area;
	double cluster_area_um2;
	const char *network_read;      /* user network names; NULL = inferred */
	const char *network_fill;
	const char *network_update;
	const char *network_drain;
	struct spec_network_params network;
	const struct spec_ert_table *ert;  /* energy table feeding this level, or NULL */
	const struct spec_art_entry *art;  /* area entry, or NULL */
	size_t n_attrs;
	const struct spec_attr *attrs;
};

/* The arithmetic unit (topology level 0). */
struct spec_compute {
	const char *name;
	const char *class_name;
	const char *subclass;
	struct diag_loc loc;
	uint64_t instances;
	unsigned mesh_x, mesh_y;
	unsigned word_bits;
	bool has_energy;
	double energy_pj;              /* user override of the compute energy */
	bool has_area;
	double area_um2;
	const char *network_operand;
	const char *network_result;
	const struct spec_ert_table *ert;
	const struct spec_art_entry *art;
	size_t n_attrs;
	const struct spec_attr *attrs;
};

/* A user-declared network component (XY_NoC, Legacy, ...). */
struct spec_network {
	const char *name;
	const char *class_name;
	struct diag_loc loc;
	struct spec_network_params params;
	const struct spec_ert_table *ert;
	size_t n_attrs;
	const struct spec_attr *attrs;
};

struct spec_arch {
	enum spec_dialect dialect;
	const char *version;
	struct diag_loc loc;
	const char *top_name;          /* the outermost container ("system"), or NULL */
	unsigned n_levels;
	const struct spec_level *levels;   /* [0] innermost ... [n_levels-1] outermost */
	struct spec_compute compute;
	size_t n_networks;
	const struct spec_network *networks;
};

/*
 * The seconds of a cycle the design gives: the architecture's
 * global_cycle_seconds attribute (Accelergy's; the compute unit's first,
 * then the levels' from the outermost), when it is a positive number.
 */
bool spec_arch_cycle_seconds(const struct spec_arch *a, double *out);

/* --------------------------------------------------------------- workload */

struct spec_coef {
	const char *name;
	int64_t value;                 /* the instance value, else the default */
	struct diag_loc loc;
};

/* One term of a rank projection: coef * dim. */
struct spec_term {
	unsigned dim;
	int coef_idx;                  /* index into coefs, or -1 for a literal 1 */
	int64_t coef;                  /* resolved value */
};

struct spec_rank_proj {
	unsigned n_terms;
	struct spec_term terms[SPEC_MAX_TERMS];
};

/* A loaded non-zero pattern (Matrix Market or dense text), coordinates 0-based. */
struct spec_matrix {
	const char *file;
	unsigned n_ranks;
	uint64_t shape[SPEC_MAX_TENSOR_RANKS];
	size_t nnz;
	const uint64_t *coords;        /* nnz * n_ranks, row-major by entry */
	const double *values;          /* nnz values (1.0 for a pattern file) */
	unsigned shape_line;           /* line that fixes the shape (size line, first row) */
	unsigned shape_col[2];         /* column on it of each rank's extent */
};

struct spec_density {
	enum spec_density_kind kind;
	double density;                /* expected fraction of non-zeros */
	uint64_t workload_tensor_size; /* hypergeometric; 0 = the tensor's size */
	uint64_t band_width;           /* banded */
	unsigned nm_n, nm_m;           /* N:M */
	unsigned nm_dim;               /* dimension along which the groups of M run */
	const struct spec_matrix *data;/* actual data; NULL otherwise */
	uint64_t block_shape[SPEC_MAX_TENSOR_RANKS]; /* block: extents per tensor rank */
	double exponent;               /* power_law: row i's share ~ (i + 1)^-exponent */
	unsigned row_dim;              /* power_law: dimension whose rank holds the rows */
	bool permute_rows;             /* power_law: rows in a random order */
	bool is_default;               /* not given: fixed_structured, 1.0 */
	struct diag_loc loc;
};

struct spec_tensor {
	const char *name;
	struct diag_loc loc;
	unsigned n_ranks;
	struct spec_rank_proj ranks[SPEC_MAX_TENSOR_RANKS];
	bool read_write;
	uint32_t dim_mask;             /* dimensions that project to this tensor */
	/* points of rank r's projection over the workload bounds (its convex
	 * hull): 1 + sum over its terms of |coef| * (bound - 1) */
	uint64_t rank_extent[SPEC_MAX_TENSOR_RANKS];
	uint64_t size;                 /* product of the rank extents */
	struct spec_density density;
	/* --prune: the dense tensor that was pruned to the structured_nm 'density'
	 * (its values come from this model or file), else NULL */
	const struct spec_density *prune_source;
};

/*
 * A ragged (dense-variable) dimension: its extent at each coordinate of its
 * parent dimension comes from a list (or a file) or a distribution; its
 * bound is the largest extent (docs/yaml-reference.md, "ragged").
 */
enum spec_ragged_source {
	SPEC_RAGGED_LIST,              /* one extent per parent coordinate */
	SPEC_RAGGED_UNIFORM,           /* each extent uniform in [min, max], independent */
};

struct spec_ragged {
	unsigned dim, parent;
	enum spec_ragged_source source;
	uint64_t n_lengths;            /* LIST: = the parent's bound */
	const uint64_t *lengths;       /* LIST: [parent coordinate] */
	uint64_t min, max;             /* UNIFORM (and the extremes of a list) */
	struct diag_loc loc;
};

struct spec_workload {
	const char *shape_name;
	struct diag_loc loc;
	unsigned n_dims;
	const char *dim_names[SPEC_MAX_DIMS];
	uint64_t bounds[SPEC_MAX_DIMS];
	unsigned n_coefs;
	const struct spec_coef *coefs;
	unsigned n_tensors;
	const struct spec_tensor *tensors;
	unsigned n_ragged;             /* ragged dimensions (one parent for all) */
	const struct spec_ragged *ragged;
};

/* ---------------------------------------------------------------- mapping */

/* One loop: for dim in [0:end) (stride 1), residual_end on the last pass. */
struct spec_loop {
	uint8_t dim;
	uint8_t spacetime;             /* enum spec_spacetime */
	uint8_t level;                 /* owning storage level */
	uint64_t end;
	uint64_t residual_end;         /* == end when the factor is perfect */
};

/* The directives of one storage level, as written (after defaults). */
struct spec_map_level {
	uint64_t temporal_factors[SPEC_MAX_DIMS];
	uint64_t temporal_residuals[SPEC_MAX_DIMS];  /* == factor when perfect */
	uint8_t temporal_perm[SPEC_MAX_DIMS];        /* every dim, innermost first */
	bool has_spatial;
	uint64_t spatial_factors[SPEC_MAX_DIMS];
	uint64_t spatial_residuals[SPEC_MAX_DIMS];
	uint8_t spatial_perm[SPEC_MAX_DIMS];         /* every dim, innermost first */
	unsigned split;                /* spatial perm positions < split are X */
	uint32_t keep_mask;            /* tensors kept here */
	uint32_t no_temporal_reuse_mask;
	uint32_t no_multicast_mask;    /* spatial no_reuse */
	uint32_t no_link_transfer_mask;
	uint32_t rmw_first_update_mask;
	uint32_t no_coalesce_mask;
	struct diag_loc temporal_loc, spatial_loc, datatype_loc;
};

/*
 * A mapping: per-level directives plus the loop nests derived from them by
 * spec_mapping_derive() (semantics 1.4). Plain data with no pointers, so the
 * mapper can build and copy mappings without allocation.
 */
struct spec_mapping {
	unsigned n_levels;
	unsigned n_dims;
	struct spec_map_level levels[SPEC_MAX_LEVELS];

	/* derived: the loop nest without trivial loops, innermost first */
	unsigned n_loops;
	struct spec_loop loops[SPEC_MAX_LOOPS];
	unsigned boundary[SPEC_MAX_LEVELS];  /* index of level l's outermost loop */
	/* derived: every loop, trivial ones included; level l owns
	 * complete[complete_begin[l] .. complete_begin[l+1]) (spatial first) */
	unsigned n_complete;
	struct spec_loop complete[SPEC_MAX_LOOPS];
	unsigned complete_begin[SPEC_MAX_LEVELS + 1];
	bool is_imperfect;                   /* some residual_end != end */
	/* dimensions whose factors cover more than the bound, every tile full:
	 * the extra iterations compute padding ('pad' on a directive) */
	uint32_t pad_mask;
};

/* ---------------------------------------------------- sparse optimizations */

struct spec_rank_format {
	enum fmt_kind kind;
	int metadata_word_bits;        /* -1 = the level's default */
	int payload_word_bits;         /* -1 = the level's default */
	unsigned n_flatten_groups;     /* flattened_rankIDs: groups of dims */
	uint32_t flatten_groups[SPEC_MAX_TENSOR_RANKS];
	enum spec_axis_kind axis;      /* SPEC_AXIS_NONE: declared by 'format' */
	uint64_t n_col;                /* sparse_fixed: coordinates per fiber; else 0 */
	int parent;                    /* dense_variable: rank index (outermost 0); else -1 */
	struct diag_loc loc;
};

/* The representation format of one tensor at one level. */
struct spec_tensor_format {
	unsigned tensor;
	bool inner_to_outer;           /* rank_application_order */
	enum spec_named_format named;  /* NONE: 'ranks' as written */
	unsigned nm_n, nm_m;           /* for SPEC_NAMED_NM */
	int named_metadata_word_bits;  /* for named formats; -1 = default */
	unsigned n_ranks;
	struct spec_rank_format ranks[SPEC_MAX_FMT_RANKS];  /* OUTERMOST rank first */
	struct diag_loc loc;
};

struct spec_saf_option {
	unsigned target;               /* tensor index */
	unsigned n_conditions;
	uint8_t conditions[SPEC_MAX_TENSORS];  /* leader tensors, as listed */
	uint32_t condition_mask;
	struct diag_loc loc;
};

/* One action_optimization entry: a group whose best option is kept. */
struct spec_saf_group {
	enum spec_saf_kind kind;
	unsigned n_options;
	const struct spec_saf_option *options;
	struct diag_loc loc;
};

/* Sparse optimizations of one component. */
struct spec_sparse_target {
	const char *name;
	struct diag_loc loc;
	bool is_compute;               /* the arithmetic unit */
	unsigned level;                /* storage level index when !is_compute */
	unsigned n_formats;
	const struct spec_tensor_format *formats;
	unsigned n_groups;
	const struct spec_saf_group *groups;
	bool compute_gating;           /* gating / gate_on_zero_operand */
	bool compute_skipping;         /* skipping / skip_on_not_aligned_operands */
};

struct spec_sparse {
	bool present;                  /* the key exists (switches the report layout) */
	unsigned n_targets;
	const struct spec_sparse_target *targets;
};

/* ---------------------------------------------- mapper and its constraints */

/* Imperfect factors in the mapspace (docs/mapper.md, "Imperfect factors"). */
enum spec_imperfect {
	SPEC_IMPERFECT_AUTO,          /* dimensions whose bound has a prime factor above 7 */
	SPEC_IMPERFECT_OFF,           /* perfect factors only */
	SPEC_IMPERFECT_ON,            /* every dimension */
	SPEC_IMPERFECT_COUNT
};

struct spec_mapper_settings {
	bool present;
	struct diag_loc loc;
	enum spec_search algorithm;
	unsigned num_threads;          /* 0 = all cores */
	unsigned n_metrics;
	enum spec_metric metrics[SPEC_MAX_METRICS];  /* priority order */
	uint64_t search_size;          /* 0 = unlimited */
	uint64_t timeout;              /* consecutive invalid mappings; 0 = none */
	uint64_t victory_condition;    /* consecutive non-improving; 0 = none */
	unsigned max_permutations_per_if_visit;
	uint64_t seed;
	double time_limit_s;           /* 0 = none */
	enum spec_imperfect imperfect;
};

struct spec_constraint {
	enum spec_constraint_kind kind;
	unsigned level;
	struct diag_loc loc;
	uint32_t fixed_mask;           /* dims whose factor is fixed */
	uint64_t factors[SPEC_MAX_DIMS];      /* fixed value (0 in YAML -> the bound) */
	uint32_t max_mask;             /* dims with an upper bound ("<=") */
	uint64_t max_factors[SPEC_MAX_DIMS];
	unsigned n_perm;               /* permutation given: innermost first */
	uint8_t perm[SPEC_MAX_DIMS];
	bool has_split;
	unsigned split;
	uint32_t keep_mask, bypass_mask;
	uint32_t no_link_transfer_mask;  /* spatial: tensors the level's mappings send no link transfers */
	uint32_t no_multicast_mask;    /* spatial 'no_reuse': tensors neither multicast nor reduced */
	double min_utilization;        /* utilization constraints */
	uint64_t max_remainder;        /* Ruby's 'remainders: N': residuals at most N; 0 = none */
	uint32_t pad_mask;             /* 'pad: [dims]': those dimensions are padded */
};

struct spec_constraints {
	unsigned n;
	const struct spec_constraint *items;
};

/* ------------------------------------------------------------------- STPU */

/*
 * The Sparse-TPU design (the 'stpu' top-level key; docs/stpu.md): a systolic
 * array, the packing parameters of the seed's column packers, an energy table
 * and the sparse matrix of the SpMV. Self-contained: no architecture, problem
 * or mapping is needed beside it.
 */
enum spec_stpu_dtype { SPEC_STPU_INT8, SPEC_STPU_FP32, SPEC_STPU_DTYPE_COUNT };

/*
 * The packing schemes, the baseline first (the order of accel/'s): none
 * (the TPU), STPU-C0, STPU-C1, KMZ. 'packing.scheme' names the one whose
 * figures a job's row reports (sweep, batch); every scheme is evaluated.
 */
enum spec_stpu_scheme { SPEC_STPU_NONE, SPEC_STPU_C0, SPEC_STPU_C1, SPEC_STPU_KMZ,
			SPEC_STPU_SCHEME_COUNT };

/* Entries of the STPU energy table (pJ); the preset fills them, YAML overrides. */
enum spec_stpu_energy_key {
	SPEC_STPU_E_MAC,              /* one multiply-add in the dtype */
	SPEC_STPU_E_REGISTER_BIT,     /* one register bit written */
	SPEC_STPU_E_COMPARE_BIT,      /* one bit of an index comparison */
	SPEC_STPU_E_SRAM_BIT,         /* one bit read or written in a buffer */
	SPEC_STPU_E_WEIGHT_BUFFER_BIT,
	SPEC_STPU_E_VECTOR_BUFFER_BIT,
	SPEC_STPU_E_OUTPUT_BUFFER_BIT,
	SPEC_STPU_E_HOLD,             /* STPU PE states */
	SPEC_STPU_E_LATCH,
	SPEC_STPU_E_ACCUMULATE,
	SPEC_STPU_E_BYPASS,
	SPEC_STPU_E_X_FORWARD,        /* a vector element (value + index) moved one PE down */
	SPEC_STPU_E_TPU_MAC,          /* TPU and KMZ PEs: multiply-add + partial-sum register */
	SPEC_STPU_E_TPU_X_FORWARD,    /* a vector value moved one PE down */
	SPEC_STPU_E_COUNT
};

#define SPEC_STPU_MAX_ITER 8

/*
 * What the STPU model can generate from a density: a uniform matrix of at
 * most 2^32 positions (a bitmap of them), or, beyond that, of at most 2^27
 * non-zeros (sorted positions); a power-law one of at most 2^27; a block
 * one of at most 2^32 blocks; and at most 2^32 non-zeros in any (banded,
 * block). A design asking for more is refused when it is read.
 */
#define SPEC_STPU_MAX_POSITIONS (UINT64_C(1) << 32)
#define SPEC_STPU_MAX_SORTED_NONZEROS (UINT64_C(1) << 27)
#define SPEC_STPU_MAX_NONZEROS (UINT64_C(1) << 32)

struct spec_stpu {
	struct diag_loc loc;
	unsigned array_rows;           /* PE rows: the array height, the partition height */
	unsigned array_cols;           /* PE columns: the array width */
	enum spec_stpu_dtype dtype;
	unsigned index_bits;           /* column-index bits; 0 = ceil(log2(matrix_cols)) */
	unsigned max_collision_row;    /* STPU-C1 MAX_COLLISION_ROW */
	unsigned n_iter;               /* STPU-C1 N_ITER */
	unsigned max_collision_group[SPEC_STPU_MAX_ITER];  /* per iteration */
	enum spec_stpu_scheme scheme;  /* the row's scheme (default STPU-C1) */
	bool has_scheme;               /* given in YAML */
	unsigned kmz_max_columns;      /* KMZ alpha: columns per group */
	double kmz_max_conflict_fraction;  /* KMZ gamma: conflicting rows per group / rows */
	const char *energy_preset;
	bool has_energy[SPEC_STPU_E_COUNT];   /* given in YAML */
	double energy_pj[SPEC_STPU_E_COUNT];
	uint64_t matrix_rows, matrix_cols;
	struct spec_density matrix;    /* ACTUAL (with data) when read from a file */
	uint64_t seed;                 /* pattern generation */
};

/* ------------------------------------------------- IPU sparse layer (accel/) */

/*
 * An 'ipu:' design: a Graphcore IPU (device) running one PopSparse sparse
 * fully-connected layer (seed 000). Dimensions follow the seed: the sparse
 * operand W is [X, Y], the dense input [Y, Z], the output [X, Z]. The layer
 * is also described as the workload of the set (dims X and Y in blocks of
 * block_size, Z in elements; one data space 'W'), so that W's density uses
 * every density kind and --tensor W=FILE.
 */
enum spec_ipu_dtype { SPEC_IPU_HALF, SPEC_IPU_FLOAT, SPEC_IPU_N_DTYPES };
enum spec_ipu_sparsity { SPEC_IPU_DYNAMIC, SPEC_IPU_STATIC };
enum spec_ipu_pass { SPEC_IPU_FWD, SPEC_IPU_GRAD_A, SPEC_IPU_GRAD_W, SPEC_IPU_N_PASSES };

#define SPEC_IPU_N_BLOCK_KINDS 3   /* block kernels 4x4, 8x8, 16x16 */

struct spec_ipu_device {
	const char *preset;            /* "gc200" or "bow" */
	uint64_t tiles;
	uint64_t bytes_per_tile;
	unsigned workers;              /* worker contexts per tile */
	double clock_hz;
	unsigned exchange_bytes_per_cycle;   /* per tile */
	bool exchange_bus_sharing;     /* 2 tiles per shared exchange bus */
	uint64_t sync_cycles;          /* per exchange phase (0: none, as PopLibs) */
	uint64_t exchange_overhead_cycles;   /* fixed cost of each exchange phase */
	unsigned amp_macs_per_cycle[SPEC_IPU_N_DTYPES];   /* dense AMP, per tile */
	unsigned conv_units[SPEC_IPU_N_DTYPES];           /* AMP units per input type */
	unsigned conv_units_half_float;   /* AMP units for half input with float partials */
	/* sparse AMP block kernels, MACs per tile-cycle, [dtype][4x4, 8x8, 16x16]
	 * (0: no kernel of that size for that type) */
	double block_macs_per_cycle[SPEC_IPU_N_DTYPES][SPEC_IPU_N_BLOCK_KINDS];
	struct diag_loc loc;
};

struct spec_ipu_layer {
	uint64_t x, y, z;              /* elements */
	unsigned block_size;           /* 1 = element-wise */
	enum spec_ipu_dtype dtype;
	enum spec_ipu_dtype partials_type;      /* the sparse matmul's */
	enum spec_ipu_dtype dense_partials_type;   /* the dense baseline's */
	uint32_t passes;               /* bit (1 << enum spec_ipu_pass); fwd always */
	enum spec_ipu_sparsity sparsity;
	double available_memory_proportion;
	double meta_info_bucket_oversize_proportion;
	unsigned groups;               /* 1 (the seed's known limitation) */
	unsigned ipus;                 /* 1 */
	unsigned partition[3];         /* plan constraint on P_X, P_Y, P_Z; 0 = free */
	unsigned tensor;               /* index of W in the set's workload */
	struct diag_loc loc;
};

struct spec_ipu {
	struct spec_ipu_device device;
	struct spec_ipu_layer layer;
	struct diag_loc loc;
};

/* ------------------------------------------------------------ the spec set */

struct spec_source;
struct spec_jinja;

struct ld;

/*
 * What a design describes, as the loader sees it: the loader's column of
 * the registry of design kinds (job/kinds.c, docs/ARCHITECTURE.md). The
 * default kind (Timeloop: architecture, problem, mapping, ...) has no key
 * of its own and lists the top-level keys that are its sections; any other
 * kind (an accelerator model of accel/) has one top-level key that stands
 * alone ('ipu', 'stpu'), next to no section of the default kind. 'load'
 * parses the design into the set being built (the kind's own fields, and
 * s->design); it reports through the loader's context and returns 0 or -1.
 */
struct spec_kind {
	const char *name;              /* "timeloop", "ipu", "stpu" */
	const char *key;               /* its top-level key; NULL: the default kind */
	const char *const *sections;   /* the default kind: its top-level keys (NULL-ended) */
	int (*load)(struct ld *ld);
};

/* The kinds specs/ has loaders for (the default, then the accelerator models). */
extern const struct spec_kind spec_kind_timeloop;
extern const struct spec_kind spec_kind_ipu;
extern const struct spec_kind spec_kind_stpu;

/* At most this many kinds in a list given to the loader. */
#define SPEC_MAX_KINDS 16

/* A dense stage that runs beside the kernel per call (per_call.stages). */
struct spec_per_call_stage {
	const char *name;
	double bytes;                  /* read and written at the outermost level */
	double flops;                  /* at the compute units' peak; 0 = memory only */
	uint64_t count;                /* times per call */
};

/* What a call costs beyond the kernel: the 'per_call' key (docs/model.md, "Per call"). */
struct spec_per_call {
	bool present;
	struct diag_loc loc;
	double clock_mhz;              /* the kernel's cycles to time */
	double host_us;                /* host time per operator the framework dispatches */
	uint64_t ops;                  /* operators per call */
	double setup_us;               /* host time per call beyond them (descriptors, plans) */
	double launch_us;              /* device time per kernel launched beyond its work */
	uint32_t copy_mask;            /* tensors copied each call (transposes, padding) */
	uint32_t compress_mask;        /* tensors pruned and compressed each call */
	size_t n_stages;
	const struct spec_per_call_stage *stages;
};

struct spec_set {
	struct arena arena;            /* owns everything below */
	size_t n_files;
	const char *const *files;      /* borrowed from the source */
	struct spec_arch arch;
	struct spec_workload workload;
	bool has_mapping;
	const struct spec_mapping *mapping;
	struct spec_sparse sparse;
	struct spec_energy_tables energy;
	struct spec_components components; /* Accelergy's compound component classes */
	size_t n_variables;
	const struct spec_attr *variables; /* the scalar 'variables', evaluated */
	struct spec_mapper_settings mapper;
	struct spec_constraints constraints;
	struct spec_per_call per_call; /* the 'per_call' key; present = false without */
	const struct spec_kind *kind;  /* which model the design is for */
	const void *design;            /* a kind with a key of its own: what its loader made */
	const struct spec_ipu *ipu;    /* an 'ipu' design: the 'ipu' key (== design), else NULL */
	const struct spec_stpu *stpu;  /* an 'stpu' design: the 'stpu' key (== design), else NULL */
	const struct spec_source *source;  /* what it was built from */
	bool owns_source;              /* spec_set_load(): freed with the set */
};

struct spec_load_options {
	bool require_mapping;          /* 'model', 'exec': a mapping must be given */
	bool allow_no_problem;         /* 'check' of an architecture alone */
	const char *const *tensor_files; /* "NAME=FILE" overrides: actual data for NAME */
	size_t n_tensor_files;
	const char *const *prunes;     /* "NAME=N:M[:DIM]": dense NAME pruned to N:M (--prune) */
	size_t n_prunes;
	const char *const *template_vars; /* "NAME=VALUE": Jinja2 variables ('--var') */
	size_t n_template_vars;
	struct spec_jinja *jinja;      /* the helper for templates; NULL: the shared one
					  (spec_jinja_shared()) */
	const struct spec_kind *const *kinds;  /* the kinds a design may be of, the default
					  first, NULL-ended; NULL: { &spec_kind_timeloop } */
};

/*
 * One override "PATH=VALUE" (docs/yaml-reference.md, "Overrides"): PATH
 * names a node of the merged design (a.b[2].c, list[key=value,...]) and
 * VALUE is YAML flow text that replaces it. Diagnostics about an override
 * are located in 'origin', line 1, at the column of 'text' they concern;
 * or, when the caller read the override from a file (a batch job's 'set')
 * and set 'at' before parsing, where its text is written there.
 */
struct spec_override {
	const char *text;              /* "PATH=VALUE" */
	const char *origin;            /* the file name of its locations: "--set 'TEXT'"
					  (a caller may point it at a string of its own) */
	const char *path;              /* PATH (NUL-terminated) */
	const char *value;             /* VALUE (NUL-terminated) */
	unsigned value_col;            /* 1-based column of VALUE in 'text' */
	char *buf_;                    /* owns the strings above */
	struct diag_loc at;            /* where 'text' starts in a file; line 0: nowhere */
	struct diag_loc value_at;      /* where VALUE starts, when 'text' was joined from two
					  places (PATH: VALUE); line 0: right after "PATH=" */
	/*
	 * A file-valued override (a sweep's '@FILE' value; borrowed): VALUE is
	 * the YAML file, located in it: at PATH, its top-level key of PATH's last
	 * key when it has one, else the whole file; with 'whole_file', PATH is
	 * ignored and every top-level key of the file replaces the design's.
	 */
	const char *value_file;
	bool whole_file;
};

#define SPEC_OVERRIDE_INIT { NULL, NULL, NULL, NULL, 0, NULL, { NULL, 0, 0 }, { NULL, 0, 0 }, \
			     NULL, false }

/* ----------------------------------------------- values and expressions */

/*
 * A value of the Python-style expressions of Timeloop's v0.4 front end and
 * of Accelergy's attributes (docs/yaml-reference.md, "Expressions").
 */
enum spec_value_kind { SPEC_VALUE_NONE, SPEC_VALUE_BOOL, SPEC_VALUE_INT, SPEC_VALUE_FLOAT,
		       SPEC_VALUE_STR };

struct spec_value {
	enum spec_value_kind kind;
	bool b;
	int64_t i;
	double f;
	const char *s;                 /* SPEC_VALUE_STR: borrowed or in the caller's arena */
};

/* Why an expression failed: 'msg' concerns byte 'offset' of its text. */
struct spec_expr_error {
	size_t offset;
	bool syntax;                   /* the text is no expression at all */
	char msg[256];
};

/*
 * Bind the name name[0..len): 0 with '*out' set, or 1 when it is not bound
 * (the math constants pi, e, tau, inf and nan are tried next).
 */
typedef int (*spec_name_fn)(void *ctx, const char *name, size_t len, struct spec_value *out);

/*
 * Evaluate the expression 'text' with the names of 'lookup' (may be NULL).
 * Strings the expression makes go into 'a'. Returns 0 with '*out' set, or
 * -1 with '*err' set.
 */
int spec_expr_eval(const char *text, spec_name_fn lookup, void *ctx, struct arena *a,
		   struct spec_value *out, struct spec_expr_error *err);

/*
 * The value of the YAML scalar text 'text' as a literal (null, booleans,
 * integers and floats; anything else, or anything 'quoted', a string).
 * Returns true for a literal other than a string.
 */
bool spec_value_literal(const char *text, bool quoted, struct spec_value *out);

/* 'v' as a number (booleans as 0/1); false for a string or None. */
bool spec_value_number(const struct spec_value *v, double *out);

/* Append 'v' as Python prints it (ints in decimal, floats as repr) to 'sb'. */
void spec_value_format(const struct spec_value *v, struct strbuf *sb);

/* ------------------------------------------------------------- functions */

/*
 * Load and merge 'paths' (YAML files merged at the top level, Timeloop-style)
 * into a validated spec set. Every problem found is appended to 'dl'. Returns
 * the set, or NULL when any error was reported. 'opt' may be NULL.
 */
struct spec_set *spec_set_load(const char *const *paths, size_t n_paths,
			       const struct spec_load_options *opt, struct diag_list *dl);

/*
 * spec_set_load() with the overrides ov[0..n_ov) applied as spec_set_build()
 * applies them; the set owns the source it parses (for a design run once;
 * a sweep keeps one source and builds from it). 'ov' may be NULL when
 * n_ov is 0.
 */
struct spec_set *spec_set_load_overrides(const char *const *paths, size_t n_paths,
					 const struct spec_override *ov, size_t n_ov,
					 const struct spec_load_options *opt,
					 struct diag_list *dl);

/*
 * A Jinja2 helper: a Python 3 process with Jinja2 running the script
 * fiberloop-jinja.py, which renders the design files that are templates
 * (docs/yaml-reference.md, "Timeloop v0.4 front end"). It starts on the
 * first template it is asked to render and stays up for later ones, so a
 * caller that loads many designs shares one. 'python' is the interpreter
 * (NULL: $FIBERLOOP_PYTHON, else "python3" from PATH); 'script' the helper
 * (NULL: $FIBERLOOP_JINJA_HELPER, else the installed copy, else the source
 * tree's). Threads may share one: it renders one template at a time.
 */
struct spec_jinja *spec_jinja_new(const char *python, const char *script);

/*
 * The process's shared helper (spec_jinja_new(NULL, NULL), made on the
 * first call and stopped at exit), which every load that names no helper
 * uses: a run renders all its templates (a network's layers, a sweep's
 * points, a batch's designs) through one Python process. Do not free it.
 */
struct spec_jinja *spec_jinja_shared(void);

/* Stop the helper process and free 'j'. spec_jinja_free(NULL) is a no-op. */
void spec_jinja_free(struct spec_jinja *j);

/*
 * A new, empty source. Add the design's files to it, then build sets from
 * it: after the last spec_source_add_*() the source is immutable, and any
 * number of threads may call spec_set_build() on it at once.
 */
struct spec_source *spec_source_new(void);

/*
 * The kinds a design of 'src' may be of: kinds[0..) NULL-ended, the default
 * kind first (at most SPEC_MAX_KINDS; the pointers are copied, the kinds
 * borrowed for the life of the source). Call before the first
 * spec_source_add_*(): their top-level keys are known from then on.
 * Without it, only the default kind, spec_kind_timeloop.
 */
void spec_source_set_kinds(struct spec_source *src, const struct spec_kind *const *kinds);

/*
 * The kind of the design in 'src' by its top-level keys so far (the kind
 * whose key it gives, else the default kind); the loader checks the rest.
 */
const struct spec_kind *spec_source_kind(const struct spec_source *src);

/*
 * Read and parse the YAML file 'path' into 'src' and merge its top-level
 * keys with those of the files added before (as spec_set_load() does).
 * Problems are appended to 'dl'. Returns 0, or -1 when the file could not
 * be read or parsed or its top-level keys clash (the source then builds
 * nothing). The source keeps a copy of 'path' for its locations.
 */
int spec_source_add_file(struct spec_source *src, const char *path, struct diag_list *dl);

/*
 * spec_source_add_file() of a network layer 'path': its top-level keys
 * replace those the files added before gave (its 'problem' replaces the
 * design's), except the lists that files concatenate.
 */
int spec_source_add_layer(struct spec_source *src, const char *path, struct diag_list *dl);

/*
 * Render the templates among the files added from now on with the Jinja2
 * variables vars[0..n_vars) ("NAME=VALUE"; the value typed as a YAML
 * scalar: true/false, a number, else a string) using the helper 'jinja'
 * (NULL: the shared one, spec_jinja_shared()). Both are borrowed until the
 * last spec_source_add_file().
 */
void spec_source_set_templates(struct spec_source *src, const char *const *vars, size_t n_vars,
			       struct spec_jinja *jinja);

/*
 * spec_source_add_file() of the in-memory YAML 'text' ('len' bytes), located
 * as file 'name' (copied). 'text' is only read during the call. A relative
 * actual-data 'file' in it is read relative to the directory part of 'name'.
 */
int spec_source_add_text(struct spec_source *src, const char *name, const char *text,
			 size_t len, struct diag_list *dl);

/*
 * Build a validated spec set from 'src' with the overrides ov[0..n_ov)
 * applied in order ('ov' may be NULL when n_ov is 0): each replaces (or, for
 * the last key of its path, adds) a node of the merged design before the
 * section parsers and checks run, exactly as if the files said so. The
 * source is not changed: the nodes on an overridden path are copied into
 * the set. Every problem is appended to 'dl'; returns NULL when any error
 * was reported. The set borrows from 'src' (names, strings, locations):
 * free every set before its source. Diagnostics about an override are
 * located in its 'origin': print them before spec_override_release().
 * Matrix files of actual-data densities are read by each build. 'opt' may
 * be NULL. Reentrant: several threads may build from one source.
 */
struct spec_set *spec_set_build(const struct spec_source *src, const struct spec_override *ov,
				size_t n_ov, const struct spec_load_options *opt,
				struct diag_list *dl);

/* Free a source. Free the sets built from it first. spec_source_free(NULL) is a no-op. */
void spec_source_free(struct spec_source *src);

/*
 * Parse the command-line form "PATH=VALUE" (split at the first '=' outside
 * brackets) into 'ov', with origin "--set 'PATH=VALUE'", and check the
 * syntax of PATH. Returns 0, or -1 after reporting to 'dl' (a missing '=',
 * an empty path, a malformed step), located in ov->origin, or at ov->at
 * and ov->value_at when the caller set them (they are kept). Call
 * spec_override_release() afterwards in either case.
 */
int spec_override_parse(const char *text, struct spec_override *ov, struct diag_list *dl);

/* Free what spec_override_parse() allocated; 'ov' becomes SPEC_OVERRIDE_INIT. */
void spec_override_release(struct spec_override *ov);

/* ------------------------------------------------------------ cascades */

/* One stage of a cascade: the file whose top-level keys replace the design's. */
struct spec_cascade_stage {
	const char *name;              /* unique; the file as written when not given */
	const char *file;              /* relative to the cascade file's directory */
	struct diag_loc loc, file_loc;
};

/* 'structure': tensor keeps the non-zeros of 'from' (an input or an earlier intermediate). */
struct spec_cascade_structure {
	const char *tensor, *from;
	struct diag_loc loc, from_loc;
};

/* A cascade file (docs/workloads.md, "Cascades of Einsums"). Everything lives in 'arena'. */
struct spec_cascade {
	struct arena arena;
	const char *path;              /* the caller's */
	const char *name;              /* or NULL */
	struct diag_loc loc;           /* of the 'cascade' mapping */
	size_t n_inputs;
	const char **inputs;           /* tensors given from outside */
	struct diag_loc *input_locs;
	size_t n_structure;
	struct spec_cascade_structure *structure;
	size_t n_stages;
	struct spec_cascade_stage *stages;
};

/*
 * Read the cascade file 'path'. Every problem goes to 'dl', located in 'path'
 * (borrowed: keep it while the cascade and the diagnostics live); returns the
 * cascade, or NULL when any error was reported.
 */
struct spec_cascade *spec_cascade_load(const char *path, struct diag_list *dl);

/* Free a cascade; spec_cascade_free(NULL) is a no-op. */
void spec_cascade_free(struct spec_cascade *cs);

/* ------------------------------------------------------------ batch files */

/* One job of a batch file: a design run with a command, or a network's layers mapped. */
struct spec_batch_job {
	const char *name;              /* unique; "jobN" when not given */
	struct diag_loc loc, name_loc;
	size_t n_files;
	const char **files;            /* the design (relative to the batch file's directory) */
	size_t n_sets;
	const char **sets;             /* "PATH=VALUE" overrides, in order */
	const struct diag_loc *set_at; /* where each is written: [2i] its text (or PATH),
					  [2i + 1] its VALUE when apart (line 0: not) */
	size_t n_vars;
	const char **vars;             /* "NAME=VALUE" Jinja2 variables of its templates */
	const struct diag_loc *var_at; /* where each is written, as 'set_at' */
	size_t n_tags;
	const char **tags;
	size_t n_layers;
	const char **layers;           /* a network: layer files or directories of them */
	size_t n_prunes;
	const char **prunes;           /* "NAME=N:M[:DIM]": as --prune (the defaults' first) */
	bool has_command;
	const char *command;           /* one of the loader's command names; default "model" */
	bool has_seed;
	uint64_t seed;
};

/* A batch file: its jobs, defaults applied. Everything lives in 'arena'. */
struct spec_batch {
	struct arena arena;
	const char *path;              /* the caller's */
	size_t n_jobs;
	struct spec_batch_job *jobs;
};

/*
 * Read the batch file 'path' (docs/sweep.md, "Batch files"); a job's
 * 'command' is one of commands[] (NULL-ended: the names 'fiberloop' runs
 * jobs with; NULL: check, model, map, exec, validate). Every problem goes
 * to 'dl', located in 'path' (borrowed: keep it while the batch and the
 * diagnostics live); returns the batch, or NULL when any error was
 * reported.
 */
struct spec_batch *spec_batch_load(const char *path, const char *const *commands,
				   struct diag_list *dl);

/* spec_batch_load() of the text[0..len) of a file named 'path' (not read). */
struct spec_batch *spec_batch_load_text(const char *path, const char *text, size_t len,
					const char *const *commands, struct diag_list *dl);

/* Free a batch; spec_batch_free(NULL) is a no-op. */
void spec_batch_free(struct spec_batch *b);

/*
 * Free a spec set and everything in it (and its source, for a set from
 * spec_set_load()). spec_set_free(NULL) is a no-op.
 */
void spec_set_free(struct spec_set *s);

/* Index of the storage level named 'name', or -1. */
int spec_level_find(const struct spec_arch *arch, const char *name);

/* Index of the tensor named 'name', or -1. */
int spec_tensor_find(const struct spec_workload *w, const char *name);

/* Index of the dimension named 'name', or -1. */
int spec_dim_find(const struct spec_workload *w, const char *name);

/*
 * Ragged workloads (specs/ragged.c): evaluated one parent coordinate at a
 * time. A case is one combination of extents (indexed like w->ragged) with
 * its weight: how many parent coordinates have it (a list), or the parent's
 * bound times its probability (a distribution).
 */
struct spec_ragged_case {
	uint64_t extent[SPEC_MAX_DIMS];
	double weight;
};

/* A dense view of one parent coordinate: the parent's bound 1, the ragged ones the extents. */
struct spec_ragged_view {
	struct spec_set set;           /* a shallow copy of the design; never freed */
	struct spec_tensor tensors[SPEC_MAX_TENSORS];
	struct spec_mapping map;       /* the mapping for these extents; set.mapping */
	uint64_t extent[SPEC_MAX_DIMS];
};

/*
 * 0 when 'm' evaluates ragged workload 'w' exactly one parent coordinate at
 * a time: the parent's loops temporal and outermost at the outermost level
 * (always 0 without ragged dimensions); else -1 with the reason in 'why'.
 */
int spec_ragged_check_mapping(const struct spec_workload *w, const struct spec_mapping *m,
			      struct strbuf *why);

/*
 * The distinct cases of ragged workload 'w' into '*out' (caller frees);
 * returns their count (0 without ragged dimensions).
 */
size_t spec_ragged_cases(const struct spec_workload *w, struct spec_ragged_case **out);

/*
 * Make 'v' the dense view of 's' (ragged) for one parent coordinate whose
 * ragged extents are 'extent' (indexed like s->workload.ragged): v->set is
 * fixed from here on (a model workspace may borrow it); its mapping is set
 * by spec_ragged_view_map().
 */
void spec_ragged_view_init(struct spec_ragged_view *v, const struct spec_set *s,
			   const uint64_t *extent);

/*
 * Map view 'v' of 's' by 'm' (a mapping of the bounding box) into v->map:
 * the parent's factors 1 and the ragged dimensions' factors as tile sizes,
 * the last tile what is left (the '+' rule). 0, or -1 when the factors
 * cannot cover an extent.
 */
int spec_ragged_view_map(struct spec_ragged_view *v, const struct spec_set *s,
			 const struct spec_mapping *m);

/*
 * Fill the derived fields of 'm' (loop nests, boundaries, is_imperfect) from
 * its per-level directives, as Timeloop's mapping parser does (semantics
 * 1.4). 'm->n_levels' and 'm->n_dims' must be set. Returns 0, or -1 when a
 * dimension's factors do not multiply out to its bound (nothing is reported;
 * specs/ diagnoses user mappings before calling this).
 */
int spec_mapping_derive(struct spec_mapping *m, const struct spec_workload *w);

/*
 * Load a non-zero pattern for an actual-data density: a Matrix Market file
 * (.mtx: coordinate or array, real/integer/pattern, general/symmetric) or a
 * dense text file (one row per line, whitespace-separated values; zeros are
 * absent entries). The result lives in 'a'. Every problem is reported to 'dl'
 * as "file:line: error: ..." and NULL is returned.
 */
const struct spec_matrix *spec_matrix_load(struct arena *a, const char *path,
					   struct diag_list *dl);

/*
 * Check that matrix 'm' has the shape of data space 't': errors at 'file'
 * (the name to locate them in, borrowed as long as 'dl'), on the line that
 * fixes the matrix's shape, at the extent that differs. Returns 0 or -1.
 */
int spec_matrix_check_shape(const struct spec_matrix *m, const char *file,
			    const struct spec_tensor *t, struct diag_list *dl);

/*
 * spec_matrix_load() of the in-memory text 'text' ('len' bytes, which may
 * hold NUL bytes) named 'name' (kept by the caller: diagnostics and the
 * matrix's 'file' point to it; a name ending in .mtx, or text starting
 * with %%MatrixMarket, is read as Matrix Market).
 */
const struct spec_matrix *spec_matrix_parse(struct arena *a, const char *name, const char *text,
					    size_t len, struct diag_list *dl);

/* Write 'm' as a Timeloop mapping YAML document (loadable again) to 'out'. */
void spec_mapping_write_yaml(const struct spec_mapping *m, const struct spec_arch *arch,
			     const struct spec_workload *w, struct strbuf *out);

/* Name tables shared by the parser, the printers and every message. */
const char *spec_fmt_kind_name(enum fmt_kind k);
const char *spec_density_kind_name(enum spec_density_kind k);
const char *spec_saf_kind_name(enum spec_saf_kind k);
const char *spec_named_format_name(enum spec_named_format k);
/* "dense_fixed", "dense_variable", "sparse_fixed", "sparse_variable" ("" for NONE). */
const char *spec_axis_kind_name(enum spec_axis_kind k);
const char *spec_metric_name(enum spec_metric m);
const char *spec_search_name(enum spec_search s);
const char *spec_spacetime_name(enum spec_spacetime st);
const char *spec_stpu_dtype_name(enum spec_stpu_dtype d);
/* "none", "C0", "C1", "KMZ" (the values of 'packing.scheme'). */
const char *spec_stpu_scheme_name(enum spec_stpu_scheme k);
const char *spec_stpu_energy_key_name(enum spec_stpu_energy_key k);
const char *spec_ipu_dtype_name(enum spec_ipu_dtype d);
const char *spec_ipu_pass_name(enum spec_ipu_pass p);
const char *spec_ipu_sparsity_name(enum spec_ipu_sparsity s);

#endif
