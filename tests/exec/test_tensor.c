/*
 * Tensors: every density model gives the counts and placements it
 * promises, values are reproducible per (seed, tensor), N:M pruning keeps
 * the largest magnitudes, compression round-trips, box counts are exact.
 */
#include "exec/exec.h"
#include "exec/exec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/exec/tspec.h"
#include "tests/unit.h"
#include "util/rng.h"

/* A 2-D workload A[M,K] of the given bounds with one density model. */
static void matrix(struct tspec *ts, uint64_t m, uint64_t k, enum spec_density_kind kind,
		   double density)
{
	uint64_t b[] = { m, k };
	tspec_init(ts, "MK", b);
	tspec_tensor(ts, "A", "M,K", false);
	tspec_density(ts, 0, kind, density);
}

struct count_row {
	enum spec_density_kind kind;
	uint64_t m, k;
	double density;
	uint64_t nnz_lo, nnz_hi;       /* every seed gives a count in [lo, hi] */
};

static const struct count_row count_rows[] = {
	{ SPEC_DENSITY_FIXED_STRUCTURED, 8, 8, 0.25, 16, 16 },
	{ SPEC_DENSITY_FIXED_STRUCTURED, 3, 1, 0.43, 1, 2 },   /* 1.29 rounds either way */
	{ SPEC_DENSITY_FIXED_STRUCTURED, 16, 16, 1.0, 256, 256 },
	{ SPEC_DENSITY_HYPERGEOMETRIC, 10, 10, 0.333, 34, 34 },  /* ceil(33.3) */
	{ SPEC_DENSITY_HYPERGEOMETRIC, 64, 32, 0.05, 103, 103 }, /* ceil(102.4) */
	{ SPEC_DENSITY_HYPERGEOMETRIC, 4, 4, 0.0, 0, 0 },
};

static void test_counts(void)
{
	size_t i;
	uint64_t seed;

	for (i = 0; i < sizeof(count_rows) / sizeof(count_rows[0]); i++) {
		const struct count_row *row = &count_rows[i];
		struct tspec ts;
		matrix(&ts, row->m, row->k, row->kind, row->density);
		for (seed = 1; seed <= 20; seed++) {
			char why[256];
			struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
			uint64_t n;
			CU_ASSERT_PTR_NOT_NULL_FATAL(x);
			n = exec_tensor_nnz(x);
			CU_ASSERT_TRUE(n >= row->nnz_lo && n <= row->nnz_hi);
			exec_tensor_free(x);
		}
	}
}

/*
 * fixed_structured spreads its K non-zeros evenly: N/K = 4 here, so every
 * run of 8 consecutive positions (circularly) holds one to three of them.
 */
static void test_fixed_is_even(void)
{
	struct tspec ts;
	char why[256];
	uint64_t seed, i, j;

	matrix(&ts, 12, 10, SPEC_DENSITY_FIXED_STRUCTURED, 0.25);
	for (seed = 1; seed <= 50; seed++) {
		struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
		CU_ASSERT_EQUAL_FATAL(exec_tensor_nnz(x), 30);
		for (i = 0; i < 120; i++) {
			unsigned in = 0;
			for (j = i; j < i + 8; j++)
				in += exec_tensor_values(x)[j % 120] != 0;
			CU_ASSERT_TRUE(in >= 1 && in <= 3);
		}
		exec_tensor_free(x);
	}
}

