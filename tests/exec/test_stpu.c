/*
 * exec/stpu.c on its own: the cycle-level simulation gives the dense
 * product for every scheme (KMZ: the product of the entries it keeps), its
 * cycle counts on tiny arrays match a hand trace, its events add up, a
 * lossy KMZ run reports the error against the full matrix, and what it
 * cannot simulate is refused with a message.
 */
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct spec_set *design(unsigned sah, unsigned saw, const char *extra)
{
	char yaml[512];
	snprintf(yaml, sizeof(yaml), "stpu:\n  array: {rows: %u, cols: %u}\n%s"
		 "  matrix: {rows: 4, cols: 4, density: 0.5}\n", sah, saw, extra);
	return sf_load(yaml);
}

struct trace_row {
	const char *name;
	unsigned sah, saw;
	uint64_t rows, cols;
	const char *entries;
	enum exec_stpu_scheme k;
	uint64_t cycles, blocks;
};

/*
 * Hand traces. TPU 2 x 2, one block: row loads start at 0 and 1, the top
 * PE of column c has its weight at cycle 1, values enter at 1 and 2, row
 * 1's output leaves column 1 at 3 and is accumulated at 4: 5 cycles.
 * STPU-C0 2 x 2 with one group of columns {0, 1} (rows 0, 1): elements
 * enter at 1, 2, the end signal at 3; column 1 (empty) passes at 4; row 1
 * is accumulated at 4 + 1 + 1: 7 cycles.
 */
static const struct trace_row traces[] = {
	{ "TPU 2x2", 2, 2, 2, 2, "0,0 1,1", EXEC_STPU_TPU, 5, 1 },
	{ "C0 2x2", 2, 2, 2, 2, "0,0 1,1", EXEC_STPU_C0, 7, 1 },
};

static void test_traces(void)
{
	size_t i;

	for (i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		const struct trace_row *t = &traces[i];
		struct arena a = ARENA_INIT;
		struct spec_set *s = design(t->sah, t->saw, "");
		struct exec_stpu_result r;
		struct strbuf err = STRBUF_INIT;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(exec_stpu_run(s->stpu, sf_matrix(&a, t->rows, t->cols,
									t->entries),
						    t->k, 1, &r, &err), 0);
		if (r.cycles != t->cycles)
			fprintf(stderr, "%s: %llu cycles, expected %llu\n", t->name,
				(unsigned long long)r.cycles, (unsigned long long)t->cycles);
		CU_ASSERT_EQUAL(r.cycles, t->cycles);
		CU_ASSERT_EQUAL(r.blocks, t->blocks);
		CU_ASSERT_STRING_EQUAL(r.hazard, "");
		CU_ASSERT_EQUAL(r.n_wrong, 0);
		spec_set_free(s);
		arena_release(&a);
	}
}

/* Every scheme computes y = A x exactly; the events add up per PE. */
static void test_numeric(void)
{
	struct arena a = ARENA_INIT;
	const struct spec_matrix *m = sf_matrix(&a, 9, 7, "0,0 1,0 2,1 3,1 4,2 0,3 8,3 5,4 6,5 "
						     "7,6 8,6 1,6 3,2 5,0");
	struct spec_set *s = design(4, 3, "");
	unsigned k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (k = 0; k < EXEC_STPU_N_SCHEMES; k++) {
		struct exec_stpu_result r;
		struct strbuf err = STRBUF_INIT;
		CU_ASSERT_EQUAL_FATAL(exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, 5, &r, &err), 0);
		CU_ASSERT_STRING_EQUAL(r.hazard, "");
		CU_ASSERT_EQUAL(r.n_outputs, 9);
		CU_ASSERT_EQUAL(r.n_wrong, 0);
		CU_ASSERT_DOUBLE_EQUAL(r.max_abs_error_full, 0.0, 0);
		/* every active PE of a block ends it once: accumulate, bypass or multiply-add */
		CU_ASSERT_EQUAL(r.accumulate + r.bypass + r.mac,
				(uint64_t)3 * r.output_accesses);
		if (k == EXEC_STPU_C0 || k == EXEC_STPU_C1) {
			CU_ASSERT_EQUAL(r.latch, 14);         /* each non-zero once */
			CU_ASSERT_EQUAL(r.accumulate, 14);
		}
		CU_ASSERT_TRUE(r.cycles > 0);
	}
	spec_set_free(s);
	arena_release(&a);
}

/*
 * KMZ with gamma = 1/2 of 4 rows: columns 0 and 1 share rows 0 and 1; they
 * combine, two entries are pruned, and y differs from the full product but
 * equals the product of the kept entries.
 */
static void test_kmz_lossy(void)
{
	struct arena a = ARENA_INIT;
	const struct spec_matrix *m = sf_matrix(&a, 4, 2, "0,0 1,0 0,1 1,1 2,1");
	struct spec_set *s = design(4, 2, "  packing: {kmz: {max_conflict_fraction: 0.5}}\n");
	struct exec_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(exec_stpu_run(s->stpu, m, EXEC_STPU_KMZ, 1, &r, &err), 0);
	CU_ASSERT_EQUAL(r.n_dropped, 2);
	CU_ASSERT_EQUAL(r.packed_width, 1);
	CU_ASSERT_EQUAL(r.n_wrong, 0);
	CU_ASSERT_TRUE(r.max_abs_error_full > 0);
	CU_ASSERT_STRING_EQUAL(r.hazard, "");
	spec_set_free(s);
	arena_release(&a);
}

