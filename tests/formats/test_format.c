/* Tests of formats/format.c and the per-rank models behind fmt_get(). */
#include "formats/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

#include "tests/unit.h"

#define EPS 1e-9

/* One rank format on one query (semantics 4.3.2 table). */
static const struct {
	enum fmt_kind kind;
	uint64_t f;
	double n_fibers, p0_cur, p0_next;
	double fibers, md, pl;
} rank_rows[] = {
	/* U: every fiber, nothing but the data */
	{ FMT_U, 4, 3, 0.5, 0.5, 3, 0, 0 },
	/* UOP: f+1 offsets per non-empty fiber; 02.2.1 A@BS rank 1 */
	{ FMT_UOP, 8, 1, 0.0, 0.0, 1, 0, 9 },
	{ FMT_UOP, 4, 4, 0.0, 0.0, 4, 0, 20 },
	{ FMT_UOP, 8, 4, 0.25, 0.9, 3, 0, 27 },
	/* CP: ceil(f (1 - P0 next)) coordinates and payloads per fiber; 02.2.1 A@BS rank 0 */
	{ FMT_CP, 8, 8, 0.0, 0.75, 8, 16, 16 },
	{ FMT_CP, 16, 1, 0.0, 0.75, 1, 4, 4 },     /* 01.2.3 A: (4, .) */
	{ FMT_CP, 3, 2, 0.5, 0.5, 1, 2, 2 },       /* ceil(1.5) = 2 */
	{ FMT_CP, 2, 32, 0.0, 0.5, 32, 32, 32 },   /* 02.2.2 B@BS rank 0 */
	/* B: one bit per coordinate, payload per non-empty element */
	{ FMT_B, 8, 2, 0.5, 0.5, 1, 8, 4 },
	{ FMT_B, 5, 1, 0.0, 0.9, 1, 5, 1 },        /* ceil(0.5) = 1 */
	/* RLE: an expectation, no ceil; conv1d weights n = 1.29 */
	{ FMT_RLE, 3, 1, 0.0, 1.0 - 1.29 / 3.0, 1, 1.29, 1.29 },
	{ FMT_RLE, 8, 4, 0.5, 0.75, 2, 4, 4 },
	/* UB: every fiber position, one bit and one payload per coordinate */
	{ FMT_UB, 4, 2, 0.5, 0.9, 2, 8, 8 },
	{ FMT_UB, 16, 1, 1.0, 1.0, 1, 16, 16 },
};

/* CP of a sparse_fixed axis (ELL): every fiber, empty or not, keeps min(n_col, f). */
static const struct {
	uint64_t f, n_col;
	double n_fibers, p0_cur, p0_next;
	double fibers, md;
} ell_rows[] = {
	{ 8, 3, 4, 0.5, 0.9, 4, 12 },
	{ 8, 3, 4, 0.0, 0.0, 4, 12 },
	{ 2, 5, 3, 0.0, 0.5, 3, 6 },      /* n_col beyond the fiber: f */
	{ 16, 1, 2.5, 1.0, 1.0, 2.5, 2.5 },
};

static void test_ell_rank(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ell_rows); i++) {
		struct fmt_rank_query q = { ell_rows[i].f, ell_rows[i].n_fibers,
					    ell_rows[i].p0_cur, ell_rows[i].p0_next, ell_rows[i].n_col };
		struct fmt_rank_occupancy o = fmt_get(FMT_CP)->occupancy(&q);
		CU_ASSERT_DOUBLE_EQUAL(o.fibers, ell_rows[i].fibers, EPS);
		CU_ASSERT_DOUBLE_EQUAL(o.metadata_units, ell_rows[i].md, EPS);
		CU_ASSERT_DOUBLE_EQUAL(o.payload_units, ell_rows[i].md, EPS);
	}
}

