/*
 * exec/ipu.c on its own: the emulated device program gives the dense
 * product on every pass, whatever the plan (uneven partitions, several Z
 * partitions, spills); the seed's best case runs no propagation step and its
 * worst case P_total - P_z; shifts count the skipped outer iterations; the
 * same seed gives the same run; oversized layers are refused.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct spec_set *load(const char *layer)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	const char *texts[1];
	struct spec_set *s;

	strbuf_addf(&sb, "ipu:\n  device: {preset: gc200}\n  layer: {%s}\n", layer);
	texts[0] = sb.buf;
	s = st_load(texts, 1, NULL, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	strbuf_release(&sb);
	return s;
}

struct num_row {
	const char *layer;
	struct exec_ipu_config c;
};

/* Plans chosen by hand, roomy or tight (a tight one spills). */
static const struct num_row num_rows[] = {
	{ "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a, grad_w], "
	  "density: {distribution: hypergeometric, density: 0.3}",
	  { 2, 2, 2, 4, 1, 40, 400, 6, 1 } },
	{ "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a, grad_w], "
	  "density: {distribution: hypergeometric, density: 0.3}",
	  { 3, 2, 2, 4, 1, 8, 80, 6, 2 } },
	{ "x: 40, y: 24, z: 12, dtype: float, passes: [fwd, grad_a, grad_w], "
	  "density: {distribution: hypergeometric, density: 0.2}",
	  { 3, 2, 3, 1, 2, 12, 200, 6, 3 } },
	{ "x: 96, y: 64, z: 5, block_size: 16, dtype: float, passes: [fwd, grad_a], "
	  "density: {distribution: hypergeometric, density: 0.5}",
	  { 2, 2, 1, 8, 1, 16, 200, 6, 4 } },
	{ "x: 64, y: 64, z: 8, block_size: 8, passes: [fwd, grad_w], "
	  "density: {distribution: banded, band_width: 2}",
	  { 2, 4, 2, 8, 1, 4, 60, 6, 5 } },
};

static void test_numbers(void)
{
	size_t i;
	unsigned p;

	for (i = 0; i < sizeof(num_rows) / sizeof(num_rows[0]); i++) {
		struct spec_set *s = load(num_rows[i].layer);
		struct exec_ipu_result r;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &num_rows[i].c, &r), 0);
		CU_ASSERT_EQUAL(r.status, EXEC_OK);
		CU_ASSERT(!r.overflow);
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			if (!((s->ipu->layer.passes >> p) & 1))
				continue;
			if (!r.passes[p].numeric_ok)
				fprintf(stderr, "row %zu pass %u: error %g\n", i, p, r.passes[p].max_abs_err);
			CU_ASSERT(r.passes[p].run);
			CU_ASSERT(r.passes[p].numeric_ok);
			CU_ASSERT(r.passes[p].macs > 0);
			CU_ASSERT_EQUAL(r.passes[p].exchanges, r.passes[p].steps + r.passes[p].skipped_outer);
		}
		exec_ipu_result_release(&r);
		spec_set_free(s);
	}
}

/* The pattern files of the best and worst cases (blocks of 4 in a 64 x 64 W). */
static const char diag_mtx[] =
	"%%MatrixMarket matrix coordinate pattern general\n16 16 16\n"
	"1 1\n2 2\n3 3\n4 4\n5 5\n6 6\n7 7\n8 8\n9 9\n10 10\n11 11\n12 12\n13 13\n14 14\n15 15\n16 16\n";
static const char corner_mtx[] =
	"%%MatrixMarket matrix coordinate pattern general\n16 16 8\n"
	"1 1\n1 2\n2 1\n2 2\n3 3\n4 4\n5 5\n6 6\n";

/*
 * Best case: the diagonal gives each of 4 x 4 partitions (x == y) or none
 * its blocks; with buckets holding 4 blocks nothing spills: 0 steps, 0
 * shifts. Worst case: 8 blocks in partition (0,0) of 2 x 2 x 2, buckets of
 * 1 block: they fill all 8 buckets: 2 x 2 x 2 - 2 = 6 steps.
 */
static void test_best_worst(void)
{
	char layer[256];
	struct spec_set *s;
	struct exec_ipu_result r;
	struct exec_ipu_config best = { 4, 4, 1, 4, 1, 4, 60, 6, 1 }, worst = { 2, 2, 2, 4, 1, 1, 20, 6, 1 };
	unsigned p;

	snprintf(layer, sizeof(layer), "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a], "
		 "density: {distribution: actual_data, file: %s}", st_write("diag.mtx", diag_mtx));
	s = load(layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &best, &r), 0);
	for (p = 0; p < 2; p++) {
		CU_ASSERT_EQUAL(r.passes[p].steps, 0);
		CU_ASSERT_EQUAL(r.passes[p].exchanges, 0);
		CU_ASSERT(r.passes[p].numeric_ok);
	}
	CU_ASSERT_EQUAL(r.n_spilled, 0);
	CU_ASSERT_EQUAL(r.nz_blocks, 16);
	exec_ipu_result_release(&r);
	spec_set_free(s);

	snprintf(layer, sizeof(layer), "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a], "
		 "density: {distribution: actual_data, file: %s}", st_write("corner.mtx", corner_mtx));
	s = load(layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &worst, &r), 0);
	for (p = 0; p < 2; p++) {
		CU_ASSERT_EQUAL(r.passes[p].steps, 2 * 2 * 2 - 2);
		CU_ASSERT(r.passes[p].numeric_ok);
	}
	CU_ASSERT_EQUAL(r.n_spilled, 6);
	CU_ASSERT(!r.overflow);
	exec_ipu_result_release(&r);
	spec_set_free(s);
}

/* Same seed, same run; another seed, another hypergeometric pattern. */
static void test_seeds(void)
{
	struct spec_set *s = load("x: 64, y: 64, z: 8, block_size: 4, "
				  "density: {distribution: hypergeometric, density: 0.25}");
	struct exec_ipu_config c = { 4, 4, 1, 4, 1, 5, 32, 6, 7 };
	struct exec_ipu_result a, b;
	uint64_t t;
	bool same = true;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &a), 0);
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &b), 0);
	CU_ASSERT_EQUAL(a.passes[0].steps, b.passes[0].steps);
	CU_ASSERT_EQUAL(a.passes[0].macs, b.passes[0].macs);
	CU_ASSERT_EQUAL(a.nz_blocks, 64);
	exec_ipu_result_release(&b);
	c.seed = 8;
	CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &b), 0);
	for (t = 0; t < a.n_buckets; t++)
		same = same && a.bucket_groups[t] == b.bucket_groups[t];
	CU_ASSERT(!same);
	exec_ipu_result_release(&a);
	exec_ipu_result_release(&b);
	spec_set_free(s);
}

static void test_too_large(void)
{
	struct spec_set *s = load("x: 65536, y: 65536, z: 4, density: 0.001");
	struct exec_ipu_config c = { 1, 1, 1, 1, 4, 100, 100, 6, 1 };
	struct exec_ipu_result r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(exec_ipu_run(s, &c, &r), -1);
	CU_ASSERT_EQUAL(r.status, EXEC_TOO_LARGE);
	CU_ASSERT(strstr(r.reason, "too many elements") != NULL);
	exec_ipu_result_release(&r);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "numbers equal the dense product", test_numbers },
	{ "best and worst cases", test_best_worst },
	{ "seeds", test_seeds },
	{ "too large", test_too_large },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "exec_ipu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
