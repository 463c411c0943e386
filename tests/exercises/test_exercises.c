/*
 * The Timeloop exercises as users have them (tests/data/exercises): every
 * example design through its Jinja2 entry point top.yaml.jinja2 (loaded,
 * then mapped with a small search of perfect factors), the sparseloop designs' own mappings
 * (modelled: their container levels completed as the front end does), the
 * 2024 tutorial's top.yaml.jinja, and every layer shape of layer_shapes/
 * on eyeriss_like (the matrix multiplies on sparseloop/02.2.1-spMspM),
 * all through one Jinja2 helper. Skipped (77) without Python 3 and Jinja2.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/job.h"
#include "specs/spec.h"
#include "tests/unit.h"

static struct spec_jinja *J;
static char ex[4096];      /* tests/data/exercises */

static const char *const designs[] = {
	"eyeriss_like", "simba_like", "simple_output_stationary", "simple_weight_stationary",
	"sparse_tensor_core_like", "sparseloop/01.2.1-DUDU-dot-product",
	"sparseloop/01.2.2-SUDU-dot-product", "sparseloop/01.2.3-SCDU-dot-product",
	"sparseloop/02.2.1-spMspM", "sparseloop/02.2.2-spMspM-tiled", "sparseloop/03.2.1-conv1d",
	"sparseloop/03.2.2-conv1d+oc", "sparseloop/03.2.3-conv1d+oc-spatial",
	"sparseloop/04.2.1-eyeriss-like-gating",
	"sparseloop/04.2.2-eyeriss-like-gating-mapspace-search",
	"sparseloop/04.2.3-eyeriss-like-onchip-compression",
};

/* Load 'files' with the Jinja2 variables vars[0..n_vars); print the diagnostics of a failure. */
static struct spec_set *load(const char *const *files, size_t n_files, const char *const *vars,
			     size_t n_vars, bool require_mapping)
{
	struct spec_load_options opt;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	memset(&opt, 0, sizeof(opt));
	opt.template_vars = vars;
	opt.n_template_vars = n_vars;
	opt.jinja = J;
	opt.require_mapping = require_mapping;
	s = spec_set_load(files, n_files, &opt, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

/* Run 'cmd' (map: a short single-threaded search) and require a result. */
/* Run 'cmd' on 's'; 'preset': an energy preset, or NULL for the estimate. */
static void run(const struct spec_set *s, enum job_command cmd, const char *what,
		const char *preset)
{
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;
	enum job_status st;

	job_options_init(&o, cmd);
	o.energy_preset = preset;
	o.want = JOB_WANT_PRINT;
	o.map.has_threads = true;
	o.map.threads = 1;
	o.map.has_search_size = true;
	o.map.search_size = 100;
	o.map.has_timeout = true;
	o.map.timeout = 1000;
	/* perfect factors only: 04.2.2's and 04.2.3's 13 x 13 maps would search imperfect
	   ones by default, whose exact walks make this small search take minutes (the mapper's
	   tests cover imperfect factors) */
	o.map.has_imperfect = true;
	o.map.imperfect = SPEC_IMPERFECT_OFF;
	job_outputs_init(&out);
	st = job_run(s, &o, &sum, &out);
	if (st != JOB_OK || !(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ) > 0))
		fprintf(stderr, "%s: %s: %s\n", what, job_status_name(st), sum.error);
	CU_ASSERT_EQUAL(st, JOB_OK);
	CU_ASSERT_TRUE(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ) > 0);
	job_outputs_release(&out);
}

static void test_designs(void)
{
	char top[4200], var[256];
	const char *files[1] = { top }, *vars[1] = { var };
	size_t i;

	snprintf(top, sizeof(top), "%s/example_designs/example_designs/top.yaml.jinja2", ex);
	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		struct spec_set *s;
		snprintf(var, sizeof(var), "architecture=%s", designs[i]);
		s = load(files, 1, vars, 1, false);
		if (!s)
			fprintf(stderr, "%s did not load\n", designs[i]);
		CU_ASSERT_PTR_NOT_NULL(s);
		if (s)
			run(s, JOB_MAP, designs[i], NULL);
		spec_set_free(s);
	}
}

/* The sparseloop designs with their own mapping.yaml: a mapping, not constraints. */
static void test_own_mappings(void)
{
	char paths[3][4200];
	const char *files[3] = { paths[0], paths[1], paths[2] };
	size_t i, n = 0;
	struct stat st;

	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		const char *d = designs[i];
		struct spec_set *s;
		snprintf(paths[2], sizeof(paths[2]), "%s/example_designs/example_designs/%s/mapping.yaml",
			 ex, d);
		if (stat(paths[2], &st) < 0)
			continue;
		snprintf(paths[0], sizeof(paths[0]), "%s/example_designs/example_designs/%s/arch.yaml",
			 ex, d);
		snprintf(paths[1], sizeof(paths[1]), "%s/example_designs/example_designs/%s/problem.yaml",
			 ex, d);
		s = load(files, 3, NULL, 0, true);
		CU_ASSERT_PTR_NOT_NULL(s);
		if (s)
			run(s, JOB_MODEL, d, "accelergy45");   /* arch.yaml alone: no classes */
		spec_set_free(s);
		n++;
	}
	CU_ASSERT_EQUAL(n, 9);
}

