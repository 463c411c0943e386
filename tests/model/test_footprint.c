/*
 * model/footprint.c and model/exact.c: Timeloop's convex-hull footprints
 * (holes counted) against exact ones, for tile sizes (model_tile_words, which
 * the mapper's pre-check uses too) and deltas.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;

/* Inputs[C][2*P + R], Weights[C][R], Outputs[P]: a stride-2 convolution. */
static struct model_ws *strided(enum model_footprint mode)
{
	struct model_options opt = MODEL_OPTIONS_INIT;

	tb_init(&tb_);
	tb_dim(&tb_, "C", 8);
	tb_dim(&tb_, "R", 3);
	tb_dim(&tb_, "P", 32);
	tb_tensor(&tb_, "Inputs", false, "C,R+2*P");
	tb_tensor(&tb_, "Weights", false, "C,R");
	tb_tensor(&tb_, "Outputs", true, "P");
	tb_compute(&tb_, "mac", 1, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_ert(&tb_, -1, "compute=1");
	tb_ert(&tb_, 0, "read=1 write=1");
	tb_temporal(&tb_, 0, "C8 R3 P32", "CRP");
	if (tb_finish(&tb_) < 0)
		BUG("strided");
	opt.footprint = mode;
	return model_ws_new(&tb_.s, &opt, NULL);
}

static void test_sizes(void)
{
	static const struct {
		uint64_t c, r, p;         /* op-space extents */
		uint64_t hull, exact;     /* Inputs points */
	} rows[] = {
		{ 1, 1, 1, 1, 1 },
		{ 1, 1, 8, 15, 8 },       /* R = 1: every other column */
		{ 8, 1, 8, 120, 64 },
		{ 1, 2, 8, 16, 16 },      /* R = 2 fills the gaps */
		{ 1, 3, 8, 17, 17 },
		{ 2, 3, 32, 130, 130 },
	};
	struct model_ws *hull = strided(MODEL_FOOTPRINT_TIMELOOP);
	struct model_ws *exact = strided(MODEL_FOOTPRINT_EXACT);
	static const int64_t lo[SPEC_MAX_DIMS];
	unsigned i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t ext[SPEC_MAX_DIMS] = { rows[i].c, rows[i].r, rows[i].p };
		CU_ASSERT_EQUAL(model_fp_size(hull, 0, lo, ext), rows[i].hull);
		CU_ASSERT_EQUAL(model_fp_size(exact, 0, lo, ext), rows[i].exact);
		CU_ASSERT_EQUAL(model_tile_words(hull, 0, ext), rows[i].hull);
		CU_ASSERT_EQUAL(model_tile_words(exact, 0, ext), rows[i].exact);
	}
	model_ws_free(hull);
	model_ws_free(exact);
}

/*
 * model_tile_words on T[cp*P + cr*R][Q] (Q extent 7): strides and
 * dilations, a negative coefficient; the hull counts holes, exact does not.
 */
static void test_tile_words(void)
{
	static const struct {
		int64_t coef_p, coef_r;
		uint64_t p, r;            /* op-space extents */
		uint64_t hull, exact;     /* points of rank 0 (times 7 for Q) */
	} rows[] = {
		{ 1, 1, 1, 1, 1, 1 },
		{ 1, 1, 4, 3, 6, 6 },
		{ 2, 1, 4, 3, 9, 9 },
		{ 2, 1, 112, 3, 225, 225 },
		{ 1, 2, 5, 3, 9, 9 },
		{ -1, 1, 4, 3, 6, 6 },
		{ 2, 1, 4, 1, 7, 4 },     /* stride 2, R = 1: every other point */
		{ 3, 1, 4, 2, 11, 8 },    /* stride 3 over a window of 2 */
		{ 1, -4, 2, 3, 10, 6 },   /* dilation -4: {p - 4r} */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_options opt = MODEL_OPTIONS_INIT;
		uint64_t ext[SPEC_MAX_DIMS] = { rows[i].p, rows[i].r, 7 };
		struct model_ws *hull, *exact;

		tb_init(&tb_);
		tb_dim(&tb_, "P", 112);
		tb_dim(&tb_, "R", 3);
		tb_dim(&tb_, "Q", 7);
		tb_tensor(&tb_, "T", false, "P+R,Q");
		tb_.tensors[0].ranks[0].terms[0].coef = rows[i].coef_p;
		tb_.tensors[0].ranks[0].terms[1].coef = rows[i].coef_r;
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "buf", 0, 16, 16, 1, 1);
		tb_temporal(&tb_, 0, "P112 R3 Q7", "PRQ");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		hull = model_ws_new(&tb_.s, &opt, NULL);
		opt.footprint = MODEL_FOOTPRINT_EXACT;
		exact = model_ws_new(&tb_.s, &opt, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
		CU_ASSERT_EQUAL(model_tile_words(hull, 0, ext), rows[i].hull * 7);
		CU_ASSERT_EQUAL(model_tile_words(exact, 0, ext), rows[i].exact * 7);
		model_ws_free(hull);
		model_ws_free(exact);
	}
}

