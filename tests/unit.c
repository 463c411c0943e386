#include "tests/unit.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "specs/spec.h"
#include "util/diag.h"

int unit_main(CU_SuiteInfo *suites)
{
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	if (CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 99;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		CU_cleanup_registry();
		return 99;
	}
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

const char *unit_data_path(const char *rel)
{
	static char buf[4096];
	const char *dir = getenv("TEST_DATA_DIR");
	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/data", rel);
	return buf;
}

const char *unit_conformance_dir(void)
{
	static char buf[4096];
	struct stat st;
	const char *dir = getenv("FIBERLOOP_CONFORMANCE_DIR");
	if (dir && stat(dir, &st) == 0)
		return dir;
	dir = getenv("TEST_DATA_DIR");
	snprintf(buf, sizeof(buf), "%s/conformance", dir ? dir : "tests/data");
	if (stat(buf, &st) == 0)
		return buf;
	return NULL;
}

const struct spec_kind *const unit_spec_kinds[] = {
	&spec_kind_timeloop, &spec_kind_ipu, &spec_kind_stpu, NULL,
};

struct spec_set *unit_load_files(const char *dir, const char *const *files, size_t n,
				 bool require_mapping)
{
	struct spec_load_options lo = { .require_mapping = require_mapping,
					.kinds = unit_spec_kinds };
	struct diag_list dl = DIAG_LIST_INIT;
	char paths[8][2048];
	const char *pp[8];
	struct spec_set *s;
	size_t i;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, files[i]);
		pp[i] = paths[i];
	}
	s = spec_set_load(pp, n, &lo, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

struct spec_set *unit_load_case(const char *name, const char *const *files, size_t n,
				bool require_mapping)
{
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s/%s", unit_conformance_dir(), name);
	return unit_load_files(dir, files, n, require_mapping);
}
