/*
 * model/check.c and model/eval.c: capacity and fan-out checks with their
 * messages (and model_check_capacity), vector accesses, cluster energy,
 * address generations, bandwidth throttling and cycles (semantics 2.7,
 * 3.2-3.5); the 64-bit range of the counts (model_check_count_range, a
 * level's cycles).
 */
#include <stdio.h>
#include <string.h>

#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

enum { A, B, Z };

/* 01.2.1's dot product: K16 at a buffer of 'depth' x 'width' bits. */
static void dot_product(unsigned depth, unsigned width)
{
	struct spec_level *buf;

	tb_init(&tb_);
	tb_dim(&tb_, "K", 16);
	tb_dim(&tb_, "M", 1);
	tb_tensor(&tb_, "A", false, "K");
	tb_tensor(&tb_, "B", false, "K");
	tb_tensor(&tb_, "Z", true, "M");
	tb_compute(&tb_, "mac", 1, 1);
	tb_ert(&tb_, -1, "compute=0.315");
	buf = tb_level(&tb_, "Buffer", depth, width, 8, 1, 1);
	buf->has_read_bw = buf->has_write_bw = true;
	buf->read_bw_words_per_cycle = 3;
	buf->write_bw_words_per_cycle = 1;
	tb_ert(&tb_, 0, "write=1.88608 read=1.95808 leak=0.001606 update=1.88608");
	tb_temporal(&tb_, 0, "K16 M1", "KM");
	if (tb_finish(&tb_) < 0)
		BUG("dot product");
}

static int evaluate(void)
{
	struct model_ws *ws = model_ws_new(&tb_.s, NULL, NULL);
	int rc = model_eval(ws, &tb_.m, &res_);
	model_ws_free(ws);
	return rc;
}

/* 01.2.1's reference numbers: no throttling at read 3, write 1. */
static void test_dot_product(void)
{
	const struct model_tile *z;

	dot_product(64, 8);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	z = &res_.tiles[0][Z];
	CU_ASSERT_EQUAL(z->reads, 15);
	CU_ASSERT_EQUAL(z->updates, 16);
	CU_ASSERT_EQUAL(z->address_generations, 16);
	CU_ASSERT_DOUBLE_EQUAL(z->energy_pj, 15 * 1.95808 + 16 * 1.88608, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(z->energy_per_access_pj, (15 * 1.95808 + 16 * 1.88608) / 31, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(z->read_bw, 15.0 / 16, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(z->write_bw, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].slowdown, 1.0, 0);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 16);
	CU_ASSERT_EQUAL(res_.compute.cycles, 16);
	CU_ASSERT_DOUBLE_EQUAL(res_.compute.energy_pj, 16 * 0.315, 1e-12);
}

/* Read bandwidth 1: 47 words in 16 compute cycles throttle the buffer to 47. */
static void test_throttling(void)
{
	dot_product(64, 8);
	tb_.levels[0].read_bw_words_per_cycle = 1;
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].slowdown, 16.0 / 47, 1e-12);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 47);
	CU_ASSERT_EQUAL(res_.cycles, 47);
	/* reported bandwidths are the throttled ones */
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][A].read_bw, 16.0 / 47, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.utilization, 16.0 / 47, 1e-12);
	/* a shared bandwidth of 2 for 47 + 16 words throttles harder */
	tb_.levels[0].read_bw_words_per_cycle = 3;
	tb_.levels[0].has_shared_bw = true;
	tb_.levels[0].shared_bw_words_per_cycle = 2;
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 32);   /* ceil(16 / (2 / (63 / 16))) */
}

/* A 4-word block: every op is counted in vectors, ceil(count / 4). */
static void test_vector_accesses(void)
{
	dot_product(16, 32);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][A].energy_pj, 4 * 1.95808, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][Z].energy_pj, 4 * 1.95808 + 4 * 1.88608, 1e-9);
}

