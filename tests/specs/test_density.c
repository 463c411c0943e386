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
	/*
	 * workload_tensor_size, band_width, n*100+m; block: the extents as
	 * decimal digit pairs; power law: 100 exponent + 1000 row_dim + 1 if permuted
	 */
	uint64_t extra;
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
	{ "    densities: {A: {distribution: block_structured, density: 0.25, block_shape: [4, 2]}}\n",
	  0, SPEC_DENSITY_BLOCK, 0.25, false, 402 },
	{ "    densities: {B: {distribution: block, density: 0.5, block_shape: [16]}}\n", 1,
	  SPEC_DENSITY_BLOCK, 0.5, false, 16 },
	{ "    densities: {A: {distribution: power_law, density: 0.1, exponent: 1.5}}\n", 0,
	  SPEC_DENSITY_POWER_LAW, 0.1, false, 150 },
	{ "    densities: {A: {distribution: power-law, density: 0.2, exponent: 0, dimension: K,"
	  " permute_rows: true}}\n", 0, SPEC_DENSITY_POWER_LAW, 0.2, false, 1001 },
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
		if (r->kind == SPEC_DENSITY_BLOCK) {
			uint64_t v = 0;
			unsigned k;
			for (k = 0; k < s->workload.tensors[r->tensor].n_ranks; k++)
				v = v * 100 + d->block_shape[k];
			CU_ASSERT_EQUAL(v, r->extra);
		}
		if (r->kind == SPEC_DENSITY_POWER_LAW)
			CU_ASSERT_EQUAL((uint64_t)(d->exponent * 100) + 1000 * d->row_dim +
					d->permute_rows, r->extra);
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
	{ "    densities: {A: {distribution: block, density: 0.5}}\n",
	  "a block_structured density needs a 'block_shape'" },
	{ "    densities: {A: {distribution: block, block_shape: [2, 2]}}\n",
	  "distribution 'block_structured' needs a 'density'" },
	{ "    densities: {A: {distribution: block, density: 0.5, block_shape: [2]}}\n",
	  "'block_shape' has 1 extents but data space 'A' has 2 ranks" },
	{ "    densities: {A: {distribution: block, density: 0.5, block_shape: [2, 0]}}\n",
	  "in 'problem.instance.densities.A.block_shape[1]': expected an integer >= 1, got '0'" },
	{ "    densities: {A: {distribution: block, density: 1.5, block_shape: [2, 2]}}\n",
	  "expected a number in [0, 1], got '1.5'" },
	{ "    densities: {A: {distribution: block, density: 0.5, block_shape: 2}}\n",
	  "in 'problem.instance.densities.A.block_shape': expected a list" },
	{ "    densities: {A: {density: 0.5, block_shape: [2, 2]}}\n",
	  "'block_shape' applies only to distribution 'block_structured'" },
	{ "    densities: {A: {distribution: power_law, density: 0.5}}\n",
	  "a power_law density needs an 'exponent'" },
	{ "    densities: {A: {distribution: power_law, density: 0.5, exponent: -1}}\n",
	  "expected a number in [0, 16], got '-1'" },
	{ "    densities: {A: {distribution: power_law, density: 0.5, exponent: 1,"
	  " permute_rows: maybe}}\n", "expected true or false, got 'maybe'" },
	{ "    densities: {B: {distribution: power_law, density: 0.5, exponent: 1, dimension: M}}\n",
	  "dimension 'M' does not index data space 'B'" },
	{ "    densities: {A: {distribution: hypergeometric, density: 0.5, exponent: 1}}\n",
	  "'exponent' applies only to distribution 'power_law'" },
	{ "    densities: {A: {distribution: block, density: 0.5, blok_shape: [2, 2]}}\n",
	  "unknown key 'blok_shape'; did you mean 'block_shape'?" },
	{ "    densities: {A: {density: 0.5, dimension: M}}\n",
	  "'dimension' applies only to distributions 'structured_nm' and 'power_law'" },
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
 * A relative 'file' is looked for beside the YAML file; a file that cannot
 * be read is reported at the 'file' key, with the path looked for.
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
		 "cannot open '%.*s/no_such_dir/a.mtx'", (int)(slash - yaml), yaml);
	if (strncmp(got, expected, strlen(expected)))
		fprintf(stderr, "expected\n%s\ngot\n%s", expected, got);
	CU_ASSERT_EQUAL(strncmp(got, expected, strlen(expected)), 0);
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, yaml);
	free(got);
	diag_list_release(&dl);
}

/*
 * NAME=FILE options name a data space; the file is read relative to the
 * cwd. Their errors are located in the option, "--tensor 'NAME=FILE'":
 * the name at column 1, the file after the '='.
 */
static void test_tensor_file_options(void)
{
	static const char *const bad[] = { "Q=q.mtx", "noequals", "A=", "A=/no/such/a.mtx" };
	static const struct {
		const char *origin;
		unsigned col;
		const char *message;
	} expected[] = {
		{ "--tensor 'Q=q.mtx'", 1, "unknown data space 'Q'; did you mean 'A'?" },
		{ "--tensor 'noequals'", 1, "a tensor file is given as NAME=FILE" },
		{ "--tensor 'A='", 3, "a tensor file is given as NAME=FILE" },
		{ "--tensor 'A=/no/such/a.mtx'", 3,
		  "cannot open '/no/such/a.mtx': No such file or directory" },
	};
	struct spec_load_options opt = { .tensor_files = bad, .n_tensor_files = 4 };
	const char *texts[2] = { arch, "problem: {shape: {dimensions: [K], data_spaces: "
				       "[{name: A, projection: [K]}]}, instance: {K: 2}}\n" };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, &opt, &dl);
	size_t i;

	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL_FATAL(dl.n, 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_STRING_EQUAL(dl.items[i].message, expected[i].message);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dl.items[i].loc.file);
		CU_ASSERT_STRING_EQUAL(dl.items[i].loc.file, expected[i].origin);
		CU_ASSERT_EQUAL(dl.items[i].loc.line, 1);
		CU_ASSERT_EQUAL(dl.items[i].loc.col, expected[i].col);
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

/* power_law rows are the outermost rank unless 'dimension' says otherwise. */
static void test_power_law_dimension(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_with("    densities: {A: {distribution: power_law, density: 0.5,"
				       " exponent: 2}}\n", &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.row_dim, 0);   /* M */
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[0].density.exponent, 2.0, 0.0);
	CU_ASSERT_FALSE(s->workload.tensors[0].density.permute_rows);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "actual data from a file beside the YAML", test_actual_data },
	{ "density forms", test_forms },
	{ "N:M dimension", test_nm_dimension },
	{ "power-law rows' dimension", test_power_law_dimension },
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
