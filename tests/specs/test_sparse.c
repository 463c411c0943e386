/*
 * sparse.c: representation formats (rank formats in any case, named
 * formats, N:M, flattened ranks, word bits adjusted to the metadata
 * width), action optimizations in short and options form, spatial
 * skipping spellings, compute optimizations, 'name' or 'target'.
 * Uses tests/data/specs/bad/base.yaml (GLB: metadata width 16, word 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_sparse(const char *text, struct diag_list *dl)
{
	static char base[1024], path[1024];
	const char *ptrs[2];
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("sparse.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static void test_rank_formats(void)
{
	static const char text[] =
		"sparse_optimizations:\n"
		"  targets:\n"
		"  - name: GLB\n"
		"    representation_format:\n"
		"      data_spaces:\n"
		"      - name: A\n"
		"        rank_application_order: inner-to-outer\n"
		"        ranks:\n"
		"        - {format: uop, payload_word_bits: 16}\n"
		"        - {format: Rle, metadata_word_bits: 3, flattened_rankIDs: [[M, K], [N]]}\n"
		"      - name: B\n"
		"        ranks: [{format: U}, {format: UB}, {format: b}, {format: CP}]\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_sparse(text, &dl);
	const struct spec_tensor_format *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(dl.n_warnings, 1);     /* 3 bits do not divide 16 */
	CU_ASSERT_TRUE(s->sparse.present);
	CU_ASSERT_EQUAL_FATAL(s->sparse.n_targets, 1);
	CU_ASSERT_EQUAL(s->sparse.targets[0].level, 1);
	f = &s->sparse.targets[0].formats[0];
	CU_ASSERT_EQUAL(f->tensor, 0);
	CU_ASSERT_TRUE(f->inner_to_outer);
	CU_ASSERT_EQUAL(f->named, SPEC_NAMED_NONE);
	CU_ASSERT_EQUAL(f->n_ranks, 2);
	CU_ASSERT_EQUAL(f->ranks[0].kind, FMT_UOP);
	CU_ASSERT_EQUAL(f->ranks[0].payload_word_bits, 16);
	CU_ASSERT_EQUAL(f->ranks[0].metadata_word_bits, -1);
	CU_ASSERT_EQUAL(f->ranks[1].kind, FMT_RLE);
	CU_ASSERT_EQUAL(f->ranks[1].metadata_word_bits, 4);    /* 3 -> 4 divides 16 */
	CU_ASSERT_EQUAL(f->ranks[1].n_flatten_groups, 2);
	CU_ASSERT_EQUAL(f->ranks[1].flatten_groups[0], 0x5);
	CU_ASSERT_EQUAL(f->ranks[1].flatten_groups[1], 0x2);
	f = &s->sparse.targets[0].formats[1];
	CU_ASSERT_FALSE(f->inner_to_outer);
	CU_ASSERT_EQUAL(f->ranks[0].kind, FMT_U);
	CU_ASSERT_EQUAL(f->ranks[1].kind, FMT_UB);
	CU_ASSERT_EQUAL(f->ranks[2].kind, FMT_B);
	CU_ASSERT_EQUAL(f->ranks[3].kind, FMT_CP);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct named_row {
	const char *spec;
	enum spec_named_format named;
	unsigned n, m;
	int md_bits;
};

static const struct named_row named_rows[] = {
	{ "{name: A, format: CSR}", SPEC_NAMED_CSR, 0, 0, -1 },
	{ "{name: A, format: csc, metadata_word_bits: 8}", SPEC_NAMED_CSC, 0, 0, 8 },
	{ "{name: A, format: COO}", SPEC_NAMED_COO, 0, 0, -1 },
	{ "{name: A, format: Bitmask}", SPEC_NAMED_BITMASK, 0, 0, -1 },
	{ "{name: A, format: CSF}", SPEC_NAMED_CSF, 0, 0, -1 },
	{ "{name: A, format: 'N:M', n: 2, m: 4}", SPEC_NAMED_NM, 2, 4, -1 },
	{ "{name: A, format: '1:8'}", SPEC_NAMED_NM, 1, 8, -1 },
};

