/*
 * Plots as gnuplot scripts: one data block per series with its points
 * sorted by x, a panel per y column under one title, series labels from
 * several columns, a text x column as categories in order of appearance,
 * rows without a y left out, the level bars with the computes on top, log
 * axes, and the errors for a column the table lacks.
 */
#include "report/report.h"

#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/table.h"

/* density (real), fmt (text), saf (text), energy_pj (real), cycles (int), two levels. */
static void make(struct table *t)
{
	static const char *const rows[][7] = {
		{ "0.4", "CSR", "skip", "40", "400", "30", "10" },
		{ "0.1", "CSR", "skip", "10", "100", "7", "3" },
		{ "0.1", "B", "gate", "12", NULL, "8", "4" },
		{ "0.4", "B", "gate", "35", "350", "25", "10" },
	};
	static const char *const cols[] = { "density", "fmt", "saf", "energy_pj", "cycles",
					    "energy_pj.DRAM", "energy_pj.Buf" };
	static const enum table_type types[] = { TABLE_REAL, TABLE_TEXT, TABLE_TEXT, TABLE_REAL,
						 TABLE_INT, TABLE_REAL, TABLE_REAL };
	size_t r, c;

	for (c = 0; c < 7; c++)
		table_add_col(t, cols[c]);
	table_add_col(t, "compute_energy_pj");
	for (r = 0; r < 4; r++) {
		table_add_row(t);
		for (c = 0; c < 7; c++)
			table_set(t, r, c, types[c], rows[r][c]);
		table_set(t, r, 7, TABLE_REAL, "1");
	}
}

static void test_lines(void)
{
	static const char *const ys[] = { "energy_pj", "cycles" }, *const series[] = { "fmt", "saf" };
	struct report_plot p = { "density", ys, 2, series, 2, REPORT_LOG_X | REPORT_LOG_Y,
				 "A title", REPORT_IMAGE_PNG, "energy_pj", NULL, NULL, NULL, NULL };
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	make(&t);
	CU_ASSERT_EQUAL_FATAL(report_plot_gnuplot(&t, &p, &sb, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set terminal pngcairo size 900,840 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set logscale x\nset logscale y\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set multiplot layout 2,1 title 'A title'\n"));
	/* energy: CSR skip sorted by x, then B gate */
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$p0s0 << EOD\n0.10000000000000001 10\n"
					      "0.40000000000000002 40\nEOD\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$p0s1 << EOD\n0.10000000000000001 12\n"
					      "0.40000000000000002 35\nEOD\n"));
	/* cycles: B gate has no value at 0.1 */
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$p1s1 << EOD\n0.40000000000000002 350\nEOD\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "title 'CSR skip'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "title 'B gate'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set ylabel 'cycles'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "unset multiplot\n"));
	/* a colour-blind-safe colour per series, lines for a numeric x */
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set linetype 1 lc rgb '#332288' "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set linetype 2 lc rgb '#CC6677' "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set linetype 11 lc rgb '#332288' lw 1.5 dt 2 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$p0s1 using 1:2 with linespoints lt 2 title 'B gate'"));
	strbuf_release(&sb);
	strbuf_release(&err);
	table_release(&t);
}

static void test_categories_and_levels(void)
{
	static const char *const ys[] = { "energy_pj" }, *const levels[] = { "levels" };
	struct report_plot p = { "fmt", ys, 1, NULL, 0, 0, NULL, REPORT_IMAGE_SVG, "energy_pj",
				 NULL, NULL, NULL, NULL };
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	make(&t);
	CU_ASSERT_EQUAL_FATAL(report_plot_gnuplot(&t, &p, &sb, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set terminal svg size 900,480 "));
	/* categories in order of appearance, as bars from 0 (the first row of each) */
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$p0 << EOD\n\"CSR\" 40\n\"B\" 12\nEOD\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set style histogram clustered"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set yrange [0:*]\n"));
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "linespoints"));
	strbuf_reset(&sb);
	p.ys = levels;
	CU_ASSERT_EQUAL_FATAL(report_plot_gnuplot(&t, &p, &sb, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "$levels << EOD\n\"CSR\" 30 10 1\n\"CSR\" 7 3 1\n"
					      "\"B\" 8 4 1\n\"B\" 25 10 1\nEOD\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set style histogram rowstacked"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "using 2:xtic(1) lt 1 title 'DRAM'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "using 3 lt 2 title 'Buf'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "using 4 lt 3 title 'compute'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "set yrange [0:*]\n"));
	strbuf_release(&sb);
	strbuf_release(&err);
	table_release(&t);
}

static void test_errors(void)
{
	static const char *const ys[] = { "enrgy_pj" }, *const series[] = { "fmt" };
	struct report_plot p = { "density", ys, 1, series, 1, 0, NULL, REPORT_IMAGE_SVG,
				 "energy_pj", NULL, NULL, NULL, NULL };
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	make(&t);
	CU_ASSERT_EQUAL(report_plot_gnuplot(&t, &p, &sb, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "--y: no column 'enrgy_pj' in the results; did you mean 'energy_pj'?");
	strbuf_reset(&err);
	p.x = "dens";
	CU_ASSERT_EQUAL(report_plot_gnuplot(&t, &p, &sb, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "--x: no column 'dens' in the results");
	strbuf_release(&sb);
	strbuf_release(&err);
	table_release(&t);
}

static CU_TestInfo plot_tests[] = {
	{ "lines, series, panels", test_lines },
	{ "categories and level bars", test_categories_and_levels },
	{ "unknown columns", test_errors },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "report_plot", .pTests = plot_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
