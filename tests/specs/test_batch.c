/*
 * Batch files (specs/batch.c): defaults given to every job (lists first),
 * paths read from the file's directory, overrides from a mapping or a
 * list, a network's command, names given and made up, where each override
 * is written; and each mistake of tests/data/batch/bad.yaml and of a few
 * more files as a located error.
 */
#include "specs/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/diag.h"

/* True when 'path' ends with 'tail'. */
static bool ends_with(const char *path, const char *tail)
{
	size_t n = strlen(path), m = strlen(tail);
	return n >= m && !strcmp(path + n - m, tail);
}

static void test_jobs(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	char path[4096];
	struct spec_batch *b;
	const struct spec_batch_job *j;

	snprintf(path, sizeof(path), "%s", unit_data_path("batch/jobs.yaml"));
	b = spec_batch_load(path, NULL, &dl);
	diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(b->n_jobs, 7);
	j = &b->jobs[0];
	CU_ASSERT_STRING_EQUAL(j->name, "coord-0.1");
	CU_ASSERT_STRING_EQUAL(j->command, "model");
	CU_ASSERT_EQUAL(j->n_files, 4);
	/* relative to the batch file's directory */
	CU_ASSERT_TRUE(ends_with(j->files[3], "/batch/problem-0.1.yaml"));
	CU_ASSERT_TRUE(ends_with(j->files[0], "/batch/../../../examples/format-sweep/arch.yaml"));
	/* the defaults' tags first */
	CU_ASSERT_EQUAL_FATAL(j->n_tags, 2);
	CU_ASSERT_STRING_EQUAL(j->tags[0], "test");
	CU_ASSERT_STRING_EQUAL(j->tags[1], "coordinates");
	/* overrides from a mapping, in order */
	j = &b->jobs[2];
	CU_ASSERT_EQUAL_FATAL(j->n_sets, 2);
	CU_ASSERT_STRING_EQUAL(j->sets[0], "problem.instance.densities.A.density=0.4");
	CU_ASSERT_STRING_EQUAL(j->sets[1], "problem.instance.densities.B.density=0.4");
	/* and from a list */
	CU_ASSERT_EQUAL_FATAL(b->jobs[3].n_sets, 1);
	CU_ASSERT_STRING_EQUAL(b->jobs[3].sets[0], "problem.instance.densities.A.density=1.5");
	/* a map job, and a network that maps without saying so */
	CU_ASSERT_STRING_EQUAL(b->jobs[5].command, "map");
	CU_ASSERT_STRING_EQUAL(b->jobs[6].command, "map");
	CU_ASSERT_EQUAL_FATAL(b->jobs[6].n_layers, 1);
	CU_ASSERT_TRUE(ends_with(b->jobs[6].layers[0], "/batch/../network/layers"));
	CU_ASSERT_EQUAL(b->jobs[6].n_tags, 1);        /* the defaults' alone */
	spec_batch_free(b);
	diag_list_release(&dl);
}

/* The diagnostics of bad.yaml, line:col and message. */
static const struct {
	unsigned line, col;
	enum diag_severity sev;
	const char *message;
} bad_diags[] = {
	{ 3, 9, DIAG_ERROR, "in 'defaults.name': a name is given per job, not in the defaults" },
	{ 7, 5, DIAG_ERROR, "in 'jobs[0]': unknown key 'comand'; did you mean 'command'?" },
	{ 8, 11, DIAG_ERROR, "in 'jobs[1]': two jobs are named 'a'" },
	{ 5, 11, DIAG_NOTE, "'a' first given here" },
	{ 10, 5, DIAG_ERROR, "in 'jobs[2]': a job with 'layers' maps them: its command must be 'map', not 'model'" },
	{ 14, 5, DIAG_ERROR, "in 'jobs[3]': the job has no 'files' (nor the defaults)" },
	{ 17, 14, DIAG_ERROR, "in 'jobs[4].command': unknown command 'mapp'; did you mean 'map'?" },
	{ 18, 11, DIAG_ERROR, "in 'jobs[4].seed': expected an integer >= 0, got '-1'" },
};

