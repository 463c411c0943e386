/*
 * The runner of sweeps, batches and networks. Rank 0 opens the database;
 * its jobs are the range [0, n), handed out in order by a counter (a sweep
 * of 10^12 points takes no memory per point); a resumed run looks each
 * job's key up in the database's key index as the job is taken (no key is
 * hashed or held before it starts: memory independent of the database).
 * Its worker threads take jobs, and so do the other ranks, a few at a
 * time, by asking (dynamic distribution: a slow job holds up nobody).
 * Results come back to rank 0's main thread, which writes them in batches
 * of one transaction (at least one every COMMIT_S), streams the rows,
 * shows progress, and
 * stops handing out jobs when the stop flag is raised. Rows carry their
 * job's index, so the database lists them in the same order whatever the
 * number of threads and ranks. Other ranks never touch the database.
 */
#include "job/job_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* A finished job waiting for the main thread. */
struct result {
	uint64_t idx;
	bool keep;
	struct job_summary *sum;
};

struct runner {
	const struct job_runner_jobs *jobs;
	const struct job_runner *o;
	pthread_mutex_t mu;
	pthread_cond_t work_cv;        /* the pool grew or closed */
	pthread_cond_t main_cv;        /* a result came, or a worker ended */
	pthread_cond_t space_cv;       /* the main thread took the finished results */
	uint64_t *pool;                /* other ranks: jobs received, pool[head..tail) */
	size_t head, tail, alloc;
	uint64_t next, end;            /* rank 0: the jobs not yet handed out, [next, end) */
	bool closed;                   /* the pool gets no more jobs */
	atomic_int abort;              /* stop everything (a database error) */
	struct result *res;            /* finished, not yet taken by the main thread */
	size_t n_res, alloc_res;
	struct job_summary **spare;    /* summaries the main thread is done with, for the workers */
	size_t n_spare, alloc_spare;
	unsigned n_workers, n_alive, n_busy;
	/* rank 0 */
	bool lookup;                   /* --resume of a database with points: look each job up */
	pthread_mutex_t db_mu;         /* the store's user: a look-up or a batch of rows */
	uint64_t n_skipped;            /* jobs taken and found in 'done' (under mu) */
	struct store *st;
	struct job_run_result *out;
	double t0, last_progress;
	bool shown_progress;           /* a progress line was shown */
	uint64_t n_remote_out;         /* jobs handed to other ranks, not yet back */
	bool batched;                  /* rank 0 alone: results written in batches (BATCH_ROWS) */
	double last_commit;            /* when the last batch was taken */
	size_t batch;                  /* the rows of the next batch (under mu) */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool stop_raised(const struct runner *R)
{
	return atomic_load(&R->abort) || (R->o->stop && atomic_load(R->o->stop));
}

static unsigned cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* Worker threads of this process: the option, or the cores shared by the node's ranks. */
static unsigned workers_of(const struct job_runner *o, uint64_t n_jobs)
{
	unsigned n = o->n_workers;

	if (!n) {
		unsigned local = job_mpi_local_ranks();
		n = cores() / (local ? local : 1);
		if (!n)
			n = 1;
	}
	if (job_ranks() == 1 && n_jobs < n)
		n = n_jobs ? (unsigned)n_jobs : 1;
	return n;
}

/* ------------------------------------------------------------ workers */

/* True when job 'idx' was finished by an earlier run (its key is in the database). */
static bool finished_before(struct runner *R, uint64_t idx)
{
	char key[JOB_KEY_CHARS + 1];
	struct strbuf err = STRBUF_INIT;
	bool has = false;

	if (!R->lookup)
		return false;
	R->jobs->key(R->jobs->ctx, idx, key);
	pthread_mutex_lock(&R->db_mu);
	if (store_has_key(R->st, key, &has, &err) < 0)
		has = false;   /* run it again: the database keeps a key's first row */
	pthread_mutex_unlock(&R->db_mu);
	strbuf_release(&err);
	return has;
}

/* The next job of the pool, or false when there is none (and will be none). */
static bool next_job(struct runner *R, uint64_t *idx)
{
	for (;;) {
		bool got = false;

		pthread_mutex_lock(&R->mu);
		for (;;) {
			if (stop_raised(R))
				break;
			if (R->head < R->tail || R->next < R->end) {
				*idx = R->head < R->tail ? R->pool[R->head++] : R->next++;
				R->n_busy++;
				got = true;
				break;
			}
			if (R->closed)
				break;
			pthread_cond_wait(&R->work_cv, &R->mu);
		}
		pthread_mutex_unlock(&R->mu);
		if (!got || !finished_before(R, *idx))
			return got;
		pthread_mutex_lock(&R->mu);
		R->n_busy--;
		R->n_skipped++;
		pthread_mutex_unlock(&R->mu);
	}
}

/*
 * Finished results waiting for the main thread, at most: a worker that finds
 * this many waits, so that a database slower than the workers holds them
 * back instead of letting the results of a long run pile up in memory.
 */
#define MAX_PENDING 1024

/*
 * Rank 0 writes the results in batches, one transaction each: when this
 * many wait, or COMMIT_S after the last batch (so a kill -9 loses at most
 * the results of the last COMMIT_S; a resumed run finishes them), or when
 * the workers are done. A transaction per result cost the writer more than
 * a point's evaluation. The first batches are small (1, 2, 4, ... rows):
 * the first rows are there at once, as before. BATCH_ROWS < MAX_PENDING:
 * the workers never wait for a batch that cannot fill.
 */
#define BATCH_ROWS 256
#define COMMIT_S 0.5

/*
 * Hand the result over; returns a summary the main thread is done with, for
 * the next job, or NULL. (A summary is 12 KB: a calloc and a free of one a
 * job, the free on the main thread, made glibc grow the workers' heaps.)
 */
static struct job_summary *post_result(struct runner *R, uint64_t idx, bool keep,
				       struct job_summary *sum)
{
	struct job_summary *next = NULL;

