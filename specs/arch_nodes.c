/*
 * The v0.4 node list ('nodes:' with !Container, !Component, !Parallel,
 * !Hierarchical, !Pipelined and !Nothing), flattened as Timeloop's front
 * end does: a !Nothing node and a component with 'enabled: false' add
 * nothing, !Pipelined nests like !Hierarchical; container
 * attributes apply to every later node; a container with a spatial fanout
 * becomes a 'dummy_storage' level named inter_<container>_spatial that
 * carries the outer mesh, and the nodes after it get the larger mesh;
 * components get the front end's attribute defaults; per-component
 * sparse_optimizations and constraints are kept for sparse.c and mapper.c.
 */
#include "specs/specs_int.h"

#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const tags[] = {
	"!Container", "!Component", "!Parallel", "!Hierarchical", "!Pipelined", "!Nothing",
};
enum node_tag {
	TAG_CONTAINER, TAG_COMPONENT, TAG_PARALLEL, TAG_HIERARCHICAL, TAG_PIPELINED, TAG_NOTHING,
};

static const char *const container_keys[] = { "name", "attributes", "spatial", "constraints" };
static const char *const component_keys[] = {
	"name", "class", "subclass", "attributes", "constraints", "sparse_optimizations",
	"required_actions", "enabled", "area_scale", "energy_scale",
};
static const char *const group_keys[] = { "name", "nodes" };
static const char *const spatial_keys[] = { "meshX", "meshY" };

/* Attribute scopes of the containers seen so far, innermost first. */
struct scope {
	const struct scope *up;
	const struct ysrc_node *attrs;
};

/* The walk state: the mesh below the containers seen, and their attributes. */
struct walk {
	uint64_t mesh_x, mesh_y;
	struct scope *scopes;          /* arena-allocated chain */
	bool in_parallel;
};

/* A synthesized attribute value located at 'loc'. */
static void synth(struct ld *ld, struct raw_comp *rc, const char *key, const char *value)
{
	ld_comp_add_attr(ld, rc, key, ysrc_scalar_new(ld->a, value, rc->loc), false);
}

/* A synthesized integer attribute. */
static void synth_u64(struct ld *ld, struct raw_comp *rc, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	synth(ld, rc, key, buf);
}

/* The attributes the front end writes on every storage / compute component. */
static void add_defaults(struct ld *ld, struct raw_comp *rc, const struct walk *w)
{
	enum comp_kind kind = spec_classify(rc->class_name);
	synth(ld, rc, "has_power_gating", "false");
	if (kind == COMP_STORAGE) {
		synth(ld, rc, "n_banks", "2");
		synth(ld, rc, "cluster_size", "1");
		synth(ld, rc, "reduction_supported", "true");
		synth(ld, rc, "multiple_buffering", "1");
		synth(ld, rc, "min_utilization", "0");
		synth(ld, rc, "allow_overbooking", "false");
	}
	synth_u64(ld, rc, "meshX", w->mesh_x);
	synth_u64(ld, rc, "meshY", w->mesh_y);
}

/* Inherit the attributes of every container seen so far (inner ones first). */
static void add_scopes(struct ld *ld, struct raw_comp *rc, const struct walk *w)
{
	const struct scope *s;
	size_t i;
	for (s = w->scopes; s; s = s->up) {
		if (!s->attrs || s->attrs->kind != YSRC_MAP)
			continue;
		for (i = 0; i < s->attrs->n; i++) {
			size_t before = rc->n_attrs;
			ld_comp_add_attr(ld, rc, s->attrs->pairs[i].key->str,
					 s->attrs->pairs[i].value, true);
			if (rc->n_attrs > before)
				rc->attrs[before].loc = s->attrs->pairs[i].key->loc;
		}
	}
}

/* The 'name' of node 'n' (no instance range allowed). */
static int want_name(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     const char **name)
{
	const struct ysrc_node *nm = ld_get(n, "name");
	struct kpath np = KP_KEY(p, "name");
	if (!nm)
		return ld_error(ld, n, p, "missing 'name'");
	if (ld_want_scalar(ld, nm, &np) < 0)
		return -1;
	if (strchr(nm->str, '['))
		return ld_error(ld, nm, &np, "node-list names take no instance range ('%s'); "
				"instances come from the containers' spatial meshes", nm->str);
	*name = arena_strdup(ld->a, nm->str);
	return 0;
}

