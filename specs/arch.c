/*
 * The 'architecture' key in the subtree/local dialects (v0.3 tree and the
 * v0.4 tree the front end dumps), flattened into ld->comps outermost first,
 * and the dispatch between the dialects.
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const arch_keys[] = { "version", "subtree", "nodes" };
static const char *const subtree_keys[] = { "name", "attributes", "local", "subtree" };
static const char *const local_keys[] = {
	"name", "class", "subclass", "attributes", "required_actions", "enabled",
};

/* Inherited attributes: a chain of attribute maps, innermost first. */
struct attr_scope {
	const struct attr_scope *up;
	const struct ysrc_node *attrs;
};

/* Add the pairs of attribute map 'm' to 'rc' (skipping ones already set). */
static void add_attr_map(struct ld *ld, struct raw_comp *rc, struct ld_attr_ix *ix,
			 const struct ysrc_node *m, bool inherited)
{
	size_t i;
	if (!m || m->kind != YSRC_MAP)
		return;
	for (i = 0; i < m->n; i++) {
		size_t before = rc->n_attrs;
		ld_comp_add_attr_ix(ld, rc, ix, m->pairs[i].key->str, m->pairs[i].value, inherited);
		if (rc->n_attrs > before)
			rc->attrs[before].loc = m->pairs[i].key->loc;
	}
}

int spec_split_range(struct arena *a, const char *text, const char **name, uint64_t *count)
{
	const char *lb = strchr(text, '[');
	unsigned long long lo, hi;
	char *end;

	*count = 1;
	if (!lb) {
		*name = arena_strdup(a, text);
		return 0;
	}
	*name = arena_strndup(a, text, (size_t)(lb - text));
	if (!isdigit((unsigned char)lb[1]))
		return -1;
	lo = strtoull(lb + 1, &end, 10);
	if (strncmp(end, "..", 2) || !isdigit((unsigned char)end[2]))
		return -1;
	hi = strtoull(end + 2, &end, 10);
	if (strcmp(end, "]") || hi < lo || lb == text)
		return -1;
	*count = hi - lo + 1;
	return 0;
}

/* Parse the 'name' of an entry: "x" or "x[a..b]". */
static int entry_name(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		      const char **name, uint64_t *count)
{
	const struct ysrc_node *n = ld_get(e, "name");
	struct kpath np = KP_KEY(p, "name");

	if (!n)
		return ld_error(ld, e, p, "missing 'name'");
	if (ld_want_scalar(ld, n, &np) < 0)
		return -1;
	if (spec_split_range(ld->a, n->str, name, count) < 0)
		return ld_error(ld, n, &np, "expected 'name' or 'name[first..last]' with "
				"first <= last, got '%s'", n->str);
	return 0;
}

/* One 'local' entry -> a raw component with the scope's attributes. */
static int local_entry_read(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			    const struct attr_scope *scope, uint64_t mult)
{
	struct raw_comp *rc;
	const struct ysrc_node *cls = ld_get(e, "class"), *sub = ld_get(e, "subclass");
	struct kpath cp = KP_KEY(p, "class"), sp = KP_KEY(p, "subclass");
	struct kpath ap = KP_KEY(p, "attributes");
	struct ld_attr_ix ix;
	const char *name;
	uint64_t count;
	int rc_ = 0;

	if (ld_want_map(ld, e, p) < 0)
		return -1;
	ld_check_keys(ld, e, p, local_keys, ARRAY_SIZE(local_keys));   /* reported; harmless */
	if (entry_name(ld, e, p, &name, &count) < 0)
		return -1;
	if (!cls)
		return ld_error(ld, e, p, "component '%s' needs a 'class'", name);
	if (ld_want_scalar(ld, cls, &cp) < 0 || (sub && ld_want_scalar(ld, sub, &sp) < 0))
		return -1;
	if (ld_get(e, "attributes") && ld_want_map(ld, ld_get(e, "attributes"), &ap) < 0)
		return -1;
	rc = ld_comp_add(ld);
	rc->name = name;
	rc->class_name = arena_strdup(ld->a, cls->str);
	rc->subclass = sub ? arena_strdup(ld->a, sub->str) : NULL;
	rc->loc = ld_get(e, "name")->loc;
	rc->path = ld_kpath_strdup(ld, p);
	if (!ck_mul_u64(mult, count, &rc->instances))
		return ld_error(ld, e, p, "too many instances");
	memset(&ix, 0, sizeof(ix));
	add_attr_map(ld, rc, &ix, ld_get(e, "attributes"), false);
	for (; scope; scope = scope->up)
		add_attr_map(ld, rc, &ix, scope->attrs, true);
	return rc_;
}

/* ------------------------------------------- entries flattened once per source */

#define FLAT_MEMO_MAX 256

/*
 * True when the entry 'e' at 'p' under 'scope' reads nodes of the files
 * alone (the memo's key can hold it): no node an override or an
 * expression of this build made, which a later build's could alias.
 */
