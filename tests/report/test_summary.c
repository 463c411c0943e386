/*
 * report/summary.c: the human summary, the CSV rows and the energy-source
 * naming.
 */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

static void evaluate(const char *preset)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct model_ws *ws;

	opt.energy_preset = preset;
	ws = model_ws_new(&tb_.s, &opt, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	model_ws_free(ws);
}

static void test_summary(void)
{
	static const char *const lines[] = {
		("Energy:         151669736.15 pJ (151.67 uJ), source ERT: DRAM shared_glb pe_spad "
		 "weight_reg input_activation_reg output_activation_reg mac\n"),
		"Cycles:         903168\n",
		"Utilization:    4.69%\n",
		"Computes:       10838016 algorithmic, 10838016 actual\n",
		"    DRAM                          70930944.00 pJ   46.77%\n",
		"Energy by tensor:\n    Weights                        1927481.41 pJ    1.27%\n",
		"    (leakage)                        17460.95 pJ    0.01%\n",
	};
	struct strbuf sb = STRBUF_INIT;
	unsigned i;

	tb_simple_weight_stationary(&tb_);
	evaluate(NULL);
	report_summary(&tb_.s, &res_, &sb);
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, lines[i]));
	/* inter_PE_spatial (no accesses, no energy) is not listed */
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "inter_PE_spatial"));
	strbuf_release(&sb);
}

static void test_energy_source(void)
{
	struct strbuf sb = STRBUF_INIT;

	tb_simple_weight_stationary(&tb_);
	evaluate(NULL);
	report_energy_source(&res_, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "ERT");
	/* without the DRAM table the preset fills in */
	tb_.levels[6].ert = NULL;
	evaluate("horowitz45");
	strbuf_reset(&sb);
	report_energy_source(&res_, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "ERT + preset horowitz45");
	/* the first line names the source of every component, outermost first */
	strbuf_reset(&sb);
	report_energy_source_by_level(&tb_.s, &res_, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "preset horowitz45: DRAM; ERT: shared_glb pe_spad weight_reg "
			       "input_activation_reg output_activation_reg mac");
	strbuf_release(&sb);
}

/* The same columns in both rows, level and tensor columns by name. */
static void test_csv(void)
{
	struct strbuf h = STRBUF_INIT, r = STRBUF_INIT;
	unsigned ch = 0, cr = 0;
	char *p;

	tb_simple_weight_stationary(&tb_);
	evaluate(NULL);
	report_csv_header(&tb_.s, &h);
	report_csv_row(&tb_.s, &res_, &r);
	for (p = h.buf; *p; p++)
		ch += *p == ',';
	for (p = r.buf; *p; p++)
		cr += *p == ',';
	CU_ASSERT_EQUAL(ch, cr);
	CU_ASSERT_EQUAL(ch, 10 + 7 + 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(h.buf, ",energy_pj.shared_glb,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h.buf, ",energy_pj.Outputs\n"));
	CU_ASSERT_EQUAL(strncmp(r.buf, "ok,151669736.15", 15), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.buf, ",903168,"));
	strbuf_release(&h);
	strbuf_release(&r);
}

static CU_TestInfo tests[] = {
	{ "summary", test_summary },
	{ "energy source", test_energy_source },
	{ "csv", test_csv },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "summary", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
