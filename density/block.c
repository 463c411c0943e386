/*
 * Block-structured density: the tensor is cut into blocks of the spec's
 * block_shape from the origin (blocks at the far edge are clipped); exactly
 * K = round(rho B) of the B blocks are non-zero, a uniform K-subset, and a
 * non-zero block is non-zero at every point.
 *
 * A grid tile meets some blocks; a block meeting it in o points adds o when
 * non-zero. Along one rank a tile (or a parent and a child in it) meets at
 * most six kinds of blocks (the partial ones at either end, whole ones in
 * the middle), so the blocks a tile meets fall into a few groups of equal
 * overlap; tiles with the same groups form a class. The count of non-zero
 * blocks in each group follows from drawing the K non-zero blocks group by
 * group (a chain of hypergeometrics, over the states that occur), which
 * gives P(n) exactly. When that work would exceed the model's budget, a
 * class falls back to: J non-zero blocks among the k it meets exactly
 * (HG(J; K, k, B)), each holding the mean overlap s/k, J s/k split between
 * the integers around it so that the mean stays exact (P(empty) too). Under a constraint the groups
 * carry (child, rest-of-parent) overlaps and the chain tracks the parent's
 * total as well, for every parent total at once (kept in the model, as the
 * sparse analysis asks for one occupancy after another); when that joint
 * is too large, for the one O asked; over budget, the query falls back to
 * HG(n; O, s, S).
 */
#include "density/density_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void density_block_init(struct density_model *m)
{
	unsigned r;

	m->n_blocks = 1;
	for (r = 0; r < m->n_ranks; r++) {
		uint64_t b = m->spec.block_shape[r];
		if (b == 0)
			BUG("block extent 0 on rank %u", r);
		m->n_blocks *= (m->shape[r] + b - 1) / b;
	}
	m->n_nonzero_blocks = (uint64_t)llround(m->spec.density * (double)m->n_blocks);
	if (m->n_nonzero_blocks > m->n_blocks)
		m->n_nonzero_blocks = m->n_blocks;
}

/* ------------------------------------------------------- one rank's blocks */

/* 'count' blocks along one rank meeting the child in 'c' and the parent in 'p' coordinates. */
struct blk_ent {
	uint64_t c, p, count;
};

#define BLK_MAX_ENT 8

/* The blocks a (parent, child) pair of segments meets along one rank, sorted by (c, p). */
struct blk_sig {
	unsigned n;
	struct blk_ent e[BLK_MAX_ENT];
};

/* Add 'count' blocks of overlaps (c, p) to 'sig'. */
static void sig_add(struct blk_sig *sig, uint64_t c, uint64_t p, uint64_t count)
{
	unsigned i, k;

	if (count == 0 || p == 0)
		return;
	for (i = 0; i < sig->n; i++) {
		if (sig->e[i].c == c && sig->e[i].p == p) {
			sig->e[i].count += count;
			return;
		}
		if (sig->e[i].c > c || (sig->e[i].c == c && sig->e[i].p > p))
			break;
	}
	if (sig->n == BLK_MAX_ENT)
		BUG("more than %d kinds of blocks along a rank", BLK_MAX_ENT);
	for (k = sig->n++; k > i; k--)
		sig->e[k] = sig->e[k - 1];
	sig->e[i] = (struct blk_ent){ c, p, count };
}

/* Points of [x0, x0 + len) in block g (extent b) of a rank of extent D. */
static uint64_t overlap(uint64_t x0, uint64_t len, uint64_t g, uint64_t b, uint64_t D)
{
	uint64_t lo = g * b, hi = (g + 1) * b < D ? (g + 1) * b : D;
	uint64_t a = lo > x0 ? lo : x0, e = hi < x0 + len ? hi : x0 + len;

	return e > a ? e - a : 0;
}

/*
 * The signature of parent segment [px, px + pl) and child [cx, cx + cl)
 * inside it on a rank of extent D cut into blocks of b: the blocks meeting
 * the child (whole ones in the middle), then the parent's blocks left and
 * right of the child (whole ones but the ends).
 */
