/*
 * mapper.c: mapper settings with Timeloop's defaults, the 'model' key, and
 * constraints from architecture_constraints, mapspace_constraints,
 * mapspace.constraints and node-list components ('=', '<=', 0 = the
 * bound, permutation strings or lists, split, keep/bypass, utilization).
 * Uses tests/data/specs/bad/base.yaml (dims M=8 N=8 K=16; GLB fanout 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_extra(const char *text, struct diag_list *dl)
{
	static char base[1024], path[1024];
	const char *ptrs[2];
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("extra.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static void test_defaults(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra("model: {verbose: true}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_FALSE(s->mapper.present);
	CU_ASSERT_EQUAL(s->mapper.algorithm, SPEC_SEARCH_HYBRID);
	CU_ASSERT_EQUAL(s->mapper.n_metrics, 1);
	CU_ASSERT_EQUAL(s->mapper.metrics[0], SPEC_METRIC_EDP);
	CU_ASSERT_EQUAL(s->mapper.timeout, 1000);
	CU_ASSERT_EQUAL(s->mapper.victory_condition, 500);
	CU_ASSERT_EQUAL(s->mapper.max_permutations_per_if_visit, 16);
	CU_ASSERT_EQUAL(s->mapper.num_threads, 0);
	CU_ASSERT_EQUAL(s->mapper.search_size, 0);
	CU_ASSERT_EQUAL(s->constraints.n, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct settings_row {
	const char *yaml;
	enum spec_search algo;
	unsigned n_metrics;
	enum spec_metric m0, m1;
	uint64_t search_size, timeout;
};

static const struct settings_row settings_rows[] = {
	{ "mapper: {algorithm: linear-pruned, optimization-metrics: [delay, energy],"
	  " search_size: 100, timeout: 7}", SPEC_SEARCH_LINEAR_PRUNED, 2, SPEC_METRIC_DELAY,
	  SPEC_METRIC_ENERGY, 100, 7 },
	{ "mapper: {algorithm: random_pruned, optimization_metric: [last_level_accesses],"
	  " search_size: null}", SPEC_SEARCH_RANDOM_PRUNED, 1, SPEC_METRIC_LAST_LEVEL_ACCESSES,
	  SPEC_METRIC_LAST_LEVEL_ACCESSES, 0, 1000 },
	{ "mapper: {algorithm: exhaustive, optimization_metrics: energy, optimization_metric: []}",
	  SPEC_SEARCH_EXHAUSTIVE, 1, SPEC_METRIC_ENERGY, SPEC_METRIC_ENERGY, 0, 1000 },
	{ "mapper: {algorithm: random, live_status: false, log_stats: false, diagnostics: false,"
	  " out_prefix: x, sync_interval: null, log_interval: 1, emit_whoop_nest: false}",
	  SPEC_SEARCH_RANDOM, 1, SPEC_METRIC_EDP, SPEC_METRIC_EDP, 0, 1000 },
};

static void test_settings(void)
{
	size_t i;
	for (i = 0; i < sizeof(settings_rows) / sizeof(settings_rows[0]); i++) {
		const struct settings_row *r = &settings_rows[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_extra(r->yaml, &dl);
		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_TRUE(s->mapper.present);
		CU_ASSERT_EQUAL(s->mapper.algorithm, r->algo);
		CU_ASSERT_EQUAL(s->mapper.n_metrics, r->n_metrics);
		CU_ASSERT_EQUAL(s->mapper.metrics[0], r->m0);
		if (r->n_metrics > 1)
			CU_ASSERT_EQUAL(s->mapper.metrics[1], r->m1);
		CU_ASSERT_EQUAL(s->mapper.search_size, r->search_size);
		CU_ASSERT_EQUAL(s->mapper.timeout, r->timeout);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_constraint_sources(void)
{
	static const char text[] =
		"architecture_constraints:\n"
		"  targets:\n"
		"  - {target: GLB, type: temporal, factors: M=0 N<=4 K=2, permutation: KNM}\n"
		"  - {target: GLB, type: spatial, factors: [M=4], permutation: [N, M], split: 1}\n"
		"mapspace_constraints:\n"
		"  - {target: PE, type: bypass, keep: [A], bypass: [B, Z]}\n"
		"mapspace:\n"
		"  template: uber\n"
		"  constraints:\n"
		"    targets:\n"
		"    - {target: PE, type: utilization, min: 0.5}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra(text, &dl);
	const struct spec_constraint *c;

	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->constraints.n, 4);
	c = &s->constraints.items[0];
	CU_ASSERT_EQUAL(c->kind, SPEC_CON_TEMPORAL);
	CU_ASSERT_EQUAL(c->level, 1);
	CU_ASSERT_EQUAL(c->fixed_mask, 0x5);
	CU_ASSERT_EQUAL(c->factors[0], 8);       /* 0 = the whole dimension */
	CU_ASSERT_EQUAL(c->factors[2], 2);
	CU_ASSERT_EQUAL(c->max_mask, 0x2);
	CU_ASSERT_EQUAL(c->max_factors[1], 4);
	CU_ASSERT_EQUAL(c->n_perm, 3);
	CU_ASSERT_EQUAL(c->perm[0], 2);
	CU_ASSERT_FALSE(c->has_split);
	c = &s->constraints.items[1];
	CU_ASSERT_EQUAL(c->kind, SPEC_CON_SPATIAL);
	CU_ASSERT_EQUAL(c->n_perm, 2);
	CU_ASSERT_TRUE(c->has_split);
	CU_ASSERT_EQUAL(c->split, 1);
	c = &s->constraints.items[2];
	CU_ASSERT_EQUAL(c->kind, SPEC_CON_BYPASS);
	CU_ASSERT_EQUAL(c->level, 0);
	CU_ASSERT_EQUAL(c->keep_mask, 0x1);
	CU_ASSERT_EQUAL(c->bypass_mask, 0x6);
	c = &s->constraints.items[3];
	CU_ASSERT_EQUAL(c->kind, SPEC_CON_UTILIZATION);
	CU_ASSERT_DOUBLE_EQUAL(c->min_utilization, 0.5, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Keys Timeloop's constraints know but the mapper does not use: a warning each. */
static void test_unsupported_constraint_keys(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra("architecture_constraints: {targets: [{target: GLB, "
					"type: temporal, no_reuse: [A], default_max_factor: 4}]}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(dl.n_warnings, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(dl.items[0].message, "'no_reuse' constraints are "
				      "supported on spatial constraints only; ignored"));
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Spatial 'no_reuse' and 'no_link_transfer': masks the mapper gives its mappings. */
static void test_spatial_masks(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra("architecture_constraints: {targets: [{target: GLB, "
					"type: spatial, no_reuse: [A, Z], no_link_transfer: [B]}]}\n",
					&dl);
	const struct spec_constraint *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(dl.n_warnings, 0);
	c = &s->constraints.items[0];
	CU_ASSERT_EQUAL(c->no_multicast_mask, 0x5);
	CU_ASSERT_EQUAL(c->no_link_transfer_mask, 0x2);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "defaults", test_defaults },
	{ "settings", test_settings },
	{ "constraint sources and forms", test_constraint_sources },
	{ "unsupported constraint keys", test_unsupported_constraint_keys },
	{ "spatial no_reuse and no_link_transfer", test_spatial_masks },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "mapper", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
