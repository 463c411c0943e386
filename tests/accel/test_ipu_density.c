/*
 * ipu_density.c: the rows of actual data per X/Y partition (layer blocks
 * cut into kernel blocks), the banded pattern's exact partitions (the
 * executor agrees), the seed's best case from a density model (no spill
 * possible: no step, nothing drawn), and the draws' statistics.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/*
 * Float 16 x 16 blocks run as 8 x 8 kernels (q = 2): layer blocks (0,0)
 * and (1,1) of 2 x 2 become kernel rows 0, 1 (columns 0, 1) and 2, 3
 * (columns 2, 3); P_x = 2: each partition's 2 rows hold 2 blocks.
 */
static void test_rows_actual(void)
{
	static const unsigned blocks[][2] = { { 0, 0 }, { 1, 1 } };
	char layer[256];
	struct spec_set *s;
	struct ipu_layer L;
	struct ipu_method ms[4];
	struct ipu_geom g;
	struct ipu_row **rows;
	uint32_t *n;
	unsigned p, k;

	snprintf(layer, sizeof(layer), "x: 32, y: 32, z: 4, block_size: 16, dtype: float, "
		 "density: {distribution: actual_data, file: %s}", ipf_mtx("q2.mtx", 2, 2, blocks, 2));
	s = ipf_load("bow", layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ipu_layer_init(&L, s);
	CU_ASSERT_EQUAL(L.q, 2);
	ipu_methods(&L, ms);
	ipu_geom_init(&L, &ms[0], 2, 1, 1, &g);
	CU_ASSERT_EQUAL_FATAL(ipu_rows_actual(s, &L, &g, &rows, &n), 0);
	for (p = 0; p < 2; p++) {
		CU_ASSERT_EQUAL_FATAL(n[p], 2);
		for (k = 0; k < 2; k++) {
			CU_ASSERT_EQUAL(rows[p][k].row, k);
			CU_ASSERT_EQUAL(rows[p][k].nz, 2);
		}
	}
	ipu_rows_free(rows, n, 2);
	spec_set_free(s);
}

/* A banded W is deterministic: the model's partitions are exact, as the executor's. */
static void test_banded(void)
{
	struct spec_set *s = ipf_load("bow", "x: 64, y: 64, z: 8, block_size: 4, "
				      "meta_info_bucket_oversize_proportion: 0, partition: {x: 4, y: 2, z: 1}, "
				      "density: {distribution: banded, band_width: 3}");
	struct accel_ipu_result *r = calloc(1, sizeof(*r));
	struct exec_ipu_config c;
	struct exec_ipu_result e;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, r, &err), 0);
	CU_ASSERT(r->passes[SPEC_IPU_FWD].steps.is_exact);
	memset(&c, 0, sizeof(c));
	c.px = r->plan.px;
	c.py = r->plan.py;
	c.pz = r->plan.pz;
	c.kernel_block = 4;
	c.z_grain = 1;
	c.bucket_groups = r->buckets.nz_elems_per_bucket / 16;
	c.bucket_meta_words = r->buckets.meta_words_per_bucket;
	c.workers = 6;
	c.seed = 1;
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &e), 0);
	CU_ASSERT_EQUAL(e.nz_blocks, 16 + 2 * (15 + 14 + 13));
	CU_ASSERT_EQUAL(e.passes[SPEC_IPU_FWD].steps, r->passes[SPEC_IPU_FWD].steps.exact);
	CU_ASSERT_EQUAL(e.n_spilled, r->n_spilled_subgroups);
	CU_ASSERT_EQUAL(e.spilled_groups, r->spilled_groups);
	CU_ASSERT(r->n_spilled_subgroups > 0);   /* the band's partitions are fuller than the mean */
	CU_ASSERT(e.passes[SPEC_IPU_FWD].numeric_ok);
	exec_ipu_result_release(&e);
	spec_set_free(s);
	free(r);
}

/*
 * The seed's best case from a density model: at m = k = 4096, d = 1/16,
 * 16 x 16 blocks and a large batch, every partition holds about 100 blocks
 * against buckets for 160: P(spill) is tiny and no draw spills: 0 steps.
 * (n = 4096: at 2048 the 16 x 16 kernel's two rounds a block with float
 * partials make the planner split X and Y finer, 18 x 5 x 16, into buckets
 * that do spill.)
 */
