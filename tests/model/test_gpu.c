/*
 * model/gpu.c: the warps a level's tile is held by (warp_registers) and
 * the thread blocks' prologue and epilogue (serial_prologue_epilogue).
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;
static bool bitmask_a_;          /* gemm_gpu: A at the register file as a bitmask */

enum { A, B, Z };
enum { RF, SMEM, L2 };

/*
 * A GEMM Z[M,N] = A[M,K] B[K,N], M8 N8 K4, on a GPU-like design: 2 thread
 * block slots (SMEM, 1 at a time: 2 waves) over one MAC each, under an
 * unbounded L2 holding everything. Each block computes 4 rows of Z: its
 * register file holds the block's whole accumulator tile (4 x 8, 32-bit
 * words) and streams A (4 x 2) and B (2 x 8) over K2 of K4 (the block's
 * main loop: SMEM's 'smem_loops', K2). 'l2_loops' places the blocks: ""
 * spreads M2 over the slots, else L2's temporal loops run them one after
 * the other on one slot (the grid in chunks; split-K partial sums
 * revisited).
 */
static void gemm_gpu(uint64_t warp_registers, bool serial, const char *l2_loops,
		     const char *l2_perm, const char *smem_loops)
{
	struct spec_level *rf, *smem, *l2;
	bool spread = !*l2_loops;

	tb_init(&tb_);
	tb_dim(&tb_, "M", 8);
	tb_dim(&tb_, "N", 8);
	tb_dim(&tb_, "K", 4);
	tb_tensor(&tb_, "A", false, "M,K");
	tb_tensor(&tb_, "B", false, "K,N");
	tb_tensor(&tb_, "Z", true, "M,N");
	tb_compute(&tb_, "mac", 1, 2);
	tb_ert(&tb_, -1, "compute=1");
	rf = tb_level(&tb_, "RF", 256, 32, 32, 1, 2);
	rf->warp_registers = warp_registers;
	rf->fill_latency_cycles = 2;
	smem = tb_level(&tb_, "SMEM", 1000, 32, 32, 1, 2);
	smem->concurrent_instances = 1;
	smem->fill_latency_cycles = 10;
	smem->serial_prologue_epilogue = serial;
	smem->has_shared_bw = true;
	smem->shared_bw_words_per_cycle = 4;
	l2 = tb_level(&tb_, "L2", 0, 32, 32, 1, 1);
	(void)l2;
	tb_ert(&tb_, RF, "read=1 write=1 update=1");
	tb_ert(&tb_, SMEM, "read=2 write=2 update=2");
	tb_ert(&tb_, L2, "read=10 write=10 update=10");
	tb_keep(&tb_, RF, "A B Z");
	tb_keep(&tb_, SMEM, "A B");
	tb_keep(&tb_, L2, "A B Z");
	tb_temporal(&tb_, RF, "M4 N8 K2", "KNM");
	tb_temporal(&tb_, SMEM, smem_loops, "KMN");
	if (spread) {
		tb_spatial(&tb_, L2, "M2", "M", 0);
		tb_temporal(&tb_, L2, "M1 N1 K1", "MNK");
	} else {
		tb_temporal(&tb_, L2, l2_loops, l2_perm);
	}
	if (bitmask_a_)
		tb_format(&tb_, RF, "A", "bitmask");
	if (tb_finish(&tb_) < 0)
		BUG("gemm_gpu");
}

static int evaluate(void)
{
	struct model_ws *ws = model_ws_new(&tb_.s, NULL, NULL);
	int rc = model_eval(ws, &tb_.m, &res_);
	model_ws_free(ws);
	return rc;
}

/*
 * Warps: a register file tile of 32 accumulators with A (8 words) and B
 * (16 words) double-buffered needs 32 + 2 x (8 + 16) = 80 registers of
 * 32-bit words. A block streams A 4 x 2 x K2 = 16 words and B 32 into it.
 * The cheapest split that fits is kept: N2 (48 registers) repeats A (16
 * more reads at SMEM), M2 (56) would repeat B (32); at 20 registers only
 * M2 x N4 fits cheaply (4 + 2 x (4 + 4)), repeating A 3 times and B once.
 */
static void test_warps(void)
{
	static const struct {
		uint64_t regs;
		uint64_t warps;
		uint64_t a_reads, b_reads;       /* SMEM's reads into the register file */
	} cases[] = {
		{ 0, 0, 16, 32 },                  /* no warps modelled: one reader per tile */
		{ 80, 1, 16, 32 },                 /* the tile fits one warp */
		{ 64, 2, 32, 32 },                 /* N2 (48) and M2 (56) fit: N2 adds 16, M2 32 */
		{ 48, 2, 32, 32 },
		{ 20, 8, 64, 64 },                 /* M2 N4: A x 4, B x 2 */
		{ 9, 32, 128, 128 },               /* M4 N8, one accumulator a warp: 1 + 2 x 4 */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		gemm_gpu(cases[i].regs, false, "", "", "K2 M1 N1");
		CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
		CU_ASSERT_EQUAL(res_.levels[RF].warps, cases[i].warps);
		CU_ASSERT_EQUAL(res_.tiles[SMEM][A].reads, cases[i].a_reads);
		CU_ASSERT_EQUAL(res_.tiles[SMEM][B].reads, cases[i].b_reads);
		CU_ASSERT_EQUAL(res_.tiles[RF][A].fills, cases[i].a_reads);
		CU_ASSERT_EQUAL(res_.tiles[RF][B].fills, cases[i].b_reads);
		CU_ASSERT_EQUAL(res_.tiles[SMEM][A].actions[MODEL_OP_RANDOM_READ], cases[i].a_reads);
		CU_ASSERT_EQUAL(res_.tiles[RF][B].actions[MODEL_OP_RANDOM_FILL], cases[i].b_reads);
	}
	gemm_gpu(8, false, "", "", "K2 M1 N1");  /* 1 + 2 x (2 + 2) = 9 at the finest split */
	CU_ASSERT_EQUAL(evaluate(), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_OVER_CAPACITY);
	CU_ASSERT_EQUAL(res_.fail_level, RF);
	CU_ASSERT_STRING_EQUAL(res_.reason, "no split of the tile of 'RF' into warps of at most 8 "
			       "registers fits");
}

