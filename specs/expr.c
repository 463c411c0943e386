/*
 * Python-style expressions of Timeloop's v0.4 front end (see expr_int.h):
 * a tokenizer, a recursive-descent parser into a small tree, and an
 * evaluator with Python's arithmetic rules on 64-bit integers and doubles.
 */
#include "specs/expr_int.h"

#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "specs/ysrc_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define EXPR_MAX_DEPTH 100
#define EXPR_MAX_TOKENS 4096     /* bounds the tree, so evaluation cannot recurse too deep */

/* ------------------------------------------------------------- tokens */

enum tok_type {
	T_END, T_INT, T_FLOAT, T_STR, T_NAME,
	T_LPAR, T_RPAR, T_LBRK, T_RBRK, T_COMMA, T_DOT,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_DSLASH, T_PERCENT, T_POW,
	T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE,
	T_AND, T_OR, T_NOT, T_IF, T_ELSE, T_TRUE, T_FALSE, T_NONE,
};

struct tok {
	enum tok_type type;
	size_t pos, end;               /* byte range in the text */
	int64_t i;
	double f;
	char *s;                       /* T_STR: unescaped, in the env's arena */
};

/* Keywords of the grammar, and Python keywords it does not take. */
static const struct {
	const char *word;
	enum tok_type type;
} keywords[] = {
	{ "and", T_AND }, { "or", T_OR }, { "not", T_NOT }, { "if", T_IF }, { "else", T_ELSE },
	{ "True", T_TRUE }, { "False", T_FALSE }, { "None", T_NONE },
};
static const char *const unsupported_words[] = {
	"in", "is", "lambda", "for", "yield", "await", "import", "from", "def", "class",
	"return", "del", "global", "nonlocal", "assert", "pass", "raise", "while", "with",
	"try", "except", "finally", "as", "async", "break", "continue", "elif",
};

/* ------------------------------------------------------------ the tree */

enum ast_kind {
	A_INT, A_FLOAT, A_STR, A_BOOL, A_NONE, A_NAME,
	A_NEG, A_POS, A_NOT, A_BIN, A_AND, A_OR, A_COND, A_CMP, A_CALL, A_ATTR, A_INDEX,
};

struct ast {
	enum ast_kind kind;
	size_t pos, end;               /* the text it was parsed from */
	enum tok_type op;              /* A_BIN */
	int64_t i;
	double f;
	const char *s;                 /* A_STR, A_NAME, A_ATTR (the attribute name) */
	size_t slen;
	int a, b, c;                   /* children (node indices) */
	size_t arg0, n_args;           /* A_CALL arguments, A_CMP operands, in 'args' */
};

struct parser {
	const char *text;
	const struct expr_env *env;
	struct tok *toks;
	size_t n_toks, alloc_toks, cur;
	struct ast *nodes;
	size_t n_nodes, alloc_nodes;
	int *args;                     /* call arguments; comparison operands then ops */
	size_t n_args, alloc_args;
	unsigned depth;
	struct expr_error *err;
	bool failed;
};

/* Record the first error, at byte 'offset'. Returns -1. */
static int fail(struct parser *p, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, size_t offset, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return -1;
	p->failed = true;
	p->err->offset = offset;
	p->err->elsewhere = false;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* ----------------------------------------------------------- tokenizer */

static void push_tok(struct parser *p, const struct tok *t)
{
	XGROW(p->toks, p->n_toks + 1, p->alloc_toks);
	p->toks[p->n_toks++] = *t;
}

/* Scan the digits (with Python's single '_' separators) at s[*i] into 'sb'. */
static bool scan_digits(const char *s, size_t *i, struct strbuf *sb)
{
	bool any = false;
	while (isdigit((unsigned char)s[*i]) ||
	       (s[*i] == '_' && any && isdigit((unsigned char)s[*i + 1]))) {
		if (s[*i] != '_')
			strbuf_addch(sb, s[*i]);
		any = true;
		(*i)++;
	}
	return any;
}

/* A number literal at s[*i]: an int (64-bit) or a float. */
static int scan_number(struct parser *p, size_t *i, struct tok *t)
{
	const char *s = p->text;
	struct strbuf sb = STRBUF_INIT;
	bool is_float = false;
	int rc = 0;

	scan_digits(s, i, &sb);
	if (s[*i] == '.') {
		is_float = true;
		strbuf_addch(&sb, '.');
		(*i)++;
		scan_digits(s, i, &sb);
	}
	if ((s[*i] == 'e' || s[*i] == 'E') &&
	    (isdigit((unsigned char)s[*i + 1]) ||
	     ((s[*i + 1] == '+' || s[*i + 1] == '-') && isdigit((unsigned char)s[*i + 2])))) {
		is_float = true;
		strbuf_addch(&sb, 'e');
		(*i)++;
		if (s[*i] == '+' || s[*i] == '-')
			strbuf_addch(&sb, s[(*i)++]);
		scan_digits(s, i, &sb);
	}
	if (isalnum((unsigned char)s[*i]) || s[*i] == '_') {
		rc = fail(p, t->pos, "invalid number '%.*s'", (int)(*i - t->pos + 1), s + t->pos);
	} else if (is_float) {
		t->type = T_FLOAT;
		t->f = strtod(sb.buf, NULL);
	} else {
		errno = 0;
		t->type = T_INT;
		t->i = (int64_t)strtoll(sb.buf, NULL, 10);
		if (errno == ERANGE)
			rc = fail(p, t->pos, "integer %s is too large (64-bit integers only)", sb.buf);
	}
	strbuf_release(&sb);
	return rc;
}

/* A string literal '...' or "..." at s[*i], with Python's simple escapes. */
static int scan_string(struct parser *p, size_t *i, struct tok *t)
{
	const char *s = p->text;
	char q = s[(*i)++];
	struct strbuf sb = STRBUF_INIT;

	for (;;) {
		char c = s[*i];
		if (!c || c == '\n') {
			strbuf_release(&sb);
			return fail(p, t->pos, "unterminated string");
		}
		(*i)++;
		if (c == q)
			break;
		if (c == '\\' && s[*i]) {
			c = s[(*i)++];
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '0': c = '\0'; break;
			default: break;   /* \\, \', \" and others: the character */
			}
		}
		strbuf_addch(&sb, c);
	}
	t->type = T_STR;
	t->s = arena_strndup(p->env->a, sb.buf, sb.len);
	t->i = (int64_t)sb.len;
	strbuf_release(&sb);
	return 0;
}

/* A name or keyword at s[*i]. */
static int scan_name(struct parser *p, size_t *i, struct tok *t)
{
	const char *s = p->text;
	size_t k, len;

	while (isalnum((unsigned char)s[*i]) || s[*i] == '_')
		(*i)++;
	len = *i - t->pos;
	t->type = T_NAME;
	/* the first letter first: most names are no keyword */
	for (k = 0; k < ARRAY_SIZE(keywords); k++)
		if (keywords[k].word[0] == s[t->pos] && strlen(keywords[k].word) == len &&
		    !strncmp(s + t->pos, keywords[k].word, len))
			t->type = keywords[k].type;
	for (k = 0; k < ARRAY_SIZE(unsupported_words); k++)
		if (unsupported_words[k][0] == s[t->pos] && strlen(unsupported_words[k]) == len &&
		    !strncmp(s + t->pos, unsupported_words[k], len))
			return fail(p, t->pos, "'%s' is not supported in expressions",
				    unsupported_words[k]);
	if ((s[*i] == '\'' || s[*i] == '"') && t->type == T_NAME)
		return fail(p, t->pos, "string prefixes such as '%.*s' are not supported",
			    (int)len, s + t->pos);
	return 0;
}

