/*
 * The general nest analysis: Timeloop's delta recursion with temporal and
 * spatial extrapolation (semantics 2.3, 2.4), walked call by call.
 *
 * Used for imperfect factorizations (residual iterations), when link
 * transfers are possible, and as the oracle the fast path is tested against.
 * Only boundary loops keep tile state (their deltas are the only ones a
 * parent records); a spatial group evaluates child 0 and places the other
 * children by their offsets, which is what spatial extrapolation does.
 */
#include "model/model_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Tile state of one boundary for one tensor. */
struct tstate {
	bool has_last, has_t;
	int64_t last_lo[SPEC_MAX_DIMS];
	uint64_t last_ext[SPEC_MAX_DIMS];
	struct tbox last;
	int64_t t[SPEC_MAX_TENSOR_RANKS];
};

struct walk_state {
	struct tstate st[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	struct delta_desc cur[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	struct delta_desc prev[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	bool has_prev[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	int64_t T[SPEC_MAX_DIMS];
	uint64_t idx[SPEC_MAX_LOOPS], trip[SPEC_MAX_LOOPS];
	uint64_t epochs;
	int64_t *offsets;     /* children x ranks, scratch */
};

void model_nest_walk_init(struct model_ws *ws)
{
	ws->walk = xcalloc(1, sizeof(*ws->walk));
	ws->walk->offsets = xcalloc(ws->max_children * SPEC_MAX_TENSOR_RANKS,
				    sizeof(int64_t));
}

void model_nest_walk_release(struct model_ws *ws)
{
	if (!ws->walk)
		return;
	free(ws->walk->offsets);
	free(ws->walk);
	ws->walk = NULL;
}

/* True when every loop above 'L' on 'dim' is at its last iteration. */
static bool last_global(const struct model_ws *ws, const struct walk_state *w,
			unsigned L, unsigned dim)
{
	unsigned k;

	for (k = L + 1; k < ws->n_loops; k++)
		if (ws->loops[k].dim == dim && w->idx[k] + 1 != w->trip[k])
			return false;
	return true;
}

/* Trip count of loop L in the current iteration of the loops above. */
static uint64_t trip_count(const struct model_ws *ws, const struct walk_state *w, unsigned L)
{
	const struct mloop *lp = &ws->loops[L];

	if (lp->residual != lp->end && last_global(ws, w, L, lp->dim))
		return lp->residual;
	return lp->end;
}

/* Op-space extents of loop L's working set. */
static void working_extent(const struct model_ws *ws, const struct walk_state *w,
			   unsigned L, uint64_t *ext)
{
	const struct mloop *lp = &ws->loops[L];
	unsigned d;

	for (d = 0; d < ws->n_dims; d++)
		ext[d] = ws->m->is_imperfect && last_global(ws, w, L, d) ?
			 lp->extent_res[d] : lp->extent[d];
}

/* Round half away from zero of x / 2. */
static int64_t half_round(int64_t x)
{
	if (x % 2 == 0)
		return x / 2;
	return x > 0 ? (x + 1) / 2 : (x - 1) / 2;
}

/* Translation between the centroids of two hull boxes, rounded. */
static void translation(const struct tbox *from, const struct tbox *to, unsigned n,
			int64_t *t)
{
	unsigned r;

	for (r = 0; r < n; r++)
		t[r] = half_round(2 * (to->lo[r] - from->lo[r]) + (to->ext[r] - from->ext[r]));
}

static bool vec_zero(const int64_t *v, unsigned n)
{
	unsigned r;

	for (r = 0; r < n; r++)
		if (v[r])
			return false;
	return true;
}

/* 'd' = W minus the state's last tile, with its geometry. */
static void diff_desc(struct model_ws *ws, unsigned pv, const struct tstate *st,
		      const int64_t *lo, const uint64_t *ext, struct delta_desc *d)
{
	unsigned n = ws->proj[pv].n_ranks, r;
	bool overlap = true;

	d->size = model_fp_delta(ws, pv, lo, ext, st->last_lo, st->last_ext);
	for (r = 0; r < n; r++) {
		int64_t a = d->w.lo[r] > st->last.lo[r] ? d->w.lo[r] : st->last.lo[r];
		int64_t ha = d->w.lo[r] + d->w.ext[r], hb = st->last.lo[r] + st->last.ext[r];
		int64_t b = ha < hb ? ha : hb;
		overlap &= b > a;
		d->inter.lo[r] = a - d->w.lo[r];
		d->inter.ext[r] = b - a;
	}
	d->kind = d->size == 0 ? DELTA_EMPTY : overlap ? DELTA_DIFF : DELTA_FULL;
}

/* Remember W as the last tile of 'st'. */
static void save_last(struct tstate *st, const int64_t *lo, const uint64_t *ext,
		      const struct tbox *w, unsigned n_dims)
{
	memcpy(st->last_lo, lo, n_dims * sizeof(*lo));
	memcpy(st->last_ext, ext, n_dims * sizeof(*ext));
	st->last = *w;
	st->has_last = true;
}

/* SaveAndSubtractIfSameStride (semantics 2.3 step 4) for one tensor. */
static void tensor_delta(struct model_ws *ws, struct tstate *st, unsigned pv,
			 bool no_reuse, const int64_t *lo, const uint64_t *ext,
			 struct delta_desc *d, uint64_t *full)
{
	unsigned n = ws->proj[pv].n_ranks;
	int64_t t[SPEC_MAX_TENSOR_RANKS];

	model_proj_box(&ws->proj[pv], lo, ext, &d->w);
	d->kind = DELTA_FULL;
	d->size = *full = model_fp_size(ws, pv, lo, ext);
	if (no_reuse)
		return;
	if (!st->has_last) {
		save_last(st, lo, ext, &d->w, ws->n_dims);
		return;
	}
	translation(&st->last, &d->w, n, t);
	if (vec_zero(t, n)) {
		diff_desc(ws, pv, st, lo, ext, d);
	} else if (!st->has_t) {
		diff_desc(ws, pv, st, lo, ext, d);
		memcpy(st->t, t, sizeof(t));
		st->has_t = true;
	} else if (!memcmp(t, st->t, n * sizeof(*t))) {
		diff_desc(ws, pv, st, lo, ext, d);
	} else {
		st->has_t = false;
	}
	save_last(st, lo, ext, &d->w, ws->n_dims);
}

/* At a boundary: the level's tile, its size record and its delta. */
static void boundary_delta(struct model_ws *ws, struct walk_state *w, unsigned L)
{
	unsigned l = ws->loops[L].level, pv;
	uint64_t ext[SPEC_MAX_DIMS];
	uint32_t no_reuse = ws->m->levels[l].no_temporal_reuse_mask;

	working_extent(ws, w, L, ext);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct delta_desc *d = &w->cur[l][pv];
		struct nest_tile *t = &ws->nest.t[l][pv];
		uint64_t full;
		tensor_delta(ws, &w->st[l][pv], pv, no_reuse & (1u << pv), w->T, ext, d, &full);
		if (full > t->size)
			t->size = full;
	}
}

static void walk(struct model_ws *ws, struct walk_state *w, unsigned L);

/* One real call of loop L-1 from loop L; adds the child's deltas to 'sizes'. */
static void call_child(struct model_ws *ws, struct walk_state *w, unsigned L,
		       uint64_t *sizes)
{
	unsigned pv, l;

	walk(ws, w, L - 1);
	if (!ws->loops[L - 1].is_boundary)
		return;
	l = ws->loops[L - 1].level;
	for (pv = 0; pv < ws->n_tensors; pv++)
		sizes[pv] = w->cur[l][pv].size;
}

struct entries {
	unsigned n;
	uint64_t scale[4];
	uint64_t sizes[4][SPEC_MAX_TENSORS];
};

/* The iterations of temporal loop L > 0, extrapolated (semantics 2.3.1). */
static void iterate(struct model_ws *ws, struct walk_state *w, unsigned L, struct entries *e)
{
	const struct mloop *lp = &ws->loops[L];
	uint64_t N = w->trip[L], saved = (uint64_t)w->T[lp->dim], v;
	bool rl = ws->m->is_imperfect && lp->dim_imperfect_below &&
		  last_global(ws, w, L, lp->dim);
	bool rsl = rl && lp->residual != lp->end, mid = false;
	unsigned i_mid = 0;

	e->n = 0;
	w->idx[L] = 0;
	if (N >= 1) {
		call_child(ws, w, L, e->sizes[e->n]);
		e->scale[e->n++] = 1;
		w->idx[L]++;
		w->T[lp->dim] += (int64_t)lp->stride;
	}
	if ((rsl && N >= 4) || (rl && !rsl && N >= 3) || (!rl && N >= 2)) {
		v = rl ? N - 2 : N - 1;
		if (rsl)
			v--;
		w->epochs *= v;
		call_child(ws, w, L, e->sizes[e->n]);
		w->epochs /= v;
		i_mid = e->n;
		e->scale[e->n++] = v;
		mid = true;
		w->idx[L] += v;
		w->T[lp->dim] += (int64_t)(v * lp->stride);
	}
	if (rsl && N >= 3) {
		call_child(ws, w, L, e->sizes[e->n]);
		if (N >= 4)
			e->scale[i_mid]++;
		else
			e->scale[e->n++] = 1;
		w->idx[L]++;
		w->T[lp->dim] += (int64_t)lp->stride;
	}
	if (rl && N >= 2) {
		call_child(ws, w, L, e->sizes[e->n]);
		if (mid)
			e->scale[i_mid]++;
		else
			e->scale[e->n++] = 1;
	}
	w->T[lp->dim] = (int64_t)saved;
	w->idx[L] = 0;
}

static void walk_temporal(struct model_ws *ws, struct walk_state *w, unsigned L)
{
	const struct mloop *lp = &ws->loops[L];
	struct entries e;
	unsigned pv, i;

	w->trip[L] = trip_count(ws, w, L);
	if (L == 0) {
		uint64_t n = w->trip[L] * w->epochs;
		ws->nest.compute_accesses += n;
		for (pv = 0; pv < ws->n_tensors; pv++)
			model_nest_rec_add(&ws->nest.t[lp->level][pv], 1, 1, n);
		return;
	}
	iterate(ws, w, L, &e);
	if (!ws->loops[L - 1].is_boundary)
		return;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		uint64_t acc = 0;
		for (i = 0; i < e.n; i++)
			acc += e.sizes[i][pv] * e.scale[i];
		model_nest_rec_add(&ws->nest.t[lp->level][pv], 1, 1, acc * w->epochs);
	}
}

/* Offsets of every child of a group on tensor pv (children x ranks). */
static void child_offsets(struct model_ws *ws, const struct mloop *g, unsigned n,
			  const uint64_t *ends, unsigned pv, uint64_t n_children, int64_t *off)
{
	const struct proj *p = &ws->proj[pv];
	uint64_t idx[SPEC_MAX_DIMS] = { 0 }, id;
	unsigned r, k, t;

	for (id = 0; id < n_children; id++) {
		for (r = 0; r < p->n_ranks; r++) {
			int64_t o = 0;
			for (k = 0; k < n; k++)
				for (t = 0; t < p->ranks[r].n_terms; t++)
					if (p->ranks[r].dim[t] == g[k].dim)
						o += (int64_t)idx[k] * (int64_t)g[k].stride *
						     p->ranks[r].coef[t];
			off[id * SPEC_MAX_TENSOR_RANKS + r] = o;
		}
		for (k = 0; k < n && ++idx[k] == ends[k]; k++)
			idx[k] = 0;
	}
}

/* Is delta 'a' shifted by 'oa' the same splinter list as 'b' shifted by 'ob'? */
static bool desc_equal(const struct delta_desc *a, const int64_t *oa,
		       const struct delta_desc *b, const int64_t *ob, unsigned n)
{
	unsigned r;

	if (a->kind != b->kind || a->kind == DELTA_EMPTY)
		return false;
	for (r = 0; r < n; r++) {
		if (a->w.lo[r] + oa[r] != b->w.lo[r] + ob[r] || a->w.ext[r] != b->w.ext[r])
			return false;
		if (a->kind == DELTA_DIFF && (a->inter.lo[r] != b->inter.lo[r] ||
					      a->inter.ext[r] != b->inter.ext[r]))
			return false;
	}
	return true;
}

/* Mark children whose delta 'cur' a mesh neighbour held in the previous call. */
static unsigned link_cover(struct model_ws *ws, struct walk_state *w, unsigned l,
			   unsigned pv, const struct delta_desc *cur, uint64_t n_children,
			   uint64_t H)
{
	const struct delta_desc *prev = &w->prev[l][pv];
	unsigned n = ws->proj[pv].n_ranks, covered = 0;
	const int64_t *off = w->offsets;
	uint64_t c;

	for (c = 0; c < n_children; c++) {
		int64_t nb[4];
		unsigned e;
		ws->child_flag[c] = 0;
		nb[0] = c % H ? (int64_t)c - 1 : -1;
		nb[1] = (c % H) + 1 < H ? (int64_t)c + 1 : -1;
		nb[2] = c >= H ? (int64_t)(c - H) : -1;
		nb[3] = (int64_t)(c + H);
		for (e = 0; e < 4; e++) {
			if (nb[e] < 0 || (uint64_t)nb[e] >= n_children)
				continue;
			if (desc_equal(cur, off + c * SPEC_MAX_TENSOR_RANKS, prev,
				       off + (uint64_t)nb[e] * SPEC_MAX_TENSOR_RANKS, n)) {
				ws->child_flag[c] = 1;
				covered++;
				break;
			}
		}
	}
	return covered;
}

static uint64_t rec_total(const struct nest_tile *t)
{
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < t->n_rec; i++)
		s += t->rec[i].accesses;
	return s;
}

static void rec_merge(struct nest_tile *into, const struct nest_tile *from)
{
	unsigned i;

	for (i = 0; i < from->n_rec; i++)
		model_nest_rec_add(into, from->rec[i].m, from->rec[i].scatter, from->rec[i].accesses);
}

/*
 * Multicast of child 0's delta 'cur' (the others are its translated
 * copies), with link transfers when they lower the parent's accesses.
 */
static void spatial_accesses(struct model_ws *ws, struct walk_state *w, unsigned M,
			     const uint64_t *ends, uint64_t n_children, unsigned pv,
			     const struct delta_desc *cur)
{
	const struct mloop *mp = &ws->loops[M], *g = &ws->loops[mp->group_lo];
	unsigned l = mp->level, n = M - mp->group_lo + 1;
	struct nest_tile *tile = &ws->nest.t[l][pv];
	struct nest_tile plain = { 0 }, linked = { 0 };
	uint64_t acc = cur->size * w->epochs, H;
	unsigned covered = 0;

	if (w->has_prev[l][pv] && !(ws->m->levels[l].no_link_transfer_mask & (1u << pv))) {
		H = ws->s->arch.levels[l].fanout_x > mp->fanout_x ?
		    ws->s->arch.levels[l].fanout_x : mp->fanout_x;
		child_offsets(ws, g, n, ends, pv, n_children, w->offsets);
		covered = link_cover(ws, w, l, pv, cur, n_children, H);
	}
	model_nest_multicast(ws, pv, g, n, ends, NULL, acc, &plain);
	if (covered) {
		model_nest_multicast(ws, pv, g, n, ends, ws->child_flag, acc, &linked);
		if (rec_total(&linked) < rec_total(&plain)) {
			rec_merge(tile, &linked);
			tile->link_transfers += covered * acc;
			return;
		}
	}
	rec_merge(tile, &plain);
}

/*
 * Child 0's "delta" when the group sits directly above the MACs: its
 * operation point itself, never subtracted from anything (a compute has no
 * tile to keep), so a neighbour's previous point can still match it and
 * make a link transfer (semantics 2.4; Timeloop's FillSpatialDeltas).
 */
static void point_desc(struct model_ws *ws, const struct walk_state *w, unsigned pv,
		       struct delta_desc *d)
{
	uint64_t one[SPEC_MAX_DIMS];
	unsigned k;

