/*
 * The tile walk: on every dense conformance case the executor's counts
 * equal Timeloop's reference counts exactly; on small hand-built nests the
 * retention rules, exact footprints, hop-by-hop multicast and link
 * transfers give the values worked out by hand.
 */
#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/exec/refstats.h"
#include "tests/exec/tspec.h"
#include "tests/unit.h"
#include "util/diag.h"

/* ------------------------------------------------------- conformance */

struct dense_case {
	const char *name;
	const char *ref;               /* ref-head.stats.txt where head differs */
};

static const struct dense_case dense_cases[] = {
	{ "01.2.1-DUDU-dot-product", "ref.stats.txt" },
	{ "simple_output_stationary", "ref-head.stats.txt" },
	{ "simple_weight_stationary", "ref.stats.txt" },
	{ "eyeriss_like", "ref-head.stats.txt" },
	{ "simba_like", "ref.stats.txt" },
	{ "sparse_tensor_core_like", "ref.stats.txt" },
};

/*
 * Partition sizes of read-only tensors that differ by design: Timeloop's is
 * a formula (parent share divided by the spatial working set) that ignores
 * the halo shared by neighbouring sliding windows; the executor counts the
 * distinct points each instance holds (docs/executor.md).
 */
static const struct {
	const char *name, *level, *tensor;
	unsigned long long exec_value;
} partition_exceptions[] = {
	{ "eyeriss_like", "ifmap_spad", "Inputs", 1800 },
};

static struct spec_set *load_case(const char *name)
{
	static const char *const files[] = { "input.yaml", "map.yaml" };
	return unit_load_case(name, files, 2, false);
}

static unsigned long long per_instance(uint64_t total, uint64_t inst)
{
	return (unsigned long long)((total + inst / 2) / inst);
}

static unsigned long long partition_expected(const struct dense_case *c, const char *level,
					     const char *tensor, unsigned long long ref)
{
	size_t i;
	for (i = 0; i < sizeof(partition_exceptions) / sizeof(partition_exceptions[0]); i++)
		if (!strcmp(partition_exceptions[i].name, c->name) &&
		    !strcmp(partition_exceptions[i].level, level) &&
		    !strcmp(partition_exceptions[i].tensor, tensor))
			return partition_exceptions[i].exec_value;
	return ref;
}

/* Compare field 'label' of (level, tensor) with 'got'; count and report mismatches. */
static void expect_field(const struct refstats *rs, const struct dense_case *c, const char *lv,
			 const char *tn, const char *label, unsigned long long got, unsigned *n_cmp)
{
	const char *v = refstats_get(rs, lv, tn, label);
	unsigned long long want;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	want = strtoull(v, NULL, 10);
	if (!strcmp(label, "Partition size"))
		want = partition_expected(c, lv, tn, want);
	if (want != got)
		fprintf(stderr, "\n%s: %s %s %s: reference %llu, executor %llu\n", c->name, lv, tn,
			label, want, got);
	CU_ASSERT_EQUAL(want, got);
	(*n_cmp)++;
}

