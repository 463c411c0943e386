/*
 * The 'mapper' settings (with Timeloop's defaults), the 'model' key, and the
 * mapspace constraints from 'architecture_constraints', 'mapspace_constraints',
 * 'mapspace.constraints' and node-list components.
 */
#include "specs/specs_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* Keys we read, then keys Timeloop's mapper accepts that we do not use. */
static const char *const mapper_keys[] = {
	"algorithm", "num_threads", "optimization_metrics", "optimization_metric",
	"search_size", "timeout", "victory_condition", "max_permutations_per_if_visit",
	"seed", "time_limit", "imperfect",
	"version", "live_status", "diagnostics", "out_prefix", "sync_interval", "log_interval",
	"log_oaves", "log_oaves_mappings", "log_stats", "log_suboptimal", "log_all",
	"log_mappings_yaml", "log_mappings_verbose", "log_all_mappings",
	"penalize_consecutive_bypass_fails", "emit_whoop_nest",
	"max_temporal_loops_in_a_mapping", "filter_revisits",
};
static const char *const model_keys[] = {
	"version", "verbose", "auto_bypass_on_failure", "out_prefix",
};
static const char *const algo_names[] = {
	"exhaustive", "random", "random_pruned", "linear_pruned", "hybrid",
};
static const enum spec_search algo_kinds[] = {
	SPEC_SEARCH_EXHAUSTIVE, SPEC_SEARCH_RANDOM, SPEC_SEARCH_RANDOM_PRUNED,
	SPEC_SEARCH_LINEAR_PRUNED, SPEC_SEARCH_HYBRID,
};
static const char *const metric_names[] = { "energy", "delay", "edp", "last_level_accesses" };
/* Indexed by enum spec_imperfect. */
static const char *const imperfect_names[] = { "auto", "off", "on" };

/* Timeloop's mapper defaults. */
static void mapper_defaults(struct spec_mapper_settings *m)
{
	memset(m, 0, sizeof(*m));
	m->algorithm = SPEC_SEARCH_HYBRID;
	m->num_threads = 0;
	m->n_metrics = 1;
	m->metrics[0] = SPEC_METRIC_EDP;
	m->search_size = 0;
	m->timeout = 1000;
	m->victory_condition = 500;
	m->max_permutations_per_if_visit = 16;
}

/* optimization_metrics: one name or a list (priority order); empty keeps. */
static int parse_metrics(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct spec_mapper_settings *m)
{
	size_t i;
	if (n->kind == YSRC_SCALAR) {
		int k = ld_lookup_keyword(ld, n, p, "optimization metric", n->str, metric_names,
				  ARRAY_SIZE(metric_names));
		if (k < 0)
			return -1;
		m->n_metrics = 1;
		m->metrics[0] = (enum spec_metric)k;
		return 0;
	}
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n == 0)
		return 1;   /* empty: keep what we have */
	if (n->n > SPEC_MAX_METRICS)
		return ld_error(ld, n, p, "at most %d metrics are supported", SPEC_MAX_METRICS);
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		int k;
		if (ld_want_scalar(ld, n->items[i], &ip) < 0 ||
		    (k = ld_lookup_keyword(ld, n->items[i], &ip, "optimization metric", n->items[i]->str,
				   metric_names, ARRAY_SIZE(metric_names))) < 0)
			return -1;
		m->metrics[i] = (enum spec_metric)k;
	}
	m->n_metrics = (unsigned)n->n;
	return 0;
}

/* algorithm: exhaustive, random, random_pruned, linear_pruned or hybrid. */
static int parse_algorithm(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			   struct spec_mapper_settings *m)
{
	size_t i;
	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(algo_names); i++) {
		if (ysrc_key_eq(n->str, algo_names[i])) {
			m->algorithm = algo_kinds[i];
			return 0;
		}
	}
	return ld_lookup(ld, n, p, "search algorithm", n->str, algo_names, ARRAY_SIZE(algo_names));
}

