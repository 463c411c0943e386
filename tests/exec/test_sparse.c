/*
 * Sparse execution. Exact checks where the tensors leave no randomness
 * (fixed_structured densities of tiles that are whole strata), and on every
 * small sparse conformance case: the executor's mean over 30 seeds lies
 * within 3 standard errors (or 1%, or one count for Sparseloop's rounding)
 * of Sparseloop's expected value for every actual / gated / skipped scalar
 * and format count and every compute class, except the differences listed
 * (and explained in docs/executor.md).
 */
#include "exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/exec/refstats.h"
#include "tests/exec/tspec.h"
#include "tests/unit.h"
#include "util/diag.h"

#define N_SEEDS 30

static struct spec_set *load_case(const char *name)
{
	static const char *const files[] = { "input.yaml", "map.yaml" };
	return unit_load_case(name, files, 2, false);
}

/* ----------------------------------------------------- exact small cases */

/*
 * 01.2.2: A[K] has density 0.25 over K = 16 (4 non-zeros), B dense; B and Z
 * gated on A at the Buffer. Every count is determined: 4 computes happen,
 * B is read 4 times and gated 12, Z updated 4 times.
 */
static void test_gating_dot_product(void)
{
	struct spec_set *s = load_case("01.2.2-SUDU-dot-product");
	struct exec_result r;
	const struct exec_tensor_stats *b, *z;
	unsigned seed;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (seed = 1; seed <= 5; seed++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		opt.seed = seed;
		CU_ASSERT_EQUAL_FATAL(exec_run(s, &opt, &r), 0);
		b = exec_result_stats(&r, 0, 1);
		z = exec_result_stats(&r, 0, 2);
		CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], 4);
		CU_ASSERT_EQUAL(b->reads.n[EXEC_ACTUAL], 4);
		CU_ASSERT_EQUAL(b->reads.n[EXEC_GATED], 12);
		CU_ASSERT_EQUAL(z->updates.n[EXEC_ACTUAL], 4);
		CU_ASSERT_EQUAL(z->updates.n[EXEC_GATED], 12);
		/* the first update of Z needs no read: 15 reads, 3 or 4 of them actual */
		CU_ASSERT_EQUAL(z->reads.algorithmic, 15);
		CU_ASSERT_EQUAL(z->reads.n[EXEC_ACTUAL] + z->reads.n[EXEC_GATED], 15);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_result_release(&r);
	}
	spec_set_free(s);
}

/*
 * 01.2.3: A compressed in one CP rank: its 12 zeros are never read, and the
 * CP metadata holds exactly the 4 coordinates of its non-zeros.
 */
static void test_compressed_dot_product(void)
{
	struct spec_set *s = load_case("01.2.3-SCDU-dot-product");
	struct exec_result r;
	const struct exec_tensor_stats *a, *b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(exec_run(s, NULL, &r), 0);
	a = exec_result_stats(&r, 0, 0);
	b = exec_result_stats(&r, 0, 1);
	CU_ASSERT_EQUAL(a->reads.algorithmic, 16);
	CU_ASSERT_EQUAL(a->reads.n[EXEC_ACTUAL], 4);
	CU_ASSERT_EQUAL(a->max_occupancy, 4);
	CU_ASSERT_TRUE(a->has_format);
	CU_ASSERT_DOUBLE_EQUAL(a->max_md_units[0], 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a->max_pl_units[0], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a->fmt_reads.md_units[EXEC_ACTUAL][0], 4, 1e-9);
	CU_ASSERT_EQUAL(b->reads.n[EXEC_SKIPPED], 12);
	CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], 4);
	exec_result_release(&r);
	spec_set_free(s);
}

static double ref_rank(const struct refstats *rs, const char *lv, const char *tn,
		       const char *label, unsigned r, int which);

/* ------------------------------------------------------ fibertree layout */

/*
 * Which loops form which rank decides every fiber shape, and so the units a
 * tile needs. The largest units per rank equal Sparseloop's capacities:
 * exactly for the offset ranks (they do not depend on the values here), and
 * within one unit for the coordinate ranks (the executor's non-zero count is
 * the expected count rounded either way).
 */
