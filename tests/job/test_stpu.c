/*
 * job/stpu.c: an 'stpu' design through job_run() without cli/. 'model'
 * prints the model's summary (or CSV, JSON) and writes the JSON document,
 * and its compact summary carries the figures of the design's scheme
 * (STPU-C1 unless 'packing.scheme' says), the TPU's beside them, and each
 * scheme's energy as a level; 'exec' and 'validate' run the cycle-level
 * simulation and find it exact; 'check' prints the design; 'map' is refused.
 */
#include "job/job.h"

#include <stdio.h>
#include <string.h>

#include "accel/accel.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct spec_set *load_packing(enum job_command cmd, const char *packing)
{
	char text[256];
	const char *path;

	snprintf(text, sizeof(text), "stpu:\n  array: {rows: 8, cols: 8}\n%s"
		 "  matrix: {rows: 40, cols: 30, density: 0.1, seed: 4}\n", packing);
	path = sf_write("job.yaml", text);
	struct job_design d = { .files = &path, .n_files = 1, .command = cmd };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = job_load(&d, &dl);

	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

static struct spec_set *load(enum job_command cmd)
{
	return load_packing(cmd, "");
}

static void test_model(void)
{
	struct spec_set *s = load(JOB_MODEL);
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;
	unsigned k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	job_options_init(&o, JOB_MODEL);
	o.want = JOB_WANT_PRINT | JOB_WANT_FILES;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_CYCLES),
			r.scheme[ACCEL_STPU_C1].counts.cycles);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_ENERGY_PJ),
			       r.scheme[ACCEL_STPU_C1].energy.total_pj, 1e-9);
	/* the row says which scheme its figures are, and carries the TPU's beside them */
	CU_ASSERT_STRING_EQUAL(job_summary_text(&sum, JOB_METRIC_SCHEME), "C1");
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_BASELINE_CYCLES),
			       (double)r.scheme[ACCEL_STPU_TPU].counts.cycles, 0);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_BASELINE_ENERGY_PJ),
			       r.scheme[ACCEL_STPU_TPU].energy.total_pj, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_SPEEDUP),
			       r.scheme[ACCEL_STPU_C1].speedup_vs_tpu, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_ENERGY_RATIO),
			       r.scheme[ACCEL_STPU_C1].energy_ratio_vs_tpu, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_PACKING_EFFICIENCY),
			       r.scheme[ACCEL_STPU_C1].packing.efficiency, 1e-12);
	CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_ACTUAL_COMPUTES),
			r.scheme[ACCEL_STPU_C1].counts.accumulate);
	/* no utilization nor search: missing, not 0 */
	CU_ASSERT(!job_summary_has(&sum, JOB_METRIC_UTILIZATION));
	CU_ASSERT(!job_summary_has(&sum, JOB_METRIC_N_EVALUATED));
	CU_ASSERT_STRING_EQUAL(job_summary_kind(&sum), "stpu");
	CU_ASSERT_EQUAL(sum.n_levels, ACCEL_STPU_N_SCHEMES);
	for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++) {
		CU_ASSERT_STRING_EQUAL(job_summary_level_name(&sum, k),
				       accel_stpu_scheme_name((enum accel_stpu_scheme)k));
		CU_ASSERT_DOUBLE_EQUAL(sum.level_energy_pj[k], r.scheme[k].energy.total_pj, 1e-9);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(sum.mapping, "STPU-C0: efficiency "));
	CU_ASSERT_EQUAL(strncmp(out.print.buf, "STPU SpMV: 40 x 30 matrix", 25), 0);
	CU_ASSERT_EQUAL(out.n_files, 1);
	CU_ASSERT_STRING_EQUAL(out.file_names[0], "fiberloop-stpu.json");
	CU_ASSERT_PTR_NOT_NULL(strstr(out.files[0].buf, "\"stpu_json_version\": 1"));
	job_outputs_release(&out);
	o.format = JOB_FORMAT_CSV;
	o.want = JOB_WANT_PRINT;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_EQUAL(strncmp(out.print.buf, "rows,cols,nnz,", 14), 0);
	CU_ASSERT_EQUAL(out.n_files, 0);
	job_outputs_release(&out);
	spec_set_free(s);
}

