/*
 * Tests of mapper/refine.c: steepest descent from the searches' best
 * points never makes them worse, reaches the optimum of a cost that single
 * factor moves can descend, and keeps the constraints.
 */
#include "mapper/mapper.h"

#include <math.h>
#include <string.h>

#include "tests/mapper/fixture.h"
#include "tests/unit.h"
#include "util/diag.h"

static const struct fx_level levels[] = {
	{ "Reg", true, 64, 1, 1, 0 },
	{ "Buf", true, 4096, 4, 2, 0 },
	{ "DRAM", false, 0, 1, 1, 0 },
};

/* A cost with one optimum: M all at Buf, K all at Reg, N all at DRAM, no spatial loop. */
static double separable_cost(const struct spec_mapping *m)
{
	static const double want[3][3] = {
		/* log2 of the temporal factors at Reg, Buf, DRAM, for M, K, N */
		{ 0, 3, 0 }, { 4, 0, 0 }, { 0, 0, 4 },
	};
	double c = 1;
	unsigned d, l;

	for (d = 0; d < 3; d++) {
		for (l = 0; l < 3; l++) {
			double e = log2((double)m->levels[l].temporal_factors[d]) - want[d][l];
			c += e * e;
		}
		c += 3 * log2((double)m->levels[1].spatial_factors[d]);
	}
	return c;
}

/* A cost as the evaluator's context. */
struct cost {
	double (*fn)(const struct spec_mapping *m);
};

static void *ws_new(const void *ctx)
{
	return (void *)ctx;
}

static void cost_eval(void *ws, const struct spec_mapping *m, struct mapper_eval *out)
{
	const struct cost *c = ws;

	memset(out, 0, sizeof(*out));
	out->status = MAPPER_OK;
	out->metrics[SPEC_METRIC_EDP] = c->fn(m);
	out->metrics[SPEC_METRIC_ENERGY] = out->metrics[SPEC_METRIC_EDP];
	out->metrics[SPEC_METRIC_DELAY] = 1;
}

static void cost_evaluator(struct mapper_evaluator *ev, const struct cost *c)
{
	ev->ctx = c;
	ev->ws_new = ws_new;
	ev->ws_free = NULL;
	ev->eval = cost_eval;
}

static const struct cost separable = { separable_cost };

/* Random search alone stops far from the optimum; refinement reaches it. */
static void test_reaches_optimum(void)
{
	struct spec_set *s = fx_matmul(8, 16, 16, levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_result plain, refined;
	double optimum = 1;   /* every exponent where it is wanted, no spatial loop */

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	cost_evaluator(&ev, &separable);
	mapper_options_init(&o, NULL);
	o.algorithm = SPEC_SEARCH_RANDOM;
	o.n_threads = 2;
	o.n_streams = 4;
	o.victory_condition = 5;
	o.refine = 0;
	CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, &plain), 0);
	CU_ASSERT_FALSE(plain.refined);
	CU_ASSERT_EQUAL(plain.n_refine_evals, 0);
	CU_ASSERT_TRUE(plain.best_eval.metrics[SPEC_METRIC_EDP] > optimum + 1);

	o.refine = 2;
	CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, &refined), 0);
	CU_ASSERT_TRUE(refined.refined);
	CU_ASSERT_TRUE(refined.n_refine_steps > 0);
	CU_ASSERT_TRUE(refined.n_refine_evals > refined.n_refine_steps);
	CU_ASSERT_DOUBLE_EQUAL(refined.searched_eval.metrics[SPEC_METRIC_EDP],
			       plain.best_eval.metrics[SPEC_METRIC_EDP], 0);
	CU_ASSERT_DOUBLE_EQUAL(refined.best_eval.metrics[SPEC_METRIC_EDP], optimum, 1e-12);
	CU_ASSERT_EQUAL(refined.best.levels[1].temporal_factors[FX_M], 8);
	CU_ASSERT_EQUAL(refined.best.levels[0].temporal_factors[FX_K], 16);
	CU_ASSERT_EQUAL(refined.best.levels[2].temporal_factors[FX_N], 16);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Refinement keeps constraints: a fixed factor and a kept tensor stay. */
