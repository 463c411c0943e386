/*
 * The partitioner (docs/poplibs.md §2, SparsePartitioner): the rows of
 * each X/Y partition are cut into P_z near-equal chunks, one sub-group per
 * bucket; a bucket over its nz or metaInfo capacity gives up rows from the
 * end of its sub-group; the overflow pieces, largest first, are placed in
 * the buckets p, p-1, p-2, ... (cyclically) of ever larger ranges: the
 * P_z buckets of the same X/Y partition, the P_y P_z of the same X, the
 * whole IPU, each first without then with splitting a row. The propagation
 * header follows from the largest distance between a sub-group and the
 * bucket holding it, in the order the buckets are shifted.
 */
#include "accel/ipu_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"

/* A pending overflow piece of partition 'sg', spilled from bucket 'src'. */
struct piece {
	uint64_t src;
	uint32_t sg;
	uint32_t n, alloc;
	struct ipu_row *rows;
	uint64_t nz;
};

static void rows_push(struct ipu_row **rows, uint32_t *n, uint32_t *alloc, struct ipu_row r)
{
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 4;
		*rows = xreallocarray(*rows, *alloc, sizeof(**rows));
	}
	(*rows)[(*n)++] = r;
}

/* The sub-group of partition 'sg' in bucket 'b', or NULL. */
static struct ipu_subgroup *bucket_find(struct ipu_bucket *b, uint32_t sg)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->sgs[i].sg == sg)
			return &b->sgs[i];
	return NULL;
}

/*
 * Add rows[0..n) of partition 'sg' to bucket 'b' (rows copied): appended
 * to the bucket's sub-group of that partition when it has one (2 words a
 * row plus its blocks), else a new sub-group (plus its header).
 */
static void bucket_add(const struct ipu_part_cfg *c, struct ipu_bucket *b, uint32_t sg,
		       const struct ipu_row *rows, uint32_t n)
{
	struct ipu_subgroup *s = bucket_find(b, sg);
	uint64_t nz = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		nz += rows[i].nz;
	if (!s) {
		if (b->n == b->alloc) {
			b->alloc = b->alloc ? 2 * b->alloc : 2;
			b->sgs = xreallocarray(b->sgs, b->alloc, sizeof(*b->sgs));
		}
		s = &b->sgs[b->n++];
		memset(s, 0, sizeof(*s));
		s->sg = sg;
		b->meta += c->fixed_meta;
	}
	s->rows = xreallocarray(s->rows, (size_t)s->n_rows + n + 1, sizeof(*s->rows));
	memcpy(s->rows + s->n_rows, rows, n * sizeof(*rows));
	s->n_rows += n;
	s->nz += nz;
	b->nz += nz;
	b->meta += 2 * (uint64_t)n + nz;
}

static bool bucket_fits(const struct ipu_part_cfg *c, const struct ipu_bucket *b)
{
	return b->nz <= c->cap_groups && b->meta + 1 <= c->cap_meta;
}

/*
 * Chunk v of [0, n) cut by splitRegions into V = ceil(n / ceil(n / P_z))
 * pieces: [floor(v n / V), floor((v + 1) n / V)) (§2 "Initial assignment").
 */
static void initial_assignment(struct ipu_layout *lay, uint32_t part, const struct ipu_row *rows,
			       uint32_t n_rows)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	uint64_t n = 0, V, v, pos = 0, x = part / c->py, y = part % c->py;
	struct ipu_row *tmp = xmalloc((n_rows ? n_rows : 1) * sizeof(*tmp));
	uint32_t i = 0, k;
	uint64_t used = 0;     /* nz of rows[i] already placed */

	for (k = 0; k < n_rows; k++)
		n += rows[k].nz;
	if (n == 0) {
		free(tmp);
		return;
	}
	V = ceil_div_u64(n, ceil_div_u64(n, c->pz));
	for (v = 0; v < V; v++) {
		uint64_t hi = (v + 1) * n / V;
		uint32_t m = 0;
		while (pos < hi) {
			uint64_t take = rows[i].nz - used;
			if (take > hi - pos)
				take = hi - pos;
			tmp[m++] = (struct ipu_row){ rows[i].row, (uint32_t)take };
			pos += take;
			used += take;
			if (used == rows[i].nz) {
				i++;
				used = 0;
			}
		}
		bucket_add(c, &lay->buckets[(x * c->py + y) * c->pz + v], part, tmp, m);
	}
	free(tmp);
}