static void test_deltas(void)
{
	static const struct {
		uint64_t r, p;            /* extents of both tiles */
		int64_t shift_p;          /* the new tile is moved by this on P */
		uint64_t hull, exact;
	} rows[] = {
		{ 1, 4, 4, 7, 4 },        /* columns 8..14 after 0..6: no overlap */
		{ 1, 4, 2, 4, 2 },        /* 4..10 after 0..6: hull keeps 3 columns */
		{ 3, 4, 2, 4, 4 },        /* a full window: hull = exact */
		{ 1, 4, 0, 0, 0 },
	};
	struct model_ws *hull = strided(MODEL_FOOTPRINT_TIMELOOP);
	struct model_ws *exact = strided(MODEL_FOOTPRINT_EXACT);
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t ext[SPEC_MAX_DIMS] = { 1, rows[i].r, rows[i].p };
		int64_t old_lo[SPEC_MAX_DIMS] = { 0 }, new_lo[SPEC_MAX_DIMS] = { 0, 0, rows[i].shift_p };
		CU_ASSERT_EQUAL(model_fp_delta(hull, 0, new_lo, ext, old_lo, ext), rows[i].hull);
		CU_ASSERT_EQUAL(model_fp_delta(exact, 0, new_lo, ext, old_lo, ext), rows[i].exact);
	}
	model_ws_free(hull);
	model_ws_free(exact);
}

/* Hull extents per rank and negative coefficients. */
static void test_extents(void)
{
	struct model_ws *ws;
	uint64_t ext[SPEC_MAX_TENSOR_RANKS];
	uint64_t op[SPEC_MAX_DIMS] = { 2, 3, 5 };
	struct tbox b;
	int64_t lo[SPEC_MAX_DIMS] = { 1, 1, 1 };

	ws = strided(MODEL_FOOTPRINT_TIMELOOP);
	CU_ASSERT_EQUAL(model_proj_extents(&ws->proj[0], op, ext), 2 * 11);
	CU_ASSERT_EQUAL(ext[0], 2);
	CU_ASSERT_EQUAL(ext[1], 3 + 2 * 4);
	model_ws_free(ws);
	tb_init(&tb_);
	tb_dim(&tb_, "A", 4);
	tb_dim(&tb_, "B", 4);
	tb_dim(&tb_, "C", 4);
	tb_tensor(&tb_, "T", false, "A+3*B");
	tb_.tensors[0].ranks[0].terms[1].coef = -3;   /* A - 3B */
	tb_compute(&tb_, "mac", 1, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_temporal(&tb_, 0, "A4 B4 C4", "ABC");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	model_proj_box(&ws->proj[0], lo, op, &b);
	/* A in [1, 2], B in [1, 3]: A - 3B spans [1 - 9, 2 - 3] = [-8, -1] */
	CU_ASSERT_EQUAL(b.lo[0], -8);
	CU_ASSERT_EQUAL(b.ext[0], 8);
	CU_ASSERT_EQUAL(model_tbox_size(&b, 1), 8);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "tile sizes: hull and exact", test_sizes },
	{ "model_tile_words: strides, dilations, signs", test_tile_words },
	{ "deltas: hull and exact", test_deltas },
	{ "hull extents and boxes", test_extents },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "footprint", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
