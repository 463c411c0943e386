/*
 * job/ driven directly, without cli/: model, map, validate and exec on
 * conformance cases. Each job's printed output and files must be byte for
 * byte what the 'fiberloop' command prints and writes for the same design
 * and options (the command is run through a shell), and the compact summary
 * must carry the reference's figures.
 */
#include "job/job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/job_int.h"
#include "job/kind_int.h"
#include "tests/unit.h"
#include "util/fileio.h"

static char tmpdir[256];

/* The conformance case's path "<data>/conformance/<c>/<file>" into 'buf'. */
static const char *cpath(char *buf, size_t size, const char *c, const char *file)
{
	const char *data = getenv("TEST_DATA_DIR");
	snprintf(buf, size, "%s/conformance/%s/%s", data ? data : "tests/data", c, file);
	return buf;
}

/* Run a shell command; its stdout into 'out'. Returns its exit status. */
static int run_cmd(const char *cmd, struct strbuf *out)
{
	char buf[4096];
	size_t n;
	FILE *p = popen(cmd, "r");
	int st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(out, buf, n);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The contents of file 'dir/name' equal 'want'. */
static bool file_equals(const char *dir, const char *name, const struct strbuf *want)
{
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
	char path[512];
	bool eq;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	eq = fileio_read(path, &got, &err) == 0 && got.len == want->len &&
	     !memcmp(got.buf, want->buf, got.len);
	if (!eq)
		fprintf(stderr, "\n%s differs from the job's buffer\n", path);
	strbuf_release(&got);
	strbuf_release(&err);
	return eq;
}

struct design {
	char files[3][512];
	const char *ptrs[3];
	size_t n;
};

/* input.yaml + map.yaml (or constraints.yaml for 'map') + ERT.yaml of case 'c'. */
static void design_of(struct design *d, const char *c, bool for_map)
{
	d->n = 0;
	cpath(d->files[d->n++], 512, c, "input.yaml");
	cpath(d->files[d->n++], 512, c, for_map ? "constraints.yaml" : "map.yaml");
	cpath(d->files[d->n], 512, c, "ERT.yaml");
	if (access(d->files[d->n], R_OK) == 0)
		d->n++;
	for (size_t i = 0; i < d->n; i++)
		d->ptrs[i] = d->files[i];
}

/* Load design 'd' for 'cmd' (no diagnostics expected). */
static struct spec_set *load(const struct design *d, enum job_command cmd)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_design jd = { .files = d->ptrs, .n_files = d->n, .command = cmd };
	struct spec_set *s = job_load(&jd, &dl);

	CU_ASSERT_FALSE(diag_has_errors(&dl));
	diag_list_release(&dl);
	return s;
}

/* "fiberloop ARGS FILES" as a shell command line. */
static void command_line(struct strbuf *cmd, const char *args, const struct design *d)
{
	const char *fl = getenv("FIBERLOOP");
	strbuf_addf(cmd, "'%s' %s", fl ? fl : "./fiberloop", args);
	for (size_t i = 0; i < d->n; i++)
		strbuf_addf(cmd, " '%s'", d->files[i]);
	strbuf_addstr(cmd, " 2>/dev/null");
}

/* The number after "label: " in the summary of the case's ref.stats.txt, or NAN. */
static double ref_value(const char *c, const char *label)
{
	char path[512], line[512];
	size_t n = strlen(label);
	double x = NAN;
	FILE *fp;

	cpath(path, sizeof(path), c, "ref.stats.txt");
	fp = fopen(path, "r");
	if (!fp)
		return NAN;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, label, n) && line[n] == ':')
			x = atof(line + n + 1);
	fclose(fp);
	return x;
}

/* ---------------------------------------------------------------- model */

