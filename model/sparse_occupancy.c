/*
 * Occupancy of the kept tiles (semantics 4.3.3, 4.3.4, 4.7, 3.2):
 * expected data and metadata occupancy over the tile's occupancy
 * distribution (empty tiles are never sent when the parent keeps
 * metadata), the expected format accesses, the capacity a tile reserves
 * (its max occupancy, or less under overbooking), the metadata capacity
 * check, and the vector-access correction of compressed tiles.
 */
#include "model/sparse_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* P0 of the tiles of a layout given the data tile's occupancy. */
struct pe_ctx {
	struct density_model *m;
	const struct sp_tile *st;
};

/* fmt_p_empty_fn: entry 0 is a scalar, entry r + 1 the tile of rank r. */
static double p_empty(void *ctx, unsigned entry, uint64_t occupancy)
{
	const struct pe_ctx *pc = ctx;
	const struct sp_tile *st = pc->st;
	struct density_constraint c;
	struct density_tile t;
	unsigned i;

	c.parent = st->dtile;
	c.occupancy = occupancy;
	if (entry == 0) {
		t = st->dtile;
		for (i = 0; i < t.n_ranks; i++)
			t.extent[i] = 1;
	} else {
		t = density_tile_box(st->dtile.n_ranks, st->asg.rank[entry - 1].tile_extent);
	}
	return density_prob_empty(pc->m, &t, &c);
}

/* Make room for 'n' probabilities in the scratch buffer. */
static double *probs_reserve(struct sparse_ws *sp, size_t n)
{
	if (n > sp->probs_alloc) {
		free(sp->probs);
		sp->probs_alloc = n > 2 * sp->probs_alloc ? n : 2 * sp->probs_alloc;
		sp->probs = xmalloc(sp->probs_alloc * sizeof(double));
	}
	return sp->probs;
}

/*
 * The unconstrained occupancy distribution of a tile, P(n) for
 * n = n_min .. n_max (semantics 4.3.3); returns the count, n_min in '*lo'.
 */
static size_t distribution(struct sparse_ws *sp, struct density_model *m,
			   const struct sp_tile *st, uint64_t shape, uint64_t *lo)
{
	uint64_t hi = density_max_occupancy(m, &st->dtile, 1.0), n;
	double *p;

	*lo = (uint64_t)floor(density_min_density(m, &st->dtile) * (double)shape);
	if (*lo > hi)
		*lo = hi;
	n = hi - *lo + 1;
	p = probs_reserve(sp, (size_t)n);
	density_prob_range(m, &st->dtile, NULL, *lo, (size_t)n, p);
	return (size_t)n;
}

/*
 * ceil(x) as a count in '*out'; false when that is 2^64 or more, which no
 * count may be (converting it would be undefined).
 */
static bool ceil_count(double x, uint64_t *out)
{
	double c = ceil(x);

	if (!(c < 0x1p64))
		return false;
	*out = c > 0 ? (uint64_t)c : 0;
	return true;
}

/*
 * Expected format accesses: one traversal of the metadata per 'shape'
 * accesses. Returns false when one passes 2^64 - 1.
 */
static bool format_accesses(const struct sp_tile *st, struct model_tile *t)
{
	uint64_t x[MODEL_FMT_OP_COUNT] = { t->reads, t->fills, t->updates };
	unsigned op, r;
	bool ok = true;

	memset(t->fmt_access, 0, sizeof(t->fmt_access));
	for (op = 0; op < MODEL_FMT_OP_COUNT; op++) {
		double ratio = t->shape ? (double)x[op] / (double)t->shape : 0;
		for (r = 0; r < t->n_fmt_ranks; r++) {
			uint64_t *a = t->fmt_access[op][MODEL_FMT_ACTUAL][r];
			ok &= ceil_count(st->exp_md.rank[r].metadata_units * ratio, &a[0]);
			ok &= ceil_count(st->exp_md.rank[r].payload_units * ratio, &a[1]);
		}
	}
	return ok;
}

/* The failure of a tile whose format counts would pass 2^64 - 1. */
static int format_too_large(struct model_ws *ws, unsigned l, unsigned pv,
			    struct model_result *out, const char *what)
{
	return model_result_fail(out, EVAL_TOO_LARGE, (int)l, (int)pv, "the format %s of '%s' at "
				 "'%s' would pass 2^64 - 1", what,
				 ws->s->workload.tensors[pv].name, ws->s->arch.levels[l].name);
}

/* ------------------------------------------------------------------- memo */

