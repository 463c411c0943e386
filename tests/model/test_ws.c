/*
 * model/ws.c, model/result.c and model/pipeline.c: workspace options,
 * status and action names, copying a result, and evaluations that reuse one
 * workspace for different mappings and its memory for other designs.
 */
#include <string.h>

#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/rng.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result a_, b_;

static void test_options(void)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct model_ws *ws;

	tb_simple_weight_stationary(&tb_);
	opt.energy_preset = "accelergy99";
	CU_ASSERT_PTR_NULL(model_ws_new(&tb_.s, &opt, &err));
	CU_ASSERT_STRING_EQUAL(err.buf, "unknown energy preset 'accelergy99'");
	opt.energy_preset = "horowitz45";
	ws = model_ws_new(&tb_.s, &opt, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
	CU_ASSERT_PTR_EQUAL(model_ws_spec(ws), &tb_.s);
	model_ws_free(ws);
	model_ws_free(NULL);
	strbuf_release(&err);
}

static void test_names(void)
{
	const char *const *presets = model_energy_preset_names();
	unsigned n = 0;

	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_OK), "ok");
	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_OVER_CAPACITY), "over-capacity");
	CU_ASSERT_STRING_EQUAL(model_status_name(EVAL_STATUS_COUNT), "?");
	CU_ASSERT_STRING_EQUAL(model_op_name(MODEL_OP_SKIPPED_MD_FILL), "skipped_metadata_fill");
	CU_ASSERT_STRING_EQUAL(model_op_name(MODEL_OP_LEAK), "leak");
	CU_ASSERT_STRING_EQUAL(model_energy_source_name(MODEL_ENERGY_ERT), "ERT");
	while (presets[n])
		n++;
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_STRING_EQUAL(model_energy_preset_default(), "accelergy45");
}

/*
 * One workspace, many mappings: each result equals a fresh workspace's, so
 * nothing of one evaluation leaks into the next (caches included).
 */
static void test_reuse(void)
{
	struct model_ws *shared, *fresh;
	struct rng r;
	unsigned i, l, pv, bad = 0;

	tb_mini(&tb_);
	shared = model_ws_new(&tb_.s, NULL, NULL);
	rng_seed(&r, 99);
	for (i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL_FATAL(tb_random_mapping(&tb_, &r), 0);
		model_eval(shared, &tb_.m, &a_);
		fresh = model_ws_new(&tb_.s, NULL, NULL);
		model_eval(fresh, &tb_.m, &b_);
		model_ws_free(fresh);
		bad += a_.status != b_.status || a_.energy_pj != b_.energy_pj ||
		       a_.cycles != b_.cycles;
		for (l = 0; l < a_.n_levels && a_.status == EVAL_OK; l++)
			for (pv = 0; pv < a_.n_tensors; pv++)
				bad += memcmp(&a_.tiles[l][pv], &b_.tiles[l][pv],
					      offsetof(struct model_tile, fmt_capacity)) != 0 &&
				       a_.tiles[l][pv].is_kept;
	}
	CU_ASSERT_EQUAL(bad, 0);
	model_ws_free(shared);
}

/* Results 'a' and 'b' agree on the totals and every level's figures. */
static unsigned result_diffs(const struct model_result *a, const struct model_result *b)
{
	unsigned l, o, bad = a->status != b->status || a->energy_pj != b->energy_pj ||
			     a->cycles != b->cycles || a->n_levels != b->n_levels;

	for (l = 0; !bad && l < a->n_levels; l++) {
		const struct model_level *x = &a->levels[l], *y = &b->levels[l];
		bad += x->energy_pj != y->energy_pj || x->cycles != y->cycles ||
		       x->leakage_energy_pj != y->leakage_energy_pj ||
		       x->total_words != y->total_words || x->energy_source != y->energy_source;
		for (o = 0; o < MODEL_OP_COUNT; o++)
			bad += x->op_energy_pj[o] != y->op_energy_pj[o];
	}
	return bad;
}

/*
 * model_ws_reuse(): one workspace's memory prepared for design after design
 * (dense, spatial, sparse; presets and exact footprints) gives each the
 * results of a fresh workspace and keeps its memory; a reuse that fails
 * frees it and says why.
 */
static void test_reuse_designs(void)
{
	static struct tb designs[3];
	static const char *const presets[] = { NULL, "horowitz45", NULL, "accelergy45" };
	static const unsigned order[] = { 0, 1, 2, 0, 2, 1, 1, 0 };
	struct strbuf err = STRBUF_INIT;
	struct model_ws *ws = NULL, *first = NULL, *fresh;
	unsigned i, k, bad = 0, moved = 0, evaluated = 0;
	struct rng r;

	rng_seed(&r, 7);
	tb_mini(&designs[0]);
	tb_simple_weight_stationary(&designs[1]);
	tb_spmspm(&designs[2]);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&designs[2]), 0);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct tb *d = &designs[order[i]];
		struct model_options opt = MODEL_OPTIONS_INIT;

		opt.energy_preset = presets[i % 4];
		if (i == 5)
			opt.footprint = MODEL_FOOTPRINT_EXACT;
		ws = model_ws_reuse(ws, &d->s, &opt, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
		if (!first)
			first = ws;
		moved += ws != first;
		CU_ASSERT_PTR_EQUAL(model_ws_spec(ws), &d->s);
		fresh = model_ws_new(&d->s, &opt, NULL);
		/* cleared only where the last design wrote: still all as a fresh one's */
		CU_ASSERT(!memcmp(ws->proj, fresh->proj, sizeof(ws->proj)));
		CU_ASSERT(!memcmp(ws->tile_ext, fresh->tile_ext, sizeof(ws->tile_ext)));
		model_eval(ws, &d->m, &a_);   /* the design's mapping, later a random one */
		model_eval(fresh, &d->m, &b_);
		bad += result_diffs(&a_, &b_);
		for (k = 0; k < 12; k++) {   /* mapping after mapping, whatever the last design left */
			ws = model_ws_reuse(ws, &d->s, &opt, NULL);
			CU_ASSERT_EQUAL_FATAL(tb_random_mapping(d, &r), 0);
			model_eval(ws, &d->m, &a_);
			model_eval(fresh, &d->m, &b_);
			bad += result_diffs(&a_, &b_);
			evaluated += a_.status == EVAL_OK;
			ws = model_ws_reuse(ws, &designs[(order[i] + 1) % 3].s, NULL, NULL);
			model_eval(ws, &designs[(order[i] + 1) % 3].m, &a_);
		}
		model_ws_free(fresh);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(evaluated > 20);
	CU_ASSERT_EQUAL(moved, 0);   /* the same memory throughout */
	{
		struct model_options opt = MODEL_OPTIONS_INIT;
		opt.energy_preset = "accelergy99";
		CU_ASSERT_PTR_NULL(model_ws_reuse(ws, &designs[0].s, &opt, &err));   /* ws freed */
		CU_ASSERT_STRING_EQUAL(err.buf, "unknown energy preset 'accelergy99'");
	}
	strbuf_release(&err);
}

