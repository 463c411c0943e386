/*
 * The nest analysis for perfectly factorized mappings, without walking the
 * nest.
 *
 * With temporal extrapolation, the calls of a level's boundary loop are the
 * leaves of a binary tree: every temporal loop above it with N >= 2 runs
 * index 0 (weight 1) then index 1 (weight N-1), so the leaves follow a binary
 * counter whose bit j is loop k_j (innermost first). Entering leaf x moves the
 * tile by u_j = s_j - (s_0 + ... + s_{j-1}) with j = ctz(x) (loop k_j steps,
 * the loops inside it reset), and tiles always have the same shape.
 *
 * The words delivered are sum over leaves of weight x delta, where delta
 * follows the stride-change rule of semantics 2.3 step 4. That rule only
 * remembers one translation, and in the ruler sequence j = ctz(x) the first
 * loop z whose translation is not zero on the tensor comes back every other
 * non-zero leaf. After the first such leaf the remembered translation is u_z,
 * except right after a leaf with another translation (which resets it, costs
 * a full tile, and is always followed by a u_z leaf that sets it again). So
 * a leaf's delta depends on its j alone: 0 when u_j is zero, the overlap
 * delta when j = z or u_j = u_z, else the full tile; and the leaves with
 * ctz = j weigh (N_j - 1) * prod_{i > j} N_i in total. The sum is the first
 * (full) tile plus sum_j delta_j * weight_j: linear in the number of loops.
 */
#include "model/model_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * Every temporal loop with N >= 2, innermost first. The loops above a
 * boundary are a suffix of this list, and a leaf weight only depends on the
 * loops above its own, so one list serves every level.
 */
struct above {
	unsigned n;
	unsigned loop[FAST_MAX_LOOPS];
	uint8_t dim[FAST_MAX_LOOPS];
	uint64_t stride[FAST_MAX_LOOPS];
	uint64_t weight[FAST_MAX_LOOPS];      /* (N_j - 1) * prod_{i > j} N_i */
	uint64_t leaves[FAST_MAX_LOOPS + 1];  /* prod_{i >= j} N_i */
};

/* The translations u_j seen by one boundary, projected on one tensor. */
struct proj_u {
	unsigned m;
	unsigned first;               /* boundary_sum(): rows [0, first) are zero */
	int64_t pu[FAST_MAX_LOOPS][SPEC_MAX_TENSOR_RANKS];
	uint64_t overlap;             /* boundary_sum's overlap delta (a moving tensor) */
};


/* Collect the temporal loops with N >= 2 of the whole nest. */
static int collect_above(const struct model_ws *ws, struct above *ab)
{
	unsigned L, j;

	ab->n = 0;
	for (L = 0; L < ws->n_loops; L++) {
		const struct mloop *lp = &ws->loops[L];
		if (lp->is_spatial || lp->end < 2)
			continue;
		if (ab->n == FAST_MAX_LOOPS)
			return -1;
		ab->loop[ab->n] = L;
		ab->dim[ab->n] = lp->dim;
		ab->stride[ab->n] = lp->stride;
		ab->n++;
	}
	ab->leaves[ab->n] = 1;
	for (j = ab->n; j-- > 0;) {
		uint64_t n = ws->loops[ab->loop[j]].end;
		ab->weight[j] = (n - 1) * ab->leaves[j + 1];
		ab->leaves[j] = n * ab->leaves[j + 1];
	}
	return 0;
}

/* Index in 'ab' of the first loop above loop B. */
static unsigned above_start(const struct above *ab, unsigned B)
{
	unsigned o = 0;

	while (o < ab->n && ab->loop[o] <= B)
		o++;
	return o;
}

/* Op-space u_z = s_z - (s_o + ... + s_{z-1}) (exact footprints only). */
static void op_translation(const struct model_ws *ws, const struct above *ab, unsigned o,
			   unsigned z, int64_t *u)
{
	unsigned i;

	memset(u, 0, SPEC_MAX_DIMS * sizeof(*u));
	for (i = o; i < z; i++)
		u[ab->dim[i]] -= (int64_t)ab->stride[i];
	u[ab->dim[z]] += (int64_t)ab->stride[z];
}

/* Points two same-shape hull boxes keep in common when one moves by 'v'. */
static uint64_t kept_points(const uint64_t *ext, const int64_t *v, unsigned n_ranks)
{
	uint64_t kept = 1;
	unsigned r;

	for (r = 0; r < n_ranks; r++) {
		int64_t left = (int64_t)ext[r] - (v[r] < 0 ? -v[r] : v[r]);
		kept *= left > 0 ? (uint64_t)left : 0;
	}
	return kept;
}

/*
 * Running state of the projected translations while walking the loops
 * above a boundary, after the first moving loop z: prefix[r] = P(sum of the
 * strides so far), how many of its ranks are non-zero, and how many differ
 * from -P(u_z); each step then only touches the ranks its dimension moves.
 */