/* Operators and punctuation: longest match first. */
static const struct {
	const char *text;
	enum tok_type type;
} ops[] = {
	{ "**", T_POW }, { "//", T_DSLASH }, { "<=", T_LE }, { ">=", T_GE }, { "==", T_EQ },
	{ "!=", T_NE }, { "(", T_LPAR }, { ")", T_RPAR }, { "[", T_LBRK }, { "]", T_RBRK },
	{ ",", T_COMMA }, { ".", T_DOT }, { "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
	{ "/", T_SLASH }, { "%", T_PERCENT }, { "<", T_LT }, { ">", T_GT },
};

/* Split the text into tokens (ending with T_END); -1 on a bad character. */
static int tokenize(struct parser *p)
{
	const char *s = p->text;
	size_t i = 0, k;

	for (;;) {
		struct tok t;
		while (isspace((unsigned char)s[i]))
			i++;
		memset(&t, 0, sizeof(t));
		t.pos = i;
		if (!s[i]) {
			t.type = T_END;
			t.end = i;
			push_tok(p, &t);
			return 0;
		}
		if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
			if (scan_number(p, &i, &t) < 0)
				return -1;
		} else if (s[i] == '\'' || s[i] == '"') {
			if (scan_string(p, &i, &t) < 0)
				return -1;
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
			if (scan_name(p, &i, &t) < 0)
				return -1;
		} else {
			/* every operator is one or two characters */
			for (k = 0; k < ARRAY_SIZE(ops); k++)
				if (ops[k].text[0] == s[i] &&
				    (!ops[k].text[1] || ops[k].text[1] == s[i + 1]))
					break;
			if (k == ARRAY_SIZE(ops)) {
				if ((unsigned char)s[i] < 0x80 && isprint((unsigned char)s[i]))
					return fail(p, i, "unexpected character '%c'", s[i]);
				return fail(p, i, "unexpected character");
			}
			t.type = ops[k].type;
			i += strlen(ops[k].text);
		}
		t.end = i;
		if (p->n_toks >= EXPR_MAX_TOKENS)
			return fail(p, t.pos, "the expression is too long (more than %d tokens)",
				    EXPR_MAX_TOKENS);
		push_tok(p, &t);
	}
}

/* -------------------------------------------------------------- parser */

static const struct tok *peek(const struct parser *p)
{
	return &p->toks[p->cur];
}

static bool accept(struct parser *p, enum tok_type type)
{
	if (p->toks[p->cur].type != type)
		return false;
	p->cur++;
	return true;
}

/* A new tree node of 'kind' starting at token 'from'. */
static int new_node(struct parser *p, enum ast_kind kind, size_t pos)
{
	struct ast *n;
	XGROW(p->nodes, p->n_nodes + 1, p->alloc_nodes);
	n = &p->nodes[p->n_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->pos = pos;
	n->end = p->cur > 0 ? p->toks[p->cur - 1].end : pos;
	n->a = n->b = n->c = -1;
	return (int)p->n_nodes++;
}

/* Close node 'n' at the end of the last token consumed. */
static int close_node(struct parser *p, int n)
{
	if (n >= 0 && p->cur > 0)
		p->nodes[n].end = p->toks[p->cur - 1].end;
	return n;
}

static void push_arg(struct parser *p, int v)
{
	XGROW(p->args, p->n_args + 1, p->alloc_args);
	p->args[p->n_args++] = v;
}

/* "expected X" at the current token. */
static int expected(struct parser *p, const char *what)
{
	const struct tok *t = peek(p);
	if (t->type == T_END)
		return fail(p, t->pos, "invalid syntax: expected %s at the end", what);
	return fail(p, t->pos, "invalid syntax: expected %s, got '%.*s'", what,
		    (int)(t->end - t->pos), p->text + t->pos);
}

static int parse_expr(struct parser *p);

/* A parenthesized expression, a list display is not supported. */
static int parse_atom(struct parser *p)
{
	const struct tok *t = peek(p);
	size_t pos = t->pos;
	int n;

	switch (t->type) {
	case T_INT:
		p->cur++;
		n = new_node(p, A_INT, pos);
		p->nodes[n].i = t->i;
		return n;
	case T_FLOAT:
		p->cur++;
		n = new_node(p, A_FLOAT, pos);
		p->nodes[n].f = t->f;
		return n;
	case T_STR:
		p->cur++;
		n = new_node(p, A_STR, pos);
		p->nodes[n].s = t->s;
		p->nodes[n].slen = (size_t)t->i;
		return n;
	case T_TRUE:
	case T_FALSE:
		p->cur++;
		n = new_node(p, A_BOOL, pos);
		p->nodes[n].i = t->type == T_TRUE;
		return n;
	case T_NONE:
		p->cur++;
		return new_node(p, A_NONE, pos);
	case T_NAME:
		p->cur++;
		n = new_node(p, A_NAME, pos);
		p->nodes[n].s = p->text + t->pos;
		p->nodes[n].slen = t->end - t->pos;
		return n;
	case T_LPAR:
		p->cur++;
		n = parse_expr(p);
		if (n < 0)
			return -1;
		if (!accept(p, T_RPAR))
			return expected(p, "')'");
		p->nodes[n].pos = pos;       /* the parentheses belong to it */
		return close_node(p, n);
	case T_LBRK:
		return fail(p, pos, "list displays ('[...]') are not supported");
	default:
		return expected(p, "a value");
	}
}

/* Call arguments after '(' up to ')'. */
static int parse_call(struct parser *p, int fn, size_t pos)
{
	int *argv = NULL;
	size_t n_argv = 0, alloc = 0, k;
	int n;

	if (!accept(p, T_RPAR)) {
		for (;;) {
			int a = parse_expr(p);
			if (a < 0) {
				free(argv);
				return -1;
			}
			XGROW(argv, n_argv + 1, alloc);
			argv[n_argv++] = a;
			if (accept(p, T_RPAR))
				break;
			if (!accept(p, T_COMMA)) {
				free(argv);
				return expected(p, "',' or ')'");
			}
			if (accept(p, T_RPAR))
				break;
		}
	}
	n = new_node(p, A_CALL, pos);
	p->nodes[n].a = fn;
	p->nodes[n].arg0 = p->n_args;
	p->nodes[n].n_args = n_argv;
	for (k = 0; k < n_argv; k++)
		push_arg(p, argv[k]);
	free(argv);
	return close_node(p, n);
}

/* atom followed by calls, '.name' and '[index]'. */
static int parse_postfix(struct parser *p)
{
	size_t pos = peek(p)->pos;
	int n = parse_atom(p);

	while (n >= 0) {
		if (accept(p, T_LPAR)) {
			n = parse_call(p, n, pos);
		} else if (accept(p, T_DOT)) {
			const struct tok *t = peek(p);
			int m;
			if (t->type != T_NAME)
				return expected(p, "a name after '.'");
			p->cur++;
			m = new_node(p, A_ATTR, pos);
			p->nodes[m].a = n;
			p->nodes[m].s = p->text + t->pos;
			p->nodes[m].slen = t->end - t->pos;
			n = close_node(p, m);
		} else if (accept(p, T_LBRK)) {
			int idx = parse_expr(p), m;
			if (idx < 0)
				return -1;
			if (!accept(p, T_RBRK))
				return expected(p, "']'");
			m = new_node(p, A_INDEX, pos);
			p->nodes[m].a = n;
			p->nodes[m].b = idx;
			n = close_node(p, m);
		} else {
			break;
		}
	}
	return n;
}

static int parse_unary(struct parser *p);

/* power := postfix ['**' unary] (right-associative, binds tighter than unary minus on its left). */
static int parse_power(struct parser *p)
{
	size_t pos = peek(p)->pos;
	int n = parse_postfix(p), m, r;

	if (n < 0 || !accept(p, T_POW))
		return n;
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, pos, "the expression is nested too deeply");
	r = parse_unary(p);
	p->depth--;
	if (r < 0)
		return -1;
	m = new_node(p, A_BIN, pos);
	p->nodes[m].op = T_POW;
	p->nodes[m].a = n;
	p->nodes[m].b = r;
	return close_node(p, m);
}