/* A !Component: a raw component with the mesh below the containers seen. */
static int component(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     const struct walk *w)
{
	const struct ysrc_node *cls = ld_get(n, "class"), *sub = ld_get(n, "subclass");
	const struct ysrc_node *attrs = ld_get(n, "attributes");
	struct kpath cp = KP_KEY(p, "class"), ap = KP_KEY(p, "attributes");
	struct kpath sop = KP_KEY(p, "sparse_optimizations"), cop = KP_KEY(p, "constraints");
	struct kpath ep = KP_KEY(p, "enabled");
	struct raw_comp *rc;
	const char *name;
	bool enabled = true;
	size_t i;

	ld_check_keys(ld, n, p, component_keys, ARRAY_SIZE(component_keys));   /* harmless */
	if (ld_get(n, "enabled") && ld_bool(ld, ld_get(n, "enabled"), &ep, &enabled) < 0)
		return -1;
	if (!enabled)
		return 0;

	if (want_name(ld, n, p, &name) < 0)
		return -1;
	if (!cls || ld_want_scalar(ld, cls, &cp) < 0)
		return cls ? -1 : ld_error(ld, n, p, "component '%s' needs a 'class'", name);
	if ((sub && ld_want_scalar(ld, sub, &cp) < 0) || (attrs && ld_want_map(ld, attrs, &ap) < 0))
		return -1;
	rc = ld_comp_add(ld);
	rc->name = name;
	rc->class_name = arena_strdup(ld->a, cls->str);
	rc->subclass = sub ? arena_strdup(ld->a, sub->str) : NULL;
	rc->loc = ld_get(n, "name")->loc;
	rc->path = ld_kpath_strdup(ld, p);
	rc->instances = w->mesh_x * w->mesh_y;
	for (i = 0; attrs && i < attrs->n; i++) {
		ld_comp_add_attr(ld, rc, attrs->pairs[i].key->str, attrs->pairs[i].value, false);
		rc->attrs[rc->n_attrs - 1].loc = attrs->pairs[i].key->loc;
	}
	add_defaults(ld, rc, w);
	add_scopes(ld, rc, w);
	rc->sparse = ld_get(n, "sparse_optimizations");
	rc->sparse_path = ld_kpath_strdup(ld, &sop);
	rc->constraints = ld_get(n, "constraints");
	rc->constraints_path = ld_kpath_strdup(ld, &cop);
	if (rc->sparse)
		ld->nodes_sparse_present = true;
	return 0;
}

/* The level a spatial container becomes (it carries the outer mesh). */
static void dummy_level(struct ld *ld, const char *cname, const struct ysrc_node *n,
			const struct kpath *p, const struct walk *w)
{
	struct raw_comp *rc = ld_comp_add(ld);
	struct kpath cop = KP_KEY(p, "constraints");

	rc->name = arena_printf(ld->a, "inter_%s_spatial", cname);
	rc->class_name = "dummy_storage";
	rc->loc = ld_get(n, "name")->loc;
	rc->path = ld_kpath_strdup(ld, p);
	rc->instances = w->mesh_x * w->mesh_y;
	rc->is_dummy = true;
	synth(ld, rc, "width", "1");
	synth(ld, rc, "depth", "1");
	synth(ld, rc, "datawidth", "1");
	synth(ld, rc, "technology", "-1");
	add_defaults(ld, rc, w);
	rc->constraints = ld_get(n, "constraints");
	rc->constraints_path = ld_kpath_strdup(ld, &cop);
}

/* Parse 'spatial: {meshX, meshY}' into the fanout of a container. */
static int spatial_fanout(struct ld *ld, const struct ysrc_node *sp, const struct kpath *p,
			  uint64_t *fx, uint64_t *fy)
{
	struct kpath xp = KP_KEY(p, "meshX"), yp = KP_KEY(p, "meshY");
	*fx = *fy = 1;
	if (!sp)
		return 0;
	if (ld_want_map(ld, sp, p) < 0 ||
	    ld_check_keys(ld, sp, p, spatial_keys, ARRAY_SIZE(spatial_keys)))
		return -1;
	if ((ld_get(sp, "meshX") && ld_uint(ld, ld_get(sp, "meshX"), &xp, 1, 65536, fx) < 0) ||
	    (ld_get(sp, "meshY") && ld_uint(ld, ld_get(sp, "meshY"), &yp, 1, 65536, fy) < 0))
		return -1;
	return 0;
}