static void rank_sig(uint64_t D, uint64_t b, uint64_t px, uint64_t pl, uint64_t cx, uint64_t cl,
		     struct blk_sig *sig)
{
	uint64_t g0 = px / b, g1 = (px + pl - 1) / b, c0 = cx / b, c1 = (cx + cl - 1) / b;

	memset(sig, 0, sizeof(*sig));
	sig_add(sig, overlap(cx, cl, c0, b, D), overlap(px, pl, c0, b, D), 1);
	if (c1 > c0) {
		sig_add(sig, overlap(cx, cl, c1, b, D), overlap(px, pl, c1, b, D), 1);
		sig_add(sig, b, b, c1 - c0 - 1);
	}
	if (g0 < c0) {
		sig_add(sig, 0, overlap(px, pl, g0, b, D), 1);
		sig_add(sig, 0, b, c0 - g0 - 1);
	}
	if (g1 > c1) {
		sig_add(sig, 0, overlap(px, pl, g1, b, D), 1);
		sig_add(sig, 0, b, g1 - c1 - 1);
	}
}

/* A signature and the number of (parent, child) pairs of one rank that have it. */
struct blk_bucket {
	struct blk_sig sig;
	double weight;
};

struct blk_rank {
	size_t n, alloc;
	struct blk_bucket *b;
};

static void bucket_add(struct blk_rank *br, const struct blk_sig *sig)
{
	size_t i;

	for (i = 0; i < br->n; i++)
		if (memcmp(&br->b[i].sig, sig, sizeof(*sig)) == 0) {
			br->b[i].weight += 1.0;
			return;
		}
	XGROW(br->b, br->n + 1, br->alloc);
	br->b[br->n].sig = *sig;
	br->b[br->n++].weight = 1.0;
}

/*
 * The signatures of rank r: parents of extent A cut from the origin, and
 * the children of extent a (<= A) cut from each parent's origin (A = a:
 * the tiles alone).
 */
static void rank_buckets(const struct density_model *m, unsigned r, uint64_t A, uint64_t a,
			 struct blk_rank *out)
{
	uint64_t D = m->shape[r], b = m->spec.block_shape[r], px, cx;
	struct blk_sig sig;

	memset(out, 0, sizeof(*out));
	for (px = 0; px < D; px += A) {
		uint64_t pl = A < D - px ? A : D - px;
		for (cx = px; cx < px + pl; cx += a) {
			uint64_t cl = a < px + pl - cx ? a : px + pl - cx;
			rank_sig(D, b, px, pl, cx, cl, &sig);
			bucket_add(out, &sig);
		}
	}
}

/* ------------------------------------------------------ the selection chain */

/* 'count' blocks each meeting the child in 'child' points and the rest of the parent in 'rest'. */
struct blk_group {
	uint64_t count, child, rest;
};

/* A class of tiles (or pairs): its groups and how many tiles (pairs) share them. */
struct blk_class {
	size_t n, alloc;
	struct blk_group *g;
	double weight;
};

static void class_add(struct blk_class *cl, uint64_t count, uint64_t child, uint64_t rest)
{
	size_t i;

	for (i = 0; i < cl->n; i++)
		if (cl->g[i].child == child && cl->g[i].rest == rest) {
			cl->g[i].count += count;
			return;
		}
	XGROW(cl->g, cl->n + 1, cl->alloc);
	cl->g[cl->n++] = (struct blk_group){ count, child, rest };
}

static int cmp_count(const void *a, const void *b)
{
	const struct blk_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	return x->rest < y->rest ? -1 : x->rest > y->rest;
}

/*
 * What one chain computes: acc[n] for n = 0 .. n_cap; constrained, the
 * parent holding O; with 'all_t', acc[n * (O + 1) + t] for every parent
 * count t <= O.
 */
