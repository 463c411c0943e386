/*
 * Tests of mapper/run.c: results independent of the thread count, the
 * stopping rules (search_size, timeout, victory_condition, stop flag, time
 * limit) applied per stream in search order, and threads that cannot be
 * started (this program is linked with pthread_create and pthread_join
 * wrapped: -Wl,--wrap, see Makefile.am).
 */
#include "mapper/mapper.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mapper/fixture.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const struct fx_level levels[] = {
	{ "Reg", true, 16, 1, 1, 0 },
	{ "Buf", true, 512, 4, 2, 0 },
	{ "DRAM", false, 0, 1, 1, 0 },
};

struct fixture {
	struct spec_set *s;
	struct mapper_space *ms;
	struct mapper_evaluator ev;
	struct diag_list dl;
};

static void setup(struct fixture *f, const unsigned *fail_every)
{
	memset(f, 0, sizeof(*f));
	f->s = fx_matmul(16, 12, 8, levels, 3);
	f->ms = mapper_space_new(f->s, NULL, &f->dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->ms);
	fx_evaluator(&f->ev, fail_every);
}

static void teardown(struct fixture *f)
{
	mapper_space_free(f->ms);
	spec_set_free(f->s);
	diag_list_release(&f->dl);
}

static void options(struct mapper_options *o, enum spec_search alg, unsigned threads)
{
	mapper_options_init(o, NULL);
	o->algorithm = alg;
	o->n_threads = threads;
	o->n_streams = 5;
	o->seed = 11;
}

/* Same result, counts and failure tallies with 1, 2 and 3 threads. */
static void test_thread_independence(void)
{
	static const enum spec_search algs[] = {
		SPEC_SEARCH_RANDOM, SPEC_SEARCH_RANDOM_PRUNED, SPEC_SEARCH_HYBRID,
		SPEC_SEARCH_LINEAR_PRUNED,
	};
	static const unsigned fail_every = 5;
	struct fixture f;
	size_t a;

	setup(&f, &fail_every);
	for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		struct mapper_result r1, r;
		struct mapper_options o;
		unsigned t;

		options(&o, algs[a], 1);
		o.victory_condition = 40;
		o.timeout = 200;
		if (algs[a] == SPEC_SEARCH_LINEAR_PRUNED)
			o.search_size = 2000;
		CU_ASSERT_EQUAL_FATAL(mapper_run(f.ms, &f.ev, &o, &r1), 0);
		CU_ASSERT_TRUE(r1.found);
		CU_ASSERT_TRUE(r1.n_valid > 40);
		for (t = 2; t <= 3; t++) {
			o.n_threads = t;
			CU_ASSERT_EQUAL_FATAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
			CU_ASSERT_EQUAL(r.n_threads, t);
			CU_ASSERT_EQUAL(r.n_evaluated, r1.n_evaluated);
			CU_ASSERT_EQUAL(r.n_valid, r1.n_valid);
			CU_ASSERT_EQUAL(r.n_model_calls, r1.n_model_calls);
			CU_ASSERT_EQUAL(memcmp(r.fail_counts, r1.fail_counts, sizeof(r.fail_counts)), 0);
			CU_ASSERT_EQUAL(memcmp(r.stream_stops, r1.stream_stops, sizeof(r.stream_stops)), 0);
			CU_ASSERT_EQUAL(r.best_stream, r1.best_stream);
			CU_ASSERT_EQUAL(fx_mapping_key(&r.best), fx_mapping_key(&r1.best));
			CU_ASSERT_EQUAL(memcmp(r.best_eval.metrics, r1.best_eval.metrics,
					       sizeof(r.best_eval.metrics)), 0);
		}
	}
	teardown(&f);
}

/*
 * A search shared out in 1, 2, 3 and 7 parts (MPI ranks) and merged gives
 * mapper_run()'s result: counts, tallies, stops, best mapping, refinement.
 */
