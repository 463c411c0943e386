/*
 * Expanding a component of the architecture the way Accelergy does
 * (docs/energy.md, "Compound components"):
 *
 *  - its attributes are its own and its containers', then the defaults of
 *    its class in the class's order ('must_specify' ones must be given),
 *    evaluated one after the other, each seeing the ones before it;
 *  - a subcomponent's attributes are evaluated in its parent's attributes,
 *    then its class's defaults, and it inherits global_cycle_seconds,
 *    technology, action_latency_cycles, cycle_seconds and n_instances;
 *  - a name "x[a..b]" stands for b-a+1 identical subcomponents (a and b are
 *    expressions); an action that uses "x[a..b]" counts that many;
 *  - an action sums, over the subcomponents it uses, each one's action
 *    times its energy_scale (scales multiply down the tree) times its count;
 *  - the area sums every primitive's area times its count and area_scale
 *    (the component's own area_scale applies to all of them, a compound
 *    subcomponent's to those below it).
 *
 * Primitives are priced by energy_price(). Problems are located in the
 * design's files.
 */
#include "energy/energy_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* A subcomponent once its attributes are evaluated. */
struct xsub {
	const char *name;              /* "storage.comparator[1..8192]" (the top's are bare) */
	const char *base;              /* the same without brackets */
	const char *class_name;
	const struct spec_cc_class *cls;   /* its class definition, or NULL (a primitive) */
	bool compound;
	struct eattrs attrs;
	double area_scale;             /* a primitive's total: own x top x compound ancestors' */
	const struct spec_cc_sub *decl;
	bool failed;                   /* reported once: not priced again */
};

/* The component being expanded. */
struct xcomp {
	struct ectx *c;
	const char *name;              /* the level's or compute's name */
	const char *class_name;
	struct diag_loc loc;
	const struct spec_cc_class *cls;
	struct eattrs attrs;
	double area_scale;
	size_t n_subs, alloc_subs;
	struct xsub *subs;
	unsigned depth;                /* of nested classes, bounded */
	bool dummy;                    /* a spatial container's level */
};

#define MAX_NESTING 32
#define MAX_PRIM_ACTIONS 4096

/* ------------------------------------------------------------ messages */

/* Report an error at 'loc' and a note about the component; keeps going. */
static void xerr(struct xcomp *x, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void xerr(struct xcomp *x, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_verror(x->c->dl, loc, fmt, ap);
	va_end(ap);
	if (loc.file != x->loc.file || loc.line != x->loc.line)
		diag_note(x->c->dl, x->loc, "while estimating the energy and area of '%s' "
			  "(class %s)", x->name, x->class_name);
	x->c->rc = -1;
}

/* -------------------------------------------------------- classes, names */

static const struct spec_cc_class *find_class(const struct spec_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->components.n_classes; i++)
		if (!strcmp(s->components.classes[i].name, name))
			return &s->components.classes[i];
	return NULL;
}

/*
 * A class neither the design defines nor an estimator prices (technology -1
 * asks for the dummy table, which prices anything): one error at 'loc',
 * with a hint among the design's classes and the primitives. True if so.
 */
static bool unknown_class(struct xcomp *x, const char *cls, const struct eattrs *attrs,
			  struct diag_loc loc, const char *what)
{
	const struct spec_components *cc = &x->c->s->components;
	const struct eattr *t = eattrs_get(attrs, "technology");
	const char *const *prims, **cands, *hint;
	size_t n_prims, i;
	double v;