static void check_layout(const char *name)
{
	struct spec_set *s = load_case(name);
	struct exec_result r;
	struct refstats rs;
	char ref[1024];
	unsigned l, t, k, n_cmp = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	snprintf(ref, sizeof(ref), "%s/%s/ref.stats.txt", unit_conformance_dir(), name);
	CU_ASSERT_EQUAL_FATAL(refstats_load(&rs, ref), 0);
	CU_ASSERT_EQUAL_FATAL(exec_run(s, NULL, &r), 0);
	for (l = 0; l < r.n_levels; l++)
		for (t = 0; t < r.n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(&r, l, t);
			const char *lv = s->arch.levels[l].name, *tn = s->workload.tensors[t].name;
			if (!st->has_format)
				continue;
			for (k = 0; k < st->n_format_ranks; k++) {
				const char *lb = "Max utilized Repr format storage capacity";
				double md = ref_rank(&rs, lv, tn, lb, k, 0), pl = ref_rank(&rs, lv, tn, lb, k, 1);
				CU_ASSERT_DOUBLE_EQUAL(st->max_md_units[k], md, 1.0);
				CU_ASSERT_DOUBLE_EQUAL(st->max_pl_units[k], pl, 0);
				n_cmp++;
			}
		}
	CU_ASSERT_TRUE(n_cmp >= 2);
	exec_result_release(&r);
	refstats_release(&rs);
	spec_set_free(s);
}

static void test_layout(void)
{
	check_layout("02.2.1-spMspM");
	check_layout("02.2.2-spMspM-tiled");    /* B pre-tiled at the backing store: 3 ranks */
	check_layout("03.2.2-conv1d+oc");
	check_layout("03.2.3-conv1d+oc-spatial");
}

/* ------------------------------------------------------- named formats */

/*
 * Named formats expanded by the executor: A[M,K] (4 x 8, 2:4 along K, so
 * 16 non-zeros, two in every row half) at a Buffer whose loops are K8
 * inside M4, and again at a backing store above it (pre-tiled: the
 * Buffer's ranks plus one of fiber shape 1 on top). Units of the largest
 * tile, rank 0 innermost: CSR/CSC are offsets of the 4 rows (5) over 16
 * coordinates; COO one list of 16 coordinates; bitmask 4 row bits over 4 x
 * 8 bits; CSF 4 row coordinates over 16; 2:4 the 16 group indices under an
 * uncompressed rank.
 */
