/*
 * ipu_dense.c: the dense baseline (poplin's 1 x 1 AMP vertex estimate),
 * worked by hand on one tile; it never beats the AMP peak, gets most of it
 * on a large layer, and float is slower than half by about the AMP rates'
 * ratio.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"

/*
 * One tile, 16 x 16 x n half with float partials: poplin's 1 x 1 AMP
 * vertex with one input and one output channel group (16 each), the n
 * columns split between the 6 workers; no exchange (the slice is the
 * tile's share), then a cast of the 16 n partials.
 *  - n = 4, 1 column on 4 workers: inner loop with zeroing (31 + 1 - 7) 6 =
 *    150 (2 idle workers: min 0 + 14 is below it); supervisor 50 + 6 x 7 +
 *    (12 + 1) + (10 + 1 + (19 - 1 + 7 + 64 + 150)) = 355, 64 = 16 x 16 x 2
 *    bytes of coefficients at 8 a cycle; cast m = 11, (max(6, 3) + 26) 6 =
 *    192. Total 547.
 *  - n = 24, 4 columns a worker: (37 + 1 x 4 - 7) 6 = 204 on every worker,
 *    so min + 14 = 218 binds; 50 + 42 + 13 + (11 + (25 + 64 + 218)) = 423;
 *    cast m = 64, (32 + 26) 6 = 348. Total 771.
 * The same with half partials (dense_partials_type: half, as the
 * benchmark's dense FP16 runs): half activations on 16 conv units take
 * poplin's common code path whatever the partials (PerformanceEstimation.hpp
 * getConvPartial1x1SupervisorInnerLoopCycleEstimateHalfFloat: its zeroing
 * term, zeroCyclesPerGroup 2 for half partials in place of 4, is on the
 * other path only), the retention saving is 7 either way, so the vertex
 * costs the same; the partials are already of the output type: no cast.
 *  - n = 4: compute 355, reduce 0, total 355.
 *  - n = 24: compute 423, reduce 0, total 423.
 */
struct tile_row {
	unsigned z;
	const char *partials;
	double compute, reduce, total;
};

static const struct tile_row tile_rows[] = {
	{ 4, "float", 355, 192, 547 },
	{ 24, "float", 423, 348, 771 },
	{ 4, "half", 355, 0, 355 },
	{ 24, "half", 423, 0, 423 },
};

static void test_one_tile(void)
{
	size_t i;

	for (i = 0; i < sizeof(tile_rows) / sizeof(tile_rows[0]); i++) {
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		struct spec_set *s;
		char layer[160];
		snprintf(layer, sizeof(layer), "x: 16, y: 16, z: %u, block_size: 16, density: 0.5, "
			 "dense_partials_type: %s", tile_rows[i].z, tile_rows[i].partials);
		s = ipf_load("bow, tiles: 1", layer);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, r, NULL), 0);
		CU_ASSERT_EQUAL(r->dense.pm * r->dense.pk * r->dense.pn, 1);
		CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_compute_cycles, tile_rows[i].compute, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_exchange_cycles, 0, 0);
		CU_ASSERT_DOUBLE_EQUAL(r->dense.fwd_reduce_cycles, tile_rows[i].reduce, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(r->passes[SPEC_IPU_FWD].dense_cycles, tile_rows[i].total, 1e-9);
		spec_set_free(s);
		free(r);
	}
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