void model_sparse_memo_reset(struct sparse_ws *sp, size_t n)
{
	size_t i;

	if (n > sp->memo_alloc) {
		free(sp->memo);
		sp->memo = xmalloc(n * sizeof(*sp->memo));
		sp->memo_alloc = n;
	}
	for (i = 0; i < n; i++)
		sp->memo[i].valid = false;
}

/* Does the metadata part of the key of 'st' match the memo's? */
static bool same_layout(const struct sp_occ_memo *mo, const struct sp_tile *st)
{
	const struct fmt_layout *a = &mo->lay, *b = &st->lay;
	size_t n = b->n_ranks, ext = st->dtile.n_ranks * sizeof(uint64_t);
	unsigned r;

	if (a->n_ranks != b->n_ranks || a->inner_to_outer != b->inner_to_outer ||
	    memcmp(a->kind, b->kind, n * sizeof(a->kind[0])) ||
	    memcmp(a->fiber_shape, b->fiber_shape, n * sizeof(a->fiber_shape[0])) ||
	    memcmp(a->fixed_coords, b->fixed_coords, n * sizeof(a->fixed_coords[0])) ||
	    memcmp(a->metadata_word_bits, b->metadata_word_bits,
		   n * sizeof(a->metadata_word_bits[0])) ||
	    memcmp(a->payload_word_bits, b->payload_word_bits,
		   n * sizeof(a->payload_word_bits[0])))
		return false;
	for (r = 0; r < n; r++)
		if (memcmp(mo->tile_extent[r], st->asg.rank[r].tile_extent, ext))
			return false;
	return true;
}

/* The memo of tile (l, pv) when it holds this tile's key, else NULL. */
static struct sp_occ_memo *memo_find(struct model_ws *ws, unsigned l, unsigned pv, bool drop,
				     uint64_t shape)
{
	struct sp_occ_memo *mo = &ws->sp->memo[l * ws->n_tensors + pv];
	const struct sp_tile *st = &ws->sp->t[l][pv];

	if (!mo->valid || mo->shape != shape || mo->drop != drop ||
	    mo->has_metadata != st->has_metadata || mo->dtile.n_ranks != st->dtile.n_ranks ||
	    memcmp(mo->dtile.extent, st->dtile.extent, st->dtile.n_ranks * sizeof(uint64_t)) ||
	    (st->has_metadata && !same_layout(mo, st)))
		return NULL;
	return mo;
}

/* Record the occupancy 'e' of tile (l, pv) under its key. */
static void memo_store(struct model_ws *ws, unsigned l, unsigned pv, bool drop, uint64_t shape,
		       const struct fmt_expected *e)
{
	struct sp_occ_memo *mo = &ws->sp->memo[l * ws->n_tensors + pv];
	const struct sp_tile *st = &ws->sp->t[l][pv];
	unsigned r;

	mo->valid = true;
	mo->cap_valid = false;
	mo->shape = shape;
	mo->drop = drop;
	mo->has_metadata = st->has_metadata;
	mo->dtile = st->dtile;
	if (st->has_metadata) {
		mo->lay = st->lay;
		for (r = 0; r < st->lay.n_ranks; r++)
			memcpy(mo->tile_extent[r], st->asg.rank[r].tile_extent,
			       st->dtile.n_ranks * sizeof(uint64_t));
	}
	mo->e = *e;
}

/* ------------------------------------------------------------------------ */

/*
 * Expected occupancy of one kept tile (l, pv); -1 when its format counts
 * are too large. The same key as the last evaluation's tile (l, pv) gives
 * the same occupancy: taken from the memo.
 */
static int tile_occupancy(struct model_ws *ws, unsigned l, unsigned pv,
			  struct model_result *out)
{
	struct sparse_ws *sp = ws->sp;
	struct sp_tile *st = &sp->t[l][pv];
	struct model_tile *t = &out->tiles[l][pv];
	struct pe_ctx pc = { sp->density[pv], st };
	struct fmt_expected e;
	const struct sp_occ_memo *mo;
	bool drop = t->parent_level >= 0 && out->tiles[t->parent_level][pv].has_metadata;

