/*
 * bench_compose: composable formats (docs/composable.md, examples/sparsetir-hyb).
 *
 *   bench_compose [--scale S] [--edge-factor E] [--seed N] [--features F]
 *                 [--uniform] [--sddmm] [--table] [--write FILE]
 *
 * Generates an R-MAT matrix of 2^S rows and columns with E * 2^S edges
 * (duplicates dropped) drawn with the Graph500 probabilities a = 0.57,
 * b = c = 0.19, d = 0.05 (a power law), or all four 0.25 with --uniform (a
 * uniform random matrix of the same size), from a seed. Default: scale 17,
 * edge factor 8 (about 10^6 non-zeros).
 *
 * Default: times the decomposition search on the A100 (hyb(c, k) for c in
 * 1, 2, 4, 8, 16 and k in 0..10, each without blocks and with BSR blocks of
 * 2, 4, 8 and 16, taking the blocks at least half full) including the
 * matrix's row structure; the target is under 1 s for 10^6 non-zeros.
 * --table: the example's table (SpMM cycles of CSR, ELL, BSR, the best hyb
 * and their ratios to CSR, features 32..512) for the power-law and the
 * uniform matrix. --sddmm: the same for the SDDMM over the split matrix
 * instead of the SpMM. --write FILE: write the matrix as Matrix Market.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/compose.h"
#include "specs/compose.h"
#include "util/xalloc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct gen {
	struct spec_matrix m;
	uint64_t *coords;
	double *values;
};

/* R-MAT (Chakrabarti, Zhan, Faloutsos 2004) with probabilities a, b, c (d the rest). */
static void rmat(struct gen *g, unsigned scale, unsigned edge_factor, bool uniform,
		 uint64_t seed)
{
	uint64_t n = (uint64_t)1 << scale, edges = (uint64_t)edge_factor << scale, e, k = 0;
	uint64_t *keys = xcalloc(edges + 1, sizeof(*keys)), s = seed;
	double a = uniform ? 0.25 : 0.57, b = uniform ? 0.25 : 0.19, c = uniform ? 0.25 : 0.19;

	for (e = 0; e < edges; e++) {
		uint64_t r = 0, col = 0;
		unsigned l;
		for (l = 0; l < scale; l++) {
			double u = (double)(rng(&s) >> 11) * 0x1.0p-53;
			r <<= 1;
			col <<= 1;
			if (u < a)
				;
			else if (u < a + b)
				col |= 1;
			else if (u < a + b + c)
				r |= 1;
			else {
				r |= 1;
				col |= 1;
			}
		}
		keys[e] = r << scale | col;
	}
	qsort(keys, edges, sizeof(*keys), cmp_u64);
	memset(g, 0, sizeof(*g));
	g->coords = xcalloc(2 * edges + 1, sizeof(*g->coords));
	g->values = xcalloc(edges + 1, sizeof(*g->values));
	for (e = 0; e < edges; e++) {
		if (e && keys[e] == keys[e - 1])
			continue;
		g->coords[2 * k] = keys[e] >> scale;
		g->coords[2 * k + 1] = keys[e] & (n - 1);
		g->values[k++] = 1.0;
	}
	free(keys);
	g->m.file = uniform ? "uniform" : "rmat";
	g->m.n_ranks = 2;
	g->m.shape[0] = n;
	g->m.shape[1] = n;
	g->m.nnz = k;
	g->m.coords = g->coords;
	g->m.values = g->values;
}

static const unsigned cs[] = { 1, 2, 4, 8, 16 };
static const uint64_t blocks[] = { 2, 4, 8, 16 };
enum { MAX_BUCKETS = 10 };
static enum compose_op op = COMPOSE_SPMM;

