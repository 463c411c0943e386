/*
 * Inside the mapspace: tiling levels with their constraints, the
 * factorizations of every dimension, points and what a point's index
 * factorization implies (factors, tile sizes, feasible keep sets, orders).
 *
 * Tiling levels run inner to outer: for each storage level a spatial one
 * when its fan-out is > 1, then a temporal one (semantics 1.4). A point is
 * plain data; 'struct ms_if' is per-thread scratch computed from a point's
 * factorization, shared by every keep choice and order of that
 * factorization. The mapspace's functions and types carry the prefix ms_
 * (mapspace.c, point.c); the search's (search_int.h) carry mapper_.
 */
#ifndef MAPPER_MAPSPACE_INT_H
#define MAPPER_MAPSPACE_INT_H

#include "mapper/mapper.h"

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct rng;

#define MS_MAX_TL (2 * SPEC_MAX_LEVELS)
#define MS_MAX_CHOICES (1u << 22)        /* factorizations of one dimension */
#define MS_NO_TL 0xff

/* One tiling level and the constraints on it. */
struct ms_tl {
	unsigned level;                      /* storage level */
	bool is_spatial;
	unsigned fanout_x, fanout_y;         /* spatial only */
	bool may_thin;                       /* spatial skipping here: fixed factors may exceed
						the fan-out, the model checks it thinned */
	uint64_t fixed[SPEC_MAX_DIMS];       /* 0 = free */
	uint64_t max[SPEC_MAX_DIMS];         /* UINT64_MAX = unbounded */
	unsigned n_prefix, n_suffix;         /* the order constraint, innermost first */
	uint8_t prefix[SPEC_MAX_DIMS];
	uint8_t suffix[SPEC_MAX_DIMS];
	uint32_t ordered_mask;               /* dims in the prefix or the suffix */
	int split;                           /* fixed split over all dims, or -1 */
	double min_utilization;              /* spatial: product / fan-out lower bound */
	uint64_t max_remainder;              /* Ruby's 'remainders': the largest residual; 0 = none */
	const struct spec_constraint *factor_con[SPEC_MAX_DIMS];
	const struct spec_constraint *perm_con, *split_con, *util_con;
};

/*
 * The factorizations of one dimension over its free tiling levels. With
 * 'imperfect', a row's factors need not divide the bound: each tiling level
 * covers the extent left by the ones inside it in ceil(R / f) tiles, the
 * last one smaller (docs/mapper.md, "Imperfect factors"); ms_if_load()
 * derives the residuals.
 */
struct ms_dim {
	uint64_t bound;
	bool imperfect;
	unsigned n_free;
	uint8_t free_tl[MS_MAX_TL];          /* tiling level of each free slot */
	uint32_t n_choices;
	uint64_t *choices;                   /* n_choices rows of n_free factors */
};

/* A storage level as the mapspace sees it. */
struct ms_level {
	bool has_size;
	uint64_t cap_words;                  /* effective size */
	double min_words;                    /* effective size * min_utilization */
	uint32_t force_keep, force_bypass, free_mask;
	uint32_t precheck_mask;              /* tensors whose dense tile is their need here */
	uint32_t no_link_transfer;           /* from spatial constraints: the mappings' mask */
	uint32_t no_multicast;               /* spatial 'no_reuse' constraints: the mappings' mask */
	uint8_t tl_spatial;                  /* MS_NO_TL when fan-out is 1 */
	uint8_t tl_temporal;
	const struct spec_constraint *keep_con;
};

struct mapper_space {
	const struct spec_set *spec;
	struct model_options model_opt;      /* how the pre-check counts tiles (no energy preset) */
	unsigned n_dims, n_tensors, n_levels, n_tl;
	uint32_t all_tensors;
	struct ms_tl tl[MS_MAX_TL];
	struct ms_dim dim[SPEC_MAX_DIMS];
	struct ms_level lvl[SPEC_MAX_LEVELS];
	uint64_t n_if;                       /* saturating product of n_choices */
	bool any_remainders;                 /* some level bounds its residuals (Ruby) */
	uint32_t pad_mask;                   /* padded dimensions ('pad' constraints) */
	unsigned max_free_keep;              /* most free tensors at one level */
};

/* A point of the mapspace; compared field by field (ms_point_cmp). */
struct ms_point {
	uint32_t choice[SPEC_MAX_DIMS];      /* factorization index per dimension */
	uint32_t keep[SPEC_MAX_LEVELS];      /* keep mask per storage level */
	uint64_t rank[MS_MAX_TL];            /* order of the free non-trivial loops */
	uint8_t split[MS_MAX_TL];            /* spatial: non-trivial loops on X */
};

/* What a factorization implies; per-thread scratch. */
struct ms_if {
	uint64_t f[MS_MAX_TL][SPEC_MAX_DIMS];
	uint64_t r[MS_MAX_TL][SPEC_MAX_DIMS];  /* residuals (== f when perfect) */
	uint64_t need[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];  /* tile words (model_tile_words) */
	uint8_t n_nt[MS_MAX_TL];             /* non-trivial loops */
	uint8_t n_fn[MS_MAX_TL];             /* free non-trivial loops */
	uint8_t fn[MS_MAX_TL][SPEC_MAX_DIMS];/* those, in dimension order */
	uint64_t n_ranks[MS_MAX_TL];         /* n_fn! */
	uint64_t n_perm_digits[MS_MAX_TL];   /* n_ranks (* (n_nt + 1) when spatial) */
	uint32_t n_keep[SPEC_MAX_LEVELS];    /* feasible keep masks per level */
	uint32_t *keep[SPEC_MAX_LEVELS];     /* into 'keep_buf' */
	uint32_t *keep_buf;
	struct model_ws *mws;                /* counts the tiles of 'need' (model_tile_words) */
};

