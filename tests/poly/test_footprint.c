/*
 * Tests of poly/footprint.c: exact footprints and deltas of op-space boxes
 * under affine projections (strides, dilations, sums of terms, negative
 * coefficients, shared dimensions), the Timeloop hull, the integer fast path
 * against isl's exact count, and the isl leak check of poly_ctx_free.
 */
#include "poly/footprint.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "poly/footprint_int.h"
#include "specs/spec.h"
#include "tests/unit.h"
#include "util/rng.h"

#define ND 6   /* every test workload has 6 dims, named by index 0..5 */

/* A projection: per rank, terms {dim, coef}; a rank with 0 terms ends the list. */
struct proj {
	const char *what;
	unsigned n_ranks;
	struct {
		unsigned n;
		struct { unsigned dim; int64_t coef; } t[SPEC_MAX_TERMS];
	} ranks[4];
};

enum {
	PR_CONV_S2,     /* W = 2*d0 + d1 (stride 2) */
	PR_CONV_S3,     /* W = 3*d0 + d1 (stride 3) */
	PR_DILATED,     /* W = d0 + 2*d1 (dilation 2) */
	PR_THREE,       /* x = d0 + 3*d1 + 9*d2 */
	PR_CHAIN,       /* x = d0 + 2*d1 + 4*d2 */
	PR_NEG,         /* x = d0 - d1 */
	PR_NEG2,        /* x = 2*d0 - 3*d1 */
	PR_DIAG,        /* [d0][d0] */
	PR_CANCEL,      /* [d0 - d0] */
	PR_MATRIX,      /* [d0][d1] */
	PR_SCALAR,      /* no ranks */
	PR_CONV2D,      /* [d4][d5][2*d0 + d1][2*d2 + d3] */
	PR_SHEAR,       /* [d0][d0 + d1] */
	PR_MIXED,       /* [d4][2*d0 + d1][d2 + 3*d3] */
	PR_COUNT
};

static const struct proj projs[PR_COUNT] = {
	[PR_CONV_S2] = {"conv s2", 1, {{2, {{0, 2}, {1, 1}}}}},
	[PR_CONV_S3] = {"conv s3", 1, {{2, {{0, 3}, {1, 1}}}}},
	[PR_DILATED] = {"dilated", 1, {{2, {{0, 1}, {1, 2}}}}},
	[PR_THREE] = {"three terms", 1, {{3, {{0, 1}, {1, 3}, {2, 9}}}}},
	[PR_CHAIN] = {"chain", 1, {{3, {{0, 1}, {1, 2}, {2, 4}}}}},
	[PR_NEG] = {"negative", 1, {{2, {{0, 1}, {1, -1}}}}},
	[PR_NEG2] = {"negative 2", 1, {{2, {{0, 2}, {1, -3}}}}},
	[PR_DIAG] = {"diagonal", 2, {{1, {{0, 1}}}, {1, {{0, 1}}}}},
	[PR_CANCEL] = {"cancel", 1, {{2, {{0, 1}, {0, -1}}}}},
	[PR_MATRIX] = {"matrix", 2, {{1, {{0, 1}}}, {1, {{1, 1}}}}},
	[PR_SCALAR] = {"scalar", 0, {{0, {{0, 0}}}}},
	[PR_CONV2D] = {"conv2d s2", 4,
		       {{1, {{4, 1}}}, {1, {{5, 1}}}, {2, {{0, 2}, {1, 1}}}, {2, {{2, 2}, {3, 1}}}}},
	[PR_SHEAR] = {"shear", 2, {{1, {{0, 1}}}, {2, {{0, 1}, {1, 1}}}}},
	[PR_MIXED] = {"mixed", 3, {{1, {{4, 1}}}, {2, {{0, 2}, {1, 1}}}, {2, {{2, 1}, {3, 3}}}}},
};

