/*
 * The fast nest analysis (model/nest_fast.c) against the general walk
 * (model/nest_walk.c), Timeloop's recursion evaluated call by call: on
 * random mappings of two designs every tile count must be identical.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/rng.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_fast, res_walk;

/* Every count of two results of the same mapping must agree. */
static int compare(const struct model_result *a, const struct model_result *b, unsigned seed)
{
	unsigned l, pv, bad = 0;

	if (a->status != b->status || a->compute.accesses != b->compute.accesses ||
	    a->cycles != b->cycles)
		bad++;
	for (l = 0; l < a->n_levels; l++) {
		for (pv = 0; pv < a->n_tensors; pv++) {
			const struct model_tile *x = &a->tiles[l][pv], *y = &b->tiles[l][pv];
			if (x->is_kept != y->is_kept || x->shape != y->shape ||
			    x->partition_size != y->partition_size || x->reads != y->reads ||
			    x->fills != y->fills || x->updates != y->updates ||
			    x->temporal_reductions != y->temporal_reductions) {
				if (!bad)
					fprintf(stderr, "seed %u level %u tensor %u: fast %llu/%llu/%llu/%llu "
						"walk %llu/%llu/%llu/%llu (shape/reads/fills/updates)\n",
						seed, l, pv, (unsigned long long)x->shape,
						(unsigned long long)x->reads, (unsigned long long)x->fills,
						(unsigned long long)x->updates, (unsigned long long)y->shape,
						(unsigned long long)y->reads, (unsigned long long)y->fills,
						(unsigned long long)y->updates);
				bad++;
			}
		}
	}
	return bad ? -1 : 0;
}

/* Evaluate n random mappings of the design 'build' makes, both ways. */
static void random_mappings(void (*build)(struct tb *), unsigned n, unsigned *n_ok,
			    unsigned *n_fast)
{
	struct model_options fast = MODEL_OPTIONS_INIT, walk = MODEL_OPTIONS_INIT;
	struct model_ws *wf, *ww;
	struct rng r;
	unsigned i, mismatches = 0;

	walk.no_fast_path = true;
	build(&tb_);
	wf = model_ws_new(&tb_.s, &fast, NULL);
	ww = model_ws_new(&tb_.s, &walk, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ww);
	rng_seed(&r, 2024);
	*n_ok = *n_fast = 0;
	for (i = 0; i < n; i++) {
		int a, b;
		CU_ASSERT_EQUAL_FATAL(tb_random_mapping(&tb_, &r), 0);
		a = model_eval(wf, &tb_.m, &res_fast);
		b = model_eval(ww, &tb_.m, &res_walk);
		CU_ASSERT_EQUAL(a, b);
		CU_ASSERT_EQUAL(res_fast.status, res_walk.status);
		/* a capacity failure is found after the nest analysis: compare it too */
		if (res_fast.status != EVAL_FANOUT && res_fast.status == res_walk.status) {
			(*n_ok)++;
			*n_fast += !res_fast.nest_walked;
			if (compare(&res_fast, &res_walk, i) < 0)
				mismatches++;
		}
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	model_ws_free(wf);
	model_ws_free(ww);
}

static void test_random_mini(void)
{
	unsigned ok, fast;
	random_mappings(tb_mini, 400, &ok, &fast);
	CU_ASSERT(ok > 200);
	CU_ASSERT(fast > ok / 2);   /* the fast path really was compared */
}

static void test_random_weight_stationary(void)
{
	unsigned ok, fast;
	random_mappings(tb_simple_weight_stationary, 60, &ok, &fast);
	CU_ASSERT(ok > 30);
	CU_ASSERT(fast > ok / 2);
}

/*
 * simple_weight_stationary with its map.yaml (semantics 2.6.2): the fast
 * path and the walk agree on the worked example's counts.
 */
static void test_worked_example(void)
{
	static const struct { unsigned l, pv; uint64_t reads, fills, updates; } rows[] = {
		{ 2, 0, 903168, 2016, 0 },         /* weight_reg Weights */
		{ 3, 0, 2016, 2016, 0 },           /* pe_spad Weights */
		{ 5, 0, 24192, 864, 0 },           /* shared_glb Weights */
		{ 6, 0, 864, 0, 0 },               /* DRAM Weights */
		{ 5, 1, 2709504, 151875, 0 },      /* shared_glb Inputs */
		{ 1, 1, 903168, 903168, 0 },       /* input_activation_reg Inputs */
		{ 0, 2, 802816, 802816, 903168 },  /* output_activation_reg Outputs */
		{ 5, 2, 3211264, 0, 3612672 },     /* shared_glb Outputs */
		{ 6, 2, 0, 0, 401408 },            /* DRAM Outputs */
	};
	struct model_options fast = MODEL_OPTIONS_INIT, walk = MODEL_OPTIONS_INIT;
	struct model_ws *ws[2];
	struct model_result *res[2] = { &res_fast, &res_walk };
	unsigned i, k;

	walk.no_fast_path = true;
	tb_simple_weight_stationary(&tb_);
	ws[0] = model_ws_new(&tb_.s, &fast, NULL);
	ws[1] = model_ws_new(&tb_.s, &walk, NULL);
	for (k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL_FATAL(model_eval(ws[k], &tb_.m, res[k]), 0);
		for (i = 0; i < ARRAY_SIZE(rows); i++) {
			const struct model_tile *t = &res[k]->tiles[rows[i].l][rows[i].pv];
			CU_ASSERT_EQUAL(t->reads, rows[i].reads);
			CU_ASSERT_EQUAL(t->fills, rows[i].fills);
			CU_ASSERT_EQUAL(t->updates, rows[i].updates);
		}
		model_ws_free(ws[k]);
	}
}

static CU_TestInfo tests[] = {
	{ "worked example (semantics 2.6.2)", test_worked_example },
	{ "random mappings of mini", test_random_mini },
	{ "random mappings of simple_weight_stationary", test_random_weight_stationary },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "nest_fast", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
