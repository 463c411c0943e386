/*
 * energy_estimate(): every storage level (outermost first) and the compute
 * unit that the user's tables leave open, expanded and priced (expand.c),
 * gathered into tables shaped like a parsed ERT; the design key and the
 * cache that builds tables once per distinct architecture.
 */
#include "energy/energy_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Accelergy's name of a component: "system_top_level.GLB[1..16]". */
static const char *ert_name(struct arena *a, const struct spec_arch *arch, const char *name,
			    uint64_t instances)
{
	const char *top = arch->top_name ? arch->top_name : "system";
	size_t n = strlen(top), k = strlen("_top_level");
	bool has_suffix = n >= k && !strcmp(top + n - k, "_top_level");

	if (arch->dialect == SPEC_DIALECT_V03_TREE || has_suffix)
		return arena_printf(a, "%s.%s[1..%llu]", top, name, (unsigned long long)instances);
	return arena_printf(a, "%s_top_level.%s[1..%llu]", top, name,
			    (unsigned long long)instances);
}

/*
 * What to estimate for a component: its energy unless the user's ERT (or an
 * energy attribute) prices it; its area when its energy is estimated and the
 * user's ART (or an area attribute) does not give it. A component the user's
 * ERT covers keeps Timeloop's behaviour: without an ART entry its area is 0.
 */
static bool level_wants(const struct spec_level *L, const struct energy_options *o,
			bool *energy, bool *area)
{
	*energy = !L->is_dummy && (o->all || (!L->ert && !L->has_vector_access_energy));
	*area = !L->is_dummy && (o->all || (*energy && !L->art && !L->has_cluster_area));
	return *energy || *area;
}

/*
 * A dummy level (a spatial container's) has no actions; its area (the dummy
 * table's) is estimated with the rest of the design: when anything else is.
 */
static bool dummy_wants(const struct spec_level *L, const struct energy_options *o,
			bool others, bool *energy, bool *area)
{
	*energy = false;
	*area = L->is_dummy && (o->all || (others && !L->art && !L->has_cluster_area));
	return *area;
}

static bool compute_wants(const struct spec_compute *c, const struct energy_options *o,
			  bool *energy, bool *area)
{
	*energy = o->all || (!c->ert && !c->has_energy);
	*area = o->all || (*energy && !c->art && !c->has_area);
	return *energy || *area;
}

bool energy_needed(const struct spec_set *s, const struct energy_options *o)
{
	static const struct energy_options defaults = ENERGY_OPTIONS_INIT;
	bool e, a;
	unsigned l;

	if (!o)
		o = &defaults;
	for (l = 0; l < s->arch.n_levels; l++)
		if (level_wants(&s->arch.levels[l], o, &e, &a))
			return true;
	return compute_wants(&s->arch.compute, o, &e, &a) ||
	       (o->all && s->arch.n_levels > 0);
}

/* The estimated actions of 'ec' as a parsed ERT table. */
static void as_ert(struct arena *a, struct energy_component *ec, struct diag_loc loc)
{
	struct spec_ert_action *acts = arena_calloc(a, ec->n_actions + 1, sizeof(*acts));
	size_t i;

	for (i = 0; i < ec->n_actions; i++) {
		acts[i].name = ec->actions[i].name;
		acts[i].energy_pj = ec->actions[i].energy_pj;
		acts[i].n_variants = 1;
		acts[i].loc = loc;
	}
	ec->ert.name = ec->name;
	ec->ert.component = ec->component;
	ec->ert.n_actions = ec->n_actions;
	ec->ert.actions = acts;
	ec->ert.loc = loc;
}

struct energy_tables *energy_estimate(const struct spec_set *s, const struct energy_options *o,
				      struct diag_list *dl)
{
	static const struct energy_options defaults = ENERGY_OPTIONS_INIT;
	struct energy_tables *t = xcalloc(1, sizeof(*t));
	struct energy_component *v;
	struct ectx c;
	size_t n = 0;
	int l;
	bool e, a, others;