/* Read the optional unsigned key 'key' of 'n', in [0, max], into 'out'. */
static int opt_uint(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    const char *key, uint64_t max, uint64_t *out)
{
	const struct ysrc_node *v = ld_get(n, key);
	struct kpath kp = KP_KEY(p, key);
	return v ? ld_uint(ld, v, &kp, 0, max, out) : 0;
}

/* The 'mapper' map into 'm'. */
static int parse_mapper(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_mapper_settings *m)
{
	const struct ysrc_node *v;
	struct kpath ap = KP_KEY(p, "algorithm"), mp = KP_KEY(p, "optimization_metrics");
	struct kpath m1 = KP_KEY(p, "optimization_metric"), tp = KP_KEY(p, "time_limit");
	uint64_t nt = 0, mp_visit = m->max_permutations_per_if_visit;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, mapper_keys, ARRAY_SIZE(mapper_keys)))
		rc = -1;
	m->present = true;
	m->loc = n->loc;
	if ((v = ld_get(n, "algorithm")) && parse_algorithm(ld, v, &ap, m) < 0)
		rc = -1;
	if ((v = ld_get(n, "optimization_metric")) && parse_metrics(ld, v, &m1, m) < 0)
		rc = -1;
	if ((v = ld_get(n, "optimization_metrics")) && parse_metrics(ld, v, &mp, m) < 0)
		rc = -1;
	{
		const struct {
			const char *key;
			uint64_t max;
			uint64_t *out;
		} uints[] = {
			{ "num_threads", SPEC_MAX_THREADS, &nt },
			{ "search_size", UINT64_MAX, &m->search_size },
			{ "timeout", UINT64_MAX, &m->timeout },
			{ "victory_condition", UINT64_MAX, &m->victory_condition },
			{ "max_permutations_per_if_visit", UINT32_MAX, &mp_visit },
			{ "seed", UINT64_MAX, &m->seed },
		};
		size_t i;
		for (i = 0; i < ARRAY_SIZE(uints); i++)
			if (opt_uint(ld, n, p, uints[i].key, uints[i].max, uints[i].out) < 0)
				rc = -1;
	}
	m->num_threads = (unsigned)nt;
	m->max_permutations_per_if_visit = (unsigned)mp_visit;
	if ((v = ld_get(n, "time_limit")) && ld_double(ld, v, &tp, 0.0, HUGE_VAL,
						       &m->time_limit_s) < 0)
		rc = -1;
	if ((v = ld_get(n, "imperfect"))) {
		struct kpath ip = KP_KEY(p, "imperfect");
		int k = ld_want_scalar(ld, v, &ip) < 0 ? -1 :
			ld_lookup_keyword(ld, v, &ip, "imperfect setting", v->str, imperfect_names,
					  ARRAY_SIZE(imperfect_names));
		if (k < 0)
			rc = -1;
		else
			m->imperfect = (enum spec_imperfect)k;
	}
	return rc;
}

int spec_mapper_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "mapper"), *model = ld_top_get(ld, "model");
	int rc = 0;

	mapper_defaults(&ld->s->mapper);
	if (top) {
		struct kpath p = KP_KEY(NULL, "mapper");
		if (parse_mapper(ld, top->values[0], &p, &ld->s->mapper) < 0)
			rc = -1;
	}
	if (model) {
		struct kpath p = KP_KEY(NULL, "model");
		if (ld_want_map(ld, model->values[0], &p) < 0 ||
		    ld_check_keys(ld, model->values[0], &p, model_keys, ARRAY_SIZE(model_keys)))
			rc = -1;
	}
	return rc;
}

/* ---------------------------------------------------------- constraints */

