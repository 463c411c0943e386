/*
 * Composable formats, the executor (docs/composable.md): splits a matrix's
 * non-zeros into the parts of a composable format, builds each part's arrays
 * (CSR offsets and indices, COO coordinates, ELL rows padded to the width as
 * SparseTIR's column_part_hyb does, BSR blocks), runs the SpMM or the SDDMM
 * over them, counting every word it reads and writes, and checks C against the
 * product of the unsplit matrix (SDDMM: every non-zero's output written once,
 * equal to A[i, j] * X[i, :] . Y[j, :]).
 */
#ifndef FIBERLOOP_EXEC_COMPOSE_H
#define FIBERLOOP_EXEC_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "specs/compose.h"

/*
 * Run 'op' on 'm' split into 'parts' with 'features' columns of B (SDDMM: of
 * X and Y): the counts of part i in out[i]. Returns 0, or -1 with the reason
 * in 'err' (an element no part or two parts take, or a C that differs from
 * the product).
 */
int exec_compose_run(const struct spec_matrix *m, const struct compose_part *parts, size_t n,
		     enum compose_op op, uint64_t features, struct compose_counts *out, char *err,
		     size_t err_len);

#endif
