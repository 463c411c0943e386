/*
 * The v0.4 node list: each sparse conformance case's source/arch.yaml +
 * source/problem.yaml must give the same design as the front end's
 * flattened input.yaml; plus mesh propagation, !Parallel, inheritance and
 * the node-list errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static const char *const source_cases[] = {
	"01.2.1-DUDU-dot-product", "01.2.2-SUDU-dot-product", "01.2.3-SCDU-dot-product",
	"02.2.1-spMspM", "02.2.2-spMspM-tiled", "03.2.1-conv1d", "03.2.2-conv1d+oc",
	"03.2.3-conv1d+oc-spatial", "04.2.1-eyeriss-like-gating",
	"04.2.2-eyeriss-like-gating-mapspace-search", "04.2.3-eyeriss-like-onchip-compression",
	"sparse_tensor_core_like",
};

static struct spec_set *load_files(const char *dir, const char *const *names, size_t n,
				   struct diag_list *dl)
{
	static char buf[8][1024];
	const char *ptrs[8];
	size_t i;
	for (i = 0; i < n; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s/%s/%s", unit_conformance_dir(), dir, names[i]);
		ptrs[i] = buf[i];
	}
	return spec_set_load(ptrs, n, NULL, dl);
}

static void test_source_equals_flattened(void)
{
	static const char *const src[] = {
		"source/arch.yaml", "source/problem.yaml", "map.yaml", "ERT.yaml",
	};
	static const char *const flat[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	size_t i;

	for (i = 0; i < sizeof(source_cases) / sizeof(source_cases[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *a = load_files(source_cases[i], src, 4, &dl);
		struct spec_set *b = load_files(source_cases[i], flat, 3, &dl);
		if (!a || !b) {
			fprintf(stderr, "%s:\n", source_cases[i]);
			diag_print(&dl, stderr);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL(a->arch.dialect, SPEC_DIALECT_V04_NODES);
		CU_ASSERT_EQUAL(b->arch.dialect, SPEC_DIALECT_V04_FLAT);
		st_assert_same_design(a, b, false);
		spec_set_free(a);
		spec_set_free(b);
		diag_list_release(&dl);
	}
}

/* Where the source has every constraint, they equal the front end's. */
static void test_source_constraints(void)
{
	static const char *const cases[] = {
		"04.2.3-eyeriss-like-onchip-compression", "sparse_tensor_core_like",
	};
	static const char *const src[] = {
		"source/arch.yaml", "source/problem.yaml", "map.yaml", "ERT.yaml",
	};
	static const char *const flat[] = {
		"input.yaml", "map.yaml", "ERT.yaml", "constraints.yaml",
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *a = load_files(cases[i], src, 4, &dl);
		struct spec_set *b = load_files(cases[i], flat, 4, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		st_assert_same_design(a, b, true);
		spec_set_free(a);
		spec_set_free(b);
		diag_list_release(&dl);
	}
}

static const char problem_mk[] =
	"problem:\n"
	"  shape:\n"
	"    dimensions: [M, K]\n"
	"    data_spaces:\n"
	"      - {name: A, projection: [M, K]}\n"
	"      - {name: Z, projection: [M], read_write: true}\n"
	"  instance: {M: 16, K: 8}\n";

static const char nodes_mesh[] =
	"architecture:\n"
	"  version: 0.4\n"
	"  nodes:\n"
	"  - !Container\n"
	"    name: chip\n"
	"    attributes: {datawidth: 8, technology: 45nm}\n"
	"  - !Component\n"
	"    name: GLB\n"
	"    class: SRAM\n"
	"    attributes: {depth: 128, width: 64}\n"
	"  - !Container\n"
	"    name: row\n"
	"    spatial: {meshY: 2}\n"
	"  - !Container\n"
	"    name: col\n"
	"    spatial: {meshX: 4}\n"
	"    attributes: {datawidth: 16}\n"
	"  - !Parallel\n"
	"    nodes:\n"
	"    - !Component {name: RA, class: regfile, attributes: {depth: 4}}\n"
	"    - !Component {name: RZ, class: regfile, attributes: {depth: 2, datawidth: 24}}\n"
	"  - !Component {name: mac, class: intmac}\n";

struct level_row {
	const char *name;
	unsigned instances, mesh_x, mesh_y, fanout_x, fanout_y, word_bits;
	bool is_dummy;
};

static void test_mesh_parallel_inheritance(void)
{
	static const struct level_row rows[] = {   /* innermost first */
		{ "RZ", 8, 4, 2, 1, 1, 24, false },
		{ "RA", 8, 4, 2, 1, 1, 16, false },
		{ "inter_col_spatial", 2, 1, 2, 4, 1, 1, true },
		{ "inter_row_spatial", 1, 1, 1, 1, 2, 1, true },
		{ "GLB", 1, 1, 1, 1, 1, 8, false },
	};
	const char *texts[] = { nodes_mesh, problem_mk };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, NULL, &dl);
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->arch.n_levels, 5);
	for (i = 0; i < 5; i++) {
		const struct spec_level *L = &s->arch.levels[i];
		CU_ASSERT_STRING_EQUAL(L->name, rows[i].name);
		CU_ASSERT_EQUAL(L->instances, rows[i].instances);
		CU_ASSERT_EQUAL(L->mesh_x, rows[i].mesh_x);
		CU_ASSERT_EQUAL(L->mesh_y, rows[i].mesh_y);
		CU_ASSERT_EQUAL(L->fanout_x, rows[i].fanout_x);
		CU_ASSERT_EQUAL(L->fanout_y, rows[i].fanout_y);
		CU_ASSERT_EQUAL(L->word_bits, rows[i].word_bits);
		CU_ASSERT_EQUAL(L->is_dummy, rows[i].is_dummy);
		CU_ASSERT_TRUE(L->reduction_supported);
	}
	CU_ASSERT_EQUAL(s->arch.levels[4].block_size, 8);       /* 64 / 8 */
	CU_ASSERT_EQUAL(s->arch.levels[4].size_words, 1024);
	CU_ASSERT_EQUAL(s->arch.compute.instances, 8);
	CU_ASSERT_EQUAL(s->arch.compute.mesh_x, 4);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *arch;
	const char *expected;   /* the first diagnostic line */
};