	for (k = 0; k < ws->n_dims; k++)
		one[k] = 1;
	model_proj_box(&ws->proj[pv], w->T, one, &d->w);
	d->kind = DELTA_FULL;
	d->size = 1;
}

static void walk_spatial(struct model_ws *ws, struct walk_state *w, unsigned M)
{
	const struct mloop *mp = &ws->loops[M];
	unsigned l = mp->level, k, pv, n = M - mp->group_lo + 1;
	uint64_t ends[SPEC_MAX_DIMS], n_children = 1, ext[SPEC_MAX_DIMS];

	for (k = mp->group_lo; k <= M; k++) {
		w->trip[k] = trip_count(ws, w, k);
		w->idx[k] = 0;
	}
	for (k = 0; k < n; k++) {
		ends[k] = w->trip[mp->group_lo + k];
		n_children *= ends[k];
	}
	if (mp->group_lo > 0)
		walk(ws, w, mp->group_lo - 1);
	else
		ws->nest.compute_accesses += w->epochs;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct delta_desc point;
		const struct delta_desc *cur = &point;
		if (mp->group_lo == 0)
			point_desc(ws, w, pv, &point);
		else
			cur = &w->cur[l - 1][pv];
		if (cur->size)
			spatial_accesses(ws, w, M, ends, n_children, pv, cur);
		w->prev[l][pv] = *cur;
		w->has_prev[l][pv] = true;
	}
	working_extent(ws, w, M, ext);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		uint64_t s = model_fp_size(ws, pv, w->T, ext);
		if (s > ws->nest.t[l][pv].spatial_size)
			ws->nest.t[l][pv].spatial_size = s;
	}
}

static void walk(struct model_ws *ws, struct walk_state *w, unsigned L)
{
	if (ws->loops[L].is_spatial) {
		walk_spatial(ws, w, L);
		return;
	}
	walk_temporal(ws, w, L);
	if (ws->loops[L].is_boundary)
		boundary_delta(ws, w, L);
}

void model_nest_walk(struct model_ws *ws)
{
	struct walk_state *w = ws->walk;
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			w->st[l][pv].has_last = false;
			w->st[l][pv].has_t = false;
			w->has_prev[l][pv] = false;
		}
	}
	memset(w->T, 0, sizeof(w->T));
	w->epochs = 1;
	walk(ws, w, ws->n_loops - 1);
}
