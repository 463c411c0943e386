/*
 * libfiberloop's interface, through the shared library and its public
 * header alone: versions, loading from files and from memory, overrides,
 * options, each kind's command, the metric vocabulary, errors located as
 * the command line locates them, sweeps and results.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "lib/fiberloop.h"

static char path_buf[4][4096];

/* $srcdir/REL (the examples are the test's designs), in one of 4 static buffers. */
static const char *src_path(const char *rel)
{
	static unsigned next;
	const char *top = getenv("srcdir");
	char *b = path_buf[next++ % 4];

	snprintf(b, sizeof(path_buf[0]), "%s/%s", top ? top : ".", rel);
	return b;
}

static fiberloop_spec *eyeriss(void)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	fiberloop_spec *s = fiberloop_spec_new();
	char rel[256];
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "examples/eyeriss-like/%s", files[i]);
		CU_ASSERT_EQUAL_FATAL(fiberloop_spec_add_file(s, src_path(rel), NULL), 0);
	}
	return s;
}

/* The number after "\"KEY\": " in the document's summary object. */
static double doc_summary(const fiberloop_result *r, const char *key)
{
	const char *d = strstr(fiberloop_result_document(r, NULL), "\"summary\"");
	char pat[128];

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	d = strstr(d, pat);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	return strtod(d + strlen(pat), NULL);
}

static void test_version(void)
{
	CU_ASSERT_STRING_EQUAL(FIBERLOOP_VERSION, PACKAGE_VERSION);
	CU_ASSERT_STRING_EQUAL(fiberloop_version(), PACKAGE_VERSION);
	CU_ASSERT_EQUAL(FIBERLOOP_VERSION_NUMBER, FIBERLOOP_VERSION_MAJOR * 10000 +
			FIBERLOOP_VERSION_MINOR * 100 + FIBERLOOP_VERSION_PATCH);
}

/* The summary's metrics are the document's (two paths through the engine). */
static void test_model_metrics(void)
{
	static const char *const keys[] = { "energy_pj", "cycles", "utilization",
					    "algorithmic_computes", "actual_computes",
					    "pj_per_compute", "edp_j_cycles" };
	fiberloop_spec *s = eyeriss();
	fiberloop_result *r = fiberloop_model(s, NULL);
	double sum = 0;
	size_t i, l;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(fiberloop_result_status(r), FIBERLOOP_OK);
	CU_ASSERT_STRING_EQUAL(fiberloop_result_kind(r), "timeloop");
	CU_ASSERT_STRING_EQUAL(fiberloop_result_command(r), "model");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int m = fiberloop_metric_find(keys[i]);
		CU_ASSERT_FATAL(m >= 0);
		CU_ASSERT(fiberloop_result_has(r, (size_t)m));
		CU_ASSERT_DOUBLE_EQUAL(fiberloop_result_real(r, (size_t)m),
				       doc_summary(r, keys[i]),
				       1e-12 * fabs(doc_summary(r, keys[i])));
	}
	CU_ASSERT_EQUAL(fiberloop_result_count(r, (size_t)fiberloop_metric_find("cycles")), 86016);
	/* the IPU's metrics are not the Timeloop design's: absent, not 0 */
	CU_ASSERT_FALSE(fiberloop_result_has(r, (size_t)fiberloop_metric_find("speedup")));
	CU_ASSERT(isnan(fiberloop_result_real(r, (size_t)fiberloop_metric_find("speedup"))));
	CU_ASSERT_EQUAL(fiberloop_result_levels(r), 7);
	CU_ASSERT_STRING_EQUAL(fiberloop_result_level_name(r, 6), "DRAM");
	for (l = 0; l < fiberloop_result_levels(r); l++)
		sum += fiberloop_result_level_energy_pj(r, l);
	sum += fiberloop_result_real(r, (size_t)fiberloop_metric_find("compute_energy_pj"));
	CU_ASSERT_DOUBLE_EQUAL(sum, doc_summary(r, "energy_pj"), 1e-6 * sum);
	CU_ASSERT(strncmp(fiberloop_result_mapping(r), "DRAM:", 5) == 0);
	fiberloop_result_free(r);
	fiberloop_spec_free(s);
}

