/*
 * Running a search on every core: worker threads run batches of the
 * streams ahead of time (at most 'window' batches per stream), and the
 * coordinating thread (the caller's) replays finished batches in stream
 * order, applying the stopping rules exactly as a single sequential search
 * would. What a thread computed ahead of a stream's stop is discarded, so
 * the result depends on the seed and the number of streams only.
 */
#include "mapper/mapper.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mapper/search_int.h"
#include "util/xalloc.h"

struct stream {
	bool done;
	bool skipped;                    /* another part of the search runs it */
	enum mapper_stop stop;
	uint64_t next_issue, next_reduce, n_batches;
	struct ms_batch **ring;          /* 'window' slots, by batch index */
	uint64_t seq, n_valid, run_invalid, since_best, budget;
	bool has_best;
	struct ms_best best;
};

struct run {
	unsigned part, n_parts;          /* streams s with s % n_parts == part */
	const struct mapper_space *ms;
	const struct mapper_evaluator *ev;
	const struct mapper_options *o;
	struct mapper_result *out;
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	unsigned n_streams, window, rr, n_running, n_done;
	struct stream *streams;
	atomic_int abort;
	enum mapper_stop abort_reason;
	bool user_stop;                  /* stop flag or time limit */
	bool record;
	struct ms_if fi;                 /* the coordinator's scratch */
	struct spec_mapping m;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void stream_stop(struct run *R, struct stream *st, enum mapper_stop why)
{
	unsigned i;

	if (st->done)
		return;
	st->done = true;
	st->stop = why;
	R->n_done++;
	for (i = 0; i < R->window; i++) {
		mapper_batch_free(st->ring[i]);
		st->ring[i] = NULL;
	}
}

/* Report candidate 'pos' of 'b' to the caller's log. */
static void report_candidate(struct run *R, const struct ms_batch *b, uint64_t pos, bool is_best)
{
	const struct ms_record *rec = &b->records[pos];
	struct mapper_candidate c;
	unsigned lvl;

	memset(&c, 0, sizeof(c));
	c.stream = b->stream;
	c.seq = R->streams[b->stream].seq - 1;
	c.eval = rec->ev;
	c.is_best = is_best;
	if (rec->has_point && ms_if_load(R->ms, rec->pt.choice, &R->fi, &lvl) == MAPPER_OK) {
		ms_point_mapping(R->ms, &R->fi, &rec->pt, &R->m);
		c.mapping = &R->m;
	}
	R->o->on_candidate(R->o->candidate_arg, &c);
}

/* Replay batch 'b' of 'st' candidate by candidate; stop the stream when a rule says so. */
static void consume(struct run *R, struct stream *st, struct ms_batch *b)
{
	const struct mapper_options *o = R->o;
	size_t k = 0;
	uint64_t pos;

	for (pos = 0; pos < b->n; pos++) {
		uint16_t oc = b->outcome[pos];
		bool improved = false;

		st->seq++;
		R->out->n_evaluated++;
		if (oc & MS_OC_EVALUATED)
			R->out->n_model_calls++;
		if (MS_OC_FAIL(oc) == MAPPER_OK) {
			st->n_valid++;
			R->out->n_valid++;
			st->run_invalid = 0;
			while (k < b->n_bests && b->bests[k].pos < pos)
				k++;
			if (k < b->n_bests && b->bests[k].pos == pos &&
			    (!st->has_best || mapper_better(o, &b->bests[k].ev, &b->bests[k].pt,
							    &st->best.ev, &st->best.pt))) {
				st->best = b->bests[k];
				st->has_best = true;
				st->since_best = 0;
				improved = true;
			} else {
				st->since_best++;
			}
		} else {
			R->out->fail_counts[MS_OC_FAIL(oc)][MS_OC_LEVEL(oc)]++;
			st->run_invalid++;
		}
		if (R->record)
			report_candidate(R, b, pos, improved);
		if (st->budget && st->n_valid >= st->budget)
			stream_stop(R, st, MAPPER_STOP_SEARCH_SIZE);
		else if (o->victory_condition && st->since_best >= o->victory_condition)
			stream_stop(R, st, MAPPER_STOP_VICTORY);
		else if (o->timeout && st->run_invalid >= o->timeout)
			stream_stop(R, st, MAPPER_STOP_TIMEOUT);
		if (st->done)
			return;
	}
	if (b->partial)
		stream_stop(R, st, R->abort_reason);
	else if (b->end_of_stream || st->next_reduce + 1 >= st->n_batches)
		stream_stop(R, st, MAPPER_STOP_DONE);
}

/* Consume batch 'st->next_reduce' if it is finished. */
static bool reduce_one(struct run *R, struct stream *st)
{
	struct ms_batch *b = st->ring[st->next_reduce % R->window];

	if (!b || b->index != st->next_reduce)
		return false;
	st->ring[st->next_reduce % R->window] = NULL;
	consume(R, st, b);
	st->next_reduce++;
	mapper_batch_free(b);
	return true;
}

/*
 * Consume finished batches in the order (batch index, stream): the order
 * candidates reach the log, so that a log is the same on any thread count.
 */
static bool reduce_lockstep(struct run *R)
{
	bool any = false;

	for (;;) {
		struct stream *next = NULL;
		unsigned s;
		for (s = 0; s < R->n_streams; s++) {
			struct stream *st = &R->streams[s];
			if (!st->done && (!next || st->next_reduce < next->next_reduce))
				next = st;
		}
		if (!next || !reduce_one(R, next))
			return any;
		any = true;
	}
}

/* Consume every finished batch that is next in its stream. Returns true if any was. */
static bool reduce(struct run *R)
{
	bool any = false;
	unsigned s;

	if (R->record)
		return reduce_lockstep(R);
	for (s = 0; s < R->n_streams; s++) {
		struct stream *st = &R->streams[s];
		while (!st->done && reduce_one(R, st))
			any = true;
	}
	return any;
}

/* The next batch to run, or NULL; called with the lock held. */
static struct ms_batch *next_work(struct run *R)
{
	unsigned i;

