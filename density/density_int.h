/*
 * Internals of the density models: the model object, a dense probability
 * vector type with the few operations the geometric models need
 * (density/dist.c), and one ops table per distribution-backed kind (banded,
 * N:M, actual data, block structured, power law).
 */
#ifndef DENSITY_DENSITY_INT_H
#define DENSITY_DENSITY_INT_H

#include "density/density.h"
#include "util/ckmath.h"
#include "util/xalloc.h"

/* P(lo + i) = p[i] for i < n; nothing outside. */
struct density_dist {
	uint64_t lo;
	size_t n;
	double *p;
};

#define DENSITY_DIST_INIT { 0, 0, NULL }

struct density_cache;

/* A kind whose answers come from a (cached) distribution. */
struct density_kind_ops {
	/*
	 * The occupancy distribution of tile 't' under 'c' (NULL: none) into
	 * 'out' (released by the caller). Both tiles are clipped to the tensor.
	 */
	void (*distribution)(const struct density_model *m, const struct density_tile *t,
			     const struct density_constraint *c, struct density_dist *out);
};

struct density_model {
	enum spec_density_kind kind;
	struct spec_density spec;      /* copy; spec.data borrowed */
	unsigned n_ranks;
	uint64_t shape[SPEC_MAX_TENSOR_RANKS];
	uint64_t size;                 /* points of the tensor (hypergeometric: N) */
	uint64_t hg_nonzeros;          /* hypergeometric r = ceil(rho N) */
	unsigned nm_rank;              /* N:M groups' rank; power_law: the rows' rank */
	uint64_t n_blocks;             /* block: blocks of the tensor (edge blocks partial) */
	uint64_t n_nonzero_blocks;     /* block: round(rho n_blocks) */
	uint64_t *row_len;             /* power_law: non-zeros of each row, in row order */
	struct density_joint *joints;  /* block, power_law: constrained joints so far */
	size_t joint_max_entries;      /* largest joint kept (else one O at a time) */
	uint64_t row_points;           /* power_law: points of one row */
	double work_budget;            /* operations an exact answer may take (block, power_law) */
	double global_density;
	char type_name[48];
	const struct density_kind_ops *ops;  /* NULL: closed-form kind */
	struct density_cache *cache;   /* not shared between threads */
};

extern const struct density_kind_ops density_banded_ops;
extern const struct density_kind_ops density_nm_ops;
extern const struct density_kind_ops density_actual_ops;
extern const struct density_kind_ops density_block_ops;
extern const struct density_kind_ops density_power_law_ops;

/* Default of density_model.work_budget: about a second of work per distribution. */
#define DENSITY_WORK_BUDGET 2e8

/* Default of density_model.joint_max_entries: 32 MB of doubles. */
#define DENSITY_JOINT_MAX_ENTRIES ((size_t)1 << 22)

/* Set the block counts of a new block-structured model. */
void density_block_init(struct density_model *m);

/* Set the row lengths of a new power-law model (the apportionment of power_law.c). */
void density_power_law_init(struct density_model *m);

/*
 * A joint P(child = n, parent = t) for one child shape under one parent
 * shape, every t at once (a model asks for one parent occupancy after
 * another: block and power law compute them together and keep them).
 */
struct density_joint {
	uint64_t child[SPEC_MAX_TENSOR_RANKS], parent[SPEC_MAX_TENSOR_RANKS];
	size_t n1, t1;                 /* n < n1, t < t1 */
	double *num;                   /* num[n * t1 + t]; NULL: too large or over budget */
	struct density_joint *next;
};

/*
 * The joint of child extents 'ce' under parent extents 'pe' in 'm', and
 * '*is_new' whether it was just added (with num NULL, for the caller to
 * fill). The model keeps it (the cast in dist.c is the model's cache).
 */
struct density_joint *density_joint_get(const struct density_model *m, const uint64_t *pe,
					const uint64_t *ce, bool *is_new);

/*
 * out := P(child = n | parent = O) from 'j' for n <= n_cap, normalized;
 * false (out released) when no pair has the parent holding O.
 */
bool density_joint_dist(const struct density_joint *j, uint64_t O, uint64_t n_cap,
			struct density_dist *out);

/* Free the joints of list 'j' (a model's 'joints'); NULL is a no-op. */
void density_joints_free(struct density_joint *j);

/* Global density of the banded pattern on the model's tensor. */
double density_banded_global(const struct density_model *m);

/* Free the vector of 'd' and reset it. */
void density_dist_release(struct density_dist *d);

/* d := the point mass at 'v'. */
void density_dist_point(struct density_dist *d, uint64_t v);

/* d := zero probabilities on [lo, lo + n). */
void density_dist_zero(struct density_dist *d, uint64_t lo, size_t n);

/* out := the distribution of the sum of independent 'a' and 'b'. */
void density_dist_conv(const struct density_dist *a, const struct density_dist *b,
		       struct density_dist *out);

/* out := the sum of 'k' independent copies of 'a' (k = 0: the point 0). */
void density_dist_pow(const struct density_dist *a, uint64_t k, struct density_dist *out);

/* acc += w * d (acc grows as needed; an empty acc starts at d). */
void density_dist_add(struct density_dist *acc, const struct density_dist *d, double w);

/* Divide every probability by 'total' (> 0). */
void density_dist_scale(struct density_dist *d, double total);

/* Drop leading and trailing probabilities below 1e-300. */
void density_dist_trim(struct density_dist *d);

/* P(lo + i) from d, 0 outside. */
double density_dist_at(const struct density_dist *d, uint64_t v);

/* ln C(n, k) for k <= n, without cancellation for large n and small k. */
long double density_lchoose(uint64_t n, uint64_t k);

/* HG(n; succ, sample, pop), 0 outside the support. */
double density_hg_pmf(uint64_t pop, uint64_t succ, uint64_t sample, uint64_t n);

/*
 * out := HG(.; succ, sample, pop): the number of the 'succ' marked items of
 * a population of 'pop' that fall in a uniform sample of 'sample', over its
 * whole support (probabilities that underflow are kept as zeros).
 */
void density_hg_dist(uint64_t pop, uint64_t succ, uint64_t sample, struct density_dist *out);

/* Points of tile 't': density_tile_points(), inline for the queries. */
static inline uint64_t density_tile_size(const struct density_tile *t)
{
	uint64_t p = 1;
	unsigned i;

	for (i = 0; i < t->n_ranks; i++)
		if (!ck_mul_u64(p, t->extent[i], &p))
			BUG("tile size overflows");
	return p;
}

/* Row-major index of 'coord' in a grid of 'n' ranks of extents 'ext'. */
uint64_t density_grid_index(unsigned n, const uint64_t *ext, const uint64_t *coord);

#endif
