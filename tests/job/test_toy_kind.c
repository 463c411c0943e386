/*
 * Adding a kind of design touches its own files and one row of the
 * registry: this program is such a kind, 'toy' (a design of N operations
 * at E pJ each), compiled into the test alone. Its files are this one (its
 * loader, runner, writers and metrics) and tests/job/toy_kinds.c, the
 * registry's table with one more line (checked below against job/kinds.c).
 * With it: the loader knows the 'toy' key and refuses it beside Timeloop's
 * sections, job_run() runs it, 'check' prints it, 'map' is refused with its
 * reason, its own command is a command of sweep and batch, its metrics are
 * the vocabulary's (the others NULL), and a sweep of it fills the results
 * database.
 */
#include "job/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job/kind_int.h"
#include "specs/specs_int.h"
#include "tests/unit.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/table.h"

/* ------------------------------------------------------------- the kind */

/* What a 'toy' design says. */
struct toy {
	uint64_t ops;
	double pj_per_op;
};

/* toy: {ops: N, pj_per_op: E} */
static int toy_load(struct ld *ld)
{
	static const char *const keys[] = { "ops", "pj_per_op" };
	const struct ld_top *top = ld_top_get(ld, "toy");
	const struct ysrc_node *n = top->values[0], *v;
	struct kpath p = KP_KEY(NULL, "toy"), ko = KP_KEY(&p, "ops"), ke = KP_KEY(&p, "pj_per_op");
	struct toy *t = arena_calloc(ld->a, 1, sizeof(*t));
	int rc = 0;

	if (ld_want_map(ld, n, &p) < 0)
		return -1;
	if (ld_check_keys(ld, n, &p, keys, 2))
		rc = -1;
	if (!(v = ld_get(n, "ops")))
		rc = ld_error(ld, top->keys[0], &p, "a toy design needs 'ops'");
	else if (ld_uint(ld, v, &ko, 1, UINT32_MAX, &t->ops) < 0)
		rc = -1;
	t->pj_per_op = 1;
	if ((v = ld_get(n, "pj_per_op")) && ld_double(ld, v, &ke, 0, 1e6, &t->pj_per_op) < 0)
		rc = -1;
	if (rc == 0)
		ld->s->design = t;
	return rc;
}

static const struct spec_kind spec_kind_toy = { "toy", "toy", NULL, toy_load };

/* What the toy model gives. */
struct toy_result {
	uint64_t cycles;
	double energy_pj;
};

JOB_GET_COUNT(toy_cycles, struct toy_result, r->cycles)
JOB_GET_REAL(toy_energy, struct toy_result, r->energy_pj)
JOB_GET_REAL(toy_edp, struct toy_result, r->energy_pj * 1e-12 * (double)r->cycles)

static const struct job_metric_get toy_gets[] = {
	{ JOB_METRIC_CYCLES, toy_cycles },
	{ JOB_METRIC_ENERGY_PJ, toy_energy },
	{ JOB_METRIC_EDP_J_CYCLES, toy_edp },
};

static const struct job_metric_set toy_metrics = {
	"struct toy_result", JOB_MODEL_COMMANDS, false, toy_gets, 3, NULL,
};

static void toy_text(const struct spec_set *s, const void *r_, const struct job_options *o,
		     struct strbuf *out)
{
	const struct toy_result *r = r_;
	(void)s;
	(void)o;
	strbuf_addf(out, "toy: %llu cycles, %g pJ\n", (unsigned long long)r->cycles, r->energy_pj);
}

static void toy_json(const struct spec_set *s, const void *r_, const struct job_options *o,
		     struct strbuf *out)
{
	const struct toy_result *r = r_;
	struct json_writer w;
	(void)s;
	(void)o;
	json_init(&w, out, JSON_COMPACT);
	json_open(&w, NULL, '{');
	json_u64(&w, "cycles", r->cycles);
	json_double(&w, "energy_pj", r->energy_pj);
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}

static void toy_csv_header(const struct spec_set *s, struct strbuf *out)
{
	(void)s;
	strbuf_addstr(out, "cycles,energy_pj\n");
}

static void toy_csv_row(const struct spec_set *s, const void *r_, struct strbuf *out)
{
	const struct toy_result *r = r_;
	(void)s;
	strbuf_addf(out, "%llu,%g\n", (unsigned long long)r->cycles, r->energy_pj);
}

static const struct job_kind_writers toy_writers = {
	toy_text, toy_json, toy_csv_header, toy_csv_row,
};

static enum job_status toy_run(const struct spec_set *s, const struct job_options *o,
			       struct job_summary *sum, struct job_outputs *out)
{
	const struct toy *t = s->design;
	struct toy_result r = { t->ops, (double)t->ops * t->pj_per_op };

