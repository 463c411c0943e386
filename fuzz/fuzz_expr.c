/*
 * libFuzzer harness: the Python-style expression evaluator of the v0.4 front
 * end (specs/expr.c). The input is one expression; names x, y (integers), f
 * (a float) and s (a string) are bound, every other name is unbound. The
 * value is formatted back to text as the loader would.
 */
#include <stdlib.h>
#include <string.h>

#include "specs/expr_int.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lookup(void *ctx, const char *name, size_t len, struct expr_value *out,
		  struct expr_error *err)
{
	(void)ctx;
	(void)err;
	memset(out, 0, sizeof(*out));
	if (len == 1 && (name[0] == 'x' || name[0] == 'y')) {
		out->kind = EXPR_INT;
		out->i = name[0] == 'x' ? 3 : -7;
	} else if (len == 1 && name[0] == 'f') {
		out->kind = EXPR_FLOAT;
		out->f = 0.25;
	} else if (len == 1 && name[0] == 's') {
		out->kind = EXPR_STR;
		out->s = "abc";
	} else {
		return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = ARENA_INIT;
	struct expr_env env = { lookup, NULL, NULL, &a };
	struct expr_value v;
	struct expr_error err;
	struct strbuf sb = STRBUF_INIT;
	char *text = xmalloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	expr_classify(text);
	if (expr_eval(text, &env, &v, &err) == 0)
		expr_format(&v, &sb);
	else if (err.offset > size)
		abort();                /* an error must point into the text */
	strbuf_release(&sb);
	arena_release(&a);
	free(text);
	return 0;
}
