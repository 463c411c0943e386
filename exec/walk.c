/*
 * The tile walk. For every tensor and every pair of consecutive levels
 * that keep it (child c below parent p; the compute units are the child of
 * the innermost one), visit every instance of c at every step of the
 * temporal loops above c, in the mapping's order. Each instance computes
 * its new tile, keeps what its retention rule lets it keep of the previous
 * one, and receives the rest (the delta) from p. Children of one parent
 * instance that need identical deltas at the same step are served by one
 * multicast read (or, for read-write tensors, one reduced update).
 */
#include "exec/walk_int.h"

#include <stdlib.h>
#include <string.h>

#include "exec/sparse_int.h"
#include "util/xalloc.h"

/*
 * A message on one hop: the multiset of leaf classes a subtree needs. An
 * id is 2 * class + idle: idle (under a spatial skip) when no child the
 * occurrence serves has work, so that an active occurrence sorts first.
 */
struct msg {
	uint64_t rep;                  /* a child slot of the subtree */
	uint64_t inst;                 /* the sending node at the current hop */
	unsigned n;
	int64_t *ids;                  /* sorted 2 * class + idle */
};


struct kid_slot {
	uint64_t inst;                 /* child instance id */
	int64_t op_lo[XD];             /* origin of the child's op box */
	uint64_t delta;                /* |delta| */
	bool full;                     /* delta is the whole tile */
	bool valid;                    /* the child exists at this step */
	bool has_prev;                 /* 'prev' holds its tile of the previous step */
	bool skipped;                  /* a spatial skip gives it no work */
	bool covered;                  /* a neighbour's previous tile holds its delta */
	bool out;                      /* left out of the grouping pass */
	uint64_t hash;
	struct tset tile, prev, hull, hole;
};

/* Per-child-instance memory of one link. */
struct kid_state {
	struct tset last;
	bool has_tr;
	int64_t tr[XR];
	bool seen_any;
	uint64_t *held;                /* bitmap of points ever held (partition) */
};

struct link_run {
	struct xrun *x;
	const struct xlink *lk;
	struct tlayout tl;
	struct kid_state *state;       /* n_pinst * n_kids */
	struct tset *state_sets;
	struct kid_slot *slots;        /* n_kids */
	struct tset *slot_sets;
	struct hashmap classes;        /* grouping: delta hash -> first class with it */
	int64_t *next_class;           /* grouping: next class whose delta has its hash */
	int64_t *cls;                  /* leaf class of each child slot */
	uint64_t *mult;                /* times the parent reads each class */
	int64_t *cls_all;              /* spatial skips: classes of every child */
	uint64_t *mult_all;            /* ... and the reads they would need */
	uint64_t *act;                 /* spatial skips: reads of each class serving a busy child */
	bool spatial_skip;             /* a spatial skip acts on this link */
	bool out_pass;                 /* grouping leaves the children marked 'out' out */
	bool linked_step;              /* this step's covered children used their links */
	struct msg *msgs;              /* multicast messages */
	int64_t *pool;                 /* 2 * n_kids class ids */
	uint64_t ext[XD];              /* child tile extent per dim */
	uint64_t *pending_held;        /* bitmap being marked by mark_point */
	uint64_t pending_new;
	bool track_held;
	bool sparse;                   /* per-point classes for this tensor */
	struct xacc la;                /* this link's sums for the child level */
	uint64_t content;              /* this link's deliveries of the parent */
	uint64_t child_words;          /* this link's words received by children */
	uint64_t peer;                 /* this link's words sent between neighbours */
};

/* ------------------------------------------------------------- odometers */

static void odo_add(struct odo *o, unsigned k)
{
	o->loop[o->n] = k;
	o->idx[o->n] = 0;
	o->n++;
}

static void odo_reset(struct odo *o, int64_t *base)
{
	unsigned i;
	for (i = 0; i < o->n; i++)
		o->idx[i] = 0;
	for (i = 0; i < XD; i++)
		base[i] = 0;
}

/* Advance to the next combination; false (and back at zero) after the last. */
static bool odo_next(struct odo *o, const struct xplan *p, int64_t *base)
{
	unsigned i = o->n;

	while (i-- > 0) {
		const struct xloop *lp = &p->loops[o->loop[i]];
		if (++o->idx[i] < lp->end) {
			base[lp->dim] += (int64_t)lp->stride;
			return true;
		}
		base[lp->dim] -= (int64_t)((lp->end - 1) * lp->stride);
		o->idx[i] = 0;
	}
	return false;
}

/* Mixed-radix value of the odometer (outermost digit most significant). */
static uint64_t odo_value(const struct odo *o, const struct xplan *p)
{
	uint64_t v = 0;
	unsigned i;
	for (i = 0; i < o->n; i++)
		v = v * p->loops[o->loop[i]].end + o->idx[i];
	return v;
}

