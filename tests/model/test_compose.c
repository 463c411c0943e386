/*
 * compose.c: composable formats, the model against the executor. A small
 * matrix worked by hand (every count of every part of hyb(2, 1) and of a
 * BSR + CSR split); a corpus of generated matrices (uniform and power-law
 * row lengths, shapes that do and do not divide the blocks) under hyb(c, k)
 * with either remainder, BSR blocks first, and hand-given CSR / COO / ELL
 * parts: every count of every part equal to the executor's, which builds the
 * arrays, runs the SpMM and checks C; the corpus exercises padding, split
 * rows, atomic updates of the shared output and blocks. The loader's
 * located errors for parts that leave a gap or overlap. The search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/compose.h"
#include "model/compose.h"
#include "specs/compose.h"
#include "tests/unit.h"
#include "util/xalloc.h"

struct mat {
	struct spec_matrix m;
	uint64_t *coords;
	double *values;
};

static void mat_init(struct mat *x, uint64_t rows, uint64_t cols, size_t nnz)
{
	memset(x, 0, sizeof(*x));
	x->coords = xcalloc(2 * nnz + 1, sizeof(*x->coords));
	x->values = xcalloc(nnz + 1, sizeof(*x->values));
	x->m.n_ranks = 2;
	x->m.shape[0] = rows;
	x->m.shape[1] = cols;
	x->m.file = "test";
}

static void mat_add(struct mat *x, uint64_t r, uint64_t c, double v)
{
	x->coords[2 * x->m.nnz] = r;
	x->coords[2 * x->m.nnz + 1] = c;
	x->values[x->m.nnz++] = v;
	x->m.coords = x->coords;
	x->m.values = x->values;
}

static void mat_free(struct mat *x)
{
	free(x->coords);
	free(x->values);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/*
 * rows x cols with row lengths uniform in [1, 2*avg] (alpha 0) or Zipf
 * ~ (i + 1)^-1 (alpha 1, rows shuffled), distinct columns drawn at random.
 */
static void mat_gen(struct mat *x, uint64_t rows, uint64_t cols, unsigned avg, int alpha,
		    uint64_t seed)
{
	uint64_t *len = xcalloc(rows, sizeof(*len)), total = 0, r, s = seed;
	unsigned char *used = xcalloc(cols, 1);

	for (r = 0; r < rows; r++) {
		if (alpha)
			len[r] = (uint64_t)((double)avg * 4.0 / (double)(r + 1)) + (lcg(&s) % 2);
		else
			len[r] = 1 + lcg(&s) % (2 * avg);
		if (len[r] > cols)
			len[r] = cols;
		total += len[r];
	}
	for (r = rows; r > 1; r--) { /* shuffle the rows */
		uint64_t j = lcg(&s) % r, t = len[r - 1];
		len[r - 1] = len[j];
		len[j] = t;
	}
	mat_init(x, rows, cols, total);
	for (r = 0; r < rows; r++) {
		uint64_t k = 0, c;
		memset(used, 0, cols);
		while (k < len[r]) {
			c = lcg(&s) % cols;
			if (used[c])
				continue;
			used[c] = 1;
			mat_add(x, r, c, (double)(1 + lcg(&s) % 5));
			k++;
		}
	}
	free(len);
	free(used);
}

/* Model and executor on 'parts': every field of every part equal; the counts in 'out'. */
static int compare_op(const struct spec_matrix *m, const struct compose_part *parts, size_t n,
		      enum compose_op op, uint64_t features, struct compose_counts *out,
		      const char *label)
{
	struct compose_matrix cm;
	struct compose_lengths l;
	struct compose_counts *ex = xcalloc(n, sizeof(*ex));
	char err[256] = "";
	int bad = 0;
	size_t p;
	unsigned f;

	CU_ASSERT_EQUAL_FATAL(compose_matrix_init(&cm, m), 0);
	CU_ASSERT_EQUAL_FATAL(compose_lengths_build(&l, &cm, parts, n), 0);
	compose_model_counts(&l, parts, n, op, features, out);
	if (exec_compose_run(m, parts, n, op, features, ex, err, sizeof(err)) < 0) {
		printf("\n%s: executor: %s\n", label, err);
		bad++;
	}
	for (p = 0; p < n; p++) {
		uint64_t a[COMPOSE_N_COUNTS], b[COMPOSE_N_COUNTS];
		compose_counts_fields(&out[p], a);
		compose_counts_fields(&ex[p], b);
		for (f = 0; f < COMPOSE_N_COUNTS; f++)
			if (a[f] != b[f]) {
				printf("\n%s: part %zu (%s) %s: model %llu, executor %llu\n", label, p,
				       parts[p].name, compose_count_names[f], (unsigned long long)a[f],
				       (unsigned long long)b[f]);
				bad++;
			}
	}
	CU_ASSERT_EQUAL(bad, 0);
	compose_lengths_release(&l);
	compose_matrix_release(&cm);
	free(ex);
	return bad;
}