static void check_dense_case(const struct dense_case *c)
{
	struct exec_options opt = EXEC_OPTIONS_INIT;
	struct exec_result r;
	struct refstats rs;
	struct spec_set *s = load_case(c->name);
	char ref[1024];
	unsigned l, t, n_cmp = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	snprintf(ref, sizeof(ref), "%s/%s/%s", unit_conformance_dir(), c->name, c->ref);
	CU_ASSERT_EQUAL_FATAL(refstats_load(&rs, ref), 0);
	opt.all_partitions = true;
	CU_ASSERT_EQUAL_FATAL(exec_run(s, &opt, &r), 0);
	CU_ASSERT_TRUE(r.numeric_checked && r.numeric_ok);
	expect_field(&rs, c, s->arch.compute.name, "", "Computes (total)",
		     r.computes_class[EXEC_ACTUAL], &n_cmp);
	expect_field(&rs, c, s->arch.compute.name, "", "Utilized instances", r.compute_instances,
		     &n_cmp);
	for (l = 0; l < r.n_levels; l++)
		for (t = 0; t < r.n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(&r, l, t);
			const char *lv = s->arch.levels[l].name, *tn = s->workload.tensors[t].name;
			uint64_t n = st->instances;
			if (!st->kept)
				continue;
			expect_field(&rs, c, lv, tn, "Partition size", per_instance(st->partition, n),
				     &n_cmp);
			expect_field(&rs, c, lv, tn, "Utilized capacity", st->tile_shape, &n_cmp);
			expect_field(&rs, c, lv, tn, "Utilized instances (max)", n, &n_cmp);
			expect_field(&rs, c, lv, tn, "Scalar reads (per-instance)",
				     per_instance(st->reads.algorithmic, n), &n_cmp);
			expect_field(&rs, c, lv, tn, "Scalar fills (per-instance)",
				     per_instance(st->fills.algorithmic, n), &n_cmp);
			expect_field(&rs, c, lv, tn, "Scalar updates (per-instance)",
				     per_instance(st->updates.algorithmic, n), &n_cmp);
			expect_field(&rs, c, lv, tn, "Temporal reductions (per-instance)",
				     per_instance(st->temporal_reductions, n), &n_cmp);
			/* dense: every access is actual */
			CU_ASSERT_EQUAL(st->reads.n[EXEC_ACTUAL], st->reads.algorithmic);
			CU_ASSERT_EQUAL(st->fills.n[EXEC_ACTUAL], st->fills.algorithmic);
		}
	CU_ASSERT_TRUE(n_cmp > 20);
	exec_result_release(&r);
	refstats_release(&rs);
	spec_set_free(s);
}

static void test_dot_product(void) { check_dense_case(&dense_cases[0]); }
/*
 * The two simple_* designs are two thirds of this program's work (their executions are the
 * longest) and walk the same two-level nest code as the others; under the sanitizers
 * (quickstart.sh sanitize sets FL_SANITIZED) they are left to the plain suite.
 */
static void test_output_stationary(void)
{
	if (!getenv("FL_SANITIZED"))
		check_dense_case(&dense_cases[1]);
}
static void test_weight_stationary(void)
{
	if (!getenv("FL_SANITIZED"))
		check_dense_case(&dense_cases[2]);
}
static void test_eyeriss(void) { check_dense_case(&dense_cases[3]); }
static void test_simba(void) { check_dense_case(&dense_cases[4]); }
static void test_tensor_core(void) { check_dense_case(&dense_cases[5]); }

/* ------------------------------------------------------ hand-built nests */

/*
 * O[K,P] += I[P*s+R] * W[K,R] with a buffer below the backing store; 's'
 * is the input stride.
 */
static void conv1d(struct tspec *ts, const uint64_t *bounds, int stride, const char *buf_loops,
		   const char *buf_perm, const char *top_loops, const char *top_perm)
{
	char proj[16];

	tspec_init(ts, "KPR", bounds);
	snprintf(proj, sizeof(proj), "P*%d+R", stride);
	tspec_tensor(ts, "W", "K,R", false);
	tspec_tensor(ts, "I", proj, false);
	tspec_tensor(ts, "O", "K,P", true);
	tspec_level(ts, "Buffer", 1, 1);
	tspec_keep(ts, 0, "*");
	tspec_level(ts, "Backing", 1, 1);
	tspec_keep(ts, 1, "*");
	tspec_temporal(ts, 0, buf_loops, buf_perm);
	tspec_temporal(ts, 1, top_loops, top_perm);
	CU_ASSERT_EQUAL_FATAL(tspec_finish(ts), 0);
}

struct retention_row {
	uint64_t bounds[3];            /* K, P, R */
	const char *buf_loops, *buf_perm, *top_loops, *top_perm;
	uint64_t fills_translation;    /* buffer fills of I, worked out by hand */
	uint64_t fills_overlap;
};

static const struct retention_row retention_rows[] = {
	/* tiles [p, p+2] for p = 0, 1 under k = 0, then again under k = 1: the
	 * jump back has another translation, so the translation rule refetches
	 * the whole tile (3 + 1 + 3 + 1) where the overlap rule keeps {1, 2} */
	{ { 2, 2, 3 }, "R3", "R", "P2 K2", "PK", 8, 6 },
	/* k innermost: translations 0, +1, 0, +1, ...; zero translations do not
	 * reset (Timeloop head's fix), so the sliding window is reused: 3+1+1+1 */
	{ { 2, 4, 3 }, "R3", "R", "K2 P4", "KP", 6, 6 },
	/* a tile of 4 inputs sliding by 2: 4 + 3 * 2 */
	{ { 1, 8, 3 }, "P2 R3", "PR", "P4", "P", 10, 10 },
	/* tiles of 2 points with R outermost: no overlap anywhere: 3 * 4 * 2 */
	{ { 1, 8, 3 }, "P2", "P", "P4 R3", "PR", 24, 24 },
};

