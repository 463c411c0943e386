/*
 * model/nest.c: access records and multicast groups of a spatial group
 * (semantics 2.4): children whose tiles have the same offset on a tensor
 * form one group, even when two loops cancel on a sliding-window rank.
 */
#include <string.h>

#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;

/* A design with dims R, P, C and Inputs[C][P+R], Weights[C][R], Outputs[P]. */
static struct model_ws *window_ws(void)
{
	tb_init(&tb_);
	tb_dim(&tb_, "R", 3);
	tb_dim(&tb_, "P", 3);
	tb_dim(&tb_, "C", 2);
	tb_tensor(&tb_, "Inputs", false, "C,P+R");
	tb_tensor(&tb_, "Weights", false, "C,R");
	tb_tensor(&tb_, "Outputs", true, "P");
	tb_compute(&tb_, "mac", 9, 1);      /* room for groups of up to 9 children */
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_temporal(&tb_, 0, "R3 P3 C2", "RPC");
	if (tb_finish(&tb_) < 0)
		BUG("window design");
	return model_ws_new(&tb_.s, NULL, NULL);
}

/* A spatial group of loops on the given dims (innermost first), stride 1. */
static void make_group(struct mloop *g, const unsigned *dims, const uint64_t *ends,
		       unsigned n)
{
	unsigned k;

	memset(g, 0, n * sizeof(*g));
	for (k = 0; k < n; k++) {
		g[k].dim = (uint8_t)dims[k];
		g[k].end = ends[k];
		g[k].stride = 1;
		g[k].is_spatial = true;
	}
}

static uint64_t rec_acc(const struct nest_tile *t, uint64_t m, uint64_t scatter)
{
	unsigned i;

	for (i = 0; i < t->n_rec; i++)
		if (t->rec[i].m == m && t->rec[i].scatter == scatter)
			return t->rec[i].accesses;
	return 0;
}

static void test_multicast_table(void)
{
	enum { R, P, C };
	enum { INPUTS, WEIGHTS, OUTPUTS };
	static const struct {
		unsigned pv, n;
		unsigned dims[2];
		uint64_t ends[2];
		unsigned n_rec;
		uint64_t m[3], scatter[3];
	} rows[] = {
		/* Weights[C][R] under spatial P: one group of 3 */
		{ WEIGHTS, 1, { P }, { 3 }, 1, { 3 }, { 1 } },
		/* Outputs[P] under spatial R x C: one group of 6 */
		{ OUTPUTS, 2, { R, C }, { 3, 2 }, 1, { 6 }, { 1 } },
		/* Weights[C][R] under R x C: 6 unicasts */
		{ WEIGHTS, 2, { R, C }, { 3, 2 }, 1, { 1 }, { 6 } },
		/* Inputs[C][P+R] under R x C: R moves the window, 6 unicasts */
		{ INPUTS, 2, { R, C }, { 3, 2 }, 1, { 1 }, { 6 } },
		/* Inputs under R x P: offsets r + p = 0..4, diagonals of 1, 2, 3, 2, 1 */
		{ INPUTS, 2, { R, P }, { 3, 3 }, 3, { 1, 2, 3 }, { 2, 2, 1 } },
	};
	struct model_ws *ws = window_ws();
	unsigned i, k;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct mloop g[2];
		struct nest_tile t = { 0 };
		make_group(g, rows[i].dims, rows[i].ends, rows[i].n);
		model_nest_multicast(ws, rows[i].pv, g, rows[i].n, rows[i].ends, NULL, 10, &t);
		CU_ASSERT_EQUAL(t.n_rec, rows[i].n_rec);
		for (k = 0; k < rows[i].n_rec; k++)
			CU_ASSERT_EQUAL(rec_acc(&t, rows[i].m[k], rows[i].scatter[k]),
					rows[i].scatter[k] * 10);
	}
	model_ws_free(ws);
}

/* Left-out children (link transfers) are not counted in any group. */
static void test_multicast_skip(void)
{
	struct model_ws *ws = window_ws();
	unsigned dims[1] = { 1 };     /* P */
	uint64_t ends[1] = { 3 };
	uint8_t skip[3] = { 0, 1, 1 };
	struct mloop g[1];
	struct nest_tile t = { 0 };

	make_group(g, dims, ends, 1);
	model_nest_multicast(ws, 0, g, 1, ends, skip, 5, &t);   /* Inputs: 3 unicasts, 2 skipped */
	CU_ASSERT_EQUAL(t.n_rec, 1);
	CU_ASSERT_EQUAL(rec_acc(&t, 1, 1), 5);
	model_ws_free(ws);
}

/*
 * 'no_reuse' at the group's level: the 6 children of R x C that share
 * Outputs[P] (one group of 6 with multicast) are 6 groups of one, and
 * every child's update reaches the parent; a skipped child (link) is none.
 */
static void test_no_multicast(void)
{
	enum { R, C = 2 };
	enum { OUTPUTS = 2 };
	struct model_ws *ws = window_ws();
	static struct spec_mapping m;
	unsigned dims[2] = { R, C };
	uint64_t ends[2] = { 3, 2 };
	uint8_t skip[6] = { 0, 0, 1, 0, 0, 0 };
	struct mloop g[2];
	struct nest_tile t = { 0 }, u = { 0 };

	make_group(g, dims, ends, 2);
	m.levels[g[0].level].no_multicast_mask = 1u << OUTPUTS;
	ws->m = &m;
	model_nest_multicast(ws, OUTPUTS, g, 2, ends, NULL, 10, &t);
	CU_ASSERT_EQUAL(t.n_rec, 1);
	CU_ASSERT_EQUAL(rec_acc(&t, 1, 6), 60);
	model_nest_multicast(ws, OUTPUTS, g, 2, ends, skip, 10, &u);
	CU_ASSERT_EQUAL(rec_acc(&u, 1, 5), 50);
	ws->m = NULL;
	model_ws_free(ws);
}

static void test_rec_add(void)
{
	struct nest_tile t = { 0 };

	model_nest_rec_add(&t, 1, 1, 7);
	model_nest_rec_add(&t, 4, 3, 2);
	model_nest_rec_add(&t, 1, 1, 5);
	CU_ASSERT_EQUAL(t.n_rec, 2);
	CU_ASSERT_EQUAL(rec_acc(&t, 1, 1), 12);
	CU_ASSERT_EQUAL(rec_acc(&t, 4, 3), 2);
}

static CU_TestInfo tests[] = {
	{ "multicast groups", test_multicast_table },
	{ "no multicast under no_reuse", test_no_multicast },
	{ "children left out", test_multicast_skip },
	{ "records accumulate by key", test_rec_add },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "nest", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
