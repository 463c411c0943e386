/*
 * Sparse execution. Every delivered point is classified from the actual
 * values:
 *  - it does not exist when a gate or skip on its tensor at a level above
 *    removed the window it belongs to (the data is never sent down), or
 *    when the level stores the tensor with metadata and the value is zero
 *    (zeros are not stored);
 *  - it is gated or skipped when a SAF of the level itself finds its
 *    leader's window empty (reads and updates; fills never are);
 *  - otherwise it is actual.
 * A SAF's window is the op-space box of its granularity (the target loop's
 * tile, grown to one block of the target), aligned to multiples of its
 * extent; the leader's tile is the projection of that box.
 */
#include "exec/sparse_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

static bool fmt_is_compressed(enum fmt_kind k)
{
	return k == FMT_CP || k == FMT_B || k == FMT_RLE;
}

/* ---------------------------------------------------------- SAF windows */

/* Index of loop 'k' at op point 'op'. */
static uint64_t loop_index(const struct xplan *p, unsigned k, const int64_t *op)
{
	const struct xloop *lp = &p->loops[k];
	return (uint64_t)op[lp->dim] / lp->stride % lp->end;
}

/* Window index of op point 'op' in 'w'. */
static uint64_t window_of(const struct xplan *p, const struct xwin *w, const int64_t *op)
{
	uint64_t idx = 0;
	unsigned d, i;

	for (i = 0; i < w->n_key; i++)
		idx += loop_index(p, w->key_loop[i], op) * w->key_weight[i];
	if (w->n_key)
		return idx;
	for (d = 0; d < p->n_dims; d++)
		if (w->grid_stride[d])
			idx += (uint64_t)op[d] / w->box[d] * w->grid_stride[d];
	return idx;
}

static bool saf_empty_at(const struct xplan *p, const struct xsaf *f, const int64_t *op)
{
	unsigned i;
	for (i = 0; i < f->n_win; i++)
		if (!f->win[i].never && f->win[i].empty[window_of(p, &f->win[i], op)])
			return true;
	return false;
}

/*
 * The first SAF on tensor 't', temporal (gate or skip) or spatial as
 * 'spatial' says, acting at a level in [lo, hi], whose window at 'op' is
 * empty.
 */
static const struct xsaf *saf_hit(const struct xrun *x, unsigned t, int lo, int hi,
				  const int64_t *op, bool spatial)
{
	const struct xsparse *sp = x->sp;
	unsigned i;
	for (i = 0; i < sp->n_saf; i++) {
		const struct xsaf *f = &sp->saf[i];
		if (f->target == t && f->spatial == spatial && f->level >= lo && f->level <= hi &&
		    saf_empty_at(&x->plan, f, op))
			return f;
	}
	return NULL;
}

/* Fill the emptiness of every window of 'w' (leader tensor 'c'). */
static void build_windows(struct xrun *x, struct xwin *w)
{
	const struct xplan *p = &x->plan;
	const struct xgeom *g = &p->geom[w->cond];
	uint64_t n = 1, i, nw[XD];
	unsigned d, q, k;

	for (d = p->n_dims; d-- > 0;) {
		nw[d] = (g->dim_mask & (1u << d)) ? (p->bound[d] + w->box[d] - 1) / w->box[d] : 1;
		w->grid_stride[d] = nw[d] > 1 || (g->dim_mask & (1u << d)) ? n : 0;
		n *= nw[d];
	}
	w->empty = xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		int64_t lo[XD], hi[XD], tlo[XR], thi[XR];
		for (d = 0; d < p->n_dims; d++) {
			uint64_t wi = w->grid_stride[d] ? i / w->grid_stride[d] % nw[d] : 0;
			lo[d] = (int64_t)(wi * w->box[d]);
			hi[d] = lo[d] + (int64_t)w->box[d] - 1;
			if ((uint64_t)hi[d] >= p->bound[d])
				hi[d] = (int64_t)p->bound[d] - 1;
			if (!(g->dim_mask & (1u << d)))
				lo[d] = hi[d] = 0;
		}
		for (q = 0; q < g->n_ranks; q++) {
			tlo[q] = thi[q] = -g->origin[q];
			for (k = 0; k < g->proj[q].n_terms; k++) {
				int64_t c = g->proj[q].terms[k].coef;
				unsigned dd = g->proj[q].terms[k].dim;
				tlo[q] += c >= 0 ? c * lo[dd] : c * hi[dd];
				thi[q] += c >= 0 ? c * hi[dd] : c * lo[dd];
			}
		}
		w->empty[i] = exec_tensor_box_nnz(x->pattern[w->cond], tlo, thi) == 0;
	}
}

/* The level that holds tensor 't' for a SAF written at level 's', or -1. */
static int target_level(const struct xplan *p, unsigned t, unsigned s)
{
	unsigned i;
	for (i = 0; i < p->n_chain[t]; i++)
		if (p->chain[t][i] >= (int)s)
			return p->chain[t][i];
	return -1;
}

