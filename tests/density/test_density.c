/* Tests of model/density*.c: every density model against hand values or brute force. */
#include "density/density.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density/density_int.h"
#include "exec/exec.h"
#include "util/rng.h"
#include "util/xalloc.h"

#include "tests/unit.h"

#define EPS 1e-9
#define MAXD 64   /* brute force: tensors up to MAXD x MAXD */

/* ------------------------------------------------------------ helpers */

static int cmp_u64_test(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct spec_density dens(enum spec_density_kind k, double rho)
{
	struct spec_density d;

	memset(&d, 0, sizeof(d));
	d.kind = k;
	d.density = rho;
	return d;
}

static struct density_model *model_1d(enum spec_density_kind k, double rho, uint64_t size)
{
	struct spec_density d = dens(k, rho);
	return density_model_new_shape(&d, 1, &size, 0);
}

static struct density_tile tile2(uint64_t a, uint64_t b)
{
	uint64_t e[2] = { a, b };
	return density_tile_box(2, e);
}

/* A dense 0/1 pattern of R x C. */
struct pattern {
	unsigned R, C;
	unsigned char v[MAXD][MAXD];
};

/* Non-zeros of 'p' in rows [r0, r0+a) x cols [c0, c0+b), clipped to [0, rmax) x [0, cmax). */
static unsigned count_box(const struct pattern *p, unsigned r0, unsigned c0, unsigned a,
			  unsigned b, unsigned rmax, unsigned cmax)
{
	unsigned r, c, n = 0;

	for (r = r0; r < r0 + a && r < rmax; r++)
		for (c = c0; c < c0 + b && c < cmax; c++)
			n += p->v[r][c];
	return n;
}

/*
 * Brute-force histogram: weight 'w' per child tile (a x b) over the child
 * grid of every parent tile (A x B) holding 'want' (A = 0: the tensor is
 * the only parent and every child counts).
 */
static void brute_hist(const struct pattern *p, unsigned a, unsigned b, unsigned A, unsigned B,
		       long want, double w, double *hist)
{
	unsigned pr, pc, r, c;

	if (A == 0) {
		A = p->R;
		B = p->C;
	}
	for (pr = 0; pr < p->R; pr += A)
		for (pc = 0; pc < p->C; pc += B) {
			unsigned rmax = pr + A < p->R ? pr + A : p->R;
			unsigned cmax = pc + B < p->C ? pc + B : p->C;
			if (want >= 0 && count_box(p, pr, pc, A, B, p->R, p->C) != (unsigned)want)
				continue;
			for (r = pr; r < rmax; r += a)
				for (c = pc; c < cmax; c += b)
					hist[count_box(p, r, c, a, b, rmax, cmax)] += w;
		}
}

/* Normalize 'h' (n entries); false when it is all zero. */
static bool normalize(double *h, size_t n)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		s += h[i];
	if (s == 0.0)
		return false;
	for (i = 0; i < n; i++)
		h[i] /= s;
	return true;
}

/* Compare the model's distribution of (a x b) under (A x B, O) with 'want'. */
static int compare(struct density_model *m, unsigned a, unsigned b, unsigned A, unsigned B,
		   long O, const double *want, size_t n, const char *what)
{
	double got[MAXD * MAXD + 1];
	struct density_constraint c;
	struct density_tile t = tile2(a, b);
	size_t i, len;
	int bad = 0;

	c.parent = tile2(A, B);
	c.occupancy = (uint64_t)O;
	len = density_distribution(m, &t, O >= 0 ? &c : NULL, got, n);
	for (i = 0; i < n; i++)
		if (fabs(got[i] - want[i]) > 1e-9) {
			if (!bad)
				printf("\n%s tile %ux%u parent %ux%u O=%ld: P(%zu) = %.12g, want %.12g\n",
				       what, a, b, A, B, O, i, got[i], want[i]);
			bad = 1;
		}
	for (i = len; i < n; i++)
		if (want[i] != 0.0)
			bad = 1;
	if (O < 0) {
		double e = 0.0, pe = density_prob_empty(m, &t, NULL);
		for (i = 0; i < n; i++)
			e += want[i] * (double)i;
		if (fabs(density_expected_occupancy(m, &t) - e) > 1e-9 || fabs(pe - want[0]) > 1e-9)
			bad = 1;
	}
	CU_ASSERT_FALSE(bad);
	return bad;
}

/* ------------------------------------------------------- fixed_structured */

static const struct {
	double rho;
	uint64_t s, S, O;          /* S = 0: no constraint */
	double p0, expected;
	uint64_t max1, max_half;
	double min_density;
	uint64_t n1;
	double p_n1;
} fixed_rows[] = {
	/* semantics 4.2: rho 0.25, s 1 => P(empty) 0.75 */
	{ 0.25, 1, 0, 0, 0.75, 0.25, 1, 0, 0.0, 1, 0.25 },
	/* s 8 under (64, 16): x = 2 => P(empty) 0 */
	{ 0.25, 8, 64, 16, 0.0, 2.0, 2, 2, 0.25, 2, 1.0 },
	/* semantics 5.3 conv1d weights: rho 0.43, tile 3 => P(1) 0.71, P(2) 0.29 */
	{ 0.43, 3, 0, 0, 0.0, 1.29, 2, 1, 1.0 / 3.0, 2, 0.29 },
	{ 0.5, 64, 0, 0, 0.0, 32.0, 32, 32, 0.5, 32, 1.0 },
	/* 02.2.2 B@BS: a 16-point sub-tile of 64 holding 32 */
	{ 0.5, 16, 64, 32, 0.0, 8.0, 8, 8, 0.5, 8, 1.0 },
	/* scalar under (3, 1): x = 1/3 */
	{ 0.43, 1, 3, 1, 2.0 / 3.0, 0.43, 1, 0, 0.0, 1, 1.0 / 3.0 },
	{ 1.0, 10, 0, 0, 0.0, 10.0, 10, 10, 1.0, 10, 1.0 },
	{ 0.0, 10, 0, 0, 1.0, 0.0, 0, 0, 0.0, 0, 1.0 },
	/* an empty parent: every child empty */
	{ 0.5, 4, 16, 0, 1.0, 2.0, 2, 2, 0.5, 0, 1.0 },
};

static void test_fixed(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixed_rows); i++) {
		struct density_model *m = model_1d(SPEC_DENSITY_FIXED_STRUCTURED, fixed_rows[i].rho, 1024);
		struct density_tile t = density_tile_flat(fixed_rows[i].s);
		struct density_constraint c = { density_tile_flat(fixed_rows[i].S), fixed_rows[i].O };
		const struct density_constraint *cp = fixed_rows[i].S ? &c : NULL;
		double probs[16];
		size_t len;

		CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, cp), fixed_rows[i].p0, EPS);
		CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, cp, fixed_rows[i].n1), fixed_rows[i].p_n1, EPS);
		CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), fixed_rows[i].expected, EPS);
		CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), fixed_rows[i].max1);
		CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.5), fixed_rows[i].max_half);
		CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), fixed_rows[i].min_density, EPS);
		len = density_distribution(m, &t, cp, probs, ARRAY_SIZE(probs));
		if (fixed_rows[i].n1 < ARRAY_SIZE(probs)) {
			CU_ASSERT_TRUE(len > fixed_rows[i].n1);
			CU_ASSERT_DOUBLE_EQUAL(probs[fixed_rows[i].n1], fixed_rows[i].p_n1, EPS);
		}
		CU_ASSERT_STRING_EQUAL(density_type_name(m), "fixed_structured");
		density_model_free(m);
	}
}