static bool flat_keyable(const struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			 const struct attr_scope *scope)
{
	const struct spec_source *src = ld->s->source;
	size_t n = 0;

	if (!src || !ld_files_node(src, e))
		return false;
	for (; scope; scope = scope->up)
		if (++n > FLAT_MAX_SCOPES || (scope->attrs && !ld_files_node(src, scope->attrs)))
			return false;
	for (n = 0; p; p = p->up)
		if (++n > FLAT_MAX_PATH)
			return false;
	return true;
}

static bool flat_matches(const struct ld_flat_memo *m, const struct ysrc_node *e,
			 const struct kpath *p, const struct attr_scope *scope, uint64_t mult)
{
	size_t i;

	if (m->entry != e || m->mult != mult)
		return false;
	for (i = 0; scope; scope = scope->up, i++)
		if (i == m->n_scopes || m->scopes[i] != scope->attrs)
			return false;
	if (i != m->n_scopes)
		return false;
	for (i = 0; p; p = p->up, i++)
		if (i == m->n_path || (p->key ? !m->path[i].key || strcmp(p->key, m->path[i].key) :
				       m->path[i].key || p->index != m->path[i].index))
			return false;
	return i == m->n_path;
}

/* Take the entry flattened by an earlier build of the source: true when there is one. */
static bool flat_take(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		      const struct attr_scope *scope, uint64_t mult)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	struct ld_flat_memo *m = NULL;
	struct raw_comp *rc;
	size_t i;

	pthread_mutex_lock(&src->cc_mu);
	for (i = 0; i < src->n_flat_memo && !m; i++)
		if (flat_matches(src->flat_memo[i], e, p, scope, mult))
			m = src->flat_memo[i];
	pthread_mutex_unlock(&src->cc_mu);
	if (!m)
		return false;
	rc = ld_comp_add(ld);
	*rc = m->comp;
	rc->alloc_attrs = rc->n_attrs;   /* shared: a later attribute goes to a new array */
	rc->flat = m;
	return true;
}

/* Keep the component 'rc' just flattened (nothing said) for later builds. */
static void flat_put(struct ld *ld, const struct raw_comp *rc, const struct ysrc_node *e,
		     const struct kpath *p, const struct attr_scope *scope, uint64_t mult)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	struct ld_flat_memo *m;
	size_t i;

	pthread_mutex_lock(&src->cc_mu);
	for (i = 0; i < src->n_flat_memo; i++)
		if (flat_matches(src->flat_memo[i], e, p, scope, mult))
			break;
	if (i == src->n_flat_memo && i < FLAT_MEMO_MAX) {
		struct arena *a = &src->cc_arena;
		if (src->n_flat_memo == src->alloc_flat_memo) {   /* the arena's: grow by doubling */
			size_t n = src->alloc_flat_memo ? 2 * src->alloc_flat_memo : 16;
			struct ld_flat_memo **bigger = arena_calloc(a, n, sizeof(*bigger));
			if (src->n_flat_memo)
				memcpy(bigger, src->flat_memo, src->n_flat_memo * sizeof(*bigger));
			src->flat_memo = bigger;
			src->alloc_flat_memo = n;
		}
		m = arena_calloc(a, 1, sizeof(*m));
		m->entry = e;
		for (; scope; scope = scope->up)
			m->scopes[m->n_scopes++] = scope->attrs;
		m->mult = mult;
		for (; p; p = p->up) {
			m->path[m->n_path].key = arena_strdup(a, p->key);
			m->path[m->n_path++].index = p->index;
		}
		m->comp = *rc;
		m->comp.name = arena_strdup(a, rc->name);
		m->comp.class_name = arena_strdup(a, rc->class_name);
		m->comp.subclass = arena_strdup(a, rc->subclass);
		m->comp.path = arena_strdup(a, rc->path);
		m->comp.attrs = rc->n_attrs ? arena_memdup(a, rc->attrs, rc->n_attrs * sizeof(*rc->attrs))
					    : NULL;
		for (i = 0; i < rc->n_attrs; i++)
			m->comp.attrs[i].key = arena_strdup(a, rc->attrs[i].key);
		m->comp.alloc_attrs = rc->n_attrs;
		m->comp.flat = m;
		m->level_memo = -1;
		src->flat_memo[src->n_flat_memo++] = m;
	}
	pthread_mutex_unlock(&src->cc_mu);
}

/*
 * local_entry_read(), or the component an earlier build of the source
 * flattened from the same nodes (a sweep's points mostly change one
 * component, or none). One whose read said anything is read every time.
 */
static int local_entry(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		       const struct attr_scope *scope, uint64_t mult)
{
	bool keyable = flat_keyable(ld, e, p, scope);
	size_t said;
	int r;

	if (keyable && flat_take(ld, e, p, scope, mult))
		return 0;
	said = ld_said(ld);
	r = local_entry_read(ld, e, p, scope, mult);
	if (keyable && r == 0 && ld_said(ld) == said)
		flat_put(ld, &ld->comps[ld->n_comps - 1], e, p, scope, mult);
	return r;
}

/* A 'subtree' list: exactly one entry, whose count multiplies 'mult'. */
static int subtree_list(struct ld *ld, const struct ysrc_node *list, const struct kpath *p,
			const struct attr_scope *scope, uint64_t mult);

