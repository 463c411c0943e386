/*
 * expr.c: Python-style expressions. One table of expressions and their
 * results (type and value, as Python computes them), one of errors with
 * their exact messages and byte offsets, and the helpers (classification,
 * literals, formatting).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/expr_int.h"
#include "specs/ysrc_int.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct arena A = ARENA_INIT;
static struct ysrc_node *spec_root;

/* Variables of the test environment. */
static int lookup(void *ctx, const char *name, size_t len, struct expr_value *out,
		  struct expr_error *err)
{
	static const struct {
		const char *name;
		const char *text;       /* a literal */
		bool quoted;
	} vars[] = {
		{ "x", "3", false }, { "y", "2.5", false }, { "neg", "-7", false },
		{ "name", "abc", true }, { "flag", "true", false }, { "nothing", "null", false },
		{ "big", "9223372036854775807", false }, { "DATAWIDTH", "8", false },
		{ "e", "100", false },
	};
	size_t i;
	(void)ctx;
	if (len == 4 && !strncmp(name, "spec", 4)) {
		*out = (struct expr_value){ EXPR_NODE, false, 0, 0, NULL, spec_root };
		return 0;
	}
	if (len == 6 && !strncmp(name, "broken", 6)) {
		err->elsewhere = true;
		err->at = (struct diag_loc){ "vars.yaml", 4, 9 };
		snprintf(err->msg, sizeof(err->msg), "in 'variables.broken': name 'zz' is not defined");
		return -1;
	}
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strlen(vars[i].name) == len && !strncmp(vars[i].name, name, len)) {
			expr_literal(vars[i].text, vars[i].quoted, out);
			return 0;
		}
	return 1;
}

static const struct expr_env ENV = { lookup, NULL, NULL, &A };

/* "kind:value" of a result. */
static char *render(const struct expr_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s:", expr_type_name(v));
	expr_format(v, &sb);
	return strbuf_detach(&sb, NULL);
}

struct ok_row {
	const char *text;
	const char *want;       /* "type:value" */
};