	if (find_class(x->c->s, cls) || energy_primitive_known(cls, &n_prims, &prims) ||
	    (t && spec_value_number(&t->v, &v) && v == -1))
		return false;
	cands = xcalloc(n_prims + cc->n_classes + 1, sizeof(*cands));
	for (i = 0; i < n_prims; i++)
		cands[i] = prims[i];
	for (i = 0; i < cc->n_classes; i++)
		cands[n_prims + i] = cc->classes[i].name;
	hint = diag_suggest(cls, cands, n_prims + cc->n_classes);
	xerr(x, loc, "%s class '%s' is unknown: no compound class of that name in "
	     "'compound_components'/'components', and no estimator prices it%s%s%s", what, cls,
	     hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
	free(cands);
	return true;
}

/* 'name' without its bracketed groups: "storage.storage[1..64]" -> "storage.storage". */
static const char *strip_brackets(struct ectx *c, const char *name)
{
	char *r = arena_strdup(c->a, name), *w = r;
	const char *p;
	int depth = 0;

	for (p = name; *p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		else if (!depth)
			*w++ = *p;
	}
	*w = '\0';
	return r;
}

/* The product of the lengths of the "[a..b]" groups of 'name' (1 without any). */
static double identical_count(const char *name)
{
	double n = 1;
	const char *lb = strchr(name, '[');

	while (lb) {
		const char *rb = strchr(lb, ']'), *dots = strstr(lb, "..");
		if (!rb)
			break;
		if (dots && dots < rb)
			n *= strtod(dots + 2, NULL) - strtod(lb + 1, NULL) + 1;
		lb = strchr(rb, '[');
	}
	return n;
}

/* --------------------------------------------------------- evaluation */

/* The names an expression sees: 'inner' first, then 'outer'. */
struct scope {
	const struct eattrs *inner, *outer;
};

static int scope_lookup(void *ctx, const char *name, size_t len, struct spec_value *out)
{
	const struct scope *sc = ctx;
	const struct eattrs *d[2] = { sc->inner, sc->outer };
	size_t k, i;

	for (k = 0; k < 2; k++) {
		if (!d[k])
			continue;
		for (i = 0; i < d[k]->n; i++) {
			if (strlen(d[k]->v[i].key) == len && !strncmp(d[k]->v[i].key, name, len)) {
				*out = d[k]->v[i].v;
				return 0;
			}
		}
	}
	return 1;
}

/* The location of byte 'offset' of value 'v' (its text starts after a quote if quoted). */
static struct diag_loc value_loc(const struct spec_cc_value *v, size_t offset)
{
	struct diag_loc l = v->loc;

	if (l.line && !strchr(v->text, '\n'))
		l.col += (unsigned)offset;
	return l;
}

/*
 * The value of 'v' in scope 'sc', as Accelergy evaluates it: a quoted
 * string is text (where text is allowed), a literal is its value, anything
 * else is a Python expression. 0, or -1 after an error.
 */
static int eval(struct xcomp *x, const struct spec_cc_value *v, const struct scope *sc,
		bool strings_allowed, struct spec_value *out)
{
	struct spec_expr_error err;

	if (v->is_quoted) {
		spec_value_literal(v->text, true, out);
		if (strings_allowed)
			return 0;
		xerr(x, v->loc, "in '%s': expected a number, got the string \"%s\"", v->path,
		     v->text);
		return -1;
	}
	if (spec_value_literal(v->text, false, out))
		return 0;
	if (spec_expr_eval(v->text, scope_lookup, (void *)sc, x->c->a, out, &err) == 0) {
		if (!strings_allowed && out->kind == SPEC_VALUE_STR) {
			xerr(x, v->loc, "in '%s': '%s' is the string \"%s\", not a number", v->path,
			     v->text, out->s);
			return -1;
		}
		return 0;
	}
	xerr(x, value_loc(v, err.offset), "in '%s': cannot evaluate '%s': %s", v->path, v->text,
	     err.msg);
	return -1;
}

/* An attribute to evaluate: pending text, or a value already evaluated. */
struct pending {
	const char *key;
	const struct spec_cc_value *text;   /* NULL: 'v' is the value */
	struct spec_value v;
	struct diag_loc loc;
};

/* Accelergy's required keys, propagated from 'outer' into 'd' when 'd' lacks them. */
static void propagate(struct xcomp *x, struct eattrs *d, const struct eattrs *outer)
{
	static const char *const keys[] = { "global_cycle_seconds", "action_latency_cycles",
					    "technology", "n_instances" };
	struct spec_value one = { SPEC_VALUE_INT, false, 1, 0, NULL };
	const struct eattr *e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (eattrs_get(d, keys[i]))
			continue;
		e = outer ? eattrs_get(outer, keys[i]) : NULL;
		if (e)
			eattrs_set(x->c, d, keys[i], &e->v, e->loc);
		else if (!strcmp(keys[i], "action_latency_cycles") || !strcmp(keys[i], "n_instances"))
			eattrs_set(x->c, d, keys[i], &one, DIAG_LOC_NONE);
	}
	if (!eattrs_get(d, "cycle_seconds") && (e = eattrs_get(d, "global_cycle_seconds")))
		eattrs_set(x->c, d, "cycle_seconds", &e->v, e->loc);
}

/* Evaluate p[0..n) one after the other in 'outer' into 'out'; -1 after an error. */
static int eval_seq(struct xcomp *x, const struct pending *p, size_t n,
		    const struct eattrs *outer, struct eattrs *out)
{
	struct scope sc = { out, outer };
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		struct spec_value v = p[i].v;
		if (p[i].text && eval(x, p[i].text, &sc, true, &v) < 0) {
			rc = -1;
			continue;
		}
		eattrs_set(x->c, out, p[i].key, &v, p[i].loc);
	}
	return rc;
}