static int compare(const struct spec_matrix *m, const struct compose_part *parts, size_t n,
		   uint64_t features, struct compose_counts *out, const char *label)
{
	return compare_op(m, parts, n, COMPOSE_SPMM, features, out, label);
}

/*
 * 4 x 8, features 2:
 *   row 0: cols 0 1 2 5      row 1: col 6      row 2: cols 0 1 2 3 4      row 3: (none)
 * hyb(2, 1), split: column partitions [0, 4) and [4, 8), buckets of width 1 and 2.
 *   [0, 4): row 0 has 3 -> width-2 bucket, cut in 2 rows (one padded slot);
 *           row 2 has 4 -> 2 rows of 2
 *   [4, 8): row 0 has 1 (col 5), row 1 has 1 (col 6), row 2 has 1 (col 4): width 1
 */
static void test_hand(void)
{
	struct mat x;
	struct compose_part parts[8];
	struct compose_counts c[8];
	size_t n, k;

	mat_init(&x, 4, 8, 10);
	mat_add(&x, 0, 0, 1);
	mat_add(&x, 0, 1, 2);
	mat_add(&x, 0, 2, 3);
	mat_add(&x, 0, 5, 4);
	mat_add(&x, 1, 6, 5);
	mat_add(&x, 2, 0, 1);
	mat_add(&x, 2, 1, 1);
	mat_add(&x, 2, 2, 2);
	mat_add(&x, 2, 3, 2);
	mat_add(&x, 2, 4, 3);
	n = compose_hyb_parts(8, 2, 1, false, 0, 0, parts);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	compare(&x.m, parts, n, 2, c, "hand hyb");
	/* [0, 4) width 1: nothing */
	CU_ASSERT_EQUAL(c[0].rows, 0);
	CU_ASSERT_EQUAL(c[0].meta_reads, 0);
	/* [0, 4) width 2: 4 stored rows, 8 slots, 7 non-zeros */
	CU_ASSERT_EQUAL(c[1].nnz, 7);
	CU_ASSERT_EQUAL(c[1].rows, 4);
	CU_ASSERT_EQUAL(c[1].slots, 8);
	CU_ASSERT_EQUAL(c[1].meta_reads, 4 + 8);
	CU_ASSERT_EQUAL(c[1].b_reads, 16);
	CU_ASSERT_EQUAL(c[1].padded_macs, 2);
	CU_ASSERT_EQUAL(c[1].c_updates, 8);
	/* rows 0 and 2 are updated 3 times each: every update atomic */
	CU_ASSERT_EQUAL(c[1].c_reads, 8);
	/* [4, 8) width 1: rows 0, 1, 2; row 1 only once (plain store) */
	CU_ASSERT_EQUAL(c[2].rows, 3);
	CU_ASSERT_EQUAL(c[2].c_updates, 6);
	CU_ASSERT_EQUAL(c[2].c_reads, 4);
	CU_ASSERT_EQUAL(c[2].max_unit, 1);
	CU_ASSERT_EQUAL(c[3].rows, 0);
	CU_ASSERT_EQUAL(c[1].x_reads, 0);          /* SpMM reads no X */

	/*
	 * The SDDMM over the same split: Y read and MACs as B and MACs above, X's row
	 * once per stored row (2 features), one output word per slot, no atomics.
	 */
	compare_op(&x.m, parts, n, COMPOSE_SDDMM, 2, c, "hand hyb sddmm");
	CU_ASSERT_EQUAL(c[1].b_reads, 16);
	CU_ASSERT_EQUAL(c[1].x_reads, 4 * 2);
	CU_ASSERT_EQUAL(c[1].macs, 16);
	CU_ASSERT_EQUAL(c[1].padded_macs, 2);
	CU_ASSERT_EQUAL(c[1].c_updates, 8);
	CU_ASSERT_EQUAL(c[1].c_reads, 0);
	CU_ASSERT_EQUAL(c[2].x_reads, 3 * 2);
	CU_ASSERT_EQUAL(c[2].c_updates, 3);
	CU_ASSERT_EQUAL(c[2].c_reads, 0);

	/*
	 * One feature a warp: each of a unit's 2 warps reads its A values and indices (ELL:
	 * row index and column indices) itself; B and MACs unchanged; the SDDMM's second warp
	 * adds its half of every dot product, reading the word back.
	 */
	for (k = 0; k < n; k++)
		parts[k].warp_features = 1;
	compare(&x.m, parts, n, 2, c, "hand hyb, a feature a warp");
	CU_ASSERT_EQUAL(c[1].data_reads, 8 * 2);
	CU_ASSERT_EQUAL(c[1].meta_reads, (4 + 8) * 2);
	CU_ASSERT_EQUAL(c[1].b_reads, 16);
	CU_ASSERT_EQUAL(c[1].c_updates, 8);
	CU_ASSERT_EQUAL(c[1].c_reads, 8);
	compare_op(&x.m, parts, n, COMPOSE_SDDMM, 2, c, "hand hyb sddmm, a feature a warp");
	CU_ASSERT_EQUAL(c[1].c_updates, 8 * 2);
	CU_ASSERT_EQUAL(c[1].c_reads, 8);
	CU_ASSERT_EQUAL(c[1].x_reads, 4 * 2);
	{
		/* the unit time: the longest unit's slots x the features of one warp / 16 a clock */
		struct compose_time t1, t64;
		struct compose_counts cc[8];
		compare(&x.m, parts, n, 2, cc, "hand hyb, time");
		compose_model_time(&compose_gpu_a100, parts, cc, n, COMPOSE_SPMM, 4, 8, 2, &t1);
		for (k = 0; k < n; k++)
			parts[k].warp_features = 0;
		compare(&x.m, parts, n, 2, cc, "hand hyb, time, 64");
		compose_model_time(&compose_gpu_a100, parts, cc, n, COMPOSE_SPMM, 4, 8, 2, &t64);
		CU_ASSERT_DOUBLE_EQUAL(t1.unit, 2.0 * 1 / 16, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(t64.unit, 2.0 * 2 / 16, 1e-12);
	}

	/*
	 * BSR 2 x 2 blocks of at least 3 non-zeros: block (0, 0) holds (0,0) (0,1);
	 * block (1, 0) holds (2,0) (2,1); block (1, 1) holds (2,2) (2,3): none has 3.
	 * With min_fill 2 all three; the rest (0,2) (0,5) (1,6) (2,4) in CSR.
	 */
	memset(parts, 0, sizeof(parts));
	parts[0] = (struct compose_part){ .name = "bsr", .format = COMPOSE_BSR, .block = 2,
					  .min_fill = 2 };
	parts[1] = (struct compose_part){ .name = "csr", .format = COMPOSE_CSR, .col_hi = 8,
					  .min_length = 1, .max_length = COMPOSE_NO_MAX };
	compare(&x.m, parts, 2, 2, c, "hand bsr");
	CU_ASSERT_EQUAL(c[0].blocks, 3);
	CU_ASSERT_EQUAL(c[0].nnz, 6);
	CU_ASSERT_EQUAL(c[0].rows, 2);
	CU_ASSERT_EQUAL(c[0].slots, 12);
	CU_ASSERT_EQUAL(c[0].meta_reads, 2 + 1 + 3);
	CU_ASSERT_EQUAL(c[0].b_reads, 3 * 2 * 2);
	CU_ASSERT_EQUAL(c[0].padded_macs, 6 * 2);
	CU_ASSERT_EQUAL(c[0].c_updates, 4 * 2);
	CU_ASSERT_EQUAL(c[0].max_unit, 8);
	CU_ASSERT_EQUAL(c[1].nnz, 4);
	CU_ASSERT_EQUAL(c[1].rows, 3);
	CU_ASSERT_EQUAL(c[1].meta_reads, 5 + 4);
	CU_ASSERT_EQUAL(c[1].max_unit, 2);
	/* rows 0, 1 and 2 updated by both parts (row 1 by its block row's zeros); row 3 once */
	CU_ASSERT_EQUAL(c[0].c_reads, 3 * 2);
	CU_ASSERT_EQUAL(c[1].c_reads, 3 * 2);
	/* SDDMM: each block reads 2 rows of X and 2 of Y and writes its 4 slots; CSR's 3 rows
	   read X once each */
	compare_op(&x.m, parts, 2, COMPOSE_SDDMM, 2, c, "hand bsr sddmm");
	CU_ASSERT_EQUAL(c[0].x_reads, 3 * 2 * 2);
	CU_ASSERT_EQUAL(c[0].b_reads, 3 * 2 * 2);
	CU_ASSERT_EQUAL(c[0].c_updates, 12);
	CU_ASSERT_EQUAL(c[0].padded_macs, 6 * 2);
	CU_ASSERT_EQUAL(c[1].x_reads, 3 * 2);
	CU_ASSERT_EQUAL(c[1].b_reads, 4 * 2);
	CU_ASSERT_EQUAL(c[1].c_updates, 4);
	CU_ASSERT_EQUAL(c[0].c_reads + c[1].c_reads, 0);
	mat_free(&x);
}

struct corpus_case {
	uint64_t rows, cols;
	unsigned avg;
	int alpha;
	unsigned c, k;
	bool remainder_csr;
	uint64_t block, min_fill;
	uint64_t features;
	uint64_t warp_features;        /* every part's (0: the default 64) */
};

static const struct corpus_case corpus[] = {
	{ 13, 11, 3, 0, 1, 0, false, 0, 0, 3, 0 },
	{ 13, 11, 3, 0, 1, 2, false, 0, 0, 3, 0 },
	{ 32, 40, 4, 1, 2, 2, false, 0, 0, 5, 2 },   /* 3 warps a unit, the last one short */
	{ 32, 40, 4, 1, 3, 1, true, 0, 0, 2, 1 },
	{ 50, 64, 6, 1, 4, 3, false, 4, 3, 4, 2 },
	{ 50, 64, 6, 0, 1, 2, true, 4, 2, 1, 0 },
	{ 17, 23, 5, 1, 2, 2, false, 3, 1, 3, 1 },   /* blocks cut by both edges */
	{ 17, 23, 5, 0, 5, 1, true, 2, 4, 2, 0 },    /* only full 2 x 2 blocks */
	{ 40, 9, 4, 1, 9, 0, false, 0, 0, 2, 0 },    /* a partition per column */
	{ 64, 128, 8, 1, 1, 5, false, 8, 16, 3, 0 },
};

static void test_corpus(void)
{
	size_t i, p;
	uint64_t padded = 0, shared = 0, blocks = 0, split_rows = 0, csr = 0;

	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_case *cc = &corpus[i];
		struct mat x;
		size_t n = compose_hyb_count(cc->c, cc->k, cc->remainder_csr, cc->block);
		struct compose_part *parts = xcalloc(n, sizeof(*parts));
		struct compose_counts *c = xcalloc(n, sizeof(*c));
		char label[64];
		uint64_t nnz = 0;

		mat_gen(&x, cc->rows, cc->cols, cc->avg, cc->alpha, 1000 + i);
		n = compose_hyb_parts(cc->cols, cc->c, cc->k, cc->remainder_csr, cc->block,
				      cc->min_fill, parts);
		for (p = 0; p < n; p++)
			parts[p].warp_features = cc->warp_features;
		snprintf(label, sizeof(label), "corpus %zu sddmm", i);
		compare_op(&x.m, parts, n, COMPOSE_SDDMM, cc->features, c, label);
		snprintf(label, sizeof(label), "corpus %zu", i);
		compare(&x.m, parts, n, cc->features, c, label);
		for (p = 0; p < n; p++) {
			nnz += c[p].nnz;
			padded += c[p].padded_macs;
			shared += c[p].c_reads;
			blocks += c[p].blocks;
			if (parts[p].format == COMPOSE_CSR)
				csr += c[p].nnz;
			if (parts[p].split && c[p].rows > 0)
				split_rows += c[p].c_updates / cc->features;
		}
		/* every non-zero in exactly one part */
		CU_ASSERT_EQUAL(nnz, x.m.nnz);
		free(parts);
		free(c);
		mat_free(&x);
	}
	/* the corpus exercises padding, atomics, blocks, split rows and CSR remainders */
	CU_ASSERT_TRUE(padded > 0);
	CU_ASSERT_TRUE(shared > 0);
	CU_ASSERT_TRUE(blocks > 0);
	CU_ASSERT_TRUE(split_rows > 0);
	CU_ASSERT_TRUE(csr > 0);
}