/* Capacity, utilization and fan-out failures say where and how much. */
static void test_failures(void)
{
	static const struct {
		unsigned depth;
		double min_util;
		enum model_status st;
		const char *reason;
	} rows[] = {
		{ 16, 0, EVAL_OVER_CAPACITY,
		  "tiles at 'Buffer' need 33 words (the largest, 'B', 16), it holds 16" },
		{ 64, 0.9, EVAL_UNDER_UTILIZATION,
		  "tiles at 'Buffer' use 33 of 64 words, under min_utilization 0.90" },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		dot_product(rows[i].depth, 8);
		tb_.levels[0].min_utilization = rows[i].min_util;
		CU_ASSERT_EQUAL(evaluate(), -1);
		CU_ASSERT_EQUAL(res_.status, rows[i].st);
		CU_ASSERT_EQUAL(res_.fail_level, 0);
		CU_ASSERT_EQUAL(res_.fail_tensor, B);
		CU_ASSERT_STRING_EQUAL(res_.reason, rows[i].reason);
	}
	/* 8 PEs of work on 4 MACs */
	dot_product(64, 8);
	tb_.s.arch.compute.instances = 4;
	tb_.s.arch.compute.mesh_x = 4;
	tb_.levels[0].fanout_x = 8;
	tb_.m.levels[0].has_spatial = true;
	tb_spatial(&tb_, 0, "K8", "K", 1);
	tb_temporal(&tb_, 0, "K2 M1", "KM");
	CU_ASSERT_EQUAL_FATAL(spec_mapping_derive(&tb_.m, &tb_.s.workload), 0);
	CU_ASSERT_EQUAL(evaluate(), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_FANOUT);
	CU_ASSERT_EQUAL(res_.fail_level, -1);
	CU_ASSERT_STRING_EQUAL(res_.reason, "'mac' needs 8 spatial instances (8x1), it has 4");
}

