/*
 * report/json.c: the JSON document validates against the documented schema
 * (docs/json-schema.json). The test carries a small JSON parser and a
 * validator for the subset of JSON Schema the document uses (type, const,
 * enum, properties, required, additionalProperties, items, minimum), and
 * checks that the validator itself rejects wrong documents.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ------------------------------------------------------------ JSON tree */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	bool is_int, b;
	double num;
	char *str;               /* J_STR value */
	size_t n;
	struct jnode **kids;     /* J_ARR items, J_OBJ values */
	char **keys;             /* J_OBJ keys */
};

struct jparser {
	const char *p;
	bool bad;
};

static void jskip(struct jparser *jp)
{
	while (isspace((unsigned char)*jp->p))
		jp->p++;
}

static struct jnode *jnew(enum jtype t)
{
	struct jnode *n = xcalloc(1, sizeof(*n));
	n->type = t;
	return n;
}

static char *jstring(struct jparser *jp)
{
	struct strbuf sb = STRBUF_INIT;

	jp->p++;
	while (*jp->p && *jp->p != '"') {
		if (*jp->p == '\\') {
			jp->p++;
			if (*jp->p == 'u') {
				strbuf_addch(&sb, '?');
				jp->p += 4;
			} else {
				strbuf_addch(&sb, *jp->p == 'n' ? '\n' : *jp->p == 't' ? '\t' : *jp->p);
			}
		} else {
			strbuf_addch(&sb, *jp->p);
		}
		jp->p++;
	}
	if (*jp->p != '"')
		jp->bad = true;
	else
		jp->p++;
	return strbuf_detach(&sb, NULL);
}

static struct jnode *jvalue(struct jparser *jp);

static void jadd(struct jnode *n, char *key, struct jnode *kid)
{
	n->kids = xreallocarray(n->kids, n->n + 1, sizeof(*n->kids));
	n->keys = xreallocarray(n->keys, n->n + 1, sizeof(*n->keys));
	n->kids[n->n] = kid;
	n->keys[n->n++] = key;
}

static struct jnode *jcontainer(struct jparser *jp, bool obj)
{
	struct jnode *n = jnew(obj ? J_OBJ : J_ARR);
	char close = obj ? '}' : ']';

	jp->p++;
	jskip(jp);
	if (*jp->p == close) {
		jp->p++;
		return n;
	}
	for (;;) {
		char *key = NULL;
		jskip(jp);
		if (obj) {
			if (*jp->p != '"') {
				jp->bad = true;
				return n;
			}
			key = jstring(jp);
			jskip(jp);
			if (*jp->p++ != ':') {
				jp->bad = true;
				return n;
			}
		}
		jadd(n, key, jvalue(jp));
		jskip(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			return n;
		}
		jp->bad = true;
		return n;
	}
}

static struct jnode *jvalue(struct jparser *jp)
{
	struct jnode *n;
	char *end;

	jskip(jp);
	if (*jp->p == '{' || *jp->p == '[')
		return jcontainer(jp, *jp->p == '{');
	if (*jp->p == '"') {
		n = jnew(J_STR);
		n->str = jstring(jp);
		return n;
	}
	if (!strncmp(jp->p, "true", 4) || !strncmp(jp->p, "false", 5)) {
		n = jnew(J_BOOL);
		n->b = *jp->p == 't';
		jp->p += n->b ? 4 : 5;
		return n;
	}
	if (!strncmp(jp->p, "null", 4)) {
		jp->p += 4;
		return jnew(J_NULL);
	}
	n = jnew(J_NUM);
	n->num = strtod(jp->p, &end);
	if (end == jp->p)
		jp->bad = true;
	n->is_int = !memchr(jp->p, '.', (size_t)(end - jp->p)) &&
		    !memchr(jp->p, 'e', (size_t)(end - jp->p)) &&
		    !memchr(jp->p, 'E', (size_t)(end - jp->p));
	jp->p = end;
	return n;
}

static void jfree(struct jnode *n);

/* Parse 'text'; NULL when it is not one well-formed JSON value. */
static struct jnode *jparse(const char *text)
{
	struct jparser jp = { text, false };
	struct jnode *n = jvalue(&jp);

	jskip(&jp);
	if (jp.bad || *jp.p) {
		jfree(n);
		return NULL;
	}
	return n;
}

static void jfree(struct jnode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		jfree(n->kids[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->kids);
	free(n->keys);
	free(n->str);
	free(n);
}

static const struct jnode *jget(const struct jnode *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->kids[i];
	return NULL;
}

static bool jequal(const struct jnode *a, const struct jnode *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case J_NULL: return true;
	case J_BOOL: return a->b == b->b;
	case J_NUM: return a->num == b->num;
	case J_STR: return !strcmp(a->str, b->str);
	default: return false;
	}
}

/* ------------------------------------------------------------ validator */

