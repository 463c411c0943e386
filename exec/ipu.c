/*
 * The executor's emulation of PopSparse's dynamic sparse matmul on an IPU
 * (seed 000), written apart from accel/ so that it checks the model: W's
 * pattern (a density model with a seed, or actual data) gets real values;
 * every block of W is placed in fixed-size buckets on tiles by this file's
 * own partitioner (fill each X/Y partition's P_z buckets, strip rows from
 * the end of a full bucket, spill the stripped pieces largest first to the
 * buckets p, p-1, ... of ever wider ranges); then the device program runs:
 * the distribution phase (every tile reads the P_z buckets of its X/Y
 * partition), the propagation loop (buckets shift one tile along Z, Y or X
 * between two alternating buffers, then every tile computes on what it now
 * holds), and the reduction of the partials over P_y. The result is
 * compared with a plain dense product; steps, shifts, MACs and the
 * busiest tile's blocks per step are counted.
 */
#include "exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

#define MAX_ELEMS (1u << 26)

/* A block of W: kernel-block row and column. */
struct xblk {
	uint32_t r, c;
};

/* A sub-group: blocks of partition 'owner', row-major. */
struct xsg {
	uint32_t owner;
	uint32_t n, alloc;
	struct xblk *b;
};

struct xbucket {
	uint32_t n, alloc;
	struct xsg *sg;
	uint64_t blocks, meta;
};

/* A stripped piece waiting for a bucket. */
struct xpiece {
	uint64_t src;
	struct xsg sg;
};

struct xipu {
	const struct exec_ipu_config *c;
	uint64_t fixed;               /* metaInfo words of a sub-group header */
	uint64_t T;
	struct xbucket *bk;
	struct xpiece *pend;
	size_t n_pend, alloc_pend;
	unsigned hx, hy, gx, gy;       /* Fwd / GradA lexicographic max distances */
	uint8_t *xbit, *ybit;
};

/* ------------------------------------------------------------- sub-groups */

static void sg_push(struct xsg *s, struct xblk b)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 8;
		s->b = xreallocarray(s->b, s->alloc, sizeof(*s->b));
	}
	s->b[s->n++] = b;
}

/* Distinct rows among blocks [lo, hi) of 's' (row-major). */
static uint32_t sg_rows(const struct xsg *s, uint32_t lo, uint32_t hi)
{
	uint32_t i, n = 0;

	for (i = lo; i < hi; i++)
		if (i == lo || s->b[i].r != s->b[i - 1].r)
			n++;
	return n;
}

/* The sub-group of partition 'owner' in bucket 'b', or NULL. */
static struct xsg *bucket_sg(struct xbucket *b, uint32_t owner)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->sg[i].owner == owner)
			return &b->sg[i];
	return NULL;
}

/*
 * Put blocks[0..n) of partition 'owner' into bucket 'b': a bucket keeps one
 * sub-group per partition, so they join its sub-group when there is one (2
 * words a row and 1 a block), else they start one (plus the header).
 */
static void bucket_put(const struct xipu *e, struct xbucket *b, uint32_t owner,
		       const struct xblk *blocks, uint32_t n)
{
	struct xsg *s = bucket_sg(b, owner), run = { owner, n, n, (struct xblk *)blocks };
	uint32_t i;

	if (!s) {
		if (b->n == b->alloc) {
			b->alloc = b->alloc ? 2 * b->alloc : 2;
			b->sg = xreallocarray(b->sg, b->alloc, sizeof(*b->sg));
		}
		s = &b->sg[b->n++];
		memset(s, 0, sizeof(*s));
		s->owner = owner;
		b->meta += e->fixed;
	}
	for (i = 0; i < n; i++)
		sg_push(s, blocks[i]);
	b->blocks += n;
	b->meta += 2 * (uint64_t)sg_rows(&run, 0, n) + n;
}

/* ------------------------------------------------------------ partitioner */

