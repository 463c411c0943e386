/*
 * Composable formats, the model (model/compose.h, docs/composable.md).
 *
 * The counts of a part follow from the lengths d of the rows it holds (the
 * non-zeros of a row in the part's column range, after the BSR part's
 * blocks), n the features (columns of B and C) and M the matrix's rows:
 *
 *   CSR      rows R = #d, nnz = sum d, slots = nnz, metadata M + 1 + nnz,
 *            B nnz*n, MACs nnz*n, C updates R*n, unit max d
 *   COO      nnz = sum d, metadata 2 nnz, B and MACs nnz*n, C updates nnz*n
 *            (each element updates its row), unit 1
 *   ELL(w)   stored rows R = sum chunks(d) (1, or ceil(d/w) when it splits),
 *            slots R*w, metadata R + R*w, B and MACs R*w*n, C updates R*n,
 *            unit w
 *   BSR(b)   blocks B of at least min_fill non-zeros, slots B*b^2, metadata
 *            ceil(M/b) + 1 + B, B reads B*b*n, MACs B*b^2*n, C updates
 *            (rows of the block rows that hold a block)*n, unit (most blocks
 *            of a block row)*b^2
 *
 * The part's schedule: a warp computes warp_features (wf, default 64) of a
 * unit's n features, so a unit takes g = ceil(n / wf) warps, each reading
 * the unit's A values and indices itself: A's values g per slot, and every
 * metadata count above but CSR's and BSR's offsets times g. C is shared: a
 * row that more than one stored row updates (several parts, or an ELL row cut
 * in chunks) takes atomic updates, each reading the row back (c_reads).
 *
 * SDDMM (C[i, j] = A[i, j] * X[i, :] . Y[j, :] at A's non-zeros, C in A's
 * layout) reads, computes and is padded as SpMM does (Y where SpMM reads B:
 * a row per slot, b rows per BSR block), and besides reads X's row once per
 * unit of rows (per stored CSR or ELL row, per COO element, b rows per BSR
 * block); each of the g warps writes its partial dot product of a slot, the
 * later ones reading the word back; no part shares an output word.
 */
#include "model/compose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * NVIDIA A100 SXM4 (examples/a100/README.md, docs/composable.md): 108 SMs at
 * 1410 MHz; 64 FP32 cores per SM in 4 sub-partitions of 16 (A100 whitepaper),
 * so a warp alone runs 16 FMAs a clock; L2 5120 bytes a clock (PMC10448217
 * Table 3) and 40 MB (datasheet); HBM2 1555 GB/s = 1102.8 bytes a clock; a warp computes 64
 * features (32 threads, 2 each: the coarsening factor of SparseTIR's hyb SpMM
 * schedule in its artifact); 4-byte values and indices.
 */
const struct compose_gpu compose_gpu_a100 = {
	.name = "a100", .sms = 108, .fma_per_sm = 64, .fma_per_warp = 16, .l2_bytes = 5120,
	.l2_capacity = 40.0 * 1024 * 1024,
	.dram_bytes = 1555e9 / 1410e6, .clock_mhz = 1410, .word_bytes = 4,
};

/*
 * NVIDIA H100 SXM5 (examples/h100/README.md, docs/composable.md): 132 SMs at
 * 1830 MHz (the boost clock of the datasheet's dense fp16 rate, as
 * examples/h100/arch.yaml); 128 FP32 cores per SM in 4 sub-partitions of 32
 * (H100 whitepaper), so a warp alone runs 32 FMAs a clock; L2 5120 bytes a
 * clock (PMC10448217 Table 3) and 50 MB (whitepaper); HBM3 3.35 TB/s
 * (datasheet); SparseTIR's 64 features a warp; 4-byte values and indices.
 */
const struct compose_gpu compose_gpu_h100 = {
	.name = "h100", .sms = 132, .fma_per_sm = 128, .fma_per_warp = 32, .l2_bytes = 5120,
	.l2_capacity = 50.0 * 1024 * 1024,
	.dram_bytes = 3.35e12 / 1830e6, .clock_mhz = 1830, .word_bytes = 4,
};

