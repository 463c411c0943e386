/*
 * The model against the reference executor on imperfect mappings
 * (tests/data/imperfect/): residuals at one to three loops, temporal and
 * spatial, at several levels, dense and sparse. Residuals counted exactly
 * (the default), every dense count agrees exactly: the computes, the
 * instances, the tile shapes, the words each level delivers and receives
 * summed over its instances, and the per-instance reads, fills, updates,
 * temporal reductions and partitions the stats print (the executor's total
 * over its instances, rounded). Sparse designs are compared as 'validate'
 * does: the model's expected values against the mean over 30 seeds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "model/model.h"
#include "specs/spec.h"
#include "tests/unit.h"
#include "util/xalloc.h"

struct vcase {
	const char *files[3];
	unsigned seeds;                /* 1: dense, compared exactly */
	uint64_t computes;             /* the op space, worked out by hand */
};

static const struct vcase cases[] = {
	{ { "conv1d.yaml", "conv1d-temporal.yaml" }, 1, 3 * 5 * 3 * 13 },
	{ { "conv1d.yaml", "conv1d-spatial.yaml" }, 1, 585 },
	{ { "conv1d.yaml", "conv1d-last-pe.yaml" }, 1, 585 },
	{ { "conv1d.yaml", "conv1d-two.yaml" }, 1, 585 },
	{ { "conv1d.yaml", "conv1d-three.yaml" }, 1, 585 },
	{ { "matmul-2d.yaml" }, 1, 7 * 5 * 3 },
	{ { "issue328.yaml" }, 1, 512 },
	{ { "conv1d-glb.yaml" }, 1, 585 },
	{ { "issue300-small.yaml", "issue300-small-map.yaml" }, 1, 4 * 8 * 9 * 49 },
	{ { "issue300-small.yaml", "issue300-small-pad.yaml" }, 1, 4 * 8 * 9 * 8 * 7 },
	{ { "sparse.yaml", "sparse-map.yaml" }, 30, 9 * 13 * 5 },
};

static struct spec_set *load(const struct vcase *vc)
{
	char dir[2048];
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s", unit_data_path("imperfect"));
	while (n < 3 && vc->files[n])
		n++;
	return unit_load_files(dir, vc->files, n, true);
}

/* Per instance as the stats print it: the executor's total, rounded. */
static uint64_t per_instance(uint64_t total, uint64_t instances)
{
	return instances ? (uint64_t)llround((double)total / (double)instances) : 0;
}