/* unary := ('+'|'-') unary | power */
static int parse_unary(struct parser *p)
{
	const struct tok *t = peek(p);
	size_t pos = t->pos;
	int n, m;

	if (t->type != T_MINUS && t->type != T_PLUS)
		return parse_power(p);
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, pos, "the expression is nested too deeply");
	p->cur++;
	n = parse_unary(p);
	p->depth--;
	if (n < 0)
		return -1;
	m = new_node(p, t->type == T_MINUS ? A_NEG : A_POS, pos);
	p->nodes[m].a = n;
	return close_node(p, m);
}

/* A left-associative level of binary operators 'types' over 'sub'. */
static int parse_binary(struct parser *p, int (*sub)(struct parser *), const enum tok_type *types,
			size_t n_types)
{
	size_t pos = peek(p)->pos, k;
	int n = sub(p);

	while (n >= 0) {
		enum tok_type op = peek(p)->type;
		int r, m;
		for (k = 0; k < n_types && types[k] != op; k++)
			;
		if (k == n_types)
			break;
		p->cur++;
		r = sub(p);
		if (r < 0)
			return -1;
		m = new_node(p, A_BIN, pos);
		p->nodes[m].op = op;
		p->nodes[m].a = n;
		p->nodes[m].b = r;
		n = close_node(p, m);
	}
	return n;
}

static int parse_term(struct parser *p)
{
	static const enum tok_type t[] = { T_STAR, T_SLASH, T_DSLASH, T_PERCENT };
	return parse_binary(p, parse_unary, t, ARRAY_SIZE(t));
}

static int parse_arith(struct parser *p)
{
	static const enum tok_type t[] = { T_PLUS, T_MINUS };
	return parse_binary(p, parse_term, t, ARRAY_SIZE(t));
}

static bool is_cmp(enum tok_type t)
{
	return t == T_LT || t == T_LE || t == T_GT || t == T_GE || t == T_EQ || t == T_NE;
}

/* comparison := arith (cmp arith)*, chained as in Python. */
static int parse_comparison(struct parser *p)
{
	size_t pos = peek(p)->pos, k;
	int first = parse_arith(p), n;
	int operands[32];
	enum tok_type cmpops[31];
	size_t n_ops = 0;

	if (first < 0 || !is_cmp(peek(p)->type))
		return first;
	operands[0] = first;
	while (is_cmp(peek(p)->type)) {
		if (n_ops == ARRAY_SIZE(cmpops))
			return fail(p, peek(p)->pos, "too many chained comparisons");
		cmpops[n_ops] = peek(p)->type;
		p->cur++;
		operands[n_ops + 1] = parse_arith(p);
		if (operands[n_ops + 1] < 0)
			return -1;
		n_ops++;
	}
	n = new_node(p, A_CMP, pos);
	p->nodes[n].arg0 = p->n_args;
	p->nodes[n].n_args = n_ops + 1;
	for (k = 0; k <= n_ops; k++)
		push_arg(p, operands[k]);
	for (k = 0; k < n_ops; k++)
		push_arg(p, (int)cmpops[k]);
	return close_node(p, n);
}

/* not_expr := 'not' not_expr | comparison */
static int parse_not(struct parser *p)
{
	size_t pos = peek(p)->pos;
	int n, m;

	if (!accept(p, T_NOT))
		return parse_comparison(p);
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, pos, "the expression is nested too deeply");
	n = parse_not(p);
	p->depth--;
	if (n < 0)
		return -1;
	m = new_node(p, A_NOT, pos);
	p->nodes[m].a = n;
	return close_node(p, m);
}

/* A chain of 'and' (or 'or') over 'sub'. */
static int parse_logic(struct parser *p, int (*sub)(struct parser *), enum tok_type op,
		       enum ast_kind kind)
{
	size_t pos = peek(p)->pos;
	int n = sub(p);

	while (n >= 0 && accept(p, op)) {
		int r = sub(p), m;
		if (r < 0)
			return -1;
		m = new_node(p, kind, pos);
		p->nodes[m].a = n;
		p->nodes[m].b = r;
		n = close_node(p, m);
	}
	return n;
}

static int parse_and(struct parser *p)
{
	return parse_logic(p, parse_not, T_AND, A_AND);
}

static int parse_or(struct parser *p)
{
	return parse_logic(p, parse_and, T_OR, A_OR);
}

/* expr := or_expr ['if' or_expr 'else' expr] */
static int parse_expr(struct parser *p)
{
	size_t pos = peek(p)->pos;
	int n, c, e, m;

	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, pos, "the expression is nested too deeply");
	n = parse_or(p);
	if (n >= 0 && accept(p, T_IF)) {
		c = parse_or(p);
		if (c < 0)
			return -1;
		if (!accept(p, T_ELSE))
			return expected(p, "'else'");
		e = parse_expr(p);
		if (e < 0)
			return -1;
		m = new_node(p, A_COND, pos);
		p->nodes[m].a = n;
		p->nodes[m].b = c;
		p->nodes[m].c = e;
		n = close_node(p, m);
	}
	p->depth--;
	return n;
}

/* Tokenize and parse the whole text; the root node, or -1. */
static int parse_all(struct parser *p)
{
	int root;
	if (tokenize(p) < 0)
		return -1;
	root = parse_expr(p);
	if (root < 0)
		return -1;
	if (peek(p)->type != T_END)
		return expected(p, "an operator or the end");
	return root;
}

static void parser_release(struct parser *p)
{
	free(p->toks);
	free(p->nodes);
	free(p->args);
}

enum expr_syntax expr_classify(const char *text)
{
	struct arena a = ARENA_INIT;
	struct expr_env env = { NULL, NULL, NULL, &a };
	struct expr_error err;
	struct parser p;
	enum expr_syntax r;
	int root;

	memset(&p, 0, sizeof(p));
	p.text = text;
	p.env = &env;
	p.err = &err;
	root = parse_all(&p);
	if (root < 0)
		r = EXPR_SYNTAX_INVALID;
	else if (p.nodes[root].kind == A_NAME && p.nodes[root].pos == p.toks[0].pos &&
		 p.n_toks == 2)
		r = EXPR_SYNTAX_NAME;
	else
		r = EXPR_SYNTAX_EXPR;
	parser_release(&p);
	arena_release(&a);
	return r;
}