/* One subtree entry: its locals (outer) then its nested subtree (inner). */
static int subtree_entry(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			 const struct attr_scope *up, uint64_t mult)
{
	const struct ysrc_node *attrs = ld_get(e, "attributes"), *local = ld_get(e, "local");
	struct kpath ap = KP_KEY(p, "attributes"), lp = KP_KEY(p, "local");
	struct kpath sp = KP_KEY(p, "subtree");
	struct attr_scope scope = { up, attrs };
	const char *name;
	uint64_t count;
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, e, p) < 0)
		return -1;
	ld_check_keys(ld, e, p, subtree_keys, ARRAY_SIZE(subtree_keys));   /* reported; harmless */
	if (entry_name(ld, e, p, &name, &count) < 0)
		return -1;
	if (attrs && ld_want_map(ld, attrs, &ap) < 0)
		return -1;
	if (!ck_mul_u64(mult, count, &mult))
		return ld_error(ld, e, p, "too many instances");
	if (!up)
		ld->s->arch.top_name = name;
	if (local && ld_want_seq(ld, local, &lp) == 0) {
		for (i = 0; i < local->n; i++) {
			struct kpath ip = KP_IDX(&lp, i);
			if (local_entry(ld, local->items[i], &ip, &scope, mult) < 0)
				rc = -1;
		}
	} else if (local) {
		rc = -1;
	}
	if (ld_get(e, "subtree") && subtree_list(ld, ld_get(e, "subtree"), &sp, &scope, mult) < 0)
		rc = -1;
	return rc;
}

/* A 'subtree' list: exactly one entry, whose count multiplies 'mult'. */
static int subtree_list(struct ld *ld, const struct ysrc_node *list, const struct kpath *p,
			const struct attr_scope *scope, uint64_t mult)
{
	struct kpath ip = KP_IDX(p, 0);

	if (ld_want_seq(ld, list, p) < 0)
		return -1;
	if (list->n != 1)
		return ld_error(ld, list, p, "a 'subtree' must hold exactly one entry (nest "
				"subtrees for deeper hierarchies), got %zu", list->n);
	return subtree_entry(ld, list->items[0], &ip, scope, mult);
}

int spec_arch_tree_load(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p)
{
	struct kpath sp = KP_KEY(p, "subtree");
	return subtree_list(ld, ld_get(arch, "subtree"), &sp, NULL, 1);
}

/* The version string of 'architecture' (NULL when absent). */
static const char *arch_version(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p)
{
	const struct ysrc_node *v = ld_get(arch, "version");
	struct kpath vp = KP_KEY(p, "version");
	return v ? ld_str(ld, v, &vp) : NULL;
}

int spec_arch_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "architecture");
	const struct ysrc_node *arch = top->values[0];
	struct spec_arch *sa = &ld->s->arch;
	struct kpath p = KP_KEY(NULL, top->keys[0]->str);
	int rc = 0, bad_keys;

	if (ld_want_map(ld, arch, &p) < 0)
		return -1;
	bad_keys = ld_check_keys(ld, arch, &p, arch_keys, ARRAY_SIZE(arch_keys)) ? -1 : 0;
	sa->loc = arch->loc;
	sa->version = arch_version(ld, arch, &p);
	if (ld_get(arch, "nodes") && ld_get(arch, "subtree"))
		return ld_error(ld, arch, &p, "give either 'nodes' or 'subtree', not both");
	if (ld_get(arch, "nodes")) {
		sa->dialect = SPEC_DIALECT_V04_NODES;
		if (spec_arch_nodes_load(ld, arch, &p) < 0)
			rc = -1;
	} else if (ld_get(arch, "subtree")) {
		sa->dialect = sa->version && !strncmp(sa->version, "0.4", 3) ?
			SPEC_DIALECT_V04_FLAT : SPEC_DIALECT_V03_TREE;
		if (spec_arch_tree_load(ld, arch, &p) < 0)
			rc = -1;
	} else {
		return ld_error(ld, arch, &p, "missing 'subtree' (v0.3 / flattened v0.4) or "
				"'nodes' (v0.4 node list)");
	}
	if (rc < 0) {
		spec_arch_build(ld, true);
		return -1;
	}
	if (spec_arch_build(ld, false) < 0)
		return -1;
	ld->arch_ok = true;
	return bad_keys;
}

/* 'v' as a positive finite number. */
static bool positive_number(const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !isfinite(d) || d <= 0)
		return false;
	*out = d;
	return true;
}

bool spec_arch_cycle_seconds(const struct spec_arch *a, double *out)
{
	size_t i;
	unsigned l;

	for (i = 0; i < a->compute.n_attrs; i++)
		if (!strcmp(a->compute.attrs[i].key, "global_cycle_seconds") &&
		    positive_number(a->compute.attrs[i].value, out))
			return true;
	for (l = a->n_levels; l-- > 0;)
		for (i = 0; i < a->levels[l].n_attrs; i++)
			if (!strcmp(a->levels[l].attrs[i].key, "global_cycle_seconds") &&
			    positive_number(a->levels[l].attrs[i].value, out))
				return true;
	return false;
}