static void test_named_formats(void)
{
	size_t i;
	for (i = 0; i < sizeof(named_rows) / sizeof(named_rows[0]); i++) {
		char text[512];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		const struct spec_tensor_format *f;
		snprintf(text, sizeof(text),
			 "sparse_optimizations:\n  targets:\n  - target: PE\n"
			 "    representation_format: {data_spaces: [%s]}\n", named_rows[i].spec);
		s = load_sparse(text, &dl);
		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		f = &s->sparse.targets[0].formats[0];
		CU_ASSERT_EQUAL(f->named, named_rows[i].named);
		CU_ASSERT_EQUAL(f->n_ranks, 0);
		CU_ASSERT_EQUAL(f->nm_n, named_rows[i].n);
		CU_ASSERT_EQUAL(f->nm_m, named_rows[i].m);
		CU_ASSERT_EQUAL(f->named_metadata_word_bits, named_rows[i].md_bits);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_action_and_compute_optimizations(void)
{
	static const char text[] =
		"sparse_optimizations:\n"
		"  targets:\n"
		"  - name: GLB\n"
		"    action-optimization:\n"
		"    - {type: gating, target: A, condition-on: [B]}\n"
		"    - type: skipping\n"
		"      options:\n"
		"      - {target: Z, condition_on: [A, B]}\n"
		"      - {target: Z, condition_on: [B]}\n"
		"    - {type: spatial_skipping, target: B, condition_on: [A]}\n"
		"    - {type: skipping-spatial, target: A, condition_on: [B]}\n"
		"  - name: mac\n"
		"    compute_optimization: [{type: gate-on-zero-operand},\n"
		"                           {type: skip_on_not_aligned_operands}]\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_sparse(text, &dl);
	const struct spec_sparse_target *t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->sparse.n_targets, 2);
	t = &s->sparse.targets[0];
	CU_ASSERT_FALSE(t->is_compute);
	CU_ASSERT_EQUAL_FATAL(t->n_groups, 4);
	CU_ASSERT_EQUAL(t->groups[0].kind, SPEC_SAF_GATING);
	CU_ASSERT_EQUAL(t->groups[0].n_options, 1);
	CU_ASSERT_EQUAL(t->groups[0].options[0].target, 0);
	CU_ASSERT_EQUAL(t->groups[0].options[0].condition_mask, 0x2);
	CU_ASSERT_EQUAL(t->groups[1].kind, SPEC_SAF_SKIPPING);
	CU_ASSERT_EQUAL(t->groups[1].n_options, 2);
	CU_ASSERT_EQUAL(t->groups[1].options[0].n_conditions, 2);
	CU_ASSERT_EQUAL(t->groups[1].options[0].conditions[0], 0);
	CU_ASSERT_EQUAL(t->groups[1].options[0].conditions[1], 1);
	CU_ASSERT_EQUAL(t->groups[1].options[1].condition_mask, 0x2);
	CU_ASSERT_EQUAL(t->groups[2].kind, SPEC_SAF_SPATIAL_SKIPPING);
	CU_ASSERT_EQUAL(t->groups[3].kind, SPEC_SAF_SPATIAL_SKIPPING);
	t = &s->sparse.targets[1];
	CU_ASSERT_TRUE(t->is_compute);
	CU_ASSERT_TRUE(t->compute_gating);
	CU_ASSERT_TRUE(t->compute_skipping);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* An empty sparse_optimizations still switches the report layout. */
static void test_present_but_empty(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_sparse("sparse_optimizations:\n  targets: []\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(s->sparse.present);
	CU_ASSERT_EQUAL(s->sparse.n_targets, 0);
	spec_set_free(s);
	diag_list_release(&dl);
	s = load_sparse("sparse_optimizations:\n  targets:\n  - {name: GLB}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->sparse.n_targets, 0);
	CU_ASSERT_EQUAL(dl.n_warnings, 1);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *text, *expected;
};

static const struct error_row error_rows[] = {
	{ "sparse_optimizations: {targets: [{name: GLB, target: GLB}]}\n",
	  "give either 'name' or 'target', not both" },
	{ "sparse_optimizations: {targets: [{representation_format: {}}]}\n",
	  "a sparse optimization target needs a 'name'" },
	{ "sparse_optimizations: {targets: [{name: mac, representation_format: {}}]}\n",
	  "the compute unit 'mac' has no representation format" },
	{ "sparse_optimizations: {targets: [{name: GLB, representation_format: {data_spaces: "
	  "[{name: A, ranks: [{format: B}, {format: UB}]}]}}]}\n",
	  "compressed rank 0 (B) is above uncompressed rank 1 (UB)" },
	{ "sparse_optimizations: {targets: [{name: GLB, representation_format: {data_spaces: "
	  "[{name: A, ranks: [{format: CP}]}, {name: A, ranks: [{format: CP}]}]}}]}\n",
	  "a second format for data space 'A' at 'GLB'" },
	{ "sparse_optimizations: {targets: [{name: GLB, representation_format: {data_spaces: "
	  "[{name: A, ranks: [{payload_word_bits: 2}]}]}}]}\n", "a rank needs a 'format'" },
	{ "sparse_optimizations: {targets: [{name: GLB, representation_format: {data_spaces: "
	  "[{name: A, ranks: [{format: CP, flattened_rankIDs: [[M, X]]}]}]}}]}\n",
	  "unknown dimension 'X'" },
	{ "sparse_optimizations: {targets: [{name: GLB, representation_format: {data_spaces: "
	  "[{name: A, rank_application_order: inside_out, ranks: [{format: CP}]}]}}]}\n",
	  "unknown rank application order 'inside_out'" },
	{ "sparse_optimizations: {targets: [{name: GLB, action_optimization: "
	  "[{type: gating, options: [], target: A}]}]}\n",
	  "give either 'options' or 'target' + 'condition_on'" },
	{ "sparse_optimizations: {targets: [{name: GLB, action_optimization: "
	  "[{type: gating, options: []}]}]}\n", "an action optimization needs at least one option" },
	{ "sparse_optimizations: {targets: [{name: GLB, action_optimization: "
	  "[{type: gating, target: A}]}]}\n",
	  "an action optimization needs a 'target' and 'condition_on'" },
	{ "sparse_optimizations: {targets: [{name: mac, compute_optimization: [{kind: x}]}]}\n",
	  "unknown key 'kind'" },
};

static void test_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_sparse(error_rows[i].text, &dl);
		st_assert_diag(s, &dl, true, i, error_rows[i].expected);
	}
}

static CU_TestInfo tests[] = {
	{ "rank formats", test_rank_formats },
	{ "named formats", test_named_formats },
	{ "action and compute optimizations", test_action_and_compute_optimizations },
	{ "present but empty", test_present_but_empty },
	{ "errors", test_errors },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sparse", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
