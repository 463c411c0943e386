/* Tests of mapper/mapspace.c: tiling levels, factorizations, constraint diagnostics. */
#include "mapper/mapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/mapspace_int.h"
#include "tests/mapper/fixture.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const struct fx_level three_levels[] = {
	{ "Reg", true, 8, 1, 1, 0 },
	{ "Buf", true, 64, 2, 2, 0 },
	{ "DRAM", false, 0, 1, 1, 0 },
};

static struct spec_set *design(void)
{
	return fx_matmul(4, 6, 8, three_levels, 3);
}

static void test_tiling_levels(void)
{
	struct spec_set *s = design();
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	CU_ASSERT_EQUAL(ms->n_tl, 4);
	CU_ASSERT_EQUAL(ms->lvl[0].tl_spatial, MS_NO_TL);
	CU_ASSERT_EQUAL(ms->lvl[0].tl_temporal, 0);
	CU_ASSERT_EQUAL(ms->lvl[1].tl_spatial, 1);
	CU_ASSERT_EQUAL(ms->lvl[1].tl_temporal, 2);
	CU_ASSERT_EQUAL(ms->lvl[2].tl_temporal, 3);
	CU_ASSERT_TRUE(ms->tl[1].is_spatial);
	CU_ASSERT_EQUAL(ms->lvl[2].force_keep, 7u);
	CU_ASSERT_EQUAL(ms->lvl[0].free_mask, 7u);
	CU_ASSERT_EQUAL(ms->lvl[2].free_mask, 0u);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Constraint setups for the factorization table. */
enum setup { S_NONE, S_FIXED, S_MAX, S_ZERO };

static void apply_setup(struct spec_set *s, enum setup k)
{
	struct spec_constraint *c;

	switch (k) {
	case S_NONE:
		break;
	case S_FIXED:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3);
		fx_fix(c, FX_M, 1);
		fx_fix(c, FX_K, 1);
		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 6);
		fx_fix(c, FX_N, 1);
		break;
	case S_MAX:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3);
		c->max_mask = 1u << FX_N;
		c->max_factors[FX_N] = 2;
		break;
	case S_ZERO:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 2, 9);
		fx_fix(c, FX_M, 0);
		break;
	}
}

static void test_factorizations(void)
{
	/* Ordered factorizations over T0, S1 (each factor <= 2), T1, T2. */
	static const struct {
		enum setup setup;
		uint64_t m, k, n, total;
	} rows[] = {
		{ S_NONE, 9, 12, 16, 9 * 12 * 16 },
		{ S_FIXED, 5, 6, 10, 5 * 6 * 10 },
		{ S_MAX, 9, 12, 12, 9 * 12 * 12 },
		{ S_ZERO, 1, 12, 16, 1 * 12 * 16 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_set *s = design();
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;

		apply_setup(s, rows[i].setup);
		ms = mapper_space_new(s, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		if (mapper_space_dim_factorizations(ms, FX_M) != rows[i].m ||
		    mapper_space_dim_factorizations(ms, FX_K) != rows[i].k ||
		    mapper_space_dim_factorizations(ms, FX_N) != rows[i].n)
			fprintf(stderr, "row %zu: %llu %llu %llu\n", i,
				(unsigned long long)mapper_space_dim_factorizations(ms, FX_M),
				(unsigned long long)mapper_space_dim_factorizations(ms, FX_K),
				(unsigned long long)mapper_space_dim_factorizations(ms, FX_N));
		CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_M), rows[i].m);
		CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_K), rows[i].k);
		CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_N), rows[i].n);
		CU_ASSERT_EQUAL(mapper_space_n_factorizations(ms), rows[i].total);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* Every factorization row multiplies to the bound with the fixed factors. */
