/*
 * The tensor-file reader (specs/mtx.c) on well-formed files: every Matrix
 * Market variant and dense text give the expected shape and entries
 * (non-zeros only, sorted by row then column). The malformed files are in
 * tests/data/mtx/bad, checked by tests/exec/run-bad-mtx.sh.
 */
#include "specs/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/arena.h"
#include "util/diag.h"

struct mtx_row {
	const char *suffix;            /* ".mtx" or ".txt" */
	const char *text;
	uint64_t rows, cols;
	size_t nnz;
	uint64_t coords[12][2];        /* 0-based, sorted */
	double values[12];
	unsigned shape_line;
};

static const struct mtx_row rows[] = {
	{ ".mtx", "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 3\n"
		  "3 4 1.5\n1 2 -2\n2 1 7e0\n",
	  3, 4, 3, { { 0, 1 }, { 1, 0 }, { 2, 3 } }, { -2, 7, 1.5 }, 3 },
	/* explicit zeros are absent entries; CRLF line ends */
	{ ".mtx", "%%MatrixMarket matrix coordinate integer general\r\n2 2 2\r\n1 1 0\r\n2 2 5\r\n",
	  2, 2, 1, { { 1, 1 } }, { 5 }, 2 },
	{ ".mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n2 3\n1 1\n",
	  2, 3, 2, { { 0, 0 }, { 1, 2 } }, { 1, 1 }, 2 },
	/* symmetric: the lower triangle is mirrored */
	{ ".mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 2\n",
	  3, 3, 3, { { 0, 0 }, { 0, 2 }, { 2, 0 } }, { 4, 2, 2 }, 2 },
	{ ".mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n",
	  2, 2, 2, { { 0, 1 }, { 1, 0 } }, { -3, 3 }, 2 },
	/* array files run column by column */
	{ ".mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n4\n5\n0\n",
	  2, 3, 3, { { 0, 0 }, { 0, 2 }, { 1, 1 } }, { 1, 5, 4 }, 2 },
	{ ".mtx", "%%matrixmarket MATRIX Array Real Symmetric\n2 2\n1\n2\n3\n",
	  2, 2, 4, { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 } }, { 1, 2, 2, 3 }, 2 },
	/* dense text: rows per line, comments, zeros absent */
	{ ".txt", "# weights\n0 1.5 0\n\n2 0 0  # trailing comment\n",
	  2, 3, 2, { { 0, 1 }, { 1, 0 } }, { 1.5, 2 }, 2 },
	/* fuzz finding 3: no non-zeros at all (nothing to sort; UB under the sanitizers) */
	{ ".mtx", "%%MatrixMarket matrix coordinate pattern general\n4 8 0\n",
	  4, 8, 0, { { 0, 0 } }, { 0 }, 2 },
	{ ".txt", "0\n", 1, 1, 0, { { 0, 0 } }, { 0 }, 1 },
};

static void test_good_files(void)
{
	size_t i, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct mtx_row *row = &rows[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct arena a = ARENA_INIT;
		const struct spec_matrix *m;
		char path[256];
		FILE *fp;

		snprintf(path, sizeof(path), "/tmp/fiberloop-test-mtx-%ld-%zu%s", (long)getpid(), i,
			 row->suffix);
		fp = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
		fputs(row->text, fp);
		fclose(fp);
		m = spec_matrix_load(&a, path, &dl);
		if (!m)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(m->n_ranks, 2);
		CU_ASSERT_EQUAL(m->shape[0], row->rows);
		CU_ASSERT_EQUAL(m->shape[1], row->cols);
		CU_ASSERT_EQUAL(m->shape_line, row->shape_line);
		CU_ASSERT_EQUAL_FATAL(m->nnz, row->nnz);
		for (k = 0; k < row->nnz; k++) {
			CU_ASSERT_EQUAL(m->coords[2 * k], row->coords[k][0]);
			CU_ASSERT_EQUAL(m->coords[2 * k + 1], row->coords[k][1]);
			CU_ASSERT_DOUBLE_EQUAL(m->values[k], row->values[k], 0);
		}
		CU_ASSERT_FALSE(diag_has_errors(&dl));
		unlink(path);
		diag_list_release(&dl);
		arena_release(&a);
	}
}

static void test_missing_file(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct arena a = ARENA_INIT;

	CU_ASSERT_PTR_NULL(spec_matrix_load(&a, "/nonexistent/x.mtx", &dl));
	CU_ASSERT_EQUAL(dl.n_errors, 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "/nonexistent/x.mtx");
	diag_list_release(&dl);
	arena_release(&a);
}

CU_TestInfo mtx_tests[] = {
	{ "well-formed files", test_good_files },
	{ "a missing file is one located error", test_missing_file },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "mtx", .pTests = mtx_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
