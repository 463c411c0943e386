/*
 * value.c: the scalar parsers, key paths, and the located, path-prefixed
 * diagnostics with did-you-mean hints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "specs/specs_int.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static void test_parse_u64(void)
{
	static const struct { const char *s; int rc; uint64_t v; } rows[] = {
		{ "12", 0, 12 }, { "+3", 0, 3 }, { " 7 ", 0, 7 }, { "1.0", 0, 1 }, { "1e3", 0, 1000 },
		{ "18446744073709551615", 0, UINT64_MAX }, { "18446744073709551616", -1, 0 },
		{ "-1", -1, 0 }, { "1.5", -1, 0 }, { "0x10", -1, 0 }, { "", -1, 0 }, { "ten", -1, 0 },
		{ "4 5", -1, 0 }, { "inf", -1, 0 },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t v = 0;
		CU_ASSERT_EQUAL(spec_parse_u64(rows[i].s, &v), rows[i].rc);
		if (rows[i].rc == 0)
			CU_ASSERT_EQUAL(v, rows[i].v);
	}
}

static void test_parse_double(void)
{
	static const struct { const char *s; int rc; double v; } rows[] = {
		{ "1e-9", 0, 1e-9 }, { " 2.5 ", 0, 2.5 }, { "-0.125", 0, -0.125 }, { "3", 0, 3 },
		{ "abc", -1, 0 }, { "", -1, 0 }, { "nan", -1, 0 }, { "inf", -1, 0 }, { "1e999", -1, 0 },
		{ "0x1p3", -1, 0 }, { "2.5pJ", -1, 0 },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double v = 0;
		CU_ASSERT_EQUAL(spec_parse_double(rows[i].s, &v), rows[i].rc);
		if (rows[i].rc == 0)
			CU_ASSERT_DOUBLE_EQUAL(v, rows[i].v, 0);
	}
}

static void test_parse_bool(void)
{
	static const struct { const char *s; int rc; bool v; } rows[] = {
		{ "true", 0, true }, { "True", 0, true }, { "yes", 0, true }, { "ON", 0, true },
		{ "false", 0, false }, { "No", 0, false }, { "off", 0, false },
		{ "1", -1, false }, { "t", -1, false }, { "", -1, false },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool v = !rows[i].v;
		CU_ASSERT_EQUAL(spec_parse_bool(rows[i].s, &v), rows[i].rc);
		if (rows[i].rc == 0)
			CU_ASSERT_EQUAL(v, rows[i].v);
	}
}

static void test_kpath(void)
{
	struct kpath a = KP_KEY(NULL, "architecture"), b = KP_KEY(&a, "subtree");
	struct kpath c = KP_IDX(&b, 0), d = KP_KEY(&c, "local"), e = KP_IDX(&d, 12);
	struct kpath f = KP_KEY(&e, "attributes");
	struct kpath g = KP_IDX(NULL, 7), h = KP_KEY(&g, "x"), i = KP_IDX(&h, -3);
	struct kpath j = KP_IDX(&i, 1234567890), k = KP_KEY(NULL, "");
	/* ld_kpath_strdup renders into the arena by itself: the same text as the renderer */
	static const char *const want[] = {
		"architecture", "architecture.subtree[0].local[12].attributes", "[7]", "[7].x[-3]",
		"[7].x[-3][1234567890]", "",
	};
	const struct kpath *ps[] = { &a, &f, &g, &i, &j, &k };
	struct spec_set set;
	struct ld ld;
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	memset(&set, 0, sizeof(set));
	memset(&ld, 0, sizeof(ld));
	ld.s = &set;
	ld.a = &set.arena;
	ld_kpath_render(&f, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "architecture.subtree[0].local[12].attributes");
	for (n = 0; n < sizeof(ps) / sizeof(ps[0]); n++) {
		strbuf_release(&sb);
		ld_kpath_render(ps[n], &sb);
		CU_ASSERT_STRING_EQUAL(sb.buf, want[n]);
		CU_ASSERT_STRING_EQUAL(ld_kpath_strdup(&ld, ps[n]), want[n]);
	}
	strbuf_release(&sb);
	arena_release(&set.arena);
}

/* A number read from an expression shows the expression and its value in a message. */

