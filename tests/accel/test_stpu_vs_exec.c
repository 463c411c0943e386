/*
 * The analytical STPU model against the cycle-level simulation (exec/),
 * which shares no code with it: on every matrix of the table and for every
 * scheme (TPU, STPU-C0, STPU-C1, KMZ) the packed width, blocks, cycles,
 * every PE state count, vector forwards, buffer accesses and load hops must
 * be equal, the simulation must see no scheduling conflict, and its result
 * must equal the dense product (KMZ: of the entries it keeps).
 *
 * The table covers shapes that are not multiples of the array, non-square
 * arrays, empty columns and an empty partition, a full column, a fully
 * dense matrix, an empty matrix, banded, power-law (rows in order and
 * permuted), block-structured and uniform matrices from ultra-sparse to
 * moderate, a schedule where seed rule 2 binds, KMZ's lossy
 * mode and C1 with three passes.
 */
#include <stdio.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

struct vs_row {
	const char *name;
	const char *array;          /* the 'array:' and 'packing:' lines */
	const char *matrix;         /* a 'matrix:' line, or NULL with 'entries' */
	uint64_t rows, cols;
	const char *entries;        /* "row,col ..." for a hand matrix */
};

#define A(r, c) "  array: {rows: " #r ", cols: " #c "}\n"

static const struct vs_row table[] = {
	{ "uniform 37 x 29 on 8 x 8", A(8, 8),
	  "  matrix: {rows: 37, cols: 29, density: 0.1, seed: 3}\n", 0, 0, NULL },
	{ "moderate 70 x 100 on 16 x 8", A(16, 8),
	  "  matrix: {rows: 70, cols: 100, density: 0.2, seed: 4}\n", 0, 0, NULL },
	{ "ultra-sparse 300 x 300 on 32 x 32", A(32, 32),
	  "  matrix: {rows: 300, cols: 300, density: 0.005, seed: 5}\n", 0, 0, NULL },
	{ "moderate 200 x 150 on 16 x 16", A(16, 16),
	  "  matrix: {rows: 200, cols: 150, density: 0.05, seed: 6}\n", 0, 0, NULL },
	{ "non-square array 5 x 7, 23 x 41", A(5, 7),
	  "  matrix: {rows: 23, cols: 41, density: 0.3, seed: 7}\n", 0, 0, NULL },
	{ "fully dense 20 x 20 on 8 x 8", A(8, 8),
	  "  matrix: {rows: 20, cols: 20, density: 1, seed: 8}\n", 0, 0, NULL },
	{ "banded 60 x 60, band 3, on 8 x 8", A(8, 8),
	  "  matrix: {rows: 60, cols: 60, density: {distribution: banded, band_width: 3}}\n",
	  0, 0, NULL },
	{ "power law 90 x 70, exponent 1.2, on 8 x 8", A(8, 8),
	  "  matrix: {rows: 90, cols: 70, density: {distribution: power_law, density: 0.08, "
	  "exponent: 1.2}, seed: 13}\n", 0, 0, NULL },
	{ "power law, rows permuted, 64 x 64 on 16 x 4", A(16, 4),
	  "  matrix: {rows: 64, cols: 64, density: {distribution: power_law, density: 0.05, "
	  "exponent: 2, permute_rows: true}, seed: 14}\n", 0, 0, NULL },
	{ "block-structured 50 x 47, 3 x 4 blocks", A(8, 8),
	  "  matrix: {rows: 50, cols: 47, density: {distribution: block_structured, density: 0.2, "
	  "block_shape: [3, 4]}, seed: 15}\n", 0, 0, NULL },
	{ "KMZ lossy, alpha 4, gamma 0.05", A(8, 8) "  packing: {kmz: {max_columns: 4, "
	  "max_conflict_fraction: 0.05}}\n",
	  "  matrix: {rows: 64, cols: 64, density: 0.15, seed: 9}\n", 0, 0, NULL },
	{ "C1 three passes", A(8, 8) "  packing: {max_collision_row: 2, max_collision_group: "
	  "[6, 3, 1]}\n", "  matrix: {rows: 50, cols: 60, density: 0.25, seed: 10}\n", 0, 0,
	  NULL },
	{ "one column", A(4, 4), "  matrix: {rows: 13, cols: 1, density: 0.5, seed: 11}\n", 0, 0,
	  NULL },
	{ "one row", A(4, 4), "  matrix: {rows: 1, cols: 13, density: 0.5, seed: 12}\n", 0, 0,
	  NULL },
	/* columns 1, 3, 4 and 6 empty; rows 4..7 (partition 1 of 4 rows) empty */
	{ "empty columns and partition", A(4, 3), NULL, 11, 7,
	  "0,0 1,0 3,2 9,2 10,5 2,5 8,0" },
	/* column 2 is full; the others sparse */
	{ "a full column", A(4, 4), NULL, 10, 6,
	  "0,2 1,2 2,2 3,2 4,2 5,2 6,2 7,2 8,2 9,2 0,0 5,1 9,3 3,4 7,5 1,5" },
	/* a full column then four single-row columns per partition: groups of
	   1 and 4 elements, so the next block's column 0 waits for seed rule 2 */
	{ "seed rule 2 binds", A(4, 2), NULL, 8, 5,
	  "0,0 1,0 2,0 3,0 4,0 5,0 6,0 7,0 0,1 4,1 1,2 5,2 2,3 6,3 3,4 7,4" },
	{ "empty matrix", A(4, 4), NULL, 9, 5, "" },
};

