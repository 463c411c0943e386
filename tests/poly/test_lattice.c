/*
 * Tests of poly/lattice.c: one rank's image counted by integer arithmetic,
 * checked against hand-computed values and against brute-force enumeration.
 */
#include "poly/lattice_int.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/rng.h"

#define MAXT 4

struct img_case {
	const char *what;
	unsigned n;
	struct poly_term_box t[MAXT];
	enum poly_img_kind kind;
	int64_t lo, hi, step;   /* step checked for LATTICE only */
	uint64_t count;         /* checked unless UNKNOWN */
};

static const struct img_case img_cases[] = {
	{"single point", 1, {{5, 3, 3}}, POLY_IMG_LATTICE, 15, 15, 1, 1},
	{"unit interval", 1, {{1, 2, 9}}, POLY_IMG_LATTICE, 2, 9, 1, 8},
	{"stride 2 alone", 1, {{2, 0, 7}}, POLY_IMG_LATTICE, 0, 14, 2, 8},
	{"negative stride", 1, {{-3, 1, 4}}, POLY_IMG_LATTICE, -12, -3, 3, 4},
	{"2P+R, R extent 1", 2, {{2, 0, 7}, {1, 0, 0}}, POLY_IMG_LATTICE, 0, 14, 2, 8},
	{"2P+R, R extent 2", 2, {{2, 0, 7}, {1, 0, 1}}, POLY_IMG_LATTICE, 0, 15, 1, 16},
	{"2P+R, R extent 3", 2, {{2, 0, 7}, {1, 0, 2}}, POLY_IMG_LATTICE, 0, 16, 1, 17},
	{"3P+R, R extent 2: holes", 2, {{3, 0, 3}, {1, 0, 1}}, POLY_IMG_COUNTED, 0, 10, 0, 8},
	{"4P+R, R extent 3, offset", 2, {{4, 1, 3}, {1, 2, 4}}, POLY_IMG_COUNTED, 6, 16, 0, 9},
	{"dilation 2, P extent 1", 2, {{1, 0, 0}, {2, 0, 2}}, POLY_IMG_LATTICE, 0, 4, 2, 3},
	{"dilation 2, P extent 2", 2, {{1, 0, 1}, {2, 0, 2}}, POLY_IMG_LATTICE, 0, 5, 1, 6},
	{"dilation 3, P extent 2", 2, {{1, 0, 1}, {3, 0, 2}}, POLY_IMG_COUNTED, 0, 7, 0, 6},
	{"2a+3b, overlap", 2, {{2, 0, 4}, {3, 0, 4}}, POLY_IMG_COUNTED, 0, 20, 0, 19},
	{"4a+6b, gcd 2", 2, {{4, 0, 2}, {6, 0, 2}}, POLY_IMG_COUNTED, 0, 20, 0, 9},
	{"P-R", 2, {{1, 2, 5}, {-1, 0, 2}}, POLY_IMG_LATTICE, 0, 5, 1, 6},
	{"2P-3R: holes", 2, {{2, 0, 1}, {-3, 0, 1}}, POLY_IMG_COUNTED, -3, 2, 0, 4},
	{"a+2b+4c, chain", 3, {{1, 0, 1}, {2, 0, 1}, {4, 0, 3}}, POLY_IMG_LATTICE, 0, 15, 1, 16},
	{"a+3b+9c, base 3", 3, {{1, 0, 1}, {3, 0, 1}, {9, 0, 1}}, POLY_IMG_UNKNOWN, 0, 13, 0, 0},
	{"2a+4b+6c, step 2", 3, {{2, 0, 1}, {4, 0, 1}, {6, 0, 3}}, POLY_IMG_LATTICE, 0, 24, 2, 13},
	{"sorted by coefficient", 3, {{8, 0, 1}, {1, 0, 3}, {4, 0, 1}}, POLY_IMG_LATTICE, 0, 15, 1, 16},
	{"constant terms only", 2, {{7, 1, 1}, {-2, 4, 4}}, POLY_IMG_LATTICE, -1, -1, 1, 1},
	{"overflow", 2, {{INT64_MAX / 2, 0, 4}, {1, 0, 1}}, POLY_IMG_UNKNOWN, 0, 0, 0, 0},
};

/*
 * Count the image of the terms by enumerating every combination, marking
 * values in a bitmap over [lo, hi]. Returns the count; the oracle.
 */
