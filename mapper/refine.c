/*
 * Refinement: steepest descent from a search's best points. A neighbour of
 * a point moves one prime factor of one dimension between two tiling
 * levels (placing a loop that becomes non-trivial at every position of the
 * free order), swaps two adjacent free loops, moves a spatial split by one
 * loop, or keeps/bypasses one free tensor at one level. Every neighbour is
 * evaluated (on all threads) and the best one that improves the metrics is
 * taken, until none does. The walk depends only on the starting point.
 */
#include "mapper/search_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xalloc.h"

#define REFINE_MAX_STEPS 10000

struct refine {
	const struct mapper_space *ms;
	const struct mapper_evaluator *ev;
	const struct mapper_options *o;
	struct ms_if cur, nxt;
	struct ms_point *cand;
	size_t n, alloc;
	struct mapper_eval *evals;
	size_t evals_alloc;
	pthread_t *threads;
	unsigned n_threads;
	pthread_mutex_t mu;
	pthread_cond_t job_cv, done_cv;
	unsigned gen, busy;
	bool quit;
	atomic_size_t next;
	atomic_int abort;
	double deadline;                 /* monotonic seconds; 0 = none */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Evaluate point 'p' with the thread's scratch. */
static void eval_point(struct refine *R, void *ws, struct ms_if *fi, struct spec_mapping *m,
		       const struct ms_point *p, struct mapper_eval *out)
{
	unsigned lvl;

	memset(out, 0, sizeof(*out));
	out->status = ms_if_load(R->ms, p->choice, fi, &lvl);
	if (out->status == MAPPER_OK)
		out->status = ms_keep_check(R->ms, fi, p->keep, &lvl);
	if (out->status == MAPPER_OK && !ms_point_spatial_ok(R->ms, fi, p, &lvl))
		out->status = MAPPER_FAIL_FANOUT;
	if (out->status != MAPPER_OK)
		return;
	ms_point_mapping(R->ms, fi, p, m);
	R->ev->eval(ws, m, out);
}

static void *worker_main(void *arg)
{
	struct refine *R = arg;
	void *ws = R->ev->ws_new ? R->ev->ws_new(R->ev->ctx) : NULL;
	struct spec_mapping *m = xmalloc(sizeof(*m));
	struct ms_if fi;
	unsigned seen = 0;

	ms_if_init(&fi, R->ms);
	pthread_mutex_lock(&R->mu);
	for (;;) {
		while (R->gen == seen && !R->quit)
			pthread_cond_wait(&R->job_cv, &R->mu);
		if (R->quit)
			break;
		seen = R->gen;
		pthread_mutex_unlock(&R->mu);
		for (;;) {
			size_t i = atomic_fetch_add(&R->next, 1);
			if (i >= R->n)
				break;
			if (atomic_load_explicit(&R->abort, memory_order_relaxed)) {
				memset(&R->evals[i], 0, sizeof(R->evals[i]));
				R->evals[i].status = MAPPER_FAIL_OTHER;
				continue;
			}
			eval_point(R, ws, &fi, m, &R->cand[i], &R->evals[i]);
		}
		pthread_mutex_lock(&R->mu);
		if (--R->busy == 0)
			pthread_cond_signal(&R->done_cv);
	}
	pthread_mutex_unlock(&R->mu);
	ms_if_release(&fi);
	free(m);
	if (R->ev->ws_free)
		R->ev->ws_free(ws);
	return NULL;
}

/* Evaluate every candidate on the pool. */
static void evaluate_all(struct refine *R)
{
	XGROW(R->evals, R->n, R->evals_alloc);
	atomic_store(&R->next, 0);
	pthread_mutex_lock(&R->mu);
	R->busy = R->n_threads;
	R->gen++;
	pthread_cond_broadcast(&R->job_cv);
	while (R->busy)
		pthread_cond_wait(&R->done_cv, &R->mu);
	pthread_mutex_unlock(&R->mu);
}

static void add(struct refine *R, const struct ms_point *q)
{
	XGROW(R->cand, R->n + 1, R->alloc);
	R->cand[R->n++] = *q;
}

/* Add 'q' if its factorization (in R->nxt or R->cur) makes its orders and keeps valid. */
static void add_checked(struct refine *R, const struct ms_if *fi, const struct ms_point *q)
{
	unsigned lvl;
	if (ms_point_spatial_ok(R->ms, fi, q, &lvl))
		add(R, q);
}

/* Neighbours that keep the factorization: orders, splits, keep choices. */
static void same_factors(struct refine *R, const struct ms_point *p)
{
	const struct mapper_space *ms = R->ms;
	uint8_t ord[SPEC_MAX_DIMS], t;
	unsigned tl, k, l, lvl;
	struct ms_point q;

	for (tl = 0; tl < ms->n_tl; tl++) {
		unsigned nf = R->cur.n_fn[tl];
		ms_free_order(&R->cur, tl, p->rank[tl], ord);
		for (k = 0; k + 1 < nf; k++) {
			q = *p;
			t = ord[k], ord[k] = ord[k + 1], ord[k + 1] = t;
			q.rank[tl] = ms_free_rank(&R->cur, tl, ord);
			t = ord[k], ord[k] = ord[k + 1], ord[k + 1] = t;
			add_checked(R, &R->cur, &q);
		}
		if (!ms->tl[tl].is_spatial)
			continue;
		for (k = 0; k <= R->cur.n_nt[tl]; k++) {
			if (k == p->split[tl] || k + 1 < p->split[tl] || k > p->split[tl] + 1u)
				continue;
			q = *p;
			q.split[tl] = (uint8_t)k;
			add_checked(R, &R->cur, &q);
		}
	}
	for (l = 0; l < ms->n_levels; l++) {
		for (t = 0; t < ms->n_tensors; t++) {
			if (!(ms->lvl[l].free_mask & (1u << t)))
				continue;
			q = *p;
			q.keep[l] ^= 1u << t;
			if (ms_keep_check(ms, &R->cur, q.keep, &lvl) == MAPPER_OK)
				add(R, &q);
		}
	}
}

/* Position of 'd' in 'seq' of length 'n', or n. */
static unsigned pos_of(const uint8_t *seq, unsigned n, unsigned d)
{
	unsigned i;
	for (i = 0; i < n && seq[i] != d; i++)
		;
	return i;
}

/* At 'tl', loop 'd' became trivial: drop it from the order of 'q'. */
static void drop_loop(struct refine *R, unsigned tl, unsigned d, struct ms_point *q)
{
	uint8_t seq[SPEC_MAX_DIMS], ord[SPEC_MAX_DIMS];
	unsigned n = ms_seq(R->ms, &R->cur, tl, q->rank[tl], seq), nf = R->cur.n_fn[tl], i, j = 0;

	if (R->ms->tl[tl].is_spatial && pos_of(seq, n, d) < q->split[tl])
		q->split[tl]--;
	if (R->ms->tl[tl].ordered_mask & (1u << d))
		return;
	ms_free_order(&R->cur, tl, q->rank[tl], ord);
	for (i = 0; i < nf; i++)
		if (ord[i] != d)
			ord[j++] = ord[i];
	q->rank[tl] = ms_free_rank(&R->nxt, tl, ord);
}

/* At 'tl', loop 'd' became non-trivial: add 'q' with 'd' at every place. */
static void place_loop(struct refine *R, unsigned tl, unsigned d, const struct ms_point *q)
{
	uint8_t ord[SPEC_MAX_DIMS], ins[SPEC_MAX_DIMS];
	unsigned nf = R->cur.n_fn[tl], at, i, j, c;
	bool spatial = R->ms->tl[tl].is_spatial;
	struct ms_point v;

	if (R->ms->tl[tl].ordered_mask & (1u << d)) {
		for (c = q->split[tl]; c <= q->split[tl] + (spatial ? 1u : 0u); c++) {
			v = *q;
			v.split[tl] = (uint8_t)c;
			add_checked(R, &R->nxt, &v);
		}
		return;
	}
	ms_free_order(&R->cur, tl, q->rank[tl], ord);
	for (at = 0; at <= nf; at++) {
		for (i = 0, j = 0; i <= nf; i++)
			ins[i] = i == at ? (uint8_t)d : ord[j++];
		v = *q;
		v.rank[tl] = ms_free_rank(&R->nxt, tl, ins);
		for (c = q->split[tl]; c <= q->split[tl] + (spatial ? 1u : 0u); c++) {
			v.split[tl] = (uint8_t)c;
			add_checked(R, &R->nxt, &v);
		}
	}
}

/* Neighbours that move prime 'prime' of dimension 'd' from free slot 'i' to 'j'. */
static void move_factor(struct refine *R, const struct ms_point *p, unsigned d, unsigned i,
			unsigned j, uint64_t prime)
{
	const struct mapper_space *ms = R->ms;
	const struct ms_dim *dm = &ms->dim[d];
	uint64_t row[MS_MAX_TL];
	unsigned ti = dm->free_tl[i], tj = dm->free_tl[j], lvl;
	struct ms_point q;
	uint32_t idx;

	memcpy(row, dm->choices + (size_t)p->choice[d] * dm->n_free, dm->n_free * sizeof(*row));
	row[i] /= prime;
	if (__builtin_mul_overflow(row[j], prime, &row[j]))
		return;
	if ((idx = ms_choice_find(ms, d, row)) == UINT32_MAX)
		return;
	q = *p;
	q.choice[d] = idx;
	if (ms_if_load(ms, q.choice, &R->nxt, &lvl) != MAPPER_OK ||
	    ms_keep_check(ms, &R->nxt, q.keep, &lvl) != MAPPER_OK)
		return;
	if (R->nxt.f[ti][d] == 1)
		drop_loop(R, ti, d, &q);
	if (R->cur.f[tj][d] == 1)
		place_loop(R, tj, d, &q);
	else
		add_checked(R, &R->nxt, &q);
}

/*
 * The free slots of imperfect dimension 'd' from slot 'i' on, after slot i
 * took 'nrow[i]': each keeps its tile when that is one worth trying at the
 * extent left to it, else takes the nearest larger one (at most that
 * extent); the outermost takes what is left.
 */
static void imperfect_rest(const struct mapper_space *ms, unsigned d, uint64_t *nrow)
{
	const struct ms_dim *dm = &ms->dim[d];
	uint64_t rest = dm->bound, cands[2048];
	unsigned tl, j = 0, last = dm->n_free - 1;
	size_t n, k;

	for (tl = 0; tl < ms->n_tl; tl++) {
		uint64_t f = ms->tl[tl].fixed[d];
		if (!f) {
			if (j == last) {
				nrow[j] = rest;
			} else {
				n = ms_imperfect_candidates(rest, UINT64_MAX, 1, cands, ARRAY_SIZE(cands));
				for (k = 0; k < n && cands[k] < nrow[j]; k++)
					;
				nrow[j] = k < n ? cands[k] : rest;
			}
			f = nrow[j++];
		}
		rest = (rest + f - 1) / f;
	}
}

/*
 * An imperfect dimension's neighbours: the tile of one free slot moved to
 * the next smaller or larger one worth trying at its extent, the slots
 * outside it adjusted by imperfect_rest() (when such a split exists).
 */
static void imperfect_moves(struct refine *R, const struct ms_point *p, unsigned d)
{
	const struct mapper_space *ms = R->ms;
	const struct ms_dim *dm = &ms->dim[d];
	const uint64_t *row = dm->choices + (size_t)p->choice[d] * dm->n_free;
	uint64_t cands[2048], nrow[MS_MAX_TL], rest;
	unsigned i, k, tl, last = dm->n_free - 1, lvl, n_trivial;
	int step;

	for (i = 0; i < last; i++) {
		size_t n, pos;
		rest = dm->bound;
		for (tl = 0; tl < dm->free_tl[i]; tl++)
			rest = (rest + R->cur.f[tl][d] - 1) / R->cur.f[tl][d];
		n = ms_imperfect_candidates(rest, ms_slot_bound(&ms->tl[dm->free_tl[i]], d), 1,
					    cands, ARRAY_SIZE(cands));
		for (pos = 0; pos < n && cands[pos] != row[i]; pos++)
			;
		for (step = -1; step <= 1; step += 2) {
			struct ms_point q = *p;
			uint32_t idx;
			if ((step < 0 && pos == 0) || pos + (size_t)step >= n)
				continue;
			memcpy(nrow, row, dm->n_free * sizeof(*nrow));
			nrow[i] = cands[pos + (size_t)step];
			imperfect_rest(ms, d, nrow);
			if ((idx = ms_choice_find(ms, d, nrow)) == UINT32_MAX || idx == p->choice[d])
				continue;
			q.choice[d] = idx;
			if (ms_if_load(ms, q.choice, &R->nxt, &lvl) != MAPPER_OK ||
			    ms_keep_check(ms, &R->nxt, q.keep, &lvl) != MAPPER_OK)
				continue;
			for (k = 0, n_trivial = 0; k < dm->n_free; k++)
				n_trivial += (R->nxt.f[dm->free_tl[k]][d] == 1) !=
					     (R->cur.f[dm->free_tl[k]][d] == 1);
			if (n_trivial == 0)
				add_checked(R, &R->nxt, &q);
		}
	}
}

/* Every neighbour of 'p' (whose factorization is loaded in R->cur). */
static void neighbours(struct refine *R, const struct ms_point *p)
{
	const struct mapper_space *ms = R->ms;
	unsigned d, i, j;

	R->n = 0;
	same_factors(R, p);
	for (d = 0; d < ms->n_dims; d++) {
		const struct ms_dim *dm = &ms->dim[d];
		const uint64_t *row = dm->choices + (size_t)p->choice[d] * dm->n_free;
		if (dm->imperfect && dm->n_free > 1)
			imperfect_moves(R, p, d);
		for (i = 0; i < dm->n_free; i++) {
			uint64_t f = row[i], prime;
			for (prime = 2; f > 1; prime++) {
				if (prime * prime > f)
					prime = f;
				if (f % prime)
					continue;
				while (f % prime == 0)
					f /= prime;
				for (j = 0; j < dm->n_free; j++)
					if (j != i)
						move_factor(R, p, d, i, j, prime);
			}
		}
	}
}

static bool stop_now(struct refine *R)
{
	if (R->o->stop && atomic_load(R->o->stop))
		return true;
	return R->deadline > 0 && now_s() >= R->deadline;
}

/* Steepest descent from 'b'; returns the steps taken. */
static uint64_t descend(struct refine *R, struct ms_best *b, uint64_t *n_evals)
{
	uint64_t steps = 0;
	unsigned lvl;

	while (steps < REFINE_MAX_STEPS && !stop_now(R)) {
		size_t i, best = SIZE_MAX;
		if (ms_if_load(R->ms, b->pt.choice, &R->cur, &lvl) != MAPPER_OK)
			BUG("a refined point no longer loads");
		neighbours(R, &b->pt);
		evaluate_all(R);
		*n_evals += R->n;
		if (stop_now(R))
			break;
		for (i = 0; i < R->n; i++) {
			if (R->evals[i].status != MAPPER_OK ||
			    mapper_eval_compare(&R->evals[i], &b->ev, R->o->metrics, R->o->n_metrics) >= 0)
				continue;
			if (best == SIZE_MAX || mapper_better(R->o, &R->evals[i], &R->cand[i], &R->evals[best],
							      &R->cand[best]))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		b->pt = R->cand[best];
		b->ev = R->evals[best];
		steps++;
	}
	return steps;
}

/* Tell the pool to quit and join its first 'n' threads. */
static void stop_pool(struct refine *R, unsigned n)
{
	unsigned i;

	pthread_mutex_lock(&R->mu);
	R->quit = true;
	pthread_cond_broadcast(&R->job_cv);
	pthread_mutex_unlock(&R->mu);
	for (i = 0; i < n; i++)
		pthread_join(R->threads[i], NULL);
}

int mapper_refine(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		  const struct mapper_options *o, unsigned n_threads, double deadline,
		  struct ms_best *starts, unsigned n_starts, uint64_t *n_evals, uint64_t *n_steps,
		  char *why, size_t why_size)
{
	struct refine R;
	unsigned i, n_started;
	int rc = 0;

	memset(&R, 0, sizeof(R));
	R.ms = ms;
	R.ev = ev;
	R.o = o;
	R.deadline = deadline;
	R.n_threads = n_threads ? n_threads : 1;
	atomic_init(&R.abort, 0);
	atomic_init(&R.next, 0);
	ms_if_init(&R.cur, ms);
	ms_if_init(&R.nxt, ms);
	pthread_mutex_init(&R.mu, NULL);
	pthread_cond_init(&R.job_cv, NULL);
	pthread_cond_init(&R.done_cv, NULL);
	R.threads = xcalloc(R.n_threads, sizeof(*R.threads));
	for (n_started = 0; n_started < R.n_threads; n_started++)
		if ((rc = pthread_create(&R.threads[n_started], NULL, worker_main, &R)) != 0)
			break;
	if (n_started < R.n_threads) {
		snprintf(why, why_size, "cannot start refinement thread %u of %u: %s",
			 n_started + 1, R.n_threads, strerror(rc));
		rc = -1;
	}
	for (i = 0; rc == 0 && i < n_starts; i++)
		*n_steps += descend(&R, &starts[i], n_evals);
	stop_pool(&R, n_started);
	free(R.threads);
	free(R.cand);
	free(R.evals);
	ms_if_release(&R.cur);
	ms_if_release(&R.nxt);
	pthread_cond_destroy(&R.job_cv);
	pthread_cond_destroy(&R.done_cv);
	pthread_mutex_destroy(&R.mu);
	return rc;
}
