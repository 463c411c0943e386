/*
 * names.c: one name per enumerator, the spellings the parser and the
 * printers share.
 */
#include <string.h>

#include "specs/spec.h"
#include "tests/unit.h"

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(spec_fmt_kind_name(FMT_UOP), "UOP");
	CU_ASSERT_STRING_EQUAL(spec_fmt_kind_name(FMT_UB), "UB");
	CU_ASSERT_STRING_EQUAL(spec_density_kind_name(SPEC_DENSITY_HYPERGEOMETRIC), "hypergeometric");
	CU_ASSERT_STRING_EQUAL(spec_density_kind_name(SPEC_DENSITY_NM), "structured_nm");
	CU_ASSERT_STRING_EQUAL(spec_density_kind_name(SPEC_DENSITY_ACTUAL), "actual_data");
	CU_ASSERT_STRING_EQUAL(spec_saf_kind_name(SPEC_SAF_SPATIAL_SKIPPING), "skipping_spatial");
	CU_ASSERT_STRING_EQUAL(spec_named_format_name(SPEC_NAMED_NM), "N:M");
	CU_ASSERT_STRING_EQUAL(spec_metric_name(SPEC_METRIC_LAST_LEVEL_ACCESSES), "last_level_accesses");
	CU_ASSERT_STRING_EQUAL(spec_search_name(SPEC_SEARCH_RANDOM_PRUNED), "random_pruned");
	CU_ASSERT_STRING_EQUAL(spec_spacetime_name(SPEC_SPATIAL_Y), "Spatial-Y");
}

static CU_TestInfo tests[] = {
	{ "enum names", test_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "names", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