	mo = memo_find(ws, l, pv, drop, t->shape);
	if (mo) {
		e = mo->e;
	} else {
		uint64_t lo;
		size_t n = distribution(sp, sp->density[pv], st, t->shape, &lo);
		fmt_expected_occupancy(st->has_metadata ? &st->lay : NULL, lo, n, sp->probs, drop,
				       p_empty, &pc, &e);
		memo_store(ws, l, pv, drop, t->shape, &e);
	}
	t->avg_replication *= e.keep_ratio;
	st->keep_ratio = t->keep_ratio = e.keep_ratio;
	t->expected_occupancy = e.data_occupancy;
	t->expected_density = t->shape ? e.data_occupancy / (double)t->shape : 0;
	st->exp_md = e.metadata;
	if (st->has_metadata && !format_accesses(st, t))
		return format_too_large(ws, l, pv, out, "accesses");
	return 0;
}

int model_sparse_occupancy(struct model_ws *ws, struct model_result *out)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++)
		for (pv = 0; pv < ws->n_tensors; pv++) {
			ws->sp->t[l][pv].keep_ratio = 1.0;
			if (out->tiles[l][pv].is_kept && out->tiles[l][pv].shape &&
			    tile_occupancy(ws, l, pv, out) < 0)
				return -1;
		}
	return 0;
}

/* ---------------------------------------------------------------- capacity */

/* The metadata units of a tile holding 'occ' non-zeros. */
static void units_at(struct model_ws *ws, unsigned pv, const struct sp_tile *st, uint64_t occ,
		     struct fmt_tile_occupancy *u)
{
	struct pe_ctx pc = { ws->sp->density[pv], st };
	double sub[SPEC_MAX_FMT_RANKS];
	unsigned r;

	for (r = 0; r < st->n_ranks; r++)
		sub[r] = p_empty(&pc, r, occ);
	fmt_tile_occupancy(&st->lay, p_empty(&pc, st->n_ranks, occ), sub, u);
}

/* Max occupancy and metadata bits of a tile at confidence 'conf'. */
static uint64_t at_confidence(struct model_ws *ws, unsigned pv, const struct sp_tile *st,
			      double conf, struct fmt_tile_occupancy *u, double *bits)
{
	uint64_t occ = density_max_occupancy(ws->sp->density[pv], &st->dtile, conf);

	units_at(ws, pv, st, occ, u);
	*bits = fmt_tile_bits(&st->lay, u, true);
	return occ;
}

/* Capacity shares of a level: data words and metadata bits per tile. */
struct share {
	double data, md_bits;
};

static struct share level_share(struct model_ws *ws, unsigned l, unsigned pv,
				const struct model_result *out)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	struct share s = { 0, 0 };
	double total = 0, mine = 0;
	unsigned k;

	for (k = 0; k < ws->n_tensors; k++) {
		const struct model_tile *t = &out->tiles[l][k];
		double v;
		if (!t->is_kept)
			continue;
		v = t->is_compressed ? t->expected_occupancy : (double)t->shape;
		total += v;
		if (k == pv)
			mine = v;
	}
	if (total > 0) {
		s.data = ceil((double)lvl->effective_size_words * mine / total);
		s.md_bits = ceil((double)lvl->effective_metadata_size_bits * mine / total);
	}
	return s;
}

/*
 * The confidence of a compressed tile on an overbooking level: 1 when its
 * max occupancy and metadata fit its share, else the largest (to 1%) at
 * which they still fit (or 'conf' when even that does not fit).
 */
