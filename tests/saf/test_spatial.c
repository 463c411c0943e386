/*
 * saf/spatial.c: spatial skipping (semantics 4.4.4): the busy fraction of
 * the instances below a level and the expansion a fiber of them needs, for
 * 2:4 structured and fixed densities, with and without the widening by
 * temporal loops that do not move the target.
 */
#include <stdio.h>
#include <string.h>

#include "density/density.h"
#include "saf/saf.h"
#include "tests/saf/nest_fixture.h"
#include "tests/unit.h"
#include "util/xalloc.h"

struct spatial_case {
	const char *what;
	const char *dims, *nest;
	const char *target_proj, *cond_proj;
	bool nm;                      /* 2:4 along the last dimension of 'dims', else fixed */
	double density;
	unsigned level;
	int child;
	struct saf_spatial_effect want;
};

static const struct spatial_case cases[] = {
	/* 2:4 along K spread over 4 PEs: half of them busy, half the fan-out needed */
	{ "2:4 over a Spatial-X K4", "MK", "M1 K1 | sK4 K2 M2", "K", "M,K", true, 0.5, 1, -1,
	  { 0.5, 0.5, 1.0 } },
	/* fixed 0.25 in sub-tiles of 2: P(empty) 0.5; a fiber of 8 holds at most 4 */
	{ "fixed 0.25 over a Spatial-Y K8 of pairs", "K", "K2 | yK8 K1", "K", "K", false, 0.25, 1,
	  -1, { 0.5, 1.0, 0.25 / 0.5 } },
	/* the target has a child and M does not move it: the sub-tile spans M4 */
	{ "widened by a temporal loop the target ignores", "MNK", "K1 | sK2 M4 K2", "N,K", "M,K",
	  false, 0.1, 1, 0, { 0.4, 0.5, 1.0 } },
	/* no spatial loop distributes the condition: nothing is thinned */
	{ "no spatial loop on the condition", "MNK", "K1 | sN4 K2", "N,K", "M,K", false, 0.1, 1,
	  0, { 1.0, 1.0, 1.0 } },
};

static void test_cases(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct spatial_case *c = &cases[i];
		struct nest_fixture nf;
		struct spec_tensor tgt, cond;
		struct saf_spatial_query q;
		struct saf_spatial_effect e;
		uint64_t shape[SPEC_MAX_TENSOR_RANKS] = { 64, 64, 64, 64 };

		fx_nest(&nf, c->dims, c->nest);
		fx_tensor(&tgt, "T", c->dims, c->target_proj);
		fx_tensor(&cond, "C", c->dims, c->cond_proj);
		if (c->nm) {
			cond.density.kind = SPEC_DENSITY_NM;
			cond.density.nm_n = 2;
			cond.density.nm_m = 4;
		}
		cond.density.density = c->density;
		memset(&q, 0, sizeof(q));
		q.nest = &nf.nest;
		q.target = &tgt;
		q.level = c->level;
		q.child_level = c->child;
		q.cond = &cond;
		q.density = density_model_new_shape(&cond.density, cond.n_ranks, shape,
						    cond.n_ranks - 1);
		e = saf_spatial_skip(&q);
		if (e.ratio != c->want.ratio || e.x_scale != c->want.x_scale ||
		    e.y_scale != c->want.y_scale)
			fprintf(stderr, "case %u (%s): ratio %g, scales %g x %g\n", i, c->what,
				e.ratio, e.x_scale, e.y_scale);
		CU_ASSERT_DOUBLE_EQUAL(e.ratio, c->want.ratio, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(e.x_scale, c->want.x_scale, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(e.y_scale, c->want.y_scale, 1e-12);
		density_model_free(q.density);
	}
}

static CU_TestInfo tests[] = {
	{ "spatial skipping effects", test_cases },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "saf spatial", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
