/*
 * Variables and expressions of Timeloop's v0.4 front end, evaluated when a
 * set is built (after the overrides, so '--set variables.X=5' changes every
 * expression that uses X). The merged view is walked in order, as the
 * front end parses it: 'variables' first, then every other top-level key.
 *
 * Names an expression may use, innermost first: the earlier keys of its own
 * mapping and of every enclosing one (the front end adds each key to the
 * symbol table once parsed); the attributes of an enclosing mapping's
 * 'attributes' key, and of every earlier !Container of a node list; the
 * names of the architecture's nodes (their mappings); then the variables,
 * 'variables' (their mapping) and 'spec' (the whole design).
 *
 * Which values are evaluated, as in the front end: every unquoted value in
 * 'variables' and directly in an 'attributes' mapping ("default parse":
 * a bare name nothing defines and text that is no expression stay text);
 * anywhere, a value in parentheses; and anywhere else, a value that a
 * number is read from but that is not one (the front end evaluates what
 * fails its type check). For the last kind the walk evaluates early and
 * keeps the outcome beside a private copy of the node: a reader that wants
 * a number takes it (ld_expr_value), a reader that wants text keeps the
 * text, so 'M<=8' stays a factor and 'split: len(spec.problem.instance)' is
 * a number.
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "specs/expr_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* An evaluation outcome kept for a reader (see the top comment). */
struct ld_deferred {
	const struct ysrc_node *node;  /* the private copy the tree holds */
	const char *value;             /* the value as text, or NULL after an error */
	const char *expr;              /* a replaced value's expression, for messages */
	bool replaced;                 /* the node holds the value already */
	bool reported;                 /* its error was reported in this build */
	struct diag_loc err_loc;       /* the error: where, and what */
	const char *err_msg;           /* with its key path when it happened elsewhere */
	bool elsewhere;
};

struct binding {
	const char *name;
	const struct ysrc_node *value;
};

#define FRAME_LOCAL 8

/*
 * A frame of names; looked up from the last binding back, then 'up'. The
 * first FRAME_LOCAL bindings are held in the frame itself ('b' NULL until
 * the first); release it with frame_release().
 */
struct frame {
	const struct frame *up;
	struct binding *b;
	size_t n, alloc;
	struct binding local[FRAME_LOCAL];
};

enum mode { TYPE_CHECK, DEFAULT_PARSE };

struct walker {
	struct ld *ld;
	struct frame globals;          /* the variables */
	struct ysrc_node *vars_map;    /* 'variables', merged and evaluated */
	struct ysrc_node *spec;        /* 'spec': the top-level keys as walked so far */
	const struct frame *cur;       /* the frame of the value being evaluated */
	const struct spec_source *src; /* its table of inert nodes, or NULL */
	uint64_t bindable;             /* the free names of 'src' this build can bind */
};

static void bind(struct frame *f, const char *name, const struct ysrc_node *value)
{
	if (!f->b) {
		f->b = f->local;
		f->alloc = FRAME_LOCAL;
	} else if (f->n == f->alloc && f->b == f->local) {   /* to the heap */
		f->b = xmalloc(2 * FRAME_LOCAL * sizeof(*f->b));
		memcpy(f->b, f->local, sizeof(f->local));
		f->alloc = 2 * FRAME_LOCAL;
	}
	XGROW(f->b, f->n + 1, f->alloc);
	f->b[f->n].name = name;
	f->b[f->n].value = value;
	f->n++;
}

static void frame_release(struct frame *f)
{
	if (f->b != f->local)
		free(f->b);
}

/* The outcome kept for node 'n', or NULL. */
static const struct ld_deferred *find_deferred(const struct ld *ld, const struct ysrc_node *n)
{
	size_t i;
	for (i = ld->n_deferred; i-- > 0;)
		if (ld->deferred[i].node == n)
			return &ld->deferred[i];
	return NULL;
}

static void fill_error(struct expr_error *err, const struct ld_deferred *d)
{
	err->elsewhere = true;
	err->at = d->err_loc;
	snprintf(err->msg, sizeof(err->msg), "%s", d->err_msg);
}

/* The value of node 'n' for an expression that names it. */
static int node_value(void *ctx, const struct ysrc_node *n, struct expr_value *out,
		      struct expr_error *err)
{
	const struct walker *w = ctx;
	const struct ld_deferred *d;

	if (n->kind != YSRC_SCALAR) {
		*out = (struct expr_value){ EXPR_NODE, false, 0, 0, NULL, n };
		return 0;
	}
	d = find_deferred(w->ld, n);
	if (d && !d->value) {
		fill_error(err, d);
		return -1;
	}
	if (d && !d->replaced) {
		expr_literal(d->value, false, out);
		if (out->kind == EXPR_STR)   /* a string result */
			out->s = d->value;
		return 0;
	}
	expr_literal(n->str, n->style != YSRC_PLAIN, out);
	return 0;
}

/* Resolve a bare name: the frames, then the variables, 'variables' and 'spec'. */
static int lookup(void *ctx, const char *name, size_t len, struct expr_value *out,
		  struct expr_error *err)
{
	const struct walker *w = ctx;
	const struct frame *f;
	size_t i;