/* Hand-given parts: a COO part, an unsplit ELL and a CSR over two column ranges. */
static void test_parts(void)
{
	struct mat x;
	struct compose_part parts[5];
	struct compose_counts c[5];
	uint64_t nnz = 0;
	size_t p;

	mat_gen(&x, 30, 20, 4, 1, 77);
	memset(parts, 0, sizeof(parts));
	parts[0] = (struct compose_part){ .name = "coo", .format = COMPOSE_COO, .col_lo = 0,
					  .col_hi = 12, .min_length = 1, .max_length = 1 };
	parts[1] = (struct compose_part){ .name = "ell", .format = COMPOSE_ELL, .col_lo = 0,
					  .col_hi = 12, .min_length = 2, .max_length = 3,
					  .width = 3 };
	parts[2] = (struct compose_part){ .name = "csr", .format = COMPOSE_CSR, .col_lo = 0,
					  .col_hi = 12, .min_length = 4,
					  .max_length = COMPOSE_NO_MAX };
	parts[3] = (struct compose_part){ .name = "ell2", .format = COMPOSE_ELL, .col_lo = 12,
					  .col_hi = 20, .min_length = 1, .max_length = COMPOSE_NO_MAX,
					  .width = 2, .split = true };
	compare_op(&x.m, parts, 4, COMPOSE_SDDMM, 3, c, "parts sddmm");
	/* COO: X's row read per element */
	CU_ASSERT_EQUAL(c[0].x_reads, c[0].nnz * 3);
	compare(&x.m, parts, 4, 3, c, "parts");
	for (p = 0; p < 4; p++)
		nnz += c[p].nnz;
	CU_ASSERT_EQUAL(nnz, x.m.nnz);
	CU_ASSERT_TRUE(c[0].nnz > 0 && c[1].nnz > 0 && c[2].nnz > 0);
	/* COO: every element its own update of C */
	CU_ASSERT_EQUAL(c[0].c_updates, c[0].nnz * 3);
	CU_ASSERT_EQUAL(c[0].meta_reads, 2 * c[0].nnz);
	mat_free(&x);
}