/* A loader over an empty set whose diagnostics go to 'dl', and 'text' parsed into its arena. */
static struct ysrc_node *parse_into(struct spec_set *set, struct ld *ld, struct diag_list *dl,
				    const char *text)
{
	struct ysrc_node *root = NULL;

	memset(set, 0, sizeof(*set));
	memset(ld, 0, sizeof(*ld));
	ld->s = set;
	ld->a = &set->arena;
	ld->dl = dl;
	if (ysrc_parse(ld->a, "v.yaml", text, strlen(text), dl, &root) < 0)
		return NULL;
	return root;
}
static void test_reader_shown(void)
{
	static const char text[] = "variables: {d: 3}\nm: {a: d * 4, b: yes}\n";
	struct spec_set set;
	struct diag_list dl = DIAG_LIST_INIT;
	struct ld ld;
	struct ysrc_node *root;
	const struct ysrc_node *m;
	struct kpath p = KP_KEY(NULL, "m"), ap = KP_KEY(&p, "a"), bp = KP_KEY(&p, "b");
	uint64_t v = 0;
	double x = 0;
	bool ok = false;

	root = parse_into(&set, &ld, &dl, text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	ld.top[0].key = "variables";
	ld.top[0].n = 1;
	ld.top[0].keys[0] = root->pairs[0].key;
	ld.top[0].values[0] = root->pairs[0].value;
	ld.top[1].key = "m";
	ld.top[1].n = 1;
	ld.top[1].keys[0] = root->pairs[1].key;
	ld.top[1].values[0] = root->pairs[1].value;
	ld.n_top = 2;
	spec_expressions_apply(&ld);
	m = ld.top[1].values[0];
	CU_ASSERT_EQUAL(ld_uint(&ld, ld_get(m, "a"), &ap, 0, 100, &v), 0);
	CU_ASSERT_EQUAL(v, 12);
	CU_ASSERT_EQUAL(ld_double(&ld, ld_get(m, "a"), &ap, 0, 10, &x), -1);
	CU_ASSERT_EQUAL(ld_uint(&ld, ld_get(m, "b"), &bp, 0, 10, &v), -1);
	CU_ASSERT_EQUAL(ld_bool(&ld, ld_get(m, "b"), &bp, &ok), 0);
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL_FATAL(dl.n, 2);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "in 'm.a': expected a number in [0, 10], got "
			       "'d * 4' = 12");
	CU_ASSERT_STRING_EQUAL(dl.items[1].message, "in 'm.b': expected an integer in [0, 10], got "
			       "'yes'");
	free(ld.deferred);
	diag_list_release(&dl);
	arena_release(&set.arena);
}

/* ld_check_keys and the value readers report with the path and a hint. */
static void test_located_messages(void)
{
	static const char text[] = "m: {widht: 3, depth: x, ok: true, n: 1.5}\n";
	static const char *const known[] = { "width", "depth", "ok", "n" };
	struct spec_set set;
	struct diag_list dl = DIAG_LIST_INIT;
	struct ld ld;
	struct ysrc_node *root;
	const struct ysrc_node *m;
	struct kpath p = KP_KEY(NULL, "m"), dp = KP_KEY(&p, "depth"), np = KP_KEY(&p, "n");
	uint64_t v;
	bool ok = false;

	root = parse_into(&set, &ld, &dl, text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	m = ld_get(root, "m");
	CU_ASSERT_EQUAL(ld_check_keys(&ld, m, &p, known, 4), 1);
	CU_ASSERT_EQUAL(ld_uint(&ld, ld_get(m, "depth"), &dp, 0, 10, &v), -1);
	CU_ASSERT_EQUAL(ld_uint(&ld, ld_get(m, "n"), &np, 0, 10, &v), -1);
	CU_ASSERT_EQUAL(ld_bool(&ld, ld_get(m, "ok"), &p, &ok), 0);
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(ld_lookup(&ld, m, &p, "colour", "rde", (const char *const[]){ "red", "blue" },
				  2), -1);
	CU_ASSERT_EQUAL(ld_lookup(&ld, m, &p, "colour", "blue", (const char *const[]){ "red", "blue" },
				  2), 1);
	CU_ASSERT_EQUAL_FATAL(dl.n, 4);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "in 'm': unknown key 'widht'; did you mean 'width'?");
	CU_ASSERT_EQUAL(dl.items[0].loc.line, 1);
	CU_ASSERT_EQUAL(dl.items[0].loc.col, 5);
	CU_ASSERT_STRING_EQUAL(dl.items[1].message, "in 'm.depth': expected an integer in [0, 10], "
			       "got 'x'");
	CU_ASSERT_EQUAL(dl.items[1].loc.col, 22);
	CU_ASSERT_STRING_EQUAL(dl.items[2].message, "in 'm.n': expected an integer in [0, 10], "
			       "got '1.5'");
	CU_ASSERT_STRING_EQUAL(dl.items[3].message, "in 'm': unknown colour 'rde'; did you mean 'red'?");
	diag_list_release(&dl);
	arena_release(&set.arena);
}

static CU_TestInfo tests[] = {
	{ "spec_parse_u64", test_parse_u64 },
	{ "spec_parse_double", test_parse_double },
	{ "spec_parse_bool", test_parse_bool },
	{ "key paths", test_kpath },
	{ "a value shown in a message", test_reader_shown },
	{ "located messages", test_located_messages },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "value", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