/* 'packing.scheme' picks the scheme of the row; KMZ counts MACs, the TPU is its own baseline. */
static void test_scheme(void)
{
	static const struct {
		const char *packing, *name;
		enum accel_stpu_scheme k;
	} cases[] = {
		{ "  packing: {scheme: C0}\n", "C0", ACCEL_STPU_C0 },
		{ "  packing: {scheme: KMZ}\n", "KMZ", ACCEL_STPU_KMZ },
		{ "  packing: {scheme: none}\n", "none", ACCEL_STPU_TPU },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spec_set *s = load_packing(JOB_MODEL, cases[i].packing);
		const struct accel_stpu_scheme_result *x;
		struct accel_stpu_result r;
		struct job_options o;
		struct job_summary sum;
		struct job_outputs out;
		struct strbuf err = STRBUF_INIT;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
		x = &r.scheme[cases[i].k];
		job_options_init(&o, JOB_MODEL);
		o.want = 0;
		job_outputs_init(&out);
		CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
		CU_ASSERT_STRING_EQUAL(job_summary_text(&sum, JOB_METRIC_SCHEME), cases[i].name);
		CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_CYCLES), x->counts.cycles);
		CU_ASSERT_EQUAL(job_summary_count(&sum, JOB_METRIC_ACTUAL_COMPUTES),
				cases[i].k == ACCEL_STPU_C0 ? x->counts.accumulate : x->counts.mac);
		CU_ASSERT_DOUBLE_EQUAL(job_summary_real(&sum, JOB_METRIC_SPEEDUP),
				       cases[i].k == ACCEL_STPU_TPU ? 1.0 : x->speedup_vs_tpu, 1e-12);
		job_outputs_release(&out);
		spec_set_free(s);
	}
}

static void test_exec_and_validate(void)
{
	static const enum job_command cmds[] = { JOB_EXEC, JOB_VALIDATE };
	static const char *const heads[] = { "STPU cycle-level simulation\n",
					     "Model vs cycle-level simulation\n" };
	unsigned i;

	for (i = 0; i < 2; i++) {
		struct spec_set *s = load(cmds[i]);
		struct job_options o;
		struct job_summary sum;
		struct job_outputs out;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		job_options_init(&o, cmds[i]);
		o.want = JOB_WANT_PRINT;
		job_outputs_init(&out);
		CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
		CU_ASSERT_EQUAL(strncmp(out.print.buf, heads[i], strlen(heads[i])), 0);
		if (cmds[i] == JOB_VALIDATE) {
			CU_ASSERT_EQUAL(sum.n_outside, 0);
			CU_ASSERT_EQUAL(sum.n_fields, 4 * 15);
		}
		job_outputs_release(&out);
		spec_set_free(s);
	}
}

static void test_check_and_map(void)
{
	struct spec_set *s = load(JOB_CHECK);
	struct job_options o;
	struct job_summary sum;
	struct job_outputs out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	job_options_init(&o, JOB_CHECK);
	o.want = JOB_WANT_PRINT;
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.print.buf, "\nSTPU design:\n  array: 8 x 8 PEs, fp32\n"));
	job_outputs_release(&out);
	job_options_init(&o, JOB_MAP);
	job_outputs_init(&out);
	CU_ASSERT_EQUAL(job_run(s, &o, &sum, &out), JOB_BAD_INPUT);
	CU_ASSERT_STRING_EQUAL(sum.error, "an STPU design has no mapping to search; run 'fiberloop "
				"stpu' (or model, exec, validate)");
	job_outputs_release(&out);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "model", test_model },
	{ "the row's scheme", test_scheme },
	{ "exec and validate", test_exec_and_validate },
	{ "check and map", test_check_and_map },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "job/stpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