static int child_level(const struct xplan *p, unsigned t, int tl)
{
	int c = -1;
	unsigned i;
	for (i = 0; i < p->n_chain[t] && p->chain[t][i] < tl; i++)
		c = p->chain[t][i];
	return c;
}

struct granule {
	const struct spec_loop *cl;    /* the complete nest */
	unsigned n_cl;
	unsigned target;               /* index of the target loop in cl */
	bool scalar;
	bool target_spatial;
	uint64_t box[XD];              /* condition box before per-leader adjustment */
	uint64_t mold[XD];             /* extents of the target loop's tile */
	unsigned n_rel;
	unsigned rel[SPEC_MAX_LOOPS];  /* relevant loops: the target, then upwards */
};

/* Find the target loop: where the SAF's granularity is decided. */
static void find_target_loop(const struct xplan *p, unsigned t, int tl, int child,
			     struct granule *gr)
{
	const struct spec_mapping *m = p->s->mapping;
	unsigned j, lo = m->complete_begin[child + 1], hi = m->complete_begin[tl + 1];
	uint32_t dims = p->geom[t].dim_mask;

	gr->scalar = false;
	for (j = lo; j < hi; j++) {
		const struct spec_loop *lp = &m->complete[j];
		bool relevant = lp->end > 1 && (dims & (1u << lp->dim));
		if (child >= 0) {
			if (relevant)
				break;
			continue;
		}
		if (j + 1 >= m->n_complete || m->complete[j + 1].spacetime == SPEC_TEMPORAL) {
			gr->scalar = lp->spacetime == SPEC_TEMPORAL;
			break;
		}
		if (relevant)
			break;
	}
	gr->target = j < hi ? j : hi - 1;
}

/* The condition box common to every leader (semantics of SAF granularity). */
static void grow_box(const struct xplan *p, unsigned t, int tl, int child, struct granule *gr)
{
	const struct spec_mapping *m = p->s->mapping;
	uint32_t dims = p->geom[t].dim_mask;
	bool passed_relevant_temporal = false;
	unsigned j, d;

	for (d = 0; d < XD; d++)
		gr->mold[d] = 1;
	for (j = 0; j <= gr->target && !gr->scalar; j++)
		gr->mold[m->complete[j].dim] *= m->complete[j].end;
	memcpy(gr->box, gr->mold, sizeof(gr->box));
	gr->target_spatial = m->complete[gr->target].spacetime != SPEC_TEMPORAL;
	gr->n_rel = 0;
	gr->rel[gr->n_rel++] = gr->target;
	for (j = gr->target + 1; j < m->complete_begin[tl + 1]; j++) {
		const struct spec_loop *lp = &m->complete[j];
		bool spatial = lp->spacetime != SPEC_TEMPORAL;
		bool rel_t = (dims & (1u << lp->dim)) != 0;
		if (lp->end <= 1)
			continue;
		if (spatial || (gr->target_spatial && !passed_relevant_temporal && !rel_t &&
				child >= 0)) {
			gr->box[lp->dim] *= lp->end;
			gr->rel[gr->n_rel++] = j;
		}
		if (!spatial && rel_t)
			passed_relevant_temporal = true;
	}
	(void)p;
}

/* Points of the projection of the op box [0, ext-1] onto tensor 't'. */
static uint64_t tile_points(const struct xplan *p, unsigned t, const uint64_t *ext)
{
	const struct xgeom *g = &p->geom[t];
	uint64_t n = 1;
	unsigned q, k;

	for (q = 0; q < g->n_ranks; q++) {
		int64_t span = 0;
		for (k = 0; k < g->proj[q].n_terms; k++) {
			int64_t c = g->proj[q].terms[k].coef;
			span += (c < 0 ? -c : c) * ((int64_t)ext[g->proj[q].terms[k].dim] - 1);
		}
		n *= (uint64_t)span + 1;
	}
	return n;
}

/*
 * The window of leader 'cond' for target 't' at level 'tl': the common box,
 * adjusted so that one window covers at least one block of the target.
 */
static void leader_window(struct xrun *x, unsigned t, int tl, const struct granule *gr,
			  struct xwin *w)
{
	const struct xplan *p = &x->plan;
	const struct spec_mapping *m = p->s->mapping;
	uint32_t dt = p->geom[t].dim_mask, dc = p->geom[w->cond].dim_mask, co = dt & dc;
	uint64_t factor[XD], agg = 1, g0, k, block;
	bool seen_coiter = false;
	unsigned i, d;

