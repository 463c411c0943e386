/*
 * arch.c: the subtree/local dialects. A v0.3 tree with nested subtrees,
 * [a..b] ranges and inherited attributes equals its flattened v0.4 form;
 * the node-list good spec equals its flattened form (constraints too);
 * instance ranges and class-name classification.
 */
#include <stdio.h>
#include <string.h>

#include "specs/specs_int.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_good(const char *const *names, size_t n)
{
	static char buf[8][1024];
	const char *ptrs[8];
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s", unit_data_path("specs/good"));
		strncat(buf[i], "/", sizeof(buf[i]) - strlen(buf[i]) - 1);
		strncat(buf[i], names[i], sizeof(buf[i]) - strlen(buf[i]) - 1);
		ptrs[i] = buf[i];
	}
	s = spec_set_load(ptrs, n, NULL, &dl);
	if (!s || dl.n)
		diag_print(&dl, stderr);
	CU_ASSERT_EQUAL(dl.n, 0);     /* not even a warning */
	diag_list_release(&dl);
	return s;
}

static void test_v03_tree_equals_flattened(void)
{
	static const char *const tree[] = { "tree_v03.yaml", "conv1d.yaml", "map_tree.yaml" };
	static const char *const flat[] = { "flat_v04.yaml", "conv1d.yaml", "map_tree.yaml" };
	struct spec_set *a = load_good(tree, 3), *b = load_good(flat, 3);

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(a->arch.dialect, SPEC_DIALECT_V03_TREE);
	CU_ASSERT_EQUAL(b->arch.dialect, SPEC_DIALECT_V04_FLAT);
	st_assert_same_design(a, b, true);
	/* counts multiply down the tree: row[0..1] x PE[0..3] */
	CU_ASSERT_EQUAL(a->arch.levels[0].instances, 8);
	CU_ASSERT_EQUAL(a->arch.levels[0].mesh_x, 4);
	CU_ASSERT_EQUAL(a->arch.levels[0].mesh_y, 2);
	CU_ASSERT_EQUAL(a->arch.levels[1].fanout_x, 4);
	CU_ASSERT_EQUAL(a->arch.levels[1].fanout_y, 2);
	/* inherited: datawidth 8 from 'system', overridden by 16 in 'row' */
	CU_ASSERT_EQUAL(a->arch.levels[1].word_bits, 8);
	CU_ASSERT_EQUAL(a->arch.levels[0].word_bits, 16);
	CU_ASSERT_EQUAL(a->arch.compute.word_bits, 16);
	CU_ASSERT_DOUBLE_EQUAL(a->arch.levels[1].ert->actions[0].energy_pj, 12.25, 0);
	CU_ASSERT_EQUAL(a->arch.levels[1].ert->actions[0].n_variants, 2);
	spec_set_free(a);
	spec_set_free(b);
}

static void test_nodes_equal_flattened(void)
{
	static const char *const nodes[] = { "nodes_v04.yaml", "conv1d.yaml", "map_nodes.yaml" };
	static const char *const flat[] = { "nodes_flattened.yaml", "conv1d.yaml", "map_nodes.yaml" };
	struct spec_set *a = load_good(nodes, 3), *b = load_good(flat, 3);

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(a->arch.dialect, SPEC_DIALECT_V04_NODES);
	st_assert_same_design(a, b, true);
	CU_ASSERT_EQUAL(a->arch.n_levels, 5);
	CU_ASSERT_STRING_EQUAL(a->arch.levels[2].name, "inter_PE_spatial");
	CU_ASSERT_TRUE(a->arch.levels[2].is_dummy);
	CU_ASSERT_TRUE(a->sparse.present);
	CU_ASSERT_EQUAL(a->sparse.n_targets, 3);
	CU_ASSERT_TRUE(a->sparse.targets[2].is_compute);
	CU_ASSERT_TRUE(a->sparse.targets[2].compute_skipping);
	spec_set_free(a);
	spec_set_free(b);
}

struct range_row {
	const char *text;
	int rc;
	const char *name;
	uint64_t count;
};