static void test_factorization_rows(void)
{
	struct spec_set *s = design();
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	unsigned d;
	uint32_t r;

	apply_setup(s, S_FIXED);
	ms = mapper_space_new(s, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	for (d = 0; d < 3; d++) {
		const struct ms_dim *dm = &ms->dim[d];
		for (r = 0; r < dm->n_choices; r++) {
			uint64_t prod = 1;
			unsigned i;
			for (i = 0; i < ms->n_tl; i++)
				prod *= ms->tl[i].fixed[d] ? ms->tl[i].fixed[d] : 1;
			for (i = 0; i < dm->n_free; i++)
				prod *= dm->choices[(size_t)r * dm->n_free + i];
			CU_ASSERT_EQUAL(prod, dm->bound);
		}
	}
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Constraint setups that leave no mapping, with the expected first error. */
enum bad {
	B_NOT_DIVIDING, B_ALL_FIXED, B_NO_FANOUT, B_BYPASS_TOP, B_KEEP_BYPASS, B_MIN_CAPACITY,
	B_MAX_SPLIT, B_SPATIAL_PRODUCT, B_CONTRADICT, B_TWO_PERMS, B_ARRANGEMENT, B_UTILIZATION,
	B_TILE_ABOVE
};

static void apply_bad(struct spec_set *s, enum bad k)
{
	struct spec_constraint *c;

	switch (k) {
	case B_NOT_DIVIDING:
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 4), FX_K, 4);
		break;
	case B_ALL_FIXED:
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 4), FX_N, 2);
		fx_fix(fx_constraint(s, SPEC_CON_SPATIAL, 1, 8), FX_N, 2);
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 1, 12), FX_N, 1);
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 2, 16), FX_N, 1);
		break;
	case B_NO_FANOUT:
		fx_fix(fx_constraint(s, SPEC_CON_SPATIAL, 0, 5), FX_M, 2);
		break;
	case B_BYPASS_TOP:
		fx_constraint(s, SPEC_CON_BYPASS, 2, 7)->bypass_mask = 1u << FX_A;
		break;
	case B_KEEP_BYPASS:
		c = fx_constraint(s, SPEC_CON_BYPASS, 0, 7);
		c->keep_mask = 1u << FX_A;
		c->bypass_mask = 1u << FX_A;
		break;
	case B_MIN_CAPACITY:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3);
		fx_fix(c, FX_M, 4);
		fx_fix(c, FX_N, 4);
		fx_constraint(s, SPEC_CON_BYPASS, 0, 11)->keep_mask = 1u << FX_Z;
		break;
	case B_MAX_SPLIT:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3);
		c->max_mask = 1u << FX_N;
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 1, 13);
		c->max_mask = 1u << FX_N;
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 2, 23);
		c->max_mask = 1u << FX_N;
		break;
	case B_SPATIAL_PRODUCT:
		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 6);
		fx_fix(c, FX_M, 2);
		fx_fix(c, FX_K, 2);
		fx_fix(c, FX_N, 2);
		break;
	case B_CONTRADICT:
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3), FX_M, 2);
		fx_fix(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 9), FX_M, 4);
		break;
	case B_TWO_PERMS:
		fx_perm(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3), "MK");
		fx_perm(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 9), "N");
		break;
	case B_ARRANGEMENT:
		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 6);
		fx_fix(c, FX_M, 2);
		fx_fix(c, FX_K, 2);
		c->has_split = true;
		c->split = 0;
		break;
	case B_UTILIZATION:
		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 6);
		fx_fix(c, FX_M, 1);
		fx_fix(c, FX_K, 1);
		fx_constraint(s, SPEC_CON_UTILIZATION, 1, 8)->min_utilization = 1.0;
		break;
	case B_TILE_ABOVE:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 2, 9);
		fx_fix(c, FX_M, 1);
		fx_fix(c, FX_K, 1);
		fx_fix(c, FX_N, 1);
		fx_constraint(s, SPEC_CON_BYPASS, 1, 11)->keep_mask = 7;
		break;
	}
}

