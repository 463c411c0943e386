/*
 * ysrc.c: the located node tree. Locations are 1-based and count
 * characters; anchors, aliases and merge keys are resolved; duplicate keys
 * are errors with a note; keys compare with '-' == '_'; tags are kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/ysrc_int.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct arena A = ARENA_INIT;

/* Parse 'text' as file "t.yaml"; diagnostics into 'dl'. */
static struct ysrc_node *parse(const char *text, struct diag_list *dl)
{
	struct ysrc_node *root = NULL;
	ysrc_parse(&A, "t.yaml", text, strlen(text), dl, &root);
	return root;
}

static const struct ysrc_node *at(const struct ysrc_node *n, const char *path)
{
	char key[64];
	while (n && *path) {
		size_t len = strcspn(path, ".");
		if (path[0] >= '0' && path[0] <= '9') {
			size_t i = strtoul(path, NULL, 10);
			n = n->kind == YSRC_SEQ && i < n->n ? n->items[i] : NULL;
		} else {
			memcpy(key, path, len);
			key[len] = '\0';
			n = ysrc_map_get(n, key);
		}
		path += len + (path[len] == '.');
	}
	return n;
}

struct loc_row {
	const char *path;
	unsigned line, col;
	const char *str;     /* scalar text, or NULL */
};