static void test_tutorial(void)
{
	static const char *const no_reg[] = { "reg_enabled=false" };
	char top[4200];
	const char *files[1] = { top };
	struct spec_set *s;

	snprintf(top, sizeof(top), "%s/tutorial_exercises/02_interface_and_design_space_exploration_2024/"
		 "top.yaml.jinja", ex);
	s = load(files, 1, NULL, 0, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->arch.n_levels, 4);      /* DRAM, buffer, the PE container, reg */
	run(s, JOB_MAP, "tutorial", NULL);
	spec_set_free(s);
	s = load(files, 1, no_reg, 1, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->arch.n_levels, 3);
	run(s, JOB_MAP, "tutorial without reg", NULL);
	spec_set_free(s);
}

struct tally {
	const char *top, *arch;
	unsigned every;            /* load one shape in 'every' (1: all) */
	unsigned seen, ok, failed;
};

/* Load the layer shape 'path' on t->arch. */
static void load_layer(struct tally *t, const char *path)
{
	char v1[256], v2[4300];
	const char *vars[2] = { v1, v2 }, *files[1] = { t->top };
	struct spec_set *s;

	snprintf(v1, sizeof(v1), "architecture=%s", t->arch);
	snprintf(v2, sizeof(v2), "problem=%s", path);
	s = load(files, 1, vars, 2, false);
	if (s) {
		t->ok++;
	} else {
		t->failed++;
		fprintf(stderr, "layer %s on %s did not load\n", path, t->arch);
	}
	spec_set_free(s);
}

/* Every layer shape under 'dir' (MM/ only when 'mm'). */
static void walk(struct tally *t, const char *dir, bool mm)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		CU_FAIL("cannot open a layer_shapes folder");
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char path[4200];
		struct stat st;
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "problem_base.yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (mm == !strcmp(e->d_name, "MM") || strstr(dir, "/MM"))
				walk(t, path, mm);
		} else if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml") && mm == !!strstr(dir, "/MM")) {
			if (t->seen++ % t->every == 0)
				load_layer(t, path);
		}
	}
	closedir(d);
}

static void test_layers(void)
{
	char top[4200], dir[4200];
	/* Under the sanitizers (quickstart.sh sanitize sets FL_SANITIZED) one convolution shape in
	   eight: the same loader paths, an eighth of the renders under ASan's cost; the plain
	   suite loads all 1360. */
	unsigned every = getenv("FL_SANITIZED") ? 8 : 1;
	struct tally conv = { top, "eyeriss_like", every, 0, 0, 0 },
		mm = { top, "sparseloop/02.2.1-spMspM", 1, 0, 0, 0 };

	snprintf(top, sizeof(top), "%s/example_designs/example_designs/top.yaml.jinja2", ex);
	snprintf(dir, sizeof(dir), "%s/example_designs/layer_shapes", ex);
	walk(&conv, dir, false);
	walk(&mm, dir, true);
	printf("\nlayer shapes: %u loaded on eyeriss_like, %u on spMspM; %u failed\n", conv.ok, mm.ok,
	       conv.failed + mm.failed);
	CU_ASSERT_EQUAL(conv.seen, 1360);
	CU_ASSERT_EQUAL(conv.ok, (1360 + every - 1) / every);
	CU_ASSERT_EQUAL(mm.ok, 3);
	CU_ASSERT_EQUAL(conv.failed + mm.failed, 0);
}

static CU_TestInfo exercise_tests[] = {
	{ "example designs through top.yaml.jinja2", test_designs },
	{ "sparseloop designs with their own mappings", test_own_mappings },
	{ "the 2024 tutorial", test_tutorial },
	{ "every layer shape", test_layers },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "exercises", .pTests = exercise_tests },
	CU_SUITE_INFO_NULL,
};

/* True when the helper renders a template (Python 3 and Jinja2 are there). */
static bool have_jinja(void)
{
	char top[4200];
	const char *files[1] = { top }, *vars[1] = { "architecture=eyeriss_like" };
	struct spec_load_options opt;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	bool ok;

	snprintf(top, sizeof(top), "%s/example_designs/example_designs/top.yaml.jinja2", ex);
	memset(&opt, 0, sizeof(opt));
	opt.template_vars = vars;
	opt.n_template_vars = 1;
	opt.jinja = J;
	s = spec_set_load(files, 1, &opt, &dl);
	ok = s != NULL;
	if (!ok && dl.n && strstr(dl.items[0].message, "cannot be rendered"))
		fprintf(stderr, "skipped: %s\n", dl.items[0].message);
	else
		ok = true;     /* another failure: let the tests show it */
	spec_set_free(s);
	diag_list_release(&dl);
	return ok;
}

int main(void)
{
	int rc;
	snprintf(ex, sizeof(ex), "%s", unit_data_path("exercises"));
	J = spec_jinja_new(NULL, NULL);
	if (!have_jinja()) {
		spec_jinja_free(J);
		return 77;
	}
	rc = unit_main(suites);
	spec_jinja_free(J);
	return rc;
}