static const char *const con_keys[] = {
	"target", "type", "factors", "permutation", "split", "keep", "bypass", "min", "max",
	"no_reuse", "no_temporal_reuse", "no_link_transfer", "rmw_first_update", "no_coalesce",
	"default_max_factor", "default_min_factor", "remainders", "pad",
	/* the v0.4 front end's macros (macros.c) */
	"factors_only", "no_iteration_over_dataspaces", "must_iterate_over_dataspaces",
	"maximize_dims", "maximize_dims_capacity", "keep_only", "bypass_only", "proportion",
};
static const char *const con_types[] = {
	"temporal", "spatial", "bypass", "datatype", "dataspace", "utilization",
	"max_overbooked_proportion",
};
static const enum spec_constraint_kind con_kinds[] = {
	SPEC_CON_TEMPORAL, SPEC_CON_SPATIAL, SPEC_CON_BYPASS, SPEC_CON_BYPASS, SPEC_CON_BYPASS,
	SPEC_CON_UTILIZATION, SPEC_CON_UTILIZATION,
};
#define CON_TYPE_OVERBOOKED 6
static const char *const unsupported_keys[] = {
	"no_temporal_reuse", "rmw_first_update", "no_coalesce",
	"default_max_factor", "default_min_factor", "max",
};

struct convec {
	struct spec_constraint *v;
	struct con_extra *x;           /* the entries each was made from */
	size_t n, alloc, alloc_x;
};

/* Constraint factors: 'M=4' fixes, 'M<=8' bounds, 0 is the whole bound. */
static int con_factors(struct ld *ld, const struct ysrc_node *f, const struct kpath *p,
		       struct spec_constraint *c)
{
	struct factor_item items[SPEC_MAX_DIMS];
	unsigned n = 0, k;
	if (spec_parse_factors(ld, f, p, true, items, &n) < 0)
		return -1;
	for (k = 0; k < n; k++) {
		if (items[k].is_max) {
			c->max_mask |= 1u << items[k].dim;
			c->max_factors[items[k].dim] = items[k].value;
		} else {
			c->fixed_mask |= 1u << items[k].dim;
			c->factors[items[k].dim] = items[k].value;
		}
	}
	return 0;
}

/* Warn once per key that constraints accept but the mapper does not use. */
static void warn_unsupported(struct ld *ld, const struct ysrc_node *e, const struct kpath *p)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(unsupported_keys); i++) {
		const struct ysrc_pair *pr = ysrc_map_pair(e, unsupported_keys[i]);
		if (pr)
			ld_warning(ld, pr->key, p, "'%s' constraints are not supported; ignored",
				   pr->key->str);
	}
}