/* A workload holding one tensor with projection 'p' (static storage). */
static const struct spec_workload *make_workload(const struct proj *p)
{
	static struct spec_workload w;
	static struct spec_tensor t;
	unsigned r, k;

	memset(&w, 0, sizeof(w));
	memset(&t, 0, sizeof(t));
	t.name = p->what;
	t.n_ranks = p->n_ranks;
	for (r = 0; r < p->n_ranks; r++) {
		t.ranks[r].n_terms = p->ranks[r].n;
		for (k = 0; k < p->ranks[r].n; k++) {
			t.ranks[r].terms[k].dim = p->ranks[r].t[k].dim;
			t.ranks[r].terms[k].coef_idx = p->ranks[r].t[k].coef == 1 ? -1 : 0;
			t.ranks[r].terms[k].coef = p->ranks[r].t[k].coef;
			t.dim_mask |= 1u << p->ranks[r].t[k].dim;
		}
	}
	w.n_dims = ND;
	w.n_tensors = 1;
	w.tensors = &t;
	return &w;
}

/* ----------------------------------------------------------- footprints */

struct fp_case {
	int proj;
	int64_t lo[ND], hi[ND];
	uint64_t exact, hull;
	bool fast;          /* the integer fast path must answer */
};

static const struct fp_case fp_cases[] = {
	/* strided conv input W = 2P + R: R extent 1 leaves holes, R = 3 none */
	{PR_CONV_S2, {0, 0}, {7, 0}, 8, 15, true},
	{PR_CONV_S2, {0, 0}, {7, 1}, 16, 16, true},
	{PR_CONV_S2, {0, 0}, {7, 2}, 17, 17, true},
	{PR_CONV_S2, {3, 2}, {5, 2}, 3, 5, true},
	{PR_CONV_S3, {0, 0}, {3, 1}, 8, 11, true},      /* 0 1 3 4 6 7 9 10 */
	{PR_CONV_S3, {0, 0}, {3, 2}, 12, 12, true},
	{PR_CONV_S3, {1, 0}, {4, 1}, 8, 11, true},
	/* dilation 2: W = P + 2R */
	{PR_DILATED, {0, 0}, {0, 2}, 3, 5, true},
	{PR_DILATED, {0, 0}, {1, 2}, 6, 6, true},
	{PR_DILATED, {5, 1}, {5, 3}, 3, 5, true},
	/* sums of three terms */
	{PR_THREE, {0, 0, 0}, {1, 1, 1}, 8, 14, true},     /* 0 1 3 4 9 10 12 13: bitmap */
	{PR_THREE, {0, 0, 0}, {1, 1, 9999}, 40000, 89996, false},  /* too wide for the bitmap */
	{PR_THREE, {0, 0, 0}, {2, 2, 2}, 27, 27, true},     /* base-3 digits: chain */
	{PR_THREE, {0, 0, 0}, {1, 0, 1}, 4, 11, true},      /* two varying terms */
	{PR_CHAIN, {0, 0, 0}, {1, 1, 3}, 16, 16, true},
	{PR_CHAIN, {0, 0, 0}, {0, 0, 3}, 4, 13, true},
	/* negative coefficients */
	{PR_NEG, {2, 0}, {5, 2}, 6, 6, true},
	{PR_NEG, {2, 0}, {2, 4}, 5, 5, true},
	{PR_NEG2, {0, 0}, {1, 1}, 4, 6, true},              /* -3 -1 0 2 */
	{PR_NEG2, {0, 0}, {3, 3}, 14, 16, true},            /* 0 and -3 are hit twice */
	/* a dimension in two ranks: exact needs isl unless it is fixed */
	{PR_DIAG, {0}, {4}, 5, 25, false},
	{PR_DIAG, {3}, {3}, 1, 1, true},
	{PR_SHEAR, {0, 0}, {2, 3}, 12, 18, false},
	{PR_SHEAR, {1, 0}, {1, 3}, 4, 4, true},
	/* terms that cancel: the hull counts them as written */
	{PR_CANCEL, {0}, {3}, 1, 7, true},
	/* plain boxes */
	{PR_MATRIX, {2, 0}, {5, 7}, 32, 32, true},
	{PR_MATRIX, {2, 0, 0, 0, 0, 0}, {5, 7, 9, 9, 9, 9}, 32, 32, true},  /* other dims ignored */
	{PR_SCALAR, {0}, {9}, 1, 1, true},
	{PR_CONV2D, {0, 0, 0, 0, 0, 0}, {3, 0, 3, 0, 1, 2}, 96, 294, true},
	{PR_CONV2D, {0, 0, 0, 0, 0, 0}, {3, 2, 3, 2, 1, 2}, 486, 486, true},
	{PR_MIXED, {0, 0, 0, 0, 0}, {3, 0, 1, 1, 1}, 32, 70, true},
};