static void test_locations(void)
{
	static const char text[] =
		"top:\n"
		"  list: [1, two, 'three']\n"
		"  map: {k: v}\n"
		"  block:\n"
		"    - x\n"
		"    - {y: z}\n"
		"utf8: \"\xc3\xa9t\xc3\xa9\"\n"
		"\xc3\xa9t\xc3\xa9: after\n";
	static const struct loc_row rows[] = {
		{ "top", 2, 3, NULL }, { "top.list", 2, 9, NULL }, { "top.list.0", 2, 10, "1" },
		{ "top.list.1", 2, 13, "two" }, { "top.list.2", 2, 18, "three" },
		{ "top.map", 3, 8, NULL }, { "top.map.k", 3, 12, "v" }, { "top.block.0", 5, 7, "x" },
		{ "top.block.1.y", 6, 11, "z" }, { "utf8", 7, 7, "\xc3\xa9t\xc3\xa9" },
		{ "\xc3\xa9t\xc3\xa9", 8, 6, "after" },
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = parse(text, &dl);
	size_t i;

	CU_ASSERT_EQUAL(dl.n, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ysrc_node *n = at(root, rows[i].path);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_STRING_EQUAL(n->loc.file, "t.yaml");
		CU_ASSERT_EQUAL(n->loc.line, rows[i].line);
		if (n->loc.col != rows[i].col)
			fprintf(stderr, "row %zu: col %u\n", i, n->loc.col);
		CU_ASSERT_EQUAL(n->loc.col, rows[i].col);
		if (rows[i].str) {
			CU_ASSERT_STRING_EQUAL(n->str, rows[i].str);
		}
	}
	diag_list_release(&dl);
}

static void test_anchors_aliases_merges(void)
{
	static const char text[] =
		"base: &b {a: 1, b: 2}\n"
		"more: &m {b: 3, c: 4}\n"
		"one: {<<: *b, a: 10}\n"
		"two: {<<: [*b, *m], d: 5}\n"
		"three:\n"
		"  <<: *m\n"
		"  <<: {e: 6}\n"
		"s: &s hello\n"
		"t: *s\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = parse(text, &dl);

	CU_ASSERT_EQUAL(dl.n, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(at(root, "one.a")->str, "10");   /* explicit wins */
	CU_ASSERT_STRING_EQUAL(at(root, "one.b")->str, "2");
	CU_ASSERT_EQUAL(at(root, "one")->n, 2);
	CU_ASSERT_STRING_EQUAL(at(root, "two.b")->str, "2");    /* first merged wins */
	CU_ASSERT_STRING_EQUAL(at(root, "two.c")->str, "4");
	CU_ASSERT_EQUAL(at(root, "two")->n, 4);
	CU_ASSERT_STRING_EQUAL(at(root, "three.e")->str, "6");
	CU_ASSERT_EQUAL(at(root, "three")->n, 3);
	CU_ASSERT_PTR_NULL(ysrc_map_get(at(root, "one"), "<<"));
	CU_ASSERT_STRING_EQUAL(at(root, "t")->str, "hello");
	CU_ASSERT_EQUAL(at(root, "t")->loc.line, 9);            /* the alias, not the anchor */
	CU_ASSERT_EQUAL(at(root, "t")->loc.col, 4);
	CU_ASSERT_EQUAL(at(root, "one.b")->loc.line, 1);        /* merged values stay put */
	diag_list_release(&dl);
}

/* The front end's '<<<': a recursive merge where the mapping's own keys win. */
static void test_recursive_merge(void)
{
	static const char text[] =
		"base_ignore: &base\n"
		"  version: 0.4\n"
		"  instance: {N: 1, C: 1, M: 1, deep: {a: 1, b: 2}}\n"
		"  shape: {name: conv}\n"
		"problem:\n"
		"  <<<: *base\n"
		"  instance: {C: 3, M: 64, deep: {b: 20}}\n"
		"flat:\n"
		"  <<: *base\n"
		"  instance: {C: 3}\n"
		"both:\n"
		"  <<: {x: 1}\n"
		"  <<<: {x: 2, y: {z: 3}}\n"
		"  y: {w: 4}\n";
	static const struct {
		const char *path;
		const char *str;
	} rows[] = {
		{ "problem.version", "0.4" }, { "problem.instance.C", "3" },
		{ "problem.instance.M", "64" }, { "problem.instance.N", "1" },
		{ "problem.instance.deep.a", "1" }, { "problem.instance.deep.b", "20" },
		{ "problem.shape.name", "conv" }, { "flat.instance.C", "3" },
		{ "both.x", "1" }, { "both.y.z", "3" }, { "both.y.w", "4" },
		{ "base_ignore.instance.C", "1" }, { "base_ignore.instance.deep.b", "2" },
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = parse(text, &dl);
	const struct ysrc_node *inst;
	size_t i;

	CU_ASSERT_EQUAL(dl.n, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ysrc_node *n = at(root, rows[i].path);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		if (strcmp(n->str, rows[i].str))
			fprintf(stderr, "row %zu: %s = '%s'\n", i, rows[i].path, n->str);
		CU_ASSERT_STRING_EQUAL(n->str, rows[i].str);
	}
	/* own keys first, in their order, then the merged ones */
	inst = at(root, "problem.instance");
	CU_ASSERT_EQUAL_FATAL(inst->n, 4);
	CU_ASSERT_STRING_EQUAL(inst->pairs[0].key->str, "C");
	CU_ASSERT_STRING_EQUAL(inst->pairs[2].key->str, "deep");
	CU_ASSERT_STRING_EQUAL(inst->pairs[3].key->str, "N");
	CU_ASSERT_STRING_EQUAL(at(root, "problem")->pairs[0].key->str, "instance");
	CU_ASSERT_EQUAL(at(root, "problem")->n, 3);
	CU_ASSERT_PTR_NULL(ysrc_map_get(at(root, "problem"), "<<<"));
	/* '<<' is not recursive: the own 'instance' replaces the merged one */
	CU_ASSERT_PTR_NULL(at(root, "flat.instance.N"));
	/* merged values keep their locations in the anchor */
	CU_ASSERT_EQUAL(at(root, "problem.instance.N")->loc.line, 3);
	CU_ASSERT_EQUAL(at(root, "problem.instance.deep.b")->loc.line, 7);
	diag_list_release(&dl);
}

/* A line map locates every node and error in the files the lines came from. */
static void test_line_map(void)
{
	static const char text[] = "a: 1\nb:\n  c: [2, 3]\nd: {e: \n";
	static const char *const files[] = { "top.j2", "inc.yaml", "inc.yaml", "top.j2" };
	static const unsigned lines[] = { 7, 1, 2, 9 };
	const struct ysrc_linemap map = { 4, files, lines };
	const struct ysrc_opts opts = { &map, NULL, NULL, NULL, 0 };
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = NULL;
	char *got;

	CU_ASSERT_EQUAL(ysrc_parse_opts(&A, "rendered", text, 20, &opts, &dl, &root), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(at(root, "a")->loc.file, "top.j2");
	CU_ASSERT_EQUAL(at(root, "a")->loc.line, 7);
	CU_ASSERT_STRING_EQUAL(at(root, "b.c.1")->loc.file, "inc.yaml");
	CU_ASSERT_EQUAL(at(root, "b.c.1")->loc.line, 2);
	CU_ASSERT_EQUAL(at(root, "b.c.1")->loc.col, 10);
	CU_ASSERT_EQUAL(ysrc_parse_opts(&A, "rendered", text, strlen(text), &opts, &dl, &root), -1);
	got = st_diags(&dl);     /* at the end of the text: the line after the last */
	CU_ASSERT_STRING_EQUAL(got, "10:1: error: YAML syntax error: did not find expected node "
			       "content\n10:1: note: while parsing a flow node\n");
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "top.j2");
	free(got);
	diag_list_release(&dl);
	CU_ASSERT_EQUAL(ysrc_parse_opts(&A, "rendered", "a: 1\nb: 2\nc: [}\n", 15, &opts, &dl,
					&root), -1);
	got = st_diags(&dl);
	CU_ASSERT_STRING_EQUAL(got, "2:5: error: YAML syntax error: did not find expected node "
			       "content\n2:5: note: while parsing a flow node\n");
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "inc.yaml");
	free(got);
	diag_list_release(&dl);
}

/* The hook replaces tagged scalars before merges and anchors see them. */
static struct ysrc_node *hook(void *ctx, const struct ysrc_node *scalar)
{
	struct diag_list *dl = ctx;
	struct ysrc_node *root = NULL;
	if (!strcmp(scalar->str, "bad")) {
		diag_error(dl, scalar->loc, "cannot include '%s'", scalar->str);
		return NULL;
	}
	ysrc_parse(&A, "included.yaml", "{k: 1, deep: {x: 2}}", 20, dl, &root);
	return root;
}

static void test_tag_hook(void)
{
	static const char text[] =
		"a: !inc one\n"
		"b: &m !inc two\n"
		"c: {<<<: *m, deep: {y: 3}}\n"
		"d: !other three\n";
	struct diag_list dl = DIAG_LIST_INIT;
	const struct ysrc_opts opts = { NULL, "!inc", hook, &dl, 0 };
	struct ysrc_node *root = NULL;
	char *got;

	CU_ASSERT_EQUAL(ysrc_parse_opts(&A, "t.yaml", text, strlen(text), &opts, &dl, &root), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(at(root, "a.k")->str, "1");
	CU_ASSERT_STRING_EQUAL(at(root, "a.k")->loc.file, "included.yaml");
	CU_ASSERT_STRING_EQUAL(at(root, "c.deep.x")->str, "2");
	CU_ASSERT_STRING_EQUAL(at(root, "c.deep.y")->str, "3");
	CU_ASSERT_STRING_EQUAL(at(root, "d")->str, "three");
	CU_ASSERT_EQUAL(ysrc_parse_opts(&A, "t.yaml", "x: !inc bad\n", 12, &opts, &dl, &root), -1);
	got = st_diags(&dl);
	CU_ASSERT_STRING_EQUAL(got, "1:4: error: cannot include 'bad'\n");
	free(got);
	diag_list_release(&dl);
}

struct error_row {
	const char *text;
	const char *expected;   /* st_diags() of the run */
};

static const struct error_row error_rows[] = {
	{ "a: 1\nb: 2\na: 3\n",
	  "3:1: error: duplicate key 'a'\n1:1: note: 'a' first given here\n" },
	{ "m: {read-write: 1, read_write: 2}\n",
	  "1:20: error: duplicate key 'read_write'\n1:5: note: 'read-write' first given here\n" },
	{ "a: *nope\n",
	  "1:4: error: unknown anchor 'nope' (an alias must follow its anchor '&nope')\n" },
	{ "a: &r [*r]\n",
	  "1:8: error: unknown anchor 'r' (an alias must follow its anchor '&r')\n" },
	{ "a: {<<: [1]}\n",
	  "1:10: error: a merge key '<<' needs a mapping or a list of mappings, got a scalar\n" },
	{ "a: [1, 2\nb: 3\n",
	  "2:2: error: YAML syntax error: did not find expected ',' or ']'\n"
	  "1:4: note: while parsing a flow sequence\n" },
	{ "a: b: c\n",
	  "1:5: error: YAML syntax error: mapping values are not allowed in this context\n" },
	{ "a: 1\n---\nb: 2\n",
	  "2:1: error: a second YAML document in one file is not supported (give each document "
	  "as its own file)\n" },
	{ "{[1]: 2}\n", "1:2: error: a mapping key must be a plain string, got a list\n" },
	{ "a: {<<<: [{b: 1}]}\n",
	  "1:10: error: a recursive merge key '<<<' takes one mapping, got a list (merge a list of "
	  "mappings with '<<')\n" },
	{ "a: {<<<: 3}\n", "1:10: error: a recursive merge key '<<<' needs a mapping, got a scalar\n" },
	{ "a:\n  <<<: {b: 1}\n  <<<: {c: 2}\n",
	  "3:3: error: a second '<<<' key in one mapping\n2:3: note: the first one is here\n" },
};

static void test_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct ysrc_node *root = NULL;
		int rc = ysrc_parse(&A, "t.yaml", error_rows[i].text, strlen(error_rows[i].text), &dl,
				    &root);
		char *got = st_diags(&dl);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_PTR_NULL(root);
		CU_ASSERT_STRING_EQUAL(got, error_rows[i].expected);
		free(got);
		diag_list_release(&dl);
	}
}

static void test_tags_nulls_and_keys(void)
{
	static const char text[] =
		"nodes:\n"
		"- !Container {name: c}\n"
		"- !Component\n"
		"  name: x\n"
		"n1: ~\n"
		"n2: null\n"
		"n3:\n"
		"q: 'null'\n"
		"n4: Null\n"
		"n5: NULL\n"
		"x1: NUll\n"
		"x2: nul\n"
		"x3: nulls\n"
		"x4: ~x\n"
		"x5: none\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = parse(text, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(at(root, "nodes.0")->tag, "!Container");
	CU_ASSERT_STRING_EQUAL(at(root, "nodes.1")->tag, "!Component");
	CU_ASSERT_PTR_NULL(at(root, "n1")->tag);
	CU_ASSERT_TRUE(ysrc_is_null(at(root, "n1")));
	CU_ASSERT_TRUE(ysrc_is_null(at(root, "n2")));
	CU_ASSERT_TRUE(ysrc_is_null(at(root, "n3")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "q")));    /* quoted: a string */
	CU_ASSERT_TRUE(ysrc_is_null(at(root, "n4")));
	CU_ASSERT_TRUE(ysrc_is_null(at(root, "n5")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "x1")));   /* YAML's three spellings only */
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "x2")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "x3")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "x4")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "x5")));
	CU_ASSERT_FALSE(ysrc_is_null(at(root, "nodes")));
	CU_ASSERT_TRUE(ysrc_key_eq("read-write", "read_write"));
	CU_ASSERT_TRUE(ysrc_key_eq("a_b-c", "a-b_c"));
	CU_ASSERT_FALSE(ysrc_key_eq("read_write", "read_writes"));
	CU_ASSERT_FALSE(ysrc_key_eq("Read_write", "read_write"));
	CU_ASSERT_PTR_NULL(ysrc_map_pair(root, "n-1"));
	CU_ASSERT_PTR_EQUAL(ysrc_map_pair(root, "nodes"), &root->pairs[0]);
	diag_list_release(&dl);
}