static uint64_t tile_index(const struct exec_ipu_config *c, uint64_t x, uint64_t y, uint64_t z)
{
	return (x * c->py + y) * c->pz + z;
}

/* The blocks of partition 'owner' cut into ceil(n / ceil(n / P_z)) chunks. */
static void fill_partition(struct xipu *e, uint32_t owner, const struct xblk *blocks, uint32_t n)
{
	const struct exec_ipu_config *c = e->c;
	uint64_t per, chunks, v, x = owner / c->py, y = owner % c->py;

	if (n == 0)
		return;
	per = (n + c->pz - 1) / c->pz;
	chunks = (n + per - 1) / per;
	for (v = 0; v < chunks; v++) {
		uint64_t lo = v * n / chunks, hi = (v + 1) * n / chunks;
		bucket_put(e, &e->bk[tile_index(c, x, y, v)], owner, blocks + lo, (uint32_t)(hi - lo));
	}
}

static bool fits(const struct xipu *e, const struct xbucket *b)
{
	return b->blocks <= e->c->bucket_groups && b->meta + 1 <= e->c->bucket_meta_words;
}

/* Strip whole rows from the end of a full bucket's sub-group. */
static void strip(struct xipu *e, uint64_t t)
{
	struct xbucket *b = &e->bk[t];
	struct xsg *s;
	struct xpiece p;
	uint32_t keep, i;

	if (b->n == 0 || fits(e, b))
		return;
	s = &b->sg[0];
	keep = s->n;
	while (keep > 0) {
		uint32_t start = keep;
		while (start > 0 && s->b[start - 1].r == s->b[keep - 1].r)
			start--;
		keep = start;
		b->blocks = keep;
		b->meta = keep ? e->fixed + 2 * (uint64_t)sg_rows(s, 0, keep) + keep : 0;
		if (fits(e, b))
			break;
	}
	memset(&p, 0, sizeof(p));
	p.src = t;
	p.sg.owner = s->owner;
	for (i = keep; i < s->n; i++)
		sg_push(&p.sg, s->b[i]);
	s->n = keep;
	if (keep == 0) {
		free(s->b);
		b->n = 0;
	}
	if (e->n_pend == e->alloc_pend) {
		e->alloc_pend = e->alloc_pend ? 2 * e->alloc_pend : 16;
		e->pend = xreallocarray(e->pend, e->alloc_pend, sizeof(*e->pend));
	}
	e->pend[e->n_pend++] = p;
}

static int by_size(const void *a, const void *b)
{
	const struct xpiece *x = a, *y = b;
	uint64_t sx = 2 * (uint64_t)sg_rows(&x->sg, 0, x->sg.n) + x->sg.n;
	uint64_t sy = 2 * (uint64_t)sg_rows(&y->sg, 0, y->sg.n) + y->sg.n;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->sg.n != y->sg.n)
		return x->sg.n > y->sg.n ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/* Drop blocks [0, k) of piece 'p'. */
static void piece_drop(struct xpiece *p, uint32_t k)
{
	memmove(p->sg.b, p->sg.b + k, (p->sg.n - k) * sizeof(*p->sg.b));
	p->sg.n -= k;
}

/* Move what fits of 'p' into bucket 't' (whole; else leading rows; then part of a row);
 * no header is paid where the bucket already holds a sub-group of the piece's partition. */