const struct compose_gpu *compose_gpu_of(enum compose_gpu_kind g)
{
	return g == COMPOSE_GPU_H100 ? &compose_gpu_h100 : &compose_gpu_a100;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int compose_matrix_init(struct compose_matrix *m, const struct spec_matrix *sm)
{
	uint64_t i, *fill;

	memset(m, 0, sizeof(*m));
	if (sm->n_ranks != 2)
		return -1;
	m->rows = sm->shape[0];
	m->cols = sm->shape[1];
	m->nnz = sm->nnz;
	m->row_ptr = xcalloc(m->rows + 1, sizeof(*m->row_ptr));
	m->col = xcalloc(m->nnz + 1, sizeof(*m->col));
	for (i = 0; i < m->nnz; i++)
		m->row_ptr[sm->coords[2 * i] + 1]++;
	for (i = 0; i < m->rows; i++)
		m->row_ptr[i + 1] += m->row_ptr[i];
	fill = xcalloc(m->rows + 1, sizeof(*fill));
	for (i = 0; i < m->nnz; i++) {
		uint64_t r = sm->coords[2 * i];
		m->col[m->row_ptr[r] + fill[r]++] = sm->coords[2 * i + 1];
	}
	free(fill);
	for (i = 0; i < m->rows; i++)
		qsort(m->col + m->row_ptr[i], m->row_ptr[i + 1] - m->row_ptr[i], sizeof(uint64_t),
		      cmp_u64);
	return 0;
}

void compose_matrix_release(struct compose_matrix *m)
{
	free(m->row_ptr);
	free(m->col);
	memset(m, 0, sizeof(*m));
}

/* Index of the range holding column 'c' (ranges sorted, disjoint, covering). */
static size_t range_of(const struct compose_lengths *l, uint64_t c)
{
	size_t lo = 0, hi = l->n_ranges;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (l->range_lo[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static size_t range_index(const struct compose_lengths *l, const struct compose_part *q)
{
	return range_of(l, q->col_lo);
}

/* Count row r's lengths into the histograms: 'hit' its block updates, len its n_ranges lengths. */
static void add_row(struct compose_lengths *l, const uint32_t *len, unsigned hit)
{
	unsigned j = hit;
	size_t i;

	for (i = 0; i < l->n_ranges; i++)
		j += len[i] > 0;
	for (i = 0; i < l->n_ranges; i++)
		if (len[i]) {
			if (j >= 2)
				l->multi[i][len[i]]++;
			else
				l->single[i][len[i]]++;
		}
	if (hit && j >= 2)
		l->block_shared_rows++;
}

int compose_lengths_build(struct compose_lengths *l, const struct compose_matrix *m,
			  const struct compose_part *parts, size_t n)
{
	const struct compose_part *bsr = NULL;
	uint64_t *fills = NULL, *touched = NULL, r, i;
	uint32_t *len;
	size_t k;

	memset(l, 0, sizeof(*l));
	l->rows = m->rows;
	l->cols = m->cols;
	l->range_lo = xcalloc(n + 1, sizeof(*l->range_lo));
	l->range_hi = xcalloc(n + 1, sizeof(*l->range_hi));
	for (k = 0; k < n; k++) {
		size_t j;
		if (parts[k].format == COMPOSE_BSR) {
			bsr = &parts[k];
			continue;
		}
		for (j = 0; j < l->n_ranges; j++)
			if (l->range_lo[j] == parts[k].col_lo)
				break;
		if (j == l->n_ranges) {
			l->range_lo[j] = parts[k].col_lo;
			l->range_hi[j] = parts[k].col_hi;
			l->n_ranges++;
		}
	}
	if (!l->n_ranges) {
		compose_lengths_release(l);
		return -1;
	}
	/* sort the ranges by their start (insertion sort) */
	for (k = 1; k < l->n_ranges; k++) {
		uint64_t lo = l->range_lo[k], hi = l->range_hi[k];
		size_t j = k;
		for (; j > 0 && l->range_lo[j - 1] > lo; j--) {
			l->range_lo[j] = l->range_lo[j - 1];
			l->range_hi[j] = l->range_hi[j - 1];
		}
		l->range_lo[j] = lo;
		l->range_hi[j] = hi;
	}
	l->range_at = xcalloc(m->cols + 1, sizeof(*l->range_at));
	for (k = 0; k < l->n_ranges; k++)
		for (i = l->range_lo[k]; i < l->range_hi[k] && i < m->cols; i++)
			l->range_at[i] = (uint32_t)k;
	l->max_len = xcalloc(l->n_ranges, sizeof(*l->max_len));
	l->single = xcalloc(l->n_ranges, sizeof(*l->single));
	l->multi = xcalloc(l->n_ranges, sizeof(*l->multi));
	{
		uint64_t mx = 0;
		for (r = 0; r < m->rows; r++)
			if (m->row_ptr[r + 1] - m->row_ptr[r] > mx)
				mx = m->row_ptr[r + 1] - m->row_ptr[r];
		for (k = 0; k < l->n_ranges; k++) {
			/* a row holds at most min(its length, the range's width) in the range */
			uint64_t w = l->range_hi[k] - l->range_lo[k];
			l->max_len[k] = mx < w ? mx : w;
		}
	}
	for (k = 0; k < l->n_ranges; k++) {
		l->single[k] = xcalloc(l->max_len[k] + 1, sizeof(uint64_t));
		l->multi[k] = xcalloc(l->max_len[k] + 1, sizeof(uint64_t));
	}
	len = xcalloc(l->n_ranges + 1, sizeof(*len));
	if (bsr) {
		uint64_t b = bsr->block, nbc = (m->cols + b - 1) / b, nbr = (m->rows + b - 1) / b;
		l->block = b;
		l->min_fill = bsr->min_fill;
		fills = xcalloc(nbc + 1, sizeof(*fills));
		touched = xcalloc(nbc + 1, sizeof(*touched));
		for (r = 0; r < nbr; r++) {
			uint64_t r0 = r * b, r1 = r0 + b > m->rows ? m->rows : r0 + b, nt = 0, nb = 0, x;
			for (x = r0; x < r1; x++)
				for (i = m->row_ptr[x]; i < m->row_ptr[x + 1]; i++) {
					uint64_t bc = m->col[i] / b;
					if (!fills[bc]++)
						touched[nt++] = bc;
				}
			for (i = 0; i < nt; i++)
				if (fills[touched[i]] >= bsr->min_fill) {
					nb++;
					l->block_nnz += fills[touched[i]];
				}
			if (nb) {
				l->blocks += nb;
				l->block_rows++;
				l->block_c_rows += r1 - r0;
				if (nb > l->max_blocks_in_row)
					l->max_blocks_in_row = nb;
			}
			for (x = r0; x < r1; x++) {
				memset(len, 0, l->n_ranges * sizeof(*len));
				for (i = m->row_ptr[x]; i < m->row_ptr[x + 1]; i++)
					if (fills[m->col[i] / b] < bsr->min_fill)
						len[l->range_at[m->col[i]]]++;
				add_row(l, len, nb ? 1 : 0);
			}
			for (i = 0; i < nt; i++)
				fills[touched[i]] = 0;
		}
		free(fills);
		free(touched);
	} else {
		for (r = 0; r < m->rows; r++) {
			memset(len, 0, l->n_ranges * sizeof(*len));
			for (i = m->row_ptr[r]; i < m->row_ptr[r + 1]; i++)
				len[l->range_at[m->col[i]]]++;
			add_row(l, len, 0);
		}
	}
	free(len);
	return 0;
}

void compose_lengths_release(struct compose_lengths *l)
{
	size_t k;
	for (k = 0; l->single && k < l->n_ranges; k++) {
		free(l->single[k]);
		free(l->multi[k]);
	}
	free(l->single);
	free(l->multi);
	free(l->max_len);
	free(l->range_at);
	free(l->range_lo);
	free(l->range_hi);
	memset(l, 0, sizeof(*l));
}

/* Stored rows (updates of C) a row of length d makes in part q. */
static uint64_t updates_of(const struct compose_part *q, uint64_t d)
{
	switch (q->format) {
	case COMPOSE_COO:
		return d;
	case COMPOSE_ELL:
		return q->split ? (d + q->width - 1) / q->width : 1;
	default:
		return 1;
	}
}

/* The features one warp of part q computes, and the warps (slices) a unit of 'features' takes. */
static uint64_t warp_width(const struct compose_part *q, uint64_t features)
{
	uint64_t wf = q->warp_features ? q->warp_features : COMPOSE_WARP_FEATURES;
	return wf < features ? wf : features;
}

static uint64_t warp_slices(const struct compose_part *q, uint64_t features)
{
	uint64_t wf = warp_width(q, features);
	return (features + wf - 1) / wf;
}

/*
 * SDDMM from the SpMM counts of the same part: X read per unit of rows, C one
 * word a slot written by each of the g slices (the later ones add to it,
 * reading it back).
 */
static void sddmm_counts(const struct compose_part *q, uint64_t features, uint64_t g,
			 struct compose_counts *c)
{
	switch (q->format) {
	case COMPOSE_COO:
		c->x_reads = c->nnz * features;
		break;
	case COMPOSE_BSR:
		c->x_reads = c->blocks * q->block * features;
		break;
	default:
		c->x_reads = c->rows * features;   /* stored rows (ELL: after the split) */
		break;
	}
	c->c_updates = c->slots * g;
	c->c_reads = c->slots * (g - 1);
}

void compose_model_counts(const struct compose_lengths *l, const struct compose_part *parts,
			  size_t n, enum compose_op op, uint64_t features,
			  struct compose_counts *out)
{
	size_t k;

	memset(out, 0, n * sizeof(*out));
	for (k = 0; k < n; k++) {
		const struct compose_part *q = &parts[k];
		struct compose_counts *c = &out[k];
		uint64_t stored = 0, shared = 0, maxd = 0, d, hi, g = warp_slices(q, features);
		size_t ri;
		if (q->format == COMPOSE_BSR) {
			uint64_t b = q->block;
			c->nnz = l->block_nnz;
			c->blocks = l->blocks;
			c->rows = l->block_rows;
			c->slots = l->blocks * b * b;
			c->data_reads = c->slots * g;
			c->meta_reads = l->blocks ? (l->rows + b - 1) / b + 1 + l->blocks * g : 0;
			c->b_reads = l->blocks * b * features;
			c->macs = c->slots * features;
			c->padded_macs = (c->slots - c->nnz) * features;
			c->c_updates = l->block_c_rows * features;
			c->c_reads = l->block_shared_rows * features;
			c->max_unit = l->max_blocks_in_row * b * b;
			if (op == COMPOSE_SDDMM)
				sddmm_counts(q, features, g, c);
			continue;
		}
		ri = range_index(l, q);
		hi = q->max_length < l->max_len[ri] ? q->max_length : l->max_len[ri];
		for (d = q->min_length; d <= hi; d++) {
			uint64_t sg = l->single[ri][d], mu = l->multi[ri][d], u;
			if (!sg && !mu)
				continue;
			u = updates_of(q, d);
			c->nnz += d * (sg + mu);
			c->rows += sg + mu;
			stored += u * (sg + mu);
			/* a row is updated by more than one stored row: by other
			 * ranges or blocks (multi), or cut in several here */
			shared += u * mu + (u >= 2 ? u * sg : 0);
			maxd = d;
		}
		switch (q->format) {
		case COMPOSE_CSR:
			c->slots = c->nnz;
			c->meta_reads = c->nnz ? l->rows + 1 + c->nnz * g : 0;
			c->max_unit = maxd;
			break;
		case COMPOSE_COO:
			c->slots = c->nnz;
			c->meta_reads = 2 * c->nnz * g;
			c->max_unit = c->nnz ? 1 : 0;
			break;
		case COMPOSE_ELL:
			c->rows = stored;
			c->slots = stored * q->width;
			c->meta_reads = (stored + c->slots) * g;
			c->max_unit = stored ? q->width : 0;
			break;
		case COMPOSE_BSR:
			break;
		}
		c->data_reads = c->slots * g;
		c->b_reads = c->slots * features;
		c->macs = c->slots * features;
		c->padded_macs = (c->slots - c->nnz) * features;
		c->c_updates = stored * features;
		c->c_reads = shared * features;
		if (op == COMPOSE_SDDMM)
			sddmm_counts(q, features, g, c);
	}
}

/*
 * DRAM words of an array of 'size' words read 'reads' times at random while
 * the L2 holds 'cap' words of it: the first touch of every word, then the
 * share of the other reads that misses, 1 - cap/size (0 when it fits).
 */
static double dram_of(double reads, double size, double cap)
{
	double first = reads < size ? reads : size, miss = size > cap ? 1.0 - cap / size : 0.0;
	return first + miss * (reads - first);
}

void compose_model_time(const struct compose_gpu *g, const struct compose_part *parts,
			const struct compose_counts *c, size_t n, enum compose_op op, uint64_t rows,
			uint64_t cols, uint64_t features, struct compose_time *t)
{
	double macs = 0, l2 = 0, a = 0, unit = 0, cw = 0, xw = 0, cap = g->l2_capacity / g->word_bytes;
	double dram_b = 0, *brange = xcalloc(3 * (n + 1), sizeof(double));
	double *bwidth = brange + n + 1, *bcol_lo = bwidth + n + 1;
	size_t k, nr = 0, j;

	for (k = 0; k < n; k++) {
		double lo = parts[k].format == COMPOSE_BSR ? 0.0 : (double)parts[k].col_lo;
		double w = parts[k].format == COMPOSE_BSR ? (double)cols
			: (double)(parts[k].col_hi - parts[k].col_lo);
		macs += (double)c[k].macs;
		a += (double)(c[k].data_reads + c[k].meta_reads);
		l2 += (double)(c[k].data_reads + c[k].meta_reads + c[k].b_reads + c[k].x_reads +
			       c[k].c_updates + c[k].c_reads);
		cw += (double)(c[k].c_updates + c[k].c_reads);
		xw += (double)c[k].x_reads;
		if ((double)c[k].max_unit * (double)warp_width(&parts[k], features) > unit)
			unit = (double)c[k].max_unit * (double)warp_width(&parts[k], features);
		/* B's reads by column range (the BSR part: its own, over all columns) */
		for (j = 0; j < nr; j++)
			if (bcol_lo[j] == lo && bwidth[j] == w && parts[k].format != COMPOSE_BSR)
				break;
		if (j == nr) {
			bcol_lo[nr] = lo;
			bwidth[nr] = w;
			nr++;
		}
		brange[j] += (double)c[k].b_reads;
	}
	/*
	 * The parts of a column range run one after another (thread blocks start in
	 * the order of their index), so B's working set is the range's slice; C is
	 * revisited once per range, the whole of it the working set.
	 */
	for (j = 0; j < nr; j++)
		dram_b += dram_of(brange[j], bwidth[j] * (double)features, cap);
	free(brange);
	if (op == COMPOSE_SDDMM)
		/* C streams out once, a word a slot; X (rows x n) is revisited once per range */
		t->dram_words = a + dram_b + cw + dram_of(xw, (double)rows * (double)features, cap);
	else
		t->dram_words = a + dram_b + dram_of(cw, (double)rows * (double)features, cap);
	t->compute = macs / (g->sms * g->fma_per_sm);
	t->l2 = l2 * g->word_bytes / g->l2_bytes;
	t->dram = t->dram_words * g->word_bytes / g->dram_bytes;
	t->unit = unit / g->fma_per_warp;
	t->cycles = fmax(fmax(t->compute, t->l2), fmax(t->dram, t->unit));
}

/* ------------------------------------------------------------- search */

size_t compose_search(const struct compose_matrix *m, const struct compose_gpu *g,
		      enum compose_op op, uint64_t features, const unsigned *cs, size_t n_cs, unsigned max_buckets,
		      const uint64_t *blocks, size_t n_blocks, struct compose_choice *best,
		      struct compose_time *csr)
{
	size_t ib, ic, evaluated = 0;
	size_t cap = compose_hyb_count(64, max_buckets, false, 1) + 2;
	struct compose_part *parts;
	struct compose_counts *cnt;
	bool have = false;

	for (ic = 0; ic < n_cs; ic++)
		if (compose_hyb_count(cs[ic], max_buckets, false, 1) + 2 > cap)
			cap = compose_hyb_count(cs[ic], max_buckets, false, 1) + 2;
	parts = xcalloc(cap, sizeof(*parts));
	cnt = xcalloc(cap, sizeof(*cnt));
	{
		/* plain CSR is a point too: a decomposition must beat it to be chosen */
		struct compose_lengths l;
		struct compose_part p = { .name = "csr", .format = COMPOSE_CSR, .col_hi = m->cols,
					  .min_length = 1, .max_length = COMPOSE_NO_MAX };
		struct compose_time t;
		if (compose_lengths_build(&l, m, &p, 1) == 0) {
			compose_model_counts(&l, &p, 1, op, features, cnt);
			compose_model_time(g, &p, cnt, 1, op, m->rows, m->cols, features, &t);
			compose_lengths_release(&l);
			evaluated++;
			if (csr)
				*csr = t;
			if (best) {
				memset(best, 0, sizeof(*best));
				best->time = t;
				have = true;
			}
		}
	}
	for (ib = 0; ib <= n_blocks; ib++) {
		uint64_t b = ib ? blocks[ib - 1] : 0;
		for (ic = 0; ic < n_cs; ic++) {
			struct compose_lengths l;
			unsigned k;
			size_t np;
			if (cs[ic] == 0 || cs[ic] > m->cols)
				continue;
			/* the lengths depend on the ranges and the blocks, not on k */
			np = compose_hyb_parts(m->cols, cs[ic], max_buckets, false, b,
					       b ? (b * b + 1) / 2 : 0, parts);
			if (compose_lengths_build(&l, m, parts, np) < 0)
				continue;
			for (k = 0; k <= max_buckets; k++) {
				struct compose_time t;
				np = compose_hyb_parts(m->cols, cs[ic], k, false, b,
						       b ? (b * b + 1) / 2 : 0, parts);
				compose_model_counts(&l, parts, np, op, features, cnt);
				compose_model_time(g, parts, cnt, np, op, m->rows, m->cols, features,
						   &t);
				evaluated++;
				if (best && (!have || t.cycles < best->time.cycles)) {
					best->column_parts = cs[ic];
					best->buckets = k;
					best->block = b;
					best->time = t;
					have = true;
				}
			}
			compose_lengths_release(&l);
		}
	}
	free(parts);
	free(cnt);
	return evaluated;
}