struct ustate {
	int64_t prefix[SPEC_MAX_TENSOR_RANKS];
	int64_t pz[SPEC_MAX_TENSOR_RANKS];   /* P(u_z) */
	unsigned nonzero, mismatch;
};

/* Move the prefix of rank r by 'step', keeping the counters right. */
static void ustate_move(struct ustate *us, unsigned r, int64_t step)
{
	int64_t old = us->prefix[r], now = old + step;

	us->nonzero += (now != 0) - (old != 0);
	us->mismatch += (-now != us->pz[r]) - (-old != us->pz[r]);
	us->prefix[r] = now;
}

/* Record P(u_j) = -prefix except on the ranks 'pd' moves (values 'v') into 'row'. */
static void record_u(int64_t *row, const struct ustate *us, const struct proj_dim *pd,
		     const int64_t *v, unsigned n_ranks)
{
	unsigned r, t;

	for (r = 0; r < n_ranks; r++)
		row[r] = -us->prefix[r];
	for (t = 0; t < pd->n; t++)
		row[pd->rank[t]] = v[t];
}

/* Start the running state at the first moving loop z (prefix = P(s_z) = P(u_z)). */
static void ustate_start(struct ustate *us, const struct proj_dim *pd, uint64_t stride)
{
	unsigned t;

	memset(us->prefix, 0, sizeof(us->prefix));
	memset(us->pz, 0, sizeof(us->pz));
	for (t = 0; t < pd->n; t++)
		us->pz[pd->rank[t]] = us->prefix[pd->rank[t]] = pd->coef[t] * (int64_t)stride;
	us->nonzero = us->mismatch = pd->n;
}

/* How loop j's step relates to u_z: 0 = no move, 1 = same as u_z, 2 = other. */
static int ustate_classify(const struct ustate *us, const struct proj_dim *pd,
			   uint64_t stride, int64_t *v)
{
	unsigned nz_t = 0, mm_t = 0, t;
	bool zero_t = true, same_t = true;

	for (t = 0; t < pd->n; t++) {
		unsigned r = pd->rank[t];
		v[t] = pd->coef[t] * (int64_t)stride - us->prefix[r];
		nz_t += us->prefix[r] != 0;
		mm_t += -us->prefix[r] != us->pz[r];
		zero_t &= v[t] == 0;
		same_t &= v[t] == us->pz[r];
	}
	if (us->nonzero == nz_t && zero_t)
		return 0;
	return us->mismatch == mm_t && same_t ? 1 : 2;
}

/* The overlap delta: the new points of a tile moved by u_z. */
static uint64_t overlap_delta(struct model_ws *ws, unsigned pv, unsigned l,
			      const struct above *ab, unsigned o, unsigned z,
			      const struct ustate *us)
{
	static const int64_t zero_lo[SPEC_MAX_DIMS];
	const uint64_t *op_ext = ws->loops[ws->lv[l].boundary].extent;
	int64_t u[SPEC_MAX_DIMS];

	if (!ws->poly)
		return ws->nest.t[l][pv].size -
		       kept_points(ws->tile_ext[l][pv], us->pz, ws->proj[pv].n_ranks);
	op_translation(ws, ab, o, z, u);
	return model_fp_delta(ws, pv, u, op_ext, zero_lo, op_ext);
}

/*
 * Words delivered into the tiles of level l's boundary for tensor pv, summed
 * over every call (see the top of this file); the loops above the boundary
 * are ab[o..]. When 'pu' is not NULL it receives every projected
 * translation P(u_j), for the link-transfer check. What depends on z alone
 * (the leaves' weights by kind, P(u_j) for j > z) is kept in ws->fast_memo
 * for the next boundary with the same z. The sums wrap as
 * uint64_t, so that weight x delta summed by class is the same number as
 * summed leaf by leaf.
 */
