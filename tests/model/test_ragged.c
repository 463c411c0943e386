/*
 * ragged.c: ragged (dense-variable) workloads, the model against the
 * executor (tests/data/ragged/). Listed extents: every total (computes, and
 * the reads, fills and updates of every tensor at every level over its
 * instances) equal to the executor's, which runs each sequence by itself;
 * and the computes worked out by hand. Uniform extents: the model's
 * expectation within 3 standard errors of the executor's mean over 30 seeds.
 * A mapping whose parent loop is not outermost is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "model/model.h"
#include "specs/spec.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct spec_set *load(const char *file)
{
	const char *files[1] = { file };
	return unit_load_files(unit_data_path("ragged"), files, 1, true);
}

static void test_list_exact(void)
{
	struct spec_set *s = load("batched.yaml");
	struct model_ragged_result *mr = xmalloc(sizeof(*mr));
	struct exec_ragged_result *er = xmalloc(sizeof(*er));
	unsigned l, t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(model_eval_ragged(s, s->mapping, NULL, mr), 0);
	CU_ASSERT_EQUAL_FATAL(exec_run_ragged(s, NULL, er), 0);
	/* (5 + 12 + 16 + 1) tokens x K 4 x N 6; four lengths, four cases */
	CU_ASSERT_DOUBLE_EQUAL(mr->computes, 34.0 * 4 * 6, 1e-9);
	CU_ASSERT_EQUAL(er->computes, 34 * 4 * 6);
	CU_ASSERT_EQUAL(er->elements[0], 34);
	CU_ASSERT_EQUAL(mr->n_cases, 4);
	for (l = 0; l < mr->n_levels; l++)
		for (t = 0; t < mr->n_tensors; t++) {
			if (fabs(mr->reads[l][t] - (double)er->reads[l][t]) > 1e-9 ||
			    fabs(mr->fills[l][t] - (double)er->fills[l][t]) > 1e-9 ||
			    fabs(mr->updates[l][t] - (double)er->updates[l][t]) > 1e-9)
				printf("\nlevel %u tensor %u: model %g %g %g exec %llu %llu %llu\n", l, t,
				       mr->reads[l][t], mr->fills[l][t], mr->updates[l][t],
				       (unsigned long long)er->reads[l][t],
				       (unsigned long long)er->fills[l][t],
				       (unsigned long long)er->updates[l][t]);
			CU_ASSERT_DOUBLE_EQUAL(mr->reads[l][t], (double)er->reads[l][t], 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(mr->fills[l][t], (double)er->fills[l][t], 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(mr->updates[l][t], (double)er->updates[l][t], 1e-9);
		}
	/*
	 * W (24 words) leaves DRAM once per DRAM S tile and N half: the sequences
	 * take 1, 2, 2 and 1 tiles of 8 tokens, so 6 x 2 x 12 = 144 (the box: 192)
	 */
	CU_ASSERT_DOUBLE_EQUAL(mr->reads[2][1], 144.0, 1e-9);
	/* every token of A leaves DRAM once: 34 x 4 */
	CU_ASSERT_DOUBLE_EQUAL(mr->reads[2][0], 136.0, 1e-9);
	/* the batch's 4 x 16 box would compute 1536: the ragged counts are not the box's */
	CU_ASSERT_TRUE(mr->computes < 1536.0);
	free(mr);
	free(er);
	spec_set_free(s);
}

/* Mean and standard error of n samples. */
static void mean_se(const double *x, unsigned n, double *mean, double *se)
{
	double m = 0.0, v = 0.0;
	unsigned i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (i = 0; i < n; i++)
		v += (x[i] - m) * (x[i] - m);
	*mean = m;
	*se = sqrt(v / (n - 1) / n);
}

#define SEEDS 30

static void test_uniform_expectation(void)
{
	struct spec_set *s = load("uniform.yaml");
	struct model_ragged_result *mr = xmalloc(sizeof(*mr));
	struct exec_ragged_result *er = xmalloc(sizeof(*er));
	static double comp[SEEDS], rd[SEEDS][SPEC_MAX_LEVELS][SPEC_MAX_TENSORS];
	double x[SEEDS], mean, se;
	unsigned k, l, t, checked = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(model_eval_ragged(s, s->mapping, NULL, mr), 0);
	/* 14 extents 3..16, mean 9.5: 4 x 9.5 x 4 x 6 = 912 expected computes */
	CU_ASSERT_DOUBLE_EQUAL(mr->computes, 912.0, 1e-9);
	CU_ASSERT_EQUAL(mr->n_cases, 14);
	for (k = 0; k < SEEDS; k++) {
		struct exec_options o = EXEC_OPTIONS_INIT;
		o.seed = 1000 + 17 * k;
		CU_ASSERT_EQUAL_FATAL(exec_run_ragged(s, &o, er), 0);
		comp[k] = (double)er->computes;
		for (l = 0; l < er->n_levels; l++)
			for (t = 0; t < er->n_tensors; t++)
				rd[k][l][t] = (double)er->reads[l][t] + (double)er->fills[l][t] +
					      (double)er->updates[l][t];
	}
	mean_se(comp, SEEDS, &mean, &se);
	CU_ASSERT_TRUE(se > 0.0);     /* the extents do vary */
	CU_ASSERT_TRUE(fabs(mr->computes - mean) <= 3.0 * se);
	for (l = 0; l < mr->n_levels; l++)
		for (t = 0; t < mr->n_tensors; t++) {
			double mv = mr->reads[l][t] + mr->fills[l][t] + mr->updates[l][t];
			for (k = 0; k < SEEDS; k++)
				x[k] = rd[k][l][t];
			mean_se(x, SEEDS, &mean, &se);
			if (!(fabs(mv - mean) <= 3.0 * se + 1e-9))
				printf("\nlevel %u tensor %u: model %g, executor %g +- %g\n", l, t, mv,
				       mean, se);
			CU_ASSERT_TRUE(fabs(mv - mean) <= 3.0 * se + 1e-9);
			checked += se > 0.0;
		}
	CU_ASSERT_TRUE(checked >= 6);
	free(mr);
	free(er);
	spec_set_free(s);
}

static void test_parent_not_outermost(void)
{
	struct spec_set *s = load("batched.yaml");
	struct model_ragged_result *mr = xmalloc(sizeof(*mr));
	struct spec_mapping *m = xmalloc(sizeof(*m));

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	*m = *s->mapping;
	/* move B's 4 from DRAM to the GLB: the GLB would hold W across sequences */
	m->levels[2].temporal_factors[0] = m->levels[2].temporal_residuals[0] = 1;
	m->levels[1].temporal_factors[0] = m->levels[1].temporal_residuals[0] = 4;
	CU_ASSERT_EQUAL_FATAL(spec_mapping_derive(m, &s->workload), 0);
	CU_ASSERT_EQUAL(model_eval_ragged(s, m, NULL, mr), -1);
	CU_ASSERT_EQUAL(mr->status, EVAL_BAD_MAPPING);
	CU_ASSERT_PTR_NOT_NULL(strstr(mr->reason, "outermost"));
	free(m);
	free(mr);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "listed extents: model = executor", test_list_exact },
	{ "uniform extents: within 3 standard errors", test_uniform_expectation },
	{ "parent not outermost", test_parent_not_outermost },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ragged", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