static void test_named_formats(void)
{
	static const uint64_t b[] = { 4, 8 };
	static const struct {
		enum spec_named_format named;
		unsigned ranks;                /* at the Buffer; one more above */
		double md[2], pl[2];           /* Buffer ranks 0, 1 */
		double top_md, top_pl;         /* the backing store's top rank */
	} rows[] = {
		{ SPEC_NAMED_CSR, 2, { 16, 0 }, { 0, 5 }, 0, 2 },
		{ SPEC_NAMED_CSC, 2, { 16, 0 }, { 0, 5 }, 0, 2 },
		{ SPEC_NAMED_COO, 1, { 16, 0 }, { 0, 0 }, 1, 1 },
		{ SPEC_NAMED_BITMASK, 2, { 32, 4 }, { 0, 4 }, 1, 1 },
		{ SPEC_NAMED_CSF, 2, { 16, 4 }, { 0, 4 }, 1, 1 },
		{ SPEC_NAMED_NM, 2, { 16, 0 }, { 0, 0 }, 0, 0 },
	};
	size_t i;
	unsigned r;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct exec_tensor_stats *buf, *bs;
		struct exec_result res;
		struct tspec ts;
		tspec_init(&ts, "MK", b);
		tspec_tensor(&ts, "A", "M,K", false);
		tspec_tensor(&ts, "B", "K", false);
		tspec_tensor(&ts, "Z", "M", true);
		tspec_density_nm(&ts, 0, 2, 4, 'K');
		tspec_level(&ts, "Buffer", 1, 1);
		tspec_keep(&ts, 0, "*");
		tspec_level(&ts, "Backing", 1, 1);
		tspec_keep(&ts, 1, "*");
		tspec_temporal(&ts, 0, "K8 M4", "KM");
		tspec_named_format(&ts, 0, 0, rows[i].named, 2, 4);
		tspec_named_format(&ts, 1, 0, rows[i].named, 2, 4);
		CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, NULL, &res), 0);
		buf = exec_result_stats(&res, 0, 0);
		bs = exec_result_stats(&res, 1, 0);
		CU_ASSERT_EQUAL(buf->n_format_ranks, rows[i].ranks);
		CU_ASSERT_EQUAL(bs->n_format_ranks, rows[i].ranks + 1);
		CU_ASSERT_EQUAL(buf->max_occupancy, 16);
		for (r = 0; r < rows[i].ranks; r++) {
			CU_ASSERT_DOUBLE_EQUAL(buf->max_md_units[r], rows[i].md[r], 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(buf->max_pl_units[r], rows[i].pl[r], 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(bs->max_md_units[r], rows[i].md[r], 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(bs->max_pl_units[r], rows[i].pl[r], 1e-9);
		}
		CU_ASSERT_DOUBLE_EQUAL(bs->max_md_units[r], rows[i].top_md, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(bs->max_pl_units[r], rows[i].top_pl, 1e-9);
		/* the zeros of A are not stored, so not read */
		CU_ASSERT_EQUAL(buf->reads.n[EXEC_ACTUAL], 16);
		CU_ASSERT_TRUE(res.numeric_ok);
		exec_result_release(&res);
		tspec_release(&ts);
	}
}

/* ---------------------------------------------------- spatial skipping */

/*
 * B[K] under a GLB that fans K4 out to 4 register files holding K2 tiles,
 * spatially skipped on A[K] (0.25, compressed at the GLB): a register file
 * whose K2 window of A is empty gets no work. Counted from the tensor
 * itself, with e empty windows of the 32: the computes in them do not
 * exist (64 - 2e happen), the files receive and read 2(32 - e) words of B,
 * the GLB skips the 2e reads no busy file needs, and the busy files per
 * step (16 steps, each window spans 2) are 2(32 - e) / 16 on average.
 */
static void test_spatial_skip(void)
{
	static const uint64_t b[] = { 64, 1 };
	unsigned seed;

	for (seed = 1; seed <= 5; seed++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		const struct exec_tensor_stats *rf, *glb;
		struct exec_tensor *a;
		struct exec_result r;
		struct tspec ts;
		uint64_t e = 0, busy_max = 0, w, k;
		char why[256];
		tspec_init(&ts, "KM", b);
		tspec_tensor(&ts, "A", "K", false);
		tspec_tensor(&ts, "B", "K", false);
		tspec_tensor(&ts, "Z", "M", true);
		tspec_density(&ts, 0, SPEC_DENSITY_FIXED_STRUCTURED, 0.25);
		tspec_level(&ts, "RF", 4, 1);
		tspec_keep(&ts, 0, "01");
		tspec_level(&ts, "GLB", 1, 1);
		tspec_keep(&ts, 1, "*");
		tspec_level(&ts, "DRAM", 1, 1);
		tspec_keep(&ts, 2, "*");
		tspec_temporal(&ts, 0, "K2", "K");
		tspec_spatial(&ts, 1, "K4", "K", 1);
		tspec_temporal(&ts, 1, "K8", "K");
		tspec_format(&ts, 1, 0, "UOP UOP CP");
		tspec_saf(&ts, 1, SPEC_SAF_SPATIAL_SKIPPING, 1, "0");
		CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
		a = exec_tensor_new(&ts.s.workload, 0, seed, why);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		for (k = 0; k < 8; k++) {
			uint64_t busy = 0;
			for (w = 0; w < 4; w++) {
				uint64_t k0 = 2 * (k * 4 + w);
				bool empty = exec_tensor_get(a, &k0) == 0 &&
					     exec_tensor_get(a, (uint64_t[]){ k0 + 1 }) == 0;
				e += empty;
				busy += !empty;
			}
			busy_max = busy > busy_max ? busy : busy_max;
		}
		opt.seed = seed;
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, &opt, &r), 0);
		rf = exec_result_stats(&r, 0, 1);
		glb = exec_result_stats(&r, 1, 1);
		CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], 64 - 2 * e);
		CU_ASSERT_EQUAL(rf->fills.n[EXEC_ACTUAL], 2 * (32 - e));
		CU_ASSERT_EQUAL(rf->reads.n[EXEC_ACTUAL], 2 * (32 - e));
		CU_ASSERT_EQUAL(glb->reads.algorithmic, 64);
		CU_ASSERT_EQUAL(glb->reads.n[EXEC_SKIPPED], 2 * e);
		CU_ASSERT_EQUAL(glb->reads.n[EXEC_ACTUAL], 64 - 2 * e);
		CU_ASSERT_EQUAL(r.compute_busy_max, busy_max);
		CU_ASSERT_DOUBLE_EQUAL(r.compute_busy_avg, (double)(32 - e) / 8, 1e-12);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_tensor_free(a);
		exec_result_release(&r);
		tspec_release(&ts);
	}
}

