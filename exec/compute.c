/*
 * The compute pass: every point of the op space, in the mapping's loop
 * order, multiplies its operands into the read-write tensor. In a sparse
 * design each point is first classified (removed by a storage skip or gate
 * upstream, or actual / gated / skipped at the compute units) and only
 * actual computes contribute. The result is then checked against a plain
 * dense evaluation in dimension order, which shares only the tensors.
 */
#include "exec/walk_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sparse_int.h"
#include "util/xalloc.h"

/* Linear index of op point 'xo' in tensor 't'. */
static uint64_t op_lin(const struct xplan *p, unsigned t, const int64_t *xo)
{
	const struct xgeom *g = &p->geom[t];
	uint64_t lin = 0;
	unsigned r, i;

	for (r = 0; r < g->n_ranks; r++) {
		int64_t c = -g->origin[r];
		for (i = 0; i < g->proj[r].n_terms; i++)
			c += g->proj[r].terms[i].coef * xo[g->proj[r].terms[i].dim];
		lin += (uint64_t)c * g->stride[r];
	}
	return lin;
}

/* Change of tensor 't's linear index when loop 'k' advances once. */
static int64_t loop_dlin(const struct xplan *p, unsigned k, unsigned t)
{
	const struct xgeom *g = &p->geom[t];
	const struct xloop *lp = &p->loops[k];
	int64_t d = 0;
	unsigned r, i;

	for (r = 0; r < g->n_ranks; r++)
		for (i = 0; i < g->proj[r].n_terms; i++)
			if (g->proj[r].terms[i].dim == lp->dim)
				d += g->proj[r].terms[i].coef * (int64_t)lp->stride *
				     (int64_t)g->stride[r];
	return d;
}

/*
 * Which arithmetic units have work at which step: the step is the index of
 * the temporal loops, the unit that of the spatial loops (mixed radix).
 */
struct busy {
	uint64_t weight[SPEC_MAX_LOOPS];   /* of each loop in its step or unit index */
	uint64_t step, unit;           /* the current op point's */
	uint64_t n_steps, n_units;
	uint64_t *last_step;           /* per unit: the last step it had work (+1) */
	uint32_t *count;               /* per step: units with work */
};

struct cwalk {
	struct xrun *x;
	int out;                       /* read-write tensor or -1 */
	int64_t (*dlin)[SPEC_MAX_TENSORS];
	uint64_t lin[SPEC_MAX_TENSORS];
	int64_t xo[XD];
	uint64_t idx[SPEC_MAX_LOOPS];
	struct busy *busy;             /* NULL unless spatial skipping is used */
};

static struct busy *busy_new(const struct xplan *p)
{
	struct busy *b = xcalloc(1, sizeof(*b));
	unsigned k;

	b->n_steps = b->n_units = 1;
	for (k = 0; k < p->n_loops; k++) {
		uint64_t *n = p->loops[k].spatial ? &b->n_units : &b->n_steps;
		b->weight[k] = *n;
		*n *= p->loops[k].end;
	}
	b->last_step = xcalloc(b->n_units, sizeof(*b->last_step));
	b->count = xcalloc(b->n_steps, sizeof(*b->count));
	return b;
}

/* The unit of the current op point has work at its step. */
static void busy_mark(struct busy *b)
{
	if (b->last_step[b->unit] == b->step + 1)
		return;
	b->last_step[b->unit] = b->step + 1;
	b->count[b->step]++;
}

/* Loop 'k' of the walk moved by 'n' iterations (negative: reset). */
static void busy_move(struct busy *b, const struct xplan *p, unsigned k, int64_t n)
{
	if (p->loops[k].spatial)
		b->unit += (uint64_t)n * b->weight[k];
	else
		b->step += (uint64_t)n * b->weight[k];
}

static void busy_finish(struct busy *b, struct exec_result *out)
{
	uint64_t i, sum = 0, max = 0;

	for (i = 0; i < b->n_steps; i++) {
		sum += b->count[i];
		max = b->count[i] > max ? b->count[i] : max;
	}
	out->compute_busy_max = max;
	out->compute_busy_avg = (double)sum / (double)b->n_steps;
	free(b->last_step);
	free(b->count);
	free(b);
}

/* Evaluate one op point. */
static void visit(struct cwalk *w)
{
	struct xrun *x = w->x;
	const struct xplan *p = &x->plan;
	double prod = 1, vals[SPEC_MAX_TENSORS];
	unsigned t, d;
	int cls = EXEC_ACTUAL;

	for (d = 0; d < p->n_dims && !p->perfect; d++)
		if ((uint64_t)w->xo[d] >= p->bound[d])
			return;
	x->out->computes++;
	for (t = 0; t < p->n_tensors; t++) {
		if ((int)t == w->out)
			continue;
		vals[t] = x->tensors[t]->values[w->lin[t]];
		prod *= vals[t];
	}
	if (x->sp)
		cls = exec_sparse_compute_class(x, w->xo, vals, w->out);
	if (cls < 0)
		return;
	if (w->busy && cls != EXEC_SKIPPED)
		busy_mark(w->busy);
	x->out->computes_class[cls]++;
	if (cls == EXEC_ACTUAL && w->out >= 0)
		x->tensors[w->out]->values[w->lin[w->out]] += prod;
}

