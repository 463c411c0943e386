/*
 * Compute classification for two operands (semantics 4.6,
 * CalculateFineGrainedComputeAccesses2Operand).
 */
#include "saf/saf.h"

#include <math.h>

#include "util/xalloc.h"

/* The three states of an operand: non-empty, empty, not present. */
enum { ENZ, EZ, NE, N_STATES };

/* What happens to a compute whose operands are in states (sa, sb). */
enum outcome { RANDOM, GATED, SKIPPED, NONEXISTENT };

/* Clamp a probability that rounding pushed just outside [0, 1]. */
static double clamp01(double x)
{
	if (x < -1e-5 || x > 1 + 1e-5)
		BUG("operand state probability %g", x);
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/*
 * State probabilities of operand 'o' whose partner 'other' may have been
 * gated/skipped on o's emptiness: then o is known non-empty on the surviving
 * computes, and ENZ = d / (1 - p); the rest is NE (metadata) or EZ.
 */
static void states(const struct saf_operand *o, const struct saf_operand *other, double *s)
{
	double d = o->density;

	s[ENZ] = d;
	s[EZ] = o->has_metadata ? 0 : 1 - d;
	s[NE] = o->has_metadata ? 1 - d : 0;
	if (other->gs_saf) {
		double q = 1 - other->empty_cond_prob;
		/*
		 * d and the empty probability are each rounded to 1e-6, so
		 * where the condition tile is one element (q is d exactly)
		 * d may exceed q by up to 1e-6 (e.g. 32 of 4096 non-zeros:
		 * d = 0.007813, q = 1 - 0.992188 = 0.007812, d / q = 1.00013,
		 * on which Sparseloop asserts): the operand is then non-empty
		 * on every surviving compute.
		 */
		s[ENZ] = q > 0 ? d / q : 1;
		if (s[ENZ] > 1 && d - q <= 1e-6 + 1e-12)
			s[ENZ] = 1;
		s[EZ] = o->has_metadata ? 0 : 1 - s[ENZ];
		s[NE] = o->has_metadata ? 1 - s[ENZ] : 0;
	}
	s[ENZ] = clamp01(s[ENZ]);
	s[EZ] = clamp01(s[EZ]);
	s[NE] = clamp01(s[NE]);
}

/* The outcome of a pair of states under the compute optimizations. */
static enum outcome outcome_of(int sa, int sb, bool gating, bool skipping)
{
	if (sa == NE && sb == NE)
		return NONEXISTENT;
	if (sa == NE || sb == NE)
		return skipping ? SKIPPED : gating ? GATED : RANDOM;
	if (sa == ENZ && sb == ENZ)
		return RANDOM;
	return gating ? GATED : RANDOM;
}

struct saf_computes saf_classify_computes(const struct saf_operand *a,
					  const struct saf_operand *b, bool gating,
					  bool skipping, uint64_t total)
{
	double sa[N_STATES], sb[N_STATES], frac[4] = { 0, 0, 0, 0 };
	struct saf_computes c;
	uint64_t taken;
	int i, j;

	states(a, b, sa);
	states(b, a, sb);
	for (i = 0; i < N_STATES; i++)
		for (j = 0; j < N_STATES; j++)
			frac[outcome_of(i, j, gating, skipping)] += sa[i] * sb[j];
	c.skipped = (uint64_t)floor(frac[SKIPPED] * (double)total);
	c.gated = (uint64_t)floor(frac[GATED] * (double)total);
	c.nonexistent = (uint64_t)floor(frac[NONEXISTENT] * (double)total);
	taken = c.skipped + c.gated + c.nonexistent;
	c.random = taken < total ? total - taken : 0;
	return c;
}