static uint64_t boundary_sum(struct model_ws *ws, unsigned pv, unsigned l,
			     const struct above *ab, unsigned o, struct proj_u *pu)
{
	struct fast_memo *zm = &ws->fast_memo;
	const struct proj *p = &ws->proj[pv];
	uint64_t full = ws->nest.t[l][pv].size, sum = full, overlap, w_over = 0, w_full = 0;
	struct ustate us;
	unsigned j, t, z;
	bool known, rows = pu || zm->keep_rows;

	if (pu)
		pu->m = pu->first = ab->n - o;
	if (ws->m->levels[l].no_temporal_reuse_mask & (1u << pv))
		return full * ab->leaves[o];
	for (z = o; z < ab->n && !p->dims[ab->dim[z]].n; z++)
		if (pu)
			memset(pu->pu[z - o], 0, sizeof(pu->pu[0]));
	if (z == ab->n)
		return sum;
	ustate_start(&us, &p->dims[ab->dim[z]], ab->stride[z]);
	if (pu)
		pu->first = z - o;
	if (pu)
		memcpy(pu->pu[z - o], us.pz, sizeof(us.pz));
	overlap = overlap_delta(ws, pv, l, ab, o, z, &us);
	if (pu)
		pu->overlap = overlap;
	sum += overlap * ab->weight[z];
	known = zm->known[pv] >> z & 1;
	if (known && (!pu || zm->rows_z[pv] == z)) {
		if (pu && z + 1 < ab->n)
			memcpy(pu->pu[z + 1 - o], zm->rows[pv][z + 1],
			       (ab->n - z - 1) * sizeof(zm->rows[pv][0]));
		return sum + overlap * zm->w_overlap[pv][z] + full * zm->w_full[pv][z];
	}
	/* the weights by kind and the translations, for this and later boundaries */
	for (j = z + 1; j < ab->n; j++) {
		const struct proj_dim *pd = &p->dims[ab->dim[j]];
		int64_t v[SPEC_MAX_TENSOR_RANKS];
		int c = ustate_classify(&us, pd, ab->stride[j], v);
		if (c == 1)
			w_over += ab->weight[j];
		else if (c == 2)
			w_full += ab->weight[j];
		if (rows)
			record_u(zm->rows[pv][j], &us, pd, v, p->n_ranks);
		for (t = 0; t < pd->n; t++)
			ustate_move(&us, pd->rank[t], pd->coef[t] * (int64_t)ab->stride[j]);
	}
	if (rows)
		zm->rows_z[pv] = z;
	if (pu && z + 1 < ab->n)
		memcpy(pu->pu[z + 1 - o], zm->rows[pv][z + 1],
		       (ab->n - z - 1) * sizeof(zm->rows[pv][0]));
	zm->known[pv] |= (uint64_t)1 << z;
	zm->w_overlap[pv][z] = w_over;
	zm->w_full[pv][z] = w_full;
	return sum + overlap * w_over + full * w_full;
}

/* Group-index differences between mesh neighbours of master 'M' (level l),
 * recomputed only when the group's shape changed since the last call. */
static const struct neighbours *neighbour_deltas(struct model_ws *ws, unsigned l,
						 const struct mloop *M)
{
	struct neighbours *nb = &ws->nb[l];
	const struct mloop *g = &ws->loops[M->group_lo];
	unsigned n = (unsigned)(M - g) + 1, k;
	uint64_t H = ws->s->arch.levels[l].fanout_x, F = M->logical_fanout, id;
	uint64_t a[SPEC_MAX_DIMS] = { 0 };
	bool same;

	if (M->fanout_x > H)
		H = M->fanout_x;
	same = nb->valid && nb->n_group == n && nb->H == H;
	for (k = 0; same && k < n; k++)
		same = nb->ends[k] == g[k].end;
	if (same)
		return nb;
	nb->valid = true;
	nb->overflow = false;
	nb->n_group = n;
	nb->H = H;
	for (k = 0; k < n; k++)
		nb->ends[k] = g[k].end;
	nb->n = 0;
	for (id = 0; id < F; id++) {
		uint64_t to[2] = { id + 1, id + H };
		bool ok[2] = { (id % H) + 1 < H && id + 1 < F, id + H < F };
		unsigned e, i;
		for (e = 0; e < 2; e++) {
			int64_t dv[SPEC_MAX_DIMS];
			uint64_t x = to[e];
			if (!ok[e])
				continue;
			for (k = 0; k < n; k++) {
				dv[k] = (int64_t)(x % g[k].end) - (int64_t)a[k];
				x /= g[k].end;
			}
			for (i = 0; i < nb->n && memcmp(nb->d[i], dv, n * sizeof(*dv)); i++)
				;
			if (i < nb->n)
				continue;
			if (nb->n == ARRAY_SIZE(nb->d)) {
				nb->overflow = true;
				return nb;
			}
			memcpy(nb->d[nb->n++], dv, n * sizeof(*dv));
		}
		for (k = 0; k < n && ++a[k] == g[k].end; k++)
			a[k] = 0;
	}
	return nb;
}

/*
 * Is some non-zero translation in 'd' within the reach of the group (no
 * rank moved further than the group's loops can offset two children)?
 */
static bool within_reach(const struct proj_u *d, const int64_t *reach, unsigned n_ranks)
{
	unsigned j, r;

	for (j = d->first; j < d->m; j++) {
		bool zero = true;
		for (r = 0; r < n_ranks; r++) {   /* most translations are out of reach at once */
			int64_t v = d->pu[j][r] < 0 ? -d->pu[j][r] : d->pu[j][r];
			if (v > reach[r])
				break;
			zero &= v == 0;
		}
		if (r == n_ranks && !zero)
			return true;
	}
	return false;
}