static void check_tile_exact(const struct spec_set *s, unsigned l, unsigned t,
			     const struct model_tile *mt, const struct exec_tensor_stats *st)
{
	bool rw = s->workload.tensors[t].read_write;
	double rep = (double)mt->replication;
	uint64_t n = st->instances;

	if (!st->kept && !mt->is_kept)
		return;
	CU_ASSERT_EQUAL(mt->replication, n);
	CU_ASSERT_EQUAL(mt->shape, st->tile_shape);
	CU_ASSERT_EQUAL(mt->reads, per_instance(st->reads.algorithmic, n));
	CU_ASSERT_EQUAL(mt->fills, per_instance(st->fills.algorithmic, n));
	CU_ASSERT_EQUAL(mt->updates, per_instance(st->updates.algorithmic, n));
	if (rw) {
		/* the updates the level receives, over its instances */
		CU_ASSERT_DOUBLE_EQUAL(mt->content_accesses * rep, (double)st->updates.algorithmic,
				       1e-6);
		CU_ASSERT_EQUAL(mt->partition_size, per_instance(st->partition, n));
		CU_ASSERT_EQUAL(mt->temporal_reductions, per_instance(st->temporal_reductions, n));
	} else {
		/* the words it delivers and receives, over its instances */
		CU_ASSERT_DOUBLE_EQUAL((mt->content_accesses + mt->peer_accesses) * rep,
				       (double)st->reads.algorithmic, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL((mt->parent_access_share + mt->peer_fills) * rep,
				       (double)st->fills.algorithmic, 1e-6);
	}
	if (CU_get_number_of_failures())
		fprintf(stderr, "  level %u tensor %s: model %llu/%llu/%llu x %llu, exec %llu/%llu/%llu "
			"over %llu\n", l, s->workload.tensors[t].name,
			(unsigned long long)mt->reads, (unsigned long long)mt->fills,
			(unsigned long long)mt->updates, (unsigned long long)mt->replication,
			(unsigned long long)st->reads.algorithmic,
			(unsigned long long)st->fills.algorithmic,
			(unsigned long long)st->updates.algorithmic, (unsigned long long)n);
}

/* One field of a sparse case: within 3 standard errors, 1%, or one count. */
static bool near_mean(double model, double sum, double sumsq, unsigned k)
{
	double mean = sum / k, var = k > 1 ? (sumsq - sum * sum / k) / (k - 1) : 0;
	double se = var > 0 ? sqrt(var / k) : 0;
	return fabs(model - mean) <= 3 * se + 1e-9 || fabs(model - mean) <= 0.01 * fabs(mean) ||
	       fabs(model - mean) <= 1.0;
}

/* The fields of 'validate' for one tile, summed over the seeds. */
struct tsum {
	double v[7][2];
};

static void add_sparse(struct tsum *ts, const struct exec_tensor_stats *st)
{
	const uint64_t x[7] = { st->reads.n[EXEC_ACTUAL], st->reads.n[EXEC_GATED],
				st->reads.n[EXEC_SKIPPED], st->fills.n[EXEC_ACTUAL],
				st->updates.n[EXEC_ACTUAL], st->updates.n[EXEC_GATED],
				st->updates.n[EXEC_SKIPPED] };
	unsigned i;

	for (i = 0; i < 7; i++) {
		double v = (double)x[i] / (double)(st->instances ? st->instances : 1);
		ts->v[i][0] += v;
		ts->v[i][1] += v * v;
	}
}

static void check_sparse(const struct spec_set *s, const struct vcase *vc,
			 const struct model_result *mr)
{
	struct tsum *ts = xcalloc(SPEC_MAX_LEVELS * SPEC_MAX_TENSORS, sizeof(*ts));
	double comp[3][2] = { { 0 } };
	unsigned k, l, t, i;

	for (k = 0; k < vc->seeds; k++) {
		struct exec_options eo = EXEC_OPTIONS_INIT;
		struct exec_result r;
		eo.seed = k + 1;
		CU_ASSERT_EQUAL_FATAL(exec_run(s, &eo, &r), 0);
		CU_ASSERT(r.numeric_ok);
		CU_ASSERT_EQUAL(r.computes, vc->computes);
		for (i = 0; i < 3; i++) {
			comp[i][0] += (double)r.computes_class[i];
			comp[i][1] += (double)r.computes_class[i] * (double)r.computes_class[i];
		}
		for (l = 0; l < r.n_levels; l++)
			for (t = 0; t < r.n_tensors; t++)
				add_sparse(&ts[l * SPEC_MAX_TENSORS + t], exec_result_stats(&r, l, t));
		exec_result_release(&r);
	}
	CU_ASSERT(near_mean((double)mr->compute.random, comp[0][0], comp[0][1], vc->seeds));
	CU_ASSERT(near_mean((double)mr->compute.gated, comp[1][0], comp[1][1], vc->seeds));
	CU_ASSERT(near_mean((double)mr->compute.skipped, comp[2][0], comp[2][1], vc->seeds));
	for (l = 0; l < s->arch.n_levels; l++) {
		for (t = 0; t < s->workload.n_tensors; t++) {
			const struct model_tile *mt = &mr->tiles[l][t];
			const struct tsum *x = &ts[l * SPEC_MAX_TENSORS + t];
			const uint64_t m[7] = {
				mt->actions[MODEL_OP_RANDOM_READ], mt->actions[MODEL_OP_GATED_READ],
				mt->actions[MODEL_OP_SKIPPED_READ], mt->actions[MODEL_OP_RANDOM_FILL],
				mt->actions[MODEL_OP_RANDOM_UPDATE], mt->actions[MODEL_OP_GATED_UPDATE],
				mt->actions[MODEL_OP_SKIPPED_UPDATE] };
			if (!mt->is_kept)
				continue;
			for (i = 0; i < 7; i++) {
				bool ok = near_mean((double)m[i] * (mt->has_metadata ? mt->keep_ratio : 1),
						    x->v[i][0], x->v[i][1], vc->seeds);
				CU_ASSERT(ok);
				if (!ok)
					fprintf(stderr, "  level %u tensor %u field %u: model %llu, exec "
						"mean %.2f\n", l, t, i, (unsigned long long)m[i],
						x->v[i][0] / vc->seeds);
			}
		}
	}
	free(ts);
}

static void test_corpus(void)
{
	unsigned i, l, t;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vcase *vc = &cases[i];
		struct model_options mo = MODEL_OPTIONS_INIT;
		struct model_result *mr = xcalloc(1, sizeof(*mr));
		struct spec_set *s = load(vc);
		struct model_ws *ws;
		unsigned before = CU_get_number_of_failures();

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT(s->mapping->is_imperfect || s->mapping->pad_mask);
		ws = model_ws_new(s, &mo, NULL);
		CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, mr), 0);
		CU_ASSERT_EQUAL(mr->compute.algorithmic, vc->computes);
		if (vc->seeds > 1) {
			check_sparse(s, vc, mr);
		} else {
			struct exec_options eo = EXEC_OPTIONS_INIT;
			struct exec_result r;
			CU_ASSERT_EQUAL_FATAL(exec_run(s, &eo, &r), 0);
			CU_ASSERT(r.numeric_ok);
			CU_ASSERT_EQUAL(r.computes, mr->compute.algorithmic);
			CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], mr->compute.random);
			CU_ASSERT_EQUAL(r.compute_instances, (uint64_t)mr->compute.avg_replication);
			for (l = 0; l < r.n_levels; l++)
				for (t = 0; t < r.n_tensors; t++)
					check_tile_exact(s, l, t, &mr->tiles[l][t],
							 exec_result_stats(&r, l, t));
			exec_result_release(&r);
		}
		if (CU_get_number_of_failures() != before)
			fprintf(stderr, "case %u (%s %s) differs\n", i, vc->files[0],
				vc->files[1] ? vc->files[1] : "");
		model_ws_free(ws);
		spec_set_free(s);
		free(mr);
	}
}