static uint64_t odo_count(const struct odo *o, const struct xplan *p)
{
	uint64_t v = 1;
	unsigned i;
	for (i = 0; i < o->n; i++)
		v *= p->loops[o->loop[i]].end;
	return v;
}

/* ----------------------------------------------------------------- links */

/* Op-space offset of child 'id' of the spatial loops 'kl' (outermost first). */
static void kid_offset(const struct xplan *p, const unsigned *kl, unsigned n, uint64_t id,
		       int64_t *off)
{
	unsigned i;

	memset(off, 0, XD * sizeof(*off));
	for (i = n; i-- > 0;) {
		const struct xloop *lp = &p->loops[kl[i]];
		off[lp->dim] += (int64_t)(id % lp->end * lp->stride);
		id /= lp->end;
	}
}

/*
 * Can the tile of child 'c' moved by 'disp' (op space) overlap the tile
 * unmoved, on every rank of tensor 'g'? (Hull test, bounds ignored: a
 * necessary condition for a neighbour to hold part of a child's data.)
 */
static bool tiles_meet(const struct xplan *p, const struct xgeom *g, int c, const int64_t *disp)
{
	unsigned r, i;

	for (r = 0; r < g->n_ranks; r++) {
		int64_t span = 0, shift = 0;
		for (i = 0; i < g->proj[r].n_terms; i++) {
			int64_t k = g->proj[r].terms[i].coef;
			unsigned d = g->proj[r].terms[i].dim;
			span += (k < 0 ? -k : k) * ((int64_t)xplan_level_extent(p, c, d) - 1);
			shift += k * disp[d];
		}
		if (shift > span || -shift > span)
			return false;
	}
	return true;
}

/*
 * Can a child of link (t, c, par) ever find data in a mesh neighbour's
 * previous tile? Its tile moves by u_j when temporal loop j steps (the
 * loops inside j reset); the neighbour sits at an op-space offset v; the
 * two tiles can meet only if the child's tile moved by u_j - v meets the
 * unmoved one. Checked once per link, so that links that never transfer
 * keep the cheaper walk.
 */
static bool links_can_happen(const struct xplan *p, unsigned t, int c, const unsigned *kl,
			     unsigned n_kl, uint64_t H)
{
	int64_t vs[64][XD], off[XD], noff[XD], u[XD], disp[XD];
	uint64_t n_kids = 1, f;
	unsigned n_v = 0, i, j, e, d;
	int k, q;

	for (i = 0; i < n_kl; i++)
		n_kids *= p->loops[kl[i]].end;
	for (f = 0; f < n_kids; f++) {
		int64_t nb[4] = { f % H ? (int64_t)f - 1 : -1, f % H + 1 < H ? (int64_t)f + 1 : -1,
				  f >= H ? (int64_t)(f - H) : -1, (int64_t)(f + H) };
		kid_offset(p, kl, n_kl, f, off);
		for (e = 0; e < 4; e++) {
			if (nb[e] < 0 || (uint64_t)nb[e] >= n_kids)
				continue;
			kid_offset(p, kl, n_kl, (uint64_t)nb[e], noff);
			for (d = 0; d < XD; d++)
				noff[d] -= off[d];
			for (j = 0; j < n_v && memcmp(vs[j], noff, sizeof(noff)); j++)
				;
			if (j == n_v && n_v < 64)
				memcpy(vs[n_v++], noff, sizeof(noff));
			else if (j == n_v)
				return true;        /* too many kinds of neighbour: assume so */
		}
	}
	for (k = p->boundary[c] + 1; k < (int)p->n_loops; k++) {
		if (p->loops[k].spatial)
			continue;
		memset(u, 0, sizeof(u));
		u[p->loops[k].dim] += (int64_t)p->loops[k].stride;
		for (q = p->boundary[c] + 1; q < k; q++)
			if (!p->loops[q].spatial)
				u[p->loops[q].dim] -= (int64_t)((p->loops[q].end - 1) *
								p->loops[q].stride);
		for (j = 0; j < n_v; j++) {
			for (d = 0; d < XD; d++)
				disp[d] = u[d] - vs[j][d];
			if (tiles_meet(p, &p->geom[t], c, disp))
				return true;
		}
	}
	return false;
}

/*
 * The row length of the mesh the children of link (t, c, par) sit on when
 * they may take their delta from a neighbour (semantics 2.4, link
 * transfers), else 0. Links are tried for a read-only tensor delivered to
 * storage children through the spatial loops of one level, unless that
 * level opts the tensor out: the row is the longer of the level's physical
 * fan-out along X and the product of its Spatial-X loops.
 */
