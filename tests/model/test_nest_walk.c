/*
 * model/nest_walk.c: the general walk on residual iterations (imperfect
 * factorization, which the fast path hands over to it) and on link
 * transfers between mesh neighbours, buffers or MACs (semantics 2.3.1,
 * 2.4), where the fast path's closed form must give the same counts.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/rng.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

/*
 * A systolic pattern: R spatial over 3 PEs, P temporal above. PE r holds
 * Inputs column p + r; at the next p it needs p + r + 1, which its right
 * neighbour held one step before, so two of three PEs get their input over a
 * link and the buffer sends one word per step instead of three.
 */
static void test_link_transfers(void)
{
	struct model_options walk = MODEL_OPTIONS_INIT;
	struct model_ws *ws;
	const struct model_tile *buf, *reg;
	unsigned k;

	tb_init(&tb_);
	tb_dim(&tb_, "R", 3);
	tb_dim(&tb_, "P", 8);
	tb_tensor(&tb_, "Inputs", false, "P+R");
	tb_tensor(&tb_, "Weights", false, "R");
	tb_tensor(&tb_, "Outputs", true, "P");
	tb_compute(&tb_, "mac", 3, 1);
	tb_level(&tb_, "reg", 4, 16, 16, 3, 1);
	tb_level(&tb_, "buf", 256, 16, 16, 1, 1);
	tb_keep(&tb_, 0, "Inputs Weights Outputs");
	tb_spatial(&tb_, 1, "R3", "R", 1);
	tb_temporal(&tb_, 1, "P8", "P");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	walk.no_fast_path = true;
	for (k = 0; k < 2; k++) {   /* the fast path's closed form, then the walk */
		ws = model_ws_new(&tb_.s, k ? &walk : NULL, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT_EQUAL(res_.nest_walked, k == 1);
		buf = &res_.tiles[1][0];
		reg = &res_.tiles[0][0];
		/* first step: 3 words to 3 PEs; the 7 (extrapolated) next steps: 1 each */
		CU_ASSERT_EQUAL(buf->reads, 3 + 7);
		CU_ASSERT_DOUBLE_EQUAL(buf->link_transfers, 14, 1e-9);
		/* 2 PEs x 7 steps over links, shared by the 3 PEs as peer fills */
		CU_ASSERT_DOUBLE_EQUAL(reg->peer_fills, 14.0 / 3.0, 1e-9);
		CU_ASSERT_EQUAL(reg->fills, (uint64_t)(10.0 / 3.0 + 14.0 / 3.0));
		/* Weights (R) stay put: one fill per PE; Outputs (P) are multicast? no:
		 * every PE updates the same output, a spatial reduction */
		CU_ASSERT_EQUAL(res_.tiles[1][1].reads, 3);
		model_ws_free(ws);
	}
}

/* The same with no_link_transfer: three words per step from the buffer. */
static void test_no_link_transfer(void)
{
	struct model_ws *ws;

	tb_.m.levels[1].no_link_transfer_mask = 1u << 0;
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_FALSE(res_.nest_walked);
	CU_ASSERT_EQUAL(res_.tiles[1][0].reads, 3 * 8);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][0].peer_fills, 0, 1e-9);
	model_ws_free(ws);
}

/*
 * A buffer directly above 4 MACs: dims d0 (n0) and d1 (n1), a read-only A
 * and a read-write Z, 'spatial' factors over the MACs (permutation
 * 'sperm'), 'temporal' factors above them (permutation 'tperm').
 */
static void mac_links_design(const char *d0, uint64_t n0, const char *d1, uint64_t n1,
			     const char *a, const char *z, const char *spatial,
			     const char *sperm, const char *temporal, const char *tperm)
{
	tb_init(&tb_);
	tb_dim(&tb_, d0, n0);
	tb_dim(&tb_, d1, n1);
	tb_tensor(&tb_, "A", false, a);
	tb_tensor(&tb_, "Z", true, z);
	tb_compute(&tb_, "mac", 4, 1);
	tb_level(&tb_, "buf", 256, 16, 16, 1, 1);
	tb_keep(&tb_, 0, "A Z");
	tb_spatial(&tb_, 0, spatial, sperm, 2);
	tb_temporal(&tb_, 0, temporal, tperm);
	if (tb_finish(&tb_) < 0)
		BUG("mac links design");
}

/*
 * Links between MACs with no storage of their own (semantics 2.4; the 2024
 * tutorial's design): Timeloop compares each MAC's operation point with its
 * neighbours' previous points. A[K] under M4 over the MACs, M2 then K4
 * above: the 8 calls alternate an M step (A's point does not move: all 4
 * MACs take it over the links) and a K step (a new A: one multicast read),
 * so the buffer reads A 1 + 3 = 4 times, not 8, and 4 x 4 words go over
 * links. Z[M] moves by 4 or -4 between calls, never by a neighbour's 1: 32
 * updates. The fast path and the walk agree; no_link_transfer restores 8.
 */
