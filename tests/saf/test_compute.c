/*
 * saf/compute.c: compute classification (semantics 4.6) on the worked
 * cases of semantics 5.1-5.3 and on each state pair the compute
 * optimizations treat differently.
 */
#include <stdio.h>

#include "saf/saf.h"
#include "tests/unit.h"
#include "util/xalloc.h"

struct compute_case {
	const char *what;
	struct saf_operand a, b;
	bool gating, skipping;
	uint64_t total;
	struct saf_computes want;
};

static const struct compute_case cases[] = {
	/* B gated on A: A is known non-empty on the 4 surviving computes */
	{ "5.1 01.2.2", { 0.25, false, false, 0 }, { 1.0, false, true, 0.75 }, false, false, 4,
	  { 4, 0, 0, 0 } },
	/* double-sided skipping: both corrected to ENZ = 1 */
	{ "5.2 02.2.1", { 0.25, true, true, 0.5 }, { 0.5, true, true, 0.75 }, false, false, 64,
	  { 64, 0, 0, 0 } },
	{ "5.3 03.2.1", { 0.43, true, false, 0 }, { 1.0, false, true, 0.57 }, false, false, 12,
	  { 12, 0, 0, 0 } },
	/* gate_on_zero_operand: (EZ, ENZ) = 0.75 gated */
	{ "compute gating, uncompressed A", { 0.25, false, false, 0 }, { 1.0, false, false, 0 },
	  true, false, 100, { 25, 75, 0, 0 } },
	/* without a compute optimization the same computes stay random */
	{ "no compute optimization", { 0.25, false, false, 0 }, { 1.0, false, false, 0 },
	  false, false, 100, { 100, 0, 0, 0 } },
	/* skip_on_not_aligned_operands: (NE, x) = 0.75 skipped; (ENZ, EZ) random */
	{ "compute skipping, compressed A", { 0.25, true, false, 0 }, { 0.5, false, false, 0 },
	  false, true, 100, { 25, 0, 75, 0 } },
	/* gating without skipping: (NE, x) gated, (ENZ, EZ) gated too */
	{ "compute gating, compressed A", { 0.25, true, false, 0 }, { 0.5, false, false, 0 },
	  true, false, 100, { 13, 87, 0, 0 } },
	/* both compressed: (NE, NE) = 0.375 do not exist, the rest random */
	{ "both compressed", { 0.25, true, false, 0 }, { 0.5, true, false, 0 }, false, false, 100,
	  { 63, 0, 0, 37 } },
	{ "both compressed, skipping", { 0.25, true, false, 0 }, { 0.5, true, false, 0 }, false,
	  true, 100, { 13, 0, 50, 37 } },
	/*
	 * 32 of 4096 non-zeros, each probability rounded to 1e-6: d = 0.007813 but
	 * q = 1 - 0.992188 = 0.007812 (d / q = 1.00013, Sparseloop asserts); A is
	 * non-empty on every surviving compute, B's share decides.
	 */
	{ "rounded d above q, skipping", { 0.007813, false, false, 0 },
	  { 0.5, true, true, 0.992188 }, false, true, 100, { 50, 0, 50, 0 } },
	{ "rounded d above q, both sides", { 0.007813, true, true, 0.9 },
	  { 0.1, true, true, 0.992188 }, false, true, 100, { 100, 0, 0, 0 } },
};

static void test_cases(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct compute_case *c = &cases[i];
		struct saf_computes got = saf_classify_computes(&c->a, &c->b, c->gating,
								c->skipping, c->total);
		if (got.random != c->want.random || got.gated != c->want.gated ||
		    got.skipped != c->want.skipped || got.nonexistent != c->want.nonexistent)
			fprintf(stderr, "case %u (%s): %llu random, %llu gated, %llu skipped, %llu "
				"nonexistent\n", i, c->what, (unsigned long long)got.random,
				(unsigned long long)got.gated, (unsigned long long)got.skipped,
				(unsigned long long)got.nonexistent);
		CU_ASSERT_EQUAL(got.random, c->want.random);
		CU_ASSERT_EQUAL(got.gated, c->want.gated);
		CU_ASSERT_EQUAL(got.skipped, c->want.skipped);
		CU_ASSERT_EQUAL(got.nonexistent, c->want.nonexistent);
	}
}

static CU_TestInfo tests[] = {
	{ "compute classes", test_cases },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "saf compute", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
