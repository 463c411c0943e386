/*
 * ipu_dense.c: the dense baseline, worked by hand on one tile; it never
 * beats the AMP peak, gets most of it on a large layer, and float is
 * slower than half by about the AMP rates' ratio.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/*
 * One tile, 16 x 16 x 4 half with float partials: one 16 x 16 AMP block
 * over 4 columns, 1 column a worker: worker 23 + (24 + 1 x 4 - 3) = 48,
 * supervisor 40 + 102 + (64 + 3 + 12) + 1 + 2 = 224, zeroing ceil(64/6) 6
 * = 66; no exchange (the slice is the tile's share); a cast of 64 partials:
 * m = 11, (max(6, 3) + 26) 6 = 192. Total 66 + 224 + 6 x 48 + 192 = 770.
 */
static void test_one_tile(void)
{
	struct spec_set *s = ipf_load("bow, tiles: 1", "x: 16, y: 16, z: 4, block_size: 16, density: 0.5");
	struct accel_ipu_result *r = calloc(1, sizeof(*r));
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, r, &err), 0);
	CU_ASSERT_EQUAL(r->dense.pm * r->dense.pk * r->dense.pn, 1);
	CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_compute_cycles, 66 + 224 + 6 * 48, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_exchange_cycles, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_reduce_cycles, 192, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->passes[SPEC_IPU_FWD].dense_cycles, 770, 1e-9);
	spec_set_free(s);
	free(r);
}

static double dense_fwd(const char *layer, double *fraction)
{
	struct spec_set *s = ipf_load("bow", layer);
	struct accel_ipu_result *r = calloc(1, sizeof(*r));
	double c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	accel_ipu_eval(s, NULL, r, NULL);   /* the dense figures stand even without a plan that fits */
	CU_ASSERT(r->dense.pm * r->dense.pk * r->dense.pn <= 1472);
	c = r->passes[SPEC_IPU_FWD].dense_cycles;
	*fraction = r->dense.fwd_peak_fraction;
	spec_set_free(s);
	free(r);
	return c;
}

static void test_peak(void)
{
	static const char *const layers[] = {
		"x: 4096, y: 4096, z: 2048, block_size: 16, density: 0.0625",
		"x: 1024, y: 4096, z: 64, block_size: 16, density: 0.1",
		"x: 512, y: 512, z: 4, density: 0.1",
	};
	double f, half, flt;
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		dense_fwd(layers[i], &f);
		CU_ASSERT(f > 0 && f <= 1);
	}
	half = dense_fwd(layers[0], &f);
	CU_ASSERT(f > 0.5);                   /* a large matmul gets most of the peak */
	flt = dense_fwd("x: 4096, y: 4096, z: 2048, block_size: 16, dtype: float, density: 0.0625", &f);
	CU_ASSERT(flt > 2 * half);            /* 16 against 64 MACs a cycle */
	CU_ASSERT(f > 0.5);
}

static CU_TestInfo tests[] = {
	{ "one tile by hand", test_one_tile },
	{ "peak fraction", test_peak },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_dense", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