	for (f = w->cur; f; f = f->up)
		for (i = f->n; i-- > 0;)
			if (strlen(f->b[i].name) == len && !strncmp(f->b[i].name, name, len))
				return node_value(ctx, f->b[i].value, out, err);
	if (len == 9 && !strncmp(name, "variables", 9) && w->vars_map)
		return node_value(ctx, w->vars_map, out, err);
	if (len == 4 && !strncmp(name, "spec", 4))
		return node_value(ctx, w->spec, out, err);
	return 1;
}

/*
 * A new scalar node holding value 'v' of the expression 'at' (located
 * there; a string is quoted so it is never evaluated again), remembered so
 * that messages can show the expression.
 */
static struct ysrc_node *value_node(struct ld *ld, const struct ysrc_node *at,
				    const struct expr_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	struct ysrc_node *n = arena_memdup(ld->a, at, sizeof(*n));
	struct ld_deferred *d;

	expr_format(v, &sb);
	n->str = arena_strdup(ld->a, sb.buf);
	n->style = v->kind == EXPR_STR ? YSRC_QUOTED : YSRC_PLAIN;
	n->tag = NULL;
	strbuf_release(&sb);
	XGROW(ld->deferred, ld->n_deferred + 1, ld->alloc_deferred);
	d = &ld->deferred[ld->n_deferred++];
	memset(d, 0, sizeof(*d));
	d->node = n;
	d->value = n->str;
	d->expr = at->str;
	d->replaced = true;
	return n;
}

/* The location of an evaluation error in scalar 'n'. */
static struct diag_loc error_loc(const struct ysrc_node *n, const struct expr_error *err)
{
	return err->elsewhere ? err->at : ysrc_scalar_loc_at(n, err->offset);
}

/* Keep an outcome beside a private copy of 'n'; returns the copy. */
static struct ysrc_node *defer(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			       const struct expr_value *v, const struct expr_error *err)
{
	struct ysrc_node *copy = arena_memdup(ld->a, n, sizeof(*copy));
	struct ld_deferred *d;

	XGROW(ld->deferred, ld->n_deferred + 1, ld->alloc_deferred);
	d = &ld->deferred[ld->n_deferred++];
	memset(d, 0, sizeof(*d));
	d->node = copy;
	if (v) {
		struct strbuf sb = STRBUF_INIT;
		expr_format(v, &sb);
		d->value = arena_strdup(ld->a, sb.buf);
		strbuf_release(&sb);
		return copy;
	}
	d->elsewhere = err->elsewhere;
	d->err_loc = error_loc(n, err);
	if (err->elsewhere) {
		d->err_msg = arena_strdup(ld->a, err->msg);
	} else {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "in '");
		ld_kpath_render(p, &sb);
		strbuf_addf(&sb, "': %s", err->msg);
		d->err_msg = arena_strdup(ld->a, sb.buf);
		strbuf_release(&sb);
	}
	return copy;
}

/* Report the error of an expression that must be evaluated now; returns -1. */
static int report(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		  const struct expr_error *err)
{
	if (!err->elsewhere)
		return ld_error_at(ld, error_loc(n, err), p, "%s", err->msg);
	diag_error(ld->dl, err->at, "%s", err->msg);
	ld_note(ld, n->loc, "used by '%s'", n->str);
	return -1;
}

/* True for text in parentheses: the front end always evaluates it. */
static bool parenthesized(const char *s)
{
	size_t len;
	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len >= 2 && s[0] == '(' && s[len - 1] == ')';
}

/*
 * What 'text' can be, cheaply, for the walk: a bare name (not a keyword),
 * no expression at all (one word of other characters), or either (the
 * parser must say).
 */
static enum expr_syntax quick_syntax(const char *text)
{
	static const char *const keywords[] = {
		"and", "or", "not", "if", "else", "True", "False", "None", "in", "is", "lambda",
	};
	const char *s = text;
	bool name = isalpha((unsigned char)*s) || *s == '_';
	size_t k;

	for (; *s; s++) {
		if (strchr("+-*/%<>=!()[].,'\" \t\n", *s))
			return EXPR_SYNTAX_EXPR;       /* the parser decides */
		if (!isalnum((unsigned char)*s) && *s != '_')
			name = false;
	}
	if (!name)
		return EXPR_SYNTAX_INVALID;
	for (k = 0; k < ARRAY_SIZE(keywords); k++)
		if (!strcmp(text, keywords[k]))
			return EXPR_SYNTAX_EXPR;
	return EXPR_SYNTAX_NAME;
}

/* What the walk does with the value 'v' that scalar 'n' evaluated to. */
static struct ysrc_node *evaluated(struct walker *w, struct ysrc_node *n, const struct kpath *p,
				   const struct expr_value *v, enum mode mode, bool paren)
{
	if (v->kind == EXPR_NODE)
		return paren ? (struct ysrc_node *)v->node : n;
	if (mode == DEFAULT_PARSE || paren)
		return value_node(w->ld, n, v);
	return defer(w->ld, n, p, v, NULL);
}