/* Add the class's defaults to p[0..*n) (room for them is the caller's); -1 on 'must_specify'. */
static int add_defaults(struct xcomp *x, const struct spec_cc_class *cls, struct pending *p,
			size_t *n, const char *who, struct diag_loc who_loc)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; cls && i < cls->n_attrs; i++) {
		const struct spec_cc_value *d = &cls->attrs[i];
		bool given = false;
		for (k = 0; k < *n && !given; k++)
			given = !strcmp(p[k].key, d->key);
		if (given)
			continue;
		if (!strcmp(d->text, "must_specify")) {     /* quoted or not, as Accelergy compares */
			xerr(x, who_loc, "'%s' (class %s) must specify attribute '%s'", who,
			     cls->name, d->key);
			diag_note(x->c->dl, d->loc, "'%s' is 'must_specify' in class '%s'", d->key,
				  cls->name);
			rc = -1;
			continue;
		}
		p[*n].key = d->key;
		p[*n].text = d;
		p[*n].loc = d->loc;
		(*n)++;
	}
	return rc;
}

/*
 * A name "base[a..b]" with a and b evaluated in 'sc' ("base[2..5]"); any
 * other name unchanged. NULL after an error.
 */
static const char *define_name(struct xcomp *x, const char *name, struct diag_loc loc,
			       const char *path, const struct scope *sc)
{
	const char *lb = strchr(name, '['), *dots = strstr(name, ".."), *rb;
	struct spec_cc_value part;
	struct spec_value lo, hi;
	double l, h;

	if (!lb || !dots || dots < lb)
		return name;
	rb = strchr(dots, ']');
	if (!rb) {
		xerr(x, loc, "in '%s': '%s' has '[' and '..' but no ']'", path, name);
		return NULL;
	}
	memset(&part, 0, sizeof(part));
	part.loc = loc;
	part.path = path;
	part.text = arena_strndup(x->c->a, lb + 1, (size_t)(dots - lb - 1));
	if (eval(x, &part, sc, false, &lo) < 0)
		return NULL;
	part.text = arena_strndup(x->c->a, dots + 2, (size_t)(rb - dots - 2));
	if (eval(x, &part, sc, false, &hi) < 0)
		return NULL;
	spec_value_number(&lo, &l);
	spec_value_number(&hi, &h);
	l = trunc(l);
	h = trunc(h);
	if (h < l) {
		xerr(x, loc, "in '%s': the range of '%s' is [%.0f..%.0f]: its end is before its "
		     "start", path, name, l, h);
		return NULL;
	}
	return arena_printf(x->c->a, "%.*s[%.0f..%.0f]", (int)(lb - name), name, l, h);
}

/* ------------------------------------------------------- subcomponents */

static struct xsub *add_sub(struct xcomp *x)
{
	XGROW(x->subs, x->n_subs + 1, x->alloc_subs);
	memset(&x->subs[x->n_subs], 0, sizeof(x->subs[0]));
	return &x->subs[x->n_subs++];
}

/* The subcomponent whose name without brackets is 'base', or NULL. */
static struct xsub *find_sub(struct xcomp *x, const char *base)
{
	size_t i;

	for (i = 0; i < x->n_subs; i++)
		if (!strcmp(x->subs[i].base, base))
			return &x->subs[i];
	return NULL;
}

/* The evaluated attributes of declaration 'sd' under parent attributes 'parent'. */
static int sub_attrs(struct xcomp *x, const struct spec_cc_sub *sd, const struct spec_cc_class *cls,
		     const struct eattrs *parent, const char *full, struct eattrs *out)
{
	struct pending *p = xcalloc(sd->n_attrs + 1, sizeof(*p));
	struct eattrs own = EATTRS_INIT;
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < sd->n_attrs; i++) {
		p[n].key = sd->attrs[i].key;
		p[n].text = &sd->attrs[i];
		p[n].loc = sd->attrs[i].loc;
		n++;
	}
	if (eval_seq(x, p, n, parent, &own) < 0)
		rc = -1;
	propagate(x, &own, parent);
	free(p);
	p = xcalloc(own.n + (cls ? cls->n_attrs : 0) + 1, sizeof(*p));
	for (i = 0; i < own.n; i++) {      /* now values, in their order */
		p[i].key = own.v[i].key;
		p[i].text = NULL;
		p[i].v = own.v[i].v;
		p[i].loc = own.v[i].loc;
	}
	n = own.n;
	if (add_defaults(x, cls, p, &n, full, sd->loc) < 0)
		rc = -1;
	if (rc == 0 && eval_seq(x, p, n, parent, out) < 0)
		rc = -1;
	free(p);
	return rc;
}

