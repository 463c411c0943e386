/*
 * The IPU model's plan search: milliseconds per search (PopSparse's
 * exhaustive planner over P_X P_Y P_Z <= tiles and the groupings, every
 * requested pass costed per partition) for the layers of
 * examples/ipu-popsparse (the T6 layers at several batches, the skewed
 * layer), best of several rounds on one core; then a whole evaluation
 * (search, bucket sizes, partitioner on the density's draws, dense
 * baseline) of each. Usage: bench_ipu EXAMPLES_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel/ipu_int.h"
#include "job/job.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/strbuf.h"

#define ROUNDS 5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct layer {
	const char *file;
	const char *overrides[4];
};

static const struct layer layers[] = {
	{ "layer.yaml", { "ipu.layer.z=16" } },
	{ "layer.yaml", { "ipu.layer.z=1024" } },
	{ "layer.yaml", { "ipu.layer.z=1024", "ipu.layer.block_size=1" } },
	{ "layer.yaml", { "ipu.layer.z=256", "ipu.layer.dtype=float", "ipu.layer.sparsity=static" } },
	{ "layer.yaml", { "ipu.layer.z=64", "ipu.layer.passes=[fwd, grad_a, grad_w]" } },
	{ "layer.yaml", { "ipu.layer.x=8192", "ipu.layer.y=8192", "ipu.layer.z=2048",
			  "ipu.layer.block_size=1" } },
	{ "skewed.yaml", { NULL } },
};

static struct spec_set *load(const char *dir, const struct layer *l)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_load_options lo = { .kinds = job_spec_kinds() };
	struct spec_override ov[4];
	char path[4096];
	const char *paths[1] = { path };
	struct spec_set *s;
	size_t n = 0, i;

	snprintf(path, sizeof(path), "%s/%s", dir, l->file);
	for (i = 0; i < 4 && l->overrides[i]; i++)
		if (spec_override_parse(l->overrides[i], &ov[n], &dl) == 0)
			n++;
	s = spec_set_load_overrides(paths, 1, ov, n, &lo, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	for (i = 0; i < n; i++)
		spec_override_release(&ov[i]);
	return s;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_ipu EXAMPLES_DIR\n");
		return 2;
	}
	printf("%-70s %10s %10s %12s\n", "layer", "search ms", "costed", "evaluate ms");
	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct spec_set *s = load(argv[1], &layers[i]);
		struct strbuf name = STRBUF_INIT;
		struct ipu_layer L;
		struct ipu_method m;
		struct ipu_geom g;
		struct ipu_sizes z;
		struct accel_ipu_result *r = malloc(sizeof(*r));
		uint64_t bound, n_eval = 0;
		double best = 1e9, best_eval = 1e9;
		char why[256];
		unsigned k;
		size_t j;

		if (!s) {
			free(r);
			return 1;
		}
		strbuf_addstr(&name, layers[i].file);
		for (j = 0; j < 4 && layers[i].overrides[j]; j++)
			strbuf_addf(&name, " %s", layers[i].overrides[j] + strlen("ipu.layer."));
		ipu_layer_init(&L, s);
		for (k = 0; k < ROUNDS; k++) {
			double t0 = now_s(), t;
			ipu_plan_search(&L, L.l->sparsity == SPEC_IPU_STATIC, &m, &g, &z, &bound, &n_eval,
					why, sizeof(why));
			t = now_s() - t0;
			if (t < best)
				best = t;
		}
		for (k = 0; k < 2; k++) {
			double t0 = now_s(), t;
			accel_ipu_eval(s, NULL, r, NULL);
			t = now_s() - t0;
			if (t < best_eval)
				best_eval = t;
		}
		printf("%-70s %10.3f %10llu %12.1f\n", name.buf, 1e3 * best, (unsigned long long)n_eval,
		       1e3 * best_eval);
		strbuf_release(&name);
		free(r);
		spec_set_free(s);
	}
	return 0;
}