/* Rows from the end of the (single) sub-group of 'b' until it fits (removeRows). */
static void trim_bucket(const struct ipu_part_cfg *c, struct ipu_bucket *b, uint64_t pn,
			struct piece **pend, size_t *n_pend, size_t *alloc_pend)
{
	struct ipu_subgroup *s;
	struct piece p;
	uint32_t keep, i;

	if (b->n == 0 || bucket_fits(c, b))
		return;
	s = &b->sgs[0];
	keep = s->n_rows;
	while (keep > 0 && !bucket_fits(c, b)) {
		keep--;
		b->nz -= s->rows[keep].nz;
		s->nz -= s->rows[keep].nz;
		b->meta -= 2 + s->rows[keep].nz;
		if (keep == 0)
			b->meta -= c->fixed_meta;
	}
	memset(&p, 0, sizeof(p));
	p.src = pn;
	p.sg = s->sg;
	for (i = keep; i < s->n_rows; i++) {
		rows_push(&p.rows, &p.n, &p.alloc, s->rows[i]);
		p.nz += s->rows[i].nz;
	}
	s->n_rows = keep;
	if (keep == 0) {
		free(s->rows);
		b->n = 0;
	}
	if (*n_pend == *alloc_pend) {
		*alloc_pend = *alloc_pend ? 2 * *alloc_pend : 16;
		*pend = xreallocarray(*pend, *alloc_pend, sizeof(**pend));
	}
	(*pend)[(*n_pend)++] = p;
}

/* Larger pieces first by (metaInfo, nz) (PNBucket::operator>); then by source. */
static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	uint64_t mx = 2 * (uint64_t)x->n + x->nz, my = 2 * (uint64_t)y->n + y->nz;

	if (mx != my)
		return mx > my ? -1 : 1;
	if (x->nz != y->nz)
		return x->nz > y->nz ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/*
 * Place what fits of piece 'p' into bucket 't': the whole piece, else
 * (findPartitionsToRemove) its leading rows at 2 words plus their nz each
 * after one sub-group header (none when 't' already holds a sub-group of
 * the same partition: the rows join it), and with 'split' part of the
 * next row.
 */
static void place_in(const struct ipu_part_cfg *c, struct ipu_bucket *t, struct piece *p, bool split)
{
	uint64_t free_meta, free_nz, budget;
	uint32_t k = 0;
	struct ipu_row part;

	uint64_t header;

	if (t->meta + 1 >= c->cap_meta || t->nz >= c->cap_groups)
		return;
	free_meta = c->cap_meta - 1 - t->meta;
	free_nz = c->cap_groups - t->nz;
	header = bucket_find(t, p->sg) ? 0 : c->fixed_meta;
	if (header + 2 * (uint64_t)p->n + p->nz <= free_meta && p->nz <= free_nz) {
		bucket_add(c, t, p->sg, p->rows, p->n);
		p->n = 0;
		p->nz = 0;
		return;
	}
	if (free_meta <= header)
		return;
	budget = free_meta - header;
	while (k < p->n && 2 + (uint64_t)p->rows[k].nz <= budget && p->rows[k].nz <= free_nz) {
		budget -= 2 + (uint64_t)p->rows[k].nz;
		free_nz -= p->rows[k].nz;
		k++;
	}
	part.nz = 0;
	if (split && k < p->n && budget > 2 && free_nz > 0) {
		uint64_t take = budget - 2 < free_nz ? budget - 2 : free_nz;
		part = (struct ipu_row){ p->rows[k].row, (uint32_t)take };
	}
	if (k == 0 && part.nz == 0)
		return;
	if (part.nz) {
		struct ipu_row *tmp = xmalloc((k + 1) * sizeof(*tmp));
		memcpy(tmp, p->rows, k * sizeof(*tmp));
		tmp[k] = part;
		bucket_add(c, t, p->sg, tmp, k + 1);
		free(tmp);
		p->rows[k].nz -= part.nz;
	} else {
		bucket_add(c, t, p->sg, p->rows, k);
	}
	memmove(p->rows, p->rows + k, (p->n - k) * sizeof(*p->rows));
	p->n -= k;
	p->nz = 0;
	for (k = 0; k < p->n; k++)
		p->nz += p->rows[k].nz;
}