static const struct error_row error_rows[] = {
	{ "architecture:\n  nodes:\n  - {name: x, class: SRAM}\n",
	  "3:5: error: in 'architecture.nodes[0]': a node needs a tag: !Container, "
	  "!Component or !Parallel\n" },
	{ "architecture:\n  nodes:\n  - !Componnent {name: x, class: SRAM}\n",
	  "3:5: error: in 'architecture.nodes[0]': unknown node tag '!Componnent'; "
	  "did you mean '!Component'?\n" },
	{ "architecture:\n  nodes:\n  - !Parallel\n    nodes:\n    - !Container {name: c}\n",
	  "5:7: error: in 'architecture.nodes[0].nodes[0]': a !Container inside a !Parallel is "
	  "not supported\n" },
	{ "architecture:\n  nodes:\n  - !Component {name: 'x[0..3]', class: SRAM}\n",
	  "3:23: error: in 'architecture.nodes[0].name': node-list names take no instance range "
	  "('x[0..3]'); instances come from the containers' spatial meshes\n" },
	{ "architecture:\n  nodes:\n  - !Container {name: c, spatial: {meshZ: 2}}\n",
	  "3:36: error: in 'architecture.nodes[0].spatial': unknown key 'meshZ'; "
	  "did you mean 'meshX'?\n" },
	{ "architecture:\n  nodes:\n  - !Container {name: c, constraints: {spatial: {}}}\n",
	  "3:39: error: in 'architecture.nodes[0]': container 'c' has no spatial fanout, so it "
	  "takes no constraints\n" },
	{ "architecture:\n  nodes:\n  - !Component {name: x, clas: SRAM}\n",
	  "3:26: error: in 'architecture.nodes[0]': unknown key 'clas'; did you mean 'class'?\n" },
};

static void test_node_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		char *text, *got;
		size_t len = strlen(error_rows[i].arch) + sizeof(problem_mk);
		text = malloc(len);
		snprintf(text, len, "%s%s", error_rows[i].arch, problem_mk);
		got = st_errors_of(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		if (strncmp(got, error_rows[i].expected, strlen(error_rows[i].expected)))
			fprintf(stderr, "row %zu: got\n%s", i, got);
		CU_ASSERT_NSTRING_EQUAL(got, error_rows[i].expected, strlen(error_rows[i].expected));
		free(got);
		free(text);
	}
}

static CU_TestInfo tests[] = {
	{ "source/ equals input.yaml", test_source_equals_flattened },
	{ "source/ constraints equal constraints.yaml", test_source_constraints },
	{ "meshes, !Parallel, inheritance", test_mesh_parallel_inheritance },
	{ "node-list errors", test_node_errors },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "arch_nodes", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
