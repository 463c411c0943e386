/*
 * components.c: Accelergy's compound component classes as written (every
 * value kept as text with its quoting and location), both top-level keys
 * and several files concatenated, a list of lists as include_all() gives
 * it, a class defined twice (the later one, with a warning), the scalar
 * variables, the attributes a class declares not warned about as typos,
 * and the structural errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static const char arch[] =
	"variables: {version: 0.4, technology: \"45nm\", global_cycle_seconds: 2e-9}\n"
	"architecture:\n"
	"  version: 0.4\n"
	"  nodes:\n"
	"  - !Container {name: sys}\n"
	"  - !Component {name: DRAM, class: DRAM, attributes: {width: 64, datawidth: 8}}\n"
	"  - !Component\n"
	"    name: buf\n"
	"    class: smartbuffer\n"
	"    attributes: {depth: 256, width: 32, datawidth: 8, nports: 2, n_adders: 2}\n"
	"  - !Component {name: mac, class: intmac, attributes: {datawidth: 8}}\n"
	"problem:\n"
	"  version: 0.4\n"
	"  shape:\n"
	"    name: mm\n"
	"    dimensions: [M, K]\n"
	"    data_spaces:\n"
	"    - {name: A, projection: [[[M]], [[K]]]}\n"
	"    - {name: Z, projection: [[[M]]], read_write: true}\n"
	"  instance: {M: 4, K: 4}\n";

static const char classes[] =
	"compound_components:\n"
	"  version: 0.4\n"
	"  classes:\n"
	"  - name: smartbuffer\n"
	"    attributes:\n"
	"      technology: \"must_specify\"\n"
	"      depth: must_specify\n"
	"      n_adders: 1\n"
	"      rows: max(64, depth)\n"
	"    subcomponents:\n"
	"    - name: storage\n"
	"      class: SRAM\n"
	"      area_scale: depth / rows\n"
	"      attributes: {width: width, depth: rows}\n"
	"    - {name: 'adders[1..n_adders]', class: intadder, attributes: {width: 8}}\n"
	"    actions:\n"
	"    - name: read\n"
	"      subcomponents:\n"
	"      - name: storage\n"
	"        actions: [{name: read, energy_scale: depth / rows, arguments: {data_delta: 1}}]\n"
	"      - {name: 'adders[1..1]', actions: [{name: add}]}\n"
	"    - name: leak\n"
	"      subcomponents: []\n";

/* The second file: 'components', a list of lists, and a class given again. */
static const char more[] =
	"components:\n"
	"  version: 0.4\n"
	"  classes:\n"
	"  - - name: intmac\n"
	"      attributes: {datawidth: must_specify}\n"
	"      subcomponents: [{name: m, class: aladdin_multiplier}]\n"
	"      actions: [{name: compute, subcomponents: [{name: m, actions: [{name: read}]}]}]\n"
	"  - - name: smartbuffer\n"
	"      attributes: {depth: 1}\n"
	"      subcomponents: []\n"
	"      actions: []\n"
	"  - {name: plain, attributes: {width: 16}}\n";

static const struct spec_cc_class *find(const struct spec_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->components.n_classes; i++)
		if (!strcmp(s->components.classes[i].name, name))
			return &s->components.classes[i];
	return NULL;
}

static struct spec_set *load2(const char *a, const char *b, const char *c, struct diag_list *dl)
{
	const char *texts[3] = { a, b, c };
	struct spec_set *s = st_load(texts, c ? 3 : 2, NULL, dl);

	if (!s) {
		char *d = st_diags(dl);
		fprintf(stderr, "%s", d);
		free(d);
	}
	return s;
}

