/*
 * report/stpu.c: the STPU writers on the hand matrix of tests/accel/test_stpu.c
 * (4 x 6 on a 4 x 2 array): the design as parsed, the summary's rows, the
 * CSV header and row (same number of fields, the values), the JSON
 * document's members, and the model-versus-simulation table, which counts
 * a difference when one count is changed.
 */
#include <stdio.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "report/report.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static const char mtx_a[] =
	"%%MatrixMarket matrix coordinate pattern general\n"
	"4 6 8\n1 1\n2 1\n2 2\n3 3\n4 3\n1 4\n2 6\n3 6\n";

static struct spec_set *load_a(void)
{
	sf_write("a.mtx", mtx_a);
	return sf_load("stpu:\n  array: {rows: 4, cols: 2}\n  energy: {hold_pj: 0.5}\n"
		       "  matrix: {file: a.mtx}\n");
}

/* Does 'text' hold the line 'line' (whole)? */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p++;
	}
	fprintf(stderr, "missing line '%s' in:\n%s", line, text);
	return false;
}

static void test_spec(void)
{
	struct spec_set *s = load_a();
	struct strbuf sb = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	report_stpu_spec(s->stpu, &sb);
	CU_ASSERT_TRUE(has_line(sb.buf, "STPU design:"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  array: 4 x 2 PEs, fp32"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  packing: MAX_COLLISION_ROW 1, MAX_COLLISION_GROUP 15, 4 "
				"(N_ITER 2); KMZ alpha 8, gamma 0"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  energy: preset horowitz45, hold_pj 0.5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "  matrix: 4 x 6, 8 non-zeros from "));
	strbuf_release(&sb);
	spec_set_free(s);
}

static void test_text(void)
{
	struct spec_set *s = load_a();
	struct accel_stpu_result r;
	struct strbuf sb = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	report_stpu_text(&r, &sb);
	CU_ASSERT_TRUE(has_line(sb.buf, "                                        TPU        STPU-C0"
				"        STPU-C1            KMZ"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  efficiency                           1.00           2.00"
				"           2.00           2.00"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  cycles                                 11             11"
				"             11              9"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  PE hold                                 0              6"
				"             10              0"));
	CU_ASSERT_TRUE(has_line(sb.buf, "  PE multiply-add (dense)                24              0"
				"              0             12"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "hold_pj 0.5,"));
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "Density-aware estimate"));   /* a file */
	strbuf_release(&sb);
	spec_set_free(s);
}

/* Count the fields of the first line of 'text'. */
static unsigned fields(const char *text)
{
	unsigned n = 1;
	for (; *text && *text != '\n'; text++)
		n += *text == ',';
	return n;
}

static void test_csv(void)
{
	struct spec_set *s = load_a();
	struct accel_stpu_result r;
	struct strbuf head = STRBUF_INIT, row = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	report_stpu_csv_header(&head);
	report_stpu_csv_row(&r, &row);
	CU_ASSERT_EQUAL(fields(head.buf), 8 + 4 * 7);
	CU_ASSERT_EQUAL(fields(row.buf), fields(head.buf));
	CU_ASSERT_EQUAL(strncmp(head.buf, "rows,cols,nnz,density,array_rows,array_cols,dtype,"
				"estimate_efficiency,TPU_efficiency,TPU_packed_columns,TPU_cycles,", 110),
			0);
	/* no estimate for a file: its field is empty */
	CU_ASSERT_EQUAL(strncmp(row.buf, "4,6,8,0.333333333,4,2,fp32,,1,6,11,", 35), 0);
	strbuf_release(&head);
	strbuf_release(&row);
	spec_set_free(s);
}

static void test_json(void)
{
	struct spec_set *s = load_a();
	struct accel_stpu_result r;
	struct strbuf sb = STRBUF_INIT;
	const char *files[1] = { "design.yaml" };
	const char *head = "{\n  \"stpu_json_version\": 1,\n  \"files\": [\"design.yaml\"],\n";
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	report_stpu_json(&r, NULL, NULL, files, 1, &sb);
	CU_ASSERT_EQUAL(strncmp(sb.buf, head, strlen(head)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "\"STPU-C0\": {\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "\"cycles\": 11,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "\"hold_pj\": 0.5,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "\"valid\": false,\n"));
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "\"simulation\""));
	CU_ASSERT_EQUAL(sb.buf[sb.len - 2], '}');
	strbuf_release(&sb);
	spec_set_free(s);
}

/* The simulation agrees; a changed count or a wrong output is a difference. */
static void test_validation(void)
{
	struct spec_set *s = load_a();
	struct accel_stpu_result r;
	struct exec_stpu_result sim[ACCEL_STPU_N_SCHEMES];
	bool ran[ACCEL_STPU_N_SCHEMES] = { true, true, true, true };
	struct strbuf sb = STRBUF_INIT;
	struct arena a = ARENA_INIT;
	const struct spec_matrix *m;
	struct strbuf err = STRBUF_INIT;
	unsigned k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	m = accel_stpu_matrix(s->stpu, &a, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++)
		CU_ASSERT_EQUAL_FATAL(exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, 1, &sim[k],
						    &err), 0);
	CU_ASSERT_EQUAL(report_stpu_validation(&r, sim, ran, &sb), 0);
	CU_ASSERT_TRUE(has_line(sb.buf, "    cycles                             11             11"));
	CU_ASSERT_TRUE(has_line(sb.buf, "    exact"));
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "DIFFERS"));
	strbuf_reset(&sb);
	sim[ACCEL_STPU_C1].hold++;
	sim[ACCEL_STPU_KMZ].n_wrong = 2;
	CU_ASSERT_EQUAL(report_stpu_validation(&r, sim, ran, &sb), 2);
	CU_ASSERT_TRUE(has_line(sb.buf, "    hold                               10             11  "
				"DIFFERS"));
	CU_ASSERT_TRUE(has_line(sb.buf, "    MISMATCH"));
	strbuf_reset(&sb);
	report_stpu_sim_text(sim, ran, &sb);
	CU_ASSERT_TRUE(has_line(sb.buf, "  cycles                                 11             11"
				"             11              9"));
	strbuf_release(&sb);
	arena_release(&a);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "spec", test_spec },
	{ "text", test_text },
	{ "csv", test_csv },
	{ "json", test_json },
	{ "validation", test_validation },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "report/stpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
