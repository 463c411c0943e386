/*
 * Actual-data densities: tensors read from Matrix Market files the test
 * generates (banded, power-law rows, block-structured). The executor's
 * counts on 02.2.1 (A[M,K] x B[N,K], both compressed, A skipped on B, B on
 * A, Z on both) must not depend on the seed and must equal the counts
 * worked out from the matrices themselves; the model must agree exactly on
 * what depends only on each tensor's own data.
 */
#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "specs/spec.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/rng.h"

#define N 8

enum pattern { BANDED, POWER_LAW, BLOCKS };

/* A pattern of non-zeros on an N x N matrix. */
static void make_pattern(enum pattern p, uint64_t seed, bool nz[N][N])
{
	struct rng r;
	int i, j, k;

	memset(nz, 0, sizeof(bool) * N * N);
	rng_seed(&r, seed);
	switch (p) {
	case BANDED:                  /* |i - j| <= 1 */
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				nz[i][j] = abs(i - j) <= 1;
		break;
	case POWER_LAW:               /* row i holds about N / (i + 1) non-zeros */
		for (i = 0; i < N; i++)
			for (k = 0; k < N / (i + 1); k++)
				nz[i][rng_below(&r, N)] = true;
		break;
	case BLOCKS:                  /* random 2x2 blocks, each present with p = 1/3 */
		for (i = 0; i < N; i += 2)
			for (j = 0; j < N; j += 2)
				if (rng_below(&r, 3) == 0)
					nz[i][j] = nz[i][j + 1] = nz[i + 1][j] = nz[i + 1][j + 1] = true;
		break;
	}
}

static void write_mtx(const char *path, bool nz[N][N])
{
	FILE *fp = fopen(path, "w");
	int i, j, n = 0;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			n += nz[i][j];
	fprintf(fp, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", N, N, n);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			if (nz[i][j])
				fprintf(fp, "%d %d %d\n", i + 1, j + 1, 1 + (i * 7 + j * 3) % 9);
	fclose(fp);
}

struct expect {
	uint64_t both, a_only, b_only;     /* MACs (m, n, k) by which operands are non-zero */
	uint64_t nnz_a, nnz_b;
};

static void brute_force(bool a[N][N], bool b[N][N], struct expect *e)
{
	int m, n, k;

	memset(e, 0, sizeof(*e));
	for (m = 0; m < N; m++)
		for (n = 0; n < N; n++)
			for (k = 0; k < N; k++) {
				e->both += a[m][k] && b[n][k];
				e->a_only += a[m][k] && !b[n][k];
				e->b_only += !a[m][k] && b[n][k];
			}
	for (m = 0; m < N; m++)
		for (k = 0; k < N; k++) {
			e->nnz_a += a[m][k];
			e->nnz_b += b[m][k];
		}
}

static struct spec_set *load(const char *fa, const char *fb)
{
	char in[1024], map[1024], ta[1100], tb[1100];
	const char *paths[2] = { in, map }, *tensors[2] = { ta, tb };
	struct spec_load_options lo = { .require_mapping = true, .tensor_files = tensors,
					.n_tensor_files = 2 };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	snprintf(in, sizeof(in), "%s/02.2.1-spMspM/input.yaml", unit_conformance_dir());
	snprintf(map, sizeof(map), "%s/02.2.1-spMspM/map.yaml", unit_conformance_dir());
	snprintf(ta, sizeof(ta), "A=%s", fa);
	snprintf(tb, sizeof(tb), "B=%s", fb);
	s = spec_set_load(paths, 2, &lo, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

/* Levels of 02.2.1: 0 Buffer (B, Z), 1 BackingStorage (A, B, Z); tensors A B Z. */
static void check_executor(const struct exec_result *r, const struct expect *e)
{
	const struct exec_tensor_stats *a_bs = exec_result_stats(r, 1, 0);
	const struct exec_tensor_stats *b_buf = exec_result_stats(r, 0, 1);
	const struct exec_tensor_stats *z_buf = exec_result_stats(r, 0, 2);

	CU_ASSERT_EQUAL(r->computes, 512);
	CU_ASSERT_EQUAL(r->computes_class[EXEC_ACTUAL], e->both);
	/* A at the backing store: zeros are not stored, reads skipped where B is zero */
	CU_ASSERT_EQUAL(a_bs->reads.algorithmic, 512);
	CU_ASSERT_EQUAL(a_bs->reads.n[EXEC_ACTUAL], e->both);
	CU_ASSERT_EQUAL(a_bs->reads.n[EXEC_SKIPPED], e->a_only);
	CU_ASSERT_EQUAL(a_bs->max_occupancy, e->nnz_a);
	CU_ASSERT_DOUBLE_EQUAL(a_bs->max_md_units[0], (double)e->nnz_a, 1e-9);
	/*
	 * Format reads: each of the 512 A reads traverses 1/64 of the tile's
	 * metadata (CP: nnz(A) coordinates; UOP: 9 offsets); they are actual where
	 * B[n,k] != 0 (8 * nnz(B) computes) and skipped elsewhere.
	 */
	CU_ASSERT_DOUBLE_EQUAL(a_bs->fmt_reads.md_units[EXEC_ACTUAL][0],
			       (double)e->nnz_a * 8.0 * (double)e->nnz_b / 64, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a_bs->fmt_reads.md_units[EXEC_SKIPPED][0],
			       (double)e->nnz_a * (512.0 - 8.0 * (double)e->nnz_b) / 64, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a_bs->fmt_reads.pl_units[EXEC_ACTUAL][1],
			       9.0 * 8.0 * (double)e->nnz_b / 64, 1e-9);
	/* B in the buffer: filled once (its non-zeros), read per compute */
	CU_ASSERT_EQUAL(b_buf->fills.n[EXEC_ACTUAL], e->nnz_b);
	CU_ASSERT_EQUAL(b_buf->reads.n[EXEC_ACTUAL], e->both);
	CU_ASSERT_EQUAL(b_buf->reads.n[EXEC_SKIPPED], e->b_only);
	CU_ASSERT_EQUAL(b_buf->max_occupancy, e->nnz_b);
	/* Z updated only where both operands are non-zero */
	CU_ASSERT_EQUAL(z_buf->updates.n[EXEC_ACTUAL], e->both);
	CU_ASSERT_EQUAL(z_buf->updates.n[EXEC_SKIPPED], 512 - e->both);
	CU_ASSERT_TRUE(r->numeric_checked && r->numeric_ok);
}

/*
 * The executor and the model agree exactly on what depends on each tensor's
 * own data: algorithmic counts, the occupancy of every compressed tile, its
 * offsets, and fills of compressed tiles (their non-zeros). Counts
 * under a SAF also depend on how the leader's and the follower's patterns
 * line up, which an expected-value model does not see; 'fiberloop validate'
 * shows those.
 */
static void check_model(const struct spec_set *s, const struct exec_result *r)
{
	struct model_result *mr = calloc(1, sizeof(*mr));
	struct model_ws *ws = model_ws_new(s, NULL, NULL);
	unsigned l, t, k;
	bool sparse_model;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, mr), 0);
	CU_ASSERT_EQUAL(mr->compute.algorithmic, r->computes);
	/* the model's sparse analysis is active when it removes some compute */
	sparse_model = mr->compute.random < mr->compute.algorithmic;
	for (l = 0; l < r->n_levels; l++)
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			const struct model_tile *mt = &mr->tiles[l][t];
			if (!st->kept)
				continue;
			CU_ASSERT_TRUE(mt->is_kept);
			CU_ASSERT_EQUAL(mt->reads, st->reads.algorithmic / st->instances);
			CU_ASSERT_EQUAL(mt->fills, st->fills.algorithmic / st->instances);
			CU_ASSERT_EQUAL(mt->updates, st->updates.algorithmic / st->instances);
			if (!sparse_model || !st->has_format)
				continue;
			CU_ASSERT_EQUAL(mt->utilized_capacity, st->max_occupancy);
			CU_ASSERT_EQUAL(mt->actions[MODEL_OP_RANDOM_FILL], st->fills.n[EXEC_ACTUAL]);
			/*
			 * Format capacities: offsets (payload) agree exactly; coordinates are
			 * Sparseloop's F' * ceil(f * (1 - P0)), the expected non-zeros per fiber
			 * rounded up, so the model may exceed the actual count by less than one
			 * per fiber (docs/executor.md).
			 */
			for (k = 0; k < st->n_format_ranks && k < MODEL_MAX_FMT_RANKS; k++) {
				double md = (double)mt->fmt_capacity[k][0];
				CU_ASSERT_EQUAL(mt->fmt_capacity[k][1], (uint64_t)st->max_pl_units[k]);
				CU_ASSERT_TRUE(md >= st->max_md_units[k] && md < st->max_md_units[k] + N);
			}
		}
	model_ws_free(ws);
	free(mr);
}