/* Cycles of one design given by its parts. */
static double cycles_of(const struct compose_matrix *cm, const struct compose_part *parts,
			size_t n, uint64_t features)
{
	struct compose_lengths l;
	struct compose_counts *c = xcalloc(n, sizeof(*c));
	struct compose_time t = { 0 };

	if (compose_lengths_build(&l, cm, parts, n) == 0) {
		compose_model_counts(&l, parts, n, op, features, c);
		compose_model_time(&compose_gpu_a100, parts, c, n, op, cm->rows, cm->cols, features,
				   &t);
		compose_lengths_release(&l);
	}
	free(c);
	return t.cycles;
}

static const char *choice(const struct compose_choice *x, const struct compose_time *csr,
			  char *buf, size_t n)
{
	if (!x->column_parts)
		snprintf(buf, n, "1.00 (CSR)");
	else if (x->block)
		snprintf(buf, n, "%.2f (%u, %u, %llu)", csr->cycles / x->time.cycles, x->column_parts,
			 x->buckets, (unsigned long long)x->block);
	else
		snprintf(buf, n, "%.2f (%u, %u)", csr->cycles / x->time.cycles, x->column_parts,
			 x->buckets);
	return buf;
}

static void table(const struct compose_matrix *cm, const char *label)
{
	static const uint64_t feats[] = { 32, 64, 128, 256, 512 };
	uint64_t maxlen = 0, r;
	unsigned w = 0;
	size_t i;

	for (r = 0; r < cm->rows; r++)
		if (cm->row_ptr[r + 1] - cm->row_ptr[r] > maxlen)
			maxlen = cm->row_ptr[r + 1] - cm->row_ptr[r];
	while (((uint64_t)1 << w) < maxlen)
		w++;
	printf("%s: %llu x %llu, %llu non-zeros, longest row %llu\n", label,
	       (unsigned long long)cm->rows, (unsigned long long)cm->cols,
	       (unsigned long long)cm->nnz, (unsigned long long)maxlen);
	printf("%s speed-up over CSR (CSR cycles / the format's cycles; below 1: slower)\n",
	       op == COMPOSE_SDDMM ? "SDDMM" : "SpMM");
	printf("| features | CSR cycles | ELL | BSR 4 | hyb(1, k), no column partition | best hyb(c, k) | "
	       "best (c, k, block) |\n|---:|---:|---:|---:|---|---|---|\n");
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		struct compose_part parts[2];
		static const unsigned one[] = { 1 };
		struct compose_choice hyb1, hyb, best;
		struct compose_time csr;
		double ell, bsr;
		char a[64], b[64], c[64];

		memset(parts, 0, sizeof(parts));
		/* ELL: one part as wide as the longest row (pad to the next power of two) */
		parts[0] = (struct compose_part){ .name = "ell", .format = COMPOSE_ELL,
						  .col_hi = cm->cols, .min_length = 1,
						  .max_length = COMPOSE_NO_MAX,
						  .width = (uint64_t)1 << w, .split = true };
		ell = cycles_of(cm, parts, 1, feats[i]);
		/* BSR: every block of 4 x 4 with a non-zero (nothing left for the CSR part) */
		parts[0] = (struct compose_part){ .name = "bsr", .format = COMPOSE_BSR, .block = 4,
						  .min_fill = 1 };
		parts[1] = (struct compose_part){ .name = "csr", .format = COMPOSE_CSR,
						  .col_hi = cm->cols, .min_length = 1,
						  .max_length = COMPOSE_NO_MAX };
		bsr = cycles_of(cm, parts, 2, feats[i]);
		compose_search(cm, &compose_gpu_a100, op, feats[i], one, 1, MAX_BUCKETS, NULL, 0,
			       &hyb1, &csr);
		compose_search(cm, &compose_gpu_a100, op, feats[i], cs, 5, MAX_BUCKETS, NULL, 0, &hyb,
			       NULL);
		compose_search(cm, &compose_gpu_a100, op, feats[i], cs, 5, MAX_BUCKETS, blocks, 4,
			       &best, NULL);
		printf("| %llu | %.0f | %.3g | %.3g | %s | %s | %s |\n", (unsigned long long)feats[i],
		       csr.cycles, csr.cycles / ell, csr.cycles / bsr, choice(&hyb1, &csr, a, sizeof(a)),
		       choice(&hyb, &csr, b, sizeof(b)), choice(&best, &csr, c, sizeof(c)));
	}
}