/* True for text the walk leaves alone at once: null, a boolean or a number. */
static bool plain_literal(const char *s)
{
	static const char *const words[] = {
		"", "~", "null", "Null", "NULL", ".inf", "-.inf", ".nan", "true", "false", "yes",
		"no", "on", "off", "True", "False", "TRUE", "FALSE", "Yes", "No", "YES", "NO", "On",
		"Off", "ON", "OFF",
	};
	bool digits = false;
	size_t k;

	if (*s == '+' || *s == '-')
		s++;
	for (; isdigit((unsigned char)*s) || *s == '_'; s++)
		if (*s != '_')
			digits = true;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++)
			digits = true;
	}
	if (digits && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (digits && !*s)
		return true;
	if (*s && !strchr("~nN.-tTfFyYoO", *s))   /* no word starts so: most text (names) */
		return false;
	for (k = 0; k < ARRAY_SIZE(words); k++)
		if (!strcmp(s, words[k]))
			return true;
	return false;
}

/*
 * Evaluate scalar 'n' in frame 'f' under 'mode'; its replacement (maybe 'n'
 * itself). Sets '*rc' to -1 after an error that had to be reported now.
 */
static struct ysrc_node *eval_scalar(struct walker *w, struct ysrc_node *n, const struct kpath *p,
				     const struct frame *f, enum mode mode, int *rc)
{
	struct expr_env env = { lookup, node_value, w, w->ld->a };
	struct expr_value v;
	struct expr_error err;
	enum expr_syntax syn;
	bool paren;

	if (n->style != YSRC_PLAIN || plain_literal(n->str))
		return n;
	w->cur = f;
	syn = quick_syntax(n->str);
	if (syn == EXPR_SYNTAX_INVALID)
		return n;
	if (syn == EXPR_SYNTAX_NAME) {     /* the common case: no parser */
		int r = lookup(w, n->str, strlen(n->str), &v, &err);
		if (r > 0)
			return n;                   /* a name nothing defines: text */
		if (r < 0)
			return defer(w->ld, n, p, NULL, &err);
		return evaluated(w, n, p, &v, mode, false);
	}
	paren = parenthesized(n->str);
	if (expr_eval(n->str, &env, &v, &err) < 0) {
		if (err.syntax && !paren)
			return n;           /* no expression: text */
		if (paren) {   /* reported now; the readers of the copy stay silent */
			struct ysrc_node *copy = defer(w->ld, n, p, NULL, &err);
			w->ld->deferred[w->ld->n_deferred - 1].reported = true;
			*rc = report(w->ld, n, p, &err);
			return copy;
		}
		return defer(w->ld, n, p, NULL, &err);
	}
	return evaluated(w, n, p, &v, mode, paren);
}

/*
 * Keys whose values are names and never numbers: outside parentheses the
 * front end does not evaluate them, and no reader wants a number there.
 */
static bool text_key(const char *key)
{
	static const char *const keys[] = {
		"name", "class", "subclass", "target", "type", "format", "distribution",
		"permutation", "factors", "keep", "bypass", "dimensions", "data_spaces", "projection",
		"algorithm", "optimization_metrics", "metric", "action", "actions",
	};
	size_t k;
	for (k = 0; k < ARRAY_SIZE(keys); k++)
		if (ysrc_key_eq(key, keys[k]))
			return true;
	return false;
}

static struct ysrc_node *walk(struct walker *w, struct ysrc_node *n, const struct kpath *p,
			      const struct frame *f, enum mode mode, int *rc);
static bool walk_unneeded(const struct walker *w, const struct ysrc_node *n, enum mode mode);

/* True for a node of a node list that is a !Container. */
static bool is_container(const struct ysrc_node *n)
{
	return n->kind == YSRC_MAP && n->tag && !strcmp(n->tag, "!Container");
}

/* Bind the keys of mapping 'm' as bare names in 'f'. */
static void bind_keys(struct frame *f, const struct ysrc_node *m)
{
	size_t i;
	if (!m || m->kind != YSRC_MAP)
		return;
	for (i = 0; i < m->n; i++)
		bind(f, m->pairs[i].key->str, m->pairs[i].value);
}

/*
 * Walk a mapping: each key sees the earlier ones, and after an
 * 'attributes' key its attributes too. 'scalars' is the mode of the
 * scalars directly in it. Returns a copy if anything changed.
 */