static void test_fixed_confidence(void)
{
	/* x = 1.29: c <= P(1) = 0.71 gives 1, above gives 2 */
	struct density_model *m = model_1d(SPEC_DENSITY_FIXED_STRUCTURED, 0.43, 100);
	struct density_tile t = density_tile_flat(3);
	double probs[4];

	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.70), 1);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.72), 2);
	CU_ASSERT_EQUAL(density_distribution(m, &t, NULL, NULL, 0), 3);
	CU_ASSERT_EQUAL(density_distribution(m, &t, NULL, probs, 4), 3);
	CU_ASSERT_DOUBLE_EQUAL(probs[0], 0.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(probs[1], 0.71, EPS);
	CU_ASSERT_DOUBLE_EQUAL(probs[2], 0.29, EPS);
	CU_ASSERT_DOUBLE_EQUAL(probs[3], 0.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(density_global(m), 0.43, EPS);
	density_model_free(m);
}

/* --------------------------------------------------------- hypergeometric */

static void test_hypergeometric_hand(void)
{
	/* N = 10, rho 0.3 => r = 3; s = 4: C(3,n) C(7,4-n) / C(10,4), C(10,4) = 210 */
	struct density_model *m = model_1d(SPEC_DENSITY_HYPERGEOMETRIC, 0.3, 10);
	struct density_tile t = density_tile_flat(4);
	const double want[4] = { 35.0 / 210, 105.0 / 210, 63.0 / 210, 7.0 / 210 };
	double probs[6];
	struct density_constraint c = { density_tile_flat(8), 2 };
	size_t n;

	CU_ASSERT_EQUAL(density_distribution(m, &t, NULL, probs, 6), 4);
	for (n = 0; n < 4; n++) {
		CU_ASSERT_DOUBLE_EQUAL(probs[n], want[n], 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, n), want[n], 1e-12);
	}
	CU_ASSERT_DOUBLE_EQUAL(probs[4], 0.0, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 1.0 / 6.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), 1.2, 1e-12);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), 3);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.5), 1);     /* CDF(1) = 2/3 */
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.1), 0);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 0.95), 2);    /* CDF(2) = 203/210 */
	CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), 0.0, 0.0);
	/* under (8, 2), a 2-point tile: P(0) = C(6,2)/C(8,2) = 15/28 */
	t = density_tile_flat(2);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, &c), 15.0 / 28.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, &c, 2), 1.0 / 28.0, 1e-12);
	/* s = 8 > N - r = 7: (8 - 7) div 8 = 0 in integer arithmetic */
	t = density_tile_flat(8);
	CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), 0.0, 0.0);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), 3);
	CU_ASSERT_STRING_EQUAL(density_type_name(m), "hypergeometric");
	CU_ASSERT_DOUBLE_EQUAL(density_global(m), 0.3, 1e-12);
	density_model_free(m);

	/* fully dense: the unsigned quirk gives 1 */
	m = model_1d(SPEC_DENSITY_HYPERGEOMETRIC, 1.0, 10);
	t = density_tile_flat(4);
	CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), 1.0, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 4), 1.0, 1e-12);
	density_model_free(m);
}

static void test_hypergeometric_large(void)
{
	/* N = 10^6, rho 0.1: P(scalar empty) = 1 - r/N exactly; P(0) of 3 points by product */
	struct density_model *m = model_1d(SPEC_DENSITY_HYPERGEOMETRIC, 0.1, 1000000);
	struct density_tile t = density_tile_flat(1);
	double p0 = (900000.0 / 1000000) * (899999.0 / 999999) * (899998.0 / 999998);
	double probs[1001], sum = 0.0, mean = 0.0;
	size_t i, len;

	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 0.9, 1e-12);
	t = density_tile_flat(3);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), p0, 1e-12);
	t = density_tile_flat(1000);
	len = density_distribution(m, &t, NULL, probs, ARRAY_SIZE(probs));
	CU_ASSERT_EQUAL(len, 1001);
	for (i = 0; i < ARRAY_SIZE(probs); i++) {
		sum += probs[i];
		mean += probs[i] * (double)i;
	}
	CU_ASSERT_DOUBLE_EQUAL(sum, 1.0, 1e-10);
	CU_ASSERT_DOUBLE_EQUAL(mean, 100.0, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), 100.0, 1e-9);
	density_model_free(m);
}

/* density_prob_range equals density_prob point by point, for every kind of model. */
static void test_prob_range(void)
{
	static const struct {
		enum spec_density_kind kind;
		double rho;
		uint64_t size, tile, lo;
		size_t count;
		bool constrained;
		uint64_t parent, occupancy;
	} rows[] = {
		{ SPEC_DENSITY_FIXED_STRUCTURED, 0.43, 100, 3, 0, 4, false, 0, 0 },
		{ SPEC_DENSITY_FIXED_STRUCTURED, 0.25, 64, 2, 0, 3, true, 16, 8 },
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.3, 10, 4, 0, 6, false, 0, 0 },
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.3, 10, 8, 0, 5, false, 0, 0 },   /* support 1..3 */
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.275, 230400, 3600, 900, 200, false, 0, 0 },
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.1, 1000000, 1000, 0, 1001, false, 0, 0 },
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.5, 128, 64, 20, 10, false, 0, 0 },  /* below the mode */
		{ SPEC_DENSITY_HYPERGEOMETRIC, 0.5, 128, 8, 0, 9, true, 64, 40 },
	};
	double probs[1001];
	unsigned i;
	size_t k;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct density_model *m = model_1d(rows[i].kind, rows[i].rho, rows[i].size);
		struct density_tile t = density_tile_flat(rows[i].tile);
		struct density_constraint c = { density_tile_flat(rows[i].parent), rows[i].occupancy };
		const struct density_constraint *cp = rows[i].constrained ? &c : NULL;
		density_prob_range(m, &t, cp, rows[i].lo, rows[i].count, probs);
		for (k = 0; k < rows[i].count; k++) {
			double want = density_prob(m, &t, cp, rows[i].lo + k);
			if (fabs(probs[k] - want) > 1e-12 * (want > 1e-300 ? 1 : 0) + want * 1e-10)
				fprintf(stderr, "row %u, n = %llu: %.17g, want %.17g\n", i,
					(unsigned long long)(rows[i].lo + k), probs[k], want);
			CU_ASSERT(fabs(probs[k] - want) <= want * 1e-10 + 1e-300);
		}
		density_model_free(m);
	}
}

