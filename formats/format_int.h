/*
 * The per-rank format models behind fmt_get(): one file per format, each
 * defining one 'struct fmt_ops' (semantics 4.3.2, the table of F', metadata
 * and payload units).
 */
#ifndef FORMATS_FORMAT_INT_H
#define FORMATS_FORMAT_INT_H

#include "formats/format.h"

extern const struct fmt_ops fmt_u_ops;
extern const struct fmt_ops fmt_uop_ops;
extern const struct fmt_ops fmt_cp_ops;
extern const struct fmt_ops fmt_b_ops;
extern const struct fmt_ops fmt_rle_ops;
extern const struct fmt_ops fmt_ub_ops;

/* F' = F * (1 - P0(cur)): the expected number of non-empty fibers. */
static inline double fmt_nonempty_fibers(const struct fmt_rank_query *q)
{
	return q->n_fibers * (1.0 - q->p_empty_cur);
}

/* Expected non-empty elements of one fiber: f * (1 - P0(next)). */
static inline double fmt_nonempty_elements(const struct fmt_rank_query *q)
{
	return (double)q->fiber_shape * (1.0 - q->p_empty_next);
}

#endif
