/*
 * Sweep axes (job/axis.c) and points (job/sweep.c): the values, paths and
 * name of an axis text, ranges (arithmetic, geometric, integer and real,
 * descending), flow values with commas inside brackets, quoted values,
 * located errors; the points of the cartesian product (first axis slowest)
 * and of zipped axes; counts that do not fit.
 */
#include "job/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct axis_case {
	const char *text;
	const char *name;              /* NULL: an error is expected */
	const char *paths;             /* "p1|p2" */
	const char *values;            /* "v1|v2|..." */
	const char *error;             /* the expected diagnostic line, when 'name' is NULL */
};

static const struct axis_case axis_cases[] = {
	{ "problem.instance.M=1,2,4", "problem.instance.M", "problem.instance.M", "1|2|4", NULL },
	{ "a.b= 1 , two ,3.5 ", "a.b", "a.b", "1|two|3.5", NULL },
	/* ranges */
	{ "a=64:1024:*2", "a", "a", "64|128|256|512|1024", NULL },
	{ "a=64:1000:x2", "a", "a", "64|128|256|512", NULL },
	{ "a=1:10:+3", "a", "a", "1|4|7|10", NULL },
	{ "a=1:10:4", "a", "a", "1|5|9", NULL },
	{ "a=10:1:-4", "a", "a", "10|6|2", NULL },
	{ "a=0.01:0.8:x2", "a", "a", "0.01|0.02|0.04|0.08|0.16|0.32|0.64", NULL },
	{ "a=0.1:0.5:+0.1", "a", "a", "0.1|0.2|0.3|0.4|0.5", NULL },
	{ "a=0.5:0.5:+0.1", "a", "a", "0.5", NULL },
	{ "a=1e-3:1e-1:x10", "a", "a", "0.001|0.01|0.1", NULL },
	{ "a=0,1:3:+1,7", "a", "a", "0|1|2|3|7", NULL },
	/* the next value would pass INT64_MIN or INT64_MAX: the range ends */
	{ "a=-8900000000000000000:-8800000000000000000:+8900000000000000000", "a", "a",
	  "-8900000000000000000", NULL },
	{ "a=8900000000000000000:8800000000000000000:-8900000000000000000", "a", "a",
	  "8900000000000000000", NULL },
	{ "a=8000000000000000000:8500000000000000000:+8500000000000000000", "a", "a",
	  "8000000000000000000", NULL },
	/* integers up to 2^63 - 1 stay integers (not a real range printed with %.12g) */
	{ "a=1:9223372036854775807:+4611686018427387904", "a", "a", "1|4611686018427387905",
	  NULL },
	{ "a=9223372036854775807:-9223372036854775808:-9223372036854775807", "a", "a",
	  "9223372036854775807|0|-9223372036854775807", NULL },
	{ "a=1:9223372036854775807:x4294967296", "a", "a", "1|4294967296", NULL },
	/* flow values: commas inside brackets and quotes stay in the value */
	{ "a=[1, 2],{x: 3, y: 4},'p,q'", "a", "a", "[1, 2]|{x: 3, y: 4}|'p,q'", NULL },
	{ "a='12:30',b", "a", "a", "'12:30'|b", NULL },
	/* several paths, selectors with commas, a name */
	{ "density:p.A.density,p.B.density=0.1,0.2", "density", "p.A.density|p.B.density",
	  "0.1|0.2", NULL },
	{ "m[target=Buffer,type=temporal].factors=K64 N64,K32 N64",
	  "m[target=Buffer,type=temporal].factors", "m[target=Buffer,type=temporal].factors",
	  "K64 N64|K32 N64", NULL },
	{ "fmt:t[name=DRAM].f,t[name=Buffer].f=CSR,bitmask", "fmt", "t[name=DRAM].f|t[name=Buffer].f",
	  "CSR|bitmask", NULL },
	/* values with '=' */
	{ "x.factors=K=4 N=2", "x.factors", "x.factors", "K=4 N=2", NULL },
	{ "x.factors=K=4,K=8", "x.factors", "x.factors", "K=4|K=8", NULL },
	/* named values: the column holds the name, the design gets the value */
	{ "fmt:a.f,b.f=coord=COO,bits=bitmask,CSR", "fmt", "a.f|b.f", "coord|bits|CSR", NULL },
	{ "s=bm=@bitmask.yaml,cp=@cp.yaml", "s", "s", "bm|cp", NULL },
	{ "fmt:a.f=coord=", NULL, NULL, NULL, "--axis 'fmt:a.f=coord=':1:14: error: no value after 'coord='" },
	/* errors */
	{ "problem.instance.M", NULL, NULL, NULL,
	  "--axis 'problem.instance.M':1:19: error: expected [NAME:]PATH[,PATH...]=VALUE,VALUE,...: no '=' after the path" },
	{ "a=1,,2", NULL, NULL, NULL,
	  "--axis 'a=1,,2':1:5: error: empty value in the list of values" },
	{ "a=1:8:y2", NULL, NULL, NULL,
	  "--axis 'a=1:8:y2':1:7: error: the step of a range must be +D, D, xF or *F, got 'y2'" },
	{ "a=1:z:2", NULL, NULL, NULL,
	  "--axis 'a=1:z:2':1:5: error: the end of a range must be a number, got 'z'" },
	{ "a=1:8", NULL, NULL, NULL,
	  "--axis 'a=1:8':1:6: error: expected a range A:B:STEP (STEP +D, D, xF or *F)" },
	{ "a=8:1:+1", NULL, NULL, NULL,
	  "--axis 'a=8:1:+1':1:3: error: range '8:1:+1' never reaches its end" },
	{ "a=0:1:x2", NULL, NULL, NULL,
	  "--axis 'a=0:1:x2':1:3: error: range '0:1:x2' never reaches its end" },
	{ "a=0.1:1:x1", NULL, NULL, NULL,
	  "--axis 'a=0.1:1:x1':1:3: error: range '0.1:1:x1' never reaches its end (a geometric range needs 0 < A <= B and a factor above 1)" },
	{ "a=0:1:+1e-9", NULL, NULL, NULL,
	  "--axis 'a=0:1:+1e-9':1:3: error: range gives more than 1000000 values" },
	{ "a=1:99999999999999999999:+1", NULL, NULL, NULL,
	  "--axis 'a=1:99999999999999999999:+1':1:5: error: '99999999999999999999' is outside the 64-bit integers" },
	{ "a=nan:1:+1", NULL, NULL, NULL,
	  "--axis 'a=nan:1:+1':1:3: error: the start of a range must be a finite number, got 'nan'" },
	{ "a=-inf:1:+1", NULL, NULL, NULL,
	  "--axis 'a=-inf:1:+1':1:3: error: the start of a range must be a finite number, got '-inf'" },
	{ "a=0:9000000000000000000:+1", NULL, NULL, NULL,
	  "--axis 'a=0:9000000000000000000:+1':1:3: error: range gives more than 1000000 values" },
	{ "a=1,1:999999:+1,2", NULL, NULL, NULL,
	  "--axis 'a=1,1:999999:+1,2':1:17: error: the axis has more than 1000000 values" },
	{ "a,,b=1", NULL, NULL, NULL,
	  "--axis 'a,,b=1':1:3: error: empty path in the list of paths" },
	{ "a[x=1.b=1", NULL, NULL, NULL,
	  "--axis 'a[x=1.b=1':1:2: error: '[' is not closed" },
	/* the path language's own errors, located in the axis */
	{ "a..b=1", NULL, NULL, NULL, "--axis 'a..b=1':1:3: error: expected a key after '.'" },
	{ "q:a.b[k=v]x=1", NULL, NULL, NULL,
	  "--axis 'q:a.b[k=v]x=1':1:11: error: expected '.' or '[' after ']'" },
};