/* The same seed gives the same run; values come from the seed, not the file. */
static void test_deterministic(void)
{
	struct arena a = ARENA_INIT;
	const struct spec_matrix *m = sf_matrix(&a, 6, 6, "0,0 1,1 2,2 3,3 4,4 5,5 0,5 5,0");
	struct spec_set *s = design(3, 3, "");
	struct exec_stpu_result r1, r2;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	exec_stpu_run(s->stpu, m, EXEC_STPU_C1, 9, &r1, &err);
	exec_stpu_run(s->stpu, m, EXEC_STPU_C1, 9, &r2, &err);
	CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof(r1)), 0);
	spec_set_free(s);
	arena_release(&a);
}

static void test_refused(void)
{
	struct arena a = ARENA_INIT;
	struct spec_matrix m3 = *sf_matrix(&a, 2, 2, "0,0");
	struct spec_set *s = design(2, 2, "");
	struct exec_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	m3.n_ranks = 3;
	CU_ASSERT_EQUAL(exec_stpu_run(s->stpu, &m3, EXEC_STPU_C0, 1, &r, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "the STPU simulation needs a 2-rank matrix, got 3 ranks");
	strbuf_release(&err);
	spec_set_free(s);
	arena_release(&a);
}

/* The message of a size refused: located at the design's 'stpu' key. */
static void assert_refused(const struct spec_set *s, const char *err, const char *what)
{
	char where[64];
	snprintf(where, sizeof(where), ":%u:%u: error: in 'stpu': simulating ", s->stpu->loc.line,
		 s->stpu->loc.col);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, where));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	if (!strstr(err, what))
		fprintf(stderr, "\ngot: %s\n", err);
}

/*
 * What a simulation takes is checked before it runs, from its packed
 * columns and an estimate of its cycles (a 4096 x 4096 array once took
 * minutes and gigabytes); a sparse matrix of large dimensions simulates in
 * time of its non-zeros with the packing schemes that skip empty columns.
 */
static void test_limits(void)
{
	struct arena a = ARENA_INIT;
	struct spec_matrix big = *sf_matrix(&a, 2, 2, "0,0 1,1");
	struct spec_set *s = design(2, 2, ""), *wide = design(4096, 4096, "");
	struct exec_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wide);
	big.shape[0] = big.shape[1] = 100000;
	/* the TPU holds every column in every partition: 50000 x 100000 */
	CU_ASSERT_EQUAL(exec_stpu_run(s->stpu, &big, EXEC_STPU_TPU, 1, &r, &err), -1);
	assert_refused(s, err.buf, "TPU would hold 5000000000 packed columns, over the limit of "
		       "2097152; simulate a smaller matrix (the model has no such limit)");
	CU_ASSERT_EQUAL(exec_stpu_check(s->stpu, 100000, 100000, &err), -1);
	assert_refused(s, err.buf, "TPU would hold 5000000000 packed columns");
	/* KMZ: one full-height group, streamed through each of the 50000 partitions */
	CU_ASSERT_EQUAL(exec_stpu_run(s->stpu, &big, EXEC_STPU_KMZ, 1, &r, &err), 0);
	CU_ASSERT_EQUAL(r.blocks, 50000);
	CU_ASSERT_EQUAL(r.n_wrong, 0);
	/* C0 and C1 skip the empty columns: two groups in the first partition */
	CU_ASSERT_EQUAL(exec_stpu_run(s->stpu, &big, EXEC_STPU_C0, 1, &r, &err), 0);
	CU_ASSERT_EQUAL(r.blocks, 1);
	CU_ASSERT_EQUAL(r.packed_width, 1);
	CU_ASSERT_EQUAL(r.n_wrong, 0);
	CU_ASSERT_EQUAL(exec_stpu_run(s->stpu, &big, EXEC_STPU_C1, 1, &r, &err), 0);
	CU_ASSERT_EQUAL(r.n_wrong, 0);
	/* a 4096 x 4096 array: one block, about 4096 x 4 cycles, is already too much work */
	CU_ASSERT_EQUAL(exec_stpu_check(wide->stpu, 4, 4, &err), -1);
	assert_refused(wide, err.buf, "TPU would take about 2.75e+11 PE-cycles (1.64e+04 cycles on "
		       "4096 x 4096 PEs), over the limit of 2.15e+09; simulate a smaller matrix "
		       "or array");
	CU_ASSERT_EQUAL(exec_stpu_check(s->stpu, 300, 300, &err), 0);
	strbuf_release(&err);
	spec_set_free(s);
	spec_set_free(wide);
	arena_release(&a);
}

static CU_TestInfo tests[] = {
	{ "hand traces", test_traces },
	{ "numeric", test_numeric },
	{ "KMZ lossy", test_kmz_lossy },
	{ "deterministic", test_deterministic },
	{ "refused", test_refused },
	{ "sizes checked before simulating", test_limits },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "exec/stpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
