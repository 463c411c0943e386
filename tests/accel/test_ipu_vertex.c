/*
 * ipu_vertex.c: PopLibs' vertex estimates (docs/poplibs.md §3), each
 * row worked out by hand from the section's tables.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"

struct ew_row {
	enum ipu_ew_kind k;
	bool half;
	uint64_t z;
	double rows, nz, want;
};

/* worker = ov + rows (xo + a) + b nz with inner(y) = a + b y (§3.1; Fwd and GradA with a
 * general Z pay the main loop's set-up per 4 or 8 columns, as their codelets do). */
static const struct ew_row ew_rows[] = {
	{ IPU_EW_FWD, false, 4, 2, 5, 25 + 2 * 13 + 3 * 5 },             /* 3y */
	{ IPU_EW_FWD, false, 2, 2, 5, 27 + 2 * 11 + 2 * 5 },             /* 2y */
	/* 12 q4 + 3 q4 y, +1: the loop's set-up once per 4 columns (12 once a row before) */
	{ IPU_EW_FWD, false, 12, 2, 5, 30 + 2 * (13 + 3 * 12 + 1) + 9 * 5 },
	{ IPU_EW_FWD, true, 8, 2, 5, 28 + 2 * 15 + 3 * 5 },
	/* 16 q8 + 13 + 11: LzLoop8 runs 3 times a row (16 once before) */
	{ IPU_EW_FWD, true, 28, 2, 5, 33 + 2 * (12 + 3 * 16 + 13) + (9 + 2) * 5 },
	{ IPU_EW_GRAD_A, true, 28, 2, 5, 32 + 2 * (11 + 3 * 14 + 13) + (9 + 2) * 5 },
	{ IPU_EW_GRAD_A, false, 12, 2, 5, 33 + 2 * (13 + 3 * 10 + 1) + 9 * 5 },
	{ IPU_EW_TRANSPOSE, false, 12, 2, 5, 23 + 2 * (24 + 8) + (2 + 3 * 6) * 5 },
	{ IPU_EW_TRANSPOSE, true, 4, 2, 5, 20 + 2 * 21 + 7 * 5 },
	{ IPU_EW_GRAD_W, true, 8, 2, 5, 28 + 2 + 2 * 11 + 5 * 5 },
	{ IPU_EW_GRAD_W, false, 6, 2, 5, 28 + 6 + 2 * 9 + (9 + 3) * 5 },
	{ IPU_EW_FWD, true, 8, 0, 0, 0 },                                 /* no rows: idle */
};

static void test_element_wise(void)
{
	size_t i;

	for (i = 0; i < sizeof(ew_rows) / sizeof(ew_rows[0]); i++) {
		const struct ew_row *r = &ew_rows[i];
		double got = ipu_ew_worker(r->k, r->half, r->z, r->rows, r->nz);
		if (got != r->want)
			fprintf(stderr, "row %zu: %g, want %g\n", i, got, r->want);
		CU_ASSERT_DOUBLE_EQUAL(got, r->want, 1e-9);
	}
}

/* 30 + 32 (B - B_p) S + B_p floor((alpha + 1) k1 + k2), alpha = (S - 1) / 2. */
static void test_supervisors(void)
{
	CU_ASSERT_DOUBLE_EQUAL(ipu_ew_supervisor(IPU_EW_FWD, 4, 2, 3), 30 + 32 * 2 * 3 + 2 * 140,
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_ew_supervisor(IPU_EW_FWD, 1, 1, 1), 30 + 93, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_ew_supervisor(IPU_EW_TRANSPOSE, 2, 2, 2), 30 + 2 * 134, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_ew_supervisor(IPU_EW_GRAD_W, 3, 2, 1), 75 + 2 * 26, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_empty_bucket_cycles(true, 3), 99, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_info_bucket_cycles(true, IPU_EW_FWD, 3), 2 * 46 + 56, 1e-9);
}

struct block_row {
	bool half, half_partials;
	unsigned conv_units, b;
	uint64_t z;
	double blocks;
	bool retain;
	double want;
};

/* ov + blocks nu (io + Z cpz - 3 rho) (§3.2); cpz = b^2 / the device's block rate. */
static const struct block_row block_rows[] = {
	{ true, false, 16, 16, 10, 3, true, 23 + 3 * (24 + 10 * 4 - 3) },
	{ false, false, 8, 8, 2, 2, false, 23 + 2 * (22 + 2 * 8) },
	{ true, true, 8, 16, 3, 1, true, 23 + 2 * (24 + 3 * 4 - 3) },      /* 8 conv units: nu 2 */
	{ true, true, 16, 16, 1, 4, false, 22 + 4 * (22 + 4) },
	{ true, false, 16, 4, 7, 5, true, 26 + 5 * (19 + 7 * 2 - 3) },
	{ true, false, 16, 8, 0, 5, true, 0 },                              /* no columns */
};

static void test_blocks(void)
{
	size_t i;

	for (i = 0; i < sizeof(block_rows) / sizeof(block_rows[0]); i++) {
		const struct block_row *r = &block_rows[i];
		struct ipf_layer f;
		double got;
		ipf_layer_init(&f, r->half, r->half_partials, r->b);
		if (r->half && !r->half_partials)
			f.dev.conv_units_half_float = r->conv_units;
		else
			f.dev.conv_units[r->half ? SPEC_IPU_HALF : SPEC_IPU_FLOAT] = r->conv_units;
		got = ipu_block_worker(&f.L, r->b, r->z, r->blocks, r->retain);
		if (got != r->want)
			fprintf(stderr, "row %zu: %g, want %g\n", i, got, r->want);
		CU_ASSERT_DOUBLE_EQUAL(got, r->want, 1e-9);
	}
}

