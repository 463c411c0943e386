/*
 * The reference functional executor: runs a workload on real tensors, in
 * the real formats and the mapping's real loop order, and counts every
 * storage and compute action. It is the independent ground truth for the
 * analytical model and shares no code with model/, saf/, formats/ or poly/.
 *
 * Tensors and fibertrees are opaque heap handles (_new/_free). Results are
 * caller-owned structs released with exec_result_release(). Counts are
 * totals over all instances of a level (divide by 'instances' for Timeloop's
 * per-instance figures); scalar counts are words, format counts are
 * metadata/payload units. Nothing here prints or exits.
 */
#ifndef EXEC_EXEC_H
#define EXEC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

/* ------------------------------------------------------------------ enums */

/* What a buffer keeps of its previous tile when the next one arrives. */
enum exec_retention {
	EXEC_RETAIN_TRANSLATION, /* Timeloop's rule: overlap reused only while the
				    translation between tiles stays the same */
	EXEC_RETAIN_OVERLAP,     /* any overlap with the held tile is reused */
};

/* How the points of a tile are counted. */
enum exec_footprint {
	EXEC_FOOTPRINT_HULL,     /* convex hull per rank: holes of strided
				    projections count as data (Timeloop) */
	EXEC_FOOTPRINT_EXACT,    /* only the coordinates actually touched */
};

enum exec_status {
	EXEC_OK,
	EXEC_UNSUPPORTED,        /* the design uses something the executor lacks */
	EXEC_TOO_LARGE,          /* the tensors or the iteration space are too big */
};

/* Classes of an access that happens (the rest of the algorithmic count is
 * "nonexistent": zeros never stored, or data a skip upstream never sent). */
enum exec_class { EXEC_ACTUAL, EXEC_GATED, EXEC_SKIPPED, EXEC_N_CLASSES };

/* --------------------------------------------------------------- structs */

struct exec_options {
	uint64_t seed;                 /* tensor generation; stream = tensor id */
	enum exec_retention retention;
	enum exec_footprint footprint;
	bool skip_numeric;             /* do not evaluate the Einsum (benchmarks) */
	bool all_partitions;           /* also count the partitions of read-only
					  tensors (read-write ones always are) */
};

#define EXEC_OPTIONS_INIT { 1, EXEC_RETAIN_TRANSLATION, EXEC_FOOTPRINT_HULL, false, false }

/* Scalar accesses of one kind (reads, fills or updates). */
struct exec_access {
	uint64_t algorithmic;          /* as if every tensor were dense */
	uint64_t n[EXEC_N_CLASSES];    /* actual, gated, skipped */
};

/* Format accesses of one kind, per rank (index 0 = innermost rank). */
struct exec_format_access {
	double md_units[EXEC_N_CLASSES][SPEC_MAX_FMT_RANKS];
	double pl_units[EXEC_N_CLASSES][SPEC_MAX_FMT_RANKS];
};

/* What one tensor did at one storage level, summed over the instances. */
struct exec_tensor_stats {
	bool kept;
	uint64_t instances;            /* instances that held at least one tile */
	uint64_t tile_shape;           /* max points of one tile */
	uint64_t max_occupancy;        /* max non-zeros of one tile */
	uint64_t partition;            /* distinct points held, summed over instances
					  (read-only tensors: only with all_partitions) */
	struct exec_access reads, fills, updates;
	uint64_t temporal_reductions;  /* read-modify-write reads that happen */
	/* the network below this level: words its children received (or sent)
	 * beyond what this level read (or was updated with) */
	uint64_t multicast_words;      /* read-only: copies made by multicast */
	uint64_t link_transfers;       /* read-only: words this level's instances sent to
					  a mesh neighbour (counted in their reads) */
	uint64_t spatial_reductions;   /* read-write: additions done in the network */
	uint64_t decompressions;       /* words filled from a compressed parent */
	uint64_t compressions;         /* words drained to a compressed parent */
	/* representation format (when the tensor has metadata here) */
	bool has_format;
	unsigned n_format_ranks;
	double max_md_units[SPEC_MAX_FMT_RANKS];  /* max over tiles, rank 0 innermost */
	double max_pl_units[SPEC_MAX_FMT_RANKS];
	struct exec_format_access fmt_reads, fmt_fills, fmt_updates;
};

/*
 * A tensor pruned by --prune (spec_tensor.prune_source): its dense values
 * were pruned to n:m by magnitude along 'rank', packed into values plus
 * indices in row-major group order (exec_nm_compress()), and the mapping
 * ran on the unpacked buffers; the numeric check compares with the dense
 * product of the pruned tensor.
 */