/* The factors, permutation, split, keep/bypass and min of a constraint. */
static int con_body(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		    struct spec_constraint *c)
{
	const struct ysrc_node *v;
	struct kpath fp = KP_KEY(p, "factors"), pp = KP_KEY(p, "permutation");
	struct kpath sp = KP_KEY(p, "split"), kp = KP_KEY(p, "keep"), bp = KP_KEY(p, "bypass");
	struct kpath mp = KP_KEY(p, "min");
	uint64_t split;
	int n, rc = 0;

	if ((v = ld_get(e, "factors")) && con_factors(ld, v, &fp, c) < 0)
		rc = -1;
	if ((v = ld_get(e, "permutation"))) {
		if ((n = spec_parse_perm(ld, v, &pp, c->perm)) < 0)
			rc = -1;
		else
			c->n_perm = (unsigned)n;
	}
	if ((v = ld_get(e, "split"))) {
		if (ld_uint(ld, v, &sp, 0, UINT64_MAX, &split) < 0)
			rc = -1;
		c->has_split = true;
		c->split = split > ld->s->workload.n_dims ? ld->s->workload.n_dims : (unsigned)split;
	}
	if (ld_tensor_list(ld, ld_get(e, "keep"), &kp, &c->keep_mask, NULL, NULL) < 0)
		rc = -1;
	if (ld_tensor_list(ld, ld_get(e, "bypass"), &bp, &c->bypass_mask, NULL, NULL) < 0)
		rc = -1;
	if (c->keep_mask & c->bypass_mask)
		rc = ld_error(ld, ld_get(e, "bypass"), &bp, "data space '%s' is both kept and bypassed",
			      ld->s->workload.tensors[__builtin_ctz(c->keep_mask & c->bypass_mask)].name);
	if ((v = ld_get(e, "min")) && ld_double(ld, v, &mp, 0.0, 1.0, &c->min_utilization) < 0)
		rc = -1;
	if ((v = ld_get(e, "no_reuse"))) {
		struct kpath np = KP_KEY(p, "no_reuse");
		if (c->kind != SPEC_CON_SPATIAL)
			ld_warning(ld, ysrc_map_pair(e, "no_reuse")->key, p, "'no_reuse' constraints "
				   "are supported on spatial constraints only; ignored");
		else if (ld_tensor_list(ld, v, &np, &c->no_multicast_mask, NULL, NULL) < 0)
			rc = -1;
	}
	if ((v = ld_get(e, "no_link_transfer"))) {
		struct kpath np = KP_KEY(p, "no_link_transfer");
		if (c->kind != SPEC_CON_SPATIAL)
			rc = ld_error(ld, v, &np, "'no_link_transfer' applies to a spatial constraint");
		else if (ld_tensor_list(ld, v, &np, &c->no_link_transfer_mask, NULL, NULL) < 0)
			rc = -1;
	}
	if ((v = ld_get(e, "remainders"))) {
		struct kpath rp = KP_KEY(p, "remainders");
		if (ld_uint(ld, v, &rp, 1, UINT64_MAX, &c->max_remainder) < 0)
			rc = -1;
	}
	if ((v = ld_get(e, "pad"))) {
		struct kpath np = KP_KEY(p, "pad");
		if (spec_parse_dim_list(ld, v, &np, &c->pad_mask) < 0)
			rc = -1;
	}
	warn_unsupported(ld, e, p);
	return rc;
}

/* Which keys a constraint of 'kind' may carry. */
static int con_kind_keys(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			 enum spec_constraint_kind kind, const char *type)
{
	static const char *const tiling[] = {
		"factors", "permutation", "split", "factors_only", "no_iteration_over_dataspaces",
		"must_iterate_over_dataspaces", "maximize_dims", "maximize_dims_capacity",
		"remainders", "pad",
	};
	static const char *const bypass[] = { "keep", "bypass", "keep_only", "bypass_only" };
	size_t i;
	int rc = 0;
	for (i = 0; i < ARRAY_SIZE(tiling); i++)
		if (kind != SPEC_CON_TEMPORAL && kind != SPEC_CON_SPATIAL && ysrc_map_get(e, tiling[i]))
			rc = ld_error(ld, ysrc_map_pair(e, tiling[i])->key, p,
				      "'%s' does not apply to a %s constraint", tiling[i], type);
	for (i = 0; i < ARRAY_SIZE(bypass); i++)
		if (kind != SPEC_CON_BYPASS && ysrc_map_get(e, bypass[i]))
			rc = ld_error(ld, ysrc_map_pair(e, bypass[i])->key, p,
				      "'%s' does not apply to a %s constraint", bypass[i], type);
	if (kind == SPEC_CON_TEMPORAL && ysrc_map_get(e, "split"))
		rc = ld_error(ld, ysrc_map_pair(e, "split")->key, p,
			      "'split' does not apply to a temporal constraint");
	return rc;
}

