/* Typed tables: cells set and read back, columns added after rows, copies owned by the table. */
#include "util/table.h"

#include <string.h>

#include "tests/unit.h"

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

static CU_TestInfo table_tests[] = {
	{ "cells, late columns, copies", test_table },
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