/*
 * 2:4 on a tensor core: A[M,K] (4 x 8, 2:4 along K) in the N:M format,
 * K8 spread along X and M4 along Y (32 logical units) under SMEM, B and Z
 * spatially skipped on A. Every step, each row has exactly 4 non-zeros in
 * its 8 positions: 16 units have work, never more (the 2:4 mapping fits
 * 16 MACs), and half the computes exist. B[k, n] goes to the 4 rows at
 * once, so SMEM skips its read only when A's column k is all zero.
 */
static void test_spatial_skip_2to4(void)
{
	static const uint64_t b[] = { 4, 2, 8 };
	unsigned seed;

	for (seed = 1; seed <= 5; seed++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		struct exec_tensor *a;
		struct exec_result r;
		struct tspec ts;
		uint64_t k, m, empty_cols = 0;
		char why[256];
		tspec_init(&ts, "MNK", b);
		tspec_tensor(&ts, "A", "M,K", false);
		tspec_tensor(&ts, "B", "K,N", false);
		tspec_tensor(&ts, "Z", "M,N", true);
		tspec_density_nm(&ts, 0, 2, 4, 'K');
		tspec_level(&ts, "SMEM", 1, 1);
		tspec_keep(&ts, 0, "*");
		tspec_spatial(&ts, 0, "K8 M4", "KM", 1);
		tspec_temporal(&ts, 0, "N2", "N");
		tspec_named_format(&ts, 0, 0, SPEC_NAMED_NM, 2, 4);
		tspec_saf(&ts, 0, SPEC_SAF_SPATIAL_SKIPPING, 1, "0");
		tspec_saf(&ts, 0, SPEC_SAF_SPATIAL_SKIPPING, 2, "0");
		CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
		a = exec_tensor_new(&ts.s.workload, 0, seed, why);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		for (k = 0; k < 8; k++) {
			bool empty = true;
			for (m = 0; m < 4; m++)
				empty &= exec_tensor_get(a, (uint64_t[]){ m, k }) == 0;
			empty_cols += empty;
		}
		opt.seed = seed;
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, &opt, &r), 0);
		CU_ASSERT_EQUAL(r.compute_instances, 32);
		CU_ASSERT_EQUAL(r.compute_busy_max, 16);
		CU_ASSERT_DOUBLE_EQUAL(r.compute_busy_avg, 16, 0);
		CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], 32);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 1)->reads.algorithmic, 16);
		CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 1)->reads.n[EXEC_SKIPPED], 2 * empty_cols);
		/* each Z[m, n] still gets one reduced update: every row has work */
		CU_ASSERT_EQUAL(exec_result_stats(&r, 0, 2)->updates.n[EXEC_ACTUAL], 8);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_tensor_free(a);
		exec_result_release(&r);
		tspec_release(&ts);
	}
}