static const char *dims_text(const int64_t *lo, const int64_t *hi)
{
	static char buf[256];
	size_t n = 0;
	unsigned d;

	for (d = 0; d < ND; d++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " [%lld,%lld]", (long long)lo[d],
				      (long long)hi[d]);
	return buf;
}

static void test_footprint_table(void)
{
	struct poly_ctx *pc = poly_ctx_new();
	size_t i;

	for (i = 0; i < sizeof(fp_cases) / sizeof(fp_cases[0]); i++) {
		const struct fp_case *c = &fp_cases[i];
		struct poly_tensor *pt = poly_tensor_new(pc, make_workload(&projs[c->proj]), 0);
		uint64_t exact = poly_footprint_size(pt, c->lo, c->hi);
		uint64_t by_isl = poly_footprint_size_isl(pt, c->lo, c->hi);
		uint64_t hull = poly_hull_size(pt, c->lo, c->hi), fast = 0;
		bool is_fast = poly_footprint_size_fast(pt, c->lo, c->hi, &fast);

		if (exact != c->exact || by_isl != c->exact || hull != c->hull ||
		    is_fast != c->fast || (is_fast && fast != c->exact))
			fprintf(stderr, "\nfootprint case %zu (%s%s): exact %llu isl %llu hull %llu fast %d\n",
				i, projs[c->proj].what, dims_text(c->lo, c->hi),
				(unsigned long long)exact, (unsigned long long)by_isl,
				(unsigned long long)hull, is_fast);
		CU_ASSERT_EQUAL(exact, c->exact);
		CU_ASSERT_EQUAL(by_isl, c->exact);
		CU_ASSERT_EQUAL(hull, c->hull);
		CU_ASSERT_EQUAL(is_fast, c->fast);
		poly_tensor_free(pt);
	}
	poly_ctx_free(pc);
}

/* --------------------------------------------------------------- deltas */

struct delta_case {
	const char *what;
	int proj;
	int64_t lo_new[ND], hi_new[ND], lo_old[ND], hi_old[ND];
	uint64_t exact, hull;
	bool fast;
};

