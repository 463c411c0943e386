/*
 * The STPU model's matrix: a Matrix Market pattern, or one generated from
 * the density model with the design's seed, in compressed columns.
 *
 * Uniform models (fixed_structured, hypergeometric) place exactly
 * ceil(density x rows x cols) non-zeros uniformly at random (every set of
 * that many positions equally likely): the hypergeometric model's count,
 * used for fixed_structured too since a generated matrix needs positions.
 * Banded places the band |row - col| <= band_width. Block-structured
 * makes round(density x B) of the B blocks (edge blocks clipped) non-zero,
 * a uniform subset, every point of them non-zero. Power law fixes the row
 * lengths from the density model's rule (docs/formats-and-densities.md:
 * round(density x size) non-zeros, row i weighted (i + 1)^-exponent, rows
 * whose quota exceeds the columns full, the rest floor(quota) plus one more
 * by largest fraction) and places each row's non-zeros uniformly; with
 * permute_rows the lengths go to the rows in a random order.
 */
#include "accel/stpu_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Generation through a bitmap of rows x cols bits is bounded to 2^32 positions (512 MiB). */
#define STPU_MAX_BITMAP_POSITIONS (UINT64_C(1) << 32)
/* Without a bitmap the positions are sorted: bounded to 2^27 non-zeros. */
#define STPU_MAX_SORTED_NONZEROS (UINT64_C(1) << 27)
_Static_assert(STPU_MAX_BITMAP_POSITIONS == SPEC_STPU_MAX_POSITIONS &&
	       STPU_MAX_SORTED_NONZEROS == SPEC_STPU_MAX_SORTED_NONZEROS,
	       "the loader refuses what the generator cannot do (specs/stpu.c)");

/* The rng stream of pattern generation ("STPU"). */
#define STPU_PATTERN_STREAM UINT64_C(0x53545055)

void stpu_pattern_release(struct stpu_pattern *p)
{
	free(p->col_ptr);
	free(p->row_idx);
	memset(p, 0, sizeof(*p));
}

/* Allocate 'p' for a rows x cols pattern of 'nnz' non-zeros. */
static void pattern_alloc(struct stpu_pattern *p, uint64_t rows, uint64_t cols, uint64_t nnz)
{
	p->rows = rows;
	p->cols = cols;
	p->nnz = nnz;
	p->col_ptr = xcalloc((size_t)cols + 1, sizeof(*p->col_ptr));
	p->row_idx = xmalloc((size_t)(nnz ? nnz : 1) * sizeof(*p->row_idx));
}