/*
 * The same through two hops (examples/stc-flexible's shape): SMEM spreads
 * M2 over two register files that keep only Z, each fans K8 M4 out to its
 * MACs, B (bypassing the files) goes from SMEM to the 8 rows of A at once.
 * The two halves usually need different columns of B (a column all zero
 * in one half's 4 rows but not in the other's), but one SMEM read of
 * B[k, n] still serves both: SMEM skips it only when column k of all 8
 * rows is zero, and never reads more than without the skip.
 */
static void test_spatial_skip_two_hops(void)
{
	static const uint64_t b[] = { 8, 2, 8 };
	unsigned seed, differ = 0;

	for (seed = 1; seed <= 8; seed++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		const struct exec_tensor_stats *smem;
		struct exec_tensor *a;
		struct exec_result r;
		struct tspec ts;
		uint64_t k, m, empty_cols = 0;
		char why[256];
		tspec_init(&ts, "MNK", b);
		tspec_tensor(&ts, "A", "M,K", false);
		tspec_tensor(&ts, "B", "K,N", false);
		tspec_tensor(&ts, "Z", "M,N", true);
		tspec_density_nm(&ts, 0, 2, 4, 'K');
		tspec_level(&ts, "RF", 2, 1);
		tspec_keep(&ts, 0, "2");
		tspec_level(&ts, "SMEM", 1, 1);
		tspec_keep(&ts, 1, "*");
		tspec_spatial(&ts, 0, "K8 M4", "KM", 1);
		tspec_spatial(&ts, 1, "M2", "M", 0);
		tspec_temporal(&ts, 1, "N2", "N");
		tspec_named_format(&ts, 1, 0, SPEC_NAMED_NM, 2, 4);
		tspec_saf(&ts, 0, SPEC_SAF_SPATIAL_SKIPPING, 1, "0");
		tspec_saf(&ts, 0, SPEC_SAF_SPATIAL_SKIPPING, 2, "0");
		CU_ASSERT_EQUAL_FATAL(tspec_finish(&ts), 0);
		a = exec_tensor_new(&ts.s.workload, 0, seed, why);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		for (k = 0; k < 8; k++) {
			bool half[2] = { true, true };
			for (m = 0; m < 8; m++)
				half[m / 4] &= exec_tensor_get(a, (uint64_t[]){ m, k }) == 0;
			empty_cols += half[0] && half[1];
			differ += half[0] != half[1];
		}
		opt.seed = seed;
		CU_ASSERT_EQUAL_FATAL(exec_run(&ts.s, &opt, &r), 0);
		smem = exec_result_stats(&r, 1, 1);
		CU_ASSERT_EQUAL(smem->reads.algorithmic, 16);
		CU_ASSERT_EQUAL(smem->reads.n[EXEC_ACTUAL], 2 * (8 - empty_cols));
		CU_ASSERT_EQUAL(smem->reads.n[EXEC_SKIPPED], 2 * empty_cols);
		CU_ASSERT_EQUAL(r.computes_class[EXEC_ACTUAL], 64);
		CU_ASSERT_TRUE(r.numeric_ok);
		exec_tensor_free(a);
		exec_result_release(&r);
		tspec_release(&ts);
	}
	CU_ASSERT(differ > 0);   /* the case the test is about happens */
}

/* --------------------------------------------- means vs Sparseloop's values */

struct sample {
	char key[200];
	double ref, sum, sumsq;
	unsigned n;
};

struct samples {
	size_t n;
	struct sample v[4096];
};

static void add(struct samples *ss, size_t *at, const char *key, double ref, double v)
{
	struct sample *p;
	if (*at == ss->n) {
		CU_ASSERT_FATAL(ss->n < sizeof(ss->v) / sizeof(ss->v[0]));
		p = &ss->v[ss->n++];
		memset(p, 0, sizeof(*p));
		snprintf(p->key, sizeof(p->key), "%s", key);
		p->ref = ref;
	}
	p = &ss->v[(*at)++];
	p->sum += v;
	p->sumsq += v * v;
	p->n++;
}

