/*
 * problem.c: dimensions, coefficients (defaults and instance overrides),
 * the projection forms, convex-hull tensor sizes and dimension masks, and
 * the shape/instance errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static const char arch[] =
	"architecture:\n"
	"  subtree: [{name: s, local: [{name: b, class: SRAM}, {name: m, class: intmac}]}]\n";

static struct spec_set *load_problem(const char *problem, struct diag_list *dl)
{
	const char *texts[2] = { arch, problem };
	return st_load(texts, 2, NULL, dl);
}

struct size_row {
	const char *projection;   /* of tensor T over dims [C, R, P] = [3, 3, 8] */
	const char *instance_extra;
	unsigned n_ranks;
	uint64_t rank_extent[3];  /* 1 + sum |coef| (bound - 1) per rank */
	uint64_t size;
	uint32_t dim_mask;
};

static const struct size_row size_rows[] = {
	{ "[C, P]", "", 2, { 3, 8 }, 24, 0x5 },
	{ "[[[C]], [[P]]]", "", 2, { 3, 8 }, 24, 0x5 },
	{ "[[[R], [P]]]", "", 1, { 10 }, 10, 0x6 },
	{ "[[[R, Wd], [P, Ws]]]", "", 1, { 10 }, 10, 0x6 },
	/* stride 2: 1 + 1*2 + 2*7 */
	{ "[[[R, Wd], [P, Ws]]]", "Ws: 2", 1, { 17 }, 17, 0x6 },
	/* stride 2, dilation 3: 1 + 3*2 + 2*7 */
	{ "[[[R, Wd], [P, Ws]]]", "Ws: 2, Wd: 3", 1, { 21 }, 21, 0x6 },
	{ "[[[Ws, P], [Wd, R]]]", "Ws: 2", 1, { 17 }, 17, 0x6 },
	{ "[[[P, 4]]]", "", 1, { 29 }, 29, 0x4 },
	{ "[[[P, -1], [R]]]", "", 1, { 10 }, 10, 0x6 },
	/* negative stride and dilation count by their magnitude: 1 + 3*2 + 2*7 */
	{ "[[[R, Wd], [P, Ws]]]", "Ws: -2, Wd: -3", 1, { 21 }, 21, 0x6 },
	{ "[C, [[R], [P]]]", "", 2, { 3, 10 }, 30, 0x7 },
	/* three ranks: C strided by 4, R dilated by 2, P */
	{ "[[[C, 4]], [[R, Wd]], P]", "Wd: 2", 3, { 9, 5, 8 }, 360, 0x7 },
	{ "[]", "", 0, { 0 }, 1, 0x0 },
};

