/*
 * report/map.c: Timeloop's map.txt, byte for byte on the dense conformance
 * designs, plus residual and spatial loop suffixes.
 */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct model_result res_;
static struct tb tb_;

static void test_conformance(void)
{
	static const char *const cases[] = {
		"simple_weight_stationary", "simple_output_stationary", "eyeriss_like",
		"simba_like", "sparse_tensor_core_like", "01.2.1-DUDU-dot-product",
	};
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	unsigned c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		char ref[1024];
		struct strbuf want = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
		struct spec_set *s;
		struct model_ws *ws;
		snprintf(ref, sizeof(ref), "%s/%s/ref.map.txt", unit_conformance_dir(), cases[c]);
		s = unit_load_case(cases[c], files, 3, true);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(fileio_read(ref, &want, &err), 0);
		ws = model_ws_new(s, NULL, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, &res_), 0);
		report_map_txt(s, s->mapping, &res_, &got);
		CU_ASSERT_STRING_EQUAL(got.buf, want.buf);
		model_ws_free(ws);
		spec_set_free(s);
		strbuf_release(&want);
		strbuf_release(&got);
		strbuf_release(&err);
	}
}

/* Residual ends print as [0:end,residual); spatial loops get their axis. */
static void test_suffixes(void)
{
	static const char *const want =
		"buf [ A:10 (10) Z:1 (1) ] \n"
		"-------------------------\n"
		"| for K in [0:3)\n"
		"|   for K in [0:4,2) (Spatial-X)\n"
		"\n"
		"reg [ A:1 (1) Z:1 (1) ] \n"
		"-----------------------\n"
		"|     << Compute >>\n";
	struct strbuf got = STRBUF_INIT;
	struct model_ws *ws;

	tb_init(&tb_);
	tb_dim(&tb_, "K", 10);
	tb_dim(&tb_, "M", 1);
	tb_tensor(&tb_, "A", false, "K");
	tb_tensor(&tb_, "Z", true, "M");
	tb_compute(&tb_, "mac", 4, 1);
	tb_level(&tb_, "reg", 16, 16, 16, 4, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_keep(&tb_, 0, "A Z");
	tb_spatial(&tb_, 1, "K4,2", "K", 1);
	tb_temporal(&tb_, 1, "K3", "K");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	report_map_txt(&tb_.s, &tb_.m, &res_, &got);
	CU_ASSERT_STRING_EQUAL(got.buf, want);
	if (strcmp(got.buf, want))
		fprintf(stderr, "%s", got.buf);
	model_ws_free(ws);
	strbuf_release(&got);
}

static CU_TestInfo tests[] = {
	{ "dense conformance designs equal Timeloop's", test_conformance },
	{ "residual and spatial suffixes", test_suffixes },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "map", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