static const struct delta_case delta_cases[] = {
	{"stride 3, R 3: P steps", PR_CONV_S3, {1, 0}, {1, 2}, {0, 0}, {0, 2}, 3, 3, true},
	{"stride 2, R 1: next 4 outputs", PR_CONV_S2, {4, 0}, {7, 0}, {0, 0}, {3, 0}, 4, 7, true},
	{"stride 2, R 3: P steps by 1", PR_CONV_S2, {1, 0}, {2, 2}, {0, 0}, {1, 2}, 2, 2, true},
	{"stride 2, R 1: P steps by 1", PR_CONV_S2, {1, 0}, {4, 0}, {0, 0}, {3, 0}, 1, 2, true},
	{"stride 2: R moves, other residue", PR_CONV_S2, {0, 1}, {3, 1}, {0, 0}, {3, 0}, 4, 1,
	 true},
	{"stride 2: R moves by 2", PR_CONV_S2, {0, 2}, {3, 2}, {0, 0}, {3, 0}, 1, 2, true},
	{"different steps meet", PR_NEG2, {0, 0}, {3, 0}, {0, 0}, {0, 3}, 3, 6, true},
	{"dilated, R slides", PR_DILATED, {0, 1}, {0, 3}, {0, 0}, {0, 2}, 1, 2, true},
	{"matrix, disjoint", PR_MATRIX, {0, 4}, {3, 7}, {0, 0}, {3, 3}, 16, 16, true},
	{"matrix, overlap", PR_MATRIX, {0, 0}, {3, 3}, {2, 2}, {5, 5}, 12, 12, true},
	{"same box", PR_CONV_S3, {0, 0}, {3, 1}, {0, 0}, {3, 1}, 0, 0, true},
	{"other dims differ", PR_MATRIX, {0, 0, 0}, {3, 3, 3}, {0, 0, 4}, {3, 3, 9}, 0, 0, true},
	{"two-term holes slide: bitmap", PR_CONV_S3, {2, 0}, {3, 1}, {0, 0}, {2, 1}, 2, 3, true},
	{"two-term holes, same rank box", PR_MIXED, {0, 0, 0, 0, 1}, {3, 0, 1, 1, 1},
	 {0, 0, 0, 0, 0}, {3, 0, 1, 1, 0}, 16, 35, true},
	{"diagonal slides: isl", PR_DIAG, {2}, {5}, {0}, {3}, 2, 12, false},
	{"three terms shift: bitmap", PR_THREE, {0, 0, 1}, {1, 1, 2}, {0, 0, 0}, {1, 1, 1}, 4, 9,
	 true},
	{"three terms, wide: isl", PR_THREE, {0, 0, 1}, {1, 1, 8000}, {0, 0, 0}, {1, 1, 7999}, 4, 9,
	 false},
	{"conv2d tile moves in Q", PR_CONV2D, {0, 0, 2, 0, 0, 0}, {3, 2, 5, 2, 0, 0},
	 {0, 0, 0, 0, 0, 0}, {3, 2, 3, 2, 0, 0}, 36, 36, true},
	{"scalar", PR_SCALAR, {1}, {1}, {0}, {0}, 0, 0, true},
};

static void test_delta_table(void)
{
	struct poly_ctx *pc = poly_ctx_new();
	size_t i;

	for (i = 0; i < sizeof(delta_cases) / sizeof(delta_cases[0]); i++) {
		const struct delta_case *c = &delta_cases[i];
		struct poly_tensor *pt = poly_tensor_new(pc, make_workload(&projs[c->proj]), 0);
		uint64_t exact = poly_delta_size(pt, c->lo_new, c->hi_new, c->lo_old, c->hi_old);
		uint64_t by_isl = poly_delta_size_isl(pt, c->lo_new, c->hi_new, c->lo_old, c->hi_old);
		uint64_t hull = poly_hull_delta_size(pt, c->lo_new, c->hi_new, c->lo_old, c->hi_old);
		uint64_t fast = 0;
		bool is_fast = poly_delta_size_fast(pt, c->lo_new, c->hi_new, c->lo_old, c->hi_old,
						    &fast);

		if (exact != c->exact || by_isl != c->exact || hull != c->hull ||
		    is_fast != c->fast || (is_fast && fast != c->exact))
			fprintf(stderr, "\ndelta case %zu (%s): exact %llu isl %llu hull %llu fast %d\n",
				i, c->what, (unsigned long long)exact, (unsigned long long)by_isl,
				(unsigned long long)hull, is_fast);
		CU_ASSERT_EQUAL(exact, c->exact);
		CU_ASSERT_EQUAL(by_isl, c->exact);
		CU_ASSERT_EQUAL(hull, c->hull);
		CU_ASSERT_EQUAL(is_fast, c->fast);
		/* an empty old tile: the delta is the whole footprint */
		CU_ASSERT_EQUAL(poly_delta_size(pt, c->lo_new, c->hi_new, NULL, NULL),
				poly_footprint_size(pt, c->lo_new, c->hi_new));
		CU_ASSERT_EQUAL(poly_hull_delta_size(pt, c->lo_new, c->hi_new, NULL, NULL),
				poly_hull_size(pt, c->lo_new, c->hi_new));
		poly_tensor_free(pt);
	}
	poly_ctx_free(pc);
}

