/*
 * ipu_eval.c: the result of accel_ipu_eval() is consistent (tiles, passes,
 * totals, memory, rates) on a spread of layers; infeasible designs give
 * their status and reason; static sparsity has no propagation.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static const char *const layers[] = {
	"x: 1024, y: 1024, z: 64, block_size: 16, passes: [fwd, grad_a, grad_w], density: 0.1",
	"x: 512, y: 2048, z: 128, passes: [fwd, grad_a], "
	"density: {distribution: hypergeometric, density: 0.05}",
	"x: 256, y: 256, z: 16, block_size: 8, dtype: float, sparsity: static, density: 0.2",
	"x: 128, y: 128, z: 32, block_size: 4, partials_type: half, passes: [fwd, grad_w], "
	"density: {distribution: hypergeometric, density: 0.3}",
};

static void test_consistent(void)
{
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct spec_set *s = ipf_load("gc200", layers[i]);
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		const struct spec_ipu_layer *l;
		double sum = 0, dense = 0, macs;
		struct strbuf err = STRBUF_INIT;
		unsigned p;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		l = &s->ipu->layer;
		if (accel_ipu_eval(s, NULL, r, &err) < 0)
			fprintf(stderr, "layer %zu: %s\n", i, err.buf);
		CU_ASSERT_EQUAL(r->status, ACCEL_IPU_OK);
		CU_ASSERT(r->plan.tiles <= 1472);
		CU_ASSERT_EQUAL(r->plan.tiles, (uint64_t)r->plan.px * r->plan.py * r->plan.pz);
		CU_ASSERT_EQUAL(r->memory.total_bytes,
				r->memory.bucket_bytes + r->memory.dense_bytes + r->memory.temp_bytes);
		CU_ASSERT(r->memory.total_bytes <= r->memory.tile_bytes);
		CU_ASSERT_EQUAL(r->memory.temp_limit_bytes, (uint64_t)floor(624 * 1024 * 0.6));
		macs = (double)l->x * (double)l->y * (double)l->z * r->density;
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			const struct accel_ipu_pass *ps = &r->passes[p];
			CU_ASSERT_EQUAL(ps->present, (l->passes >> p) & 1);
			if (!ps->present)
				continue;
			CU_ASSERT_DOUBLE_EQUAL(ps->total_cycles, ps->transpose_cycles + ps->dist_exchange_cycles +
					       ps->dist_compute_cycles + ps->prop_cycles + ps->reduce_cycles,
					       1e-6 * ps->total_cycles);
			CU_ASSERT_DOUBLE_EQUAL(ps->seconds, ps->total_cycles / 1.33e9, 1e-15);
			CU_ASSERT_DOUBLE_EQUAL(ps->nz_flops_per_s, 2 * macs / ps->seconds, 1e-6 * ps->nz_flops_per_s);
			CU_ASSERT_DOUBLE_EQUAL(ps->speedup, ps->dense_cycles / ps->total_cycles, 1e-12);
			CU_ASSERT(ps->steps.expected <= (double)ps->steps.worst);
			sum += ps->total_cycles;
			dense += ps->dense_cycles;
			if (l->sparsity == SPEC_IPU_STATIC) {
				CU_ASSERT_EQUAL(ps->prop_cycles, 0);
				CU_ASSERT_EQUAL(ps->steps.worst, 0);
				CU_ASSERT_DOUBLE_EQUAL(ps->total_cycles, (double)ps->plan_cycles, 1);
			}
		}
		CU_ASSERT_DOUBLE_EQUAL(r->total_cycles, sum, 1e-9 * sum);
		CU_ASSERT_DOUBLE_EQUAL(r->speedup, dense / sum, 1e-12);
		spec_set_free(s);
		free(r);
	}
}

struct bad_row {
	const char *preset, *layer;
	enum accel_ipu_status status;
	const char *reason;
};

static const struct bad_row bad_rows[] = {
	{ "bow", "x: 256, y: 256, z: 16, block_size: 4, density: 0.1, partition: {z: 3}",
	  ACCEL_IPU_NO_PLAN, "no partition of X, Y, Z" },
	{ "bow, bytes_per_tile: 2048", "x: 4096, y: 4096, z: 64, block_size: 16, density: 0.25",
	  ACCEL_IPU_OUT_OF_MEMORY, "a tile needs" },
	/* partitions of 10^10 blocks: refused before any pattern is drawn over them */
	{ "bow", "x: 16777216, y: 16777216, z: 1024, block_size: 4, density: 0.0625, "
	  "sparsity: dynamic", ACCEL_IPU_OUT_OF_MEMORY, "a tile needs" },
	{ "bow, block_macs_per_cycle: {half: {4: 0}}", "x: 64, y: 64, z: 8, block_size: 4, density: 0.1",
	  ACCEL_IPU_NO_PLAN, "no half block kernel divides block size 4" },
};

static void test_infeasible(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		struct spec_set *s = ipf_load(bad_rows[i].preset, bad_rows[i].layer);
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		struct strbuf err = STRBUF_INIT;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(accel_ipu_eval(s, NULL, r, &err), -1);
		CU_ASSERT_EQUAL(r->status, bad_rows[i].status);
		if (!strstr(err.buf, bad_rows[i].reason))
			fprintf(stderr, "row %zu: '%s'\n", i, err.buf);
		CU_ASSERT(strstr(err.buf, bad_rows[i].reason) != NULL);
		CU_ASSERT_STRING_EQUAL(err.buf, r->reason);
		strbuf_release(&err);
		spec_set_free(s);
		free(r);
	}
}

static CU_TestInfo tests[] = {
	{ "results are consistent", test_consistent },
	{ "infeasible designs", test_infeasible },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_eval", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
