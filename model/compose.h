/*
 * The model of composable formats (specs/compose.h, docs/composable.md): the
 * counts of every part of an SpMM C[m, n] += A[m, k] * B[k, n] or an SDDMM
 * C[i, j] = A[i, j] * sum_f X[i, f] * Y[j, f] whose A is stored as parts, from the row lengths of A (per column range, after the
 * BSR part's blocks) in closed form; the shared output's atomic updates; the
 * cycles of the kernel on a GPU; and the search over SparseTIR's hyb(c, k)
 * and a block size that picks the fastest decomposition.
 */
#ifndef FIBERLOOP_MODEL_COMPOSE_H
#define FIBERLOOP_MODEL_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "specs/compose.h"

/*
 * A GPU as the composable model sees it (docs/composable.md gives each
 * constant's source): SMs, FP32 multiply-accumulates per clock of an SM and
 * of one warp alone, L2 and DRAM bytes per clock, and the bytes of a word
 * (the features a warp computes are each part's schedule: warp_features).
 */
struct compose_gpu {
	const char *name;
	double sms;
	double fma_per_sm;
	double fma_per_warp;
	double l2_bytes;
	double l2_capacity;
	double dram_bytes;
	double clock_mhz;
	double word_bytes;
};

extern const struct compose_gpu compose_gpu_a100, compose_gpu_h100;

/* The constants of the GPU a composable file names. */
const struct compose_gpu *compose_gpu_of(enum compose_gpu_kind g);

/* A matrix as rows (the model's view of it, built once). */
struct compose_matrix {
	uint64_t rows, cols, nnz;
	uint64_t *row_ptr;             /* rows + 1 */
	uint64_t *col;                 /* nnz, sorted within each row */
};

int compose_matrix_init(struct compose_matrix *m, const struct spec_matrix *sm);
void compose_matrix_release(struct compose_matrix *m);

/*
 * The row lengths of a decomposition: after the BSR part (if any) took its
 * blocks, the non-zeros of each row in each distinct column range.
 */
struct compose_lengths {
	uint64_t rows, cols;
	size_t n_ranges;
	uint64_t *range_lo, *range_hi; /* n_ranges, sorted */
	uint32_t *range_at;            /* cols: the range of each column */
	/*
	 * per range, for each length d in 0..max_len[i]: the rows of that length
	 * there that no other range nor block updates (single) and the others (multi)
	 */
	uint64_t *max_len;
	uint64_t **single, **multi;
	/* the BSR part's statistics (block 0: none) */
	uint64_t block, min_fill;
	uint64_t blocks, block_nnz, block_rows, block_c_rows, max_blocks_in_row;
	uint64_t block_shared_rows;    /* rows a block covers that some range updates too */
};

/* Build the lengths of 'parts' over 'm'. Returns 0, or -1 when 'parts' has no valid ranges. */
int compose_lengths_build(struct compose_lengths *l, const struct compose_matrix *m,
			  const struct compose_part *parts, size_t n);
void compose_lengths_release(struct compose_lengths *l);

/*
 * The counts of each part ('out' has n entries) of 'op' for 'features'
 * columns of B and C (SDDMM: of X and Y), from lengths built for the same
 * parts' ranges and blocks.
 */
void compose_model_counts(const struct compose_lengths *l, const struct compose_part *parts,
			  size_t n, enum compose_op op, uint64_t features,
			  struct compose_counts *out);

/* The cycles of the kernel: the largest of compute, L2, DRAM and the longest unit of work. */
struct compose_time {
	double compute, l2, dram, unit, cycles;
	double dram_words;
};

void compose_model_time(const struct compose_gpu *g, const struct compose_part *parts,
			const struct compose_counts *c, size_t n, enum compose_op op, uint64_t rows,
			uint64_t cols, uint64_t features, struct compose_time *t);

/* A point of the decomposition search (column_parts 0: plain CSR). */
struct compose_choice {
	unsigned column_parts, buckets;
	uint64_t block;                /* 0: no BSR part */
	struct compose_time time;
};

/*
 * Search hyb(c, k) for c in 'cs', k in 0..max_buckets, each with no BSR part
 * and with a BSR part of every block edge in 'blocks' (taking the blocks at
 * least half full), the longer rows split, and plain CSR: the choice of
 * fewest cycles in 'best' (the first found among equals), the plain CSR
 * design's time in 'csr' (either may be NULL). Returns the number of points
 * evaluated.
 */
size_t compose_search(const struct compose_matrix *m, const struct compose_gpu *g,
		      enum compose_op op, uint64_t features, const unsigned *cs, size_t n_cs, unsigned max_buckets,
		      const uint64_t *blocks, size_t n_blocks, struct compose_choice *best,
		      struct compose_time *csr);

#endif
