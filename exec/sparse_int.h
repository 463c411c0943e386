/*
 * Sparse execution: representation formats laid over the tiles, storage
 * action optimizations (gating, skipping) checked on the actual leader
 * values at their granularity, and compute classes. A dense design has no
 * 'struct xsparse' at all.
 */
#ifndef EXEC_SPARSE_INT_H
#define EXEC_SPARSE_INT_H

#include "exec/walk_int.h"
#include "util/hashmap.h"

/* One loop of a tile's fibertree layout. */
struct rloop {
	unsigned dim;
	uint64_t end;
	uint64_t stride;               /* op-space stride inside the tile */
	unsigned rank;                 /* Sparseloop rank (0 = innermost) */
};

/* Units of one tile, cached by the tile's tensor box. */
struct units_entry {
	uint64_t nnz, shape;
	double md[SPEC_MAX_FMT_RANKS], pl[SPEC_MAX_FMT_RANKS];  /* rank 0 innermost */
};

/* The representation of one tensor at one level that keeps it. */
struct xfmt {
	bool kept;
	bool has_md;                   /* a format was given here */
	bool compressed;               /* some rank is CP, B or RLE */
	bool inner_to_outer;
	enum spec_named_format named;  /* a named format, expanded by the layout */
	unsigned nm_m;                 /* N:M group size (named N:M) */
	unsigned n_ranks;              /* Sparseloop ranks (1 without a format) */
	enum fmt_kind kind[SPEC_MAX_FMT_RANKS];   /* outermost first */
	uint64_t fixed[SPEC_MAX_FMT_RANKS];       /* CP widths of sparse_fixed axes; 0 = none */
	/* flattened_rankIDs of each rank (outermost first): dim masks */
	unsigned n_flatten[SPEC_MAX_FMT_RANKS];
	uint32_t flatten[SPEC_MAX_FMT_RANKS][SPEC_MAX_TENSOR_RANKS];
	size_t n_loops;
	struct rloop *loops;           /* inner first */
	uint64_t fiber_shape[SPEC_MAX_FMT_RANKS]; /* rank 0 innermost */
	int32_t *pos[SPEC_MAX_FMT_RANKS];         /* fiber_shape * tensor ranks offsets */
	uint64_t ext[XD];              /* tile extent of the level */
	/* tile box (lo then hi of every tensor rank) -> units_entry */
	struct hashmap cache;
	int64_t last_key[2 * XR];
	const struct units_entry *last;  /* the entry of last_key, looked up last */
};

/*
 * One condition of a storage SAF: the leader and its windows. A temporal
 * SAF's windows are the aligned boxes of a grid over the op space; a
 * spatial skip's window is the sub-tile one instance sees, a set of loops
 * of the nest: op points share a window when they agree on the indices of
 * every other loop ('key' loops; only those that move the leader matter).
 */
struct xwin {
	unsigned cond;
	bool never;                    /* the option is ineffective for this leader */
	uint64_t box[XD];              /* grid: window extent per dim */
	uint64_t grid_stride[XD];      /* grid: 0 for dims the leader does not use */
	unsigned n_key;                /* loop windows: key loops (0: a grid) */
	unsigned key_loop[SPEC_MAX_LOOPS];     /* plan loop indexes */
	uint64_t key_weight[SPEC_MAX_LOOPS];   /* mixed-radix weight of each */
	uint8_t *empty;                /* one byte per window */
};

/*
 * One storage SAF as it acts: gate or skip 'target' at 'level', or (spatial)
 * give no work to the instances below the spatial loops of 'level' whose
 * sub-tile of a leader is empty.
 */
struct xsaf {
	unsigned target;
	int level;
	bool skip;
	bool spatial;
	unsigned n_win;
	struct xwin win[SPEC_MAX_TENSORS];
};