/* A bucket that can take nothing more: no block or no metaInfo word left. */
static bool bucket_full(const struct ipu_part_cfg *c, const struct ipu_bucket *b)
{
	return b->meta + 1 >= c->cap_meta || b->nz >= c->cap_groups;
}

/*
 * The last bucket not full in [lo, hi] (a bitmap of the buckets with room),
 * or -1. Full buckets are skipped: place_in() would take nothing there.
 */
static int64_t prev_open(const uint64_t *open, uint64_t lo, uint64_t hi)
{
	uint64_t w = hi / 64, b;

	if (hi < lo)
		return -1;
	for (;;) {
		uint64_t word = open[w];
		if (w == hi / 64 && hi % 64 != 63)
			word &= (2ull << (hi % 64)) - 1;
		if (word) {
			b = w * 64 + 63 - (uint64_t)__builtin_clzll(word);
			return b >= lo ? (int64_t)b : -1;
		}
		if (w == 0 || w * 64 <= lo)
			return -1;
		w--;
	}
}

/*
 * One pass of the rebalancing over ranges of 'range' buckets
 * (balanceBuckets): pieces largest first, each offered to the buckets p,
 * p - 1, ... of its range, cyclically.
 */
static void rebalance(struct ipu_layout *lay, struct piece *pend, size_t n_pend, uint64_t range,
		      bool split)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	uint64_t *open = xcalloc(lay->n_buckets / 64 + 1, sizeof(*open)), t;
	size_t i;

	for (t = 0; t < lay->n_buckets; t++)
		if (!bucket_full(c, &lay->buckets[t]))
			open[t / 64] |= 1ull << (t % 64);
	qsort(pend, n_pend, sizeof(*pend), cmp_piece);
	for (i = 0; i < n_pend; i++) {
		struct piece *p = &pend[i];
		uint64_t base = p->src / range * range, last = base + range - 1;
		int64_t at = prev_open(open, base, p->src);
		bool wrapped = false;
		while (p->n > 0) {
			if (at < 0) {
				if (wrapped || p->src == last)
					break;
				wrapped = true;
				at = prev_open(open, p->src + 1, last);
				continue;
			}
			place_in(c, &lay->buckets[at], p, split);
			if (bucket_full(c, &lay->buckets[at]))
				open[at / 64] &= ~(1ull << (at % 64));
			if (at == 0 || (uint64_t)at == base) {
				at = -1;
				continue;
			}
			at = wrapped ? prev_open(open, p->src + 1, (uint64_t)at - 1)
				     : prev_open(open, base, (uint64_t)at - 1);
		}
	}
	free(open);
}

/* Distances of every sub-group to its bucket, in the Fwd and GradA orders (§2). */
static void header(struct ipu_layout *lay)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	uint64_t pn;
	uint32_t i;

	lay->xbits = xcalloc(c->px, 1);
	lay->ybits = xcalloc(c->py, 1);
	for (pn = 0; pn < lay->n_buckets; pn++) {
		const struct ipu_bucket *b = &lay->buckets[pn];
		unsigned xb = (unsigned)(pn / ((uint64_t)c->py * c->pz)), yb = (unsigned)(pn / c->pz % c->py);
		for (i = 0; i < b->n; i++) {
			unsigned xs = b->sgs[i].sg / c->py, ys = b->sgs[i].sg % c->py;
			unsigned dx = (xs + c->px - xb) % c->px, dy = (ys + c->py - yb) % c->py;
			lay->n_subgroups++;
			if (dx || dy) {
				lay->n_spilled++;
				lay->spilled_groups += b->sgs[i].nz;
			}
			lay->xbits[dx] = 1;
			lay->ybits[dy] = 1;
			if (dx > lay->dx_max || (dx == lay->dx_max && dy > lay->dy_max)) {
				lay->dx_max = dx;
				lay->dy_max = dy;
			}
			if (dy > lay->gdx_max || (dy == lay->gdx_max && dx > lay->gdy_max)) {
				lay->gdx_max = dy;
				lay->gdy_max = dx;
			}
		}
	}
}

