/*
 * Tensors with real values: generated from a density model with a seed, or
 * taken from actual data; N:M magnitude pruning and compression; non-zero
 * counts of boxes through a summed-area table.
 */
#include "exec/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

#define MAX_VALUE 15

static struct exec_tensor *tensor_alloc(unsigned n_ranks, const uint64_t *extents)
{
	struct exec_tensor *x = xcalloc(1, sizeof(*x));
	unsigned r;

	x->n_ranks = n_ranks;
	x->size = 1;
	for (r = 0; r < n_ranks; r++) {
		x->extent[r] = extents[r];
		x->size *= extents[r];
	}
	for (r = n_ranks; r-- > 0;)
		x->stride[r] = r + 1 == n_ranks ? 1 : x->stride[r + 1] * x->extent[r + 1];
	x->values = xcalloc(x->size + 1, sizeof(*x->values));
	return x;
}

struct exec_tensor *exec_tensor_new_zero(unsigned n_ranks, const uint64_t *extents)
{
	return tensor_alloc(n_ranks, extents);
}

/* A random non-zero integer value in [-MAX_VALUE, MAX_VALUE]. */
static double random_value(struct rng *r)
{
	int64_t v = (int64_t)rng_below(r, 2 * MAX_VALUE);
	return (double)(v < MAX_VALUE ? v - MAX_VALUE : v - MAX_VALUE + 1);
}

/* Give every marked position (values[i] != 0) a random value, in index order. */
static void draw_values(struct exec_tensor *x, struct rng *r)
{
	uint64_t i;
	for (i = 0; i < x->size; i++)
		if (x->values[i] != 0)
			x->values[i] = random_value(r);
}

/*
 * fixed_structured: the expected count rho*N (rounded up with probability
 * equal to its fraction), spread evenly: the N positions, seen as a circle,
 * are cut into K strata of N/K positions starting at a random offset, and
 * one non-zero is placed uniformly inside each stratum. Every position is
 * then non-zero with probability exactly K/N, and any run of 2*ceil(N/K)
 * consecutive positions holds at least one non-zero.
 */
static void gen_fixed(struct exec_tensor *x, double rho, struct rng *r)
{
	double want = rho * (double)x->size, step, off;
	uint64_t k = (uint64_t)want, j;

	if (rng_double(r) < want - (double)k)
		k++;
	if (k > x->size)
		k = x->size;
	if (!k)
		return;
	step = (double)x->size / (double)k;
	off = rng_double(r) * step;
	for (j = 0; j < k; j++) {
		uint64_t lo = (uint64_t)((double)j * step + off);
		uint64_t hi = j + 1 == k ? (uint64_t)((double)k * step + off)
					 : (uint64_t)((double)(j + 1) * step + off);
		if (hi <= lo)
			hi = lo + 1;
		x->values[(lo + rng_below(r, hi - lo)) % x->size] = 1;
	}
}

/* hypergeometric: ceil(rho*N) non-zeros at uniformly random distinct places (Floyd). */
static void gen_hypergeometric(struct exec_tensor *x, double rho, struct rng *r)
{
	double want = rho * (double)x->size;
	uint64_t k = (uint64_t)want, j;

	if ((double)k < want)
		k++;
	if (k > x->size)
		k = x->size;
	for (j = x->size - k; j < x->size; j++) {
		uint64_t t = rng_below(r, j + 1);
		x->values[x->values[t] != 0 ? j : t] = 1;
	}
}

static int gen_banded(struct exec_tensor *x, uint64_t w, char why[256])
{
	uint64_t i, j;

	if (x->n_ranks != 2) {
		snprintf(why, 256, "a banded density needs a 2-rank tensor, not %u ranks", x->n_ranks);
		return -1;
	}
	for (i = 0; i < x->extent[0]; i++)
		for (j = 0; j < x->extent[1]; j++)
			if ((i > j ? i - j : j - i) <= w)
				x->values[i * x->stride[0] + j] = 1;
	return 0;
}

/*
 * Linear index of point 'j' of the slice 'row' of rank 'rank': the other
 * ranks' coordinates of j in row-major order.
 */
static uint64_t slice_index(const struct exec_tensor *x, unsigned rank, uint64_t row, uint64_t j)
{
	uint64_t lin = row * x->stride[rank];
	unsigned q;

	for (q = x->n_ranks; q-- > 0;) {
		if (q == rank)
			continue;
		lin += j % x->extent[q] * x->stride[q];
		j /= x->extent[q];
	}
	return lin;
}