/* Set (or, with 'clear', clear) 'count' distinct random bits of the n-bit map. */
static void scatter_bits(uint64_t *bits, uint64_t n, uint64_t count, bool clear, struct rng *r)
{
	while (count) {
		uint64_t pos = rng_below(r, n), mask = UINT64_C(1) << (pos % 64);
		bool set = (bits[pos / 64] & mask) != 0;
		if (set == clear) {
			bits[pos / 64] ^= mask;
			count--;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* 'count' distinct positions of [0, n), sorted, by drawing, sorting and redrawing. */
static uint64_t *sorted_positions(uint64_t n, uint64_t count, struct rng *r)
{
	uint64_t *pos = xmalloc((size_t)(count ? count : 1) * sizeof(*pos));
	uint64_t have = 0, i, k;

	while (have < count) {
		for (i = have; i < count; i++)
			pos[i] = rng_below(r, n);
		qsort(pos, (size_t)count, sizeof(*pos), cmp_u64);
		for (i = 1, k = 1; i < count; i++)
			if (pos[i] != pos[k - 1])
				pos[k++] = pos[i];
		have = count ? k : 0;
	}
	return pos;
}

/*
 * 'k' distinct positions drawn from [0, n) as a bitmap of n bits would draw
 * them (scatter_bits(): draw, skip a position already taken), kept in an
 * open-addressing set of about 4k slots instead: memory and time follow k,
 * not n. Returns them sorted (caller frees).
 */
static uint64_t *drawn_positions(uint64_t n, uint64_t k, struct rng *r)
{
	uint64_t *out = xmalloc((size_t)(k ? k : 1) * sizeof(*out)), *set, mask, have = 0;
	size_t slots = 16;

	while (slots < 4 * k)
		slots *= 2;
	set = xmalloc(slots * sizeof(*set));
	memset(set, 0xff, slots * sizeof(*set));   /* UINT64_MAX: empty (n <= 2^32) */
	mask = slots - 1;
	while (have < k) {
		uint64_t pos = rng_below(r, n), h = (pos * UINT64_C(0x9E3779B97F4A7C15)) >> 20;
		while (set[h & mask] != UINT64_MAX && set[h & mask] != pos)
			h++;
		if (set[h & mask] == pos)
			continue;
		set[h & mask] = pos;
		out[have++] = pos;
	}
	free(set);
	qsort(out, (size_t)k, sizeof(*out), cmp_u64);
	return out;
}

/*
 * A uniform 'k'-subset of [0, n) (n <= 2^32), sorted, into '*out' (caller
 * frees): the positions a bitmap of n bits gets from scatter_bits() (set k
 * bits, or clear n - k of a full map when k > n / 2), with the same random
 * draws. The bitmap is used only where it is no larger than a set of the
 * positions would be (k > n / 128); below that the drawn positions are
 * kept in a hash set, so memory and time follow k, not n.
 */
static void random_subset(uint64_t n, uint64_t k, struct rng *r, uint64_t **out)
{
	uint64_t *bits, w, at = 0;
	bool dense = k > n / 2;

	if (!dense && k <= n / 128) {
		*out = drawn_positions(n, k, r);
		return;
	}
	bits = xcalloc((size_t)((n + 63) / 64 + 1), sizeof(*bits));
	if (dense) {
		for (w = 0; w < n / 64; w++)
			bits[w] = ~UINT64_C(0);
		if (n % 64)
			bits[n / 64] = (UINT64_C(1) << (n % 64)) - 1;
	}
	scatter_bits(bits, n, dense ? n - k : k, dense, r);
	*out = xmalloc((size_t)(k ? k : 1) * sizeof(**out));
	for (w = 0; w < (n + 63) / 64; w++) {
		uint64_t word = bits[w];
		while (word) {
			(*out)[at++] = w * 64 + (uint64_t)__builtin_ctzll(word);
			word &= word - 1;
		}
	}
	free(bits);
}

/* Fill 'p' from 'nnz' sorted column-major positions (column pos / rows, row pos % rows). */
static void pattern_from_positions(struct stpu_pattern *p, const uint64_t *pos, uint64_t rows,
				   uint64_t cols, uint64_t nnz)
{
	uint64_t k, c;

	pattern_alloc(p, rows, cols, nnz);
	for (k = 0; k < nnz; k++) {
		p->col_ptr[pos[k] / rows + 1]++;
		p->row_idx[k] = (uint32_t)(pos[k] % rows);
	}
	for (c = 0; c < cols; c++)
		p->col_ptr[c + 1] += p->col_ptr[c];
}

/* Uniform: exactly 'nnz' positions, every set equally likely. */
static int generate_uniform(struct stpu_pattern *p, uint64_t rows, uint64_t cols, uint64_t nnz,
			    struct rng *r, struct strbuf *err)
{
	uint64_t n = rows * cols, *pos;

	if (n <= STPU_MAX_BITMAP_POSITIONS) {
		random_subset(n, nnz, r, &pos);
	} else if (nnz > STPU_MAX_SORTED_NONZEROS) {
		strbuf_setf(err, "a %llu x %llu matrix with %llu non-zeros is too large to "
			 "generate (at most 2^32 positions, or 2^27 non-zeros)",
			 (unsigned long long)rows, (unsigned long long)cols,
			 (unsigned long long)nnz);
		return -1;
	} else {
		pos = sorted_positions(n, nnz, r);
	}
	pattern_from_positions(p, pos, rows, cols, nnz);
	free(pos);
	return 0;
}

/* Banded: the points with |row - col| <= w. */
static void generate_banded(struct stpu_pattern *p, uint64_t rows, uint64_t cols, uint64_t w)
{
	uint64_t c, nnz = 0, k = 0;

	for (c = 0; c < cols; c++) {
		uint64_t lo = c > w ? c - w : 0, hi = c + w < rows - 1 ? c + w : rows - 1;
		if (lo < rows)
			nnz += hi - lo + 1;
	}
	pattern_alloc(p, rows, cols, nnz);
	for (c = 0; c < cols; c++) {
		uint64_t lo = c > w ? c - w : 0, hi = c + w < rows - 1 ? c + w : rows - 1, r;
		for (r = lo; lo < rows && r <= hi; r++)
			p->row_idx[k++] = (uint32_t)r;
		p->col_ptr[c + 1] = k;
	}
}

struct entry {
	uint64_t col, row;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * Block-structured: round(density x blocks) whole blocks of br x bc. The
 * chosen blocks are listed by block column (then block row), so the work
 * follows the non-zeros and the columns, not the blocks.
 */
static int generate_block(struct stpu_pattern *p, uint64_t rows, uint64_t cols,
			  const struct spec_density *d, struct rng *r, struct strbuf *err)
{
	uint64_t br = d->block_shape[0], bc = d->block_shape[1];
	uint64_t gr = (rows + br - 1) / br, gc = (cols + bc - 1) / bc, n_blocks = gr * gc;
	uint64_t k = (uint64_t)llround(d->density * (double)n_blocks), c, nnz = 0, at = 0, i;
	uint64_t *chosen, *by_col, *ptr;

	if (k > n_blocks)
		k = n_blocks;
	if (n_blocks > STPU_MAX_BITMAP_POSITIONS) {
		strbuf_setf(err, "%llu blocks are too many to generate",
			 (unsigned long long)n_blocks);
		return -1;
	}
	random_subset(n_blocks, k, r, &chosen);      /* b * gc + j, ascending */
	ptr = xcalloc((size_t)gc + 1, sizeof(*ptr));
	by_col = xmalloc((size_t)(k ? k : 1) * sizeof(*by_col));
	for (i = 0; i < k; i++)
		ptr[chosen[i] % gc + 1]++;
	for (c = 0; c < gc; c++)
		ptr[c + 1] += ptr[c];
	for (i = 0; i < k; i++)                      /* stable: block rows stay ascending */
		by_col[ptr[chosen[i] % gc]++] = chosen[i] / gc;
	for (c = gc; c > 0; c--)
		ptr[c] = ptr[c - 1];
	ptr[0] = 0;
	for (c = 0; c < gc; c++)
		for (i = ptr[c]; i < ptr[c + 1]; i++)
			nnz += ((c + 1) * bc < cols ? bc : cols - c * bc) *
			       ((by_col[i] + 1) * br < rows ? br : rows - by_col[i] * br);
	pattern_alloc(p, rows, cols, nnz);
	for (c = 0; c < cols; c++) {
		uint64_t j = c / bc, row;
		for (i = ptr[j]; i < ptr[j + 1]; i++)
			for (row = by_col[i] * br; row < rows && row < (by_col[i] + 1) * br; row++)
				p->row_idx[at++] = (uint32_t)row;
		p->col_ptr[c + 1] = at;
	}
	free(chosen);
	free(by_col);
	free(ptr);
	return 0;
}

struct quota {
	uint64_t row;
	double frac;
};

/* Largest fraction first; ties to the lower row. */
static int cmp_quota(const void *a, const void *b)
{
	const struct quota *x = a, *y = b;
	if (x->frac != y->frac)
		return x->frac > y->frac ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * The density model's power-law row lengths: 'total' non-zeros over 'n'
 * rows of 'width' points. W_c = w_c + ... + w_{n-1} with w_i = (i + 1)^-alpha
 * summed from the last row up; while the first remaining row's quota
 * T w_c / W_c exceeds the width it is full; every other row gets the floor
 * of T w_i / W_c, then one more each by largest fraction until T is met.
 */
static void power_law_rows(uint64_t n, uint64_t width, uint64_t total, double alpha,
			   uint64_t *len)
{
	double *tail = xmalloc((size_t)(n + 1) * sizeof(*tail));
	struct quota *q;
	uint64_t first = 0, i, given = 0, k;

	tail[n] = 0.0;
	for (i = n; i-- > 0;)
		tail[i] = tail[i + 1] + pow((double)(i + 1), -alpha);
	memset(len, 0, (size_t)n * sizeof(*len));
	while (first < n && total && (double)total * pow((double)(first + 1), -alpha) /
					     tail[first] > (double)width) {
		len[first++] = width;
		total -= width;
	}
	if (first == n || !total) {
		free(tail);
		return;
	}
	q = xmalloc((size_t)(n - first) * sizeof(*q));
	for (i = first; i < n; i++) {
		double share = (double)total * pow((double)(i + 1), -alpha) / tail[first];
		double whole = floor(share);
		len[i] = whole < (double)width ? (uint64_t)whole : width;
		given += len[i];
		q[i - first] = (struct quota){ i, share - whole };
	}
	qsort(q, (size_t)(n - first), sizeof(*q), cmp_quota);
	for (k = 0; given < total; k = (k + 1) % (n - first))
		if (len[q[k].row] < width) {
			len[q[k].row]++;
			given++;
		}
	free(q);
	free(tail);
}

/* Power law: fixed row lengths, uniform places in each row. */
static int generate_power_law(struct stpu_pattern *p, uint64_t rows, uint64_t cols,
			      const struct spec_density *d, struct rng *r, struct strbuf *err)
{
	uint64_t total = (uint64_t)llround(d->density * (double)rows * (double)cols);
	uint64_t *len = xmalloc((size_t)rows * sizeof(*len)), *row_of = NULL, i, k, nnz = 0;
	struct entry *e;

	if (total > STPU_MAX_SORTED_NONZEROS) {
		strbuf_setf(err, "a power-law matrix with %llu non-zeros is too large to "
			 "generate (at most 2^27)", (unsigned long long)total);
		free(len);
		return -1;
	}
	power_law_rows(rows, cols, total, d->exponent, len);
	if (d->permute_rows) {              /* the lengths dealt in a random order */
		row_of = xmalloc((size_t)rows * sizeof(*row_of));
		for (i = 0; i < rows; i++)
			row_of[i] = i;
		for (i = rows; i > 1; i--) {
			uint64_t j = rng_below(r, i), t = row_of[i - 1];
			row_of[i - 1] = row_of[j];
			row_of[j] = t;
		}
	}
	for (i = 0; i < rows; i++)
		nnz += len[i];
	e = xmalloc((size_t)(nnz ? nnz : 1) * sizeof(*e));
	for (i = 0, k = 0; i < rows; i++) {
		uint64_t *at, c;
		random_subset(cols, len[i], r, &at);
		for (c = 0; c < len[i]; c++)
			e[k++] = (struct entry){ at[c], row_of ? row_of[i] : i };
		free(at);
	}
	qsort(e, (size_t)nnz, sizeof(*e), cmp_entry);
	pattern_alloc(p, rows, cols, nnz);
	for (k = 0; k < nnz; k++) {
		p->col_ptr[e[k].col + 1]++;
		p->row_idx[k] = (uint32_t)e[k].row;
	}
	for (i = 0; i < cols; i++)
		p->col_ptr[i + 1] += p->col_ptr[i];
	free(e);
	free(len);
	free(row_of);
	return 0;
}

void stpu_pattern_from_matrix(const struct spec_matrix *m, struct stpu_pattern *p)
{
	struct entry *e = xmalloc((m->nnz ? m->nnz : 1) * sizeof(*e));
	size_t i, k = 0;
	uint64_t c;

	for (i = 0; i < m->nnz; i++) {
		e[i].row = m->coords[2 * i];
		e[i].col = m->coords[2 * i + 1];
	}
	qsort(e, m->nnz, sizeof(*e), cmp_entry);
	for (i = 0; i < m->nnz; i++)
		if (!k || e[i].col != e[k - 1].col || e[i].row != e[k - 1].row)
			e[k++] = e[i];
	pattern_alloc(p, m->shape[0], m->shape[1], k);
	for (i = 0; i < k; i++) {
		p->col_ptr[e[i].col + 1]++;
		p->row_idx[i] = (uint32_t)e[i].row;
	}
	for (c = 0; c < p->cols; c++)
		p->col_ptr[c + 1] += p->col_ptr[c];
	free(e);
}

int stpu_pattern_build(const struct spec_stpu *st, struct stpu_pattern *p, struct strbuf *err)
{
	const struct spec_density *d = &st->matrix;
	uint64_t rows = st->matrix_rows, cols = st->matrix_cols;
	struct rng r;

	memset(p, 0, sizeof(*p));
	rng_seed_stream(&r, st->seed, STPU_PATTERN_STREAM);
	switch (d->kind) {
	case SPEC_DENSITY_ACTUAL:
		stpu_pattern_from_matrix(d->data, p);
		return 0;
	case SPEC_DENSITY_BANDED:
		generate_banded(p, rows, cols, d->band_width);
		return 0;
	case SPEC_DENSITY_BLOCK:
		return generate_block(p, rows, cols, d, &r, err);
	case SPEC_DENSITY_POWER_LAW:
		return generate_power_law(p, rows, cols, d, &r, err);
	case SPEC_DENSITY_FIXED_STRUCTURED:
	case SPEC_DENSITY_HYPERGEOMETRIC: {
		double want = ceil(d->density * (double)rows * (double)cols);
		uint64_t nnz = (uint64_t)want;
		if (nnz > rows * cols)
			nnz = rows * cols;
		return generate_uniform(p, rows, cols, nnz, &r, err);
	}
	default:
		strbuf_setf(err, "distribution '%s' cannot generate an STPU matrix",
			 spec_density_kind_name(d->kind));
		return -1;
	}
}