static struct ysrc_node *walk_map(struct walker *w, struct ysrc_node *n, const struct kpath *p,
				  const struct frame *up, enum mode scalars, int *rc)
{
	struct frame f = { .up = up };
	struct ysrc_pair *pairs = NULL;
	size_t i;

	for (i = 0; i < n->n; i++) {
		const char *key = n->pairs[i].key->str;
		struct kpath kp = KP_KEY(p, key);
		bool attrs = ysrc_key_eq(key, "attributes");
		struct ysrc_node *v = n->pairs[i].value, *nv;

		if (v->kind == YSRC_SCALAR ? v->style != YSRC_PLAIN || plain_literal(v->str) :
		    walk_unneeded(w, v, attrs ? DEFAULT_PARSE : TYPE_CHECK))
			nv = v;         /* what either branch below gives: no text_key() needed */
		else if (scalars == TYPE_CHECK && text_key(key) &&
		    (v->kind != YSRC_SCALAR || !parenthesized(v->str)))
			nv = v;
		else if (v->kind == YSRC_SCALAR)
			nv = eval_scalar(w, v, &kp, &f, scalars, rc);
		else
			nv = walk(w, v, &kp, &f, attrs ? DEFAULT_PARSE : TYPE_CHECK, rc);
		if (nv != v && !pairs)
			pairs = arena_memdup(w->ld->a, n->pairs, n->n * sizeof(*pairs));
		if (pairs)
			pairs[i].value = nv;
		bind(&f, key, nv);
		if (attrs)
			bind_keys(&f, nv);
	}
	frame_release(&f);
	if (pairs) {
		struct ysrc_node *copy = arena_memdup(w->ld->a, n, sizeof(*copy));
		copy->pairs = pairs;
		return copy;
	}
	return n;
}

/*
 * Walk a list. In a node list, every !Container's attributes are names for
 * the nodes after it.
 */
static struct ysrc_node *walk_seq(struct walker *w, struct ysrc_node *n, const struct kpath *p,
				  const struct frame *up, int *rc)
{
	struct frame f = { .up = up };
	struct ysrc_node **items = NULL;
	size_t i;

	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		struct ysrc_node *v = n->items[i];
		struct ysrc_node *nv = walk(w, v, &ip, &f, TYPE_CHECK, rc);
		if (nv != v && !items)
			items = arena_memdup(w->ld->a, n->items, n->n * sizeof(*items));
		if (items)
			items[i] = nv;
		if (is_container(nv))
			bind_keys(&f, ysrc_map_get(nv, "attributes"));
	}
	frame_release(&f);
	if (items) {
		struct ysrc_node *copy = arena_memdup(w->ld->a, n, sizeof(*copy));
		copy->items = items;
		return copy;
	}
	return n;
}

/* ----------------------------------------------- inert subtrees of a source */

/*
 * A scalar the walk leaves as it is whatever names are in scope (the early
 * returns of eval_scalar() that look at nothing but the text).
 */
static bool inert_scalar(const struct ysrc_node *n)
{
	return n->style != YSRC_PLAIN || plain_literal(n->str) ||
	       quick_syntax(n->str) == EXPR_SYNTAX_INVALID;
}

static size_t inert_slot(const struct spec_source *src, const struct ysrc_node *n)
{
	uintptr_t h = (uintptr_t)n;
	h ^= h >> 17;
	h *= 0x9E3779B97F4A7C15u;
	return (size_t)(h >> 7) & (src->inert_cap - 1);
}

/* What the table says of node 'n': 0 not a node of the files, else 1 + how inert. */
static unsigned inert_find(const struct spec_source *src, const struct ysrc_node *n)
{
	size_t h;
	if (!src->inert_cap)
		return 0;
	for (h = inert_slot(src, n); src->inert_key[h]; h = (h + 1) & (src->inert_cap - 1))
		if (src->inert_key[h] == n)
			return src->inert_val[h];
	return 0;
}

bool ld_files_node(const struct spec_source *src, const struct ysrc_node *n)
{
	return src && inert_find(src, n) > 0;
}

/* Record node 'n' of the files, 'v' how inert (the first record of a node stays). */
static void inert_put(struct spec_source *src, const struct ysrc_node *n, unsigned v,
		      uint64_t as_value, uint64_t as_attrs)
{
	size_t h;
	for (h = inert_slot(src, n); src->inert_key[h]; h = (h + 1) & (src->inert_cap - 1))
		if (src->inert_key[h] == n)
			return;
	src->inert_key[h] = n;
	src->inert_val[h] = (unsigned char)(v + 1);
	src->walk_mask[2 * h] = as_value;
	src->walk_mask[2 * h + 1] = as_attrs;
}

/* The slot of source node 'n' in the table, or SIZE_MAX. */
static size_t inert_slot_of(const struct spec_source *src, const struct ysrc_node *n)
{
	size_t h;
	if (!src->inert_cap)
		return SIZE_MAX;
	for (h = inert_slot(src, n); src->inert_key[h]; h = (h + 1) & (src->inert_cap - 1))
		if (src->inert_key[h] == n)
			return h;
	return SIZE_MAX;
}

/* ------------------------------------------------ names a build can bind */

/*
 * A bare name is looked up through every frame (earlier keys, attributes,
 * node names), then the variables, 'variables' and 'spec' (lookup()); the
 * walk leaves it as it is when nothing binds it. Every binding's name is a
 * key of a mapping of the merged view (a walked copy keeps the keys; an
 * expression's value is a node of the view, never a new mapping), the name
 * of an architecture node, or a top-level key. So a name that no key, node
 * name or top-level key of the files is spelt as, and that no node an
 * override made adds, is bound by nothing in the build: the walk of a
 * subtree whose every scalar is inert or such a name changes nothing.
 */
