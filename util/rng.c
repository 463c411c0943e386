#include "util/rng.h"

#include "util/xalloc.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

void rng_seed_stream(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = stream;
	rng_seed(r, seed ^ splitmix64(&x));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_below(struct rng *r, uint64_t bound)
{
	uint64_t threshold, x;
	if (!bound)
		BUG("rng_below(0)");
	threshold = -bound % bound;
	do
		x = rng_next(r);
	while (x < threshold);
	return x % bound;
}

double rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}
