/*
 * Points of the mapspace: what a factorization implies (factors, tile
 * sizes, loop counts), keep choices, loop orders, spatial X/Y splits, and
 * the mapping a point stands for.
 *
 * Orders are canonical: at each tiling level only the order of the
 * non-trivial loops that no constraint places is chosen (rank r among
 * n_fn! orders, Lehmer code); trivial loops go where the constraint puts
 * them, else after the free non-trivial ones in dimension order. A spatial
 * level also chooses how many of its non-trivial loops, in that order, are
 * on X (the rest are on Y).
 */
#include "mapper/mapspace_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/rng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SPATIAL_SCAN_CAP (1u << 16)

static uint64_t factorial(unsigned n)
{
	uint64_t r = 1;
	while (n > 1)
		r *= n--;
	return r;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int ms_point_cmp(const struct ms_point *a, const struct ms_point *b)
{
	unsigned i;
	int c;

	for (i = 0; i < SPEC_MAX_DIMS; i++)
		if ((c = cmp_u64(a->choice[i], b->choice[i])))
			return c;
	for (i = 0; i < SPEC_MAX_LEVELS; i++)
		if ((c = cmp_u64(a->keep[i], b->keep[i])))
			return c;
	for (i = 0; i < MS_MAX_TL; i++)
		if ((c = cmp_u64(a->rank[i], b->rank[i])) || (c = cmp_u64(a->split[i], b->split[i])))
			return c;
	return 0;
}

/*
 * A model workspace that counts tiles for the pre-check. The options have
 * no energy preset (energies play no part in a tile's size), so that only
 * a bug can make it fail.
 */
struct model_ws *ms_tile_counter_new(const struct mapper_space *ms)
{
	struct strbuf err = STRBUF_INIT;
	struct model_ws *ws = model_ws_new(ms->spec, &ms->model_opt, &err);

	if (!ws)
		BUG("model workspace for the pre-check: %s", err.buf);
	strbuf_release(&err);
	return ws;
}

void ms_if_init(struct ms_if *fi, const struct mapper_space *ms)
{
	size_t total = 0, off = 0;
	unsigned l;

	memset(fi, 0, sizeof(*fi));
	for (l = 0; l < ms->n_levels; l++)
		total += (size_t)1 << __builtin_popcount(ms->lvl[l].free_mask);
	fi->keep_buf = xcalloc(total, sizeof(*fi->keep_buf));
	for (l = 0; l < ms->n_levels; l++) {
		fi->keep[l] = fi->keep_buf + off;
		off += (size_t)1 << __builtin_popcount(ms->lvl[l].free_mask);
	}
	fi->mws = ms_tile_counter_new(ms);
}

void ms_if_release(struct ms_if *fi)
{
	free(fi->keep_buf);
	fi->keep_buf = NULL;
	model_ws_free(fi->mws);
	fi->mws = NULL;
}

/* Unrank permutation 'r' of the 'm' items into 'out' (Lehmer code). */
static void unrank(const uint8_t *items, unsigned m, uint64_t r, uint8_t *out)
{
	uint8_t pool[SPEC_MAX_DIMS];
	unsigned i, j;

	memcpy(pool, items, m);
	for (i = 0; i < m; i++) {
		uint64_t fct = factorial(m - 1 - i);
		unsigned q = (unsigned)(r / fct);
		r %= fct;
		out[i] = pool[q];
		for (j = q; j + 1 < m - i; j++)
			pool[j] = pool[j + 1];
	}
}

/* Count the loops of tiling level 'tl' and list its free non-trivial ones. */
static void compute_orders(const struct mapper_space *ms, struct ms_if *fi, unsigned tl)
{
	const struct ms_tl *t = &ms->tl[tl];
	unsigned d, nt = 0, fn = 0;

	for (d = 0; d < ms->n_dims; d++) {
		if (fi->f[tl][d] <= 1)
			continue;
		nt++;
		if (!(t->ordered_mask & (1u << d)))
			fi->fn[tl][fn++] = (uint8_t)d;
	}
	fi->n_nt[tl] = (uint8_t)nt;
	fi->n_fn[tl] = (uint8_t)fn;
	fi->n_ranks[tl] = factorial(fn);
	fi->n_perm_digits[tl] = fi->n_ranks[tl] * (t->is_spatial ? nt + 1 : 1);
}

/* The non-trivial loops of 'tl' in the order of rank 'rank'; returns their count. */
static unsigned nontrivial_seq(const struct mapper_space *ms, const struct ms_if *fi,
			       unsigned tl, uint64_t rank, uint8_t *seq)
{
	const struct ms_tl *t = &ms->tl[tl];
	unsigned i, n = 0;

	for (i = 0; i < t->n_prefix; i++)
		if (fi->f[tl][t->prefix[i]] > 1)
			seq[n++] = t->prefix[i];
	unrank(fi->fn[tl], fi->n_fn[tl], rank, seq + n);
	n += fi->n_fn[tl];
	for (i = 0; i < t->n_suffix; i++)
		if (fi->f[tl][t->suffix[i]] > 1)
			seq[n++] = t->suffix[i];
	return n;
}

/* Trivial loops no constraint places, in dimension order; returns the count. */
static unsigned free_trivial(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
			     uint8_t *out)
{
	unsigned d, n = 0;
	for (d = 0; d < ms->n_dims; d++)
		if (fi->f[tl][d] <= 1 && !(ms->tl[tl].ordered_mask & (1u << d)))
			out[n++] = (uint8_t)d;
	return n;
}

/* Append 'n' dims of 'src' to 'perm' at '*len'. */
static void put(uint8_t *perm, unsigned *len, const uint8_t *src, unsigned n)
{
	memcpy(perm + *len, src, n);
	*len += n;
}

/*
 * The X loops of 'p' at 'tl' (the first p->split[tl] of its non-trivial
 * order) as a mask into '*xmask'; false when the X or Y product exceeds the
 * fan-out.
 */
static bool xy_fit(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
		   const struct ms_point *p, const uint8_t *seq, unsigned k, uint32_t *xmask)
{
	uint64_t px = 1, py = 1;
	unsigned i, c = p->split[tl];

	*xmask = 0;
	if (c > k)
		return false;
	for (i = 0; i < k; i++) {
		if (i < c) {
			px *= fi->f[tl][seq[i]];
			*xmask |= 1u << seq[i];
		} else {
			py *= fi->f[tl][seq[i]];
		}
	}
	return ms->tl[tl].may_thin || (px <= ms->tl[tl].fanout_x && py <= ms->tl[tl].fanout_y);
}

/*
 * The split of layout 'perm' at 'tl': with a free split, right after its last
 * non-trivial X loop; with a fixed one, that split if every non-trivial X
 * loop is before it and every non-trivial Y loop at or after it, else -1.
 */
static int layout_split(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
			const uint8_t *perm, uint32_t xmask)
{
	unsigned i, lo_y = ms->n_dims, hi_x = 0, s;
	bool any_x = false;

	for (i = 0; i < ms->n_dims; i++) {
		if (fi->f[tl][perm[i]] <= 1)
			continue;
		if (xmask & (1u << perm[i])) {
			hi_x = i;
			any_x = true;
		} else if (i < lo_y) {
			lo_y = i;
		}
	}
	if (ms->tl[tl].split < 0)
		return any_x ? (int)hi_x + 1 : 0;
	s = (unsigned)ms->tl[tl].split;
	return (!any_x || hi_x < s) && s <= lo_y ? (int)s : -1;
}

/*
 * Lay out the spatial loops of 'p' at 'tl' as a full permutation and split:
 * the prefix, the free X loops, j free trivial loops, the free Y loops, the
 * other free trivial loops, the suffix, for the first j that meets a fixed
 * split. False when the X or Y product exceeds the fan-out, or no layout
 * meets a fixed split.
 */
static bool spatial_layout(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
			   const struct ms_point *p, uint8_t *perm, unsigned *split)
{
	const struct ms_tl *t = &ms->tl[tl];
	uint8_t seq[SPEC_MAX_DIMS], triv[SPEC_MAX_DIMS], fnx[SPEC_MAX_DIMS], fny[SPEC_MAX_DIMS];
	uint32_t xmask;
	unsigned k, i, n_triv, n_fnx = 0, n_fny = 0, n_ntp = 0, j, len;
	int s;

	k = nontrivial_seq(ms, fi, tl, p->rank[tl], seq);
	if (!xy_fit(ms, fi, tl, p, seq, k, &xmask))
		return false;
	for (i = 0; i < t->n_prefix; i++)
		if (fi->f[tl][t->prefix[i]] > 1)
			n_ntp++;
	for (i = 0; i < fi->n_fn[tl]; i++) {
		uint8_t d = seq[n_ntp + i];
		if (xmask & (1u << d))
			fnx[n_fnx++] = d;
		else
			fny[n_fny++] = d;
	}
	n_triv = free_trivial(ms, fi, tl, triv);
	for (j = 0; j <= n_triv; j++) {
		len = 0;
		put(perm, &len, t->prefix, t->n_prefix);
		put(perm, &len, fnx, n_fnx);
		put(perm, &len, triv, j);
		put(perm, &len, fny, n_fny);
		put(perm, &len, triv + j, n_triv - j);
		put(perm, &len, t->suffix, t->n_suffix);
		if (len != ms->n_dims)
			BUG("spatial layout of %u dims, expected %u", len, ms->n_dims);
		if ((s = layout_split(ms, fi, tl, perm, xmask)) >= 0) {
			*split = (unsigned)s;
			return true;
		}
	}
	return false;
}

bool ms_spatial_ok(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
		   const struct ms_point *p)
{
	uint8_t perm[SPEC_MAX_DIMS];
	unsigned split;
	return spatial_layout(ms, fi, tl, p, perm, &split);
}

void ms_perm_digit_set(const struct ms_if *fi, unsigned tl, uint64_t digit, struct ms_point *p)
{
	uint64_t radix = fi->n_perm_digits[tl] / fi->n_ranks[tl];
	p->rank[tl] = digit / radix;
	p->split[tl] = (uint8_t)(digit % radix);
}

/* True when some arrangement of the spatial loops of 'tl' fits. */
static bool spatial_exists(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl)
{
	struct ms_point p;
	uint64_t dg;

	memset(&p, 0, sizeof(p));
	for (dg = 0; dg < fi->n_perm_digits[tl]; dg++) {
		if (dg >= SPATIAL_SCAN_CAP)
			return true;  /* the sampler reports a miss as a fan-out failure */
		ms_perm_digit_set(fi, tl, dg, &p);
		if (ms_spatial_ok(ms, fi, tl, &p))
			return true;
	}
	return false;
}

/* Fan-out, utilization and arrangement checks of spatial level 'tl'. */
static bool spatial_fits(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl)
{
	const struct ms_tl *t = &ms->tl[tl];
	uint64_t fan = (uint64_t)t->fanout_x * t->fanout_y, big, prod = 1;
	unsigned d;

	big = t->fanout_x > t->fanout_y ? t->fanout_x : t->fanout_y;
	for (d = 0; d < ms->n_dims; d++) {
		if (fi->f[tl][d] > big && !t->may_thin)
			return false;
		prod *= fi->f[tl][d];
		if (prod > fan && !t->may_thin)
			return false;
	}
	if ((double)prod < t->min_utilization * (double)fan - 1e-9)
		return false;
	return spatial_exists(ms, fi, tl);
}

/*
 * Tile words of every tensor at every storage level, as the model counts
 * them: a tile of an imperfect dimension is at most its bound (the last
 * tile of a level that covers the whole extent is its residual).
 */
static void compute_needs(const struct mapper_space *ms, struct ms_if *fi)
{
	uint64_t ext[SPEC_MAX_DIMS], tile[SPEC_MAX_DIMS];
	unsigned l, d, i, t, next = 0;

	for (d = 0; d < ms->n_dims; d++)
		ext[d] = 1;
	for (l = 0; l < ms->n_levels; l++) {
		for (i = next; i <= ms->lvl[l].tl_temporal; i++)
			for (d = 0; d < ms->n_dims; d++)
				ext[d] *= fi->f[i][d];
		next = ms->lvl[l].tl_temporal + 1u;
		for (d = 0; d < ms->n_dims; d++)
			tile[d] = ext[d] < ms->dim[d].bound ? ext[d] : ms->dim[d].bound;
		for (t = 0; t < ms->n_tensors; t++)
			fi->need[l][t] = model_tile_words(fi->mws, t, tile);
	}
}

/*
 * The residuals of an imperfect dimension's loops, inner to outer (the
 * mapspace's rule): the extent R left by the levels inside is covered in
 * ceil(R / f) tiles of f, the last of R - f (ceil(R / f) - 1); a fixed
 * factor above R is R.
 */
static void imperfect_residuals(const struct mapper_space *ms, struct ms_if *fi, unsigned d)
{
	uint64_t R = ms->dim[d].bound, f, q;
	unsigned tl;

	for (tl = 0; tl < ms->n_tl; tl++) {
		f = fi->f[tl][d] < R ? fi->f[tl][d] : R;
		fi->f[tl][d] = f;
		q = (R + f - 1) / f;
		fi->r[tl][d] = R - f * (q - 1);
		R = q;
	}
	if (R != 1)
		BUG("imperfect factors of dim %u leave %llu", d, (unsigned long long)R);
}

enum mapper_fail ms_if_load(const struct mapper_space *ms, const uint32_t *choice,
			    struct ms_if *fi, unsigned *fail_level)
{
	unsigned tl, d, i;

	for (tl = 0; tl < ms->n_tl; tl++)
		for (d = 0; d < ms->n_dims; d++)
			fi->f[tl][d] = ms->tl[tl].fixed[d] ? ms->tl[tl].fixed[d] : 1;
	for (d = 0; d < ms->n_dims; d++) {
		const struct ms_dim *dm = &ms->dim[d];
		const uint64_t *row = dm->choices + (size_t)choice[d] * dm->n_free;
		if (choice[d] >= dm->n_choices)
			BUG("choice %u of %u for dim %u", choice[d], dm->n_choices, d);
		for (i = 0; i < dm->n_free; i++)
			fi->f[dm->free_tl[i]][d] = row[i];
		if (dm->imperfect)
			imperfect_residuals(ms, fi, d);
		else
			for (tl = 0; tl < ms->n_tl; tl++)
				fi->r[tl][d] = fi->f[tl][d];
	}
	for (tl = 0; tl < ms->n_tl; tl++)
		compute_orders(ms, fi, tl);
	for (tl = 0; tl < ms->n_tl; tl++) {
		if (ms->tl[tl].is_spatial && !spatial_fits(ms, fi, tl)) {
			*fail_level = ms->tl[tl].level;
			return MAPPER_FAIL_FANOUT;
		}
	}
	compute_needs(ms, fi);
	return MAPPER_OK;
}

/* True when keeping 'mask' at level 'l' fits its capacity bounds. */
static bool level_fits(const struct mapper_space *ms, const struct ms_if *fi, unsigned l,
		       uint32_t mask)
{
	const struct ms_level *lv = &ms->lvl[l];
	uint32_t m = mask & lv->precheck_mask;
	uint64_t sum = 0;
	unsigned t;

	if (!lv->has_size)
		return true;
	for (t = 0; t < ms->n_tensors; t++) {
		if (!(m & (1u << t)))
			continue;
		sum = sum > UINT64_MAX - fi->need[l][t] ? UINT64_MAX : sum + fi->need[l][t];
	}
	if (sum > lv->cap_words)
		return false;
	if (m == mask && (double)sum < lv->min_words)
		return false;
	return true;
}

enum mapper_fail ms_if_keep_sets(const struct mapper_space *ms, struct ms_if *fi,
				 bool by_capacity, unsigned *fail_level)
{
	unsigned l;

	for (l = 0; l < ms->n_levels; l++) {
		const struct ms_level *lv = &ms->lvl[l];
		uint32_t sub = 0, n = 0;
		do {
			uint32_t mask = lv->force_keep | sub;
			if (!by_capacity || level_fits(ms, fi, l, mask))
				fi->keep[l][n++] = mask;
			sub = (sub - lv->free_mask) & lv->free_mask;
		} while (sub);
		fi->n_keep[l] = n;
		if (!n) {
			*fail_level = l;
			return MAPPER_FAIL_CAPACITY;
		}
	}
	return MAPPER_OK;
}

enum mapper_fail ms_keep_check(const struct mapper_space *ms, const struct ms_if *fi,
			       const uint32_t *keep, unsigned *fail_level)
{
	unsigned l;

	for (l = 0; l < ms->n_levels; l++) {
		if (!level_fits(ms, fi, l, keep[l])) {
			*fail_level = l;
			return MAPPER_FAIL_CAPACITY;
		}
	}
	return MAPPER_OK;
}

bool ms_point_spatial_ok(const struct mapper_space *ms, const struct ms_if *fi,
			 const struct ms_point *p, unsigned *fail_level)
{
	unsigned tl;

	for (tl = 0; tl < ms->n_tl; tl++) {
		if (ms->tl[tl].is_spatial && !ms_spatial_ok(ms, fi, tl, p)) {
			*fail_level = ms->tl[tl].level;
			return false;
		}
	}
	return true;
}

/* The full temporal permutation of 'p' at 'tl', innermost first. */
static void temporal_perm(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
			  const struct ms_point *p, uint8_t *perm)
{
	const struct ms_tl *t = &ms->tl[tl];
	uint8_t order[SPEC_MAX_DIMS], triv[SPEC_MAX_DIMS];
	unsigned len = 0, n_triv;

	unrank(fi->fn[tl], fi->n_fn[tl], p->rank[tl], order);
	n_triv = free_trivial(ms, fi, tl, triv);
	put(perm, &len, t->prefix, t->n_prefix);
	put(perm, &len, order, fi->n_fn[tl]);
	put(perm, &len, triv, n_triv);
	put(perm, &len, t->suffix, t->n_suffix);
	if (len != ms->n_dims)
		BUG("temporal permutation of %u dims, expected %u", len, ms->n_dims);
}

void ms_point_mapping(const struct mapper_space *ms, const struct ms_if *fi,
		      const struct ms_point *p, struct spec_mapping *m)
{
	unsigned l, d;

	memset(m->levels, 0, sizeof(m->levels[0]) * ms->n_levels);
	m->n_levels = ms->n_levels;
	m->n_dims = ms->n_dims;
	for (l = 0; l < ms->n_levels; l++) {
		struct spec_map_level *ml = &m->levels[l];
		unsigned tt = ms->lvl[l].tl_temporal, ts = ms->lvl[l].tl_spatial;
		for (d = 0; d < ms->n_dims; d++) {
			ml->temporal_factors[d] = fi->f[tt][d];
			ml->temporal_residuals[d] = fi->r[tt][d];
		}
		temporal_perm(ms, fi, tt, p, ml->temporal_perm);
		if (ts != MS_NO_TL) {
			ml->has_spatial = true;
			for (d = 0; d < ms->n_dims; d++) {
				ml->spatial_factors[d] = fi->f[ts][d];
				ml->spatial_residuals[d] = fi->r[ts][d];
			}
			if (!spatial_layout(ms, fi, ts, p, ml->spatial_perm, &ml->split))
				BUG("mapping of a point whose spatial loops do not fit");
		}
		ml->keep_mask = p->keep[l];
		ml->no_link_transfer_mask = ms->lvl[l].no_link_transfer;
		ml->no_multicast_mask = ms->lvl[l].no_multicast;
	}
	m->pad_mask = 0;
	for (d = 0; d < ms->n_dims; d++)
		if (ms->dim[d].bound != ms->spec->workload.bounds[d])
			m->pad_mask |= 1u << d;
	if (spec_mapping_derive(m, &ms->spec->workload) < 0)
		BUG("factors of a mapspace point do not multiply to the bounds");
}

/* The factor of dimension 'd' at tiling level 'tl' in mapping 'm'. */
static uint64_t mapping_factor(const struct mapper_space *ms, const struct spec_mapping *m,
			       unsigned tl, unsigned d)
{
	const struct spec_map_level *ml = &m->levels[ms->tl[tl].level];
	if (!ms->tl[tl].is_spatial)
		return ml->temporal_factors[d];
	return ml->has_spatial ? ml->spatial_factors[d] : 1;
}

/* Lehmer rank of 'order' (a permutation of the 'm' sorted 'items'). */
static uint64_t rank_of(const uint8_t *items, unsigned m, const uint8_t *order)
{
	uint8_t pool[SPEC_MAX_DIMS];
	uint64_t r = 0;
	unsigned i, j, q;

	memcpy(pool, items, m);
	for (i = 0; i < m; i++) {
		for (q = 0; q < m - i && pool[q] != order[i]; q++)
			;
		if (q == m - i)
			BUG("rank of an order that is not a permutation of its loops");
		r += q * factorial(m - 1 - i);
		for (j = q; j + 1 < m - i; j++)
			pool[j] = pool[j + 1];
	}
	return r;
}

/* The orders of mapping 'm' at 'tl' as a rank and split of 'p'; false if the
 * constraints do not allow them. */
static bool orders_of(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl,
		      const struct spec_mapping *m, struct ms_point *p)
{
	const struct ms_tl *t = &ms->tl[tl];
	const struct spec_map_level *ml = &m->levels[t->level];
	const uint8_t *perm = t->is_spatial ? ml->spatial_perm : ml->temporal_perm;
	uint8_t seq[SPEC_MAX_DIMS], want[SPEC_MAX_DIMS];
	unsigned i, k = 0, c = 0, n;

	for (i = 0; i < ms->n_dims; i++) {
		if (fi->f[tl][perm[i]] <= 1)
			continue;
		if (t->is_spatial && i < ml->split)
			c++;
		seq[k++] = perm[i];
	}
	if (k != fi->n_nt[tl])
		return false;
	n = 0;
	for (i = 0; i < t->n_prefix; i++)
		if (fi->f[tl][t->prefix[i]] > 1)
			n++;
	for (i = 0; i < fi->n_fn[tl]; i++)
		if (t->ordered_mask & (1u << seq[n + i]))
			return false;
	p->rank[tl] = rank_of(fi->fn[tl], fi->n_fn[tl], seq + n);
	p->split[tl] = (uint8_t)c;
	nontrivial_seq(ms, fi, tl, p->rank[tl], want);
	return !memcmp(seq, want, k) && (!t->is_spatial || ms_spatial_ok(ms, fi, tl, p));
}

int ms_point_from_mapping(const struct mapper_space *ms, struct ms_if *fi,
			  const struct spec_mapping *m, struct ms_point *p)
{
	unsigned d, i, tl, l, lvl;

	memset(p, 0, sizeof(*p));
	if (m->n_levels != ms->n_levels || m->n_dims != ms->n_dims)
		return -1;
	for (d = 0; d < ms->n_dims; d++) {
		const struct ms_dim *dm = &ms->dim[d];
		uint64_t row[MS_MAX_TL];
		uint32_t r;
		for (tl = 0; tl < ms->n_tl; tl++)
			if (ms->tl[tl].fixed[d] && mapping_factor(ms, m, tl, d) != ms->tl[tl].fixed[d])
				return -1;
		for (i = 0; i < dm->n_free; i++)
			row[i] = mapping_factor(ms, m, dm->free_tl[i], d);
		if ((r = ms_choice_find(ms, d, row)) == UINT32_MAX)
			return -1;
		p->choice[d] = r;
	}
	if (ms_if_load(ms, p->choice, fi, &lvl) != MAPPER_OK)
		return -1;
	for (l = 0; l < ms->n_levels; l++) {
		const struct ms_level *lv = &ms->lvl[l];
		p->keep[l] = m->levels[l].keep_mask & ms->all_tensors;
		if ((p->keep[l] & lv->force_keep) != lv->force_keep || (p->keep[l] & lv->force_bypass))
			return -1;
	}
	for (tl = 0; tl < ms->n_tl; tl++)
		if (!orders_of(ms, fi, tl, m, p))
			return -1;
	return 0;
}

void ms_random_choice(const struct mapper_space *ms, struct rng *r, uint32_t *choice)
{
	unsigned d;
	for (d = 0; d < ms->n_dims; d++)
		choice[d] = ms->dim[d].n_choices > 1 ? (uint32_t)rng_below(r, ms->dim[d].n_choices) : 0;
}

void ms_random_keep(const struct mapper_space *ms, const struct ms_if *fi, struct rng *r,
		    struct ms_point *p)
{
	unsigned l;
	for (l = 0; l < ms->n_levels; l++)
		p->keep[l] = fi->keep[l][fi->n_keep[l] > 1 ? rng_below(r, fi->n_keep[l]) : 0];
}

bool ms_random_orders(const struct mapper_space *ms, const struct ms_if *fi, struct rng *r,
		      struct ms_point *p)
{
	unsigned tl, tries;

	for (tl = 0; tl < ms->n_tl; tl++) {
		uint64_t n = fi->n_perm_digits[tl], dg, start;
		ms_perm_digit_set(fi, tl, n > 1 ? rng_below(r, n) : 0, p);
		if (!ms->tl[tl].is_spatial || ms_spatial_ok(ms, fi, tl, p))
			continue;
		for (tries = 0; tries < 16; tries++) {
			ms_perm_digit_set(fi, tl, rng_below(r, n), p);
			if (ms_spatial_ok(ms, fi, tl, p))
				break;
		}
		if (tries < 16)
			continue;
		start = rng_below(r, n);
		for (dg = 0; dg < n && dg < SPATIAL_SCAN_CAP; dg++) {
			ms_perm_digit_set(fi, tl, (start + dg) % n, p);
			if (ms_spatial_ok(ms, fi, tl, p))
				break;
		}
		if (dg == n || dg == SPATIAL_SCAN_CAP)
			return false;
	}
	return true;
}

void ms_choice_decode(const struct mapper_space *ms, uint64_t idx, uint32_t *choice)
{
	unsigned d;
	for (d = 0; d < ms->n_dims; d++) {
		choice[d] = (uint32_t)(idx % ms->dim[d].n_choices);
		idx /= ms->dim[d].n_choices;
	}
}

uint32_t ms_choice_find(const struct mapper_space *ms, unsigned d, const uint64_t *row)
{
	const struct ms_dim *dm = &ms->dim[d];
	uint32_t lo = 0, hi = dm->n_choices;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const uint64_t *x = dm->choices + (size_t)mid * dm->n_free;
		unsigned i;
		int c = 0;
		for (i = 0; i < dm->n_free && !c; i++)
			c = cmp_u64(x[i], row[i]);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

void ms_free_order(const struct ms_if *fi, unsigned tl, uint64_t rank, uint8_t *out)
{
	unrank(fi->fn[tl], fi->n_fn[tl], rank, out);
}

uint64_t ms_free_rank(const struct ms_if *fi, unsigned tl, const uint8_t *order)
{
	return rank_of(fi->fn[tl], fi->n_fn[tl], order);
}

unsigned ms_seq(const struct mapper_space *ms, const struct ms_if *fi, unsigned tl, uint64_t rank,
		uint8_t *seq)
{
	return nontrivial_seq(ms, fi, tl, rank, seq);
}

bool ms_tl_arrangement_exists(const struct mapper_space *ms, unsigned tl, const uint64_t *factors)
{
	struct ms_if *fi = xcalloc(1, sizeof(*fi));
	bool ok;

	memcpy(fi->f[tl], factors, sizeof(fi->f[tl]));
	compute_orders(ms, fi, tl);
	ok = spatial_exists(ms, fi, tl);
	free(fi);
	return ok;
}
