/*
 * Accelergy's compound component classes, as written ('compound_components'
 * and 'components', every file's 'classes' concatenated; a class named twice
 * is the later one, with a warning), and the scalar variables. Values stay
 * text: energy/ evaluates them when it expands a component (docs/energy.md).
 * Structure is checked here, every key against the ones Accelergy reads.
 */
#include "specs/specs_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const doc_keys[] = { "version", "classes" };
static const char *const class_keys[] = { "name", "attributes", "subcomponents", "actions" };
static const char *const sub_keys[] = { "name", "class", "attributes", "area_scale" };
static const char *const action_keys[] = { "name", "arguments", "subcomponents" };
static const char *const use_keys[] = { "name", "actions" };
static const char *const subaction_keys[] = { "name", "arguments", "energy_scale" };

/* Scalar 'n' as a value keyed 'key' (NULL for a scale) at 'p'; -1 when not a scalar. */
static int one_value(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     const char *key, struct spec_cc_value *v)
{
	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	v->key = key ? arena_strdup(ld->a, key) : NULL;
	v->text = arena_strdup(ld->a, n->str);
	v->is_quoted = n->style == YSRC_QUOTED;
	v->loc = n->loc;
	v->path = ld_kpath_strdup(ld, p);
	return 0;
}

/* A mapping of values ('attributes', 'arguments'); an absent one is empty. */
static int value_map(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
		     size_t *n_out, const struct spec_cc_value **out)
{
	struct spec_cc_value *v;
	size_t i, n = 0;
	int rc = 0;

	*n_out = 0;
	*out = NULL;
	if (!m)
		return 0;
	if (ld_want_map(ld, m, p) < 0)
		return -1;
	v = arena_calloc(ld->a, m->n + 1, sizeof(*v));
	for (i = 0; i < m->n; i++) {
		struct kpath kp = KP_KEY(p, m->pairs[i].key->str);
		if (ld_ignored_key(m->pairs[i].key->str))
			continue;
		if (one_value(ld, m->pairs[i].value, &kp, m->pairs[i].key->str, &v[n]) < 0) {
			rc = -1;
			continue;
		}
		n++;
	}
	*n_out = n;
	*out = v;
	return rc;
}

/* An optional scale ('area_scale', 'energy_scale'). */
static int scale(struct ld *ld, const struct ysrc_node *map, const char *key,
		 const struct kpath *p, const struct spec_cc_value **out)
{
	const struct ysrc_node *n = ld_get(map, key);
	struct kpath kp = KP_KEY(p, key);
	struct spec_cc_value *v;

	*out = NULL;
	if (!n)
		return 0;
	v = arena_calloc(ld->a, 1, sizeof(*v));
	if (one_value(ld, n, &kp, NULL, v) < 0)
		return -1;
	*out = v;
	return 0;
}

/* The required 'name' of map 'm' (copied), or NULL after an error. */
static const char *want_name(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
			     const char *what)
{
	const struct ysrc_node *n = ld_get(m, "name");
	struct kpath np = KP_KEY(p, "name");

	if (!n) {
		ld_error(ld, m, p, "%s needs a 'name'", what);
		return NULL;
	}
	return ld_str(ld, n, &np);
}

/* A list under 'key' of 'm' (absent: empty); -1 when not a list. */
static int want_list(struct ld *ld, const struct ysrc_node *m, const char *key,
		     const struct kpath *p, const struct ysrc_node **out)
{
	const struct ysrc_node *l = ld_get(m, key);
	struct kpath lp = KP_KEY(p, key);

	*out = l;
	return l ? ld_want_seq(ld, l, &lp) : 0;
}

/* One action of a subcomponent: {name, arguments, energy_scale}. */
static int subaction(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
		     struct spec_cc_subaction *sa)
{
	struct kpath ap = KP_KEY(p, "arguments");
	int rc = 0;

