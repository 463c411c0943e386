/* Exact counts of one rank's image with integer arithmetic (lattice_int.h). */
#include "poly/lattice_int.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#define POLY_MAX_RANK_TERMS 8

int64_t poly_gcd(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* Return "x" modulo "m" in [0, m), for m > 0. */
static int64_t mod_pos(int64_t x, int64_t m)
{
	int64_t r = x % m;
	return r < 0 ? r + m : r;
}

/*
 * Return the inverse of "a" modulo "m" (gcd(a, m) = 1, m >= 1), by the
 * extended Euclidean algorithm.
 */
static int64_t mod_inverse(int64_t a, int64_t m)
{
	int64_t r0 = m, r1 = mod_pos(a, m), s0 = 0, s1 = 1;

	if (m == 1)
		return 0;
	while (r1 != 0) {
		int64_t q = r0 / r1, t;
		t = r0 - q * r1;
		r0 = r1;
		r1 = t;
		t = s0 - q * s1;
		s0 = s1;
		s1 = t;
	}
	assert(r0 == 1);
	return mod_pos(s0, m);
}

/*
 * Insert the varying term (a, len) into the arrays kept sorted by increasing
 * coefficient; "m" is the current number of entries.
 */
static void insert_sorted(int64_t *a, int64_t *len, unsigned m, int64_t ak, int64_t lenk)
{
	unsigned j = m;

	while (j > 0 && a[j - 1] > ak) {
		a[j] = a[j - 1];
		len[j] = len[j - 1];
		j--;
	}
	a[j] = ak;
	len[j] = lenk;
}

/*
 * Classify { sum_k a[k] * e_k : 0 <= e_k <= len[k] } for "m" varying terms
 * sorted by increasing a[k], whose largest element is "span".
 *
 * With g = gcd(a), the set is the progression {0, g, ..., span} exactly when
 * a[0] = g and every a[j] <= g + sum_{i<j} a[i] * len[i] (each new term's
 * first step lands inside, or right after, what the smaller terms cover).
 * The condition is also necessary: the smallest positive element is a[0],
 * and when a[j] is too large, span_j + g is missing below a[j].
 *
 * Two terms with a' = a / g coprime: values a'[0] x + a'[1] y collide along
 * (x + a'[1] t, y - a'[0] t), so counting each chain at its smallest x gives
 * n0 n1 - max(0, n0 - a'[1]) * max(0, n1 - a'[0]), with n = len + 1.
 */
static void classify(const int64_t *a, const int64_t *len, unsigned m, int64_t span,
		     struct poly_img *out)
{
	int64_t g = 0, run;
	unsigned j;
	bool chain;

	if (m == 0) {
		out->kind = POLY_IMG_LATTICE;
		out->step = 1;
		out->count = 1;
		return;
	}
	for (j = 0; j < m; j++)
		g = poly_gcd(a[j], g);
	chain = a[0] == g;
	run = a[0] * len[0];            /* no overflow: bounded by span */
	for (j = 1; j < m && chain; j++) {
		if (a[j] - g > run)
			chain = false;
		run += a[j] * len[j];
	}
	if (chain) {
		out->kind = POLY_IMG_LATTICE;
		out->step = g;
		out->count = (uint64_t)(span / g) + 1;
		return;
	}
	if (m == 2) {
		uint64_t n0 = (uint64_t)len[0] + 1, n1 = (uint64_t)len[1] + 1;
		uint64_t a0 = (uint64_t)(a[0] / g), a1 = (uint64_t)(a[1] / g);
		uint64_t both;
		uint64_t lost = (n0 > a1 ? n0 - a1 : 0) * (n1 > a0 ? n1 - a0 : 0);

		if (!__builtin_mul_overflow(n0, n1, &both)) {
			out->kind = POLY_IMG_COUNTED;
			out->count = both - lost;
			return;
		}
	}
	out->kind = POLY_IMG_UNKNOWN;
}

void poly_img_of_terms(const struct poly_term_box *t, unsigned n, struct poly_img *out)
{
	int64_t a[POLY_MAX_RANK_TERMS], len[POLY_MAX_RANK_TERMS];
	int64_t base = 0, span = 0;
	unsigned k, m = 0;

	assert(n <= POLY_MAX_RANK_TERMS);
	out->kind = POLY_IMG_UNKNOWN;
	out->lo = INT64_MIN;      /* until known: no bitmap can hold it */
	out->hi = INT64_MAX;
	out->step = 1;
	out->count = 0;
	for (k = 0; k < n; k++) {
		int64_t c = t[k].coef, b, ext, ak, part;

		assert(c != 0 && t[k].lo <= t[k].hi);
		if (__builtin_mul_overflow(c, c > 0 ? t[k].lo : t[k].hi, &b) ||
		    __builtin_add_overflow(base, b, &base))
			return;
		if (t[k].lo == t[k].hi)
			continue;
		if (__builtin_sub_overflow(t[k].hi, t[k].lo, &ext) || c == INT64_MIN)
			return;
		ak = c > 0 ? c : -c;
		if (__builtin_mul_overflow(ak, ext, &part) ||
		    __builtin_add_overflow(span, part, &span))
			return;
		insert_sorted(a, len, m++, ak, ext);
	}
	if (__builtin_add_overflow(base, span, &out->hi))
		return;
	out->lo = base;
	classify(a, len, m, span, out);
}

bool poly_img_meet_count(const struct poly_img *a, const struct poly_img *b, uint64_t *out)
{
	int64_t lo = a->lo > b->lo ? a->lo : b->lo;
	int64_t hi = a->hi < b->hi ? a->hi : b->hi;
	int64_t d, diff, m, lcm, k, v0, off, first;

	assert(a->kind == POLY_IMG_LATTICE && b->kind == POLY_IMG_LATTICE);
	if (hi < lo) {
		*out = 0;
		return true;
	}
	d = poly_gcd(a->step, b->step);
	if (__builtin_sub_overflow(b->lo, a->lo, &diff))
		return false;
	if (diff % d != 0) {
		*out = 0;
		return true;
	}
	m = b->step / d;
	if (__builtin_mul_overflow(a->step / d, b->step, &lcm))
		return false;
	/* solve (a.step / d) k = diff / d (mod m): a.lo + a.step k is in both */
	if (__builtin_mul_overflow(mod_pos(diff / d, m), mod_inverse(a->step / d, m), &k))
		return false;
	k %= m;
	if (__builtin_mul_overflow(a->step, k, &v0) || __builtin_add_overflow(a->lo, v0, &v0) ||
	    __builtin_sub_overflow(v0, lo, &off))
		return false;
	if (__builtin_add_overflow(lo, mod_pos(off, lcm), &first)) {
		*out = 0;           /* the first common point lies beyond INT64_MAX >= hi */
		return true;
	}
	*out = first > hi ? 0 : (uint64_t)((hi - first) / lcm) + 1;
	return true;
}

/* Set "bm" |= "bm" << "s" ("n_words" words; bits shifted past the end are dropped). */
static void or_shifted(uint64_t *bm, size_t n_words, uint64_t s)
{
	size_t q = (size_t)(s / 64), w;
	unsigned r = (unsigned)(s % 64);

	if (s == 0 || q >= n_words)
		return;
	for (w = n_words; w-- > q;) {   /* high to low: sources below w are still old */
		uint64_t v = bm[w - q] << r;
		if (r && w > q)
			v |= bm[w - q - 1] >> (64 - r);
		bm[w] |= v;
	}
}

/*
 * Replace the set S in "bm" by the union of S + e * "a" for 0 <= e <= "len",
 * in O(log len) passes: with R covering e < m, R | R << m a covers e < 2m.
 */
static void sum_term(uint64_t *bm, size_t n_words, uint64_t a, uint64_t len)
{
	uint64_t have = 1, want = len + 1;

	while (have < want) {
		uint64_t step = have <= want - have ? have : want - have;
		or_shifted(bm, n_words, step * a);
		have += step;
	}
}

void poly_img_bitmap(const struct poly_term_box *t, unsigned n, int64_t origin, uint64_t *bm,
		     size_t n_words)
{
	int64_t base = 0;
	uint64_t pos;
	unsigned k;

	memset(bm, 0, n_words * sizeof(*bm));
	for (k = 0; k < n; k++)
		base += t[k].coef * (t[k].coef > 0 ? t[k].lo : t[k].hi);
	pos = (uint64_t)base - (uint64_t)origin;
	assert(base >= origin && pos < 64 * (uint64_t)n_words);
	bm[pos / 64] |= UINT64_C(1) << (pos % 64);
	for (k = 0; k < n; k++) {
		uint64_t a = t[k].coef > 0 ? (uint64_t)t[k].coef : 0 - (uint64_t)t[k].coef;
		sum_term(bm, n_words, a, (uint64_t)t[k].hi - (uint64_t)t[k].lo);
	}
}

uint64_t poly_bitmap_meet(const uint64_t *a, const uint64_t *b, size_t n_words)
{
	uint64_t n = 0;
	size_t w;

	for (w = 0; w < n_words; w++)
		n += (uint64_t)__builtin_popcountll(a[w] & b[w]);
	return n;
}
