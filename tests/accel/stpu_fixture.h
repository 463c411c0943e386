/*
 * Helpers shared by the tests of the STPU model and its simulation: hand
 * matrices written as "row,col row,col ..." and STPU designs given as YAML
 * text (loaded from a temporary file).
 */
#ifndef TESTS_ACCEL_STPU_FIXTURE_H
#define TESTS_ACCEL_STPU_FIXTURE_H

#include "specs/spec.h"
#include "util/arena.h"

/*
 * The rows x cols pattern whose entries are listed in 'entries' ("0,1 2,3",
 * 0-based row,col), values 1, in arena 'a'.
 */
const struct spec_matrix *sf_matrix(struct arena *a, uint64_t rows, uint64_t cols,
				    const char *entries);

/* Load the YAML text 'yaml' as one file (diagnostics printed on failure). */
struct spec_set *sf_load(const char *yaml);

/* Write 'text' as 'name' in the fixture's temporary directory; returns its path. */
const char *sf_write(const char *name, const char *text);

#endif