static uint64_t link_mesh_x(const struct xplan *p, unsigned t, int c, int par)
{
	const struct spec_mapping *m = p->s->mapping;
	int bc, bp, k, b = -1;
	uint64_t logical_x = 1, phys, H;
	unsigned kl[SPEC_MAX_LOOPS], n_kl = 0;

	if (c < 0 || par < 0 || p->geom[t].read_write || (m->levels[c].no_temporal_reuse_mask >> t & 1))
		return 0;
	bc = p->boundary[c];
	bp = p->boundary[par];
	for (k = bp; k > bc; k--) {
		if (!p->loops[k].spatial)
			continue;
		if (b >= 0 && (int)p->loops[k].level != b)
			return 0;
		b = (int)p->loops[k].level;
		kl[n_kl++] = (unsigned)k;
		if (m->loops[k].spacetime == SPEC_SPATIAL_X)
			logical_x *= p->loops[k].end;
	}
	if (b < 0 || (m->levels[b].no_link_transfer_mask >> t & 1))
		return 0;
	phys = p->s->arch.levels[b].fanout_x;
	H = phys > logical_x ? phys : logical_x;
	return links_can_happen(p, t, c, kl, n_kl, H) ? H : 0;
}

/*
 * Set up link (t, c, par). With 'collapse', spatial loops whose dimension
 * does not index 't' are left out of the walk: the instances they separate
 * hold identical tiles at every step (and, where multicast is on, merge
 * into one message), so their counts are the walked ones times 'rep_*'.
 * Children that may use links are all walked (their neighbours matter), and
 * so are the loops of a dimension that residuals clip (their instances are
 * not all there at every step).
 */
static void link_init(struct xlink *lk, const struct xplan *p, unsigned t, int c, int par,
		      bool collapse)
{
	const struct spec_mapping *m = p->s->mapping;
	uint32_t dims = p->geom[t].dim_mask;
	int k;

	memset(lk, 0, sizeof(*lk));
	lk->t = t;
	lk->c = c;
	lk->p = par;
	lk->bc = c < 0 ? -1 : p->boundary[c];
	lk->bp = par < 0 ? (int)p->n_loops - 1 : p->boundary[par];
	lk->rep_par = lk->rep_kid = 1;
	lk->mesh_x = link_mesh_x(p, t, c, par);
	for (k = (int)p->n_loops - 1; k > lk->bc; k--) {
		const struct xloop *lp = &p->loops[k];
		bool irrelevant = collapse && !(dims & (1u << lp->dim)) && !p->clipped[lp->dim];
		if (!lp->spatial)
			odo_add(&lk->tick, (unsigned)k);
		else if (k > lk->bp && irrelevant)
			lk->rep_par *= lp->end;
		else if (k > lk->bp)
			odo_add(&lk->par, (unsigned)k);
		else if (irrelevant && !lk->mesh_x &&
			 !(m->levels[lp->level].no_multicast_mask & (1u << t)))
			lk->rep_kid *= lp->end;
		else
			odo_add(&lk->kid, (unsigned)k);
	}
	lk->n_pinst = odo_count(&lk->par, p);
	lk->n_kids = odo_count(&lk->kid, p);
	if (lk->n_kids < 2)
		lk->mesh_x = 0;
	lk->no_reuse = c >= 0 && (m->levels[c].no_temporal_reuse_mask & (1u << t));
}

static void link_run_init(struct link_run *lr, struct xrun *x, const struct xlink *lk)
{
	const struct xplan *p = &x->plan;
	const struct xgeom *g = &p->geom[lk->t];
	uint64_t n_inst = lk->n_pinst * lk->n_kids, i;
	unsigned d;

	memset(lr, 0, sizeof(*lr));
	lr->x = x;
	lr->lk = lk;
	exec_tlayout_init(&lr->tl, g, p->exact);
	for (d = 0; d < p->n_dims; d++)
		lr->ext[d] = xplan_level_extent(p, lk->c, d);
	lr->track_held = lk->c >= 0 && (g->read_write || x->opt->all_partitions);
	lr->sparse = x->sp && !lk->dense;
	if (lk->c >= 0) {
		lr->state = xcalloc(n_inst, sizeof(*lr->state));
		lr->state_sets = xcalloc(n_inst, sizeof(*lr->state_sets));
		exec_tset_array_init(lr->state_sets, n_inst, &lr->tl);
		for (i = 0; i < n_inst; i++)
			lr->state[i].last = lr->state_sets[i];
	}
	lr->slots = xcalloc(lk->n_kids, sizeof(*lr->slots));
	lr->slot_sets = xcalloc(4 * lk->n_kids, sizeof(*lr->slot_sets));
	exec_tset_array_init(lr->slot_sets, 4 * lk->n_kids, &lr->tl);
	for (i = 0; i < lk->n_kids; i++) {
		lr->slots[i].tile = lr->slot_sets[4 * i];
		lr->slots[i].prev = lr->slot_sets[4 * i + 1];
		lr->slots[i].hull = lr->slot_sets[4 * i + 2];
		lr->slots[i].hole = lr->slot_sets[4 * i + 3];
	}
	hashmap_init(&lr->classes, sizeof(uint64_t), sizeof(int64_t));
	lr->next_class = xcalloc(lk->n_kids, sizeof(*lr->next_class));
	lr->cls = xcalloc(lk->n_kids, sizeof(*lr->cls));
	lr->mult = xcalloc(lk->n_kids, sizeof(*lr->mult));
	lr->spatial_skip = lr->sparse && exec_sparse_link_has_spatial(x->sp, lk);
	if (lr->spatial_skip || lk->mesh_x) {
		lr->cls_all = xcalloc(lk->n_kids, sizeof(*lr->cls_all));
		lr->mult_all = xcalloc(lk->n_kids, sizeof(*lr->mult_all));
		lr->act = xcalloc(lk->n_kids, sizeof(*lr->act));
	}
	lr->msgs = xcalloc(lk->n_kids, sizeof(*lr->msgs));
	lr->pool = xcalloc(2 * lk->n_kids, sizeof(*lr->pool));
}