static double overbook(struct model_ws *ws, unsigned l, unsigned pv, const struct sp_tile *st,
		       double conf, const struct model_result *out)
{
	struct share sh = level_share(ws, l, pv, out);
	bool md_bounded = ws->s->arch.levels[l].has_metadata_storage_depth;
	struct fmt_tile_occupancy u;
	double lo = conf, hi = 1.0, bits;
	uint64_t occ = at_confidence(ws, pv, st, lo, &u, &bits);

	if ((double)occ > sh.data || (md_bounded && bits > sh.md_bits))
		return conf;
	occ = at_confidence(ws, pv, st, hi, &u, &bits);
	if ((double)occ <= sh.data && (!md_bounded || bits <= sh.md_bits))
		return hi;             /* the whole distribution fits: no overbooking */
	while (hi - lo > 0.01) {
		double mid = (lo + hi) / 2;
		occ = at_confidence(ws, pv, st, mid, &u, &bits);
		if ((double)occ <= sh.data && (!md_bounded || bits <= sh.md_bits))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Utilized capacity and format capacity of a metadata-bearing tile; its
 * bits in '*bits'. Returns -1 when a format capacity passes 2^64 - 1.
 */
static int tile_capacity(struct model_ws *ws, unsigned l, unsigned pv,
			 struct model_result *out, double *bits)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	const struct sp_tile *st = &ws->sp->t[l][pv];
	struct model_tile *t = &out->tiles[l][pv];
	/* tile_occupancy() set this tile's memo key in this evaluation */
	struct sp_occ_memo *mo = &ws->sp->memo[l * ws->n_tensors + pv];
	double conf = lvl->has_size && lvl->allow_overbooking ? 0.0 : 1.0;
	unsigned r;

	if (conf < 1 && st->compressed)
		conf = overbook(ws, l, pv, st, conf, out);
	t->confidence = conf;
	if (!mo->cap_valid || mo->cap_conf != conf) {
		mo->cap_occ = at_confidence(ws, pv, st, conf, &mo->cap_u, &mo->cap_bits);
		mo->cap_conf = conf;
		mo->cap_valid = true;
	}
	t->utilized_capacity = mo->cap_occ;
	*bits = mo->cap_bits;
	for (r = 0; r < t->n_fmt_ranks; r++)
		if (!ceil_count(mo->cap_u.rank[r].metadata_units, &t->fmt_capacity[r][0]) ||
		    !ceil_count(mo->cap_u.rank[r].payload_units, &t->fmt_capacity[r][1]))
			return format_too_large(ws, l, pv, out, "capacity");
	return 0;
}

/* Timeloop's VectorWidthCoefficientTable: rows for blocks 2, 4, 8, 16, 32. */
static const uint16_t vector_table[5][10] = {
	{ 251, 125, 84, 63, 51, 42, 36, 32, 28, 1 },
	{ 375, 188, 125, 94, 75, 63, 54, 47, 42, 1 },
	{ 438, 219, 146, 110, 88, 73, 63, 55, 49, 1 },
	{ 469, 235, 157, 118, 94, 79, 67, 59, 52, 1 },
	{ 485, 243, 162, 122, 97, 81, 70, 61, 52, 1 },
};

/* Row of block size b in the table, or -1. */
static int vector_row(unsigned b)
{
	int row;

	for (row = 0; row < 5; row++)
		if (b == 2u << row)
			return row;
	return -1;
}

/*
 * The vector-access ratio of a compressed tile (semantics 3.2): when the
 * tile is small against the table's threshold, the expected vector
 * accesses of a compressed tile of n non-zeros, ceil(n / B), over the dense
 * estimate shape d / B.
 */
static double vector_ratio(struct model_ws *ws, unsigned l, unsigned pv,
			   const struct model_tile *t)
{
	unsigned b = ws->s->arch.levels[l].block_size;
	const struct sp_tile *st = &ws->sp->t[l][pv];
	double d = t->expected_density, num = 0, *p;
	int row = vector_row(b), idx;
	uint64_t n, hi;

	if (!t->is_compressed || b <= 1 || d >= 1.0 || row < 0 || d <= 0)
		return 1.0;
	idx = d >= 0.1 ? (int)floor(d / 0.1) - 1 : 0;
	if (idx < 0 || idx > 9 || vector_table[row][idx] <= t->shape / b)
		return 1.0;
	hi = density_max_occupancy(ws->sp->density[pv], &st->dtile, 1.0);
	if (hi > t->shape)
		hi = t->shape;
	if (hi < 1)
		return 1.0;
	p = probs_reserve(ws->sp, (size_t)hi);
	density_prob_range(ws->sp->density[pv], &st->dtile, NULL, 1, (size_t)hi, p);
	for (n = 1; n <= hi; n++)
		num += (double)((n + b - 1) / b) * p[n - 1];
	return num / ((double)t->shape * d / (double)b);
}

int model_sparse_capacity(struct model_ws *ws, struct model_result *out)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &ws->s->arch.levels[l];
		double bits = 0, big = 0;
		int big_pv = -1;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			double b;
			if (!t->is_kept || !t->shape || !t->has_metadata)
				continue;
			if (tile_capacity(ws, l, pv, out, &b) < 0)
				return -1;
			t->vector_ratio = vector_ratio(ws, l, pv, t);
			bits += b;
			if (b >= big) {
				big = b;
				big_pv = (int)pv;
			}
		}
		if (lvl->has_metadata_storage_depth && bits > (double)lvl->effective_metadata_size_bits)
			return model_result_fail(out, EVAL_METADATA_CAPACITY, (int)l, big_pv,
						 "metadata at '%s' needs %.0f bits (the largest, '%s', "
						 "%.0f), it holds %llu", lvl->name, bits,
						 ws->s->workload.tensors[big_pv].name, big,
						 (unsigned long long)lvl->effective_metadata_size_bits);
	}
	return 0;
}
