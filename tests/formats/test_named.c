/* Tests of formats/named.c: named formats expanded into per-rank formats. */
#include "formats/format.h"

#include <string.h>

#include "util/xalloc.h"

#include "tests/unit.h"

#define EPS 1e-9

static const struct {
	enum spec_named_format named;
	unsigned own_loops, child_ranks, n_ranks;
} n_rows[] = {
	{ SPEC_NAMED_CSR, 2, 0, 2 },
	{ SPEC_NAMED_CSR, 0, 0, 1 },
	{ SPEC_NAMED_CSR, 1, 2, 3 },     /* 02.2.2 B@BS: UOP UOP CP */
	{ SPEC_NAMED_CSC, 3, 0, 3 },
	{ SPEC_NAMED_COO, 3, 0, 1 },     /* one flattened rank takes every loop */
	{ SPEC_NAMED_COO, 2, 1, 2 },
	{ SPEC_NAMED_BITMASK, 2, 0, 2 },
	{ SPEC_NAMED_CSF, 3, 0, 3 },
	{ SPEC_NAMED_NM, 2, 0, 2 },
	{ SPEC_NAMED_NM, 1, 2, 3 },
	{ SPEC_NAMED_RLE, 2, 1, 3 },
};

static void test_n_ranks(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(n_rows); i++)
		CU_ASSERT_EQUAL(fmt_named_n_ranks(n_rows[i].named, n_rows[i].own_loops,
						  n_rows[i].child_ranks),
				n_rows[i].n_ranks);
}

/* Expansions, OUTERMOST rank first; flat = the rank flattens every dim. */
static const struct {
	enum spec_named_format named;
	unsigned n, nm_m;
	int md_bits;
	enum fmt_kind k[4];
	int want_md_bits[4];
	bool flat;
} expand_rows[] = {
	{ SPEC_NAMED_CSR, 2, 0, -1, { FMT_UOP, FMT_CP }, { -1, -1 }, false },
	{ SPEC_NAMED_CSR, 3, 0, 4, { FMT_UOP, FMT_UOP, FMT_CP }, { 4, 4, 4 }, false },
	{ SPEC_NAMED_CSR, 1, 0, -1, { FMT_CP }, { -1 }, false },
	{ SPEC_NAMED_CSC, 2, 0, -1, { FMT_UOP, FMT_CP }, { -1, -1 }, false },
	{ SPEC_NAMED_COO, 1, 0, 8, { FMT_CP }, { 8 }, true },
	{ SPEC_NAMED_COO, 2, 0, -1, { FMT_CP, FMT_CP }, { -1, -1 }, true },
	{ SPEC_NAMED_BITMASK, 3, 0, -1, { FMT_B, FMT_B, FMT_B }, { -1, -1, -1 }, false },
	{ SPEC_NAMED_CSF, 3, 0, -1, { FMT_CP, FMT_CP, FMT_CP }, { -1, -1, -1 }, false },
	{ SPEC_NAMED_NM, 2, 4, -1, { FMT_U, FMT_CP }, { -1, 2 }, false },
	{ SPEC_NAMED_NM, 3, 8, -1, { FMT_U, FMT_U, FMT_CP }, { -1, -1, 3 }, false },
	{ SPEC_NAMED_NM, 1, 16, -1, { FMT_CP }, { 4 }, false },
	{ SPEC_NAMED_NM, 1, 4, 3, { FMT_CP }, { 3 }, false },
	{ SPEC_NAMED_NM, 1, 2, -1, { FMT_CP }, { 1 }, false },
	{ SPEC_NAMED_RLE, 3, 0, -1, { FMT_U, FMT_U, FMT_RLE }, { -1, -1, -1 }, false },
	{ SPEC_NAMED_RLE, 1, 0, 3, { FMT_RLE }, { 3 }, false },
};