	for (d = 0; d < XD; d++)
		factor[d] = 1;
	memcpy(w->box, gr->box, sizeof(w->box));
	for (i = 0; i < gr->n_rel && !gr->scalar; i++) {
		const struct spec_loop *lp = &m->complete[gr->rel[i]];
		if (gr->target_spatial && seen_coiter && (dc & (1u << lp->dim))) {
			w->never = true;
			return;
		}
		if (co & (1u << lp->dim)) {
			factor[lp->dim] *= lp->end;
			agg *= lp->end;
			seen_coiter = true;
		}
	}
	g0 = tile_points(p, t, gr->mold);
	block = p->s->arch.levels[tl].block_size ? p->s->arch.levels[tl].block_size : 1;
	k = (uint64_t)ceil((double)block / ((double)g0 / (double)agg));
	for (d = 0; d < p->n_dims; d++) {
		uint64_t e;
		if (!(co & (1u << d)))
			continue;
		e = k ? factor[d] / k : 0;   /* k = 0: the block is already covered */
		if (e > 1)
			w->box[d] = (w->box[d] + e - 1) / e;
		k /= factor[d];
	}
	if (k > 1)
		w->box[m->complete[gr->target].dim] *= k;
	for (d = 0; d < p->n_dims; d++)
		if (w->box[d] > p->bound[d])
			w->box[d] = p->bound[d];
}

static int saf_build(struct xrun *x, unsigned s, enum spec_saf_kind kind,
		     const struct spec_saf_option *o, struct xsaf *f, char why[256])
{
	const struct xplan *p = &x->plan;
	struct granule gr;
	unsigned i;

	memset(f, 0, sizeof(*f));
	f->target = o->target;
	f->skip = kind == SPEC_SAF_SKIPPING;
	f->level = target_level(p, o->target, s);
	if (f->level < 0) {
		snprintf(why, 256, "no level at or above %u keeps '%s' for its SAF", s,
			 p->s->workload.tensors[o->target].name);
		return -1;
	}
	find_target_loop(p, o->target, f->level, child_level(p, o->target, f->level), &gr);
	grow_box(p, o->target, f->level, child_level(p, o->target, f->level), &gr);
	for (i = 0; i < o->n_conditions; i++) {
		struct xwin *w = &f->win[f->n_win++];
		w->cond = o->conditions[i];
		leader_window(x, o->target, f->level, &gr, w);
		if (!w->never)
			build_windows(x, w);
	}
	return 0;
}

/* ------------------------------------------------------ spatial skipping */

/*
 * Mark the loops of the sub-tile one instance below level 's' sees of
 * leader 'cond' when 't' is spatially skipped (semantics 4.4.4): every
 * loop below the innermost spatial loop of s that moves the leader, and,
 * when that loop also moves 't' and 't' is kept below s, the temporal loops
 * of s that keep t's tile at its child (from the innermost up to the first
 * that moves t). Returns false when no spatial loop of s moves the leader.
 */
static bool subtile_loops(const struct xplan *p, unsigned s, unsigned t, unsigned cond,
			  bool *in)
{
	uint32_t dc = p->geom[cond].dim_mask, dt = p->geom[t].dim_mask;
	unsigned q, k;
	bool extend;

	for (k = 0; k < p->n_loops; k++) {
		const struct xloop *lp = &p->loops[k];
		if (lp->level == s && lp->spatial && lp->end > 1 && (dc >> lp->dim & 1))
			break;
	}
	if (k == p->n_loops)
		return false;
	for (q = 0; q < p->n_loops; q++)
		in[q] = q < k;
	extend = (dt >> p->loops[k].dim & 1) && child_level(p, t, (int)s) >= 0;
	for (q = k + 1; extend && q < p->n_loops && p->loops[q].level == s; q++) {
		const struct xloop *lp = &p->loops[q];
		if (lp->spatial)
			continue;
		if (lp->end > 1 && (dt >> lp->dim & 1))
			break;
		in[q] = true;
	}
	return true;
}

/* The linear index of the leader point op projects to, or -1 outside the bounds. */
static int64_t leader_point(const struct xplan *p, const struct xgeom *g, const int64_t *op)
{
	uint64_t lin = 0;
	unsigned r, i, d;

	for (d = 0; d < p->n_dims; d++)
		if ((g->dim_mask >> d & 1) && (uint64_t)op[d] >= p->bound[d])
			return -1;
	for (r = 0; r < g->n_ranks; r++) {
		int64_t c = -g->origin[r];
		for (i = 0; i < g->proj[r].n_terms; i++)
			c += g->proj[r].terms[i].coef * op[g->proj[r].terms[i].dim];
		lin += (uint64_t)c * g->stride[r];
	}
	return (int64_t)lin;
}

/*
 * Find which windows of 'w' hold a non-zero of the leader: visit every
 * combination of the loops that move the leader (the others do not change
 * its sub-tile) and mark the window of each non-zero met.
 */
