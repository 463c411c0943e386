/*
 * vars.c: the v0.4 front end's variables and expressions in a loaded
 * design. Values land where the readers take them (attributes, meshes,
 * problem instances, constraint splits), in the front end's scopes (earlier
 * keys, container attributes, variables, 'spec'); an override of a
 * variable changes every expression that uses it; text that is no
 * expression stays text; errors are exact and located.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"

/* A node-list design whose numbers come from expressions. */
static const char design[] =
	"variables:\n"
	"  version: 0.4\n"
	"  DW: 8\n"
	"  DEPTH: DW * 128\n"
	"  LANES: 2 ** 2\n"
	"architecture:\n"
	"  version: 0.4\n"
	"  nodes:\n"
	"  - !Container {name: sys, attributes: {technology: \"45nm\", bus: 64}}\n"
	"  - !Component\n"
	"    name: DRAM\n"
	"    class: DRAM\n"
	"    attributes: {datawidth: DW, width: bus}\n"
	"  - !Container\n"
	"    name: PE\n"
	"    spatial: {meshX: LANES}\n"
	"    constraints:\n"
	"      spatial: {permutation: [M, N, K]}\n"
	"  - !Component\n"
	"    name: buf\n"
	"    class: SRAM\n"
	"    attributes:\n"
	"      datawidth: DW\n"
	"      width: datawidth * 4\n"
	"      depth: DEPTH // 2\n"
	"      read_bandwidth: max(2, width / datawidth)\n"
	"      technology: 45nm\n"
	"  - !Component {name: mac, class: intmac}\n"
	"problem:\n"
	"  version: 0.4\n"
	"  shape:\n"
	"    name: mm\n"
	"    dimensions: [M, N, K]\n"
	"    data_spaces:\n"
	"    - {name: A, projection: [[[M]], [[K]]]}\n"
	"    - {name: B, projection: [[[N]], [[K]]]}\n"
	"    - {name: Z, projection: [[[M]], [[N]]], read_write: true}\n"
	"  instance: {M: 4, N: M * 2, K: (N + M) // 3}\n";

/* The design with 'from' replaced by 'to' once (NULL: as it is); caller frees. */
static char *edit(const char *from, const char *to)
{
	const char *at = from ? strstr(design, from) : NULL;
	size_t n = strlen(design);
	char *out;
	if (!at) {
		if (from)
			fprintf(stderr, "edit: '%s' is not in the design\n", from);
		return strdup(design);
	}
	out = malloc(n + strlen(to) + 1);
	memcpy(out, design, (size_t)(at - design));
	strcpy(out + (at - design), to);
	strcat(out, at + strlen(from));
	return out;
}

/* The level named 'name'. */
static const struct spec_level *level(const struct spec_set *s, const char *name)
{
	int l = spec_level_find(&s->arch, name);
	return l < 0 ? NULL : &s->arch.levels[l];
}