static void test_parse(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load2(arch, classes, NULL, &dl);
	const struct spec_cc_class *c;
	const struct spec_cc_sub *sub;
	const struct spec_cc_subaction *sa;
	char *d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->components.n_classes, 1);
	c = find(s, "smartbuffer");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_FALSE(c->is_primitive);
	CU_ASSERT_EQUAL(c->n_attrs, 4);
	CU_ASSERT_STRING_EQUAL(c->attrs[0].key, "technology");
	CU_ASSERT_TRUE(c->attrs[0].is_quoted);              /* "must_specify": text */
	CU_ASSERT_FALSE(c->attrs[1].is_quoted);             /* must_specify: a bare name */
	CU_ASSERT_STRING_EQUAL(c->attrs[3].text, "max(64, depth)");
	CU_ASSERT_STRING_EQUAL(c->attrs[3].path, "compound_components.classes[0].attributes.rows");
	CU_ASSERT_EQUAL(c->attrs[3].loc.line, 9);
	CU_ASSERT_EQUAL(c->attrs[3].loc.col, 13);
	CU_ASSERT_EQUAL(c->n_subs, 2);
	sub = &c->subs[0];
	CU_ASSERT_STRING_EQUAL(sub->class_name, "SRAM");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sub->area_scale);
	CU_ASSERT_STRING_EQUAL(sub->area_scale->text, "depth / rows");
	CU_ASSERT_STRING_EQUAL(c->subs[1].name, "adders[1..n_adders]");
	CU_ASSERT_EQUAL(c->n_actions, 2);
	CU_ASSERT_EQUAL(c->actions[0].n_uses, 2);
	sa = &c->actions[0].uses[0].actions[0];
	CU_ASSERT_STRING_EQUAL(sa->name, "read");
	CU_ASSERT_STRING_EQUAL(sa->energy_scale->text, "depth / rows");
	CU_ASSERT_EQUAL(sa->n_args, 1);
	CU_ASSERT_STRING_EQUAL(c->actions[0].uses[1].name, "adders[1..1]");
	CU_ASSERT_EQUAL(c->actions[1].n_uses, 0);
	/* the variables, evaluated and typed */
	CU_ASSERT_EQUAL(s->n_variables, 3);
	CU_ASSERT_STRING_EQUAL(s->variables[1].key, "technology");
	CU_ASSERT_TRUE(s->variables[1].is_quoted);
	CU_ASSERT_STRING_EQUAL(s->variables[2].value, "2e-9");
	/* nports (an attribute Accelergy designs use) and n_adders (declared by the class): no warning */
	d = st_diags(&dl);
	CU_ASSERT_PTR_NULL(strstr(d, "nports"));
	CU_ASSERT_PTR_NULL(strstr(d, "n_adders"));
	free(d);
	CU_ASSERT_STRING_EQUAL(s->arch.top_name, "sys");
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_merge(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load2(arch, classes, more, &dl);
	const struct spec_cc_class *c;
	char *d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->components.n_classes, 3);
	c = find(s, "smartbuffer");                         /* the later definition */
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n_attrs, 1);
	CU_ASSERT_PTR_NOT_NULL(find(s, "intmac"));
	CU_ASSERT_TRUE(find(s, "plain") && find(s, "plain")->is_primitive);
	d = st_diags(&dl);
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "warning: compound component class 'smartbuffer' is "
				      "defined again; this definition replaces the first"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "note: 'smartbuffer' first defined here"));
	free(d);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Structural errors, each located with its key path. */
static const struct {
	const char *from, *to, *expected;
} bad[] = {
	{ "  - name: smartbuffer\n", "  - nam: smartbuffer\n",
	  "error: in 'compound_components.classes[0]': a compound component class needs a 'name'" },
	{ "      class: SRAM\n", "      clas: SRAM\n",
	  "error: in 'compound_components.classes[0].subcomponents[0]': unknown key 'clas'" },
	{ "      class: SRAM\n", "",
	  "error: in 'compound_components.classes[0].subcomponents[0]': subcomponent 'storage' needs a 'class'" },
	{ "      - {name: 'adders[1..1]', actions: [{name: add}]}\n", "      - {name: 'adders[1..1]'}\n",
	  "error: in 'compound_components.classes[0].actions[0].subcomponents[1]': subcomponent 'adders[1..1]' needs its 'actions'" },
	{ "      rows: max(64, depth)\n", "      rows: [64]\n",
	  "error: in 'compound_components.classes[0].attributes.rows': expected a single value, got a list" },
	{ "    subcomponents:\n    - name: storage", "    subcomponent:\n    - name: storage",
	  "error: in 'compound_components.classes[0]': unknown key 'subcomponent'; did you mean 'subcomponents'?" },
};