/* One constraint entry {target, type, ...}; 'level' >= 0 overrides 'target'. */
static int con_entry(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		     int level, struct spec_constraint *c)
{
	const struct ysrc_node *t = ld_get(e, "target"), *ty = ld_get(e, "type");
	struct kpath tp = KP_KEY(p, "target"), yp = KP_KEY(p, "type");
	int k, bad;

	if (ld_want_map(ld, e, p) < 0)
		return -1;
	bad = ld_check_keys(ld, e, p, con_keys, ARRAY_SIZE(con_keys)) ? -1 : 0;
	if (!ty || (level < 0 && !t))
		return ld_error(ld, e, p, "a constraint needs a 'target' and a 'type'");
	if (ld_want_scalar(ld, ty, &yp) < 0 ||
	    (k = ld_lookup_keyword(ld, ty, &yp, "constraint type", ty->str, con_types,
			   ARRAY_SIZE(con_types))) < 0)
		return -1;
	if (k == CON_TYPE_OVERBOOKED) {
		ld_warning(ld, ty, &yp, "'max_overbooked_proportion' constraints are not supported; "
			   "ignored");
		return 1;
	}
	c->kind = con_kinds[k];
	c->loc = e->loc;
	if (level < 0 && (ld_want_scalar(ld, t, &tp) < 0 ||
			  (level = ld_level_index(ld, t, &tp, t->str)) < 0))
		return -1;
	c->level = (unsigned)level;
	if (con_kind_keys(ld, e, p, c->kind, ty->str) < 0)
		return -1;
	if (c->kind == SPEC_CON_SPATIAL) {
		const struct spec_level *L = &ld->s->arch.levels[level];
		if (L->fanout_x * L->fanout_y <= 1)
			return ld_error(ld, ty, &yp, "level '%s' has no spatial fanout, so it takes no "
					"spatial constraint", L->name);
	}
	return con_body(ld, e, p, c) < 0 ? -1 : bad;
}

/* Append a constraint the front end adds itself (no entry of a file). */
static void con_push_own(struct convec *cv, const struct spec_constraint *c)
{
	XGROW(cv->v, cv->n + 1, cv->alloc);
	XGROW(cv->x, cv->n + 1, cv->alloc_x);
	cv->v[cv->n] = *c;
	memset(&cv->x[cv->n], 0, sizeof(cv->x[cv->n]));
	cv->n++;
}

/* Append a constraint made from entry 'e' at 'p'. */
static void con_push(struct ld *ld, struct convec *cv, const struct spec_constraint *c,
		     const struct ysrc_node *e, const struct kpath *p)
{
	XGROW(cv->v, cv->n + 1, cv->alloc);
	XGROW(cv->x, cv->n + 1, cv->alloc_x);
	cv->v[cv->n] = *c;
	spec_con_source(ld, e, p, &cv->x[cv->n]);
	cv->n++;
}

/* A {targets: [...]} document (or a bare list). */
static int con_document(struct ld *ld, const struct ysrc_node *doc, const struct kpath *p,
			struct convec *cv)
{
	static const char *const doc_keys[] = { "version", "targets" };
	const struct ysrc_node *list = doc;
	struct kpath tp = KP_KEY(p, "targets");
	const struct kpath *lp = p;
	size_t i;
	int rc = 0;

	if (doc->kind == YSRC_MAP) {
		if (ld_check_keys(ld, doc, p, doc_keys, ARRAY_SIZE(doc_keys)))
			rc = -1;
		list = ld_get(doc, "targets");
		lp = &tp;
		if (!list)
			return rc;
	}
	if (ld_want_seq(ld, list, lp) < 0)
		return -1;
	for (i = 0; i < list->n; i++) {
		struct kpath ip = KP_IDX(lp, i);
		struct spec_constraint c;
		int r;
		memset(&c, 0, sizeof(c));
		r = con_entry(ld, list->items[i], &ip, -1, &c);
		if (r < 0)
			rc = -1;
		else if (r == 0)
			con_push(ld, cv, &c, list->items[i], &ip);
	}
	return rc;
}