	pthread_mutex_lock(&R->mu);
	while (R->n_res >= MAX_PENDING)
		pthread_cond_wait(&R->space_cv, &R->mu);
	XGROW(R->res, R->n_res + 1, R->alloc_res);
	R->res[R->n_res++] = (struct result){ idx, keep, sum };
	R->n_busy--;
	if (!R->batched || R->n_res >= R->batch)   /* a batch waits for the rest */
		pthread_cond_signal(&R->main_cv);
	if (R->n_spare)
		next = R->spare[--R->n_spare];
	pthread_mutex_unlock(&R->mu);
	return next;
}

/* The summaries of r[0..n) back to the workers (post_result()). */
static void give_back(struct runner *R, struct result *r, size_t n)
{
	size_t i;

	pthread_mutex_lock(&R->mu);
	XGROW(R->spare, R->n_spare + n, R->alloc_spare);
	for (i = 0; i < n; i++)
		R->spare[R->n_spare++] = r[i].sum;
	pthread_mutex_unlock(&R->mu);
}

static void *worker_main(void *arg)
{
	struct runner *R = arg;
	void *ws = R->jobs->ws_new ? R->jobs->ws_new(R->jobs->ctx) : NULL;
	struct job_summary *next = NULL;
	uint64_t idx;

	while (next_job(R, &idx)) {
		struct job_summary *sum = next;
		bool keep;
		if (sum)
			memset(sum, 0, sizeof(*sum));   /* as calloc gives it */
		else
			sum = xcalloc(1, sizeof(*sum));
		keep = R->jobs->run(R->jobs->ctx, ws, idx, sum);
		next = post_result(R, idx, keep, sum);
	}
	free(next);
	if (R->jobs->ws_free)
		R->jobs->ws_free(R->jobs->ctx, ws);
	pthread_mutex_lock(&R->mu);
	R->n_alive--;
	pthread_cond_signal(&R->main_cv);
	pthread_mutex_unlock(&R->mu);
	return NULL;
}

/* Add idx[0..n) to the pool. */
static void pool_add(struct runner *R, const uint64_t *idx, size_t n)
{
	pthread_mutex_lock(&R->mu);
	if (R->head == R->tail)
		R->head = R->tail = 0;
	XGROW(R->pool, R->tail + n, R->alloc);
	memcpy(R->pool + R->tail, idx, n * sizeof(*idx));
	R->tail += n;
	pthread_cond_broadcast(&R->work_cv);
	pthread_mutex_unlock(&R->mu);
}

static void pool_close(struct runner *R)
{
	pthread_mutex_lock(&R->mu);
	R->closed = true;
	pthread_cond_broadcast(&R->work_cv);
	pthread_mutex_unlock(&R->mu);
}

/*
 * Rank 0: take up to 'max' unfinished jobs from its range into idx[]; their
 * number, 0 only when the range is spent or a stop was raised.
 */
static size_t range_take(struct runner *R, uint64_t *idx, size_t max)
{
	size_t n = 0;

	while (n == 0) {
		uint64_t first, count, i;
		size_t skipped = 0;

		pthread_mutex_lock(&R->mu);
		count = stop_raised(R) ? 0 : R->end - R->next;
		if (count > max)
			count = max;
		first = R->next;
		R->next += count;
		pthread_mutex_unlock(&R->mu);
		if (!count)
			break;
		for (i = first; i < first + count; i++) {
			if (finished_before(R, i))
				skipped++;
			else
				idx[n++] = i;
		}
		pthread_mutex_lock(&R->mu);
		R->n_skipped += skipped;
		pthread_mutex_unlock(&R->mu);
	}
	return n;
}

/* The finished results, moved into '*out' ('*n' of them). */
static struct result *take_results(struct runner *R, size_t *n, double wait_s)
{
	struct result *r = NULL;