static void test_model(void)
{
	static const char *const cases[] = { "simple_weight_stationary", "01.2.3-SCDU-dot-product",
					     "04.2.1-eyeriss-like-gating" };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct design d;
		struct job_options o;
		struct job_summary sum;
		struct job_outputs out;
		struct strbuf cmd = STRBUF_INIT, printed = STRBUF_INIT;
		char dir[320], args[400];
		struct spec_set *s;

		design_of(&d, cases[k], false);
		s = load(&d, JOB_MODEL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		job_options_init(&o, JOB_MODEL);
		o.want = JOB_WANT_PRINT | JOB_WANT_FILES;
		o.files = d.ptrs;
		o.n_files = d.n;
		job_outputs_init(&out);
		CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
		/* the summary carries Timeloop's figures */
		CU_ASSERT_DOUBLE_EQUAL(job_summary_count(&sum, JOB_METRIC_CYCLES),
				       ref_value(cases[k], "Cycles"), 0.5);
		CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ) * 1e-6,
				       ref_value(cases[k], "Energy"),
				       0.006 * fabs(ref_value(cases[k], "Energy")) + 0.01);
		/* a part per level, then one per tensor ("tensor.NAME"), the accesses' share */
		CU_ASSERT(sum.n_levels == s->arch.n_levels + s->workload.n_tensors);
		if (sum.n_levels == s->arch.n_levels + s->workload.n_tensors) {
			double levels = 0, tensors = 0;
			for (unsigned l = 0; l < sum.n_levels; l++) {
				bool t = !strncmp(job_summary_level_name(&sum, l), "tensor.", 7);
				CU_ASSERT_EQUAL(t, l >= s->arch.n_levels);
				if (t)
					CU_ASSERT_STRING_EQUAL(job_summary_level_name(&sum, l) + 7,
						s->workload.tensors[l - s->arch.n_levels].name);
				*(t ? &tensors : &levels) += sum.level_energy_pj[l];
			}
			/* the levels' energies also hold their networks and leakage */
			CU_ASSERT(tensors <= levels * (1 + 1e-9) && tensors >= 0.5 * levels);
		}
		CU_ASSERT(strstr(sum.mapping, s->arch.levels[s->arch.n_levels - 1].name) ==
			  sum.mapping);
		/* the command prints and writes the same bytes */
		snprintf(dir, sizeof(dir), "%s/model-%zu", tmpdir, k);
		snprintf(args, sizeof(args), "model -o '%s'", dir);
		command_line(&cmd, args, &d);
		CU_ASSERT_EQUAL(run_cmd(cmd.buf, &printed), 0);
		CU_ASSERT(printed.len == out.print.len &&
			  !memcmp(printed.buf, out.print.buf, printed.len));
		CU_ASSERT_EQUAL(out.n_files, 3);
		for (size_t i = 0; i < out.n_files; i++)
			CU_ASSERT(file_equals(dir, out.file_names[i], &out.files[i]));
		job_outputs_release(&out);
		strbuf_release(&cmd);
		strbuf_release(&printed);
		spec_set_free(s);
	}
}

/* An infeasible mapping: the status, the reason, no output. */
static void test_model_infeasible(void)
{
	const char *data = getenv("TEST_DATA_DIR");
	char file[512];
	const char *files[1] = { file };
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_design jd = { .files = files, .n_files = 1, .command = JOB_MODEL };
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;
	struct spec_set *s;

	snprintf(file, sizeof(file), "%s/model/infeasible.yaml", data ? data : "tests/data");
	s = job_load(&jd, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	job_options_init(&o, JOB_MODEL);
	o.want = JOB_WANT_PRINT | JOB_WANT_FILES;
	o.energy_preset = "accelergy45";   /* the design names no technology */
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_INFEASIBLE);
	CU_ASSERT_STRING_EQUAL(sum.error, "infeasible mapping (over-capacity): tiles at 'RF' need "
			       "49 words (the largest, 'Weights', 48), it holds 16");
	CU_ASSERT_EQUAL(out.print.len, 0);
	CU_ASSERT_EQUAL(out.n_files, 0);
	job_outputs_release(&out);
	diag_list_release(&dl);
	spec_set_free(s);
}

/* ------------------------------------------------------------------ map */

