/* Tests of formats/assign.c: binding format ranks to loops (semantics 4.3.1). */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

#include "tests/unit.h"

enum { M, N, K, P = 0, S = 1 };

/* A tensor whose ranks are single dims 'd0', 'd1' (-1: absent). */
static struct spec_tensor tensor2(const char *name, int d0, int d1)
{
	struct spec_tensor t;
	int d[2] = { d0, d1 };
	unsigned i;

	memset(&t, 0, sizeof(t));
	t.name = name;
	for (i = 0; i < 2 && d[i] >= 0; i++) {
		t.ranks[i].n_terms = 1;
		t.ranks[i].terms[0].dim = (unsigned)d[i];
		t.ranks[i].terms[0].coef = 1;
		t.ranks[i].terms[0].coef_idx = -1;
		t.dim_mask |= 1u << d[i];
		t.n_ranks++;
	}
	return t;
}

/* An input with no child factors and 'n' metadata ranks in outer_to_inner order. */
static struct fmt_assign_in input(const struct spec_tensor *t, const struct fmt_loop *loops,
				  unsigned n_loops, unsigned n_ranks)
{
	struct fmt_assign_in in;

	memset(&in, 0, sizeof(in));
	in.tensor = t;
	in.loops = loops;
	in.n_loops = n_loops;
	in.n_ranks = n_ranks;
	in.has_metadata = true;
	return in;
}

/* Expected binding of one rank. */
struct want {
	int first_loop;
	unsigned n_loops;
	uint64_t fiber, tile;
};

static void check(const char *what, const struct fmt_assign *a, const struct want *w, unsigned n)
{
	unsigned r;

	CU_ASSERT_EQUAL(a->n_ranks, n);
	for (r = 0; r < n; r++) {
		const struct fmt_rank_binding *b = &a->rank[r];
		if (b->first_loop != w[r].first_loop || b->n_loops != w[r].n_loops ||
		    b->fiber_shape != w[r].fiber || b->tile_points != w[r].tile)
			printf("\n%s rank %u: got loop %d x%u fiber %llu tile %llu\n", what, r,
			       b->first_loop, b->n_loops, (unsigned long long)b->fiber_shape,
			       (unsigned long long)b->tile_points);
		CU_ASSERT_EQUAL(b->first_loop, w[r].first_loop);
		CU_ASSERT_EQUAL(b->n_loops, w[r].n_loops);
		CU_ASSERT_EQUAL(b->fiber_shape, w[r].fiber);
		CU_ASSERT_EQUAL(b->tile_points, w[r].tile);
	}
}

/* 02.2.1 mapper mapping: Buffer M8 N8 K8 (M innermost), BackingStorage M1 N1 K1. */
static const struct fmt_loop nest_0221[] = {
	{ M, 8 }, { N, 8 }, { K, 8 }, { M, 1 }, { N, 1 }, { K, 1 },
};

static void test_0221_A_at_backing(void)
{
	/* A bypasses Buffer: no child; rank 1 (UOP) <- K8, rank 0 (CP) <- M8 */
	struct spec_tensor A = tensor2("A", M, K);
	struct fmt_assign_in in = input(&A, nest_0221, 6, 2);
	struct fmt_assign a;
	const struct want w[2] = { { 0, 1, 8, 8 }, { 2, 2, 8, 64 } };

	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("A@BS", &a, w, 2);
	CU_ASSERT_EQUAL(a.rank[1].tile_extent[0], 8);
	CU_ASSERT_EQUAL(a.rank[1].tile_extent[1], 8);
	CU_ASSERT_EQUAL(a.rank[0].tile_extent[0], 8);
	CU_ASSERT_EQUAL(a.rank[0].tile_extent[1], 1);
	CU_ASSERT_EQUAL(fmt_count_rank_loops(&in), 2);

	/* one rank with metadata is not enough */
	in.n_ranks = 1;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_MORE_RANKS_NEEDED);
	/* without metadata the single rank takes every loop */
	in.has_metadata = false;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	CU_ASSERT_EQUAL(a.rank[0].fiber_shape, 64);
	CU_ASSERT_EQUAL(a.rank[0].tile_points, 64);
}

