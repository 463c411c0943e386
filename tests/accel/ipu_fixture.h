/*
 * Helpers for the IPU tests: an 'ipu:' design from a layer written in YAML
 * flow style, a Matrix Market pattern from a list of blocks, and a layer's
 * derived constants built by hand for the estimator tables.
 */
#ifndef TESTS_ACCEL_IPU_FIXTURE_H
#define TESTS_ACCEL_IPU_FIXTURE_H

#include <stddef.h>

#include "accel/ipu_int.h"

/*
 * Load an 'ipu:' design on preset 'preset' whose layer is the YAML flow
 * mapping body 'layer' (e.g. "x: 64, y: 64, z: 8, density: 0.25").
 * Returns the set (free with spec_set_free), or NULL after printing the
 * diagnostics.
 */
struct spec_set *ipf_load(const char *preset, const char *layer);

/* Write a pattern file 'name' of rows x cols blocks holding blocks[0..n). */
const char *ipf_mtx(const char *name, unsigned rows, unsigned cols, const unsigned (*blocks)[2],
		    size_t n);

/*
 * A layer's constants built by hand on a copy of the 'bow' preset: 'half'
 * input, partials 'half_partials', block 'kb' (1 element-wise).
 */
struct ipf_layer {
	struct spec_ipu_device dev;
	struct spec_ipu_layer l;
	struct ipu_layer L;
};

void ipf_layer_init(struct ipf_layer *f, bool half, bool half_partials, unsigned kb);

#endif