static double ref_num(const struct refstats *rs, const char *lv, const char *tn, const char *lb)
{
	const char *v = refstats_get(rs, lv, tn, lb);
	return v ? strtod(v, NULL) : NAN;
}

/* Reference units of 'label' rank r: metadata (which 0) or payload (1); 0 when absent. */
static double ref_rank(const struct refstats *rs, const char *lv, const char *tn,
		       const char *label, unsigned r, int which)
{
	char full[200];
	const char *v;
	double md, pl;

	snprintf(full, sizeof(full), "%.160s | Rank %u", label, r);
	v = refstats_get(rs, lv, tn, full);
	if (!v || sscanf(v, "%lf %lf", &md, &pl) != 2)
		return 0;
	return which ? pl : md;
}

static const char *const class_names[] = { "Actual", "Gated", "Skipped" };
static const char *const op_names[] = { "reads", "fills", "updates" };

static void sample_tensor(struct samples *ss, size_t *at, const struct refstats *rs,
			  const char *lv, const char *tn, const struct exec_tensor_stats *st)
{
	const struct exec_access *acc[] = { &st->reads, &st->fills, &st->updates };
	const struct exec_format_access *fa[] = { &st->fmt_reads, &st->fmt_fills,
						  &st->fmt_updates };
	char label[160], key[200];
	double n = (double)st->instances;
	unsigned op, k, r;
	int w;

	for (op = 0; op < 3; op++)
		for (k = 0; k < EXEC_N_CLASSES; k++) {
			snprintf(label, sizeof(label), "%s scalar %s (per-instance)", class_names[k],
				 op_names[op]);
			snprintf(key, sizeof(key), "%s %s %s", lv, tn, label);
			add(ss, at, key, ref_num(rs, lv, tn, label), (double)acc[op]->n[k] / n);
		}
	for (op = 0; op < 3 && st->has_format; op++)
		for (k = 0; k < EXEC_N_CLASSES; k++)
			for (r = 0; r < st->n_format_ranks; r++)
				for (w = 0; w < 2; w++) {
					const double *u = w ? fa[op]->pl_units[k] : fa[op]->md_units[k];
					snprintf(label, sizeof(label), "%s scalar format %s (per-instance)",
						 class_names[k], op_names[op]);
					snprintf(key, sizeof(key), "%s %s %s rank %u %s", lv, tn, label, r,
						 w ? "payload" : "metadata");
					add(ss, at, key, ref_rank(rs, lv, tn, label, r, w), u[r] / n);
				}
}

static void sample_run(struct samples *ss, const struct refstats *rs, const struct spec_set *s,
		       const struct exec_result *r)
{
	static const char *const labels[] = { "Actual Computes (total)", "Gated Computes (total)",
					      "Skipped Computes (total)" };
	const char *mac = s->arch.compute.name;
	size_t at = 0;
	unsigned l, t, k;

	for (k = 0; k < EXEC_N_CLASSES; k++)
		add(ss, &at, labels[k], ref_num(rs, mac, "", labels[k]),
		    (double)r->computes_class[k]);
	for (l = 0; l < r->n_levels; l++)
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (st->kept)
				sample_tensor(ss, &at, rs, s->arch.levels[l].name,
					      s->workload.tensors[t].name, st);
		}
}

/*
 * Where Sparseloop's expected-value model departs from a real execution
 * (docs/executor.md explains each): the executor's mean and the reference
 * legitimately differ by more than the tolerance.
 */
static const struct {
	const char *name, *key;
} known_differences[] = {
	/*
	 * "Skip Outputs on Weights" acts at BackingStorage (Buffer bypasses the
	 * Outputs) on windows of 4 M (one block). Sparseloop's fixed_structured
	 * model gives every 4-weight tile 4 * 0.4333 = 1.73 non-zeros, so it
	 * never skips; real weights spread evenly along their rows leave ~11% of
	 * those windows empty, and the executor skips them.
	 */
	{ "03.2.2-conv1d+oc", "BackingStorage Outputs Actual scalar reads (per-instance)" },
	{ "03.2.2-conv1d+oc", "BackingStorage Outputs Skipped scalar reads (per-instance)" },
	{ "03.2.2-conv1d+oc", "BackingStorage Outputs Actual scalar updates (per-instance)" },
	{ "03.2.2-conv1d+oc", "BackingStorage Outputs Skipped scalar updates (per-instance)" },
};

