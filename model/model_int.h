/*
 * Internals of the analytical model, shared by its stages.
 *
 * The pipeline of model_eval() (model/pipeline.c, the only caller of the
 * stages) is a sequence of functions over one workspace:
 * model_loops_prepare() (per-loop strides, molds and fan-outs of the
 * mapping) -> nest analysis (model_nest_fast() or model_nest_walk():
 * per-level tile sizes and the accesses each level serves) ->
 * model_collapse() (partitions, bypass masking, reads/fills/updates) -> the
 * sparse hook -> model_check_levels() -> model_eval_compute(),
 * model_eval_levels() (energy, bandwidth, cycles) -> model_eval_totals().
 * Stages call only the helpers below them (footprints, checks,
 * model_result_fail). Everything per-mapping lives in fixed arrays of the
 * workspace: no stage allocates.
 *
 * Every function declared here carries the model_ prefix.
 */
#ifndef MODEL_MODEL_INT_H
#define MODEL_MODEL_INT_H

#include "model/model.h"

#define NEST_MAX_REC 16           /* (multicast, scatter) records per level/tensor */
#define FAST_MAX_LOOPS 62         /* temporal loops above a boundary (fast path) */

/* One rank of a tensor's projection: coordinate = sum of coef * dim. */
struct proj_rank {
	unsigned n_terms;
	uint8_t dim[SPEC_MAX_TERMS];
	int64_t coef[SPEC_MAX_TERMS];
	uint64_t abs_coef[SPEC_MAX_TERMS];
};

/* The ranks one dimension moves, with its net coefficient in each. */
struct proj_dim {
	unsigned n;
	uint32_t rank_mask;             /* bit r: the dimension moves rank r */
	uint8_t rank[SPEC_MAX_TENSOR_RANKS];
	int64_t coef[SPEC_MAX_TENSOR_RANKS];
};

/* A tensor's projection, prepared once per spec set. */
struct proj {
	unsigned n_ranks;
	struct proj_rank ranks[SPEC_MAX_TENSOR_RANKS];
	int64_t cm[SPEC_MAX_TENSOR_RANKS][SPEC_MAX_DIMS];   /* rank x dim coefficients */
	struct proj_dim dims[SPEC_MAX_DIMS];             /* cm by dimension, non-zeros */
	uint32_t dim_mask;
	bool read_write;
};

#define MLOOP_NONE 0xff

/* A loop of the mapping's nest with the properties the analysis needs. */
struct mloop {
	uint8_t dim;
	uint8_t level;
	bool is_spatial, is_x;
	bool is_boundary;             /* outermost loop of its level's block */
	bool is_master;               /* outermost loop of a run of spatial loops */
	bool dim_imperfect_below;     /* an inner loop on this dim has a residual */
	uint8_t outer_same;           /* the next outer loop on this dim, or MLOOP_NONE */
	uint64_t end, residual;
	uint64_t stride;              /* op-space step of one iteration on 'dim' */
	uint64_t num_spatial_elems;   /* product of spatial ends strictly outside */
	double utilized_spatial_elems;
	uint64_t logical_fanout;      /* masters: product of the group's ends */
	uint64_t fanout_x, fanout_y;
	unsigned group_lo;            /* masters: innermost loop of the group */
	uint64_t extent[SPEC_MAX_DIMS];      /* working-set box extents */
	uint64_t extent_res[SPEC_MAX_DIMS];  /* the same on the global last iteration */
};

/* Per storage level view of the nest. */
struct mlevel {
	unsigned first;               /* innermost loop of the block */
	unsigned boundary;            /* outermost loop of the block */
	unsigned in;                  /* innermost valid loop (master or first) */
	bool has_master;
	bool grows;                   /* some loop of the block has more than one iteration
					 (else its boundary's box is the level below's) */
	bool master_box;              /* has_master and no loop above the master in the
					 block has more than one iteration: the master's
					 box is the boundary's */
	uint64_t max_x, max_y;        /* spatial expansion above the block */
};

/* A (multicast, scatter) access record: 'accesses' words, each sent to 'm'. */
struct nest_rec {
	uint64_t m, scatter;
	uint64_t accesses;
};

/* Nest-analysis output for one tensor at one storage level. */
struct nest_tile {
	uint64_t size;                /* tile at the level's boundary */
	uint64_t spatial_size;        /* working set of the level's master, or 0 */
	unsigned n_rec;
	struct nest_rec rec[NEST_MAX_REC];   /* accesses served at the level's 'in' loop */
	uint64_t link_transfers;
};