/*
 * A !Container: its attributes reach every later node; a spatial fanout adds
 * its dummy level and multiplies the mesh of what follows.
 */
static int container(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     struct walk *w)
{
	const struct ysrc_node *attrs = ld_get(n, "attributes");
	struct kpath ap = KP_KEY(p, "attributes"), sp = KP_KEY(p, "spatial");
	struct scope *s;
	const char *name;
	uint64_t fx, fy;

	if (w->in_parallel)
		return ld_error(ld, n, p, "a !Container inside a !Parallel is not supported");
	ld_check_keys(ld, n, p, container_keys, ARRAY_SIZE(container_keys));   /* harmless */
	if (want_name(ld, n, p, &name) < 0)
		return -1;
	if ((attrs && ld_want_map(ld, attrs, &ap) < 0) ||
	    spatial_fanout(ld, ld_get(n, "spatial"), &sp, &fx, &fy) < 0)
		return -1;
	if (!ld->s->arch.top_name)
		ld->s->arch.top_name = name;
	s = arena_alloc(ld->a, sizeof(*s));
	s->up = w->scopes;
	s->attrs = attrs;
	w->scopes = s;
	if (fx * fy == 1) {
		if (ld_get(n, "constraints"))
			return ld_error(ld, ld_get(n, "constraints"), p, "container '%s' has no "
					"spatial fanout, so it takes no constraints", name);
		return 0;
	}
	dummy_level(ld, name, n, p, w);
	if (!ck_mul_u64(w->mesh_x, fx, &w->mesh_x) || !ck_mul_u64(w->mesh_y, fy, &w->mesh_y) ||
	    w->mesh_x > UINT32_MAX || w->mesh_y > UINT32_MAX)
		return ld_error(ld, n, p, "the spatial mesh is too large");
	return 0;
}

static int node_list(struct ld *ld, const struct ysrc_node *list, const struct kpath *p,
		     struct walk *w);

/* One node of a list, dispatched on its tag. */
static int one_node(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    struct walk *w)
{
	struct kpath np = KP_KEY(p, "nodes");
	int k;

	if (n->tag && !strcmp(n->tag, "!Nothing"))
		return 0;             /* may be written bare: '- !Nothing' */
	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (!n->tag)
		return ld_error(ld, n, p, "a node needs a tag: !Container, !Component or !Parallel");
	k = ld_lookup(ld, n, p, "node tag", n->tag, tags, ARRAY_SIZE(tags));
	if (k == TAG_NOTHING)
		return 0;
	if (k == TAG_CONTAINER)
		return container(ld, n, p, w);
	if (k == TAG_COMPONENT)
		return component(ld, n, p, w);
	if (k < 0 || ld_check_keys(ld, n, p, group_keys, ARRAY_SIZE(group_keys)))
		return -1;
	if (!ld_get(n, "nodes"))
		return ld_error(ld, n, p, "missing 'nodes'");
	if (k == TAG_PARALLEL) {
		struct walk inner = *w;
		inner.in_parallel = true;
		return node_list(ld, ld_get(n, "nodes"), &np, &inner);
	}
	return node_list(ld, ld_get(n, "nodes"), &np, w);
}

/* A list of nodes, in order; the walk state carries over between them. */
static int node_list(struct ld *ld, const struct ysrc_node *list, const struct kpath *p,
		     struct walk *w)
{
	size_t i;
	int rc = 0;
	if (ld_want_seq(ld, list, p) < 0)
		return -1;
	for (i = 0; i < list->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (one_node(ld, list->items[i], &ip, w) < 0)
			rc = -1;
	}
	return rc;
}

int spec_arch_nodes_load(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p)
{
	struct kpath np = KP_KEY(p, "nodes");
	struct walk w = { 1, 1, NULL, false };
	return node_list(ld, ld_get(arch, "nodes"), &np, &w);
}