static void test_rank_models(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rank_rows); i++) {
		struct fmt_rank_query q = { rank_rows[i].f, rank_rows[i].n_fibers,
					    rank_rows[i].p0_cur, rank_rows[i].p0_next, 0 };
		struct fmt_rank_occupancy o = fmt_get(rank_rows[i].kind)->occupancy(&q);
		if (fabs(o.fibers - rank_rows[i].fibers) > EPS ||
		    fabs(o.metadata_units - rank_rows[i].md) > EPS ||
		    fabs(o.payload_units - rank_rows[i].pl) > EPS)
			printf("\nrow %zu (%s f=%llu): got (%g, %g, %g)\n", i,
			       fmt_get(rank_rows[i].kind)->name, (unsigned long long)rank_rows[i].f,
			       o.fibers, o.metadata_units, o.payload_units);
		CU_ASSERT_DOUBLE_EQUAL(o.fibers, rank_rows[i].fibers, EPS);
		CU_ASSERT_DOUBLE_EQUAL(o.metadata_units, rank_rows[i].md, EPS);
		CU_ASSERT_DOUBLE_EQUAL(o.payload_units, rank_rows[i].pl, EPS);
	}
}

static const struct {
	enum fmt_kind kind;
	const char *name;
	bool compressed, implicit;
	unsigned md_bits;
} flag_rows[] = {
	{ FMT_U, "u", false, true, 0 },
	{ FMT_UOP, "uop", false, false, 0 },
	{ FMT_CP, "cp", true, false, 0 },
	{ FMT_B, "b", true, false, 1 },
	{ FMT_RLE, "rle", true, false, 0 },
	{ FMT_UB, "ub", false, false, 0 },
};

static void test_flags(void)
{
	size_t i;

	CU_ASSERT_EQUAL(ARRAY_SIZE(flag_rows), FMT_COUNT);
	for (i = 0; i < ARRAY_SIZE(flag_rows); i++) {
		const struct fmt_ops *o = fmt_get(flag_rows[i].kind);
		CU_ASSERT_EQUAL(o->kind, flag_rows[i].kind);
		CU_ASSERT_STRING_EQUAL(o->name, flag_rows[i].name);
		CU_ASSERT_EQUAL(o->compressed, flag_rows[i].compressed);
		CU_ASSERT_EQUAL(o->implicit, flag_rows[i].implicit);
		CU_ASSERT_EQUAL(o->default_metadata_word_bits, flag_rows[i].md_bits);
	}
}

static const struct {
	unsigned n;
	enum fmt_kind k[3];   /* r = 0 innermost first */
	bool compressed, has_md, bad_order;
} tensor_rows[] = {
	{ 0, { FMT_U }, false, false, false },
	{ 1, { FMT_U }, false, false, false },
	{ 1, { FMT_UOP }, false, true, false },
	{ 1, { FMT_CP }, true, true, false },
	{ 2, { FMT_CP, FMT_UOP }, true, true, false },   /* UOP over CP: fine */
	{ 2, { FMT_UOP, FMT_CP }, true, true, true },    /* CP over UOP: rejected */
	{ 2, { FMT_U, FMT_U }, false, true, false },
	{ 3, { FMT_CP, FMT_U, FMT_B }, true, true, true },
	{ 2, { FMT_B, FMT_B }, true, true, false },
	{ 1, { FMT_UB }, false, true, false },
};

static void test_tensor_flags(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tensor_rows); i++) {
		CU_ASSERT_EQUAL(fmt_any_compressed(tensor_rows[i].k, tensor_rows[i].n),
				tensor_rows[i].compressed);
		CU_ASSERT_EQUAL(fmt_has_metadata(tensor_rows[i].k, tensor_rows[i].n),
				tensor_rows[i].has_md);
		CU_ASSERT_EQUAL(fmt_compressed_above_uncompressed(tensor_rows[i].k, tensor_rows[i].n),
				tensor_rows[i].bad_order);
	}
}

static const struct {
	enum fmt_kind kind;
	bool is_md;
	int spec;
	unsigned level_default, width;
	enum fmt_bits_status st;
	unsigned bits;
} bits_rows[] = {
	{ FMT_CP, true, -1, 4, 4, FMT_BITS_OK, 4 },        /* the level's default */
	{ FMT_B, true, -1, 4, 4, FMT_BITS_OK, 1 },         /* B: 1 metadata bit */
	{ FMT_B, false, -1, 8, 8, FMT_BITS_OK, 8 },        /* B payload: the level's */
	{ FMT_B, true, 2, 4, 4, FMT_BITS_OK, 2 },          /* given wins */
	{ FMT_CP, true, 3, 8, 8, FMT_BITS_ADJUSTED, 4 },   /* 3 -> 4 divides 8 */
	{ FMT_CP, true, 5, 8, 24, FMT_BITS_ADJUSTED, 6 },
	{ FMT_CP, true, 7, 8, 12, FMT_BITS_ADJUSTED, 12 },
	{ FMT_CP, true, 16, 8, 8, FMT_BITS_TOO_WIDE, 16 },
	{ FMT_CP, true, 0, 8, 8, FMT_BITS_OK, 0 },
	{ FMT_UOP, false, 5, 8, 0, FMT_BITS_OK, 5 },       /* no metadata storage width */
	{ FMT_RLE, true, -1, 0, 32, FMT_BITS_OK, 0 },
};

