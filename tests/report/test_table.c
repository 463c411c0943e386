/*
 * Tables of results as CSV (quoting of commas, quotes and line breaks,
 * nulls empty), JSON (numbers as numbers, nulls, one row a line, a chosen
 * set of columns) and text (aligned, numbers to the right, reals to six
 * digits, all-null columns left out, long text shortened to one line).
 */
#include "report/report.h"

#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/table.h"

/* A table: name (text), x (real), n (integer), note (text, sometimes null). */
static void make(struct table *t)
{
	static const struct {
		const char *name, *x, *n, *note;
	} rows[] = {
		{ "a", "0.1", "7", NULL },
		{ "b,c", "1.234567891", "-12", "say \"hi\"\nbye" },
	};
	size_t r;

	table_add_col(t, "name");
	table_add_col(t, "x");
	table_add_col(t, "n");
	table_add_col(t, "note");
	table_add_col(t, "empty");
	for (r = 0; r < 2; r++) {
		table_add_row(t);
		table_set(t, r, 0, TABLE_TEXT, rows[r].name);
		table_set(t, r, 1, TABLE_REAL, rows[r].x);
		table_set(t, r, 2, TABLE_INT, rows[r].n);
		table_set(t, r, 3, TABLE_TEXT, rows[r].note);
	}
}

static void test_csv(void)
{
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT;
	static const size_t cols[] = { 2, 0 };

	make(&t);
	report_table_csv(&t, NULL, 0, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "name,x,n,note,empty\n"
			       "a,0.1,7,,\n"
			       "\"b,c\",1.234567891,-12,\"say \"\"hi\"\"\nbye\",\n");
	strbuf_reset(&sb);
	report_table_csv(&t, cols, 2, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "n,name\n7,a\n-12,\"b,c\"\n");
	strbuf_release(&sb);
	table_release(&t);
}

static void test_json(void)
{
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT;
	static const size_t cols[] = { 1, 3 };

	make(&t);
	report_table_json(&t, NULL, 0, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "[\n"
		"  {\"name\": \"a\", \"x\": 0.1, \"n\": 7, \"note\": null, \"empty\": null},\n"
		"  {\"name\": \"b,c\", \"x\": 1.234567891, \"n\": -12, \"note\": \"say \\\"hi\\\"\\nbye\", \"empty\": null}\n"
		"]\n");
	strbuf_reset(&sb);
	report_table_json(&t, cols, 2, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "[\n  {\"x\": 0.1, \"note\": null},\n"
			       "  {\"x\": 1.234567891, \"note\": \"say \\\"hi\\\"\\nbye\"}\n]\n");
	strbuf_release(&sb);
	table_release(&t);
}

static void test_text(void)
{
	struct table t = TABLE_INIT;
	struct strbuf sb = STRBUF_INIT;

	make(&t);
	report_table_text(&t, NULL, 0, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "name  x        n    note\n"
				       "a         0.1    7  -\n"
				       "b,c   1.23457  -12  say \"hi\" | bye\n");
	strbuf_release(&sb);
	table_release(&t);
}

/*
 * A text table never sends raw control bytes to the terminal: C0 controls,
 * DEL and bytes that are not UTF-8 as \xHH, C1 controls as \u00HH; other
 * characters as they are; a long cell cut at a character boundary.
 */
static void test_text_escapes(void)
{
	static const struct {
		const char *in, *want;
	} rows[] = {
		{ "a\377b", "a\\xffb" },
		{ "\033[31mRED\033]0;pwn\007", "\\x1b[31mRED\\x1b]0;pwn\\x07" },
		{ "x\ty\177\302\233", "x\\x09y\\x7f\\u009b" },
		{ "caf\303\251", "caf\303\251" },
		{ "01234567890123456789012345678901234567890123456789012345678901234567\303\251\303\251\303\251",
		  "01234567890123456789012345678901234567890123456789012345678901234567..." },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct table t = TABLE_INIT;
		struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
		table_add_col(&t, "v");
		table_add_row(&t);
		table_set(&t, 0, 0, TABLE_TEXT, rows[i].in);
		report_table_text(&t, NULL, 0, &sb);
		strbuf_addf(&want, "v\n%s\n", rows[i].want);
		CU_ASSERT_STRING_EQUAL(sb.buf, want.buf);
		strbuf_release(&sb);
		strbuf_release(&want);
		table_release(&t);
	}
}

static CU_TestInfo table_tests[] = {
	{ "text: control bytes escaped", test_text_escapes },
	{ "CSV", test_csv },
	{ "JSON", test_json },
	{ "text", test_text },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "report_table", .pTests = table_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