/* A scale (area_scale, energy_scale) in 'sc': 1 when absent. */
static int scale_value(struct xcomp *x, const struct spec_cc_value *v, const struct scope *sc,
		       double *out)
{
	struct spec_value r;

	*out = 1;
	if (!v)
		return 0;
	if (eval(x, v, sc, false, &r) < 0)
		return -1;
	if (!spec_value_number(&r, out)) {
		xerr(x, v->loc, "in '%s': expected a number, got %s", v->path, v->text);
		return -1;
	}
	return 0;
}

/*
 * Define the subcomponents of class 'cls' under a component with attributes
 * 'attrs' whose full name is 'prefix' (NULL for the top), recursively;
 * primitives found here get 'scale' (the compound ancestors' area scales).
 */
static int define_subs(struct xcomp *x, const struct spec_cc_class *cls, const struct eattrs *attrs,
		       const char *prefix, double scale)
{
	struct scope sc = { attrs, NULL };
	size_t i;
	int rc = 0;

	if (++x->depth > MAX_NESTING) {
		xerr(x, cls->loc, "compound class '%s' nests deeper than %d levels (is it its own "
		     "subcomponent?)", cls->name, MAX_NESTING);
		x->depth--;
		return -1;
	}
	for (i = 0; i < cls->n_subs; i++) {
		const struct spec_cc_sub *sd = &cls->subs[i];
		const struct spec_cc_class *scls = find_class(x->c->s, sd->class_name);
		const char *defined = define_name(x, sd->name, sd->loc, sd->path, &sc);
		struct eattrs sattrs = EATTRS_INIT;
		struct scope both_sc;
		double own_scale;
		struct xsub *xs;
		const char *full;
		size_t idx;
		if (!defined) {
			rc = -1;
			continue;
		}
		full = prefix ? arena_printf(x->c->a, "%s.%s", prefix, defined) : defined;
		if (sub_attrs(x, sd, scls, attrs, full, &sattrs) < 0) {
			rc = -1;
			continue;
		}
		if (unknown_class(x, sd->class_name, &sattrs, sd->class_loc, "subcomponent")) {
			rc = -1;
			continue;
		}
		both_sc.inner = &sattrs;
		both_sc.outer = attrs;
		if (scale_value(x, sd->area_scale, &both_sc, &own_scale) < 0) {
			rc = -1;
			continue;
		}
		xs = add_sub(x);
		xs->name = full;
		xs->base = strip_brackets(x->c, full);
		xs->class_name = sd->class_name;
		xs->cls = scls;
		xs->compound = scls && !scls->is_primitive;
		xs->attrs = sattrs;
		xs->decl = sd;
		idx = (size_t)(xs - x->subs);
		if (!xs->compound) {
			xs->area_scale = own_scale * x->area_scale * scale;
			continue;
		}
		xs->area_scale = own_scale;
		{
			struct eattrs sub_copy = x->subs[idx].attrs;   /* x->subs may move */
			if (define_subs(x, scls, &sub_copy, full, scale * own_scale) < 0)
				rc = -1;
		}
	}
	x->depth--;
	return rc;
}

/* ----------------------------------------------------------------- pricing */

/* One primitive action an action of the component expands to. */
struct prim_action {
	size_t sub;                    /* index into x->subs */
	const char *use_name;          /* the name the action uses ("storage.storage[1..64]") */
	const char *action;
	struct eattrs args;
	double scale;                  /* energy_scale, multiplied down the tree */
	struct diag_loc loc;
};

struct prim_list {
	size_t n, alloc;
	struct prim_action *v;
};

/* The action of class 'cls' named 'name', or NULL (an absent action is empty). */
static const struct spec_cc_action *class_action(const struct spec_cc_class *cls, const char *name)
{
	size_t i;

	for (i = 0; i < cls->n_actions; i++)
		if (!strcmp(cls->actions[i].name, name))
			return &cls->actions[i];
	return NULL;
}

/*
 * Flatten action 'act' of the component whose attributes are 'attrs' and
 * full name 'prefix' (NULL: the top), called with arguments 'args' and
 * scale 'scale', into primitive actions.
 */
