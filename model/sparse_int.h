/*
 * Internals of the sparse analysis (semantics 4), between collapse and
 * evaluation: representation formats bound to the mapping's loops
 * (sparse_format.c), expected occupancies, format accesses and capacities
 * (sparse_occupancy.c), action optimizations (sparse_saf.c), their
 * propagation and the compute classes (sparse_combine.c). The state lives in the workspace: the
 * density models (with their caches) are per workspace, so evaluations in
 * different threads never share one; nothing here allocates per evaluation
 * except to grow a scratch buffer.
 */
#ifndef MODEL_SPARSE_INT_H
#define MODEL_SPARSE_INT_H

#include "model/model_int.h"

#include "formats/format.h"
#include "density/density.h"
#include "saf/saf.h"

_Static_assert(SAF_MAX_RANKS == MODEL_MAX_FMT_RANKS, "one rank bound for formats");

/* What the analysis knows of one tensor at one storage level. */
struct sp_tile {
	bool has_metadata, compressed;
	bool pretiled;
	unsigned n_ranks;                          /* R: format ranks, 1 without metadata */
	enum fmt_kind kind[SPEC_MAX_FMT_RANKS];    /* [r], r = 0 innermost */
	struct spec_rank_format named[SPEC_MAX_FMT_RANKS];  /* a named format, expanded */
	struct fmt_layout lay;
	struct fmt_assign asg;
	struct density_tile dtile;                 /* the data tile */
	uint64_t points;                           /* its points */
	struct fmt_tile_occupancy exp_md;          /* expected metadata units */
	double keep_ratio;                         /* share of instances keeping a non-empty tile */
	/* action optimizations acting on this tile */
	enum saf_action action;
	double p;
	uint32_t cond_mask;                        /* conditions of the temporal SAF */
	bool has_spatial;
	double p_spatial;
	uint32_t spatial_cond_mask;
	/* spatial skipping of the instances below this level */
	bool thins;
	struct saf_spatial_effect below;
	uint32_t below_leads;                      /* leaders that thin: bit c */
	double below_lead[SPEC_MAX_TENSORS];       /* busy fraction by leader c's zeros */
};

struct sparse_ws {
	bool active;                               /* the design lists something */
	bool has_spatial_skip;
	struct density_model *density[SPEC_MAX_TENSORS];
	const struct spec_tensor_format *fmt[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	const struct spec_sparse_target *target[SPEC_MAX_LEVELS];
	bool compute_gating, compute_skipping;

	/* per mapping */
	struct saf_nest nest;
	struct fmt_loop floops[SPEC_MAX_LOOPS];
	uint64_t box[SPEC_MAX_LEVELS][SPEC_MAX_DIMS];   /* op box of each level's data tile */
	struct sp_tile t[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	struct saf_tile chain[SPEC_MAX_LEVELS];
	bool gs_saf[SPEC_MAX_TENSORS];
	double empty_cond_prob[SPEC_MAX_TENSORS];
	uint32_t pos_skipped;                      /* tensors under position skipping: bit pv */
	double pos_ratio;                          /* their packed steps over the dense ones */

	/* scratch: an occupancy distribution */
	double *probs;
	size_t probs_alloc;

	/*
	 * The last occupancy of each tile (l, pv), at memo[l * n_tensors + pv]:
	 * emptied for every design (its density models), kept across mappings
	 * (sparse_occupancy.c).
	 */
	struct sp_occ_memo *memo;
	size_t memo_alloc;
};

/*
 * What the occupancy of a kept tile depends on besides the design (its
 * shape, data tile, whether empty tiles are dropped, and with metadata its
 * layout and the tiles of its ranks), and what it gave: a tile of the same
 * key has the same expected occupancy and, at the same confidence, the same
 * capacity.
 */
struct sp_occ_memo {
	bool valid;
	bool drop, has_metadata;
	uint64_t shape;
	struct density_tile dtile;
	struct fmt_layout lay;                     /* with metadata: ranks < lay.n_ranks */
	uint64_t tile_extent[SPEC_MAX_FMT_RANKS][SPEC_MAX_TENSOR_RANKS];
	struct fmt_expected e;
	/* tile_capacity() at confidence cap_conf, when cap_valid */
	bool cap_valid;
	double cap_conf, cap_bits;
	uint64_t cap_occ;
	struct fmt_tile_occupancy cap_u;
};

/* Empty the occupancy memo for a design of 'n' tiles (levels x tensors). */
void model_sparse_memo_reset(struct sparse_ws *sp, size_t n);

/* sparse_format.c: bind every kept tile's format to the loops (semantics 4.3.1). */
int model_sparse_formats(struct model_ws *ws, struct model_result *out);

/*
 * sparse_occupancy.c: expected occupancies and format accesses (4.3.3,
 * 4.3.4); -1 (EVAL_TOO_LARGE) when a format access count passes 2^64 - 1.
 */
int model_sparse_occupancy(struct model_ws *ws, struct model_result *out);

/* Utilized capacities, metadata capacity, overbooking and the vector ratio (4.7, 3.2). */
int model_sparse_capacity(struct model_ws *ws, struct model_result *out);

/* sparse_saf.c: define the optimizations (4.4). */
int model_sparse_define_safs(struct model_ws *ws, struct model_result *out);

/* Spatial skipping: lower the instances and expansions below (4.4.4). */
int model_sparse_spatial_instances(struct model_ws *ws, struct model_result *out);

/* The nearest level at or above 'l' that keeps 'pv' (a non-empty tile), or -1. */
int model_sparse_keeping_level(const struct model_result *out, unsigned l, unsigned pv);

/* sparse_combine.c: representation impact, propagation, (de)compression (4.5). */
void model_sparse_combine(struct model_ws *ws, struct model_result *out);

/* Compute classes (4.6). */
void model_sparse_classify(struct model_ws *ws, struct model_result *out);

#endif
