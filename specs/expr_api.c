/*
 * The public face of the expression evaluator (spec.h, "values and
 * expressions"): expr_eval() with a name lookup that speaks spec values, for
 * modules above specs/ (energy/ evaluates Accelergy's attributes with it).
 */
#include "specs/spec.h"

#include <stdio.h>
#include <string.h>

#include "specs/expr_int.h"
#include "util/strbuf.h"

/* The caller's lookup and context, seen by the evaluator's callback. */
struct api_ctx {
	spec_name_fn lookup;
	void *ctx;
};

static void to_spec(const struct expr_value *v, struct spec_value *out)
{
	memset(out, 0, sizeof(*out));
	switch (v->kind) {
	case EXPR_NONE: out->kind = SPEC_VALUE_NONE; break;
	case EXPR_BOOL: out->kind = SPEC_VALUE_BOOL; out->b = v->b; break;
	case EXPR_INT: out->kind = SPEC_VALUE_INT; out->i = v->i; break;
	case EXPR_FLOAT: out->kind = SPEC_VALUE_FLOAT; out->f = v->f; break;
	case EXPR_STR: out->kind = SPEC_VALUE_STR; out->s = v->s; break;
	case EXPR_NODE: out->kind = SPEC_VALUE_NONE; break;
	}
}

static void from_spec(const struct spec_value *v, struct expr_value *out)
{
	memset(out, 0, sizeof(*out));
	switch (v->kind) {
	case SPEC_VALUE_NONE: out->kind = EXPR_NONE; break;
	case SPEC_VALUE_BOOL: out->kind = EXPR_BOOL; out->b = v->b; break;
	case SPEC_VALUE_INT: out->kind = EXPR_INT; out->i = v->i; break;
	case SPEC_VALUE_FLOAT: out->kind = EXPR_FLOAT; out->f = v->f; break;
	case SPEC_VALUE_STR: out->kind = EXPR_STR; out->s = v->s ? v->s : ""; break;
	}
}

static int api_lookup(void *ctx, const char *name, size_t len, struct expr_value *out,
		      struct expr_error *err)
{
	struct api_ctx *c = ctx;
	struct spec_value v;
	int r;

	(void)err;
	r = c->lookup(c->ctx, name, len, &v);
	if (r != 0)
		return 1;
	from_spec(&v, out);
	return 0;
}

int spec_expr_eval(const char *text, spec_name_fn lookup, void *ctx, struct arena *a,
		   struct spec_value *out, struct spec_expr_error *err)
{
	struct api_ctx c = { lookup, ctx };
	struct expr_env env;
	struct expr_value v;
	struct expr_error e;

	memset(&env, 0, sizeof(env));
	env.lookup = lookup ? api_lookup : NULL;
	env.ctx = &c;
	env.a = a;
	memset(err, 0, sizeof(*err));
	if (expr_eval(text, &env, &v, &e) < 0) {
		err->offset = e.offset;
		err->syntax = e.syntax;
		memcpy(err->msg, e.msg, sizeof(err->msg));
		return -1;
	}
	if (v.kind == EXPR_NODE) {
		snprintf(err->msg, sizeof(err->msg), "a %s is not a value here", expr_type_name(&v));
		return -1;
	}
	to_spec(&v, out);
	return 0;
}

bool spec_value_literal(const char *text, bool quoted, struct spec_value *out)
{
	struct expr_value v;
	bool r = expr_literal(text, quoted, &v);

	to_spec(&v, out);
	return r;
}

bool spec_value_number(const struct spec_value *v, double *out)
{
	switch (v->kind) {
	case SPEC_VALUE_BOOL: *out = v->b; return true;
	case SPEC_VALUE_INT: *out = (double)v->i; return true;
	case SPEC_VALUE_FLOAT: *out = v->f; return true;
	default: return false;
	}
}

void spec_value_format(const struct spec_value *v, struct strbuf *sb)
{
	struct expr_value e;

	from_spec(v, &e);
	if (v->kind == SPEC_VALUE_NONE) {
		strbuf_addstr(sb, "None");
		return;
	}
	if (v->kind == SPEC_VALUE_BOOL) {
		strbuf_addstr(sb, v->b ? "True" : "False");
		return;
	}
	expr_format(&e, sb);
}
