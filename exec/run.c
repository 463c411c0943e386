/*
 * exec_run(): generate the tensors, evaluate the Einsum point by point in
 * the mapping's order (numeric result, compute classes), walk every tile of
 * every level, and turn the walk's sums into reads, fills and updates.
 */
#include "exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sparse_int.h"
#include "exec/walk_int.h"
#include "util/xalloc.h"

static int fail(struct exec_result *out, enum exec_status st, const char *why)
{
	out->status = st;
	snprintf(out->reason, sizeof(out->reason), "%s", why);
	return -1;
}

/* The one read-write tensor, or -1. */
static int output_tensor(const struct xplan *p)
{
	unsigned t;
	for (t = 0; t < p->n_tensors; t++)
		if (p->geom[t].read_write)
			return (int)t;
	return -1;
}

static int make_tensors(struct xrun *x, char why[256])
{
	const struct xplan *p = &x->plan;
	unsigned t;

	for (t = 0; t < p->n_tensors; t++) {
		struct exec_tensor *v = exec_tensor_new(&x->s->workload, t, x->opt->seed, why);
		if (!v)
			return -1;
		x->pattern[t] = v;
		if (p->geom[t].read_write) {
			x->tensors[t] = exec_tensor_new_zero(p->geom[t].n_ranks, p->geom[t].extent);
			x->result = x->tensors[t];
		} else {
			x->tensors[t] = v;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ finalization */

static void finalize_tensor_level(struct xrun *x, unsigned l, unsigned t, bool top)
{
	struct exec_tensor_stats *st = &x->out->stats[l * x->plan.n_tensors + t];
	const struct xacc *a = xrun_acc(x, l, t);
	const struct spec_map_level *ml = &x->s->mapping->levels[l];
	bool elide = !(ml->rmw_first_update_mask & (1u << t));
	uint64_t part = a->partition;

	st->kept = true;
	if (x->plan.geom[t].read_write)
		st->spatial_reductions = a->child_words - a->content;
	else
		st->multicast_words = a->child_words - a->content - a->linked;
	st->link_transfers = a->peer;
	st->instances = a->instances ? a->instances : 1;
	st->tile_shape = a->tile_shape;
	st->partition = part;
	if (!x->plan.geom[t].read_write) {
		st->reads.algorithmic = a->content + a->peer;
		st->fills.algorithmic = top ? 0 : a->recv;
		return;
	}
	st->updates.algorithmic = a->content;
	st->reads.algorithmic = elide && a->content >= part ? a->content - part : a->content;
	if (top)
		st->fills.algorithmic = 0;
	else
		st->fills.algorithmic = elide && a->recv >= part ? a->recv - part : a->recv;
	if (!x->sp)
		st->temporal_reductions = st->reads.algorithmic;
}

static void finalize(struct xrun *x)
{
	const struct xplan *p = &x->plan;
	unsigned t, i;

	for (t = 0; t < p->n_tensors; t++)
		for (i = 0; i < p->n_chain[t]; i++)
			finalize_tensor_level(x, (unsigned)p->chain[t][i], t, i + 1 == p->n_chain[t]);
	if (!x->sp) {
		/* dense: everything that is algorithmic happens */
		for (i = 0; i < p->n_levels * p->n_tensors; i++) {
			struct exec_tensor_stats *st = &x->out->stats[i];
			st->reads.n[EXEC_ACTUAL] = st->reads.algorithmic;
			st->fills.n[EXEC_ACTUAL] = st->fills.algorithmic;
			st->updates.n[EXEC_ACTUAL] = st->updates.algorithmic;
		}
	}
}

/* ------------------------------------------------------------- the run */

static void result_init(struct exec_result *out, const struct spec_set *s)
{
	memset(out, 0, sizeof(*out));
	out->n_levels = s->arch.n_levels;
	out->n_tensors = s->workload.n_tensors;
	out->stats = xcalloc((size_t)out->n_levels * out->n_tensors + 1, sizeof(*out->stats));
}

static void xrun_release(struct xrun *x)
{
	unsigned t;
	for (t = 0; t < SPEC_MAX_TENSORS; t++) {
		if (x->pattern[t] != x->tensors[t])
			exec_tensor_free(x->pattern[t]);
		exec_tensor_free(x->tensors[t]);
	}
	exec_sparse_free(x->sp);
	free(x->acc);
	exec_plan_release(&x->plan);
}

int exec_run(const struct spec_set *s, const struct exec_options *opt, struct exec_result *out)
{
	static const struct exec_options defaults = EXEC_OPTIONS_INIT;
	struct xrun x;
	char why[256] = "";
	int rc = -1;

	result_init(out, s);
	memset(&x, 0, sizeof(x));
	x.s = s;
	x.opt = opt ? opt : &defaults;
	x.out = out;
	if (exec_plan_init(&x.plan, s, x.opt->footprint == EXEC_FOOTPRINT_EXACT, why) < 0)
		return fail(out, EXEC_TOO_LARGE, why);
	if (output_tensor(&x.plan) < 0 && x.plan.n_tensors == 0) {
		exec_plan_release(&x.plan);
		return fail(out, EXEC_UNSUPPORTED, "the workload has no tensors");
	}
	x.acc = xcalloc((size_t)x.plan.n_levels * x.plan.n_tensors + 1, sizeof(*x.acc));
	if (make_tensors(&x, why) < 0) {
		fail(out, EXEC_UNSUPPORTED, why);
		goto done;
	}
	if (exec_sparse_new(&x, &x.sp, why) < 0) {
		fail(out, EXEC_UNSUPPORTED, why);
		goto done;
	}
	exec_compute(&x);
	if (exec_walk_all(&x) < 0)
		goto done;
	finalize(&x);
	if (x.sp)
		exec_sparse_finalize(&x);
	out->status = EXEC_OK;
	rc = 0;
done:
	xrun_release(&x);
	return rc;
}

const struct exec_tensor_stats *exec_result_stats(const struct exec_result *r, unsigned level,
						  unsigned tensor)
{
	return &r->stats[level * r->n_tensors + tensor];
}

void exec_result_release(struct exec_result *r)
{
	free(r->stats);
	r->stats = NULL;
}

const char *exec_retention_name(enum exec_retention r)
{
	return r == EXEC_RETAIN_OVERLAP ? "overlap" : "translation";
}

const char *exec_footprint_name(enum exec_footprint f)
{
	return f == EXEC_FOOTPRINT_EXACT ? "exact" : "timeloop";
}
