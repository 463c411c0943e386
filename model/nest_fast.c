/*
 * The nest analysis for perfectly factorized mappings, without walking the
 * nest.
 *
 * With temporal extrapolation, the calls of a level's boundary loop are the
 * leaves of a binary tree: every temporal loop above it with N >= 2 runs
 * index 0 (weight 1) then index 1 (weight N-1), so the leaves follow a binary
 * counter whose bit j is loop k_j (innermost first). Entering leaf x moves the
 * tile by u_j = s_j - (s_0 + ... + s_{j-1}) with j = ctz(x) (loop k_j steps,
 * the loops inside it reset), and tiles always have the same shape. The words
 * delivered are sum over leaves of weight x delta, where delta follows the
 * stride-change rule of semantics 2.3 step 4; that state machine only ever
 * remembers one translation, so the sum is a small dynamic program over
 * (tree height, remembered translation) instead of 2^m leaves.
 */
#include "model/model_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define NO_T (-1)

struct fast_memo {
	uint32_t stamp;
	uint32_t seen[FAST_MAX_LOOPS + 1][FAST_MAX_LOOPS + 1];
	uint64_t val[FAST_MAX_LOOPS + 1][FAST_MAX_LOOPS + 1];
	int8_t next[FAST_MAX_LOOPS + 1][FAST_MAX_LOOPS + 1];
};

/* The translations seen by one boundary, projected on one tensor. */
struct dp {
	unsigned m, n_ranks;
	uint64_t weight[FAST_MAX_LOOPS];      /* N - 1 of loop k_j */
	uint64_t full;                        /* tile size */
	uint64_t overlap_delta[FAST_MAX_LOOPS];
	bool zero[FAST_MAX_LOOPS];
	int64_t pu[FAST_MAX_LOOPS][SPEC_MAX_TENSOR_RANKS];
	struct fast_memo *memo;
};

/* The loops above a boundary: op-space translations u_j. */
struct above {
	unsigned m;
	uint64_t weight[FAST_MAX_LOOPS];
	int64_t u[FAST_MAX_LOOPS][SPEC_MAX_DIMS];
};

void nest_fast_init(struct model_ws *ws)
{
	ws->memo = xcalloc(1, sizeof(*ws->memo));
}

void nest_fast_release(struct model_ws *ws)
{
	free(ws->memo);
	ws->memo = NULL;
}

static bool same_translation(const struct dp *d, int a, int b)
{
	unsigned r;

	for (r = 0; r < d->n_ranks; r++)
		if (d->pu[a][r] != d->pu[b][r])
			return false;
	return true;
}

/* Delta of one leaf entered with translation j in state *s (updated). */
static uint64_t leaf(const struct dp *d, int j, int *s)
{
	if (d->zero[j])
		return 0;
	if (*s == NO_T) {
		*s = j;
		return d->overlap_delta[j];
	}
	if (same_translation(d, j, *s))
		return d->overlap_delta[j];
	*s = NO_T;
	return d->full;
}

/*
 * Weighted delta sum over leaves 1 .. 2^h - 1 of a subtree of height 'h'
 * entered in state 's'; the state after its last leaf goes to '*out'.
 */
static uint64_t ruler(const struct dp *d, unsigned h, int s, int *out)
{
	struct fast_memo *mm = d->memo;
	uint64_t a, b, x;
	int s1, s2;

	if (h == 0) {
		*out = s;
		return 0;
	}
	if (mm->seen[h][s + 1] == mm->stamp) {
		*out = mm->next[h][s + 1];
		return mm->val[h][s + 1];
	}
	a = ruler(d, h - 1, s, &s1);
	x = leaf(d, (int)h - 1, &s1);
	b = ruler(d, h - 1, s1, &s2);
	mm->seen[h][s + 1] = mm->stamp;
	mm->val[h][s + 1] = a + d->weight[h - 1] * (x + b);
	mm->next[h][s + 1] = (int8_t)s2;
	*out = s2;
	return mm->val[h][s + 1];
}

/* Collect the temporal loops (N >= 2) above loop 'B' and their u_j. */
static int collect_above(const struct model_ws *ws, unsigned B, struct above *ab)
{
	int64_t prefix[SPEC_MAX_DIMS] = { 0 };
	unsigned L, d;

	ab->m = 0;
	for (L = B + 1; L < ws->n_loops; L++) {
		const struct mloop *lp = &ws->loops[L];
		if (lp->is_spatial || lp->end < 2)
			continue;
		if (ab->m == FAST_MAX_LOOPS)
			return -1;
		for (d = 0; d < ws->n_dims; d++)
			ab->u[ab->m][d] = -prefix[d];
		ab->u[ab->m][lp->dim] += (int64_t)lp->stride;
		prefix[lp->dim] += (int64_t)lp->stride;
		ab->weight[ab->m++] = lp->end - 1;
	}
	return 0;
}