struct ipu_layout *ipu_partition(const struct ipu_part_cfg *cfg, struct ipu_row *const *part_rows,
				 const uint32_t *n_rows)
{
	struct ipu_layout *lay = xcalloc(1, sizeof(*lay));
	uint64_t ranges[3], pn;
	struct piece *pend = NULL;
	size_t n_pend = 0, alloc_pend = 0, i, j;
	uint32_t part;
	unsigned r, split;

	lay->cfg = *cfg;
	lay->n_buckets = (uint64_t)cfg->px * cfg->py * cfg->pz;
	lay->buckets = xcalloc(lay->n_buckets, sizeof(*lay->buckets));
	for (part = 0; part < (uint32_t)cfg->px * cfg->py; part++)
		initial_assignment(lay, part, part_rows[part], n_rows[part]);
	for (pn = 0; pn < lay->n_buckets; pn++)
		trim_bucket(cfg, &lay->buckets[pn], pn, &pend, &n_pend, &alloc_pend);
	ranges[0] = cfg->pz;
	ranges[1] = (uint64_t)cfg->py * cfg->pz;
	ranges[2] = lay->n_buckets;
	for (r = 0; r < 3 && n_pend; r++)
		for (split = 0; split < 2 && n_pend; split++) {
			rebalance(lay, pend, n_pend, ranges[r], split);
			for (i = j = 0; i < n_pend; i++) {
				if (pend[i].n)
					pend[j++] = pend[i];
				else
					free(pend[i].rows);
			}
			n_pend = j;
		}
	for (i = 0; i < n_pend; i++) {
		lay->leftover_groups += pend[i].nz;
		free(pend[i].rows);
	}
	lay->overflow = n_pend > 0;
	free(pend);
	header(lay);
	return lay;
}

/*
 * Steps of the dynamic propagation loop (§2, ProgBuilder::addToSequence):
 * header X = dx + 1, Y = (X = 1 ? dy + 1 : P_y), Z = P_z; the distribution
 * covered the first P_z positions; an outer iteration whose bitset bit is
 * clear runs only its one outer shift. GradA shifts the buckets with Fwd X
 * and Y exchanged.
 */
uint64_t ipu_layout_steps(const struct ipu_layout *lay, bool grad_a, uint64_t *skipped)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	unsigned outer_max = grad_a ? lay->gdx_max : lay->dx_max;
	unsigned inner_max = grad_a ? lay->gdy_max : lay->dy_max;
	unsigned p_inner = grad_a ? c->px : c->py;
	const uint8_t *bits = grad_a ? lay->ybits : lay->xbits;
	uint64_t X = outer_max + 1, Y = X == 1 ? inner_max + 1 : p_inner, steps = 0, xo;

	*skipped = 0;
	for (xo = 0; xo < X; xo++) {
		if (xo == 0)
			steps += Y * c->pz - c->pz;
		else if (bits[xo])
			steps += Y * c->pz;
		else
			(*skipped)++;
	}
	return steps;
}

void ipu_layout_free(struct ipu_layout *lay)
{
	uint64_t pn;
	uint32_t i;

	if (!lay)
		return;
	for (pn = 0; pn < lay->n_buckets; pn++) {
		for (i = 0; i < lay->buckets[pn].n; i++)
			free(lay->buckets[pn].sgs[i].rows);
		free(lay->buckets[pn].sgs);
	}
	free(lay->buckets);
	free(lay->xbits);
	free(lay->ybits);
	free(lay);
}