	if (!o)
		o = &defaults;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.a = &t->arena;
	c.dl = dl;
	v = arena_calloc(&t->arena, s->arch.n_levels + 2, sizeof(*v));
	others = energy_needed(s, o);
	for (l = (int)s->arch.n_levels - 1; l >= 0; l--) {
		const struct spec_level *L = &s->arch.levels[l];
		struct energy_component *ec = &v[n];
		if (!(L->is_dummy ? dummy_wants(L, o, others, &e, &a) : level_wants(L, o, &e, &a)))
			continue;
		ec->component = L->name;
		ec->class_name = L->subclass ? L->subclass : L->class_name;
		ec->name = ert_name(&t->arena, &s->arch, L->name, L->instances);
		ec->level = l;
		ec->instances = L->instances;
		if (energy_expand_component(&c, ec, ec->class_name, L->loc, L->n_attrs, L->attrs, true,
					    L->is_dummy, e, a) < 0)
			continue;
		as_ert(&t->arena, ec, L->loc);
		t->level[l] = ec;
		n++;
	}
	if (compute_wants(&s->arch.compute, o, &e, &a)) {
		const struct spec_compute *cu = &s->arch.compute;
		struct energy_component *ec = &v[n];
		ec->component = cu->name;
		ec->class_name = cu->subclass ? cu->subclass : cu->class_name;
		ec->name = ert_name(&t->arena, &s->arch, cu->name, cu->instances);
		ec->level = -1;
		ec->instances = cu->instances;
		if (energy_expand_component(&c, ec, ec->class_name, cu->loc, cu->n_attrs, cu->attrs,
					    false, false, e, a) == 0) {
			as_ert(&t->arena, ec, cu->loc);
			t->compute = ec;
			n++;
		}
	}
	free(c.sram);
	if (c.rc < 0) {
		energy_tables_free(t);
		return NULL;
	}
	t->n_components = n;
	t->components = v;
	t->key = energy_design_key(s, o);
	return t;
}

void energy_tables_free(struct energy_tables *t)
{
	if (!t)
		return;
	arena_release(&t->arena);
	free(t);
}

const struct energy_action *energy_component_action(const struct energy_component *c,
						    const char *name)
{
	size_t i;

	for (i = 0; i < c->n_actions; i++)
		if (!strcmp(c->actions[i].name, name))
			return &c->actions[i];
	return NULL;
}

/* ------------------------------------------------------------- the key */

struct fnv {
	uint64_t h;
};

static void fnv_bytes(struct fnv *f, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		f->h ^= b[i];
		f->h *= 1099511628211ull;
	}
}

static void fnv_str(struct fnv *f, const char *s)
{
	if (s)
		fnv_bytes(f, s, strlen(s) + 1);
	else
		fnv_bytes(f, "\xff", 1);
}

static void fnv_u64(struct fnv *f, uint64_t u)
{
	fnv_bytes(f, &u, sizeof(u));
}

static void fnv_attrs(struct fnv *f, size_t n, const struct spec_attr *a)
{
	size_t i;

	fnv_u64(f, n);
	for (i = 0; i < n; i++) {
		fnv_str(f, a[i].key);
		fnv_str(f, a[i].value);
		fnv_u64(f, a[i].is_quoted);
	}
}

static void fnv_values(struct fnv *f, size_t n, const struct spec_cc_value *v)
{
	size_t i;

	fnv_u64(f, n);
	for (i = 0; i < n; i++) {
		fnv_str(f, v[i].key);
		fnv_str(f, v[i].text);
		fnv_u64(f, v[i].is_quoted);
	}
}