static bool type_ok(const struct jnode *v, const char *t)
{
	if (!strcmp(t, "object")) return v->type == J_OBJ;
	if (!strcmp(t, "array")) return v->type == J_ARR;
	if (!strcmp(t, "string")) return v->type == J_STR;
	if (!strcmp(t, "boolean")) return v->type == J_BOOL;
	if (!strcmp(t, "null")) return v->type == J_NULL;
	if (!strcmp(t, "number")) return v->type == J_NUM;
	if (!strcmp(t, "integer")) return v->type == J_NUM && v->is_int;
	return false;
}

/* Number of violations of schema 's' by 'v' (the first few are printed). */
static unsigned validate(const struct jnode *v, const struct jnode *s, const char *path)
{
	const struct jnode *t = jget(s, "type"), *c;
	unsigned bad = 0;
	size_t i, k;
	char sub[512];

	if (t) {
		bool ok = false;
		if (t->type == J_STR)
			ok = type_ok(v, t->str);
		for (i = 0; t->type == J_ARR && i < t->n; i++)
			ok |= type_ok(v, t->kids[i]->str);
		if (!ok) {
			fprintf(stderr, "%s: wrong type\n", path);
			return 1;
		}
	}
	if ((c = jget(s, "const")) && !jequal(v, c)) {
		fprintf(stderr, "%s: not the constant\n", path);
		bad++;
	}
	if ((c = jget(s, "enum"))) {
		bool ok = false;
		for (i = 0; i < c->n; i++)
			ok |= jequal(v, c->kids[i]);
		if (!ok) {
			fprintf(stderr, "%s: not in the enum\n", path);
			bad++;
		}
	}
	if ((c = jget(s, "minimum")) && v->type == J_NUM && v->num < c->num) {
		fprintf(stderr, "%s: below the minimum\n", path);
		bad++;
	}
	if (v->type == J_ARR && (c = jget(s, "items"))) {
		for (i = 0; i < v->n; i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			bad += validate(v->kids[i], c, sub);
		}
	}
	if (v->type != J_OBJ)
		return bad;
	if ((c = jget(s, "required"))) {
		for (i = 0; i < c->n; i++) {
			if (!jget(v, c->kids[i]->str)) {
				fprintf(stderr, "%s: missing '%s'\n", path, c->kids[i]->str);
				bad++;
			}
		}
	}
	for (k = 0; k < v->n; k++) {
		const struct jnode *props = jget(s, "properties"), *ps = jget(props, v->keys[k]);
		const struct jnode *ap = jget(s, "additionalProperties");
		snprintf(sub, sizeof(sub), "%s.%s", path, v->keys[k]);
		if (ps)
			bad += validate(v->kids[k], ps, sub);
		else if (ap && ap->type == J_BOOL && !ap->b) {
			fprintf(stderr, "%s: not allowed\n", sub);
			bad++;
		} else if (ap && ap->type == J_OBJ)
			bad += validate(v->kids[k], ap, sub);
	}
	return bad;
}

/* ---------------------------------------------------------------- tests */

static struct jnode *schema;

static int load_schema(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, path = STRBUF_INIT;
	const char *srcdir = getenv("srcdir");

	strbuf_addf(&path, "%s/docs/json-schema.json", srcdir ? srcdir : ".");
	if (fileio_read(path.buf, &text, &err) == 0)
		schema = jparse(text.buf);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&path);
	return schema ? 0 : -1;
}

static int free_schema(void)
{
	jfree(schema);
	return 0;
}

/* Validate the JSON of 'r'; returns the violation count (-1: not JSON). */
static int check_json(const struct spec_set *s, const struct model_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	const char *files[] = { "a.yaml", "b \"quoted\".yaml" };
	struct jnode *doc;
	int bad;

	report_json(s, s->mapping, r, files, 2, &sb);
	doc = jparse(sb.buf);
	bad = doc ? (int)validate(doc, schema, "$") : -1;
	if (doc && r->status == EVAL_OK) {
		bad += !jget(doc, "summary") + !jget(doc, "levels") + !jget(doc, "compute") +
		       !jget(doc, "networks") + !jget(doc, "energy_by_tensor_pj");
	}
	jfree(doc);
	strbuf_release(&sb);
	return bad;
}

static void test_schema_parses(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(schema);
	CU_ASSERT_PTR_NOT_NULL(jget(jget(schema, "properties"), "levels"));
}

