/*
 * report/fmt.c: Timeloop's label columns and two-decimal numbers.
 */
#include <string.h>

#include "report/report_int.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static void test_lines(void)
{
	static const struct { unsigned indent, width; const char *label; double v;
			      const char *unit; const char *want; } rows[] = {
		{ 8, 41, "Energy (total)", 1387266.0525, " pJ",
		  "        Energy (total)                           : 1387266.05 pJ\n" },
		{ 4, 21, "Bandwidth throttling", 1, NULL, "    Bandwidth throttling : 1.00\n" },
		{ 0, 4, "a label longer than the width", 0.005, "%",
		  "a label longer than the width: 0.01%\n" },
		{ 4, 10, "x", 0.315, " pJ", "    x         : 0.32 pJ\n" },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf sb = STRBUF_INIT;
		report_dbl(&sb, rows[i].indent, rows[i].width, rows[i].label, rows[i].v, rows[i].unit);
		CU_ASSERT_STRING_EQUAL(sb.buf, rows[i].want);
		strbuf_release(&sb);
	}
}

static void test_int_and_text(void)
{
	struct strbuf sb = STRBUF_INIT;

	report_int(&sb, 8, 32, "Size", 65536);
	report_str(&sb, 8, 32, "Size", "-");
	CU_ASSERT_STRING_EQUAL(sb.buf,
			       "        Size                            : 65536\n"
			       "        Size                            : -\n");
	strbuf_release(&sb);
}

static void test_sources(void)
{
	struct model_result r;
	char buf[64];

	memset(&r, 0, sizeof(r));
	r.levels[0].energy_source = MODEL_ENERGY_PRESET;
	r.energy_preset = "accelergy45";
	r.levels[1].energy_source = MODEL_ENERGY_ERT;
	CU_ASSERT_STRING_EQUAL(report_level_source(&r, 0, buf, sizeof(buf)), "preset:accelergy45");
	CU_ASSERT_STRING_EQUAL(report_level_source(&r, 1, buf, sizeof(buf)), "ERT");
}

static void test_tile_energy(void)
{
	struct model_tile t;

	memset(&t, 0, sizeof(t));
	t.energy_total_pj = 10;
	t.temporal_reduction_energy_pj = 1;
	t.avg_replication = 4;
	t.addr_gen_energy_pj = 0.5;
	t.utilized_clusters = 2;
	CU_ASSERT_DOUBLE_EQUAL(report_tile_energy(&t), 0, 0);      /* bypassed */
	t.is_kept = true;
	CU_ASSERT_DOUBLE_EQUAL(report_tile_energy(&t), 10 + 4 + 1, 1e-12);
}

static CU_TestInfo tests[] = {
	{ "label lines with numbers", test_lines },
	{ "integers and text", test_int_and_text },
	{ "energy sources", test_sources },
	{ "tile energy", test_tile_energy },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "fmt", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