static void test_map(void)
{
	struct design d;
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;
	struct strbuf cmd = STRBUF_INIT, printed = STRBUF_INIT;
	char dir[320], args[400];
	struct spec_set *s;

	design_of(&d, "simple_weight_stationary", true);
	s = load(&d, JOB_MAP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	job_options_init(&o, JOB_MAP);
	o.want = JOB_WANT_FILES;
	o.files = d.ptrs;
	o.n_files = d.n;
	o.has_seed = true;
	o.seed = 7;
	o.map.has_search_size = o.map.has_threads = true;
	o.map.search_size = 300;
	o.map.threads = 2;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT(job_summary_count(&sum, JOB_METRIC_N_VALID) >= 300);
	CU_ASSERT(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ) > 0 &&
		  job_summary_count(&sum, JOB_METRIC_CYCLES) > 0);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_EDP_J_CYCLES),
			       job_summary_real(&sum, JOB_METRIC_ENERGY_PJ) * 1e-12 *
			       (double)job_summary_count(&sum, JOB_METRIC_CYCLES),
			       1e-9 * job_summary_real(&sum, JOB_METRIC_EDP_J_CYCLES));
	CU_ASSERT_EQUAL(out.n_files, 4);
	CU_ASSERT_STRING_EQUAL(out.file_names[0], "fiberloop-mapper.map.yaml");
	/* the same search from the command writes the same four files */
	snprintf(dir, sizeof(dir), "%s/map", tmpdir);
	snprintf(args, sizeof(args), "map --seed=7 --search-size 300 --threads=2 -o '%s'", dir);
	command_line(&cmd, args, &d);
	CU_ASSERT_EQUAL(run_cmd(cmd.buf, &printed), 0);
	for (size_t i = 0; i < out.n_files; i++)
		CU_ASSERT(file_equals(dir, out.file_names[i], &out.files[i]));
	job_outputs_release(&out);
	strbuf_release(&cmd);
	strbuf_release(&printed);
	spec_set_free(s);
}

/* ------------------------------------------------------------- validate */

static void test_validate(void)
{
	static const struct {
		const char *c;
		unsigned seeds;
	} cases[] = { { "01.2.1-DUDU-dot-product", 30 }, { "02.2.1-spMspM", 4 } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct design d;
		struct job_options o;
		struct job_summary sum;
		struct job_outputs out;
		struct strbuf cmd = STRBUF_INIT, printed = STRBUF_INIT;
		char args[64];
		struct spec_set *s;

		design_of(&d, cases[k].c, false);
		s = load(&d, JOB_VALIDATE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		job_options_init(&o, JOB_VALIDATE);
		o.seeds = cases[k].seeds;
		job_outputs_init(&out);
		CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
		CU_ASSERT(sum.n_fields > 10);
		CU_ASSERT_EQUAL(sum.n_outside, 0);
		snprintf(args, sizeof(args), "validate --seeds %u", cases[k].seeds);
		command_line(&cmd, args, &d);
		CU_ASSERT_EQUAL(run_cmd(cmd.buf, &printed), 0);
		CU_ASSERT(printed.len == out.print.len &&
			  !memcmp(printed.buf, out.print.buf, printed.len));
		job_outputs_release(&out);
		strbuf_release(&cmd);
		strbuf_release(&printed);
		spec_set_free(s);
	}
}

/* ----------------------------------------------------------------- exec */

static void test_exec(void)
{
	struct design d;
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;
	struct strbuf cmd = STRBUF_INIT, printed = STRBUF_INIT;
	struct spec_set *s;

	design_of(&d, "02.2.1-spMspM", false);
	s = load(&d, JOB_EXEC);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	job_options_init(&o, JOB_EXEC);
	o.format = JOB_FORMAT_JSON;
	o.seed = 3;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_ALGORITHMIC_COMPUTES), 512);   /* 8^3 */
	CU_ASSERT(job_summary_count(&sum, JOB_METRIC_ACTUAL_COMPUTES) <
		  job_summary_count(&sum, JOB_METRIC_ALGORITHMIC_COMPUTES));
	/* the executor gives no energy nor cycles: they are missing, not 0 */
	CU_ASSERT(!job_summary_has(&sum, JOB_METRIC_ENERGY_PJ));
	CU_ASSERT(!job_summary_has(&sum, JOB_METRIC_CYCLES));
	CU_ASSERT(strstr(out.print.buf, "\"seed\": 3,") != NULL);
	command_line(&cmd, "exec --seed=3 --format=json", &d);
	CU_ASSERT_EQUAL(run_cmd(cmd.buf, &printed), 0);
	CU_ASSERT(printed.len == out.print.len && !memcmp(printed.buf, out.print.buf, printed.len));
	job_outputs_release(&out);
	strbuf_release(&cmd);
	strbuf_release(&printed);
	spec_set_free(s);
}