static int flatten(struct xcomp *x, const struct spec_cc_action *act, const struct eattrs *attrs,
		   const struct eattrs *args, const char *prefix, double scale, struct prim_list *out)
{
	struct eattrs agg = EATTRS_INIT;
	struct scope sc = { &agg, NULL };
	size_t u, k;
	int rc = 0;

	eattrs_copy(x->c, &agg, attrs);
	for (k = 0; args && k < args->n; k++)
		eattrs_set(x->c, &agg, args->v[k].key, &args->v[k].v, args->v[k].loc);
	for (u = 0; u < act->n_uses; u++) {
		const struct spec_cc_use *use = &act->uses[u];
		const char *defined = define_name(x, use->name, use->loc, use->path, &sc);
		const char *full;
		struct xsub *xs;
		size_t idx;
		if (!defined) {
			rc = -1;
			continue;
		}
		full = prefix ? arena_printf(x->c->a, "%s.%s", prefix, defined) : defined;
		xs = find_sub(x, strip_brackets(x->c, full));
		if (!xs) {
			xerr(x, use->loc, "in '%s': action '%s' uses subcomponent '%s', which its class "
			     "does not declare", use->path, act->name, use->name);
			rc = -1;
			continue;
		}
		idx = (size_t)(xs - x->subs);
		for (k = 0; k < use->n_actions; k++) {
			const struct spec_cc_subaction *sa = &use->actions[k];
			struct pending *p = xcalloc(sa->n_args + 1, sizeof(*p));
			struct eattrs sargs = EATTRS_INIT;
			double es;
			size_t i;
			for (i = 0; i < sa->n_args; i++) {
				p[i].key = sa->args[i].key;
				p[i].text = &sa->args[i];
				p[i].loc = sa->args[i].loc;
			}
			if (scale_value(x, sa->energy_scale, &sc, &es) < 0 ||
			    eval_seq(x, p, sa->n_args, &agg, &sargs) < 0) {
				free(p);
				rc = -1;
				continue;
			}
			free(p);
			propagate(x, &sargs, &agg);
			es *= scale;
			if (!x->subs[idx].compound) {
				struct prim_action *pa;
				if (out->n >= MAX_PRIM_ACTIONS) {
					xerr(x, use->loc, "an action expands to more than %d primitive "
					     "actions", MAX_PRIM_ACTIONS);
					return -1;
				}
				XGROW(out->v, out->n + 1, out->alloc);
				pa = &out->v[out->n++];
				pa->sub = idx;
				pa->use_name = full;
				pa->action = sa->name;
				pa->args = sargs;
				pa->scale = es;
				pa->loc = sa->loc;
				continue;
			}
			{
				const struct spec_cc_action *sub_act =
					class_action(x->subs[idx].cls, sa->name);
				if (!sub_act)
					continue;   /* Accelergy: an action the class lacks is empty */
				if (++x->depth > MAX_NESTING) {
					xerr(x, use->loc, "actions nest deeper than %d levels",
					     MAX_NESTING);
					x->depth--;
					return -1;
				}
				if (flatten(x, sub_act, &x->subs[idx].attrs, &sargs, full, es, out) < 0)
					rc = -1;
				x->depth--;
			}
		}
	}
	return rc;
}

/* The price of one primitive query; -1 after an error at 'loc'. */
static int price(struct xcomp *x, struct xsub *xs, const char *class_name,
		 const struct eattrs *attrs, const char *action, const struct eattrs *args,
		 struct diag_loc loc, double *v, enum energy_family *f)
{
	struct equery q = { class_name, attrs, action, args };
	struct strbuf why = STRBUF_INIT;

	if (xs && xs->failed)
		return -1;
	if (energy_price(x->c, &q, v, f, &why) == 0) {
		strbuf_release(&why);
		return 0;
	}
	if (xs)
		xs->failed = true;
	while (why.len >= 2 && !strcmp(why.buf + why.len - 2, "; "))
		strbuf_setlen(&why, why.len - 2);
	if (action)
		xerr(x, loc, "cannot estimate action '%s' of %s%s%s(class %s): %s", action,
		     xs ? "subcomponent '" : "'", xs ? xs->name : x->name, "' ", class_name,
		     why.buf);
	else
		xerr(x, loc, "cannot estimate the area of %s%s%s(class %s): %s",
		     xs ? "subcomponent '" : "'", xs ? xs->name : x->name, "' ", class_name,
		     why.buf);
	strbuf_release(&why);
	return -1;
}

/* Where a subcomponent's pricing problems are reported. */
static struct diag_loc sub_loc(const struct xcomp *x, const struct xsub *xs)
{
	return xs && xs->decl ? xs->decl->class_loc : x->loc;
}