/*
 * block_structured: the tensor is cut into blocks of 'shape' from the
 * origin (edge blocks clipped); round(rho B) of the B blocks, chosen
 * uniformly without replacement (Floyd), are non-zero at every point.
 */
static void gen_block(struct exec_tensor *x, const uint64_t *shape, double rho, struct rng *r)
{
	uint64_t per_rank[XR], n_blocks = 1, k, j, i;
	unsigned char *on;
	unsigned q;

	for (q = 0; q < x->n_ranks; q++) {
		per_rank[q] = (x->extent[q] + shape[q] - 1) / shape[q];
		n_blocks *= per_rank[q];
	}
	k = (uint64_t)llround(rho * (double)n_blocks);
	if (k > n_blocks)
		k = n_blocks;
	on = xcalloc(n_blocks ? n_blocks : 1, 1);
	for (j = n_blocks - k; j < n_blocks; j++) {
		uint64_t t = rng_below(r, j + 1);
		on[on[t] ? j : t] = 1;
	}
	for (i = 0; i < x->size; i++) {
		uint64_t b = 0;
		for (q = 0; q < x->n_ranks; q++)
			b = b * per_rank[q] + i / x->stride[q] % x->extent[q] / shape[q];
		if (on[b])
			x->values[i] = 1;
	}
	free(on);
}

/* A row's quota and its fraction, for the largest-remainder rounding. */
struct row_quota {
	uint64_t row;
	double frac;
};

static int cmp_row_quota(const void *a, const void *b)
{
	const struct row_quota *x = a, *y = b;
	if (x->frac > y->frac)
		return -1;
	if (x->frac < y->frac)
		return 1;
	return (x->row > y->row) - (x->row < y->row);
}

/*
 * power_law row lengths: 'total' non-zeros over R rows of S points, row i
 * weighted (i + 1)^-alpha. With W_c the sum of the weights of rows c..R-1
 * (added from the last row up) and T_c what rows c..R-1 still hold, row c
 * is full (S) while T_c w_c / W_c > S; the remaining rows get the floor of
 * their quota T_c w_i / W_c and then one more each, largest fractions
 * first (ties: lower rows), until T_c is met.
 */
static void power_law_lengths(uint64_t R, uint64_t S, uint64_t total, double alpha, uint64_t *len)
{
	double *wt = xmalloc((R + 1) * sizeof(double)), *tail = xmalloc((R + 1) * sizeof(double));
	struct row_quota *rq;
	uint64_t c = 0, i, given = 0, n_rq;

	for (i = 0; i < R; i++)
		wt[i] = pow((double)(i + 1), -alpha);
	tail[R] = 0.0;
	for (i = R; i > 0; i--)
		tail[i - 1] = tail[i] + wt[i - 1];
	memset(len, 0, R * sizeof(uint64_t));
	while (c < R && total > 0 && (double)total * wt[c] / tail[c] > (double)S) {
		len[c++] = S;
		total -= S;
	}
	if (c == R || total == 0) {
		free(wt);
		free(tail);
		return;
	}
	n_rq = R - c;
	rq = xmalloc(n_rq * sizeof(*rq));
	for (i = c; i < R; i++) {
		double quota = (double)total * wt[i] / tail[c];
		double whole = floor(quota);
		len[i] = whole < (double)S ? (uint64_t)whole : S;
		given += len[i];
		rq[i - c].row = i;
		rq[i - c].frac = quota - whole;
	}
	qsort(rq, n_rq, sizeof(*rq), cmp_row_quota);
	for (i = 0; given < total; i = (i + 1) % n_rq)
		if (len[rq[i].row] < S) {
			len[rq[i].row]++;
			given++;
		}
	for (i = n_rq; given > total; i = i > 1 ? i - 1 : n_rq)
		if (len[rq[i - 1].row] > 0) {
			len[rq[i - 1].row]--;
			given--;
		}
	free(rq);
	free(wt);
	free(tail);
}

/*
 * power_law: rows are the coordinates of rank 'rank' (a row is the slice
 * of the other ranks); the lengths above, dealt to the rows in a random
 * order when 'permute'; each row's non-zeros at uniformly random distinct
 * places of its slice (Floyd).
 */