/* model_check_capacity: tile sizes and fan-outs only. */
static void test_check_capacity(void)
{
	struct model_ws *ws;

	dot_product(16, 8);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(model_check_capacity(ws, &tb_.m, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_OVER_CAPACITY);
	model_ws_free(ws);
	dot_product(64, 8);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(model_check_capacity(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(res_.status, EVAL_OK);
	model_ws_free(ws);
}

/*
 * Clusters (simba's PEWeightRegs): 8 instances in clusters of 4, all used:
 * 2 clusters, and the per-instance energy is the cluster's over 8/2.
 */
static void test_clusters(void)
{
	double one;

	tb_init(&tb_);
	tb_dim(&tb_, "K", 8);
	tb_tensor(&tb_, "A", false, "K");
	tb_compute(&tb_, "mac", 8, 1);
	tb_level(&tb_, "reg", 1, 16, 16, 8, 1);
	tb_level(&tb_, "buf", 64, 16, 16, 1, 1);
	tb_ert(&tb_, 0, "read=2 write=1");
	tb_ert(&tb_, 1, "read=1 write=1");
	tb_keep(&tb_, 0, "A");
	tb_spatial(&tb_, 1, "K8", "K", 1);
	CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	one = res_.tiles[0][0].energy_pj;
	CU_ASSERT_DOUBLE_EQUAL(one, 1 * 2 + 1 * 1, 1e-12);   /* 1 read, 1 fill */
	CU_ASSERT_EQUAL(res_.tiles[0][0].utilized_clusters, 8);
	tb_.levels[0].cluster_size = 4;
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.tiles[0][0].utilized_clusters, 2);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[0][0].energy_pj, one / 4, 1e-12);
}


/*
 * The design's factor of the count bound: 2 x (n_tensors + n_levels x
 * sum K_t), K_t the product of a tensor's coefficients; 0 (no shortcut)
 * when a dimension appears twice in a projection.
 */
static void test_count_range_factor(void)
{
	static const struct {
		const char *a_proj;
		double factor;
	} rows[] = {
		{ "K", 2 * (3 + 1 * (1 + 1 + 1)) },       /* the dot product: 12 */
		{ "3*K", 2 * (3 + 1 * (3 + 1 + 1)) },     /* a stride of 3: 16 */
		{ "K+2*M", 2 * (3 + 1 * (2 + 1 + 1)) },   /* a sum: K_A = 1 x 2 */
		{ "K,K", 0 },                             /* K twice */
		{ "K+K", 0 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_ws *ws;
		tb_init(&tb_);
		tb_dim(&tb_, "K", 16);
		tb_dim(&tb_, "M", 1);
		tb_tensor(&tb_, "A", false, rows[i].a_proj);
		tb_tensor(&tb_, "B", false, "K");
		tb_tensor(&tb_, "Z", true, "M");
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "Buffer", 0, 8, 8, 1, 1);
		tb_temporal(&tb_, 0, "K16 M1", "KM");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		ws = model_ws_new(&tb_.s, NULL, NULL);
		CU_ASSERT_DOUBLE_EQUAL(model_count_range_factor(ws), rows[i].factor, 0);
		model_ws_free(ws);
	}
}

/*
 * A matrix product O[M,P] += W[C,M] I[C,P] straight from DRAM: T = C M P
 * computes read T words of W and of I, update O T times and read it
 * T - M P times, under the bound 2 x (3 T + |W| + |I| + |O|). At
 * T = 2^61 (C 2^21, M = P = 2^20) that bound is 0.75 x 2^64 and the counts
 * (2^63 - 2^40 accesses) are exact, though the design's factor alone (12,
 * 12 x 2^61 > 2^64) does not show it; at T = 2^63 (C 2^23) the accesses
 * would be 2^65 - 2^40 and the mapping is refused before it is counted,
 * whether or not the design has a factor (I[C+C, P] has none: its bound is
 * taken level by level).
 */
static void test_count_range(void)
{
	static const struct {
		uint64_t c;
		const char *i_proj, *factors;
		int rc;
		const char *reason;
	} rows[] = {
		{ UINT64_C(1) << 21, "C,P", "C2097152 M1048576 P1048576", 0, "" },
		{ UINT64_C(1) << 23, "C,P", "C8388608 M1048576 P1048576", -1,
		  "its counts could exceed 2^64 - 1 (up to 5.53e+19 words moved for 9.22e+18 "
		  "loop iterations); counts are exact 64-bit integers" },
		{ UINT64_C(1) << 21, "C+C,P", "C2097152 M1048576 P1048576", 0, "" },
		{ UINT64_C(1) << 23, "C+C,P", "C8388608 M1048576 P1048576", -1,
		  "its counts could exceed 2^64 - 1 (up to 5.53e+19 words moved for 9.22e+18 "
		  "loop iterations); counts are exact 64-bit integers" },
	};
	const uint64_t mp = UINT64_C(1) << 40;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t t = rows[i].c * mp;
		tb_init(&tb_);
		tb_dim(&tb_, "C", rows[i].c);
		tb_dim(&tb_, "M", UINT64_C(1) << 20);
		tb_dim(&tb_, "P", UINT64_C(1) << 20);
		tb_tensor(&tb_, "W", false, "C,M");
		tb_tensor(&tb_, "I", false, rows[i].i_proj);
		tb_tensor(&tb_, "O", true, "M,P");
		tb_compute(&tb_, "mac", 1, 1);
		tb_ert(&tb_, -1, "compute=1");
		tb_level(&tb_, "DRAM", 0, 8, 8, 1, 1);
		tb_ert(&tb_, 0, "read=1 write=1 update=1");
		tb_temporal(&tb_, 0, rows[i].factors, "CMP");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		CU_ASSERT_EQUAL(evaluate(), rows[i].rc);
		CU_ASSERT_STRING_EQUAL(res_.reason, rows[i].reason);
		if (rows[i].rc < 0) {
			CU_ASSERT_EQUAL(res_.status, EVAL_TOO_LARGE);
			CU_ASSERT_STRING_EQUAL(model_status_name(res_.status), "too-large");
			continue;
		}
		CU_ASSERT_EQUAL(res_.compute.algorithmic, t);
		CU_ASSERT_EQUAL(res_.tiles[0][0].reads, t);
		CU_ASSERT_EQUAL(res_.tiles[0][1].reads, t);
		CU_ASSERT_EQUAL(res_.tiles[0][2].updates, t);
		CU_ASSERT_EQUAL(res_.tiles[0][2].reads, t - mp);
		CU_ASSERT_EQUAL(res_.levels[0].total_scalar_accesses, 4 * t - mp);
	}
}