static uint64_t brute_count(const struct poly_term_box *t, unsigned n, int64_t *lo_out,
			    int64_t *hi_out)
{
	int64_t lo = 0, hi = 0, e[MAXT], v;
	unsigned char *seen;
	uint64_t count = 0;
	unsigned k;

	for (k = 0; k < n; k++) {
		int64_t a = t[k].coef * t[k].lo, b = t[k].coef * t[k].hi;
		lo += a < b ? a : b;
		hi += a < b ? b : a;
		e[k] = t[k].lo;
	}
	seen = calloc((size_t)(hi - lo + 1), 1);
	for (;;) {
		for (v = 0, k = 0; k < n; k++)
			v += t[k].coef * e[k];
		if (!seen[v - lo]) {
			seen[v - lo] = 1;
			count++;
		}
		for (k = 0; k < n && e[k] == t[k].hi; k++)
			e[k] = t[k].lo;
		if (k == n)
			break;
		e[k]++;
	}
	free(seen);
	*lo_out = lo;
	*hi_out = hi;
	return count;
}


/* A calloc'ed array over [lo, hi] marking the image of the terms (oracle). */
static unsigned char *brute_marks(const struct poly_term_box *t, unsigned n, int64_t lo,
				  int64_t hi)
{
	unsigned char *seen = calloc((size_t)(hi - lo + 1), 1);
	int64_t e[MAXT], v;
	unsigned k;

	for (k = 0; k < n; k++)
		e[k] = t[k].lo;
	for (;;) {
		for (v = 0, k = 0; k < n; k++)
			v += t[k].coef * e[k];
		seen[v - lo] = 1;
		for (k = 0; k < n && e[k] == t[k].hi; k++)
			e[k] = t[k].lo;
		if (k == n)
			break;
		e[k]++;
	}
	return seen;
}

static void test_img_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(img_cases) / sizeof(img_cases[0]); i++) {
		const struct img_case *c = &img_cases[i];
		struct poly_img img;
		bool ok;

		poly_img_of_terms(c->t, c->n, &img);
		ok = img.kind == c->kind;
		if (ok && c->kind != POLY_IMG_UNKNOWN)
			ok = img.lo == c->lo && img.hi == c->hi && img.count == c->count &&
			     (c->kind != POLY_IMG_LATTICE || img.step == c->step);
		if (ok && c->kind != POLY_IMG_UNKNOWN) {
			int64_t blo, bhi;
			uint64_t bc = brute_count(c->t, c->n, &blo, &bhi);
			ok = bc == img.count && blo == img.lo && bhi == img.hi;
		}
		if (!ok)
			fprintf(stderr, "\nimg case %zu (%s): kind %d lo %lld hi %lld step %lld count %llu\n",
				i, c->what, img.kind, (long long)img.lo, (long long)img.hi,
				(long long)img.step, (unsigned long long)img.count);
		CU_ASSERT_TRUE(ok);
	}
}

/* A known case the fast path cannot count: its brute-force count, pinned. */
static void test_img_unknown_brute(void)
{
	const struct poly_term_box t[3] = {{1, 0, 1}, {3, 0, 1}, {9, 0, 1}};
	int64_t lo, hi;

	CU_ASSERT_EQUAL(brute_count(t, 3, &lo, &hi), 8);   /* 0 1 3 4 9 10 12 13 */
}

/* Random terms: every non-UNKNOWN answer equals the enumeration. */
static void test_img_random(void)
{
	struct rng r;
	unsigned iter, n_known = 0, n_lattice = 0;

	rng_seed(&r, 42);
	for (iter = 0; iter < 4000; iter++) {
		struct poly_term_box t[MAXT];
		unsigned n = 1 + (unsigned)rng_below(&r, MAXT), k;
		struct poly_img img;
		int64_t blo, bhi;
		uint64_t bc;

		for (k = 0; k < n; k++) {
			int64_t c = 1 + (int64_t)rng_below(&r, 6);
			t[k].coef = rng_below(&r, 4) == 0 ? -c : c;
			t[k].lo = (int64_t)rng_below(&r, 5) - 2;
			t[k].hi = t[k].lo + (int64_t)rng_below(&r, 6);
		}
		poly_img_of_terms(t, n, &img);
		bc = brute_count(t, n, &blo, &bhi);
		CU_ASSERT_EQUAL(img.lo, blo);
		CU_ASSERT_EQUAL(img.hi, bhi);
		if (img.kind == POLY_IMG_UNKNOWN)
			continue;
		n_known++;
		n_lattice += img.kind == POLY_IMG_LATTICE;
		if (img.count != bc)
			fprintf(stderr, "\nrandom case %u: count %llu, brute %llu\n", iter,
				(unsigned long long)img.count, (unsigned long long)bc);
		CU_ASSERT_EQUAL(img.count, bc);
	}
	/* the fast path must cover most small projections */
	CU_ASSERT_TRUE(n_known > 3000);
	CU_ASSERT_TRUE(n_lattice > 1000);
}

