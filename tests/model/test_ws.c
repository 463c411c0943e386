/*
 * model/ws.c, model/result.c and model/pipeline.c: workspace options,
 * status and action names, copying a result, and evaluations that reuse one
 * workspace for different mappings.
 */
#include <string.h>

#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/rng.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result a_, b_;

static void test_options(void)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct model_ws *ws;

	tb_simple_weight_stationary(&tb_);
	opt.energy_preset = "accelergy99";
	CU_ASSERT_PTR_NULL(model_ws_new(&tb_.s, &opt, &err));
	CU_ASSERT_STRING_EQUAL(err.buf, "unknown energy preset 'accelergy99'");
	opt.energy_preset = "horowitz45";
	ws = model_ws_new(&tb_.s, &opt, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
	CU_ASSERT_PTR_EQUAL(model_ws_spec(ws), &tb_.s);
	model_ws_free(ws);
	model_ws_free(NULL);
	strbuf_release(&err);
}

static void test_names(void)
{
	const char *const *presets = model_energy_preset_names();
	unsigned n = 0;

	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_OK), "ok");
	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_OVER_CAPACITY), "over-capacity");
	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_STATUS_COUNT), "?");
	CU_ASSERT_STRING_EQUAL(model_op_name(MODEL_OP_SKIPPED_MD_FILL), "skipped_metadata_fill");
	CU_ASSERT_STRING_EQUAL(model_op_name(MODEL_OP_LEAK), "leak");
	CU_ASSERT_STRING_EQUAL(model_energy_source_name(MODEL_ENERGY_ERT), "ERT");
	while (presets[n])
		n++;
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_STRING_EQUAL(model_energy_preset_default(), "accelergy45");
}

/*
 * One workspace, many mappings: each result equals a fresh workspace's, so
 * nothing of one evaluation leaks into the next (caches included).
 */
static void test_reuse(void)
{
	struct model_ws *shared, *fresh;
	struct rng r;
	unsigned i, l, pv, bad = 0;

	tb_mini(&tb_);
	shared = model_ws_new(&tb_.s, NULL, NULL);
	rng_seed(&r, 99);
	for (i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL_FATAL(tb_random_mapping(&tb_, &r), 0);
		model_eval(shared, &tb_.m, &a_);
		fresh = model_ws_new(&tb_.s, NULL, NULL);
		model_eval(fresh, &tb_.m, &b_);
		model_ws_free(fresh);
		bad += a_.status != b_.status || a_.energy_pj != b_.energy_pj ||
		       a_.cycles != b_.cycles;
		for (l = 0; l < a_.n_levels && a_.status == EVAL_OK; l++)
			for (pv = 0; pv < a_.n_tensors; pv++)
				bad += memcmp(&a_.tiles[l][pv], &b_.tiles[l][pv],
					      offsetof(struct model_tile, fmt_capacity)) != 0 &&
				       a_.tiles[l][pv].is_kept;
	}
	CU_ASSERT_EQUAL(bad, 0);
	model_ws_free(shared);
}

/* A copy reports exactly what the original does. */
static void test_copy(void)
{
	static struct model_result copy;
	struct model_ws *ws;
	unsigned l;

	tb_simple_weight_stationary(&tb_);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &a_), 0);
	memset(&copy, 0xa5, sizeof(copy));
	model_result_copy(&copy, &a_);
	CU_ASSERT_EQUAL(memcmp(&copy, &a_, offsetof(struct model_result, levels)), 0);
	for (l = 0; l < a_.n_levels; l++) {
		CU_ASSERT_EQUAL(memcmp(&copy.levels[l], &a_.levels[l], sizeof(a_.levels[l])), 0);
		CU_ASSERT_EQUAL(memcmp(copy.tiles[l], a_.tiles[l], 3 * sizeof(a_.tiles[l][0])), 0);
	}
	CU_ASSERT_DOUBLE_EQUAL(copy.energy_pj, 151669736.15, 0.01);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "copying a result", test_copy },
	{ "options", test_options },
	{ "names", test_names },
	{ "a workspace is reusable", test_reuse },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ws", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
