/*
 * energy.c: ERT tables in list and (v0.2) map form, the maximum over an
 * action's argument variants, table-to-component matching by the name
 * after the last '.', the 'wire' table, ART entries.
 * Uses tests/data/specs/bad/base.yaml (levels PE, GLB, DRAM; compute mac).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_energy(const char *text, struct diag_list *dl)
{
	static char base[1024], path[1024];
	const char *ptrs[2];
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("energy.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static double energy_of(const struct spec_ert_table *t, const char *action, unsigned *variants)
{
	size_t i;
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (i = 0; i < t->n_actions; i++) {
		if (!strcmp(t->actions[i].name, action)) {
			*variants = t->actions[i].n_variants;
			return t->actions[i].energy_pj;
		}
	}
	return -1;
}

static void test_list_form(void)
{
	static const char text[] =
		"ERT:\n"
		"  version: 0.3\n"
		"  tables:\n"
		"  - name: system.chip.GLB[1..1]\n"
		"    actions:\n"
		"    - {name: read, arguments: {address_delta: 0}, energy: 1.5}\n"
		"    - {name: read, arguments: {address_delta: 1}, energy: 2.5}\n"
		"    - {name: read, arguments: {address_delta: 2}, energy: 2.0}\n"
		"    - {name: leak, energy: 0.01}\n"
		"  - name: PE\n"
		"    actions: [{name: read, energy: 0.25}]\n"
		"  - name: top.mac[0..3]\n"
		"    actions: [{name: compute, energy: 0.5}]\n"
		"  - name: top.wire\n"
		"    actions: [{name: transfer_random, energy: 0.07}]\n"
		"ART:\n"
		"  tables:\n"
		"  - {name: 'system.chip.GLB[1..1]', area: 1000}\n"
		"  - {name: 'top.mac[0..3]', area: 12.5}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_energy(text, &dl);
	const struct spec_level *glb;
	unsigned v = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(s->energy.has_ert);
	CU_ASSERT_STRING_EQUAL(s->energy.ert_version, "0.3");
	CU_ASSERT_EQUAL(s->energy.n_ert, 4);
	glb = &s->arch.levels[1];
	CU_ASSERT_STRING_EQUAL(glb->ert->component, "GLB");
	CU_ASSERT_STRING_EQUAL(glb->ert->name, "system.chip.GLB[1..1]");
	CU_ASSERT_DOUBLE_EQUAL(energy_of(glb->ert, "read", &v), 2.5, 0);
	CU_ASSERT_EQUAL(v, 3);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(glb->ert, "leak", &v), 0.01, 0);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.levels[0].ert, "read", &v), 0.25, 0);
	CU_ASSERT_PTR_NULL(s->arch.levels[2].ert);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.compute.ert, "compute", &v), 0.5, 0);
	CU_ASSERT_TRUE(glb->network.has_wire_energy);
	CU_ASSERT_DOUBLE_EQUAL(glb->network.wire_energy_pj, 0.07, 0);
	CU_ASSERT_TRUE(s->energy.has_art);
	CU_ASSERT_DOUBLE_EQUAL(glb->art->area_um2, 1000, 0);
	CU_ASSERT_DOUBLE_EQUAL(s->arch.compute.art->area_um2, 12.5, 0);
	CU_ASSERT_PTR_NULL(s->arch.levels[0].art);
	/* DRAM has no table: the check warns once */
	CU_ASSERT_EQUAL(dl.n_warnings, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(dl.items[0].message, "no ERT table for storage level 'DRAM'"));
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_map_form(void)
{
	static const char text[] =
		"ERT:\n"
		"  version: 0.2\n"
		"  tables:\n"
		"    sys.GLB:\n"
		"      read: [{arguments: {a: 0}, energy: 3}, {arguments: {a: 1}, energy: 4}]\n"
		"      write: {energy: 2}\n"
		"    sys.PE:\n"
		"      actions: {read: 1.0}\n"
		"    sys.DRAM: {read: 100}\n"
		"    sys.mac: {compute: 0.3}\n"
		"ART:\n"
		"  tables: {sys.GLB: 55}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_energy(text, &dl);
	unsigned v = 0;

	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(dl.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.levels[1].ert, "read", &v), 4, 0);
	CU_ASSERT_EQUAL(v, 2);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.levels[1].ert, "write", &v), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.levels[0].ert, "read", &v), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(energy_of(s->arch.levels[2].ert, "read", &v), 100, 0);
	CU_ASSERT_DOUBLE_EQUAL(s->arch.levels[1].art->area_um2, 55, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* ERT tables from two files are merged. */
static void test_two_files(void)
{
	static char base[1024], p1[1024], p2[1024];
	const char *ptrs[3] = { base, p1, p2 };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(p1, sizeof(p1), "%s", st_write("e1.yaml",
		 "ERT: {version: 0.4, tables: [{name: a.GLB, actions: [{name: read, energy: 1}]}]}\n"));
	snprintf(p2, sizeof(p2), "%s", st_write("e2.yaml",
		 "ERT: {tables: [{name: a.PE, actions: [{name: read, energy: 2}]}]}\n"));
	s = spec_set_load(ptrs, 3, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->energy.n_ert, 2);
	CU_ASSERT_PTR_NOT_NULL(s->arch.levels[0].ert);
	CU_ASSERT_PTR_NOT_NULL(s->arch.levels[1].ert);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "list form, variants, matching, wire, ART", test_list_form },
	{ "v0.2 map form", test_map_form },
	{ "tables from two files", test_two_files },
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