/* ------------------------------------------------------- the component */

struct prim_vec {
	size_t n, alloc;
	struct energy_primitive *v;
};

/* Record that 'name' (class 'cls') was priced by 'f', once per name. */
static void note_use(struct prim_vec *used, const char *name, const char *cls,
		     enum energy_family f)
{
	size_t i;

	for (i = 0; i < used->n; i++)
		if (!strcmp(used->v[i].name, name))
			return;
	XGROW(used->v, used->n + 1, used->alloc);
	memset(&used->v[used->n], 0, sizeof(used->v[0]));
	used->v[used->n].name = name;
	used->v[used->n].class_name = cls;
	used->v[used->n].family = f;
	used->v[used->n].count = identical_count(name);
	used->n++;
}

/* Energy of a compound action from its primitive actions. */
static int price_actions(struct xcomp *x, const struct prim_list *pl, struct energy_action *ea,
			 struct prim_vec *used)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < pl->n; i++) {
		const struct prim_action *pa = &pl->v[i];
		struct xsub *xs = &x->subs[pa->sub];
		enum energy_family f;
		double e;
		if (price(x, xs, xs->class_name, &xs->attrs, pa->action, &pa->args, sub_loc(x, xs),
			  &e, &f) < 0) {
			rc = -1;
			continue;
		}
		note_use(used, pa->use_name, xs->class_name, f);
		e *= pa->scale * identical_count(pa->use_name);
		ea->energy_pj += e;
		ea->family_pj[f] += e;
	}
	return rc;
}

/* The area: every primitive subcomponent's, scaled and counted. */
static int price_area(struct xcomp *x, struct energy_component *ec, struct prim_vec *pv)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < x->n_subs; i++) {
		struct xsub *xs = &x->subs[i];
		struct energy_primitive *p;
		enum energy_family f;
		double a;
		if (xs->compound)
			continue;
		if (price(x, xs, xs->class_name, &xs->attrs, NULL, NULL, sub_loc(x, xs), &a, &f) < 0) {
			rc = -1;
			continue;
		}
		XGROW(pv->v, pv->n + 1, pv->alloc);
		p = &pv->v[pv->n++];
		memset(p, 0, sizeof(*p));
		p->name = xs->name;
		p->class_name = xs->class_name;
		p->family = f;
		p->count = identical_count(xs->name);
		p->area_um2 = a * xs->area_scale;
		ec->area_um2 += p->area_um2 * p->count;
		ec->area_family_um2[f] += p->area_um2 * p->count;
	}
	return rc;
}

/* The actions a primitive component of the architecture has. */
static const char *const storage_actions[] = { "read", "write", "update", "leak", NULL };
static const char *const compute_actions[] = { "compute", "leak", NULL };

/* Append action 'name' with value 'e' priced by 'f' to 'ec'. */
static struct energy_action *new_action(struct ectx *c, struct energy_action **v, size_t *n,
					size_t *alloc, const char *name)
{
	struct energy_action *a;

	XGROW(*v, *n + 1, *alloc);
	a = &(*v)[(*n)++];
	memset(a, 0, sizeof(*a));
	a->name = arena_strdup(c->a, name);
	return a;
}

/* The arguments of a top-level action: plain values only. */
static int action_args(struct xcomp *x, const struct spec_cc_action *act, struct eattrs *out)
{
	struct pending *p = xcalloc(act->n_args + 1, sizeof(*p));
	size_t i;
	int rc;

	for (i = 0; i < act->n_args; i++) {
		if (strstr(act->args[i].text, "..")) {
			xerr(x, act->args[i].loc, "in '%s': argument ranges ('%s') are not supported; "
			     "give one value", act->args[i].path, act->args[i].text);
			free(p);
			return -1;
		}
		p[i].key = act->args[i].key;
		p[i].text = &act->args[i];
		p[i].loc = act->args[i].loc;
	}
	rc = eval_seq(x, p, act->n_args, &x->attrs, out);
	free(p);
	return rc;
}