static bool known(const char *name, const char *key)
{
	size_t i;
	for (i = 0; i < sizeof(known_differences) / sizeof(known_differences[0]); i++)
		if (!strcmp(known_differences[i].name, name) && !strcmp(known_differences[i].key, key))
			return true;
	return false;
}

static void check_means(const char *name)
{
	static struct samples ss;
	struct spec_set *s = load_case(name);
	struct refstats rs;
	char ref[1024];
	unsigned seed, bad = 0;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	snprintf(ref, sizeof(ref), "%s/%s/ref.stats.txt", unit_conformance_dir(), name);
	CU_ASSERT_EQUAL_FATAL(refstats_load(&rs, ref), 0);
	ss.n = 0;
	for (seed = 1; seed <= N_SEEDS; seed++) {
		struct exec_options opt = EXEC_OPTIONS_INIT;
		struct exec_result r;
		opt.seed = seed;
		CU_ASSERT_EQUAL_FATAL(exec_run(s, &opt, &r), 0);
		CU_ASSERT_TRUE(r.numeric_checked && r.numeric_ok);
		sample_run(&ss, &rs, s, &r);
		exec_result_release(&r);
	}
	for (i = 0; i < ss.n; i++) {
		const struct sample *p = &ss.v[i];
		double mean = p->sum / p->n;
		double var = (p->sumsq - p->sum * p->sum / p->n) / (p->n - 1);
		double se = var > 0 ? sqrt(var / p->n) : 0, d;
		if (isnan(p->ref))
			continue;
		d = fabs(p->ref - mean);
		if (d <= 3 * se + 1e-9 || d <= 0.01 * fabs(p->ref) || d <= 1.0)
			continue;
		if (known(name, p->key))
			continue;
		fprintf(stderr, "\n%s: %s: Sparseloop %.2f, executor %.2f +- %.2f", name, p->key,
			p->ref, mean, se);
		bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	refstats_release(&rs);
	spec_set_free(s);
}

static void test_sudu(void) { check_means("01.2.2-SUDU-dot-product"); }
static void test_scdu(void) { check_means("01.2.3-SCDU-dot-product"); }
static void test_spmspm(void) { check_means("02.2.1-spMspM"); }
static void test_spmspm_tiled(void) { check_means("02.2.2-spMspM-tiled"); }
static void test_conv1d(void) { check_means("03.2.1-conv1d"); }
static void test_conv1d_oc(void) { check_means("03.2.2-conv1d+oc"); }
static void test_conv1d_spatial(void) { check_means("03.2.3-conv1d+oc-spatial"); }

CU_TestInfo sparse_tests[] = {
	{ "gating: exact counts", test_gating_dot_product },
	{ "compression: exact counts", test_compressed_dot_product },
	{ "format ranks laid over the loops", test_layout },
	{ "named formats", test_named_formats },
	{ "spatial skipping: counts from the leader", test_spatial_skip },
	{ "spatial skipping: 2:4 on 16 of 32 units", test_spatial_skip_2to4 },
	{ "spatial skipping: one read serves both halves", test_spatial_skip_two_hops },
	{ "01.2.2 means = Sparseloop", test_sudu },
	{ "01.2.3 means = Sparseloop", test_scdu },
	{ "02.2.1 means = Sparseloop", test_spmspm },
	{ "02.2.2 means = Sparseloop", test_spmspm_tiled },
	{ "03.2.1 means = Sparseloop", test_conv1d },
	{ "03.2.2 means = Sparseloop", test_conv1d_oc },
	{ "03.2.3 means = Sparseloop", test_conv1d_spatial },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "sparse", .pTests = sparse_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