static void test_keeps_constraints(void)
{
	struct spec_set *s = fx_matmul(8, 16, 16, levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_result r;
	struct spec_constraint *c;

	c = fx_constraint(s, SPEC_CON_TEMPORAL, 1, 3);
	fx_fix(c, FX_K, 2);
	fx_perm(c, "NK");
	fx_constraint(s, SPEC_CON_BYPASS, 0, 6)->keep_mask = 1u << FX_B;
	ms = mapper_space_new(s, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	cost_evaluator(&ev, &separable);
	mapper_options_init(&o, NULL);
	o.algorithm = SPEC_SEARCH_RANDOM_PRUNED;
	o.n_threads = 2;
	o.n_streams = 3;
	o.victory_condition = 5;
	o.refine = 3;
	CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, &r), 0);
	CU_ASSERT_TRUE(r.refined);
	CU_ASSERT_EQUAL(r.best.levels[1].temporal_factors[FX_K], 2);
	CU_ASSERT_EQUAL(r.best.levels[1].temporal_perm[0], FX_N);
	CU_ASSERT_EQUAL(r.best.levels[1].temporal_perm[1], FX_K);
	CU_ASSERT_TRUE(r.best.levels[0].keep_mask & (1u << FX_B));
	CU_ASSERT_TRUE(r.best_eval.metrics[SPEC_METRIC_EDP] <= r.searched_eval.metrics[SPEC_METRIC_EDP]);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

/*
 * An imperfect dimension (M = 13, prime): a cost that wants a Reg tile of 5
 * (so 3 tiles, the last of 3 outputs) and the 3 tiles at Buf, no spatial M;
 * K and N as separable_cost wants them. 13 has no prime factor to move:
 * only refinement's imperfect moves (a tile to the next one worth trying,
 * the outermost level taking the rest) reach it.
 */
static double imperfect_cost(const struct spec_mapping *m)
{
	double r = (double)m->levels[0].temporal_factors[FX_M] - 5;
	double b = (double)m->levels[1].temporal_factors[FX_M] - 3;
	double d = (double)m->levels[2].temporal_factors[FX_M] - 1;
	double c = 1 + r * r + b * b + d * d + 3 * log2((double)m->levels[1].spatial_factors[FX_M]);
	double kn[2][3] = { { 4, 0, 0 }, { 0, 0, 4 } };
	unsigned i, l, dims[2] = { FX_K, FX_N };

	for (i = 0; i < 2; i++) {
		for (l = 0; l < 3; l++) {
			double e = log2((double)m->levels[l].temporal_factors[dims[i]]) - kn[i][l];
			c += e * e;
		}
		c += 3 * log2((double)m->levels[1].spatial_factors[dims[i]]);
	}
	return c;
}

static const struct cost imperfect = { imperfect_cost };

static void test_imperfect_moves(void)
{
	struct spec_set *s = fx_matmul(13, 16, 16, levels, 3);
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms = mapper_space_new(s, NULL, &dl);
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_result r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	cost_evaluator(&ev, &imperfect);
	mapper_options_init(&o, NULL);
	o.algorithm = SPEC_SEARCH_RANDOM;
	o.n_threads = 2;
	o.n_streams = 4;
	o.victory_condition = 5;
	o.refine = 4;
	CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.best_eval.metrics[SPEC_METRIC_EDP], 1, 1e-12);
	CU_ASSERT_EQUAL(r.best.levels[0].temporal_factors[FX_M], 5);
	CU_ASSERT_EQUAL(r.best.levels[0].temporal_residuals[FX_M], 3);
	CU_ASSERT_EQUAL(r.best.levels[1].temporal_factors[FX_M], 3);
	CU_ASSERT_TRUE(r.best.is_imperfect);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo refine_tests[] = {
	{ "imperfect tiles move", test_imperfect_moves },
	{ "reaches the optimum of a separable cost", test_reaches_optimum },
	{ "keeps the constraints", test_keeps_constraints },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "refine", .pTests = refine_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