/*
 * The overrides of an axis are located in it: each path where it is
 * written, each value at itself (a range's values at the range).
 */
static void test_axis_locations(void)
{
	static const char text[] = "n:p.M,p.N=4,1:3:+2";
	static const struct {
		size_t ov;
		unsigned path_col, value_col;
	} rows[] = {
		{ 0, 3, 11 },     /* p.M=4 */
		{ 1, 7, 11 },     /* p.N=4 */
		{ 2, 3, 13 },     /* p.M=1, from the range */
		{ 5, 7, 13 },     /* p.N=3 */
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_axis ax;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(job_axis_parse(text, &ax, &dl), 0);
	CU_ASSERT_EQUAL_FATAL(ax.n_values * ax.n_paths, 6);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct spec_override o = SPEC_OVERRIDE_INIT, *ov = &o;
		job_axis_override(&ax, rows[i].ov / ax.n_paths, rows[i].ov % ax.n_paths, ov);
		CU_ASSERT_PTR_EQUAL(ov->at.file, ax.origin);
		CU_ASSERT_EQUAL(ov->at.line, 1);
		CU_ASSERT_EQUAL(ov->at.col, rows[i].path_col);
		CU_ASSERT_PTR_EQUAL(ov->value_at.file, ax.origin);
		CU_ASSERT_EQUAL(ov->value_at.col, rows[i].value_col);
		spec_override_release(ov);
	}
	job_axis_release(&ax);
	diag_list_release(&dl);
}

