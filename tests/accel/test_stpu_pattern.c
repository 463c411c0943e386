/*
 * stpu_pattern.c: the matrices the STPU model generates from density
 * models, and the ones it reads. Uniform kinds place exactly ceil(density x
 * rows x cols) non-zeros, dense ones too (by clearing); banded is the band;
 * block-structured is round(density x blocks) whole blocks; power law has
 * the density model's row lengths (worked out by hand), in order or
 * permuted. A seed gives the same pattern, another seed another; columns
 * hold strictly increasing rows; what is too large is refused with a
 * message.
 */
#include <stdio.h>
#include <string.h>

#include "accel/stpu_int.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/* Build the pattern of a design given under 'matrix:'. */
static int build(const char *matrix, struct stpu_pattern *p, struct strbuf *err)
{
	char yaml[512];
	struct spec_set *s;
	int rc;

	snprintf(yaml, sizeof(yaml), "stpu:\n  matrix: %s\n", matrix);
	s = sf_load(yaml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	rc = stpu_pattern_build(s->stpu, p, err);
	spec_set_free(s);
	return rc;
}

/* Rows strictly increasing in every column, all inside the matrix. */
static bool well_formed(const struct stpu_pattern *p)
{
	uint64_t c, k;
	if (p->col_ptr[0] != 0 || p->col_ptr[p->cols] != p->nnz)
		return false;
	for (c = 0; c < p->cols; c++)
		for (k = p->col_ptr[c]; k < p->col_ptr[c + 1]; k++)
			if (p->row_idx[k] >= p->rows ||
			    (k > p->col_ptr[c] && p->row_idx[k] <= p->row_idx[k - 1]))
				return false;
	return true;
}

struct gen_row {
	const char *matrix;
	uint64_t nnz;               /* 0: not checked */
};

static const struct gen_row gens[] = {
	{ "{rows: 50, cols: 40, density: 0.05, seed: 3}", 100 },
	{ "{rows: 50, cols: 40, density: {distribution: hypergeometric, density: 0.9}, seed: 3}",
	  1800 },
	{ "{rows: 7, cols: 9, density: 1}", 63 },
	{ "{rows: 7, cols: 9, density: 0}", 0 },
	/* 30 + 2 (29 + 28) */
	{ "{rows: 30, cols: 30, density: {distribution: banded, band_width: 2}}", 144 },
	/* round(0.5 x 9) = 5 (half away from zero) of the 9 blocks of 4 x 3: 60 */
	{ "{rows: 12, cols: 9, density: {distribution: block_structured, density: 0.5, "
	  "block_shape: [4, 3]}, seed: 2}", 60 },
	/* round(0.1 x 3500) */
	{ "{rows: 70, cols: 50, density: {distribution: power_law, density: 0.1, exponent: 1}, "
	  "seed: 2}", 350 },
	{ "{rows: 70, cols: 50, density: {distribution: power_law, density: 0.1, exponent: 1, "
	  "permute_rows: true}, seed: 2}", 350 },
};

static void test_generated(void)
{
	size_t i;

	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		struct stpu_pattern p = STPU_PATTERN_INIT, q = STPU_PATTERN_INIT;
		struct strbuf err = STRBUF_INIT;
		CU_ASSERT_EQUAL_FATAL(build(gens[i].matrix, &p, &err), 0);
		CU_ASSERT_EQUAL_FATAL(build(gens[i].matrix, &q, &err), 0);
		if (gens[i].nnz || strstr(gens[i].matrix, "density: 0}"))
			CU_ASSERT_EQUAL(p.nnz, gens[i].nnz);
		CU_ASSERT_TRUE(well_formed(&p));
		CU_ASSERT_EQUAL_FATAL(p.nnz, q.nnz);
		CU_ASSERT_EQUAL(memcmp(p.row_idx, q.row_idx, p.nnz * sizeof(*p.row_idx)), 0);
		CU_ASSERT_EQUAL(memcmp(p.col_ptr, q.col_ptr, (p.cols + 1) * sizeof(*p.col_ptr)), 0);
		stpu_pattern_release(&p);
		stpu_pattern_release(&q);
	}
}

/* Another seed, another placement of the same count. */
static void test_seeds(void)
{
	struct stpu_pattern p = STPU_PATTERN_INIT, q = STPU_PATTERN_INIT;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_EQUAL_FATAL(build("{rows: 64, cols: 64, density: 0.1, seed: 1}", &p, &err), 0);
	CU_ASSERT_EQUAL_FATAL(build("{rows: 64, cols: 64, density: 0.1, seed: 2}", &q, &err), 0);
	CU_ASSERT_EQUAL(p.nnz, q.nnz);
	CU_ASSERT_NOT_EQUAL(memcmp(p.row_idx, q.row_idx, p.nnz * sizeof(*p.row_idx)), 0);
	stpu_pattern_release(&p);
	stpu_pattern_release(&q);
}