static void test_word_bits(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bits_rows); i++) {
		unsigned out = 999;
		enum fmt_bits_status st = fmt_word_bits(bits_rows[i].kind, bits_rows[i].is_md,
							bits_rows[i].spec, bits_rows[i].level_default,
							bits_rows[i].width, &out);
		CU_ASSERT_EQUAL(st, bits_rows[i].st);
		CU_ASSERT_EQUAL(out, bits_rows[i].bits);
	}
}

/* A layout with kinds and fiber shapes given r = 0 (innermost) first. */
static struct fmt_layout layout(unsigned n, const enum fmt_kind *k, const uint64_t *f,
				unsigned md_bits, unsigned pl_bits, bool i2o)
{
	struct fmt_layout lay;
	unsigned r;

	memset(&lay, 0, sizeof(lay));
	lay.n_ranks = n;
	lay.inner_to_outer = i2o;
	for (r = 0; r < n; r++) {
		lay.kind[r] = k[r];
		lay.fiber_shape[r] = f[r];
		lay.metadata_word_bits[r] = md_bits;
		lay.payload_word_bits[r] = pl_bits;
	}
	return lay;
}

/* Whole tiles (semantics 4.3.2 and the worked values of 5.2, 5.3). */
static const struct {
	const char *what;
	unsigned n;
	enum fmt_kind k[3];
	uint64_t f[3];
	bool i2o;
	double p0_data, p0_sub[3];
	double md[3], pl[3];   /* r = 0 first */
	bool empty[3];
	double bits;           /* capacity bits at 4 bits per unit, ceiled units */
} tile_rows[] = {
	{ "02.2.1 A@BS UOP/CP, 64 (16)", 2, { FMT_CP, FMT_UOP }, { 8, 8 }, false,
	  0.0, { 0.75, 0.0 }, { 16, 0 }, { 0, 9 }, { false, false }, 100 },
	{ "02.2.1 B@Buffer UOP/CP, 64 (32)", 2, { FMT_CP, FMT_UOP }, { 8, 8 }, false,
	  0.0, { 0.5, 0.0 }, { 32, 0 }, { 0, 9 }, { false, false }, 164 },
	{ "02.2.2 B@Buffer UOP/CP, 16 (8)", 2, { FMT_CP, FMT_UOP }, { 2, 8 }, false,
	  0.0, { 0.5, 0.0 }, { 8, 0 }, { 0, 9 }, { false, false }, 68 },
	{ "02.2.2 B@BS UOP/UOP/CP, 64 (32)", 3, { FMT_CP, FMT_UOP, FMT_UOP }, { 2, 8, 4 }, false,
	  0.0, { 0.5, 0.0, 0.0 }, { 32, 0, 0 }, { 0, 36, 5 }, { false, false, false }, 292 },
	{ "03.2.1 conv1d RLE, 3 (1)", 1, { FMT_RLE }, { 3 }, false,
	  0.0, { 1.0 - 1.0 / 3.0 }, { 1, 0 }, { 0 }, { false }, 4 },
	{ "03.2.1 conv1d RLE, 3 (2)", 1, { FMT_RLE }, { 3 }, false,
	  0.0, { 1.0 - 2.0 / 3.0 }, { 2, 0 }, { 0 }, { false }, 8 },
	{ "empty data tile", 2, { FMT_CP, FMT_UOP }, { 8, 8 }, false,
	  1.0, { 1.0, 1.0 }, { 0, 0 }, { 0, 0 }, { false, false }, 0 },
	/* fiber shape 1 below the top: the rank is skipped, the payload of UOP zeroed */
	{ "empty inner rank", 2, { FMT_CP, FMT_UOP }, { 1, 8 }, false,
	  0.0, { 0.5, 0.5 }, { 0, 0 }, { 0, 0 }, { true, false }, 0 },
	/* the same under inner_to_outer: rank 0 is the "top" and is kept */
	{ "inner_to_outer keeps rank 0", 2, { FMT_CP, FMT_UOP }, { 1, 8 }, true,
	  0.0, { 0.5, 0.5 }, { 4, 0 }, { 0, 9 }, { false, false }, 52 },
	{ "top rank of shape 1 kept", 2, { FMT_CP, FMT_UOP }, { 4, 1 }, false,
	  0.0, { 0.5, 0.0 }, { 2, 0 }, { 0, 2 }, { false, false }, 16 },
	/* a B rank over a CP rank: fibers F' = 4 (1 - 0.5) */
	{ "B over CP", 2, { FMT_CP, FMT_B }, { 4, 4 }, false,
	  0.0, { 0.75, 0.5 }, { 2, 4 }, { 0, 2 }, { false, false }, 32 },
	{ "UB over RLE", 2, { FMT_RLE, FMT_UB }, { 4, 2 }, false,
	  0.25, { 0.5, 0.5 }, { 2, 2 }, { 0, 2 }, { false, false }, 24 },
};