/*
 * A network's row: the area is the design's, kept only when every layer
 * gives the same one (JOB_AGG_SAME); energies add up beside it.
 */
static void test_area_combines(void)
{
	static const struct {
		double area[3];           /* 0: the layer gives none */
		size_t n;
		bool has;
		double want;
	} cases[] = {
		{ { 1253568.5, 1253568.5, 1253568.5 }, 3, true, 1253568.5 },
		{ { 42, 0, 0 }, 1, true, 42 },
		{ { 1253568.5, 1253568.75, 0 }, 2, false, 0 },      /* two designs: no area */
		{ { 1253568.5, 0, 1253568.5 }, 3, false, 0 },       /* a layer without one */
	};
	static const char *const names[] = { "l0", "l1", "l2" };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct job_summary *sums = calloc(3, sizeof(*sums)), t;
		const struct job_summary *ptrs[3];
		for (size_t i = 0; i < cases[k].n; i++) {
			struct job_metric_value v = { 1000.0 * (double)(i + 1), 0, NULL, "" };
			sums[i].status = JOB_OK;
			job_summary_set(&sums[i], JOB_METRIC_ENERGY_PJ, &v);
			v.real = cases[k].area[i];
			if (v.real > 0)
				job_summary_set(&sums[i], JOB_METRIC_AREA_UM2, &v);
			ptrs[i] = &sums[i];
		}
		job_net_total(ptrs, names, cases[k].n, &t);
		CU_ASSERT_EQUAL(t.status, JOB_OK);
		CU_ASSERT_EQUAL(job_summary_has(&t, JOB_METRIC_AREA_UM2), cases[k].has);
		CU_ASSERT_EQUAL(job_summary_real(&t, JOB_METRIC_AREA_UM2), cases[k].want);
		CU_ASSERT_EQUAL(job_summary_real(&t, JOB_METRIC_ENERGY_PJ),
				500.0 * (double)(cases[k].n * (cases[k].n + 1)));
		free(sums);
	}
	CU_ASSERT_EQUAL(job_metric_get(JOB_METRIC_AREA_UM2)->agg, JOB_AGG_SAME);
	CU_ASSERT_EQUAL(job_metric_get(JOB_METRIC_AREA_UM2)->better, JOB_BETTER_LOWER);
	CU_ASSERT_STRING_EQUAL(job_metric_get(JOB_METRIC_AREA_UM2)->unit, "um^2");
	CU_ASSERT(job_kind_provides("timeloop", JOB_METRIC_AREA_UM2));
	CU_ASSERT(!job_kind_provides("ipu", JOB_METRIC_AREA_UM2));
}

/* The summary of a job stays small enough to keep one per sweep point. */
static void test_summary_size(void)
{
	CU_ASSERT(sizeof(struct job_summary) < 16384);
}

static int setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_job.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static CU_TestInfo job_tests[] = {
	{ "model: summary and outputs equal the command's", test_model },
	{ "model: an infeasible mapping", test_model_infeasible },
	{ "map: the command writes the job's files", test_map },
	{ "validate: the command prints the job's table", test_validate },
	{ "exec: --seed=3 --format=json", test_exec },
	{ "a network's area: the layers' common one", test_area_combines },
	{ "summary under 16 KiB", test_summary_size },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "job", .pInitFunc = setup, .pCleanupFunc = teardown, .pTests = job_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
