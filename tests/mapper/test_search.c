/*
 * Tests of mapper/search.c (and mapper/point.c through it): the linear
 * searches visit every distinct mapping exactly once, as a brute force over
 * full permutations, splits and keep masks finds them; the best is the
 * true optimum; random searches are reproducible; hybrid visits at most
 * max_permutations_per_if_visit orders per factorization.
 */
#include "mapper/mapper.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mapper/fixture.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const struct fx_level levels[] = {
	{ "Reg", true, 8, 1, 1, 0 },
	{ "Buf", true, 64, 2, 2, 0 },
	{ "DRAM", false, 0, 1, 1, 0 },
};

enum config { C_PLAIN, C_ORDERS, C_CAPACITY, C_COUNT };

/* A small design; each config exercises other constraints. */
static struct spec_set *config(enum config k)
{
	struct spec_set *s;
	struct spec_constraint *c;
	struct fx_level lv[3];

	memcpy(lv, levels, sizeof(lv));
	if (k == C_CAPACITY) {
		lv[0].size_words = 2;
		lv[1].size_words = 12;
		lv[1].min_utilization = 0.5;
	}
	s = fx_matmul(4, 2, 2, lv, 3);
	fx_perm(fx_constraint(s, SPEC_CON_TEMPORAL, 2, 3), "MKN");
	switch (k) {
	case C_PLAIN:
		c = fx_constraint(s, SPEC_CON_BYPASS, 0, 5);
		c->keep_mask = 1u << FX_Z;
		c->bypass_mask = 1u << FX_A | 1u << FX_B;
		break;
	case C_ORDERS:
		c = fx_constraint(s, SPEC_CON_BYPASS, 0, 5);
		c->keep_mask = 1u << FX_Z;
		c->bypass_mask = 1u << FX_A | 1u << FX_B;
		fx_perm(fx_constraint(s, SPEC_CON_TEMPORAL, 0, 7), "K");
		c = fx_constraint(s, SPEC_CON_SPATIAL, 1, 9);
		fx_perm(c, "N");
		c->has_split = true;
		c->split = 1;
		c = fx_constraint(s, SPEC_CON_UTILIZATION, 1, 11);
		c->min_utilization = 0.5;
		break;
	case C_CAPACITY:
		c = fx_constraint(s, SPEC_CON_TEMPORAL, 1, 13);
		c->max_mask = 1u << FX_K;
		c->max_factors[FX_K] = 1;
		break;
	default:
		break;
	}
	return s;
}

struct collect {
	uint64_t *keys;
	size_t n, alloc;
	uint64_t n_candidates;
};

static void collect_cb(void *arg, const struct mapper_candidate *c)
{
	struct collect *col = arg;
	col->n_candidates++;
	if (!c->mapping || c->eval.status != MAPPER_OK)
		return;
	XGROW(col->keys, col->n + 1, col->alloc);
	col->keys[col->n++] = fx_mapping_key(c->mapping);
}

static void base_options(struct mapper_options *o, enum spec_search alg)
{
	mapper_options_init(o, NULL);
	o->algorithm = alg;
	o->timeout = 0;
	o->victory_condition = 0;
	o->n_threads = 2;
	o->n_streams = 3;
}

/* Exhaustive and linear-pruned visit exactly the brute-force set, once each. */
static void test_linear_matches_brute_force(void)
{
	enum config k;

	for (k = 0; k < C_COUNT; k++) {
		struct spec_set *s = config(k);
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
		struct mapper_evaluator ev;
		uint64_t *brute, best_key = 0;
		double best_edp = INFINITY, metrics[SPEC_METRIC_COUNT];
		size_t n_brute, i, n_unique;
		enum spec_search alg;

		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		fx_evaluator(&ev, NULL);
		n_brute = fx_brute_keys(s, &brute);
		CU_ASSERT_TRUE(n_brute > 10);
		for (i = 0; i < n_brute; i++) {
			fx_metrics_of_key(brute[i], metrics);
			if (metrics[SPEC_METRIC_EDP] < best_edp) {
				best_edp = metrics[SPEC_METRIC_EDP];
				best_key = brute[i];
			}
		}
		for (alg = SPEC_SEARCH_EXHAUSTIVE; alg <= SPEC_SEARCH_LINEAR_PRUNED;
		     alg += SPEC_SEARCH_LINEAR_PRUNED - SPEC_SEARCH_EXHAUSTIVE) {
			struct mapper_options o;
			struct mapper_result r;
			struct collect col;

			memset(&col, 0, sizeof(col));
			base_options(&o, alg);
			o.on_candidate = collect_cb;
			o.candidate_arg = &col;
			CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, &r), 0);
			n_unique = fx_sort_unique(col.keys, col.n);
			if (n_unique != n_brute || col.n != n_brute)
				fprintf(stderr, "config %d alg %d: %zu visited, %zu unique, %zu brute\n",
					(int)k, (int)alg, col.n, n_unique, n_brute);
			CU_ASSERT_EQUAL(col.n, n_brute);
			CU_ASSERT_EQUAL(n_unique, n_brute);
			CU_ASSERT_TRUE(n_unique == n_brute &&
				       !memcmp(col.keys, brute, n_brute * sizeof(*brute)));
			CU_ASSERT_EQUAL(r.n_valid, n_brute);
			CU_ASSERT_EQUAL(r.n_evaluated, col.n_candidates);
			CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_DONE], 3);
			CU_ASSERT_TRUE_FATAL(r.found);
			CU_ASSERT_EQUAL(fx_mapping_key(&r.best), best_key);
			CU_ASSERT_DOUBLE_EQUAL(r.best_eval.metrics[SPEC_METRIC_EDP], best_edp, 0);
			free(col.keys);
		}
		free(brute);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* linear-pruned never evaluates a mapping whose tiles do not fit;
 * exhaustive counts each (factorization, keep choice) that does not. */
