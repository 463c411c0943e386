/*
 * Spec sets per second for one design (default eyeriss_like: input, map,
 * ERT): spec_set_load() (read, parse and check the files), spec_set_build()
 * from one parsed source with one override (what a sweep does per point),
 * and that build plus a model workspace and one evaluation (a whole sweep
 * point). One core, best of several rounds of about 0.2 s.
 * Usage: bench_specs CORPUS_DIR [CASE [PATH=VALUE]]
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

#define ROUNDS 6

struct ctx {
	const char *const *paths;
	size_t n_paths;
	const struct spec_source *src;
	const struct spec_override *ov;
	struct model_result *r;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One spec_set_load(); false on a failure. */
static bool do_load(struct ctx *c)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_load(c->paths, c->n_paths, NULL, &dl);
	spec_set_free(s);
	diag_list_release(&dl);
	return s != NULL;
}

/* One spec_set_build() with the override. */
static bool do_build(struct ctx *c)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_build(c->src, c->ov, 1, NULL, &dl);
	spec_set_free(s);
	diag_list_release(&dl);
	return s != NULL;
}

/* One sweep point: build, a model workspace for the set, one evaluation. */
static bool do_point(struct ctx *c)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_build(c->src, c->ov, 1, NULL, &dl);
	struct model_ws *ws = NULL;
	struct strbuf err = STRBUF_INIT;
	bool ok = s && s->has_mapping && (ws = model_ws_new(s, &opt, &err));

	if (ok)
		model_eval(ws, s->mapping, c->r);
	model_ws_free(ws);
	spec_set_free(s);
	diag_list_release(&dl);
	return ok;
}

/* Run 'fn' in rounds and print its best rate. */
static int measure(const char *what, bool (*fn)(struct ctx *), struct ctx *c)
{
	double best = 0;
	int round;

	if (!fn(c)) {
		fprintf(stderr, "bench_specs: %s failed\n", what);
		return -1;
	}
	for (round = 0; round < ROUNDS; round++) {
		double t0 = now_s(), t;
		long n = 0;
		do {
			fn(c);
			n++;
			t = now_s() - t0;
		} while (t < 0.2);
		if ((double)n / t > best)
			best = (double)n / t;
	}
	printf("  %-44s %10.0f /s  (%.1f us each)\n", what, best, 1e6 / best);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	const char *name = argc > 2 ? argv[2] : "eyeriss_like";
	const char *set = argc > 3 ? argv[3] :
		"architecture.subtree[0].local[name=shared_glb].attributes.read_bandwidth=32";
	char paths[3][1024];
	const char *pp[3];
	struct spec_override ov = SPEC_OVERRIDE_INIT;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = spec_source_new();
	struct ctx c;
	size_t i;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_specs CORPUS_DIR [CASE [PATH=VALUE]]\n");
		return 2;
	}
	for (i = 0; i < 3; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s/%s", argv[1], name, files[i]);
		pp[i] = paths[i];
		spec_source_add_file(src, pp[i], &dl);
	}
	spec_override_parse(set, &ov, &dl);
	diag_print(&dl, stderr);
	if (diag_has_errors(&dl))
		return 1;
	c = (struct ctx){ pp, 3, src, &ov, xmalloc(sizeof(*c.r)) };
	printf("%s, --set '%s':\n", name, set);
	rc |= measure("spec_set_load (read, parse, check)", do_load, &c);
	rc |= measure("spec_set_build from a source, one override", do_build, &c);
	rc |= measure("build + model workspace + one evaluation", do_point, &c);
	free(c.r);
	spec_override_release(&ov);
	spec_source_free(src);
	diag_list_release(&dl);
	return rc ? 1 : 0;
}
