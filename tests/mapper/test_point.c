/*
 * Tests of mapper/point.c: loop orders and X/Y splits of a factorization,
 * keep choices under capacity, and the round trip mapping -> point ->
 * mapping, including every mapping Timeloop's mapper chose in the
 * conformance corpus (it must be a point of our mapspace under the same
 * constraints).
 */
#include "mapper/mapper.h"

#include <stdio.h>
#include <string.h>

#include "mapper/mapspace_int.h"
#include "tests/mapper/fixture.h"
#include "tests/unit.h"
#include "util/diag.h"

static const struct fx_level levels[] = {
	{ "Reg", true, 8, 1, 1, 0 },
	{ "Buf", true, 64, 4, 2, 0 },
	{ "DRAM", false, 0, 1, 1, 0 },
};

/* Index of the factorization of 'dim' whose free factors are 'row'. */
static uint32_t find_choice(const struct mapper_space *ms, unsigned dim, const uint64_t *row)
{
	const struct ms_dim *dm = &ms->dim[dim];
	uint32_t r;
	for (r = 0; r < dm->n_choices; r++)
		if (!memcmp(dm->choices + (size_t)r * dm->n_free, row, dm->n_free * sizeof(*row)))
			return r;
	CU_FAIL("factorization not found");
	return 0;
}