/* ----------------------------------------------------------- values */

const char *expr_type_name(const struct expr_value *v)
{
	switch (v->kind) {
	case EXPR_NONE: return "NoneType";
	case EXPR_BOOL: return "bool";
	case EXPR_INT: return "int";
	case EXPR_FLOAT: return "float";
	case EXPR_STR: return "str";
	case EXPR_NODE: return v->node && v->node->kind == YSRC_SEQ ? "list" : "dict";
	}
	return "?";
}

static struct expr_value v_int(int64_t i)
{
	struct expr_value v = { EXPR_INT, false, i, 0, NULL, NULL };
	return v;
}

static struct expr_value v_float(double f)
{
	struct expr_value v = { EXPR_FLOAT, false, 0, f, NULL, NULL };
	return v;
}

static struct expr_value v_bool(bool b)
{
	struct expr_value v = { EXPR_BOOL, b, 0, 0, NULL, NULL };
	return v;
}

static struct expr_value v_str(const char *s)
{
	struct expr_value v = { EXPR_STR, false, 0, 0, s, NULL };
	return v;
}

static struct expr_value v_none(void)
{
	struct expr_value v = { EXPR_NONE, false, 0, 0, NULL, NULL };
	return v;
}

/* int or bool (a bool is an int in Python arithmetic). */
static bool is_intlike(const struct expr_value *v)
{
	return v->kind == EXPR_INT || v->kind == EXPR_BOOL;
}

static bool is_number(const struct expr_value *v)
{
	return is_intlike(v) || v->kind == EXPR_FLOAT;
}

static int64_t as_int(const struct expr_value *v)
{
	return v->kind == EXPR_BOOL ? (int64_t)v->b : v->i;
}

static double as_float(const struct expr_value *v)
{
	return v->kind == EXPR_FLOAT ? v->f : (double)as_int(v);
}

/* Python's truth value. */
static bool truthy(const struct expr_value *v)
{
	switch (v->kind) {
	case EXPR_NONE: return false;
	case EXPR_BOOL: return v->b;
	case EXPR_INT: return v->i != 0;
	case EXPR_FLOAT: return v->f != 0;
	case EXPR_STR: return v->s[0] != '\0';
	case EXPR_NODE: return v->node->n != 0;
	}
	return false;
}

/* Parse a decimal integer (optional sign, surrounding spaces); -1 if not one. */
static int parse_int_text(const char *s, int64_t *out)
{
	char *end;
	long long v;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno == ERANGE)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* Parse a float as Python's float() does (also inf and nan); -1 if not one. */