/* "a|b|c" of strs[0..n). */
static void joined(const char *const *strs, size_t n, struct strbuf *sb)
{
	size_t i;
	strbuf_reset(sb);
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i ? "|" : "", strs[i]);
}

static void test_axis_parse(void)
{
	struct strbuf got = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(axis_cases); i++) {
		const struct axis_case *c = &axis_cases[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct job_axis ax;
		int rc = job_axis_parse(c->text, &ax, &dl);

		if (c->name) {
			CU_ASSERT_EQUAL(rc, 0);
			if (rc == 0) {
				CU_ASSERT_STRING_EQUAL(ax.name, c->name);
				joined(ax.paths, ax.n_paths, &got);
				CU_ASSERT_STRING_EQUAL(got.buf, c->paths);
				joined(ax.values, ax.n_values, &got);
				if (strcmp(got.buf, c->values))
					fprintf(stderr, "\ncase %zu '%s': values %s\n", i, c->text, got.buf);
				CU_ASSERT_STRING_EQUAL(got.buf, c->values);
				/* one override per (value, path), as --set would write it */
				struct spec_override ov = SPEC_OVERRIDE_INIT;
				job_axis_override(&ax, ax.n_values - 1, 0, &ov);
				CU_ASSERT_STRING_EQUAL(ov.path, ax.paths[0]);
				CU_ASSERT_STRING_EQUAL(ov.value, ax.set_values[ax.n_values - 1]);
				spec_override_release(&ov);
			} else {
				diag_print(&dl, stderr);
			}
		} else {
			char *text = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&text, &len);
			CU_ASSERT_EQUAL(rc, -1);
			diag_print(&dl, fp);
			fclose(fp);
			if (!text || strncmp(text, c->error, strlen(c->error)))
				fprintf(stderr, "\ncase %zu '%s': got\n%s", i, c->text, text);
			CU_ASSERT_TRUE(text && !strncmp(text, c->error, strlen(c->error)));
			free(text);
		}
		job_axis_release(&ax);
		diag_list_release(&dl);
	}
	strbuf_release(&got);
}

/* Parse the axes texts[0..n) (no error expected). */
static void parse_all(const char *const *texts, size_t n, struct job_axis *axes)
{
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(job_axis_parse(texts[i], &axes[i], &dl), 0);
	diag_list_release(&dl);
}

static void test_points(void)
{
	static const char *const texts[] = { "a=1,2", "b=x,y,z", "c=7,8" };
	struct job_axis axes[3];
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf got = STRBUF_INIT;
	uint64_t n, i;
	size_t vi[3];

	parse_all(texts, 3, axes);
	CU_ASSERT_EQUAL(job_sweep_count(axes, 3, false, &n, &dl), 0);
	CU_ASSERT_EQUAL(n, 12);
	for (i = 0; i < n; i++) {
		job_sweep_point(axes, 3, false, i, vi);
		strbuf_addf(&got, "%s%s%s ", axes[0].values[vi[0]], axes[1].values[vi[1]],
			    axes[2].values[vi[2]]);
	}
	CU_ASSERT_STRING_EQUAL(got.buf, "1x7 1x8 1y7 1y8 1z7 1z8 2x7 2x8 2y7 2y8 2z7 2z8 ");
	/* zipped: axes of one length */
	CU_ASSERT_EQUAL(job_sweep_count(axes, 3, true, &n, &dl), -1);
	CU_ASSERT_EQUAL(dl.n_errors, 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message,
			       "--zip takes axes of one length: 'a' has 2 values, 'b' has 3");
	CU_ASSERT_PTR_EQUAL(dl.items[0].loc.file, axes[1].origin);   /* at the axis at fault */
	CU_ASSERT_EQUAL(dl.items[0].loc.col, 1);
	CU_ASSERT_PTR_EQUAL(dl.items[1].loc.file, axes[0].origin);   /* a note at the first */
	strbuf_reset(&got);
	CU_ASSERT_EQUAL(job_sweep_count(axes + 1, 1, true, &n, &dl), 0);
	CU_ASSERT_EQUAL(n, 3);
	{
		static const char *const z[] = { "p=1,2,3", "q=a,b,c" };
		struct job_axis za[2];
		parse_all(z, 2, za);
		CU_ASSERT_EQUAL(job_sweep_count(za, 2, true, &n, &dl), 0);
		CU_ASSERT_EQUAL(n, 3);
		for (i = 0; i < n; i++) {
			job_sweep_point(za, 2, true, i, vi);
			strbuf_addf(&got, "%s%s ", za[0].values[vi[0]], za[1].values[vi[1]]);
		}
		CU_ASSERT_STRING_EQUAL(got.buf, "1a 2b 3c ");
		job_axis_release(&za[0]);
		job_axis_release(&za[1]);
	}
	for (i = 0; i < 3; i++)
		job_axis_release(&axes[i]);
	diag_list_release(&dl);
	strbuf_release(&got);
}

