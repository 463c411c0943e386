/*
 * Combining the storage optimizations of one tensor over its levels
 * (semantics 4.5b, PropagateImpactOfExplicitlyOptimizedRead) and their
 * local application (ApplyLocal), Timeloop's quirks included: the lower
 * optimized level of a chain takes its actual format reads from the format
 * updates, format ranks scale only in a degenerate case, and fills are
 * never gated or skipped locally.
 */
#include "saf/saf.h"

#include <math.h>
#include <string.h>

#include "util/xalloc.h"

/* floor(x p) for a count x. */
static uint64_t share_floor(uint64_t x, double p)
{
	double v = floor((double)x * p);
	return v > 0 ? (v < (double)x ? (uint64_t)v : x) : 0;
}

/* ceil(x p) for a count x. */
static uint64_t share_ceil(uint64_t x, double p)
{
	double v = ceil((double)x * p);
	return v > 0 ? (v < (double)x ? (uint64_t)v : x) : 0;
}

double saf_tile_p_down(const struct saf_tile *t)
{
	double pt = t->action != SAF_NONE ? t->p : 0.0;
	double ps = t->has_spatial ? t->p_spatial : 0.0;

	if (!t->has_spatial)
		return pt;
	if (t->action == SAF_NONE)
		return ps;
	if (t->spatial_nested)
		return pt > ps ? pt : ps;
	return 1.0 - (1.0 - pt) * (1.0 - ps);
}

/* ceil(tr * actual / algorithmic) updates: the reductions that still happen. */
static void scale_reductions(struct saf_tile *t)
{
	if (t->updates == 0)
		return;
	t->temporal_reductions = (uint64_t)ceil((double)t->temporal_reductions *
						(double)t->count[SAF_UPDATE][SAF_RANDOM] /
						(double)t->updates);
}

void saf_apply_local(struct saf_tile *t, double p, enum saf_class cls, bool read_write,
		     unsigned n_fmt_ranks)
{
	static const unsigned fmt_ops[] = { SAF_READ, SAF_UPDATE };
	uint64_t (*c)[SAF_CLASS_COUNT] = t->count, d;
	unsigned i, r, u;

	d = read_write ? share_ceil(c[SAF_READ][SAF_RANDOM], p)
		       : share_floor(c[SAF_READ][SAF_RANDOM], p);
	c[SAF_READ][cls] += d;
	c[SAF_READ][SAF_RANDOM] -= d;
	d = share_floor(c[SAF_UPDATE][SAF_RANDOM], p);
	c[SAF_UPDATE][cls] += d;
	c[SAF_UPDATE][SAF_RANDOM] -= d;
	if (n_fmt_ranks > SAF_MAX_RANKS)
		n_fmt_ranks = SAF_MAX_RANKS;
	for (i = 0; i < ARRAY_SIZE(fmt_ops); i++) {
		uint64_t (*f)[SAF_MAX_RANKS][2] = t->fmt[fmt_ops[i]];
		for (r = 0; r < n_fmt_ranks; r++) {
			for (u = 0; u < 2; u++) {
				d = share_floor(f[SAF_RANDOM][r][u], p);
				f[cls][r][u] += d;
				f[SAF_RANDOM][r][u] -= d;
			}
		}
	}
	if (read_write)
		scale_reductions(t);
}

/* Working copies of the counts while a tensor's optimizations propagate. */
struct work {
	uint64_t count[SPEC_MAX_LEVELS][SAF_OP_COUNT];
	uint64_t fmt[SPEC_MAX_LEVELS][SAF_OP_COUNT][SAF_MAX_RANKS][2];
	bool done[SPEC_MAX_LEVELS];
};

/*
 * Write the working copies of level 'i' into its outputs ('lower': the
 * level was reached from an optimized level above it).
 */
static void finalize(struct saf_tile *t, const struct work *w, unsigned i, bool lower)
{
	unsigned op;

	for (op = 0; op < SAF_OP_COUNT; op++) {
		t->count[op][SAF_RANDOM] = w->count[i][op];
		t->count[op][SAF_GATED] = t->count[op][SAF_SKIPPED] = 0;
		memcpy(t->fmt[op][SAF_RANDOM], w->fmt[i][op], sizeof(w->fmt[i][op]));
		memset(t->fmt[op][SAF_GATED], 0, sizeof(t->fmt[op][SAF_GATED]));
		memset(t->fmt[op][SAF_SKIPPED], 0, sizeof(t->fmt[op][SAF_SKIPPED]));
	}
	if (lower)   /* Timeloop's quirk: the reads take the updates' formats */
		memcpy(t->fmt[SAF_READ][SAF_RANDOM], w->fmt[i][SAF_UPDATE],
		       sizeof(w->fmt[i][SAF_UPDATE]));
}