static void test_0221_B_pretiled(void)
{
	/* B[N,K] at Buffer: rank 1 <- K8, rank 0 <- N8; at BS pre-tiled from Buffer */
	struct spec_tensor B = tensor2("B", N, K);
	struct fmt_assign_in in = input(&B, nest_0221, 3, 2);
	struct fmt_assign buf, bs;
	const struct want w[2] = { { 1, 2, 8, 8 }, { 2, 1, 8, 64 } };
	const struct want wbs[2] = { { -1, 0, 8, 8 }, { -1, 0, 8, 64 } };
	enum fmt_kind kinds[2] = { FMT_CP, FMT_UOP };

	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &buf), FMT_ASSIGN_OK);
	check("B@Buffer", &buf, w, 2);

	CU_ASSERT_TRUE(fmt_pretiling_required(true, true, buf.rank[1].tile_points));
	CU_ASSERT_EQUAL(fmt_pretiling_check(kinds, 2, kinds, 2), FMT_ASSIGN_OK);
	in = input(&B, nest_0221 + 3, 3, 2);
	in.child_factor[M] = 8;
	in.child_factor[N] = 8;
	in.child_factor[K] = 8;
	in.pretiled = &buf;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &bs), FMT_ASSIGN_OK);
	check("B@BS", &bs, wbs, 2);
}

static void test_0222_B(void)
{
	/* 02.2.2: Buffer M8 N2 K8 (M innermost), BackingStorage N4 M1 K1 (N innermost) */
	static const struct fmt_loop buf_loops[] = { { M, 8 }, { N, 2 }, { K, 8 } };
	static const struct fmt_loop bs_loops[] = { { N, 4 }, { M, 1 }, { K, 1 } };
	struct spec_tensor B = tensor2("B", N, K);
	struct fmt_assign_in in = input(&B, buf_loops, 3, 2);
	struct fmt_assign buf, bs;
	const struct want w[2] = { { 1, 2, 2, 2 }, { 2, 1, 8, 16 } };
	const struct want wbs[3] = { { -1, 0, 2, 2 }, { -1, 0, 8, 16 }, { 0, 1, 4, 64 } };

	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &buf), FMT_ASSIGN_OK);
	check("02.2.2 B@Buffer", &buf, w, 2);

	in = input(&B, bs_loops, 3, 3);
	in.child_factor[M] = 8;
	in.child_factor[N] = 2;
	in.child_factor[K] = 8;
	in.pretiled = &buf;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &bs), FMT_ASSIGN_OK);
	check("02.2.2 B@BS", &bs, wbs, 3);
	CU_ASSERT_EQUAL(bs.rank[2].tile_extent[0], 8);
	CU_ASSERT_EQUAL(bs.rank[2].tile_extent[1], 8);

	/* two ranks at BS cannot hold the child's two plus N4 */
	in.n_ranks = 2;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &bs), FMT_ASSIGN_MORE_RANKS_NEEDED);
	/* and fewer ranks than the child is a pre-tiling failure */
	in.n_ranks = 1;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &bs), FMT_ASSIGN_PRETILE_RANKS);
}

static void test_child_factor_folding(void)
{
	/* no pre-tiling: the innermost loop of each dim absorbs the child's factors */
	static const struct fmt_loop loops[] = { { N, 1 }, { K, 2 }, { M, 4 } };
	struct spec_tensor B = tensor2("B", N, K);
	struct fmt_assign_in in = input(&B, loops, 3, 2);
	struct fmt_assign a;
	const struct want w[2] = { { 0, 1, 8, 32 }, { 1, 1, 8, 64 } };

	in.child_factor[N] = 8;
	in.child_factor[K] = 4;
	CU_ASSERT_EQUAL(fmt_count_rank_loops(&in), 2);
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("folded", &a, w, 2);
}

static void test_flatten(void)
{
	struct spec_tensor A = tensor2("A", M, K);
	struct fmt_assign_in in = input(&A, nest_0221, 6, 1);
	struct fmt_assign a;
	const struct want w1[1] = { { 2, 3, 64, 64 } };
	const struct want w3[3] = { { 0, 1, 8, 8 }, { 2, 2, 8, 64 }, { -1, 0, 1, 64 } };

	/* one CP rank flattening M and K takes K8, (N8,) M8 */
	in.n_flatten_groups[0] = 1;
	in.flatten_groups[0][0] = (1u << M) | (1u << K);
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("flattened", &a, w1, 1);

	/* a top rank that only accepts M stays empty; the others take K8 and M8 */
	memset(in.n_flatten_groups, 0, sizeof(in.n_flatten_groups));
	in.n_ranks = 3;
	in.n_flatten_groups[2] = 1;
	in.flatten_groups[2][0] = 1u << M;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("flatten mismatch", &a, w3, 3);

	/* with two ranks the M8 loop is left over */
	in.n_ranks = 2;
	in.n_flatten_groups[2] = 0;
	in.n_flatten_groups[1] = 1;
	in.flatten_groups[1][0] = 1u << M;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_MORE_RANKS_NEEDED);
}

