/*
 * The mapping's loop nest prepared for walking: strides, per-level tile
 * extents, tensor coordinate spaces and the chains of levels that keep
 * each tensor.
 */
#include "exec/exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/xalloc.h"

/* Tensors above this many points are not materialized. */
#define MAX_TENSOR_POINTS (UINT64_C(1) << 31)

static void init_loops(struct xplan *p, const struct spec_mapping *m)
{
	uint64_t scale[XD];
	unsigned k, d;

	for (d = 0; d < XD; d++)
		scale[d] = 1;
	p->n_loops = m->n_loops;
	p->extent = xcalloc(m->n_loops ? m->n_loops : 1, sizeof(*p->extent));
	for (k = 0; k < m->n_loops; k++) {
		const struct spec_loop *lp = &m->loops[k];
		struct xloop *x = &p->loops[k];
		x->dim = lp->dim;
		x->end = lp->end;
		x->spatial = lp->spacetime != SPEC_TEMPORAL;
		x->level = lp->level;
		x->stride = scale[lp->dim];
		scale[lp->dim] *= lp->end;
		for (d = 0; d < p->n_dims; d++)
			p->extent[k][d] = scale[d];
	}
}

int exec_geom_init(struct xgeom *g, const struct spec_workload *w, unsigned t, char why[256])
{
	const struct spec_tensor *st = &w->tensors[t];
	unsigned r, i;
	uint64_t size = 1;

	memset(g, 0, sizeof(*g));
	g->n_ranks = st->n_ranks;
	g->read_write = st->read_write;
	g->dim_mask = st->dim_mask;
	for (r = 0; r < st->n_ranks; r++) {
		int64_t lo = 0;
		g->proj[r] = st->ranks[r];
		for (i = 0; i < st->ranks[r].n_terms; i++) {
			const struct spec_term *tm = &st->ranks[r].terms[i];
			if (tm->coef < 0)
				lo += tm->coef * ((int64_t)w->bounds[tm->dim] - 1);
		}
		g->origin[r] = lo;
		g->extent[r] = st->rank_extent[r];
		if (!ck_mul_u64(size, g->extent[r], &size) || size > MAX_TENSOR_POINTS) {
			snprintf(why, 256, "tensor '%s' has too many points to execute", st->name);
			return -1;
		}
	}
	g->size = size;
	for (r = g->n_ranks; r-- > 0;)
		g->stride[r] = r + 1 == g->n_ranks ? 1 : g->stride[r + 1] * g->extent[r + 1];
	return 0;
}

static void init_chains(struct xplan *p, const struct spec_mapping *m)
{
	unsigned t, l;

	for (t = 0; t < p->n_tensors; t++) {
		p->n_chain[t] = 0;
		for (l = 0; l < p->n_levels; l++)
			if (m->levels[l].keep_mask & (1u << t))
				p->chain[t][p->n_chain[t]++] = (int)l;
	}
}

/*
 * A padded mapping computes its padding: the workload it runs has the
 * padded dimensions' bounds raised to the extent of their loops, and the
 * tensors' ranks grown with them (their values are drawn over the padding
 * too: a dense tensor's every point is non-zero, so every padded compute is
 * counted as the hardware performs it).
 */
static void pad_workload(struct xplan *p, const struct spec_set *s)
{
	const struct spec_mapping *m = s->mapping;
	struct spec_workload *w = &p->padded;
	unsigned d, t, r, k;

	p->w = &s->workload;
	if (!m->pad_mask)
		return;
	*w = s->workload;
	memcpy(p->padded_tensors, s->workload.tensors, w->n_tensors * sizeof(*p->padded_tensors));
	w->tensors = p->padded_tensors;
	for (d = 0; d < w->n_dims; d++)
		if (m->pad_mask & (1u << d))
			w->bounds[d] = p->n_loops ? p->extent[p->n_loops - 1][d] : 1;
	for (t = 0; t < w->n_tensors; t++) {
		struct spec_tensor *st = &p->padded_tensors[t];
		st->size = 1;
		for (r = 0; r < st->n_ranks; r++) {
			uint64_t e = 1;
			for (k = 0; k < st->ranks[r].n_terms; k++) {
				int64_t c = st->ranks[r].terms[k].coef;
				e += (uint64_t)(c < 0 ? -c : c) * (w->bounds[st->ranks[r].terms[k].dim] - 1);
			}
			st->rank_extent[r] = e;
			st->size *= e;
		}
	}
	p->w = w;
}

int exec_plan_init(struct xplan *p, const struct spec_set *s, bool exact, char why[256])
{
	const struct spec_mapping *m = s->mapping;
	unsigned d, t, l;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->exact = exact;
	if (!s->has_mapping || !m) {
		snprintf(why, 256, "the design has no mapping");
		return -1;
	}
	p->n_dims = s->workload.n_dims;
	p->n_levels = s->arch.n_levels;
	p->n_tensors = s->workload.n_tensors;
	init_loops(p, m);
	pad_workload(p, s);
	for (d = 0; d < p->n_dims; d++)
		p->bound[d] = p->w->bounds[d];
	p->perfect = true;
	for (d = 0; d < p->n_dims; d++) {
		p->clipped[d] = (p->n_loops ? p->extent[p->n_loops - 1][d] : 1) != p->bound[d];
		if (p->clipped[d])
			p->perfect = false;
	}
	for (l = 0; l < p->n_levels; l++)
		p->boundary[l] = (int)m->boundary[l];
	for (t = 0; t < p->n_tensors; t++)
		if (exec_geom_init(&p->geom[t], p->w, t, why) < 0) {
			exec_plan_release(p);
			return -1;
		}
	init_chains(p, m);
	return 0;
}

void exec_plan_release(struct xplan *p)
{
	free(p->extent);
	p->extent = NULL;
}