static void mark_loop_windows(struct xrun *x, struct xwin *w, uint64_t n_win)
{
	const struct xplan *p = &x->plan;
	const struct xgeom *g = &p->geom[w->cond];
	const double *v = exec_tensor_values(x->pattern[w->cond]);
	unsigned lq[SPEC_MAX_LOOPS], n = 0, i;
	uint64_t idx[SPEC_MAX_LOOPS] = { 0 };
	int64_t op[XD] = { 0 };

	memset(w->empty, 1, n_win);
	for (i = 0; i < p->n_loops; i++)
		if ((g->dim_mask >> p->loops[i].dim & 1) && p->loops[i].end > 1)
			lq[n++] = i;
	for (;;) {
		int64_t lin = leader_point(p, g, op);
		if (lin >= 0 && v[lin] != 0)
			w->empty[window_of(p, w, op)] = 0;
		for (i = 0; i < n; i++) {
			const struct xloop *lp = &p->loops[lq[i]];
			if (++idx[i] < lp->end) {
				op[lp->dim] += (int64_t)lp->stride;
				break;
			}
			idx[i] = 0;
			op[lp->dim] -= (int64_t)((lp->end - 1) * lp->stride);
		}
		if (i == n)
			break;
	}
}

/* The sub-tile windows of leader w->cond for spatially skipping 't' below 's'. */
static void spatial_windows(struct xrun *x, unsigned s, unsigned t, struct xwin *w)
{
	const struct xplan *p = &x->plan;
	uint32_t dc = p->geom[w->cond].dim_mask;
	bool in[SPEC_MAX_LOOPS];
	uint64_t n_win = 1;
	unsigned q;

	if (!subtile_loops(p, s, t, w->cond, in)) {
		w->never = true;
		return;
	}
	for (q = p->n_loops; q-- > 0;) {
		const struct xloop *lp = &p->loops[q];
		if (in[q] || lp->end <= 1 || !(dc >> lp->dim & 1))
			continue;
		w->key_loop[w->n_key] = q;
		w->key_weight[w->n_key++] = n_win;
		n_win *= lp->end;
	}
	if (!w->n_key) {        /* one window: the whole op space */
		w->key_loop[0] = 0;
		w->key_weight[0] = 0;
		w->n_key = 1;
	}
	w->empty = xcalloc(n_win + 1, 1);
	mark_loop_windows(x, w, n_win);
}

/* True when 'c' is kept at or above level 's' with a representation format. */
static bool kept_with_format(struct xsparse *sp, const struct xplan *p, unsigned c, unsigned s)
{
	unsigned i;
	for (i = 0; i < p->n_chain[c]; i++)
		if (p->chain[c][i] >= (int)s)
			return xsparse_fmt(sp, (unsigned)p->chain[c][i], c)->has_md;
	return false;
}

/*
 * A spatial skip written at level 's' (its first option, as in Sparseloop):
 * a leader thins the instances only when it is stored compressed at or
 * above s (otherwise its zeros are not known there).
 */
static void spatial_build(struct xrun *x, struct xsparse *sp, unsigned s,
			  const struct spec_saf_option *o, struct xsaf *f)
{
	unsigned i;

	memset(f, 0, sizeof(*f));
	f->target = o->target;
	f->level = (int)s;
	f->skip = true;
	f->spatial = true;
	for (i = 0; i < o->n_conditions; i++) {
		struct xwin *w = &f->win[f->n_win++];
		w->cond = o->conditions[i];
		if (!kept_with_format(sp, &x->plan, w->cond, s))
			w->never = true;
		else
			spatial_windows(x, s, o->target, w);
	}
}

static void saf_clear(struct xsaf *f)
{
	unsigned i;
	for (i = 0; i < f->n_win; i++)
		free(f->win[i].empty);
	f->n_win = 0;
}

/* Fraction of op points whose window is empty, estimated on a fixed sample. */
static double saf_probability(const struct xrun *x, const struct xsaf *f)
{
	const struct xplan *p = &x->plan;
	struct rng r;
	int64_t op[XD];
	unsigned i, d, hits = 0, n = 4096;

	rng_seed(&r, 0x5af);
	for (i = 0; i < n; i++) {
		for (d = 0; d < p->n_dims; d++)
			op[d] = (int64_t)rng_below(&r, p->bound[d]);
		hits += saf_empty_at(p, f, op);
	}
	return (double)hits / n;
}