/* An override changes the next run (the set is rebuilt), and clearing it restores it. */
static void test_overrides(void)
{
	fiberloop_spec *s = eyeriss();
	fiberloop_options *o = fiberloop_options_new("model", NULL);
	size_t e = (size_t)fiberloop_metric_find("energy_pj");
	fiberloop_result *a, *b, *c;

	CU_ASSERT_EQUAL(fiberloop_options_set(o, "document", "none", NULL), 0);
	a = fiberloop_run(s, o, NULL);
	CU_ASSERT_EQUAL(fiberloop_spec_set(s, "ERT.tables[0].actions[0].energy=2", NULL), 0);
	b = fiberloop_run(s, o, NULL);
	fiberloop_spec_clear_overrides(s);
	c = fiberloop_run(s, o, NULL);
	CU_ASSERT_FATAL(a && b && c);
	CU_ASSERT(fiberloop_result_real(b, e) > fiberloop_result_real(a, e));
	CU_ASSERT_EQUAL(fiberloop_result_real(c, e), fiberloop_result_real(a, e));
	CU_ASSERT_STRING_EQUAL(fiberloop_result_document(a, NULL), "");
	fiberloop_result_free(a);
	fiberloop_result_free(b);
	fiberloop_result_free(c);
	fiberloop_options_free(o);
	fiberloop_spec_free(s);
}

/* A design of tests/data/conformance (input, map, ERT). */
static fiberloop_spec *conformance(const char *name)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	fiberloop_spec *s = fiberloop_spec_new();
	char rel[256];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "tests/data/conformance/%s/%s", name, files[i]);
		CU_ASSERT_EQUAL_FATAL(fiberloop_spec_add_file(s, src_path(rel), NULL), 0);
	}
	return s;
}

/*
 * One options object runs design after design on the memory it keeps: each
 * run's whole document equals that of a run with new options.
 */
static void test_options_reused(void)
{
	fiberloop_spec *s[3] = { eyeriss(), conformance("01.2.1-DUDU-dot-product"),
				 conformance("simple_weight_stationary") };
	fiberloop_options *o = fiberloop_options_new("model", NULL);
	unsigned i, same = 0;

	for (i = 0; i < 9; i++) {
		fiberloop_options *fresh = fiberloop_options_new("model", NULL);
		fiberloop_result *a = fiberloop_run(s[i % 3], o, NULL);
		fiberloop_result *b = fiberloop_run(s[i % 3], fresh, NULL);

		CU_ASSERT_FATAL(a && b);
		same += strcmp(fiberloop_result_document(a, NULL),
			       fiberloop_result_document(b, NULL)) == 0;
		fiberloop_result_free(a);
		fiberloop_result_free(b);
		fiberloop_options_free(fresh);
	}
	CU_ASSERT_EQUAL(same, 9);
	fiberloop_options_free(o);
	for (i = 0; i < 3; i++)
		fiberloop_spec_free(s[i]);
}