static void offer(struct xipu *e, struct xbucket *t, struct xpiece *p, bool split)
{
	uint64_t cap_m = e->c->bucket_meta_words, cap_b = e->c->bucket_groups;
	uint64_t free_m = t->meta + 1 < cap_m ? cap_m - 1 - t->meta : 0;
	uint64_t free_b = t->blocks < cap_b ? cap_b - t->blocks : 0, budget;
	uint64_t head = bucket_sg(t, p->sg.owner) ? 0 : e->fixed;
	uint32_t k = 0;

	if (head + 2 * (uint64_t)sg_rows(&p->sg, 0, p->sg.n) + p->sg.n <= free_m &&
	    p->sg.n <= free_b) {
		bucket_put(e, t, p->sg.owner, p->sg.b, p->sg.n);
		p->sg.n = 0;
		return;
	}
	if (free_m <= head)
		return;
	budget = free_m - head;
	while (k < p->sg.n) {
		uint32_t end = k;
		while (end < p->sg.n && p->sg.b[end].r == p->sg.b[k].r)
			end++;
		if (2 + (uint64_t)(end - k) > budget || end - k > free_b)
			break;
		budget -= 2 + (uint64_t)(end - k);
		free_b -= end - k;
		k = end;
	}
	if (split && k < p->sg.n && budget > 2 && free_b > 0) {
		uint64_t more = budget - 2 < free_b ? budget - 2 : free_b;
		k += (uint32_t)more;
	}
	if (k == 0)
		return;
	bucket_put(e, t, p->sg.owner, p->sg.b, k);
	piece_drop(p, k);
}

/* One rebalancing pass over ranges of 'range' consecutive buckets. */
static void spill(struct xipu *e, uint64_t range, bool split)
{
	size_t i, j;
	uint64_t k;

	qsort(e->pend, e->n_pend, sizeof(*e->pend), by_size);
	for (i = 0; i < e->n_pend; i++) {
		struct xpiece *p = &e->pend[i];
		uint64_t first = p->src - p->src % range;
		for (k = 0; k < range && p->sg.n; k++)
			offer(e, &e->bk[first + (p->src % range + range - k) % range], p, split);
	}
	for (i = j = 0; i < e->n_pend; i++) {
		if (e->pend[i].sg.n)
			e->pend[j++] = e->pend[i];
		else
			free(e->pend[i].sg.b);
	}
	e->n_pend = j;
}

/* The largest distances of a sub-group from its bucket, in both shift orders. */
static void distances(struct xipu *e, struct exec_ipu_result *out)
{
	const struct exec_ipu_config *c = e->c;
	uint64_t t;
	uint32_t i;

	e->xbit = xcalloc(c->px, 1);
	e->ybit = xcalloc(c->py, 1);
	for (t = 0; t < e->T; t++) {
		unsigned bx = (unsigned)(t / ((uint64_t)c->py * c->pz)), by = (unsigned)(t / c->pz % c->py);
		for (i = 0; i < e->bk[t].n; i++) {
			const struct xsg *s = &e->bk[t].sg[i];
			unsigned dx = (s->owner / c->py + c->px - bx) % c->px;
			unsigned dy = (s->owner % c->py + c->py - by) % c->py;
			out->n_subgroups++;
			if (dx || dy) {
				out->n_spilled++;
				out->spilled_groups += s->n;
			}
			e->xbit[dx] = e->ybit[dy] = 1;
			if (dx > e->hx || (dx == e->hx && dy > e->hy)) {
				e->hx = dx;
				e->hy = dy;
			}
			if (dy > e->gx || (dy == e->gx && dx > e->gy)) {
				e->gx = dy;
				e->gy = dx;
			}
		}
	}
}

/* ---------------------------------------------------------------- values */

struct xdata {
	uint64_t X, Y, Z;             /* elements */
	unsigned b, kb;
	double *w;                    /* [X][Y] */
	double *in;                   /* [Y][Z] */
	double *yg;                   /* [X][Z] */
	uint8_t *nzblk;               /* [X/kb][Y/kb] */
};

static double rnd(struct rng *r)
{
	int64_t v = (int64_t)rng_below(r, 30);
	return (double)(v < 15 ? v - 15 : v - 14);
}