/* 'classes' with 'from' replaced by 'to'; caller frees. */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(classes, from);
	char *out;

	if (!at)
		return NULL;
	out = malloc(strlen(classes) + strlen(to) + 1);
	memcpy(out, classes, (size_t)(at - classes));
	strcpy(out + (at - classes), to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		char *text = edit(bad[i].from, bad[i].to);
		const char *texts[2] = { arch, text };
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		st_assert_diag(st_load(texts, 2, NULL, &dl), &dl, true, i, bad[i].expected);
		free(text);
	}
}

/*
 * The builds of one source share the classes it loaded once: a build whose
 * overrides leave the classes as the files give them gets the same ones; an
 * override of a class gets its own, with the overridden value; classes whose
 * load says something (a class defined twice) are loaded by every build, so
 * that every build reports it.
 */
static void test_shared(void)
{
	const char *files[3] = { st_write("a.yaml", arch), st_write("c.yaml", classes),
				 st_write("m.yaml", more) };
	struct spec_source *src = spec_source_new(), *twice = spec_source_new();
	struct spec_override ov = SPEC_OVERRIDE_INIT;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s1, *s2, *s3, *s4;
	size_t i, warned = 0;

	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(spec_source_add_file(twice, files[i], &dl), 0);
		if (i < 2)
			CU_ASSERT_EQUAL(spec_source_add_file(src, files[i], &dl), 0);
	}
	CU_ASSERT_EQUAL_FATAL(spec_override_parse("compound_components.classes[0].attributes."
						  "n_adders=3", &ov, &dl), 0);
	s1 = spec_set_build(src, NULL, 0, NULL, &dl);
	s2 = spec_set_build(src, NULL, 0, NULL, &dl);
	s3 = spec_set_build(src, &ov, 1, NULL, &dl);
	s4 = spec_set_build(src, NULL, 0, NULL, &dl);
	CU_ASSERT_FATAL(s1 && s2 && s3 && s4);
	CU_ASSERT_PTR_EQUAL(s1->components.classes, s2->components.classes);
	CU_ASSERT_PTR_EQUAL(s1->components.classes, s4->components.classes);
	CU_ASSERT_PTR_NOT_EQUAL(s1->components.classes, s3->components.classes);
	CU_ASSERT_STRING_EQUAL(find(s3, "smartbuffer")->attrs[2].text, "3");
	CU_ASSERT_STRING_EQUAL(find(s4, "smartbuffer")->attrs[2].text, "1");
	CU_ASSERT_STRING_EQUAL(find(s2, "smartbuffer")->attrs[3].path,
			       "compound_components.classes[0].attributes.rows");
	CU_ASSERT_EQUAL(s4->components.n_classes, 1);
	spec_set_free(s1);
	spec_set_free(s2);
	spec_set_free(s3);
	spec_set_free(s4);
	CU_ASSERT_EQUAL(dl.n, 0);
	for (i = 0; i < 2; i++) {
		s1 = spec_set_build(twice, NULL, 0, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL(s1);
		CU_ASSERT_EQUAL(s1 ? s1->components.n_classes : 0, 3);
		spec_set_free(s1);
	}
	for (i = 0; i < dl.n; i++)
		warned += strstr(dl.items[i].message, "is defined again") != NULL;
	CU_ASSERT_EQUAL(warned, 2);
	spec_override_release(&ov);
	diag_list_release(&dl);
	spec_source_free(src);
	spec_source_free(twice);
}

static CU_TestInfo tests[] = {
	{ "classes as written, variables, no typo warnings", test_parse },
	{ "two keys, several files, a class given twice", test_merge },
	{ "structural errors, located", test_errors },
	{ "classes loaded once for the builds of a source", test_shared },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "components", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