static void check_pattern(enum pattern pa, enum pattern pb)
{
	bool a[N][N], b[N][N];
	char fa[256], fb[256];
	struct expect e;
	struct spec_set *s;
	struct exec_result r1, r2;
	struct exec_options o1 = EXEC_OPTIONS_INIT, o2 = EXEC_OPTIONS_INIT;

	make_pattern(pa, 11, a);
	make_pattern(pb, 12, b);
	brute_force(a, b, &e);
	CU_ASSERT_TRUE(e.both > 0 && e.a_only + e.b_only > 0);
	snprintf(fa, sizeof(fa), "/tmp/fiberloop-test-actual-%ld-a.mtx", (long)getpid());
	snprintf(fb, sizeof(fb), "/tmp/fiberloop-test-actual-%ld-b.mtx", (long)getpid());
	write_mtx(fa, a);
	write_mtx(fb, b);
	s = load(fa, fb);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	o2.seed = 99;
	CU_ASSERT_EQUAL_FATAL(exec_run(s, &o1, &r1), 0);
	CU_ASSERT_EQUAL_FATAL(exec_run(s, &o2, &r2), 0);
	/* actual data: nothing depends on the seed */
	CU_ASSERT_EQUAL(memcmp(r1.stats, r2.stats, r1.n_levels * r1.n_tensors * sizeof(*r1.stats)),
			0);
	check_executor(&r1, &e);
	check_model(s, &r1);
	exec_result_release(&r1);
	exec_result_release(&r2);
	spec_set_free(s);
	unlink(fa);
	unlink(fb);
}

static void test_banded(void) { check_pattern(BANDED, BANDED); }
static void test_power_law(void) { check_pattern(POWER_LAW, BANDED); }
static void test_blocks(void) { check_pattern(BLOCKS, POWER_LAW); }

CU_TestInfo actual_tests[] = {
	{ "banded matrices", test_banded },
	{ "power-law rows", test_power_law },
	{ "block-structured", test_blocks },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "actual data", .pTests = actual_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
