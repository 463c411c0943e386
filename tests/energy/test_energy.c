/*
 * energy/: compound components expanded as Accelergy does and priced by
 * the plug-in models, on small designs written here. Each row of a table
 * names a component's action (or its area) and the value Accelergy's rules
 * give it, worked out by hand in the row's comment from the published
 * tables (docs/energy.md). Then the located errors, the written tables read
 * back by the ERT loader, and the design key and cache.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/energy.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/* A design of every kind of component, at 45 nm unless a row edits it. */
static const char design[] =
	"variables: {version: 0.4, technology: \"45nm\", global_cycle_seconds: 1e-9}\n"
	"architecture:\n"
	"  version: 0.4\n"
	"  nodes:\n"
	"  - !Container {name: sys}\n"
	"  - !Component {name: DRAM, class: DRAM, attributes: {type: \"LPDDR4\", width: 64, datawidth: 8}}\n"
	"  - !Component\n"
	"    name: RF\n"
	"    class: my_regfile\n"
	"    attributes: {depth: 16, width: 8, datawidth: 8, area_scale: 0.5}\n"
	"  - !Container {name: PE, spatial: {meshX: 4}}\n"
	"  - !Component {name: AG, class: addr_storage, attributes: {depth: 8192, datawidth: 8, width: 8}}\n"
	"  - !Component {name: mac, class: mac8, attributes: {datawidth: 8}}\n"
	"compound_components:\n"
	"  version: 0.4\n"
	"  classes:\n"
	"  - name: regs\n"
	"    attributes: {width: must_specify, depth: must_specify}\n"
	"    subcomponents:\n"
	"    - {name: 'storage[1..width*depth]', class: aladdin_register}\n"
	"    - name: 'comparator[1..depth]'\n"
	"      class: aladdin_comparator\n"
	"      attributes:\n"
	"        n_bits: max(1, ceil(log2(depth)))\n"
	"    actions:\n"
	"    - name: read\n"
	"      subcomponents:\n"
	"      - {name: 'storage[1..width]', actions: [{name: read}]}\n"
	"      - {name: 'comparator[1..depth]', actions: [{name: compare}]}\n"
	"    - name: leak\n"
	"      subcomponents:\n"
	"      - {name: 'comparator[1..depth]', actions: [{name: leak}]}\n"
	"  - name: my_regfile\n"
	"    attributes:\n"
	"      technology: \"must_specify\"\n"
	"      width: must_specify\n"
	"      depth: must_specify\n"
	"      half: 0.5\n"
	"    subcomponents:\n"
	"    - {name: storage, class: regs, area_scale: half, attributes: {width: width, depth: depth}}\n"
	"    - name: 'adders[0..1]'\n"
	"      class: intadder\n"
	"      attributes:\n"
	"        width: max(1, ceil(log2(depth)))\n"
	"    actions:\n"
	"    - name: read\n"
	"      subcomponents:\n"
	"      - {name: storage, actions: [{name: read, energy_scale: half}]}\n"
	"      - {name: 'adders[1]', actions: [{name: add}]}\n"
	"    - name: write\n"
	"      subcomponents:\n"
	"      - {name: 'adders[0]', actions: [{name: add}]}\n"
	"    - name: leak\n"
	"      subcomponents:\n"
	"      - {name: storage, actions: [{name: leak}]}\n"
	"      - {name: 'adders[0..1]', actions: [{name: leak}]}\n"
	"  - name: addr_storage\n"
	"    attributes: {depth: must_specify}\n"
	"    subcomponents:\n"
	"    - {name: gen, class: intadder, attributes: {n_bits: 4}}\n"
	"    actions:\n"
	"    - {name: read, subcomponents: [{name: gen, actions: [{name: add}]}]}\n"
	"    - {name: write, subcomponents: [{name: gen, actions: [{name: add}]}]}\n"
	"  - name: mac8\n"
	"    attributes: {datawidth: must_specify}\n"
	"    subcomponents:\n"
	"    - {name: adder, class: aladdin_adder, attributes: {width: 2 * datawidth}}\n"
	"    - {name: mult, class: aladdin_multiplier, attributes: {width_a: datawidth, width_b: datawidth}}\n"
	"    actions:\n"
	"    - {name: compute, subcomponents: [{name: adder, actions: [{name: add}]}, {name: mult, actions: [{name: multiply}]}]}\n"
	"problem:\n"
	"  version: 0.4\n"
	"  shape:\n"
	"    name: mv\n"
	"    dimensions: [M, K]\n"
	"    data_spaces:\n"
	"    - {name: A, projection: [[[M]], [[K]]]}\n"
	"    - {name: Z, projection: [[[M]]], read_write: true}\n"
	"  instance: {M: 4, K: 4}\n";