static void test_parts(void)
{
	static const enum spec_search algs[] = {
		SPEC_SEARCH_RANDOM_PRUNED, SPEC_SEARCH_HYBRID, SPEC_SEARCH_LINEAR_PRUNED,
	};
	static const unsigned n_parts[] = { 1, 2, 3, 7 };
	static const unsigned fail_every = 5;
	struct fixture f;
	size_t a, k;

	setup(&f, &fail_every);
	for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		struct mapper_result r1, r;
		struct mapper_options o;

		options(&o, algs[a], 2);
		o.victory_condition = 40;
		o.timeout = 200;
		o.refine = 3;
		if (algs[a] == SPEC_SEARCH_LINEAR_PRUNED)
			o.search_size = 2000;
		CU_ASSERT_EQUAL_FATAL(mapper_run(f.ms, &f.ev, &o, &r1), 0);
		CU_ASSERT_TRUE(r1.found);
		for (k = 0; k < sizeof(n_parts) / sizeof(n_parts[0]); k++) {
			struct mapper_part *parts[7];
			unsigned p, n = n_parts[k];
			for (p = 0; p < n; p++) {
				parts[p] = xmalloc(mapper_part_size(o.n_streams));
				o.n_threads = 1 + p % 2;
				CU_ASSERT_EQUAL_FATAL(mapper_run_part(f.ms, &f.ev, &o, p, n, parts[p]), 0);
			}
			CU_ASSERT_EQUAL_FATAL(mapper_run_merge(f.ms, &f.ev, &o,
							       (const struct mapper_part *const *)parts,
							       n, &r), 0);
			CU_ASSERT_EQUAL(r.n_evaluated, r1.n_evaluated);
			CU_ASSERT_EQUAL(r.n_valid, r1.n_valid);
			CU_ASSERT_EQUAL(r.n_model_calls, r1.n_model_calls);
			CU_ASSERT_EQUAL(memcmp(r.fail_counts, r1.fail_counts, sizeof(r.fail_counts)), 0);
			CU_ASSERT_EQUAL(memcmp(r.stream_stops, r1.stream_stops, sizeof(r.stream_stops)), 0);
			CU_ASSERT_EQUAL(r.refined, r1.refined);
			CU_ASSERT_EQUAL(r.n_refine_evals, r1.n_refine_evals);
			CU_ASSERT_EQUAL(r.n_refine_steps, r1.n_refine_steps);
			CU_ASSERT_EQUAL(r.best_stream, r1.best_stream);
			CU_ASSERT_EQUAL(fx_mapping_key(&r.best), fx_mapping_key(&r1.best));
			CU_ASSERT_EQUAL(memcmp(r.best_eval.metrics, r1.best_eval.metrics,
					       sizeof(r.best_eval.metrics)), 0);
			for (p = 0; p < n; p++)
				free(parts[p]);
		}
	}
	/* a part number out of range, or a candidate log, is refused */
	{
		struct mapper_options o;
		struct mapper_part *part = xmalloc(mapper_part_size(5));
		options(&o, SPEC_SEARCH_RANDOM, 1);
		CU_ASSERT_EQUAL(mapper_run_part(f.ms, &f.ev, &o, 2, 2, part), -1);
		free(part);
	}
	teardown(&f);
}

/* When every evaluation fails, each stream stops after 'timeout' in a row. */
static void test_timeout(void)
{
	static const unsigned always = 1;
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;

	setup(&f, &always);
	options(&o, SPEC_SEARCH_RANDOM_PRUNED, 2);
	o.timeout = 37;
	o.victory_condition = 0;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_FALSE(r.found);
	CU_ASSERT_EQUAL(r.n_valid, 0);
	CU_ASSERT_EQUAL(r.n_evaluated, 5 * 37);
	CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_TIMEOUT], 5);
	CU_ASSERT_TRUE(r.fail_counts[MAPPER_FAIL_OTHER][0] > 0);
	teardown(&f);
}

/* search_size valid mappings over all streams, split evenly. */
static void test_search_size(void)
{
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;

	setup(&f, NULL);
	options(&o, SPEC_SEARCH_HYBRID, 2);
	o.search_size = 500;
	o.victory_condition = 0;
	o.timeout = 0;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.n_valid, 500);
	CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_SEARCH_SIZE], 5);
	teardown(&f);
}

struct victory_log {
	uint64_t since_best[8];
	bool stream_valid[8];
	uint64_t n_best;
};

static void victory_cb(void *arg, const struct mapper_candidate *c)
{
	struct victory_log *v = arg;
	if (c->eval.status != MAPPER_OK)
		return;
	v->stream_valid[c->stream] = true;
	if (c->is_best) {
		v->since_best[c->stream] = 0;
		v->n_best++;
	} else {
		v->since_best[c->stream]++;
	}
}

/* Each stream stops right after 'victory_condition' valid non-improving ones. */
static void test_victory(void)
{
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;
	struct victory_log v;
	unsigned s;

	setup(&f, NULL);
	memset(&v, 0, sizeof(v));
	options(&o, SPEC_SEARCH_RANDOM, 2);
	o.victory_condition = 25;
	o.timeout = 0;
	o.on_candidate = victory_cb;
	o.candidate_arg = &v;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_VICTORY], 5);
	for (s = 0; s < 5; s++) {
		CU_ASSERT_TRUE(v.stream_valid[s]);
		CU_ASSERT_EQUAL(v.since_best[s], 25);
	}
	CU_ASSERT_TRUE(v.n_best >= 5);
	teardown(&f);
}

/* A raised stop flag or a time limit ends a search that has no other end. */
static void test_stop_and_time_limit(void)
{
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;
	atomic_int stop;

	setup(&f, NULL);
	options(&o, SPEC_SEARCH_RANDOM, 2);
	o.victory_condition = 0;
	o.timeout = 0;
	atomic_init(&stop, 1);
	o.stop = &stop;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_INTERRUPTED], 5);

	o.stop = NULL;
	o.time_limit_s = 0.2;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.stream_stops[MAPPER_STOP_TIME_LIMIT], 5);
	CU_ASSERT_TRUE(r.found);
	CU_ASSERT_TRUE(r.n_valid > 0);
	teardown(&f);
}