/* Over many seeds every position is non-zero with probability rho. */
static void test_uniform_placement(void)
{
	static const enum spec_density_kind kinds[] = { SPEC_DENSITY_FIXED_STRUCTURED,
							 SPEC_DENSITY_HYPERGEOMETRIC };
	unsigned hits[64];
	struct tspec ts;
	size_t k;
	uint64_t seed, i;

	/* N/K = 64/17.6 = 3.64 is not an integer: every position must still get rho */
	for (k = 0; k < 2; k++) {
		memset(hits, 0, sizeof(hits));
		matrix(&ts, 8, 8, kinds[k], 0.275);
		for (seed = 1; seed <= 4000; seed++) {
			char why[256];
			struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
			for (i = 0; i < 64; i++)
				hits[i] += exec_tensor_values(x)[i] != 0;
			exec_tensor_free(x);
		}
		/* 1100 expected (hypergeometric: 18/64 * 4000 = 1125), sd ~28: 5 sd */
		for (i = 0; i < 64; i++)
			CU_ASSERT_TRUE(fabs(hits[i] - (k ? 1125.0 : 1100.0)) < 140);
	}
}

static void test_banded(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *x;
	uint64_t i, j, c[2];

	matrix(&ts, 6, 6, SPEC_DENSITY_BANDED, 0);
	ts.tensors[0].density.band_width = 1;
	x = exec_tensor_new(&ts.s.workload, 0, 1, why);
	CU_ASSERT_EQUAL(exec_tensor_nnz(x), 6 + 2 * 5);
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++) {
			c[0] = i;
			c[1] = j;
			CU_ASSERT_EQUAL(exec_tensor_get(x, c) != 0, (i > j ? i - j : j - i) <= 1);
		}
	exec_tensor_free(x);
}

static void test_values_reproducible(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *a, *b, *c;
	uint64_t i;
	bool differs = false;

	matrix(&ts, 16, 16, SPEC_DENSITY_HYPERGEOMETRIC, 0.5);
	a = exec_tensor_new(&ts.s.workload, 0, 42, why);
	b = exec_tensor_new(&ts.s.workload, 0, 42, why);
	c = exec_tensor_new(&ts.s.workload, 0, 43, why);
	CU_ASSERT_EQUAL(memcmp(exec_tensor_values(a), exec_tensor_values(b), 256 * sizeof(double)), 0);
	for (i = 0; i < 256; i++) {
		double v = exec_tensor_values(a)[i];
		differs |= v != exec_tensor_values(c)[i];
		CU_ASSERT_TRUE(v == floor(v) && fabs(v) <= 15);
	}
	CU_ASSERT_TRUE(differs);
	exec_tensor_free(a);
	exec_tensor_free(b);
	exec_tensor_free(c);
}

/* ------------------------------------------------------------------- N:M */

static void test_prune_nm(void)
{
	static const uint64_t ext[] = { 2, 8 };
	static const double in[] = { 1, -5, 3, 2, 0, 7, -7, 1, /* ties: lower position wins */
				     4, 4, 4, 4, -1, 0, 0, 0 };
	static const double want[] = { 0, -5, 3, 0, 0, 7, -7, 0,
				       4, 4, 0, 0, -1, 0, 0, 0 };
	struct exec_tensor *x = exec_tensor_new_zero(2, ext);
	uint64_t i, c[2];

	for (i = 0; i < 16; i++) {
		c[0] = i / 8;
		c[1] = i % 8;
		exec_tensor_set(x, c, in[i]);
	}
	exec_tensor_prune_nm(x, 2, 4, 1);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(exec_tensor_values(x)[i], want[i]);
	exec_tensor_free(x);
}

