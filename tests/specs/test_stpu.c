/*
 * stpu.c: the 'stpu' key alone (no architecture, problem or mapping
 * needed), its defaults (the seed's packing parameters), every field, the
 * density forms of its matrix (through the shared density parser, banded
 * and actual data included), a Matrix Market file, and the located errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

/* Load 'text' alone; the set (or NULL, diagnostics printed). */
static struct spec_set *load(const char *text, struct diag_list *dl)
{
	const char *texts[1] = { text };
	return st_load(texts, 1, NULL, dl);
}

/* The defaults: a 128 x 128 fp32 array and the seed's C1 parameters. */
static void test_defaults(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("stpu:\n  matrix: {rows: 100, cols: 80, density: 0.05}\n", &dl);
	const struct spec_stpu *st;
	unsigned e;

	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	st = s->stpu;
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->array_rows, 128);
	CU_ASSERT_EQUAL(st->array_cols, 128);
	CU_ASSERT_EQUAL(st->dtype, SPEC_STPU_FP32);
	CU_ASSERT_EQUAL(st->index_bits, 0);
	CU_ASSERT_EQUAL(st->max_collision_row, 1);
	CU_ASSERT_EQUAL(st->n_iter, 2);
	CU_ASSERT_EQUAL(st->max_collision_group[0], 15);
	CU_ASSERT_EQUAL(st->max_collision_group[1], 4);
	CU_ASSERT_EQUAL(st->kmz_max_columns, 8);
	CU_ASSERT_DOUBLE_EQUAL(st->kmz_max_conflict_fraction, 0.0, 0);
	CU_ASSERT_STRING_EQUAL(st->energy_preset, "horowitz45");
	for (e = 0; e < SPEC_STPU_E_COUNT; e++)
		CU_ASSERT_FALSE(st->has_energy[e]);
	CU_ASSERT_EQUAL(st->matrix_rows, 100);
	CU_ASSERT_EQUAL(st->matrix_cols, 80);
	CU_ASSERT_EQUAL(st->matrix.kind, SPEC_DENSITY_FIXED_STRUCTURED);
	CU_ASSERT_DOUBLE_EQUAL(st->matrix.density, 0.05, 0);
	CU_ASSERT_EQUAL(st->seed, 1);
	CU_ASSERT_EQUAL(s->arch.n_levels, 0);
	CU_ASSERT_EQUAL(s->workload.n_tensors, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Every field given ('-' and '_' spellings are the same keys). */
static void test_fields(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load(
		"stpu:\n"
		"  array: {rows: 256, cols: 64, dtype: int8, index-bits: 16}\n"
		"  packing:\n"
		"    max_collision_row: 2\n"
		"    max_collision_group: [10, 5, 2]\n"
		"    kmz: {max_columns: 4, max_conflict_fraction: 0.125}\n"
		"  energy: {preset: horowitz45, mac_pj: 1.5, hold_pj: 0.25, sram_pj_per_bit: 0}\n"
		"  matrix:\n"
		"    rows: 50\n"
		"    cols: 40\n"
		"    density: {distribution: hypergeometric, density: 0.1}\n"
		"    seed: 9\n", &dl);
	const struct spec_stpu *st;

	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	st = s->stpu;
	CU_ASSERT_EQUAL(st->array_rows, 256);
	CU_ASSERT_EQUAL(st->array_cols, 64);
	CU_ASSERT_EQUAL(st->dtype, SPEC_STPU_INT8);
	CU_ASSERT_EQUAL(st->index_bits, 16);
	CU_ASSERT_EQUAL(st->max_collision_row, 2);
	CU_ASSERT_EQUAL(st->n_iter, 3);
	CU_ASSERT_EQUAL(st->max_collision_group[0], 10);
	CU_ASSERT_EQUAL(st->max_collision_group[1], 5);
	CU_ASSERT_EQUAL(st->max_collision_group[2], 2);
	CU_ASSERT_EQUAL(st->kmz_max_columns, 4);
	CU_ASSERT_DOUBLE_EQUAL(st->kmz_max_conflict_fraction, 0.125, 0);
	CU_ASSERT_TRUE(st->has_energy[SPEC_STPU_E_MAC]);
	CU_ASSERT_DOUBLE_EQUAL(st->energy_pj[SPEC_STPU_E_MAC], 1.5, 0);
	CU_ASSERT_TRUE(st->has_energy[SPEC_STPU_E_HOLD]);
	CU_ASSERT_DOUBLE_EQUAL(st->energy_pj[SPEC_STPU_E_HOLD], 0.25, 0);
	CU_ASSERT_TRUE(st->has_energy[SPEC_STPU_E_SRAM_BIT]);
	CU_ASSERT_FALSE(st->has_energy[SPEC_STPU_E_LATCH]);
	CU_ASSERT_EQUAL(st->matrix.kind, SPEC_DENSITY_HYPERGEOMETRIC);
	CU_ASSERT_DOUBLE_EQUAL(st->matrix.density, 0.1, 0);
	CU_ASSERT_EQUAL(st->seed, 9);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* A banded matrix: its density follows from the band on the square matrix. */
static void test_banded(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("stpu:\n  matrix: {rows: 20, cols: 20, density: "
				  "{distribution: banded, band_width: 2}}\n", &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->stpu->matrix.kind, SPEC_DENSITY_BANDED);
	CU_ASSERT_EQUAL(s->stpu->matrix.band_width, 2);
	/* 20 + 2 (19 + 18) = 94 points of 400 */
	CU_ASSERT_DOUBLE_EQUAL(s->stpu->matrix.density, 94.0 / 400.0, 1e-12);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* A Matrix Market file beside the YAML: the shape and pattern come from it. */
static void test_file(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	st_write("stpu3x4.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
				"3 4 4\n1 1\n2 3\n3 4\n3 1\n");
	s = load("stpu:\n  matrix: {file: stpu3x4.mtx}\n", &dl);
	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->stpu->matrix_rows, 3);
	CU_ASSERT_EQUAL(s->stpu->matrix_cols, 4);
	CU_ASSERT_EQUAL(s->stpu->matrix.kind, SPEC_DENSITY_ACTUAL);
	CU_ASSERT_EQUAL(s->stpu->matrix.data->nnz, 4);
	CU_ASSERT_DOUBLE_EQUAL(s->stpu->matrix.density, 4.0 / 12.0, 1e-12);
	spec_set_free(s);
	diag_list_release(&dl);
	/* the same through the density parser's actual_data */
	s = load("stpu:\n  matrix: {rows: 3, cols: 4, density: {distribution: actual_data, "
		 "file: stpu3x4.mtx}}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->stpu->matrix.kind, SPEC_DENSITY_ACTUAL);
	CU_ASSERT_EQUAL(s->stpu->matrix.data->nnz, 4);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *yaml;           /* under 'stpu:' */
	const char *expected;       /* "line:col: error: message" or a part of it */
};

#define MAT "  matrix: {rows: 10, cols: 10, density: 0.1}\n"

static const struct error_row error_rows[] = {
	{ "  array: {rows: 0}\n" MAT,
	  "2:17: error: in 'stpu.array.rows': expected an integer in [1, 4096], got '0'" },
	{ "  array: {dtype: int16}\n" MAT,
	  "2:18: error: in 'stpu.array.dtype': unknown dtype 'int16' (int8 or fp32)" },
	{ "  array: {colz: 4}\n" MAT,
	  "2:11: error: in 'stpu.array': unknown key 'colz'; did you mean 'cols'?" },
	{ "  packing: {max_collision_group: []}\n" MAT,
	  "2:34: error: in 'stpu.packing.max_collision_group': expected 1 to 8 limits (one per "
	  "iteration), got 0" },
	{ "  packing: {max_collision_group: [4, -1]}\n" MAT,
	  "in 'stpu.packing.max_collision_group[1]': expected an integer in [0, 1000000], got '-1'" },
	{ "  packing: {kmz: {max_conflict_fraction: 2}}\n" MAT,
	  "in 'stpu.packing.kmz.max_conflict_fraction': expected a number in [0, 1], got '2'" },
	{ "  packing: {kmz: {max_columns: 0}}\n" MAT,
	  "in 'stpu.packing.kmz.max_columns': expected an integer in [1, 1024], got '0'" },
	{ "  energy: {mac: 1}\n" MAT,
	  "2:12: error: in 'stpu.energy': unknown key 'mac'\n" },
	{ "  energy: {preset: horowitz}\n" MAT,
	  "in 'stpu.energy.preset': unknown STPU energy preset 'horowitz'; did you mean "
	  "'horowitz45'?" },
	{ "  energy: {hold_pj: -1}\n" MAT,
	  "in 'stpu.energy.hold_pj': expected a number in [0, 1e+12], got '-1'" },
	{ "  array: {rows: 8}\n", "1:1: error: in 'stpu': an STPU design needs a 'matrix'" },
	{ "  matrix: {rows: 10, cols: 10}\n",
	  "2:11: error: in 'stpu.matrix': a matrix needs 'rows', 'cols' and 'density', or a 'file'" },
	{ "  matrix: {rows: 10, cols: 10, density: 0.1, file: a.mtx}\n",
	  "in 'stpu.matrix': give either 'file' or 'density', not both" },
	{ "  matrix: {rows: 10, cols: 20, density: {distribution: banded, band_width: 1}}\n",
	  "in 'stpu.matrix.density': a banded density needs a square data space; 'matrix' is "
	  "10 x 20" },
	{ "  matrix: {rows: 8, cols: 8, density: {distribution: structured_nm, n: 2, m: 4}}\n",
	  "in 'stpu.matrix.density': distribution 'structured_nm' needs a problem dimension; it "
	  "is not available for 'matrix'" },
	{ "  matrix: {rows: 8, cols: 8, density: {distribution: hypergeometric}}\n",
	  "in 'stpu.matrix.density': distribution 'hypergeometric' needs a 'density'" },
	{ "  matrix: {rows: 8, cols: 8, density: 1.5}\n",
	  "in 'stpu.matrix.density': expected a number in [0, 1], got '1.5'" },
	{ "  matrix: {rows: 8, cols: 8, density: 0.5, sead: 2}\n",
	  "in 'stpu.matrix': unknown key 'sead'; did you mean 'seed'?" },
	{ "  matrix: {rows: 5, file: stpu3x4.mtx}\n",
	  "2:18: error: in 'stpu.matrix': '" },
	{ "  matrix: {rows: 5, file: stpu3x4.mtx}\n", "stpu3x4.mtx' is 3 x 4 but rows x cols is 5 x 4" },
	/* more than the model generates (accel/stpu_pattern.c's bounds) */
	{ "  matrix: {rows: 10000000, cols: 10000000, density: 0.01}\n",
	  "2:53: error: in 'stpu.matrix.density': a 10000000 x 10000000 matrix with "
	  "1000000000000 non-zeros is more than the model generates (at most 2^32 positions, or "
	  "2^27 non-zeros)" },
	{ "  matrix: {rows: 100000, cols: 100000, density: {distribution: power_law, density: 0.5, "
	  "exponent: 1}}\n",
	  "in 'stpu.matrix.density': a power-law matrix with 5000000000 non-zeros is more than the "
	  "model generates (at most 2^27)" },
	{ "  matrix: {rows: 10000000, cols: 10000000, density: {distribution: block, density: 0.5, "
	  "block_shape: [2, 2]}}\n",
	  "in 'stpu.matrix.density': a 10000000 x 10000000 matrix of 25000000000000 blocks of 2 x 2 "
	  "is more than the model generates (at most 2^32 blocks and 2^32 non-zeros)" },
	{ "  matrix: {rows: 100000, cols: 100000, density: {distribution: banded, "
	  "band_width: 30000}}\n",
	  "in 'stpu.matrix.density': a 100000 x 100000 band of half-width 30000 holds 5100070000 "
	  "non-zeros, more than the model generates (at most 2^32)" },
	{ "  arrays: {rows: 8}\n" MAT,
	  "2:3: error: in 'stpu': unknown key 'arrays'; did you mean 'array'?" },
};

/*
 * The largest matrices the model generates are accepted: 2^32 positions at
 * any density, and past that up to 2^27 non-zeros (10^14 positions at
 * 10^-6: 10^8).
 */
static void test_largest(void)
{
	static const char *const yaml[] = {
		"stpu:\n  matrix: {rows: 65536, cols: 65536, density: 0.5}\n",
		"stpu:\n  matrix: {rows: 10000000, cols: 10000000, density: 0.000001}\n",
	};
	size_t i;

	for (i = 0; i < sizeof(yaml) / sizeof(yaml[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load(yaml[i], &dl);
		diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL(s);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_errors(void)
{
	size_t i;

	st_write("stpu3x4.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
				"3 4 4\n1 1\n2 3\n3 4\n3 1\n");
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		char text[1024];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		snprintf(text, sizeof(text), "stpu:\n%s", error_rows[i].yaml);
		s = load(text, &dl);
		st_assert_diag(s, &dl, true, i, error_rows[i].expected);
	}
}

/* Several problems in one design are all reported. */
static void test_many_errors(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("stpu:\n"
				  "  array: {rows: 0, dtype: int4}\n"
				  "  energy: {latch_pj: x}\n"
				  "  matrix: {rows: 4, cols: 4, density: 2}\n", &dl);

	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(dl.n_errors, 4);
	diag_list_release(&dl);
}

/* An 'stpu' beside an architecture and a problem: a located error for each Timeloop key. */
static void test_with_design(void)
{
	const char *texts[2] = {
		"architecture:\n  subtree: [{name: s, local: [{name: b, class: SRAM}, "
		"{name: m, class: intmac}]}]\n"
		"problem: {shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]}]}, "
		"instance: {K: 2}}\n",
		"stpu:\n" MAT,
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, NULL, &dl);

	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(dl.n_errors, 2);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "'architecture' does not apply to an 'stpu' "
			       "design (it stands alone: everything it needs is under 'stpu')");
	CU_ASSERT_EQUAL(dl.items[0].loc.line, 1);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* The name tables. */
static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(spec_stpu_dtype_name(SPEC_STPU_INT8), "int8");
	CU_ASSERT_STRING_EQUAL(spec_stpu_dtype_name(SPEC_STPU_FP32), "fp32");
	CU_ASSERT_STRING_EQUAL(spec_stpu_energy_key_name(SPEC_STPU_E_HOLD), "hold_pj");
	CU_ASSERT_STRING_EQUAL(spec_stpu_energy_key_name(SPEC_STPU_E_TPU_X_FORWARD),
			       "tpu_x_forward_pj");
	CU_ASSERT_STRING_EQUAL(spec_stpu_energy_key_name(SPEC_STPU_E_COUNT), "?");
}

static CU_TestInfo tests[] = {
	{ "defaults", test_defaults },
	{ "fields", test_fields },
	{ "banded", test_banded },
	{ "file", test_file },
	{ "errors", test_errors },
	{ "the largest generated matrices", test_largest },
	{ "many errors", test_many_errors },
	{ "beside a Timeloop design", test_with_design },
	{ "names", test_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "specs/stpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
