/*
 * The cost of one evaluation through libfiberloop's API, the yardstick of the
 * Python package's (bench/bench_python.py makes the same calls from Python):
 * fiberloop_run() of "model" without the JSON document on a design loaded
 * once, one metric read, the result freed. Prints the best of 8 rounds of
 * about 0.2 s of the process's CPU time (not wall time: the figure must hold
 * on a machine shared with other jobs) as microseconds per evaluation.
 * Usage: bench_lib FILE... (bench/python-acceptance.sh runs it).
 */
#include <stdio.h>
#include <time.h>

#include "lib/fiberloop.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One evaluation, as the Python package's spec.model(detail=False).energy_pj. */
static double eval_once(fiberloop_spec *spec, fiberloop_options *o, size_t m)
{
	fiberloop_error *err = NULL;
	fiberloop_result *r = fiberloop_run(spec, o, &err);
	double e;

	if (!r) {
		fputs(err ? fiberloop_error_text(err) : "no result\n", stderr);
		fiberloop_error_free(err);
		return -1;
	}
	e = fiberloop_result_real(r, m);
	fiberloop_result_free(r);
	return e;
}

int main(int argc, char **argv)
{
	fiberloop_spec *spec = fiberloop_spec_new();
	fiberloop_error *err = NULL;
	fiberloop_options *o = NULL;
	double best = 1e30, sink = 0;
	size_t m = (size_t)fiberloop_metric_find("energy_pj");
	int i, round, rc = 1;

	for (i = 1; i < argc; i++)
		if (fiberloop_spec_add_file(spec, argv[i], &err) < 0)
			goto out;
	if (!(o = fiberloop_options_new("model", &err)) ||
	    fiberloop_options_set(o, "document", "none", &err) < 0)
		goto out;
	for (i = 0; i < 200; i++)                       /* warm-up */
		if (eval_once(spec, o, m) < 0)
			goto out;
	for (round = 0; round < 8; round++) {
		double t0 = now_s(), t;
		long n = 0;

		do {
			for (i = 0; i < 16; i++)
				sink += eval_once(spec, o, m);
			n += 16;
			t = now_s() - t0;
		} while (t < 0.2);
		if (t / (double)n < best)
			best = t / (double)n;
	}
	printf("c_us_per_eval %.3f (energy_pj %.17g)\n", best * 1e6, sink > 0 ? eval_once(spec, o, m) : 0);
	rc = 0;
out:
	if (err) {
		fputs(fiberloop_error_text(err), stderr);
		fiberloop_error_free(err);
	}
	fiberloop_options_free(o);
	fiberloop_spec_free(spec);
	return rc;
}
