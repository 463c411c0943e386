/*
 * model/sparse.c: the dense defaults every run starts from (semantics 3.1,
 * 4.1 step 1), also when the design has an empty sparse_optimizations, and
 * the analysis the hook runs when something is listed (here a compute
 * optimization alone, and the density names it reports).
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
	ws = model_ws_new(&tb_.s, NULL, NULL);
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

/*
 * 01.2.2's dot product with compute gating only: A (0.25) has no format,
 * so a zero of A is present (EZ); with B dense, 3/4 of the 16 computes pair
 * a zero with a non-zero and are gated. Gated computes still take a cycle.
 */
static void test_compute_gating_only(void)
{
	struct model_ws *ws;

	tb_init(&tb_);
	tb_dim(&tb_, "K", 16);
	tb_dim(&tb_, "M", 1);
	tb_tensor(&tb_, "A", false, "K");
	tb_tensor(&tb_, "B", false, "K");
	tb_tensor(&tb_, "Z", true, "M");
	tb_density(&tb_, "A", 0.25);
	tb_compute(&tb_, "mac", 1, 1);
	tb_ert(&tb_, -1, "compute=0.315 mac_gated=0.01");
	tb_level(&tb_, "Buffer", 64, 8, 8, 1, 1);
	tb_ert(&tb_, 0, "read=1.95808 write=1.88608 update=1.88608");
	tb_temporal(&tb_, 0, "K16", "KM");
	tb_compute_opt(&tb_, true, false);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(res_.compute.algorithmic, 16);
	CU_ASSERT_EQUAL(res_.compute.random, 4);
	CU_ASSERT_EQUAL(res_.compute.gated, 12);
	CU_ASSERT_EQUAL(res_.compute.skipped, 0);
	CU_ASSERT_EQUAL(res_.compute.cycles, 16);
	CU_ASSERT_DOUBLE_EQUAL(res_.compute.energy_pj, 4 * 0.315 + 12 * 0.01, 1e-12);
	/* no storage optimization: the Buffer's counts stay dense */
	CU_ASSERT_EQUAL(res_.tiles[0][1].actions[MODEL_OP_RANDOM_READ], 16);
	CU_ASSERT_STRING_EQUAL(res_.tiles[0][0].density_name, "fixed_structured");
	model_ws_free(ws);
}

/* The sparse analysis reports the density models' own names (banded-<w>). */
static void test_density_names(void)
{
	struct model_ws *ws;

	tb_init(&tb_);
	tb_dim(&tb_, "M", 8);
	tb_dim(&tb_, "K", 8);
	tb_tensor(&tb_, "A", false, "M,K");
	tb_tensor(&tb_, "B", false, "K");
	tb_tensor(&tb_, "Z", true, "M");
	tb_.tensors[0].density.kind = SPEC_DENSITY_BANDED;
	tb_.tensors[0].density.band_width = 1;
	tb_.tensors[0].density.is_default = false;
	tb_compute(&tb_, "mac", 1, 1);
	tb_ert(&tb_, -1, "compute=1");
	tb_level(&tb_, "Buffer", 0, 8, 8, 1, 1);
	tb_ert(&tb_, 0, "read=1 write=1 update=1");
	tb_temporal(&tb_, 0, "K8 M8", "KM");
	tb_compute_opt(&tb_, true, false);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_STRING_EQUAL(res_.tiles[0][0].density_name, "banded-1");
	/* 22 of 64 positions are non-zero (8 + 2 x 7) */
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][0].expected_density, 22.0 / 64, 1e-12);
	model_ws_free(ws);
}

/*
 * The mapper's pre-check uses dense tile sizes: a tile with a format may
 * fit compressed, so it does not count there; model_eval decides. B's
 * dense tile (64) overflows a 40-word Buffer, compressed (32) it fits.
 */
static void test_precheck(void)
{
	struct model_ws *ws;

	tb_spmspm(&tb_);
	tb_temporal(&tb_, 0, "M8 N8 K8", "MNK");
	tb_temporal(&tb_, 1, "", "NMK");
	tb_.levels[0].size_words = tb_.levels[0].effective_size_words = 40;
	tb_keep(&tb_, 0, "B");
	tb_.m.levels[0].keep_mask = 1u << 1;
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(model_check_capacity(ws, &tb_.m, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_OVER_CAPACITY);
	model_ws_free(ws);

	tb_format(&tb_, 0, "B", "UOP CP");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(model_check_capacity(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(res_.tiles[0][1].utilized_capacity, 32);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "the mapper's pre-check and compressed tiles", test_precheck },
	{ "dense defaults", test_dense_defaults },
	{ "compute gating alone", test_compute_gating_only },
	{ "density names", test_density_names },
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
