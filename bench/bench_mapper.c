/*
 * bench_mapper: mappings evaluated per second per thread on eyeriss_like.
 *
 * Usage: bench_mapper [DATA_DIR [SEARCH_SIZE]] (DATA_DIR = tests/data).
 * Runs the same seeded search (random-pruned, no refinement, stopping at
 * SEARCH_SIZE valid mappings) on 1 thread, 2 threads and all cores, and
 * prints candidates and full model evaluations per second per thread, by
 * wall clock and by CPU time (the latter does not suffer when other jobs
 * share the cores). The searches visit the same candidates whatever the
 * thread count, so the rates compare like with like.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mapper/mapper.h"
#include "model/model.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/xalloc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds used by the process so far (every thread). */
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static struct spec_set *load(const char *dir, const char *const *names, size_t n)
{
	char paths[4][1024];
	const char *argv[4];
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/conformance/eyeriss_like/%s", dir, names[i]);
		argv[i] = paths[i];
	}
	s = spec_set_load(argv, n, NULL, &dl);
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

/* Model evaluations per second of the reference mapping, one thread. */
static void bench_model(const char *dir)
{
	static const char *const names[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	struct spec_set *s = load(dir, names, 3);
	struct model_result *r = xmalloc(sizeof(*r));
	struct model_ws *ws;
	double t0, dt;
	unsigned n = 0;

	if (!s)
		exit(1);
	ws = model_ws_new(s, NULL, NULL);
	t0 = now_s();
	do {
		model_eval(ws, s->mapping, r);
		n++;
		dt = now_s() - t0;
	} while (dt < 1.0);
	printf("model_eval of the reference mapping: %.0f evaluations/s (1 thread)\n", n / dt);
	model_ws_free(ws);
	free(r);
	spec_set_free(s);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "input.yaml", "constraints.yaml", "ERT.yaml" };
	const char *dir = argc > 1 ? argv[1] : "tests/data";
	uint64_t search_size = argc > 2 ? strtoull(argv[2], NULL, 10) : 40000;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads[3] = { 1, 2, cores > 2 ? (unsigned)cores : 0 };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load(dir, names, 3);
	struct mapper_space *ms;
	struct mapper_model_ctx mc;
	struct mapper_evaluator ev;
	struct mapper_result *r = xmalloc(sizeof(*r));
	unsigned i;

	if (!s)
		return 1;
	ms = mapper_space_new(s, NULL, &dl);
	diag_print(&dl, stderr);
	if (!ms)
		return 1;
	bench_model(dir);
	mc.spec = s;
	mc.options = NULL;
	mapper_evaluator_model(&ev, &mc);
	printf("mapper on eyeriss_like: random-pruned, %u streams, search_size %llu, no refinement\n",
	       MAPPER_DEFAULT_STREAMS, (unsigned long long)search_size);
	printf("%7s %10s %11s %8s %8s %19s %19s %17s\n", "threads", "candidates", "model evals",
	       "wall s", "cpu s", "candidates/s/thread", "model evals/s/thr.", "model evals/cpu-s");
	for (i = 0; i < 3; i++) {
		struct mapper_options o;
		double c0, c1;
		if (!threads[i])
			continue;
		mapper_options_init(&o, NULL);
		o.algorithm = SPEC_SEARCH_RANDOM_PRUNED;
		o.n_threads = threads[i];
		o.search_size = search_size;
		o.victory_condition = 0;
		o.timeout = 0;
		o.refine = 0;
		o.seed = 1;
		c0 = cpu_s();
		mapper_run(ms, &ev, &o, r);
		c1 = cpu_s() - c0;
		printf("%7u %10llu %11llu %8.3f %8.3f %19.0f %19.0f %17.0f\n", r->n_threads,
		       (unsigned long long)r->n_evaluated, (unsigned long long)r->n_model_calls,
		       r->elapsed_s, c1, r->n_evaluated / r->elapsed_s / r->n_threads,
		       r->n_model_calls / r->elapsed_s / r->n_threads, r->n_model_calls / c1);
	}
	free(r);
	mapper_space_free(ms);
	spec_set_free(s);
	diag_list_release(&dl);
	return 0;
}