/* Project the op-space translations of 'ab' on tensor 'pv' at boundary B. */
static void dp_setup(struct model_ws *ws, unsigned pv, unsigned B, const struct above *ab,
		     struct dp *d)
{
	const struct proj *p = &ws->proj[pv];
	const struct mloop *lp = &ws->loops[B];
	int64_t zero_lo[SPEC_MAX_DIMS] = { 0 };
	struct tbox tile;
	unsigned j, r, t;

	d->m = ab->m;
	d->n_ranks = p->n_ranks;
	proj_box(p, zero_lo, lp->extent, &tile);
	d->full = fp_size(ws, pv, zero_lo, lp->extent);
	for (j = 0; j < ab->m; j++) {
		uint64_t kept = 1;
		bool zero = true;
		d->weight[j] = ab->weight[j];
		for (r = 0; r < p->n_ranks; r++) {
			const struct proj_rank *pr = &p->ranks[r];
			int64_t v = 0, left;
			for (t = 0; t < pr->n_terms; t++)
				v += pr->coef[t] * ab->u[j][pr->dim[t]];
			d->pu[j][r] = v;
			zero &= v == 0;
			left = tile.ext[r] - (v < 0 ? -v : v);
			kept *= left > 0 ? (uint64_t)left : 0;
		}
		d->zero[j] = zero;
		if (ws->poly && !zero)
			d->overlap_delta[j] = fp_delta(ws, pv, ab->u[j], lp->extent, zero_lo,
						       lp->extent);
		else
			d->overlap_delta[j] = zero ? 0 : d->full - kept;
	}
}

/* Words delivered into the tiles of boundary B for tensor pv, summed. */
static uint64_t boundary_sum(struct model_ws *ws, unsigned pv, unsigned l,
			     const struct above *ab, struct dp *d)
{
	unsigned B = ws->lv[l].boundary, j;
	int s;

	if (ws->m->levels[l].no_temporal_reuse_mask & (1u << pv)) {
		uint64_t leaves = 1;
		for (j = 0; j < ab->m; j++)
			leaves *= ab->weight[j] + 1;
		d->full = fp_size(ws, pv, (const int64_t[SPEC_MAX_DIMS]){ 0 },
				  ws->loops[B].extent);
		return d->full * leaves;
	}
	dp_setup(ws, pv, B, ab, d);
	d->memo = ws->memo;
	ws->memo->stamp++;
	if (ws->memo->stamp == 0) {
		memset(ws->memo->seen, 0, sizeof(ws->memo->seen));
		ws->memo->stamp = 1;
	}
	return d->full + ruler(d, d->m, NO_T, &s);
}

/* Group-index differences between mesh neighbours of master 'M' (level l). */
static int neighbour_deltas(const struct model_ws *ws, unsigned l, const struct mloop *M,
			    int64_t (*out)[SPEC_MAX_DIMS], unsigned max_out, unsigned *n_out)
{
	const struct mloop *g = &ws->loops[M->group_lo];
	unsigned n = (unsigned)(M - g) + 1, k;
	uint64_t H = ws->s->arch.levels[l].fanout_x, F = M->logical_fanout, id;
	uint64_t a[SPEC_MAX_DIMS] = { 0 };

	if (M->fanout_x > H)
		H = M->fanout_x;
	*n_out = 0;
	for (id = 0; id < F; id++) {
		uint64_t nb[2] = { id + 1, id + H };
		bool ok[2] = { (id % H) + 1 < H && id + 1 < F, id + H < F };
		unsigned e, i;
		for (e = 0; e < 2; e++) {
			int64_t dv[SPEC_MAX_DIMS];
			uint64_t x = nb[e];
			if (!ok[e])
				continue;
			for (k = 0; k < n; k++) {
				dv[k] = (int64_t)(x % g[k].end) - (int64_t)a[k];
				x /= g[k].end;
			}
			for (i = 0; i < *n_out && memcmp(out[i], dv, n * sizeof(*dv)); i++)
				;
			if (i < *n_out)
				continue;
			if (*n_out == max_out)
				return -1;
			memcpy(out[(*n_out)++], dv, n * sizeof(*dv));
		}
		for (k = 0; k < n && ++a[k] == g[k].end; k++)
			a[k] = 0;
	}
	return 0;
}