static void test_expand(void)
{
	size_t i;
	unsigned r;

	for (i = 0; i < ARRAY_SIZE(expand_rows); i++) {
		struct spec_rank_format out[SPEC_MAX_FMT_RANKS];
		unsigned n = fmt_named_expand(expand_rows[i].named, expand_rows[i].n, 0x5,
					      expand_rows[i].nm_m, expand_rows[i].md_bits, out);
		CU_ASSERT_EQUAL(n, expand_rows[i].n);
		for (r = 0; r < n; r++) {
			CU_ASSERT_EQUAL(out[r].kind, expand_rows[i].k[r]);
			CU_ASSERT_EQUAL(out[r].metadata_word_bits, expand_rows[i].want_md_bits[r]);
			CU_ASSERT_EQUAL(out[r].payload_word_bits, -1);
			CU_ASSERT_EQUAL(out[r].n_flatten_groups, expand_rows[i].flat ? 1u : 0u);
			if (expand_rows[i].flat)
				CU_ASSERT_EQUAL(out[r].flatten_groups[0], 0x5);
		}
	}
	CU_ASSERT_EQUAL(fmt_named_expand(SPEC_NAMED_NONE, 2, 0, 0, -1, NULL), 0);
	CU_ASSERT_EQUAL(fmt_named_expand(SPEC_NAMED_CSR, 0, 0, 0, -1, NULL), 0);
}

/* Expanded kinds, reversed into r = 0 innermost order. */
static void expanded_kinds(enum spec_named_format named, unsigned n, enum fmt_kind *k)
{
	struct spec_rank_format out[SPEC_MAX_FMT_RANKS];
	unsigned r;

	CU_ASSERT_EQUAL(fmt_named_expand(named, n, 0x3, 4, -1, out), n);
	for (r = 0; r < n; r++)
		k[r] = out[n - 1 - r].kind;
}

static void test_expansions_are_valid(void)
{
	static const enum spec_named_format all[] = {
		SPEC_NAMED_CSR, SPEC_NAMED_CSC, SPEC_NAMED_COO,
		SPEC_NAMED_BITMASK, SPEC_NAMED_CSF, SPEC_NAMED_NM,
	};
	size_t i;
	unsigned n;

	/* every expansion has metadata, is compressed, and never puts a
	 * compressed rank above an uncompressed one */
	for (i = 0; i < ARRAY_SIZE(all); i++)
		for (n = 1; n <= 4; n++) {
			enum fmt_kind k[4];
			expanded_kinds(all[i], n, k);
			CU_ASSERT_TRUE(fmt_has_metadata(k, n));
			CU_ASSERT_TRUE(fmt_any_compressed(k, n));
			CU_ASSERT_FALSE(fmt_compressed_above_uncompressed(k, n));
		}
}

static void test_nm_is_nine_sixteenths(void)
{
	/*
	 * A 16 x 8 tile of 16-bit values, 2:4 along the 8 columns. Rank 1 (U)
	 * takes the rows, rank 0 (CP, 2-bit indices) the columns. Each row of
	 * 8 holds exactly 4 non-zeros (P0 = 0); a scalar is empty with P0 = 1/2.
	 */
	struct fmt_layout lay;
	struct fmt_tile_occupancy occ;
	double p_sub[2] = { 0.5, 0.0 };
	double md_bits, data_bits, dense_bits = 16.0 * 8 * 16;
	enum fmt_kind k[2];

	memset(&lay, 0, sizeof(lay));
	expanded_kinds(SPEC_NAMED_NM, 2, k);
	lay.n_ranks = 2;
	lay.kind[0] = k[0];
	lay.kind[1] = k[1];
	lay.fiber_shape[0] = 8;
	lay.fiber_shape[1] = 16;
	lay.metadata_word_bits[0] = 2;
	lay.payload_word_bits[0] = 16;
	lay.metadata_word_bits[1] = 16;
	lay.payload_word_bits[1] = 16;
	fmt_tile_occupancy(&lay, 0.0, p_sub, &occ);
	CU_ASSERT_DOUBLE_EQUAL(occ.rank[1].metadata_units, 0.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(occ.rank[1].payload_units, 0.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(occ.rank[0].metadata_units, 64.0, EPS);
	md_bits = fmt_tile_bits(&lay, &occ, true);
	data_bits = 64.0 * 16;
	CU_ASSERT_DOUBLE_EQUAL(md_bits, 128.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL((md_bits + data_bits) / dense_bits, 9.0 / 16.0, EPS);
}

static CU_TestInfo named_tests[] = {
	{ "rank counts", test_n_ranks },
	{ "expansions", test_expand },
	{ "expansions are valid formats", test_expansions_are_valid },
	{ "2:4 is 9/16 of dense", test_nm_is_nine_sixteenths },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "named", .pTests = named_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