/* The constraint documents of top-level key 'key' in every file. */
static int con_top(struct ld *ld, const char *key, struct convec *cv)
{
	const struct ld_top *top = ld_top_get(ld, key);
	size_t f;
	int rc = 0;
	for (f = 0; top && f < top->n; f++) {
		struct kpath p = KP_KEY(NULL, top->keys[f]->str);
		if (!ysrc_is_null(top->values[f]) && con_document(ld, top->values[f], &p, cv) < 0)
			rc = -1;
	}
	return rc;
}

/* 'mapspace': {version, template, constraints}. */
static int con_mapspace(struct ld *ld, struct convec *cv)
{
	static const char *const keys[] = { "version", "template", "constraints" };
	const struct ld_top *top = ld_top_get(ld, "mapspace");
	const struct ysrc_node *ms, *c;
	struct kpath p = KP_KEY(NULL, "mapspace"), cp = KP_KEY(&p, "constraints");
	int bad;

	if (!top)
		return 0;
	ms = top->values[0];
	if (ld_want_map(ld, ms, &p) < 0)
		return -1;
	bad = ld_check_keys(ld, ms, &p, keys, ARRAY_SIZE(keys)) ? -1 : 0;
	c = ld_get(ms, "constraints");
	return c && con_document(ld, c, &cp, cv) < 0 ? -1 : bad;
}

/*
 * Node lists: a permutation that leaves out dimensions of bound 1 gets them
 * prepended (innermost), as the v0.4 front end writes it.
 */
static void prepend_unit_dims(const struct spec_workload *w, struct spec_constraint *c)
{
	uint8_t perm[SPEC_MAX_DIMS];
	unsigned d, k, n = 0;

	if (!c->n_perm)
		return;
	for (d = 0; d < w->n_dims; d++) {
		for (k = 0; k < c->n_perm && c->perm[k] != d; k++)
			;
		if (k == c->n_perm && w->bounds[d] == 1)
			perm[n++] = (uint8_t)d;
	}
	for (k = 0; k < c->n_perm; k++)
		perm[n++] = c->perm[k];
	memcpy(c->perm, perm, n);
	c->n_perm = n;
}

/* One section (temporal, spatial, dataspace) of a component's constraints. */
static int node_section(struct ld *ld, const struct ysrc_pair *pr, const struct kpath *p,
			unsigned level, struct convec *cv)
{
	static const char *const names[] = {
		"temporal", "spatial", "dataspace", "max_overbooked_proportion",
	};
	static const enum spec_constraint_kind kinds[] = {
		SPEC_CON_TEMPORAL, SPEC_CON_SPATIAL, SPEC_CON_BYPASS, SPEC_CON_UTILIZATION,
	};
	const struct spec_workload *w = &ld->s->workload;
	struct kpath sp = KP_KEY(p, pr->key->str);
	struct spec_constraint c;
	int k;

	memset(&c, 0, sizeof(c));
	if ((k = ld_lookup_keyword(ld, pr->key, p, "constraint", pr->key->str, names, 4)) < 0)
		return -1;
	if (ysrc_is_null(pr->value) || (pr->value->kind == YSRC_MAP && pr->value->n == 0))
		return 0;             /* an empty section: nothing */
	if (k == 3) {
		ld_warning(ld, pr->key, p, "'max_overbooked_proportion' constraints are not "
			   "supported; ignored");
		return 0;
	}
	if (ld_want_map(ld, pr->value, &sp) < 0 ||
	    ld_check_keys(ld, pr->value, &sp, con_keys + 2, ARRAY_SIZE(con_keys) - 2))
		return -1;
	c.kind = kinds[k];
	c.level = level;
	c.loc = pr->key->loc;
	if (con_kind_keys(ld, pr->value, &sp, c.kind, names[k]) < 0 ||
	    con_body(ld, pr->value, &sp, &c) < 0)
		return -1;
	if (c.kind == SPEC_CON_SPATIAL) {
		const struct spec_level *L = &ld->s->arch.levels[level];
		if (L->fanout_x * L->fanout_y <= 1)
			return ld_error(ld, pr->key, &sp, "level '%s' has no spatial fanout", L->name);
	}
	prepend_unit_dims(w, &c);
	if (c.kind == SPEC_CON_BYPASS && c.keep_mask && !ysrc_map_get(pr->value, "bypass"))
		c.bypass_mask = ((1u << w->n_tensors) - 1) & ~c.keep_mask;
	con_push(ld, cv, &c, pr->value, &sp);
	return 0;
}