/* ------------------------------------------------------ located errors */

struct bad_case {
	const char *yaml;
	const char *expect;            /* in the first error */
	unsigned line, col;
};

static const struct bad_case bad[] = {
	{ "composable:\n  features: 4\n  parts:\n"
	  "    - {format: csr, max_length: 2}\n"
	  "    - {format: ell, width: 8, min_length: 4, max_length: 8}\n",
	  "in 'composable.parts[1]': no part holds the rows of length 3..3 in columns [0, 8) "
	  "(hint: start this part at min_length 3)", 5, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, max_length: 2}\n"
	  "    - {format: coo, min_length: 2}\n",
	  "in 'composable.parts[1]': rows of length 2..inf in columns [0, 8) are also "
	  "composable.parts[0]'s: the parts overlap", 4, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, columns: [0, 5]}\n"
	  "    - {format: csr, columns: [4, 8]}\n",
	  "in 'composable.parts[1]': columns [4, 8) overlap composable.parts[0]'s [0, 5): two "
	  "ranges must be equal or disjoint", 4, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, columns: [0, 3]}\n"
	  "    - {format: csr, columns: [5, 8]}\n",
	  "in 'composable.parts[1]': no part holds columns [3, 5)", 4, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, columns: [0, 6]}\n",
	  "in 'composable.parts[0]': no part holds columns [6, 8)", 3, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, max_length: 5}\n",
	  "no part holds the rows longer than 5 in columns [0, 8)", 3, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: ell, width: 4}\n",
	  "in 'composable.parts[0]': rows of length up to inf do not fit width 4 (hint: "
	  "'max_length: 4', or 'split: true'", 3, 7 },
	{ "composable:\n  parts:\n"
	  "    - {format: elll, width: 4}\n",
	  "did you mean 'ell'?", 3, 16 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, min_lenght: 2}\n",
	  "unknown key 'min_lenght'; did you mean 'min_length'?", 3, 21 },
	{ "composable:\n  parts:\n"
	  "    - {format: bsr, block: 2, columns: [0, 4]}\n"
	  "    - {format: csr}\n",
	  "a BSR part takes whole blocks: it has no 'columns'", 3, 40 },
	{ "composable:\n  hyb: {column_parts: 2, buckets: 3}\n  parts: []\n",
	  "give the parts by exactly one of 'parts' or 'hyb'", 2, 3 },
	{ "composable:\n  hyb: {column_parts: 2, remainder: csv}\n",
	  "did you mean 'csr'?", 2, 37 },
	{ "composable:\n  parts:\n"
	  "    - {format: csr, columns: [0, 9]}\n",
	  "expected an integer in [1, 8]", 3, 34 },	{ "composable:\n  op: sddm\n  parts:\n    - {format: csr}\n",
	  "did you mean 'sddmm'?", 2, 7 },
	{ "composable:\n  gpu: h10\n  parts:\n    - {format: csr}\n",
	  "did you mean 'h100'?", 2, 8 },
	{ "composable:\n  parts:\n    - {format: csr, warp_features: 0}\n",
	  "in 'composable.parts[0].warp_features': expected an integer in [1, 1048576]", 3, 36 },
	{ "composable:\n  hyb: {buckets: 2, warp_feature: 32}\n",
	  "did you mean 'warp_features'?", 2, 21 },
};