static void test_values(void)
{
	static const struct ok_row rows[] = {
		/* literals */
		{ "42", "int:42" }, { "1_000", "int:1000" }, { "2.5", "float:2.5" },
		{ "1e-9", "float:1e-09" }, { ".5", "float:0.5" }, { "'hi'", "str:hi" },
		{ "\"a\\tb\"", "str:a\tb" }, { "True", "bool:true" }, { "None", "NoneType:null" },
		/* precedence and associativity */
		{ "1 + 2 * 3", "int:7" }, { "(1 + 2) * 3", "int:9" }, { "2 ** 3 ** 2", "int:512" },
		{ "-2 ** 2", "int:-4" }, { "2 ** -1", "float:0.5" }, { "10 - 4 - 3", "int:3" },
		{ "-x", "int:-3" }, { "+True", "int:1" }, { "not 0", "bool:true" },
		/* Python's division and modulo */
		{ "7 / 2", "float:3.5" }, { "6 / 3", "float:2.0" }, { "7 // 2", "int:3" },
		{ "-7 // 2", "int:-4" }, { "7 // -2", "int:-4" }, { "-7 % 3", "int:2" },
		{ "7 % -3", "int:-2" }, { "7.5 // 2", "float:3.0" }, { "-7.5 % 2", "float:0.5" },
		{ "True + True", "int:2" }, { "x * y", "float:7.5" },
		/* comparisons, chained */
		{ "1 < 2 < 3", "bool:true" }, { "1 < 3 < 2", "bool:false" }, { "x == 3.0", "bool:true" },
		{ "x != 3", "bool:false" }, { "'a' < 'b'", "bool:true" }, { "name == 'abc'", "bool:true" },
		{ "nothing == None", "bool:true" }, { "x == 'x'", "bool:false" },
		/* and, or, not, conditional: operands are returned */
		{ "0 or 5", "int:5" }, { "2 and 5", "int:5" }, { "0 and 1 / 0", "int:0" },
		{ "'' or name", "str:abc" }, { "1 if flag else 2", "int:1" },
		{ "1 if not flag else 2 if x > 2 else 3", "int:2" },
		/* strings */
		{ "name + 'def'", "str:abcdef" }, { "str(x) + 'b'", "str:3b" }, { "str(2.0)", "str:2.0" },
		{ "str(flag)", "str:True" },
		/* functions */
		{ "min(4, 2, 9)", "int:2" }, { "max(x, y)", "int:3" }, { "max(1, 2.5)", "float:2.5" },
		{ "min(spec.list)", "int:1" }, { "max(spec.list)", "int:5" }, { "sum(spec.list)", "int:9" },
		{ "abs(neg)", "int:7" }, { "abs(-2.5)", "float:2.5" }, { "round(2.5)", "int:2" },
		{ "round(3.5)", "int:4" }, { "round(-0.5)", "int:0" }, { "round(2.675, 2)", "float:2.67" },
		{ "round(0.125, 2)", "float:0.12" }, { "round(1234.5, -1)", "float:1230.0" }, { "round(15, -1)", "int:20" },
		{ "int(7.9)", "int:7" }, { "int(-7.9)", "int:-7" }, { "int('12')", "int:12" },
		{ "float(3)", "float:3.0" }, { "bool(0)", "bool:false" }, { "ceil(2.1)", "int:3" },
		{ "floor(-2.1)", "int:-3" }, { "ceil(7 / 2)", "int:4" }, { "log2(1024)", "float:10.0" },
		{ "log(8, 2)", "float:3.0" }, { "log10(1000)", "float:3.0" }, { "sqrt(16)", "float:4.0" },
		{ "pow(2, 10)", "int:1024" }, { "exp(0)", "float:1.0" },
		{ "int(log2(DATAWIDTH))", "int:3" },
		/* names: the environment first, then the math constants */
		{ "DATAWIDTH * 3", "int:24" }, { "e", "int:100" }, { "pi > 3.14", "bool:true" },
		{ "inf > big", "bool:true" },
		/* the spec: attributes, subscripts, len */
		{ "len(spec.problem.instance)", "int:3" }, { "spec.problem.instance.M", "int:64" },
		{ "spec['problem']['instance']['C'] * 2", "int:6" }, { "spec.list[-1]", "int:3" },
		{ "len(spec.names)", "int:2" }, { "spec.names[0]", "str:a" }, { "len('abcd')", "int:4" },
		{ "len(spec.problem)", "int:1" }, { "spec.problem.instance.P / 2", "float:3.5" },
		/* floats print as Python's repr */
		{ "0.1 + 0.2", "float:0.30000000000000004" }, { "1e16", "float:1e+16" },
		{ "1e15", "float:1000000000000000.0" }, { "100.0", "float:100.0" },
		{ "0.0001", "float:0.0001" }, { "0.00001", "float:1e-05" }, { "-1.5e300 * 10", "float:-1.5e+301" },
		{ "big", "int:9223372036854775807" }, { "-big - 1", "int:-9223372036854775808" },
	};
	size_t i;
	int fails = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct expr_value v;
		struct expr_error err;
		char *got;
		if (expr_eval(rows[i].text, &ENV, &v, &err) < 0) {
			fprintf(stderr, "row %zu '%s': error at %zu: %s\n", i, rows[i].text, err.offset,
				err.msg);
			fails++;
			continue;
		}
		got = render(&v);
		if (strcmp(got, rows[i].want)) {
			fprintf(stderr, "row %zu '%s': got '%s', want '%s'\n", i, rows[i].text, got,
				rows[i].want);
			fails++;
		}
		free(got);
	}
	CU_ASSERT_EQUAL(fails, 0);
}

struct err_row {
	const char *text;
	size_t offset;
	const char *msg;
};