/*
 * A compressed operand's format is double-buffered in the warps' registers
 * beside its values (CUTLASS's 2:4 main loop holds two E fragments): A at
 * the register file as a bitmask (a bit for each of its 8 values) adds two
 * copies of its bits a warp, under a register, so the 80 registers that
 * held the whole tile no longer do, and the tile splits as at 64 (N2: A
 * read twice). At 81 one warp fits again.
 */
static void test_warps_format(void)
{
	static const struct {
		uint64_t regs, warps, a_reads;
	} cases[] = {
		{ 80, 2, 32 },
		{ 81, 1, 16 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bitmask_a_ = true;
		gemm_gpu(cases[i].regs, false, "", "", "K2 M1 N1");
		bitmask_a_ = false;
		CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
		CU_ASSERT_EQUAL(res_.levels[RF].warps, cases[i].warps);
		CU_ASSERT_EQUAL(res_.tiles[SMEM][A].reads, cases[i].a_reads);
	}
}

/*
 * Prologue and epilogue: each block waits SMEM's 10 and RF's 2 cycles for
 * its first tiles, and drains its 4 x 8 output through SMEM at 4 words a
 * cycle, written and read: 16 cycles. Its 4 x 8 x 4 = 128 computes take
 * 128 cycles; SMEM's 96 words (A, B filled and read) need 24, and its fill
 * latency, one fill of 48 words with 20 stages, needs 10 + ceil(10 / 19) =
 * 11 a wave (1 when the first fill is the prologue's): neither binds. Two
 * waves: 256 cycles, plus 2 x 28 serial.
 */
static void test_prologue_epilogue(void)
{
	gemm_gpu(0, false, "", "", "K2 M1 N1");
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.compute.waves, 2);
	CU_ASSERT_EQUAL(res_.compute.cycles, 256);
	CU_ASSERT_EQUAL(res_.compute.prologue_cycles, 0);
	CU_ASSERT_EQUAL(res_.compute.epilogue_cycles, 0);
	CU_ASSERT_EQUAL(res_.levels[SMEM].latency_cycles, 2 * 11);
	CU_ASSERT_EQUAL(res_.cycles, 256);

	gemm_gpu(0, true, "", "", "K2 M1 N1");
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.compute.block_tiles, 1);
	CU_ASSERT_EQUAL(res_.compute.prologue_cycles, 12);
	CU_ASSERT_EQUAL(res_.compute.epilogue_cycles, 16);
	CU_ASSERT_EQUAL(res_.levels[SMEM].latency_cycles, 2 * 1);   /* the first fill left out */
	CU_ASSERT_EQUAL(res_.cycles, 256 + 2 * (12 + 16));
}

/*
 * The output tiles a block slot works through: L2's temporal loops from
 * the innermost over M or N outwards. M2 at L2 runs both blocks on one
 * slot (2 tiles, one wave); K2 inside it is part of each block's main loop
 * (still 2); K2 outside it revisits both tiles for the second half of K,
 * each visit a block of its own (split-K partial sums: 4).
 */
static void test_block_tiles(void)
{
	static const struct {
		const char *loops, *perm, *smem;
		uint64_t tiles;
	} cases[] = {
		{ "M2 N1 K1", "MNK", "K2 M1 N1", 2 },
		{ "K2 M2 N1", "KMN", "K1 M1 N1", 2 },      /* K inside M: the main loop */
		{ "M2 K2 N1", "MKN", "K1 M1 N1", 4 },      /* K outside M: split-K */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		gemm_gpu(0, true, cases[i].loops, cases[i].perm, cases[i].smem);
		CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
		CU_ASSERT_EQUAL(res_.compute.waves, 1);
		CU_ASSERT_EQUAL(res_.compute.block_tiles, cases[i].tiles);
		CU_ASSERT_EQUAL(res_.compute.prologue_cycles, 12);
		CU_ASSERT_EQUAL(res_.compute.epilogue_cycles, 16);
		CU_ASSERT_EQUAL(res_.cycles, 256 + cases[i].tiles * (12 + 16));
	}
}

static CU_TestInfo tests[] = {
	{ "warps: the cheapest split that fits", test_warps },
	{ "warps: a compressed operand's format in registers", test_warps_format },
	{ "prologue and epilogue of each block", test_prologue_epilogue },
	{ "output tiles per block slot", test_block_tiles },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "gpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