static void gen_power_law(struct exec_tensor *x, const struct spec_density *d, unsigned rank,
			  struct rng *r)
{
	uint64_t R = x->extent[rank], S = R ? x->size / R : 0, i, j;
	uint64_t total = (uint64_t)llround(d->density * (double)x->size);
	uint64_t *len = xmalloc((R ? R : 1) * sizeof(uint64_t));
	unsigned char *mark = xcalloc(S ? S : 1, 1);

	if (total > x->size)
		total = x->size;
	power_law_lengths(R, S, total, d->exponent, len);
	if (d->permute_rows)
		for (i = R; i > 1; i--) {
			uint64_t k = rng_below(r, i), tmp = len[i - 1];
			len[i - 1] = len[k];
			len[k] = tmp;
		}
	for (i = 0; i < R; i++) {
		memset(mark, 0, S);
		for (j = S - len[i]; j < S; j++) {
			uint64_t t = rng_below(r, j + 1);
			mark[mark[t] ? j : t] = 1;
		}
		for (j = 0; j < S; j++)
			if (mark[j])
				x->values[slice_index(x, rank, i, j)] = 1;
	}
	free(mark);
	free(len);
}

/* The rank of tensor 'st' indexed by dimension 'dim' alone, or -1. */
static int rank_of_dim(const struct spec_tensor *st, unsigned dim)
{
	unsigned r;
	for (r = 0; r < st->n_ranks; r++)
		if (st->ranks[r].n_terms == 1 && st->ranks[r].terms[0].dim == dim)
			return (int)r;
	return -1;
}

static int gen_actual(struct exec_tensor *x, const struct spec_matrix *m, const char *name,
		      char why[256])
{
	size_t e;
	unsigned r;

	if (m->n_ranks != x->n_ranks) {
		snprintf(why, 256, "%s: %u-rank data for tensor '%s' of %u ranks", m->file,
			 m->n_ranks, name, x->n_ranks);
		return -1;
	}
	for (r = 0; r < x->n_ranks; r++)
		if (m->shape[r] != x->extent[r]) {
			snprintf(why, 256, "%s: rank %u has %llu coordinates, tensor '%s' needs %llu",
				 m->file, r, (unsigned long long)m->shape[r], name,
				 (unsigned long long)x->extent[r]);
			return -1;
		}
	for (e = 0; e < m->nnz; e++) {
		uint64_t lin = 0;
		for (r = 0; r < x->n_ranks; r++)
			lin += m->coords[e * x->n_ranks + r] * x->stride[r];
		x->values[lin] = m->values[e];
	}
	return 0;
}

struct exec_tensor *exec_tensor_new(const struct spec_workload *w, unsigned t, uint64_t seed,
				    char why[256])
{
	const struct spec_tensor *st = &w->tensors[t];
	const struct spec_density *dn = st->prune_source ? st->prune_source : &st->density;
	struct exec_tensor *x;
	struct xgeom g;
	struct rng r;
	int rank, rc = 0;

	if (exec_geom_init(&g, w, t, why) < 0)
		return NULL;
	x = tensor_alloc(g.n_ranks, g.extent);
	rng_seed_stream(&r, seed, t);
	switch (dn->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
		gen_fixed(x, dn->is_default ? 1.0 : dn->density, &r);
		break;
	case SPEC_DENSITY_HYPERGEOMETRIC:
		gen_hypergeometric(x, dn->density, &r);
		break;
	case SPEC_DENSITY_BANDED:
		rc = gen_banded(x, dn->band_width, why);
		break;
	case SPEC_DENSITY_NM:
		rank = rank_of_dim(st, dn->nm_dim);
		if (rank < 0 || !dn->nm_m || dn->nm_n > dn->nm_m) {
			snprintf(why, 256, "tensor '%s': no rank indexed by the N:M dimension alone",
				 st->name);
			rc = -1;
			break;
		}
		gen_fixed(x, 1.0, &r);
		draw_values(x, &r);
		exec_tensor_prune_nm(x, dn->nm_n, dn->nm_m, (unsigned)rank);
		return x;
	case SPEC_DENSITY_ACTUAL:
		if (!dn->data) {
			snprintf(why, 256, "tensor '%s' has an actual-data density without data",
				 st->name);
			rc = -1;
			break;
		}
		rc = gen_actual(x, dn->data, st->name, why);
		if (rc == 0)
			return x;
		break;
	case SPEC_DENSITY_BLOCK:
		gen_block(x, dn->block_shape, dn->density, &r);
		break;
	case SPEC_DENSITY_POWER_LAW:
		rank = rank_of_dim(st, dn->row_dim);
		if (rank < 0) {
			snprintf(why, 256, "tensor '%s': no rank indexed by the rows' dimension alone",
				 st->name);
			rc = -1;
			break;
		}
		gen_power_law(x, dn, (unsigned)rank, &r);
		break;
	default:
		snprintf(why, 256, "tensor '%s': unknown density model", st->name);
		rc = -1;
	}
	if (rc < 0) {
		exec_tensor_free(x);
		return NULL;
	}
	draw_values(x, &r);
	return x;
}