static void test_model_from_spec(void)
{
	/* conv1d: Inputs[W = P + S] with P = 9, S = 3 => 11 points (the extent
	 * the spec loader stores in rank_extent) */
	struct spec_tensor in;
	struct density_model *m;
	struct density_tile t = density_tile_flat(1);

	memset(&in, 0, sizeof(in));
	in.name = "Inputs";
	in.n_ranks = 1;
	in.ranks[0].n_terms = 2;
	in.ranks[0].terms[0] = (struct spec_term){ 0, -1, 1 };
	in.ranks[0].terms[1] = (struct spec_term){ 1, -1, 1 };
	in.rank_extent[0] = 11;
	in.density = dens(SPEC_DENSITY_HYPERGEOMETRIC, 0.5);
	m = density_model_new(&in);
	/* r = ceil(0.5 * 11) = 6 */
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 5.0 / 11.0, 1e-12);
	density_model_free(m);
	in.density.workload_tensor_size = 100;
	m = density_model_new(&in);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 0.5, 1e-12);
	density_model_free(m);
	in.size = 20;
	in.density.workload_tensor_size = 0;
	m = density_model_new(&in);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 0.5, 1e-12);
	density_model_free(m);
	density_model_free(NULL);
}

/* ------------------------------------------------------------------ banded */

static void banded_pattern(struct pattern *p, unsigned n, unsigned w)
{
	unsigned r, c;

	memset(p, 0, sizeof(*p));
	p->R = p->C = n;
	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			p->v[r][c] = (r > c ? r - c : c - r) <= w;
}

static void test_banded(void)
{
	static const unsigned sizes[] = { 8, 9, 12 }, widths[] = { 0, 1, 2, 3 };
	static const unsigned tiles[][2] = { { 1, 1 }, { 1, 4 }, { 2, 2 }, { 3, 3 }, { 4, 2 },
					     { 5, 3 }, { 8, 8 }, { 12, 1 } };
	static const unsigned parents[][2] = { { 4, 4 }, { 6, 6 }, { 4, 8 } };
	size_t si, wi, ti, pi;

	for (si = 0; si < ARRAY_SIZE(sizes); si++)
		for (wi = 0; wi < ARRAY_SIZE(widths); wi++) {
			struct pattern p;
			struct spec_density d = dens(SPEC_DENSITY_BANDED, 0.0);
			uint64_t shape[2] = { sizes[si], sizes[si] };
			struct density_model *m;
			double nnz = 0.0, want_global;
			unsigned u;
			char name[32];

			d.band_width = widths[wi];
			m = density_model_new_shape(&d, 2, shape, 0);
			banded_pattern(&p, sizes[si], widths[wi]);
			nnz = sizes[si];
			for (u = 1; u <= widths[wi]; u++)
				nnz += 2.0 * (sizes[si] - u);
			want_global = nnz / (sizes[si] * sizes[si]);
			CU_ASSERT_DOUBLE_EQUAL(density_global(m), want_global, EPS);
			snprintf(name, sizeof(name), "banded-%u", widths[wi]);
			CU_ASSERT_STRING_EQUAL(density_type_name(m), name);
			for (ti = 0; ti < ARRAY_SIZE(tiles); ti++) {
				unsigned a = tiles[ti][0], b = tiles[ti][1];
				double h[MAXD * MAXD + 1] = { 0 };
				size_t n = (size_t)a * b + 1;
				brute_hist(&p, a, b, 0, 0, -1, 1.0, h);
				normalize(h, n);
				compare(m, a, b, 0, 0, -1, h, n, "banded");
				for (pi = 0; pi < ARRAY_SIZE(parents); pi++) {
					unsigned A = parents[pi][0], B = parents[pi][1];
					long O;
					if (a > A || b > B)
						continue;
					for (O = 0; O <= (long)(A * B); O++) {
						double hc[MAXD * MAXD + 1] = { 0 };
						brute_hist(&p, a, b, A, B, O, 1.0, hc);
						if (normalize(hc, n))
							compare(m, a, b, A, B, O, hc, n, "banded");
					}
				}
			}
			density_model_free(m);
		}
}

/* ------------------------------------------------------------------- N:M */

/*
 * Brute force over every placement: each group (of M along 'axis', virtual
 * positions past the edge included) takes one of its C(M, N) patterns.
 */
struct nm_brute {
	unsigned R, C, N, M, axis;
	unsigned n_groups, n_pat;
	unsigned pat[70];           /* bitmasks of the C(M, N) patterns */
};

static void nm_patterns(struct nm_brute *b)
{
	unsigned mask;

	b->n_pat = 0;
	for (mask = 0; mask < (1u << b->M); mask++)
		if ((unsigned)__builtin_popcount(mask) == b->N)
			b->pat[b->n_pat++] = mask;
}

/* The pattern of configuration 'cfg' (a number in base n_pat over the groups). */
static void nm_fill(const struct nm_brute *b, unsigned long cfg, struct pattern *p)
{
	unsigned lines = b->axis ? b->R : b->C, len = b->axis ? b->C : b->R;
	unsigned gpl = (len + b->M - 1) / b->M, l, g, k;

	memset(p, 0, sizeof(*p));
	p->R = b->R;
	p->C = b->C;
	for (l = 0; l < lines; l++)
		for (g = 0; g < gpl; g++) {
			unsigned mask = b->pat[cfg % b->n_pat];
			cfg /= b->n_pat;
			for (k = 0; k < b->M; k++) {
				unsigned x = g * b->M + k;
				if (x >= len || !((mask >> k) & 1))
					continue;
				if (b->axis)
					p->v[l][x] = 1;
				else
					p->v[x][l] = 1;
			}
		}
}

static void nm_check(unsigned R, unsigned C, unsigned N, unsigned M, unsigned axis,
		     const unsigned (*tiles)[2], size_t n_tiles, const unsigned (*parents)[2],
		     size_t n_parents)
{
	struct nm_brute b = { R, C, N, M, axis, 0, 0, { 0 } };
	struct spec_density d = dens(SPEC_DENSITY_NM, 0.0);
	uint64_t shape[2] = { R, C };
	unsigned lines = axis ? R : C, len = axis ? C : R;
	unsigned long n_cfg = 1, cfg;
	struct density_model *m;
	struct pattern p;
	size_t ti, pi, i;
	char name[40];

	nm_patterns(&b);
	b.n_groups = lines * ((len + M - 1) / M);
	for (i = 0; i < b.n_groups; i++)
		n_cfg *= b.n_pat;
	d.nm_n = N;
	d.nm_m = M;
	m = density_model_new_shape(&d, 2, shape, axis);
	snprintf(name, sizeof(name), "structured_nm-%u:%u", N, M);
	CU_ASSERT_STRING_EQUAL(density_type_name(m), name);
	CU_ASSERT_DOUBLE_EQUAL(density_global(m), (double)N / M, EPS);
	for (ti = 0; ti < n_tiles; ti++) {
		unsigned a = tiles[ti][0], bb = tiles[ti][1];
		size_t n = (size_t)a * bb + 1;
		double h[MAXD * MAXD + 1] = { 0 };
		for (cfg = 0; cfg < n_cfg; cfg++) {
			nm_fill(&b, cfg, &p);
			brute_hist(&p, a, bb, 0, 0, -1, 1.0, h);
		}
		normalize(h, n);
		compare(m, a, bb, 0, 0, -1, h, n, "N:M");
		for (pi = 0; pi < n_parents; pi++) {
			unsigned A = parents[pi][0], B = parents[pi][1];
			long O;
			if (a > A || bb > B)
				continue;
			for (O = 0; O <= (long)(A * B); O++) {
				double hc[MAXD * MAXD + 1] = { 0 };
				for (cfg = 0; cfg < n_cfg; cfg++) {
					nm_fill(&b, cfg, &p);
					brute_hist(&p, a, bb, A, B, O, 1.0, hc);
				}
				if (normalize(hc, n))
					compare(m, a, bb, A, B, O, hc, n, "N:M");
			}
		}
	}
	density_model_free(m);
}