	job_summary_fill(sum, &toy_metrics, s, &r);
	job_kind_print(&toy_writers, s, &r, o, out);
	return JOB_OK;
}

static void toy_design_text(const struct spec_set *s, struct strbuf *out)
{
	const struct toy *t = s->design;
	strbuf_addf(out, "Toy design: %llu ops at %g pJ\n", (unsigned long long)t->ops,
		    t->pj_per_op);
}

static void toy_design_json(const struct spec_set *s, struct strbuf *out)
{
	const struct toy *t = s->design;
	strbuf_addf(out, "{\"toy\": {\"ops\": %llu}}\n", (unsigned long long)t->ops);
}

static const struct job_metric_set *const toy_sets[] = { &toy_metrics, NULL };

const struct job_kind job_kind_toy = {
	.name = "toy",
	.summary = "N operations at E pJ each",
	.spec = &spec_kind_toy,
	.command = "toy",
	.missing = "the input files hold no 'toy' design",
	.run = { [JOB_MODEL] = toy_run },
	.refuse = {
		[JOB_MAP] = "a toy has nothing to map", [JOB_EXEC] = "a toy has nothing to execute",
		[JOB_VALIDATE] = "a toy has nothing to validate",
	},
	.design_text = toy_design_text,
	.design_json = toy_design_json,
	.writers = &toy_writers,
	.metrics = toy_sets,
};

/* -------------------------------------------------------------- the tests */

static char dir[] = "/tmp/test_toy_kind.XXXXXX";

/* Write 'text' to dir/name; the path (static buffer per name). */
static const char *write_file(const char *name, const char *text)
{
	static char paths[4][512];
	static int next;
	char *p = paths[next++ % 4];
	FILE *fp;

	snprintf(p, 512, "%s/%s", dir, name);
	fp = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	fclose(fp);
	return p;
}

static struct spec_set *load(const char *path, enum job_command c, struct diag_list *dl)
{
	struct job_design d = { .files = &path, .n_files = 1, .command = c };
	return job_load(&d, dl);
}

/* The table is job/kinds.c's with one more line. */
static void test_one_row(void)
{
	const char *srcdir = getenv("srcdir");
	char a[512], b[512], la[256], lb[256];
	FILE *fa, *fb;
	unsigned extra = 0, same = 0;

	snprintf(a, sizeof(a), "%s/job/kinds.c", srcdir ? srcdir : ".");
	snprintf(b, sizeof(b), "%s/tests/job/toy_kinds.c", srcdir ? srcdir : ".");
	fa = fopen(a, "r");
	fb = fopen(b, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
	while (fgets(la, sizeof(la), fa)) {
		while (fgets(lb, sizeof(lb), fb) && strcmp(la, lb)) {
			CU_ASSERT_STRING_EQUAL(lb, "\tKIND(toy)           \\\n");
			extra++;
		}
		same++;
	}
	CU_ASSERT_PTR_NULL(fgets(lb, sizeof(lb), fb));
	CU_ASSERT_EQUAL(extra, 1);
	CU_ASSERT(same > 20);
	fclose(fa);
	fclose(fb);
}

/* The registry has it: its name, its command, its metrics. */
static void test_registry(void)
{
	const char *const *names = job_command_names();
	enum job_command c;
	const char *kind;
	size_t i;

	CU_ASSERT_EQUAL(job_kind_count(), 4);
	CU_ASSERT_STRING_EQUAL(job_kind_name(3), "toy");
	for (i = 0; names[i] && strcmp(names[i], "toy"); i++)
		;
	CU_ASSERT_PTR_NOT_NULL(names[i]);
	CU_ASSERT_EQUAL(job_command_parse("toy", &c, &kind), 0);
	CU_ASSERT_EQUAL(c, JOB_MODEL);
	CU_ASSERT_STRING_EQUAL(kind, "toy");
	CU_ASSERT(job_kind_provides("toy", JOB_METRIC_ENERGY_PJ));
	CU_ASSERT(job_kind_provides("toy", JOB_METRIC_EDP_J_CYCLES));
	CU_ASSERT(!job_kind_provides("toy", JOB_METRIC_UTILIZATION));
	CU_ASSERT(!job_kind_provides("toy", JOB_METRIC_LEVEL_ENERGY_PJ));
}

/* Loaded, checked, run; map refused; its key beside Timeloop's sections refused. */
static void test_run(void)
{
	const char *path = write_file("toy.yaml", "toy: {ops: 1000, pj_per_op: 2.5}\n");
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load(path, JOB_MODEL, &dl);
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_EQUAL(s->kind, &spec_kind_toy);
	job_options_init(&o, JOB_MODEL);
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_STRING_EQUAL(out.print.buf, "toy: 1000 cycles, 2500 pJ\n");
	CU_ASSERT_STRING_EQUAL(job_summary_kind(&sum), "toy");
	CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_CYCLES), 1000);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ), 2500, 0);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_EDP_J_CYCLES), 2.5e-6, 1e-18);
	CU_ASSERT(!job_summary_has(&sum, JOB_METRIC_UTILIZATION));
	job_outputs_release(&out);
	o.command = JOB_CHECK;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.print.buf, "\nToy design: 1000 ops at 2.5 pJ\n"));
	job_outputs_release(&out);
	o.command = JOB_MAP;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_BAD_INPUT);
	CU_ASSERT_STRING_EQUAL(sum.error, "a toy has nothing to map");
	job_outputs_release(&out);
	spec_set_free(s);
	/* 'fiberloop stpu' on it: the other kind's message */
	s = load(path, JOB_MODEL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	job_options_init(&o, JOB_MODEL);
	o.kind = "stpu";
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_BAD_INPUT);
	CU_ASSERT_STRING_EQUAL(sum.error, "the input files hold no 'stpu' design alone");
	job_outputs_release(&out);
	spec_set_free(s);
	/* beside an architecture: a located error */
	path = write_file("mixed.yaml", "toy: {ops: 10}\narchitecture: {}\n");
	CU_ASSERT_PTR_NULL(load(path, JOB_MODEL, &dl));
	CU_ASSERT_EQUAL_FATAL(dl.n, 1);
	CU_ASSERT_EQUAL(dl.items[0].loc.line, 2);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "'architecture' does not apply to an 'toy' "
			       "design (it stands alone: everything it needs is under 'toy')");
	diag_list_release(&dl);
	/* a misspelt key of it: did-you-mean (then the default kind's missing sections) */
	path = write_file("typo.yaml", "tot: {ops: 10}\n");
	CU_ASSERT_PTR_NULL(load(path, JOB_MODEL, &dl));
	CU_ASSERT_FATAL(dl.n >= 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "unknown top-level key 'tot'; did you mean "
			       "'toy'?");
	diag_list_release(&dl);
}