static void test_errors(void)
{
	static const struct err_row rows[] = {
		/* syntax */
		{ "1 +", 3, "invalid syntax: expected a value at the end" },
		{ "(1 + 2", 6, "invalid syntax: expected ')' at the end" },
		{ "1 2", 2, "invalid syntax: expected an operator or the end, got '2'" },
		{ "x = 3", 2, "unexpected character '='" }, { "a $ b", 2, "unexpected character '$'" },
		{ "'abc", 0, "unterminated string" }, { "12abc", 0, "invalid number '12a'" },
		{ "x if flag", 9, "invalid syntax: expected 'else' at the end" },
		{ "[1, 2]", 0, "list displays ('[...]') are not supported" },
		{ "x in spec", 2, "'in' is not supported in expressions" },
		{ "f'x'", 0, "string prefixes such as 'f' are not supported" },
		{ "max(1,, 2)", 6, "invalid syntax: expected a value, got ','" },
		{ "99999999999999999999", 0, "integer 99999999999999999999 is too large (64-bit integers only)" },
		{ "2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**"
		  "2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**"
		  "2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**2**"
		  "2**2**2**2**2**2**2**2**2**2**2**2**2**2", 297,
		  "the expression is nested too deeply" },
		/* names */
		{ "datawidth * 3", 0, "name 'datawidth' is not defined" },
		{ "x + undefined_thing", 4, "name 'undefined_thing' is not defined" },
		/* arithmetic */
		{ "1 / 0", 0, "division by zero" }, { "x // 0", 0, "integer division or modulo by zero" },
		{ "5 % 0.0", 0, "float division or modulo by zero" },
		{ "big + 1", 0, "integer overflow in 'big + 1'" },
		{ "2 ** 64", 0, "integer overflow in '2 ** 64'" },
		{ "0 ** -1", 0, "0.0 cannot be raised to a negative power" },
		{ "name * 2", 0, "unsupported operand type(s) for *: 'str' and 'int'" },
		{ "1 + nothing", 0, "unsupported operand type(s) for +: 'int' and 'NoneType'" },
		{ "-name", 0, "bad operand type for unary -: 'str'" },
		{ "x < name", 0, "'<' is not supported between 'int' and 'str'" },
		/* functions */
		{ "foo(1)", 0, "unknown function 'foo'" }, { "len(x)", 0, "object of type 'int' has no len()" },
		{ "min()", 0, "min() takes 1 or more arguments, got 0" },
		{ "abs(1, 2)", 0, "abs() takes 1 argument, got 2" },
		{ "ceil(name)", 5, "ceil() needs a number, got 'str'" },
		{ "log2(0)", 0, "math domain error" }, { "sqrt(-1)", 0, "math domain error" },
		{ "exp(1000)", 0, "math range error" }, { "int('1.5')", 0, "invalid literal for int() with base 10: '1.5'" },
		{ "int(inf)", 0, "cannot convert float infinity to integer" },
		{ "max(x)", 0, "'int' object is not iterable" },
		{ "spec.list(1)", 0, "'spec.list' is not callable" },
		/* the spec */
		{ "spec.problem.shape", 0, "'spec.problem' has no key 'shape'" },
		{ "spec.list[7]", 10, "list index 7 out of range (the list has 3 items)" },
		{ "x.y", 0, "'int' object has no attribute 'y'" }, { "x[0]", 0, "'int' object is not subscriptable" },
		{ "spec.list['a']", 10, "list indices must be integers, not 'str'" },
		/* an error in a value the expression uses is reported as that value's */
		{ "1 + broken", 4, "in 'variables.broken': name 'zz' is not defined" },
	};
	size_t i;
	int fails = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct expr_value v;
		struct expr_error err;
		if (expr_eval(rows[i].text, &ENV, &v, &err) == 0) {
			char *got = render(&v);
			fprintf(stderr, "row %zu '%s': no error, got %s\n", i, rows[i].text, got);
			free(got);
			fails++;
			continue;
		}
		if (err.offset != rows[i].offset || strcmp(err.msg, rows[i].msg)) {
			fprintf(stderr, "row %zu '%s': error at %zu '%s', want at %zu '%s'\n", i,
				rows[i].text, err.offset, err.msg, rows[i].offset, rows[i].msg);
			fails++;
		}
	}
	CU_ASSERT_EQUAL(fails, 0);
}