static const struct range_row range_rows[] = {
	{ "DRAM", 0, "DRAM", 1 },
	{ "PE[0..167]", 0, "PE", 168 },
	{ "mac[1..1]", 0, "mac", 1 },
	{ "buf[10..12]", 0, "buf", 3 },
	{ "x[3..1]", -1, NULL, 0 },
	{ "x[1..]", -1, NULL, 0 },
	{ "x[1-4]", -1, NULL, 0 },
	{ "x[1..4]y", -1, NULL, 0 },
	{ "[1..4]", -1, NULL, 0 },
	{ "x[a..b]", -1, NULL, 0 },
};

static void test_split_range(void)
{
	struct arena a = ARENA_INIT;
	size_t i;
	for (i = 0; i < sizeof(range_rows) / sizeof(range_rows[0]); i++) {
		const char *name = NULL;
		uint64_t count = 0;
		int rc = spec_split_range(&a, range_rows[i].text, &name, &count);
		CU_ASSERT_EQUAL(rc, range_rows[i].rc);
		if (rc == 0) {
			CU_ASSERT_STRING_EQUAL(name, range_rows[i].name);
			CU_ASSERT_EQUAL(count, range_rows[i].count);
		}
	}
	arena_release(&a);
}

static void test_classify(void)
{
	static const struct { const char *cls; enum comp_kind kind; } rows[] = {
		{ "DRAM", COMP_STORAGE }, { "SRAM", COMP_STORAGE },
		{ "smartbuffer_RF", COMP_STORAGE }, { "smartbuffer_metadata", COMP_STORAGE },
		{ "regfile_metadata", COMP_STORAGE }, { "storage", COMP_STORAGE },
		{ "dummy_storage", COMP_STORAGE }, { "intmac", COMP_COMPUTE },
		{ "fpmac", COMP_COMPUTE }, { "compute", COMP_COMPUTE }, { "mac", COMP_COMPUTE },
		{ "XY_NoC", COMP_NETWORK }, { "Legacy", COMP_NETWORK },
		{ "ReductionTree", COMP_NETWORK }, { "SimpleMulticast", COMP_NETWORK },
		{ "wire", COMP_OTHER }, { "aladdin_adder", COMP_OTHER }, { "sram", COMP_OTHER },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_ASSERT_EQUAL(spec_classify(rows[i].cls), rows[i].kind);
}

static const char tree_prob[] =
	"problem:\n"
	"  shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]}]}\n"
	"  instance: {K: 4}\n";

/* A subtree name's count multiplies, and an explicit 'instances' wins. */
static void test_counts_and_instances_attribute(void)
{
	static const char arch[] =
		"architecture:\n"
		"  subtree:\n"
		"  - name: 'chip[0..1]'\n"
		"    local:\n"
		"    - {name: 'GLB[0..2]', class: SRAM, attributes: {depth: 8}}\n"
		"    - {name: RF, class: regfile, attributes: {depth: 4, instances: 48, meshX: 6}}\n"
		"    - {name: mac, class: intmac, attributes: {instances: 48, meshX: 6}}\n";
	const char *texts[] = { arch, tree_prob };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, NULL, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->arch.levels[1].instances, 6);
	CU_ASSERT_EQUAL(s->arch.levels[1].mesh_x, 6);
	CU_ASSERT_EQUAL(s->arch.levels[1].mesh_y, 1);
	CU_ASSERT_EQUAL(s->arch.levels[0].instances, 48);
	CU_ASSERT_EQUAL(s->arch.levels[0].mesh_y, 8);
	CU_ASSERT_EQUAL(s->arch.levels[1].fanout_x, 1);
	CU_ASSERT_EQUAL(s->arch.levels[1].fanout_y, 8);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "v0.3 tree equals its flattened form", test_v03_tree_equals_flattened },
	{ "node list good spec equals its flattened form", test_nodes_equal_flattened },
	{ "name[a..b] ranges", test_split_range },
	{ "classification by class name", test_classify },
	{ "counts multiply; instances attribute", test_counts_and_instances_attribute },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "arch", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
