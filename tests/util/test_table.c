/* Typed tables: cells set and read back, columns added after rows, copies owned by the table. */
#include "util/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"

static void test_table(void)
{
	struct table t = TABLE_INIT;
	char text[8] = "0.5";
	size_t r0, r1, c, i;

	CU_ASSERT_EQUAL(table_add_col(&t, "density"), 0);
	r0 = table_add_row(&t);
	table_set(&t, r0, 0, TABLE_REAL, text);
	strcpy(text, "x");                         /* the table keeps its own copy */
	CU_ASSERT_STRING_EQUAL(table_get(&t, r0, 0).text, "0.5");
	CU_ASSERT_EQUAL(table_get(&t, r0, 0).type, TABLE_REAL);
	/* many columns after the row was made: it reads null there, and grows when set */
	for (i = 0; i < 20; i++) {
		char name[16];
		snprintf(name, sizeof(name), "c%zu", i);
		c = table_add_col(&t, name);
	}
	CU_ASSERT_EQUAL(t.n_cols, 21);
	CU_ASSERT_EQUAL(table_get(&t, r0, 20).type, TABLE_NULL);
	CU_ASSERT_PTR_NULL(table_get(&t, r0, 20).text);
	table_set(&t, r0, 20, TABLE_INT, "42");
	CU_ASSERT_STRING_EQUAL(table_get(&t, r0, 20).text, "42");
	CU_ASSERT_STRING_EQUAL(table_get(&t, r0, 0).text, "0.5");   /* kept when the row grew */
	r1 = table_add_row(&t);
	table_set(&t, r1, 3, TABLE_TEXT, "CSR");
	table_set(&t, r1, 4, TABLE_TEXT, NULL);                     /* NULL text: a null cell */
	CU_ASSERT_EQUAL(table_get(&t, r1, 4).type, TABLE_NULL);
	CU_ASSERT_EQUAL(table_col(&t, "c2"), 3);
	CU_ASSERT_EQUAL(table_col(&t, "nope"), -1);
	CU_ASSERT_STRING_EQUAL(table_get(&t, r1, 3).text, "CSR");
	(void)c;
	table_release(&t);
	CU_ASSERT_EQUAL(t.n_rows, 0);
	CU_ASSERT_EQUAL(t.n_cols, 0);
}

/* Real cells in the fewest digits (15 to 17) that read back exactly. */
static void test_format_real(void)
{
	static const struct { double v; const char *want; } rows[] = {
		{ 0.1, "0.1" },                            /* 15 digits are enough */
		{ 1.0 / 3.0, "0.3333333333333333" },       /* 16 digits */
		{ 0.1 + 0.2, "0.30000000000000004" },      /* only 17 read back */
		{ 1e300, "1e+300" },
		{ 123456789012345678.0, "1.2345678901234568e+17" },
		/* written without printf: integers and values exact at 15 digits */
		{ 0, "0" },
		{ -0.0, "-0" },
		{ 200, "200" },
		{ -0.0625, "-0.0625" },
		{ 0.0001, "0.0001" },                      /* the last %f-style exponent */
		{ 1e-05, "1e-05" },                        /* the first %e-style one */
		{ 1.25e-7, "1.25e-07" },
		{ 999999999999999.0, "999999999999999" },
		{ 1e15, "1e+15" },
		{ 1.5e21, "1.5e+21" },
		{ 12345.678, "12345.678" },
		{ 0.3, "0.3" },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[32];
		table_format_real(rows[i].v, buf, sizeof(buf));
		CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
		CU_ASSERT(strtod(buf, NULL) == rows[i].v);
	}
	/* the text printf's shortest of %.15g, %.16g, %.17g would write, over many magnitudes */
	for (k = 0; k < 20000; k++) {
		double v = ((double)(k * 7919 % 100003) / 997.0) * pow(10.0, (double)(k % 44 - 22));
		char buf[32], want[32];
		int prec;
		for (prec = 15; prec <= 17; prec++) {
			snprintf(want, sizeof(want), "%.*g", prec, v);
			if (strtod(want, NULL) == v)
				break;
		}
		table_format_real(v, buf, sizeof(buf));
		if (strcmp(buf, want) != 0) {
			CU_FAIL("table_format_real differs from printf");
			break;
		}
	}
}

/* CSV fields quoted only when they must be, quotes doubled, NULL empty. */
static void test_csv_field(void)
{
	static const struct { const char *in, *want; } rows[] = {
		{ "CSR", "CSR" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ NULL, "" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		table_csv_field(&sb, rows[i].in);
		CU_ASSERT_STRING_EQUAL(sb.buf, rows[i].want);
		strbuf_release(&sb);
	}
}

static CU_TestInfo table_tests[] = {
	{ "cells, late columns, copies", test_table },
	{ "real cells", test_format_real },
	{ "CSV fields", test_csv_field },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "table", .pTests = table_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