/* ------------------------------------------------ fast path against isl */

/* A random box: each dim in [-3, 5], extent 1..5, some dims fixed. */
static void random_box(struct rng *r, int64_t *lo, int64_t *hi)
{
	unsigned d;

	for (d = 0; d < ND; d++) {
		lo[d] = (int64_t)rng_below(r, 9) - 3;
		hi[d] = lo[d] + (rng_below(r, 3) == 0 ? 0 : (int64_t)rng_below(r, 5));
	}
}

/* A random box near 'lo'/'hi': each dim shifted by -2..2 and resized. */
static void nearby_box(struct rng *r, const int64_t *lo, const int64_t *hi, int64_t *lo2,
		       int64_t *hi2)
{
	unsigned d;

	for (d = 0; d < ND; d++) {
		switch (rng_below(r, 3)) {
		case 0:
			lo2[d] = lo[d];
			hi2[d] = hi[d];
			break;
		case 1: {
			int64_t sh = (int64_t)rng_below(r, 5) - 2;
			lo2[d] = lo[d] + sh;
			hi2[d] = hi[d] + sh;
			break;
		}
		default:
			lo2[d] = lo[d] + (int64_t)rng_below(r, 3) - 1;
			hi2[d] = lo2[d] + (int64_t)rng_below(r, 5);
		}
	}
}

static void test_fast_vs_isl(void)
{
	struct poly_ctx *pc = poly_ctx_new();
	struct poly_stats st;
	struct rng r;
	unsigned p, iter, n_fast_fp = 0, n_fast_delta = 0, n_total = 0;

	rng_seed(&r, 2024);
	for (p = 0; p < PR_COUNT; p++) {
		struct poly_tensor *pt = poly_tensor_new(pc, make_workload(&projs[p]), 0);

		for (iter = 0; iter < 60; iter++) {
			int64_t lo[ND], hi[ND], lo2[ND], hi2[ND];
			uint64_t fast, isl, hull;

			random_box(&r, lo, hi);
			nearby_box(&r, lo, hi, lo2, hi2);
			isl = poly_footprint_size_isl(pt, lo, hi);
			hull = poly_hull_size(pt, lo, hi);
			CU_ASSERT_TRUE(isl <= hull);
			if (poly_footprint_size_fast(pt, lo, hi, &fast)) {
				n_fast_fp++;
				if (fast != isl)
					fprintf(stderr, "\n%s%s: fast %llu isl %llu\n", projs[p].what,
						dims_text(lo, hi), (unsigned long long)fast,
						(unsigned long long)isl);
				CU_ASSERT_EQUAL(fast, isl);
			}
			isl = poly_delta_size_isl(pt, lo2, hi2, lo, hi);
			CU_ASSERT_TRUE(isl <= poly_footprint_size(pt, lo2, hi2));
			if (poly_delta_size_fast(pt, lo2, hi2, lo, hi, &fast)) {
				n_fast_delta++;
				if (fast != isl)
					fprintf(stderr, "\ndelta %s%s <- %s: fast %llu isl %llu\n",
						projs[p].what, dims_text(lo2, hi2), dims_text(lo, hi),
						(unsigned long long)fast, (unsigned long long)isl);
				CU_ASSERT_EQUAL(fast, isl);
			}
			n_total++;
		}
		poly_tensor_free(pt);
	}
	/* the fast path answers most of these small random boxes */
	CU_ASSERT_TRUE(n_fast_fp * 10 > n_total * 7);
	CU_ASSERT_TRUE(n_fast_delta * 10 > n_total * 5);
	poly_ctx_stats(pc, &st);
	/* per iteration: two forced isl counts and one public call */
	CU_ASSERT_TRUE(st.n_isl >= 2 * n_total);
	CU_ASSERT_EQUAL(st.n_fast + st.n_isl, 3 * n_total);
	poly_ctx_free(pc);
}