/* Price every action of a compound component into 'ec'. */
static int compound_actions(struct xcomp *x, struct energy_component *ec, struct prim_vec *used)
{
	struct energy_action *v = NULL;
	size_t n = 0, alloc = 0, i;
	int rc = 0;

	for (i = 0; i < x->cls->n_actions; i++) {
		const struct spec_cc_action *act = &x->cls->actions[i];
		struct prim_list pl = { 0, 0, NULL };
		struct eattrs args = EATTRS_INIT;
		struct energy_action *ea = new_action(x->c, &v, &n, &alloc, act->name);
		if (action_args(x, act, &args) < 0 ||
		    flatten(x, act, &x->attrs, &args, NULL, 1.0, &pl) < 0 ||
		    price_actions(x, &pl, ea, used) < 0)
			rc = -1;
		free(pl.v);
	}
	ec->n_actions = n;
	ec->actions = n ? arena_memdup(x->c->a, v, n * sizeof(*v)) : NULL;
	free(v);
	return rc;
}

/* Price a primitive component: its own actions and area. */
static int primitive_component(struct xcomp *x, struct energy_component *ec, bool is_storage,
			       bool actions, bool area, struct prim_vec *pv, struct prim_vec *used)
{
	const char *const *names = is_storage ? storage_actions : compute_actions;
	struct energy_action *v = NULL;
	size_t n = 0, alloc = 0, i;
	enum energy_family f;
	int rc = 0;

	for (i = 0; actions && names[i]; i++) {
		struct energy_action *ea = new_action(x->c, &v, &n, &alloc, names[i]);
		struct eattrs args = EATTRS_INIT;
		double e;
		propagate(x, &args, &x->attrs);
		if (price(x, NULL, x->class_name, &x->attrs, names[i], &args, x->loc, &e, &f) < 0) {
			rc = -1;
			continue;
		}
		ea->energy_pj = e;
		ea->family_pj[f] = e;
		note_use(used, ec->name, x->class_name, f);
	}
	ec->n_actions = n;
	ec->actions = n ? arena_memdup(x->c->a, v, n * sizeof(*v)) : NULL;
	free(v);
	if (area) {
		struct energy_primitive *p;
		double a;
		if (price(x, NULL, x->class_name, &x->attrs, NULL, NULL, x->loc, &a, &f) < 0)
			return -1;
		ec->area_um2 = a * x->area_scale;
		ec->area_family_um2[f] = ec->area_um2;
		XGROW(pv->v, pv->n + 1, pv->alloc);
		p = &pv->v[pv->n++];
		memset(p, 0, sizeof(*p));
		p->name = ec->name;
		p->class_name = x->class_name;
		p->family = f;
		p->count = 1;
		p->area_um2 = ec->area_um2;
	}
	return rc;
}

/* ------------------------------------------------ the component's attributes */

/* A value written in the architecture: literal, else expression, else text. */
static void arch_value(struct xcomp *x, const struct spec_attr *a, const struct eattrs *so_far,
		       const struct eattrs *vars, struct spec_value *out)
{
	struct scope sc = { so_far, vars };
	struct spec_expr_error err;

	if (spec_value_literal(a->value, a->is_quoted, out) || a->is_quoted)
		return;
	if (spec_expr_eval(a->value, scope_lookup, &sc, x->c->a, out, &err) == 0)
		return;
	spec_value_literal(a->value, true, out);  /* the front end left it as text */
}

/* The scalar variables of the design as attributes. */
static void variables(struct xcomp *x, struct eattrs *out)
{
	const struct spec_set *s = x->c->s;
	size_t i;

	for (i = 0; i < s->n_variables; i++) {
		struct spec_value v;
		spec_value_literal(s->variables[i].value, s->variables[i].is_quoted, &v);
		eattrs_set(x->c, out, s->variables[i].key, &v, s->variables[i].loc);
	}
}

/*
 * The component's attributes: its own and inherited ones, the technology
 * and cycle time from the variables when no container gives them, then its
 * class's defaults, evaluated in order. -1 after an error.
 */
