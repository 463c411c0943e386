/*
 * density.c: every density form (bare number, each distribution and its
 * aliases, commonDensity, the front end's extra keys), banded densities
 * from the band width, N:M, and where actual-data files are looked for.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static const char arch[] =
	"architecture:\n"
	"  subtree: [{name: s, local: [{name: b, class: SRAM}, {name: m, class: intmac}]}]\n";

/* A problem with A[M][K] (8 x 8), B[K] (8), Z[M] (8), and 'instance_extra'. */
static struct spec_set *load_with(const char *instance_extra, struct diag_list *dl)
{
	char problem[1024];
	const char *texts[2] = { arch, problem };
	snprintf(problem, sizeof(problem),
		 "problem:\n"
		 "  shape:\n"
		 "    dimensions: [M, K]\n"
		 "    data_spaces:\n"
		 "    - {name: A, projection: [M, K]}\n"
		 "    - {name: B, projection: [K]}\n"
		 "    - {name: Z, projection: [M], read_write: true}\n"
		 "  instance:\n"
		 "    M: 8\n"
		 "    K: 8\n"
		 "%s", instance_extra);
	return st_load(texts, 2, NULL, dl);
}

struct density_row {
	const char *densities;      /* the YAML under 'instance' */
	unsigned tensor;
	enum spec_density_kind kind;
	double density;
	bool is_default;
	uint64_t extra;             /* workload_tensor_size, band_width or n*100+m */
};

static const struct density_row rows[] = {
	{ "", 0, SPEC_DENSITY_FIXED_STRUCTURED, 1.0, true, 0 },
	{ "    densities: {A: 0.25}\n", 0, SPEC_DENSITY_FIXED_STRUCTURED, 0.25, false, 0 },
	{ "    densities: {A: 0.25}\n", 1, SPEC_DENSITY_FIXED_STRUCTURED, 1.0, true, 0 },
	{ "    densities: {A: {distribution: fixed-structured, density: 0.5}}\n", 0,
	  SPEC_DENSITY_FIXED_STRUCTURED, 0.5, false, 0 },
	{ "    densities: {A: {distribution: fixed, density: 0.5}}\n", 0,
	  SPEC_DENSITY_FIXED_STRUCTURED, 0.5, false, 0 },
	{ "    densities: {A: {distribution: fixed_structured, density: 0.5, band_width: 0,"
	  " workload_tensor_size: 0}}\n", 0, SPEC_DENSITY_FIXED_STRUCTURED, 0.5, false, 0 },
	{ "    densities: {A: {density: 0.75}}\n", 0, SPEC_DENSITY_FIXED_STRUCTURED, 0.75, false, 0 },
	{ "    densities: {B: {distribution: hypergeometric, density: 0.5,"
	  " workload_tensor_size: 64}}\n", 1, SPEC_DENSITY_HYPERGEOMETRIC, 0.5, false, 64 },
	{ "    densities: {A: {distribution: banded, band_width: 1}}\n", 0, SPEC_DENSITY_BANDED,
	  22.0 / 64.0, false, 1 },
	{ "    densities: {A: {distribution: diagonal}}\n", 0, SPEC_DENSITY_BANDED, 8.0 / 64.0,
	  false, 0 },
	{ "    densities: {A: {distribution: banded, band_width: 100}}\n", 0, SPEC_DENSITY_BANDED,
	  1.0, false, 100 },
	{ "    densities: {A: {distribution: structured_nm, n: 2, m: 4}}\n", 0, SPEC_DENSITY_NM,
	  0.5, false, 204 },
	{ "    densities: {A: {distribution: nm, n: 1, m: 8, dimension: M, density: 0.125}}\n", 0,
	  SPEC_DENSITY_NM, 0.125, false, 108 },
	{ "    commonDensity: 0.5\n", 2, SPEC_DENSITY_FIXED_STRUCTURED, 0.5, false, 0 },
	{ "    commonDensity: {distribution: hypergeometric, density: 0.25}\n"
	  "    densities: {B: 0.75}\n", 0, SPEC_DENSITY_HYPERGEOMETRIC, 0.25, false, 0 },
	{ "    commonDensity: {distribution: hypergeometric, density: 0.25}\n"
	  "    densities: {B: 0.75}\n", 1, SPEC_DENSITY_FIXED_STRUCTURED, 0.75, false, 0 },
};