/* The validator is not vacuous: it rejects documents that break the schema. */
static void test_validator_rejects(void)
{
	static const char *const bad_docs[] = {
		"{}",
		"{\"schema\": \"fiberloop-model\", \"version\": 2}",
		"{\"schema\": \"fiberloop-model\", \"version\": 1, \"inputs\": [], \"status\": \"ok\","
		" \"reason\": null, \"fail_level\": -1, \"energy_source\": \"ERT\","
		" \"energy_preset\": null, \"footprint\": \"hull\", \"sparse_layout\": false}",
		"{\"schema\": \"fiberloop-model\", \"version\": 1, \"inputs\": [], \"status\": \"ok\","
		" \"reason\": null, \"fail_level\": -1, \"energy_source\": \"ERT\","
		" \"energy_preset\": null, \"footprint\": \"exact\", \"sparse_layout\": false,"
		" \"summary\": {\"cycles\": 1.5}}",
		"{\"schema\": \"fiberloop-model\", \"version\": 1, \"inputs\": [], \"status\": \"ok\","
		" \"reason\": null, \"fail_level\": -1, \"energy_source\": \"ERT\","
		" \"energy_preset\": null, \"footprint\": \"exact\", \"sparse_layout\": false,"
		" \"extra\": 1}",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_docs); i++) {
		struct jnode *doc = jparse(bad_docs[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		CU_ASSERT(validate(doc, schema, "$") > 0);
		jfree(doc);
	}
	CU_ASSERT_PTR_NULL(jparse("{\"a\": 1,}"));
}

static struct tb tb_;
static struct model_result res_;

static void test_hand_built(void)
{
	struct model_ws *ws;

	tb_simple_weight_stationary(&tb_);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, &tb_.m, &res_), 0);
	CU_ASSERT_EQUAL(check_json(&tb_.s, &res_), 0);
	/* an infeasible mapping: the status part only */
	tb_.levels[3].effective_size_words = 2;
	model_ws_free(ws);
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(model_eval(ws, &tb_.m, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_OVER_CAPACITY);
	CU_ASSERT_EQUAL(check_json(&tb_.s, &res_), 0);
	model_ws_free(ws);
}

/* Every conformance case, sparse ones included, in both footprint modes. */
static void test_conformance(void)
{
	static const char *const names[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	const char *dir = unit_conformance_dir();
	static const char *const cases[] = {
		"eyeriss_like", "simba_like", "01.2.1-DUDU-dot-product", "02.2.1-spMspM",
		"04.2.3-eyeriss-like-onchip-compression",
	};
	size_t c, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct model_options opt = MODEL_OPTIONS_INIT;
		struct spec_set *s;
		struct model_ws *ws;
		s = unit_load_case(cases[c], names, 4, true);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (i = 0; i < 2; i++) {
			opt.footprint = i ? MODEL_FOOTPRINT_EXACT : MODEL_FOOTPRINT_TIMELOOP;
			ws = model_ws_new(s, &opt, NULL);
			CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
			model_eval(ws, s->mapping, &res_);
			CU_ASSERT_EQUAL(check_json(s, &res_), 0);
			model_ws_free(ws);
		}
		spec_set_free(s);
	}
}

/*
 * The roofline object (--roofline) on the A100 design and its CUTLASS-style
 * mapping (examples/a100/map-gemm-dense.yaml): valid under the schema,
 * compute-bound, 2 waves, the levels outermost first with what holds them.
 */
static void test_roofline(void)
{
	static const char *const files[] = { "examples/a100/arch.yaml", "examples/a100/ERT.yaml",
					     "examples/a100/problem.yaml",
					     "examples/a100/map-gemm-dense.yaml" };
	const char *src = getenv("srcdir");
	struct spec_set *s = unit_load_files(src ? src : ".", files, 4, true);
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	struct model_result *r = xmalloc(sizeof(*r));
	struct model_ws *ws;
	struct jnode *doc;
	const struct jnode *rl;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ws = model_ws_new(s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, r), 0);
	report_json_roofline(s, s->mapping, r, NULL, 0, &sb);
	doc = jparse(sb.buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(validate(doc, schema, "$"), 0);
	rl = jget(doc, "roofline");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rl);
	CU_ASSERT_STRING_EQUAL(jget(rl, "bound")->str, "compute");
	CU_ASSERT_DOUBLE_EQUAL(jget(rl, "waves")->num, 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(rl, "compute_cycles")->num, 1048576, 0);
	CU_ASSERT_STRING_EQUAL(jget(jget(rl, "levels")->kids[0], "name")->str, "HBM");
	report_roofline(s, r, &text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text.buf, "compute: 1048576 cycles = 524288 per wave x 2 "
					  "waves"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text.buf, "Bound by: compute\n"));
	jfree(doc);
	strbuf_release(&sb);
	strbuf_release(&text);
	model_ws_free(ws);
	free(r);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "roofline object", test_roofline },
	{ "the schema parses", test_schema_parses },
	{ "the validator rejects bad documents", test_validator_rejects },
	{ "hand-built design, feasible and infeasible", test_hand_built },
	{ "conformance designs", test_conformance },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "json", .pInitFunc = load_schema, .pCleanupFunc = free_schema,
	  .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