/* The front end's constraints for a spatial container's level. */
static void dummy_defaults(struct ld *ld, unsigned level, struct diag_loc loc,
			   bool has_temporal, bool has_bypass, struct convec *cv)
{
	const struct spec_workload *w = &ld->s->workload;
	struct spec_constraint c;
	unsigned d;

	if (!has_temporal) {
		memset(&c, 0, sizeof(c));
		c.kind = SPEC_CON_TEMPORAL;
		c.level = level;
		c.loc = loc;
		for (d = 0; d < w->n_dims; d++) {
			c.fixed_mask |= 1u << d;
			c.factors[d] = 1;
			c.perm[d] = (uint8_t)d;
		}
		c.n_perm = w->n_dims;
		con_push_own(cv, &c);
	}
	if (!has_bypass) {
		memset(&c, 0, sizeof(c));
		c.kind = SPEC_CON_BYPASS;
		c.level = level;
		c.loc = loc;
		c.bypass_mask = (1u << w->n_tensors) - 1;
		con_push_own(cv, &c);
	}
}

/* Node-list constraints, in component order, with the front end's additions. */
static int spec_nodes_constraints(struct ld *ld, struct convec *cv)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < ld->n_comps; i++) {
		const struct raw_comp *c = &ld->comps[i];
		struct kpath p = KP_KEY(NULL, c->constraints_path);
		size_t before = cv->n;
		bool has_t = false, has_b = false;
		if (c->constraints && c->level < 0) {
			rc = ld_error(ld, c->constraints, &p, "only storage levels and spatial "
				      "containers take constraints");
			continue;
		}
		if (c->constraints && ld_want_map(ld, c->constraints, &p) == 0) {
			for (j = 0; j < c->constraints->n; j++)
				if (node_section(ld, &c->constraints->pairs[j], &p, (unsigned)c->level,
						 cv) < 0)
					rc = -1;
		} else if (c->constraints) {
			rc = -1;
		}
		for (j = before; j < cv->n; j++) {
			has_t = has_t || cv->v[j].kind == SPEC_CON_TEMPORAL;
			has_b = has_b || cv->v[j].kind == SPEC_CON_BYPASS;
		}
		if (c->is_dummy && c->level >= 0)
			dummy_defaults(ld, (unsigned)c->level, c->loc, has_t, has_b, cv);
	}
	return rc;
}

int spec_constraints_load(struct ld *ld)
{
	struct convec cv = { NULL, NULL, 0, 0, 0 };
	int rc = 0;

	if (!ld->arch_ok)
		return 0;
	if (con_top(ld, "architecture_constraints", &cv) < 0)
		rc = -1;
	if (con_top(ld, "mapspace_constraints", &cv) < 0)
		rc = -1;
	if (con_mapspace(ld, &cv) < 0)
		rc = -1;
	if (spec_nodes_constraints(ld, &cv) < 0)
		rc = -1;
	cv.n = spec_con_merge(ld, cv.v, cv.x, cv.n, &rc);
	if (spec_con_macros(ld, cv.v, cv.x, cv.n) < 0)
		rc = -1;
	ld->s->constraints.n = (unsigned)cv.n;
	ld->s->constraints.items = cv.n ? arena_memdup(ld->a, cv.v, cv.n * sizeof(*cv.v)) : NULL;
	free(cv.v);
	free(cv.x);
	return rc;
}
