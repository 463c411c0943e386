/*
 * model/collapse.c: partitions, parent shares, bypass masking and first-read
 * elision, on simple_weight_stationary (the worked example of semantics
 * 2.6.2) and on variants of its mapping directives.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

enum { WEIGHTS, INPUTS, OUTPUTS };

static struct tb tb_;
static struct model_result res_;

static void evaluate(void)
{
	struct model_ws *ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	model_ws_free(ws);
}

/* Semantics 2.6.2: every level of every tensor. */
static void test_worked_example(void)
{
	static const struct {
		unsigned l, pv;
		bool kept;
		uint64_t shape, partition, reads, fills, updates, tr;
		double share;
	} rows[] = {
		{ 0, OUTPUTS, true, 1, 100352, 802816, 802816, 903168, 802816, 903168 },
		{ 1, INPUTS, true, 1, 50625, 903168, 903168, 0, 0, 903168 },
		{ 2, WEIGHTS, true, 1, 72, 903168, 2016, 0, 0, 2016 },
		{ 3, WEIGHTS, true, 3, 72, 2016, 2016, 0, 0, 2016 },
		{ 4, WEIGHTS, false, 0, 0, 0, 0, 0, 0, 0 },
		{ 5, WEIGHTS, true, 864, 864, 24192, 864, 0, 0, 864 },
		{ 5, INPUTS, true, 11475, 151875, 2709504, 151875, 0, 0, 151875 },
		{ 5, OUTPUTS, true, 28672, 401408, 3211264, 0, 3612672, 3211264, 401408 },
		{ 6, WEIGHTS, true, 864, 864, 864, 0, 0, 0, 0 },
		{ 6, INPUTS, true, 151875, 151875, 151875, 0, 0, 0, 0 },
		{ 6, OUTPUTS, true, 401408, 401408, 0, 0, 401408, 0, 0 },
	};
	unsigned i;

	tb_simple_weight_stationary(&tb_);
	evaluate();
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct model_tile *t = &res_.tiles[rows[i].l][rows[i].pv];
		CU_ASSERT_EQUAL(t->is_kept, rows[i].kept);
		CU_ASSERT_EQUAL(t->shape, rows[i].shape);
		CU_ASSERT_EQUAL(t->partition_size, rows[i].partition);
		CU_ASSERT_EQUAL(t->reads, rows[i].reads);
		CU_ASSERT_EQUAL(t->fills, rows[i].fills);
		CU_ASSERT_EQUAL(t->updates, rows[i].updates);
		CU_ASSERT_EQUAL(t->temporal_reductions, rows[i].tr);
		CU_ASSERT_DOUBLE_EQUAL(t->parent_access_share, rows[i].share, 1e-6);
	}
	/* nearest kept levels: output_reg's parent is shared_glb (levels 1-4 bypass) */
	CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].parent_level, 5);
	CU_ASSERT_EQUAL(res_.tiles[5][OUTPUTS].child_level, 0);
	CU_ASSERT_EQUAL(res_.tiles[6][OUTPUTS].parent_level, -1);
	CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].child_level, -1);
	/* after masking, shared_glb serves the 12 PEs' outputs directly (x3: C) */
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[5][OUTPUTS].content_accesses, 3612672, 1e-6);
}

/* The first-read elision variants of semantics 2.6 step 7 (Outputs at output_reg). */
static void test_rmw_variants(void)
{
	static const struct {
		bool rmw_first_update, no_coalesce;
		uint64_t reads, fills, updates;
	} rows[] = {
		{ false, false, 802816, 802816, 903168 },   /* elision: minus the partition */
		{ true, false, 903168, 903168, 903168 },    /* rmw_first_update: no elision */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		tb_simple_weight_stationary(&tb_);
		if (rows[i].rmw_first_update)
			tb_.m.levels[0].rmw_first_update_mask = 1u << OUTPUTS;
		evaluate();
		CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].reads, rows[i].reads);
		CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].fills, rows[i].fills);
		CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].updates, rows[i].updates);
		CU_ASSERT_EQUAL(res_.tiles[0][OUTPUTS].temporal_reductions, rows[i].reads);
	}
}

/*
 * Keeping Weights in the register level below pe_spad only (bypassing
 * pe_spad): the parent share of weight_reg then comes from the masked
 * accesses of shared_glb, and shared_glb's reads grow to what pe_spad read.
 */
static void test_bypass_moves_accesses_up(void)
{
	tb_simple_weight_stationary(&tb_);
	tb_.m.levels[3].keep_mask = 0;        /* pe_spad bypasses Weights */
	evaluate();
	CU_ASSERT_FALSE(res_.tiles[3][WEIGHTS].is_kept);
	CU_ASSERT_EQUAL(res_.tiles[2][WEIGHTS].parent_level, 5);
	/* weight_reg still refills 2016 times per PE; shared_glb now serves them:
	 * 12 PEs x 2016 = 24192 words, none multicast (C and M index Weights) */
	CU_ASSERT_EQUAL(res_.tiles[2][WEIGHTS].fills, 2016);
	CU_ASSERT_EQUAL(res_.tiles[5][WEIGHTS].reads, 24192);
	/* weight_reg's partition now divides shared_glb's 864 among 12 PEs */
	CU_ASSERT_EQUAL(res_.tiles[2][WEIGHTS].partition_size, 72);
}

static CU_TestInfo tests[] = {
	{ "worked example (semantics 2.6.2)", test_worked_example },
	{ "read-modify-write variants", test_rmw_variants },
	{ "bypass moves accesses up", test_bypass_moves_accesses_up },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "collapse", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