/* Does some translation in 'd' equal +-'off' (and is not zero)? */
static bool matches_offset(const struct proj_u *d, const int64_t *off, unsigned n_ranks)
{
	unsigned j, r;

	for (j = d->first; j < d->m; j++) {
		bool eq = true, neg = true, zero = true;
		for (r = 0; r < n_ranks; r++) {
			eq &= d->pu[j][r] == off[r];
			neg &= d->pu[j][r] == -off[r];
			zero &= d->pu[j][r] == 0;
		}
		if (!zero && (eq || neg))
			return true;
	}
	return false;
}

/*
 * True when some tile translation seen by the children of level l's master
 * could equal the offset between two mesh neighbours: a link transfer is
 * then possible and the general walk must decide it.
 */
static bool link_possible(struct model_ws *ws, unsigned l, unsigned pv,
			  const struct proj_u *d)
{
	const struct mloop *M = &ws->loops[ws->lv[l].in];
	const struct mloop *g = &ws->loops[M->group_lo];
	const struct proj *p = &ws->proj[pv];
	int64_t step[SPEC_MAX_DIMS][SPEC_MAX_TENSOR_RANKS], reach[SPEC_MAX_TENSOR_RANKS];
	const struct neighbours *nb;
	unsigned n = (unsigned)(M - g) + 1, i, r, k;

	if (ws->m->levels[l].no_link_transfer_mask & (1u << pv))
		return false;
	for (r = 0; r < p->n_ranks; r++) {
		reach[r] = 0;
		for (k = 0; k < n; k++) {
			step[k][r] = p->cm[r][g[k].dim] * (int64_t)g[k].stride;
			reach[r] += (int64_t)(g[k].end - 1) *
				    (step[k][r] < 0 ? -step[k][r] : step[k][r]);
		}
	}
	if (!within_reach(d, reach, p->n_ranks))
		return false;
	nb = neighbour_deltas(ws, l, M);
	if (nb->overflow)
		return true;
	for (i = 0; i < nb->n; i++) {
		int64_t off[SPEC_MAX_TENSOR_RANKS];
		for (r = 0; r < p->n_ranks; r++) {
			off[r] = 0;
			for (k = 0; k < n; k++)
				off[r] += nb->d[i][k] * step[k][r];
		}
		if (matches_offset(d, off, p->n_ranks))
			return true;
	}
	return false;
}

/*
 * link_possible for level 0's group when it moves tensor pv: its children
 * are operation points, never subtracted from a previous one, so a zero
 * translation also meets a zero neighbour offset (a loop of the group that
 * does not move pv), and no translation is filtered out by its reach.
 */
static bool point_link_possible(struct model_ws *ws, unsigned pv, const struct proj_u *d)
{
	const struct mloop *M = &ws->loops[ws->lv[0].in];
	const struct mloop *g = &ws->loops[M->group_lo];
	const struct proj *p = &ws->proj[pv];
	const struct neighbours *nb = neighbour_deltas(ws, 0, M);
	unsigned n = (unsigned)(M - g) + 1, i, j, r, k;

	if (nb->overflow)
		return true;
	for (i = 0; i < nb->n; i++) {
		int64_t off[SPEC_MAX_TENSOR_RANKS];
		for (r = 0; r < p->n_ranks; r++) {
			off[r] = 0;
			for (k = 0; k < n; k++)
				off[r] += nb->d[i][k] * p->cm[r][g[k].dim] * (int64_t)g[k].stride;
		}
		for (j = 0; j < d->m; j++) {
			bool eq = true, neg = true;
			for (r = 0; r < p->n_ranks; r++) {
				eq &= d->pu[j][r] == off[r];
				neg &= d->pu[j][r] == -off[r];
			}
			if (eq || neg)
				return true;
		}
	}
	return false;
}

/* Do the spatial loops of level l move tensor pv's tiles at all? */
static bool group_moves(const struct model_ws *ws, unsigned l, unsigned pv)
{
	const struct mloop *M = &ws->loops[ws->lv[l].in];
	unsigned k;

	for (k = M->group_lo; k <= ws->lv[l].in; k++)
		if (ws->proj[pv].dims[ws->loops[k].dim].n)
			return true;
	return false;
}

/*
 * The projected translations P(u_j) of tensor pv between consecutive calls
 * of a spatial group directly above the MACs: the calls are the leaves of
 * every temporal loop, entering leaf x moves the operation point by u_j =
 * s_j - (s_0 + ... + s_{j-1}), j = ctz(x). Returns the calls whose point
 * moves on pv (the first one included), i.e. 1 + sum of the weights of
 * the j with P(u_j) != 0.
 */