static void test_mac_links(void)
{
	struct model_options walk = MODEL_OPTIONS_INIT;
	struct model_ws *ws;
	unsigned k;

	walk.no_fast_path = true;
	mac_links_design("M", 8, "K", 4, "K", "M", "M4", "MK", "M2 K4", "MK");
	for (k = 0; k < 2; k++) {
		ws = model_ws_new(&tb_.s, k ? &walk : NULL, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT_EQUAL(res_.nest_walked, k == 1);
		CU_ASSERT_EQUAL(res_.tiles[0][0].reads, 4);
		CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][0].link_transfers, 16, 1e-9);
		CU_ASSERT_EQUAL(res_.tiles[0][1].updates, 32);
		CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][1].link_transfers, 0, 1e-9);
		model_ws_free(ws);
	}
	tb_.m.levels[0].no_link_transfer_mask = 1u << 0;
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(res_.tiles[0][0].reads, 8);
	model_ws_free(ws);
}

/*
 * A systolic window over MACs: A[P+R] under R3 over the MACs and P8 above.
 * MAC r needs column p + r; at p + 1 MACs 0 and 1 find theirs at their
 * right neighbour's previous point, MAC 2 does not: 3 words for the first
 * step, 1 for each of the 7 others. The fast path and the walk agree.
 */
static void test_mac_links_window(void)
{
	struct model_options walk = MODEL_OPTIONS_INIT;
	struct model_ws *ws;
	unsigned k;

	walk.no_fast_path = true;
	mac_links_design("R", 3, "P", 8, "P+R", "P", "R3", "RP", "P8", "RP");
	for (k = 0; k < 2; k++) {
		ws = model_ws_new(&tb_.s, k ? &walk : NULL, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT_EQUAL(res_.nest_walked, k == 1);
		CU_ASSERT_EQUAL(res_.tiles[0][0].reads, 3 + 7);
		CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][0].link_transfers, 2 * 7, 1e-9);
		model_ws_free(ws);
	}
}

/*
 * Timeloop head's stride-change rule (its translation fix, PR #297): a zero
 * translation does not replace the remembered one. The buffer's window of
 * A[P+R] is 4 wide (P2 R3); above it M2 (which leaves A in place) runs
 * inside P4 (which slides the window by 2). The P steps follow M steps, yet
 * each fetches only its 2 new words: 4 + 3 x 2 = 10 fills. (The rule before
 * the fix refetched the window at every P step: 4 + 3 x 4 = 16, as in
 * the ISPASS 2020 intmac reference.) The fast path and the walk agree.
 */