#define WALK_ANY ((uint64_t)1 << 63)   /* may change whatever the names */

/* A set of strings (open addressing), for the table's making only. */
struct nameset {
	const char **k;
	size_t cap, n;
};

/* FNV-1a, 32 bits: the name set's slots and the free names' table. */
static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool nameset_has(const struct nameset *ns, const char *s)
{
	size_t h;
	if (!ns->cap)
		return false;
	for (h = name_hash(s) & (ns->cap - 1); ns->k[h]; h = (h + 1) & (ns->cap - 1))
		if (!strcmp(ns->k[h], s))
			return true;
	return false;
}

static void nameset_add(struct nameset *ns, const char *s)
{
	size_t h, i;
	if (nameset_has(ns, s))
		return;
	if (2 * (ns->n + 1) > ns->cap) {
		struct nameset bigger = { NULL, ns->cap ? 2 * ns->cap : 64, 0 };
		bigger.k = xcalloc(bigger.cap, sizeof(*bigger.k));
		for (i = 0; i < ns->cap; i++)
			if (ns->k[i])
				nameset_add(&bigger, ns->k[i]);
		free(ns->k);
		*ns = bigger;
	}
	for (h = name_hash(s) & (ns->cap - 1); ns->k[h]; h = (h + 1) & (ns->cap - 1))
		;
	ns->k[h] = s;
	ns->n++;
}

/* Every key of the mappings under 'n'. */
static void bound_keys(struct nameset *ns, const struct ysrc_node *n)
{
	size_t i;
	for (i = 0; n->kind == YSRC_SEQ && i < n->n; i++)
		bound_keys(ns, n->items[i]);
	for (i = 0; n->kind == YSRC_MAP && i < n->n; i++) {
		nameset_add(ns, n->pairs[i].key->str);
		bound_keys(ns, n->pairs[i].value);
	}
}

/* The names bind_node_names() gives the nodes of 'n' (without its tag test: more). */
static void bound_node_names(struct nameset *ns, const struct ysrc_node *n)
{
	const struct ysrc_node *list = ysrc_map_get(n, "nodes"), *name;
	size_t i;
	if (!list || list->kind != YSRC_SEQ)
		return;
	for (i = 0; i < list->n; i++) {
		name = ysrc_map_get(list->items[i], "name");
		if (name && name->kind == YSRC_SCALAR)
			nameset_add(ns, name->str);
		bound_node_names(ns, list->items[i]);
	}
}

/* Two bits of 2048 for name 's', from its first three bytes: a filter before the hash. */
static void name_bloom(const char *s, unsigned *b1, unsigned *b2)
{
	unsigned c0 = (unsigned char)s[0], c1 = c0 ? (unsigned char)s[1] : 0;
	unsigned c2 = c1 ? (unsigned char)s[2] : 0;
	*b1 = (c0 * 131u + c1) & 2047u;
	*b2 = (c1 * 131u + c2 * 7u + c0) & 2047u;
}

/* The bit of free name 's', or 0 when it is none. */
static uint64_t free_bit(const struct spec_source *src, const char *s)
{
	unsigned hv, h, k, b1, b2;

	name_bloom(s, &b1, &b2);
	if (!(src->free_bloom[b1 >> 3] & (1u << (b1 & 7))) ||
	    !(src->free_bloom[b2 >> 3] & (1u << (b2 & 7))))
		return 0;
	hv = name_hash(s);

	for (h = hv & 127; (k = src->free_slot[h]) != 0; h = (h + 1) & 127)
		if (src->free_hash[k - 1] == hv && !strcmp(src->free_names[k - 1], s))
			return (uint64_t)1 << (k - 1);
	return 0;
}

/* The bit of a bare name no binding of the files has (WALK_ANY past 63 of them). */
static uint64_t free_name(struct spec_source *src, const char *s)
{
	uint64_t b = free_bit(src, s);
	unsigned hv, h, k = src->n_free_names, b1, b2;
	if (b)
		return b;
	if (k == ARRAY_SIZE(src->free_names))
		return WALK_ANY;
	hv = name_hash(s);
	for (h = hv & 127; src->free_slot[h]; h = (h + 1) & 127)
		;
	src->free_slot[h] = (unsigned char)(k + 1);
	name_bloom(s, &b1, &b2);
	src->free_bloom[b1 >> 3] |= (unsigned char)(1u << (b1 & 7));
	src->free_bloom[b2 >> 3] |= (unsigned char)(1u << (b2 & 7));
	src->free_hash[k] = hv;
	src->free_names[k] = s;
	src->n_free_names++;
	return (uint64_t)1 << k;
}

/* What the walk of scalar 'n' depends on: nothing (0), a free name's bit, or anything. */
static uint64_t scalar_mask(struct spec_source *src, const struct nameset *bound,
			    const struct ysrc_node *n)
{
	if (inert_scalar(n))
		return 0;
	if (quick_syntax(n->str) != EXPR_SYNTAX_NAME || nameset_has(bound, n->str))
		return WALK_ANY;
	return free_name(src, n->str);
}