struct meet_case {
	struct poly_img a, b;
	uint64_t count;
};

#define LAT(lo, hi, step) {POLY_IMG_LATTICE, lo, hi, step, 0}

static const struct meet_case meet_cases[] = {
	{LAT(0, 9, 1), LAT(5, 14, 1), 5},          /* sliding unit window */
	{LAT(0, 9, 1), LAT(10, 19, 1), 0},         /* disjoint */
	{LAT(0, 14, 2), LAT(8, 22, 2), 4},         /* 8 10 12 14 */
	{LAT(0, 14, 2), LAT(1, 15, 2), 0},         /* other residue */
	{LAT(0, 12, 2), LAT(0, 18, 3), 3},         /* 0 6 12 */
	{LAT(1, 31, 3), LAT(-3, 37, 4), 3},        /* x=1 mod 3, x=1 mod 4: 1 13 25 */
	{LAT(4, 40, 6), LAT(2, 38, 9), 0},         /* 4 mod 6 vs 2 mod 9: 1 != 2 mod 3 */
	{LAT(-20, 20, 5), LAT(-7, 30, 1), 6},      /* -5 0 5 10 15 20 */
	{LAT(7, 7, 1), LAT(7, 7, 1), 1},
};

/* Brute intersection count of two lattice intervals. */
static uint64_t brute_meet(const struct poly_img *a, const struct poly_img *b)
{
	uint64_t n = 0;
	int64_t v;

	for (v = a->lo; v <= a->hi; v += a->step)
		if (v >= b->lo && v <= b->hi && (v - b->lo) % b->step == 0)
			n++;
	return n;
}

static void test_meet_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(meet_cases) / sizeof(meet_cases[0]); i++) {
		const struct meet_case *c = &meet_cases[i];
		uint64_t n = 12345, m = 12345;

		CU_ASSERT_TRUE(poly_img_meet_count(&c->a, &c->b, &n));
		CU_ASSERT_TRUE(poly_img_meet_count(&c->b, &c->a, &m));
		if (n != c->count || m != c->count)
			fprintf(stderr, "\nmeet case %zu: %llu / %llu, expected %llu\n", i,
				(unsigned long long)n, (unsigned long long)m,
				(unsigned long long)c->count);
		CU_ASSERT_EQUAL(n, c->count);
		CU_ASSERT_EQUAL(m, c->count);
		CU_ASSERT_EQUAL(brute_meet(&c->a, &c->b), c->count);
	}
}

static void test_meet_random(void)
{
	struct rng r;
	unsigned iter;

	rng_seed(&r, 7);
	for (iter = 0; iter < 5000; iter++) {
		struct poly_img a = LAT(0, 0, 1), b = LAT(0, 0, 1);
		uint64_t n;

		a.step = 1 + (int64_t)rng_below(&r, 12);
		b.step = 1 + (int64_t)rng_below(&r, 12);
		a.lo = (int64_t)rng_below(&r, 60) - 30;
		b.lo = (int64_t)rng_below(&r, 60) - 30;
		a.hi = a.lo + a.step * (int64_t)rng_below(&r, 15);
		b.hi = b.lo + b.step * (int64_t)rng_below(&r, 15);
		CU_ASSERT_TRUE(poly_img_meet_count(&a, &b, &n));
		CU_ASSERT_EQUAL(n, brute_meet(&a, &b));
	}
}