static void test_tile_occupancy(void)
{
	size_t i;
	unsigned r;

	for (i = 0; i < ARRAY_SIZE(tile_rows); i++) {
		struct fmt_layout lay = layout(tile_rows[i].n, tile_rows[i].k, tile_rows[i].f, 4, 4,
					       tile_rows[i].i2o);
		struct fmt_tile_occupancy occ;
		fmt_tile_occupancy(&lay, tile_rows[i].p0_data, tile_rows[i].p0_sub, &occ);
		CU_ASSERT_EQUAL(occ.n_ranks, tile_rows[i].n);
		for (r = 0; r < tile_rows[i].n; r++) {
			if (fabs(occ.rank[r].metadata_units - tile_rows[i].md[r]) > EPS ||
			    fabs(occ.rank[r].payload_units - tile_rows[i].pl[r]) > EPS)
				printf("\n%s rank %u: got (%g, %g)\n", tile_rows[i].what, r,
				       occ.rank[r].metadata_units, occ.rank[r].payload_units);
			CU_ASSERT_DOUBLE_EQUAL(occ.rank[r].metadata_units, tile_rows[i].md[r], EPS);
			CU_ASSERT_DOUBLE_EQUAL(occ.rank[r].payload_units, tile_rows[i].pl[r], EPS);
			CU_ASSERT_EQUAL(occ.empty[r], tile_rows[i].empty[r]);
		}
		CU_ASSERT_DOUBLE_EQUAL(fmt_tile_bits(&lay, &occ, true), tile_rows[i].bits, EPS);
	}
}

static void test_tile_bits(void)
{
	enum fmt_kind k[2] = { FMT_CP, FMT_UOP };
	uint64_t f[2] = { 8, 8 };
	struct fmt_layout lay = layout(2, k, f, 4, 4, false);
	struct fmt_tile_occupancy occ;

	memset(&occ, 0, sizeof(occ));
	occ.n_ranks = 2;
	occ.rank[0].metadata_units = 2.5;
	occ.rank[1].payload_units = 0.25;
	lay.payload_word_bits[1] = 8;
	CU_ASSERT_DOUBLE_EQUAL(fmt_tile_bits(&lay, &occ, false), 2.5 * 4 + 0.25 * 8, EPS);
	CU_ASSERT_DOUBLE_EQUAL(fmt_tile_bits(&lay, &occ, true), 3 * 4 + 1 * 8, EPS);
}

/* Fixed-structured P0 of the layout's tiles under "the data tile holds n". */
struct fixed_ctx {
	uint64_t points[4];    /* entry 0 = scalar ... entry R = data tile */
};

static double fixed_p_empty(void *vctx, unsigned entry, uint64_t n)
{
	const struct fixed_ctx *c = vctx;
	unsigned R = 0;
	double x;

	while (R < 3 && c->points[R + 1])
		R++;
	x = (double)(c->points[entry] * n) / (double)c->points[R];
	return x >= 1.0 ? 0.0 : 1.0 - x;
}