static void test_pruning_counts(void)
{
	struct spec_set *s = config(C_CAPACITY);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_result ex, lp;
	uint64_t cap_ex = 0, cap_lp = 0;
	unsigned l;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	fx_evaluator(&ev, NULL);
	base_options(&o, SPEC_SEARCH_EXHAUSTIVE);
	mapper_run(ms, &ev, &o, &ex);
	base_options(&o, SPEC_SEARCH_LINEAR_PRUNED);
	mapper_run(ms, &ev, &o, &lp);
	for (l = 0; l < 3; l++) {
		cap_ex += ex.fail_counts[MAPPER_FAIL_CAPACITY][l];
		cap_lp += lp.fail_counts[MAPPER_FAIL_CAPACITY][l];
	}
	CU_ASSERT_EQUAL(ex.n_model_calls, ex.n_valid);
	CU_ASSERT_EQUAL(lp.n_model_calls, lp.n_valid);
	CU_ASSERT_TRUE(cap_ex > cap_lp);
	CU_ASSERT_TRUE(cap_lp > 0);
	CU_ASSERT_EQUAL(ex.n_evaluated, ex.n_valid + cap_ex + ex.fail_counts[MAPPER_FAIL_FANOUT][1]);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* A random family search gives the same trace for the same seed. */
static void test_random_reproducible(void)
{
	static const enum spec_search algs[] = { SPEC_SEARCH_RANDOM, SPEC_SEARCH_RANDOM_PRUNED,
						 SPEC_SEARCH_HYBRID };
	struct spec_set *s = config(C_PLAIN);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct mapper_evaluator ev;
	size_t a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	fx_evaluator(&ev, NULL);
	for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		struct collect c1, c2, c3;
		struct mapper_options o;
		struct mapper_result r;

		memset(&c1, 0, sizeof(c1));
		memset(&c2, 0, sizeof(c2));
		memset(&c3, 0, sizeof(c3));
		base_options(&o, algs[a]);
		o.search_size = 300;
		o.seed = 7;
		o.on_candidate = collect_cb;
		o.candidate_arg = &c1;
		mapper_run(ms, &ev, &o, &r);
		CU_ASSERT_EQUAL(r.n_valid, 300);
		CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_SEARCH_SIZE], 3);
		o.candidate_arg = &c2;
		mapper_run(ms, &ev, &o, &r);
		o.seed = 8;
		o.candidate_arg = &c3;
		mapper_run(ms, &ev, &o, &r);
		CU_ASSERT_EQUAL(c1.n, 300);
		CU_ASSERT_TRUE(c1.n == c2.n && !memcmp(c1.keys, c2.keys, c1.n * sizeof(*c1.keys)));
		CU_ASSERT_FALSE(c1.n == c3.n && !memcmp(c1.keys, c3.keys, c1.n * sizeof(*c1.keys)));
		free(c1.keys);
		free(c2.keys);
		free(c3.keys);
	}
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct runs {
	unsigned stream;
	uint64_t last_choice_key;
	unsigned run, max_run, n_runs;
};

/* Length of runs of consecutive candidates of one stream with the same factors. */
static void runs_cb(void *arg, const struct mapper_candidate *c)
{
	struct runs *r = arg;
	uint64_t key = 0;
	unsigned l, d;

	if (!c->mapping)
		return;
	for (l = 0; l < c->mapping->n_levels; l++)
		for (d = 0; d < c->mapping->n_dims; d++)
			key = key * 31 + c->mapping->levels[l].temporal_factors[d] * 7 +
			      c->mapping->levels[l].spatial_factors[d];
	if (c->stream == r->stream && key == r->last_choice_key) {
		r->run++;
	} else {
		r->run = 1;
		r->n_runs++;
	}
	if (r->run > r->max_run)
		r->max_run = r->run;
	r->stream = c->stream;
	r->last_choice_key = key;
}

static void test_hybrid_orders_per_visit(void)
{
	static const struct fx_level big[] = {
		{ "Reg", true, 64, 1, 1, 0 },
		{ "Buf", true, 4096, 4, 4, 0 },
		{ "DRAM", false, 0, 1, 1, 0 },
	};
	static const unsigned maxes[] = { 1, 3, 5 };
	struct spec_set *s = fx_matmul(16, 16, 16, big, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct mapper_evaluator ev;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	fx_evaluator(&ev, NULL);
	for (i = 0; i < 3; i++) {
		struct mapper_options o;
		struct mapper_result r;
		struct runs rs;

		memset(&rs, 0, sizeof(rs));
		base_options(&o, SPEC_SEARCH_HYBRID);
		o.max_permutations_per_if_visit = maxes[i];
		o.search_size = 600;
		o.on_candidate = runs_cb;
		o.candidate_arg = &rs;
		mapper_run(ms, &ev, &o, &r);
		CU_ASSERT_EQUAL(rs.max_run, maxes[i]);
		CU_ASSERT_TRUE(rs.n_runs >= 600 / maxes[i]);
	}
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo search_tests[] = {
	{ "linear searches match brute force", test_linear_matches_brute_force },
	{ "capacity pruning counts", test_pruning_counts },
	{ "random searches are reproducible", test_random_reproducible },
	{ "hybrid orders per factorization", test_hybrid_orders_per_visit },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "search", .pTests = search_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