/* Add the best option of one SAF group, replacing a weaker one on the same target. */
static int add_group(struct xrun *x, struct xsparse *sp, unsigned s,
		     const struct spec_saf_group *g, char why[256])
{
	struct xsaf best, cand;
	double best_p = -1, pr;
	unsigned i;

	if (g->kind == SPEC_SAF_POSITION_SKIPPING) {
		snprintf(why, 256, "the executor does not run 'position_skipping' (at '%s'): "
			 "its packing is a model of cycles only", x->s->arch.levels[s].name);
		return -1;
	}
	if (g->kind == SPEC_SAF_SPATIAL_SKIPPING) {
		if (!g->n_options)
			return 0;
		spatial_build(x, sp, s, &g->options[0], &cand);
		sp->saf = xreallocarray(sp->saf, sp->n_saf + 1, sizeof(*sp->saf));
		sp->saf[sp->n_saf++] = cand;
		sp->has_spatial = true;
		return 0;
	}
	memset(&best, 0, sizeof(best));
	for (i = 0; i < g->n_options; i++) {
		if (saf_build(x, s, g->kind, &g->options[i], &cand, why) < 0) {
			saf_clear(&best);
			return -1;
		}
		pr = g->n_options > 1 ? saf_probability(x, &cand) : 0;
		if (pr >= best_p) {
			saf_clear(&best);
			best = cand;
			best_p = pr;
		} else {
			saf_clear(&cand);
		}
	}
	for (i = 0; i < sp->n_saf; i++) {
		if (!sp->saf[i].spatial && sp->saf[i].target == best.target &&
		    sp->saf[i].level == best.level) {
			if (saf_probability(x, &best) > saf_probability(x, &sp->saf[i])) {
				saf_clear(&sp->saf[i]);
				sp->saf[i] = best;
			} else {
				saf_clear(&best);
			}
			return 0;
		}
	}
	sp->saf = xreallocarray(sp->saf, sp->n_saf + 1, sizeof(*sp->saf));
	sp->saf[sp->n_saf++] = best;
	return 0;
}

/* --------------------------------------------------------------- setup */

static bool sparse_lists_something(const struct spec_sparse *ss)
{
	unsigned i;
	for (i = 0; i < ss->n_targets; i++) {
		const struct spec_sparse_target *tg = &ss->targets[i];
		if (tg->n_formats || tg->n_groups || tg->compute_gating || tg->compute_skipping)
			return true;
	}
	return false;
}

/* The format of (level, tensor) as listed: its ranks and their flatten rules. */
static void listed_format(struct xfmt *f, const struct spec_tensor_format *tf)
{
	unsigned r, g;

	f->n_ranks = tf->n_ranks;
	for (r = 0; r < tf->n_ranks; r++) {
		const struct spec_rank_format *rf = &tf->ranks[r];
		f->kind[r] = rf->kind;
		f->fixed[r] = rf->n_col;
		f->compressed |= fmt_is_compressed(rf->kind);
		f->n_flatten[r] = rf->n_flatten_groups;
		for (g = 0; g < rf->n_flatten_groups; g++)
			f->flatten[r][g] = rf->flatten_groups[g];
	}
}

static void setup_formats(struct xrun *x, struct xsparse *sp)
{
	const struct xplan *p = &x->plan;
	const struct spec_sparse *ss = &x->s->sparse;
	unsigned i, j, t, c;

	for (t = 0; t < p->n_tensors; t++)
		for (c = 0; c < p->n_chain[t]; c++) {
			struct xfmt *f = xsparse_fmt(sp, (unsigned)p->chain[t][c], t);
			f->kept = true;
			f->n_ranks = 1;
		}
	for (i = 0; i < ss->n_targets; i++) {
		const struct spec_sparse_target *tg = &ss->targets[i];
		for (j = 0; j < tg->n_formats && !tg->is_compute; j++) {
			const struct spec_tensor_format *tf = &tg->formats[j];
			struct xfmt *f = xsparse_fmt(sp, tg->level, tf->tensor);
			if (!f->kept || (tf->named == SPEC_NAMED_NONE && !tf->n_ranks))
				continue;
			f->has_md = true;
			f->inner_to_outer = tf->inner_to_outer;
			f->named = tf->named;
			f->nm_m = tf->nm_m;
			if (tf->named == SPEC_NAMED_NONE)
				listed_format(f, tf);
			else
				f->compressed = true;   /* every named format has a compressed rank */
			sp->involved[tf->tensor] = true;
		}
		if (tg->is_compute) {
			sp->compute_gating |= tg->compute_gating;
			sp->compute_skipping |= tg->compute_skipping;
		}
	}
}

int exec_sparse_new(struct xrun *x, struct xsparse **out, char why[256])
{
	const struct spec_sparse *ss = &x->s->sparse;
	struct xsparse *sp;
	unsigned i, j;

	*out = NULL;
	if (!ss->present || !sparse_lists_something(ss))
		return 0;
	sp = xcalloc(1, sizeof(*sp));
	sp->n_levels = x->plan.n_levels;
	sp->n_tensors = x->plan.n_tensors;
	sp->fmt = xcalloc((size_t)sp->n_levels * sp->n_tensors + 1, sizeof(*sp->fmt));
	*out = sp;
	x->sp = sp;
	setup_formats(x, sp);
	if (exec_layout_init(x, sp, why) < 0)
		return -1;
	for (i = 0; i < ss->n_targets; i++) {
		const struct spec_sparse_target *tg = &ss->targets[i];
		for (j = 0; j < tg->n_groups && !tg->is_compute; j++)
			if (add_group(x, sp, tg->level, &tg->groups[j], why) < 0)
				return -1;
	}
	for (i = 0; i < sp->n_saf; i++)
		sp->involved[sp->saf[i].target] = true;
	return 0;
}