static void link_run_release(struct link_run *lr)
{
	uint64_t n_inst = lr->lk->n_pinst * lr->lk->n_kids, i;

	if (lr->state) {
		for (i = 0; i < n_inst; i++)
			free(lr->state[i].held);
		exec_tset_array_release(lr->state_sets, n_inst);
	}
	free(lr->state);
	free(lr->state_sets);
	exec_tset_array_release(lr->slot_sets, 4 * lr->lk->n_kids);
	free(lr->slot_sets);
	free(lr->slots);
	hashmap_release(&lr->classes);
	free(lr->next_class);
	free(lr->cls);
	free(lr->mult);
	free(lr->cls_all);
	free(lr->mult_all);
	free(lr->act);
	free(lr->msgs);
	free(lr->pool);
}

/* ------------------------------------------------------- one child's step */

static bool tr_is_zero(const int64_t *t, unsigned n)
{
	unsigned r;
	for (r = 0; r < n; r++)
		if (t[r])
			return false;
	return true;
}

/*
 * Apply the retention rule of the child's buffer: decide whether the new
 * tile 'ks->tile' reuses the overlap with the held one (sets ks->full and
 * ks->prev), then hold the new tile.
 */
static void retain(struct link_run *lr, struct kid_state *st, struct kid_slot *ks)
{
	const struct tlayout *tl = &lr->tl;
	int64_t t[XR];

	ks->full = true;
	ks->has_prev = false;
	if (!lr->state || lr->lk->no_reuse || st->last.empty) {
		if (lr->state)
			exec_tset_copy(&st->last, &ks->tile, tl);
		return;
	}
	exec_tset_copy(&ks->prev, &st->last, tl);
	ks->has_prev = true;
	exec_tset_translation(&st->last, &ks->tile, tl, t);
	if (lr->x->opt->retention == EXEC_RETAIN_OVERLAP || tr_is_zero(t, tl->n_ranks)) {
		ks->full = false;
	} else if (!st->has_tr) {
		ks->full = false;
		st->has_tr = true;
		memcpy(st->tr, t, sizeof(st->tr));
	} else if (!memcmp(t, st->tr, tl->n_ranks * sizeof(t[0]))) {
		ks->full = false;
	} else {
		st->has_tr = false;
	}
	exec_tset_copy(&st->last, &ks->tile, tl);
}

static void mark_point(void *ctx, uint64_t lin)
{
	struct link_run *lr = ctx;
	uint64_t bit = 1ull << (lin % 64);
	if (!(lr->pending_held[lin / 64] & bit)) {
		lr->pending_held[lin / 64] |= bit;
		lr->pending_new++;
	}
}

/* Record the points the child now holds for the first time. */
static void track_partition(struct link_run *lr, struct kid_state *st, struct kid_slot *ks,
			    struct xacc *a)
{
	const struct xgeom *g = &lr->x->plan.geom[lr->lk->t];

	if (!st->held)
		st->held = xcalloc((g->size + 63) / 64, sizeof(uint64_t));
	if (!lr->tl.exact && ks->delta == 1 && exec_tset_size(&ks->tile, &lr->tl) == 1) {
		uint64_t lin = 0;
		unsigned r;
		for (r = 0; r < g->n_ranks; r++)
			lin += (uint64_t)ks->tile.lo[r] * g->stride[r];
		if (!(st->held[lin / 64] >> (lin % 64) & 1)) {
			st->held[lin / 64] |= 1ull << (lin % 64);
			a->partition++;
		}
		return;
	}
	lr->pending_held = st->held;
	lr->pending_new = 0;
	exec_tset_diff_foreach(&ks->tile, ks->full ? NULL : &ks->prev, &lr->tl, g, mark_point, lr);
	a->partition += lr->pending_new;
}