unsigned exec_tensor_n_ranks(const struct exec_tensor *x)
{
	return x->n_ranks;
}

uint64_t exec_tensor_extent(const struct exec_tensor *x, unsigned r)
{
	return x->extent[r];
}

uint64_t exec_tensor_size(const struct exec_tensor *x)
{
	return x->size;
}

uint64_t exec_tensor_nnz(const struct exec_tensor *x)
{
	uint64_t i, n = 0;
	for (i = 0; i < x->size; i++)
		n += x->values[i] != 0;
	return n;
}

static uint64_t lin_of(const struct exec_tensor *x, const uint64_t *coords)
{
	uint64_t lin = 0;
	unsigned r;
	for (r = 0; r < x->n_ranks; r++) {
		if (coords[r] >= x->extent[r])
			BUG("coordinate %llu out of rank %u's %llu", (unsigned long long)coords[r], r,
			    (unsigned long long)x->extent[r]);
		lin += coords[r] * x->stride[r];
	}
	return lin;
}

double exec_tensor_get(const struct exec_tensor *x, const uint64_t *coords)
{
	return x->values[lin_of(x, coords)];
}

void exec_tensor_set(struct exec_tensor *x, const uint64_t *coords, double v)
{
	x->values[lin_of(x, coords)] = v;
	free(x->prefix);
	x->prefix = NULL;
}

const double *exec_tensor_values(const struct exec_tensor *x)
{
	return x->values;
}

void exec_tensor_free(struct exec_tensor *x)
{
	if (!x)
		return;
	free(x->values);
	free(x->prefix);
	free(x);
}

/* ------------------------------------------------------------------- N:M */

struct group_ent {
	double mag;
	uint64_t pos;                  /* position inside the group */
};