static void test_scalar_offsets(void)
{
	static const char text[] = "p: K=16 M=4\nq: 'K=16 M=4'\nr: |\n  K=16\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = parse(text, &dl);
	struct diag_loc l;

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	l = ysrc_scalar_loc_at(at(root, "p"), 5);
	CU_ASSERT_EQUAL(l.line, 1);
	CU_ASSERT_EQUAL(l.col, 9);
	l = ysrc_scalar_loc_at(at(root, "q"), 5);
	CU_ASSERT_EQUAL(l.col, 10);
	l = ysrc_scalar_loc_at(at(root, "r"), 2);     /* block scalars: the scalar itself */
	CU_ASSERT_EQUAL(l.line, 3);
	CU_ASSERT_EQUAL(l.col, 4);
	diag_list_release(&dl);
}

static void test_empty_and_files(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root = (struct ysrc_node *)1;
	CU_ASSERT_EQUAL(ysrc_parse(&A, "t.yaml", "", 0, &dl, &root), 0);
	CU_ASSERT_PTR_NULL(root);
	CU_ASSERT_EQUAL(ysrc_parse(&A, "t.yaml", "# only a comment\n", 17, &dl, &root), 0);
	CU_ASSERT_PTR_NULL(root);
	CU_ASSERT_EQUAL(ysrc_parse_file(&A, "/nonexistent/x.yaml", &dl, &root), -1);
	CU_ASSERT_EQUAL(dl.n_errors, 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "/nonexistent/x.yaml");
	diag_list_release(&dl);
}