/*
 * FP16 16x16 with float partials: dynamic sparsity runs on the FP16-in,
 * FP32-out conv units (8: two weight loads and two worker runs a block,
 * BlockSparseDenseMatMul.h.S), static on the half kernel's 16 (one). The
 * worker: ov 23 + blocks nu (io 24 + Z 4 - 3); the supervisor: 40 + 33 +
 * 102 + blocks (64 + 3 + 12 nu) + rows + 2.
 */
struct units_row {
	bool half, half_partials;
	enum spec_ipu_sparsity sp;
	unsigned units;
	double worker, supervisor;
};

static const struct units_row units_rows[] = {
	{ true, false, SPEC_IPU_DYNAMIC, 8, 23 + 3 * 2 * (24 + 10 * 4 - 3),
	  40 + 33 + 102 + 3 * (64 + 3 + 24) + 2 + 2 },
	{ true, false, SPEC_IPU_STATIC, 16, 23 + 3 * (24 + 10 * 4 - 3),
	  40 + 33 + 102 + 3 * (64 + 3 + 12) + 2 + 2 },
	{ true, true, SPEC_IPU_DYNAMIC, 16, 22 + 3 * (22 + 10 * 4 - 3),      /* half partials */
	  40 + 33 + 102 + 3 * (64 + 3 + 12) + 2 + 2 },
	{ false, false, SPEC_IPU_DYNAMIC, 8, 0, 0 },                          /* float: 8 */
};

static void test_block_conv_units(void)
{
	size_t i;

	for (i = 0; i < sizeof(units_rows) / sizeof(units_rows[0]); i++) {
		const struct units_row *r = &units_rows[i];
		struct ipf_layer f;
		ipf_layer_init(&f, r->half, r->half_partials, 16);
		f.l.sparsity = r->sp;
		CU_ASSERT_EQUAL(ipu_block_conv_units(&f.L), r->units);
		if (!r->half)
			continue;
		CU_ASSERT_DOUBLE_EQUAL(ipu_block_worker(&f.L, 16, 10, 3, true), r->worker, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(ipu_block_supervisor(&f.L, 16, 2, 1, 1, 2, 3, true),
				       r->supervisor, 1e-9);
	}
}

/* 40 + 33 (B - B_p) S + B_p sup(46, 56) + blocks (c_ld + 3 + 12 nu) + rho rows + 2. */
static void test_block_supervisor(void)
{
	struct ipf_layer f;

	ipf_layer_init(&f, true, true, 16);
	CU_ASSERT_DOUBLE_EQUAL(ipu_block_supervisor(&f.L, 16, 2, 1, 1, 2, 3, true),
			       40 + 33 + 102 + 3 * (64 + 3 + 12) + 2 + 2, 1e-9);
	ipf_layer_init(&f, false, false, 8);
	CU_ASSERT_DOUBLE_EQUAL(ipu_block_supervisor(&f.L, 8, 1, 1, 1, 2, 3, false),
			       40 + 102 + 3 * (32 + 3 + 12) + 2, 1e-9);
	/* GradW, no AMP: ov + rows xo + blocks (yo + Z cpz) */
	ipf_layer_init(&f, true, false, 8);
	CU_ASSERT_DOUBLE_EQUAL(ipu_block_gradw_worker(&f.L, 8, 5, 2, 3), 26 + 2 * 9 + 3 * (113 + 5 * 24),
			       1e-9);
}

/* §3.4's auxiliary estimates. */
static void test_auxiliary(void)
{
	struct ipf_layer f;

	ipf_layer_init(&f, true, false, 16);
	/* float partials, half out: loops 3, L 0, + 2p + 13; c = 51 */
	CU_ASSERT_DOUBLE_EQUAL(ipu_reduce_cycles(&f.L, 10, 3), 51 * 6, 1e-9);
	/* loops 12 = 2 W: c = 32 + (3p + 6) 2 */
	CU_ASSERT_DOUBLE_EQUAL(ipu_reduce_cycles(&f.L, 48, 2), (32 + 12 * 2) * 6, 1e-9);
	/* m = 17, max(ceil(17/2), ceil(17/4)) + 26 */
	CU_ASSERT_DOUBLE_EQUAL(ipu_cast_cycles(&f.L, 100), (9 + 26) * 6, 1e-9);
	/* half 16 x 16: R = C = 4, t = 2: 29 + 2 (18 + 4 (12 + 4 x 2)) */
	CU_ASSERT_DOUBLE_EQUAL(ipu_transpose_cycles(&f.L, 12, 16, 16), 7 + 6 * 225, 1e-9);
	/* half, bs 16: k = 92, b_z = 16: 18 + W (34 + 2 (3 + 2 x 95)) */
	CU_ASSERT_DOUBLE_EQUAL(ipu_block_transpose_gradw_cycles(&f.L, 16, 7, 32), 18 + 6 * 420, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ipu_zero_cycles(&f.L, 13), 18, 1e-9);
	CU_ASSERT_EQUAL(ipu_vector_width(SPEC_IPU_HALF), 4);
	CU_ASSERT_EQUAL(ipu_vector_width(SPEC_IPU_FLOAT), 2);
}

static CU_TestInfo tests[] = {
	{ "element-wise workers", test_element_wise },
	{ "supervisors", test_supervisors },
	{ "AMP block workers", test_blocks },
	{ "AMP block conv units by partials and sparsity", test_block_conv_units },
	{ "block supervisor and GradW", test_block_supervisor },
	{ "auxiliary estimates", test_auxiliary },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_vertex", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
