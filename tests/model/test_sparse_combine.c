/*
 * model/sparse_combine.c: the representation impact of compressed tiles,
 * the (de)compression counts (04.2.1), and the compute classes as the model
 * feeds them (semantics 4.5, 4.6) on the 02.2.2 design.
 */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "specs/spec.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

static struct spec_set *load(const char *dir, const char *const *files, size_t n)
{
	return unit_load_files(dir, files, n, true);
}

static int eval_set(const struct spec_set *s, struct model_result *r)
{
	struct model_ws *ws = model_ws_new(s, NULL, NULL);
	int rc = model_eval(ws, s->mapping, r);

	model_ws_free(ws);
	return rc;
}

/*
 * 04.2.1: shared_glb keeps Inputs and Outputs uncompressed under a
 * compressed DRAM: it decompresses every Inputs fill (1382400) and
 * compresses the Outputs updates DRAM receives (104613).
 */
static void test_compression_counts(void)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	char dir[1024];
	struct spec_set *s;

	snprintf(dir, sizeof(dir), "%s/04.2.1-eyeriss-like-gating", unit_conformance_dir());
	s = load(dir, files, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(eval_set(s, &res_), 0);
	CU_ASSERT_EQUAL(res_.tiles[5][1].actions[MODEL_OP_DECOMPRESSION], 1382400);
	CU_ASSERT_EQUAL(res_.tiles[5][1].actions[MODEL_OP_COMPRESSION], 0);
	CU_ASSERT_EQUAL(res_.tiles[5][2].actions[MODEL_OP_COMPRESSION], 104613);
	CU_ASSERT_EQUAL(res_.tiles[6][1].actions[MODEL_OP_DECOMPRESSION], 0);
	CU_ASSERT_EQUAL(res_.tiles[1][0].actions[MODEL_OP_GATED_READ], 2779545);
	spec_set_free(s);
}

/*
 * 02.2.2 with formats only: B (0.5) at Buffer and A (0.25) at
 * BackingStorage compressed, no storage optimization. The compressed tiles
 * move only their non-zeros (B: reads 512 - 256, fills 64 - 32); nothing is
 * removed below them. Computes: both operands can be absent (NE): (NE, NE)
 * = 0.75 x 0.5 of the 512 do not exist; without a compute optimization the
 * rest is random, with compute skipping the pairs with one absent operand
 * (0.25 x 0.5 + 0.75 x 0.5) are skipped.
 */
static void test_formats_and_classes(void)
{
	static const struct {
		bool gating, skipping;
		uint64_t random, gated, skipped;
	} rows[] = {
		{ false, false, 320, 0, 0 },
		{ false, true, 64, 0, 256 },
		{ true, false, 64, 256, 0 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		tb_spmspm(&tb_);
		tb_format(&tb_, 1, "A", "UOP CP");
		tb_format(&tb_, 1, "B", "UOP UOP CP");
		tb_format(&tb_, 0, "B", "UOP CP");
		if (rows[i].gating || rows[i].skipping)
			tb_compute_opt(&tb_, rows[i].gating, rows[i].skipping);
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		CU_ASSERT_EQUAL_FATAL(eval_set(&tb_.s, &res_), 0);
		CU_ASSERT_EQUAL(res_.tiles[0][1].actions[MODEL_OP_RANDOM_READ], 256);
		CU_ASSERT_EQUAL(res_.tiles[0][1].actions[MODEL_OP_SKIPPED_READ], 0);
		CU_ASSERT_EQUAL(res_.tiles[0][1].actions[MODEL_OP_RANDOM_FILL], 32);
		CU_ASSERT_EQUAL(res_.tiles[1][0].actions[MODEL_OP_RANDOM_READ], 128);  /* 512 x 0.25 */
		CU_ASSERT_EQUAL(res_.tiles[0][2].actions[MODEL_OP_RANDOM_UPDATE], 512); /* Z dense */
		CU_ASSERT_EQUAL(res_.compute.random, rows[i].random);
		CU_ASSERT_EQUAL(res_.compute.gated, rows[i].gated);
		CU_ASSERT_EQUAL(res_.compute.skipped, rows[i].skipped);
		/* gated computes take cycles, skipped ones do not */
		CU_ASSERT_EQUAL(res_.compute.cycles, rows[i].random + rows[i].gated);
	}
}

static CU_TestInfo tests[] = {
	{ "(de)compression counts", test_compression_counts },
	{ "formats and compute classes", test_formats_and_classes },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sparse combine", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