static void test_too_many(void)
{
	static const char *const texts[] = { "a=1:100000:+1", "b=1:100000:+1", "c=1:100:+1",
					     "d=1,2" };
	struct job_axis axes[4];
	struct diag_list dl = DIAG_LIST_INIT;
	uint64_t n;
	size_t i;

	parse_all(texts, 4, axes);
	CU_ASSERT_EQUAL(job_sweep_count(axes, 3, false, &n, &dl), 0);
	CU_ASSERT_EQUAL(n, 1000000000000ull);
	CU_ASSERT_EQUAL(job_sweep_count(axes, 4, false, &n, &dl), -1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "the sweep has more than 1000000000000 points "
			       "with this axis");
	CU_ASSERT_PTR_EQUAL(dl.items[0].loc.file, axes[3].origin);
	for (i = 0; i < 4; i++)
		job_axis_release(&axes[i]);
	diag_list_release(&dl);
}

/*
 * The limit of values per axis holds before any value is made: ranges
 * that together pass it are refused without expanding the earlier ones
 * (20 ranges of 999999 values once took 25 s and 628 MB to be refused).
 */
static void test_axis_limit_first(void)
{
	static const char *const texts[] = {
		"a=1:999999:+1,1:999999:+1,1:999999:+1",
		"a=1:999999:+1,0.5:1e6:+1",
		"a=1:600000:+1,1:2:x1.0000001",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct job_axis ax;
		CU_ASSERT_EQUAL(job_axis_parse(texts[i], &ax, &dl), -1);
		CU_ASSERT_EQUAL(ax.n_values, 0);
		CU_ASSERT_EQUAL(dl.n_errors, 1);
		job_axis_release(&ax);
		diag_list_release(&dl);
	}
}

/* What named and file values set: the value (not the name), the file, whole or at a path. */
static void test_named_and_files(void)
{
	static const struct {
		const char *text;
		size_t v, p;                   /* the override of value v at path p */
		const char *override, *file;   /* its text, its file (NULL: none) */
		bool whole;
	} cases[] = {
		{ "fmt:a.f,b.f=coord=COO,bits=bitmask", 1, 1, "b.f=bitmask", NULL, false },
		{ "fmt:a.f,b.f=coord=COO,bits=bitmask", 0, 0, "a.f=COO", NULL, false },
		{ "sparse=@bitmask.yaml,@cp.yaml", 1, 0, "sparse=@cp.yaml", "cp.yaml", true },
		{ "s=bm=@b.yaml,cp=@c.yaml", 0, 0, "s=@b.yaml", "b.yaml", true },
		/* a path, or a name given with ':': the file at the path */
		{ "sp:sparse_optimizations=@b.yaml,@c.yaml", 0, 0, "sparse_optimizations=@b.yaml",
		  "b.yaml", false },
		{ "a.b=@x.yaml,@y.yaml", 1, 0, "a.b=@y.yaml", "y.yaml", false },
		/* not every value a file: no whole-file axis */
		{ "s=@b.yaml,CSR", 1, 0, "s=CSR", NULL, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct job_axis ax;
		struct spec_override o = SPEC_OVERRIDE_INIT, *ov = &o;
		CU_ASSERT_EQUAL_FATAL(job_axis_parse(cases[i].text, &ax, &dl), 0);
		job_axis_override(&ax, cases[i].v, cases[i].p, ov);
		CU_ASSERT_STRING_EQUAL(ov->text, cases[i].override);
		if (cases[i].file) {
			CU_ASSERT_STRING_EQUAL(ov->value_file ? ov->value_file : "", cases[i].file);
		} else {
			CU_ASSERT_PTR_NULL(ov->value_file);
		}
		CU_ASSERT_EQUAL(ov->whole_file, cases[i].whole);
		spec_override_release(ov);
		job_axis_release(&ax);
		diag_list_release(&dl);
	}
}

static CU_TestInfo axis_tests[] = {
	{ "named values and file values", test_named_and_files },
	{ "the values limit before expansion", test_axis_limit_first },
	{ "axis texts: values, paths, names, errors", test_axis_parse },
	{ "overrides located in the axis", test_axis_locations },
	{ "points: cartesian and zipped", test_points },
	{ "too many points", test_too_many },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "axis", .pTests = axis_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