static int write_mtx(const struct spec_matrix *m, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n%llu %llu %zu\n",
		(unsigned long long)m->shape[0], (unsigned long long)m->shape[1], m->nnz);
	for (i = 0; i < m->nnz; i++)
		fprintf(f, "%llu %llu\n", (unsigned long long)m->coords[2 * i] + 1,
			(unsigned long long)m->coords[2 * i + 1] + 1);
	return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned scale = 17, ef = 8;
	uint64_t seed = 1, features = 128;
	bool uniform = false, do_table = false;
	const char *out = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--edge-factor") && i + 1 < argc)
			ef = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--features") && i + 1 < argc)
			features = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--uniform"))
			uniform = true;
		else if (!strcmp(argv[i], "--sddmm"))
			op = COMPOSE_SDDMM;
		else if (!strcmp(argv[i], "--table"))
			do_table = true;
		else if (!strcmp(argv[i], "--write") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: bench_compose [--scale S] [--edge-factor E] [--seed N] "
				"[--features F] [--uniform] [--sddmm] [--table] [--write FILE]\n");
			return 2;
		}
	}
	if (scale < 2 || scale > 24 || ef < 1 || ef > 64 || features < 1) {
		fprintf(stderr, "bench_compose: scale in [2, 24], edge factor in [1, 64]\n");
		return 2;
	}
	if (do_table) {
		unsigned u;
		for (u = 0; u < 2; u++) {
			struct gen g;
			struct compose_matrix cm;
			rmat(&g, scale, ef, u == 1, seed);
			compose_matrix_init(&cm, &g.m);
			table(&cm, u ? "uniform (R-MAT 0.25 each)" : "power law (R-MAT 0.57/0.19/0.19/0.05)");
			printf("\n");
			compose_matrix_release(&cm);
			free(g.coords);
			free(g.values);
		}
		return 0;
	}
	{
		struct gen g;
		struct compose_matrix cm;
		struct compose_choice best;
		struct compose_time csr;
		double t0, t1, t2, tm, c1;
		size_t n;

		t0 = now_s();
		rmat(&g, scale, ef, uniform, seed);
		if (out)
			return write_mtx(&g.m, out) ? 1 : 0;
		t1 = now_s();
		c1 = cpu_s();
		compose_matrix_init(&cm, &g.m);
		tm = now_s();
		n = compose_search(&cm, &compose_gpu_a100, op, features, cs, 5, MAX_BUCKETS, blocks,
				   4, &best, &csr);
		t2 = now_s();
		printf("%s matrix %llu x %llu, %zu non-zeros (generated in %.3f s)\n",
		       uniform ? "uniform" : "R-MAT", (unsigned long long)g.m.shape[0],
		       (unsigned long long)g.m.shape[1], g.m.nnz, t1 - t0);
		printf("decomposition search: %zu points in %.3f s (target < 1 s for 10^6 non-zeros; "
		       "the matrix's rows %.3f s, the search %.3f s; CPU %.3f s)\n", n, t2 - t1, tm - t1,
		       t2 - tm, cpu_s() - c1);
		if (best.column_parts)
			printf("best: hyb(c %u, k %u), block %llu: %.0f cycles; CSR %.0f cycles: "
			       "%.2fx\n", best.column_parts, best.buckets,
			       (unsigned long long)best.block, best.time.cycles, csr.cycles,
			       csr.cycles / best.time.cycles);
		else
			printf("best: plain CSR, %.0f cycles\n", csr.cycles);
		compose_matrix_release(&cm);
		free(g.coords);
		free(g.values);
	}
	return 0;
}
