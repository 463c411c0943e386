/*
 * model/sparse_format.c: representation formats bound to the mapping
 * (semantics 4.3.1) on Sparseloop's 02.2.2 (pre-tiled UOP/CP ranks), the
 * named formats that expand to the same ranks (CSR) or to others (bitmask),
 * and the mappings the analysis rejects (pre-tiling mismatch, too few ranks).
 */
#include <string.h>

#include "model/model.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

enum { A, B, Z };
enum { BUF, BS };

static struct tb tb_;
static struct model_result res_, res2_;

/* 02.2.2's skipping optimizations at Buffer. */
static void safs(struct tb *b)
{
	tb_saf(b, BUF, SPEC_SAF_SKIPPING, "A", "B");
	tb_saf(b, BUF, SPEC_SAF_SKIPPING, "B", "A");
	tb_saf(b, BUF, SPEC_SAF_SKIPPING, "Z", "A B");
}

static int eval(struct tb *b, struct model_result *r)
{
	struct model_ws *ws = model_ws_new(&b->s, NULL, NULL);
	int rc = model_eval(ws, &b->m, r);

	model_ws_free(ws);
	return rc;
}

/* One format table row: (metadata, payload) units per rank, highest rank first. */
static void check_capacity(const struct model_tile *t, unsigned n, const uint64_t (*want)[2])
{
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(t->n_fmt_ranks, n);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(t->fmt_capacity[n - 1 - i][0], want[i][0]);
		CU_ASSERT_EQUAL(t->fmt_capacity[n - 1 - i][1], want[i][1]);
	}
}

/* The listed formats of 02.2.2 give its reference figures. */
static void test_listed(void)
{
	static const uint64_t buf_b[2][2] = { { 0, 9 }, { 8, 0 } };
	static const uint64_t bs_b[3][2] = { { 0, 5 }, { 0, 36 }, { 32, 0 } };
	static const uint64_t bs_a[2][2] = { { 0, 9 }, { 16, 0 } };
	const struct model_tile *t;

	tb_spmspm(&tb_);
	tb_format(&tb_, BS, "A", "UOP CP");
	tb_format(&tb_, BS, "B", "UOP UOP CP");
	tb_format(&tb_, BUF, "B", "UOP CP");
	safs(&tb_);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[BUF][B];
	CU_ASSERT(t->has_metadata && t->is_compressed);
	CU_ASSERT_EQUAL(t->utilized_capacity, 8);
	check_capacity(t, 2, buf_b);
	CU_ASSERT_EQUAL(t->fmt_access[MODEL_FMT_READ][MODEL_FMT_ACTUAL][1][1], 72);
	CU_ASSERT_EQUAL(t->fmt_access[MODEL_FMT_READ][MODEL_FMT_SKIPPED][0][0], 192);
	check_capacity(&res_.tiles[BS][B], 3, bs_b);
	check_capacity(&res_.tiles[BS][A], 2, bs_a);
	CU_ASSERT_EQUAL(res_.tiles[BS][A].utilized_capacity, 16);
	CU_ASSERT_FALSE(res_.tiles[BUF][Z].has_metadata);
	CU_ASSERT_EQUAL(res_.compute.random, 64);
	CU_ASSERT_EQUAL(res_.cycles, 64);
}

/* CSR expands to UOP .. UOP CP for the loops it meets: the same numbers. */
static void test_csr(void)
{
	unsigned l, pv;

	tb_spmspm(&tb_);
	tb_format(&tb_, BS, "A", "UOP CP");
	tb_format(&tb_, BS, "B", "UOP UOP CP");
	tb_format(&tb_, BUF, "B", "UOP CP");
	safs(&tb_);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	tb_spmspm(&tb_);
	tb_format(&tb_, BS, "A", "CSR");
	tb_format(&tb_, BS, "B", "CSR");
	tb_format(&tb_, BUF, "B", "CSR");
	safs(&tb_);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res2_), 0);
	for (l = 0; l < 2; l++) {
		for (pv = 0; pv < 3; pv++) {
			const struct model_tile *a = &res_.tiles[l][pv], *b = &res2_.tiles[l][pv];
			if (!a->is_kept)
				continue;
			CU_ASSERT_EQUAL(a->n_fmt_ranks, b->n_fmt_ranks);
			CU_ASSERT_EQUAL(memcmp(a->fmt_kind, b->fmt_kind, a->n_fmt_ranks), 0);
			CU_ASSERT_EQUAL(memcmp(a->actions, b->actions, sizeof(a->actions)), 0);
			CU_ASSERT_EQUAL(memcmp(a->fmt_capacity, b->fmt_capacity,
					       a->n_fmt_ranks * sizeof(a->fmt_capacity[0])), 0);
			CU_ASSERT_DOUBLE_EQUAL(a->energy_total_pj, b->energy_total_pj, 1e-9);
		}
	}
	CU_ASSERT_DOUBLE_EQUAL(res_.energy_pj, res2_.energy_pj, 1e-9);
}