/* The number of format ranks ApplyLocal touches at level 'l'. */
static unsigned local_ranks(const struct saf_tile *t, unsigned l)
{
	if (t[l].child >= 0) {
		unsigned n = t[t[l].child].has_metadata ? t[t[l].child].n_ranks : 0;
		return n < t[l].n_ranks ? n : t[l].n_ranks;
	}
	return t[l].n_ranks;
}

static enum saf_class class_of(enum saf_action a)
{
	return a == SAF_GATE ? SAF_GATED : SAF_SKIPPED;
}

/*
 * Finalize level 'l' of the chain 't' and apply its own temporal
 * optimization locally with probability 'p' (a level without one, or with
 * spatial skipping alone, only scales its temporal reductions).
 */
static void finish(struct saf_tile *t, const struct work *w, unsigned l, bool lower,
		   double p, bool read_write)
{
	finalize(&t[l], w, l, lower);
	if (t[l].action != SAF_NONE)
		saf_apply_local(&t[l], p, class_of(t[l].action), read_write, local_ranks(t, l));
	else
		scale_reductions(&t[l]);
}

/* Remove floor(x p) of level i's working counts (accesses that never happen). */
static void remove_below(struct saf_tile *t, struct work *w, unsigned i, unsigned l, double p)
{
	unsigned op, u;

	for (op = 0; op < SAF_OP_COUNT; op++)
		w->count[i][op] -= share_floor(w->count[i][op], p);
	if (!t[i].has_metadata)
		return;
	/* Timeloop's quirk: rank 0 of reads and fills only, and only when
	 * min(#ranks(i), #ranks(l) - 1) is 0 in unsigned arithmetic */
	if ((t[i].n_ranks < t[l].n_ranks - 1u ? t[i].n_ranks : t[l].n_ranks - 1u) != 0)
		return;
	for (u = 0; u < 2; u++) {
		w->fmt[i][SAF_READ][0][u] -= share_floor(w->fmt[i][SAF_READ][0][u], p);
		w->fmt[i][SAF_FILL][0][u] -= share_floor(w->fmt[i][SAF_FILL][0][u], p);
	}
}

/*
 * Propagate the optimization of level 'l' downwards. Returns true when it
 * ran past the compute without meeting another optimized level.
 */
static bool propagate_level(struct saf_tile *t, struct work *w, unsigned l, bool read_write)
{
	double p = saf_tile_p_down(&t[l]);
	unsigned i;

	for (i = l; i-- > 0;) {
		if (!t[i].is_kept)
			continue;
		remove_below(t, w, i, l, p);
		if (t[i].action == SAF_NONE && !t[i].has_spatial)
			continue;
		if (t[i].action != SAF_NONE) {
			double eff = p < 1.0 ? 1.0 - (1.0 - t[i].p) / (1.0 - p) : 0.0;
			finish(t, w, i, true, eff > 0 ? eff : 0.0, read_write);
		} else {
			finish(t, w, i, true, 0.0, read_write);
		}
		w->done[i] = true;
		return false;
	}
	return true;
}

void saf_propagate(struct saf_tile *t, unsigned n_levels, bool read_write,
		   struct saf_compute_effect *ce)
{
	struct work w;
	unsigned l, op;

	if (n_levels > SPEC_MAX_LEVELS)
		BUG("%u levels", n_levels);
	memset(w.done, 0, sizeof(w.done));
	for (l = 0; l < n_levels; l++) {
		for (op = 0; op < SAF_OP_COUNT; op++) {
			w.count[l][op] = t[l].count[op][SAF_RANDOM];
			memcpy(w.fmt[l][op], t[l].fmt[op][SAF_RANDOM], sizeof(w.fmt[l][op]));
		}
	}
	for (l = n_levels; l-- > 0;) {
		bool bottom;
		if (t[l].action == SAF_NONE && !t[l].has_spatial)
			continue;
		if (!t[l].is_kept && !t[l].has_spatial)
			continue;
		bottom = propagate_level(t, &w, l, read_write);
		if (!w.done[l]) {
			finish(t, &w, l, false, t[l].p, read_write);
			w.done[l] = true;
		}
		if (bottom && !read_write) {
			double p = saf_tile_p_down(&t[l]);
			ce->computes -= share_floor(ce->computes, p);
			ce->gs_saf = true;
			ce->empty_cond_prob = round(p * 1e6) / 1e6;
		}
	}
	for (l = 0; l < n_levels; l++) {
		if (!t[l].is_kept || w.done[l])
			continue;
		finish(t, &w, l, false, 0.0, read_write);
	}
}