/* W from its layer-block pattern, values for every element of a non-zero block. */
static int make_data(const struct spec_set *s, const struct exec_ipu_config *c, struct xdata *d,
		     char why[256])
{
	const struct spec_ipu_layer *l = &s->ipu->layer;
	struct exec_tensor *pat;
	struct rng r;
	uint64_t i, j, bi, bj, nbx, nby;

	d->X = l->x;
	d->Y = l->y;
	d->Z = l->z;
	d->b = l->block_size;
	d->kb = c->kernel_block;
	if (d->X * d->Y > MAX_ELEMS || d->Z * (d->X + d->Y) > MAX_ELEMS) {
		snprintf(why, 256, "the layer has too many elements to emulate (%llu x %llu x %llu)",
			 (unsigned long long)d->X, (unsigned long long)d->Y, (unsigned long long)d->Z);
		return -1;
	}
	if (!d->kb || d->b % d->kb) {
		snprintf(why, 256, "kernel block %u does not divide the block size %u", d->kb, d->b);
		return -1;
	}
	pat = exec_tensor_new(&s->workload, l->tensor, c->seed, why);
	if (!pat)
		return -1;
	rng_seed_stream(&r, c->seed, 1000);
	d->w = xcalloc(d->X * d->Y, sizeof(double));
	nbx = d->X / d->b;
	nby = d->Y / d->b;
	for (bi = 0; bi < nbx; bi++)
		for (bj = 0; bj < nby; bj++) {
			uint64_t co[2] = { bi, bj };
			if (exec_tensor_get(pat, co) == 0)
				continue;
			for (i = 0; i < d->b; i++)
				for (j = 0; j < d->b; j++)
					d->w[(bi * d->b + i) * d->Y + bj * d->b + j] =
						d->b == 1 ? exec_tensor_get(pat, co) : rnd(&r);
		}
	exec_tensor_free(pat);
	d->nzblk = xcalloc((d->X / d->kb) * (d->Y / d->kb), 1);
	for (i = 0; i < d->X; i++)
		for (j = 0; j < d->Y; j++)
			if (d->w[i * d->Y + j] != 0)
				d->nzblk[(i / d->kb) * (d->Y / d->kb) + j / d->kb] = 1;
	d->in = xcalloc(d->Y * d->Z, sizeof(double));
	d->yg = xcalloc(d->X * d->Z, sizeof(double));
	for (i = 0; i < d->Y * d->Z; i++)
		d->in[i] = rnd(&r);
	for (i = 0; i < d->X * d->Z; i++)
		d->yg[i] = rnd(&r);
	return 0;
}

static void data_release(struct xdata *d)
{
	free(d->w);
	free(d->in);
	free(d->yg);
	free(d->nzblk);
}

/* ---------------------------------------------------------------- device */

/* A pass's running state: partials per tile and counters. */
struct xrun {
	enum spec_ipu_pass pass;
	const struct xdata *d;
	const struct exec_ipu_config *c;
	uint64_t nrow, ncol, nzc;      /* blocks per partition (rows, cols) and Z per tile */
	double *acc;                   /* Fwd [T][nrow kb][nzc]; GradA [T][ncol kb][nzc] */
	double *wg;                    /* GradW: [X][Y] */
	uint64_t macs, step_max_sum, dist_max;
};

