/*
 * Shared pieces of the nest analysis: access records and spatial multicast
 * (semantics 2.4). With spatial extrapolation every child of a spatial group
 * sees the same sequence of tiles shifted by its own offset, so children
 * whose tiles have the same offset on a tensor receive identical deltas and
 * form one multicast group.
 */
#include "model/model_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void model_nest_rec_add(struct nest_tile *t, uint64_t m, uint64_t scatter, uint64_t acc)
{
	unsigned i;

	for (i = 0; i < t->n_rec; i++) {
		if (t->rec[i].m == m && t->rec[i].scatter == scatter) {
			t->rec[i].accesses += acc;
			return;
		}
	}
	if (t->n_rec == NEST_MAX_REC) {
		/* keep the count exact; only the scatter split is merged */
		for (i = 0; i < t->n_rec; i++) {
			if (t->rec[i].m == m) {
				t->rec[i].accesses += acc;
				return;
			}
		}
		BUG("more than %d distinct multicast factors", NEST_MAX_REC);
	}
	t->rec[t->n_rec].m = m;
	t->rec[t->n_rec].scatter = scatter;
	t->rec[t->n_rec].accesses = acc;
	t->n_rec++;
}

uint64_t model_nest_rec_total(const struct nest_tile *t)
{
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < t->n_rec; i++)
		s += t->rec[i].accesses;
	return s;
}

bool model_vec_zero(const int64_t *v, unsigned n)
{
	unsigned r;

	for (r = 0; r < n; r++)
		if (v[r])
			return false;
	return true;
}

/* Tile translation of one iteration of 'lp' on each rank of 'p'. */
static void loop_translation(const struct proj *p, const struct mloop *lp, int64_t *t)
{
	unsigned r, k;

	for (r = 0; r < p->n_ranks; r++) {
		int64_t c = 0;
		for (k = 0; k < p->ranks[r].n_terms; k++)
			if (p->ranks[r].dim[k] == lp->dim)
				c += p->ranks[r].coef[k];
		t[r] = c * (int64_t)lp->stride;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Key of a child's offset: its rank offsets in a mixed radix. */
static int64_t child_key(int64_t (*t)[SPEC_MAX_TENSOR_RANKS], unsigned n,
			 const uint64_t *idx, const int64_t *lo, const int64_t *span,
			 unsigned n_ranks)
{
	int64_t key = 0;
	unsigned r, k;

	for (r = 0; r < n_ranks; r++) {
		int64_t off = 0;
		for (k = 0; k < n; k++)
			off += (int64_t)idx[k] * t[k][r];
		key = key * span[r] + (off - lo[r]);
	}
	return key;
}

/* Enumerate the children, sort their keys and count the group sizes. */
static void multicast_enumerate(struct model_ws *ws, int64_t (*t)[SPEC_MAX_TENSOR_RANKS],
				unsigned n, unsigned n_ranks, const uint64_t *ends,
				const uint8_t *skip, uint64_t acc, struct nest_tile *tile)
{
	int64_t lo[SPEC_MAX_TENSOR_RANKS], span[SPEC_MAX_TENSOR_RANKS];
	uint64_t idx[SPEC_MAX_DIMS] = { 0 };
	uint64_t hist_m[64], hist_n[64];
	size_t n_children = 1, id, n_keys = 0, i, run;
	unsigned r, k, n_hist = 0, h;

	for (k = 0; k < n; k++)
		n_children *= ends[k];
	if (n_children > ws->max_children)
		BUG("spatial group of %zu children, workspace holds %zu", n_children,
		    ws->max_children);
	for (r = 0; r < n_ranks; r++) {
		int64_t a = 0, b = 0;
		for (k = 0; k < n; k++) {
			int64_t v = (int64_t)(ends[k] - 1) * t[k][r];
			if (v < 0)
				a += v;
			else
				b += v;
		}
		lo[r] = a;
		span[r] = b - a + 1;
	}
	for (id = 0; id < n_children; id++) {
		if (!skip || !skip[id])
			ws->child_key[n_keys++] = child_key(t, n, idx, lo, span, n_ranks);
		for (k = 0; k < n && ++idx[k] == ends[k]; k++)
			idx[k] = 0;
	}
	qsort(ws->child_key, n_keys, sizeof(*ws->child_key), cmp_i64);
	for (i = 0; i < n_keys; i += run) {
		for (run = 1; i + run < n_keys && ws->child_key[i + run] == ws->child_key[i]; run++)
			;
		for (h = 0; h < n_hist && hist_m[h] != run; h++)
			;
		if (h == n_hist) {
			if (n_hist == ARRAY_SIZE(hist_m))
				BUG("too many distinct multicast factors");
			hist_m[n_hist] = run;
			hist_n[n_hist++] = 0;
		}
		hist_n[h]++;
	}
	for (h = 0; h < n_hist; h++)
		model_nest_rec_add(tile, hist_m[h], hist_n[h], hist_n[h] * acc);
}

/*
 * A group whose level turns multicast off for the tensor ('no_reuse', as
 * Timeloop's ComputeAccurateMulticastedAccesses): every child that is not
 * served over a link is its own group of one.
 */
static void no_multicast(struct nest_tile *t, unsigned n_group, const uint64_t *ends,
			 const uint8_t *skip, uint64_t acc)
{
	uint64_t n = 1, id, kept;
	unsigned k;

	for (k = 0; k < n_group; k++)
		n *= ends[k];
	kept = n;
	for (id = 0; skip && id < n; id++)
		kept -= skip[id] != 0;
	if (kept)
		model_nest_rec_add(t, 1, kept, kept * acc);
}

void model_nest_multicast(struct model_ws *ws, unsigned pv, const struct mloop *group,
			  unsigned n_group, const uint64_t *ends, const uint8_t *skip,
			  uint64_t acc, struct nest_tile *t)
{
	const struct proj *p = &ws->proj[pv];
	int64_t tr[SPEC_MAX_DIMS][SPEC_MAX_TENSOR_RANKS];
	uint64_t m = 1, groups = 1;
	uint32_t moved = 0;
	bool independent = true;
	unsigned k;

	if (acc == 0)
		return;
	if (n_group > SPEC_MAX_DIMS)
		BUG("spatial group of %u loops", n_group);
	if (n_group && ws->m && (ws->m->levels[group[0].level].no_multicast_mask & (1u << pv))) {
		no_multicast(t, n_group, ends, skip, acc);   /* no_reuse: every child alone */
		return;
	}
	for (k = 0; k < n_group; k++) {
		uint32_t mask = p->dims[group[k].dim].rank_mask;
		independent &= !(mask & moved);
		moved |= mask;
		if (mask)
			groups *= ends[k];
		else
			m *= ends[k];
	}
	if (skip || !independent) {
		for (k = 0; k < n_group; k++)
			loop_translation(p, &group[k], tr[k]);
		multicast_enumerate(ws, tr, n_group, p->n_ranks, ends, skip, acc, t);
		return;
	}
	model_nest_rec_add(t, m, groups, groups * acc);
}