	if (ld_want_map(ld, m, p) < 0)
		return -1;
	if (ld_check_keys(ld, m, p, subaction_keys, ARRAY_SIZE(subaction_keys)))
		rc = -1;
	sa->name = want_name(ld, m, p, "a subcomponent action");
	sa->loc = m->loc;
	if (!sa->name || value_map(ld, ld_get(m, "arguments"), &ap, &sa->n_args, &sa->args) < 0 ||
	    scale(ld, m, "energy_scale", p, &sa->energy_scale) < 0)
		rc = -1;
	return rc;
}

/* A subcomponent an action uses: {name, actions: [...]}. */
static int use(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
	       struct spec_cc_use *u)
{
	const struct ysrc_node *l;
	struct kpath lp = KP_KEY(p, "actions");
	struct spec_cc_subaction *v;
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, m, p) < 0)
		return -1;
	if (ld_check_keys(ld, m, p, use_keys, ARRAY_SIZE(use_keys)))
		rc = -1;
	u->name = want_name(ld, m, p, "a subcomponent of an action");
	u->loc = m->loc;
	u->path = ld_kpath_strdup(ld, p);
	if (!u->name || want_list(ld, m, "actions", p, &l) < 0)
		return -1;
	if (!l)
		return ld_error(ld, m, p, "subcomponent '%s' needs its 'actions'", u->name);
	v = arena_calloc(ld->a, l->n + 1, sizeof(*v));
	for (i = 0; i < l->n; i++) {
		struct kpath ip = KP_IDX(&lp, i);
		if (subaction(ld, l->items[i], &ip, &v[i]) < 0)
			rc = -1;
	}
	u->n_actions = l->n;
	u->actions = v;
	return rc;
}

/* A compound action: {name, arguments, subcomponents: [...]}. */
static int action(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
		  struct spec_cc_action *a)
{
	const struct ysrc_node *l;
	struct kpath lp = KP_KEY(p, "subcomponents"), ap = KP_KEY(p, "arguments");
	struct spec_cc_use *v;
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, m, p) < 0)
		return -1;
	if (ld_check_keys(ld, m, p, action_keys, ARRAY_SIZE(action_keys)))
		rc = -1;
	a->name = want_name(ld, m, p, "an action");
	a->loc = m->loc;
	if (!a->name || want_list(ld, m, "subcomponents", p, &l) < 0 ||
	    value_map(ld, ld_get(m, "arguments"), &ap, &a->n_args, &a->args) < 0)
		return -1;
	v = arena_calloc(ld->a, (l ? l->n : 0) + 1, sizeof(*v));
	for (i = 0; l && i < l->n; i++) {
		struct kpath ip = KP_IDX(&lp, i);
		if (use(ld, l->items[i], &ip, &v[i]) < 0)
			rc = -1;
	}
	a->n_uses = l ? l->n : 0;
	a->uses = v;
	return rc;
}

/* A subcomponent: {name, class, attributes, area_scale}. */
static int sub(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
	       struct spec_cc_sub *sc)
{
	const struct ysrc_node *cls;
	struct kpath cp = KP_KEY(p, "class"), ap = KP_KEY(p, "attributes");
	int rc = 0;

	if (ld_want_map(ld, m, p) < 0)
		return -1;
	if (ld_check_keys(ld, m, p, sub_keys, ARRAY_SIZE(sub_keys)))
		rc = -1;
	sc->name = want_name(ld, m, p, "a subcomponent");
	sc->loc = m->loc;
	sc->path = ld_kpath_strdup(ld, p);
	if (!sc->name)
		return -1;
	cls = ld_get(m, "class");
	if (!cls)
		return ld_error(ld, m, p, "subcomponent '%s' needs a 'class'", sc->name);
	sc->class_name = ld_str(ld, cls, &cp);
	sc->class_loc = cls->loc;
	if (!sc->class_name ||
	    value_map(ld, ld_get(m, "attributes"), &ap, &sc->n_attrs, &sc->attrs) < 0 ||
	    scale(ld, m, "area_scale", p, &sc->area_scale) < 0)
		rc = -1;
	return rc;
}

