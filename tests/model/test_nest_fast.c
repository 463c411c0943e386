/*
 * The fast nest analysis (model/nest_fast.c) against the general walk
 * (model/nest_walk.c), Timeloop's recursion evaluated call by call: on
 * random mappings of four designs (two of them convolutions whose sliding
 * windows make link transfers between mesh neighbours, with random
 * no_reuse / no_link_transfer / no_temporal_reuse directives) the fast
 * path's workspace checks every nest record against the walk
 * (check_fast_path: a difference stops the program), and every tile count
 * of the two results must be identical.
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
	    a->cycles != b->cycles || a->energy_pj != b->energy_pj)
		bad++;
	for (l = 0; l < a->n_levels; l++) {
		for (pv = 0; pv < a->n_tensors; pv++) {
			const struct model_tile *x = &a->tiles[l][pv], *y = &b->tiles[l][pv];
			if (x->is_kept != y->is_kept || x->shape != y->shape ||
			    x->partition_size != y->partition_size || x->reads != y->reads ||
			    x->fills != y->fills || x->updates != y->updates ||
			    x->temporal_reductions != y->temporal_reductions ||
			    x->link_transfers != y->link_transfers ||
			    x->peer_accesses != y->peer_accesses ||
			    x->peer_fills != y->peer_fills) {
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

/* Random spatial and temporal reuse directives on about half the mappings. */
static void random_directives(struct tb *b, struct rng *r)
{
	unsigned l, all = (1u << b->s.workload.n_tensors) - 1;

	for (l = 0; l < b->s.arch.n_levels; l++) {
		struct spec_map_level *ml = &b->m.levels[l];
		bool on = rng_below(r, 2);
		ml->no_link_transfer_mask = on && !rng_below(r, 3) ? (uint32_t)rng_below(r, all + 1) : 0;
		ml->no_multicast_mask = on && !rng_below(r, 3) ? (uint32_t)rng_below(r, all + 1) : 0;
		ml->no_temporal_reuse_mask = on && !rng_below(r, 3) ? (uint32_t)rng_below(r, all + 1) : 0;
	}
}

struct counts {
	unsigned ok, fast, linked;   /* compared; of which fast; with link transfers */
};

/* Evaluate n random mappings of the design 'build' makes, both ways. */
static void random_mappings(void (*build)(struct tb *), unsigned n, bool directives,
			    struct counts *c)
{
	struct model_options fast = MODEL_OPTIONS_INIT, walk = MODEL_OPTIONS_INIT;
	struct model_ws *wf, *ww;
	struct rng r;
	unsigned i, mismatches = 0;

	walk.no_fast_path = true;
	fast.check_fast_path = true;
	memset(c, 0, sizeof(*c));
	build(&tb_);
	wf = model_ws_new(&tb_.s, &fast, NULL);
	ww = model_ws_new(&tb_.s, &walk, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ww);
	rng_seed(&r, 2024);
	for (i = 0; i < n; i++) {
		int a, b;
		unsigned l, pv;
		CU_ASSERT_EQUAL_FATAL(tb_random_mapping(&tb_, &r), 0);
		if (directives)
			random_directives(&tb_, &r);
		a = model_eval(wf, &tb_.m, &res_fast);
		b = model_eval(ww, &tb_.m, &res_walk);
		CU_ASSERT_EQUAL(a, b);
		CU_ASSERT_EQUAL(res_fast.status, res_walk.status);
		/* a capacity failure is found after the nest analysis: compare it too */
		if (res_fast.status != EVAL_FANOUT && res_fast.status == res_walk.status) {
			bool linked = false;
			c->ok++;
			c->fast += !res_fast.nest_walked;
			for (l = 0; l < res_fast.n_levels; l++)
				for (pv = 0; pv < res_fast.n_tensors; pv++)
					linked |= res_fast.tiles[l][pv].link_transfers > 0;
			c->linked += linked && !res_fast.nest_walked;
			if (compare(&res_fast, &res_walk, i) < 0)
				mismatches++;
		}
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	model_ws_free(wf);
	model_ws_free(ww);
}

/* Every perfectly factorized mapping takes the fast path, links or not. */
static void test_random_mini(void)
{
	struct counts c;
	random_mappings(tb_mini, 400, false, &c);
	CU_ASSERT(c.ok > 200);
	CU_ASSERT_EQUAL(c.fast, c.ok);
	CU_ASSERT(c.linked > c.ok / 10);   /* link transfers really were compared */
	random_mappings(tb_mini, 300, true, &c);
	CU_ASSERT(c.ok > 150);
	CU_ASSERT_EQUAL(c.fast, c.ok);
	CU_ASSERT(c.linked > c.ok / 10);
}

static void test_random_weight_stationary(void)
{
	struct counts c;
	random_mappings(tb_simple_weight_stationary, 60, false, &c);
	CU_ASSERT(c.ok > 30);
	CU_ASSERT_EQUAL(c.fast, c.ok);
}

/*
 * A 2-D convolution on a mesh of 6 x 6 MACs under 3 x 3 register files
 * (groups of 2 x 2 MACs) under one buffer: the windows P+R and 'p_coef'
 * * P + R slide on both axes of both meshes, so neighbours often hold
 * what a child needs next (from the MACs' points up to the buffer's
 * tiles).
 */
static void conv_design(struct tb *b, const char *inputs)
{
	tb_init(b);
	tb_dim(b, "C", 2);
	tb_dim(b, "M", 4);
	tb_dim(b, "P", 6);
	tb_dim(b, "Q", 4);
	tb_dim(b, "R", 3);
	tb_dim(b, "S", 3);
	tb_tensor(b, "Weights", false, "C,M,R,S");
	tb_tensor(b, "Inputs", false, inputs);
	tb_tensor(b, "Outputs", true, "M,P,Q");
	tb_compute(b, "mac", 6, 6);
	tb_ert(b, -1, "compute=1");
	tb_level(b, "rf", 64, 16, 16, 3, 3);
	tb_level(b, "glb", 4096, 64, 16, 1, 1);
	tb_level(b, "dram", 0, 64, 16, 1, 1);
	tb_ert(b, 0, "read=0.1 write=0.2 update=0.2 leak=0.001");
	tb_ert(b, 1, "read=10 write=12 update=12 leak=0.1");
	tb_ert(b, 2, "read=200 write=200 update=200");
	tb_keep(b, 2, "Weights Inputs Outputs");
	tb_temporal(b, 2, "C2 M4 P6 Q4 R3 S3", "");
	if (tb_finish(b) < 0)
		BUG("conv: factors do not multiply out");
}

static void conv_unit_stride(struct tb *b)
{
	conv_design(b, "C,P+R,Q+S");
}

static void conv_strided(struct tb *b)
{
	conv_design(b, "C,2*P+R,Q+2*S");
}

static void test_random_conv(void)
{
	static void (*const designs[])(struct tb *) = { conv_unit_stride, conv_strided };
	struct counts c;
	unsigned i, k;

	for (i = 0; i < ARRAY_SIZE(designs); i++) {
		for (k = 0; k < 2; k++) {
			random_mappings(designs[i], 300, k == 1, &c);
			CU_ASSERT(c.ok > 100);
			CU_ASSERT_EQUAL(c.fast, c.ok);
			CU_ASSERT(c.linked > c.ok / 10);
		}
	}
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
	{ "random mappings of two convolutions", test_random_conv },
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