struct exec_pruned {
	bool pruned;
	unsigned n, m, rank;
	uint64_t dense_points;         /* points of the tensor */
	uint64_t nonzeros;             /* non-zeros kept */
	uint64_t groups, short_groups; /* groups of m; of them with fewer than n non-zeros */
	uint64_t values;               /* entries of the values (and indices) buffers */
	unsigned index_bits;           /* bits of one index: ceil(log2 m) */
	bool round_trip_ok;            /* unpacking gives the pruned tensor back exactly */
};

struct exec_result {
	enum exec_status status;
	char reason[256];              /* why, when status != EXEC_OK */
	unsigned n_levels, n_tensors;
	struct exec_tensor_stats *stats;   /* [level * n_tensors + tensor], owned */
	uint64_t compute_instances;    /* arithmetic units used */
	/* under spatial skipping (else 0): the units that have work, per step of
	 * the temporal loops: the most at any step, and the mean over steps */
	uint64_t compute_busy_max;
	double compute_busy_avg;
	uint64_t computes;             /* algorithmic: every point of the op space */
	uint64_t computes_class[EXEC_N_CLASSES];  /* actual, gated, skipped */
	/* numeric check of the Einsum against a plain dense evaluation */
	bool numeric_checked;
	bool numeric_ok;
	uint64_t numeric_n_outputs;    /* output points compared */
	double numeric_max_abs_err;
	uint64_t n_events;             /* counted tile events and computes */
	struct exec_pruned pruned[SPEC_MAX_TENSORS];   /* by tensor */
};

struct exec_tensor;
struct exec_fibertree;

/* ------------------------------------------------------------- executor */

/*
 * Execute the mapping of 's' on tensors generated from 's' (density models,
 * seeded by 'opt->seed', or the actual data the spec carries) and fill 'out'
 * (initialized here; release it with exec_result_release()). Returns 0, or
 * -1 with out->status and out->reason set when the design cannot be
 * executed. 'opt' may be NULL (EXEC_OPTIONS_INIT).
 */
int exec_run(const struct spec_set *s, const struct exec_options *opt,
	     struct exec_result *out);