static void fnv_class(struct fnv *f, const struct spec_cc_class *c)
{
	size_t i, j, k;

	fnv_str(f, c->name);
	fnv_u64(f, c->is_primitive);
	fnv_values(f, c->n_attrs, c->attrs);
	fnv_u64(f, c->n_subs);
	for (i = 0; i < c->n_subs; i++) {
		fnv_str(f, c->subs[i].name);
		fnv_str(f, c->subs[i].class_name);
		fnv_values(f, c->subs[i].n_attrs, c->subs[i].attrs);
		fnv_values(f, c->subs[i].area_scale ? 1 : 0, c->subs[i].area_scale);
	}
	fnv_u64(f, c->n_actions);
	for (i = 0; i < c->n_actions; i++) {
		const struct spec_cc_action *a = &c->actions[i];
		fnv_str(f, a->name);
		fnv_values(f, a->n_args, a->args);
		fnv_u64(f, a->n_uses);
		for (j = 0; j < a->n_uses; j++) {
			fnv_str(f, a->uses[j].name);
			fnv_u64(f, a->uses[j].n_actions);
			for (k = 0; k < a->uses[j].n_actions; k++) {
				const struct spec_cc_subaction *sa = &a->uses[j].actions[k];
				fnv_str(f, sa->name);
				fnv_values(f, sa->n_args, sa->args);
				fnv_values(f, sa->energy_scale ? 1 : 0, sa->energy_scale);
			}
		}
	}
}

uint64_t energy_design_key(const struct spec_set *s, const struct energy_options *o)
{
	struct fnv f = { 1469598103934665603ull };
	const struct spec_compute *c = &s->arch.compute;
	unsigned l;
	size_t i;

	fnv_u64(&f, o ? o->all : 0);
	fnv_str(&f, s->arch.top_name);
	fnv_u64(&f, s->arch.dialect);
	fnv_u64(&f, s->arch.n_levels);
	for (l = 0; l < s->arch.n_levels; l++) {
		const struct spec_level *L = &s->arch.levels[l];
		fnv_str(&f, L->name);
		fnv_str(&f, L->class_name);
		fnv_str(&f, L->subclass);
		fnv_u64(&f, L->instances);
		fnv_u64(&f, L->is_dummy);
		fnv_u64(&f, L->ert != NULL);
		fnv_u64(&f, L->art != NULL);
		fnv_u64(&f, L->has_vector_access_energy);
		fnv_u64(&f, L->has_cluster_area);
		fnv_attrs(&f, L->n_attrs, L->attrs);
	}
	fnv_str(&f, c->name);
	fnv_str(&f, c->class_name);
	fnv_str(&f, c->subclass);
	fnv_u64(&f, c->instances);
	fnv_u64(&f, c->ert != NULL);
	fnv_u64(&f, c->art != NULL);
	fnv_u64(&f, c->has_energy);
	fnv_u64(&f, c->has_area);
	fnv_attrs(&f, c->n_attrs, c->attrs);
	fnv_attrs(&f, s->n_variables, s->variables);
	fnv_u64(&f, s->components.n_classes);
	for (i = 0; i < s->components.n_classes; i++)
		fnv_class(&f, &s->components.classes[i]);
	return f.h;
}

/* ----------------------------------------------------------- the cache */

struct energy_cache {
	pthread_mutex_t lock;
	size_t n, alloc;
	struct energy_tables **tables;
};

struct energy_cache *energy_cache_new(void)
{
	struct energy_cache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	return c;
}

/* The cached tables of 'key', or NULL; the caller holds the lock. */
static struct energy_tables *cache_find(struct energy_cache *c, uint64_t key)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->tables[i]->key == key)
			return c->tables[i];
	return NULL;
}

const struct energy_tables *energy_cache_get(struct energy_cache *c, const struct spec_set *s,
					     const struct energy_options *o,
					     struct diag_list *dl)
{
	uint64_t key = energy_design_key(s, o);
	struct energy_tables *t, *found;

	pthread_mutex_lock(&c->lock);
	found = cache_find(c, key);
	pthread_mutex_unlock(&c->lock);
	if (found)
		return found;
	t = energy_estimate(s, o, dl);     /* outside the lock: other designs go on */
	if (!t)
		return NULL;
	pthread_mutex_lock(&c->lock);
	found = cache_find(c, key);
	if (!found) {
		XGROW(c->tables, c->n + 1, c->alloc);
		c->tables[c->n++] = t;
		found = t;
		t = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	energy_tables_free(t);
	return found;
}

void energy_cache_free(struct energy_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		energy_tables_free(c->tables[i]);
	free(c->tables);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