/* Access records of one tile while collapsing (scaled by bypass masking). */
struct coll_tile {
	unsigned n_rec;
	double m[NEST_MAX_REC], scatter[NEST_MAX_REC], acc[NEST_MAX_REC];
};

/* Nest-analysis output for the whole mapping. */
struct nest_out {
	struct nest_tile t[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	uint64_t compute_accesses;    /* computes per arithmetic instance */
};

/* An op-space box's image on one tensor (hull): low corner and extents. */
struct tbox {
	int64_t lo[SPEC_MAX_TENSOR_RANKS];
	int64_t ext[SPEC_MAX_TENSOR_RANKS];
};

/* Delta of a tile against the previous one, as the walk records it. */
enum delta_kind { DELTA_EMPTY, DELTA_FULL, DELTA_DIFF };

struct delta_desc {
	uint64_t size;
	uint8_t kind;
	struct tbox w;                /* the new tile */
	struct tbox inter;            /* DIFF: the overlap, relative to w.lo */
};

/* Per-level energy and area, prepared once per spec set. */
struct level_energy {
	enum model_energy_source source;
	double op_pj[MODEL_OP_COUNT];
	double vector_access_pj;
	double area_um2;
};

/*
 * What the fast path's boundary_sum() learns of the loops above the first
 * moving loop z of a tensor, the same for every boundary whose first moving
 * loop is z (model/nest_fast.c): the total weight of the leaves that pay
 * the overlap delta and of those that pay a full tile, and the projected
 * translations P(u_j), j > z, of the last z worked out. Valid for one
 * evaluation ('known' and 'rows_z' are reset by each).
 */
struct fast_memo {
	uint64_t known[SPEC_MAX_TENSORS];     /* bit z: w_overlap/w_full of (pv, z) are set */
	uint64_t w_overlap[SPEC_MAX_TENSORS][FAST_MAX_LOOPS];
	uint64_t w_full[SPEC_MAX_TENSORS][FAST_MAX_LOOPS];
	unsigned rows_z[SPEC_MAX_TENSORS];    /* the z of rows[pv], UINT_MAX: none yet */
	bool keep_rows;                       /* some level above the MACs has a spatial group */
	int64_t rows[SPEC_MAX_TENSORS][FAST_MAX_LOOPS][SPEC_MAX_TENSOR_RANKS];
};

struct poly_bridge;
struct sparse_ws;

struct model_ws {
	const struct spec_set *s;
	struct model_options opt;
	unsigned n_levels, n_tensors, n_dims;
	struct proj proj[SPEC_MAX_TENSORS];
	const char *density_name[SPEC_MAX_TENSORS];
	struct level_energy lev_energy[SPEC_MAX_LEVELS];
	enum model_energy_source compute_source;
	double compute_op_pj[MODEL_COMPUTE_OP_COUNT];
	double compute_area_um2;
	int preset;                   /* energy preset for components without an ERT, or -1 */
	const char *preset_name;      /* preset used by some component, or NULL */
	struct poly_bridge *poly;     /* exact footprints, or NULL */
	struct sparse_ws *sp;         /* the sparse analysis, or NULL (model/sparse_int.h) */
	double count_factor;          /* model_count_range_factor() */
	/* the design's shape, checked once rather than every evaluation */
	int wave_first, wave_last;    /* first and last level with concurrent_instances, or -1 */
	bool any_warps;               /* some level has warp_registers */