/* 'design' with 'from' replaced by 'to' (NULL: unchanged); the caller frees. */
static char *edit(const char *from, const char *to)
{
	const char *at = from ? strstr(design, from) : NULL;
	char *out;

	if (from && !at) {
		fprintf(stderr, "edit: '%s' is not in the design\n", from);
		return NULL;
	}
	if (!at)
		return strdup(design);
	out = malloc(strlen(design) + strlen(to) + 1);
	memcpy(out, design, (size_t)(at - design));
	strcpy(out + (at - design), to);
	strcat(out, at + strlen(from));
	return out;
}

/* The estimate of 'text' (every component); NULL with the diagnostics printed. */
static struct energy_tables *estimate(const char *text, struct spec_set **s_out,
				      struct diag_list *dl)
{
	const char *texts[1] = { text };
	struct energy_options eo = ENERGY_OPTIONS_INIT;
	struct spec_set *s = st_load(texts, 1, NULL, dl);
	struct energy_tables *t;

	*s_out = s;
	if (!s)
		return NULL;
	eo.all = true;
	t = energy_estimate(s, &eo, dl);
	return t;
}

static const struct energy_component *component(const struct energy_tables *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n_components; i++)
		if (!strcmp(t->components[i].component, name))
			return &t->components[i];
	return NULL;
}

/* One expected value: an action's energy (pJ), or with action NULL the area (um^2). */
static const struct {
	const char *from, *to;         /* an edit of the design, or NULL */
	const char *component, *action;
	double value;
	enum energy_family family;     /* the family that priced (all of) it */
} rows[] = {
	/* CACTI's DRAM model: 8 pJ per bit of LPDDR4 */
	{ NULL, NULL, "DRAM", "read", 8.0 * 64, ENERGY_FAMILY_CACTI_DRAM },
	{ "type: \"LPDDR4\"", "type: \"HBM2\"", "DRAM", "write", 3.9 * 64, ENERGY_FAMILY_CACTI_DRAM },
	{ "type: \"LPDDR4\"", "type: \"GDDR6\"", "DRAM", "read", 7.5 * 64, ENERGY_FAMILY_CACTI_DRAM },
	{ NULL, NULL, "DRAM", NULL, 0, ENERGY_FAMILY_CACTI_DRAM },
	/* rf read: (8 registers x 0.009 + 16 comparators x 0.02947) x 0.5 + a 4-bit adder 0.21 x 4/32 */
	{ NULL, NULL, "RF", "read", (8 * 0.009 + 16 * 0.02947) * 0.5 + 0.21 * 4 / 32,
	  ENERGY_FAMILY_LIBRARY },
	{ NULL, NULL, "RF", "write", 0.21 * 4 / 32, ENERGY_FAMILY_ALADDIN },
	/* leak: 16 comparators x 2.51e-5 (Library) + 2 adders x 0.0023 x 4/32 (Aladdin, 1 ns row) */
	{ NULL, NULL, "RF", "leak", 16 * 2.51e-5 + 2 * 0.0023 * 4 / 32, ENERGY_FAMILY_LIBRARY },
	/* area: (128 x 5.98 + 16 x 71) x 0.5 (subcomponent) x 0.5 (the component's area_scale)
	 * + 2 adders x 179 x 4/32 x 0.5 (Aladdin's 5 ns area row) */
	{ NULL, NULL, "RF", NULL, (128 * 5.98 + 16 * 71) * 0.25 + 2 * 179.0 * 4 / 32 * 0.5,
	  ENERGY_FAMILY_LIBRARY },
	/* at 32 nm: the Library scales by Stillmaker & Baas (0.6593 energy); Aladdin has no 32 nm,
	 * so NeuroSim prices the adder: its 'width' is not NeuroSim's 'n_bits', which defaults
	 * to 8 (32 nm PTM LP, 8 bits: 0.01630403 pJ, the eyeriss_like reference's value) */
	{ "technology: \"45nm\"", "technology: \"32nm\"", "RF", "read",
	  (8 * 0.009 + 16 * 0.02947) * 0.5 * 0.6593402787798331 + 0.01630403,
	  ENERGY_FAMILY_LIBRARY },
	/* NeuroSim's 4-bit adder at 45 nm (no 'width': Aladdin cannot, NeuroSim can) */
	{ NULL, NULL, "AG", "read", 0.01635491, ENERGY_FAMILY_NEUROSIM },
	{ NULL, NULL, "AG", NULL, 23.26968, ENERGY_FAMILY_NEUROSIM },
	{ "technology: \"45nm\"", "technology: \"65nm\"", "AG", NULL,
	  28 * 11.4 * 9 * 4 * 0.065 * 0.065, ENERGY_FAMILY_NEUROSIM },
	/* mac8: a 16-bit adder 0.21 x 16/32 + an 8x8 multiplier 12.68 x (8/32)^2 */
	{ NULL, NULL, "mac", "compute", 0.105 + 12.68 / 16, ENERGY_FAMILY_LIBRARY },
	{ NULL, NULL, "mac", NULL, 278.0 / 2 + 6350.0 / 16, ENERGY_FAMILY_LIBRARY },
	/* a 2 ns cycle: Aladdin's 2 ns row (0.0858 pJ per 32-bit add) */
	{ "global_cycle_seconds: 1e-9", "global_cycle_seconds: 2e-9", "RF", "write", 0.0858 * 4 / 32,
	  ENERGY_FAMILY_ALADDIN },
};

