/*
 * Tests of formats/nm.c: N:M tensors as stored (values plus indices) and
 * cuSPARSELt's packed sizes, small matrices padded.
 */
#include "formats/format.h"

#include "util/xalloc.h"

#include "tests/unit.h"

static const struct {
	unsigned n, m, value_bits, index_bits;
	uint64_t num, den;
} ratio_rows[] = {
	{ 2, 4, 16, 0, 9, 16 },      /* fp16/bf16 2:4: (16 + 2) / 2 per element */
	{ 2, 4, 8, 0, 5, 8 },        /* int8/fp8 2:4: 10/16 */
	{ 1, 2, 32, 0, 33, 64 },     /* tf32/fp32 1:2: one 32-bit value and a 1-bit index */
	{ 1, 2, 32, 2, 17, 32 },     /* the same with 2-bit indices */
	{ 2, 6, 8, 0, 11, 24 },      /* flexible N:M: 3-bit indices */
	{ 2, 8, 8, 0, 11, 32 },
	{ 1, 4, 8, 0, 5, 16 },
	{ 4, 4, 16, 0, 9, 8 },       /* a dense tensor still pays its indices */
	{ 0, 4, 16, 0, 0, 1 },       /* nonsense is 0 */
	{ 3, 2, 16, 0, 0, 1 },
};

static void test_stored_ratio(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ratio_rows); i++) {
		struct fmt_nm_ratio r = fmt_nm_stored_ratio(ratio_rows[i].n, ratio_rows[i].m,
							    ratio_rows[i].value_bits,
							    ratio_rows[i].index_bits);
		CU_ASSERT_EQUAL(r.num, ratio_rows[i].num);
		CU_ASSERT_EQUAL(r.den, ratio_rows[i].den);
	}
}

static void test_index_bits(void)
{
	static const unsigned m[] = { 1, 2, 3, 4, 5, 6, 8, 9, 16 }, bits[] = { 1, 1, 2, 2, 3, 3, 3, 4, 4 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++)
		CU_ASSERT_EQUAL(fmt_nm_index_bits(m[i]), bits[i]);
}

/*
 * cuSPARSELt at 8 x 16 half: 384 bytes requested (NVIDIA/CUDALibrarySamples#95)
 * where values plus indices need 128 + 16 = 144: the values are padded to 16
 * rows (256 bytes), the metadata to one 32 x 32 block (1024 indices' worth
 * of dense elements at 1 bit each: 128 bytes). At 1024 x 2048 nothing is
 * padded and the buffers are exactly 9/16 (half) and 10/16 (int8) of dense.
 */
static const struct {
	uint64_t rows, cols;
	unsigned n, m, value_bits;
	uint64_t value_bytes, metadata_bytes, total_bytes;
} packed_rows[] = {
	{ 8, 16, 2, 4, 16, 256, 128, 384 },
	{ 1024, 2048, 2, 4, 16, 2097152, 262144, 2359296 },        /* 9/16 of 4 MiB */
	{ 1024, 2048, 2, 4, 8, 1048576, 262144, 1310720 },         /* 10/16 of 2 MiB */
	{ 16, 32, 2, 4, 16, 512, 128, 640 },                       /* one block, no padding */
	{ 40, 64, 2, 4, 8, 48 * 32, 2 * 2 * 128, 48 * 32 + 512 },  /* 40 -> 48 rows, 2 x 2 blocks */
	{ 32, 32, 1, 2, 32, 32 * 16 * 4, 32 * 16 / 8, 2048 + 64 }, /* 1:2, 1-bit indices */
};

static void test_packed_cusparselt(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(packed_rows); i++) {
		struct fmt_nm_packed p;
		CU_ASSERT_EQUAL_FATAL(fmt_nm_packed_size(packed_rows[i].rows, packed_rows[i].cols,
							 packed_rows[i].n, packed_rows[i].m,
							 packed_rows[i].value_bits, 0,
							 &fmt_nm_cusparselt, &p), 0);
		CU_ASSERT_EQUAL(p.value_bytes, packed_rows[i].value_bytes);
		CU_ASSERT_EQUAL(p.metadata_bytes, packed_rows[i].metadata_bytes);
		CU_ASSERT_EQUAL(p.total_bytes, packed_rows[i].total_bytes);
	}
}

/* Without padding the packed size is the stored ratio times the dense size. */
static void test_packed_exact(void)
{
	struct fmt_nm_packed p;

	CU_ASSERT_EQUAL_FATAL(fmt_nm_packed_size(8, 16, 2, 4, 16, 0, NULL, &p), 0);
	CU_ASSERT_EQUAL(p.total_bytes, 144);          /* the formula of issue #95 */
	CU_ASSERT_EQUAL(p.total_bytes * 16, 8 * 16 * 2 * 9);
	CU_ASSERT_EQUAL_FATAL(fmt_nm_packed_size(4, 8, 2, 4, 8, 0, NULL, &p), 0);
	CU_ASSERT_EQUAL(p.total_bytes * 16, 4 * 8 * 10);
	CU_ASSERT_EQUAL(fmt_nm_packed_size(8, 18, 2, 4, 16, 0, NULL, &p), -1);   /* 18 % 4 */
	CU_ASSERT_EQUAL(fmt_nm_packed_size(8, 16, 3, 2, 16, 0, NULL, &p), -1);
	CU_ASSERT_EQUAL(fmt_nm_packed_size(UINT64_MAX / 2, 1ull << 40, 2, 4, 16, 0, NULL, &p), -1);
}

static CU_TestInfo nm_tests[] = {
	{ "stored ratio: 9/16, 10/16, 33/64", test_stored_ratio },
	{ "index bits", test_index_bits },
	{ "cuSPARSELt packing: 384 B at 8 x 16 half", test_packed_cusparselt },
	{ "packing without padding", test_packed_exact },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "formats/nm", .pTests = nm_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