/*
 * bitmask at both levels: B ranks at Buffer hold K8 (rank 1) and N2 (rank
 * 0); at the max occupancy 8 of 16, rank 1 has 8 mask bits and 8 non-empty
 * N2 fibers, rank 0 has 8 fibers x 2 bits (its payload is the data).
 * Metadata bits: 8 x 1 + 8 x 4 (payload word bits) + 16 x 1 = 56.
 */
static void test_bitmask(void)
{
	static const uint64_t buf_b[2][2] = { { 8, 8 }, { 16, 0 } };
	const struct model_tile *t;

	tb_spmspm(&tb_);
	tb_format(&tb_, BS, "B", "bitmask");
	tb_format(&tb_, BUF, "B", "bitmask");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[BUF][B];
	check_capacity(t, 2, buf_b);
	CU_ASSERT_EQUAL(t->fmt_kind[0], FMT_B);
	CU_ASSERT_EQUAL(t->fmt_kind[1], FMT_B);
	CU_ASSERT_EQUAL(t->fmt_md_bits[0], 1);
	CU_ASSERT_EQUAL(t->fmt_pl_bits[1], 4);
	/* pre-tiled at BackingStorage: the child's two ranks under its own N4 */
	CU_ASSERT_EQUAL(res_.tiles[BS][B].n_fmt_ranks, 3);
	CU_ASSERT_EQUAL(res_.tiles[BS][B].fmt_kind[2], FMT_B);
}

/*
 * Word bits past 255 are kept as given: bitmask at Buffer with a default
 * of 264 bits (and a 264-bit metadata row), so rank 1's payload words are
 * 264 bits and the tile's metadata 8 x 1 + 8 x 264 + 16 x 1 = 2136 bits (a
 * byte-wide field made them 8 bits, and 88).
 */
static void test_wide_word_bits(void)
{
	struct spec_level *buf;
	const struct model_tile *t;
	uint64_t bits = 0;
	unsigned r;

	tb_spmspm(&tb_);
	buf = &tb_.levels[BUF];
	buf->metadata_word_bits = 264;
	buf->metadata_storage_width = 264;
	buf->metadata_size_bits = buf->effective_metadata_size_bits = 64 * 264;
	tb_format(&tb_, BS, "B", "bitmask");
	tb_format(&tb_, BUF, "B", "bitmask");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[BUF][B];
	CU_ASSERT_EQUAL(t->fmt_md_bits[0], 1);
	CU_ASSERT_EQUAL(t->fmt_pl_bits[1], 264);
	for (r = 0; r < t->n_fmt_ranks; r++)
		bits += t->fmt_capacity[r][0] * t->fmt_md_bits[r] +
			t->fmt_capacity[r][1] * t->fmt_pl_bits[r];
	CU_ASSERT_EQUAL(bits, 2136);
}

/* A compressed child whose ranks differ from the parent's: rejected. */
static void test_pretile_mismatch(void)
{
	tb_spmspm(&tb_);
	tb_format(&tb_, BS, "B", "UOP UOP CP");
	tb_format(&tb_, BUF, "B", "UOP RLE");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL(eval(&tb_, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_SPARSE);
	CU_ASSERT_EQUAL(res_.fail_level, BS);
	CU_ASSERT_EQUAL(res_.fail_tensor, B);
	CU_ASSERT_PTR_NOT_NULL(strstr(res_.reason, "formats differ"));
}

/* One compressed rank cannot hold B's two loops at Buffer (K8, N2). */
static void test_more_ranks(void)
{
	tb_spmspm(&tb_);
	tb_format(&tb_, BUF, "B", "CP");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL(eval(&tb_, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_SPARSE);
	CU_ASSERT_EQUAL(res_.fail_level, BUF);
	CU_ASSERT_PTR_NOT_NULL(strstr(res_.reason, "more compression ranks needed"));
}

static CU_TestInfo tests[] = {
	{ "listed ranks (02.2.2)", test_listed },
	{ "CSR equals its listed ranks", test_csr },
	{ "bitmask ranks and word bits", test_bitmask },
	{ "word bits past 255", test_wide_word_bits },
	{ "pre-tiling with different formats", test_pretile_mismatch },
	{ "more ranks needed", test_more_ranks },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sparse formats", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