static void test_values(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		char *text = edit(rows[i].from, rows[i].to);
		struct spec_set *s = NULL;
		struct energy_tables *t = text ? estimate(text, &s, &dl) : NULL;
		const struct energy_component *c = t ? component(t, rows[i].component) : NULL;
		const struct energy_action *a;
		double got = NAN, share = 0;
		if (!t) {
			char *d = st_diags(&dl);
			fprintf(stderr, "row %zu: %s", i, d);
			free(d);
		} else if (c && rows[i].action && (a = energy_component_action(c, rows[i].action))) {
			got = a->energy_pj;
			share = a->family_pj[rows[i].family];
		} else if (c && !rows[i].action) {
			got = c->area_um2;
			share = c->area_family_um2[rows[i].family];
		}
		if (!(fabs(got - rows[i].value) <= 1e-6 * fabs(rows[i].value) + 1e-12))
			fprintf(stderr, "row %zu: %s %s: got %.9g, expected %.9g\n", i,
				rows[i].component, rows[i].action ? rows[i].action : "area", got,
				rows[i].value);
		CU_ASSERT_DOUBLE_EQUAL(got, rows[i].value, 1e-6 * fabs(rows[i].value) + 1e-12);
		CU_ASSERT_TRUE(share > 0 || rows[i].value == 0);
		energy_tables_free(t);
		spec_set_free(s);
		diag_list_release(&dl);
		free(text);
	}
}

/* Located errors: the edit, and a piece of the one expected error. */
static const struct {
	const char *from, *to, *expected;
} bad[] = {
	{ "class: mac8,", "class: mac9,",
	  "error: component class 'mac9' is unknown: no compound class of that name in "
	  "'compound_components'/'components', and no estimator prices it; did you mean 'mac8'?" },
	{ "class: aladdin_comparator\n", "class: aladdin_comparater\n",
	  "error: subcomponent class 'aladdin_comparater' is unknown" },
	{ "attributes: {datawidth: 8}}", "attributes: {}}",
	  "error: 'mac' (class mac8) must specify attribute 'datawidth'" },
	{ "width: max(1, ceil(log2(depth)))\n", "width: max(1, ceil(log2(deepth)))\n",
	  "error: in 'compound_components.classes[1].subcomponents[1].attributes.width': cannot "
	  "evaluate 'max(1, ceil(log2(deepth)))': name 'deepth' is not defined" },
	{ "technology: \"45nm\"", "technology: \"3nm\"",
	  "technology 3 nm is outside the 7-130 nm the library scales to" },
	/* without a technology: the DRAM is priced (by type), the first class that needs one is not */
	{ "technology: \"45nm\", ", "",
	  "error: 'RF' (class my_regfile) must specify attribute 'technology'" },
	{ "technology: \"45nm\", ", "",
	  "error: 'AG' has no 'technology' to estimate its energy and area with" },
	{ "type: \"LPDDR4\"", "type: \"DDR9\"",
	  "DRAM type 'DDR9' is not one CACTI's DRAM model knows" },
	{ "{name: 'adders[1]', actions: [{name: add}]}", "{name: 'adder[1]', actions: [{name: add}]}",
	  "action 'read' uses subcomponent 'adder[1]', which its class does not declare" },
	{ "name: 'comparator[1..depth]'\n", "name: 'comparator[depth..1]'\n",
	  "the range of 'comparator[depth..1]' is [16..1]: its end is before its start" },
};

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		char *text = edit(bad[i].from, bad[i].to), *d;
		struct spec_set *s = NULL;
		struct energy_tables *t;
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		t = estimate(text, &s, &dl);
		CU_ASSERT_PTR_NULL(t);
		d = st_diags(&dl);
		if (!strstr(d, bad[i].expected))
			fprintf(stderr, "row %zu: expected '%s' in:\n%s", i, bad[i].expected, d);
		CU_ASSERT_PTR_NOT_NULL(strstr(d, bad[i].expected));
		free(d);
		energy_tables_free(t);
		spec_set_free(s);
		diag_list_release(&dl);
		free(text);
	}
}