	pthread_mutex_lock(&R->mu);
	if (R->batched && !stop_raised(R)) {   /* a batch, or what came by the deadline 'wait_s' from now */
		struct timespec ts;
		double t = now_s() + wait_s;
		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
		while (R->n_res < R->batch && R->n_alive && wait_s > 0 &&
		       pthread_cond_timedwait(&R->main_cv, &R->mu, &ts) == 0)
			;
	} else if (!R->n_res && wait_s > 0 && R->n_alive) {
		struct timespec ts;
		double t = now_s() + wait_s;
		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&R->main_cv, &R->mu, &ts);
	}
	*n = R->n_res;
	if (R->n_res && R->batch < BATCH_ROWS)
		R->batch *= 2;
	if (R->n_res) {
		r = R->res;
		R->res = NULL;
		R->n_res = R->alloc_res = 0;
		pthread_cond_broadcast(&R->space_cv);
	}
	pthread_mutex_unlock(&R->mu);
	return r;
}

/* -------------------------------------------------------------- rank 0 */

/*
 * Row 'w' of the store for row 'rr' of job summary 's'; 'lv' its level
 * energies, 'v' its metrics.
 */
static void fill_row(const struct job_runner_jobs *J, const struct job_runner_row *rr,
		     const struct job_summary *s, struct store_level *lv, struct store_value *v,
		     struct store_row *w)
{
	bool ok = s->status == JOB_OK && s->command != JOB_CHECK;
	unsigned l;

	w->key = rr->key;
	w->idx = rr->idx;
	w->kind = rr->kind;
	w->name = rr->name;
	w->parent = rr->parent;
	w->tags = rr->tags;
	w->command = rr->command;
	w->design_hash = rr->design_hash;
	w->overrides = rr->overrides.buf;
	w->inputs = J->n_inputs ? rr->inputs : NULL;
	w->status = job_status_name(s->status);
	w->error = s->status != JOB_OK ? s->error : NULL;
	job_store_values(s, v);
	w->metrics = v;
	w->mapping = s->mapping[0] ? s->mapping : NULL;
	w->n_levels = ok ? s->n_levels : 0;
	w->levels = lv;
	for (l = 0; l < w->n_levels; l++)
		lv[l] = (struct store_level){ job_summary_level_name(s, l), s->level_energy_pj[l] };
}

/* The rows of the kept results r[0..n): each job's rows described. */
struct rows {
	size_t n, alloc;
	struct job_runner_row *rr;
	const struct job_summary **sum;
};

static void rows_add(const struct job_runner_jobs *J, struct rows *w, const struct result *r)
{
	unsigned k, n = J->n_rows ? J->n_rows(J->ctx, r->idx) : 1;

	for (k = 0; k < n; k++) {
		struct job_runner_row *rr;
		if (w->n == w->alloc) {
			w->alloc = w->alloc ? 2 * w->alloc : 16;
			w->rr = xreallocarray(w->rr, w->alloc, sizeof(*w->rr));
			w->sum = xreallocarray(w->sum, w->alloc, sizeof(*w->sum));
		}
		rr = &w->rr[w->n];
		memset(rr, 0, sizeof(*rr));
		strbuf_init(&rr->overrides, 0);
		rr->idx = r->idx;
		J->describe(J->ctx, r->idx, k, rr);
		w->sum[w->n++] = r->sum;
	}
}

