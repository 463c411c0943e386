/*
 * The search algorithms, as batches of candidates (search_int.h).
 *
 * random         sample a point uniformly: factorization, keep choice
 *                among those the constraints allow, orders; prune by the
 *                cheap checks, evaluate the rest.
 * random-pruned  the same, but the keep choice is drawn among those whose
 *                tiles fit, so capacity failures cost one candidate per
 *                factorization.
 * hybrid         random-pruned factorization and keep choice, then up to
 *                max_permutations_per_if_visit distinct orders of it.
 * linear-pruned  every factorization of the stream's slice in order; those
 *                that fit, with every fitting keep choice and every order.
 * exhaustive     the same without capacity pruning of keep choices: each
 *                (factorization, keep choice) is checked and counted.
 */
#include "mapper/search_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/rng.h"
#include "util/xalloc.h"

static bool aborted(const struct ms_worker *w)
{
	return w->abort && atomic_load_explicit(w->abort, memory_order_relaxed) != 0;
}

bool mapper_better(const struct mapper_options *o, const struct mapper_eval *a,
		   const struct ms_point *pa, const struct mapper_eval *b, const struct ms_point *pb)
{
	int c = mapper_eval_compare(a, b, o->metrics, o->n_metrics);
	return c < 0 || (c == 0 && ms_point_cmp(pa, pb) < 0);
}

void mapper_stream_range(const struct mapper_space *ms, unsigned stream, unsigned n_streams,
			 uint64_t *lo, uint64_t *hi)
{
	unsigned __int128 n = ms->n_if;
	*lo = (uint64_t)(n * stream / n_streams);
	*hi = (uint64_t)(n * (stream + 1) / n_streams);
}

uint64_t mapper_stream_batches(const struct mapper_space *ms, enum spec_search alg,
			       unsigned stream, unsigned n_streams)
{
	uint64_t lo, hi;

	if (alg != SPEC_SEARCH_EXHAUSTIVE && alg != SPEC_SEARCH_LINEAR_PRUNED)
		return UINT64_MAX;
	mapper_stream_range(ms, stream, n_streams, &lo, &hi);
	return (hi - lo + MS_BATCH_LINEAR - 1) / MS_BATCH_LINEAR;
}

/* Append one outcome (and its record) to 'b'. */
static void push(struct ms_worker *w, struct ms_batch *b, uint16_t oc, const struct ms_point *p,
		 const struct mapper_eval *ev)
{
	XGROW(b->outcome, b->n + 1, b->outcome_alloc);
	b->outcome[b->n] = oc;
	if (w->record) {
		struct ms_record *r;
		XGROW(b->records, b->n + 1, b->records_alloc);
		r = &b->records[b->n];
		memset(r, 0, sizeof(*r));
		r->has_point = p != NULL;
		if (p)
			r->pt = *p;
		if (ev)
			r->ev = *ev;
		else
			r->ev.status = MS_OC_FAIL(oc), r->ev.fail_level = MS_OC_LEVEL(oc);
	}
	b->n++;
}

/* A candidate pruned before evaluation. */
static void push_fail(struct ms_worker *w, struct ms_batch *b, enum mapper_fail f, unsigned level,
		      const struct ms_point *p)
{
	push(w, b, MS_OC(f, level), p, NULL);
}

/* Evaluate the complete point 'p' (its factorization loaded in w->fi). */
static void evaluate(struct ms_worker *w, struct ms_batch *b, const struct ms_point *p)
{
	struct mapper_eval ev;

	memset(&ev, 0, sizeof(ev));
	ms_point_mapping(w->ms, &w->fi, p, &w->m);
	w->ev->eval(w->ws, &w->m, &ev);
	if (ev.status == MAPPER_OK) {
		const struct ms_best *last = b->n_bests ? &b->bests[b->n_bests - 1] : NULL;
		if (!last || mapper_better(w->o, &ev, p, &last->ev, &last->pt)) {
			XGROW(b->bests, b->n_bests + 1, b->bests_alloc);
			b->bests[b->n_bests].pos = b->n;
			b->bests[b->n_bests].pt = *p;
			b->bests[b->n_bests].ev = ev;
			b->n_bests++;
		}
		push(w, b, MS_OC_EVALUATED, p, &ev);
	} else {
		push(w, b, (uint16_t)(MS_OC_EVALUATED | MS_OC(ev.status, ev.fail_level)), p, &ev);
	}
}