void exec_sparse_free(struct xsparse *sp)
{
	unsigned i;

	if (!sp)
		return;
	for (i = 0; i < sp->n_saf; i++)
		saf_clear(&sp->saf[i]);
	free(sp->saf);
	if (sp->fmt)
		exec_layout_release(sp);
	free(sp->fmt);
	free(sp->pts);
	free(sp);
}

bool exec_sparse_link_is_dense(struct xsparse *sp, const struct xlink *lk)
{
	unsigned i;

	if (!sp->involved[lk->t])
		return true;
	if (lk->p < 0)
		return true;                    /* the top level: no deliveries */
	if (xsparse_fmt(sp, (unsigned)lk->p, lk->t)->has_md ||
	    (lk->c >= 0 && xsparse_fmt(sp, (unsigned)lk->c, lk->t)->has_md))
		return false;
	for (i = 0; i < sp->n_saf; i++)
		if (sp->saf[i].target == lk->t &&
		    (sp->saf[i].spatial ? sp->saf[i].level > lk->c : sp->saf[i].level >= lk->p))
			return false;
	sp->dense_parent[lk->p][lk->t] = true;
	if (lk->c >= 0)
		sp->dense_fill[lk->c][lk->t] = true;
	return true;
}

bool exec_sparse_link_has_spatial(const struct xsparse *sp, const struct xlink *lk)
{
	unsigned i;

	for (i = 0; sp && i < sp->n_saf; i++)
		if (sp->saf[i].spatial && sp->saf[i].target == lk->t && sp->saf[i].level > lk->c &&
		    sp->saf[i].level <= lk->p)
			return true;
	return false;
}

bool exec_sparse_kid_skipped(const struct xrun *x, const struct xlink *lk, const int64_t *op_lo)
{
	return saf_hit(x, lk->t, lk->c + 1, lk->p, op_lo, true) != NULL;
}

/* ------------------------------------------------------------ deliveries */

void exec_sparse_link_begin(struct xrun *x, const struct xlink *lk)
{
	struct xsparse *sp = x->sp;
	if (!x->plan.geom[lk->t].read_write || lk->p < 0)
		return;
	sp->n_delivered = lk->n_pinst;
	sp->delivered = xcalloc(lk->n_pinst, sizeof(*sp->delivered));
}

void exec_sparse_link_end(struct xrun *x, const struct xlink *lk)
{
	struct xsparse *sp = x->sp;
	uint64_t i;
	for (i = 0; i < sp->n_delivered; i++)
		free(sp->delivered[i]);
	free(sp->delivered);
	sp->delivered = NULL;
	sp->n_delivered = 0;
	(void)lk;
}

/* The points of one delivery (linear indexes into the tensor). */
struct points {
	uint64_t n;
	const uint64_t *v;
};

static void collect_point(void *ctx, uint64_t lin)
{
	struct xsparse *sp = ctx;
	XGROW(sp->pts, sp->n_pts + 1, sp->pts_alloc);
	sp->pts[sp->n_pts++] = lin;
}

static bool bit_at(const uint64_t *b, uint64_t i)
{
	return b && (b[i / 64] >> (i % 64) & 1);
}

static struct exec_tensor_stats *stats_of(struct xrun *x, int l, unsigned t)
{
	return &x->out->stats[(unsigned)l * x->plan.n_tensors + t];
}

/* Add 'ratio' times the units 'u' to class 'cls' of 'fa' (ranks >= 'n_local' stay actual). */
static void add_format(struct exec_format_access *fa, const struct units_entry *u, unsigned R,
		       double ratio, int cls, unsigned n_local)
{
	unsigned r;
	for (r = 0; r < R; r++) {
		int k = r < n_local ? cls : EXEC_ACTUAL;
		fa->md_units[k][r] += u->md[r] * ratio;
		fa->pl_units[k][r] += u->pl[r] * ratio;
	}
}

static void note_units(struct exec_tensor_stats *st, const struct units_entry *u, unsigned R)
{
	unsigned r;
	if (u->nnz > st->max_occupancy)
		st->max_occupancy = u->nnz;
	for (r = 0; r < R; r++) {
		if (u->md[r] > st->max_md_units[r])
			st->max_md_units[r] = u->md[r];
		if (u->pl[r] > st->max_pl_units[r])
			st->max_pl_units[r] = u->pl[r];
	}
}

/*
 * The child's side of a delivery: its fills (and their share of its
 * metadata), and, when a neighbour sent the delta ('linked'), the
 * neighbour's reads of what it sent.
 */