static void test_slide_over_zero_translations(void)
{
	struct model_options walk = MODEL_OPTIONS_INIT;
	struct model_ws *ws;
	unsigned k;

	walk.no_fast_path = true;
	tb_init(&tb_);
	tb_dim(&tb_, "M", 2);
	tb_dim(&tb_, "P", 8);
	tb_dim(&tb_, "R", 3);
	tb_tensor(&tb_, "A", false, "P+R");
	tb_tensor(&tb_, "Z", true, "M,P");
	tb_compute(&tb_, "mac", 1, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_level(&tb_, "dram", 0, 64, 16, 1, 1);
	tb_keep(&tb_, 0, "A Z");
	tb_keep(&tb_, 1, "A Z");
	tb_temporal(&tb_, 0, "R3 P2", "RP");
	tb_temporal(&tb_, 1, "M2 P4", "MP");
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	for (k = 0; k < 2; k++) {
		ws = model_ws_new(&tb_.s, k ? &walk : NULL, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT_EQUAL(res_.tiles[0][0].shape, 4);
		CU_ASSERT_EQUAL(res_.tiles[0][0].fills, 10);
		CU_ASSERT_EQUAL(res_.tiles[1][0].reads, 10);
		model_ws_free(ws);
	}
}

/*
 * A dot product K = 10 as K3 (buffer) over K4 with a residual of 2 (the
 * register): 4 + 4 + 2 computes; the register tile is 4 words at most.
 * Counted exactly, the buffer sends the register 4 + 4 + 2 = 10 words and
 * the computes take 10 cycles. Timeloop's extrapolation (the option) counts
 * the last (2-word) tile's delivery as another middle one (semantics 2.3.1:
 * its delta is merged into the middle entry), so the buffer reads 4 + 2 x 4
 * = 12 words, and the cycles are the product of the temporal loops, 12.
 */
static void test_residual(void)
{
	static const struct {
		enum model_imperfect mode;
		uint64_t buf_reads, cycles;
	} rows[] = {
		{ MODEL_IMPERFECT_EXACT, 10, 10 },
		{ MODEL_IMPERFECT_TIMELOOP, 12, 12 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_options opt = MODEL_OPTIONS_INIT;
		struct model_ws *ws;
		tb_init(&tb_);
		tb_dim(&tb_, "K", 10);
		tb_dim(&tb_, "M", 1);
		tb_tensor(&tb_, "A", false, "K");
		tb_tensor(&tb_, "B", false, "K");
		tb_tensor(&tb_, "Z", true, "M");
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "reg", 16, 16, 16, 1, 1);
		tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
		tb_keep(&tb_, 0, "A B Z");
		tb_temporal(&tb_, 0, "K4,2", "K");
		tb_temporal(&tb_, 1, "K3", "K");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		opt.imperfect = rows[i].mode;
		ws = model_ws_new(&tb_.s, &opt, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT(res_.nest_walked);
		CU_ASSERT_EQUAL(res_.compute.algorithmic, 10);
		CU_ASSERT_EQUAL(res_.tiles[0][0].shape, 4);
		CU_ASSERT_EQUAL(res_.tiles[0][0].reads, 10);
		CU_ASSERT_EQUAL(res_.tiles[1][0].reads, rows[i].buf_reads);
		CU_ASSERT_EQUAL(res_.tiles[0][0].fills, rows[i].buf_reads);
		CU_ASSERT_EQUAL(res_.tiles[1][0].shape, 10);
		CU_ASSERT_EQUAL(res_.compute.cycles, rows[i].cycles);
		model_ws_free(ws);
	}
}

/*
 * Random imperfect factorizations: computes always add up to the problem.
 * Counted exactly, the buffer delivers every word of B once (k words);
 * with Timeloop's extrapolation it delivers the first tile, then the middle
 * tile for every later iteration (the residual one included) when there
 * are at least 3, else the residual tile itself.
 */
static void test_residual_invariants(void)
{
	static const uint64_t bounds[] = { 7, 10, 13, 18 };
	struct rng r;
	unsigned i;

	rng_seed(&r, 7);
	for (i = 0; i < 200; i++) {
		uint64_t k = bounds[rng_below(&r, ARRAY_SIZE(bounds))];
		uint64_t inner = 2 + rng_below(&r, 4), outer = (k + inner - 1) / inner;
		uint64_t res = k - (outer - 1) * inner;
		struct model_options opt = MODEL_OPTIONS_INIT;
		bool timeloop = i % 2;
		char f[32];
		struct model_ws *ws;
		tb_init(&tb_);
		tb_dim(&tb_, "K", k);
		tb_dim(&tb_, "M", 3);
		tb_tensor(&tb_, "A", false, "K,M");
		tb_tensor(&tb_, "B", false, "K");
		tb_tensor(&tb_, "Z", true, "M");
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "reg", 64, 16, 16, 1, 1);
		tb_level(&tb_, "buf", 256, 16, 16, 1, 1);
		tb_keep(&tb_, 0, "A B Z");
		snprintf(f, sizeof(f), "K%llu,%llu M3", (unsigned long long)inner,
			 (unsigned long long)res);
		tb_temporal(&tb_, 0, f, rng_below(&r, 2) ? "KM" : "MK");
		snprintf(f, sizeof(f), "K%llu", (unsigned long long)outer);
		tb_temporal(&tb_, 1, f, "K");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		opt.imperfect = timeloop ? MODEL_IMPERFECT_TIMELOOP : MODEL_IMPERFECT_EXACT;
		ws = model_ws_new(&tb_.s, &opt, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
		CU_ASSERT_EQUAL(res_.compute.algorithmic, 3 * k);
		CU_ASSERT_EQUAL(res_.tiles[0][1].reads, 3 * k);      /* B at the register */
		if (timeloop)
			CU_ASSERT_EQUAL(res_.tiles[1][1].reads,
					outer >= 3 ? outer * inner : outer == 2 ? inner + res : res)
		else
			CU_ASSERT_EQUAL(res_.tiles[1][1].reads, k);
		model_ws_free(ws);
	}
}

static CU_TestInfo tests[] = {
	{ "link transfers between neighbours", test_link_transfers },
	{ "no_link_transfer", test_no_link_transfer },
	{ "links between MACs without storage", test_mac_links },
	{ "a sliding window over MACs", test_mac_links_window },
	{ "a window sliding over zero translations", test_slide_over_zero_translations },
	{ "a residual iteration", test_residual },
	{ "random residuals add up", test_residual_invariants },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "nest_walk", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