static void test_retention(void)
{
	size_t i;
	int k;

	for (i = 0; i < sizeof(retention_rows) / sizeof(retention_rows[0]); i++) {
		const struct retention_row *row = &retention_rows[i];
		for (k = 0; k < 2; k++) {
			struct exec_options opt = EXEC_OPTIONS_INIT;
			struct exec_result r;
			struct tspec ts;
			uint64_t want = k ? row->fills_overlap : row->fills_translation, got;
			conv1d(&ts, row->bounds, 1, row->buf_loops, row->buf_perm, row->top_loops,
			       row->top_perm);
			opt.retention = k ? EXEC_RETAIN_OVERLAP : EXEC_RETAIN_TRANSLATION;
			CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, &opt, &r), 0);
			got = exec_result_stats(&r, 0, 1)->fills.algorithmic;
			if (got != want)
				fprintf(stderr, "\nretention row %zu/%d: fills %llu, want %llu\n", i, k,
					(unsigned long long)got, (unsigned long long)want);
			CU_ASSERT_EQUAL(got, want);
			CU_ASSERT_TRUE(r.numeric_ok);
			exec_result_release(&r);
			tspec_release(&ts);
		}
	}
}

/*
 * Stride 2, R = 1: the inputs are I[2p] for p < 4, so the hull of the
 * backing store's tile has 7 points and only 4 are touched.
 */
static void test_exact_footprint(void)
{
	static const uint64_t b[] = { 1, 4, 1 };
	static const struct {
		enum exec_footprint fp;
		uint64_t tile, fills, partition;
	} rows[] = {
		{ EXEC_FOOTPRINT_HULL, 7, 7, 7 },
		{ EXEC_FOOTPRINT_EXACT, 4, 4, 4 },
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		struct exec_result r;
		struct tspec ts;
		conv1d(&ts, b, 2, "P4", "P", "", "P");
		opt.footprint = rows[i].fp;
		opt.all_partitions = true;
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, &opt, &r), 0);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 1, 1)->tile_shape, rows[i].tile);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 1)->fills.algorithmic, rows[i].fills);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 1, 1)->partition, rows[i].partition);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 1, 1)->reads.algorithmic, rows[i].fills);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_result_release(&r);
		tspec_release(&ts);
	}
}

/*
 * Multicast is hop by hop. Two spatial levels below the backing store:
 * A (X: P4) above B (Y: R3), the buffers hold one input each. Child (p, r)
 * needs I[p + r]: within one A-node the three r differ (no sharing); the
 * A-nodes need different sets, so the backing store reads all 12 even
 * though only 6 inputs are distinct (a flat network would read 6).
 * Weights W[R] are the same for every p: B-nodes 0..3 need the identical
 * message {W0, W1, W2}, read once: 3 reads.
 */
static void test_hop_multicast(void)
{
	static const uint64_t b[] = { 1, 4, 3 };
	struct exec_result r;
	struct tspec ts;

	tspec_init(&ts, "KPR", b);
	tspec_tensor(&ts, "W", "K,R", false);
	tspec_tensor(&ts, "I", "P+R", false);
	tspec_tensor(&ts, "O", "K,P", true);
	tspec_level(&ts, "PE", 12, 1);
	tspec_keep(&ts, 0, "*");
	tspec_level(&ts, "Row", 4, 1);
	tspec_keep(&ts, 1, "");
	tspec_level(&ts, "Backing", 1, 1);
	tspec_keep(&ts, 2, "*");
	tspec_spatial(&ts, 1, "R3", "R", 0);
	tspec_spatial(&ts, 2, "P4", "P", 3);
	CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
	CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, NULL, &r), 0);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 1)->reads.algorithmic, 12);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 0)->reads.algorithmic, 3);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 1)->fills.algorithmic, 12);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 0)->instances, 12);
	/* outputs O[p]: the three r of one A-node reduce spatially into one update */
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 2)->updates.algorithmic, 4);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 2)->spatial_reductions, 8);
	/* 12 weight words received for 3 read: 9 multicast copies; inputs none */
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 0)->multicast_words, 9);
	CU_ASSERT_EQUAL(exec_result_stats(&r, 2, 1)->multicast_words, 0);
	CU_ASSERT_TRUE(r.numeric_ok);
	exec_result_release(&r);
	tspec_release(&ts);
}

