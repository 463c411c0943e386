/* Tests of mapper/options.c: defaults, the 'mapper:' settings, the metric order. */
#include "mapper/mapper.h"

#include <math.h>
#include <string.h>

#include "tests/unit.h"

static void test_defaults(void)
{
	struct mapper_options o;
	struct spec_mapper_settings absent;

	memset(&absent, 0, sizeof(absent));
	absent.algorithm = SPEC_SEARCH_RANDOM;   /* ignored: not present */
	mapper_options_init(&o, &absent);
	CU_ASSERT_EQUAL(o.algorithm, SPEC_SEARCH_HYBRID);
	CU_ASSERT_EQUAL(o.n_metrics, 1);
	CU_ASSERT_EQUAL(o.metrics[0], SPEC_METRIC_EDP);
	CU_ASSERT_EQUAL(o.timeout, 1000);
	CU_ASSERT_EQUAL(o.victory_condition, 500);
	CU_ASSERT_EQUAL(o.max_permutations_per_if_visit, 16);
	CU_ASSERT_EQUAL(o.search_size, 0);
	CU_ASSERT_EQUAL(o.n_threads, 0);
	CU_ASSERT_EQUAL(o.n_streams, 32);
	CU_ASSERT_EQUAL(o.refine, 32);
}

static void test_settings(void)
{
	struct mapper_options o;
	struct spec_mapper_settings s;

	memset(&s, 0, sizeof(s));
	s.present = true;
	s.algorithm = SPEC_SEARCH_LINEAR_PRUNED;
	s.num_threads = 3;
	s.n_metrics = 2;
	s.metrics[0] = SPEC_METRIC_DELAY;
	s.metrics[1] = SPEC_METRIC_ENERGY;
	s.search_size = 77;
	s.timeout = 5;
	s.victory_condition = 6;
	s.max_permutations_per_if_visit = 0;
	s.seed = 99;
	s.time_limit_s = 2.5;
	mapper_options_init(&o, &s);
	CU_ASSERT_EQUAL(o.algorithm, SPEC_SEARCH_LINEAR_PRUNED);
	CU_ASSERT_EQUAL(o.n_threads, 3);
	CU_ASSERT_EQUAL(o.n_metrics, 2);
	CU_ASSERT_EQUAL(o.metrics[0], SPEC_METRIC_DELAY);
	CU_ASSERT_EQUAL(o.metrics[1], SPEC_METRIC_ENERGY);
	CU_ASSERT_EQUAL(o.search_size, 77);
	CU_ASSERT_EQUAL(o.timeout, 5);
	CU_ASSERT_EQUAL(o.victory_condition, 6);
	CU_ASSERT_EQUAL(o.max_permutations_per_if_visit, 16);
	CU_ASSERT_EQUAL(o.seed, 99);
	CU_ASSERT_DOUBLE_EQUAL(o.time_limit_s, 2.5, 0);
}

/* Priority order: a metric decides when the values differ by more than
 * 0.1%; within that, the next metric; then exact values. */
static void test_compare(void)
{
	static const struct {
		double a_delay, a_energy, b_delay, b_energy;
		int want;   /* sign of compare(a, b) with [delay, energy] */
	} rows[] = {
		{ 100, 5, 200, 1, -1 },        /* delay decides */
		{ 100, 5, 100, 4, 1 },         /* equal delay: energy decides */
		{ 100, 5, 100.0001, 4, 1 },    /* delay within 0.1%: energy decides */
		{ 100, 4, 100.0001, 4, -1 },   /* both within: exact delay */
		{ 100, 4, 100, 4, 0 },
		{ 100, 4, 101, 1, -1 },        /* 1% apart: delay decides */
		{ 0, 4, 1, 1, -1 },
		{ NAN, 1, 1e30, 9, 1 },        /* NaN sorts last */
	};
	static const enum spec_metric prio[] = { SPEC_METRIC_DELAY, SPEC_METRIC_ENERGY };
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct mapper_eval a, b;
		int c;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.metrics[SPEC_METRIC_DELAY] = rows[i].a_delay;
		a.metrics[SPEC_METRIC_ENERGY] = rows[i].a_energy;
		b.metrics[SPEC_METRIC_DELAY] = rows[i].b_delay;
		b.metrics[SPEC_METRIC_ENERGY] = rows[i].b_energy;
		c = mapper_eval_compare(&a, &b, prio, 2);
		CU_ASSERT_EQUAL((c > 0) - (c < 0), rows[i].want);
		c = mapper_eval_compare(&b, &a, prio, 2);
		CU_ASSERT_EQUAL((c > 0) - (c < 0), -rows[i].want);
	}
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(mapper_fail_name(MAPPER_FAIL_CAPACITY), "capacity");
	CU_ASSERT_STRING_EQUAL(mapper_fail_name(MAPPER_FAIL_FANOUT), "fan-out");
	CU_ASSERT_STRING_EQUAL(mapper_stop_name(MAPPER_STOP_VICTORY), "victory_condition");
	CU_ASSERT_STRING_EQUAL(mapper_stop_name(MAPPER_STOP_INTERRUPTED), "interrupted");
}

static CU_TestInfo options_tests[] = {
	{ "defaults", test_defaults },
	{ "mapper settings", test_settings },
	{ "metric order", test_compare },
	{ "names", test_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "options", .pTests = options_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