static int top_attrs(struct xcomp *x, size_t n_attrs, const struct spec_attr *attrs)
{
	struct eattrs vars = EATTRS_INIT, own = EATTRS_INIT;
	struct pending *p;
	const struct eattr *e;
	size_t i, n = 0;
	int rc = 0;

	variables(x, &vars);
	for (i = 0; i < n_attrs; i++) {
		struct spec_value v;
		arch_value(x, &attrs[i], &own, &vars, &v);
		eattrs_set(x->c, &own, attrs[i].key, &v, attrs[i].loc);
	}
	if (!eattrs_get(&own, "technology") && (e = eattrs_get(&vars, "technology")))
		eattrs_set(x->c, &own, "technology", &e->v, e->loc);
	if (x->dummy) {                /* as the front end marks its containers' levels */
		struct spec_value minus1 = { SPEC_VALUE_INT, false, -1, 0, NULL };
		eattrs_set(x->c, &own, "technology", &minus1, DIAG_LOC_NONE);
	}
	if (!eattrs_get(&own, "global_cycle_seconds")) {
		struct spec_value ns = { SPEC_VALUE_FLOAT, false, 0, 1e-9, NULL };
		e = eattrs_get(&vars, "global_cycle_seconds");
		eattrs_set(x->c, &own, "global_cycle_seconds", e ? &e->v : &ns,
			   e ? e->loc : DIAG_LOC_NONE);
	}
	p = xcalloc(own.n + (x->cls ? x->cls->n_attrs : 0) + 1, sizeof(*p));
	for (i = 0; i < own.n; i++) {
		p[n].key = own.v[i].key;
		p[n].v = own.v[i].v;
		p[n].loc = own.v[i].loc;
		n++;
	}
	if (add_defaults(x, x->cls, p, &n, x->name, x->loc) < 0)
		rc = -1;
	if (rc == 0 && eval_seq(x, p, n, NULL, &x->attrs) < 0)
		rc = -1;
	free(p);
	if (rc < 0)
		return -1;
	propagate(x, &x->attrs, NULL);
	/* Accelergy prices a DRAM without one (the Timeloop designs' DRAMs sit above the
	 * container that sets it): only a component whose model needs it is refused */
	if (!eattrs_get(&x->attrs, "technology") && !(!x->cls && energy_is_dram(x->class_name))) {
		xerr(x, x->loc, "'%s' has no 'technology' to estimate its energy and area with: give "
		     "one (e.g. technology: 45nm) in its attributes, a container's or 'variables', "
		     "or run with --energy PRESET", x->name);
		return -1;
	}
	return 0;
}

/* The component's own area_scale attribute, or 1. */
static double own_area_scale(const struct xcomp *x)
{
	double s;

	return eattrs_number(&x->attrs, "area_scale", &s) ? s : 1.0;
}

/* True when a compound storage class lacks an action Timeloop needs. */
static void check_needed_actions(struct xcomp *x, bool is_storage)
{
	static const char *const st[] = { "read", "write" }, *const cp[] = { "compute" };
	const char *const *need = is_storage ? st : cp;
	size_t i, n = is_storage ? 2 : 1;

	for (i = 0; i < n; i++) {
		if (class_action(x->cls, need[i]))
			continue;
		if (!is_storage && (class_action(x->cls, "mac") || class_action(x->cls, "mac_random")))
			continue;
		if (is_storage && !strcmp(need[i], "write") && class_action(x->cls, "update"))
			continue;
		xerr(x, x->cls->loc, "class '%s' has no '%s' action, which '%s' needs", x->cls->name,
		     need[i], x->name);
	}
}

int energy_expand_component(struct ectx *c, struct energy_component *ec, const char *class_name,
			    struct diag_loc loc, size_t n_attrs, const struct spec_attr *attrs,
			    bool is_storage, bool is_dummy, bool want_energy, bool want_area)
{
	struct xcomp x;
	struct prim_vec pv = { 0, 0, NULL }, used = { 0, 0, NULL };
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.name = ec->component;
	x.class_name = class_name;
	x.loc = loc;
	x.cls = find_class(c->s, class_name);
	x.dummy = is_dummy;
	if (top_attrs(&x, n_attrs, attrs) < 0)
		return -1;
	x.area_scale = own_area_scale(&x);
	if (is_dummy)
		want_energy = false;
	if (unknown_class(&x, class_name, &x.attrs, loc, "component"))
		return -1;
	if (!x.cls || x.cls->is_primitive) {
		rc = primitive_component(&x, ec, is_storage, want_energy, want_area, &pv, &used);
	} else {
		if (define_subs(&x, x.cls, &x.attrs, NULL, 1.0) < 0) {
			free(x.subs);
			return -1;
		}
		if (want_energy) {
			check_needed_actions(&x, is_storage);
			if (compound_actions(&x, ec, &used) < 0)
				rc = -1;
		}
		if (want_area && price_area(&x, ec, &pv) < 0)
			rc = -1;
	}
	ec->has_energy = want_energy;
	ec->has_area = want_area;
	ec->n_prims = pv.n;
	ec->prims = pv.n ? arena_memdup(c->a, pv.v, pv.n * sizeof(*pv.v)) : NULL;
	ec->n_used = used.n;
	ec->used = used.n ? arena_memdup(c->a, used.v, used.n * sizeof(*used.v)) : NULL;
	free(pv.v);
	free(used.v);
	free(x.subs);
	return rc == 0 && c->rc == 0 ? 0 : -1;
}