static void test_diagnostics(void)
{
	static const struct {
		enum bad bad;
		unsigned line;
		const char *message;
	} rows[] = {
		{ B_NOT_DIVIDING, 4, "the fixed factors of dimension 'K' reach 4 here, which does not divide its bound 6" },
		{ B_ALL_FIXED, 16, "every factor of dimension 'N' is fixed, and they multiply to 4, not its bound 8" },
		{ B_NO_FANOUT, 5, "spatial factor M=2 at 'Reg', which has no fan-out" },
		{ B_BYPASS_TOP, 7, "'A' cannot bypass 'DRAM': the outermost level holds every tensor" },
		{ B_KEEP_BYPASS, 7, "'A' is both kept and bypassed at 'Reg'" },
		{ B_MIN_CAPACITY, 11, "'Reg' must keep Z, whose smallest tiles need 16 words; it holds 8" },
		{ B_MAX_SPLIT, 23, "no split of dimension 'N' (8 after fixed factors) respects its upper bounds and the fan-outs" },
		{ B_SPATIAL_PRODUCT, 6, "fixed spatial factors at 'Buf' multiply to 8, more than its fan-out 2 x 2" },
		{ B_CONTRADICT, 9, "factor M=4 at 'Reg' contradicts M=2" },
		{ B_TWO_PERMS, 9, "a second permutation for the temporal loops of 'Reg'" },
		{ B_ARRANGEMENT, 6, "the spatial factors fixed at 'Buf' fit no X/Y arrangement of its fan-out 2 x 2 under this split and order" },
		{ B_UTILIZATION, 8, "the spatial loops of 'Buf' can use at most 2 of its 4 instances, below the minimum utilization 1" },
		{ B_TILE_ABOVE, 11, "'Buf' must keep A, B, Z, whose smallest tiles need 104 words; it holds 64" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_set *s = design();
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;

		apply_bad(s, rows[i].bad);
		if (rows[i].bad == B_MAX_SPLIT) {
			unsigned k;
			for (k = 0; k < s->constraints.n; k++)
				((struct spec_constraint *)&s->constraints.items[k])->max_factors[FX_N] = 1;
		}
		/* a fixed factor that does not divide makes an imperfect split when
		 * imperfect factors are on (test_imperfect_fixed) */
		ms = mapper_space_new_imperfect(s, NULL, SPEC_IMPERFECT_OFF, &dl);
		CU_ASSERT_PTR_NULL(ms);
		CU_ASSERT_TRUE_FATAL(dl.n > 0);
		if (strcmp(dl.items[0].message, rows[i].message) || dl.items[0].loc.line != rows[i].line)
			fprintf(stderr, "row %zu: line %u: %s\n", i, dl.items[0].loc.line,
				dl.items[0].message);
		CU_ASSERT_EQUAL(dl.items[0].severity, DIAG_ERROR);
		CU_ASSERT_STRING_EQUAL(dl.items[0].message, rows[i].message);
		CU_ASSERT_EQUAL(dl.items[0].loc.line, rows[i].line);
		CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "constraints.yaml");
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/*
 * Imperfect factors: each tiling level (T0, S1 with factors <= 2, T1, T2)
 * covers the extent R left inside it with the smallest tile for a number of
 * trips, ceil(R / q). For a bound of 5: T0 takes 1, 2, 3 or 5 (R = 5, 3, 2,
 * 1 left), then S1 1 or 2, then T1 any, and T2 what is left:
 *   T0 = 1: S1 = 1 (T1 1, 2, 3, 5: 4 splits), S1 = 2 (R 3: T1 1, 2, 3: 3)  7
 *   T0 = 2: S1 = 1 (R 3: 3), S1 = 2 (R 2: T1 1, 2: 2)                       5
 *   T0 = 3: S1 = 1 (R 2: 2), S1 = 2 (R 1: 1)                                3
 *   T0 = 5: everything else 1                                                1
 * 16 in all, against 3 perfect ones (5 at T0, T1 or T2). With the same
 * counting, N3(R) = sum over S1 in {1, 2} of |candidates(ceil(R / S1))| for
 * S1, T1, T2: a bound of 11 (candidates 1 2 3 4 6 11) has N3(11) + N3(6)
 * + N3(4) + N3(3) + N3(2) + N3(1) = 10 + 7 + 5 + 5 + 3 + 1 = 31. 'auto'
 * takes imperfect factors for a bound with a prime factor above 7 only: 5,
 * 7 and K = 6 stay perfect there; 'on' makes every dimension imperfect.
 */
static void test_imperfect_rows(void)
{
	static const struct {
		enum spec_imperfect imperfect;
		uint64_t m, counts;
	} rows[] = {
		{ SPEC_IMPERFECT_OFF, 5, 3 },
		{ SPEC_IMPERFECT_AUTO, 5, 3 },      /* 7-smooth: perfect */
		{ SPEC_IMPERFECT_ON, 5, 16 },
		{ SPEC_IMPERFECT_AUTO, 4, 9 },
		{ SPEC_IMPERFECT_AUTO, 7, 3 },
		{ SPEC_IMPERFECT_OFF, 11, 3 },
		{ SPEC_IMPERFECT_AUTO, 11, 31 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_set *s = fx_matmul(rows[i].m, 6, 8, three_levels, 3);
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms = mapper_space_new_imperfect(s, NULL, rows[i].imperfect, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		if (mapper_space_dim_factorizations(ms, FX_M) != rows[i].counts)
			fprintf(stderr, "row %zu: %llu\n", i,
				(unsigned long long)mapper_space_dim_factorizations(ms, FX_M));
		CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_M), rows[i].counts);
		CU_ASSERT_EQUAL(ms->dim[FX_K].imperfect, rows[i].imperfect == SPEC_IMPERFECT_ON);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/*
 * A fixed factor that does not divide its bound (K4 at Reg for K = 6):
 * with imperfect factors it is a tile of 4 with a residual of 2, and the 2
 * tiles left go to S1, T1 or T2 (S1 = 1: T1 = 1 with T2 = 2, or T1 = 2;
 * S1 = 2): 3 splits, each with the loop [0:4,2) at Reg.
 */
static void test_imperfect_fixed(void)
{
	struct spec_set *s = design();
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	struct spec_mapping *m = xcalloc(1, sizeof(*m));
	struct ms_if fi;
	struct ms_point p;
	unsigned lvl;
	uint32_t c;

	apply_bad(s, B_NOT_DIVIDING);
	ms = mapper_space_new_imperfect(s, NULL, SPEC_IMPERFECT_AUTO, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_K), 3);
	ms_if_init(&fi, ms);
	memset(&p, 0, sizeof(p));
	for (c = 0; c < 3; c++) {
		p.choice[FX_K] = c;
		CU_ASSERT_EQUAL_FATAL(ms_if_load(ms, p.choice, &fi, &lvl), MAPPER_OK);
		CU_ASSERT_EQUAL(fi.f[0][FX_K], 4);
		CU_ASSERT_EQUAL(fi.r[0][FX_K], 2);
		CU_ASSERT_EQUAL(fi.f[1][FX_K] * fi.f[2][FX_K] * fi.f[3][FX_K], 2);
	}
	CU_ASSERT_EQUAL(ms_if_keep_sets(ms, &fi, false, &lvl), MAPPER_OK);
	p.keep[0] = p.keep[1] = p.keep[2] = 7;
	ms_point_mapping(ms, &fi, &p, m);
	CU_ASSERT(m->is_imperfect);
	CU_ASSERT_EQUAL(m->levels[0].temporal_factors[FX_K], 4);
	CU_ASSERT_EQUAL(m->levels[0].temporal_residuals[FX_K], 2);
	ms_if_release(&fi);
	free(m);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/*
 * Ruby's 'remainders: 1' at Reg (T0), M = 5, imperfect factors on: only T0
 * may leave a residual, and of 1; the other levels divide what is left
 * (the outermost that iterates covers it):
 *   T0 = 1 (R 5): S1 = 1, then T1 = 1 and T2 = 5, or T1 = 5       2
 *   T0 = 2 (residual 1, R 3): S1 = 1, then T1 = 1 or 3             2
 *   T0 = 3 has residual 2: out; T0 = 5: the rest 1                 1
 * 5 in all. A padded dimension ('pad', K = 6 with K4 fixed at T0) is
 * split perfectly over 8, the 2 tiles of 4 going to S1, T1 or T2: 3
 * splits, every mapping padding K.
 */
static void test_remainders_and_pad(void)
{
	struct spec_set *s = fx_matmul(5, 6, 8, three_levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	struct spec_constraint *c;
	struct spec_mapping *m = xcalloc(1, sizeof(*m));
	struct ms_if fi;
	struct ms_point p;
	unsigned lvl;

	c = fx_constraint(s, SPEC_CON_TEMPORAL, 0, 3);
	c->max_remainder = 1;
	fx_fix(c, FX_K, 4);
	c->pad_mask = 1u << FX_K;
	ms = mapper_space_new_imperfect(s, NULL, SPEC_IMPERFECT_ON, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_M), 5);
	CU_ASSERT_EQUAL(mapper_space_dim_factorizations(ms, FX_K), 3);
	CU_ASSERT_EQUAL(ms->dim[FX_K].bound, 8);
	CU_ASSERT_FALSE(ms->dim[FX_K].imperfect);
	ms_if_init(&fi, ms);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(ms_if_load(ms, p.choice, &fi, &lvl), MAPPER_OK);
	CU_ASSERT_EQUAL(ms_if_keep_sets(ms, &fi, false, &lvl), MAPPER_OK);
	p.keep[0] = p.keep[1] = p.keep[2] = 7;
	ms_point_mapping(ms, &fi, &p, m);
	CU_ASSERT_EQUAL(m->pad_mask, 1u << FX_K);
	CU_ASSERT_EQUAL(m->levels[0].temporal_factors[FX_K], 4);
	ms_if_release(&fi);
	free(m);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo mapspace_tests[] = {
	{ "tiling levels", test_tiling_levels },
	{ "factorization counts", test_factorizations },
	{ "factorization rows", test_factorization_rows },
	{ "constraints that leave no mapping", test_diagnostics },
	{ "imperfect factorizations", test_imperfect_rows },
	{ "an imperfect fixed factor", test_imperfect_fixed },
	{ "remainders and padding", test_remainders_and_pad },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "mapspace", .pTests = mapspace_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
