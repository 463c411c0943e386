/*
 * model/sparse.c: the dense defaults every run starts from (semantics 3.1,
 * 4.1 step 1), also when the design has an empty sparse_optimizations.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

static void test_dense_defaults(void)
{
	struct model_ws *ws;
	unsigned l, pv, op;

	tb_simple_weight_stationary(&tb_);
	tb_.tensors[1].density.kind = SPEC_DENSITY_HYPERGEOMETRIC;
	tb_.s.sparse.present = true;      /* the key exists, lists nothing */
	ws = model_ws_new(&tb_.s, NULL, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT(res_.is_sparse_layout);
	for (l = 0; l < res_.n_levels; l++) {
		for (pv = 0; pv < res_.n_tensors; pv++) {
			const struct model_tile *t = &res_.tiles[l][pv];
			CU_ASSERT_STRING_EQUAL(t->density_name,
					       pv == 1 ? "hypergeometric" : "fixed_structured");
			if (!t->is_kept)
				continue;
			CU_ASSERT_EQUAL(t->actions[MODEL_OP_RANDOM_READ], t->reads);
			CU_ASSERT_EQUAL(t->actions[MODEL_OP_RANDOM_FILL], t->fills);
			CU_ASSERT_EQUAL(t->actions[MODEL_OP_RANDOM_UPDATE], t->updates);
			for (op = 0; op < MODEL_OP_COUNT; op++)
				if (op != MODEL_OP_RANDOM_READ && op != MODEL_OP_RANDOM_FILL &&
				    op != MODEL_OP_RANDOM_UPDATE)
					CU_ASSERT_EQUAL(t->actions[op], 0);
			CU_ASSERT_EQUAL(t->utilized_capacity, t->shape);
			CU_ASSERT_DOUBLE_EQUAL(t->expected_occupancy, (double)t->shape, 0);
			CU_ASSERT_DOUBLE_EQUAL(t->expected_density, 1, 0);
			CU_ASSERT_DOUBLE_EQUAL(t->vector_ratio, 1, 0);
			CU_ASSERT_DOUBLE_EQUAL(t->confidence, 1, 0);
			CU_ASSERT_EQUAL(t->n_fmt_ranks, 0);
		}
	}
	CU_ASSERT_EQUAL(res_.compute.algorithmic, 10838016);
	CU_ASSERT_EQUAL(res_.compute.random, 10838016);
	CU_ASSERT_EQUAL(res_.compute.gated + res_.compute.skipped, 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.compute.avg_replication, 12, 0);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "dense defaults", test_dense_defaults },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sparse", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