/* Evaluate files[0..n) of tests/data/imperfect under 'mode' into 'mr'. */
static struct spec_set *eval_files(const char *const *files, size_t n, enum model_imperfect mode,
				   struct model_result *mr)
{
	struct model_options mo = MODEL_OPTIONS_INIT;
	struct spec_set *s = unit_load_files(unit_data_path("imperfect"), files, n, true);
	struct model_ws *ws;

	if (!s)
		return NULL;
	mo.imperfect = mode;
	ws = model_ws_new(s, &mo, NULL);
	if (model_eval(ws, s->mapping, mr) < 0) {
		fprintf(stderr, "infeasible: %s\n", mr->reason);
		spec_set_free(s);
		s = NULL;
	}
	model_ws_free(ws);
	return s;
}

/*
 * Timeloop issue #300: C = M = 2048, R = S = 3, P = Q = 7, the global
 * buffer's 16 PEs spread M4 and P4, its temporal loops C2048 M512 R3 S3 P2
 * Q7. Timeloop rejects P2 over P4 (8 for 7); with the residual, P=4,3
 * (Timeloop's form) or P=4+ (ours), the second round of P uses 3 PEs:
 *   computes  2048 x 2048 x 9 x 7 x 7 = 1 849 688 064
 *   cycles    the temporal steps, 2048 x 512 x 9 x 2 x 7 = 132 120 576
 *   utilization 1 849 688 064 / (16 x 132 120 576) = 7/8
 *   the buffer's Outputs updates: one per compute (M and P index them: no
 *   reduction between PEs), 1 849 688 064
 * Timeloop's extrapolation (--residuals timeloop) counts the same computes
 * and cycles, but 2 113 929 216 updates: Outputs bypass the register
 * files, so the buffer serves the PEs directly, and bypass masking scales
 * the representative PE's updates (PE 0 works in both rounds) by all 16.
 * Padded (pad: [P]), the 4 PEs compute an 8th row of padding: 2048 x 2048
 * x 9 x 8 x 7 = 2 113 929 216 computes in the same cycles, utilization
 * 100%, 7/8 of it useful.
 */