/* Seed of batch 'b'. */
static void batch_rng(const struct ms_worker *w, const struct ms_batch *b, struct rng *r)
{
	rng_seed_stream(r, w->o->seed, ((uint64_t)b->stream << 40) ^ b->index);
}

/* Load a random factorization; false (with the failure pushed) if it fails. */
static bool random_if(struct ms_worker *w, struct ms_batch *b, struct rng *r,
		      struct ms_point *p, bool by_capacity)
{
	enum mapper_fail f;
	unsigned lvl = 0;

	memset(p, 0, sizeof(*p));
	ms_random_choice(w->ms, r, p->choice);
	f = ms_if_load(w->ms, p->choice, &w->fi, &lvl);
	if (f == MAPPER_OK)
		f = ms_if_keep_sets(w->ms, &w->fi, by_capacity, &lvl);
	if (f != MAPPER_OK) {
		push_fail(w, b, f, lvl, NULL);
		return false;
	}
	ms_random_keep(w->ms, &w->fi, r, p);
	return true;
}

/* First spatial level of 'p' whose arrangement does not fit. */
static unsigned spatial_fail_level(const struct ms_worker *w, const struct ms_point *p)
{
	unsigned lvl = 0;
	ms_point_spatial_ok(w->ms, &w->fi, p, &lvl);
	return lvl;
}

static void run_random(struct ms_worker *w, struct ms_batch *b, bool pruned)
{
	struct ms_point p;
	struct rng r;
	unsigned i, lvl;

	batch_rng(w, b, &r);
	for (i = 0; i < MS_BATCH_RANDOM; i++) {
		if (aborted(w)) {
			b->partial = true;
			return;
		}
		if (!random_if(w, b, &r, &p, pruned))
			continue;
		if (!ms_random_orders(w->ms, &w->fi, &r, &p)) {
			push_fail(w, b, MAPPER_FAIL_FANOUT, spatial_fail_level(w, &p), NULL);
			continue;
		}
		if (!pruned && ms_keep_check(w->ms, &w->fi, p.keep, &lvl) != MAPPER_OK) {
			push_fail(w, b, MAPPER_FAIL_CAPACITY, lvl, &p);
			continue;
		}
		evaluate(w, b, &p);
	}
}

/* Number of order combinations of the loaded factorization (saturating). */
static uint64_t order_space(const struct ms_worker *w)
{
	uint64_t n = 1;
	unsigned tl;

	for (tl = 0; tl < w->ms->n_tl; tl++)
		if (__builtin_mul_overflow(n, w->fi.n_perm_digits[tl], &n))
			return UINT64_MAX;
	return n;
}

/* Set the orders of 'p' from combination number 'idx'. */
static void order_decode(const struct ms_worker *w, uint64_t idx, struct ms_point *p)
{
	unsigned tl;

	for (tl = 0; tl < w->ms->n_tl; tl++) {
		uint64_t n = w->fi.n_perm_digits[tl];
		ms_perm_digit_set(&w->fi, tl, idx % n, p);
		idx /= n;
	}
}

/* Evaluate up to 'max' distinct orders of the loaded factorization. */
static void visit_orders(struct ms_worker *w, struct ms_batch *b, struct rng *r,
			 struct ms_point *p, uint64_t max)
{
	uint64_t n = order_space(w), start, stride, t, done = 0, tries;

	if (n == UINT64_MAX) {
		for (t = 0; t < max; t++) {
			if (aborted(w))
				return;
			if (ms_random_orders(w->ms, &w->fi, r, p))
				evaluate(w, b, p);
		}
		return;
	}
	start = n > 1 ? rng_below(r, n) : 0;
	stride = 1;
	if (n > max && n > 2)
		do
			stride = 1 + rng_below(r, n - 1);
		while (gcd_u64(stride, n) != 1);
	tries = n < max * 64 ? n : max * 64;
	for (t = 0; t < tries && done < max; t++) {
		if (aborted(w))
			return;
		order_decode(w, (uint64_t)(((unsigned __int128)t * stride + start) % n), p);
		if (!ms_point_spatial_ok(w->ms, &w->fi, p, &(unsigned){ 0 }))
			continue;
		evaluate(w, b, p);
		done++;
	}
	if (!done)
		push_fail(w, b, MAPPER_FAIL_FANOUT, spatial_fail_level(w, p), NULL);
}