static void test_bad(void)
{
	struct mat x;
	size_t i;

	mat_init(&x, 4, 8, 1);
	mat_add(&x, 0, 0, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_compose *c = spec_compose_parse("bad.yaml", bad[i].yaml,
							    strlen(bad[i].yaml), &x.m, &dl);
		size_t k;
		const struct diag *first = NULL;
		CU_ASSERT_PTR_NULL(c);
		spec_compose_free(c);
		for (k = 0; k < dl.n; k++)
			if (dl.items[k].severity == DIAG_ERROR) {
				first = &dl.items[k];
				break;
			}
		CU_ASSERT_PTR_NOT_NULL(first);
		if (first && (!strstr(first->message, bad[i].expect) ||
			      first->loc.line != bad[i].line || first->loc.col != bad[i].col))
			printf("\nbad %zu: %u:%u: %s\n", i, first->loc.line, first->loc.col,
			       first->message);
		if (first) {
			CU_ASSERT_PTR_NOT_NULL(strstr(first->message, bad[i].expect));
			CU_ASSERT_EQUAL(first->loc.line, bad[i].line);
			CU_ASSERT_EQUAL(first->loc.col, bad[i].col);
		}
		diag_list_release(&dl);
	}
	mat_free(&x);
}

/* A good file: hyb with blocks, the executor agreeing with the model. */
static void test_good(void)
{
	static const char y[] = "composable:\n  features: 3\n"
				"  hyb: {column_parts: 2, buckets: 2, remainder: csr, block: 2, "
				"min_fill: 2}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct mat x;
	struct spec_compose *c;
	struct compose_counts cnt[16];

	mat_gen(&x, 20, 16, 3, 1, 5);
	c = spec_compose_parse("good.yaml", y, strlen(y), &x.m, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n_parts, 1 + 2 * 4);
	CU_ASSERT_EQUAL(c->features, 3);
	CU_ASSERT_EQUAL(c->op, COMPOSE_SPMM);      /* the default */
	CU_ASSERT_EQUAL(c->parts[0].format, COMPOSE_BSR);
	CU_ASSERT_EQUAL(c->parts[4].format, COMPOSE_CSR);
	CU_ASSERT_EQUAL(c->parts[4].min_length, 5);
	CU_ASSERT_EQUAL(c->parts[5].col_lo, 8);
	compare(c->matrix, c->parts, c->n_parts, c->features, cnt, "good");
	spec_compose_free(c);
	diag_list_release(&dl);
	mat_free(&x);
}