/* Record the nodes of a key the walk leaves alone: nodes of the files, nothing more. */
static void files_mark(struct spec_source *src, const struct ysrc_node *n, size_t *count)
{
	size_t i;

	if (count)
		++*count;
	else
		inert_put(src, n, 0, WALK_ANY, WALK_ANY);
	for (i = 0; n->kind == YSRC_SEQ && i < n->n; i++)
		files_mark(src, n->items[i], count);
	for (i = 0; n->kind == YSRC_MAP && i < n->n; i++)
		files_mark(src, n->pairs[i].value, count);
}

/*
 * Record what the walk of 'n' and of the nodes under it depends on,
 * following walk_map()'s and walk_seq()'s rules: in a mapping walked as a
 * value, a name-valued key (text_key) is skipped unless parenthesized; an
 * 'attributes' mapping is walked in default-parse mode, which skips
 * nothing; a scalar is walked alike in both modes (a bare name nothing
 * binds stays text in both). '*as_attrs': the mask of 'n' walked as an
 * 'attributes' mapping; returns the mask walked as a value.
 */
static uint64_t inert_mark(struct spec_source *src, const struct nameset *bound,
			   const struct ysrc_node *n, uint64_t *as_attrs)
{
	uint64_t tc = 0, dp = 0, cdp;
	size_t i;

	if (n->kind == YSRC_SCALAR) {
		tc = dp = scalar_mask(src, bound, n);
	} else if (n->kind == YSRC_SEQ) {
		for (i = 0; i < n->n; i++)
			tc |= inert_mark(src, bound, n->items[i], &cdp);
		dp = tc;
	} else if (n->kind == YSRC_MAP) {
		for (i = 0; i < n->n; i++) {
			const char *key = n->pairs[i].key->str;
			const struct ysrc_node *c = n->pairs[i].value;
			uint64_t ctc = inert_mark(src, bound, c, &cdp);
			uint64_t cm = c->kind != YSRC_SCALAR && ysrc_key_eq(key, "attributes") ? cdp : ctc;
			bool skipped = text_key(key) && (c->kind != YSRC_SCALAR || !parenthesized(c->str));
			dp |= cm;
			if (!skipped)
				tc |= cm;
		}
	}
	inert_put(src, n, dp == 0 ? 2 : tc == 0 ? 1 : 0, tc, dp);
	*as_attrs = dp;
	return tc;
}

/* True for a top-level key the walk leaves to Accelergy (its input and output). */
static bool walk_skips(const char *key)
{
	const struct top_key *tk = ld_top_key_find(key);
	return !strcmp(key, "ERT") || !strcmp(key, "ART") ||
	       (tk && (tk->merge == TOP_IGNORED || tk->merge == TOP_CLASSES));
}

/* Make the source's table of inert nodes once (the first build's walk). */
static void inert_table(const struct ld *ld)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	struct nameset bound = { NULL, 0, 0 };
	size_t i, f, count = 0;
	uint64_t dp;

	if (!src)
		return;
	pthread_mutex_lock(&src->cc_mu);
	if (src->inert_state == 0) {
		nameset_add(&bound, "variables");
		nameset_add(&bound, "spec");
		for (i = 0; i < src->n_top; i++) {
			nameset_add(&bound, src->top[i].key);
			for (f = 0; f < src->top[i].n; f++) {
				files_mark(src, src->top[i].values[f], &count);
				bound_keys(&bound, src->top[i].values[f]);
				if (!strcmp(src->top[i].key, "architecture"))
					bound_node_names(&bound, src->top[i].values[f]);
			}
		}
		for (src->inert_cap = 16; src->inert_cap < 2 * count;)
			src->inert_cap *= 2;
		src->inert_key = xcalloc(src->inert_cap, sizeof(*src->inert_key));
		src->inert_val = xcalloc(src->inert_cap, sizeof(*src->inert_val));
		src->walk_mask = arena_calloc(&src->cc_arena, 2 * src->inert_cap, sizeof(*src->walk_mask));
		for (i = 0; i < src->n_top; i++)   /* the walked keys first: theirs is the record */
			for (f = 0; !walk_skips(src->top[i].key) && f < src->top[i].n; f++)
				inert_mark(src, &bound, src->top[i].values[f], &dp);
		for (i = 0; i < src->n_top; i++)
			for (f = 0; walk_skips(src->top[i].key) && f < src->top[i].n; f++)
				files_mark(src, src->top[i].values[f], NULL);
		src->inert_state = 1;
		free(bound.k);
	}
	pthread_mutex_unlock(&src->cc_mu);
}

/* The free names that the nodes under 'n' which are not the files' can bind. */
static uint64_t bindable_under(const struct spec_source *src, const struct ysrc_node *n)
{
	uint64_t b = 0;
	size_t i;

	if (inert_slot_of(src, n) != SIZE_MAX)
		return 0;       /* a node of the files: its names are the files' */
	for (i = 0; n->kind == YSRC_SEQ && i < n->n; i++)
		b |= bindable_under(src, n->items[i]);
	for (i = 0; n->kind == YSRC_MAP && i < n->n; i++) {
		const struct ysrc_node *v = n->pairs[i].value;
		b |= free_bit(src, n->pairs[i].key->str);
		if (v->kind == YSRC_SCALAR && !strcmp(n->pairs[i].key->str, "name"))
			b |= free_bit(src, v->str);     /* a node's name */
		b |= bindable_under(src, v);
	}
	return b;
}

