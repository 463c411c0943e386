/*
 * model/per_call.c: what a call costs beyond the kernel, device and host.
 */
#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

/*
 * Z[M,N] = A[M,K] B[K,N], M4 N4 K8, on one MAC under a buffer holding
 * everything, under DRAM at 2 16-bit words a cycle: 128 computes in 128
 * cycles (DRAM's 80 words need 40).
 */
static void gemm(void)
{
	struct spec_level *dram;

	tb_init(&tb_);
	tb_dim(&tb_, "M", 4);
	tb_dim(&tb_, "N", 4);
	tb_dim(&tb_, "K", 8);
	tb_tensor(&tb_, "A", false, "M,K");
	tb_tensor(&tb_, "B", false, "K,N");
	tb_tensor(&tb_, "Z", true, "M,N");
	tb_compute(&tb_, "mac", 1, 1);
	tb_ert(&tb_, -1, "compute=1");
	tb_level(&tb_, "Buf", 128, 16, 16, 1, 1);
	dram = tb_level(&tb_, "DRAM", 0, 16, 16, 1, 1);
	dram->has_shared_bw = true;
	dram->shared_bw_words_per_cycle = 2;
	tb_ert(&tb_, 0, "read=1 write=1 update=1");
	tb_ert(&tb_, 1, "read=10 write=10 update=10");
	tb_keep(&tb_, 0, "A B Z");
	tb_keep(&tb_, 1, "A B Z");
	tb_temporal(&tb_, 0, "K8 N4 M4", "KNM");
	tb_temporal(&tb_, 1, "K1 N1 M1", "KNM");
	if (tb_finish(&tb_) < 0)
		BUG("gemm");
}

static void evaluate(void)
{
	struct model_ws *ws = model_ws_new(&tb_.s, NULL, NULL);
	if (model_eval(ws, &tb_.m, &res_) < 0)
		BUG("gemm evaluates");
	model_ws_free(ws);
}

/*
 * At 100 MHz DRAM moves 400 bytes a microsecond and the MAC 200 flops.
 * The kernel's 128 cycles are 1.28 us. Copying B (32 words, 64 bytes)
 * reads and writes it: 0.32 us; compressing A, stored dense here, reads 64
 * bytes and writes 64: 0.32 us. Two stages of 400 bytes take 1 us each; one
 * of 2000 flops and no bytes, 10 us at the MAC's peak. Six kernels launched
 * at 0.1 us: 0.6 us. The device: 1.28 + 0.6 + 0.32 + 0.32 + 12 = 14.52 us;
 * the host, 4 ops of 0.5 us and 1 us of setup: 3 us. A call takes the
 * longer; with 100 ops the host, 51 us.
 */
static void test_per_call(void)
{
	static const struct spec_per_call_stage stages[] = {
		{ "norm", 400, 0, 2 },
		{ "attention", 0, 2000, 1 },
	};
	struct spec_per_call *pc = &tb_.s.per_call;
	struct model_per_call c;

	gemm();
	evaluate();
	CU_ASSERT_EQUAL_FATAL(res_.cycles, 128);
	model_per_call(&tb_.s, &res_, &c);
	CU_ASSERT_FALSE(c.present);                   /* no 'per_call': nothing */
	CU_ASSERT_DOUBLE_EQUAL(c.call_us, 0, 1e-12);

	pc->present = true;
	pc->clock_mhz = 100;
	pc->host_us = 0.5;
	pc->ops = 4;
	pc->setup_us = 1;
	pc->launch_us = 0.1;
	pc->copy_mask = 1u << 1;                      /* B */
	pc->compress_mask = 1u << 0;                  /* A */
	pc->stages = stages;
	pc->n_stages = ARRAY_SIZE(stages);
	model_per_call(&tb_.s, &res_, &c);
	CU_ASSERT_TRUE(c.present);
	CU_ASSERT_DOUBLE_EQUAL(c.kernel_us, 1.28, 1e-9);
	CU_ASSERT_EQUAL(c.kernels, 6);
	CU_ASSERT_DOUBLE_EQUAL(c.launch_us, 0.6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.copy_us, 0.32, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.compress_us, 0.32, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.stages_us, 12, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.device_us, 14.52, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.host_us, 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.call_us, 14.52, 1e-9);

	pc->ops = 100;
	model_per_call(&tb_.s, &res_, &c);
	CU_ASSERT_DOUBLE_EQUAL(c.host_us, 51, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.call_us, 51, 1e-9);
	CU_ASSERT_EQUAL(res_.cycles, 128);            /* the kernel is never changed */
}

static CU_TestInfo tests[] = {
	{ "device and host time of a call", test_per_call },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "per_call", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