/* The H100's constants: 132 SMs x 128 FP32 FMAs a clock, a warp 32 a clock, 50 MB of L2. */
static void test_gpu(void)
{
	static const char y[] = "composable:\n  gpu: h100\n  op: sddmm\n  features: 8\n"
				"  parts:\n    - {format: csr}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct mat x;
	struct spec_compose *c;
	struct compose_counts cnt[1];
	struct compose_time ta, th;

	mat_gen(&x, 40, 30, 3, 1, 11);
	c = spec_compose_parse("gpu.yaml", y, strlen(y), &x.m, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->gpu, COMPOSE_GPU_H100);
	CU_ASSERT_PTR_EQUAL(compose_gpu_of(c->gpu), &compose_gpu_h100);
	CU_ASSERT_PTR_EQUAL(compose_gpu_of(COMPOSE_GPU_A100), &compose_gpu_a100);
	compare_op(c->matrix, c->parts, c->n_parts, c->op, c->features, cnt, "gpu");
	compose_model_time(compose_gpu_of(c->gpu), c->parts, cnt, 1, c->op, 40, 30, 8, &th);
	compose_model_time(&compose_gpu_a100, c->parts, cnt, 1, c->op, 40, 30, 8, &ta);
	CU_ASSERT_DOUBLE_EQUAL(th.compute, (double)cnt[0].macs / (132.0 * 128.0), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ta.compute, (double)cnt[0].macs / (108.0 * 64.0), 1e-12);
	/* the longest row's 8 features at one warp's rate: 32 a clock on the H100, 16 on the A100 */
	CU_ASSERT_DOUBLE_EQUAL(th.unit * 2, ta.unit, 1e-12);
	spec_compose_free(c);
	diag_list_release(&dl);
	mat_free(&x);
}