/* The design of row 'r' as YAML (hand matrices written as Matrix Market). */
static struct spec_set *load_row(const struct vs_row *r)
{
	struct strbuf y = STRBUF_INIT, mtx = STRBUF_INIT;
	struct spec_set *s;

	strbuf_addf(&y, "stpu:\n%s", r->array);
	if (r->matrix) {
		strbuf_addstr(&y, r->matrix);
	} else {
		const char *p = r->entries;
		unsigned long long i, j;
		int used;
		size_t n = 0;
		for (; sscanf(p, " %llu,%llu%n", &i, &j, &used) == 2; p += used)
			n++;
		strbuf_addf(&mtx, "%%%%MatrixMarket matrix coordinate pattern general\n%llu %llu %zu\n",
			    (unsigned long long)r->rows, (unsigned long long)r->cols, n);
		for (p = r->entries; sscanf(p, " %llu,%llu%n", &i, &j, &used) == 2; p += used)
			strbuf_addf(&mtx, "%llu %llu\n", i + 1, j + 1);
		sf_write("vs.mtx", mtx.buf);
		strbuf_addstr(&y, "  matrix: {file: vs.mtx}\n");
	}
	s = sf_load(y.buf);
	strbuf_release(&y);
	strbuf_release(&mtx);
	return s;
}

struct field {
	const char *name;
	uint64_t model, sim;
};

static void test_model_equals_simulation(void)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct vs_row *row = &table[i];
		struct spec_set *s = load_row(row);
		struct accel_stpu_result r;
		struct arena a = ARENA_INIT;
		const struct spec_matrix *m;
		struct strbuf err = STRBUF_INIT;
		unsigned k, f;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
		m = accel_stpu_matrix(s->stpu, &a, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(m->nnz, r.nnz);
		for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++) {
			const struct accel_stpu_scheme_result *mr = &r.scheme[k];
			const struct accel_stpu_counts *c = &mr->counts;
			struct exec_stpu_result e;
			CU_ASSERT_EQUAL_FATAL(exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, 3,
							    &e, &err), 0);
			{
				const struct field fs[] = {
					{ "packed width", mr->packing.packed_width, e.packed_width },
					{ "dropped", mr->packing.n_dropped, e.n_dropped },
					{ "blocks", c->blocks, e.blocks },
					{ "cycles", c->cycles, e.cycles },
					{ "hold", c->hold, e.hold },
					{ "latch", c->latch, e.latch },
					{ "accumulate", c->accumulate, e.accumulate },
					{ "bypass", c->bypass, e.bypass },
					{ "mac", c->mac, e.mac },
					{ "x_forward", c->x_forward, e.x_forward },
					{ "vector_reads", c->vector_reads, e.vector_reads },
					{ "weight_words", c->weight_words, e.weight_words },
					{ "weight_hops", c->weight_hops, e.weight_hops },
					{ "output_accesses", c->output_accesses, e.output_accesses },
				};
				for (f = 0; f < sizeof(fs) / sizeof(fs[0]); f++) {
					if (fs[f].model != fs[f].sim)
						fprintf(stderr, "%s, %s: %s model %llu simulation %llu\n",
							row->name,
							accel_stpu_scheme_name((enum accel_stpu_scheme)k),
							fs[f].name, (unsigned long long)fs[f].model,
							(unsigned long long)fs[f].sim);
					CU_ASSERT_EQUAL(fs[f].model, fs[f].sim);
				}
			}
			if (e.hazard[0])
				fprintf(stderr, "%s: %s\n", row->name, e.hazard);
			CU_ASSERT_STRING_EQUAL(e.hazard, "");
			CU_ASSERT_EQUAL(e.n_wrong, 0);
			if (k != ACCEL_STPU_KMZ || !mr->packing.n_dropped)
				CU_ASSERT_DOUBLE_EQUAL(e.max_abs_error_full, 0.0, 0);
		}
		arena_release(&a);
		spec_set_free(s);
	}
}

static CU_TestInfo tests[] = {
	{ "model equals simulation", test_model_equals_simulation },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu vs exec", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
