/*
 * saf/position.c: position skipping packs the non-empty positions of a
 * fiber onto a level's lanes (the DSTC outer product). Hand-computed cases:
 * A[M] of 16 points, hypergeometric 0.5 (8 non-zeros), walked in fibers of
 * 8 positions: X ~ HG(16, 8, 8), P(x) = C(8,x) C(8,8-x) / C(16,8):
 * 1, 64, 784, 3136, 4900, 3136, 784, 64, 1 over 12870.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "density/density.h"
#include "saf/saf.h"
#include "tests/saf/nest_fixture.h"
#include "tests/unit.h"
#include "util/xalloc.h"

struct position_case {
	const char *what;
	const char *nest;
	bool fixed;                   /* fixed_structured 0.5, else hypergeometric 0.5 */
	uint32_t shared;              /* dims another operand shares (not packed) */
	uint64_t positions, lanes;
	double steps, ratio;
};

static const struct position_case cases[] = {
	/* 4 lanes: ceil(X/4) is 1 for X = 1..4 and 2 for X = 5..8 */
	{ "8 positions on 4 lanes", "M1 | sM4 M2 | M2", false, 0, 8, 4,
	  (8884.0 + 2 * 3985.0) / 12870, (8884.0 + 2 * 3985.0) / 12870 / 2 },
	/* one lane: packing is perfect, the steps are the non-zeros (ratio = density) */
	{ "8 positions, all temporal", "M1 | M8 | M2", false, 0, 8, 1, 4.0, 0.5 },
	/* 8 lanes for 8 positions: one step unless the fiber is empty */
	{ "8 positions side by side", "M1 | sM8 | M2", false, 0, 8, 8, 12869.0 / 12870,
	  12869.0 / 12870 },
	/* fixed 0.5: exactly 4 non-zeros in 8, one step of 4 lanes instead of 2 */
	{ "fixed 0.5 on 4 lanes", "M1 | sM4 M2 | M2", true, 0, 8, 4, 1.0, 0.5 },
	/* the level's loops run over a dimension another operand shares: no packing */
	{ "shared dimension", "M1 | sM4 M2 | M2", true, 1, 1, 1, 1.0, 1.0 },
};

static void test_cases(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct position_case *c = &cases[i];
		uint64_t shape[SPEC_MAX_TENSOR_RANKS] = { 16 };
		struct saf_position_query q;
		struct saf_position_effect e;
		struct nest_fixture nf;
		struct spec_tensor a;

		fx_nest(&nf, "M", c->nest);
		fx_tensor(&a, "A", "M", "M");
		a.density.kind = c->fixed ? SPEC_DENSITY_FIXED_STRUCTURED :
					    SPEC_DENSITY_HYPERGEOMETRIC;
		a.density.density = 0.5;
		memset(&q, 0, sizeof(q));
		q.nest = &nf.nest;
		q.target = &a;
		q.level = 1;
		q.shared_dims = c->shared;
		q.density = density_model_new_shape(&a.density, 1, shape, 0);
		e = saf_position_skip(&q);
		if (e.positions != c->positions || e.lanes != c->lanes ||
		    fabs(e.expected_steps - c->steps) > 1e-12 || fabs(e.ratio - c->ratio) > 1e-12)
			fprintf(stderr, "case %u (%s): %llu positions, %llu lanes, %.12g steps, "
				"ratio %.12g\n", i, c->what, (unsigned long long)e.positions,
				(unsigned long long)e.lanes, e.expected_steps, e.ratio);
		CU_ASSERT_EQUAL(e.positions, c->positions);
		CU_ASSERT_EQUAL(e.lanes, c->lanes);
		CU_ASSERT_DOUBLE_EQUAL(e.expected_steps, c->steps, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(e.ratio, c->ratio, 1e-12);
		density_model_free(q.density);
	}
}

static CU_TestInfo position_tests[] = {
	{ "packed steps, hand-computed", test_cases },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "saf/position", .pTests = position_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