static void run_hybrid(struct ms_worker *w, struct ms_batch *b)
{
	uint64_t max = w->o->max_permutations_per_if_visit ? w->o->max_permutations_per_if_visit
							    : UINT64_MAX;
	struct ms_point p;
	struct rng r;
	unsigned i;

	batch_rng(w, b, &r);
	for (i = 0; i < MS_BATCH_HYBRID; i++) {
		if (aborted(w)) {
			b->partial = true;
			return;
		}
		if (!random_if(w, b, &r, &p, true))
			continue;
		visit_orders(w, b, &r, &p, max);
	}
	if (aborted(w))
		b->partial = true;
}

/* Every order combination of the loaded factorization and keep choice. */
static bool linear_orders(struct ms_worker *w, struct ms_batch *b, struct ms_point *p)
{
	uint64_t digit[MS_MAX_TL] = { 0 };
	unsigned tl;

	for (;;) {
		if (aborted(w))
			return false;
		for (tl = 0; tl < w->ms->n_tl; tl++)
			ms_perm_digit_set(&w->fi, tl, digit[tl], p);
		if (ms_point_spatial_ok(w->ms, &w->fi, p, &(unsigned){ 0 }))
			evaluate(w, b, p);
		for (tl = 0; tl < w->ms->n_tl; tl++) {
			if (++digit[tl] < w->fi.n_perm_digits[tl])
				break;
			digit[tl] = 0;
		}
		if (tl == w->ms->n_tl)
			return true;
	}
}

/* Every keep choice of the loaded factorization, with every order. */
static bool linear_keeps(struct ms_worker *w, struct ms_batch *b, struct ms_point *p, bool pruned)
{
	uint32_t kidx[SPEC_MAX_LEVELS] = { 0 };
	unsigned l, lvl;

	for (;;) {
		for (l = 0; l < w->ms->n_levels; l++)
			p->keep[l] = w->fi.keep[l][kidx[l]];
		if (!pruned && ms_keep_check(w->ms, &w->fi, p->keep, &lvl) != MAPPER_OK)
			push_fail(w, b, MAPPER_FAIL_CAPACITY, lvl, NULL);
		else if (!linear_orders(w, b, p))
			return false;
		for (l = 0; l < w->ms->n_levels; l++) {
			if (++kidx[l] < w->fi.n_keep[l])
				break;
			kidx[l] = 0;
		}
		if (l == w->ms->n_levels)
			return true;
	}
}

static void run_linear(struct ms_worker *w, struct ms_batch *b, bool pruned)
{
	uint64_t lo, hi, first, last, idx;
	struct ms_point p;

	mapper_stream_range(w->ms, b->stream, w->n_streams, &lo, &hi);
	first = lo + b->index * MS_BATCH_LINEAR;
	last = first + MS_BATCH_LINEAR < hi ? first + MS_BATCH_LINEAR : hi;
	b->end_of_stream = last >= hi;
	for (idx = first; idx < last; idx++) {
		enum mapper_fail f;
		unsigned lvl = 0;

		if (aborted(w)) {
			b->partial = true;
			return;
		}
		memset(&p, 0, sizeof(p));
		ms_choice_decode(w->ms, idx, p.choice);
		f = ms_if_load(w->ms, p.choice, &w->fi, &lvl);
		if (f == MAPPER_OK)
			f = ms_if_keep_sets(w->ms, &w->fi, pruned, &lvl);
		if (f != MAPPER_OK) {
			push_fail(w, b, f, lvl, NULL);
			continue;
		}
		if (!linear_keeps(w, b, &p, pruned)) {
			b->partial = true;
			return;
		}
	}
}

void mapper_batch_run(struct ms_worker *w, struct ms_batch *b)
{
	switch (w->o->algorithm) {
	case SPEC_SEARCH_RANDOM:
		run_random(w, b, false);
		break;
	case SPEC_SEARCH_RANDOM_PRUNED:
		run_random(w, b, true);
		break;
	case SPEC_SEARCH_HYBRID:
		run_hybrid(w, b);
		break;
	case SPEC_SEARCH_LINEAR_PRUNED:
		run_linear(w, b, true);
		break;
	case SPEC_SEARCH_EXHAUSTIVE:
		run_linear(w, b, false);
		break;
	default:
		BUG("search algorithm %d", (int)w->o->algorithm);
	}
}

void mapper_batch_free(struct ms_batch *b)
{
	if (!b)
		return;
	free(b->outcome);
	free(b->bests);
	free(b->records);
	free(b);
}
