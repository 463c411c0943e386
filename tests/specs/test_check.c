/*
 * check.c: the cross-section checks: components without an ERT table,
 * formats of bypassed tensors, compute optimizations on a workload that
 * does not have two read-only operands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_extra(const char *text, struct diag_list *dl)
{
	static char base[1024], path[1024];
	const char *ptrs[2];
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("extra.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static void test_ert_coverage(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra("ERT: {tables: [{name: x.GLB, actions: [{name: read, "
					"energy: 1}]}]}\n", &dl);
	char *got = st_diags(&dl);
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_EQUAL(dl.n_warnings, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "warning: no ERT table for storage level 'PE'; its "
				      "energies fall back to the built-in estimates"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "warning: no ERT table for storage level 'DRAM'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "warning: no ERT table for compute unit 'mac'"));
	free(got);
	spec_set_free(s);
	diag_list_release(&dl);
	s = load_extra("model: {}\n", &dl);        /* no ERT at all: nothing to say */
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_EQUAL(dl.n, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_unused_format(void)
{
	static const char text[] =
		"mapping:\n"
		"  - {target: GLB, type: datatype, bypass: [A]}\n"
		"  - {target: GLB, type: temporal, factors: M8 N8 K16}\n"
		"sparse_optimizations:\n"
		"  targets:\n"
		"  - name: GLB\n"
		"    representation_format:\n"
		"      data_spaces: [{name: A, ranks: [{format: CP}]}, {name: B, ranks: [{format: CP}]}]\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra(text, &dl);
	char *got = st_diags(&dl);
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_STRING_EQUAL(got, "8:28: warning: the format of 'A' at 'GLB' is unused: the "
			       "mapping bypasses 'A' there\n");
	free(got);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Compute optimizations: one operand is classified (its partner never empty), three of
 * which all may be empty are refused where the optimization is given. */
static void test_compute_operands(void)
{
	static const char one[] =
		"architecture:\n"
		"  subtree: [{name: s, local: [{name: b, class: SRAM}, {name: m, class: intmac}]}]\n"
		"problem:\n"
		"  shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]},\n"
		"          {name: Z, projection: [K], read_write: true}]}\n"
		"  instance: {K: 4, densities: {A: 0.5}}\n"
		"sparse_optimizations:\n"
		"  targets: [{name: m, compute_optimization: [{type: gating}]}]\n";
	static const char three[] =
		"architecture:\n"
		"  subtree: [{name: s, local: [{name: b, class: SRAM}, {name: m, class: intmac}]}]\n"
		"problem:\n"
		"  shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]},\n"
		"          {name: B, projection: [K]}, {name: C, projection: [K]},\n"
		"          {name: Z, projection: [K], read_write: true}]}\n"
		"  instance: {K: 4, densities: {A: 0.5, B: 0.5, C: 0.5}}\n"
		"sparse_optimizations:\n"
		"  targets: [{name: m, compute_optimization: [{type: gating}]}]\n";
	const char *texts[1] = { one };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 1, NULL, &dl);
	char *got = st_diags(&dl);
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	spec_set_free(s);
	diag_list_release(&dl);

	texts[0] = three;
	s = st_load(texts, 1, NULL, &dl);
	got = st_diags(&dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_STRING_EQUAL(got, "9:20: error: compute optimizations need one or two read-only "
			       "operands that may be empty; the workload has 3 read-only operands, "
			       "3 of them sparse\n");
	free(got);
	diag_list_release(&dl);
}

static void test_network_names(void)
{
	static const char text[] =
		"architecture:\n"
		"  subtree:\n"
		"  - name: s\n"
		"    local:\n"
		"    - {name: b, class: SRAM, attributes: {network_read: noc1, network_fill: noc}}\n"
		"    - {name: noc, class: XY_NoC, attributes: {energy_per_hop: 0.5}}\n"
		"    - {name: m, class: intmac, attributes: {network_operand: bus}}\n"
		"problem: {shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]}]}}\n";
	const char *texts[1] = { text };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 1, NULL, &dl);
	char *got = st_diags(&dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_STRING_EQUAL(got,
		"5:57: error: 'network_read' of 'b' names no network component: 'noc1'; did you "
		"mean 'noc'?\n"
		"7:62: error: 'network_operand' of 'm' names no network component: 'bus'\n");
	free(got);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "network names", test_network_names },
	{ "ERT coverage", test_ert_coverage },
	{ "format of a bypassed tensor", test_unused_format },
	{ "compute optimization operands", test_compute_operands },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "check", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
