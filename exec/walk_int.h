/*
 * The tile walk: one pass per (tensor, child level, parent level) link over
 * every tile the child level's instances hold, in the mapping's order.
 * Shared between walk.c (dense counting) and sparse.c (per-point classes).
 */
#ifndef EXEC_WALK_INT_H
#define EXEC_WALK_INT_H

#include "exec/exec_int.h"

/* An odometer over some loops of the nest, outermost first. */
struct odo {
	unsigned n;
	unsigned loop[SPEC_MAX_LOOPS];
	uint64_t idx[SPEC_MAX_LOOPS];
};

/* One link: tensor 't' delivered from level 'p' to its child level 'c'. */
struct xlink {
	unsigned t;
	int c, p;                      /* c = -1: compute; p = -1: none (top level) */
	int bc, bp;                    /* boundary loops (bc = -1 for compute) */
	struct odo tick, par, kid;     /* temporal above bc; spatial above bp; spatial in (bc, bp] */
	uint64_t n_pinst, n_kids;      /* parent instances, children per parent */
	uint64_t rep_par, rep_kid;     /* identical replicas left out of the walk */
	bool no_reuse;                 /* no temporal reuse at c */
	bool dense;                    /* every access is actual: counted, not classified */
	uint64_t mesh_x;               /* > 0: children may take their delta from a mesh
					  neighbour (link transfers); the row length */
};

/* Per (level, tensor) sums that walk.c fills. */
struct xacc {
	uint64_t content;              /* words delivered to children (multicast counted once) */
	uint64_t child_words;          /* words the children received (each counted) */
	uint64_t recv;                 /* words received (from the parent or a neighbour) */
	uint64_t peer;                 /* words sent to a mesh neighbour (read here) */
	uint64_t linked;               /* words the children took from each other */
	uint64_t partition;            /* distinct points held, summed over instances */
	uint64_t instances;
	uint64_t tile_shape;
};

struct xsparse;

/* Everything one execution owns. */
struct xrun {
	const struct spec_set *s;
	const struct exec_options *opt;
	struct xplan plan;
	struct exec_tensor *tensors[SPEC_MAX_TENSORS];   /* values (outputs: computed) */
	/* what is stored: the values for read-only tensors; for read-write ones a
	 * pattern drawn from their density model (the executor cannot know which
	 * outputs an activation would zero) */
	struct exec_tensor *pattern[SPEC_MAX_TENSORS];
	/* what the numeric check multiplies: the pruned tensor (not its unpacked
	 * buffers) under --prune, else NULL (the values) */
	struct exec_tensor *reference[SPEC_MAX_TENSORS];
	struct exec_tensor *result;    /* the read-write tensor computed */
	struct xacc *acc;              /* [level * n_tensors + tensor] */
	struct xsparse *sp;            /* NULL for a dense design */
	struct exec_result *out;
};

static inline struct xacc *xrun_acc(struct xrun *x, unsigned level, unsigned t)
{
	return &x->acc[level * x->plan.n_tensors + t];
}

/* Walk every link of every tensor, filling x->acc (and sparse counts). */
int exec_walk_all(struct xrun *x);

/* Evaluate every op point in mapping order: numeric result and computes. */
void exec_compute(struct xrun *x);

#endif