/* Errors: where they are, and what they say. */
static void test_errors(void)
{
	static const char bad_yaml[] = "problem:\n  shape: [1, 2\n";
	struct {
		const char *override;           /* applied to eyeriss_like, or NULL: bad_yaml */
		const char *file;
		unsigned line, col;
		const char *message_has;
	} cases[] = {
		{ NULL, "mem.yaml", 3, 1, "" },
		{ "problem.instance.P=banana", "--set 'problem.instance.P=banana'", 1, 20,
		  "expected an integer >= 1, got 'banana'" },
		{ "problem.instance.QQ=2", "--set 'problem.instance.QQ=2'", 1, 18, "QQ" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fiberloop_error *err = NULL;
		fiberloop_spec *s;
		fiberloop_result *r = NULL;

		if (cases[i].override) {
			s = eyeriss();
			CU_ASSERT_EQUAL(fiberloop_spec_set(s, cases[i].override, NULL), 0);
			r = fiberloop_model(s, &err);
		} else {
			s = fiberloop_spec_new();
			CU_ASSERT_EQUAL(fiberloop_spec_add_text(s, "mem.yaml", bad_yaml,
								sizeof(bad_yaml) - 1, &err), -1);
		}
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(err);
		CU_ASSERT_EQUAL(fiberloop_error_status(err), FIBERLOOP_BAD_INPUT);
		CU_ASSERT_STRING_EQUAL(fiberloop_error_severity(err, 0), "error");
		CU_ASSERT_STRING_EQUAL(fiberloop_error_file(err, 0), cases[i].file);
		CU_ASSERT_EQUAL(fiberloop_error_line(err, 0), cases[i].line);
		CU_ASSERT_EQUAL(fiberloop_error_column(err, 0), cases[i].col);
		CU_ASSERT_PTR_NOT_NULL(strstr(fiberloop_error_message(err, 0),
					      cases[i].message_has));
		CU_ASSERT(strncmp(fiberloop_error_text(err), cases[i].file,
				  strlen(cases[i].file)) == 0);
		fiberloop_error_free(err);
		fiberloop_spec_free(s);
	}
}

static void test_options(void)
{
	struct {
		const char *command, *name, *value;
		int rc;
		const char *message_has;
	} cases[] = {
		{ "map", "seeed", "3", -1, "did you mean 'seed'?" },
		{ "map", "algorithm", "randm", -1, "did you mean 'random'?" },
		{ "map", "threads", "-1", -1, "expected an integer" },
		{ "validate", "seeds", "1", -1, "in [2, 100000]" },
		{ "model", "roofline", "maybe", -1, "true or false" },
		{ "model", "energy", "nope", -1, "is not one of" },
		{ "map", "algorithm", "random", 0, NULL },
		{ "ipu", "samples", "16", 0, NULL },
	};
	fiberloop_error *err = NULL;
	size_t i;

	CU_ASSERT_PTR_NULL(fiberloop_options_new("modle", &err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(fiberloop_error_text(err), "unknown command 'modle'"));
	fiberloop_error_free(err);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fiberloop_options *o = fiberloop_options_new(cases[i].command, NULL);
		err = NULL;
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		CU_ASSERT_EQUAL(fiberloop_options_set(o, cases[i].name, cases[i].value, &err),
				cases[i].rc);
		if (cases[i].message_has) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(err);
			CU_ASSERT_PTR_NOT_NULL(strstr(fiberloop_error_text(err),
						      cases[i].message_has));
		} else {
			CU_ASSERT_PTR_NULL(err);
		}
		fiberloop_error_free(err);
		fiberloop_options_free(o);
	}
}

