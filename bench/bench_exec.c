/*
 * Executor speed: counted events (tile deliveries and computes) per second
 * and wall time per design, for the executor alone (no parsing, no
 * printing), best of a few runs. Usage: bench_exec CORPUS_DIR [CASE...]
 * (default cases: eyeriss_like simple_weight_stationary 02.2.1-spMspM).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"
#include "specs/spec.h"
#include "util/diag.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct spec_set *load(const char *dir, const char *name)
{
	char in[2048], map[2048];
	const char *paths[2] = { in, map };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	snprintf(in, sizeof(in), "%s/%s/input.yaml", dir, name);
	snprintf(map, sizeof(map), "%s/%s/map.yaml", dir, name);
	s = spec_set_load(paths, 2, NULL, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

/* Run the executor a few times (at least 3, at most ~2 s); print the best. */
static int bench_case(const char *name, const struct spec_set *s)
{
	struct exec_options opt = EXEC_OPTIONS_INIT;
	double best = -1, spent = 0;
	uint64_t events = 0, macs = 0;
	int round;

	for (round = 0; round < 3 || (spent < 2 && round < 20); round++) {
		struct exec_result r;
		double t0 = now_s(), t;
		opt.seed = (uint64_t)round + 1;
		if (exec_run(s, &opt, &r) < 0) {
			fprintf(stderr, "%s: %s\n", name, r.reason);
			exec_result_release(&r);
			return -1;
		}
		t = now_s() - t0;
		spent += t;
		events = r.n_events;
		macs = r.computes;
		exec_result_release(&r);
		if (best < 0 || t < best)
			best = t;
	}
	printf("%-28s %12llu MACs %12llu events %8.3f s %10.2f Mevents/s\n", name,
	       (unsigned long long)macs, (unsigned long long)events, best,
	       (double)events / best / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "eyeriss_like", "simple_weight_stationary",
						"02.2.1-spMspM" };
	const char *const *cases = defaults;
	int n = 3, i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_exec CORPUS_DIR [CASE...]\n");
		return 2;
	}
	if (argc > 2) {
		cases = (const char *const *)argv + 2;
		n = argc - 2;
	}
	printf("Executor (one core; best of several runs, numeric check included)\n");
	for (i = 0; i < n; i++) {
		struct spec_set *s = load(argv[1], cases[i]);
		if (!s || bench_case(cases[i], s) < 0)
			rc = 1;
		spec_set_free(s);
	}
	return rc;
}
