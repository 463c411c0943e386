/*
 * stpu_estimate.c: the density-aware estimate of STPU-C0's packed width,
 * computed from the density model alone, against the mean of the exact
 * packer over seeded uniform matrices (a deterministic statistical test:
 * the seeds are fixed). Acceptance: within 5% on every row, across the
 * ultra-sparse, crossover and moderate regimes, array heights 64 to 256 and
 * shapes that are not multiples of the array. The error table is printed.
 *
 * Then the two parts on their own: E[max row count] is exact for columns of
 * one non-zero, and both parts are lower bounds of the exact packer.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accel/stpu_int.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

#define SEEDS 6

struct est_row {
	unsigned part_rows;
	uint64_t rows, cols;
	double density;
};

static const struct est_row rows[] = {
	{ 128, 1024, 1024, 0.001 }, { 128, 1024, 1024, 0.005 }, { 128, 1024, 1024, 0.01 },
	{ 128, 1024, 1024, 0.02 },  { 128, 1024, 1024, 0.05 },  { 128, 1024, 1024, 0.1 },
	{ 128, 1024, 1024, 0.2 },   { 128, 1024, 1024, 0.45 },  { 128, 1000, 1000, 0.025 },
	{ 256, 1000, 2000, 0.005 }, { 256, 1024, 1024, 0.01 },  { 256, 1000, 2000, 0.05 },
	{ 64, 700, 500, 0.005 },    { 64, 700, 500, 0.02 },     { 64, 1000, 1000, 0.05 },
	{ 64, 700, 500, 0.2 },
};

/* Exact C0 packed width of one seeded matrix, and the estimate. */
static void one(const struct est_row *r, unsigned seed, double *exact, double *estimate)
{
	char yaml[512];
	struct spec_set *s;
	struct accel_stpu_result res;
	struct accel_stpu_options o = { seed == 1, 1u << ACCEL_STPU_C0 };
	struct strbuf err = STRBUF_INIT;

	snprintf(yaml, sizeof(yaml), "stpu:\n  array: {rows: %u, cols: 128}\n  matrix: {rows: %llu, "
		 "cols: %llu, density: {distribution: hypergeometric, density: %.9g}, seed: %u}\n",
		 r->part_rows, (unsigned long long)r->rows, (unsigned long long)r->cols,
		 r->density, seed);
	s = sf_load(yaml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, &o, &res, &err), 0);
	*exact = (double)res.scheme[ACCEL_STPU_C0].packing.packed_width;
	if (seed == 1) {
		CU_ASSERT_TRUE(res.estimate.valid);
		*estimate = res.estimate.packed_width;
	}
	spec_set_free(s);
}

static void test_within_5_percent(void)
{
	size_t i;

	printf("\n  array rows  matrix        density   exact mean   estimate    error\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double sum = 0, exact, est = 0, err;
		unsigned seed;
		for (seed = 1; seed <= SEEDS; seed++) {
			one(&rows[i], seed, &exact, &est);
			sum += exact;
		}
		err = (est - sum / SEEDS) / (sum / SEEDS);
		printf("  %10u  %5llu x %-5llu %7.3f %12.2f %10.2f %+7.2f%%\n", rows[i].part_rows,
		       (unsigned long long)rows[i].rows, (unsigned long long)rows[i].cols,
		       rows[i].density, sum / SEEDS, est, 100 * err);
		CU_ASSERT_TRUE(fabs(err) < 0.05);
	}
}

/* Columns of exactly one non-zero: first-fit needs max_r(count of row r) groups. */
static void test_max_row_exact(void)
{
	/* rows hold 2, 0, 3, 1 non-zeros with certainty: the max is 3 */
	double col_pm[5] = { 0, 1, 0, 0, 0 };
	double row_pk[4][4];
	double max_row, mf, g;
	unsigned k;

	memset(row_pk, 0, sizeof(row_pk));
	/* one row distribution that is a point mass at 3: E[max] = 3 */
	for (k = 0; k < 4; k++)
		row_pk[0][k] = k == 3;
	g = stpu_estimate_groups(4, 6, col_pm, row_pk[0], 4, &max_row, &mf);
	CU_ASSERT_DOUBLE_EQUAL(max_row, 3.0, 1e-12);
	CU_ASSERT_TRUE(g >= max_row);
	/* two equally likely counts 1 and 2 over 2 rows: E[max] = 2 - 1/4 */
	for (k = 0; k < 4; k++)
		row_pk[1][k] = k == 1 || k == 2 ? 0.5 : 0.0;
	stpu_estimate_groups(2, 6, col_pm, row_pk[1], 4, &max_row, &mf);
	CU_ASSERT_DOUBLE_EQUAL(max_row, 1.75, 1e-12);
}

/* Full columns (every row): each column needs its own group. */
static void test_full_columns(void)
{
	double col_pm[5] = { 0, 0, 0, 0, 1 }, row_pk[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	double max_row, mf;
	double g = stpu_estimate_groups(4, 7, col_pm, row_pk, 8, &max_row, &mf);

	CU_ASSERT_DOUBLE_EQUAL(mf, 7.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(max_row, 7.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(g, 7.0, 1e-9);
}

/* Non-uniform matrices get no estimate (it assumes uniformly placed non-zeros). */
static void test_not_uniform(void)
{
	struct spec_set *s = sf_load("stpu:\n  array: {rows: 8, cols: 8}\n  matrix: {rows: 40, "
				     "cols: 40, density: {distribution: banded, band_width: 1}}\n");
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	CU_ASSERT_FALSE(r.estimate.valid);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "within 5% of the exact packer", test_within_5_percent },
	{ "max row exact", test_max_row_exact },
	{ "full columns", test_full_columns },
	{ "not uniform", test_not_uniform },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu_estimate", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