/* One class. */
static int one_class(struct ld *ld, const struct ysrc_node *m, const struct kpath *p,
		     struct spec_cc_class *c)
{
	const struct ysrc_node *subs, *acts;
	struct kpath sp = KP_KEY(p, "subcomponents"), xp = KP_KEY(p, "actions");
	struct kpath ap = KP_KEY(p, "attributes");
	struct spec_cc_sub *sv;
	struct spec_cc_action *av;
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, m, p) < 0)
		return -1;
	if (ld_check_keys(ld, m, p, class_keys, ARRAY_SIZE(class_keys)))
		rc = -1;
	c->name = want_name(ld, m, p, "a compound component class");
	c->loc = ld_get(m, "name") ? ld_get(m, "name")->loc : m->loc;
	c->path = ld_kpath_strdup(ld, p);
	if (!c->name || want_list(ld, m, "subcomponents", p, &subs) < 0 ||
	    want_list(ld, m, "actions", p, &acts) < 0 ||
	    value_map(ld, ld_get(m, "attributes"), &ap, &c->n_attrs, &c->attrs) < 0)
		return -1;
	c->is_primitive = subs == NULL && ld_get(m, "subcomponents") == NULL;
	sv = arena_calloc(ld->a, (subs ? subs->n : 0) + 1, sizeof(*sv));
	for (i = 0; subs && i < subs->n; i++) {
		struct kpath ip = KP_IDX(&sp, i);
		if (sub(ld, subs->items[i], &ip, &sv[i]) < 0)
			rc = -1;
	}
	c->n_subs = subs ? subs->n : 0;
	c->subs = sv;
	av = arena_calloc(ld->a, (acts ? acts->n : 0) + 1, sizeof(*av));
	for (i = 0; acts && i < acts->n; i++) {
		struct kpath ip = KP_IDX(&xp, i);
		if (action(ld, acts->items[i], &ip, &av[i]) < 0)
			rc = -1;
	}
	c->n_actions = acts ? acts->n : 0;
	c->actions = av;
	return rc;
}

struct classvec {
	struct spec_cc_class *v;
	size_t n, alloc;
};

/* Add 'c'; a class of the same name before it is replaced, with a warning. */
static void add_class(struct ld *ld, struct classvec *cv, const struct spec_cc_class *c)
{
	size_t i;

	for (i = 0; i < cv->n; i++) {
		if (strcmp(cv->v[i].name, c->name))
			continue;
		diag_warning(ld->dl, c->loc, "compound component class '%s' is defined again; "
			     "this definition replaces the first", c->name);
		diag_note(ld->dl, cv->v[i].loc, "'%s' first defined here", c->name);
		cv->v[i] = *c;
		return;
	}
	XGROW(cv->v, cv->n + 1, cv->alloc);
	cv->v[cv->n++] = *c;
}

/*
 * An item of 'classes': a class, or a list of them (the front end's
 * include_all() of several files' class lists gives one list per file).
 */
static int class_or_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct classvec *cv)
{
	struct spec_cc_class c;
	size_t i;
	int rc = 0;

	if (n->kind == YSRC_SEQ) {
		for (i = 0; i < n->n; i++) {
			struct kpath ip = KP_IDX(p, i);
			if (class_or_list(ld, n->items[i], &ip, cv) < 0)
				rc = -1;
		}
		return rc;
	}
	memset(&c, 0, sizeof(c));
	if (one_class(ld, n, p, &c) < 0)
		return -1;
	add_class(ld, cv, &c);
	return 0;
}