/* ------------------------------------------------- mapspace.c, point.c */

/*
 * A model workspace counting tiles as the search's evaluations will
 * (ms->model_opt); the caller frees it with model_ws_free().
 */
struct model_ws *ms_tile_counter_new(const struct mapper_space *ms);

/* Compare two points field by field; <0, 0, >0. */
int ms_point_cmp(const struct ms_point *a, const struct ms_point *b);

/* Allocate the keep buffers and the tile counter of 'fi' for 'ms'. */
void ms_if_init(struct ms_if *fi, const struct mapper_space *ms);
void ms_if_release(struct ms_if *fi);

/*
 * Load the factorization 'choice' into 'fi': factors, fan-out checks, tile
 * sizes and loop counts. Returns MAPPER_OK, or the failure and its level.
 */
enum mapper_fail ms_if_load(const struct mapper_space *ms, const uint32_t *choice,
			    struct ms_if *fi, unsigned *fail_level);

/*
 * Fill fi->keep with the keep masks each level may take: those allowed by
 * the constraints and, when 'by_capacity', whose dense tiles fit. Returns
 * MAPPER_OK, or MAPPER_FAIL_CAPACITY with the first level left without one.
 */
enum mapper_fail ms_if_keep_sets(const struct mapper_space *ms, struct ms_if *fi,
				 bool by_capacity, unsigned *fail_level);

/* Capacity check of one keep choice (dense tiles). */
enum mapper_fail ms_keep_check(const struct mapper_space *ms, const struct ms_if *fi,
			       const uint32_t *keep, unsigned *fail_level);

/* Decode the order digit 'digit' of tiling level 'tl' into p->rank/p->split. */
void ms_perm_digit_set(const struct ms_if *fi, unsigned tl, uint64_t digit, struct ms_point *p);

/* True when the spatial arrangement of 'p' at 'tl' fits its fan-out and split. */
bool ms_spatial_ok(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
		   const struct ms_point *p);

/* True when every spatial arrangement of 'p' fits. */
bool ms_point_spatial_ok(const struct mapper_space *ms, const struct ms_if *fi,
			 const struct ms_point *p, unsigned *fail_level);

/* Build the mapping of 'p' (whose factorization is loaded in 'fi'), derived. */
void ms_point_mapping(const struct mapper_space *ms, const struct ms_if *fi,
		      const struct ms_point *p, struct spec_mapping *m);

/*
 * The point of mapping 'm' (loading its factorization into 'fi'). Returns
 * 0, or -1 when 'm' is not in the mapspace (a factor, keep choice or order
 * the constraints or fan-outs rule out).
 */
int ms_point_from_mapping(const struct mapper_space *ms, struct ms_if *fi,
			  const struct spec_mapping *m, struct ms_point *p);

/* Index of the factorization of 'd' with free factors 'row' (the lists are
 * sorted), or UINT32_MAX when there is none. */
uint32_t ms_choice_find(const struct mapper_space *ms, unsigned d, const uint64_t *row);

/* The free non-trivial loops of 'tl' in the order of 'rank', and back. */
void ms_free_order(const struct ms_if *fi, unsigned tl, uint64_t rank, uint8_t *out);
uint64_t ms_free_rank(const struct ms_if *fi, unsigned tl, const uint8_t *order);

/* The non-trivial loops of 'tl' in the order of 'rank' (prefix, free, suffix). */
unsigned ms_seq(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl, uint64_t rank,
		uint8_t *seq);

/* True when spatial level 'tl' with 'factors' (per dimension) has an
 * arrangement that fits its fan-out, split and order constraints. */
bool ms_tl_arrangement_exists(const struct mapper_space *ms, unsigned tl, const uint64_t *factors);

/* Uniformly random factorization, keep choice (from fi->keep) and orders. */
void ms_random_choice(const struct mapper_space *ms, struct rng *r, uint32_t *choice);
void ms_random_keep(const struct mapper_space *ms, const struct ms_if *fi, struct rng *r,
		    struct ms_point *p);
bool ms_random_orders(const struct mapper_space *ms, const struct ms_if *fi, struct rng *r,
		      struct ms_point *p);

/* Upper bound of a free slot of dimension 'd' at tiling level 't'. */
uint64_t ms_slot_bound(const struct ms_tl *t, unsigned d);

/*
 * The tiles worth trying for an extent R at one tiling level, ascending, at
 * most 'cap': the smallest tile for each trip count q, ceil(R / q) (a
 * larger tile with as many trips holds more and moves as much). With
 * 'spacing' > 1, only the divisors of R and trip counts at least 'spacing'
 * times apart are kept. Returns the count; 'out' holds at most 'max'.
 */
size_t ms_imperfect_candidates(uint64_t R, uint64_t cap, double spacing, uint64_t *out,
			       size_t max);

/* Factorization number 'idx' (dimension 0 varies fastest) into 'choice'. */
void ms_choice_decode(const struct mapper_space *ms, uint64_t idx, uint32_t *choice);

#endif
