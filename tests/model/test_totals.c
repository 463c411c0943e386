/*
 * model/totals.c: total cycles and energy, leakage with the final cycle
 * count, operational intensity and summary metrics (semantics 3.6), checked
 * on simple_weight_stationary against the figures of its reference stats.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

static void evaluate(void)
{
	struct model_ws *ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	model_ws_free(ws);
}

static void test_summary(void)
{
	tb_simple_weight_stationary(&tb_);
	evaluate();
	CU_ASSERT_EQUAL(res_.cycles, 903168);
	CU_ASSERT_DOUBLE_EQUAL(res_.energy_pj, 151669736.15, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(res_.utilization, 10838016.0 / 256 / 903168, 1e-12);
	CU_ASSERT_EQUAL(res_.algorithmic_computes, 10838016);
	CU_ASSERT_EQUAL(res_.actual_computes, 10838016);
	CU_ASSERT_DOUBLE_EQUAL(res_.edp_j_cycles, 903168 * res_.energy_pj * 1e-12, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res_.pj_per_compute, res_.energy_pj / 10838016, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.area_mm2, 0, 0);
}

static void test_op_intensity(void)
{
	static const struct { unsigned l; uint64_t accesses; } rows[] = {
		{ 0, 30105600 }, { 1, 21676032 }, { 2, 10862208 }, { 3, 48384 },
		{ 4, 0 }, { 5, 9710371 }, { 6, 554147 },
	};
	unsigned i;

	tb_simple_weight_stationary(&tb_);
	evaluate();
	CU_ASSERT_EQUAL(res_.total_elementwise_ops, 10838016);
	CU_ASSERT_EQUAL(res_.total_reduction_ops, 10838016 - 401408);
	CU_ASSERT_EQUAL(res_.total_ops, 21274624);
	CU_ASSERT_EQUAL(res_.total_memory_accesses, 864 + 151875 + 401408);
	CU_ASSERT_DOUBLE_EQUAL(res_.optimal_op_per_byte, 21274624.0 / (16 * 554147.0 / 8), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res_.gflops, 21274624.0 / 903168, 1e-9);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		CU_ASSERT_EQUAL(res_.levels[rows[i].l].total_scalar_accesses, rows[i].accesses);
	CU_ASSERT_EQUAL(res_.last_level_accesses, 554147);
}

/* Leakage = E[leak] x total cycles x max(1, utilized instances). */
static void test_leakage(void)
{
	tb_simple_weight_stationary(&tb_);
	evaluate();
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[3].leakage_energy_pj, 0.001165 * 903168 * 12, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[5].leakage_energy_pj, 0.005353 * 903168, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[5].power_gating_instances, 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[5].non_power_gated_utilization, 1, 0);
	/* pe_spad gated with shared_glb: 256 instances share one gate */
	tb_.levels[3].power_gated_at = 5;
	evaluate();
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[3].power_gating_instances, 256, 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[3].leakage_energy_pj, 0.001165 * 903168 * 256, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[3].non_power_gated_utilization, 12.0 / 256, 1e-12);
}

/* Levels with neither accesses nor energy are hidden (and only those). */
static void test_inconsequential(void)
{
	unsigned l;

	tb_simple_weight_stationary(&tb_);
	evaluate();
	for (l = 0; l < res_.n_levels; l++)
		CU_ASSERT_EQUAL(res_.levels[l].is_inconsequential, l == 4);
}

/* Network latencies add to the total cycles. */
static void test_latencies(void)
{
	tb_simple_weight_stationary(&tb_);
	tb_.levels[5].network_fill_latency_cycles = 10;
	tb_.levels[6].network_drain_latency_cycles = 5;
	evaluate();
	CU_ASSERT_EQUAL(res_.cycles, 903168 + 15);
}

/* The inferred network below a level charges its ingress energy. */
static void test_network_energy(void)
{
	double base;

	tb_simple_weight_stationary(&tb_);
	evaluate();
	base = res_.energy_pj;
	CU_ASSERT_DOUBLE_EQUAL(res_.networks[6].energy_pj, 0, 0);
	tb_.levels[6].network.ingress_energy_pj = 1.0;
	evaluate();
	/* DRAM serves 864 + 151875 + 401408 words */
	CU_ASSERT_DOUBLE_EQUAL(res_.networks[6].ingresses, 864 + 151875 + 401408, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(res_.energy_pj, base + 864 + 151875 + 401408, 1e-3);
}

static CU_TestInfo tests[] = {
	{ "summary", test_summary },
	{ "operational intensity", test_op_intensity },
	{ "leakage and power gating", test_leakage },
	{ "inconsequential levels", test_inconsequential },
	{ "network latencies", test_latencies },
	{ "network ingress energy", test_network_energy },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "totals", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