struct xsparse {
	unsigned n_levels, n_tensors;
	struct xfmt *fmt;              /* [level * n_tensors + tensor] */
	unsigned n_saf;
	struct xsaf *saf;
	bool compute_gating, compute_skipping;
	bool has_spatial;              /* some SAF is a spatial skip */
	bool involved[SPEC_MAX_TENSORS];  /* has a format or is a SAF target */
	/* (level, tensor) whose fills / reads and updates came from dense links */
	bool dense_fill[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	bool dense_parent[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	uint64_t **delivered;          /* per parent instance of the current link */
	uint64_t n_delivered;
	uint64_t *pts;                 /* points of the current delivery */
	uint64_t n_pts, pts_alloc;
};

static inline struct xfmt *xsparse_fmt(struct xsparse *sp, unsigned level, unsigned t)
{
	return &sp->fmt[level * sp->n_tensors + t];
}

/*
 * Prepare the sparse side of 'x'. *out is NULL for a design without
 * sparse optimizations. Returns 0, or -1 with 'why' for a feature the
 * executor does not support.
 */
int exec_sparse_new(struct xrun *x, struct xsparse **out, char why[256]);
void exec_sparse_free(struct xsparse *sp);

/*
 * True when every access of link 'lk' is actual (no metadata at either
 * end, no SAF on the tensor at or above the parent): the walk counts it
 * like a dense link, and records that its classes are the algorithmic
 * counts. Call once per link.
 */
bool exec_sparse_link_is_dense(struct xsparse *sp, const struct xlink *lk);

void exec_sparse_link_begin(struct xrun *x, const struct xlink *lk);
void exec_sparse_link_end(struct xrun *x, const struct xlink *lk);

/*
 * True when a spatial skip acts on the network of link 'lk' (its level
 * owns spatial loops between the child and the parent): the children whose
 * sub-tile of the leader is empty get nothing (exec_sparse_kid_skipped()).
 */
bool exec_sparse_link_has_spatial(const struct xsparse *sp, const struct xlink *lk);

/* True when the child of link 'lk' at op origin 'op_lo' is given no work. */
bool exec_sparse_kid_skipped(const struct xrun *x, const struct xlink *lk, const int64_t *op_lo);

/*
 * Classify the points of one delivery: the child of link 'lk' whose tile
 * at op origin 'op_lo' is 'tile' receives tile - prev ('prev' NULL: all of
 * it) from parent instance 'pinst'; the parent reads this child's delta
 * 'n_reads' times (0 when another child's identical delta is multicast to
 * it) and would have read it 'n_skipped' more times for children a spatial
 * skip left without work; 'linked': a mesh neighbour sent the delta (it
 * reads what the child receives); 'held' is the child's map of points held
 * before (NULL: none).
 */
void exec_sparse_delivery(struct xrun *x, const struct xlink *lk, const struct tlayout *tl,
			  const struct tset *tile, const struct tset *prev, const int64_t *op_lo,
			  uint64_t pinst, unsigned n_reads, unsigned n_skipped, bool linked,
			  const uint64_t *held);

/*
 * Class of the compute at op point 'op' with operand values 'vals':
 * EXEC_ACTUAL, EXEC_GATED, EXEC_SKIPPED, or -1 when it does not exist (an
 * upstream skip or gate removed it, or neither operand is stored).
 */
int exec_sparse_compute_class(struct xrun *x, const int64_t *op, const double *vals, int out);

/* Fill the sparse fields of the result. */
void exec_sparse_finalize(struct xrun *x);

/* ------------------------------------------------------------- layout.c */

/* Derive the fibertree layout of every kept (level, tensor). */
int exec_layout_init(struct xrun *x, struct xsparse *sp, char why[256]);

/* The units of the tile of (level 'l', tensor 't') at op origin 'origin'. */
const struct units_entry *exec_layout_units(struct xrun *x, unsigned l, unsigned t,
					    const int64_t *origin);

void exec_layout_release(struct xsparse *sp);

#endif