/* A ragged workload's totals over its parent's coordinates (exec_run_ragged). */
struct exec_ragged_result {
	char reason[256];              /* why, after -1 */
	unsigned n_levels, n_tensors;
	uint64_t elements[SPEC_MAX_DIMS];   /* extents summed, per ragged dimension */
	uint64_t computes, actual_computes;
	uint64_t reads[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];    /* algorithmic, all instances */
	uint64_t fills[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	uint64_t updates[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
};

/*
 * Execute ragged workload 's' (s->workload.n_ragged > 0, with a mapping):
 * each parent coordinate as its own dense workload with its extents, listed
 * or drawn from the distribution with 'opt->seed' (a stream of its own; the
 * coordinate k's tensors take seed + k), and sum the counts into 'out'.
 * Returns 0, or -1 with out->reason.
 */
int exec_run_ragged(const struct spec_set *s, const struct exec_options *opt,
		    struct exec_ragged_result *out);

/* "translation" / "overlap" and "timeloop" / "exact": the option values' names. */
const char *exec_retention_name(enum exec_retention r);
const char *exec_footprint_name(enum exec_footprint f);

/* Statistics of 'tensor' at storage level 'level' (borrowed from 'r'). */
const struct exec_tensor_stats *exec_result_stats(const struct exec_result *r,
						  unsigned level, unsigned tensor);

/* Free what 'r' owns; 'r' becomes empty. */
void exec_result_release(struct exec_result *r);

/* ---------------------------------------------------------------- tensors */

/*
 * A tensor over the convex hull of tensor 't's projection of the workload's
 * op space, with values drawn from its density model: fixed_structured
 * (the expected count, spread evenly), hypergeometric (ceil(rho*N) non-zeros
 * placed uniformly), banded (|row - col| <= band_width), N:M (random values
 * magnitude-pruned to N in every M along the density's dimension) or actual
 * data. Values are non-zero integers in [-15, 15] (exact sums), reproducible
 * from (seed, t). Returns NULL and fills 'why' when the model cannot be
 * realized (e.g. actual data of the wrong shape).
 */
struct exec_tensor *exec_tensor_new(const struct spec_workload *w, unsigned t, uint64_t seed,
				    char why[256]);

/* An all-zero tensor with 'n_ranks' ranks of the given extents. */
struct exec_tensor *exec_tensor_new_zero(unsigned n_ranks, const uint64_t *extents);

/* Number of ranks, extent of rank 'r', number of points, number of non-zeros. */
unsigned exec_tensor_n_ranks(const struct exec_tensor *x);
uint64_t exec_tensor_extent(const struct exec_tensor *x, unsigned r);
uint64_t exec_tensor_size(const struct exec_tensor *x);
uint64_t exec_tensor_nnz(const struct exec_tensor *x);

/* Value at 'coords' (0-based, rank 0 first) / set it. */
double exec_tensor_get(const struct exec_tensor *x, const uint64_t *coords);
void exec_tensor_set(struct exec_tensor *x, const uint64_t *coords, double v);

/* All values, row-major with rank 0 outermost (borrowed). */
const double *exec_tensor_values(const struct exec_tensor *x);

/*
 * Magnitude pruning to N:M along rank 'rank': in every group of 'm'
 * consecutive coordinates (the other ranks fixed) keep the 'n' values of
 * largest magnitude (ties: the lower coordinate) and zero the others.
 */
void exec_tensor_prune_nm(struct exec_tensor *x, unsigned n, unsigned m, unsigned rank);

/*
 * Compress an N:M tensor along 'rank' into 'n' values and 'n' indices per
 * group of 'm' (the index is the position inside the group, ceil(log2 m)
 * bits). Groups with fewer than 'n' non-zeros are padded with zeros at the
 * lowest free positions. 'values' and 'indices' hold size/m*n entries.
 * Returns the number of entries written, or 0 when some group has more
 * than 'n' non-zeros.
 */
size_t exec_nm_compress(const struct exec_tensor *x, unsigned n, unsigned m, unsigned rank,
			double *values, uint8_t *indices);

/* Expand exec_nm_compress() output back into 'x' (same shape, overwritten). */
void exec_nm_decompress(struct exec_tensor *x, unsigned n, unsigned m, unsigned rank,
			const double *values, const uint8_t *indices);

/* Bits of one N:M index: ceil(log2 m). */
unsigned exec_nm_index_bits(unsigned m);

/* exec_tensor_free(NULL) is a no-op. */
void exec_tensor_free(struct exec_tensor *x);

/* -------------------------------------------------------------- fibertrees */

/*
 * Encode a dense block of 'values' laid out row-major over 'shapes' (rank 0
 * outermost) as a fibertree with one format per rank ('kinds', outermost
 * first). Every rank stores what its format stores: U nothing, UOP offset
 * pairs, CP coordinates, B and UB bitmasks, RLE run lengths.
 */
struct exec_fibertree *exec_fibertree_encode(unsigned n_ranks, const enum fmt_kind *kinds,
					     const uint64_t *shapes, const double *values);

/*
 * Value at position 'pos' (one coordinate per rank, outermost first),
 * found by walking the encoding: offsets, binary search in coordinate
 * lists, bitmask popcounts and run-length scans. Zero when absent.
 */
double exec_fibertree_lookup(const struct exec_fibertree *ft, const uint64_t *pos);

/*
 * Metadata and payload units of rank 'r' (outermost = 0) in the actual
 * encoding, counted as Sparseloop counts them: fibers are the non-empty
 * ones, and the innermost non-empty rank's payload is the data itself (0).
 */
void exec_fibertree_units(const struct exec_fibertree *ft, unsigned r,
			  uint64_t *md_units, uint64_t *pl_units);

/* Number of non-zero values stored. */
uint64_t exec_fibertree_nnz(const struct exec_fibertree *ft);

/* exec_fibertree_free(NULL) is a no-op. */
void exec_fibertree_free(struct exec_fibertree *ft);

/* ------------------------------------------------------------------ STPU */

/*
 * A cycle-level simulation of SpMV on the Sparse-TPU systolic array (and
 * on the TPU and KMZ baselines), with its own packers, for checking the
 * analytical STPU model (accel/, docs/stpu.md): PEs hold (value, column
 * index) in two weight buffers loaded row by row from the left edge, the
 * vector streams down each PE column in input groups, an end signal makes a
 * PE multiply its latched element and add the partial sum from its left,
 * partial sums move right into the output accumulators. Every PE state,
 * register move and buffer access is counted as it happens; scheduling
 * conflicts (a partial sum overwritten before use, a weight missing) are
 * reported, never hidden. Values are small integers drawn from the seed so
 * that the result is exact and compared with a dense product.
 */

/* Same order as the analytical model's schemes. */
enum exec_stpu_scheme {
	EXEC_STPU_TPU, EXEC_STPU_C0, EXEC_STPU_C1, EXEC_STPU_KMZ, EXEC_STPU_N_SCHEMES
};

struct exec_stpu_result {
	uint64_t blocks, cycles;
	uint64_t hold, latch, accumulate, bypass, mac;
	uint64_t x_forward, vector_reads, weight_words, weight_hops, output_accesses;
	uint64_t packed_width;         /* groups over all partitions */
	uint64_t n_dropped;            /* KMZ: entries pruned */
	uint64_t n_outputs;            /* rows of y */
	uint64_t n_wrong;              /* outputs that differ from the dense product of the
					  entries kept (all of them but KMZ's pruned ones) */
	double max_abs_error_full;     /* largest |y - A x| with the full matrix */
	char hazard[192];              /* empty, or the first scheduling conflict seen */
};

/*
 * Simulate y = A x for the pattern 'm' (2 ranks) on the array of 'st'
 * packed with scheme 'k'; values of A and x are drawn from 'seed'. Returns
 * 0 (a conflict is reported in out->hazard, not as a failure), or -1 with
 * 'err' when the matrix is not 2-D or the simulation too large: more than
 * 2^21 packed columns over all partitions, or about 2^31 PE-cycles (a PE
 * for one cycle, counting a row and a column of controllers; checked after
 * packing, before anything is simulated). The error of a size is located
 * at the design's 'stpu' key ("FILE:LINE:COL: error: ...").
 */
int exec_stpu_run(const struct spec_stpu *st, const struct spec_matrix *m, enum exec_stpu_scheme k,
		  uint64_t seed, struct exec_stpu_result *out, struct strbuf *err);

/*
 * The size check of the TPU's simulation (every column of a rows x cols
 * matrix a group in every partition), from the dimensions alone: 0, or -1
 * with 'err' as exec_stpu_run() would give it. The TPU bounds the other
 * schemes' blocks, so a caller can refuse before any packing or model.
 */
int exec_stpu_check(const struct spec_stpu *st, uint64_t rows, uint64_t cols,
		    struct strbuf *err);
/* -------------------------------------------------------------------- IPU */

/*
 * The plan under test for exec_ipu_run(): what the planner decided (the
 * executor does not plan; it checks what the model does with a plan).
 */
struct exec_ipu_config {
	unsigned px, py, pz;           /* partitions of X, Y, Z */
	unsigned kernel_block;         /* side of the blocks the buckets hold */
	unsigned z_grain;              /* Z grouping, elements */
	uint64_t bucket_groups;        /* a bucket's capacity in blocks */
	uint64_t bucket_meta_words;    /* a bucket's metaInfo capacity (16-bit words) */
	unsigned workers;              /* sizes the metaInfo of a sub-group */
	uint64_t seed;                 /* W's pattern (density models) and every value */
};

/* One pass of the emulated device program. */
struct exec_ipu_pass {
	bool run;
	uint64_t steps;                /* propagation compute steps */
	uint64_t exchanges;            /* bucket shifts */
	uint64_t skipped_outer;        /* outer iterations run as a bare shift */
	uint64_t macs;                 /* multiply-accumulates of non-zero elements */
	uint64_t dist_max_groups;      /* blocks of the busiest tile in the distribution */
	uint64_t step_max_groups_sum;  /* sum over steps of the busiest tile's blocks */
	bool numeric_ok;               /* equal to the dense product (exact integers) */
	double max_abs_err;
};

struct exec_ipu_result {
	enum exec_status status;
	char reason[256];
	uint64_t nz_blocks;            /* W's non-zero kernel blocks */
	uint64_t n_buckets;
	uint64_t *bucket_groups;       /* [n_buckets] blocks held, owned */
	uint64_t *bucket_meta;         /* [n_buckets] metaInfo words, owned */
	uint64_t *bucket_subgroups;    /* [n_buckets] sub-groups, owned */
	bool overflow;                 /* some piece found no bucket */
	uint64_t n_subgroups, n_spilled, spilled_groups;
	struct exec_ipu_pass passes[SPEC_IPU_N_PASSES];
};

/*
 * Emulate the PopSparse sparse layer of 's' (s->ipu) on the plan 'c':
 * real values, this executor's own partitioner, the device program with
 * double-buffered bucket shifts, the reduction, and a comparison with a
 * dense product for every pass the layer lists. Fills 'out' (release with
 * exec_ipu_result_release()). Returns 0, or -1 with out->status and
 * out->reason when the layer cannot be emulated (too large, no pattern).
 */
int exec_ipu_run(const struct spec_set *s, const struct exec_ipu_config *c,
		 struct exec_ipu_result *out);

/* Free what 'r' owns. */
void exec_ipu_result_release(struct exec_ipu_result *r);

#endif