/* Invalid options are refused. */
static void test_bad_options(void)
{
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;

	setup(&f, NULL);
	options(&o, SPEC_SEARCH_RANDOM, 1);
	o.n_streams = 0;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), -1);
	CU_ASSERT_STRING_EQUAL(r.error, "invalid search options");
	options(&o, SPEC_SEARCH_RANDOM, 1);
	o.n_metrics = 0;
	CU_ASSERT_EQUAL(mapper_run(f.ms, &f.ev, &o, &r), -1);
	teardown(&f);
}

/* ------------------------------------------- threads that cannot start */

int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);

static unsigned create_calls, fail_call;   /* fail_call 0: never fail */
static unsigned n_created, n_joined;

/* pthread_create, except that call number 'fail_call' fails with EAGAIN. */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	int rc;

	if (++create_calls == fail_call)
		return EAGAIN;
	rc = __real_pthread_create(t, attr, fn, arg);
	n_created += rc == 0;
	return rc;
}

int __wrap_pthread_join(pthread_t t, void **ret)
{
	int rc = __real_pthread_join(t, ret);
	n_joined += rc == 0;
	return rc;
}

/*
 * A thread that cannot be started is an error returned with its reason,
 * after the threads that did start are joined: the search's threads are
 * created first (calls 1..n_threads), then the refinement's.
 */
static void test_thread_start_failure(void)
{
	static const struct {
		unsigned n_threads, refine;
		unsigned fail_call;
		const char *error;
		unsigned n_started;
	} rows[] = {
		{ 1, 0, 1, "cannot start search thread 1 of 1: Resource temporarily unavailable", 0 },
		{ 3, 0, 2, "cannot start search thread 2 of 3: Resource temporarily unavailable", 1 },
		{ 3, 0, 3, "cannot start search thread 3 of 3: Resource temporarily unavailable", 2 },
		{ 2, 2, 3, "cannot start refinement thread 1 of 2: Resource temporarily unavailable",
		  2 },
		{ 2, 2, 4, "cannot start refinement thread 2 of 2: Resource temporarily unavailable",
		  3 },
		{ 2, 2, 0, "", 4 },
	};
	static const unsigned fail_every = 5;
	struct fixture f;
	size_t i;

	setup(&f, &fail_every);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct mapper_options o;
		struct mapper_result r;
		int rc;

		options(&o, SPEC_SEARCH_RANDOM_PRUNED, rows[i].n_threads);
		o.search_size = 100;
		o.refine = rows[i].refine;
		create_calls = n_created = n_joined = 0;
		fail_call = rows[i].fail_call;
		rc = mapper_run(f.ms, &f.ev, &o, &r);
		fail_call = 0;
		CU_ASSERT_EQUAL(rc, rows[i].fail_call ? -1 : 0);
		CU_ASSERT_STRING_EQUAL(r.error, rows[i].error);
		CU_ASSERT_EQUAL(n_created, rows[i].n_started);
		CU_ASSERT_EQUAL(n_joined, rows[i].n_started);
		if (!rows[i].fail_call)
			CU_ASSERT_TRUE(r.found && r.refined);
	}
	teardown(&f);
}

/*
 * No more worker threads than streams with work: 64 asked for 5 streams
 * start 5, and 2 in the part of the search that runs 2 of the 5 streams.
 */
static void test_threads_capped_by_streams(void)
{
	static const unsigned fail_every = 5;
	struct fixture f;
	struct mapper_options o;
	struct mapper_result r;
	struct mapper_part *part;

	setup(&f, &fail_every);
	options(&o, SPEC_SEARCH_RANDOM_PRUNED, 64);
	o.search_size = 20;
	o.refine = 0;
	create_calls = n_created = n_joined = 0;
	CU_ASSERT_EQUAL_FATAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.n_threads, 5);
	CU_ASSERT_EQUAL(n_created, 5);
	CU_ASSERT_EQUAL(n_joined, 5);
	part = xcalloc(1, mapper_part_size(o.n_streams));
	CU_ASSERT_EQUAL(mapper_run_part(f.ms, &f.ev, &o, 1, 3, part), 0);   /* streams 1 and 4 */
	CU_ASSERT_EQUAL(part->n_threads, 2);
	free(part);
	o.n_threads = 3;
	CU_ASSERT_EQUAL_FATAL(mapper_run(f.ms, &f.ev, &o, &r), 0);
	CU_ASSERT_EQUAL(r.n_threads, 3);
	teardown(&f);
}

static CU_TestInfo run_tests[] = {
	{ "threads capped by the streams", test_threads_capped_by_streams },
	{ "independent of the thread count", test_thread_independence },
	{ "parts of a search merged", test_parts },
	{ "timeout", test_timeout },
	{ "search_size", test_search_size },
	{ "victory_condition", test_victory },
	{ "stop flag and time limit", test_stop_and_time_limit },
	{ "bad options", test_bad_options },
	{ "threads that cannot start", test_thread_start_failure },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "run", .pTests = run_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