static void test_bad(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	char path[4096];
	size_t i;

	snprintf(path, sizeof(path), "%s", unit_data_path("batch/bad.yaml"));
	CU_ASSERT_PTR_NULL(spec_batch_load(path, NULL, &dl));
	CU_ASSERT_EQUAL_FATAL(dl.n, sizeof(bad_diags) / sizeof(bad_diags[0]));
	for (i = 0; i < dl.n; i++) {
		CU_ASSERT_PTR_EQUAL(dl.items[i].loc.file, path);   /* the caller's string */
		CU_ASSERT_EQUAL(dl.items[i].loc.line, bad_diags[i].line);
		CU_ASSERT_EQUAL(dl.items[i].loc.col, bad_diags[i].col);
		CU_ASSERT_EQUAL(dl.items[i].severity, bad_diags[i].sev);
		CU_ASSERT_STRING_EQUAL(dl.items[i].message, bad_diags[i].message);
	}
	diag_list_release(&dl);
	/* no jobs at all; not a mapping */
	{
		static const struct {
			const char *text, *message;
		} cases[] = {
			{ "defaults: {tags: [x]}\n", "no 'jobs' list" },
			{ "jobs: []\n", "in 'jobs': no jobs" },
			{ "- a\n- b\n", "expected a mapping with 'jobs' (and 'defaults'), got a list" },
			{ "jobs: [{files: [a.yaml]}]\njob: 1\n", "unknown key 'job'; did you mean 'jobs'?" },
		};
		char tmp[] = "/tmp/test_batch.XXXXXX";
		int fd = mkstemp(tmp);
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			FILE *fp = fopen(tmp, "w");
			CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
			fputs(cases[i].text, fp);
			fclose(fp);
			CU_ASSERT_PTR_NULL(spec_batch_load(tmp, NULL, &dl));
			CU_ASSERT_TRUE(dl.n >= 1 && !strcmp(dl.items[0].message, cases[i].message));
			if (dl.n)
				fprintf(stderr, "%s", dl.n && strcmp(dl.items[0].message, cases[i].message) ?
					dl.items[0].message : "");
			diag_list_release(&dl);
		}
		unlink(tmp);
	}
}

/* Jinja2 variables: the defaults' first, from a mapping or a list; NAME=VALUE required. */
static void test_vars(void)
{
	static const char text[] =
		"defaults: {vars: {architecture: eyeriss_like}}\n"
		"jobs:\n"
		"  - {name: a, files: [top.yaml.jinja2], vars: ['problem=p.yaml']}\n"
		"  - {name: b, files: [top.yaml.jinja2], vars: {depth: 64}}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	char tmp[] = "/tmp/test_batch.XXXXXX";
	struct spec_batch *b;
	FILE *fp;
	int fd = mkstemp(tmp);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	fp = fopen(tmp, "w");
	fputs(text, fp);
	fclose(fp);
	b = spec_batch_load(tmp, NULL, &dl);
	diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(b->jobs[0].n_vars, 2);
	CU_ASSERT_STRING_EQUAL(b->jobs[0].vars[0], "architecture=eyeriss_like");
	CU_ASSERT_STRING_EQUAL(b->jobs[0].vars[1], "problem=p.yaml");
	CU_ASSERT_EQUAL_FATAL(b->jobs[1].n_vars, 2);
	CU_ASSERT_STRING_EQUAL(b->jobs[1].vars[1], "depth=64");
	spec_batch_free(b);
	fp = fopen(tmp, "w");
	fputs("jobs:\n  - {files: [x.yaml], vars: [novalue]}\n", fp);
	fclose(fp);
	CU_ASSERT_PTR_NULL(spec_batch_load(tmp, NULL, &dl));
	CU_ASSERT_TRUE(dl.n >= 1 && !strcmp(dl.items[dl.n - 1].message,
					    "in 'jobs[0].vars': expected NAME=VALUE, got 'novalue'"));
	unlink(tmp);
	diag_list_release(&dl);
}