static uint64_t point_translations(const struct model_ws *ws, unsigned pv,
				   const struct above *ab, unsigned o, struct proj_u *d)
{
	const struct proj *p = &ws->proj[pv];
	int64_t prefix[SPEC_MAX_TENSOR_RANKS] = { 0 };
	uint64_t moving = 1;
	unsigned j, r;

	d->m = ab->n - o;
	d->first = 0;
	for (j = o; j < ab->n; j++) {
		bool zero = true;
		for (r = 0; r < p->n_ranks; r++) {
			int64_t step = p->cm[r][ab->dim[j]] * (int64_t)ab->stride[j];
			d->pu[j - o][r] = step - prefix[r];
			zero &= d->pu[j - o][r] == 0;
			prefix[r] += step;
		}
		if (!zero)
			moving += ab->weight[j];
	}
	return moving;
}

/*
 * Link transfers in closed form (semantics 2.4). At every call of a
 * spatial group Timeloop compares child 0's delta with the one of the
 * group's previous call: child c takes its delta over a link when it
 * equals, moved by the offset between c and one of its mesh neighbours,
 * the delta that neighbour received in the previous call. Tiles keep their
 * shape, so two deltas of consecutive calls are equal when they are of the
 * same kind (both full tiles, or both the new points of a tile moved by the
 * same translation, u_z's) and the later call's translation t is the
 * neighbours' offset. Which children a call covers, and whether the links
 * are kept (only when the parent's accesses strictly fall), thus depend on
 * t alone, and are worked out once per distinct t.
 *
 * The pairs of consecutive calls (x - 1, x) in the ruler sequence: x = 1
 * follows the first call; x with ctz(x) = j >= 1 follows a call of ctz 0
 * (total weight w_j); an odd x > 1 follows a call of ctz k >= 1 (total
 * weight (N_0 - 1) w_k). Their records are added in the order of each
 * pair's first call (x = 1, 2, 3, 4, 5, 8, 9, ...), the walk's order.
 */
enum leaf_kind { LEAF_EMPTY, LEAF_DIFF, LEAF_FULL };

struct leaf {
	enum leaf_kind kind;
	uint64_t size;
};

/* What a call of translation t does: children covered (0: no links), and
 * the records of one word multicast to the others. */
struct link_gain {
	int64_t t[SPEC_MAX_TENSOR_RANKS];
	uint64_t covered;
	struct nest_tile linked;
};

#define LINK_CACHE 8

struct link_ctx {
	struct model_ws *ws;
	unsigned l, pv, ng;
	const struct mloop *M, *g;
	uint64_t ends[SPEC_MAX_DIMS], n_children, H;
	int64_t step[SPEC_MAX_DIMS][SPEC_MAX_TENSOR_RANKS];
	unsigned n_cache;
	struct link_gain cache[LINK_CACHE], scratch;
};

static void link_ctx_init(struct link_ctx *c, struct model_ws *ws, unsigned l, unsigned pv)
{
	const struct proj *p = &ws->proj[pv];
	unsigned k, r;

	c->ws = ws;
	c->l = l;
	c->pv = pv;
	c->M = &ws->loops[ws->lv[l].in];
	c->g = &ws->loops[c->M->group_lo];
	c->ng = ws->lv[l].in - c->M->group_lo + 1;
	c->n_children = 1;
	for (k = 0; k < c->ng; k++) {
		c->ends[k] = c->g[k].end;
		c->n_children *= c->ends[k];
		for (r = 0; r < p->n_ranks; r++)
			c->step[k][r] = p->cm[r][c->g[k].dim] * (int64_t)c->g[k].stride;
	}
	c->H = ws->s->arch.levels[l].fanout_x;
	if (c->M->fanout_x > c->H)
		c->H = c->M->fanout_x;
	c->n_cache = 0;
}

/* Tile offset of child 'id' (linear id, innermost group loop fastest). */
static void child_offset(const struct link_ctx *c, uint64_t id, int64_t *off)
{
	unsigned n_ranks = c->ws->proj[c->pv].n_ranks, k, r;

	for (r = 0; r < n_ranks; r++)
		off[r] = 0;
	for (k = 0; k < c->ng; k++) {
		int64_t i = (int64_t)(id % c->ends[k]);
		id /= c->ends[k];
		for (r = 0; r < n_ranks; r++)
			off[r] += i * c->step[k][r];
	}
}

/* Could t be the offset between two mesh neighbours at all? */
static bool neighbour_offset(const struct link_ctx *c, const int64_t *t)
{
	const struct neighbours *nb = neighbour_deltas(c->ws, c->l, c->M);
	unsigned n_ranks = c->ws->proj[c->pv].n_ranks, i, k, r;

	if (nb->overflow)
		return true;
	for (i = 0; i < nb->n; i++) {
		bool eq = true, neg = true;
		for (r = 0; r < n_ranks; r++) {
			int64_t off = 0;
			for (k = 0; k < c->ng; k++)
				off += nb->d[i][k] * c->step[k][r];
			eq &= t[r] == off;
			neg &= t[r] == -off;
		}
		if (eq || neg)
			return true;
	}
	return false;
}