/*
 * Count the reason of a job that did not succeed: the first line of its
 * error without the "FILE:LINE:COL: error: " in front (the same mistake at
 * every point reads the same), or its status.
 */
static void count_reason(struct job_run_result *res, const struct job_summary *sum)
{
	const char *e = sum->error, *m = strstr(e, ": error: ");
	size_t n, i;
	char text[sizeof(res->reasons[0].text)];

	if (sum->status == JOB_BAD_INPUT || sum->status == JOB_SYSTEM)
		res->any_bad_input = true;
	if (m && m < e + strcspn(e, "\n"))
		e = m + strlen(": error: ");
	n = strcspn(e, "\n");
	if (n == 0) {
		e = job_status_name(sum->status);
		n = strlen(e);
	}
	snprintf(text, sizeof(text), "%.*s", (int)n, e);
	for (i = 0; i < res->n_reasons; i++)
		if (res->reasons[i].status == sum->status && !strcmp(res->reasons[i].text, text)) {
			res->reasons[i].n++;
			return;
		}
	if (res->n_reasons == JOB_MAX_REASONS) {
		res->n_other_reasons++;
		return;
	}
	res->reasons[res->n_reasons].status = sum->status;
	memcpy(res->reasons[res->n_reasons].text, text, sizeof(text));
	res->reasons[res->n_reasons++].n = 1;
}

/* Rows of the results r[0..n) into the database, then to the stream and the taker. */
static int deliver(struct runner *R, struct result *r, size_t n)
{
	const struct job_runner_jobs *J = R->jobs;
	struct rows w = { 0, 0, NULL, NULL };
	struct strbuf err = STRBUF_INIT;
	struct store_row *rows;
	struct store_level *lv;
	struct store_value *values;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (r[i].keep)
			rows_add(J, &w, &r[i]);
	rows = xcalloc(w.n + 1, sizeof(*rows));
	lv = xcalloc(w.n * JOB_MAX_PARTS + 1, sizeof(*lv));
	values = xcalloc(w.n * JOB_METRIC_COUNT + 1, sizeof(*values));
	for (i = 0; i < w.n; i++)
		fill_row(J, &w.rr[i], w.sum[i], lv + i * JOB_MAX_PARTS,
			 values + i * JOB_METRIC_COUNT, &rows[i]);
	if (R->st && w.n) {
		pthread_mutex_lock(&R->db_mu);
		rc = store_put(R->st, rows, w.n, &err);
		pthread_mutex_unlock(&R->db_mu);
	}
	if (rc < 0) {
		snprintf(R->out->error, sizeof(R->out->error), "%s", err.buf);
		atomic_store(&R->abort, 1);
	}
	for (i = 0; i < w.n && rc == 0 && R->o->on_row; i++) {
		struct job_row jr = {
			.idx = w.rr[i].idx, .key = w.rr[i].key, .kind = w.rr[i].kind,
			.name = w.rr[i].name, .n_inputs = J->n_inputs,
			.input_names = J->input_names, .input_values = w.rr[i].inputs,
			.overrides = w.rr[i].overrides.buf, .metrics = J->stream_metrics,
			.sum = w.sum[i],
		};
		R->o->on_row(R->o->row_arg, &jr);
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (!r[i].keep)
			continue;
		R->out->n_done++;
		if (r[i].sum->status != JOB_OK) {
			R->out->n_failed++;
			count_reason(R->out, r[i].sum);
		}
		if (J->take)
			J->take(J->take_arg, r[i].idx, r[i].sum);
	}
	for (i = 0; i < w.n; i++)
		strbuf_release(&w.rr[i].overrides);
	give_back(R, r, n);
	free(w.rr);
	free(w.sum);
	strbuf_release(&err);
	free(lv);
	free(values);
	free(rows);
	return rc;
}

