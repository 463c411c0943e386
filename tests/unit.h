/*
 * Shared main() for the CUnit test programs.
 *
 * Each tests/<module>/test_<file>.c defines its suites with designated
 * initializers and returns unit_main(suites). unit_main computes the exit
 * status itself (CU_basic_run_tests returns 0 even when a test failed):
 * 0 pass, 1 fail, 99 framework error (automake's hard error).
 */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stddef.h>

struct spec_set;

/* Run every suite of the NULL-terminated 'suites'; return the exit status. */
int unit_main(CU_SuiteInfo *suites);

/* Absolute path of a file under tests/data (from $TEST_DATA_DIR). Static buffer. */
const char *unit_data_path(const char *rel);

/* Absolute path of the shared conformance corpus, or NULL if not found. */
const char *unit_conformance_dir(void);

/* The loaders of specs/'s kinds of design (Timeloop's, 'ipu', 'stpu'), NULL-ended. */
extern const struct spec_kind *const unit_spec_kinds[];

/*
 * Load files[0..n) (n <= 8) of directory 'dir' as one design; every
 * diagnostic of a failed load is printed to stderr. Returns NULL on failure.
 */
struct spec_set *unit_load_files(const char *dir, const char *const *files, size_t n,
				 bool require_mapping);

/* unit_load_files() on the conformance case 'name' (e.g. "eyeriss_like"). */
struct spec_set *unit_load_case(const char *name, const char *const *files, size_t n,
				bool require_mapping);

#endif
