/*
 * Internals of poly/footprint.c exposed to its tests: each counting method on
 * its own, so the integer fast path can be checked against isl's exact count
 * on the same boxes. Not for use outside poly/ and tests/poly/.
 */
#ifndef POLY_FOOTPRINT_INT_H
#define POLY_FOOTPRINT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "poly/footprint.h"

/*
 * The integer fast path of poly_footprint_size: true and '*out' set when it
 * applies, false (nothing written) when the answer needs isl.
 */
bool poly_footprint_size_fast(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi,
			      uint64_t *out);

/* The integer fast path of poly_delta_size; same convention. */
bool poly_delta_size_fast(struct poly_tensor *pt, const int64_t *lo_new,
			  const int64_t *hi_new, const int64_t *lo_old, const int64_t *hi_old,
			  uint64_t *out);

/* poly_footprint_size computed by isl_set_count_val only. */
uint64_t poly_footprint_size_isl(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi);

/* poly_delta_size computed by isl only (image difference, then count). */
uint64_t poly_delta_size_isl(struct poly_tensor *pt, const int64_t *lo_new, const int64_t *hi_new,
			     const int64_t *lo_old, const int64_t *hi_old);

#endif