/* The public functions count which method answered. */
static void test_stats(void)
{
	struct poly_ctx *pc = poly_ctx_new();
	struct poly_tensor *s2 = poly_tensor_new(pc, make_workload(&projs[PR_CONV_S2]), 0);
	struct poly_tensor *diag = poly_tensor_new(pc, make_workload(&projs[PR_DIAG]), 0);
	const int64_t lo[ND] = {0}, hi[ND] = {1, 1, 1, 1, 1, 1};
	struct poly_stats st;

	CU_ASSERT_EQUAL(poly_footprint_size(s2, lo, hi), 4);      /* 0..3 */
	CU_ASSERT_EQUAL(poly_delta_size(s2, lo, hi, lo, hi), 0);
	CU_ASSERT_EQUAL(poly_footprint_size(diag, lo, hi), 2);    /* isl */
	poly_ctx_stats(pc, &st);
	CU_ASSERT_EQUAL(st.n_fast, 2);
	CU_ASSERT_EQUAL(st.n_isl, 1);
	poly_tensor_free(diag);
	poly_tensor_free(s2);
	poly_ctx_free(pc);
}

/* Large boxes go through the fast path without enumeration. */
static void test_large(void)
{
	struct poly_ctx *pc = poly_ctx_new();
	struct poly_tensor *pt = poly_tensor_new(pc, make_workload(&projs[PR_CONV2D]), 0);
	const int64_t lo[ND] = {0, 0, 0, 0, 0, 0};
	const int64_t hi[ND] = {99999, 0, 99999, 0, 999, 999};
	const int64_t lo2[ND] = {100000, 0, 0, 0, 0, 0};
	const int64_t hi2[ND] = {199999, 0, 99999, 0, 999, 999};
	uint64_t n = 0;

	CU_ASSERT_TRUE(poly_footprint_size_fast(pt, lo, hi, &n));
	CU_ASSERT_EQUAL(n, UINT64_C(10000000000000000));  /* 1e5 * 1e5 * 1e3 * 1e3 */
	CU_ASSERT_TRUE(poly_delta_size_fast(pt, lo2, hi2, lo, hi, &n));
	CU_ASSERT_EQUAL(n, UINT64_C(10000000000000000));  /* new and old W ranges are disjoint */
	poly_tensor_free(pt);
	poly_ctx_free(pc);
}

/*
 * poly_ctx_free aborts when an isl object is still alive: a child process
 * frees the context before its tensor and must die of SIGABRT.
 */
static void test_leak_aborts(void)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	CU_ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		struct poly_ctx *pc = poly_ctx_new();
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, 2);     /* isl's "isl_ctx not freed" message */
		(void)poly_tensor_new(pc, make_workload(&projs[PR_MATRIX]), 0);
		poly_ctx_free(pc);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	/* and freeing in the right order is clean */
	{
		struct poly_ctx *pc = poly_ctx_new();
		poly_tensor_free(poly_tensor_new(pc, make_workload(&projs[PR_MATRIX]), 0));
		poly_tensor_free(NULL);
		poly_ctx_free(pc);
		poly_ctx_free(NULL);
	}
}

static CU_TestInfo footprint_tests[] = {
	{"footprints: exact, isl, hull, fast path", test_footprint_table},
	{"deltas: exact, isl, hull, fast path", test_delta_table},
	{"fast path equals isl on random boxes", test_fast_vs_isl},
	{"method counters", test_stats},
	{"large boxes take the fast path", test_large},
	{"isl leak check in poly_ctx_free", test_leak_aborts},
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{.pName = "poly footprint", .pTests = footprint_tests},
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