/* The kinds' own commands, and a command the kind refuses. */
static void test_kinds(void)
{
	fiberloop_spec *s = fiberloop_spec_new();
	fiberloop_options *o = fiberloop_options_new("ipu", NULL);
	fiberloop_error *err = NULL;
	fiberloop_result *r;

	CU_ASSERT_EQUAL_FATAL(fiberloop_spec_add_file(s, src_path("examples/ipu-popsparse/layer.yaml"),
						      NULL), 0);
	CU_ASSERT_STRING_EQUAL(fiberloop_spec_kind(s), "ipu");
	CU_ASSERT_EQUAL(fiberloop_options_set(o, "samples", "16", NULL), 0);
	r = fiberloop_run(s, o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_STRING_EQUAL(fiberloop_result_kind(r), "ipu");
	CU_ASSERT(fiberloop_result_has(r, (size_t)fiberloop_metric_find("speedup")));
	CU_ASSERT(fiberloop_result_real(r, (size_t)fiberloop_metric_find("speedup")) > 0);
	CU_ASSERT_FALSE(fiberloop_result_has(r, (size_t)fiberloop_metric_find("energy_pj")));
	CU_ASSERT(strstr(fiberloop_result_document(r, NULL), "{") != NULL);
	fiberloop_result_free(r);
	fiberloop_options_free(o);
	/* stpu on an IPU design: refused, with the reason */
	o = fiberloop_options_new("stpu", NULL);
	CU_ASSERT_PTR_NULL(fiberloop_run(s, o, &err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL(fiberloop_error_status(err), FIBERLOOP_BAD_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(fiberloop_error_text(err), "stpu"));
	fiberloop_error_free(err);
	fiberloop_options_free(o);
	fiberloop_spec_free(s);
}

static void test_vocabulary(void)
{
	size_t m, n = fiberloop_metric_count(), per_level = 0;

	CU_ASSERT(n > 10);
	for (m = 0; m < n; m++) {
		per_level += fiberloop_metric_per_level(m) != 0;
		if (!fiberloop_metric_per_level(m))   /* its name is energy_pj.LEVEL */
			CU_ASSERT_EQUAL(fiberloop_metric_find(fiberloop_metric_name(m)), (int)m);
	}
	CU_ASSERT_EQUAL(per_level, 1);
	CU_ASSERT_STRING_EQUAL(fiberloop_metric_unit((size_t)fiberloop_metric_find("energy_pj")),
			       "pJ");
	CU_ASSERT_STRING_EQUAL(fiberloop_metric_better((size_t)fiberloop_metric_find("cycles")),
			       "lower");
	CU_ASSERT_STRING_EQUAL(fiberloop_metric_type((size_t)fiberloop_metric_find("scheme")),
			       "text");
	CU_ASSERT_EQUAL(fiberloop_metric_find("nonsense"), -1);
	CU_ASSERT_PTR_NULL(fiberloop_metric_name(n));
}

/* A 3-point sweep into a database, read back; run again, nothing new runs. */
static void test_sweep(void)
{
	char db[] = "/tmp/fl-test-api-XXXXXX";
	const char *axes[] = { "e:ERT.tables[0].actions[0].energy=1,2,4" };
	const char *where[] = { "e > 1" };
	fiberloop_spec *s = eyeriss();
	fiberloop_table *t;
	fiberloop_error *err = NULL;
	int fd = mkstemp(db);
	long col = -1;
	size_t c;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	unlink(db);
	CU_ASSERT_EQUAL(fiberloop_sweep(s, axes, 1, 0, NULL, db, 1, NULL), 3);
	CU_ASSERT_EQUAL(fiberloop_sweep(s, axes, 1, 0, NULL, db, 1, NULL), 3);
	t = fiberloop_results(db, where, 1, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(fiberloop_table_rows(t), 2);
	for (c = 0; c < fiberloop_table_columns(t); c++)
		if (strcmp(fiberloop_table_column(t, c), "energy_pj") == 0)
			col = (long)c;
	CU_ASSERT_FATAL(col >= 0);
	CU_ASSERT_EQUAL(fiberloop_table_type(t, 0, (size_t)col), 'r');
	CU_ASSERT(strtod(fiberloop_table_cell(t, 1, (size_t)col), NULL) >
		  strtod(fiberloop_table_cell(t, 0, (size_t)col), NULL));
	fiberloop_table_free(t);
	/* a bad axis is located in it */
	axes[0] = "ERT.tables[0].actions[0].energy=1:x";
	CU_ASSERT_EQUAL(fiberloop_sweep(s, axes, 1, 0, NULL, db, 1, &err), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(fiberloop_error_file(err, 0), "--axis"));
	fiberloop_error_free(err);
	err = NULL;
	CU_ASSERT_PTR_NULL(fiberloop_results("/nonexistent/x.db", NULL, 0, &err));
	CU_ASSERT_PTR_NOT_NULL(err);
	fiberloop_error_free(err);
	fiberloop_spec_free(s);
	unlink(db);
}

int main(void)
{
	CU_TestInfo tests[] = {
		{ "version", test_version },
		{ "model metrics = document", test_model_metrics },
		{ "overrides", test_overrides },
		{ "one options object, design after design", test_options_reused },
		{ "errors located", test_errors },
		{ "options", test_options },
		{ "kinds", test_kinds },
		{ "vocabulary", test_vocabulary },
		{ "sweep and results", test_sweep },
		CU_TEST_INFO_NULL,
	};
	CU_SuiteInfo suites[] = { { "libfiberloop", NULL, NULL, NULL, NULL, tests },
				  CU_SUITE_INFO_NULL };
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	CU_register_suites(suites);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