static int cmp_magnitude(const void *a, const void *b)
{
	const struct group_ent *x = a, *y = b;
	if (x->mag != y->mag)
		return x->mag > y->mag ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Call 'fn' for the first linear index of every group of 'm' along 'rank'. */
static void foreach_group(const struct exec_tensor *x, unsigned m, unsigned rank,
			  void (*fn)(void *ctx, uint64_t first, uint64_t len), void *ctx)
{
	uint64_t i;
	for (i = 0; i < x->size; i++) {
		uint64_t c = i / x->stride[rank] % x->extent[rank];
		if (c % m == 0) {
			uint64_t len = x->extent[rank] - c < m ? x->extent[rank] - c : m;
			fn(ctx, i, len);
		}
	}
}

struct prune_ctx {
	struct exec_tensor *x;
	unsigned n, rank;
	struct group_ent *ents;
};

static void prune_group(void *vctx, uint64_t first, uint64_t len)
{
	struct prune_ctx *c = vctx;
	uint64_t s = c->x->stride[c->rank], j;

	for (j = 0; j < len; j++) {
		double v = c->x->values[first + j * s];
		c->ents[j].mag = v < 0 ? -v : v;
		c->ents[j].pos = j;
	}
	qsort(c->ents, len, sizeof(*c->ents), cmp_magnitude);
	for (j = c->n; j < len; j++)
		c->x->values[first + c->ents[j].pos * s] = 0;
}

void exec_tensor_prune_nm(struct exec_tensor *x, unsigned n, unsigned m, unsigned rank)
{
	struct prune_ctx c = { x, n, rank, xcalloc(m, sizeof(struct group_ent)) };
	foreach_group(x, m, rank, prune_group, &c);
	free(c.ents);
	free(x->prefix);
	x->prefix = NULL;
}

unsigned exec_nm_index_bits(unsigned m)
{
	unsigned b = 0;
	while ((1u << b) < m)
		b++;
	return b;
}

struct nm_ctx {
	const struct exec_tensor *cx;
	struct exec_tensor *x;
	unsigned n, rank;
	double *values;
	const double *in_values;
	uint8_t *indices;
	const uint8_t *in_indices;
	size_t at;
	bool overflow;
};

static void compress_group(void *vctx, uint64_t first, uint64_t len)
{
	struct nm_ctx *c = vctx;
	uint64_t s = c->cx->stride[c->rank], j;
	unsigned k = 0;
	bool used[256] = { false };

	for (j = 0; j < len; j++)
		if (c->cx->values[first + j * s] != 0)
			k++;
	if (k > c->n) {
		c->overflow = true;
		return;
	}
	/* padding takes the lowest free positions, then all sorted by position */
	for (j = 0; j < len && k < c->n; j++)
		if (c->cx->values[first + j * s] == 0) {
			used[j] = true;
			k++;
		}
	for (j = 0; j < len; j++) {
		if (c->cx->values[first + j * s] == 0 && !used[j])
			continue;
		c->values[c->at] = c->cx->values[first + j * s];
		c->indices[c->at++] = (uint8_t)j;
	}
}

size_t exec_nm_compress(const struct exec_tensor *x, unsigned n, unsigned m, unsigned rank,
			double *values, uint8_t *indices)
{
	struct nm_ctx c = { .cx = x, .n = n, .rank = rank, .values = values, .indices = indices };

	if (m > 256 || n > m)
		return 0;
	foreach_group(x, m, rank, compress_group, &c);
	return c.overflow ? 0 : c.at;
}

static void decompress_group(void *vctx, uint64_t first, uint64_t len)
{
	struct nm_ctx *c = vctx;
	uint64_t s = c->x->stride[c->rank], j;
	unsigned k;

	for (j = 0; j < len; j++)
		c->x->values[first + j * s] = 0;
	for (k = 0; k < c->n; k++, c->at++)
		if (c->in_indices[c->at] < len)
			c->x->values[first + c->in_indices[c->at] * s] = c->in_values[c->at];
}

void exec_nm_decompress(struct exec_tensor *x, unsigned n, unsigned m, unsigned rank,
			const double *values, const uint8_t *indices)
{
	struct nm_ctx c = { .cx = x, .x = x, .n = n, .rank = rank, .in_values = values,
			    .in_indices = indices };
	foreach_group(x, m, rank, decompress_group, &c);
	free(x->prefix);
	x->prefix = NULL;
}

/* ------------------------------------------------------ summed-area table */

static void build_prefix(struct exec_tensor *x)
{
	uint64_t i;
	unsigned r;

	x->prefix = xcalloc(x->size + 1, sizeof(*x->prefix));
	for (i = 0; i < x->size; i++)
		x->prefix[i] = x->values[i] != 0;
	for (r = 0; r < x->n_ranks; r++)
		for (i = 0; i < x->size; i++)
			if (i / x->stride[r] % x->extent[r] > 0)
				x->prefix[i] += x->prefix[i - x->stride[r]];
}

uint64_t exec_tensor_box_nnz(struct exec_tensor *x, const int64_t *lo, const int64_t *hi)
{
	int64_t a[XR], b[XR];
	uint64_t corner, pos;
	int64_t sum = 0;
	unsigned r;

	for (r = 0; r < x->n_ranks; r++) {
		a[r] = lo[r] < 0 ? 0 : lo[r];
		b[r] = hi[r] >= (int64_t)x->extent[r] ? (int64_t)x->extent[r] - 1 : hi[r];
		if (a[r] > b[r])
			return 0;
	}
	if (!x->prefix)
		build_prefix(x);
	for (corner = 0; corner < (1ull << x->n_ranks); corner++) {
		int sign = 1;
		bool skip = false;
		pos = 0;
		for (r = 0; r < x->n_ranks && !skip; r++) {
			int64_t c = b[r];
			if (corner >> r & 1) {
				c = a[r] - 1;
				sign = -sign;
				skip = c < 0;
			}
			pos += (uint64_t)c * x->stride[r];
		}
		if (!skip)
			sum += sign * (int64_t)x->prefix[pos];
	}
	return (uint64_t)sum;
}