static void test_best_case(void)
{
	static const char *const layers[] = {
		("x: 4096, y: 4096, z: 4096, block_size: 16, "
		 "density: {distribution: hypergeometric, density: 0.0625}"),
		"x: 2048, y: 2048, z: 256, density: {distribution: hypergeometric, density: 0.1}",
		"x: 1024, y: 1024, z: 64, block_size: 4, density: 0.2",
	};
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct spec_set *s = ipf_load("bow", layers[i]);
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		const struct accel_ipu_steps *st;
		struct strbuf err = STRBUF_INIT;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, r, &err), 0);
		st = &r->passes[SPEC_IPU_FWD].steps;
		if (st->p_spill >= 1e-4 || st->expected != 0)
			fprintf(stderr, "layer %zu: P(spill) %g, %g steps\n", i, st->p_spill, st->expected);
		CU_ASSERT(st->p_spill < 1e-4);
		CU_ASSERT_EQUAL(st->expected, 0);
		CU_ASSERT_EQUAL(st->percentile, 0);
		CU_ASSERT_EQUAL(st->std_error, 0);
		CU_ASSERT(st->worst == r->plan.tiles - r->plan.pz);
		CU_ASSERT_EQUAL(r->passes[SPEC_IPU_FWD].prop_cycles, 0);
		spec_set_free(s);
		free(r);
	}
}

/* Draws: deterministic per seed, a spread (percentile above the mean), the options used. */
static void test_draws(void)
{
	struct spec_set *s = ipf_load("bow", "x: 64, y: 64, z: 8, block_size: 4, "
				      "density: {distribution: hypergeometric, density: 0.25}");
	struct accel_ipu_options o = ACCEL_IPU_OPTIONS_INIT;
	struct accel_ipu_result *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const struct accel_ipu_steps *sa = &a->passes[SPEC_IPU_FWD].steps;
	const struct accel_ipu_steps *sb = &b->passes[SPEC_IPU_FWD].steps;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	o.n_samples = 100;
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, a, &err), 0);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, b, &err), 0);
	CU_ASSERT_EQUAL(sa->expected, sb->expected);
	CU_ASSERT_EQUAL(a->passes[SPEC_IPU_FWD].total_cycles, b->passes[SPEC_IPU_FWD].total_cycles);
	CU_ASSERT(!sa->is_exact);
	CU_ASSERT(sa->std_error > 0);
	CU_ASSERT((double)sa->percentile >= sa->expected);
	CU_ASSERT(a->passes[SPEC_IPU_FWD].total_cycles_percentile >= a->passes[SPEC_IPU_FWD].total_cycles);
	CU_ASSERT(sa->p_spill > 0.99 && sa->p_spill <= 1);
	CU_ASSERT(sa->expected_spill_groups > 0);
	o.seed = 2;
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, b, &err), 0);
	CU_ASSERT(sa->expected != sb->expected);
	CU_ASSERT(fabs(sa->expected - sb->expected) < 5 * (sa->std_error + sb->std_error));
	o.percentile = 0.5;
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, b, &err), 0);
	CU_ASSERT(sb->percentile <= sa->percentile);
	spec_set_free(s);
	free(a);
	free(b);
}

/*
 * How bad a skewed pattern gets: power-law rows (Zipf exponent 1.2, heaviest
 * rows first) need more propagation steps than a uniform pattern of the same
 * density on the same plan; the fullest partition's buckets overflow into
 * the next X partitions (steps beyond the Y ring: more than P_y P_z - P_z).
 */
static void test_skewed(void)
{
	static const char *const base = "x: 128, y: 128, z: 8, block_size: 4, "
					"partition: {x: 4, y: 4, z: 1}, density: ";
	char layer[256];
	struct spec_set *s;
	struct accel_ipu_result *u = calloc(1, sizeof(*u)), *k = calloc(1, sizeof(*k));
	struct strbuf err = STRBUF_INIT;

	snprintf(layer, sizeof(layer), "%s{distribution: hypergeometric, density: 0.15}", base);
	s = ipf_load("bow", layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, u, &err), 0);
	spec_set_free(s);
	snprintf(layer, sizeof(layer), "%s{distribution: power_law, density: 0.15, exponent: 1.2}", base);
	s = ipf_load("bow", layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, k, &err), 0);
	fprintf(stderr, "uniform %g steps, power law %g (worst %llu)\n",
		u->passes[0].steps.expected, k->passes[0].steps.expected,
		(unsigned long long)k->passes[0].steps.worst);
	CU_ASSERT(k->passes[0].steps.expected > u->passes[0].steps.expected + 1);
	CU_ASSERT(k->passes[0].steps.expected > 4 * 1 - 1);
	CU_ASSERT(k->passes[0].steps.expected <= (double)k->passes[0].steps.worst);
	CU_ASSERT(k->passes[0].total_cycles > u->passes[0].total_cycles);
	spec_set_free(s);
	free(u);
	free(k);
}

static CU_TestInfo tests[] = {
	{ "skewed: power-law rows", test_skewed },
	{ "rows of actual data", test_rows_actual },
	{ "banded: exact, as the executor", test_banded },
	{ "best case from a density model", test_best_case },
	{ "draws", test_draws },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_density", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