/*
 * The names this build can bind, as a mask of the source's free names
 * (WALK_ANY always): those its top-level keys and the nodes its overrides
 * made are spelt as.
 */
static uint64_t bindable(const struct ld *ld, const struct spec_source *src)
{
	uint64_t b = WALK_ANY;
	size_t i, f;

	if (!src->n_free_names)
		return b;
	for (i = 0; i < ld->n_top; i++) {
		b |= free_bit(src, ld->top[i].key);
		for (f = 0; f < ld->top[i].n; f++)
			b |= bindable_under(src, ld->top[i].values[f]);
	}
	return b;
}

/* True for a node of the files whose walk in 'mode' would change nothing in this build. */
static bool walk_unneeded(const struct walker *w, const struct ysrc_node *n, enum mode mode)
{
	size_t h = w->src ? inert_slot_of(w->src, n) : SIZE_MAX;
	return h != SIZE_MAX && !(w->src->walk_mask[2 * h + (mode == DEFAULT_PARSE)] & w->bindable);
}

static struct ysrc_node *walk(struct walker *w, struct ysrc_node *n, const struct kpath *p,
			      const struct frame *f, enum mode mode, int *rc)
{
	if (n->kind != YSRC_SCALAR && walk_unneeded(w, n, mode))
		return n;       /* a node of the files in which nothing would change */
	if (n->kind == YSRC_MAP)
		return walk_map(w, n, p, f, mode, rc);
	if (n->kind == YSRC_SEQ)
		return walk_seq(w, n, p, f, rc);
	return eval_scalar(w, n, p, f, mode, rc);
}

/* Bind the names of the nodes of every node list under 'n' to their mappings. */
static void bind_node_names(struct frame *f, const struct ysrc_node *n)
{
	const struct ysrc_node *list = ysrc_map_get(n, "nodes"), *name;
	size_t i;
	if (!list || list->kind != YSRC_SEQ)
		return;
	for (i = 0; i < list->n; i++) {
		const struct ysrc_node *item = list->items[i];
		name = ysrc_map_get(item, "name");
		if (name && name->kind == YSRC_SCALAR && item->tag &&
		    (!strcmp(item->tag, "!Component") || !strcmp(item->tag, "!Container")))
			bind(f, name->str, item);
		bind_node_names(f, item);
	}
}

/* The merged entry of top-level key 'key' in 'ld', to change its values; or NULL. */
static struct ld_top *top_entry(struct ld *ld, const char *key)
{
	size_t i;
	for (i = 0; i < ld->n_top; i++)
		if (!strcmp(ld->top[i].key, key))
			return ld->top[i].n ? &ld->top[i] : NULL;
	return NULL;
}

/* Bind variable 'name' = 'value'; a second, different value is an error. */
static int bind_variable(struct walker *w, const struct ysrc_node *key, const struct ysrc_node *value)
{
	size_t i;
	for (i = 0; i < w->globals.n; i++) {
		const struct ysrc_node *old = w->globals.b[i].value;
		if (strcmp(w->globals.b[i].name, key->str))
			continue;
		if (old->kind == YSRC_SCALAR && value->kind == YSRC_SCALAR && !strcmp(old->str, value->str))
			return 0;
		diag_error(w->ld->dl, key->loc, "variable '%s' is given twice, with different values",
			   key->str);
		diag_note(w->ld->dl, old->loc, "the other value is here");
		return -1;
	}
	bind(&w->globals, key->str, value);
	return 0;
}

/*
 * The variables of every file, in order, each seeing the ones before it;
 * then one mapping of them all for the name 'variables'.
 */
static int walk_variables(struct walker *w)
{
	struct ld *ld = w->ld;
	struct ld_top *top = top_entry(ld, "variables");
	size_t f, i;
	int rc = 0;

	for (f = 0; top && f < top->n; f++) {
		struct kpath p = KP_KEY(NULL, "variables");
		struct ysrc_node *v = (struct ysrc_node *)top->values[f];
		struct ysrc_pair *pairs;
		if (ysrc_is_null(v))
			continue;
		if (v->kind != YSRC_MAP) {
			rc = ld_error(ld, v, &p, "expected a mapping of variables, got %s",
				      ysrc_kind_name(v));
			continue;
		}
		pairs = arena_memdup(ld->a, v->pairs, v->n * sizeof(*pairs));
		for (i = 0; i < v->n; i++) {
			struct kpath kp = KP_KEY(&p, v->pairs[i].key->str);
			struct ysrc_node *val = v->pairs[i].value;
			pairs[i].value = val->kind == YSRC_SCALAR ?
				eval_scalar(w, val, &kp, &w->globals, DEFAULT_PARSE, &rc) :
				walk(w, val, &kp, &w->globals, TYPE_CHECK, &rc);
			if (bind_variable(w, v->pairs[i].key, pairs[i].value) < 0)
				rc = -1;
		}
		v = arena_memdup(ld->a, v, sizeof(*v));
		v->pairs = pairs;
		top->values[f] = v;
	}
	w->vars_map = arena_calloc(ld->a, 1, sizeof(*w->vars_map));
	w->vars_map->kind = YSRC_MAP;
	w->vars_map->n = w->globals.n;
	w->vars_map->pairs = arena_calloc(ld->a, w->globals.n + 1, sizeof(struct ysrc_pair));
	for (i = 0; i < w->globals.n; i++) {
		w->vars_map->pairs[i].key = ysrc_scalar_new(ld->a, w->globals.b[i].name,
							    w->globals.b[i].value->loc);
		w->vars_map->pairs[i].value = (struct ysrc_node *)w->globals.b[i].value;
	}
	return rc;
}