static void test_values(void)
{
	char *text = edit("spatial: {permutation: [M, N, K]}",
			  "spatial: {split: len(spec.problem.instance) - 1}");
	struct diag_list dl = DIAG_LIST_INIT;
	const char *texts[1] = { text };
	struct spec_set *s = st_load(texts, 1, NULL, &dl);
	const struct spec_level *buf, *dram;
	unsigned i;

	if (!s) {
		char *d = st_diags(&dl);
		fprintf(stderr, "%s", d);
		free(d);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	dram = level(s, "DRAM");
	buf = level(s, "buf");
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(dram->word_bits, 8);               /* a variable */
	CU_ASSERT_EQUAL(dram->block_size, 8);        /* a container attribute: bus 64 / 8 */
	CU_ASSERT_EQUAL(buf->word_bits, 8);
	CU_ASSERT_EQUAL(buf->block_size, 4);         /* an earlier attribute: datawidth * 4 */
	CU_ASSERT_EQUAL(buf->size_words, 512 * 4);         /* a variable of a variable: DEPTH // 2 */
	CU_ASSERT_DOUBLE_EQUAL(buf->read_bw_words_per_cycle, 4, 0); /* max(2, 32 / 8) = 4.0 */
	CU_ASSERT_EQUAL(buf->instances, 4);                /* meshX: LANES = 2 ** 2 */
	CU_ASSERT_EQUAL(s->workload.bounds[1], 8);         /* N: M * 2 */
	CU_ASSERT_EQUAL(s->workload.bounds[2], 4);         /* K: (N + M) // 3 */
	for (i = 0; i < s->constraints.n; i++)
		if (s->constraints.items[i].kind == SPEC_CON_SPATIAL)
			break;
	CU_ASSERT_FATAL(i < s->constraints.n);
	CU_ASSERT_TRUE(s->constraints.items[i].has_split);
	CU_ASSERT_EQUAL(s->constraints.items[i].split, 2);   /* len(instance) - 1 */
	spec_set_free(s);
	diag_list_release(&dl);
	free(text);
}

/* '--set variables.DW=16' changes every expression that uses DW. */
static void test_override(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_override ov = SPEC_OVERRIDE_INIT;
	const char *texts[1] = { design };
	struct spec_source *src = spec_source_new();
	struct spec_set *s, *t;

	CU_ASSERT_EQUAL(spec_source_add_file(src, st_write("ov.yaml", design), &dl), 0);
	CU_ASSERT_EQUAL(spec_override_parse("variables.DW=16", &ov, &dl), 0);
	s = spec_set_build(src, &ov, 1, NULL, &dl);
	t = spec_set_build(src, NULL, 0, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(level(s, "buf")->word_bits, 16);
	CU_ASSERT_EQUAL(level(s, "buf")->block_size, 4);     /* width follows: 16 * 4 */
	CU_ASSERT_EQUAL(level(s, "buf")->size_words, 1024 * 4);    /* DEPTH = 16 * 128 */
	CU_ASSERT_EQUAL(level(s, "DRAM")->block_size, 4);    /* 64 / 16 */
	CU_ASSERT_EQUAL(level(t, "buf")->word_bits, 8);            /* the source is unchanged */
	(void)texts;
	spec_set_free(s);
	spec_set_free(t);
	spec_source_free(src);
	spec_override_release(&ov);
	diag_list_release(&dl);
}

struct err_row {
	const char *from, *to;
	const char *expected;     /* among st_diags() */
};

static void test_errors(void)
{
	static const struct err_row rows[] = {
		/* a name nothing defines, in an expression a number is read from */
		{ "depth: DEPTH // 2", "depth: NWORDS // 2",
		  "25:14: error: in 'architecture.nodes[3].attributes.depth': name 'NWORDS' is not "
		  "defined" },
		/* a later key is not yet defined (the front end parses in order) */
		{ "width: datawidth * 4", "width: depth * 4",
		  "24:14: error: in 'architecture.nodes[3].attributes.width': name 'depth' is not "
		  "defined" },
		/* a bad variable: the error where it is, a note where it is needed */
		{ "DEPTH: DW * 128", "DEPTH: DW * BANKS",
		  "4:15: error: in 'variables.DEPTH': name 'BANKS' is not defined\n"
		  "25:14: note: needed by 'architecture.nodes[3].attributes.depth'" },
		/* in parentheses, the front end always evaluates: even where text is read */
		{ "name: buf\n", "name: (DRAM + 1)\n",
		  "20:11: error: in 'architecture.nodes[3].name': unsupported operand type(s) for +: "
		  "'dict' and 'int'" },
		{ "meshX: LANES", "meshX: (LANES +)",
		  "16:30: error: in 'architecture.nodes[2].spatial.meshX': invalid syntax: expected "
		  "a value, got ')'" },
		/* arithmetic errors, types and ranges; the value is shown with its expression */
		{ "K: (N + M) // 3", "K: (N - 8) // (M - 4)",
		  "38:33: error: in 'problem.instance.K': integer division or modulo by zero" },
		{ "datawidth: DW\n", "datawidth: DW * 1000\n",
		  "23:18: error: in 'architecture.nodes[3].attributes.datawidth': expected an integer "
		  "in [1, 4096], got 'DW * 1000' = 8000" },
		{ "meshX: LANES", "meshX: LANES * 0",
		  "16:22: error: in 'architecture.nodes[2].spatial.meshX': expected an integer in "
		  "[1, 65536], got 'LANES * 0' = 0" },
		{ "N: M * 2", "N: M * 'x'",
		  "38:23: error: in 'problem.instance.N': unsupported operand type(s) for *: 'int' and "
		  "'str'\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *text = edit(rows[i].from, rows[i].to);
		const char *texts[1] = { text };
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = st_load(texts, 1, NULL, &dl);
		st_assert_diag(s, &dl, true, i, rows[i].expected);
		free(text);
	}
}

/* A variable given in two files must have one value; the same one is fine. */
static void test_two_files(void)
{
	const char *same[2] = { design, "variables: {DW: 8, EXTRA: DW + 1}\n" };
	const char *other[2] = { design, "variables: {version: 0.4, DW: 9}\n" };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(same, 2, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL(s);
	spec_set_free(s);
	diag_list_release(&dl);
	s = st_load(other, 2, NULL, &dl);
	st_assert_diag(s, &dl, true, 0, "1:27: error: variable 'DW' is given twice, with different "
		       "values\n3:7: note: the other value is here");
}

/* Text that is no expression, or names nothing, stays text. */
static void test_text_stays(void)
{
	static const struct {
		const char *from, *to;
	} rows[] = {
		{ "technology: 45nm", "technology: LPDDR4-3200" },          /* names nothing */
		{ "technology: 45nm", "technology: 45 nm" },                /* no expression */
		{ "dimensions: [M, N, K]", "dimensions: [M, N, K]\n    name_ignore: M * 2" },
		{ "spatial: {permutation: [M, N, K]}", "spatial: {factors: M<=4 N=1}" },
		{ "spatial: {permutation: [M, N, K]}", "spatial: {factors: [M<=4, N=1]}" },
		{ "  DW: 8\n", "  DW: 8\n  M: 1\n" },    /* a variable named like a dimension */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *text = edit(rows[i].from, rows[i].to);
		const char *texts[1] = { text };
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = st_load(texts, 1, NULL, &dl);
		if (!s) {
			char *d = st_diags(&dl);
			fprintf(stderr, "row %zu:\n%s", i, d);
			free(d);
		}
		CU_ASSERT_PTR_NOT_NULL(s);
		spec_set_free(s);
		diag_list_release(&dl);
		free(text);
	}
}

static CU_TestInfo vars_tests[] = {
	{ "values in their scopes", test_values },
	{ "overrides of variables", test_override },
	{ "errors, located", test_errors },
	{ "variables in two files", test_two_files },
	{ "text stays text", test_text_stays },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "vars", .pTests = vars_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