/* Tile 't' = (x, y, z) processes the sub-groups of bucket 'b' that are its own. */
static uint64_t compute(struct xrun *u, uint64_t t, const struct xbucket *b)
{
	const struct exec_ipu_config *c = u->c;
	const struct xdata *d = u->d;
	uint64_t x = t / ((uint64_t)c->py * c->pz), y = t / c->pz % c->py, z = t % c->pz;
	uint64_t z0 = z * u->nzc, z1 = z0 + u->nzc < d->Z ? z0 + u->nzc : d->Z, blocks = 0;
	uint32_t owner = (uint32_t)(x * c->py + y), i, k;
	unsigned kb = d->kb, a, q;

	for (i = 0; i < b->n; i++) {
		const struct xsg *s = &b->sg[i];
		if (s->owner != owner)
			continue;
		for (k = 0; k < s->n; k++) {
			uint64_t r0 = (uint64_t)s->b[k].r * kb, c0 = (uint64_t)s->b[k].c * kb, j;
			blocks++;
			for (a = 0; a < kb; a++)
				for (q = 0; q < kb; q++) {
					double w = d->w[(r0 + a) * d->Y + c0 + q];
					uint64_t lr = r0 + a - x * u->nrow * kb, lc = c0 + q - y * u->ncol * kb;
					for (j = z0; j < z1; j++) {
						if (u->pass == SPEC_IPU_FWD)
							u->acc[(t * u->nrow * kb + lr) * u->nzc + j - z0] +=
								w * d->in[(c0 + q) * d->Z + j];
						else if (u->pass == SPEC_IPU_GRAD_A)
							u->acc[(t * u->ncol * kb + lc) * u->nzc + j - z0] +=
								w * d->yg[(r0 + a) * d->Z + j];
						else
							u->wg[(r0 + a) * d->Y + c0 + q] +=
								d->yg[(r0 + a) * d->Z + j] *
								d->in[(c0 + q) * d->Z + j];
						u->macs++;
					}
				}
		}
	}
	return blocks;
}

/* Shift every tile's active bucket one partition along 'dim' (0 X, 1 Y, 2 Z) into the other buffer. */
static void shift(const struct exec_ipu_config *c, uint64_t *buf[2], unsigned *active, unsigned dim)
{
	uint64_t x, y, z, T = (uint64_t)c->px * c->py * c->pz;
	uint64_t *from = buf[*active], *to = buf[1 - *active];

	for (x = 0; x < c->px; x++)
		for (y = 0; y < c->py; y++)
			for (z = 0; z < c->pz; z++) {
				uint64_t sx = dim == 0 ? (x + c->px - 1) % c->px : x;
				uint64_t sy = dim == 1 ? (y + c->py - 1) % c->py : y;
				uint64_t sz = dim == 2 ? (z + c->pz - 1) % c->pz : z;
				to[tile_index(c, x, y, z)] = from[tile_index(c, sx, sy, sz)];
			}
	(void)T;
	*active = 1 - *active;
}

/*
 * The device program of one pass: distribution (each tile, every bucket of
 * its X/Y partition), then the propagation loop of the header (outer,
 * inner, Z): outer = X and inner = Y for Fwd and GradW, swapped for GradA;
 * an outer iteration whose bit is clear shifts once and computes nothing.
 */
static void run_pass(struct xrun *u, struct xipu *e, struct exec_ipu_pass *res)
{
	const struct exec_ipu_config *c = u->c;
	bool ga = u->pass == SPEC_IPU_GRAD_A;
	unsigned outer_d = ga ? 1 : 0, inner_d = ga ? 0 : 1, active = 0;
	uint64_t outer_n = (ga ? e->gx : e->hx) + 1, inner_max = ga ? e->gy : e->hy;
	uint64_t inner_n = outer_n == 1 ? inner_max + 1 : (ga ? c->px : c->py);
	const uint8_t *bit = ga ? e->ybit : e->xbit;
	uint64_t *buf[2], t, xo, yo, zi;

	buf[0] = xcalloc(e->T, sizeof(uint64_t));
	buf[1] = xcalloc(e->T, sizeof(uint64_t));
	for (t = 0; t < e->T; t++) {
		uint64_t own = t - t % c->pz, blocks = 0;
		for (zi = 0; zi < c->pz; zi++)
			blocks += compute(u, t, &e->bk[own + zi]);
		if (blocks > u->dist_max)
			u->dist_max = blocks;
		buf[0][t] = t;
	}
	for (xo = 0; xo < outer_n; xo++) {
		if (xo > 0 && !bit[xo]) {
			shift(c, buf, &active, outer_d);
			res->exchanges++;
			res->skipped_outer++;
			continue;
		}
		for (yo = 0; yo < inner_n; yo++)
			for (zi = 0; zi < c->pz; zi++) {
				uint64_t worst = 0;
				if (xo == 0 && yo == 0)
					continue;
				shift(c, buf, &active, zi ? 2 : yo ? inner_d : outer_d);
				res->exchanges++;
				res->steps++;
				for (t = 0; t < e->T; t++) {
					uint64_t bl = compute(u, t, &e->bk[buf[active][t]]);
					if (bl > worst)
						worst = bl;
				}
				u->step_max_sum += worst;
			}
	}
	free(buf[0]);
	free(buf[1]);
}