static void test_nm_2_4(void)
{
	/* 2 x 8, 2:4 along the columns: 6^4 placements */
	static const unsigned tiles[][2] = { { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 2, 2 },
					     { 2, 3 }, { 1, 5 }, { 2, 8 }, { 1, 6 } };
	static const unsigned parents[][2] = { { 1, 4 }, { 2, 4 }, { 1, 8 }, { 2, 6 }, { 2, 3 } };

	nm_check(2, 8, 2, 4, 1, tiles, ARRAY_SIZE(tiles), parents, ARRAY_SIZE(parents));
}

static void test_nm_1_3_edge(void)
{
	/*
	 * 7 x 3, 1:3 down the rows: the last group of each column is cut to 1;
	 * 3 columns do not divide into parents or children of 2
	 */
	static const unsigned tiles[][2] = { { 1, 1 }, { 2, 1 }, { 2, 2 }, { 4, 1 }, { 3, 2 } };
	static const unsigned parents[][2] = { { 3, 3 }, { 4, 2 }, { 7, 1 } };

	nm_check(7, 3, 1, 3, 0, tiles, ARRAY_SIZE(tiles), parents, ARRAY_SIZE(parents));
}

static void test_nm_closed_values(void)
{
	/* 2:4 on 64 x 64 along the columns: aligned tiles hold exactly N/M of their points */
	struct spec_density d = dens(SPEC_DENSITY_NM, 0.0);
	uint64_t shape[2] = { 64, 64 };
	struct density_model *m;
	struct density_tile t = tile2(16, 8);
	struct density_constraint c = { tile2(16, 8), 64 };
	struct density_tile s = tile2(1, 1);

	d.nm_n = 2;
	d.nm_m = 4;
	m = density_model_new_shape(&d, 2, shape, 1);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 64), 1.0, EPS);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), 64);
	CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), 0.5, EPS);
	/* a scalar: empty half the time, also inside a tile holding 64 */
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &s, NULL), 0.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &s, &c), 0.5, EPS);
	/* 16 lines of one element: Binomial(16, 1/2) */
	t = tile2(16, 1);
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), pow(0.5, 16), 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 8), 12870.0 / 65536.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), 8.0, 1e-12);
	density_model_free(m);
}

/* ------------------------------------------------------------ actual data */

/* A spec_matrix over the non-zeros of 'p' (coords owned by the caller). */
static struct spec_matrix matrix_of(const struct pattern *p, uint64_t *coords)
{
	struct spec_matrix mx;
	unsigned r, c;

	memset(&mx, 0, sizeof(mx));
	mx.file = "generated";
	mx.n_ranks = 2;
	mx.shape[0] = p->R;
	mx.shape[1] = p->C;
	mx.coords = coords;
	for (r = 0; r < p->R; r++)
		for (c = 0; c < p->C; c++)
			if (p->v[r][c]) {
				coords[2 * mx.nnz] = r;
				coords[2 * mx.nnz + 1] = c;
				mx.nnz++;
			}
	return mx;
}

static void gen_power_law(struct pattern *p, struct rng *g)
{
	unsigned r, k;

	memset(p, 0, sizeof(*p));
	p->R = 12;
	p->C = 16;
	for (r = 0; r < p->R; r++)
		for (k = 0; k < (16 + r) / (r + 1); k++)
			p->v[r][rng_below(g, p->C)] = 1;
}

static void gen_blocks(struct pattern *p, struct rng *g)
{
	unsigned k, r, c;

	memset(p, 0, sizeof(*p));
	p->R = 16;
	p->C = 12;
	for (k = 0; k < 4; k++) {
		unsigned r0 = (unsigned)rng_below(g, 13), c0 = (unsigned)rng_below(g, 9);
		for (r = r0; r < r0 + 4; r++)
			for (c = c0; c < c0 + 4; c++)
				p->v[r][c] = 1;
	}
}

static void test_actual(void)
{
	static const unsigned tiles[][2] = { { 1, 1 }, { 1, 4 }, { 2, 2 }, { 3, 3 }, { 4, 4 },
					     { 5, 2 }, { 12, 1 }, { 16, 16 } };
	static const unsigned parents[][2] = { { 4, 4 }, { 6, 6 }, { 4, 8 }, { 12, 16 } };
	struct rng g;
	int which;
	size_t ti, pi;

	rng_seed(&g, 7);
	for (which = 0; which < 4; which++) {
		struct pattern p;
		uint64_t *coords = xmalloc(2 * MAXD * MAXD * sizeof(uint64_t));
		struct spec_matrix mx;
		struct spec_density d = dens(SPEC_DENSITY_ACTUAL, 0.0);
		uint64_t shape[2];
		struct density_model *m;

		if (which == 0)
			banded_pattern(&p, 12, 2);
		else if (which == 1)
			gen_power_law(&p, &g);
		else if (which == 2)
			gen_blocks(&p, &g);
		else
			memset(&p, 0, sizeof(p)), p.R = 5, p.C = 7;   /* all zero */
		mx = matrix_of(&p, coords);
		d.data = &mx;
		shape[0] = p.R;
		shape[1] = p.C;
		m = density_model_new_shape(&d, 2, shape, 0);
		CU_ASSERT_STRING_EQUAL(density_type_name(m), "actual_data");
		CU_ASSERT_DOUBLE_EQUAL(density_global(m), (double)mx.nnz / (p.R * p.C), EPS);
		for (ti = 0; ti < ARRAY_SIZE(tiles); ti++) {
			unsigned a = tiles[ti][0], b = tiles[ti][1];
			size_t n = (size_t)a * b + 1;
			double h[MAXD * MAXD + 1] = { 0 };
			brute_hist(&p, a, b, 0, 0, -1, 1.0, h);
			normalize(h, n);
			compare(m, a, b, 0, 0, -1, h, n, "actual");
			for (pi = 0; pi < ARRAY_SIZE(parents); pi++) {
				unsigned A = parents[pi][0], B = parents[pi][1];
				long O;
				if (a > A || b > B)
					continue;
				for (O = 0; O <= (long)(A * B); O++) {
					double hc[MAXD * MAXD + 1] = { 0 };
					brute_hist(&p, a, b, A, B, O, 1.0, hc);
					if (normalize(hc, n))
						compare(m, a, b, A, B, O, hc, n, "actual");
				}
			}
		}
		density_model_free(m);
		free(coords);
	}
}