/* A sweep of toys with their own command: a row each, its metrics, the others NULL. */
static void test_sweep(void)
{
	const char *path = write_file("sweep.yaml", "toy: {ops: 10}\n");
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_design d = { .files = &path, .n_files = 1, .command = JOB_MODEL };
	struct job_axis ax;
	struct job_options o;
	struct job_sweep sw;
	struct job_runner rn;
	struct job_run_result res;
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	char db[512];
	long ec, uc, cc;

	CU_ASSERT_EQUAL_FATAL(job_axis_parse("toy.ops=10,20,30", &ax, &dl), 0);
	job_options_init(&o, JOB_MODEL);
	CU_ASSERT_EQUAL_FATAL(job_command_parse("toy", &o.command, &o.kind), 0);
	d.kind = o.kind;
	sw = (struct job_sweep){ &d, &ax, 1, false, &o };
	snprintf(db, sizeof(db), "%s/toy.db", dir);
	memset(&rn, 0, sizeof(rn));
	rn.db_path = db;
	rn.n_workers = 2;
	CU_ASSERT_EQUAL(job_sweep_run(&sw, &rn, &res, &dl), 0);
	CU_ASSERT_EQUAL(res.n_done, 3);
	CU_ASSERT_EQUAL(res.n_failed, 0);
	CU_ASSERT_EQUAL_FATAL(job_results_query(db, NULL, 0, &t, &err), 0);
	CU_ASSERT_EQUAL_FATAL(t.n_rows, 3);
	ec = table_col(&t, "energy_pj");
	uc = table_col(&t, "utilization");
	cc = table_col(&t, "command");
	CU_ASSERT_FATAL(ec >= 0 && uc >= 0 && cc >= 0);
	CU_ASSERT_STRING_EQUAL(table_get(&t, 2, (size_t)ec).text, "30");
	CU_ASSERT_PTR_NULL(table_get(&t, 2, (size_t)uc).text);
	CU_ASSERT_STRING_EQUAL(table_get(&t, 0, (size_t)cc).text, "toy");
	table_release(&t);
	strbuf_release(&err);
	job_axis_release(&ax);
	diag_list_release(&dl);
}

static int setup(void)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static CU_TestInfo tests[] = {
	{ "the table is job/kinds.c's and one line", test_one_row },
	{ "the registry has it", test_registry },
	{ "loaded, run, checked, refused", test_run },
	{ "a sweep of it", test_sweep },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "job/toy kind", .pInitFunc = setup, .pCleanupFunc = teardown, .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
