/*
 * ragged.c: ragged dimensions (problem.ragged) loaded from a list, a file
 * and a distribution; the cases the model evaluates (equal listed extents
 * grouped, a distribution's support weighted by the parent's bound, lists
 * crossed with distributions); the dense view of one parent coordinate (its
 * bounds, tensor sizes and the mapping's derived residuals); the check that
 * the parent's loops are outermost. Errors are in the bad corpus
 * (tests/data/specs/bad/ragged_*.yaml).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char design[] =
	"architecture:\n"
	"  version: 0.4\n"
	"  subtree:\n"
	"  - name: sys\n"
	"    local:\n"
	"    - {name: DRAM, class: DRAM, attributes: {width: 64, datawidth: 8}}\n"
	"    - {name: GLB, class: SRAM, attributes: {depth: 4096, width: 64, datawidth: 8}}\n"
	"    - {name: mac, class: intmac}\n"
	"problem:\n"
	"  shape:\n"
	"    name: bmm\n"
	"    dimensions: [B, S, T, K]\n"
	"    data_spaces:\n"
	"    - {name: A, projection: [B, S, K]}\n"
	"    - {name: W, projection: [T, K]}\n"
	"    - {name: Z, projection: [B, S, T], read_write: true}\n"
	"  instance: {B: 4, S: 16, T: 8, K: 4}\n"
	"  ragged:\n"
	"%s"
	"mapping:\n"
	"- {target: DRAM, type: temporal, factors: B4 S2 T1 K1, permutation: STKB}\n"
	"- {target: GLB, type: temporal, factors: B1 S8 T8 K4, permutation: KTSB}\n";

static struct spec_set *load(const char *ragged, struct diag_list *dl)
{
	static char path[1024];
	char text[4096];
	const char *ptrs[1];

	st_write("lens.txt", "# four sequences\n3, 5\n3 3 # the last\n");
	snprintf(text, sizeof(text), design, ragged);
	snprintf(path, sizeof(path), "%s", st_write("ragged.yaml", text));
	ptrs[0] = path;
	return spec_set_load(ptrs, 1, NULL, dl);
}

struct case_row {
	const char *ragged;
	size_t n_cases;
	uint64_t extent0[4];     /* the first ragged dimension's extent, case by case */
	uint64_t extent1[4];
	double weight[4];
};

static const struct case_row rows[] = {
	/* equal extents grouped, in increasing order */
	{ "    S: {parent: B, lengths: [5, 12, 5, 1]}\n", 3,
	  { 1, 5, 12 }, { 0 }, { 1, 2, 1 } },
	/* a file */
	{ "    S: {parent: B, lengths_file: lens.txt}\n", 2, { 3, 5 }, { 0 }, { 3, 1 } },
	/* a distribution: the parent's bound times 1/4 on each of 13..16 */
	{ "    S: {parent: B, distribution: {type: uniform, min: 13, max: 16}}\n", 4,
	  { 13, 14, 15, 16 }, { 0 }, { 1, 1, 1, 1 } },
	/* a list crossed with a distribution (T uniform on 7..8): 2 groups x 2 */
	{ "    S: {parent: B, lengths: [2, 2, 9, 9]}\n"
	  "    T: {parent: B, distribution: {type: uniform, min: 7, max: 8}}\n", 4,
	  { 2, 2, 9, 9 }, { 7, 8, 7, 8 }, { 1, 1, 1, 1 } },
};

static void test_cases(void)
{
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load(rows[i].ragged, &dl);
		struct spec_ragged_case *c;
		size_t n;

		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		n = spec_ragged_cases(&s->workload, &c);
		CU_ASSERT_EQUAL(n, rows[i].n_cases);
		for (k = 0; k < n && k < 4; k++) {
			CU_ASSERT_EQUAL(c[k].extent[0], rows[i].extent0[k]);
			if (s->workload.n_ragged > 1)
				CU_ASSERT_EQUAL(c[k].extent[1], rows[i].extent1[k]);
			CU_ASSERT_DOUBLE_EQUAL(c[k].weight, rows[i].weight[k], 1e-12);
		}
		free(c);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_view(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("    S: {parent: B, lengths: [5, 12, 16, 1]}\n", &dl);
	struct spec_ragged_view *v = xmalloc(sizeof(*v));
	uint64_t ext[1] = { 12 };
	const struct spec_map_level *dram, *glb;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.n_ragged, 1);
	CU_ASSERT_EQUAL(s->workload.ragged[0].min, 1);
	CU_ASSERT_EQUAL(s->workload.ragged[0].max, 16);
	spec_ragged_view_init(v, s, ext);
	CU_ASSERT_EQUAL_FATAL(spec_ragged_view_map(v, s, s->mapping), 0);
	CU_ASSERT_EQUAL(v->set.workload.bounds[0], 1);      /* B */
	CU_ASSERT_EQUAL(v->set.workload.bounds[1], 12);     /* S */
	CU_ASSERT_EQUAL(v->set.workload.n_ragged, 0);
	CU_ASSERT_EQUAL(v->set.workload.tensors[0].size, 1 * 12 * 4);   /* A[B,S,K] */
	CU_ASSERT_EQUAL(v->set.workload.tensors[2].size, 12 * 8);       /* Z[B,S,T] */
	CU_ASSERT_PTR_EQUAL(v->set.mapping, &v->map);
	dram = &v->map.levels[1];
	glb = &v->map.levels[0];
	/* S: GLB tiles of 8, the last 4 of 12; DRAM runs 2 of them; B: 1 */
	CU_ASSERT_EQUAL(glb->temporal_factors[1], 8);
	CU_ASSERT_EQUAL(glb->temporal_residuals[1], 4);
	CU_ASSERT_EQUAL(dram->temporal_residuals[1], 2);
	CU_ASSERT_EQUAL(dram->temporal_factors[0], 1);
	/* one token: the DRAM loop runs once, the GLB's one token */
	ext[0] = 1;
	spec_ragged_view_init(v, s, ext);
	CU_ASSERT_EQUAL_FATAL(spec_ragged_view_map(v, s, s->mapping), 0);
	CU_ASSERT_EQUAL(v->map.levels[0].temporal_residuals[1], 1);
	CU_ASSERT_EQUAL(v->map.levels[1].temporal_residuals[1], 1);
	/* the design's own set is untouched */
	CU_ASSERT_EQUAL(s->workload.bounds[1], 16);
	CU_ASSERT_EQUAL(s->workload.tensors[0].size, 4 * 16 * 4);
	free(v);
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_mapping_check(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("    S: {parent: B, lengths: [5, 12, 16, 1]}\n", &dl);
	struct spec_mapping *m = xmalloc(sizeof(*m));
	struct strbuf why = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(spec_ragged_check_mapping(&s->workload, s->mapping, &why), 0);
	/* B below S at DRAM: not outermost */
	*m = *s->mapping;
	m->levels[1].temporal_perm[0] = 0;  /* B innermost */
	m->levels[1].temporal_perm[1] = 1;
	m->levels[1].temporal_perm[2] = 2;
	m->levels[1].temporal_perm[3] = 3;
	CU_ASSERT_EQUAL_FATAL(spec_mapping_derive(m, &s->workload), 0);
	CU_ASSERT_EQUAL(spec_ragged_check_mapping(&s->workload, m, &why), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.buf, "outermost"));
	strbuf_release(&why);
	free(m);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "cases", test_cases },
	{ "view of one parent coordinate", test_view },
	{ "parent outermost", test_mapping_check },
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