static void test_geometric_fallback(void)
{
	/* no 4x4 tile of a 2-banded 8x8 holds 15: fall back to HG(.; 15, 4, 16) */
	struct spec_density d = dens(SPEC_DENSITY_BANDED, 0.0);
	uint64_t shape[2] = { 8, 8 };
	struct density_model *m;
	struct density_tile t = tile2(2, 2);
	struct density_constraint c = { tile2(4, 4), 15 };

	d.band_width = 2;
	m = density_model_new_shape(&d, 2, shape, 0);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, &c, 3), 0.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, &c, 4), 0.75, 1e-12);
	/* the cache answers the same twice */
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, &c, 4), 0.75, 1e-12);
	/* tiles larger than the tensor are clipped */
	t = tile2(100, 100);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 8 + 2 * 7 + 2 * 6), 1.0, 1e-12);
	density_model_free(m);
}

/* ------------------------------------------------ exact vs all placements */

/*
 * Histograms of every tile of 'tiles' (unconstrained) and of every tile
 * under every parent of 'parents' holding every O, summed over patterns.
 */
struct hists {
	const unsigned (*tiles)[2], (*parents)[2];
	size_t n_tiles, n_parents, n1, o1;     /* n1: slots per histogram; o1: O values */
	double *h, *hc;
};

static void hists_init(struct hists *hs, const unsigned (*tiles)[2], size_t n_tiles,
		       const unsigned (*parents)[2], size_t n_parents)
{
	hs->tiles = tiles;
	hs->parents = parents;
	hs->n_tiles = n_tiles;
	hs->n_parents = n_parents;
	size_t i;

	hs->n1 = hs->o1 = 1;
	for (i = 0; i < n_tiles; i++)
		if ((size_t)tiles[i][0] * tiles[i][1] + 1 > hs->n1)
			hs->n1 = (size_t)tiles[i][0] * tiles[i][1] + 1;
	for (i = 0; i < n_parents; i++)
		if ((size_t)parents[i][0] * parents[i][1] + 1 > hs->o1)
			hs->o1 = (size_t)parents[i][0] * parents[i][1] + 1;
	hs->h = xcalloc(n_tiles * hs->n1, sizeof(double));
	hs->hc = xcalloc(n_tiles * n_parents * hs->o1 * hs->n1, sizeof(double));
}

static double *hc_at(const struct hists *hs, size_t ti, size_t pi, size_t O)
{
	return hs->hc + ((ti * hs->n_parents + pi) * hs->o1 + O) * hs->n1;
}

/* Add pattern 'p' (probability 'w') to every histogram; constrained ones only if 'pairs'. */
static void hists_add(struct hists *hs, const struct pattern *p, double w, bool pairs)
{
	size_t ti, pi;
	long O;

	for (ti = 0; ti < hs->n_tiles; ti++) {
		unsigned a = hs->tiles[ti][0], b = hs->tiles[ti][1];
		brute_hist(p, a, b, 0, 0, -1, w, hs->h + ti * hs->n1);
		for (pi = 0; pairs && pi < hs->n_parents; pi++) {
			unsigned A = hs->parents[pi][0], B = hs->parents[pi][1];
			if (a > A || b > B)
				continue;
			for (O = 0; O <= (long)(A * B); O++)
				brute_hist(p, a, b, A, B, O, w, hc_at(hs, ti, pi, (size_t)O));
		}
	}
}

/* Compare model 'm' with every histogram (constrained ones only if 'pairs'). */
static void hists_check(const struct hists *hs, struct density_model *m, bool pairs,
			const char *what)
{
	size_t ti, pi;
	long O;

	for (ti = 0; ti < hs->n_tiles; ti++) {
		unsigned a = hs->tiles[ti][0], b = hs->tiles[ti][1];
		size_t n = (size_t)a * b + 1;
		double *h = hs->h + ti * hs->n1;
		normalize(h, n);
		compare(m, a, b, 0, 0, -1, h, n, what);
		for (pi = 0; pairs && pi < hs->n_parents; pi++) {
			unsigned A = hs->parents[pi][0], B = hs->parents[pi][1];
			if (a > A || b > B)
				continue;
			for (O = 0; O <= (long)(A * B); O++) {
				double *hc = hc_at(hs, ti, pi, (size_t)O);
				if (normalize(hc, n))
					compare(m, a, b, A, B, O, hc, n, what);
			}
		}
	}
}

static void hists_release(struct hists *hs)
{
	free(hs->h);
	free(hs->hc);
}

/* --------------------------------------------------------- block structured */

static struct density_model *block_model(unsigned R, unsigned C, unsigned br, unsigned bc,
					 double rho)
{
	struct spec_density d = dens(SPEC_DENSITY_BLOCK, rho);
	uint64_t shape[2] = { R, C };

	d.block_shape[0] = br;
	d.block_shape[1] = bc;
	return density_model_new_shape(&d, 2, shape, 0);
}

/* The pattern whose non-zero blocks (row-major block index) are those of 'sel' (k of them). */
static void block_fill(struct pattern *p, unsigned R, unsigned C, unsigned br, unsigned bc,
		       const unsigned *sel, unsigned k)
{
	unsigned nbc = (C + bc - 1) / bc, i, r, c;

	memset(p, 0, sizeof(*p));
	p->R = R;
	p->C = C;
	for (i = 0; i < k; i++)
		for (r = sel[i] / nbc * br; r < (sel[i] / nbc + 1) * br && r < R; r++)
			for (c = sel[i] % nbc * bc; c < (sel[i] % nbc + 1) * bc && c < C; c++)
				p->v[r][c] = 1;
}

static const struct {
	unsigned R, C, br, bc;
	double rho;
	unsigned n_blocks, K;
} block_rows[] = {
	{ 6, 7, 2, 3, 0.4, 9, 4 },     /* edge blocks of 1 column; round(3.6) */
	{ 8, 8, 4, 2, 0.5, 8, 4 },
	{ 5, 5, 5, 1, 0.3, 5, 2 },     /* whole columns; round(1.5) */
	{ 7, 6, 3, 4, 0.25, 6, 2 },    /* round(1.5): halves go up */
};