/* Compute the tile, delta and canonical form of child 'ks' at op origin 'x'. */
static void child_step(struct link_run *lr, struct kid_slot *ks, uint64_t inst,
		       const int64_t *xo, bool need_canon)
{
	const struct xplan *p = &lr->x->plan;
	const struct xgeom *g = &p->geom[lr->lk->t];
	struct kid_state *st = lr->state ? &lr->state[inst] : NULL;
	struct xacc *a = lr->lk->c >= 0 ? &lr->la : NULL;
	int64_t hi[XD];
	uint64_t size;
	unsigned d;

	ks->valid = true;
	ks->inst = inst;
	for (d = 0; d < p->n_dims; d++) {
		if ((uint64_t)xo[d] >= p->bound[d]) {
			ks->valid = ks->has_prev = false;
			return;
		}
		ks->op_lo[d] = xo[d];
		hi[d] = xo[d] + (int64_t)lr->ext[d] - 1;
		if ((uint64_t)hi[d] >= p->bound[d])
			hi[d] = (int64_t)p->bound[d] - 1;
	}
	exec_tset_project(&ks->tile, &lr->tl, g, ks->op_lo, hi);
	if (st) {
		retain(lr, st, ks);
		if (!st->seen_any) {
			st->seen_any = true;
			a->instances++;
		}
	}
	size = exec_tset_size(&ks->tile, &lr->tl);
	if (a && size > a->tile_shape)
		a->tile_shape = size;
	if (ks->full) {
		ks->delta = size;
		if (need_canon) {
			exec_tset_copy(&ks->hull, &ks->tile, &lr->tl);
			ks->hole.empty = true;
		}
	} else if (need_canon) {
		ks->delta = exec_tset_diff_canon(&ks->tile, &ks->prev, &lr->tl, &ks->hull, &ks->hole);
	} else {
		ks->delta = size - exec_tset_inter_size(&ks->tile, &ks->prev, &lr->tl);
	}
	if (need_canon)
		ks->hash = ks->delta ? hash_combine(exec_tset_hash(&ks->hull, &lr->tl),
						    exec_tset_hash(&ks->hole, &lr->tl)) : 0;
	if (a)
		a->recv += ks->delta;
	lr->child_words += ks->delta;
	lr->x->out->n_events++;
}

/* ------------------------------------------------------- grouping (multicast) */

static bool same_delta(const struct link_run *lr, const struct kid_slot *a,
		       const struct kid_slot *b)
{
	return a->delta == b->delta && a->hash == b->hash &&
	       exec_tset_equal(&a->hull, &b->hull, &lr->tl) && exec_tset_equal(&a->hole, &b->hole, &lr->tl);
}

/* Up to this many children, classes are found by scanning them, not by hashing. */
#define CLASS_SCAN_MAX 16

/*
 * The class of child 'i' among the classes found so far: the first of
 * them with an identical delta, or 'i' itself as a new class. Few
 * children: the list of classes is scanned; many: lr->classes maps a
 * delta's hash to the first class with it and next_class chains the others
 * with that hash, in index order.
 */
static int64_t class_of(struct link_run *lr, uint64_t i, int64_t *scan, size_t *n_scan)
{
	const struct kid_slot *a = &lr->slots[i];
	int64_t *first, c;
	bool is_new;
	size_t k;

	if (scan) {
		for (k = 0; k < *n_scan; k++)
			if (same_delta(lr, a, &lr->slots[scan[k]]))
				return scan[k];
		scan[(*n_scan)++] = (int64_t)i;
		return (int64_t)i;
	}
	lr->next_class[i] = -1;
	first = hashmap_put(&lr->classes, &a->hash, &is_new);
	if (is_new) {
		*first = (int64_t)i;
		return (int64_t)i;
	}
	for (c = *first;; c = lr->next_class[c]) {
		if (same_delta(lr, a, &lr->slots[c]))
			return c;
		if (lr->next_class[c] < 0) {
			lr->next_class[c] = (int64_t)i;
			return (int64_t)i;
		}
	}
}

/*
 * Give every valid child with a non-empty delta the index of the first
 * child with an identical delta (its class); -1 for the others.
 */