static void fill_side(struct xrun *x, const struct xlink *lk, const struct points *pt,
		      const int64_t *op_lo, const uint64_t *held, bool linked)
{
	const struct exec_tensor *v = x->pattern[lk->t];
	struct xfmt *fc = xsparse_fmt(x->sp, (unsigned)lk->c, lk->t);
	struct xfmt *fp = xsparse_fmt(x->sp, (unsigned)lk->p, lk->t);
	struct exec_tensor_stats *st = stats_of(x, lk->c, lk->t);
	bool rw = x->plan.geom[lk->t].read_write;
	int top = (int)x->plan.n_levels - 1;
	bool blocked = saf_hit(x, lk->t, lk->p, top, op_lo, false) ||
		       saf_hit(x, lk->t, lk->c + 1, top, op_lo, true);
	uint64_t i, n_fill = 0;

	for (i = 0; i < pt->n; i++) {
		uint64_t lin = pt->v[i];
		if (rw && !bit_at(held, lin))
			continue;                      /* first touch: nothing to fill */
		n_fill++;
		if (blocked || (fc->has_md && v->values[lin] == 0))
			continue;
		st->fills.n[EXEC_ACTUAL]++;
		if (linked)
			st->reads.n[EXEC_ACTUAL]++;
		else if (!fc->compressed && fp->compressed)
			st->decompressions++;
	}
	if (fc->has_md && !blocked && n_fill) {
		const struct units_entry *u = exec_layout_units(x, (unsigned)lk->c, lk->t, op_lo);
		add_format(&st->fmt_fills, u, fc->n_ranks, (double)n_fill / (double)u->shape,
			   EXEC_ACTUAL, 0);
		note_units(st, u, fc->n_ranks);
	}
}

/* Op origin of the parent's tile that contains the child tile at 'op_lo'. */
static void parent_origin(const struct xrun *x, const struct xfmt *fp, const int64_t *op_lo,
			  int64_t *org)
{
	unsigned d;
	for (d = 0; d < x->plan.n_dims; d++)
		org[d] = op_lo[d] / (int64_t)fp->ext[d] * (int64_t)fp->ext[d];
}

struct parent_counts {
	uint64_t n_read, n_update;
};

static void classify_parent_points(struct xrun *x, const struct xlink *lk,
				   const struct points *pt, int cls, uint64_t pinst,
				   struct parent_counts *pc)
{
	const struct xplan *p = &x->plan;
	const struct exec_tensor *v = x->pattern[lk->t];
	struct xfmt *fp = xsparse_fmt(x->sp, (unsigned)lk->p, lk->t);
	struct exec_tensor_stats *st = stats_of(x, lk->p, lk->t);
	bool rw = p->geom[lk->t].read_write;
	bool child_plain = lk->c >= 0 && !xsparse_fmt(x->sp, (unsigned)lk->c, lk->t)->compressed;
	uint64_t **dl = x->sp->delivered, i;

	for (i = 0; i < pt->n; i++) {
		uint64_t lin = pt->v[i];
		bool happens = cls >= 0 && !(fp->has_md && v->values[lin] == 0);
		if (!rw) {
			pc->n_read++;
			if (happens)
				st->reads.n[cls]++;
			continue;
		}
		pc->n_update++;
		if (happens) {
			st->updates.n[cls]++;
			if (cls == EXEC_ACTUAL && fp->compressed && child_plain)
				stats_of(x, lk->c, lk->t)->compressions++;
		}
		if (!dl[pinst])
			dl[pinst] = xcalloc(p->geom[lk->t].size / 64 + 1, sizeof(uint64_t));
		if (!bit_at(dl[pinst], lin)) {
			dl[pinst][lin / 64] |= 1ull << (lin % 64);
			continue;                      /* first delivery: no read */
		}
		pc->n_read++;
		if (happens)
			st->reads.n[cls]++;
		if (happens && cls == EXEC_ACTUAL)
			st->temporal_reductions++;
	}
}

/*
 * The class of the parent's accesses for a delivery at op origin 'op_lo':
 * -1 (they do not exist) when an optimization above the parent removed the
 * data, gated or skipped when the parent's own gate or skip finds the
 * leader empty, else actual.
 */
static int parent_class(struct xrun *x, const struct xlink *lk, const int64_t *op_lo)
{
	int top = (int)x->plan.n_levels - 1;
	const struct xsaf *local;

	if (saf_hit(x, lk->t, lk->p + 1, top, op_lo, false) ||
	    saf_hit(x, lk->t, lk->p + 1, top, op_lo, true))
		return -1;
	if ((local = saf_hit(x, lk->t, lk->p, lk->p, op_lo, false)))
		return local->skip ? EXEC_SKIPPED : EXEC_GATED;
	return EXEC_ACTUAL;
}

/*
 * The parent's side of one read of a delivery: its scalar accesses and its
 * share of the tile's metadata, in class 'cls' (-1: they do not exist).
 */