static void test_sizes_and_masks(void)
{
	size_t i;
	unsigned r;
	for (i = 0; i < sizeof(size_rows) / sizeof(size_rows[0]); i++) {
		char text[1024];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		snprintf(text, sizeof(text),
			 "problem:\n"
			 "  shape:\n"
			 "    dimensions: [C, R, P]\n"
			 "    coefficients: [{name: Ws, default: 1}, {name: Wd}]\n"
			 "    data_spaces: [{name: T, projection: %s}]\n"
			 "  instance: {C: 3, R: 3, P: 8, %s}\n",
			 size_rows[i].projection, size_rows[i].instance_extra);
		s = load_problem(text, &dl);
		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->workload.tensors[0].n_ranks, size_rows[i].n_ranks);
		for (r = 0; r < size_rows[i].n_ranks; r++)
			CU_ASSERT_EQUAL(s->workload.tensors[0].rank_extent[r],
					size_rows[i].rank_extent[r]);
		CU_ASSERT_EQUAL(s->workload.tensors[0].size, size_rows[i].size);
		CU_ASSERT_EQUAL(s->workload.tensors[0].dim_mask, size_rows[i].dim_mask);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_terms_and_coefficients(void)
{
	static const char text[] =
		"problem:\n"
		"  shape:\n"
		"    name: conv\n"
		"    dimensions: [C, R, P]\n"
		"    coefficients: [{name: Ws, default: 3}, {name: Wd}]\n"
		"    data-spaces:\n"
		"    - {name: I, projection: [[[R, Wd], [P, Ws]]], read-write: false}\n"
		"    - {name: O, projection: [P], read_write: true}\n"
		"  instance: {C: 2, P: 4, Wd: 2}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_problem(text, &dl);
	const struct spec_workload *w;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	w = &s->workload;
	CU_ASSERT_STRING_EQUAL(w->shape_name, "conv");
	CU_ASSERT_EQUAL(w->n_dims, 3);
	CU_ASSERT_EQUAL(w->bounds[0], 2);
	CU_ASSERT_EQUAL(w->bounds[1], 1);           /* not in instance: 1 */
	CU_ASSERT_EQUAL(w->n_coefs, 2);
	CU_ASSERT_EQUAL(w->coefs[0].value, 3);      /* default */
	CU_ASSERT_EQUAL(w->coefs[1].value, 2);      /* instance override */
	CU_ASSERT_EQUAL(w->tensors[0].ranks[0].n_terms, 2);
	CU_ASSERT_EQUAL(w->tensors[0].ranks[0].terms[0].dim, 1);
	CU_ASSERT_EQUAL(w->tensors[0].ranks[0].terms[0].coef_idx, 1);
	CU_ASSERT_EQUAL(w->tensors[0].ranks[0].terms[0].coef, 2);
	CU_ASSERT_EQUAL(w->tensors[0].ranks[0].terms[1].coef, 3);
	CU_ASSERT_EQUAL(w->tensors[0].size, 10);    /* 0*2 + 3*3 + 1 */
	CU_ASSERT_FALSE(w->tensors[0].read_write);
	CU_ASSERT_TRUE(w->tensors[1].read_write);
	CU_ASSERT_EQUAL(w->tensors[1].ranks[0].terms[0].coef_idx, -1);
	CU_ASSERT_EQUAL(w->tensors[1].ranks[0].terms[0].coef, 1);
	CU_ASSERT_EQUAL(spec_tensor_find(w, "O"), 1);
	CU_ASSERT_EQUAL(spec_dim_find(w, "P"), 2);
	CU_ASSERT_EQUAL(spec_dim_find(w, "Q"), -1);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *problem;
	const char *expected;
};

static const struct error_row error_rows[] = {
	{ "problem: {shape: cnn_layer}\n",
	  "in 'problem.shape': named problem shapes ('cnn_layer') are not supported" },
	{ "problem: {instance: {K: 1}}\n", "missing 'shape'" },
	{ "problem: {shape: {dimensions: []}}\n", "a problem needs at least one dimension" },
	{ "problem: {shape: {dimensions: [K], data_spaces: []}}\n",
	  "a problem needs 1 to 16 data spaces, got 0" },
	{ "problem: {shape: {dimensions: [K]}}\n", "1:18: error: in 'problem.shape': missing 'data_spaces'" },
	{ "problem: {shape: {dimensions: [K], data_spaces: [{name: A}]}}\n",
	  "data space 'A' needs a 'projection'" },
	{ "problem: {shape: {dimensions: [K], data_spaces: [{name: A, projection: [[[K, S]]]}]}}\n",
	  "unknown coefficient 'S'" },
	{ "problem: {shape: {dimensions: [K], data_spaces: "
	  "[{name: A, projection: [[[K], [K], [K], [K], [K]]]}]}}\n",
	  "a rank needs 1 to 4 terms, got 5" },
	{ "problem: {shape: {dimensions: [K], coefficients: [{name: K}], data_spaces: "
	  "[{name: A, projection: [K]}]}}\n", "'K' is already a dimension or coefficient" },
	{ "problem: {shape: {dimensions: [K], coefficients: [{default: 2}], data_spaces: "
	  "[{name: A, projection: [K]}]}}\n", "a coefficient needs a 'name'" },
	{ "problem: {shape: {dimensions: [K], coefficients: [{name: Wstride}], data_spaces: "
	  "[{name: A, projection: [K]}]}, instance: {K: 1, H: 1, densities: {}, "
	  "commonDensity: 0.5, Wstrid: 2}}\n",
	  "1:171: warning: in 'problem.instance': 'Wstrid' is neither a dimension nor a "
	  "coefficient and is ignored; did you mean 'Wstride'?\n" },
	{ "problem: {shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]}]},"
	  " instance: {K: 99999999999999999999}}\n",
	  "in 'problem.instance.K': expected an integer >= 1, got '99999999999999999999'" },
	{ "problem: {shape: {dimensions: [K, M], data_spaces: "
	  "[{name: A, projection: [K, M, K, M, K, M, K, M, K]}]}}\n",
	  "at most 8 ranks are supported, got 9" },
	{ "problem: {shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]}],"
	  " flatten: [K]}}\n", "unknown key 'flatten'" },
};

static void test_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_problem(error_rows[i].problem, &dl);
		st_assert_diag(s, &dl, false, i, error_rows[i].expected);
	}
}

