/*
 * expr: the Python-style expressions that Timeloop's v0.4 front end
 * evaluates in spec values (internal to specs/).
 *
 * A subset of Python's expression grammar: int, float, str, bool and None
 * values; + - * / // % ** with Python's rules (true division, floor
 * division and modulo by the divisor's sign, bool counts as int); chained
 * comparisons; and, or, not, x if c else y; calls of a fixed set of
 * builtins (min, max, abs, round, int, float, bool, str, len, sum, pow,
 * ceil, floor, log, log2, log10, sqrt, exp); attribute access and
 * subscripts on mappings and lists of the spec. Names are resolved by the
 * caller's environment first, then as the math constants pi, e, tau, inf
 * and nan. Integers are 64-bit: a result Python would hold as a bigger
 * integer is an "integer overflow" error. Nothing is printed; errors come
 * back as a message and the byte offset they concern.
 */
#ifndef SPECS_EXPR_INT_H
#define SPECS_EXPR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"

struct strbuf;
struct ysrc_node;

enum expr_kind { EXPR_NONE, EXPR_BOOL, EXPR_INT, EXPR_FLOAT, EXPR_STR, EXPR_NODE };

struct expr_value {
	enum expr_kind kind;
	bool b;                        /* EXPR_BOOL */
	int64_t i;                     /* EXPR_INT */
	double f;                      /* EXPR_FLOAT */
	const char *s;                 /* EXPR_STR: NUL-terminated, borrowed or in the env's arena */
	const struct ysrc_node *node;  /* EXPR_NODE: a mapping or a list of the spec */
};

/*
 * An evaluation error: 'msg' concerns byte 'offset' of the text. When the
 * error happened in another value that the expression used (a variable
 * whose own expression failed), 'at' is that value's location and 'msg'
 * already carries its key path; 'offset' is still where it was used.
 */
struct expr_error {
	size_t offset;
	bool syntax;                   /* the text does not parse: no expression at all */
	bool elsewhere;
	struct diag_loc at;
	char msg[256];
};

struct expr_env {
	/*
	 * Bind the name name[0..len): return 0 with '*out' set, 1 when the name
	 * is not bound, or -1 with 'err->msg' (and 'err->elsewhere', 'err->at')
	 * set when the bound value has an error of its own. May be NULL.
	 */
	int (*lookup)(void *ctx, const char *name, size_t len, struct expr_value *out,
		      struct expr_error *err);
	/*
	 * The value of scalar node 'n' reached through a mapping or a list:
	 * return 0 with '*out' set, or -1 with 'err' set. NULL: literals only.
	 */
	int (*scalar)(void *ctx, const struct ysrc_node *n, struct expr_value *out,
		      struct expr_error *err);
	void *ctx;
	struct arena *a;               /* strings the expression makes */
};

enum expr_syntax {
	EXPR_SYNTAX_INVALID,           /* not an expression: plain text */
	EXPR_SYNTAX_NAME,              /* one bare name (not a keyword) */
	EXPR_SYNTAX_EXPR,              /* anything else that parses */
};

/* How 'text' parses (no evaluation, no names resolved). */
enum expr_syntax expr_classify(const char *text);

/*
 * Evaluate 'text' in 'env'. Returns 0 with '*out' set, or -1 with '*err'
 * set (a syntax error included). Strings in '*out' live in env->a or in
 * the spec's nodes.
 */
int expr_eval(const char *text, const struct expr_env *env, struct expr_value *out,
	      struct expr_error *err);

/*
 * The value of the YAML scalar text 'text' as a literal: null (also ''),
 * booleans (true/false, yes/no, on/off in any case), integers and floats
 * (finite or not) become values; with 'quoted' or any other text it is a
 * string. Returns true when the text was a literal other than a string.
 */
bool expr_literal(const char *text, bool quoted, struct expr_value *out);

/*
 * Append 'v' as spec text to 'sb': integers in decimal, floats in the
 * shortest form that reads back exactly (as Python's repr), booleans as
 * true/false, None as null, strings as they are. Nodes append nothing.
 */
void expr_format(const struct expr_value *v, struct strbuf *sb);

/* Python's name of the value's type, for messages: "int", "str", "dict", ... */
const char *expr_type_name(const struct expr_value *v);

#endif