static void test_expected_conv1d(void)
{
	/* 03.2.1: weights tile 3, fixed 0.43: P(1) = 0.71, P(2) = 0.29; one RLE rank */
	enum fmt_kind k[1] = { FMT_RLE };
	uint64_t f[1] = { 3 };
	struct fmt_layout lay = layout(1, k, f, 8, 8, false);
	struct fixed_ctx ctx = { { 1, 3, 0, 0 } };
	double probs[2] = { 0.71, 0.29 };
	struct fmt_expected e;

	fmt_expected_occupancy(&lay, 1, 2, probs, false, fixed_p_empty, &ctx, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 1.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 1.29, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.metadata.rank[0].metadata_units, 1.29, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.metadata.rank[0].payload_units, 0.0, EPS);
}

static void test_expected_02_2_1(void)
{
	/* A@BS: fixed 0.25 on 64 points => occupancy exactly 16 */
	enum fmt_kind k[2] = { FMT_CP, FMT_UOP };
	uint64_t f[2] = { 8, 8 };
	struct fmt_layout lay = layout(2, k, f, 4, 4, false);
	struct fixed_ctx ctx = { { 1, 8, 64, 0 } };
	double probs[1] = { 1.0 };
	struct fmt_expected e;

	/* n_min = 16 > 0: nothing is dropped even when the parent has metadata */
	fmt_expected_occupancy(&lay, 16, 1, probs, true, fixed_p_empty, &ctx, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 16.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 1.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.metadata.rank[0].metadata_units, 16.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.metadata.rank[1].payload_units, 9.0, EPS);
}

static void test_expected_drop_empty(void)
{
	/* fixed 0.25 on a 1-element tile: P(0) = 0.75 dropped, P(1) renormalized to 1 */
	double probs[2] = { 0.75, 0.25 };
	double quirk[3] = { 0.0, 0.3, 0.7 };
	struct fmt_expected e;

	fmt_expected_occupancy(NULL, 0, 2, probs, true, NULL, NULL, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 0.25, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 1.0, EPS);
	fmt_expected_occupancy(NULL, 0, 2, probs, false, NULL, NULL, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 1.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 0.25, EPS);
	/* only P(0) is dropped: a tile that cannot be empty keeps its distribution
	 * (Timeloop would drop P(1) here, its first stored probability) */
	fmt_expected_occupancy(NULL, 0, 3, quirk, true, NULL, NULL, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 1.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 0.3 + 2 * 0.7, EPS);
	/* a single stored probability that is dropped leaves nothing */
	fmt_expected_occupancy(NULL, 0, 1, probs + 1, true, NULL, NULL, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.keep_ratio, 0.75, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 0.0, EPS);
}

static void test_expected_rle_distribution(void)
{
	/* RLE over a distribution: metadata = E[n] for any distribution over n */
	enum fmt_kind k[1] = { FMT_RLE };
	uint64_t f[1] = { 8 };
	struct fmt_layout lay = layout(1, k, f, 4, 8, false);
	struct fixed_ctx ctx = { { 1, 8, 0, 0 } };
	double probs[4] = { 0.1, 0.2, 0.3, 0.4 };  /* n = 2..5 */
	struct fmt_expected e;

	fmt_expected_occupancy(&lay, 2, 4, probs, false, fixed_p_empty, &ctx, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.data_occupancy, 0.2 + 0.6 + 1.2 + 2.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(e.metadata.rank[0].metadata_units, 4.0, EPS);
}

static CU_TestInfo format_tests[] = {
	{ "rank models", test_rank_models },
	{ "ELL rank (sparse_fixed axis)", test_ell_rank },
	{ "format flags", test_flags },
	{ "tensor flags", test_tensor_flags },
	{ "word bits", test_word_bits },
	{ "tile occupancy", test_tile_occupancy },
	{ "tile bits", test_tile_bits },
	{ "expected: conv1d", test_expected_conv1d },
	{ "expected: 02.2.1", test_expected_02_2_1 },
	{ "expected: drop empty", test_expected_drop_empty },
	{ "expected: RLE", test_expected_rle_distribution },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "format", .pTests = format_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