/*
 * A sparse spMspM design: A of density 'a', formats at both levels, a
 * gating; BackingStorage holds 1024 x 4 bits of metadata.
 */
static void sparse_design(struct tb *b, double a)
{
	struct spec_level *bs;

	tb_spmspm(b);
	bs = &b->levels[1];
	bs->metadata_storage_depth = bs->metadata_size_words = 1024;
	bs->metadata_size_bits = bs->effective_metadata_size_bits = 4096;
	tb_density(b, "A", a);
	tb_format(b, 1, "A", "UOP UOP UOP CP");
	tb_format(b, 1, "B", "UOP UOP UOP UOP CP");
	tb_format(b, 0, "B", "UOP UOP CP");
	tb_saf(b, 0, SPEC_SAF_GATING, "Z", "A B");
	if (tb_finish(b) < 0)
		BUG("sparse design: factors do not multiply out");
}

/*
 * Two sparse designs that differ only in a density (same tiles, same
 * formats) alternately in one workspace, first with their own mapping, then
 * with random ones: each evaluation gives a fresh workspace's result, so
 * nothing the sparse analysis keeps from one evaluation to the next
 * (occupancies by tile) outlives its design or its mapping.
 */
static void test_reuse_sparse_designs(void)
{
	static struct tb designs[2];
	struct model_ws *ws = NULL, *fresh;
	double energy[2];
	unsigned i, d, l, pv, bad = 0, evaluated = 0;
	struct rng r;

	rng_seed(&r, 28);
	sparse_design(&designs[0], 0.25);
	sparse_design(&designs[1], 0.375);
	for (i = 0; i < 40; i++) {
		d = (i / 4) % 2;   /* four mappings of one design, then four of the other */
		if (i % 4 == 0)
			ws = model_ws_reuse(ws, &designs[d].s, NULL, NULL);
		else
			CU_ASSERT_EQUAL_FATAL(tb_random_mapping(&designs[d], &r), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
		fresh = model_ws_new(&designs[d].s, NULL, NULL);
		evaluated += model_eval(ws, &designs[d].m, &a_) == 0;
		model_eval(fresh, &designs[d].m, &b_);
		model_ws_free(fresh);
		bad += result_diffs(&a_, &b_);
		for (l = 0; l < a_.n_levels && a_.status == EVAL_OK; l++)
			for (pv = 0; pv < a_.n_tensors; pv++)
				bad += a_.tiles[l][pv].expected_occupancy !=
				       b_.tiles[l][pv].expected_occupancy ||
				       a_.tiles[l][pv].utilized_capacity !=
				       b_.tiles[l][pv].utilized_capacity;
		if (i == 0 || i == 4) {   /* A at BackingStorage: 64 points at 0.25 or 0.375 */
			CU_ASSERT_EQUAL_FATAL(a_.status, EVAL_OK);
			CU_ASSERT_DOUBLE_EQUAL(a_.tiles[1][0].expected_occupancy,
					       d ? 24.0 : 16.0, 1e-9);
			energy[d] = a_.energy_pj;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(evaluated > 30);
	CU_ASSERT(energy[0] != energy[1]);   /* the densities matter */
	model_ws_free(ws);
}

/* A copy reports exactly what the original does. */
static void test_copy(void)
{
	static struct model_result copy;
	struct model_ws *ws;
	unsigned l;

	tb_simple_weight_stationary(&tb_);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &a_), 0);
	memset(&copy, 0xa5, sizeof(copy));
	model_result_copy(&copy, &a_);
	CU_ASSERT_EQUAL(memcmp(&copy, &a_, offsetof(struct model_result, levels)), 0);
	for (l = 0; l < a_.n_levels; l++) {
		CU_ASSERT_EQUAL(memcmp(&copy.levels[l], &a_.levels[l], sizeof(a_.levels[l])), 0);
		CU_ASSERT_EQUAL(memcmp(copy.tiles[l], a_.tiles[l], 3 * sizeof(a_.tiles[l][0])), 0);
	}
	CU_ASSERT_DOUBLE_EQUAL(copy.energy_pj, 151669736.15, 0.01);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "copying a result", test_copy },
	{ "options", test_options },
	{ "names", test_names },
	{ "a workspace is reusable", test_reuse },
	{ "a workspace's memory serves other designs", test_reuse_designs },
	{ "sparse designs in turn in one workspace", test_reuse_sparse_designs },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ws", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