/* The reduction and the comparison with the dense product. */
static void check_pass(struct xrun *u, struct exec_ipu_pass *res)
{
	const struct exec_ipu_config *c = u->c;
	const struct xdata *d = u->d;
	uint64_t i, j, k, x, y, z;
	double err = 0;

	if (u->pass == SPEC_IPU_GRAD_W) {
		for (i = 0; i < d->X; i++)
			for (j = 0; j < d->Y; j++) {
				double want = 0;
				if (!d->nzblk[(i / d->kb) * (d->Y / d->kb) + j / d->kb])
					continue;
				for (k = 0; k < d->Z; k++)
					want += d->yg[i * d->Z + k] * d->in[j * d->Z + k];
				err = fmax(err, fabs(want - u->wg[i * d->Y + j]));
			}
	} else {
		bool fwd = u->pass == SPEC_IPU_FWD;
		uint64_t rows = fwd ? d->X : d->Y, blk = (fwd ? u->nrow : u->ncol) * d->kb;
		for (i = 0; i < rows; i++)
			for (j = 0; j < d->Z; j++) {
				double want = 0, got = 0;
				uint64_t part = i / blk;
				for (k = 0; k < (fwd ? d->Y : d->X); k++)
					want += fwd ? d->w[i * d->Y + k] * d->in[k * d->Z + j]
						    : d->w[k * d->Y + i] * d->yg[k * d->Z + j];
				z = j / u->nzc;
				for (k = 0; k < (fwd ? c->py : c->px); k++) {   /* reduce over P_y (P_x) */
					x = fwd ? part : k;
					y = fwd ? k : part;
					got += u->acc[(tile_index(c, x, y, z) * blk + i - part * blk) *
						      u->nzc + j - z * u->nzc];
				}
				err = fmax(err, fabs(want - got));
			}
	}
	res->numeric_ok = err == 0;
	res->max_abs_err = err;
	res->macs = u->macs;
	res->dist_max_groups = u->dist_max;
	res->step_max_groups_sum = u->step_max_sum;
}

/* --------------------------------------------------------------- driver */

/* Blocks of every X/Y partition (row-major) into the buckets, then spill. */
static void partition(struct xipu *e, const struct xdata *d, struct exec_ipu_result *out)
{
	const struct exec_ipu_config *c = e->c;
	uint64_t NX = d->X / d->kb, NY = d->Y / d->kb, nrow = (NX + c->px - 1) / c->px;
	uint64_t ncol = (NY + c->py - 1) / c->py, x, y, r, col, t;
	static const unsigned n_ranges = 3;
	uint64_t ranges[3];
	unsigned k, split;

	for (x = 0; x < c->px; x++)
		for (y = 0; y < c->py; y++) {
			struct xsg s = { 0, 0, 0, NULL };
			for (r = x * nrow; r < (x + 1) * nrow && r < NX; r++)
				for (col = y * ncol; col < (y + 1) * ncol && col < NY; col++)
					if (d->nzblk[r * NY + col]) {
						sg_push(&s, (struct xblk){ (uint32_t)r, (uint32_t)col });
						out->nz_blocks++;
					}
			fill_partition(e, (uint32_t)(x * c->py + y), s.b, s.n);
			free(s.b);
		}
	for (t = 0; t < e->T; t++)
		strip(e, t);
	ranges[0] = c->pz;
	ranges[1] = (uint64_t)c->py * c->pz;
	ranges[2] = e->T;
	for (k = 0; k < n_ranges; k++)
		for (split = 0; split < 2; split++)
			if (e->n_pend)
				spill(e, ranges[k], split);
	out->overflow = e->n_pend > 0;
}