/* 'spec': a mapping of the top-level keys (their first value), updated as walked. */
static void make_spec(struct walker *w)
{
	struct ld *ld = w->ld;
	size_t i;

	w->spec = arena_calloc(ld->a, 1, sizeof(*w->spec));
	w->spec->kind = YSRC_MAP;
	w->spec->pairs = arena_calloc(ld->a, ld->n_top + 1, sizeof(struct ysrc_pair));
	for (i = 0; i < ld->n_top; i++) {
		struct ysrc_pair *pr;
		if (!ld->top[i].n)
			continue;
		pr = &w->spec->pairs[w->spec->n++];
		pr->key = ysrc_scalar_new(ld->a, ld->top[i].key, ld->top[i].keys[0]->loc);
		pr->value = (struct ysrc_node *)ld->top[i].values[0];
	}
}

/* Point 'spec.KEY' at the walked value. */
static void spec_update(struct walker *w, const char *key, const struct ysrc_node *value)
{
	size_t i;
	for (i = 0; i < w->spec->n; i++)
		if (!strcmp(w->spec->pairs[i].key->str, key))
			w->spec->pairs[i].value = (struct ysrc_node *)value;
}

int spec_expressions_apply(struct ld *ld)
{
	struct walker w;
	struct frame tops = { .up = NULL };
	size_t i, f;
	int rc = 0;

	memset(&w, 0, sizeof(w));
	w.ld = ld;
	inert_table(ld);
	w.src = ld->s->source;
	if (w.src)
		w.bindable = bindable(ld, w.src);
	make_spec(&w);
	if (walk_variables(&w) < 0)
		rc = -1;
	ld->vars = w.vars_map;
	spec_update(&w, "variables", w.vars_map);
	tops.up = &w.globals;
	for (i = 0; i < ld->n_top; i++) {
		struct ld_top *t = &ld->top[i];
		if (!t->n || !strcmp(t->key, "variables") || walk_skips(t->key))
			continue;     /* Accelergy's input and output: it evaluates them itself */
		for (f = 0; f < t->n; f++) {
			struct kpath p = KP_KEY(NULL, t->keys[f]->str);
			struct frame names = { .up = &tops };
			struct ysrc_node *v = (struct ysrc_node *)t->values[f];
			if (!strcmp(t->key, "architecture"))
				bind_node_names(&names, v);
			t->values[f] = walk(&w, v, &p, &names, TYPE_CHECK, &rc);
			frame_release(&names);
		}
		spec_update(&w, t->key, t->values[0]);
		bind(&tops, t->key, t->values[0]);
	}
	frame_release(&tops);
	frame_release(&w.globals);
	return rc;
}

/* True when an error at 'loc' with 'msg' was reported already in this build. */
static bool reported_before(struct ld *ld, struct diag_loc loc, const char *msg)
{
	size_t i;
	for (i = 0; i < ld->n_deferred; i++) {
		struct ld_deferred *d = &ld->deferred[i];
		if (d->reported && d->err_msg && !strcmp(d->err_msg, msg) && d->err_loc.file == loc.file &&
		    d->err_loc.line == loc.line && d->err_loc.col == loc.col)
			return true;
	}
	return false;
}

int ld_expr_value(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		  const char **text)
{
	struct ld_deferred *d = (struct ld_deferred *)find_deferred(ld, n);

	if (!d || d->replaced)
		return 0;
	if (d->value) {
		*text = d->value;
		return 1;
	}
	if (reported_before(ld, d->err_loc, d->err_msg))
		return -1;    /* one error, however many values use it */
	d->reported = true;
	diag_error(ld->dl, d->err_loc, "%s", d->err_msg);
	if (d->elsewhere) {
		struct strbuf sb = STRBUF_INIT;
		ld_kpath_render(p, &sb);
		ld_note(ld, n->loc, "needed by '%s'", sb.buf);
		strbuf_release(&sb);
	}
	return -1;
}

const char *ld_expr_text(const struct ld *ld, const struct ysrc_node *n)
{
	const struct ld_deferred *d = find_deferred(ld, n);
	return d && d->replaced ? d->expr : NULL;
}
