/*
 * axis.c: SparseTIR's axis kinds onto rank formats (a table: the ranks as
 * written -> the rank formats, n_col and parent they give), among them
 * CSR, ELL, a ragged batch whose two ragged axes share one parent, a ragged
 * axis over sparse columns, and explicit formats beside axes.
 * Uses tests/data/specs/bad/base.yaml. The errors are in the bad corpus
 * (tests/data/specs/bad/axis_*.yaml).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

struct axis_row {
	const char *ranks;                 /* the YAML list of ranks */
	unsigned n_ranks;
	enum fmt_kind kind[4];             /* outermost first */
	enum spec_axis_kind axis[4];
	uint64_t n_col[4];
	int parent[4];
};

#define DF SPEC_AXIS_DENSE_FIXED
#define DV SPEC_AXIS_DENSE_VARIABLE
#define SF SPEC_AXIS_SPARSE_FIXED
#define SV SPEC_AXIS_SPARSE_VARIABLE
#define NO SPEC_AXIS_NONE

static const struct axis_row rows[] = {
	/* CSR: the sparse_variable axis makes the row rank hold offsets */
	{ "[{axis: dense_fixed}, {axis: sparse_variable}]", 2,
	  { FMT_UOP, FMT_CP }, { DF, SV }, { 0, 0 }, { -1, -1 } },
	/* ELL: no offsets, n_col coordinates a row */
	{ "[{axis: dense_fixed}, {axis: sparse_fixed, n_col: 4}]", 2,
	  { FMT_U, FMT_CP }, { DF, SF }, { 0, 4 }, { -1, -1 } },
	/* a ragged batch: j and l both ragged by i; one offset rank */
	{ "[{axis: dense_fixed, name: i}, {axis: dense_variable, name: j, parent: i},"
	  " {axis: dense_variable, parent: i}]", 3,
	  { FMT_UOP, FMT_U, FMT_U }, { DF, DV, DV }, { 0, 0, 0 }, { -1, 0, 0 } },
	/* ragged rows (by the batch) over sparse columns: both upper ranks hold offsets */
	{ "[{axis: dense_fixed, name: b}, {axis: dense_variable, parent: b},"
	  " {axis: sparse_variable}]", 3,
	  { FMT_UOP, FMT_UOP, FMT_CP }, { DF, DV, SV }, { 0, 0, 0 }, { -1, 0, -1 } },
	/* CSF: coordinates on both ranks; a CP parent's payload already points */
	{ "[{axis: sparse_variable}, {axis: sparse_variable}]", 2,
	  { FMT_CP, FMT_CP }, { SV, SV }, { 0, 0 }, { -1, -1 } },
	/* DCSR-like: an explicit CP rank keeps its format over a sparse_variable */
	{ "[{format: CP}, {axis: sparse_variable}]", 2,
	  { FMT_CP, FMT_CP }, { NO, SV }, { 0, 0 }, { -1, -1 } },
	/* an explicit U rank above a sparse_variable axis gets its offsets too */
	{ "[{format: U}, {axis: sparse_fixed, n_col: 2}, {axis: sparse_variable}]", 3,
	  { FMT_U, FMT_CP, FMT_CP }, { NO, SF, SV }, { 0, 2, 0 }, { -1, -1, -1 } },
	{ "[{format: U}, {axis: sparse_variable}]", 2,
	  { FMT_UOP, FMT_CP }, { NO, SV }, { 0, 0 }, { -1, -1 } },
	/* '-' for '_' (Timeloop's keyword rule) */
	{ "[{axis: dense-fixed}, {axis: dense_fixed}]", 2,
	  { FMT_U, FMT_U }, { DF, DF }, { 0, 0 }, { -1, -1 } },
};

static struct spec_set *load_ranks(const char *ranks, struct diag_list *dl)
{
	static char base[1024], path[1024];
	char text[1024];
	const char *ptrs[2];

	snprintf(text, sizeof(text),
		 "sparse_optimizations:\n  targets:\n  - name: GLB\n"
		 "    representation_format:\n      data_spaces:\n"
		 "      - {name: A, ranks: %s}\n", ranks);
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("axis.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static void test_axis_kinds(void)
{
	size_t i;
	unsigned r;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_ranks(rows[i].ranks, &dl);
		const struct spec_tensor_format *f;

		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(dl.n_errors, 0);
		f = &s->sparse.targets[0].formats[0];
		CU_ASSERT_EQUAL_FATAL(f->n_ranks, rows[i].n_ranks);
		for (r = 0; r < f->n_ranks; r++) {
			if (f->ranks[r].kind != rows[i].kind[r])
				fprintf(stderr, "row %zu rank %u: %s\n", i, r,
					spec_fmt_kind_name(f->ranks[r].kind));
			CU_ASSERT_EQUAL(f->ranks[r].kind, rows[i].kind[r]);
			CU_ASSERT_EQUAL(f->ranks[r].axis, rows[i].axis[r]);
			CU_ASSERT_EQUAL(f->ranks[r].n_col, rows[i].n_col[r]);
			CU_ASSERT_EQUAL(f->ranks[r].parent, rows[i].parent[r]);
		}
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(spec_axis_kind_name(SPEC_AXIS_DENSE_VARIABLE), "dense_variable");
	CU_ASSERT_STRING_EQUAL(spec_axis_kind_name(SPEC_AXIS_SPARSE_FIXED), "sparse_fixed");
	CU_ASSERT_STRING_EQUAL(spec_axis_kind_name(SPEC_AXIS_NONE), "");
}

static CU_TestInfo tests[] = {
	{ "axis kinds onto rank formats", test_axis_kinds },
	{ "names", test_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "axis", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