/* The children a call of translation t covers, and whether that pays. */
static void gain_compute(struct link_ctx *c, const int64_t *t, struct link_gain *out)
{
	struct model_ws *ws = c->ws;
	unsigned n_ranks = ws->proj[c->pv].n_ranks, e, r;
	struct nest_tile plain;
	uint64_t id, n = c->n_children, H = c->H;

	memcpy(out->t, t, n_ranks * sizeof(*t));
	out->covered = 0;
	out->linked.n_rec = 0;
	out->linked.link_transfers = 0;
	if (!neighbour_offset(c, t))
		return;
	for (id = 0; id < n; id++) {
		int64_t off[SPEC_MAX_TENSOR_RANKS], noff[SPEC_MAX_TENSOR_RANKS], nb[4];
		ws->child_flag[id] = 0;
		nb[0] = id % H ? (int64_t)id - 1 : -1;
		nb[1] = (id % H) + 1 < H ? (int64_t)id + 1 : -1;
		nb[2] = id >= H ? (int64_t)(id - H) : -1;
		nb[3] = (int64_t)(id + H);
		child_offset(c, id, off);
		for (e = 0; e < 4; e++) {
			bool eq = true;
			if (nb[e] < 0 || (uint64_t)nb[e] >= n)
				continue;
			child_offset(c, (uint64_t)nb[e], noff);
			for (r = 0; r < n_ranks; r++)
				eq &= noff[r] - off[r] == t[r];
			if (eq) {
				ws->child_flag[id] = 1;
				out->covered++;
				break;
			}
		}
	}
	if (!out->covered)
		return;
	plain.n_rec = 0;
	model_nest_multicast(ws, c->pv, c->g, c->ng, c->ends, NULL, 1, &plain);
	model_nest_multicast(ws, c->pv, c->g, c->ng, c->ends, ws->child_flag, 1, &out->linked);
	if (!(model_nest_rec_total(&out->linked) < model_nest_rec_total(&plain)))
		out->covered = 0;
}

static const struct link_gain *gain_of(struct link_ctx *c, const int64_t *t)
{
	unsigned n_ranks = c->ws->proj[c->pv].n_ranks, i;

	/* only the tensor's ranks of a translation are set */
	for (i = 0; i < c->n_cache; i++)
		if (!memcmp(c->cache[i].t, t, n_ranks * sizeof(*t)))
			return &c->cache[i];
	if (c->n_cache == LINK_CACHE) {
		gain_compute(c, t, &c->scratch);
		return &c->scratch;
	}
	gain_compute(c, t, &c->cache[c->n_cache]);
	return &c->cache[c->n_cache++];
}

/* Calls of translation t delivering 'acc' words in all into level l's group. */
static void link_emit(struct link_ctx *c, const int64_t *t, uint64_t acc, bool may_link)
{
	struct nest_tile *tile = &c->ws->nest.t[c->l][c->pv];
	const struct link_gain *gn;
	unsigned i;

	if (!acc)
		return;
	if (may_link) {
		gn = gain_of(c, t);
		if (gn->covered) {
			for (i = 0; i < gn->linked.n_rec; i++)
				model_nest_rec_add(tile, gn->linked.rec[i].m, gn->linked.rec[i].scatter,
						   gn->linked.rec[i].accesses * acc);
			tile->link_transfers += gn->covered * acc;
			return;
		}
	}
	model_nest_multicast(c->ws, c->pv, c->g, c->ng, c->ends, NULL, acc, tile);
}

/*
 * Level l >= 1 with a master, tensor pv, link transfers possible: the
 * deltas of the calls of its group (the boundary of level l-1 below it)
 * pair by pair. A call's delta is by its j: nothing when P(u_j) = 0, the
 * overlap delta when P(u_j) = P(u_z) (a DIFF, or a FULL when the hulls do
 * not meet), else a full tile; every call is a full tile when level l-1
 * keeps no temporal reuse of pv. 'd' holds boundary_sum()'s translations
 * and overlap delta, unless 'no_reuse' (then made here).
 */