int exec_ipu_run(const struct spec_set *s, const struct exec_ipu_config *c,
		 struct exec_ipu_result *out)
{
	const struct spec_ipu_layer *l = &s->ipu->layer;
	bool grad_w = (l->passes >> SPEC_IPU_GRAD_W) & 1;
	struct xipu e;
	struct xdata d;
	uint64_t t;
	unsigned p;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	memset(&d, 0, sizeof(d));
	if (make_data(s, c, &d, out->reason) < 0) {
		out->status = EXEC_TOO_LARGE;
		data_release(&d);
		return -1;
	}
	e.c = c;
	e.T = (uint64_t)c->px * c->py * c->pz;
	e.fixed = l->block_size == 1 ? 9 + 5 * (uint64_t)c->workers + (grad_w ? 4 * (uint64_t)c->workers + 1 : 0)
				     : 7 + (grad_w ? 4 * (uint64_t)c->workers : 0);
	e.bk = xcalloc(e.T, sizeof(*e.bk));
	partition(&e, &d, out);
	distances(&e, out);
	out->n_buckets = e.T;
	out->bucket_groups = xcalloc(e.T, sizeof(uint64_t));
	out->bucket_meta = xcalloc(e.T, sizeof(uint64_t));
	out->bucket_subgroups = xcalloc(e.T, sizeof(uint64_t));
	for (t = 0; t < e.T; t++) {
		out->bucket_groups[t] = e.bk[t].blocks;
		out->bucket_meta[t] = e.bk[t].meta;
		out->bucket_subgroups[t] = e.bk[t].n;
	}
	for (p = 0; p < SPEC_IPU_N_PASSES && !out->overflow; p++) {
		struct xrun u;
		uint64_t NX = d.X / d.kb, NY = d.Y / d.kb;
		if (!((l->passes >> p) & 1))
			continue;
		memset(&u, 0, sizeof(u));
		u.pass = (enum spec_ipu_pass)p;
		u.d = &d;
		u.c = c;
		u.nrow = (NX + c->px - 1) / c->px;
		u.ncol = (NY + c->py - 1) / c->py;
		u.nzc = ((d.Z + c->z_grain - 1) / c->z_grain + c->pz - 1) / c->pz * c->z_grain;
		if (p == SPEC_IPU_GRAD_W)
			u.wg = xcalloc(d.X * d.Y, sizeof(double));
		else
			u.acc = xcalloc(e.T * (p == SPEC_IPU_FWD ? u.nrow : u.ncol) * d.kb * u.nzc,
					sizeof(double));
		out->passes[p].run = true;
		run_pass(&u, &e, &out->passes[p]);
		check_pass(&u, &out->passes[p]);
		free(u.acc);
		free(u.wg);
	}
	for (t = 0; t < e.T; t++) {
		for (i = 0; i < e.bk[t].n; i++)
			free(e.bk[t].sg[i].b);
		free(e.bk[t].sg);
	}
	for (i = 0; i < e.n_pend; i++)
		free(e.pend[i].sg.b);
	free(e.pend);
	free(e.bk);
	free(e.xbit);
	free(e.ybit);
	data_release(&d);
	out->status = EXEC_OK;
	return 0;
}

void exec_ipu_result_release(struct exec_ipu_result *r)
{
	free(r->bucket_groups);
	free(r->bucket_meta);
	free(r->bucket_subgroups);
	r->bucket_groups = r->bucket_meta = r->bucket_subgroups = NULL;
}