static void test_gcd(void)
{
	CU_ASSERT_EQUAL(poly_gcd(12, 18), 6);
	CU_ASSERT_EQUAL(poly_gcd(0, 5), 5);
	CU_ASSERT_EQUAL(poly_gcd(7, 0), 7);
	CU_ASSERT_EQUAL(poly_gcd(17, 5), 1);
}

/* Bitmaps: the image's points, and the points shared by two images. */
static void test_bitmap_random(void)
{
	static uint64_t a[POLY_BITMAP_WORDS], b[POLY_BITMAP_WORDS];
	struct rng r;
	unsigned iter;

	rng_seed(&r, 99);
	for (iter = 0; iter < 2000; iter++) {
		struct poly_term_box t[MAXT], u[MAXT];
		unsigned n = 1 + (unsigned)rng_below(&r, MAXT), k;
		struct poly_img ti, ui;
		int64_t lo, hi, blo, bhi, v;
		uint64_t brute_meet_n = 0;
		size_t words;
		unsigned char *seen_t, *seen_u;

		for (k = 0; k < n; k++) {
			int64_t c = 1 + (int64_t)rng_below(&r, 70);
			t[k].coef = rng_below(&r, 4) == 0 ? -c : c;
			t[k].lo = (int64_t)rng_below(&r, 5) - 2;
			t[k].hi = t[k].lo + (int64_t)rng_below(&r, 6);
			u[k] = t[k];
			if (rng_below(&r, 2)) {   /* the old tile: shifted or resized */
				u[k].lo += (int64_t)rng_below(&r, 3) - 1;
				u[k].hi = u[k].lo + (int64_t)rng_below(&r, 6);
			}
		}
		poly_img_of_terms(t, n, &ti);
		poly_img_of_terms(u, n, &ui);
		lo = ti.lo < ui.lo ? ti.lo : ui.lo;
		hi = ti.hi > ui.hi ? ti.hi : ui.hi;
		words = (size_t)(hi - lo) / 64 + 1;
		CU_ASSERT_TRUE(words <= POLY_BITMAP_WORDS);
		poly_img_bitmap(t, n, lo, a, words);
		poly_img_bitmap(u, n, lo, b, words);
		CU_ASSERT_EQUAL(poly_bitmap_meet(a, a, words), brute_count(t, n, &blo, &bhi));
		CU_ASSERT_EQUAL(poly_bitmap_meet(b, b, words), brute_count(u, n, &blo, &bhi));
		seen_t = brute_marks(t, n, lo, hi);
		seen_u = brute_marks(u, n, lo, hi);
		for (v = 0; v <= hi - lo; v++)
			brute_meet_n += seen_t[v] && seen_u[v];
		free(seen_t);
		free(seen_u);
		CU_ASSERT_EQUAL(poly_bitmap_meet(a, b, words), brute_meet_n);
	}
}

/* Shifts across word boundaries land on the right bits. */
static void test_bitmap_offsets(void)
{
	static uint64_t a[4];
	const struct poly_term_box t[2] = {{64, 0, 2}, {1, 100, 100}};   /* 100 164 228 */
	const struct poly_term_box s[1] = {{65, 0, 3}};                  /* 0 65 130 195 */

	poly_img_bitmap(t, 2, 37, a, 3);
	CU_ASSERT_EQUAL(a[0], UINT64_C(1) << 63);
	CU_ASSERT_EQUAL(a[1], UINT64_C(1) << 63);
	CU_ASSERT_EQUAL(a[2], UINT64_C(1) << 63);
	CU_ASSERT_EQUAL(poly_bitmap_meet(a, a, 3), 3);
	poly_img_bitmap(s, 1, 0, a, 4);
	CU_ASSERT_EQUAL(a[0], 1);
	CU_ASSERT_EQUAL(a[1], 2);
	CU_ASSERT_EQUAL(a[2], 4);
	CU_ASSERT_EQUAL(a[3], 8);
}

static CU_TestInfo lattice_tests[] = {
	{"rank images, table", test_img_table},
	{"rank images, unknown case pinned", test_img_unknown_brute},
	{"rank images vs enumeration", test_img_random},
	{"lattice intersections, table", test_meet_table},
	{"lattice intersections vs enumeration", test_meet_random},
	{"bitmaps vs enumeration", test_bitmap_random},
	{"bitmaps across word boundaries", test_bitmap_offsets},
	{"gcd", test_gcd},
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{.pName = "poly lattice", .pTests = lattice_tests},
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