/* Banded rows are exactly the band. */
static void test_banded(void)
{
	struct stpu_pattern p = STPU_PATTERN_INIT;
	struct strbuf err = STRBUF_INIT;
	uint64_t c, k;

	CU_ASSERT_EQUAL_FATAL(build("{rows: 6, cols: 6, density: {distribution: banded, "
				    "band_width: 1}}", &p, &err), 0);
	CU_ASSERT_EQUAL(p.nnz, 16);
	for (c = 0; c < 6; c++)
		for (k = p.col_ptr[c]; k < p.col_ptr[c + 1]; k++)
			CU_ASSERT_TRUE(p.row_idx[k] + 1 >= c && p.row_idx[k] <= c + 1);
	stpu_pattern_release(&p);
}

/*
 * Power-law row lengths: 4 x 10 at density 0.5 is 20 non-zeros, weights 1,
 * 1/2, 1/3, 1/4 (sum 25/12): quotas 9.6, 4.8, 3.2, 2.4, floors 9, 4, 3, 2
 * and the two left to the largest fractions (rows 1 then 0): 10, 5, 3, 2.
 * With exponent 3 row 0's quota (20 / 1.177) exceeds 10: it is full, and
 * the other 10 go 1/8 : 1/27 : 1/64 (quotas 7.0, 2.1, 0.9): 7, 2, 1 after
 * rounding by fractions.
 */
static void test_power_law_rows(void)
{
	static const char *const exps[] = { "1", "3" };
	static const uint64_t want[2][4] = { { 10, 5, 3, 2 }, { 10, 7, 2, 1 } };
	unsigned e;

	for (e = 0; e < 2; e++) {
		char yaml[256];
		struct spec_set *s;
		struct stpu_pattern p = STPU_PATTERN_INIT;
		uint64_t rows[4] = { 0 }, k;
		struct strbuf err = STRBUF_INIT;
		snprintf(yaml, sizeof(yaml), "stpu:\n  matrix: {rows: 4, cols: 10, density: "
			 "{distribution: power_law, density: 0.5, exponent: %s}}\n", exps[e]);
		s = sf_load(yaml);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(stpu_pattern_build(s->stpu, &p, &err), 0);
		for (k = 0; k < p.nnz; k++)
			rows[p.row_idx[k]]++;
		for (k = 0; k < 4; k++)
			CU_ASSERT_EQUAL(rows[k], want[e][k]);
		stpu_pattern_release(&p);
		spec_set_free(s);
	}
}

/* With permuted rows the same lengths occur, in another order. */
static void test_power_law_permuted(void)
{
	struct stpu_pattern p = STPU_PATTERN_INIT;
	uint64_t rows[4] = { 0 }, sorted[4], k, i, j;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_EQUAL_FATAL(build("{rows: 4, cols: 10, density: {distribution: power_law, "
				    "density: 0.5, exponent: 1, permute_rows: true}, seed: 5}", &p,
				    &err), 0);
	for (k = 0; k < p.nnz; k++)
		rows[p.row_idx[k]]++;
	memcpy(sorted, rows, sizeof(rows));
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			if (sorted[j] > sorted[i]) {
				uint64_t t = sorted[i];
				sorted[i] = sorted[j];
				sorted[j] = t;
			}
	CU_ASSERT_EQUAL(sorted[0], 10);
	CU_ASSERT_EQUAL(sorted[1], 5);
	CU_ASSERT_EQUAL(sorted[2], 3);
	CU_ASSERT_EQUAL(sorted[3], 2);
	stpu_pattern_release(&p);
}

/*
 * build() of a small matrix grown to rows x cols after loading: what the
 * generator refuses, past the loader's own check (specs/stpu.c), which
 * refuses such a design first.
 */
static int build_grown(const char *matrix, uint64_t rows, uint64_t cols, struct stpu_pattern *p,
		       struct strbuf *err)
{
	char yaml[512];
	struct spec_set *s;
	struct spec_stpu *st;
	int rc;

	snprintf(yaml, sizeof(yaml), "stpu:\n  matrix: %s\n", matrix);
	s = sf_load(yaml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	st = (struct spec_stpu *)s->stpu;
	st->matrix_rows = rows;
	st->matrix_cols = cols;
	rc = stpu_pattern_build(st, p, err);
	spec_set_free(s);
	return rc;
}

static void test_too_large(void)
{
	struct stpu_pattern p = STPU_PATTERN_INIT;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_EQUAL(build_grown("{rows: 10, cols: 10, density: 0.5}", 10000000, 10000000, &p,
				    &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "a 10000000 x 10000000 matrix with 50000000000000 non-zeros "
			       "is too large to generate (at most 2^32 positions, or 2^27 "
			       "non-zeros)");
	CU_ASSERT_EQUAL(build_grown("{rows: 10, cols: 10, density: {distribution: power_law, "
				    "density: 0.5, exponent: 1}}", 100000, 100000, &p, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "a power-law matrix with 5000000000 non-zeros is too large "
			       "to generate (at most 2^27)");
	strbuf_release(&err);
}

static CU_TestInfo tests[] = {
	{ "generated", test_generated },
	{ "seeds", test_seeds },
	{ "banded", test_banded },
	{ "power-law rows", test_power_law_rows },
	{ "power-law rows permuted", test_power_law_permuted },
	{ "too large", test_too_large },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu_pattern", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
