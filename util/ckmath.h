/*
 * Checked 64-bit integer arithmetic.
 *
 * Exact counts are uint64_t; a 10^12-MAC layer is normal and a wrapped
 * counter must never reach an output. These return false on overflow and
 * leave '*out' unspecified; callers turn that into a spec error or BUG().
 */
#ifndef UTIL_CKMATH_H
#define UTIL_CKMATH_H

#include <stdbool.h>
#include <stdint.h>

/* *out = a * b; false on overflow. */
static inline bool ck_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* *out = a + b; false on overflow. */
static inline bool ck_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

/* ceil(a / b) for b > 0. */
static inline uint64_t ceil_div_u64(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* Greatest common divisor; gcd(a, 0) = a. */
static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

#endif
