/* Tests of the one JSON writer: both layouts, inline containers, escapes, nulls. */
#include "util/json.h"

#include <math.h>
#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"

/* One small document with every kind of member. */
static void write_doc(struct json_writer *w)
{
	json_open(w, NULL, '{');
	json_str(w, "name", "a \"q\"\\\n\t\x01");
	json_u64(w, "n", 18446744073709551615ull);
	json_i64(w, "i", -3);
	json_double(w, "x", 0.1);
	json_double(w, "inf", INFINITY);
	json_bool(w, "ok", true);
	json_str(w, "none", NULL);
	json_opt_double(w, "size", false, 4);
	json_open_inline(w, "pair", '[');
	json_u64(w, NULL, 1);
	json_open(w, NULL, '[');
	json_u64(w, NULL, 2);
	json_close(w, ']');
	json_close(w, ']');
	json_open(w, "list", '[');
	json_open(w, NULL, '{');
	json_null(w, "k");
	json_close(w, '}');
	json_close(w, ']');
	json_open(w, "empty", '{');
	json_close(w, '}');
	json_close(w, '}');
}

static void test_layouts(void)
{
	static const struct {
		enum json_layout layout;
		const char *want;
	} cases[] = {
		{ JSON_PRETTY,
		  "{\n  \"name\": \"a \\\"q\\\"\\\\\\n\\t\\u0001\",\n  \"n\": 18446744073709551615,\n"
		  "  \"i\": -3,\n  \"x\": 0.10000000000000001,\n  \"inf\": null,\n  \"ok\": true,\n"
		  "  \"none\": null,\n  \"size\": null,\n  \"pair\": [1, [2]],\n  \"list\": [\n"
		  "    {\n      \"k\": null\n    }\n  ],\n  \"empty\": {\n  }\n}" },
		{ JSON_COMPACT,
		  "{\"name\":\"a \\\"q\\\"\\\\\\n\\t\\u0001\",\"n\":18446744073709551615,\"i\":-3,"
		  "\"x\":0.10000000000000001,\"inf\":null,\"ok\":true,\"none\":null,\"size\":null,"
		  "\"pair\":[1,[2]],\"list\":[{\"k\":null}],\"empty\":{}}" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct json_writer w;
		json_init(&w, &sb, cases[i].layout);
		write_doc(&w);
		CU_ASSERT_STRING_EQUAL(sb.buf, cases[i].want);
		CU_ASSERT_EQUAL(w.depth, 0);
		strbuf_release(&sb);
	}
}

/*
 * A quoted string alone, NULL as "". Output is always valid JSON text in
 * UTF-8 (RFC 8259): a byte that is not part of well-formed UTF-8 becomes
 * U+FFFD, controls (C0, DEL, C1) are escaped, other characters kept.
 */
static void test_quote(void)
{
	static const struct {
		const char *in, *want;
	} rows[] = {
		{ "x/y", "\"x/y\"" },
		{ NULL, "\"\"" },
		{ "a\"b\\c\nd\te", "\"a\\\"b\\\\c\\nd\\te\"" },
		{ "a\377b", "\"a\\ufffdb\"" },                       /* not UTF-8 */
		{ "\033[31mRED\007", "\"\\u001b[31mRED\\u0007\"" },    /* ESC, BEL */
		{ "\177\302\233", "\"\\u007f\\u009b\"" },              /* DEL, C1 CSI */
		{ "\303\251\342\202\254\360\237\230\200", "\"\303\251\342\202\254\360\237\230\200\"" },
		{ "\300\200", "\"\\ufffd\\ufffd\"" },                 /* overlong NUL */
		{ "\355\240\200", "\"\\ufffd\\ufffd\\ufffd\"" },     /* a surrogate */
		{ "\342\202", "\"\\ufffd\\ufffd\"" },                 /* cut short */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		json_quote(&sb, rows[i].in);
		CU_ASSERT_STRING_EQUAL(sb.buf, rows[i].want);
		strbuf_release(&sb);
	}
}

static CU_TestInfo json_tests[] = {
	{ "pretty and compact layouts", test_layouts },
	{ "quoting", test_quote },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "json", .pTests = json_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
