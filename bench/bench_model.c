/*
 * Model evaluations per second: the evaluation alone (no parsing, no
 * printing) of each design's mapping, on one core, after a warm-up. Usage: bench_model [--walk] CORPUS_DIR
 * [CASE...] (default cases: eyeriss_like simba_like, and the sparse
 * 04.2.1-eyeriss-like-gating; --walk also times the general nest walk that
 * imperfect factorizations use).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * Evaluate the mapping of 's' repeatedly and print evaluations per second:
 * the best of several rounds of about 0.2 s, so that a busy machine (other
 * jobs on the same core) disturbs the figure as little as possible.
 */
static int bench_case(const char *name, const struct spec_set *s, bool walk)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct model_result *r = xmalloc(sizeof(*r));
	struct model_ws *ws;
	struct strbuf err = STRBUF_INIT;
	double best = 0, total_t = 0;
	long total_n = 0, i, round;

	opt.no_fast_path = walk;
	ws = model_ws_new(s, &opt, &err);
	if (!ws) {
		fprintf(stderr, "%s: %s\n", name, err.buf);
		free(r);
		return -1;
	}
	for (i = 0; i < 1000; i++)
		model_eval(ws, s->mapping, r);
	for (round = 0; round < 8; round++) {
		double t0 = now_s(), t;
		long n = 0;
		do {
			for (i = 0; i < 64; i++)
				model_eval(ws, s->mapping, r);
			n += 64;
			t = now_s() - t0;
		} while (t < 0.2);
		if ((double)n / t > best)
			best = (double)n / t;
		total_n += n;
		total_t += t;
	}
	printf("%-24s %-5s %12.0f evaluations/s  (best of 8 rounds; mean %.0f/s; %.2f us each;"
	       " energy %.2f uJ)\n", name, walk ? "walk" : "fast", best,
	       (double)total_n / total_t, 1e6 / best, r->energy_pj / 1e6);
	model_ws_free(ws);
	free(r);
	return 0;
}

static int run_case(const char *dir, const char *name, bool also_walk)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	char paths[4][1024];
	const char *pp[4];
	struct spec_load_options lo = { .require_mapping = true };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	int i, rc;

	for (i = 0; i < 4; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s/%s", dir, name, files[i]);
		pp[i] = paths[i];
	}
	s = spec_set_load(pp, 4, &lo, &dl);
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	if (!s)
		return -1;
	rc = bench_case(name, s, false);
	if (rc == 0 && also_walk)
		rc = bench_case(name, s, true);
	spec_set_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "eyeriss_like", "simba_like",
						"04.2.1-eyeriss-like-gating" };
	bool walk = argc > 1 && !strcmp(argv[1], "--walk");
	int i, rc = 0;

	if (walk) {
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: bench_model [--walk] CORPUS_DIR [CASE...]\n");
		return 2;
	}
	if (argc == 2) {
		for (i = 0; i < (int)(sizeof(defaults) / sizeof(defaults[0])); i++)
			rc |= run_case(argv[1], defaults[i], walk);
	} else {
		for (i = 2; i < argc; i++)
			rc |= run_case(argv[1], argv[i], walk);
	}
	return rc ? 1 : 0;
}