static void progress(struct runner *R, bool force)
{
	struct job_run_progress p;
	double t = now_s();
	uint64_t left;

	pthread_mutex_lock(&R->mu);
	R->out->n_skipped = R->n_skipped;
	pthread_mutex_unlock(&R->mu);
	if (!R->o->on_progress || (!force && t - R->last_progress < R->o->progress_interval_s))
		return;
	/* the last line: only where lines are redrawn, or after a line was shown */
	if (force && R->o->progress_interval_s >= 1.0 && !R->shown_progress)
		return;
	R->shown_progress = true;
	R->last_progress = t;
	memset(&p, 0, sizeof(p));
	p.n_total = R->out->n_total;
	p.n_skipped = R->out->n_skipped;
	p.n_done = R->out->n_done;
	p.n_failed = R->out->n_failed;
	p.elapsed_s = t - R->t0;
	p.per_s = p.elapsed_s > 0 ? (double)p.n_done / p.elapsed_s : 0;
	left = p.n_total - p.n_skipped - p.n_done;
	p.eta_s = p.per_s > 0 ? (double)left / p.per_s : -1;
	p.n_ranks = R->out->n_ranks;
	p.n_workers = R->out->n_workers;
	R->o->on_progress(R->o->progress_arg, &p);
}

/* Answer a request of 'want' jobs from rank 'to': a share of what is left. */
static void serve_request(struct runner *R, unsigned to, unsigned want)
{
	uint64_t idx[256];
	size_t left, share, n;

	pthread_mutex_lock(&R->mu);
	left = R->end - R->next;
	pthread_mutex_unlock(&R->mu);
	share = left / (2 * (uint64_t)R->out->n_workers * R->out->n_ranks + 1);
	if (share < 1)
		share = 1;
	if (share > want)
		share = want;
	if (share > ARRAY_SIZE(idx))
		share = ARRAY_SIZE(idx);
	n = range_take(R, idx, share);
	R->n_remote_out += n;
	job_mpi_send_work(to, idx, n);
}

/* Rank 0's main loop: results in, work out, until every job and every rank is done. */
static void lead(struct runner *R)
{
	unsigned n_remote_done = 0, n_others = job_ranks() - 1;
	struct job_summary *rsum = xcalloc(1, sizeof(*rsum));
	bool failed = false;

	for (;;) {
		struct job_mpi_msg m = { .sum = rsum };
		struct result *r;
		size_t n;
		bool busy = false, idle;

		while (n_others && job_mpi_poll(&m)) {
			busy = true;
			if (m.kind == JOB_MPI_REQUEST) {
				serve_request(R, m.from, m.count);
			} else if (m.kind == JOB_MPI_RESULT) {
				struct result one = { m.idx, m.keep && !failed, rsum };
				R->n_remote_out--;
				rsum = xcalloc(1, sizeof(*rsum));
				m.sum = rsum;
				if (deliver(R, &one, 1) < 0)
					failed = true;
			} else if (m.kind == JOB_MPI_DONE) {
				n_remote_done++;
			}
		}
		if (R->batched) {
			double t = now_s();
			if (t >= R->last_commit + COMMIT_S)   /* nothing came: wait a whole period */
				R->last_commit = t;
			r = take_results(R, &n, R->last_commit + COMMIT_S - t);
			if (n)
				R->last_commit = now_s();
		} else {
			r = take_results(R, &n, n_others ? (busy ? 0 : 0.001) : 0.05);
		}
		if (n && !failed && deliver(R, r, n) < 0)
			failed = true;
		else if (failed)
			give_back(R, r, n);
		free(r);
		progress(R, false);
		pthread_mutex_lock(&R->mu);
		idle = R->n_alive == 0 && R->n_res == 0;
		pthread_mutex_unlock(&R->mu);
		if (idle && n_remote_done == n_others)
			break;
	}
	free(rsum);
	progress(R, true);
}

/* ---------------------------------------------------------- other ranks */

/* A rank other than 0: ask for jobs while its workers can take them, send results back. */
static void follow(struct runner *R)
{
	uint64_t idx[256];
	bool asked = false, no_more = false;

	for (;;) {
		struct result *r;
		size_t n, queued, i;
		bool idle;

		pthread_mutex_lock(&R->mu);
		queued = R->tail - R->head + R->n_busy;
		pthread_mutex_unlock(&R->mu);
		if (!asked && !no_more && queued < R->n_workers) {
			job_mpi_request(2 * R->n_workers);
			asked = true;
		}
		if (asked && job_mpi_poll_work(idx, ARRAY_SIZE(idx), &n)) {
			asked = false;
			if (n)
				pool_add(R, idx, n);
			else {
				no_more = true;
				pool_close(R);
			}
		}
		r = take_results(R, &n, 0.001);
		for (i = 0; i < n; i++)
			job_mpi_send_result(r[i].idx, r[i].keep, r[i].sum);
		give_back(R, r, n);
		free(r);
		pthread_mutex_lock(&R->mu);
		idle = R->n_alive == 0 && R->n_res == 0;
		pthread_mutex_unlock(&R->mu);
		if (no_more && idle)
			break;
	}
	job_mpi_send_done();
}