/*
 * Link transfers on a 1-D convolution Z[P] = W[R] I[P+R], P = 16, R = 3:
 * the GLB spreads P4 over 4 register files and steps R3 above them (then
 * P over the rest). With one input per register file ('P1'), at each R
 * step after the first a file needs the input its right neighbour held:
 * three of four take it over the link, the GLB reads one (per sweep of R:
 * 4 + 1 + 1 reads and 0 + 3 + 3 links, over 4 sweeps). With two inputs
 * per file ('P2', 2 sweeps) the missing input is the second of the right
 * neighbour's previous pair: 8 + 1 + 1 reads and 3 + 3 links per sweep.
 * Opting I out of links (no_link_transfer) brings back every read. The
 * neighbours read what they send: the files' reads are the 48 computes'
 * plus the links.
 */
static void test_link_transfers(void)
{
	static const uint64_t b[] = { 16, 3 };
	static const struct {
		const char *rf, *glb;
		bool opt_out;
		uint64_t glb_reads, links, rf_fills;
	} rows[] = {
		{ "P1", "R3 P4", false, 24, 24, 48 },
		{ "P2", "R3 P2", false, 20, 12, 32 },
		{ "P1", "R3 P4", true, 48, 0, 48 },
		{ "P2", "R3 P2", true, 32, 0, 32 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct exec_tensor_stats *rf, *glb;
		struct exec_result r;
		struct tspec ts;
		tspec_init(&ts, "PR", b);
		tspec_tensor(&ts, "W", "R", false);
		tspec_tensor(&ts, "I", "P+R", false);
		tspec_tensor(&ts, "Z", "P", true);
		tspec_level(&ts, "RF", 4, 1);
		tspec_keep(&ts, 0, "*");
		tspec_level(&ts, "GLB", 1, 1);
		tspec_keep(&ts, 1, "*");
		tspec_temporal(&ts, 0, rows[i].rf, "PR");
		tspec_spatial(&ts, 1, "P4", "P", 2);
		tspec_temporal(&ts, 1, rows[i].glb, "RP");
		if (rows[i].opt_out)
			ts.m.levels[1].no_link_transfer_mask = 1u << 1;
		CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, NULL, &r), 0);
		rf = exec_result_stats(&r, 0, 1);
		glb = exec_result_stats(&r, 1, 1);
		CU_ASSERT_EQUAL(glb->reads.algorithmic, rows[i].glb_reads);
		CU_ASSERT_EQUAL(rf->link_transfers, rows[i].links);
		CU_ASSERT_EQUAL(rf->fills.algorithmic, rows[i].rf_fills);
		CU_ASSERT_EQUAL(rf->reads.algorithmic, 48 + rows[i].links);
		CU_ASSERT_EQUAL(glb->multicast_words, 0);
		/* W is the same for every file: multicast, never linked */
		CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 0)->link_transfers, 0);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_result_release(&r);
		tspec_release(&ts);
	}
}

CU_TestInfo walk_tests[] = {
	{ "dot product = Timeloop", test_dot_product },
	{ "simple_output_stationary = Timeloop head", test_output_stationary },
	{ "simple_weight_stationary = Timeloop", test_weight_stationary },
	{ "eyeriss_like = Timeloop head", test_eyeriss },
	{ "simba_like = Timeloop", test_simba },
	{ "sparse_tensor_core_like = Timeloop", test_tensor_core },
	{ "retention rules", test_retention },
	{ "exact footprints", test_exact_footprint },
	{ "hop-by-hop multicast", test_hop_multicast },
	{ "link transfers", test_link_transfers },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "walk", .pTests = walk_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