static void parent_side(struct xrun *x, const struct xlink *lk, const struct points *pt,
			const int64_t *op_lo, uint64_t pinst, int cls)
{
	struct xfmt *fp = xsparse_fmt(x->sp, (unsigned)lk->p, lk->t);
	struct exec_tensor_stats *st = stats_of(x, lk->p, lk->t);
	struct parent_counts pc = { 0, 0 };
	unsigned n_local;

	classify_parent_points(x, lk, pt, cls, pinst, &pc);
	if (fp->has_md) {
		int64_t org[XD];
		const struct units_entry *u;
		parent_origin(x, fp, op_lo, org);
		u = exec_layout_units(x, (unsigned)lk->p, lk->t, org);
		note_units(st, u, fp->n_ranks);
		if (cls < 0)
			return;
		n_local = lk->c >= 0 ? xsparse_fmt(x->sp, (unsigned)lk->c, lk->t)->n_ranks
				     : fp->n_ranks;
		add_format(&st->fmt_reads, u, fp->n_ranks, (double)pc.n_read / (double)u->shape,
			   cls, n_local);
		if (pc.n_update)
			add_format(&st->fmt_updates, u, fp->n_ranks,
				   (double)pc.n_update / (double)u->shape, cls, n_local);
	}
}

void exec_sparse_delivery(struct xrun *x, const struct xlink *lk, const struct tlayout *tl,
			  const struct tset *tile, const struct tset *prev, const int64_t *op_lo,
			  uint64_t pinst, unsigned n_reads, unsigned n_skipped, bool linked,
			  const uint64_t *held)
{
	struct xsparse *sp = x->sp;
	struct points pt;
	unsigned i;
	int cls;

	if (lk->p < 0)
		return;
	sp->n_pts = 0;
	exec_tset_diff_foreach(tile, prev, tl, &x->plan.geom[lk->t], collect_point, sp);
	pt.n = sp->n_pts;
	pt.v = sp->pts;
	if (lk->c >= 0)
		fill_side(x, lk, &pt, op_lo, held, linked);
	if (!n_reads && !n_skipped)
		return;
	cls = parent_class(x, lk, op_lo);
	for (i = 0; i < n_reads; i++)
		parent_side(x, lk, &pt, op_lo, pinst, cls);
	for (i = 0; i < n_skipped; i++)
		parent_side(x, lk, &pt, op_lo, pinst, cls < 0 ? cls : EXEC_SKIPPED);
}

/* -------------------------------------------------------------- computes */

int exec_sparse_compute_class(struct xrun *x, const int64_t *op, const double *vals, int out)
{
	const struct xsparse *sp = x->sp;
	const struct xplan *p = &x->plan;
	unsigned i, t, n_ops = 0, n_ne = 0, n_ez = 0;

	for (i = 0; i < sp->n_saf; i++) {
		const struct xsaf *f = &sp->saf[i];
		if ((int)f->target != out && saf_empty_at(p, f, op))
			return -1;
	}
	for (t = 0; t < p->n_tensors; t++) {
		const struct xfmt *f;
		if ((int)t == out)
			continue;
		n_ops++;
		if (vals[t] != 0)
			continue;
		f = p->n_chain[t] ? xsparse_fmt(x->sp, (unsigned)p->chain[t][0], t) : NULL;
		if (f && f->has_md)
			n_ne++;
		else
			n_ez++;
	}
	if (n_ops >= 2 && n_ne == n_ops)
		return -1;
	if (n_ne)
		return sp->compute_skipping ? EXEC_SKIPPED :
		       sp->compute_gating ? EXEC_GATED : EXEC_ACTUAL;
	if (n_ez)
		return sp->compute_gating ? EXEC_GATED : EXEC_ACTUAL;
	return EXEC_ACTUAL;
}

/* -------------------------------------------------------------- results */

void exec_sparse_finalize(struct xrun *x)
{
	const struct xplan *p = &x->plan;
	struct xsparse *sp = x->sp;
	unsigned t, i;

	for (t = 0; t < p->n_tensors; t++)
		for (i = 0; i < p->n_chain[t]; i++) {
			int l = p->chain[t][i];
			struct exec_tensor_stats *st = stats_of(x, l, t);
			const struct xfmt *f = xsparse_fmt(sp, (unsigned)l, t);
			st->has_format = f->has_md;
			st->n_format_ranks = f->has_md ? f->n_ranks : 0;
			if (!f->has_md)
				st->max_occupancy = st->tile_shape;
			if (!sp->involved[t] || sp->dense_fill[l][t])
				st->fills.n[EXEC_ACTUAL] = st->fills.algorithmic;
			if (!sp->involved[t] || sp->dense_parent[l][t]) {
				st->reads.n[EXEC_ACTUAL] = st->reads.algorithmic;
				st->updates.n[EXEC_ACTUAL] = st->updates.algorithmic;
				if (p->geom[t].read_write)
					st->temporal_reductions = st->reads.algorithmic;
			}
		}
}
