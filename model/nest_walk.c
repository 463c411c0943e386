/*
 * The general nest analysis: Timeloop's delta recursion with temporal and
 * spatial extrapolation (semantics 2.3, 2.4), walked call by call.
 *
 * Used for imperfect factorizations (residual iterations), and as the
 * reference the fast path is tested against (FIBERLOOP_NEST=walk, =check).
 * Only boundary loops keep tile state (their deltas are the only ones a
 * parent records); a spatial group evaluates child 0 and places the other
 * children by their offsets, which is what spatial extrapolation does.
 *
 * Residuals counted exactly (ws->exact, docs/model.md "Imperfect
 * factorizations"): the records are totals over the instances a call
 * stands for (w->inst); a loop whose last iteration runs residual tiles
 * below it walks iteration 0, the middle ones (as iteration 1, weighted),
 * then the last one with its own delta, the tiles held inside it moved to
 * where the middle ones left them; and a spatial group whose last child
 * holds residual tiles walks that child too, as an instance of its own
 * ('slot': the tile state of one physical child path).
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

/*
 * The tiles held along one path of children: slot 0 is child 0 of every
 * spatial group (Timeloop's representative); another slot is a child of a
 * group at 'level' under the path of slot 'parent', at group index 'key',
 * and holds the tiles of the levels below 'level'.
 */