/* ------------------------------------------------------------- search */

static void test_search(void)
{
	static const unsigned cs[] = { 1, 2, 4 };
	static const uint64_t bs[] = { 2, 4 };
	struct mat x;
	struct compose_matrix cm;
	struct compose_choice best;
	struct compose_time csr;
	size_t n;

	/* power law: one row of 4 * 64 = 256 non-zeros holds up a CSR kernel */
	mat_gen(&x, 400, 300, 64, 1, 9);
	CU_ASSERT_EQUAL_FATAL(compose_matrix_init(&cm, &x.m), 0);
	n = compose_search(&cm, &compose_gpu_a100, COMPOSE_SPMM, 128, cs, 3, 6, bs, 2, &best,
			   &csr);
	CU_ASSERT_EQUAL(n, 1 + 3 * 7 * 3);
	/* the unit of CSR is its longest row (256 or 257): x 64 features / 16 a clock */
	CU_ASSERT_TRUE(csr.unit == 256.0 * 64 / 16 || csr.unit == 257.0 * 64 / 16);
	CU_ASSERT_TRUE(csr.cycles == csr.unit);
	CU_ASSERT_TRUE(best.time.cycles < csr.cycles);
	compose_matrix_release(&cm);
	mat_free(&x);
}

static CU_TestInfo tests[] = {
	{ "hand-worked hyb and BSR", test_hand },
	{ "corpus: model = executor per part", test_corpus },
	{ "hand-given parts", test_parts },
	{ "located errors", test_bad },
	{ "a good file", test_good },
	{ "the GPU a file names", test_gpu },
	{ "search", test_search },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "compose", NULL, NULL, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