static void test_issue300(void)
{
	static const struct {
		const char *mapping;
		enum model_imperfect mode;
		bool padded;
		uint64_t updates;
	} rows[] = {
		{ "issue300-map.yaml", MODEL_IMPERFECT_EXACT, false, UINT64_C(1849688064) },
		{ "issue300-plus.yaml", MODEL_IMPERFECT_EXACT, false, UINT64_C(1849688064) },
		{ "issue300-map.yaml", MODEL_IMPERFECT_TIMELOOP, false, UINT64_C(2113929216) },
		{ "issue300-pad.yaml", MODEL_IMPERFECT_EXACT, true, UINT64_C(2113929216) },
	};
	const uint64_t useful = UINT64_C(1849688064), padded = UINT64_C(2113929216);
	struct model_result *mr = xcalloc(1, sizeof(*mr));
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *files[] = { "issue300.yaml", rows[i].mapping };
		struct spec_set *s = eval_files(files, 2, rows[i].mode, mr);
		uint64_t n = rows[i].padded ? padded : useful;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->mapping->is_imperfect, !rows[i].padded);
		CU_ASSERT_EQUAL(mr->algorithmic_computes, n);
		CU_ASSERT_EQUAL(mr->cycles, UINT64_C(132120576));
		CU_ASSERT_DOUBLE_EQUAL(mr->utilization, rows[i].padded ? 1.0 : 0.875, 1e-12);
		CU_ASSERT_EQUAL(mr->useful_computes, useful);
		CU_ASSERT_DOUBLE_EQUAL(mr->useful_utilization, 0.875, 1e-12);
		CU_ASSERT_EQUAL(mr->padded, rows[i].padded);
		CU_ASSERT_EQUAL(mr->tiles[1][2].updates, rows[i].updates);   /* GlobalBuffer, Outputs */
		CU_ASSERT_EQUAL(mr->tiles[1][2].replication, 1);
		spec_set_free(s);
	}
	free(mr);
}

/*
 * Timeloop issue #328: N = 8 over 6 MACs (N=6,2 spatial under N2), M = K
 * = 8 temporal at the buffer above them. Counted exactly, the second round
 * uses 2 MACs:
 *   computes  8 x 8 x 8 = 512; cycles 2 rounds x 64 steps = 128;
 *   utilization 512 / (6 x 128) = 2/3
 *   the buffer's reads of A (not indexed by N: one read multicast to the
 *   MACs of a round per step) 2 x 64 = 128; of B (one word per MAC per
 *   step) 6 x 64 + 2 x 64 = 512; Z: 512 updates, 512 - 64 = 448 reads
 *   (the first update of each output reads nothing)
 * Timeloop's extrapolation counts the second round as 6 MACs: 6 x 128 =
 * 768 = 8 x 12 x 8 computes, the figure the issue reports, utilization
 * 100%; the buffer's counts are the same.
 */
static void test_issue328(void)
{
	static const struct {
		enum model_imperfect mode;
		uint64_t computes;
		double utilization;
	} rows[] = {
		{ MODEL_IMPERFECT_EXACT, 512, 2.0 / 3.0 },
		{ MODEL_IMPERFECT_TIMELOOP, 768, 1.0 },
	};
	struct model_result *mr = xcalloc(1, sizeof(*mr));
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *files[] = { "issue328.yaml" };
		struct spec_set *s = eval_files(files, 1, rows[i].mode, mr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(mr->algorithmic_computes, rows[i].computes);
		CU_ASSERT_EQUAL(mr->cycles, 128);
		CU_ASSERT_DOUBLE_EQUAL(mr->utilization, rows[i].utilization, 1e-12);
		CU_ASSERT_EQUAL(mr->tiles[0][0].reads, 128);     /* Buffer, A */
		CU_ASSERT_EQUAL(mr->tiles[0][1].reads, 512);     /* Buffer, B */
		CU_ASSERT_EQUAL(mr->tiles[0][2].updates, 512);   /* Buffer, Z */
		CU_ASSERT_EQUAL(mr->tiles[0][2].reads, 448);
		spec_set_free(s);
	}
	free(mr);
}

static CU_TestInfo tests[] = {
	{ "imperfect mappings: model = executor", test_corpus },
	{ "Timeloop issue #300", test_issue300 },
	{ "Timeloop issue #328", test_issue328 },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "vs_exec", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
