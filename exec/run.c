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

/* The rank of tensor 'st' indexed by dimension 'dim' alone, or -1. */
static int rank_indexed_by(const struct spec_tensor *st, unsigned dim)
{
	unsigned r;
	for (r = 0; r < st->n_ranks; r++)
		if (st->ranks[r].n_terms == 1 && st->ranks[r].terms[0].dim == dim)
			return (int)r;
	return -1;
}

/*
 * --prune of tensor t: prune the dense 'v' to n:m by magnitude along the
 * density's dimension (it becomes the stored pattern and the numeric
 * check's operand), pack it into values plus indices group by group in
 * row-major order, and unpack them into the tensor the mapping runs on.
 */
static int prune_tensor(struct xrun *x, unsigned t, struct exec_tensor *v, char why[256])
{
	const struct spec_tensor *st = &x->s->workload.tensors[t];
	const struct spec_density *d = &st->density;
	struct exec_pruned *pr = &x->out->pruned[t];
	struct exec_tensor *run;
	uint64_t cap, i, extent[SPEC_MAX_TENSOR_RANKS];
	unsigned r;
	double *values;
	uint8_t *indices;
	int rank = rank_indexed_by(st, d->nm_dim);

	if (rank < 0 || d->nm_m > 256) {
		snprintf(why, 256, "tensor '%s': cannot prune along '%s' (no rank indexed by it "
			 "alone, or M above 256)", st->name, x->s->workload.dim_names[d->nm_dim]);
		return -1;
	}
	exec_tensor_prune_nm(v, d->nm_n, d->nm_m, (unsigned)rank);
	for (r = 0; r < exec_tensor_n_ranks(v); r++)
		extent[r] = exec_tensor_extent(v, r);
	pr->pruned = true;
	pr->n = d->nm_n;
	pr->m = d->nm_m;
	pr->rank = (unsigned)rank;
	pr->dense_points = exec_tensor_size(v);
	pr->nonzeros = exec_tensor_nnz(v);
	pr->index_bits = exec_nm_index_bits(d->nm_m);
	pr->groups = pr->dense_points / extent[rank] * ((extent[rank] + d->nm_m - 1) / d->nm_m);
	cap = pr->groups * d->nm_n + 1;
	values = xcalloc(cap, sizeof(*values));
	indices = xcalloc(cap, sizeof(*indices));
	pr->values = exec_nm_compress(v, d->nm_n, d->nm_m, (unsigned)rank, values, indices);
	run = exec_tensor_new_zero(exec_tensor_n_ranks(v), extent);
	exec_nm_decompress(run, d->nm_n, d->nm_m, (unsigned)rank, values, indices);
	pr->round_trip_ok = pr->values > 0;
	for (i = 0; i < pr->dense_points && pr->round_trip_ok; i++)
		pr->round_trip_ok = exec_tensor_values(run)[i] == exec_tensor_values(v)[i];
	for (i = 0; i < pr->values; i += d->nm_n) {
		unsigned k;
		for (k = 0; k < d->nm_n && values[i + k] != 0; k++)
			;
		pr->short_groups += k < d->nm_n;
	}
	free(values);
	free(indices);
	x->tensors[t] = run;
	x->reference[t] = v;
	return 0;
}

static int make_tensors(struct xrun *x, char why[256])
{
	const struct xplan *p = &x->plan;
	unsigned t;

	for (t = 0; t < p->n_tensors; t++) {
		struct exec_tensor *v = exec_tensor_new(p->w, t, x->opt->seed, why);
		if (!v)
			return -1;
		x->pattern[t] = v;
		if (x->s->workload.tensors[t].prune_source && !p->geom[t].read_write) {
			if (prune_tensor(x, t, v, why) < 0)
				return -1;
			continue;
		}
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
	if (s->mapping->pad_mask && s->sparse.present) {
		exec_plan_release(&x.plan);
		return fail(out, EXEC_UNSUPPORTED, "a padded mapping of a sparse design (the padding's "
			    "zeros are not the density model's)");
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