static void test_forms(void)
{
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct density_row *r = &rows[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_with(r->densities, &dl);
		const struct spec_density *d;
		if (!s) {
			fprintf(stderr, "row %zu:\n", i);
			diag_print(&dl, stderr);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		d = &s->workload.tensors[r->tensor].density;
		CU_ASSERT_EQUAL(d->kind, r->kind);
		CU_ASSERT_DOUBLE_EQUAL(d->density, r->density, 1e-12);
		CU_ASSERT_EQUAL(d->is_default, r->is_default);
		if (r->kind == SPEC_DENSITY_HYPERGEOMETRIC)
			CU_ASSERT_EQUAL(d->workload_tensor_size, r->extra);
		if (r->kind == SPEC_DENSITY_BANDED)
			CU_ASSERT_EQUAL(d->band_width, r->extra);
		if (r->kind == SPEC_DENSITY_NM)
			CU_ASSERT_EQUAL(d->nm_n * 100 + d->nm_m, r->extra);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* N:M groups run along the innermost rank's dimension unless told otherwise. */
static void test_nm_dimension(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_with("    densities: {A: {distribution: nm, n: 2, m: 4},"
				       " B: {distribution: nm, n: 1, m: 2}}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.nm_dim, 1);   /* K */
	CU_ASSERT_EQUAL(s->workload.tensors[1].density.nm_dim, 1);
	spec_set_free(s);
	diag_list_release(&dl);
	s = load_with("    densities: {A: {distribution: nm, n: 2, m: 4, dimension: M}}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.nm_dim, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *densities, *expected;
};

static const struct error_row error_rows[] = {
	{ "    densities: {A: {distribution: uniform, density: 0.5}}\n",
	  "unknown distribution 'uniform'" },
	{ "    densities: {A: {distribution: hypergeometric}}\n",
	  "distribution 'hypergeometric' needs a 'density'" },
	{ "    densities: {B: {distribution: banded}}\n",
	  "a banded density needs a 2-rank data space; 'B' has 1" },
	{ "    densities: {A: {distribution: nm, n: 5, m: 4}}\n", "'n' (5) must not exceed 'm' (4)" },
	{ "    densities: {A: {distribution: nm, n: 2, m: 4, density: 0.75}}\n",
	  "density 0.75 contradicts n/m = 2/4" },
	{ "    densities: {B: {distribution: nm, n: 2, m: 4, dimension: M}}\n",
	  "dimension 'M' does not index data space 'B'" },
	{ "    densities: {A: {n: 2}}\n", "'n' applies only to distribution 'structured_nm'" },
	{ "    densities: {A: -0.1}\n", "expected a number in [0, 1], got '-0.1'" },
	{ "    densities: [A, 0.5]\n", "in 'problem.instance.densities': expected a mapping" },
	{ "    commonDensity: 2\n", "in 'problem.instance.commonDensity': expected a number in" },
	{ "    densities: {A: {distribution: actual_data, file: [x]}}\n",
	  "in 'problem.instance.densities.A.file': expected a single value, got a list" },
};

static void test_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_with(error_rows[i].densities, &dl);
		st_assert_diag(s, &dl, true, i, error_rows[i].expected);
	}
}

/*
 * A relative 'file' is looked for beside the YAML file, and whatever the
 * matrix reader reports is located at the 'file' key with the file's path.
 */
static void test_actual_data_file_location(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_with("    densities: {A: {distribution: actual_data, "
				       "file: no_such_dir/a.mtx}}\n", &dl);
	char expected[1024], *got = st_diags(&dl);
	const char *yaml = st_path(1), *slash = strrchr(yaml, '/');

	CU_ASSERT_PTR_NULL(s);
	snprintf(expected, sizeof(expected), "11:54: error: in 'problem.instance.densities.A.file': "
		 "%.*s/no_such_dir/a.mtx", (int)(slash - yaml), yaml);
	if (strncmp(got, expected, strlen(expected)))
		fprintf(stderr, "expected\n%s\ngot\n%s", expected, got);
	CU_ASSERT_EQUAL(strncmp(got, expected, strlen(expected)), 0);
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, yaml);
	free(got);
	diag_list_release(&dl);
}

/* NAME=FILE options name a data space; the file is read relative to the cwd. */
static void test_tensor_file_options(void)
{
	static const char *const bad[] = { "Q=q.mtx", "noequals", "A=" };
	static const char *const expected[] = {
		"in 'Q=q.mtx': unknown data space 'Q'; did you mean 'A'?",
		"a tensor file is given as NAME=FILE, got 'noequals'",
		"a tensor file is given as NAME=FILE, got 'A='",
	};
	struct spec_load_options opt = { .tensor_files = bad, .n_tensor_files = 3 };
	const char *texts[2] = { arch, "problem: {shape: {dimensions: [K], data_spaces: "
				       "[{name: A, projection: [K]}]}, instance: {K: 2}}\n" };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, &opt, &dl);
	size_t i;

	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL_FATAL(dl.n, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_STRING_EQUAL(dl.items[i].message, expected[i]);
		CU_ASSERT_PTR_NULL(dl.items[i].loc.file);
	}
	diag_list_release(&dl);
}

/*
 * A pattern file beside the YAML: the density is nnz / size and the matrix
 * is kept. (Only meaningful once the Matrix Market reader is built; the
 * placeholder reader reports that it is not, at the 'file' key.)
 */
static void test_actual_data(void)
{
	struct arena a = ARENA_INIT;
	struct diag_list dl = DIAG_LIST_INIT;
	char mtx[1024], yaml[1024];
	const char *paths[1] = { yaml };
	const struct spec_matrix *direct;
	struct spec_set *s;

	snprintf(mtx, sizeof(mtx), "%s", unit_data_path("specs/good/a_4x8.mtx"));
	snprintf(yaml, sizeof(yaml), "%s", unit_data_path("specs/good/actual_data.yaml"));
	direct = spec_matrix_load(&a, mtx, &dl);
	diag_list_release(&dl);
	s = spec_set_load(paths, 1, NULL, &dl);
	if (!direct) {
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_EQUAL(dl.items[0].loc.line, 16);
		CU_ASSERT_EQUAL(dl.items[0].loc.col, 44);
	} else {
		const struct spec_density *d;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		d = &s->workload.tensors[0].density;
		CU_ASSERT_EQUAL(d->kind, SPEC_DENSITY_ACTUAL);
		CU_ASSERT_DOUBLE_EQUAL(d->density, 3.0 / 32.0, 1e-15);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d->data);
		CU_ASSERT_EQUAL(d->data->nnz, 3);
		CU_ASSERT_FALSE(d->is_default);
		spec_set_free(s);
	}
	diag_list_release(&dl);
	arena_release(&a);
}

static CU_TestInfo tests[] = {
	{ "actual data from a file beside the YAML", test_actual_data },
	{ "density forms", test_forms },
	{ "N:M dimension", test_nm_dimension },
	{ "density errors", test_errors },
	{ "actual-data file location", test_actual_data_file_location },
	{ "NAME=FILE options", test_tensor_file_options },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "density", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
