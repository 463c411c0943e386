/*
 * report/ipu.c: the text summary, the JSON document and the CSV row of an
 * IPU evaluation carry the result's figures (and both partials types, the
 * sparse passes' and the dense baseline's); the header and the row have
 * the same columns; the model-vs-executor text says whether they agree.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "report/report.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct spec_set *load(void)
{
	static const char text[] =
		"ipu:\n  device: {preset: bow}\n"
		"  layer: {x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a],\n"
		"          dense_partials_type: half,\n"
		"          density: {distribution: hypergeometric, density: 0.25}}\n";
	const char *texts[1] = { text };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 1, NULL, &dl);

	diag_list_release(&dl);
	return s;
}

static unsigned count_char(const char *s, char c)
{
	unsigned n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

static void test_writers(void)
{
	struct spec_set *s = load();
	struct accel_ipu_options o = ACCEL_IPU_OPTIONS_INIT;
	struct accel_ipu_result *r = calloc(1, sizeof(*r));
	struct strbuf sb = STRBUF_INIT, hdr = STRBUF_INIT, row = STRBUF_INIT;
	const char *files[1] = { "layer.yaml" };
	char want[128];
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	o.n_samples = 32;
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, r, &err), 0);
	report_ipu_text(s, r, &sb);
	snprintf(want, sizeof(want), "Plan: P_X %u x P_Y %u x P_Z %u = %llu tiles", r->plan.px,
		 r->plan.py, r->plan.pz, (unsigned long long)r->plan.tiles);
	CU_ASSERT(strstr(sb.buf, want) != NULL);
	/* both partials types: the sparse passes' and the dense baseline's */
	CU_ASSERT(strstr(sb.buf, ", half, partials float (dense half), dynamic sparsity") != NULL);
	CU_ASSERT(strstr(sb.buf, "Pass fwd (ForwardAMPBlock):") != NULL);
	CU_ASSERT(strstr(sb.buf, "Pass grad_a (TransposeAMPBlock):") != NULL);
	snprintf(want, sizeof(want), "steps: expected %.4g", r->passes[SPEC_IPU_FWD].steps.expected);
	CU_ASSERT(strstr(sb.buf, want) != NULL);
	strbuf_reset(&sb);
	report_ipu_json(s, r, files, 1, &sb);
	CU_ASSERT(strstr(sb.buf, "\"kind\": \"ipu\"") != NULL);
	CU_ASSERT(strstr(sb.buf, "\"inputs\": [\n    \"layer.yaml\"\n  ]") != NULL);
	snprintf(want, sizeof(want), "\"groups_per_bucket\": %llu",
		 (unsigned long long)r->buckets.groups_per_bucket);
	CU_ASSERT(strstr(sb.buf, want) != NULL);
	CU_ASSERT(strstr(sb.buf, "\"partials_type\": \"float\",\n    \"dense_partials_type\": \"half\"") != NULL);
	CU_ASSERT(strstr(sb.buf, "\"grad_a\": {") != NULL);
	CU_ASSERT(strstr(sb.buf, "\"grad_w\"") == NULL);
	CU_ASSERT_EQUAL(count_char(sb.buf, '{'), count_char(sb.buf, '}'));
	report_ipu_csv_header(&hdr);
	report_ipu_csv_row(s, r, &row);
	CU_ASSERT_EQUAL(count_char(hdr.buf, ','), count_char(row.buf, ','));
	CU_ASSERT(strncmp(row.buf, "bow,64,64,8,4,half,dynamic,0.25,", 32) == 0);
	CU_ASSERT(strstr(row.buf, ",ok\n") != NULL);
	strbuf_release(&sb);
	strbuf_release(&hdr);
	strbuf_release(&row);
	spec_set_free(s);
	free(r);
}

/* The comparison text: agreement within 3 standard errors, and a wrong result. */
static void test_exec_text(void)
{
	struct spec_set *s = load();
	struct accel_ipu_result *r = calloc(1, sizeof(*r));
	struct exec_ipu_result e[2];
	struct strbuf sb = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, NULL, r, &err), 0);
	memset(e, 0, sizeof(e));
	e[0].passes[0].run = e[1].passes[0].run = true;
	e[0].passes[0].numeric_ok = e[1].passes[0].numeric_ok = true;
	e[0].passes[0].steps = (uint64_t)r->passes[0].steps.expected;
	e[1].passes[0].steps = (uint64_t)r->passes[0].steps.expected + 1;
	CU_ASSERT_EQUAL(report_ipu_exec_text(s, r, e, 2, &sb), 0);
	CU_ASSERT(strstr(sb.buf, "within 3 standard errors") != NULL);
	CU_ASSERT(strstr(sb.buf, "Model vs executor: agree") != NULL);
	strbuf_reset(&sb);
	e[1].passes[0].numeric_ok = false;
	e[1].passes[0].max_abs_err = 3;
	CU_ASSERT_EQUAL(report_ipu_exec_text(s, r, e, 2, &sb), -1);
	CU_ASSERT(strstr(sb.buf, "seed 2 pass fwd: result differs from the dense product by 3") != NULL);
	strbuf_release(&sb);
	spec_set_free(s);
	free(r);
}

static CU_TestInfo tests[] = {
	{ "text, JSON and CSV", test_writers },
	{ "model vs executor", test_exec_text },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "report_ipu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
