/*
 * The runner (job/runner.c) hands out a run's jobs from a counter: a run of
 * 10^12 jobs starts at once and stops where it was told, with nothing
 * allocated per job; a resumed run checks each job's key as it takes the
 * job, so it computes no more keys than the jobs it took, and skips
 * exactly the ones the database holds.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/strbuf.h"

/* A toy run: job i's key hashes i; it raises 'stop' after 'stop_after' jobs. */
struct toy {
	atomic_int stop;
	atomic_ullong n_run, n_keys, max_idx;
	unsigned long long stop_after;
};

static void key_of(uint64_t i, char key[JOB_KEY_CHARS + 1])
{
	struct job_hash h;

	job_hash_init(&h);
	job_hash_add(&h, &i, sizeof(i));
	job_hash_hex(&h, key);
}

/* The runner's look-ups, counted (a row's key, below, is not one). */
static void toy_key(void *arg, uint64_t i, char key[JOB_KEY_CHARS + 1])
{
	struct toy *t = arg;

	atomic_fetch_add(&t->n_keys, 1);
	key_of(i, key);
}

static void toy_describe(void *arg, uint64_t i, unsigned k, struct job_runner_row *row)
{
	(void)arg;
	(void)k;
	key_of(i, row->key);
	row->kind = "point";
	row->command = "model";
	row->design_hash = "toy";
}

static bool toy_run(void *arg, void *ws, uint64_t i, struct job_summary *sum)
{
	struct toy *t = arg;
	unsigned long long m = atomic_load(&t->max_idx);

	(void)ws;
	while (i > m && !atomic_compare_exchange_weak(&t->max_idx, &m, i))
		;
	sum->command = JOB_MODEL;
	sum->status = JOB_OK;
	if (atomic_fetch_add(&t->n_run, 1) + 1 >= t->stop_after)
		atomic_store(&t->stop, 1);
	return true;
}

static int toy_go(struct toy *t, uint64_t n, const char *db, struct job_run_result *res)
{
	struct job_runner_jobs jobs = {
		.n = n, .ctx = t, .kind = "sweep", .run_key = "toy-run",
		.key = toy_key, .describe = toy_describe, .run = toy_run,
	};
	struct job_runner o = { .db_path = db, .resume = true, .n_workers = 2, .stop = &t->stop };

	atomic_init(&t->stop, 0);
	atomic_init(&t->n_run, 0);
	atomic_init(&t->n_keys, 0);
	atomic_init(&t->max_idx, 0);
	return job_runner_go(&jobs, &o, res);
}

/* 10^12 jobs: the run starts at once and stops after the 1000th, having run jobs 0..~1000. */
static void test_huge_run_streams(void)
{
	struct toy t = { .stop_after = 1000 };
	struct job_run_result res;

	CU_ASSERT_EQUAL_FATAL(toy_go(&t, 1000000000000ull, NULL, &res), 0);
	CU_ASSERT_EQUAL(res.n_total, 1000000000000ull);
	CU_ASSERT(res.n_done >= 1000 && res.n_done <= 1001);   /* 2 workers: one more in flight */
	CU_ASSERT_EQUAL(res.n_done, atomic_load(&t.n_run));
	CU_ASSERT(atomic_load(&t.max_idx) <= 1001);        /* handed out in order */
	CU_ASSERT_EQUAL(res.n_skipped, 0);
	CU_ASSERT_TRUE(res.interrupted);
	CU_ASSERT_EQUAL(atomic_load(&t.n_keys), 0);        /* no database: no key looked at */
}

/*
 * Resume: a first run of 10^12 jobs writes ~20 rows; the second skips just
 * those, as it meets them, and computes one key per job it took.
 */
static void test_resume_lazily(void)
{
	char dir[] = "/tmp/test_runner.XXXXXX", db[64];
	struct toy t = { .stop_after = 20 };
	struct job_run_result r1, r2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/r.db", dir);
	CU_ASSERT_EQUAL_FATAL(toy_go(&t, 1000000000000ull, db, &r1), 0);
	CU_ASSERT(r1.n_done >= 20 && r1.n_done <= 21);
	CU_ASSERT_EQUAL(r1.n_skipped, 0);
	t.stop_after = 10;
	CU_ASSERT_EQUAL_FATAL(toy_go(&t, 1000000000000ull, db, &r2), 0);
	CU_ASSERT_EQUAL(r2.n_skipped, r1.n_done);        /* jobs 0..n-1, all found */
	CU_ASSERT(r2.n_done >= 10 && r2.n_done <= 11);
	CU_ASSERT(atomic_load(&t.max_idx) <= r1.n_done + 11);
	/* a key per job taken, and the one a stopped worker may have taken */
	CU_ASSERT(atomic_load(&t.n_keys) >= r2.n_skipped + r2.n_done);
	CU_ASSERT(atomic_load(&t.n_keys) <= r2.n_skipped + r2.n_done + 2);
	/* jobs are taken in order and every one taken finishes: jobs 0..29 at least are done */
	t.stop_after = 1000;
	CU_ASSERT_EQUAL_FATAL(toy_go(&t, 40, db, &r2), 0);
	CU_ASSERT(r2.n_skipped >= 30 && r2.n_skipped <= 32);
	CU_ASSERT_EQUAL(r2.n_done, 40 - r2.n_skipped);
	CU_ASSERT_EQUAL(atomic_load(&t.n_keys), 40);
	CU_ASSERT_FALSE(r2.interrupted);
	unlink(db);
	snprintf(db, sizeof(db), "%s/r.db-wal", dir);
	unlink(db);
	snprintf(db, sizeof(db), "%s/r.db-shm", dir);
	unlink(db);
	rmdir(dir);
}

static CU_TestInfo runner_tests[] = {
	{ "10^12 jobs streamed", test_huge_run_streams },
	{ "resume checks keys as it goes", test_resume_lazily },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "runner", .pTests = runner_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