static void test_block_vs_placements(void)
{
	static const unsigned tiles[][2] = { { 1, 1 }, { 2, 3 }, { 4, 6 }, { 3, 2 }, { 2, 2 },
					     { 5, 4 }, { 8, 8 }, { 1, 7 }, { 3, 4 } };
	static const unsigned parents[][2] = { { 2, 3 }, { 4, 6 }, { 3, 4 }, { 8, 8 } };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(block_rows); i++) {
		unsigned R = block_rows[i].R, C = block_rows[i].C, br = block_rows[i].br;
		unsigned bc = block_rows[i].bc, K = block_rows[i].K, nb = block_rows[i].n_blocks;
		struct density_model *m = block_model(R, C, br, bc, block_rows[i].rho);
		struct density_model *fb = block_model(R, C, br, bc, block_rows[i].rho);
		unsigned sel[16], k;
		size_t ti;
		struct hists hs;
		struct pattern p;
		char name[48];

		snprintf(name, sizeof(name), "block_structured-%ux%u", br, bc);
		CU_ASSERT_STRING_EQUAL(density_type_name(m), name);
		CU_ASSERT_EQUAL(m->n_blocks, nb);
		CU_ASSERT_EQUAL(m->n_nonzero_blocks, K);
		CU_ASSERT_DOUBLE_EQUAL(density_global(m), (double)K / nb, EPS);
		hists_init(&hs, tiles, ARRAY_SIZE(tiles), parents, ARRAY_SIZE(parents));
		/* every K-subset of the blocks, equally likely */
		for (k = 0; k < K; k++)
			sel[k] = k;
		for (;;) {
			int j;
			block_fill(&p, R, C, br, bc, sel, K);
			hists_add(&hs, &p, 1.0, true);
			for (j = (int)K - 1; j >= 0 && sel[j] == nb - K + (unsigned)j; j--)
				;
			if (j < 0)
				break;
			sel[j]++;
			for (k = (unsigned)j + 1; k < K; k++)
				sel[k] = sel[k - 1] + 1;
		}
		hists_check(&hs, m, true, name);
		{
			/* the same, one parent occupancy at a time instead of the joint */
			struct density_model *m1 = block_model(R, C, br, bc, block_rows[i].rho);
			m1->joint_max_entries = 0;
			hists_check(&hs, m1, true, "block, one O at a time");
			density_model_free(m1);
		}
		/* the fallback: exact mean and P(empty), the rest approximate */
		fb->work_budget = 0.0;
		for (ti = 0; ti < ARRAY_SIZE(tiles); ti++) {
			struct density_tile t = tile2(tiles[ti][0], tiles[ti][1]);
			double *h = hs.h + ti * hs.n1, mean = 0.0, probs[MAXD * MAXD + 1];
			size_t n, len = density_distribution(fb, &t, NULL, probs, ARRAY_SIZE(probs));
			for (n = 0; n < hs.n1; n++)
				mean += h[n] * (double)n;
			CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(fb, &t), mean, 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(fb, &t, NULL), h[0], 1e-9);
			CU_ASSERT(len <= (size_t)tiles[ti][0] * tiles[ti][1] + 1);
		}
		hists_release(&hs);
		density_model_free(m);
		density_model_free(fb);
	}
}

static void test_block_closed_values(void)
{
	/* 64 x 64 in 16 x 16 blocks: 16 blocks, K = 4; an aligned 32 x 32 tile meets 4 */
	struct density_model *m = block_model(64, 64, 16, 16, 0.25);
	struct density_tile t = tile2(32, 32);
	struct density_constraint c = { tile2(32, 32), 512 };
	struct density_tile row = tile2(1, 32);
	double c16_4 = 1820.0;

	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &t, NULL), 495.0 / c16_4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 256), 4.0 * 220.0 / c16_4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 1024), 1.0 / c16_4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 100), 0.0, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), 256.0, 1e-9);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), 1024);
	/* a 32 x 32 tile holding two blocks: a row of it is empty with probability 1/3 */
	CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &row, &c), 1.0 / 6.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &row, &c, 32), 1.0 / 6.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &row, &c, 16), 2.0 / 3.0, 1e-12);
	/* a tile inside a block: 0 or all of it */
	t = tile2(4, 8);
	CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &t, NULL, 32), 0.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(density_min_density(m, &t), 0.0, 0.0);
	density_model_free(m);
	/*
	 * 1024 x 1024 in 16 x 16 blocks, K = 410: a [128, 128] tile holding one
	 * block leaves a row fiber of it empty unless the block is in its rows
	 * (7/8) and a point empty with 1 - 256/16384; two blocks among the 64:
	 * C(56, 2)/C(64, 2) for the fiber, C(8, 2)/C(64, 2) for both in its rows.
	 */
	{
		uint64_t shape[2] = { 1024, 1024 };
		struct spec_density d = dens(SPEC_DENSITY_BLOCK, 0.1);
		struct density_tile fiber = tile2(1, 128), point = tile2(1, 1);
		struct density_constraint one = { tile2(128, 128), 256 }, two = { tile2(128, 128), 512 };
		d.block_shape[0] = d.block_shape[1] = 16;
		m = density_model_new_shape(&d, 2, shape, 0);
		CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &fiber, &one), 7.0 / 8.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &point, &one), 1.0 - 1.0 / 64.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &fiber, &two), 1540.0 / 2016.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(density_prob(m, &fiber, &two, 32), 28.0 / 2016.0, 1e-12);
		density_model_free(m);
	}
}

/* --------------------------------------------------------------- power law */

static struct density_model *power_law_model(unsigned R, unsigned C, double rho, double alpha,
					     bool permute)
{
	struct spec_density d = dens(SPEC_DENSITY_POWER_LAW, rho);
	uint64_t shape[2] = { R, C };

	d.exponent = alpha;
	d.permute_rows = permute;
	return density_model_new_shape(&d, 2, shape, 0);
}

/* Row lengths by hand (docs/formats-and-densities.md's apportionment). */
static const struct {
	unsigned R, C;
	double rho, alpha;
	unsigned len[8];
} pl_len_rows[] = {
	/* T 10, quotas 4.8 2.4 1.6 1.2: floors 8, then rows 0 (.8) and 2 (.6) */
	{ 4, 8, 10.0 / 32, 1.0, { 5, 2, 2, 1 } },
	/* S 3: rows 0 (4.8) and 1 (7 .5 / 1.083 = 3.2) full; 4 left: 2.29 1.71 -> 2 2 */
	{ 4, 3, 10.0 / 12, 1.0, { 3, 3, 2, 2 } },
	/* T 9: quotas 3.94 1.97 1.31 .985 .788: floors 5, then rows 3 1 0 4 */
	{ 5, 4, 0.45, 1.0, { 4, 2, 1, 1, 1 } },
	/* T 9, S 3: rows 0 and 1 full, 3 left: 1.38 .78 .50 .35 -> rows 3 4 get one more */
	{ 6, 3, 0.5, 2.0, { 3, 3, 1, 1, 1, 0 } },
	/* alpha 0: T 7 over 4 rows, 1.75 each: floors 4, then rows 0 1 2 (ties: lower rows) */
	{ 4, 5, 0.35, 0.0, { 2, 2, 2, 1 } },
	{ 3, 4, 1.0, 3.0, { 4, 4, 4 } },
	{ 3, 4, 0.0, 1.0, { 0, 0, 0 } },
};

static void test_power_law_lengths(void)
{
	size_t i, r;

	for (i = 0; i < ARRAY_SIZE(pl_len_rows); i++) {
		struct density_model *m = power_law_model(pl_len_rows[i].R, pl_len_rows[i].C,
							  pl_len_rows[i].rho, pl_len_rows[i].alpha,
							  false);
		for (r = 0; r < pl_len_rows[i].R; r++)
			CU_ASSERT_EQUAL(m->row_len[r], pl_len_rows[i].len[r]);
		density_model_free(m);
	}
}