static void link_level(struct model_ws *ws, unsigned l, unsigned pv, const struct above *ab,
		       unsigned o, struct proj_u *d, bool no_reuse)
{
	static const int64_t zero_t[SPEC_MAX_TENSOR_RANKS];
	const unsigned n_ranks = ws->proj[pv].n_ranks;
	uint64_t full = ws->nest.t[l - 1][pv].size, N0;
	struct leaf lf[FAST_MAX_LOOPS];
	enum leaf_kind kz = LEAF_FULL;
	uint64_t overlap = full;
	struct link_ctx ctx, *c = &ctx;
	unsigned m, b, z, r;

	if (no_reuse)   /* else boundary_sum() made 'd' */
		point_translations(ws, pv, ab, o, d);
	m = d->m;
	for (z = 0; z < m && model_vec_zero(d->pu[z], n_ranks); z++)
		;
	if (z < m && !no_reuse) {
		overlap = d->overlap;
		for (r = 0; r < n_ranks; r++) {
			int64_t a = d->pu[z][r] < 0 ? -d->pu[z][r] : d->pu[z][r];
			if (a >= (int64_t)ws->tile_ext[l - 1][pv][r])
				break;
		}
		kz = r == n_ranks ? LEAF_DIFF : LEAF_FULL;
	}
	for (b = 0; b < m; b++) {
		if (no_reuse) {
			lf[b].kind = LEAF_FULL;
			lf[b].size = full;
		} else if (b < z || model_vec_zero(d->pu[b], n_ranks)) {
			lf[b].kind = LEAF_EMPTY;
			lf[b].size = 0;
		} else if (b == z || !memcmp(d->pu[b], d->pu[z], n_ranks * sizeof(d->pu[b][0]))) {
			lf[b].kind = kz;
			lf[b].size = overlap;
		} else {
			lf[b].kind = LEAF_FULL;
			lf[b].size = full;
		}
	}
	link_ctx_init(c, ws, l, pv);
	link_emit(c, zero_t, full, false);   /* the first call: nothing before it */
	if (!m)
		return;
	N0 = ws->loops[ab->loop[o]].end;
	if (lf[0].kind != LEAF_EMPTY)
		link_emit(c, d->pu[0], lf[0].size * (N0 - 1), lf[0].kind == LEAF_FULL);
	for (b = 1; b < m; b++) {
		uint64_t w = ab->weight[o + b];
		if (lf[b].kind != LEAF_EMPTY)
			link_emit(c, d->pu[b], lf[b].size * w, lf[0].kind == lf[b].kind);
		if (lf[0].kind != LEAF_EMPTY)
			link_emit(c, d->pu[0], lf[0].size * (N0 - 1) * w, lf[b].kind == lf[0].kind);
	}
}

/*
 * Level 0 whose group moves pv: every call's "delta" is its operation
 * point (a full one-word tile), so a call links by its translation alone.
 */
static void link_level0(struct model_ws *ws, unsigned pv, const struct above *ab,
			const struct proj_u *d)
{
	static const int64_t zero_t[SPEC_MAX_TENSOR_RANKS];
	struct link_ctx ctx, *c = &ctx;
	unsigned j;

	link_ctx_init(c, ws, 0, pv);
	link_emit(c, zero_t, 1, false);
	for (j = 0; j < d->m; j++)
		link_emit(c, d->pu[j], ab->weight[j], true);
}

/*
 * Level 0: every compute reads every tensor once from the innermost level.
 * Under a spatial group directly above the MACs, Timeloop compares each
 * MAC's operation point with its mesh neighbours' previous points (link
 * transfers, semantics 2.4): when the group does not move pv, all MACs
 * share one point, and every call whose point did not move on pv is served
 * entirely over the links (F x the calls' epochs in link transfers, no
 * access); other calls multicast the point to all F. A group that moves pv
 * goes to the general walk when a translation could meet a neighbour's
 * offset.
 */
static int fast_level0(struct model_ws *ws, const struct above *ab, struct proj_u *d)
{
	const struct mlevel *lv = &ws->lv[0];
	const struct mloop *M = &ws->loops[lv->in];
	uint64_t n = ws->max_temporal_iterations, ends[SPEC_MAX_DIMS], F = 1;
	unsigned pv, k, ng = 0;

	ws->nest.compute_accesses = n;
	if (lv->has_master) {
		ng = lv->in - M->group_lo + 1;
		for (k = 0; k < ng; k++)
			F *= ends[k] = ws->loops[M->group_lo + k].end;
	}
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct nest_tile *t = &ws->nest.t[0][pv];
		uint64_t moving;
		if (!lv->has_master) {
			model_nest_rec_add(t, 1, 1, n);
			continue;
		}
		if (F < 2 || (ws->m->levels[0].no_link_transfer_mask & (1u << pv))) {
			model_nest_multicast(ws, pv, &ws->loops[M->group_lo], ng, ends, NULL, n, t);
			continue;
		}
		moving = point_translations(ws, pv, ab, 0, d);
		if (group_moves(ws, 0, pv) ||
		    (ws->m->levels[0].no_multicast_mask & (1u << pv))) {
			if (point_link_possible(ws, pv, d))
				link_level0(ws, pv, ab, d);
			else
				model_nest_multicast(ws, pv, &ws->loops[M->group_lo], ng, ends, NULL, n, t);
			continue;
		}
		model_nest_rec_add(t, F, 1, moving);
		t->link_transfers += F * (n - moving);
	}
	return 0;
}