struct blk_query {
	uint64_t n_blocks, K;          /* population and non-zero blocks */
	bool constrained, all_t;
	uint64_t O;
	uint64_t n_cap;
	double *acc;
	double budget;                 /* operations left */
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A state of the chain: J non-zero blocks so far, n in the child, t in the parent. */
struct chain_ent {
	uint64_t J, n, t;
	double p;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct chain_ent *x = a, *y = b;

	if (x->J != y->J)
		return x->J < y->J ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Sort 'v' (n entries) and merge equal states; returns the new count. */
static size_t merge_states(struct chain_ent *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_ent);
	for (i = 0; i < n; i++) {
		if (k && cmp_ent(&v[k - 1], &v[i]) == 0)
			v[k - 1].p += v[i].p;
		else
			v[k++] = v[i];
	}
	return k;
}

/*
 * Operations the chain over the groups of 'cl' (sorted) would take: per
 * group, its states times its choices, the states bounded both by the
 * (J, n, t) grid and by the product of the earlier groups' choices.
 */
static double chain_work(const struct blk_query *q, const struct blk_class *cl)
{
	double work = 0.0, nt = q->constrained ? (double)q->O + 1 : 1.0, prod = 1.0;
	uint64_t blocks = 0, points = 0;
	size_t i;

	for (i = 0; i < cl->n; i++) {
		double grid = (double)(min_u64(q->K, blocks) + 1) *
			      (double)(min_u64(q->n_cap, points) + 1) * nt;
		double states = grid < prod ? grid : prod;
		double choices = (double)(min_u64(cl->g[i].count, q->K) + 1);
		work += states * (choices + 2.0 + log2(states + 1.0));
		prod *= choices;
		blocks += cl->g[i].count;
		points += cl->g[i].count * cl->g[i].child;
	}
	return work;
}

/*
 * Add to q->acc[n] the class weight times P(child = n) (constrained: times
 * P(child = n, parent = O)): the K non-zero blocks are drawn group by group,
 * a group of c blocks out of the 'pop' not yet seen taking
 * HG(j; K - J, c, pop) of them when J went to the earlier groups. The
 * states (J, n, t) that occur are kept in a sorted list; the largest group
 * comes last and goes straight into acc (under a constraint only its j
 * that makes the parent hold O). Returns false, without adding, when the
 * work would exceed the budget.
 */
static bool chain(struct blk_query *q, struct blk_class *cl)
{
	struct density_dist hg = DENSITY_DIST_INIT;
	struct chain_ent *st, *nx = NULL;
	size_t n_st = 1, n_nx, a_nx = 0, i, e;
	uint64_t pop = q->n_blocks, hg_J = UINT64_MAX, j;
	double work;

	qsort(cl->g, cl->n, sizeof(*cl->g), cmp_count);
	work = chain_work(q, cl);
	if (work > q->budget)
		return false;
	q->budget -= work;
	st = xmalloc(sizeof(*st));
	st[0] = (struct chain_ent){ 0, 0, 0, 1.0 };
	for (i = 0; i < cl->n; i++) {
		const struct blk_group *g = &cl->g[i];
		bool last = i + 1 == cl->n;
		n_nx = 0;
		hg_J = UINT64_MAX;
		for (e = 0; e < n_st; e++) {
			const struct chain_ent *s = &st[e];
			if (q->K - s->J > pop)
				continue;
			if (s->J != hg_J) {
				density_hg_dist(pop, q->K - s->J, g->count, &hg);
				hg_J = s->J;
			}
			if (last && q->constrained && !q->all_t) {
				uint64_t step = g->child + g->rest;
				if ((q->O - s->t) % step == 0) {
					j = (q->O - s->t) / step;
					if (s->n + j * g->child <= q->n_cap)
						q->acc[s->n + j * g->child] +=
							cl->weight * s->p * density_dist_at(&hg, j);
				}
				continue;
			}
			for (j = hg.lo; j < hg.lo + hg.n; j++) {
				uint64_t nn = s->n + j * g->child;
				uint64_t tt = q->constrained ? s->t + j * (g->child + g->rest) : 0;
				double p = s->p * hg.p[j - hg.lo];
				if (nn > q->n_cap || (q->constrained && tt > q->O))
					break;
				if (last) {
					q->acc[q->all_t ? nn * (q->O + 1) + tt : nn] += cl->weight * p;
					continue;
				}
				XGROW(nx, n_nx + 1, a_nx);
				nx[n_nx++] = (struct chain_ent){ s->J + j, nn, tt, p };
			}
		}
		free(st);
		st = nx;
		n_st = last ? 0 : merge_states(nx, n_nx);
		nx = NULL;
		a_nx = 0;
		pop -= g->count;
	}
	free(st);
	density_dist_release(&hg);
	return true;
}

/*
 * The fallback of an unconstrained class: J ~ HG(J; K, k, B) non-zero
 * blocks among the k it meets, each holding the mean overlap s/k.
 */
static void mean_overlap(const struct blk_query *q, const struct blk_class *cl)
{
	struct density_dist hg = DENSITY_DIST_INIT;
	uint64_t k = 0, s = 0, J;
	size_t i;

	for (i = 0; i < cl->n; i++) {
		k += cl->g[i].count;
		s += cl->g[i].count * cl->g[i].child;
	}
	density_hg_dist(q->n_blocks, q->K, k, &hg);
	for (J = hg.lo; J < hg.lo + hg.n; J++) {
		double x = (double)J * (double)s / (double)k, f = floor(x), p = hg.p[J - hg.lo];
		uint64_t lo = (uint64_t)f;
		if (lo > q->n_cap)
			lo = q->n_cap;
		q->acc[lo] += cl->weight * p * (1.0 - (x - f));
		if (x > f && lo + 1 <= q->n_cap)
			q->acc[lo + 1] += cl->weight * p * (x - f);
	}
	density_dist_release(&hg);
}

/* ------------------------------------------------------------- the classes */

/*
 * Call 'fn' on every class: the product over ranks of the per-rank
 * signatures of parents 'pe' and children 'ce'. Returns false as soon as
 * 'fn' does.
 */
static bool for_classes(const struct density_model *m, const uint64_t *pe, const uint64_t *ce,
			bool (*fn)(struct blk_query *q, struct blk_class *cl), struct blk_query *q)
{
	struct blk_rank ranks[SPEC_MAX_TENSOR_RANKS];
	size_t idx[SPEC_MAX_TENSOR_RANKS] = { 0 };
	struct blk_class cl = { 0 };
	bool ok = true;
	unsigned r;

	for (r = 0; r < m->n_ranks; r++)
		rank_buckets(m, r, pe[r], ce[r], &ranks[r]);
	while (ok) {
		struct blk_group *prod = NULL, *next = NULL;
		size_t n_prod = 1, a_prod = 0, n_next, a_next = 0, i, k;
		XGROW(prod, 1, a_prod);
		prod[0] = (struct blk_group){ 1, 1, 1 };   /* (count, child, parent) */
		cl.weight = 1.0;
		for (r = 0; r < m->n_ranks; r++) {
			const struct blk_bucket *bk = &ranks[r].b[idx[r]];
			cl.weight *= bk->weight;
			n_next = 0;
			for (i = 0; i < n_prod; i++)
				for (k = 0; k < bk->sig.n; k++) {
					XGROW(next, n_next + 1, a_next);
					next[n_next++] = (struct blk_group){
						prod[i].count * bk->sig.e[k].count,
						prod[i].child * bk->sig.e[k].c,
						prod[i].rest * bk->sig.e[k].p };
				}
			free(prod);
			prod = next;
			n_prod = n_next;
			a_prod = a_next;
			next = NULL;
			a_next = 0;
		}
		cl.n = 0;
		for (i = 0; i < n_prod; i++)
			class_add(&cl, prod[i].count, prod[i].child, prod[i].rest - prod[i].child);
		free(prod);
		ok = fn(q, &cl);
		for (r = 0; r < m->n_ranks && ++idx[r] == ranks[r].n; r++)
			idx[r] = 0;
		if (r == m->n_ranks)
			break;
	}
	for (r = 0; r < m->n_ranks; r++)
		free(ranks[r].b);
	free(cl.g);
	return ok;
}

static bool tile_class(struct blk_query *q, struct blk_class *cl)
{
	if (!chain(q, cl))
		mean_overlap(q, cl);
	return true;
}

static bool pair_class(struct blk_query *q, struct blk_class *cl)
{
	return chain(q, cl);
}

/* acc[0 .. n] as a distribution normalized to 1; false when it sums to 0. */
static bool to_dist(const double *acc, uint64_t n, struct density_dist *out)
{
	double sum = 0.0;
	uint64_t i;

	for (i = 0; i <= n; i++)
		sum += acc[i];
	if (sum <= 0.0)
		return false;
	density_dist_zero(out, 0, (size_t)n + 1);
	memcpy(out->p, acc, ((size_t)n + 1) * sizeof(double));
	density_dist_scale(out, sum);
	density_dist_trim(out);
	return true;
}

/*
 * P(child = n, parent = t) for every t of children 'ce' under parents
 * 'pe', computed once per model; its 'num' stays NULL when it would be too
 * large or exceed the budget.
 */
static const struct density_joint *joint_of(const struct density_model *m, const uint64_t *pe,
					     const uint64_t *ce)
{
	struct blk_query q = { m->n_blocks, m->n_nonzero_blocks, true, true, 0, 0, NULL,
			       m->work_budget };
	struct density_joint *j;
	uint64_t pts = 1, ppts = 1;
	bool is_new;
	unsigned r;

	j = density_joint_get(m, pe, ce, &is_new);
	if (!is_new)
		return j;
	for (r = 0; r < m->n_ranks; r++) {
		pts *= ce[r];
		ppts *= pe[r];
	}
	q.O = ppts;
	q.n_cap = pts;
	j->n1 = (size_t)pts + 1;
	j->t1 = (size_t)ppts + 1;
	if ((double)j->n1 * (double)j->t1 > (double)m->joint_max_entries)
		return j;
	q.acc = xcalloc(j->n1 * j->t1, sizeof(double));
	if (for_classes(m, pe, ce, pair_class, &q))
		j->num = q.acc;
	else
		free(q.acc);
	return j;
}

static void block_distribution(const struct density_model *m, const struct density_tile *t,
			       const struct density_constraint *c, struct density_dist *out)
{
	struct blk_query q = { m->n_blocks, m->n_nonzero_blocks, c != NULL, false, 0, 0, NULL,
			       m->work_budget };
	uint64_t ce[SPEC_MAX_TENSOR_RANKS], pop;
	const struct density_joint *j;
	struct density_tile child;
	bool ok;
	unsigned r;

	density_dist_release(out);
	if (!c) {
		q.n_cap = density_tile_points(t);
		q.acc = xcalloc((size_t)q.n_cap + 1, sizeof(double));
		for_classes(m, t->extent, t->extent, tile_class, &q);
		to_dist(q.acc, q.n_cap, out);
		free(q.acc);
		return;
	}
	if (c->occupancy == 0) {
		density_dist_point(out, 0);
		return;
	}
	for (r = 0; r < m->n_ranks; r++)
		ce[r] = min_u64(t->extent[r], c->parent.extent[r]);
	child = density_tile_box(m->n_ranks, ce);
	q.O = c->occupancy;
	q.n_cap = min_u64(density_tile_points(&child), q.O);
	j = joint_of(m, c->parent.extent, ce);
	if (j->num) {
		ok = density_joint_dist(j, q.O, q.n_cap, out);
	} else {
		q.acc = xcalloc((size_t)q.n_cap + 1, sizeof(double));
		ok = for_classes(m, c->parent.extent, ce, pair_class, &q) &&
		     to_dist(q.acc, q.n_cap, out);
		free(q.acc);
	}
	if (ok)
		return;
	density_dist_release(out);
	pop = density_tile_points(&c->parent);
	density_hg_dist(pop, min_u64(c->occupancy, pop), density_tile_points(&child), out);
}

const struct density_kind_ops density_block_ops = { .distribution = block_distribution };