/*
 * True when some tile translation seen by the children of master 'M' could
 * equal the offset between two neighbours: a link transfer is then possible
 * and the general walk must decide it.
 */
static bool link_possible(struct model_ws *ws, unsigned l, unsigned pv,
			  const struct dp *d)
{
	const struct mloop *M = &ws->loops[ws->lv[l].in];
	const struct mloop *g = &ws->loops[M->group_lo];
	const struct proj *p = &ws->proj[pv];
	int64_t deltas[64][SPEC_MAX_DIMS];
	unsigned n = (unsigned)(M - g) + 1, n_d, i, j, r, k, t;

	if (ws->m->levels[l].no_link_transfer_mask & (1u << pv))
		return false;
	if (neighbour_deltas(ws, l, M, deltas, 64, &n_d) < 0)
		return true;
	for (i = 0; i < n_d; i++) {
		int64_t off[SPEC_MAX_TENSOR_RANKS];
		for (r = 0; r < p->n_ranks; r++) {
			off[r] = 0;
			for (k = 0; k < n; k++)
				for (t = 0; t < p->ranks[r].n_terms; t++)
					if (p->ranks[r].dim[t] == g[k].dim)
						off[r] += deltas[i][k] * p->ranks[r].coef[t] *
							  (int64_t)g[k].stride;
		}
		for (j = 0; j < d->m; j++) {
			bool eq = !d->zero[j], neg = !d->zero[j];
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

/* Level 0: every compute reads every tensor once from the innermost level. */
static void fast_level0(struct model_ws *ws)
{
	const struct mlevel *lv = &ws->lv[0];
	uint64_t n = loops_temporal_product(ws);
	unsigned pv;

	ws->nest.compute_accesses = n;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct nest_tile *t = &ws->nest.t[0][pv];
		if (lv->has_master) {
			const struct mloop *M = &ws->loops[lv->in];
			uint64_t ends[SPEC_MAX_DIMS];
			unsigned k, ng = lv->in - M->group_lo + 1;
			for (k = 0; k < ng; k++)
				ends[k] = ws->loops[M->group_lo + k].end;
			nest_multicast(ws, pv, &ws->loops[M->group_lo], ng, ends, NULL, n, t);
		} else {
			nest_rec_add(t, 1, 1, n);
		}
	}
}

/* Level l >= 1: words its children's tiles (level l-1) receive. */
static int fast_level(struct model_ws *ws, unsigned l, struct above *ab, struct dp *d)
{
	const struct mlevel *lv = &ws->lv[l];
	unsigned pv;

	if (collect_above(ws, ws->lv[l - 1].boundary, ab) < 0)
		return -1;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct nest_tile *t = &ws->nest.t[l][pv];
		uint64_t sum = boundary_sum(ws, pv, l - 1, ab, d);
		if (!lv->has_master) {
			nest_rec_add(t, 1, 1, sum);
			continue;
		}
		if (ws->m->levels[l - 1].no_temporal_reuse_mask & (1u << pv))
			dp_setup(ws, pv, ws->lv[l - 1].boundary, ab, d);
		if (link_possible(ws, l, pv, d))
			return -1;
		{
			const struct mloop *M = &ws->loops[lv->in];
			uint64_t ends[SPEC_MAX_DIMS];
			unsigned k, ng = lv->in - M->group_lo + 1;
			for (k = 0; k < ng; k++)
				ends[k] = ws->loops[M->group_lo + k].end;
			nest_multicast(ws, pv, &ws->loops[M->group_lo], ng, ends, NULL, sum, t);
		}
	}
	return 0;
}

/* Tile sizes at every boundary and master. */
static void fast_sizes(struct model_ws *ws)
{
	static const int64_t zero_lo[SPEC_MAX_DIMS];
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		const struct mlevel *lv = &ws->lv[l];
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct nest_tile *t = &ws->nest.t[l][pv];
			t->size = fp_size(ws, pv, zero_lo, ws->loops[lv->boundary].extent);
			t->spatial_size = lv->has_master ?
				fp_size(ws, pv, zero_lo, ws->loops[lv->in].extent) : 0;
		}
	}
}

int nest_fast(struct model_ws *ws)
{
	struct above ab;
	struct dp d;
	unsigned l;

	if (ws->m->is_imperfect)
		return -1;
	fast_sizes(ws);
	fast_level0(ws);
	for (l = 1; l < ws->n_levels; l++)
		if (fast_level(ws, l, &ab, &d) < 0)
			return -1;
	return 0;
}