	for (i = 0; i < R->n_streams; i++) {
		unsigned s = (R->rr + i) % R->n_streams;
		struct stream *st = &R->streams[s];
		struct ms_batch *b;
		if (st->done || st->next_issue - st->next_reduce >= R->window ||
		    st->next_issue >= st->n_batches)
			continue;
		b = xcalloc(1, sizeof(*b));
		b->stream = s;
		b->index = st->next_issue++;
		R->rr = s + 1;
		return b;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct run *R = arg;
	struct ms_worker w;

	memset(&w, 0, sizeof(w));
	w.ms = R->ms;
	w.ev = R->ev;
	w.o = R->o;
	w.abort = &R->abort;
	w.record = R->record;
	w.n_streams = R->n_streams;
	w.ws = R->ev->ws_new ? R->ev->ws_new(R->ev->ctx) : NULL;
	ms_if_init(&w.fi, R->ms);

	pthread_mutex_lock(&R->mu);
	for (;;) {
		struct ms_batch *b;
		if (atomic_load(&R->abort) || R->n_done == R->n_streams)
			break;
		b = next_work(R);
		if (!b) {
			pthread_cond_wait(&R->work_cv, &R->mu);
			continue;
		}
		pthread_mutex_unlock(&R->mu);
		mapper_batch_run(&w, b);
		pthread_mutex_lock(&R->mu);
		if (R->streams[b->stream].done)
			mapper_batch_free(b);
		else
			R->streams[b->stream].ring[b->index % R->window] = b;
		pthread_cond_signal(&R->done_cv);
	}
	R->n_running--;
	pthread_cond_signal(&R->done_cv);
	pthread_mutex_unlock(&R->mu);

	ms_if_release(&w.fi);
	if (R->ev->ws_free)
		R->ev->ws_free(w.ws);
	return NULL;
}

/* Fill 'p' with the state of the search; lock held. */
static void progress(struct run *R, double t0, struct mapper_progress *p)
{
	const struct ms_best *best = NULL;
	unsigned s;

	memset(p, 0, sizeof(*p));
	p->n_evaluated = R->out->n_evaluated;
	p->n_valid = R->out->n_valid;
	p->elapsed_s = now_s() - t0;
	p->per_s = p->elapsed_s > 0 ? p->n_evaluated / p->elapsed_s : 0;
	p->n_streams_active = R->n_streams - R->n_done;
	for (s = 0; s < R->n_streams; s++) {
		const struct stream *st = &R->streams[s];
		if (st->has_best && (!best || mapper_better(R->o, &st->best.ev, &st->best.pt,
							    &best->ev, &best->pt)))
			best = &st->best;
	}
	if (best) {
		p->has_best = true;
		memcpy(p->best, best->ev.metrics, sizeof(p->best));
	}
}

static void abs_time(double t, struct timespec *ts)
{
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* The coordinator: replay batches, watch the clock and the stop flag. */
static void coordinate(struct run *R, double t0)
{
	const struct mapper_options *o = R->o;
	double next_progress = t0 + o->progress_interval_s;

	pthread_mutex_lock(&R->mu);
	for (;;) {
		double t, wake;
		struct timespec ts;

		if (reduce(R))
			pthread_cond_broadcast(&R->work_cv);
		if (R->n_done == R->n_streams && !atomic_load(&R->abort)) {
			atomic_store(&R->abort, 1);
			pthread_cond_broadcast(&R->work_cv);
		}
		if (atomic_load(&R->abort) && R->n_running == 0) {
			reduce(R);
			break;
		}
		t = now_s();
		if (!atomic_load(&R->abort)) {
			if (o->stop && atomic_load(o->stop)) {
				R->abort_reason = MAPPER_STOP_INTERRUPTED;
				R->user_stop = true;
				atomic_store(&R->abort, 1);
			} else if (o->time_limit_s > 0 && t - t0 >= o->time_limit_s) {
				R->abort_reason = MAPPER_STOP_TIME_LIMIT;
				R->user_stop = true;
				atomic_store(&R->abort, 1);
			}
			if (atomic_load(&R->abort))
				pthread_cond_broadcast(&R->work_cv);
		}
		if (o->on_progress && o->progress_interval_s > 0 && t >= next_progress) {
			struct mapper_progress p;
			progress(R, t0, &p);
			pthread_mutex_unlock(&R->mu);
			o->on_progress(o->progress_arg, &p);
			pthread_mutex_lock(&R->mu);
			next_progress = t + o->progress_interval_s;
		}
		wake = t + 0.05;
		abs_time(wake, &ts);
		pthread_cond_timedwait(&R->done_cv, &R->mu, &ts);
	}
	pthread_mutex_unlock(&R->mu);
}

static unsigned cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/*
 * The worker threads to start: o->n_threads (all cores when 0), but no more
 * than the streams this part runs that have a batch to run. Each stream is a
 * sequence: more threads would only run further ahead of its stop, and each
 * costs a workspace (1024 threads on 32 streams took 8.8 s and 824 MB).
 */
static unsigned worker_count(const struct mapper_space *ms, const struct mapper_options *o,
			     unsigned part, unsigned n_parts)
{
	unsigned want = o->n_threads ? o->n_threads : cores(), n = 0, s;

	for (s = 0; s < o->n_streams && n < want; s++)
		if ((n_parts <= 1 || s % n_parts == part) &&
		    mapper_stream_batches(ms, o->algorithm, s, o->n_streams) > 0)
			n++;
	return n ? n : 1;
}

/* Set up the streams of 'R'. */
static void init_streams(struct run *R)
{
	const struct mapper_options *o = R->o;
	unsigned s;

	R->streams = xcalloc(R->n_streams, sizeof(*R->streams));
	for (s = 0; s < R->n_streams; s++) {
		struct stream *st = &R->streams[s];
		st->ring = xcalloc(R->window, sizeof(*st->ring));
		st->n_batches = mapper_stream_batches(R->ms, o->algorithm, s, R->n_streams);
		if (o->search_size)
			st->budget = (o->search_size + R->n_streams - 1) / R->n_streams;
		if (R->n_parts > 1 && s % R->n_parts != R->part) {
			st->done = st->skipped = true;
			R->n_done++;
		} else if (st->n_batches == 0) {
			st->done = true;
			st->stop = MAPPER_STOP_DONE;
			R->n_done++;
		}
	}
}

/* The best of every stream, the counts by stop reason. */
static void finish(struct run *R, struct mapper_result *out)
{
	const struct stream *best = NULL;
	unsigned s, lvl;

	for (s = 0; s < R->n_streams; s++) {
		struct stream *st = &R->streams[s];
		if (!st->done)
			stream_stop(R, st, R->abort_reason);
		if (!st->skipped)
			out->stream_stops[st->stop]++;
		if (st->has_best && (!best || mapper_better(R->o, &st->best.ev, &st->best.pt,
							    &best->best.ev, &best->best.pt))) {
			best = st;
			out->best_stream = s;
		}
	}
	if (!best)
		return;
	out->found = true;
	out->best_eval = best->best.ev;
	if (ms_if_load(R->ms, best->best.pt.choice, &R->fi, &lvl) != MAPPER_OK)
		BUG("the best point no longer loads");
	ms_point_mapping(R->ms, &R->fi, &best->best.pt, &out->best);
}

/*
 * Refine the best points of up to o->refine streams (the best ones, distinct
 * points) and put the results back into their streams. Returns 0, or -1
 * with out->error filled when the refinement's threads could not start.
 */
static int refine_streams(struct run *R, unsigned n_threads, double t0, struct mapper_result *out)
{
	const struct mapper_options *o = R->o;
	unsigned max = o->refine < R->n_streams ? o->refine : R->n_streams;
	struct ms_best *starts = xcalloc(max, sizeof(*starts));
	unsigned *from = xcalloc(max, sizeof(*from));
	unsigned n = 0, s, i, j;
	int rc = 0;

	for (s = 0; s < R->n_streams; s++) {
		const struct stream *st = &R->streams[s];
		if (!st->has_best)
			continue;
		for (i = 0; i < n && ms_point_cmp(&starts[i].pt, &st->best.pt); i++)
			;
		if (i < n)
			continue;
		for (i = 0; i < n && !mapper_better(o, &st->best.ev, &st->best.pt, &starts[i].ev,
						    &starts[i].pt); i++)
			;
		if (i == max)
			continue;
		for (j = n < max ? n : max - 1; j > i; j--) {
			starts[j] = starts[j - 1];
			from[j] = from[j - 1];
		}
		starts[i] = st->best;
		from[i] = s;
		if (n < max)
			n++;
	}
	if (n) {
		out->refined = true;
		out->searched_eval = starts[0].ev;
		rc = mapper_refine(R->ms, R->ev, o, n_threads,
				   o->time_limit_s > 0 ? t0 + o->time_limit_s : 0, starts, n,
				   &out->n_refine_evals, &out->n_refine_steps, out->error,
				   sizeof(out->error));
		for (i = 0; rc == 0 && i < n; i++)
			R->streams[from[i]].best = starts[i];
	}
	free(starts);
	free(from);
	return rc;
}

/* Check the options; -1 when they cannot run. */
static int check_options(const struct mapper_options *o)
{
	unsigned i;

	if ((unsigned)o->algorithm >= SPEC_SEARCH_COUNT || o->n_streams == 0 || o->n_metrics == 0 ||
	    o->n_metrics > SPEC_MAX_METRICS)
		return -1;
	for (i = 0; i < o->n_metrics; i++)
		if ((unsigned)o->metrics[i] >= SPEC_METRIC_COUNT)
			return -1;
	return 0;
}

/*
 * Start the 'n' workers of 'R' into threads[]. Returns how many started;
 * when not all did, 'why' says why and the ones that did are told to stop
 * (the caller joins them).
 */
static unsigned start_workers(struct run *R, pthread_t *threads, unsigned n, char *why,
			      size_t why_size)
{
	unsigned i;
	int rc = 0;

	R->n_running = n;
	for (i = 0; i < n; i++)
		if ((rc = pthread_create(&threads[i], NULL, worker_main, R)) != 0)
			break;
	if (i == n)
		return n;
	snprintf(why, why_size, "cannot start search thread %u of %u: %s", i + 1, n,
		 strerror(rc));
	pthread_mutex_lock(&R->mu);
	R->n_running -= n - i;
	atomic_store(&R->abort, 1);
	pthread_cond_broadcast(&R->work_cv);
	pthread_mutex_unlock(&R->mu);
	return i;
}

/* Free what 'R' holds (its threads are joined). */
static void run_release(struct run *R)
{
	unsigned i, k;

	for (i = 0; i < R->n_streams; i++) {
		for (k = 0; k < R->window; k++)
			mapper_batch_free(R->streams[i].ring[k]);
		free(R->streams[i].ring);
	}
	free(R->streams);
	ms_if_release(&R->fi);
	pthread_cond_destroy(&R->work_cv);
	pthread_cond_destroy(&R->done_cv);
	pthread_mutex_destroy(&R->mu);
}

/* Set up 'R' for a search of 'o' over 'ms' (part 'part' of 'n_parts'). */
static void run_init(struct run *R, const struct mapper_space *ms, const struct mapper_evaluator *ev,
		     const struct mapper_options *o, unsigned part, unsigned n_parts,
		     unsigned n_threads, struct mapper_result *out)
{
	pthread_condattr_t ca;

	memset(R, 0, sizeof(*R));
	R->part = part;
	R->n_parts = n_parts;
	R->ms = ms;
	R->ev = ev;
	R->o = o;
	R->out = out;
	R->n_streams = o->n_streams;
	R->record = o->on_candidate != NULL;
	R->abort_reason = MAPPER_STOP_INTERRUPTED;
	atomic_init(&R->abort, 0);
	R->window = 2 + (2 * n_threads + R->n_streams - 1) / R->n_streams;
	out->n_threads = n_threads;
	pthread_mutex_init(&R->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&R->done_cv, &ca);
	pthread_cond_init(&R->work_cv, NULL);
	pthread_condattr_destroy(&ca);
	ms_if_init(&R->fi, ms);
	init_streams(R);
}

/*
 * Run the streams of 'R' on 'n_threads' worker threads until they stop.
 * Returns 0, or -1 with out->error filled when the threads could not start.
 */
static int run_search(struct run *R, unsigned n_threads, double t0)
{
	pthread_t *threads = xcalloc(n_threads, sizeof(*threads));
	unsigned i, n_started;

	n_started = start_workers(R, threads, n_threads, R->out->error, sizeof(R->out->error));
	if (n_started == n_threads)
		coordinate(R, t0);
	for (i = 0; i < n_started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	return n_started == n_threads ? 0 : -1;
}

int mapper_run(const struct mapper_space *ms, const struct mapper_evaluator *ev,
	       const struct mapper_options *o, struct mapper_result *out)
{
	struct run R;
	unsigned n_threads;
	double t0 = now_s();

	memset(out, 0, sizeof(*out));
	if (check_options(o) < 0) {
		snprintf(out->error, sizeof(out->error), "invalid search options");
		return -1;
	}
	n_threads = worker_count(ms, o, 0, 1);
	run_init(&R, ms, ev, o, 0, 1, n_threads, out);
	if (run_search(&R, n_threads, t0) < 0 ||
	    (o->refine && !R.user_stop && refine_streams(&R, n_threads, t0, out) < 0)) {
		run_release(&R);
		return -1;
	}
	finish(&R, out);
	out->elapsed_s = now_s() - t0;
	run_release(&R);
	return 0;
}

_Static_assert(sizeof(struct ms_point) <= MAPPER_POINT_BYTES, "a point fits a stream end");

size_t mapper_part_size(unsigned n_streams)
{
	return sizeof(struct mapper_part) + (size_t)n_streams * sizeof(struct mapper_stream_end);
}

int mapper_run_part(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		    const struct mapper_options *o, unsigned part, unsigned n_parts,
		    struct mapper_part *out)
{
	struct mapper_result *r;
	struct run R;
	unsigned n_threads, s;
	double t0 = now_s();
	int rc;

	if (check_options(o) < 0 || n_parts == 0 || part >= n_parts || o->on_candidate)
		return -1;
	memset(out, 0, mapper_part_size(o->n_streams));
	r = xcalloc(1, sizeof(*r));
	n_threads = worker_count(ms, o, part, n_parts);
	run_init(&R, ms, ev, o, part, n_parts, n_threads, r);
	rc = run_search(&R, n_threads, t0);
	snprintf(out->error, sizeof(out->error), "%s", r->error);
	out->n_evaluated = r->n_evaluated;
	out->n_valid = r->n_valid;
	out->n_model_calls = r->n_model_calls;
	memcpy(out->fail_counts, r->fail_counts, sizeof(out->fail_counts));
	out->user_stop = R.user_stop;
	out->n_threads = n_threads;
	for (s = 0; rc == 0 && s < R.n_streams; s++) {
		struct stream *st = &R.streams[s];
		struct mapper_stream_end *e = &out->ends[s];
		if (st->skipped)
			continue;
		if (!st->done)
			stream_stop(&R, st, R.abort_reason);
		e->ran = 1;
		e->stop = (uint8_t)st->stop;
		e->has_best = st->has_best;
		if (st->has_best) {
			memcpy(e->point, &st->best.pt, sizeof(st->best.pt));
			e->best_eval = st->best.ev;
		}
	}
	out->elapsed_s = now_s() - t0;
	run_release(&R);
	free(r);
	return rc;
}

int mapper_run_merge(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		     const struct mapper_options *o, const struct mapper_part *const *parts,
		     unsigned n_parts, struct mapper_result *out)
{
	struct run R;
	unsigned n_threads, s, p, f, l;
	double t0 = now_s(), elapsed = 0;

	memset(out, 0, sizeof(*out));
	if (check_options(o) < 0 || n_parts == 0) {
		snprintf(out->error, sizeof(out->error), "invalid search options");
		return -1;
	}
	for (p = 0; p < n_parts; p++)
		if (parts[p]->error[0]) {
			snprintf(out->error, sizeof(out->error), "%s", parts[p]->error);
			return -1;
		}
	n_threads = worker_count(ms, o, 0, 1);
	run_init(&R, ms, ev, o, 0, 1, n_threads, out);
	out->n_threads = 0;
	for (p = 0; p < n_parts; p++) {
		const struct mapper_part *pp = parts[p];
		out->n_evaluated += pp->n_evaluated;
		out->n_valid += pp->n_valid;
		out->n_model_calls += pp->n_model_calls;
		for (f = 0; f < MAPPER_FAIL_COUNT; f++)
			for (l = 0; l < SPEC_MAX_LEVELS; l++)
				out->fail_counts[f][l] += pp->fail_counts[f][l];
		R.user_stop |= pp->user_stop != 0;
		out->n_threads += pp->n_threads;
		if (pp->elapsed_s > elapsed)
			elapsed = pp->elapsed_s;
	}
	for (s = 0; s < R.n_streams; s++) {
		struct stream *st = &R.streams[s];
		const struct mapper_stream_end *e = NULL;
		for (p = 0; p < n_parts && !e; p++)
			if (parts[p]->ends[s].ran)
				e = &parts[p]->ends[s];
		if (!e)
			BUG("stream %u ran in no part of the search", s);
		if (!st->done)
			R.n_done++;
		st->done = true;
		st->stop = (enum mapper_stop)e->stop;
		st->has_best = e->has_best;
		if (e->has_best) {
			memcpy(&st->best.pt, e->point, sizeof(st->best.pt));
			st->best.ev = e->best_eval;
		}
	}
	if (o->refine && !R.user_stop && refine_streams(&R, n_threads, t0, out) < 0) {
		run_release(&R);
		return -1;
	}
	finish(&R, out);
	out->elapsed_s = elapsed + now_s() - t0;
	run_release(&R);
	return 0;
}