static void classify_leaves(struct link_run *lr)
{
	uint64_t nk = lr->lk->n_kids, i;
	int64_t scan[CLASS_SCAN_MAX];
	size_t n_scan = 0;

	if (nk > CLASS_SCAN_MAX)
		hashmap_clear(&lr->classes);
	for (i = 0; i < nk; i++) {
		const struct kid_slot *a = &lr->slots[i];
		lr->cls[i] = -1;
		if (a->valid && a->delta && !(lr->out_pass && a->out))
			lr->cls[i] = class_of(lr, i, nk > CLASS_SCAN_MAX ? NULL : scan, &n_scan);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;
	unsigned i;

	if (x->inst != y->inst)
		return x->inst < y->inst ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (i = 0; i < x->n; i++)
		if (x->ids[i] >> 1 != y->ids[i] >> 1)
			return x->ids[i] >> 1 < y->ids[i] >> 1 ? -1 : 1;
	return x->rep < y->rep ? -1 : x->rep > y->rep;
}

/* Do x and y carry the same classes (whatever their idle marks)? */
static bool same_msg(const struct msg *x, const struct msg *y)
{
	unsigned i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (x->ids[i] >> 1 != y->ids[i] >> 1)
			return false;
	return true;
}

/* Index of the node that sends to child slot 's' on the hop of level 'b'. */
static uint64_t hop_node(const struct link_run *lr, uint64_t s, unsigned b)
{
	const struct xplan *p = &lr->x->plan;
	const struct odo *kid = &lr->lk->kid;
	uint64_t v = 0, rest = s, digit[SPEC_MAX_LOOPS];
	int i;

	for (i = (int)kid->n - 1; i >= 0; i--) {
		uint64_t e = p->loops[kid->loop[i]].end;
		digit[i] = rest % e;
		rest /= e;
	}
	for (i = 0; i < (int)kid->n; i++)
		if (p->loops[kid->loop[i]].level > b)
			v = v * p->loops[kid->loop[i]].end + digit[i];
	return v;
}

/*
 * One hop of level 'b': every node forwards the distinct messages of its
 * children once (unless multicast is off there), as one message upwards.
 * A message sent once for several children serves them all: each of its
 * occurrences is idle only when it is idle in every copy (occurrences of
 * one class pair up active first, so the busiest copy decides).
 */
static size_t hop(struct link_run *lr, struct msg *m, size_t n, unsigned b, int64_t *pool)
{
	const struct spec_mapping *map = lr->x->plan.s->mapping;
	bool no_mc = map->levels[b].no_multicast_mask & (1u << lr->lk->t);
	size_t i, j, k, out = 0, at = 0, kept = 0;

	for (i = 0; i < n; i++)
		m[i].inst = hop_node(lr, m[i].rep, b);
	qsort(m, n, sizeof(*m), cmp_msg);
	for (i = 0; i < n; i = j) {
		struct msg merged = { m[i].rep, m[i].inst, 0, pool + at };
		for (j = i; j < n && m[j].inst == m[i].inst; j++) {
			if (j > i && !no_mc && same_msg(&m[j], &m[j - 1])) {
				for (k = 0; k < m[j].n; k++)
					merged.ids[kept + k] &= m[j].ids[k] | ~(int64_t)1;
				continue;
			}
			kept = merged.n;
			memcpy(merged.ids + merged.n, m[j].ids, m[j].n * sizeof(*pool));
			merged.n += m[j].n;
		}
		qsort(merged.ids, merged.n, sizeof(*merged.ids), cmp_i64);
		at += merged.n;
		m[out++] = merged;
	}
	return out;
}

/*
 * Multicast through the spatial hierarchy between the child and parent
 * levels: leaves are the children's deltas (identical deltas form one
 * class); each hop forwards every distinct message of its children once.
 * Sets lr->mult[s] to the times the parent reads child class 's' and
 * returns the words it reads. Under a spatial skip a leaf is idle when its
 * child is skipped, and lr->act[s] counts the reads of class 's' that
 * serve a child with work.
 */
static uint64_t multicast(struct link_run *lr)
{
	const struct xplan *p = &lr->x->plan;
	const struct odo *kid = &lr->lk->kid;
	uint64_t nk = lr->lk->n_kids, s, words = 0;
	size_t n = 0, i;
	unsigned b, k;
	int64_t *pool_a = lr->pool, *pool_b = lr->pool + nk;

	classify_leaves(lr);
	for (s = 0; s < nk; s++) {
		lr->mult[s] = 0;
		if (lr->cls[s] < 0)
			continue;
		pool_a[n] = 2 * lr->cls[s] + (lr->spatial_skip && lr->slots[s].skipped);
		lr->msgs[n] = (struct msg){ s, 0, 1, pool_a + n };
		n++;
	}
	if (lr->act)
		memset(lr->act, 0, nk * sizeof(*lr->act));
	for (b = 0; b < p->n_levels && n > 1; b++) {
		bool has = false;
		for (k = 0; k < kid->n; k++)
			has |= p->loops[kid->loop[k]].level == b;
		if (!has)
			continue;
		n = hop(lr, lr->msgs, n, b, pool_b);
		pool_b = pool_a;
		pool_a = lr->msgs[0].ids;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < lr->msgs[i].n; k++) {
			int64_t id = lr->msgs[i].ids[k];
			lr->mult[id >> 1]++;
			words += lr->slots[id >> 1].delta;
			if (lr->act && !(id & 1))
				lr->act[id >> 1]++;
		}
	return words;
}

/* ------------------------------------------------------------ the walk */

/*
 * Under a spatial skip, the reads of grouping every child (the algorithmic
 * reads, kept in cls_all / mult_all) and, of those, the ones that serve a
 * child given work (cls / mult): a skip removes a multicast read only when
 * every child it serves is idle, never splits one into several. The
 * children with work of one class take the first of them as their class,
 * which carries the class's reads. Returns the words the parent would
 * read for every child.
 */
static uint64_t multicast_skipping(struct link_run *lr)
{
	const struct xlink *lk = lr->lk;
	int64_t *first = lr->pool;     /* free once multicast() is done */
	uint64_t words, i;

	for (i = 0; i < lk->n_kids; i++) {
		struct kid_slot *ks = &lr->slots[i];
		ks->skipped = ks->valid && ks->delta && exec_sparse_kid_skipped(lr->x, lk, ks->op_lo);
		ks->out = ks->skipped;
	}
	words = multicast(lr);
	memcpy(lr->cls_all, lr->cls, lk->n_kids * sizeof(*lr->cls));
	memcpy(lr->mult_all, lr->mult, lk->n_kids * sizeof(*lr->mult));
	for (i = 0; i < lk->n_kids; i++) {
		first[i] = -1;
		lr->cls[i] = -1;
		lr->mult[i] = 0;
	}
	for (i = 0; i < lk->n_kids; i++) {
		int64_t c = lr->cls_all[i];
		if (c < 0 || lr->slots[i].out)
			continue;
		if (first[c] < 0) {
			first[c] = (int64_t)i;
			lr->mult[i] = lr->act[c];
		}
		lr->cls[i] = first[c];
	}
	return words;
}

/*
 * Reads the parent skipped for the class of child 'i' (when 'i' represents
 * it among all children): those every child needed minus those the
 * children given work still need.
 */
static unsigned skipped_reads(const struct link_run *lr, uint64_t i)
{
	uint64_t j, act = 0;

	if (lr->cls_all[i] != (int64_t)i)
		return 0;
	for (j = 0; j < lr->lk->n_kids; j++)
		if (lr->cls_all[j] == (int64_t)i && lr->cls[j] >= 0) {
			act = lr->mult[lr->cls[j]];
			break;
		}
	return lr->mult_all[i] > act ? (unsigned)(lr->mult_all[i] - act) : 0;
}

/* ------------------------------------------------------- link transfers */

/* Does 'prev', a neighbour's tile of the previous step, hold all of the delta of 'ks'? */
static bool holds_delta(const struct link_run *lr, const struct kid_slot *ks,
			const struct tset *prev)
{
	uint64_t in = exec_tset_inter_size(&ks->tile, prev, &lr->tl);

	if (!ks->full)
		in -= exec_tset_inter3_size(&ks->tile, &ks->prev, prev, &lr->tl);
	return in == ks->delta;
}

/*
 * Mark the children that a mesh neighbour can serve: one whose tile of the
 * previous step holds all of the child's delta (the neighbour reads it
 * from its buffer and sends it over the link). Children are laid out in
 * rows of lk->mesh_x (innermost spatial loop fastest); the neighbours are
 * left, right, up and down, without wrap-around. Returns the words covered.
 */
static uint64_t cover_by_neighbours(struct link_run *lr)
{
	uint64_t nk = lr->lk->n_kids, H = lr->lk->mesh_x, i, words = 0;

	for (i = 0; i < nk; i++) {
		struct kid_slot *ks = &lr->slots[i];
		int64_t nb[4];
		unsigned e;
		ks->covered = false;
		if (!ks->valid || !ks->delta)
			continue;
		nb[0] = i % H ? (int64_t)i - 1 : -1;
		nb[1] = i % H + 1 < H ? (int64_t)i + 1 : -1;
		nb[2] = i >= H ? (int64_t)(i - H) : -1;
		nb[3] = (int64_t)(i + H);
		for (e = 0; e < 4 && !ks->covered; e++) {
			const struct kid_slot *n;
			if (nb[e] < 0 || (uint64_t)nb[e] >= nk)
				continue;
			n = &lr->slots[nb[e]];
			ks->covered = n->valid && n->has_prev && holds_delta(lr, ks, &n->prev);
		}
		if (ks->covered)
			words += ks->delta;
	}
	return words;
}

/*
 * Multicast with link transfers: the children a neighbour can serve take
 * their delta from it, and the others are grouped as usual, but only when
 * that makes the parent read strictly less (Timeloop's rule). Returns the
 * words the parent reads.
 */
static uint64_t multicast_linking(struct link_run *lr)
{
	const struct xlink *lk = lr->lk;
	uint64_t words = multicast(lr), covered, linked, i;

	lr->linked_step = false;
	covered = cover_by_neighbours(lr);
	if (!covered)
		return words;
	memcpy(lr->cls_all, lr->cls, lk->n_kids * sizeof(*lr->cls));
	memcpy(lr->mult_all, lr->mult, lk->n_kids * sizeof(*lr->mult));
	for (i = 0; i < lk->n_kids; i++)
		lr->slots[i].out = lr->slots[i].covered;
	lr->out_pass = true;
	linked = multicast(lr);
	lr->out_pass = false;
	if (linked < words) {
		lr->linked_step = true;
		lr->peer += covered;
		return linked;
	}
	memcpy(lr->cls, lr->cls_all, lk->n_kids * sizeof(*lr->cls));
	memcpy(lr->mult, lr->mult_all, lk->n_kids * sizeof(*lr->mult));
	return words;
}

static void serve_parent(struct link_run *lr, uint64_t pinst)
{
	const struct xlink *lk = lr->lk;
	uint64_t words, i;

	if (lr->spatial_skip)
		words = multicast_skipping(lr);
	else if (lk->mesh_x)
		words = multicast_linking(lr);
	else
		words = lk->n_kids > 1 ? multicast(lr) : lr->slots[0].valid ? lr->slots[0].delta : 0;
	if (lk->n_kids == 1 && !lr->spatial_skip)
		lr->mult[0] = 1;
	lr->content += words;
	for (i = 0; i < lk->n_kids; i++) {
		struct kid_slot *ks = &lr->slots[i];
		struct kid_state *st = lr->state ? &lr->state[ks->inst] : NULL;
		if (!ks->valid || !ks->delta)
			continue;
		if (lr->sparse)
			exec_sparse_delivery(lr->x, lk, &lr->tl, &ks->tile, ks->full ? NULL : &ks->prev,
					     ks->op_lo, pinst, (unsigned)lr->mult[i],
					     lr->spatial_skip ? skipped_reads(lr, i) : 0,
					     lr->linked_step && ks->covered, st ? st->held : NULL);
		if (lr->track_held)
			track_partition(lr, st, ks, &lr->la);
	}
}

/* Add this link's sums, times the replicas left out of the walk. */
static void flush_link(struct link_run *lr)
{
	const struct xlink *lk = lr->lk;
	uint64_t rep = lk->rep_par * lk->rep_kid;

	if (lk->p >= 0) {
		struct xacc *pa = xrun_acc(lr->x, (unsigned)lk->p, lk->t);
		pa->content += lr->content * lk->rep_par;
		pa->child_words += lr->child_words * rep;
		pa->linked += lr->peer * rep;
	}
	if (lk->c >= 0) {
		struct xacc *a = xrun_acc(lr->x, (unsigned)lk->c, lk->t);
		a->recv += lr->la.recv * rep;
		a->peer += lr->peer * rep;
		a->partition += lr->la.partition * rep;
		a->instances += lr->la.instances * rep;
		if (lr->la.tile_shape > a->tile_shape)
			a->tile_shape = lr->la.tile_shape;
	}
}

static void walk_link(struct xrun *x, struct xlink *lk)
{
	const struct xplan *p = &x->plan;
	struct link_run lr;
	int64_t bt[XD], bp[XD], bk[XD], xo[XD];
	bool need_canon = lk->n_kids > 1;
	unsigned d;

	link_run_init(&lr, x, lk);
	if (lr.sparse)
		exec_sparse_link_begin(x, lk);
	odo_reset(&lk->tick, bt);
	do {
		odo_reset(&lk->par, bp);
		do {
			uint64_t pinst = odo_value(&lk->par, p);
			odo_reset(&lk->kid, bk);
			do {
				uint64_t kv = odo_value(&lk->kid, p);
				for (d = 0; d < p->n_dims; d++)
					xo[d] = bt[d] + bp[d] + bk[d];
				child_step(&lr, &lr.slots[kv], pinst * lk->n_kids + kv, xo, need_canon);
			} while (odo_next(&lk->kid, p, bk));
			serve_parent(&lr, pinst);
		} while (odo_next(&lk->par, p, bp));
	} while (odo_next(&lk->tick, p, bt));
	if (lr.sparse)
		exec_sparse_link_end(x, lk);
	flush_link(&lr);
	link_run_release(&lr);
}

/*
 * The compute link of a dense tensor without multicast below its innermost
 * level: every op point reads (or updates) one word, so the count is the
 * number of op points and no walk is needed.
 */
static bool compute_link_is_trivial(const struct xrun *x, const struct xlink *lk)
{
	(void)x;
	return lk->c < 0 && lk->n_kids == 1 && lk->dense;
}

static uint64_t op_points(const struct xplan *p)
{
	uint64_t n = 1;
	unsigned d;
	for (d = 0; d < p->n_dims; d++)
		n *= p->bound[d];
	return n;
}

int exec_walk_all(struct xrun *x)
{
	const struct xplan *p = &x->plan;
	unsigned t, i;

	for (t = 0; t < p->n_tensors; t++) {
		for (i = 0; i <= p->n_chain[t]; i++) {
			struct xlink lk;
			int c = i == 0 ? -1 : p->chain[t][i - 1];
			int par = i < p->n_chain[t] ? p->chain[t][i] : -1;
			struct xlink probe = { 0 };
			bool dense;
			probe.t = t;
			probe.c = c;
			probe.p = par;
			dense = !x->sp || exec_sparse_link_is_dense(x->sp, &probe);
			link_init(&lk, p, t, c, par, dense);
			lk.dense = dense;
			if (compute_link_is_trivial(x, &lk)) {
				xrun_acc(x, (unsigned)par, t)->content += op_points(p) / lk.rep_kid;
				xrun_acc(x, (unsigned)par, t)->child_words += op_points(p);
				continue;
			}
			walk_link(x, &lk);
		}
	}
	return 0;
}