/* Add every placement of row lengths 'len' (rows from 'row' on) to 'hs'. */
static void pl_enumerate(struct hists *hs, struct pattern *p, const uint64_t *len, unsigned row,
			 bool pairs)
{
	unsigned mask, c;

	if (row == p->R) {
		hists_add(hs, p, 1.0, pairs);
		return;
	}
	for (mask = 0; mask < (1u << p->C); mask++) {
		if ((uint64_t)__builtin_popcount(mask) != len[row])
			continue;
		for (c = 0; c < p->C; c++)
			p->v[row][c] = (mask >> c) & 1;
		pl_enumerate(hs, p, len, row + 1, pairs);
	}
}

/* Next distinct permutation of v[0 .. n) in lexicographic order; false after the last. */
static bool next_perm(uint64_t *v, unsigned n)
{
	unsigned i, j;
	uint64_t t;

	for (i = n - 1; i > 0 && v[i - 1] >= v[i]; i--)
		;
	if (i == 0)
		return false;
	for (j = n - 1; v[j] <= v[i - 1]; j--)
		;
	t = v[i - 1], v[i - 1] = v[j], v[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = v[i], v[i] = v[j], v[j] = t;
	return true;
}

static void test_power_law_vs_placements(void)
{
	static const unsigned tiles[][2] = { { 1, 1 }, { 1, 2 }, { 2, 2 }, { 3, 1 }, { 2, 3 },
					     { 4, 4 }, { 1, 4 }, { 5, 2 }, { 6, 3 } };
	static const unsigned parents[][2] = { { 2, 2 }, { 3, 4 }, { 4, 3 }, { 6, 4 } };
	static const struct {
		unsigned R, C;
		double rho, alpha;
	} rows[] = {
		{ 5, 4, 0.45, 1.0 },
		{ 6, 3, 0.5, 2.0 },
		{ 4, 5, 0.35, 0.0 },
	};
	size_t i;
	int perm;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		for (perm = 0; perm < 2; perm++) {
			struct density_model *m = power_law_model(rows[i].R, rows[i].C, rows[i].rho,
								  rows[i].alpha, perm);
			uint64_t len[8];
			struct hists hs;
			struct pattern p;
			char name[48];
			double hg[MAXD * MAXD + 1];
			struct density_tile t = tile2(1, 2);
			struct density_constraint c = { tile2(2, 2), 2 };

			snprintf(name, sizeof(name), "power_law-%g", rows[i].alpha);
			CU_ASSERT_STRING_EQUAL(density_type_name(m), name);
			hists_init(&hs, tiles, ARRAY_SIZE(tiles), parents, ARRAY_SIZE(parents));
			memset(&p, 0, sizeof(p));
			p.R = rows[i].R;
			p.C = rows[i].C;
			memcpy(len, m->row_len, rows[i].R * sizeof(uint64_t));
			if (!perm) {
				pl_enumerate(&hs, &p, len, 0, true);
			} else {
				/* every arrangement of the lengths is equally likely */
				qsort(len, rows[i].R, sizeof(uint64_t), cmp_u64_test);
				do
					pl_enumerate(&hs, &p, len, 0, false);
				while (next_perm(len, rows[i].R));
			}
			hists_check(&hs, m, !perm, perm ? "power_law permuted" : "power_law");
			if (!perm) {
				/* the same, one parent occupancy at a time instead of the joint */
				struct density_model *m1 = power_law_model(rows[i].R, rows[i].C,
									   rows[i].rho, rows[i].alpha,
									   false);
				m1->joint_max_entries = 0;
				hists_check(&hs, m1, true, "power_law, one O at a time");
				density_model_free(m1);
			}
			if (perm) {
				/* permuted rows under a constraint: HG(n; 2, 2, 4) */
				density_distribution(m, &t, &c, hg, 3);
				CU_ASSERT_DOUBLE_EQUAL(hg[0], 1.0 / 6.0, 1e-12);
				CU_ASSERT_DOUBLE_EQUAL(hg[1], 4.0 / 6.0, 1e-12);
			}
			hists_release(&hs);
			density_model_free(m);
		}
}

/*
 * Over budget, permuted rows are drawn with replacement, cut to what
 * distinct rows can hold. Rows [3, 3, 1, 1, 1, 0] in 3 x 2 tiles (half of
 * them the 3 x 1 edge): at most 2 + 2 + 1 = 5 (with replacement: 6); mean
 * 3 rows * 9/6 non-zeros * (2/3 + 1/3) / 2 of them in the window = 2.25.
 */
static void test_power_law_fallback(void)
{
	struct density_model *m = power_law_model(6, 3, 0.5, 2.0, true);
	struct density_model *x = power_law_model(6, 3, 0.5, 2.0, true);
	struct density_tile t = tile2(3, 2);
	double pe = density_prob_empty(x, &t, NULL);

	m->work_budget = 0.0;
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(x, &t), 2.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(density_expected_occupancy(m, &t), 2.25, 0.07);
	CU_ASSERT_EQUAL(density_max_occupancy(m, &t, 1.0), 5);
	CU_ASSERT_EQUAL(density_max_occupancy(x, &t, 1.0), 5);
	/* drawn with replacement, an empty row is drawn more often than in a subset */
	CU_ASSERT(density_prob_empty(m, &t, NULL) > pe);
	density_model_free(m);
	density_model_free(x);
}

/* ------------------------------------------- model vs generated tensors */

#define MC_SEEDS 300
#define MC_MAX_TILES 4

/*
 * A tensor whose density model is checked against tensors generated by
 * the executor (exec/ shares no code with density/): dimensions "ABC..."
 * one per rank, tiles cut as a grid from the origin.
 */
static const struct mc_case {
	const char *what;
	enum spec_density_kind kind;
	unsigned n_ranks;
	uint64_t shape[3];
	double density;
	uint64_t block[3];
	double exponent;
	unsigned row_rank;
	bool permute;
	uint64_t tiles[MC_MAX_TILES][3];
} mc_cases[] = {
	{ "block 2-D", SPEC_DENSITY_BLOCK, 2, { 24, 20 }, 0.3, { 4, 5 }, 0, 0, false,
	  { { 4, 5 }, { 8, 10 }, { 3, 7 }, { 6, 4 } } },
	{ "block 3-D", SPEC_DENSITY_BLOCK, 3, { 6, 8, 10 }, 0.4, { 2, 4, 3 }, 0, 0, false,
	  { { 2, 4, 3 }, { 3, 3, 5 }, { 6, 8, 1 }, { 1, 1, 1 } } },
	{ "power law", SPEC_DENSITY_POWER_LAW, 2, { 32, 24 }, 0.2, { 0 }, 1.2, 0, false,
	  { { 4, 6 }, { 1, 24 }, { 5, 5 }, { 32, 1 } } },
	{ "power law, permuted", SPEC_DENSITY_POWER_LAW, 2, { 32, 24 }, 0.2, { 0 }, 1.2, 0, true,
	  { { 4, 6 }, { 1, 24 }, { 5, 5 }, { 32, 1 } } },
	{ "power law 3-D, rows on rank 1", SPEC_DENSITY_POWER_LAW, 3, { 6, 10, 8 }, 0.3, { 0 }, 1.0,
	  1, false, { { 2, 3, 4 }, { 6, 1, 8 }, { 3, 4, 3 }, { 1, 10, 1 } } },
	{ "power law 3-D, rows on rank 2, permuted", SPEC_DENSITY_POWER_LAW, 3, { 6, 10, 8 }, 0.3,
	  { 0 }, 2.0, 2, true, { { 2, 3, 4 }, { 6, 1, 8 }, { 3, 4, 3 }, { 1, 10, 1 } } },
};

/* The workload of 'c': one dimension per rank, tensor 0 its only data space. */
static void mc_workload(const struct mc_case *c, struct spec_workload *w, struct spec_tensor *t)
{
	static const char *const names[] = { "A", "B", "C" };
	unsigned r;

	memset(w, 0, sizeof(*w));
	memset(t, 0, sizeof(*t));
	w->n_dims = c->n_ranks;
	w->n_tensors = 1;
	w->tensors = t;
	t->name = "T";
	t->n_ranks = c->n_ranks;
	t->size = 1;
	for (r = 0; r < c->n_ranks; r++) {
		w->dim_names[r] = names[r];
		w->bounds[r] = c->shape[r];
		t->ranks[r].n_terms = 1;
		t->ranks[r].terms[0] = (struct spec_term){ r, 1, -1 };
		t->dim_mask |= 1u << r;
		t->rank_extent[r] = c->shape[r];
		t->size *= c->shape[r];
		t->density.block_shape[r] = c->block[r];
	}
	t->density.kind = c->kind;
	t->density.density = c->density;
	t->density.exponent = c->exponent;
	t->density.row_dim = c->row_rank;
	t->density.permute_rows = c->permute;
}

/* Fractions of the grid tiles of 'tile' in 'x' holding n, into frac[0 .. n1). */
static void mc_fractions(const struct exec_tensor *x, const uint64_t *tile, double *frac,
			 size_t n1)
{
	unsigned nr = exec_tensor_n_ranks(x), r;
	uint64_t grid[3] = { 1, 1, 1 }, n_tiles = 1, p, *count;

	for (r = 0; r < nr; r++) {
		grid[r] = (exec_tensor_extent(x, r) + tile[r] - 1) / tile[r];
		n_tiles *= grid[r];
	}
	count = xcalloc(n_tiles, sizeof(uint64_t));
	for (p = 0; p < exec_tensor_size(x); p++) {
		uint64_t rest = p, c[3] = { 0, 0, 0 }, k = 0;
		for (r = nr; r-- > 0;) {
			c[r] = rest % exec_tensor_extent(x, r);
			rest /= exec_tensor_extent(x, r);
		}
		for (r = 0; r < nr; r++)
			k = k * grid[r] + c[r] / tile[r];
		count[k] += exec_tensor_values(x)[p] != 0;
	}
	memset(frac, 0, n1 * sizeof(double));
	for (p = 0; p < n_tiles; p++)
		frac[count[p]] += 1.0 / (double)n_tiles;
	free(count);
}

/*
 * For every tile shape, the model's P(n), P(empty) and expected occupancy
 * against their means over MC_SEEDS generated tensors: within 5 standard
 * errors of the mean over seeds (each seed's fraction of grid tiles is one
 * sample), with a floor for probabilities too small to show up.
 */
static void test_model_vs_generated(void)
{
	size_t ci, ti;

	for (ci = 0; ci < ARRAY_SIZE(mc_cases); ci++) {
		const struct mc_case *c = &mc_cases[ci];
		struct spec_workload w;
		struct spec_tensor t;
		struct density_model *m;
		uint64_t seed;

		mc_workload(c, &w, &t);
		m = density_model_new(&t);
		for (ti = 0; ti < MC_MAX_TILES; ti++) {
			struct density_tile tile = density_tile_box(c->n_ranks, c->tiles[ti]);
			size_t n1 = (size_t)density_tile_points(&tile) + 1, n;
			double *frac = xcalloc(n1, sizeof(double)), *sum = xcalloc(n1, sizeof(double));
			double *sq = xcalloc(n1, sizeof(double)), *model = xcalloc(n1, sizeof(double));
			double occ = 0.0, occ_sq = 0.0, se, mean;
			int bad = 0;

			for (seed = 1; seed <= MC_SEEDS; seed++) {
				char why[256];
				struct exec_tensor *x = exec_tensor_new(&w, 0, seed, why);
				double o = 0.0;
				CU_ASSERT_PTR_NOT_NULL_FATAL(x);
				mc_fractions(x, c->tiles[ti], frac, n1);
				for (n = 0; n < n1; n++) {
					sum[n] += frac[n];
					sq[n] += frac[n] * frac[n];
					o += frac[n] * (double)n;
				}
				occ += o;
				occ_sq += o * o;
				exec_tensor_free(x);
			}
			density_distribution(m, &tile, NULL, model, n1);
			for (n = 0; n < n1; n++) {
				mean = sum[n] / MC_SEEDS;
				se = sqrt(fmax(sq[n] / MC_SEEDS - mean * mean, 0.0) / MC_SEEDS);
				if (fabs(mean - model[n]) > 5 * se + 2e-3 && !bad++)
					printf("\n%s tile %llu..: P(%zu) = %.6g, generated %.6g +- %.2g\n",
					       c->what, (unsigned long long)c->tiles[ti][0], n, model[n],
					       mean, se);
			}
			mean = sum[0] / MC_SEEDS;
			CU_ASSERT_DOUBLE_EQUAL(density_prob_empty(m, &tile, NULL), model[0], 1e-12);
			mean = occ / MC_SEEDS;
			se = sqrt(fmax(occ_sq / MC_SEEDS - mean * mean, 0.0) / MC_SEEDS);
			if (fabs(density_expected_occupancy(m, &tile) - mean) > 5 * se + 1e-9 && !bad++)
				printf("\n%s tile %llu..: E = %.6g, generated %.6g +- %.2g\n", c->what,
				       (unsigned long long)c->tiles[ti][0],
				       density_expected_occupancy(m, &tile), mean, se);
			CU_ASSERT_FALSE(bad);
			free(frac);
			free(sum);
			free(sq);
			free(model);
		}
		density_model_free(m);
	}
}

static CU_TestInfo density_tests[] = {
	{ "fixed_structured", test_fixed },
	{ "fixed_structured confidence", test_fixed_confidence },
	{ "hypergeometric by hand", test_hypergeometric_hand },
	{ "hypergeometric, large N", test_hypergeometric_large },
	{ "probabilities over a range", test_prob_range },
	{ "model from a spec tensor", test_model_from_spec },
	{ "banded vs brute force", test_banded },
	{ "2:4 vs all placements", test_nm_2_4 },
	{ "1:3 with a cut group vs all placements", test_nm_1_3_edge },
	{ "N:M closed values", test_nm_closed_values },
	{ "actual data vs brute force", test_actual },
	{ "geometric fallback and clipping", test_geometric_fallback },
	{ "block structured vs all placements", test_block_vs_placements },
	{ "block structured closed values", test_block_closed_values },
	{ "power-law row lengths", test_power_law_lengths },
	{ "power law vs all placements", test_power_law_vs_placements },
	{ "power law over budget", test_power_law_fallback },
	{ "block and power law vs generated tensors", test_model_vs_generated },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "density", .pTests = density_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
