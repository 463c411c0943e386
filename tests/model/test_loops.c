/*
 * model/loops.c: strides, molds, masters, level blocks and spatial counts of
 * simple_weight_stationary's mapping (semantics 2.1, 2.2, worked example 2.6.2).
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

enum { C, M, R, S, N, P, Q };

static struct tb tb_;

/*
 * The non-trivial loops of the mapping, inner to outer (trivial filler loops
 * of the register levels and of inter_PE_spatial included).
 */
static void test_loop_table(void)
{
	static const struct {
		unsigned dim, level;
		uint64_t end, stride;
		bool spatial, boundary, master;
	} rows[] = {
		{ Q, 0, 1, 1, false, true, false },    /* output_activation_reg: filler */
		{ Q, 1, 1, 1, false, true, false },    /* input_activation_reg: filler */
		{ Q, 2, 4, 1, false, false, false },   /* weight_reg Q4 */
		{ P, 2, 28, 1, false, true, false },   /* weight_reg P28 */
		{ P, 3, 2, 28, false, false, false },  /* pe_spad P2 */
		{ Q, 3, 2, 4, false, false, false },   /* pe_spad Q2 */
		{ R, 3, 3, 1, false, true, false },    /* pe_spad R3 */
		{ C, 4, 3, 1, true, false, false },    /* spatial C3 */
		{ M, 4, 4, 1, true, false, true },     /* spatial M4: master */
		{ Q, 4, 1, 8, false, true, false },    /* inter_PE_spatial filler */
		{ M, 5, 8, 4, false, false, false },   /* shared_glb M8 */
		{ P, 5, 2, 56, false, false, false },  /* shared_glb P2 */
		{ S, 5, 3, 1, false, true, false },    /* shared_glb S3 */
		{ Q, 6, 14, 8, false, true, false },   /* DRAM Q14 */
	};
	struct model_ws *ws;
	unsigned i;

	tb_simple_weight_stationary(&tb_);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	model_loops_prepare(ws, &tb_.m);
	CU_ASSERT_EQUAL_FATAL(ws->n_loops, ARRAY_SIZE(rows));
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct mloop *lp = &ws->loops[i];
		CU_ASSERT_EQUAL(lp->dim, rows[i].dim);
		CU_ASSERT_EQUAL(lp->level, rows[i].level);
		CU_ASSERT_EQUAL(lp->end, rows[i].end);
		CU_ASSERT_EQUAL(lp->stride, rows[i].stride);
		CU_ASSERT_EQUAL(lp->is_spatial, rows[i].spatial);
		CU_ASSERT_EQUAL(lp->is_boundary, rows[i].boundary);
		CU_ASSERT_EQUAL(lp->is_master, rows[i].master);
	}
	model_ws_free(ws);
}

/* Working-set extents, level blocks, fan-outs and replication. */
static void test_levels(void)
{
	struct model_ws *ws;

	tb_simple_weight_stationary(&tb_);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	model_loops_prepare(ws, &tb_.m);
	/* pe_spad's boundary (R3): Q 4*2, P 28*2, R 3 */
	CU_ASSERT_EQUAL(ws->loops[6].extent[Q], 8);
	CU_ASSERT_EQUAL(ws->loops[6].extent[P], 56);
	CU_ASSERT_EQUAL(ws->loops[6].extent[R], 3);
	CU_ASSERT_EQUAL(ws->loops[6].extent[M], 1);
	/* the master spatial loop covers both spatial loops */
	CU_ASSERT_EQUAL(ws->loops[8].extent[M], 4);
	CU_ASSERT_EQUAL(ws->loops[8].extent[C], 3);
	CU_ASSERT_EQUAL(ws->loops[8].logical_fanout, 12);
	CU_ASSERT_EQUAL(ws->loops[8].fanout_y, 12);
	CU_ASSERT_EQUAL(ws->loops[8].fanout_x, 1);
	CU_ASSERT_EQUAL(ws->loops[8].group_lo, 7);
	/* inter_PE_spatial: block 7..9, innermost valid loop = the master */
	CU_ASSERT_EQUAL(ws->lv[4].first, 7);
	CU_ASSERT_EQUAL(ws->lv[4].boundary, 9);
	CU_ASSERT_EQUAL(ws->lv[4].in, 8);
	CU_ASSERT(ws->lv[4].has_master);
	CU_ASSERT_EQUAL(ws->lv[5].in, 10);
	/* every PE level sees the 12 spatial instances above it */
	CU_ASSERT_EQUAL(ws->lv[3].max_y, 12);
	CU_ASSERT_EQUAL(ws->lv[3].max_x, 1);
	CU_ASSERT_EQUAL(ws->lv[5].max_y, 1);
	CU_ASSERT_DOUBLE_EQUAL(ws->loops[6].utilized_spatial_elems, 12.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ws->compute_replication, 12.0, 1e-12);
	CU_ASSERT_EQUAL(ws->max_temporal_iterations, 903168);
	CU_ASSERT_EQUAL(model_loops_temporal_product(ws), 903168);
	model_ws_free(ws);
}

/* A residual: molds on the last iteration and the averaged utilization. */
static void test_residuals(void)
{
	struct model_ws *ws;

	tb_init(&tb_);
	tb_dim(&tb_, "K", 10);
	tb_tensor(&tb_, "A", false, "K");
	tb_tensor(&tb_, "Z", true, "K");
	tb_compute(&tb_, "mac", 4, 1);
	tb_level(&tb_, "reg", 16, 16, 16, 4, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_keep(&tb_, 0, "A Z");
	tb_spatial(&tb_, 1, "K4,2", "K", 1);        /* 4 PEs, 2 on the last pass */
	tb_temporal(&tb_, 1, "K3", "K");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT(tb_.m.is_imperfect);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	model_loops_prepare(ws, &tb_.m);
	/* loops: reg filler (K1), spatial K4 (residual 2), buf K3 */
	CU_ASSERT_EQUAL_FATAL(ws->n_loops, 3);
	CU_ASSERT_EQUAL(ws->loops[1].extent[0], 4);
	CU_ASSERT_EQUAL(ws->loops[1].extent_res[0], 2);
	CU_ASSERT_EQUAL(ws->loops[2].extent[0], 12);
	CU_ASSERT_EQUAL(ws->loops[2].extent_res[0], 10);
	/* 4 PEs on 2 passes, 2 on the third: (2 + 4 * (3 - 1)) / 3 on average */
	CU_ASSERT_DOUBLE_EQUAL(ws->loops[0].utilized_spatial_elems, 10.0 / 3.0, 1e-12);
	CU_ASSERT(ws->loops[2].dim_imperfect_below);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "loop table of simple_weight_stationary", test_loop_table },
	{ "molds, blocks, fan-outs, replication", test_levels },
	{ "residual molds and utilization", test_residuals },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "loops", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