static void test_nm_compress(void)
{
	static const uint64_t ext[] = { 4, 8 };
	struct exec_tensor *x = exec_tensor_new_zero(2, ext), *y = exec_tensor_new_zero(2, ext);
	double values[16];
	uint8_t idx[16];
	struct rng r;
	uint64_t i, c[2];

	rng_seed(&r, 3);
	for (i = 0; i < 32; i++) {
		c[0] = i / 8;
		c[1] = i % 8;
		exec_tensor_set(x, c, (double)rng_below(&r, 9) - 4);
	}
	exec_tensor_prune_nm(x, 2, 4, 1);
	CU_ASSERT_EQUAL(exec_nm_index_bits(4), 2);
	CU_ASSERT_EQUAL(exec_nm_index_bits(8), 3);
	CU_ASSERT_EQUAL_FATAL(exec_nm_compress(x, 2, 4, 1, values, idx), 16);
	for (i = 0; i < 16; i++)
		CU_ASSERT_TRUE(idx[i] < 4);
	for (i = 0; i < 16; i += 2)
		CU_ASSERT_TRUE(idx[i] < idx[i + 1]);   /* sorted inside a group */
	exec_nm_decompress(y, 2, 4, 1, values, idx);
	CU_ASSERT_EQUAL(memcmp(exec_tensor_values(x), exec_tensor_values(y), 32 * sizeof(double)), 0);
	/* a group with 3 non-zeros cannot be 2:4 */
	c[0] = 0;
	c[1] = 0;
	exec_tensor_set(y, c, 1);
	c[1] = 1;
	exec_tensor_set(y, c, 1);
	c[1] = 2;
	exec_tensor_set(y, c, 1);
	CU_ASSERT_EQUAL(exec_nm_compress(y, 2, 4, 1, values, idx), 0);
	exec_tensor_free(x);
	exec_tensor_free(y);
}

/* The N:M density model: exactly N non-zeros in every group of M. */
static void test_nm_density(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *x;
	uint64_t i, j, g;

	matrix(&ts, 6, 16, SPEC_DENSITY_NM, 0.5);
	ts.tensors[0].density.nm_n = 2;
	ts.tensors[0].density.nm_m = 4;
	ts.tensors[0].density.nm_dim = 1;
	x = exec_tensor_new(&ts.s.workload, 0, 5, why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	for (i = 0; i < 6; i++)
		for (g = 0; g < 4; g++) {
			unsigned n = 0;
			for (j = g * 4; j < g * 4 + 4; j++)
				n += exec_tensor_values(x)[i * 16 + j] != 0;
			CU_ASSERT_EQUAL(n, 2);
		}
	exec_tensor_free(x);
}

/* ------------------------------------------------------------ box counts */

static void test_box_nnz(void)
{
	static const uint64_t ext[] = { 5, 6, 7 };
	struct exec_tensor *x = exec_tensor_new_zero(3, ext);
	struct rng r;
	uint64_t i, c[3];
	int k;

	rng_seed(&r, 11);
	for (i = 0; i < 210; i++) {
		c[0] = i / 42;
		c[1] = i / 7 % 6;
		c[2] = i % 7;
		exec_tensor_set(x, c, rng_below(&r, 3) == 0 ? 1 : 0);
	}
	for (k = 0; k < 200; k++) {
		int64_t lo[3], hi[3];
		uint64_t want = 0, a, b, d;
		unsigned q;
		for (q = 0; q < 3; q++) {
			lo[q] = (int64_t)rng_below(&r, ext[q]) - 1;
			hi[q] = lo[q] + (int64_t)rng_below(&r, ext[q] + 1);
		}
		for (a = 0; a < 5; a++)
			for (b = 0; b < 6; b++)
				for (d = 0; d < 7; d++) {
					int64_t v[3] = { (int64_t)a, (int64_t)b, (int64_t)d };
					bool in = true;
					for (q = 0; q < 3; q++)
						in &= v[q] >= lo[q] && v[q] <= hi[q];
					want += in && exec_tensor_values(x)[a * 42 + b * 7 + d] != 0;
				}
		CU_ASSERT_EQUAL(exec_tensor_box_nnz(x, lo, hi), want);
	}
	exec_tensor_free(x);
}

CU_TestInfo tensor_tests[] = {
	{ "non-zero counts per density model", test_counts },
	{ "fixed_structured spreads evenly", test_fixed_is_even },
	{ "placement is uniform over seeds", test_uniform_placement },
	{ "banded", test_banded },
	{ "values reproducible per seed", test_values_reproducible },
	{ "N:M magnitude pruning", test_prune_nm },
	{ "N:M compression round trip", test_nm_compress },
	{ "N:M density model", test_nm_density },
	{ "box non-zero counts", test_box_nnz },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "tensor", .pTests = tensor_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
