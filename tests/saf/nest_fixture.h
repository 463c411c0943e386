/*
 * Small fixtures for the saf/ tests: tensors and complete loop nests
 * written as strings, without YAML. Dimensions are single letters of
 * 'dims' (their index is their position).
 */
#ifndef TESTS_SAF_NEST_FIXTURE_H
#define TESTS_SAF_NEST_FIXTURE_H

#include "saf/saf.h"
#include "specs/spec.h"

struct nest_fixture {
	struct spec_loop loops[SPEC_MAX_LOOPS];
	unsigned begin[SPEC_MAX_LEVELS + 1];
	struct saf_nest nest;
};

/*
 * A tensor whose ranks are the comma-separated sums of 'proj' ("M,K",
 * "Q+S"), over the dimensions 'dims' ("MNK").
 */
void fx_tensor(struct spec_tensor *t, const char *name, const char *dims, const char *proj);

/*
 * A complete nest from per-level strings, innermost level first, separated
 * by '|': "K16 M1 | K1 M1"; a loop "sM4" is Spatial-X, "yM4" Spatial-Y
 * (spatial loops first within a level, as in spec_mapping.complete).
 */
void fx_nest(struct nest_fixture *f, const char *dims, const char *levels);

#endif