/* Order counts: free non-trivial loops only; a prefix fixes its loops. */
static void test_order_counts(void)
{
	/* free slots of each dim: T0, S1, T1, T2 (M=8, K=4, N=2) */
	static const struct {
		const char *prefix_t0;
		uint64_t m[4], k[4], n[4];
		unsigned fn_t0, nt_s1;
		uint64_t digits_t0, digits_s1;
	} rows[] = {
		{ "", { 2, 1, 2, 2 }, { 4, 1, 1, 1 }, { 2, 1, 1, 1 }, 3, 0, 6, 1 },
		{ "", { 8, 1, 1, 1 }, { 1, 1, 4, 1 }, { 1, 1, 1, 2 }, 1, 0, 1, 1 },
		{ "K", { 2, 1, 2, 2 }, { 4, 1, 1, 1 }, { 2, 1, 1, 1 }, 2, 0, 2, 1 },
		{ "NMK", { 2, 1, 2, 2 }, { 4, 1, 1, 1 }, { 2, 1, 1, 1 }, 0, 0, 1, 1 },
		{ "", { 1, 2, 2, 2 }, { 1, 2, 1, 2 }, { 1, 2, 1, 1 }, 0, 3, 1, 24 },
		{ "", { 1, 4, 1, 2 }, { 1, 2, 2, 1 }, { 1, 1, 1, 2 }, 0, 2, 1, 6 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_set *s = fx_matmul(8, 4, 2, levels, 3);
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;
		struct ms_if fi;
		uint32_t choice[SPEC_MAX_DIMS] = { 0 };
		unsigned lvl;

		if (*rows[i].prefix_t0)
			fx_perm(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 2), rows[i].prefix_t0);
		ms = mapper_space_new(s, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		ms_if_init(&fi, ms);
		choice[FX_M] = find_choice(ms, FX_M, rows[i].m);
		choice[FX_K] = find_choice(ms, FX_K, rows[i].k);
		choice[FX_N] = find_choice(ms, FX_N, rows[i].n);
		CU_ASSERT_EQUAL(ms_if_load(ms, choice, &fi, &lvl), MAPPER_OK);
		CU_ASSERT_EQUAL(fi.n_fn[0], rows[i].fn_t0);
		CU_ASSERT_EQUAL(fi.n_nt[1], rows[i].nt_s1);
		CU_ASSERT_EQUAL(fi.n_perm_digits[0], rows[i].digits_t0);
		CU_ASSERT_EQUAL(fi.n_perm_digits[1], rows[i].digits_s1);
		ms_if_release(&fi);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* Spatial factors must fit X (4) and Y (2) apart, not only their product. */
static void test_spatial_fit(void)
{
	static const struct {
		uint64_t m_s1, k_s1, n_s1;
		enum mapper_fail want;
	} rows[] = {
		{ 4, 2, 1, MAPPER_OK },
		{ 2, 2, 2, MAPPER_OK },
		{ 8, 1, 1, MAPPER_FAIL_FANOUT },
		{ 4, 4, 1, MAPPER_FAIL_FANOUT },
		{ 1, 4, 2, MAPPER_OK },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_set *s = fx_matmul(8, 4, 2, levels, 3);
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;
		struct spec_constraint *c;
		struct ms_if fi;
		uint32_t choice[SPEC_MAX_DIMS] = { 0 };
		unsigned lvl = 99;

		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 2);
		fx_fix(c, FX_M, rows[i].m_s1);
		fx_fix(c, FX_K, rows[i].k_s1);
		fx_fix(c, FX_N, rows[i].n_s1);
		ms = mapper_space_new(s, NULL, &dl);
		if (!ms) {
			CU_ASSERT_EQUAL(rows[i].want, MAPPER_FAIL_FANOUT);
			spec_set_free(s);
			diag_list_release(&dl);
			continue;
		}
		ms_if_init(&fi, ms);
		CU_ASSERT_EQUAL(ms_if_load(ms, choice, &fi, &lvl), rows[i].want);
		if (rows[i].want != MAPPER_OK)
			CU_ASSERT_EQUAL(lvl, 1);
		ms_if_release(&fi);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* A fixed split places loops on X and Y as the permutation and split say. */
static void test_fixed_split_layout(void)
{
	struct spec_set *s = fx_matmul(8, 4, 2, levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	struct spec_constraint *c;
	struct spec_mapping m;
	struct ms_point p;
	struct ms_if fi;
	unsigned lvl, i, n_x = 0, n_y = 0, dg;
	bool any = false;

	c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 2);
	fx_fix(c, FX_M, 2);
	fx_fix(c, FX_K, 2);
	fx_fix(c, FX_N, 2);
	fx_perm(c, "K");
	c->has_split = true;
	c->split = 2;
	ms = mapper_space_new(s, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	ms_if_init(&fi, ms);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(ms_if_load(ms, p.choice, &fi, &lvl), MAPPER_OK);
	CU_ASSERT_EQUAL(fi.n_perm_digits[1], 2 * 4);
	CU_ASSERT_EQUAL(ms_if_keep_sets(ms, &fi, false, &lvl), MAPPER_OK);
	for (dg = 0; dg < fi.n_perm_digits[1]; dg++) {
		ms_perm_digit_set(&fi, 1, dg, &p);
		if (!ms_spatial_ok(ms, &fi, 1, &p))
			continue;
		/* K first, then one of M, N on X (2 * 2 <= 4); the other on Y */
		CU_ASSERT_EQUAL(p.split[1], 2);
		ms_point_mapping(ms, &fi, &p, &m);
		CU_ASSERT_EQUAL(m.levels[1].split, 2);
		CU_ASSERT_EQUAL(m.levels[1].spatial_perm[0], FX_K);
		n_x = n_y = 0;
		for (i = 0; i < m.n_loops; i++) {
			n_x += m.loops[i].spacetime == SPEC_SPATIAL_X;
			n_y += m.loops[i].spacetime == SPEC_SPATIAL_Y;
		}
		CU_ASSERT_EQUAL(n_x, 2);
		CU_ASSERT_EQUAL(n_y, 1);
		any = true;
	}
	CU_ASSERT_TRUE(any);
	ms_if_release(&fi);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Keep choices whose tiles fit: Reg holds 8 words. */
static void test_keep_sets(void)
{
	struct spec_set *s = fx_matmul(8, 4, 2, levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct ms_if fi;
	uint32_t choice[SPEC_MAX_DIMS] = { 0 };
	static const uint64_t m4[] = { 4, 1, 2, 1 }, k2[] = { 2, 1, 2, 1 }, n2[] = { 2, 1, 1, 1 };
	unsigned lvl, i;
	uint32_t seen = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	ms_if_init(&fi, ms);
	choice[FX_M] = find_choice(ms, FX_M, m4);
	choice[FX_K] = find_choice(ms, FX_K, k2);
	choice[FX_N] = find_choice(ms, FX_N, n2);
	CU_ASSERT_EQUAL(ms_if_load(ms, choice, &fi, &lvl), MAPPER_OK);
	/* Reg tiles: A 4x2 = 8, B 2x2 = 4, Z 4x2 = 8 */
	CU_ASSERT_EQUAL(fi.need[0][FX_A], 8);
	CU_ASSERT_EQUAL(fi.need[0][FX_B], 4);
	CU_ASSERT_EQUAL(fi.need[0][FX_Z], 8);
	CU_ASSERT_EQUAL(ms_if_keep_sets(ms, &fi, true, &lvl), MAPPER_OK);
	CU_ASSERT_EQUAL(fi.n_keep[0], 4);   /* {}, {A}, {B}, {Z} */
	for (i = 0; i < fi.n_keep[0]; i++)
		seen |= 1u << fi.keep[0][i];
	CU_ASSERT_EQUAL(seen, 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4);
	CU_ASSERT_EQUAL(fi.n_keep[1], 8);
	CU_ASSERT_EQUAL(fi.n_keep[2], 1);
	CU_ASSERT_EQUAL(ms_if_keep_sets(ms, &fi, false, &lvl), MAPPER_OK);
	CU_ASSERT_EQUAL(fi.n_keep[0], 8);
	ms_if_release(&fi);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Two derived mappings are the same nest with the same keep choices. */
static bool same_nest(const struct spec_mapping *a, const struct spec_mapping *b)
{
	unsigned i;

	if (a->n_loops != b->n_loops || a->n_levels != b->n_levels)
		return false;
	for (i = 0; i < a->n_loops; i++) {
		const struct spec_loop *x = &a->loops[i], *y = &b->loops[i];
		if (x->dim != y->dim || x->spacetime != y->spacetime || x->level != y->level ||
		    x->end != y->end || x->residual_end != y->residual_end)
			return false;
	}
	for (i = 0; i < a->n_levels; i++)
		if (a->levels[i].keep_mask != b->levels[i].keep_mask)
			return false;
	return true;
}

/*
 * Put the permutation each temporal constraint gives in full into 'm'.
 * In 02.2.1, 02.2.2 and 03.2.2 Timeloop's mapper chose orders at Buffer
 * that its own 'permutation' constraint rules out (NKM -> MNK, SQM -> MSQ,
 * all three loops non-trivial); everything else it chose is in our space.
 */
static void constrained_orders(const struct spec_set *s, struct spec_mapping *m)
{
	unsigned i;

	for (i = 0; i < s->constraints.n; i++) {
		const struct spec_constraint *c = &s->constraints.items[i];
		if (c->kind == SPEC_CON_TEMPORAL && c->n_perm == s->workload.n_dims)
			memcpy(m->levels[c->level].temporal_perm, c->perm, c->n_perm);
	}
	CU_ASSERT_EQUAL(spec_mapping_derive(m, &s->workload), 0);
}

/* Every reference mapping Timeloop's mapper found is a point of our mapspace. */
static void test_reference_mappings(void)
{
	static const struct {
		const char *name;
		bool orders_outside;    /* Timeloop broke its own order constraint */
	} cases[] = {
		{ "simple_output_stationary", false }, { "simple_weight_stationary", false },
		{ "eyeriss_like", false }, { "simba_like", false },
		{ "04.2.2-eyeriss-like-gating-mapspace-search", false },
		{ "04.2.1-eyeriss-like-gating", false },
		{ "04.2.3-eyeriss-like-onchip-compression", false },
		{ "sparse_tensor_core_like", false }, { "01.2.1-DUDU-dot-product", false },
		{ "01.2.2-SUDU-dot-product", false }, { "01.2.3-SCDU-dot-product", false },
		{ "02.2.1-spMspM", true }, { "02.2.2-spMspM-tiled", true },
		{ "03.2.1-conv1d", false }, { "03.2.2-conv1d+oc", true },
		{ "03.2.3-conv1d+oc-spatial", false },
	};
	const char *dir = unit_conformance_dir();
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char paths[4][1024];
		const char *argv[4] = { paths[0], paths[1], paths[2], paths[3] };
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		struct mapper_space *ms;
		struct spec_mapping m, ref;
		struct ms_point p;
		struct ms_if fi;

		snprintf(paths[0], sizeof(paths[0]), "%s/%s/input.yaml", dir, cases[i].name);
		snprintf(paths[1], sizeof(paths[1]), "%s/%s/constraints.yaml", dir, cases[i].name);
		snprintf(paths[2], sizeof(paths[2]), "%s/%s/map.yaml", dir, cases[i].name);
		snprintf(paths[3], sizeof(paths[3]), "%s/%s/ERT.yaml", dir, cases[i].name);
		s = spec_set_load(argv, 4, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL(s);
		if (!s) {
			diag_print(&dl, stderr);
			diag_list_release(&dl);
			continue;
		}
		CU_ASSERT_TRUE_FATAL(s->has_mapping);
		ms = mapper_space_new(s, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL(ms);
		if (!ms) {
			diag_print(&dl, stderr);
			spec_set_free(s);
			diag_list_release(&dl);
			continue;
		}
		ms_if_init(&fi, ms);
		ref = *s->mapping;
		CU_ASSERT_EQUAL(ms_point_from_mapping(ms, &fi, &ref, &p), cases[i].orders_outside ? -1 : 0);
		if (cases[i].orders_outside)
			constrained_orders(s, &ref);
		if (ms_point_from_mapping(ms, &fi, &ref, &p) < 0) {
			fprintf(stderr, "%s: the reference mapping is not in the mapspace\n",
				cases[i].name);
			CU_FAIL("reference mapping outside the mapspace");
		} else {
			ms_point_mapping(ms, &fi, &p, &m);
			CU_ASSERT_TRUE(same_nest(&m, &ref));
		}
		ms_if_release(&fi);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static CU_TestInfo point_tests[] = {
	{ "order counts", test_order_counts },
	{ "spatial fit", test_spatial_fit },
	{ "fixed split layout", test_fixed_split_layout },
	{ "keep sets", test_keep_sets },
	{ "reference mappings are points", test_reference_mappings },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "point", .pTests = point_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