/* Write 'text' to the temporary file 'tmp'. */
static void write_tmp(const char *tmp, const char *text)
{
	FILE *fp = fopen(tmp, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	fclose(fp);
}

/*
 * The commands a job may name are the caller's (the kinds' own commands
 * among them); without a list, the five of every design.
 */
static void test_commands(void)
{
	static const char *const commands[] = { "check", "model", "map", "exec", "validate",
						 "ipu", "stpu", NULL };
	static const char text[] = "jobs:\n  - {files: [a.yaml], command: stpu}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	char tmp[] = "/tmp/test_batch.XXXXXX";
	struct spec_batch *b;
	int fd = mkstemp(tmp);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_tmp(tmp, text);
	b = spec_batch_load(tmp, commands, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(b->jobs[0].command, "stpu");
	CU_ASSERT_PTR_EQUAL(b->jobs[0].command, commands[6]);
	spec_batch_free(b);
	CU_ASSERT_PTR_NULL(spec_batch_load(tmp, NULL, &dl));
	CU_ASSERT_TRUE(dl.n == 1 && !strcmp(dl.items[0].message, "in 'jobs[0].command': unknown "
					     "command 'stpu' (check, model, map, exec or validate)") &&
		       dl.items[0].loc.line == 2);
	if (dl.n)
		fprintf(stderr, "%s\n", dl.items[0].message);
	unlink(tmp);
	diag_list_release(&dl);
}

/*
 * Where each override is written (its text, or its PATH and its VALUE in a
 * mapping, after an opening quote), the defaults' first.
 */
static void test_set_at(void)
{
	static const char text[] =
		"defaults:\n"
		"  set: [\"a.b=1\"]\n"
		"jobs:\n"
		"  - files: [x.yaml]\n"
		"    set:\n"
		"      problem.instance.M: 4\n"
		"      'x.y': \"two words\"\n"
		"  - files: [x.yaml]\n"
		"    set: [c=2, 'd=3']\n";
	static const struct {
		size_t job, set;
		unsigned line, col, value_line, value_col;
	} rows[] = {
		{ 0, 0, 2, 10, 0, 0 },       /* the defaults', inside its quotes */
		{ 0, 1, 6, 7, 6, 27 },       /* PATH: VALUE */
		{ 0, 2, 7, 8, 7, 14 },       /* a quoted key, a quoted value (at its quote) */
		{ 1, 1, 9, 11, 0, 0 },       /* a plain string */
		{ 1, 2, 9, 17, 0, 0 },       /* a quoted string */
	};
	struct diag_list dl = DIAG_LIST_INIT;
	char tmp[] = "/tmp/test_batch.XXXXXX";
	struct spec_batch *b;
	size_t i;
	int fd = mkstemp(tmp);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_tmp(tmp, text);
	b = spec_batch_load(tmp, NULL, &dl);
	diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(b->jobs[0].n_sets, 3);
	CU_ASSERT_EQUAL_FATAL(b->jobs[1].n_sets, 3);
	CU_ASSERT_STRING_EQUAL(b->jobs[0].sets[2], "x.y='two words'");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct diag_loc *at = &b->jobs[rows[i].job].set_at[2 * rows[i].set];
		CU_ASSERT_PTR_EQUAL(at[0].file, tmp);
		CU_ASSERT_EQUAL(at[0].line, rows[i].line);
		CU_ASSERT_EQUAL(at[0].col, rows[i].col);
		CU_ASSERT_EQUAL(at[1].line, rows[i].value_line);
		CU_ASSERT_EQUAL(at[1].col, rows[i].value_col);
		if (at[0].line != rows[i].line || at[0].col != rows[i].col ||
		    at[1].col != rows[i].value_col)
			fprintf(stderr, "row %zu: %u:%u %u:%u\n", i, at[0].line, at[0].col,
				at[1].line, at[1].col);
	}
	spec_batch_free(b);
	unlink(tmp);
	diag_list_release(&dl);
}

/*
 * Mistakes of a batch file's own, each exactly located: a job that failed
 * to read before a good one (it crashed the duplicate-name check), an
 * override's path, in a list or a mapping, a variable without '=' (the
 * defaults' said once), an empty file.
 */
static void test_located(void)
{
	static const struct {
		const char *text, *diags;
	} rows[] = {
		{ "jobs:\n  - comand: map\n  - files: [a.yaml]\n",
		  "2:5: error: in 'jobs[0]': unknown key 'comand'; did you mean 'command'?\n" },
		{ "jobs:\n  - {files: [a.yaml], set: [\"problem.instance[.M=1\", a..b=2]}\n",
		  "2:46: error: '[' is not closed\n"
		  "2:56: error: expected a key after '.'\n" },
		{ "jobs:\n  - files: [a.yaml]\n    set:\n      problem.instance.M]: 3\n"
		  "      \"x[\": 4\n",
		  "4:25: error: ']' without '['\n"
		  "5:9: error: '[' is not closed\n" },
		{ "defaults: {vars: [x]}\njobs:\n  - {files: [a.yaml], vars: [y=1, =2]}\n"
		  "  - {files: [a.yaml]}\n",
		  "1:19: error: in 'defaults.vars': expected NAME=VALUE, got 'x'\n"
		  "3:35: error: in 'jobs[0].vars': expected NAME=VALUE, got '=2'\n" },
		{ "", "1:1: error: expected a mapping with 'jobs' (and 'defaults'), got an empty "
		  "file\n" },
		{ "jobs: 3\n", "1:7: error: in 'jobs': expected a list, got a scalar\n" },
	};
	char tmp[] = "/tmp/test_batch.XXXXXX";
	size_t i, k;
	int fd = mkstemp(tmp);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		char got[1024] = "";
		size_t len = 0;
		write_tmp(tmp, rows[i].text);
		CU_ASSERT_PTR_NULL(spec_batch_load(tmp, NULL, &dl));
		for (k = 0; k < dl.n && len < sizeof(got); k++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%u:%u: %s: %s\n",
						dl.items[k].loc.line, dl.items[k].loc.col,
						dl.items[k].severity == DIAG_ERROR ? "error" : "note",
						dl.items[k].message);
		CU_ASSERT_STRING_EQUAL(got, rows[i].diags);
		if (strcmp(got, rows[i].diags))
			fprintf(stderr, "row %zu: got\n%s", i, got);
		diag_list_release(&dl);
	}
	unlink(tmp);
}

static CU_TestInfo batch_tests[] = {
	{ "commands of the caller's list", test_commands },
	{ "Jinja2 variables", test_vars },
	{ "jobs, defaults, paths, overrides", test_jobs },
	{ "mistakes located", test_bad },
	{ "where the overrides are written", test_set_at },
	{ "the file's own mistakes, located", test_located },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "batch", .pTests = batch_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