	/* per mapping */
	const struct spec_mapping *m;
	unsigned n_loops;
	struct mloop loops[SPEC_MAX_LOOPS];
	struct mlevel lv[SPEC_MAX_LEVELS];
	uint64_t compute_max_x, compute_max_y;
	double compute_replication;
	uint64_t max_temporal_iterations;
	/* exact counting of residuals (MODEL_IMPERFECT_EXACT on an imperfect
	 * mapping): the nest records totals over instances, and these are the
	 * instances each level and the compute units ever use and the temporal
	 * steps that run (model_loops_count) */
	bool exact;
	uint64_t level_instances[SPEC_MAX_LEVELS];
	uint64_t compute_instances;
	uint64_t temporal_steps;
	struct nest_out nest;
	uint64_t tile_ext[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS][SPEC_MAX_TENSOR_RANKS];
	struct coll_tile coll[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	struct fast_memo fast_memo;   /* model/nest_fast.c */

	/* group-index differences between mesh neighbours, per level, kept
	 * between evaluations while the level's spatial group is unchanged */
	struct neighbours {
		bool valid, overflow;
		unsigned n_group;
		uint64_t ends[SPEC_MAX_DIMS], H;
		unsigned n;
		int64_t d[64][SPEC_MAX_DIMS];
	} nb[SPEC_MAX_LEVELS];

	/* bytes of a model_tile before its format tables (a run-time value, so
	 * that clearing a tile is a libc memset rather than an inlined 'rep stos') */
	size_t tile_head_size;

	/* scratch: children of a spatial group (sized at ws_new) */
	size_t max_children;
	int64_t *child_key;
	uint8_t *child_flag;
	struct walk_state *walk;      /* the general nest walk's state */
};

/* ----------------------------------------------------------- footprints */

/* The hull image of the op-space box [lo, lo + ext) on tensor 'p'. */
void model_proj_box(const struct proj *p, const int64_t *op_lo, const uint64_t *op_ext,
		    struct tbox *out);

/* Hull extents per rank of a box with op-space extents op_ext; returns
 * their product (the hull size). */
uint64_t model_proj_extents(const struct proj *p, const uint64_t *op_ext, uint64_t *ext);

/* Points in a hull box. */
uint64_t model_tbox_size(const struct tbox *b, unsigned n_ranks);

/* Points of the op-space box (lo, ext) image on tensor 'pv', in the
 * workspace's footprint mode. */
uint64_t model_fp_size(struct model_ws *ws, unsigned pv, const int64_t *op_lo,
		       const uint64_t *op_ext);

/* Points of image(new) minus image(old) for two op-space boxes. */
uint64_t model_fp_delta(struct model_ws *ws, unsigned pv, const int64_t *new_lo,
			const uint64_t *new_ext, const int64_t *old_lo, const uint64_t *old_ext);

/* Exact counts through poly/ (model/exact.c). */
uint64_t model_fp_exact_size(struct poly_bridge *pb, unsigned pv, const int64_t *op_lo,
			     const uint64_t *op_ext);
uint64_t model_fp_exact_delta(struct poly_bridge *pb, unsigned pv, const int64_t *new_lo,
			      const uint64_t *new_ext, const int64_t *old_lo,
			      const uint64_t *old_ext);

/* Set up exact footprints for MODEL_FOOTPRINT_EXACT. Returns 0, or -1 when
 * they are not available in this build. */
int model_fp_init(struct model_ws *ws);
void model_fp_release(struct model_ws *ws);

/* ----------------------------------------------------------------- loops */

/* Fill ws->loops, ws->lv and the compute expansion from 'm'. */
void model_loops_prepare(struct model_ws *ws, const struct spec_mapping *m);

/* Product of the trip counts (ends) of all temporal loops. */
uint64_t model_loops_temporal_product(const struct model_ws *ws);

/*
 * The distinct index tuples that the loops L > 'above' with is_spatial ==
 * 'spatial' on the dimensions of 'dims' take over the whole run, residual
 * iterations as they happen: the instances used below those spatial loops,
 * or the temporal steps. The product of the ends when the factorization is
 * perfect.
 */
uint64_t model_loops_count(const struct model_ws *ws, uint32_t dims, bool spatial, int above);

/* ------------------------------------------------------- nest analysis */

/* The perfect-factorization fast path. Returns 0, or -1 when the mapping
 * needs the general walk (residuals, possible link transfers). */
int model_nest_fast(struct model_ws *ws);

/* The general walk: Timeloop's extrapolated delta recursion. */
void model_nest_walk(struct model_ws *ws);

/* Allocate / free the walk's state. */
void model_nest_walk_init(struct model_ws *ws);
void model_nest_walk_release(struct model_ws *ws);

/* Add 'acc' accesses under key (m, scatter) to 't'. */
void model_nest_rec_add(struct nest_tile *t, uint64_t m, uint64_t scatter, uint64_t acc);

/* The accesses of all of 't''s records. */
uint64_t model_nest_rec_total(const struct nest_tile *t);

/* Are the n entries of 'v' all zero? */
bool model_vec_zero(const int64_t *v, unsigned n);

/*
 * Multicast histogram of a spatial group for tensor 'pv': the children
 * (ends[] of the group loops, innermost first) grouped by their tile's
 * offset. Adds, for each group size m, (m, #groups) with #groups x 'acc'
 * accesses to 't'. 'skip' (may be NULL) marks children to leave out.
 */
void model_nest_multicast(struct model_ws *ws, unsigned pv, const struct mloop *group,
			  unsigned n_group, const uint64_t *ends, const uint8_t *skip,
			  uint64_t acc, struct nest_tile *t);

/* ------------------------------------------------------------- collapse */

/* Semantics 2.6: nest results -> per-level tiles of 'out'. */
void model_collapse(struct model_ws *ws, struct model_result *out);

/* -------------------------------------------------------- sparse hook */

/*
 * The sparse analysis (semantics 4), run between collapse and evaluation.
 * Returns 0, or -1 with out->status set when it rejects the mapping. With no
 * sparse optimizations it only initializes the dense defaults.
 */
int model_sparse_hook(struct model_ws *ws, struct model_result *out);

/*
 * Prepare / free the sparse analysis' part of the workspace. Prepare uses
 * the memory of 'keep' (NULL: none), a part model_sparse_detach() took from
 * a workspace, or frees it; detach leaves the workspace without one.
 */
void model_sparse_prepare(struct model_ws *ws, struct sparse_ws *keep);
struct sparse_ws *model_sparse_detach(struct model_ws *ws);
void model_sparse_release(struct model_ws *ws);

/*
 * True when spatial skipping may lower the fan-out a mapping needs: the
 * fan-out is then checked by the sparse hook (model_check_fanout_at), not before
 * the nest analysis.
 */
bool model_sparse_defers_fanout(const struct model_ws *ws);

/* True when tensor pv has a representation format at level l. */
bool model_sparse_has_format(const struct model_ws *ws, unsigned l, unsigned pv);

/*
 * The compute steps of the positions that position skipping packs, over
 * the dense steps: the product over the skipped tensors of their
 * saf_position_skip() ratios; 1 without position skipping.
 */
double model_sparse_position_ratio(const struct model_ws *ws);

/* ------------------------------------------------------------- energies */

/* Prepare per-level and compute energies (ERT, preset, user, PAT). */
void model_energy_prepare(struct model_ws *ws);

/* ----------------------------------------------------- checks (check.c) */

/* Fan-out of the compute level and of every storage level (before the nest). */
int model_check_levels_fanout(struct model_ws *ws, struct model_result *out);

/* Fan-out (x, y) needed at storage level 'level' (-1: the compute units). */
int model_check_fanout_at(struct model_ws *ws, int level, uint64_t x, uint64_t y,
			  struct model_result *out);

/*
 * Fail the mapping (EVAL_TOO_LARGE) when a bound on its counts exceeds
 * 2^64 - 1, before anything is counted (after model_loops_prepare).
 */
int model_check_count_range(struct model_ws *ws, struct model_result *out);

/*
 * The design's factor F of that bound: counts <= F x (the product of the
 * loops' trip counts), or 0 when the design has no such factor (a dimension
 * twice in a projection). Computed once, by model_ws_new().
 */
double model_count_range_factor(const struct model_ws *ws);

/*
 * Fail the mapping (EVAL_TOO_LARGE) when a tile's format bits, its
 * capacity or the accesses of one op class, pass 2^64 - 1 (after the
 * sparse analysis), so that the sums of units x word bits that the
 * evaluation and the reports make stay exact.
 */
int model_check_format_bits(struct model_ws *ws, struct model_result *out);

/* Capacity and min_utilization of the kept tiles (utilized_capacity). */
int model_check_levels(struct model_ws *ws, struct model_result *out);

/* ------------------------------------------------------------ evaluation */

/* GPU kernels (model/gpu.c): a level's warps (reads the warps repeat at the
 * parents; -1 when no split fits, with the status set) and the thread
 * blocks' prologue and epilogue per wave. */
int model_gpu_warps(struct model_ws *ws, struct model_result *out);
void model_gpu_tile_overheads(struct model_ws *ws, struct model_result *out);

/* Arithmetic: computes, energy, cycles (semantics 3.4). */
void model_eval_compute(struct model_ws *ws, struct model_result *out);

/* Storage: vector accesses, energy, bandwidth, cycles (3.2, 3.3, 3.5). */
void model_eval_levels(struct model_ws *ws, struct model_result *out);

/* Networks, total cycles, leakage and summary metrics (3.6, 3.7). */
void model_eval_totals(struct model_ws *ws, struct model_result *out);

/* --------------------------------------------------- result (result.c) */

/* Record an infeasible result. Returns -1. */
int model_result_fail(struct model_result *out, enum model_status st, int level, int tensor,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
