/* Tests of model/density*.c: every density model against hand values or brute force. */
#include "density/density.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

#include "tests/unit.h"

#define EPS 1e-9
#define MAXD 64   /* brute force: tensors up to MAXD x MAXD */

/* ------------------------------------------------------------ helpers */

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