static int parse_float_text(const char *s, double *out)
{
	char *end;
	double v;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || strpbrk(s, "xXpP"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

bool expr_literal(const char *text, bool quoted, struct expr_value *out)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	int64_t i;
	double f;
	size_t k;

	*out = v_str(text);
	if (quoted)
		return false;
	for (k = 0; k < ARRAY_SIZE(nulls); k++)
		if (!strcmp(text, nulls[k])) {
			*out = v_none();
			return true;
		}
	for (k = 0; k < ARRAY_SIZE(yes); k++) {
		if (!strcasecmp(text, yes[k])) {
			*out = v_bool(true);
			return true;
		}
		if (!strcasecmp(text, no[k])) {
			*out = v_bool(false);
			return true;
		}
	}
	/* a name: no int, and a float only as strtod's inf, infinity or nan */
	if ((isalpha((unsigned char)text[0]) || text[0] == '_') && !strchr("iInN", text[0]))
		return false;
	if (parse_int_text(text, &i) == 0) {
		*out = v_int(i);
		return true;
	}
	if (parse_float_text(text, &f) == 0 ||
	    !strcmp(text, ".inf") || !strcmp(text, "-.inf") || !strcmp(text, ".nan")) {
		if (text[0] == '.' || (text[0] == '-' && text[1] == '.' && text[2] == 'i'))
			f = !strcmp(text, ".nan") ? NAN : (text[0] == '-' ? -INFINITY : INFINITY);
		*out = v_float(f);
		return true;
	}
	return false;
}

/*
 * Python's repr of a float: the shortest digits that read back exactly, in
 * fixed notation when the decimal exponent is in [-4, 16), else as d.ddde+XX.
 */
static void format_float(double f, struct strbuf *sb)
{
	char buf[40], digits[24];
	int prec, exp10, n, k;
	char *e;

	if (isnan(f)) {
		strbuf_addstr(sb, "nan");
		return;
	}
	if (isinf(f)) {
		strbuf_addstr(sb, f < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 0; prec <= 16; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	e = strchr(buf, 'e');
	exp10 = atoi(e + 1);
	for (n = 0, k = buf[0] == '-'; buf + k < e; k++)
		if (isdigit((unsigned char)buf[k]))
			digits[n++] = buf[k];
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	if (f < 0)
		strbuf_addch(sb, '-');
	if (exp10 >= 16 || exp10 < -4) {
		strbuf_addch(sb, digits[0]);
		if (n > 1)
			strbuf_addf(sb, ".%s", digits + 1);
		strbuf_addf(sb, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (exp10 < 0) {
		strbuf_addstr(sb, "0.");
		strbuf_addchars(sb, '0', (size_t)(-exp10 - 1));
		strbuf_addstr(sb, digits);
	} else {
		for (k = 0; k <= exp10; k++)
			strbuf_addch(sb, k < n ? digits[k] : '0');
		strbuf_addch(sb, '.');
		strbuf_addstr(sb, n > exp10 + 1 ? digits + exp10 + 1 : "0");
	}
}

void expr_format(const struct expr_value *v, struct strbuf *sb)
{
	switch (v->kind) {
	case EXPR_NONE:
		strbuf_addstr(sb, "null");
		break;
	case EXPR_BOOL:
		strbuf_addstr(sb, v->b ? "true" : "false");
		break;
	case EXPR_INT:
		strbuf_addf(sb, "%lld", (long long)v->i);
		break;
	case EXPR_FLOAT:
		format_float(v->f, sb);
		break;
	case EXPR_STR:
		strbuf_addstr(sb, v->s);
		break;
	case EXPR_NODE:
		break;
	}
}

/* Python's str() of a value, into the env's arena. */
static const char *python_str(const struct expr_env *env, const struct expr_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s;
	if (v->kind == EXPR_BOOL)
		strbuf_addstr(&sb, v->b ? "True" : "False");
	else if (v->kind == EXPR_NONE)
		strbuf_addstr(&sb, "None");
	else
		expr_format(v, &sb);
	s = arena_strdup(env->a, sb.buf);
	strbuf_release(&sb);
	return s;
}

/* ----------------------------------------------------------- evaluator */

struct evaluator {
	struct parser *p;
	const struct expr_env *env;
	unsigned depth;
};

static int eval_node(struct evaluator *ev, int n, struct expr_value *out);

/* An error at tree node 'n'. */
static int fail_at(struct evaluator *ev, int n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_at(struct evaluator *ev, int n, const char *fmt, ...)
{
	struct parser *p = ev->p;
	va_list ap;
	if (p->failed)
		return -1;
	p->failed = true;
	p->err->offset = p->nodes[n].pos;
	p->err->elsewhere = false;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* The source text of tree node 'n', for messages. */
static int span_len(const struct evaluator *ev, int n)
{
	return (int)(ev->p->nodes[n].end - ev->p->nodes[n].pos);
}

static const char *span(const struct evaluator *ev, int n)
{
	return ev->p->text + ev->p->nodes[n].pos;
}

/* The value of scalar node 'sn' reached through the spec's mappings. */
static int node_scalar(struct evaluator *ev, int at, const struct ysrc_node *sn,
		       struct expr_value *out)
{
	struct parser *p = ev->p;
	if (sn->kind != YSRC_SCALAR) {
		*out = (struct expr_value){ EXPR_NODE, false, 0, 0, NULL, sn };
		return 0;
	}
	if (!ev->env->scalar) {
		expr_literal(sn->str, sn->style != YSRC_PLAIN, out);
		return 0;
	}
	if (ev->env->scalar(ev->env->ctx, sn, out, p->err) < 0) {
		if (!p->failed) {
			p->failed = true;
			p->err->offset = p->nodes[at].pos;
		}
		return -1;
	}
	return 0;
}

/* Resolve a bare name: the environment, then the math constants. */
static int eval_name(struct evaluator *ev, int n, struct expr_value *out)
{
	static const struct {
		const char *name;
		double value;
	} consts[] = {
		{ "pi", 3.14159265358979323846 }, { "e", 2.71828182845904523536 },
		{ "tau", 6.28318530717958647692 }, { "inf", INFINITY }, { "nan", NAN },
	};
	const struct ast *a = &ev->p->nodes[n];
	size_t k;

	if (ev->env->lookup) {
		int r = ev->env->lookup(ev->env->ctx, a->s, a->slen, out, ev->p->err);
		if (r == 0)
			return 0;
		if (r < 0) {
			ev->p->failed = true;
			ev->p->err->offset = a->pos;
			return -1;
		}
	}
	for (k = 0; k < ARRAY_SIZE(consts); k++)
		if (strlen(consts[k].name) == a->slen && !strncmp(a->s, consts[k].name, a->slen)) {
			*out = v_float(consts[k].value);
			return 0;
		}
	return fail_at(ev, n, "name '%.*s' is not defined", (int)a->slen, a->s);
}

/* The operator's text for messages. */
static const char *op_text(enum tok_type op)
{
	size_t k;
	for (k = 0; k < ARRAY_SIZE(ops); k++)
		if (ops[k].type == op)
			return ops[k].text;
	return "?";
}

/* Python's floor division and modulo of doubles (Objects/floatobject.c's rules). */
static void float_divmod(double a, double b, double *div_out, double *mod_out)
{
	double mod = fmod(a, b), div = (a - mod) / b, floordiv;
	if (mod != 0) {
		if ((b < 0) != (mod < 0)) {
			mod += b;
			div -= 1.0;
		}
	} else {
		mod = copysign(0.0, b);
	}
	if (div != 0) {
		floordiv = floor(div);
		if (div - floordiv > 0.5)
			floordiv += 1.0;
	} else {
		floordiv = copysign(0.0, a / b);
	}
	*div_out = floordiv;
	*mod_out = mod;
}

/* Integer power with overflow checks; exp >= 0. */
static int int_pow(int64_t base, int64_t exp, int64_t *out)
{
	int64_t r = 1;
	while (exp > 0) {
		if (exp & 1) {
			if (__builtin_mul_overflow(r, base, &r))
				return -1;
		}
		exp >>= 1;
		if (exp && __builtin_mul_overflow(base, base, &base))
			return -1;
	}
	*out = r;
	return 0;
}

/* a ** b */
static int eval_pow(struct evaluator *ev, int n, const struct expr_value *a,
		    const struct expr_value *b, struct expr_value *out)
{
	if (is_intlike(a) && is_intlike(b) && as_int(b) >= 0) {
		int64_t r;
		if (int_pow(as_int(a), as_int(b), &r) < 0)
			return fail_at(ev, n, "integer overflow in '%.*s'", span_len(ev, n), span(ev, n));
		*out = v_int(r);
		return 0;
	}
	if (as_float(a) == 0 && as_float(b) < 0)
		return fail_at(ev, n, "0.0 cannot be raised to a negative power");
	if (as_float(a) < 0 && as_float(b) != floor(as_float(b)))
		return fail_at(ev, n, "a negative number to a fractional power is complex "
			       "(not supported)");
	*out = v_float(pow(as_float(a), as_float(b)));
	return 0;
}

/* Integer + - * // % with Python's rules; -1 after an error. */
static int int_arith(struct evaluator *ev, int n, enum tok_type op, int64_t x, int64_t y,
		     struct expr_value *out)
{
	int64_t r = 0;
	bool ovf = false;

	switch (op) {
	case T_PLUS:
		ovf = __builtin_add_overflow(x, y, &r);
		break;
	case T_MINUS:
		ovf = __builtin_sub_overflow(x, y, &r);
		break;
	case T_STAR:
		ovf = __builtin_mul_overflow(x, y, &r);
		break;
	case T_DSLASH:
	case T_PERCENT:
		if (y == 0)
			return fail_at(ev, n, "integer division or modulo by zero");
		if (x == INT64_MIN && y == -1) {
			ovf = op == T_DSLASH;
			r = 0;
			break;
		}
		r = op == T_DSLASH ? x / y : x % y;
		if ((x % y != 0) && ((x < 0) != (y < 0)))
			r = op == T_DSLASH ? r - 1 : r + y;
		break;
	default:
		BUG("integer operator %d", (int)op);
	}
	if (ovf)
		return fail_at(ev, n, "integer overflow in '%.*s'", span_len(ev, n), span(ev, n));
	*out = v_int(r);
	return 0;
}

/* A binary arithmetic operator on two values. */
static int arith(struct evaluator *ev, int n, enum tok_type op, const struct expr_value *a,
		 const struct expr_value *b, struct expr_value *out)
{
	if (op == T_PLUS && a->kind == EXPR_STR && b->kind == EXPR_STR) {
		*out = v_str(arena_printf(ev->env->a, "%s%s", a->s, b->s));
		return 0;
	}
	if (!is_number(a) || !is_number(b))
		return fail_at(ev, n, "unsupported operand type(s) for %s: '%s' and '%s'",
			       op_text(op), expr_type_name(a), expr_type_name(b));
	if (op == T_POW)
		return eval_pow(ev, n, a, b, out);
	if (op == T_SLASH) {
		if (as_float(b) == 0)
			return fail_at(ev, n, "division by zero");
		*out = v_float(as_float(a) / as_float(b));
		return 0;
	}
	if (is_intlike(a) && is_intlike(b))
		return int_arith(ev, n, op, as_int(a), as_int(b), out);
	if ((op == T_DSLASH || op == T_PERCENT) && as_float(b) == 0)
		return fail_at(ev, n, "float division or modulo by zero");
	switch (op) {
	case T_PLUS: *out = v_float(as_float(a) + as_float(b)); break;
	case T_MINUS: *out = v_float(as_float(a) - as_float(b)); break;
	case T_STAR: *out = v_float(as_float(a) * as_float(b)); break;
	case T_DSLASH:
	case T_PERCENT: {
		double d, m;
		float_divmod(as_float(a), as_float(b), &d, &m);
		*out = v_float(op == T_DSLASH ? d : m);
		break;
	}
	default:
		BUG("operator %d", (int)op);
	}
	return 0;
}

/* Compare a and b with 'op'; -1 after a type error. */
static int compare(struct evaluator *ev, int n, enum tok_type op, const struct expr_value *a,
		   const struct expr_value *b, bool *res)
{
	int c;
	if (is_number(a) && is_number(b)) {
		if (is_intlike(a) && is_intlike(b))
			c = as_int(a) < as_int(b) ? -1 : as_int(a) > as_int(b);
		else if (isnan(as_float(a)) || isnan(as_float(b)))
			c = 2;     /* unordered: only != holds */
		else
			c = as_float(a) < as_float(b) ? -1 : as_float(a) > as_float(b);
	} else if (a->kind == EXPR_STR && b->kind == EXPR_STR) {
		c = strcmp(a->s, b->s);
		c = c < 0 ? -1 : c > 0;
	} else if (op == T_EQ || op == T_NE) {
		bool same = a->kind == b->kind &&
			    (a->kind == EXPR_NONE || (a->kind == EXPR_NODE && a->node == b->node));
		*res = op == T_EQ ? same : !same;
		return 0;
	} else {
		return fail_at(ev, n, "'%s' is not supported between '%s' and '%s'", op_text(op),
			       expr_type_name(a), expr_type_name(b));
	}
	switch (op) {
	case T_LT: *res = c == -1; break;
	case T_LE: *res = c == -1 || c == 0; break;
	case T_GT: *res = c == 1; break;
	case T_GE: *res = c == 1 || c == 0; break;
	case T_EQ: *res = c == 0; break;
	case T_NE: *res = c != 0; break;
	default: BUG("comparison %d", (int)op);
	}
	return 0;
}

/* A chained comparison: a < b < c is a < b and b < c, each operand once. */
static int eval_cmp(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n];
	struct expr_value left, right;
	size_t k;
	bool res = true;

	if (eval_node(ev, ev->p->args[a->arg0], &left) < 0)
		return -1;
	for (k = 0; k + 1 < a->n_args && res; k++) {
		enum tok_type op = (enum tok_type)ev->p->args[a->arg0 + a->n_args + k];
		if (eval_node(ev, ev->p->args[a->arg0 + k + 1], &right) < 0 ||
		    compare(ev, n, op, &left, &right, &res) < 0)
			return -1;
		left = right;
	}
	*out = v_bool(res);
	return 0;
}

/* x.name: a key of a mapping of the spec. */
static int eval_attr(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n];
	const struct ysrc_pair *pr;
	struct expr_value base;
	char key[128];

	if (eval_node(ev, a->a, &base) < 0)
		return -1;
	if (base.kind != EXPR_NODE || base.node->kind != YSRC_MAP)
		return fail_at(ev, n, "'%s' object has no attribute '%.*s'", expr_type_name(&base),
			       (int)a->slen, a->s);
	snprintf(key, sizeof(key), "%.*s", (int)a->slen, a->s);
	pr = ysrc_map_pair(base.node, key);
	if (!pr)
		return fail_at(ev, n, "'%.*s' has no key '%s'", span_len(ev, a->a), span(ev, a->a),
			       key);
	return node_scalar(ev, n, pr->value, out);
}

/* x[i]: an item of a list (negative from the end) or a key of a mapping. */
static int eval_index(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n];
	struct expr_value base, idx;
	const struct ysrc_node *bn;

	if (eval_node(ev, a->a, &base) < 0 || eval_node(ev, a->b, &idx) < 0)
		return -1;
	if (base.kind != EXPR_NODE)
		return fail_at(ev, n, "'%s' object is not subscriptable", expr_type_name(&base));
	bn = base.node;
	if (bn->kind == YSRC_SEQ) {
		int64_t i;
		if (!is_intlike(&idx))
			return fail_at(ev, a->b, "list indices must be integers, not '%s'",
				       expr_type_name(&idx));
		i = as_int(&idx);
		if (i < 0)
			i += (int64_t)bn->n;
		if (i < 0 || (uint64_t)i >= bn->n)
			return fail_at(ev, a->b, "list index %lld out of range (the list has %zu "
				       "items)", (long long)as_int(&idx), bn->n);
		return node_scalar(ev, n, bn->items[i], out);
	}
	if (idx.kind != EXPR_STR)
		return fail_at(ev, a->b, "mapping keys are strings, not '%s'", expr_type_name(&idx));
	if (!ysrc_map_pair(bn, idx.s))
		return fail_at(ev, n, "'%.*s' has no key '%s'", span_len(ev, a->a), span(ev, a->a),
			       idx.s);
	return node_scalar(ev, n, ysrc_map_pair(bn, idx.s)->value, out);
}

/* The items of a list (or keys of a mapping) argument, for min/max/sum. */
static int node_items(struct evaluator *ev, int at, const struct ysrc_node *node,
		      struct expr_value **items, size_t *n_items)
{
	size_t k;
	*n_items = node->n;
	*items = xcalloc(node->n ? node->n : 1, sizeof(**items));
	for (k = 0; k < node->n; k++) {
		if (node->kind == YSRC_MAP)
			(*items)[k] = v_str(node->pairs[k].key->str);
		else if (node_scalar(ev, at, node->items[k], &(*items)[k]) < 0)
			return -1;
	}
	return 0;
}

/* min() and max(): of the arguments, or of the one list argument. */
static int fn_minmax(struct evaluator *ev, int n, bool is_max, struct expr_value *argv,
		     size_t argc, struct expr_value *out)
{
	struct expr_value *items = argv, *owned = NULL;
	size_t n_items = argc, k;
	bool better;
	int rc = 0;

	if (argc == 1 && argv[0].kind != EXPR_NODE)
		return fail_at(ev, n, "'%s' object is not iterable", expr_type_name(&argv[0]));
	if (argc == 1) {
		if (node_items(ev, n, argv[0].node, &owned, &n_items) < 0) {
			free(owned);
			return -1;
		}
		items = owned;
	}
	if (n_items == 0) {
		free(owned);
		return fail_at(ev, n, "%s() arg is an empty sequence", is_max ? "max" : "min");
	}
	*out = items[0];
	for (k = 1; k < n_items && rc == 0; k++) {
		rc = compare(ev, n, is_max ? T_GT : T_LT, &items[k], out, &better);
		if (rc == 0 && better)
			*out = items[k];
	}
	free(owned);
	return rc;
}

/* sum(list[, start]) */
static int fn_sum(struct evaluator *ev, int n, struct expr_value *argv, size_t argc,
		  struct expr_value *out)
{
	struct expr_value *items = NULL, acc = argc > 1 ? argv[1] : v_int(0);
	size_t n_items, k;
	int rc = 0;

	if (argv[0].kind != EXPR_NODE || argv[0].node->kind != YSRC_SEQ)
		return fail_at(ev, n, "sum() needs a list, got '%s'", expr_type_name(&argv[0]));
	if (node_items(ev, n, argv[0].node, &items, &n_items) < 0) {
		free(items);
		return -1;
	}
	for (k = 0; k < n_items && rc == 0; k++)
		rc = arith(ev, n, T_PLUS, &acc, &items[k], &acc);
	free(items);
	*out = acc;
	return rc;
}

/* A float result of a math function; domain and range errors as Python's. */
static int math_result(struct evaluator *ev, int n, double r, struct expr_value *out)
{
	if (isnan(r))
		return fail_at(ev, n, "math domain error");
	if (isinf(r))
		return fail_at(ev, n, "math range error");
	*out = v_float(r);
	return 0;
}

/* A float that must become an int (ceil, floor, round, int). */
static int float_to_int(struct evaluator *ev, int n, double f, struct expr_value *out)
{
	if (isnan(f))
		return fail_at(ev, n, "cannot convert float NaN to integer");
	if (isinf(f))
		return fail_at(ev, n, "cannot convert float infinity to integer");
	if (f < -9223372036854775808.0 || f >= 9223372036854775808.0)
		return fail_at(ev, n, "integer overflow in '%.*s'", span_len(ev, n), span(ev, n));
	*out = v_int((int64_t)f);
	return 0;
}

/* round(x) (half to even, an int) and round(x, digits) (a float). */
static int fn_round(struct evaluator *ev, int n, struct expr_value *argv, size_t argc,
		    struct expr_value *out)
{
	int saved = fegetround();
	double r;

	if (argc == 1 && is_intlike(&argv[0])) {
		*out = v_int(as_int(&argv[0]));
		return 0;
	}
	fesetround(FE_TONEAREST);
	if (argc == 1) {
		r = nearbyint(as_float(&argv[0]));
		fesetround(saved);
		return float_to_int(ev, n, r, out);
	}
	if (!is_intlike(&argv[1])) {
		fesetround(saved);
		return fail_at(ev, n, "round() digits must be an integer");
	}
	{
		int64_t d = as_int(&argv[1]);
		double x = as_float(&argv[0]);
		if (d >= 0) {   /* correctly rounded on the exact decimal value, as Python */
			char buf[400];
			snprintf(buf, sizeof(buf), "%.*f", (int)(d > 330 ? 330 : d), x);
			r = strtod(buf, NULL);
		} else {
			double scale = pow(10.0, (double)(d < -308 ? 308 : -d));
			r = nearbyint(x / scale) * scale;
		}
	}
	fesetround(saved);
	if (is_intlike(&argv[0]))
		return float_to_int(ev, n, r, out);
	*out = v_float(r);
	return 0;
}

/* int(x): truncation, or a decimal string. */
static int fn_int(struct evaluator *ev, int n, const struct expr_value *x, struct expr_value *out)
{
	int64_t i;
	if (is_intlike(x)) {
		*out = v_int(as_int(x));
		return 0;
	}
	if (x->kind == EXPR_FLOAT)
		return float_to_int(ev, n, trunc(x->f), out);
	if (x->kind == EXPR_STR) {
		if (parse_int_text(x->s, &i) < 0)
			return fail_at(ev, n, "invalid literal for int() with base 10: '%s'", x->s);
		*out = v_int(i);
		return 0;
	}
	return fail_at(ev, n, "int() argument must be a string or a number, not '%s'",
		       expr_type_name(x));
}

/* float(x) */
static int fn_float(struct evaluator *ev, int n, const struct expr_value *x,
		    struct expr_value *out)
{
	double f;
	if (is_number(x)) {
		*out = v_float(as_float(x));
		return 0;
	}
	if (x->kind == EXPR_STR) {
		if (parse_float_text(x->s, &f) < 0)
			return fail_at(ev, n, "could not convert string to float: '%s'", x->s);
		*out = v_float(f);
		return 0;
	}
	return fail_at(ev, n, "float() argument must be a string or a number, not '%s'",
		       expr_type_name(x));
}

/* log(x[, base]), log2(x), log10(x) */
static int fn_log(struct evaluator *ev, int n, double base, struct expr_value *argv, size_t argc,
		  struct expr_value *out)
{
	double x = as_float(&argv[0]), b = base;
	if (argc == 2)
		b = as_float(&argv[1]);
	if (x <= 0 || (argc == 2 && (b <= 0 || b == 1)))
		return fail_at(ev, n, "math domain error");
	if (b == 2)
		return math_result(ev, n, log2(x), out);
	if (b == 10)
		return math_result(ev, n, log10(x), out);
	if (b == 0)
		return math_result(ev, n, log(x), out);
	return math_result(ev, n, log(x) / log(b), out);
}

enum fn_id {
	F_MIN, F_MAX, F_ABS, F_ROUND, F_INT, F_FLOAT, F_BOOL, F_STR, F_LEN, F_SUM, F_POW,
	F_CEIL, F_FLOOR, F_LOG, F_LOG2, F_LOG10, F_SQRT, F_EXP,
};

static const struct {
	const char *name;
	enum fn_id id;
	unsigned min_args, max_args;   /* max 0: any number */
	bool numeric;                  /* every argument must be a number */
} builtins[] = {
	{ "min", F_MIN, 1, 0, false }, { "max", F_MAX, 1, 0, false },
	{ "abs", F_ABS, 1, 1, true }, { "round", F_ROUND, 1, 2, true },
	{ "int", F_INT, 1, 1, false }, { "float", F_FLOAT, 1, 1, false },
	{ "bool", F_BOOL, 1, 1, false }, { "str", F_STR, 1, 1, false },
	{ "len", F_LEN, 1, 1, false }, { "sum", F_SUM, 1, 2, false },
	{ "pow", F_POW, 2, 2, true }, { "ceil", F_CEIL, 1, 1, true },
	{ "floor", F_FLOOR, 1, 1, true }, { "log", F_LOG, 1, 2, true },
	{ "log2", F_LOG2, 1, 1, true }, { "log10", F_LOG10, 1, 1, true },
	{ "sqrt", F_SQRT, 1, 1, true }, { "exp", F_EXP, 1, 1, true },
};

/* len(x): a string's characters, a list's items or a mapping's keys. */
static int fn_len(struct evaluator *ev, int n, const struct expr_value *x, struct expr_value *out)
{
	if (x->kind == EXPR_STR)
		*out = v_int((int64_t)strlen(x->s));
	else if (x->kind == EXPR_NODE)
		*out = v_int((int64_t)x->node->n);
	else
		return fail_at(ev, n, "object of type '%s' has no len()", expr_type_name(x));
	return 0;
}

/* Apply builtin 'id' to argv[0..argc). */
static int call_builtin(struct evaluator *ev, int n, enum fn_id id, struct expr_value *argv,
			size_t argc, struct expr_value *out)
{
	double x = argc && is_number(&argv[0]) ? as_float(&argv[0]) : 0;

	switch (id) {
	case F_MIN:
	case F_MAX:
		return fn_minmax(ev, n, id == F_MAX, argv, argc, out);
	case F_ABS:
		if (is_intlike(&argv[0])) {
			if (as_int(&argv[0]) == INT64_MIN)
				return fail_at(ev, n, "integer overflow in '%.*s'", span_len(ev, n),
					       span(ev, n));
			*out = v_int(llabs(as_int(&argv[0])));
		} else {
			*out = v_float(fabs(x));
		}
		return 0;
	case F_ROUND:
		return fn_round(ev, n, argv, argc, out);
	case F_INT:
		return fn_int(ev, n, &argv[0], out);
	case F_FLOAT:
		return fn_float(ev, n, &argv[0], out);
	case F_BOOL:
		*out = v_bool(truthy(&argv[0]));
		return 0;
	case F_STR:
		*out = v_str(python_str(ev->env, &argv[0]));
		return 0;
	case F_LEN:
		return fn_len(ev, n, &argv[0], out);
	case F_SUM:
		return fn_sum(ev, n, argv, argc, out);
	case F_POW:
		return eval_pow(ev, n, &argv[0], &argv[1], out);
	case F_CEIL:
	case F_FLOOR:
		if (is_intlike(&argv[0])) {
			*out = v_int(as_int(&argv[0]));
			return 0;
		}
		return float_to_int(ev, n, id == F_CEIL ? ceil(x) : floor(x), out);
	case F_LOG:
		return fn_log(ev, n, 0, argv, argc, out);
	case F_LOG2:
		return fn_log(ev, n, 2, argv, argc, out);
	case F_LOG10:
		return fn_log(ev, n, 10, argv, argc, out);
	case F_SQRT:
		if (x < 0)
			return fail_at(ev, n, "math domain error");
		return math_result(ev, n, sqrt(x), out);
	case F_EXP:
		return math_result(ev, n, exp(x), out);
	}
	BUG("builtin %d", (int)id);
}

/* f(args): only the builtins can be called. */
static int eval_call(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n], *fn = &ev->p->nodes[a->a];
	struct expr_value argv[16];
	size_t k, b;

	if (fn->kind != A_NAME)
		return fail_at(ev, n, "'%.*s' is not callable", span_len(ev, a->a), span(ev, a->a));
	for (b = 0; b < ARRAY_SIZE(builtins); b++)
		if (strlen(builtins[b].name) == fn->slen && !strncmp(builtins[b].name, fn->s, fn->slen))
			break;
	if (b == ARRAY_SIZE(builtins))
		return fail_at(ev, a->a, "unknown function '%.*s'", (int)fn->slen, fn->s);
	if (a->n_args < builtins[b].min_args ||
	    (builtins[b].max_args && a->n_args > builtins[b].max_args) || a->n_args > ARRAY_SIZE(argv))
		return fail_at(ev, n, "%s() takes %u%s argument%s, got %zu", builtins[b].name,
			       builtins[b].min_args,
			       builtins[b].max_args == builtins[b].min_args ? "" :
			       builtins[b].max_args ? " or 2" : " or more",
			       builtins[b].max_args == 1 ? "" : "s", a->n_args);
	for (k = 0; k < a->n_args; k++) {
		int an = ev->p->args[a->arg0 + k];
		if (eval_node(ev, an, &argv[k]) < 0)
			return -1;
		if (builtins[b].numeric && !is_number(&argv[k]))
			return fail_at(ev, an, "%s() needs a number, got '%s'", builtins[b].name,
				       expr_type_name(&argv[k]));
	}
	return call_builtin(ev, n, builtins[b].id, argv, a->n_args, out);
}

/* Unary minus and plus. */
static int eval_sign(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n];
	struct expr_value x;

	if (eval_node(ev, a->a, &x) < 0)
		return -1;
	if (!is_number(&x))
		return fail_at(ev, n, "bad operand type for unary %s: '%s'",
			       a->kind == A_NEG ? "-" : "+", expr_type_name(&x));
	if (a->kind == A_POS) {
		*out = x.kind == EXPR_BOOL ? v_int(as_int(&x)) : x;
		return 0;
	}
	if (x.kind == EXPR_FLOAT) {
		*out = v_float(-x.f);
		return 0;
	}
	if (as_int(&x) == INT64_MIN)
		return fail_at(ev, n, "integer overflow in '%.*s'", span_len(ev, n), span(ev, n));
	*out = v_int(-as_int(&x));
	return 0;
}

static int eval_node(struct evaluator *ev, int n, struct expr_value *out)
{
	const struct ast *a = &ev->p->nodes[n];
	struct expr_value x, y;

	switch (a->kind) {
	case A_INT:
		*out = v_int(a->i);
		return 0;
	case A_FLOAT:
		*out = v_float(a->f);
		return 0;
	case A_STR:
		*out = v_str(a->s);
		return 0;
	case A_BOOL:
		*out = v_bool(a->i != 0);
		return 0;
	case A_NONE:
		*out = v_none();
		return 0;
	case A_NAME:
		return eval_name(ev, n, out);
	case A_NEG:
	case A_POS:
		return eval_sign(ev, n, out);
	case A_NOT:
		if (eval_node(ev, a->a, &x) < 0)
			return -1;
		*out = v_bool(!truthy(&x));
		return 0;
	case A_BIN:
		if (eval_node(ev, a->a, &x) < 0 || eval_node(ev, a->b, &y) < 0)
			return -1;
		return arith(ev, n, a->op, &x, &y, out);
	case A_AND:
	case A_OR:
		if (eval_node(ev, a->a, &x) < 0)
			return -1;
		if (truthy(&x) == (a->kind == A_OR)) {
			*out = x;
			return 0;
		}
		return eval_node(ev, a->b, out);
	case A_COND:
		if (eval_node(ev, a->b, &x) < 0)
			return -1;
		return eval_node(ev, truthy(&x) ? a->a : a->c, out);
	case A_CMP:
		return eval_cmp(ev, n, out);
	case A_CALL:
		return eval_call(ev, n, out);
	case A_ATTR:
		return eval_attr(ev, n, out);
	case A_INDEX:
		return eval_index(ev, n, out);
	}
	BUG("expression node %d", (int)a->kind);
}

/*
 * True when 'text' is one name and nothing else (no keyword, no word the
 * tokenizer refuses): its value is the environment's, without parsing.
 */
static bool plain_name(const char *text, size_t *len)
{
	size_t n, k;

	if (!(isalpha((unsigned char)text[0]) || text[0] == '_'))
		return false;
	for (n = 1; isalnum((unsigned char)text[n]) || text[n] == '_'; n++)
		;
	if (text[n])
		return false;
	for (k = 0; k < ARRAY_SIZE(keywords); k++)
		if (keywords[k].word[0] == text[0] && !strcmp(text, keywords[k].word))
			return false;
	for (k = 0; k < ARRAY_SIZE(unsupported_words); k++)
		if (unsupported_words[k][0] == text[0] && !strcmp(text, unsupported_words[k]))
			return false;
	*len = n;
	return true;
}

int expr_eval(const char *text, const struct expr_env *env, struct expr_value *out,
	      struct expr_error *err)
{
	struct parser p;
	struct evaluator ev;
	int root, rc;
	size_t len;

	memset(err, 0, sizeof(*err));
	/* most attribute texts are one name ("width"): eval_name's lookup, without the parse;
	 * a name the environment lacks (a constant, an error) takes the whole way */
	if (env->lookup && plain_name(text, &len) &&
	    env->lookup(env->ctx, text, len, out, err) == 0)
		return 0;
	memset(err, 0, sizeof(*err));
	memset(&p, 0, sizeof(p));
	p.text = text;
	p.env = env;
	p.err = err;
	root = parse_all(&p);
	if (root < 0) {
		err->syntax = true;
		parser_release(&p);
		return -1;
	}
	ev.p = &p;
	ev.env = env;
	ev.depth = 0;
	rc = eval_node(&ev, root, out);
	parser_release(&p);
	return rc;
}
