/*
 * Internals of the STPU model: the matrix pattern (compressed columns), the
 * packers' output per row partition, the array's schedule recurrence and the
 * density-aware estimate. Shared by accel/stpu_*.c and their tests.
 *
 * A partition is array_rows consecutive matrix rows (the last may be
 * shorter). A packer hands the cost model one partition at a time: its
 * groups in order, each with the number of original columns streamed into
 * it (its input group) and the number of non-empty PEs it fills.
 */
#ifndef ACCEL_STPU_INT_H
#define ACCEL_STPU_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/accel.h"

struct strbuf;

/* A non-zero pattern in compressed columns: rows of column c are
 * row_idx[col_ptr[c] .. col_ptr[c+1]), strictly increasing. */
struct stpu_pattern {
	uint64_t rows, cols, nnz;
	uint64_t *col_ptr;         /* cols + 1 */
	uint32_t *row_idx;         /* nnz */
};

#define STPU_PATTERN_INIT { 0, 0, 0, NULL, NULL }

/*
 * Build the pattern of 'st': read from its file, or generated from its
 * density model with its seed (uniform: exactly ceil(density x rows x cols)
 * non-zeros placed uniformly; banded: |row - col| <= band width). Returns 0,
 * or -1 with 'err' when the matrix is too large to generate.
 */
int stpu_pattern_build(const struct spec_stpu *st, struct stpu_pattern *p,
		       struct strbuf *err);

/* The pattern of matrix 'm' (2 ranks; duplicates merged). */
void stpu_pattern_from_matrix(const struct spec_matrix *m, struct stpu_pattern *p);

/* Free the arrays of 'p' and reset it. */
void stpu_pattern_release(struct stpu_pattern *p);

/* Packing parameters (from the spec). */
struct stpu_pack_params {
	unsigned part_rows;               /* the array height */
	unsigned max_collision_row;
	unsigned n_iter;
	const unsigned *max_collision_group;
	unsigned kmz_max_columns;
	double kmz_max_conflict_fraction;
	bool keep_members;                /* fill stpu_part.member_* (tests) */
};

/* One partition's packed groups, in the order they are mapped on the array. */
struct stpu_part {
	uint64_t index;                   /* partition number */
	unsigned rows;                    /* matrix rows in it */
	size_t n_groups;
	const uint32_t *len;              /* columns streamed into each group */
	const uint32_t *nnz;              /* non-empty PEs of each group (rows of this partition) */
	/* with keep_members: the group's entries (row in partition, column), by row */
	const uint64_t *member_ptr;       /* n_groups + 1 */
	const uint32_t *member_row;
	const uint32_t *member_col;
};

typedef void (*stpu_part_fn)(void *ctx, const struct stpu_part *part);

/*
 * Pack 'pat' with 'scheme' partition by partition, calling fn(ctx, part)
 * once per partition in order (the arrays are valid during the call), and
 * fill 'stats'. KMZ packs full-height columns once and presents the same
 * groups to every partition.
 */
void stpu_pack(const struct stpu_pattern *pat, enum accel_stpu_scheme scheme,
	       const struct stpu_pack_params *pp, struct accel_stpu_packing *stats,
	       stpu_part_fn fn, void *ctx);

/*
 * The groups of a scheme that presents the same groups to every partition
 * (TPU: every column, one column each; KMZ: its full-height groups), for a
 * cost model that does not walk partition by partition.
 */
struct stpu_uniform {
	size_t n_groups;
	uint32_t *len;                    /* columns of each group; NULL: one each (TPU) */
	uint64_t sum_len;                 /* the columns of all the groups */
};

/*
 * Pack 'pat' with TPU or KMZ ('scheme'), fill 'stats' as stpu_pack() does
 * and the groups into 'u' (release with stpu_uniform_release()): in time and
 * memory of the non-zeros and the groups, not of partitions x groups.
 */
void stpu_pack_uniform(const struct stpu_pattern *pat, enum accel_stpu_scheme scheme,
		       const struct stpu_pack_params *pp, struct accel_stpu_packing *stats,
		       struct stpu_uniform *u);

void stpu_uniform_release(struct stpu_uniform *u);

/* ------------------------------------------------------------ schedule */

/* How a PE column starts its multiply-add. */
enum stpu_trigger {
	STPU_TRIGGER_END,        /* STPU: an end signal follows the input group */
	STPU_TRIGGER_ARRIVAL,    /* TPU / KMZ: the multiply-add happens as the value arrives */
};

/*
 * The array's schedule across blocks (docs/stpu.md, "Schedule"): for block
 * b and PE column c, E[c] is the cycle its end signal (or its value, on
 * arrival) enters the top of the column; W is the cycle the block's weight
 * load starts on row 0.
 */
struct stpu_sched {
	unsigned sah, saw;
	enum stpu_trigger trigger;
	uint64_t n_blocks;
	int64_t w_prev;                /* W of the previous block */
	int64_t *e_prev;               /* E of the previous block, per column */
	int64_t *e_cur;
	int64_t e_last_prev2;          /* E of the last column two blocks ago */
	int64_t done;                  /* max over blocks of E[last] + rows */
};

void stpu_sched_init(struct stpu_sched *s, unsigned sah, unsigned saw, enum stpu_trigger t);

/* Schedule one block of 'rows' matrix rows and 'width' used columns with input group lengths 'len'. */
void stpu_sched_block(struct stpu_sched *s, unsigned rows, unsigned width, const uint32_t *len);

/*
 * Schedule 'n' blocks of 'rows' matrix rows on a TRIGGER_ARRIVAL schedule
 * at once, in O(saw): what n calls of stpu_sched_block() would give (their
 * widths and group lengths do not matter there).
 */
void stpu_sched_arrival_blocks(struct stpu_sched *s, unsigned rows, uint64_t n);

/* Cycles from the first load to the last output collected (0 without blocks). */
uint64_t stpu_sched_cycles(const struct stpu_sched *s);

void stpu_sched_release(struct stpu_sched *s);

/* ------------------------------------------------------------ estimate */

/*
 * The expected number of groups STPU-C0's first-fit makes in a partition of
 * 'rows' rows and 'cols' columns whose columns hold m non-zeros with
 * probability col_pm[m] (m = 0..rows) at uniformly random rows, and whose
 * rows hold k non-zeros with probability row_pk[k] (k = 0..n_row_pk-1):
 * the larger of E[max row count] (a lower bound, exact when columns hold
 * one non-zero) and the first-fit mean field. The parts go to '*max_row'
 * and '*mean_field' (may be NULL).
 */
double stpu_estimate_groups(unsigned rows, uint64_t cols, const double *col_pm,
			    const double *row_pk, size_t n_row_pk, double *max_row,
			    double *mean_field);

#endif