/* Extents and sizes past 2^64 - 1 are located errors, not wrapped values. */
struct huge_row {
	const char *problem;
	const char *expected;     /* the whole diagnostic: line:col: severity: message */
};

static const struct huge_row huge_rows[] = {
	/*
	 * the product of the rank extents: 2^32 * 2^32 * 16, which is also the
	 * operation space's (located at B, whose bound takes it past 2^64 - 1)
	 */
	{ "problem: {shape: {dimensions: [A, B, C], data_spaces: [{name: T, projection: [A, B, C]}]},"
	  " instance: {A: 4294967296, B: 4294967296, C: 16}}\n",
	  "1:121: error: in 'problem.instance.B': the operation space (the product of the "
	  "dimensions' bounds) exceeds 2^64 - 1 points; counts are exact 64-bit integers\n"
	  "1:63: error: data space 'T' is too large: its ranks span more than 2^64 - 1 points "
	  "together\n" },
	/* the operation space alone: 2^32 * 2^32 points, the tensor 2^32 */
	{ "problem:\n"
	  "  shape: {dimensions: [A, B], data_spaces: [{name: T, projection: [A]}]}\n"
	  "  instance: {A: 4294967296, B: 4294967296}\n",
	  "3:32: error: in 'problem.instance.B': the operation space (the product of the "
	  "dimensions' bounds) exceeds 2^64 - 1 points; counts are exact 64-bit integers\n" },
	/* one rank: 1 + 2^62 * (2^3 - 1) overflows in the product */
	{ "problem:\n"
	  "  shape:\n"
	  "    dimensions: [P, R]\n"
	  "    coefficients: [{name: Ws, default: 1}]\n"
	  "    data_spaces:\n"
	  "    - {name: I, projection: [[[P, Ws], [R]]]}\n"
	  "  instance: {P: 8, R: 2, Ws: 4611686018427387904}\n",
	  "6:14: error: data space 'I' is too large: rank 0 spans more than 2^64 - 1 points\n" },
	/* one rank: each term fits, their sum does not (9e18 * 1 + 5e18 * 2 + 1) */
	{ "problem:\n"
	  "  shape:\n"
	  "    dimensions: [P, R]\n"
	  "    coefficients: [{name: Ws, default: 1}, {name: Wd, default: 1}]\n"
	  "    data_spaces:\n"
	  "    - {name: O, projection: [P]}\n"
	  "    - {name: I, projection: [P, [[P, Ws], [R, Wd]]]}\n"
	  "  instance: {P: 2, R: 3, Ws: 9000000000000000000, Wd: -5000000000000000000}\n",
	  "7:14: error: data space 'I' is too large: rank 1 spans more than 2^64 - 1 points\n" },
};