/* The documents of one top-level key: {version, classes: [...]}. */
static int load_docs(struct ld *ld, const struct ld_top *top, struct classvec *cv)
{
	size_t f, i;
	int rc = 0;

	for (f = 0; top && f < top->n; f++) {
		const struct ysrc_node *doc = top->values[f], *classes;
		struct kpath p = KP_KEY(NULL, top->keys[f]->str), cp = KP_KEY(&p, "classes");
		if (ld_want_map(ld, doc, &p) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, doc, &p, doc_keys, ARRAY_SIZE(doc_keys)))
			rc = -1;
		if (want_list(ld, doc, "classes", &p, &classes) < 0) {
			rc = -1;
			continue;
		}
		for (i = 0; classes && i < classes->n; i++) {
			struct kpath ip = KP_IDX(&cp, i);
			if (class_or_list(ld, classes->items[i], &ip, cv) < 0)
				rc = -1;
		}
	}
	return rc;
}

/* The scalar variables (evaluated) into s->variables. */
static void load_variables(struct ld *ld)
{
	const struct ysrc_node *m = ld->vars;
	struct spec_attr *v;
	size_t i, n = 0;

	if (!m || m->kind != YSRC_MAP)
		return;
	v = arena_calloc(ld->a, m->n + 1, sizeof(*v));
	for (i = 0; i < m->n; i++) {
		const struct ysrc_node *val = m->pairs[i].value;
		if (!val || val->kind != YSRC_SCALAR)
			continue;
		v[n].key = arena_strdup(ld->a, m->pairs[i].key->str);
		v[n].value = arena_strdup(ld->a, val->str);
		v[n].loc = val->loc;
		v[n].is_quoted = val->style == YSRC_QUOTED;
		n++;
	}
	ld->s->n_variables = n;
	ld->s->variables = v;
}

/* The classes of every file's 'compound_components' and 'components' into '*out' (ld->a). */
static int load_classes(struct ld *ld, struct spec_components *out)
{
	struct classvec cv = { NULL, 0, 0 };
	struct spec_cc_class *v;
	int rc = 0;

	if (load_docs(ld, ld_top_get(ld, "compound_components"), &cv) < 0)
		rc = -1;
	if (load_docs(ld, ld_top_get(ld, "components"), &cv) < 0)
		rc = -1;
	v = arena_calloc(ld->a, cv.n + 1, sizeof(*v));
	if (cv.n)
		memcpy(v, cv.v, cv.n * sizeof(*v));
	out->n_classes = cv.n;
	out->classes = v;
	free(cv.v);
	return rc;
}

/* True when the build's entry of 'key' is the files' (no override replaced it). */
static bool as_the_files_give(const struct ld *ld, const struct spec_source *src, const char *key)
{
	const struct ld_top *t = ld_top_get(ld, key);
	size_t i;

	for (i = 0; i < src->n_top; i++)
		if (!strcmp(src->top[i].key, key) && src->top[i].n)
			return t && t->n == src->top[i].n &&
			       !memcmp(t->values, src->top[i].values, t->n * sizeof(t->values[0]));
	return !t;
}

/*
 * The source's shared classes into ld->s->components: loaded by the first
 * build that asks (into the source's own arena, diagnostics kept aside).
 * False when they cannot be shared: the build loads them itself.
 */
static bool shared_classes(struct ld *ld)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	bool ok;

	if (!src || !as_the_files_give(ld, src, "compound_components") ||
	    !as_the_files_give(ld, src, "components"))
		return false;
	pthread_mutex_lock(&src->cc_mu);
	if (src->cc_state == 0) {
		struct diag_list quiet = DIAG_LIST_INIT;
		struct ld own = *ld;
		own.a = &src->cc_arena;
		own.dl = &quiet;
		own.dl_out = &quiet;
		src->cc_state = load_classes(&own, &src->cc) == 0 && quiet.n == 0 ? 1 : -1;
		diag_list_release(&quiet);
	}
	ok = src->cc_state == 1;
	if (ok)
		ld->s->components = src->cc;
	pthread_mutex_unlock(&src->cc_mu);
	return ok;
}

int spec_components_load(struct ld *ld)
{
	load_variables(ld);
	if (shared_classes(ld))
		return 0;
	return load_classes(ld, &ld->s->components);
}
