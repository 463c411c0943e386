/*
 * A seeded pseudo-random generator (xoshiro256**, seeded through splitmix64).
 *
 * Each thread or each task owns its 'struct rng'; there is no global state, so
 * the same seed gives the same sequence on every machine and thread count.
 */
#ifndef UTIL_RNG_H
#define UTIL_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seed 'r' from one 64-bit value (any value, 0 included, is fine). */
void rng_seed(struct rng *r, uint64_t seed);

/* Seed 'r' for sub-stream 'stream' of 'seed' (e.g. one per thread or tensor). */
void rng_seed_stream(struct rng *r, uint64_t seed, uint64_t stream);

/* Next 64 uniformly distributed bits. */
uint64_t rng_next(struct rng *r);

/* Uniform integer in [0, bound); bound must be > 0. Unbiased. */
uint64_t rng_below(struct rng *r, uint64_t bound);

/* Uniform double in [0, 1) with 53 random bits. */
double rng_double(struct rng *r);

#endif