static void test_huge_tensor_is_an_error(void)
{
	size_t i;
	for (i = 0; i < sizeof(huge_rows) / sizeof(huge_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_problem(huge_rows[i].problem, &dl);
		char *got = st_diags(&dl);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_STRING_EQUAL(got, huge_rows[i].expected);
		if (strcmp(got, huge_rows[i].expected))
			fprintf(stderr, "row %zu: got '%s'\n", i, got);
		spec_set_free(s);
		free(got);
		diag_list_release(&dl);
	}
}

/* An extent near 2^64 is exact: 1 + 9e18 * 2 (the largest coefficient the loader takes). */
static void test_largest_extent(void)
{
	static const char text[] =
		"problem:\n"
		"  shape:\n"
		"    dimensions: [P]\n"
		"    coefficients: [{name: Ws, default: 1}]\n"
		"    data_spaces: [{name: I, projection: [[[P, Ws]]]}]\n"
		"  instance: {P: 3, Ws: -9000000000000000000}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_problem(text, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.tensors[0].rank_extent[0], 18000000000000000001ull);
	CU_ASSERT_EQUAL(s->workload.tensors[0].size, 18000000000000000001ull);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* An operation space of exactly 2^64 - 1 points: (2^32 - 1) (2^32 + 1). */
static void test_largest_operation_space(void)
{
	static const char text[] =
		"problem:\n"
		"  shape: {dimensions: [A, B], data_spaces: [{name: T, projection: [A]}]}\n"
		"  instance: {A: 4294967295, B: 4294967297}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_problem(text, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.bounds[0] * s->workload.bounds[1], UINT64_MAX);
	spec_set_free(s);
	diag_list_release(&dl);
}

/*
 * The builds of one source take the workload an earlier one read from the
 * same 'problem' nodes (specs/problem.c): the files' by pointer, an
 * override's by what it holds. Each value an override changes (a density,
 * a bound, a coefficient) gives the new workload; a density whose location
 * is in the override is read by every build; each build has its own data
 * spaces.
 */
struct pm_row {
	const char *ov;              /* NULL: none */
	double density;              /* of A */
	uint64_t k, a_size;          /* K's bound, A's size */
	bool own_loc;                /* A's density is located in the override */
};

static const struct pm_row pm_rows[] = {
	{ NULL, 0.25, 16, 64, false },
	{ NULL, 0.25, 16, 64, false },
	{ "problem.instance.densities.A.density=0.1", 0.1, 16, 64, false },
	{ "problem.instance.densities.A.density=0.3", 0.3, 16, 64, false },
	{ "problem.instance.densities.A.density=0.1", 0.1, 16, 64, false },
	{ "problem.instance.densities.A.density='0.1'", 0.1, 16, 64, false },
	{ "problem.instance.K=4", 0.25, 4, 16, false },
	{ "problem.instance.K=4", 0.25, 4, 16, false },
	{ "problem.instance.S=2", 0.25, 16, 124, false },         /* a coefficient */
	{ "problem.instance.densities.A=0.5", 0.5, 16, 64, true },
	{ "problem.instance.densities.A=0.5", 0.5, 16, 64, true },
	{ NULL, 0.25, 16, 64, false },
};

static void test_read_once(void)
{
	static const char design[] =
		"architecture:\n"
		"  subtree: [{name: s, local: [{name: b, class: SRAM}, {name: m, class: intmac}]}]\n"
		"problem:\n"
		"  shape:\n"
		"    dimensions: [M, K]\n"
		"    coefficients: [{name: S, default: 1}]\n"
		"    data_spaces:\n"
		"    - {name: A, projection: [M, [[K, S]]]}\n"
		"    - {name: Z, projection: [M], read_write: true}\n"
		"  instance:\n"
		"    M: 4\n"
		"    K: 16\n"
		"    densities: {A: {distribution: fixed_structured, density: 0.25}}\n";
	struct spec_source *src = spec_source_new();
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *prev = NULL, *s;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "d.yaml", design, strlen(design), &dl), 0);
	for (i = 0; i < sizeof(pm_rows) / sizeof(pm_rows[0]); i++) {
		const struct pm_row *r = &pm_rows[i];
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		const struct spec_tensor *a;
		if (r->ov)
			CU_ASSERT_EQUAL_FATAL(spec_override_parse(r->ov, &ov, &dl), 0);
		s = spec_set_build(src, &ov, r->ov ? 1 : 0, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		a = &s->workload.tensors[0];
		CU_ASSERT_STRING_EQUAL(a->name, "A");
		CU_ASSERT_DOUBLE_EQUAL(a->density.density, r->density, 0);
		CU_ASSERT_EQUAL(s->workload.bounds[1], r->k);
		CU_ASSERT_EQUAL(a->size, r->a_size);
		CU_ASSERT_EQUAL(s->workload.tensors[1].size, 4);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a->density.loc.file);
		CU_ASSERT_STRING_EQUAL(a->density.loc.file, r->own_loc ? ov.origin : "d.yaml");
		if (prev)   /* a cascade gives a set's data spaces densities in place */
			CU_ASSERT_PTR_NOT_EQUAL(s->workload.tensors, prev->workload.tensors);
		spec_set_free(prev);
		prev = s;
		spec_override_release(&ov);
	}
	CU_ASSERT_EQUAL(dl.n, 0);
	spec_set_free(prev);
	spec_source_free(src);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "projection forms, sizes, masks", test_sizes_and_masks },
	{ "terms and coefficients", test_terms_and_coefficients },
	{ "shape and instance errors", test_errors },
	{ "overflowing extents and sizes", test_huge_tensor_is_an_error },
	{ "the largest extent", test_largest_extent },
	{ "the largest operation space", test_largest_operation_space },
	{ "workloads read once for the builds of a source", test_read_once },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "problem", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