/* A long expression is refused before it is parsed or evaluated. */
static void test_too_long(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct expr_value v;
	struct expr_error err;
	int i;
	for (i = 0; i < 3000; i++)
		strbuf_addstr(&sb, "1 + ");
	strbuf_addstr(&sb, "1");
	CU_ASSERT_EQUAL(expr_eval(sb.buf, &ENV, &v, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "the expression is too long (more than 4096 tokens)");
	strbuf_reset(&sb);
	for (i = 0; i < 2000; i++)
		strbuf_addstr(&sb, "1 + ");
	strbuf_addstr(&sb, "1");
	CU_ASSERT_EQUAL(expr_eval(sb.buf, &ENV, &v, &err), 0);
	CU_ASSERT_EQUAL(v.i, 2001);
	strbuf_release(&sb);
}

static void test_elsewhere(void)
{
	struct expr_value v;
	struct expr_error err;
	CU_ASSERT_EQUAL(expr_eval("2 * broken", &ENV, &v, &err), -1);
	CU_ASSERT_TRUE(err.elsewhere);
	CU_ASSERT_STRING_EQUAL(err.at.file, "vars.yaml");
	CU_ASSERT_EQUAL(err.at.line, 4);
	CU_ASSERT_EQUAL(err.offset, 4);
	CU_ASSERT_EQUAL(expr_eval("2 * unknown", &ENV, &v, &err), -1);
	CU_ASSERT_FALSE(err.elsewhere);
}

static void test_classify(void)
{
	static const struct {
		const char *text;
		enum expr_syntax want;
	} rows[] = {
		{ "DATAWIDTH", EXPR_SYNTAX_NAME }, { "  spaced  ", EXPR_SYNTAX_NAME },
		{ "datawidth * 3", EXPR_SYNTAX_EXPR }, { "len(spec.problem.instance)", EXPR_SYNTAX_EXPR },
		{ "(x)", EXPR_SYNTAX_EXPR }, { "True", EXPR_SYNTAX_EXPR }, { "a.b", EXPR_SYNTAX_EXPR },
		{ "M<=8", EXPR_SYNTAX_EXPR },
		/* what Timeloop files hold as text: factors, names, technologies */
		{ "K=16 M=1", EXPR_SYNTAX_INVALID }, { "M1 N1 K128", EXPR_SYNTAX_INVALID },
		{ "45nm", EXPR_SYNTAX_INVALID }, { "N,C,P", EXPR_SYNTAX_INVALID },
		{ "smartbuffer-RF x", EXPR_SYNTAX_INVALID }, { "", EXPR_SYNTAX_INVALID },
		{ "and", EXPR_SYNTAX_INVALID },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum expr_syntax got = expr_classify(rows[i].text);
		if (got != rows[i].want)
			fprintf(stderr, "row %zu '%s': got %d\n", i, rows[i].text, (int)got);
		CU_ASSERT_EQUAL(got, rows[i].want);
	}
}

static void test_literals(void)
{
	static const struct {
		const char *text;
		bool quoted;
		bool is_literal;
		const char *want;
	} rows[] = {
		{ "12", false, true, "int:12" }, { "-3", false, true, "int:-3" },
		{ "1e3", false, true, "float:1000.0" }, { "True", false, true, "bool:true" },
		{ "no", false, true, "bool:false" }, { "~", false, true, "NoneType:null" },
		{ "", false, true, "NoneType:null" }, { ".inf", false, true, "float:inf" },
		{ "12", true, false, "str:12" }, { "abc", false, false, "str:abc" },
		{ "x * 2", false, false, "str:x * 2" },
	};
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct expr_value v;
		bool lit = expr_literal(rows[i].text, rows[i].quoted, &v);
		char *got = render(&v);
		CU_ASSERT_EQUAL(lit, rows[i].is_literal);
		if (strcmp(got, rows[i].want))
			fprintf(stderr, "row %zu: got '%s'\n", i, got);
		CU_ASSERT_STRING_EQUAL(got, rows[i].want);
		free(got);
	}
}

static int setup(void)
{
	static const char yaml[] =
		"problem: {instance: {C: 3, M: 64, P: 7}}\n"
		"list: [1, 5, 3]\n"
		"names: [a, b]\n";
	struct diag_list dl = DIAG_LIST_INIT;
	int rc = ysrc_parse(&A, "spec.yaml", yaml, strlen(yaml), &dl, &spec_root);
	diag_list_release(&dl);
	return rc;
}

static int teardown(void)
{
	arena_release(&A);
	return 0;
}

static CU_TestInfo expr_tests[] = {
	{ "values and types", test_values },
	{ "errors and offsets", test_errors },
	{ "errors in used values", test_elsewhere },
	{ "long expressions", test_too_long },
	{ "classification", test_classify },
	{ "literals", test_literals },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "expr", .pInitFunc = setup, .pCleanupFunc = teardown, .pTests = expr_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