static void test_inner_to_outer(void)
{
	struct spec_tensor A = tensor2("A", M, K);
	struct fmt_assign_in in = input(&A, nest_0221, 6, 3);
	struct fmt_assign a;
	/* rank 0 <- M8 (N8 passes through), rank 1 <- K8, rank 2 a dummy on top */
	const struct want w[3] = { { 0, 2, 8, 8 }, { 2, 4, 8, 64 }, { -1, 0, 1, 64 } };

	in.inner_to_outer = true;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("inner_to_outer", &a, w, 3);
	in.n_ranks = 1;
	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_MORE_RANKS_NEEDED);
}

static void test_outer_leftover_dummies(void)
{
	/* outer_to_inner with spare ranks: the innermost ones are dummies (scalar tiles) */
	struct spec_tensor A = tensor2("A", M, K);
	struct fmt_assign_in in = input(&A, nest_0221, 6, 4);
	struct fmt_assign a;
	const struct want w[4] = { { -1, 0, 1, 1 }, { -1, 0, 1, 1 }, { 0, 1, 8, 8 },
				   { 2, 2, 8, 64 } };

	CU_ASSERT_EQUAL(fmt_assign_ranks(&in, &a), FMT_ASSIGN_OK);
	check("dummies", &a, w, 4);
}

static void test_box_points(void)
{
	/* conv1d Inputs[W = P + S]: a P9 x S3 box projects to 11 points (hull) */
	struct spec_tensor in;
	uint64_t dims[SPEC_MAX_DIMS] = { 9, 3 }, ext[SPEC_MAX_TENSOR_RANKS];

	memset(&in, 0, sizeof(in));
	in.name = "Inputs";
	in.n_ranks = 1;
	in.ranks[0].n_terms = 2;
	in.ranks[0].terms[0] = (struct spec_term){ P, -1, 1 };
	in.ranks[0].terms[1] = (struct spec_term){ S, -1, 1 };
	in.dim_mask = 3;
	CU_ASSERT_EQUAL(fmt_box_points(&in, dims, ext), 11);
	CU_ASSERT_EQUAL(ext[0], 11);
	/* a stride of 2 on P: 2 (9 - 1) + 3 = 19, holes counted */
	in.ranks[0].terms[0].coef = 2;
	CU_ASSERT_EQUAL(fmt_box_points(&in, dims, NULL), 19);
}

static const struct {
	unsigned n, n_child;
	enum fmt_kind k[3], ck[3];
	enum fmt_assign_status st;
} pretile_rows[] = {
	{ 3, 2, { FMT_CP, FMT_UOP, FMT_UOP }, { FMT_CP, FMT_UOP }, FMT_ASSIGN_OK },
	{ 2, 2, { FMT_CP, FMT_UOP }, { FMT_CP, FMT_UOP }, FMT_ASSIGN_OK },
	{ 2, 3, { FMT_CP, FMT_UOP }, { FMT_CP, FMT_UOP, FMT_UOP }, FMT_ASSIGN_PRETILE_RANKS },
	{ 2, 2, { FMT_B, FMT_UOP }, { FMT_CP, FMT_UOP }, FMT_ASSIGN_PRETILE_FORMATS },
	{ 2, 1, { FMT_CP, FMT_UOP }, { FMT_RLE }, FMT_ASSIGN_PRETILE_FORMATS },
	/* an uncompressed child need not match */
	{ 2, 1, { FMT_CP, FMT_UOP }, { FMT_UOP }, FMT_ASSIGN_OK },
};

static void test_pretiling(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pretile_rows); i++)
		CU_ASSERT_EQUAL(fmt_pretiling_check(pretile_rows[i].k, pretile_rows[i].n,
						    pretile_rows[i].ck, pretile_rows[i].n_child),
				pretile_rows[i].st);
	CU_ASSERT_TRUE(fmt_pretiling_required(true, true, 64));
	CU_ASSERT_FALSE(fmt_pretiling_required(true, true, 1));
	CU_ASSERT_FALSE(fmt_pretiling_required(true, false, 64));
	CU_ASSERT_FALSE(fmt_pretiling_required(false, true, 64));
	CU_ASSERT_STRING_EQUAL(fmt_assign_status_str(FMT_ASSIGN_MORE_RANKS_NEEDED),
			       "more compression ranks needed");
}

static CU_TestInfo assign_tests[] = {
	{ "02.2.1 A at BackingStorage", test_0221_A_at_backing },
	{ "02.2.1 B pre-tiled", test_0221_B_pretiled },
	{ "02.2.2 B pre-tiled with an extra rank", test_0222_B },
	{ "child factors folded", test_child_factor_folding },
	{ "flattened_rankIDs", test_flatten },
	{ "inner_to_outer", test_inner_to_outer },
	{ "leftover dummy ranks", test_outer_leftover_dummies },
	{ "box points", test_box_points },
	{ "pre-tiling", test_pretiling },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "assign", .pTests = assign_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
