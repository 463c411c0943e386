/*
 * Composable formats (docs/composable.md): one sparse matrix A of an SpMM
 * C[m, n] += A[m, k] * B[k, n] stored as several parts, each in its own
 * format, as SparseTIR's composable formats do. A part takes either the
 * aligned b x b blocks of A that hold at least 'min_fill' non-zeros (BSR), or,
 * of the non-zeros no block took, those of a column range [col_lo, col_hi)
 * whose row holds between min_length and max_length of them in that range
 * (CSR, COO, or ELL of a fixed width; an ELL part that may 'split' cuts a
 * longer row into rows of its width, as SparseTIR's last bucket does).
 *
 * A file gives the parts by hand ('parts') or by SparseTIR's hyb(c, k)
 * decomposition ('hyb'): c column partitions of ceil(K/c) columns, in each
 * ELL buckets of widths 2^0..2^k holding the rows of length (2^(i-1), 2^i],
 * the longer rows cut into rows of width 2^k ('remainder: split') or kept in
 * a CSR part ('remainder: csr'), optionally after a BSR part ('block').
 * The loader checks that the parts cover the matrix once: the column ranges
 * tile [0, K) and, in each, the length ranges tile [1, inf).
 */
#ifndef FIBERLOOP_SPECS_COMPOSE_H
#define FIBERLOOP_SPECS_COMPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "specs/spec.h"
#include "util/arena.h"
#include "util/diag.h"

enum compose_format { COMPOSE_CSR, COMPOSE_COO, COMPOSE_ELL, COMPOSE_BSR };

/*
 * The operation over the split matrix: SpMM C[m, n] += A[m, k] * B[k, n], or
 * SDDMM C[i, j] = A[i, j] * sum_f X[i, f] * Y[j, f] at A's non-zeros (C in
 * A's layout: each part writes its own slots; 'b_reads' counts Y, 'x_reads' X).
 */
enum compose_op { COMPOSE_SPMM, COMPOSE_SDDMM };

/* The GPU the cycles are computed for ('gpu', default a100; model/compose.c has the constants). */
enum compose_gpu_kind { COMPOSE_GPU_A100, COMPOSE_GPU_H100 };
#define COMPOSE_N_GPUS 2

#define COMPOSE_NO_MAX UINT64_MAX     /* max_length: no upper bound */
/* Features a warp computes by default: SparseTIR's hyb SpMM schedule (32 threads x 2). */
#define COMPOSE_WARP_FEATURES 64u

struct compose_part {
	const char *name;
	enum compose_format format;
	uint64_t col_lo, col_hi;       /* columns [col_lo, col_hi) (not BSR) */
	uint64_t min_length, max_length; /* rows' lengths in the range (not BSR) */
	uint64_t width;                /* ELL */
	bool split;                    /* ELL: longer rows cut into rows of 'width' */
	uint64_t block;                /* BSR: block edge b */
	uint64_t min_fill;             /* BSR: blocks with at least this many non-zeros */
	uint64_t warp_features;        /* the features one warp computes of a unit (its
					* schedule); 0: COMPOSE_WARP_FEATURES */
	struct diag_loc loc;
	const char *path;              /* key path for messages ("composable.parts[2]") */
};

struct spec_compose {
	struct arena arena;
	const char *path;
	const struct spec_matrix *matrix;
	enum compose_op op;            /* 'op' (default spmm) */
	enum compose_gpu_kind gpu;     /* 'gpu' (default a100) */
	uint64_t features;             /* n: B's and C's columns (SDDMM: X's and Y's) */
	size_t n_parts;
	struct compose_part *parts;
};

/*
 * What one part of an SpMM costs, in words (values and indices alike), the
 * counts the model (model/compose.c) and the executor (exec/compose.c) both
 * give and the tests compare field by field.
 */
struct compose_counts {
	uint64_t nnz;                  /* the matrix's non-zeros the part holds */
	uint64_t rows;                 /* stored rows: ELL rows, CSR/COO rows with a non-zero,
					* BSR block rows with a block */
	uint64_t blocks;               /* BSR blocks */
	uint64_t slots;                /* stored value positions (ELL and BSR padding included) */
	uint64_t data_reads;           /* A's values read */
	uint64_t meta_reads;           /* A's metadata read (offsets, row and column indices) */
	uint64_t b_reads;              /* B's words read (SDDMM: Y's) */
	uint64_t x_reads;              /* SDDMM: X's words read (SpMM: 0) */
	uint64_t macs;                 /* multiply-accumulates run */
	uint64_t padded_macs;          /* of which on padding (a stored zero) */
	uint64_t c_updates;            /* C's words written (one per row update and column of C;
					* SDDMM: one per slot) */
	uint64_t c_reads;              /* C's words read back: updates of rows that more than one
					* stored row (of any part) updates are atomic */
	uint64_t max_unit;             /* the slots of the largest unit of work (one CSR row, one
					* ELL row, one BSR block row, one COO element) */
};

#define COMPOSE_N_COUNTS 13
#define COMPOSE_X_READS 7         /* x_reads' index in the fields */

/* The fields of 'c' in declaration order, and their names. */
void compose_counts_fields(const struct compose_counts *c, uint64_t out[COMPOSE_N_COUNTS]);
extern const char *const compose_count_names[COMPOSE_N_COUNTS];

/* Load a composable-format file; NULL after reporting every problem to 'dl'. */
struct spec_compose *spec_compose_load(const char *path, struct diag_list *dl);

/* spec_compose_load() of 'text'; 'matrix' replaces the file's 'matrix' key when not NULL. */
struct spec_compose *spec_compose_parse(const char *name, const char *text, size_t len,
					const struct spec_matrix *matrix, struct diag_list *dl);

void spec_compose_free(struct spec_compose *c);

/*
 * Fill 'out' (room for compose_hyb_count() parts) with the parts of hyb(c, k)
 * over 'n_cols' columns: 'remainder_csr' keeps rows longer than 2^k in a CSR
 * part per column partition, else the last bucket splits them; 'block' > 0
 * puts a BSR part of that block edge and 'min_fill' first. Returns the count.
 */
size_t compose_hyb_parts(uint64_t n_cols, unsigned c, unsigned k, bool remainder_csr,
			 uint64_t block, uint64_t min_fill, struct compose_part *out);
size_t compose_hyb_count(unsigned c, unsigned k, bool remainder_csr, uint64_t block);

/*
 * Check that 'parts' cover a matrix of 'n_cols' columns once; each problem is
 * reported at its part's location. Returns 0 or -1.
 */
int compose_check_cover(const struct compose_part *parts, size_t n, uint64_t n_cols,
			struct diag_list *dl);

const char *compose_format_name(enum compose_format f);
const char *compose_op_name(enum compose_op op);
const char *compose_gpu_name(enum compose_gpu_kind g);

#endif