static int cleanup(void)
{
	arena_release(&A);
	return 0;
}

/*
 * The nodes reached through aliases are counted (each alias: the nodes of
 * its anchor's value, its own aliases expanded) and a document passing
 * 10^6 of them, or nesting deeper than 512 levels through them, is refused
 * at the alias that passes; 10^5 are accepted.
 */
static void test_alias_limits(void)
{
	static const char *const ten = "[*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]";
	static const struct {
		unsigned levels;     /* a: &a [x x 10], then levels-1 lists of 10 aliases of the last */
		int rc;
		unsigned line;       /* of the error */
	} rows[] = {
		{ 5, 0, 0 },         /* 123440 nodes through aliases (110 + 1110 + ...) */
		{ 6, -1, 6 },        /* line 6 adds 1111110 */
		{ 9, -1, 6 },        /* 10^9: refused at the same alias */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf t = STRBUF_INIT, ten_l = STRBUF_INIT;
		struct diag_list dl = DIAG_LIST_INIT;
		struct ysrc_node *root = NULL;
		unsigned l;
		const char *c;
		strbuf_addstr(&t, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
		for (l = 1; l < rows[i].levels; l++) {
			strbuf_reset(&ten_l);
			for (c = ten; *c; c++)
				if (*c == 'a')
					strbuf_addf(&ten_l, "a%u", l - 1);
				else
					strbuf_addch(&ten_l, *c);
			strbuf_addf(&t, "a%u: &a%u %s\n", l, l, ten_l.buf);
		}
		CU_ASSERT_EQUAL(ysrc_parse(&A, "t.yaml", t.buf, t.len, &dl, &root), rows[i].rc);
		if (rows[i].rc) {
			CU_ASSERT_EQUAL(dl.n_errors, 1);
			CU_ASSERT_EQUAL(dl.items[0].loc.line, rows[i].line);
			CU_ASSERT_STRING_EQUAL(dl.items[0].message, "the aliases of this document reach "
					       "more than 1000000 nodes (each alias counts the nodes "
					       "of its anchor's value)");
		}
		diag_list_release(&dl);
		strbuf_release(&t);
		strbuf_release(&ten_l);
	}
}

static CU_TestInfo tests[] = {
	{ "alias expansion limits", test_alias_limits },
	{ "locations", test_locations },
	{ "anchors, aliases, merge keys", test_anchors_aliases_merges },
	{ "recursive merge keys", test_recursive_merge },
	{ "line maps", test_line_map },
	{ "tag hooks", test_tag_hook },
	{ "errors", test_errors },
	{ "tags, nulls, key spelling", test_tags_nulls_and_keys },
	{ "locations inside scalars", test_scalar_offsets },
	{ "empty input, missing file", test_empty_and_files },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ysrc", .pCleanupFunc = cleanup, .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
