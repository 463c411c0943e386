/*
 * Helpers shared by the specs/ test programs: load YAML given as strings
 * (written to temporary files), print diagnostics, and compare two loaded
 * designs field by field (for dialect equivalence).
 */
#ifndef TESTS_SPECS_SPEC_TEST_H
#define TESTS_SPECS_SPEC_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "specs/spec.h"
#include "util/diag.h"

/*
 * Load the YAML documents texts[0..n) as files f0.yaml, f1.yaml, ... in a
 * temporary directory (paths stay valid until the next call). 'opt' may be
 * NULL. Diagnostics go to 'dl'.
 */
struct spec_set *st_load(const char *const *texts, size_t n, const struct spec_load_options *opt,
			 struct diag_list *dl);

/* The path st_load used for file 'i' (for building expected messages). */
const char *st_path(size_t i);

/* Write 'text' into the temporary directory as 'name'; returns its path. */
const char *st_write(const char *name, const char *text);

/* Every diagnostic of 'dl' as "line:col: severity: message\n" lines (caller frees). */
char *st_diags(const struct diag_list *dl);

/*
 * Assert that a load reported 'expected' among its diagnostics (and, when
 * 'must_fail', that it failed); print the diagnostics of a failing 'row'.
 * Frees 's' and releases 'dl'.
 */
void st_assert_diag(struct spec_set *s, struct diag_list *dl, bool must_fail, size_t row,
		    const char *expected);

/* Load one YAML text; return the diagnostics string (caller frees), or NULL if it loaded. */
char *st_errors_of(const char *text);

/* CUnit assertions that two mappings are equal (directives and nests). */
void st_assert_same_mapping(const struct spec_mapping *a, const struct spec_mapping *b);

/* CUnit assertions that 'a' and 'b' describe the same design. */
void st_assert_same_design(const struct spec_set *a, const struct spec_set *b,
			   bool with_constraints);

#endif