/* Walk every op point in the mapping's order (outermost loop slowest). */
static void walk_ops(struct cwalk *w)
{
	const struct xplan *p = &w->x->plan;
	unsigned n = p->n_loops, t;
	int k;

	for (;;) {
		visit(w);
		for (k = 0; k < (int)n; k++) {
			const struct xloop *lp = &p->loops[k];
			if (++w->idx[k] < lp->end) {
				w->xo[lp->dim] += (int64_t)lp->stride;
				for (t = 0; t < p->n_tensors; t++)
					w->lin[t] += (uint64_t)w->dlin[k][t];
				if (w->busy)
					busy_move(w->busy, p, (unsigned)k, 1);
				break;
			}
			if (w->busy)
				busy_move(w->busy, p, (unsigned)k, -(int64_t)(lp->end - 1));
			w->idx[k] = 0;
			w->xo[lp->dim] -= (int64_t)((lp->end - 1) * lp->stride);
			for (t = 0; t < p->n_tensors; t++)
				w->lin[t] -= (uint64_t)(w->dlin[k][t] * (int64_t)(lp->end - 1));
		}
		if (k == (int)n)
			break;
	}
}

/*
 * The reference: out[o] = sum over the op space of the product of the
 * read-only operands, dimensions nested in declaration order.
 */
static double *dense_reference(const struct xrun *x, int out)
{
	const struct xplan *p = &x->plan;
	double *ref = xcalloc(p->geom[out].size + 1, sizeof(*ref));
	int64_t xo[XD] = { 0 }, step[XD][SPEC_MAX_TENSORS];
	uint64_t lin[SPEC_MAX_TENSORS];
	unsigned t;
	int d;

	for (t = 0; t < p->n_tensors; t++) {
		lin[t] = op_lin(p, t, xo);
		for (d = 0; d < (int)p->n_dims; d++) {
			xo[d] = 1;
			step[d][t] = (int64_t)(op_lin(p, t, xo) - lin[t]);
			xo[d] = 0;
		}
	}
	for (;;) {
		double prod = 1;
		for (t = 0; t < p->n_tensors; t++)
			if ((int)t != out)
				prod *= (x->reference[t] ? x->reference[t] : x->tensors[t])->values[lin[t]];
		ref[lin[out]] += prod;
		for (d = (int)p->n_dims - 1; d >= 0; d--) {
			if ((uint64_t)++xo[d] < p->bound[d]) {
				for (t = 0; t < p->n_tensors; t++)
					lin[t] += (uint64_t)step[d][t];
				break;
			}
			for (t = 0; t < p->n_tensors; t++)
				lin[t] -= (uint64_t)(step[d][t] * (xo[d] - 1));
			xo[d] = 0;
		}
		if (d < 0)
			break;
	}
	return ref;
}

static void check_numeric(struct xrun *x, int out)
{
	const struct xplan *p = &x->plan;
	double *ref = dense_reference(x, out);
	const double *got = x->tensors[out]->values;
	uint64_t i;

	x->out->numeric_checked = true;
	x->out->numeric_n_outputs = p->geom[out].size;
	x->out->numeric_max_abs_err = 0;
	for (i = 0; i < p->geom[out].size; i++) {
		double e = fabs(got[i] - ref[i]);
		if (e > x->out->numeric_max_abs_err)
			x->out->numeric_max_abs_err = e;
	}
	x->out->numeric_ok = x->out->numeric_max_abs_err == 0;
	free(ref);
}

void exec_compute(struct xrun *x)
{
	const struct xplan *p = &x->plan;
	struct cwalk w;
	unsigned k, t;

	memset(&w, 0, sizeof(w));
	w.x = x;
	w.out = -1;
	x->out->compute_instances = 1;
	for (k = 0; k < p->n_loops; k++)
		if (p->loops[k].spatial)
			x->out->compute_instances *= p->loops[k].end;
	for (t = 0; t < p->n_tensors; t++)
		if (p->geom[t].read_write)
			w.out = (int)t;
	if (x->opt->skip_numeric && !x->sp) {
		uint64_t n = 1;
		unsigned d;
		for (d = 0; d < p->n_dims; d++)
			n *= p->bound[d];
		x->out->computes = n;
		x->out->computes_class[EXEC_ACTUAL] = n;
		return;
	}
	w.dlin = xcalloc(p->n_loops + 1, sizeof(*w.dlin));
	for (k = 0; k < p->n_loops; k++)
		for (t = 0; t < p->n_tensors; t++)
			w.dlin[k][t] = loop_dlin(p, k, t);
	for (t = 0; t < p->n_tensors; t++)
		w.lin[t] = op_lin(p, t, w.xo);
	if (x->sp && x->sp->has_spatial)
		w.busy = busy_new(p);
	walk_ops(&w);
	x->out->n_events += x->out->computes;
	if (w.busy)
		busy_finish(w.busy, x->out);
	free(w.dlin);
	if (w.out >= 0 && !x->opt->skip_numeric)
		check_numeric(x, w.out);
}