/*
 * A DRAM above the container that sets the technology, as in the Timeloop
 * example designs: CACTI's DRAM model prices it by its type; nothing is refused.
 */
static void test_dram_without_technology(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	char *text = edit("  - !Component\n    name: RF\n",
			  "  - !Container {name: chip, attributes: {technology: \"45nm\"}}\n"
			  "  - !Component\n    name: RF\n");
	char *no_global = NULL, *at;
	struct spec_set *s = NULL;
	struct energy_tables *t;
	const struct energy_component *c;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	at = strstr(text, "technology: \"45nm\", ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	no_global = strdup(text);
	strcpy(no_global + (at - text), at + strlen("technology: \"45nm\", "));
	t = estimate(no_global, &s, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	c = component(t, "DRAM");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = 0; i < c->n_actions && strcmp(c->actions[i].name, "read"); i++)
		;
	CU_ASSERT_FATAL(i < c->n_actions);
	CU_ASSERT_DOUBLE_EQUAL(c->actions[i].energy_pj, 8.0 * 64, 1e-9);
	CU_ASSERT_EQUAL(dl.n_errors, 0);
	energy_tables_free(t);
	spec_set_free(s);
	diag_list_release(&dl);
	free(no_global);
	free(text);
}

/* The written ERT and ART read back as the user's tables give the same numbers. */
static void test_round_trip(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf ert = STRBUF_INIT, art = STRBUF_INIT;
	struct spec_set *s = NULL, *u;
	struct energy_tables *t = estimate(design, &s, &dl);
	const char *texts[3];
	size_t i, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	energy_write_ert(t, &ert);
	energy_write_art(t, &art);
	texts[0] = design;
	texts[1] = ert.buf;
	texts[2] = art.buf;
	u = st_load(texts, 3, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	for (i = 0; i < t->n_components; i++) {
		const struct energy_component *c = &t->components[i];
		const struct spec_ert_table *e = c->level >= 0 ? u->arch.levels[c->level].ert
							     : u->arch.compute.ert;
		const struct spec_art_entry *ar = c->level >= 0 ? u->arch.levels[c->level].art
							      : u->arch.compute.art;
		if (c->n_actions) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			CU_ASSERT_EQUAL(e->n_actions, c->n_actions);
			for (k = 0; k < c->n_actions && k < e->n_actions; k++)
				CU_ASSERT_DOUBLE_EQUAL(e->actions[k].energy_pj, c->actions[k].energy_pj,
						       5e-7);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(ar);
		CU_ASSERT_DOUBLE_EQUAL(ar->area_um2, c->area_um2, 5e-7);
	}
	/* a user's tables cover everything: nothing is left to estimate */
	CU_ASSERT_FALSE(energy_needed(u, NULL));
	CU_ASSERT_TRUE(energy_needed(s, NULL));
	spec_set_free(u);
	strbuf_release(&ert);
	strbuf_release(&art);
	energy_tables_free(t);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* The key follows what the estimate reads; the cache builds once per key. */
static void test_cache(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	char *other = edit("depth: 16, width: 8", "depth: 32, width: 8");
	char *problem = edit("instance: {M: 4, K: 4}", "instance: {M: 8, K: 4}");
	const char *t1[1] = { design }, *t2[1] = { other }, *t3[1] = { problem };
	struct spec_set *a = st_load(t1, 1, NULL, &dl), *b, *c;
	struct energy_cache *cache = energy_cache_new();
	const struct energy_tables *ta, *tb, *tc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	b = st_load(t2, 1, NULL, &dl);
	c = st_load(t3, 1, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_NOT_EQUAL(energy_design_key(a, NULL), energy_design_key(b, NULL));
	CU_ASSERT_EQUAL(energy_design_key(a, NULL), energy_design_key(c, NULL));  /* a problem */
	ta = energy_cache_get(cache, a, NULL, &dl);
	tc = energy_cache_get(cache, c, NULL, &dl);
	tb = energy_cache_get(cache, b, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
	CU_ASSERT_PTR_EQUAL(ta, tc);                      /* built once */
	CU_ASSERT_PTR_NOT_EQUAL(ta, tb);
	energy_cache_free(cache);
	spec_set_free(a);
	spec_set_free(b);
	spec_set_free(c);
	diag_list_release(&dl);
	free(other);
	free(problem);
}

static CU_TestInfo tests[] = {
	{ "actions and areas by Accelergy's rules", test_values },
	{ "located errors", test_errors },
	{ "a DRAM needs no technology", test_dram_without_technology },
	{ "ERT and ART written and read back", test_round_trip },
	{ "the design key and the cache", test_cache },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "energy", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