/* ------------------------------------------------------------- the run */

/*
 * Rank 0: open the database, record the run, see whether it holds points
 * (--resume: then each job is looked up) and make every job the range to
 * hand out: nothing per job.
 */
static int prepare_lead(struct runner *R)
{
	const struct job_runner_jobs *J = R->jobs;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	if (R->o->db_path) {
		struct store_run_def def = {
			.key = J->run_key, .kind = J->kind,
			.definition = R->o->definition ? R->o->definition : "",
			.n_points = J->n, .n_inputs = J->n_inputs, .inputs = J->input_names,
		};
		R->st = store_open(R->o->db_path, STORE_WRITE, job_store_schema(), &err);
		if (!R->st || store_begin_run(R->st, &def, &err) < 0 ||
		    (R->o->resume && store_has_points(R->st, &R->lookup, &err) < 0)) {
			snprintf(R->out->error, sizeof(R->out->error), "%s", err.buf);
			rc = -1;
		}
	}
	if (rc == 0) {
		R->next = 0;
		R->end = J->n;
	}
	strbuf_release(&err);
	return rc;
}

int job_runner_go(const struct job_runner_jobs *jobs, const struct job_runner *o,
		  struct job_run_result *res)
{
	struct runner R;
	pthread_condattr_t ca;
	pthread_t *threads;
	int status = 0;
	unsigned i;

	memset(res, 0, sizeof(*res));
	memset(&R, 0, sizeof(R));
	R.jobs = jobs;
	R.o = o;
	R.out = res;
	R.t0 = now_s();
	R.last_progress = R.t0;      /* the first line after one interval */
	atomic_init(&R.abort, 0);
	pthread_mutex_init(&R.mu, NULL);
	pthread_mutex_init(&R.db_mu, NULL);
	pthread_cond_init(&R.work_cv, NULL);
	pthread_cond_init(&R.space_cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);   /* the clock of now_s() */
	pthread_cond_init(&R.main_cv, &ca);
	pthread_condattr_destroy(&ca);
	res->n_total = jobs->n;
	res->n_ranks = job_ranks();
	R.batched = res->n_ranks == 1;
	R.batch = 1;
	R.last_commit = R.t0;
	R.n_workers = res->n_workers = workers_of(o, jobs->n);
	if (job_rank() == 0) {
		status = prepare_lead(&R);
		pool_close(&R);        /* rank 0's pool is complete from the start */
	}
	job_mpi_bcast(&status, sizeof(status));
	if (status == 0) {
		threads = xcalloc(R.n_workers, sizeof(*threads));
		R.n_alive = R.n_workers;
		for (i = 0; i < R.n_workers; i++)
			if (pthread_create(&threads[i], NULL, worker_main, &R) != 0)
				BUG("pthread_create: %s", strerror(errno));
		if (job_rank() == 0)
			lead(&R);
		else
			follow(&R);
		for (i = 0; i < R.n_workers; i++)
			pthread_join(threads[i], NULL);
		free(threads);
		if (job_rank() == 0) {
			res->n_skipped = R.n_skipped;
			res->interrupted = res->n_skipped + res->n_done < res->n_total;
			status = atomic_load(&R.abort) ? -1 : 0;
		}
		job_mpi_bcast(&status, sizeof(status));
	}
	if (status < 0 && job_rank() != 0)
		snprintf(res->error, sizeof(res->error), "the run failed on rank 0");
	res->elapsed_s = now_s() - R.t0;
	store_close(R.st);
	free(R.pool);
	free(R.res);
	while (R.n_spare)
		free(R.spare[--R.n_spare]);
	free(R.spare);
	pthread_cond_destroy(&R.work_cv);
	pthread_cond_destroy(&R.space_cv);
	pthread_cond_destroy(&R.main_cv);
	pthread_mutex_destroy(&R.mu);
	pthread_mutex_destroy(&R.db_mu);
	return status;
}