/*
 * A level whose bandwidth makes its cycles pass 2^64 - 1: the dot product's
 * 47 buffer accesses in 16 compute cycles at 2^-60 words per cycle take
 * 47 x 2^60 cycles (more than 2^64 - 1; 47/16 x 2^60 times the computes'),
 * refused; at 2^-55, 47 x 2^55 cycles, counted.
 */
static void test_cycles_range(void)
{
	dot_product(64, 8);
	tb_.levels[0].read_bw_words_per_cycle = 0x1p-60;
	tb_.levels[0].write_bw_words_per_cycle = 0x1p-60;
	CU_ASSERT_EQUAL(evaluate(), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_TOO_LARGE);
	CU_ASSERT_EQUAL(res_.fail_level, 0);
	CU_ASSERT_STRING_EQUAL(res_.reason, "'Buffer' would take more than 2^64 - 1 cycles at "
			       "its bandwidth (3.39e+18 times the computes' 16)");
	dot_product(64, 8);
	tb_.levels[0].read_bw_words_per_cycle = 0x1p-55;
	tb_.levels[0].write_bw_words_per_cycle = 0x1p-55;
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 47 * (UINT64_C(1) << 55));
	CU_ASSERT_EQUAL(res_.cycles, 47 * (UINT64_C(1) << 55));
}

/*
 * A GPU-like design: 8 logical SMs (one register file and one MAC each,
 * 'concurrent' of them at once) under an L2 that reads 'l2_bw' words a
 * cycle; Z[M] = A[M,K] B[K] with M8 spread over the SMs, K16 at
 * each: 16 computes per SM. 'k_outer' moves K4 of K16 above the register
 * files, which then stream 4 tiles of 4 + 4 + 1 words each.
 */
static void gpu_like(unsigned concurrent, double l2_bw, double rf_bw, unsigned rf_depth,
		     unsigned fill_latency, bool k_outer)
{
	struct spec_level *rf, *l2;

	tb_init(&tb_);
	tb_dim(&tb_, "M", 8);
	tb_dim(&tb_, "K", 16);
	tb_tensor(&tb_, "A", false, "M,K");
	tb_tensor(&tb_, "B", false, "K");
	tb_tensor(&tb_, "Z", true, "M");
	tb_compute(&tb_, "mac", 8, 1);
	tb_ert(&tb_, -1, "compute=1");
	rf = tb_level(&tb_, "RF", rf_depth, 16, 16, 8, 1);
	rf->concurrent_instances = concurrent;
	rf->fill_latency_cycles = fill_latency;
	if (rf_bw > 0) {
		rf->has_write_bw = true;
		rf->write_bw_words_per_cycle = rf_bw;
	}
	l2 = tb_level(&tb_, "L2", 0, 16, 16, 1, 1);
	l2->has_read_bw = true;
	l2->read_bw_words_per_cycle = l2_bw;
	tb_ert(&tb_, 0, "read=1 write=1 update=1");
	tb_ert(&tb_, 1, "read=10 write=10 update=10");
	tb_keep(&tb_, 0, "A B Z");
	tb_temporal(&tb_, 0, k_outer ? "K4 M1" : "K16 M1", "KM");
	tb_spatial(&tb_, 1, "M8", "M", 1);
	tb_temporal(&tb_, 1, k_outer ? "K4 M1" : "K1 M1", "KM");
	if (tb_finish(&tb_) < 0)
		BUG("gpu_like");
}

/*
 * Waves: 8 thread blocks on 3 SMs run in ceil(8 / 3) = 3 rounds of 16
 * cycles; the MACs that run at once are 3, so 128 computes ideally take
 * 42.67 of the 48 cycles. L2's 144 words (A 128, B 16 multicast) now
 * spread over 48 cycles: 3 a cycle, under its 4 (without waves they need
 * 144 / 4 = 36 cycles, over the 16 of compute). A register file is one
 * block: it is written 48 times a round (A and B fills, 16 Z updates) and
 * read 47 times (A, B, 15 Z reads); at 1 word written a cycle a round
 * takes 48 cycles instead of 16, so 3 x 48 = 144.
 */