/*
 * Nothing known of this mapping yet. The translations are kept only when
 * some level above the MACs has a spatial group (only its link check asks
 * for them).
 */
static void fast_memo_start(struct model_ws *ws)
{
	unsigned pv, l;

	ws->fast_memo.keep_rows = false;
	for (l = 1; l < ws->n_levels; l++)
		ws->fast_memo.keep_rows |= ws->lv[l].has_master;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		ws->fast_memo.known[pv] = 0;
		ws->fast_memo.rows_z[pv] = UINT_MAX;
	}
}

/* Level l >= 1: words its children's tiles (level l-1) receive. */
static int fast_level(struct model_ws *ws, unsigned l, const struct above *ab,
		      struct proj_u *d)
{
	const struct mlevel *lv = &ws->lv[l];
	unsigned pv, k, ng = 0, o = above_start(ab, ws->lv[l - 1].boundary);
	uint64_t ends[SPEC_MAX_DIMS];

	if (lv->has_master) {
		const struct mloop *M = &ws->loops[lv->in];
		ng = lv->in - M->group_lo + 1;
		for (k = 0; k < ng; k++)
			ends[k] = ws->loops[M->group_lo + k].end;
	}
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct nest_tile *t = &ws->nest.t[l][pv];
		bool linkable = lv->has_master &&
				!(ws->m->levels[l].no_link_transfer_mask & (1u << pv));
		bool no_reuse = ws->m->levels[l - 1].no_temporal_reuse_mask & (1u << pv);
		bool need_u = linkable && !no_reuse && group_moves(ws, l, pv);
		uint64_t sum;
		if (linkable && no_reuse) {
			/* every call a full tile: a link may serve even a still one */
			link_level(ws, l, pv, ab, o, d, true);
			continue;
		}
		sum = boundary_sum(ws, pv, l - 1, ab, o, need_u ? d : NULL);
		if (!lv->has_master) {
			model_nest_rec_add(t, 1, 1, sum);
			continue;
		}
		if (need_u && link_possible(ws, l, pv, d)) {
			link_level(ws, l, pv, ab, o, d, false);
			continue;
		}
		model_nest_multicast(ws, pv, &ws->loops[lv->in - ng + 1], ng, ends, NULL, sum, t);
	}
	return 0;
}

/*
 * Tile sizes (and hull extents) at every boundary and master, the tiles'
 * records and link transfers cleared (the pipeline does not clear the nest
 * before the fast path). A boundary
 * whose block has no loop of more than one iteration has the box, and so
 * the tiles, of the boundary below; a master whose box is its boundary's
 * (no temporal loop of more than one iteration between them) has the
 * boundary's tile: each counted once.
 */
static void fast_sizes(struct model_ws *ws)
{
	static const int64_t zero_lo[SPEC_MAX_DIMS];
	uint64_t ext[SPEC_MAX_TENSOR_RANKS];
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		const struct mlevel *lv = &ws->lv[l];
		const uint64_t *bext = ws->loops[lv->boundary].extent;
		const uint64_t *sext = ws->loops[lv->in].extent;
		bool same = lv->master_box;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct nest_tile *t = &ws->nest.t[l][pv];
			const struct proj *p = &ws->proj[pv];
			t->n_rec = 0;
			t->link_transfers = 0;
			if (l > 0 && !lv->grows) {   /* the level below's box */
				t->size = ws->nest.t[l - 1][pv].size;
				memcpy(ws->tile_ext[l][pv], ws->tile_ext[l - 1][pv],
				       sizeof(ws->tile_ext[l][pv]));
			} else {
				t->size = model_proj_extents(p, bext, ws->tile_ext[l][pv]);
				if (ws->poly)
					t->size = model_fp_size(ws, pv, zero_lo, bext);
			}
			if (!lv->has_master)
				t->spatial_size = 0;
			else if (same)
				t->spatial_size = t->size;
			else if (ws->poly)
				t->spatial_size = model_fp_size(ws, pv, zero_lo, sext);
			else
				t->spatial_size = model_proj_extents(p, sext, ext);
		}
	}
}

int model_nest_fast(struct model_ws *ws)
{
	struct above ab;
	struct proj_u d;
	unsigned l;

	if (ws->m->is_imperfect || collect_above(ws, &ab) < 0)
		return -1;
	fast_memo_start(ws);
	fast_sizes(ws);
	if (fast_level0(ws, &ab, &d) < 0)
		return -1;
	for (l = 1; l < ws->n_levels; l++)
		if (fast_level(ws, l, &ab, &d) < 0)
			return -1;
	return 0;
}