struct slot {
	struct tstate st[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	struct delta_desc cur[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	uint64_t group_call[SPEC_MAX_LEVELS];  /* last call of each group on this path */
	uint64_t used_at;              /* the group call that last walked this child */
	unsigned parent, level;
	uint64_t key;
};

#define WALK_MAX_CLASSES 64       /* children walked apart in one spatial group */

/* The children of a spatial group that one walk stands for (exact mode). */
struct wclass {
	uint64_t n;                   /* children */
	uint32_t last_bits;           /* group loops at their last index, with residual tiles */
	uint32_t upper_bits;          /* group loops at an index past their residual (such
					 children are absent from the residual rounds) */
	uint64_t rep[SPEC_MAX_DIMS];  /* group index of the walked one, per group loop */
	uint64_t trip[SPEC_MAX_DIMS]; /* trip count of each group loop */
	int64_t off[SPEC_MAX_DIMS];   /* its op-space offset from child 0 */
	unsigned slot;
};

struct walk_state {
	struct slot *slots;
	unsigned n_slots, alloc_slots;
	unsigned cur_slot;
	struct delta_desc prev[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	bool has_prev[SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	int64_t T[SPEC_MAX_DIMS];
	uint64_t idx[SPEC_MAX_LOOPS], trip[SPEC_MAX_LOOPS];
	uint64_t epochs;
	uint64_t inst;        /* instances the current call stands for (exact mode), else 1 */
	uint64_t calls;       /* spatial group calls so far (exact mode) */
	int64_t *offsets;     /* children x ranks, scratch */
	struct delta_desc (*class_delta)[SPEC_MAX_TENSORS];   /* WALK_MAX_CLASSES */
};

void model_nest_walk_init(struct model_ws *ws)
{
	ws->walk = xcalloc(1, sizeof(*ws->walk));
	ws->walk->offsets = xcalloc(ws->max_children * SPEC_MAX_TENSOR_RANKS,
				    sizeof(int64_t));
	ws->walk->alloc_slots = 1;
	ws->walk->slots = xcalloc(1, sizeof(*ws->walk->slots));
	ws->walk->class_delta = xcalloc(WALK_MAX_CLASSES, sizeof(*ws->walk->class_delta));
}

void model_nest_walk_release(struct model_ws *ws)
{
	if (!ws->walk)
		return;
	free(ws->walk->offsets);
	free(ws->walk->slots);
	free(ws->walk->class_delta);
	free(ws->walk);
	ws->walk = NULL;
}

static struct slot *cur_slot(struct walk_state *w)
{
	return &w->slots[w->cur_slot];
}

/* True when every loop above 'L' on 'dim' is at its last iteration. */
static bool last_global(const struct model_ws *ws, const struct walk_state *w,
			unsigned L, unsigned dim)
{
	unsigned k;

	if (ws->loops[L].dim != dim) {   /* the first loop above L on dim */
		for (k = L + 1; k < ws->n_loops && ws->loops[k].dim != dim; k++)
			;
		if (k == ws->n_loops)
			return true;
		if (w->idx[k] + 1 != w->trip[k])
			return false;
		L = k;
	}
	for (k = ws->loops[L].outer_same; k != MLOOP_NONE; k = ws->loops[k].outer_same)
		if (w->idx[k] + 1 != w->trip[k])
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
	if (model_vec_zero(t, n)) {
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
		struct delta_desc *d = &cur_slot(w)->cur[l][pv];
		struct nest_tile *t = &ws->nest.t[l][pv];
		uint64_t full;
		tensor_delta(ws, &cur_slot(w)->st[l][pv], pv, no_reuse & (1u << pv), w->T, ext, d,
			     &full);
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
		sizes[pv] = cur_slot(w)->cur[l][pv].size;
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

/* Move the op-space box 'lo' and its hull 'b' on tensor pv by 'delta' along 'dim'. */
static void move_box(const struct proj *p, unsigned dim, int64_t delta, int64_t *lo,
		     struct tbox *b)
{
	unsigned r;

	lo[dim] += delta;
	for (r = 0; r < p->n_ranks; r++)
		b->lo[r] += p->cm[r][dim] * delta;
}

/*
 * After the middle iterations of loop L ran as iteration 1: move every tile
 * held inside L (every path's) by 'delta' along L's dimension, to where the
 * last middle iteration leaves it (exact mode).
 */
static void shift_states(struct model_ws *ws, struct walk_state *w, unsigned L, int64_t delta)
{
	unsigned dim = ws->loops[L].dim, s, l, pv;

	for (l = 0; l < ws->n_levels && ws->lv[l].boundary < L; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			const struct proj *p = &ws->proj[pv];
			for (s = 0; s < w->n_slots; s++) {
				struct tstate *st = &w->slots[s].st[l][pv];
				if (st->has_last)
					move_box(p, dim, delta, st->last_lo, &st->last);
			}
			if (w->has_prev[l][pv]) {
				unsigned r;
				for (r = 0; r < p->n_ranks; r++)
					w->prev[l][pv].w.lo[r] += p->cm[r][dim] * delta;
			}
		}
	}
}

/*
 * The iterations of temporal loop L > 0 when residuals are counted exactly:
 * as Timeloop's unless its last iteration holds residual tiles below it;
 * then iteration 0, the middle ones 1 .. N-2 as iteration 1 weighted N-2,
 * and the last one with its own delta. Either way the tiles held inside are
 * then moved to where the last middle iteration leaves them, so that what
 * follows (the last iteration, the next call) starts from them, as in a
 * real execution (not iteration 1's, as Timeloop's extrapolation does).
 */
static void iterate_exact(struct model_ws *ws, struct walk_state *w, unsigned L,
			  struct entries *e)
{
	const struct mloop *lp = &ws->loops[L];
	uint64_t N = w->trip[L], saved = (uint64_t)w->T[lp->dim], v;

	if (!lp->dim_imperfect_below || !last_global(ws, w, L, lp->dim)) {
		iterate(ws, w, L, e);
		if (N >= 3)
			shift_states(ws, w, L, (int64_t)((N - 2) * lp->stride));
		return;
	}
	e->n = 0;
	w->idx[L] = 0;
	call_child(ws, w, L, e->sizes[e->n]);
	e->scale[e->n++] = 1;
	if (N >= 3) {
		v = N - 2;
		w->idx[L] = 1;
		w->T[lp->dim] += (int64_t)lp->stride;
		w->epochs *= v;
		call_child(ws, w, L, e->sizes[e->n]);
		w->epochs /= v;
		e->scale[e->n++] = v;
		shift_states(ws, w, L, (int64_t)((v - 1) * lp->stride));
		w->T[lp->dim] += (int64_t)(v * lp->stride);
	} else if (N == 2) {
		w->T[lp->dim] += (int64_t)lp->stride;
	}
	if (N >= 2) {
		w->idx[L] = N - 1;
		call_child(ws, w, L, e->sizes[e->n]);
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
		uint64_t n = w->trip[L] * w->epochs * w->inst;
		ws->nest.compute_accesses += n;
		for (pv = 0; pv < ws->n_tensors; pv++)
			model_nest_rec_add(&ws->nest.t[lp->level][pv], 1, 1, n);
		return;
	}
	if (ws->exact)
		iterate_exact(ws, w, L, &e);
	else
		iterate(ws, w, L, &e);
	if (!ws->loops[L - 1].is_boundary)
		return;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		uint64_t acc = 0;
		for (i = 0; i < e.n; i++)
			acc += e.sizes[i][pv] * e.scale[i];
		model_nest_rec_add(&ws->nest.t[lp->level][pv], 1, 1, acc * w->epochs * w->inst);
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
	uint64_t acc = cur->size * w->epochs * w->inst, H;
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
		if (model_nest_rec_total(&linked) < model_nest_rec_total(&plain)) {
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

/* The largest spatial working set of group M's level (partition sizes). */
static void spatial_size(struct model_ws *ws, struct walk_state *w, unsigned M)
{
	unsigned l = ws->loops[M].level, pv;
	uint64_t ext[SPEC_MAX_DIMS];

	working_extent(ws, w, M, ext);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		uint64_t s = model_fp_size(ws, pv, w->T, ext);
		if (s > ws->nest.t[l][pv].spatial_size)
			ws->nest.t[l][pv].spatial_size = s;
	}
}

static int cmp_child_key(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Slot 's' holding nothing yet (its deltas are written before they are read). */
static void slot_clear(const struct model_ws *ws, struct slot *sl)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++)
			sl->st[l][pv].has_last = sl->st[l][pv].has_t = false;
		sl->group_call[l] = 0;
	}
	sl->used_at = 0;
}

/* The slot of the child at group index 'key' of level l's group under path 'parent'. */
static unsigned slot_get(const struct model_ws *ws, struct walk_state *w, unsigned parent,
			 unsigned l, uint64_t key)
{
	unsigned s;

	for (s = 1; s < w->n_slots; s++)
		if (w->slots[s].parent == parent && w->slots[s].level == l && w->slots[s].key == key)
			return s;
	XGROW(w->slots, w->n_slots + 1, w->alloc_slots);
	s = w->n_slots++;
	slot_clear(ws, &w->slots[s]);
	w->slots[s].parent = parent;
	w->slots[s].level = l;
	w->slots[s].key = key;
	return s;
}

/*
 * A child that was not walked in the group's previous call held what the
 * walked child 0 held, moved by its offset: give its slot those tiles.
 */
static void slot_init(struct model_ws *ws, struct walk_state *w, unsigned s, unsigned p,
		      unsigned l, const int64_t *off)
{
	unsigned k, pv, d;

	for (k = 0; k < l; k++) {
		w->slots[s].group_call[k] = 0;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct tstate *st = &w->slots[s].st[k][pv];
			*st = w->slots[p].st[k][pv];
			for (d = 0; st->has_last && d < ws->n_dims; d++)
				if (off[d])
					move_box(&ws->proj[pv], d, off[d], st->last_lo, &st->last);
		}
	}
}

/*
 * How the children of group loop k split, in the current call: the last
 * one apart when it holds residual tiles below it (its dimension has a
 * residual inside and every loop above on it is at its last iteration:
 * 'split'); those at an index past the loop's residual apart in a full
 * round (they are absent from the residual rounds, and keep their tiles
 * meanwhile: 'upper').
 */
static void loop_split(const struct model_ws *ws, const struct walk_state *w, unsigned k,
		       uint64_t trip, bool *split, bool *upper)
{
	const struct mloop *lp = &ws->loops[k];

	*split = lp->dim_imperfect_below && last_global(ws, w, k, lp->dim);
	*upper = !*split && lp->residual != lp->end && trip == lp->end;
}

/*
 * The children of group M (loops M down to lo, outer to inner) that walk
 * apart, exact mode: the product over the group loops of their splits
 * (loop_split), each part walked as its first child.
 */
static void group_classes(struct model_ws *ws, struct walk_state *w, unsigned M, unsigned lo,
			  unsigned k, struct wclass c, struct wclass *out, unsigned *n_out)
{
	const struct mloop *lp = &ws->loops[k];
	unsigned pos = k - lo;
	uint64_t trip = trip_count(ws, w, k), first[2], count[2];
	bool split, upper;
	unsigned n_parts = 1, i;

	loop_split(ws, w, k, trip, &split, &upper);
	first[0] = 0;
	count[0] = trip;
	if (split) {
		count[0] = trip - 1;
		first[1] = trip - 1;
		count[1] = 1;
		n_parts = 2;
	} else if (upper) {
		count[0] = lp->residual;
		first[1] = lp->residual;
		count[1] = trip - lp->residual;
		n_parts = 2;
	}
	c.trip[pos] = trip;
	w->trip[k] = trip;
	for (i = 0; i < n_parts; i++) {
		struct wclass x = c;
		if (count[i] == 0)
			continue;
		x.rep[pos] = first[i];
		x.n *= count[i];
		if (i == 1 && split)
			x.last_bits |= 1u << pos;
		if (i == 1 && upper)
			x.upper_bits |= 1u << pos;
		w->idx[k] = x.rep[pos];
		if (k > lo) {
			group_classes(ws, w, M, lo, k - 1, x, out, n_out);
		} else {
			if (*n_out == WALK_MAX_CLASSES)
				BUG("more than %d kinds of children in one spatial group", WALK_MAX_CLASSES);
			out[(*n_out)++] = x;
		}
	}
	w->idx[k] = 0;
}

/* Class of a child among 'cls', by the parts of the group loops it is in. */
static unsigned class_of_child(const struct wclass *cls, unsigned n_cls, uint32_t last,
			       uint32_t upper)
{
	unsigned c;

	for (c = 0; c < n_cls; c++)
		if (cls[c].last_bits == last && cls[c].upper_bits == upper)
			return c;
	BUG("a child of no class (%#x, %#x)", last, upper);
}

struct child_enum {
	const struct wclass *cls;
	unsigned n_cls;
	const unsigned *canon;
	int64_t t[SPEC_MAX_DIMS][SPEC_MAX_TENSOR_RANKS];   /* per group loop, per rank */
	int64_t lo[SPEC_MAX_TENSOR_RANKS], span[SPEC_MAX_TENSOR_RANKS];
	int64_t span_all;
	unsigned n_ranks, n_group;
	uint64_t idx[SPEC_MAX_DIMS];
	size_t n_keys;
};

/* Key every child of group M (loops k down to lo) by its class and tile offset. */
static void child_keys(struct model_ws *ws, struct walk_state *w, unsigned lo, unsigned k,
		       uint32_t last, uint32_t upper, struct child_enum *ce)
{
	const struct mloop *lp = &ws->loops[k];
	unsigned pos = k - lo, r, j;
	uint64_t trip = trip_count(ws, w, k), i;
	bool split, up;

	loop_split(ws, w, k, trip, &split, &up);
	w->trip[k] = trip;
	for (i = 0; i < trip; i++) {
		uint32_t lb = last | (split && i + 1 == trip ? 1u << pos : 0);
		uint32_t ub = upper | (up && i >= lp->residual ? 1u << pos : 0);
		w->idx[k] = i;
		ce->idx[pos] = i;
		if (k > lo) {
			child_keys(ws, w, lo, k - 1, lb, ub, ce);
		} else {
			unsigned c = class_of_child(ce->cls, ce->n_cls, lb, ub);
			int64_t key = 0;
			if (ce->canon[c] == UINT32_MAX)
				continue;
			for (r = 0; r < ce->n_ranks; r++) {
				int64_t off = 0;
				for (j = 0; j < ce->n_group; j++)
					off += (int64_t)ce->idx[j] * ce->t[j][r];
				key = key * ce->span[r] + (off - ce->lo[r]);
			}
			ws->child_key[ce->n_keys++] = (int64_t)ce->canon[c] * ce->span_all + key;
		}
	}
	w->idx[k] = 0;
	ce->idx[pos] = 0;
}

/*
 * The parent's reads for tensor pv in a group whose children walk apart:
 * children with the same delta (the same class shape at the same tile
 * offset) form one multicast group; each group of m costs its class's
 * delta once.
 */
static void class_multicast(struct model_ws *ws, struct walk_state *w, unsigned M,
			    const struct wclass *cls, unsigned n_cls, unsigned pv)
{
	const struct mloop *mp = &ws->loops[M];
	const struct proj *p = &ws->proj[pv];
	unsigned l = mp->level, lo = mp->group_lo, n = M - lo + 1, c, q, r, k;
	struct nest_tile *tile = &ws->nest.t[l][pv];
	unsigned canon[WALK_MAX_CLASSES];
	int64_t po[WALK_MAX_CLASSES][SPEC_MAX_TENSOR_RANKS];
	uint64_t acc_of[WALK_MAX_CLASSES];
	struct child_enum ce;
	size_t i, run;
	bool any = false;

	for (c = 0; c < n_cls; c++) {
		const struct delta_desc *d = &w->class_delta[c][pv];
		acc_of[c] = d->size * w->epochs * w->inst;
		for (r = 0; r < p->n_ranks; r++) {
			po[c][r] = 0;
			for (q = 0; q < ws->n_dims; q++)
				po[c][r] -= p->cm[r][q] * cls[c].off[q];
		}
		canon[c] = UINT32_MAX;
		if (!d->size)
			continue;
		any = true;
		canon[c] = c;
		for (q = 0; q < c; q++)
			if (canon[q] == q && desc_equal(d, po[c], &w->class_delta[q][pv], po[q], p->n_ranks)) {
				canon[c] = q;
				break;
			}
	}
	if (!any)
		return;
	if (ws->m->levels[l].no_multicast_mask & (1u << pv)) {
		for (c = 0; c < n_cls; c++)
			if (canon[c] != UINT32_MAX)
				model_nest_rec_add(tile, 1, cls[c].n, cls[c].n * acc_of[c]);
		return;
	}
	ce.n_keys = 0;
	ce.n_group = n;
	memset(ce.idx, 0, sizeof(ce.idx));
	ce.cls = cls;
	ce.n_cls = n_cls;
	ce.canon = canon;
	ce.n_ranks = p->n_ranks;
	ce.span_all = 1;
	for (k = 0; k < n; k++) {
		const struct mloop *g = &ws->loops[lo + k];
		for (r = 0; r < p->n_ranks; r++)
			ce.t[k][r] = p->cm[r][g->dim] * (int64_t)g->stride;
	}
	for (r = 0; r < p->n_ranks; r++) {
		int64_t a = 0, b = 0;
		for (k = 0; k < n; k++) {
			int64_t v = (int64_t)(ws->loops[lo + k].end - 1) * ce.t[k][r];
			if (v < 0)
				a += v;
			else
				b += v;
		}
		ce.lo[r] = a;
		ce.span[r] = b - a + 1;
		ce.span_all *= ce.span[r];
	}
	child_keys(ws, w, lo, M, 0, 0, &ce);
	qsort(ws->child_key, ce.n_keys, sizeof(*ws->child_key), cmp_child_key);
	for (i = 0; i < ce.n_keys; i += run) {
		for (run = 1; i + run < ce.n_keys && ws->child_key[i + run] == ws->child_key[i]; run++)
			;
		c = (unsigned)(ws->child_key[i] / ce.span_all);
		model_nest_rec_add(tile, run, 1, acc_of[c]);
	}
}

/*
 * A child that holds residual tiles in this call but was one of the
 * others in the group's previous call: its tiles are those of the part it
 * was in then (the same class without the residual), moved by its offset.
 * Those are walked after it, so their slots still hold the previous call's.
 */
static void last_child_init(struct model_ws *ws, struct walk_state *w, const struct wclass *cls,
			    unsigned n_cls, unsigned c, unsigned l)
{
	int64_t off[SPEC_MAX_DIMS];
	unsigned src, d;

	for (src = 0; src < n_cls; src++)
		if (!cls[src].last_bits && cls[src].upper_bits == cls[c].upper_bits)
			break;
	if (src == n_cls)   /* no other part this call (a group of one child): keep */
		return;
	for (d = 0; d < SPEC_MAX_DIMS; d++)
		off[d] = cls[c].off[d] - cls[src].off[d];
	slot_init(ws, w, cls[c].slot, cls[src].slot, l, off);
}

/*
 * Exact mode: walk each class of children of group M apart (the ones in
 * new slots first, from the tiles they hold; child 0's path last), then
 * count the parent's reads. A group of one class is Timeloop's, every
 * count weighted by its children.
 */
static void walk_spatial_exact(struct model_ws *ws, struct walk_state *w, unsigned M)
{
	const struct mloop *mp = &ws->loops[M];
	unsigned l = mp->level, lo = mp->group_lo, n = M - lo + 1, p = w->cur_slot;
	struct wclass cls[WALK_MAX_CLASSES], start;
	unsigned n_cls = 0, c, k, pv, pass;
	uint64_t inst0 = w->inst, prev_call, call, ends[SPEC_MAX_DIMS], n_children = 1;
	int64_t T0[SPEC_MAX_DIMS];

	memset(&start, 0, sizeof(start));
	start.n = 1;
	group_classes(ws, w, M, lo, M, start, cls, &n_cls);
	prev_call = w->slots[p].group_call[l];
	call = ++w->calls;
	w->slots[p].group_call[l] = call;
	memcpy(T0, w->T, sizeof(T0));
	for (c = 0; c < n_cls; c++) {
		uint64_t key = 0;
		bool zero = true;
		memset(cls[c].off, 0, sizeof(cls[c].off));
		for (k = n; k-- > 0;) {
			const struct mloop *g = &ws->loops[lo + k];
			cls[c].off[g->dim] += (int64_t)(cls[c].rep[k] * g->stride);
			key = key * g->end + cls[c].rep[k];
			zero &= cls[c].rep[k] == 0;
		}
		cls[c].slot = zero ? p : slot_get(ws, w, p, l, key);
	}
	for (pass = 0; pass < 3; pass++) {
		for (c = 0; c < n_cls; c++) {
			struct wclass *x = &cls[c];
			unsigned want = x->last_bits ? 0 : x->slot != p ? 1 : 2;
			if (want != pass)
				continue;
			if (x->last_bits && w->slots[x->slot].used_at != prev_call)
				last_child_init(ws, w, cls, n_cls, c, l);
			w->slots[x->slot].used_at = call;
			for (k = 0; k < n; k++) {
				w->idx[lo + k] = x->rep[k];
				w->trip[lo + k] = x->trip[k];
			}
			for (k = 0; k < ws->n_dims; k++)
				w->T[k] = T0[k] + x->off[k];
			w->inst = inst0 * x->n;
			w->cur_slot = x->slot;
			if (lo > 0)
				walk(ws, w, lo - 1);
			else
				ws->nest.compute_accesses += w->epochs * w->inst;
			for (pv = 0; pv < ws->n_tensors; pv++) {
				if (lo == 0)
					point_desc(ws, w, pv, &w->class_delta[c][pv]);
				else
					w->class_delta[c][pv] = w->slots[x->slot].cur[l - 1][pv];
			}
		}
	}
	w->inst = inst0;
	w->cur_slot = p;
	memcpy(w->T, T0, sizeof(T0));
	for (k = 0; k < n; k++)
		w->idx[lo + k] = 0;
	for (c = 0; c < n_cls && cls[c].slot != p; c++)
		;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		if (n_cls == 1) {
			for (k = 0; k < n; k++) {
				ends[k] = cls[0].trip[k];
				n_children *= ends[k];
			}
			if (w->class_delta[0][pv].size)
				spatial_accesses(ws, w, M, ends, n_children, pv, &w->class_delta[0][pv]);
			n_children = 1;
		} else {
			class_multicast(ws, w, M, cls, n_cls, pv);
		}
		if (c < n_cls) {
			w->prev[l][pv] = w->class_delta[c][pv];
			w->has_prev[l][pv] = true;
		}
	}
	for (k = 0; k < n; k++)
		w->trip[lo + k] = cls[c < n_cls ? c : 0].trip[k];
	spatial_size(ws, w, M);
}

static void walk_spatial(struct model_ws *ws, struct walk_state *w, unsigned M)
{
	const struct mloop *mp = &ws->loops[M];
	unsigned l = mp->level, k, pv, n = M - mp->group_lo + 1;
	uint64_t ends[SPEC_MAX_DIMS], n_children = 1;

	if (ws->exact) {
		walk_spatial_exact(ws, w, M);
		return;
	}

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
			cur = &cur_slot(w)->cur[l - 1][pv];
		if (cur->size)
			spatial_accesses(ws, w, M, ends, n_children, pv, cur);
		w->prev[l][pv] = *cur;
		w->has_prev[l][pv] = true;
	}
	spatial_size(ws, w, M);
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
			w->slots[0].st[l][pv].has_last = false;
			w->slots[0].st[l][pv].has_t = false;
			w->has_prev[l][pv] = false;
		}
		w->slots[0].group_call[l] = 0;
	}
	w->n_slots = 1;
	w->cur_slot = 0;
	w->calls = 0;
	memset(w->T, 0, sizeof(w->T));
	w->epochs = 1;
	w->inst = 1;
	walk(ws, w, ws->n_loops - 1);
}