static void test_waves(void)
{
	gpu_like(0, 4, 0, 64, 0, false);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.compute.waves, 1);
	CU_ASSERT_EQUAL(res_.compute.cycles, 16);
	CU_ASSERT_EQUAL(res_.levels[1].cycles, 36);
	CU_ASSERT_EQUAL(res_.cycles, 36);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[1].bw_cycles, 36, 1e-12);

	gpu_like(3, 4, 0, 64, 0, false);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.compute.waves, 3);
	CU_ASSERT_EQUAL(res_.compute.cycles_per_wave, 16);
	CU_ASSERT_EQUAL(res_.compute.cycles, 48);
	CU_ASSERT_DOUBLE_EQUAL(res_.compute.ideal_cycles, 128.0 / 3, 1e-12);
	CU_ASSERT_EQUAL(res_.levels[1].cycles, 48);
	CU_ASSERT_EQUAL(res_.cycles, 48);
	CU_ASSERT_DOUBLE_EQUAL(res_.utilization, 128.0 / 3 / 48, 1e-12);

	gpu_like(8, 4, 0, 64, 0, false);           /* all at once: no waves */
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.compute.waves, 1);
	CU_ASSERT_EQUAL(res_.cycles, 36);

	gpu_like(3, 100, 1, 64, 0, false);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].read_words, 3 * 47, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].write_words, 3 * 48, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].total_words, 8 * (47 + 48), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.levels[0].bw_cycles, 3 * 48, 1e-12);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 144);
	CU_ASSERT_EQUAL(res_.cycles, 144);
}

/*
 * Fill latency: with K4 above the register files each streams 4 tiles (A 4,
 * B 4, Z 1 word: 9 of its words), and waits 10 cycles for the first before
 * it computes. A register file of 18 words holds 2 such tiles: one fill in
 * flight while one tile is used, 10 + 4 x 10 = 50 cycles against 16 of
 * compute; 45 words hold 5 tiles: 4 in flight, 10 + 4 x 10 / 4 = 20; 90
 * words hold 10: 10 + ceil(40 / 9) = 15, under the 16 of compute. Three
 * rounds of blocks multiply them.
 */
static void test_fill_latency(void)
{
	gpu_like(3, 100, 0, 18, 10, true);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.tiles[0][A].fills, 16);
	CU_ASSERT_EQUAL(res_.levels[0].latency_cycles, 3 * 50);
	CU_ASSERT_EQUAL(res_.levels[0].cycles, 3 * 50);
	CU_ASSERT_EQUAL(res_.cycles, 150);

	gpu_like(3, 100, 0, 45, 10, true);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.levels[0].latency_cycles, 3 * 20);
	CU_ASSERT_EQUAL(res_.cycles, 60);

	gpu_like(3, 100, 0, 90, 10, true);
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.levels[0].latency_cycles, 3 * 15);
	CU_ASSERT_EQUAL(res_.cycles, 48);

	gpu_like(3, 100, 0, 45, 0, true);          /* no latency given: none modelled */
	CU_ASSERT_EQUAL_FATAL(evaluate(), 0);
	CU_ASSERT_EQUAL(res_.levels[0].latency_cycles, 0);
}

static CU_TestInfo tests[] = {
	{ "dot product (01.2.1)", test_dot_product },
	{ "bandwidth throttling", test_throttling },
	{ "vector accesses", test_vector_accesses },
	{ "capacity, utilization, fan-out failures", test_failures },
	{ "model_check_capacity", test_check_capacity },
	{ "waves of thread blocks over SMs", test_waves },
	{ "fill latency over the pipeline stages", test_fill_latency },
	{ "clusters", test_clusters },
	{ "the count bound's factor", test_count_range_factor },
	{ "counts near and past 2^64", test_count_range },
	{ "cycles past 2^64", test_cycles_range },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "eval", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
