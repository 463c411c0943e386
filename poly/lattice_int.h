/*
 * One rank of a tensor tile, counted with integer arithmetic only.
 *
 * A rank coordinate is x = sum_k c_k * d_k over its terms, and every d_k
 * ranges over an interval [lo_k, hi_k]. The image of that box is
 * base + { sum_k a_k * e_k : 0 <= e_k < n_k } with a_k = |c_k|. These helpers
 * recognise the two shapes we can count in closed form: an arithmetic
 * progression (a "lattice interval", e.g. a dense window or a stride with no
 * window) and a general sum of two terms. Anything else, and intersections of
 * non-lattice images, can be counted on a bitmap of bounded width; beyond
 * that it goes to isl. Internal to poly/; nothing here allocates.
 */
#ifndef POLY_LATTICE_INT_H
#define POLY_LATTICE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What is known about a rank image. */
enum poly_img_kind {
	POLY_IMG_LATTICE,   /* exactly { lo, lo + step, ..., hi } */
	POLY_IMG_COUNTED,   /* 'count' is exact, but the set has irregular holes */
	POLY_IMG_UNKNOWN,   /* neither: ask isl */
};

/* One term of a rank over a box: coef * d with d in [lo, hi] (lo <= hi). */
struct poly_term_box {
	int64_t coef;       /* non-zero */
	int64_t lo, hi;
};

/* The image of one rank over a box. */
struct poly_img {
	enum poly_img_kind kind;
	int64_t lo, hi;     /* smallest and largest coordinate (the hull's ends) */
	int64_t step;       /* POLY_IMG_LATTICE: the progression's step (>= 1) */
	uint64_t count;     /* exact number of points unless POLY_IMG_UNKNOWN */
};

/*
 * Describe the image of the 'n' terms 't' (n <= 8) summed over their boxes.
 * 'out->lo' and 'out->hi' are valid for every kind; when the coordinates
 * overflow int64 the kind is POLY_IMG_UNKNOWN and they are INT64_MIN and
 * INT64_MAX.
 */
void poly_img_of_terms(const struct poly_term_box *t, unsigned n, struct poly_img *out);

/*
 * Number of points in the intersection of two POLY_IMG_LATTICE images.
 * Returns false (and leaves '*out' alone) only on int64 overflow.
 */
bool poly_img_meet_count(const struct poly_img *a, const struct poly_img *b, uint64_t *out);

/* Bits of the largest rank-image bitmap (8 KB); wider images go to isl. */
#define POLY_BITMAP_BITS (1u << 16)
#define POLY_BITMAP_WORDS (POLY_BITMAP_BITS / 64)

/*
 * Set in 'bm' ('n_words' 64-bit words, bit i = coordinate origin + i) the
 * points of the image of the 'n' terms 't', clearing the rest. The image
 * must lie in [origin, origin + 64 n_words). Costs about
 * n_words * sum_k (hi_k - lo_k) word operations.
 */
void poly_img_bitmap(const struct poly_term_box *t, unsigned n, int64_t origin, uint64_t *bm,
		     size_t n_words);

/* Number of bits set in both 'a' and 'b' ('b' may equal 'a'). */
uint64_t poly_bitmap_meet(const uint64_t *a, const uint64_t *b, size_t n_words);

/* Greatest common divisor of two non-negative numbers; gcd(0, 0) = 0. */
int64_t poly_gcd(int64_t a, int64_t b);

#endif
