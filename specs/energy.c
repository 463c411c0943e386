/*
 * ERT and ART tables: per-action energies (the maximum over argument
 * variants) and per-component areas, linked to the storage levels, the
 * compute unit and the networks by component name.
 */
#include "specs/specs_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const ert_keys[] = { "version", "tables" };
static const char *const table_keys[] = { "name", "actions" };
static const char *const action_keys[] = { "name", "arguments", "energy" };
static const char *const variant_keys[] = { "arguments", "energy" };
static const char *const art_keys[] = { "version", "tables" };
static const char *const art_entry_keys[] = { "name", "area" };
static const char *const versions[] = { "0.2", "0.3", "0.4" };

/* Action names the model looks up, for did-you-mean warnings. */
static const char *const known_actions[] = {
	"read", "write", "update", "fill", "leak", "random_read", "random_write", "random_fill",
	"random_update", "gated_read", "gated_write", "gated_fill", "gated_update",
	"skipped_read", "skipped_write", "skipped_fill", "skipped_update", "metadata_read",
	"metadata_write", "metadata_fill", "metadata_update", "random_metadata_read",
	"random_metadata_write", "random_metadata_fill", "random_metadata_update",
	"gated_metadata_read", "gated_metadata_write", "gated_metadata_fill",
	"gated_metadata_update", "skipped_metadata_read", "skipped_metadata_write",
	"skipped_metadata_fill", "skipped_metadata_update", "decompression_count",
	"compression_count", "compute", "mac", "mult", "mac_random", "mult_random", "mac_gated",
	"mult_gated", "compute_gated", "mac_skipped", "mult_skipped", "compute_skipped",
	"transfer_random", "transfer", "idle",
};

struct tablevec {
	struct spec_ert_table *v;
	size_t n, alloc;
};

/* "system.chip.GLB[1..16]" -> "GLB". */
static const char *component_of(struct arena *a, const char *name)
{
	size_t len = strlen(name);
	const char *base;

	if (len && name[len - 1] == ']' && strrchr(name, '['))
		len = (size_t)(strrchr(name, '[') - name);
	for (base = name + len; base > name && base[-1] != '.'; base--)
		;
	return arena_strndup(a, base, len - (size_t)(base - name));
}

/* The optional 'version' must be one we read. */
static int check_version(struct ld *ld, const struct ysrc_node *map, const struct kpath *p)
{
	const struct ysrc_node *v = ld_get(map, "version");
	struct kpath vp = KP_KEY(p, "version");
	size_t i;
	if (!v)
		return 0;
	if (ld_want_scalar(ld, v, &vp) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(versions); i++)
		if (!strcmp(v->str, versions[i]))
			return 0;
	return ld_error(ld, v, &vp, "unsupported version '%s' (0.2, 0.3 and 0.4 are read)", v->str);
}

/* Energy of one variant: a number, or {arguments, energy}. */
static int variant_energy(struct ld *ld, const struct ysrc_node *v, const struct kpath *p,
			  double *e)
{
	struct kpath ep = KP_KEY(p, "energy");
	if (v->kind == YSRC_SCALAR)
		return ld_double(ld, v, p, -HUGE_VAL, HUGE_VAL, e);
	if (ld_want_map(ld, v, p) < 0)
		return -1;
	if (ld_check_keys(ld, v, p, variant_keys, ARRAY_SIZE(variant_keys)))
		return -1;
	if (!ld_get(v, "energy"))
		return ld_error(ld, v, p, "missing 'energy'");
	return ld_double(ld, ld_get(v, "energy"), &ep, -HUGE_VAL, HUGE_VAL, e);
}

/* Warn when action 'name' is unknown but close to one the model uses. */
static void warn_unknown_action(struct ld *ld, const struct ysrc_node *name)
{
	const char *hint;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(known_actions); k++)
		if (!strcmp(known_actions[k], name->str))
			return;
	hint = diag_suggest(name->str, known_actions, ARRAY_SIZE(known_actions));
	if (hint)
		diag_warning(ld->dl, name->loc, "ERT action '%s' is not one the model uses; "
			     "did you mean '%s'?", name->str, hint);
}

/* Add one variant of action 'name' to the table's action list (max energy). */
static void add_variant(struct ld *ld, struct spec_ert_action **acts, size_t *n, size_t *alloc,
			const struct ysrc_node *name, double e)
{
	size_t i;
	for (i = 0; i < *n; i++) {
		if (!strcmp((*acts)[i].name, name->str)) {
			if (e > (*acts)[i].energy_pj)
				(*acts)[i].energy_pj = e;
			(*acts)[i].n_variants++;
			return;
		}
	}
	XGROW(*acts, *n + 1, *alloc);
	(*acts)[*n].name = arena_strdup(ld->a, name->str);
	(*acts)[*n].energy_pj = e;
	(*acts)[*n].n_variants = 1;
	(*acts)[*n].loc = name->loc;
	(*n)++;
	warn_unknown_action(ld, name);
}

/* The 'actions' list form: [{name, arguments, energy}, ...]. */
static int actions_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_ert_action **acts, size_t *n_acts, size_t *alloc)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *a = n->items[i], *name;
		struct kpath ip = KP_IDX(p, i), np = KP_KEY(&ip, "name"), ep = KP_KEY(&ip, "energy");
		double e;
		if (ld_want_map(ld, a, &ip) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, a, &ip, action_keys, ARRAY_SIZE(action_keys)))
			rc = -1;
		name = ld_get(a, "name");
		if (!name || !ld_get(a, "energy")) {
			rc = ld_error(ld, a, &ip, "an ERT action needs a 'name' and an 'energy'");
			continue;
		}
		if (ld_want_scalar(ld, name, &np) < 0 ||
		    ld_double(ld, ld_get(a, "energy"), &ep, -HUGE_VAL, HUGE_VAL, &e) < 0) {
			rc = -1;
			continue;
		}
		add_variant(ld, acts, n_acts, alloc, name, e);
	}
	return rc;
}

/* The 'actions' map form (v0.2): {read: [{arguments, energy}, ...], ...}. */
static int actions_map(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       struct spec_ert_action **acts, size_t *n_acts, size_t *alloc)
{
	size_t i, j;
	int rc = 0;
	for (i = 0; i < n->n; i++) {
		const struct ysrc_pair *pr = &n->pairs[i];
		struct kpath ap = KP_KEY(p, pr->key->str);
		double e;
		if (pr->value->kind == YSRC_SEQ) {
			for (j = 0; j < pr->value->n; j++) {
				struct kpath vp = KP_IDX(&ap, j);
				if (variant_energy(ld, pr->value->items[j], &vp, &e) < 0)
					rc = -1;
				else
					add_variant(ld, acts, n_acts, alloc, pr->key, e);
			}
		} else if (variant_energy(ld, pr->value, &ap, &e) < 0) {
			rc = -1;
		} else {
			add_variant(ld, acts, n_acts, alloc, pr->key, e);
		}
	}
	return rc;
}

/* The actions of one table, list or map form, into 't'. */
static int parse_actions(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct spec_ert_table *t)
{
	struct spec_ert_action *acts = NULL;
	size_t n_acts = 0, alloc = 0;
	int rc;

	if (!n)
		rc = 0;
	else if (n->kind == YSRC_SEQ)
		rc = actions_list(ld, n, p, &acts, &n_acts, &alloc);
	else if (n->kind == YSRC_MAP)
		rc = actions_map(ld, n, p, &acts, &n_acts, &alloc);
	else
		rc = ld_error(ld, n, p, "expected a list of actions, got %s", ysrc_kind_name(n));
	t->n_actions = n_acts;
	t->actions = n_acts ? arena_memdup(ld->a, acts, n_acts * sizeof(*acts)) : NULL;
	free(acts);
	return rc;
}

/* Add a table named by scalar 'name' with actions 'actions'. */
static void push_table(struct ld *ld, struct tablevec *tv, const struct ysrc_node *name,
		       const struct ysrc_node *actions, const struct kpath *ap, int *rc)
{
	struct spec_ert_table t;
	memset(&t, 0, sizeof(t));
	t.name = arena_strdup(ld->a, name->str);
	t.component = component_of(ld->a, name->str);
	t.loc = name->loc;
	if (parse_actions(ld, actions, ap, &t) < 0)
		*rc = -1;
	XGROW(tv->v, tv->n + 1, tv->alloc);
	tv->v[tv->n++] = t;
}

/* A table read from nodes of the files without a word said, kept by the source. */
struct ld_table_memo {
	const struct ysrc_node *name, *actions;
	struct spec_ert_table table;   /* strings and actions in the source's cc_arena */
};

#define TABLES_MEMO_MAX 256

/*
 * push_table(), or the table an earlier build of the source read from the
 * same nodes of the files (a sweep's points change one table, or none).
 */
static void push_table_memo(struct ld *ld, struct tablevec *tv, const struct ysrc_node *name,
			    const struct ysrc_node *actions, const struct kpath *ap, int *rc)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	bool worthy = src && ld_files_node(src, name) && (!actions || ld_files_node(src, actions));
	size_t i, said;
	int r = 0;

	if (worthy) {
		const struct spec_ert_table *t = NULL;
		pthread_mutex_lock(&src->cc_mu);
		for (i = 0; i < src->n_tables_memo && !t; i++)
			if (src->tables_memo[i].name == name && src->tables_memo[i].actions == actions)
				t = &src->tables_memo[i].table;
		if (t) {
			XGROW(tv->v, tv->n + 1, tv->alloc);
			tv->v[tv->n++] = *t;
		}
		pthread_mutex_unlock(&src->cc_mu);
		if (t)
			return;
	}
	said = ld_said(ld);
	push_table(ld, tv, name, actions, ap, &r);
	if (r < 0)
		*rc = -1;
	if (worthy && r == 0 && ld_said(ld) == said) {
		pthread_mutex_lock(&src->cc_mu);
		for (i = 0; i < src->n_tables_memo; i++)
			if (src->tables_memo[i].name == name && src->tables_memo[i].actions == actions)
				break;
		if (i == src->n_tables_memo && i < TABLES_MEMO_MAX) {
			const struct spec_ert_table *t = &tv->v[tv->n - 1];
			struct ld_table_memo *m;
			struct spec_ert_action *acts;
			XGROW(src->tables_memo, i + 1, src->alloc_tables_memo);
			m = &src->tables_memo[src->n_tables_memo++];
			m->name = name;
			m->actions = actions;
			m->table = *t;
			m->table.name = arena_strdup(&src->cc_arena, t->name);
			m->table.component = arena_strdup(&src->cc_arena, t->component);
			acts = t->n_actions ? arena_memdup(&src->cc_arena, t->actions,
							   t->n_actions * sizeof(*acts)) : NULL;
			for (i = 0; i < t->n_actions; i++)
				acts[i].name = arena_strdup(&src->cc_arena, t->actions[i].name);
			m->table.actions = acts;
		}
		pthread_mutex_unlock(&src->cc_mu);
	}
}

/* The tables of one ERT document, in list or (v0.2) map form. */
static int ert_tables(struct ld *ld, const struct ysrc_node *tables, const struct kpath *p,
		      struct tablevec *tv)
{
	size_t i;
	int rc = 0;

	if (tables->kind == YSRC_MAP) {
		for (i = 0; i < tables->n; i++) {
			const struct ysrc_pair *pr = &tables->pairs[i];
			struct kpath tp = KP_KEY(p, pr->key->str);
			const struct ysrc_node *acts = pr->value;
			if (acts->kind == YSRC_MAP && ysrc_map_get(acts, "actions"))
				acts = ysrc_map_get(acts, "actions");
			push_table_memo(ld, tv, pr->key, acts, &tp, &rc);
		}
		return rc;
	}
	if (ld_want_seq(ld, tables, p) < 0)
		return -1;
	for (i = 0; i < tables->n; i++) {
		const struct ysrc_node *e = tables->items[i];
		struct kpath ip = KP_IDX(p, i), np = KP_KEY(&ip, "name"), ap = KP_KEY(&ip, "actions");
		if (ld_want_map(ld, e, &ip) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, e, &ip, table_keys, ARRAY_SIZE(table_keys)))
			rc = -1;
		if (!ld_get(e, "name") || ld_want_scalar(ld, ld_get(e, "name"), &np) < 0) {
			rc = ld_get(e, "name") ? -1 : ld_error(ld, e, &ip, "missing 'name'");
			continue;
		}
		push_table_memo(ld, tv, ld_get(e, "name"), ld_get(e, "actions"), &ap, &rc);
	}
	return rc;
}

/* The ERT documents of every file, tables concatenated. */
static int load_ert_docs(struct ld *ld, const struct ld_top *top, struct tablevec *tv)
{
	struct spec_energy_tables *et = &ld->s->energy;
	size_t f;
	int rc = 0;

	for (f = 0; f < top->n; f++) {
		const struct ysrc_node *ert = top->values[f];
		struct kpath p = KP_KEY(NULL, "ERT"), tp = KP_KEY(&p, "tables");
		if (ld_want_map(ld, ert, &p) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, ert, &p, ert_keys, ARRAY_SIZE(ert_keys)) ||
		    check_version(ld, ert, &p) < 0)
			rc = -1;
		if (!et->ert_version && ld_get(ert, "version"))
			et->ert_version = arena_strdup(ld->a, ld_get(ert, "version")->str);
		if (!ld_get(ert, "tables")) {
			rc = ld_error(ld, ert, &p, "missing 'tables'");
			continue;
		}
		if (ert_tables(ld, ld_get(ert, "tables"), &tp, tv) < 0)
			rc = -1;
	}
	return rc;
}

/* The energy of action 'name' in table 't', or -1 when absent. */
static double table_action(const struct spec_ert_table *t, const char *name)
{
	size_t i;
	for (i = 0; i < t->n_actions; i++)
		if (!strcmp(t->actions[i].name, name))
			return t->actions[i].energy_pj;
	return -1;
}

/* Every component name, for matching and hints. */
static size_t component_names(const struct ld *ld, const char **names, size_t cap)
{
	const struct spec_arch *sa = &ld->s->arch;
	size_t n = 0, i;
	for (i = 0; i < sa->n_levels && n < cap; i++)
		names[n++] = sa->levels[i].name;
	if (n < cap)
		names[n++] = sa->compute.name;
	for (i = 0; i < sa->n_networks && n < cap; i++)
		names[n++] = sa->networks[i].name;
	return n;
}

/* Point the component named like table 't' at it; false when none matches. */
static bool link_ert(struct ld *ld, const struct spec_ert_table *t, const struct diag_loc **prev)
{
	struct spec_arch *sa = &ld->s->arch;
	struct spec_level *levels = (struct spec_level *)sa->levels;
	struct spec_network *nets = (struct spec_network *)sa->networks;
	const struct spec_ert_table **slot = NULL;
	size_t i;

	for (i = 0; i < sa->n_levels; i++)
		if (!strcmp(levels[i].name, t->component))
			slot = &levels[i].ert;
	if (sa->compute.name && !strcmp(sa->compute.name, t->component))
		slot = &sa->compute.ert;
	for (i = 0; i < sa->n_networks; i++)
		if (!strcmp(nets[i].name, t->component))
			slot = &nets[i].ert;
	if (!slot)
		return false;
	*prev = *slot ? &(*slot)->loc : NULL;
	if (!*slot)
		*slot = t;
	return true;
}

/* A 'wire' table with 'transfer_random' sets the wire energy of inferred networks. */
static void apply_wire(struct ld *ld, const struct spec_ert_table *t)
{
	struct spec_arch *sa = &ld->s->arch;
	struct spec_level *levels = (struct spec_level *)sa->levels;
	double e = table_action(t, "transfer_random");
	unsigned l;
	if (e < 0)
		return;
	for (l = 0; l < sa->n_levels; l++) {
		if (levels[l].network.has_wire_energy)
			continue;
		levels[l].network.has_wire_energy = true;
		levels[l].network.wire_energy_pj = e;
	}
}

/* Link every table to its component; warn about tables that match none. */
static int link_tables(struct ld *ld, const struct spec_ert_table *tables, size_t n)
{
	const char *names[SPEC_MAX_LEVELS + 64];
	size_t n_names = component_names(ld, names, ARRAY_SIZE(names)), i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		const struct spec_ert_table *t = &tables[i];
		const struct diag_loc *prev = NULL;
		if (!strcmp(t->component, "wire") || !strcmp(t->component, "Wire")) {
			apply_wire(ld, t);
			continue;
		}
		if (link_ert(ld, t, &prev)) {
			if (prev) {
				rc = diag_error(ld->dl, t->loc, "a second ERT table for component '%s'",
						t->component);
				diag_note(ld->dl, *prev, "the first one is here");
			}
			continue;
		}
		{
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "ERT table '%s' matches no component; it is ignored", t->name);
			ld_add_hint(&sb, t->component, names, n_names);
			diag_warning(ld->dl, t->loc, "%s", sb.buf);
			strbuf_release(&sb);
		}
	}
	return rc;
}

/* The 'ERT' key: s->energy.ert and the components' links. */
static int load_ert(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "ERT");
	struct spec_energy_tables *et = &ld->s->energy;
	struct tablevec tv = { NULL, 0, 0 };
	int rc;

	if (!top)
		return 0;
	rc = load_ert_docs(ld, top, &tv);
	et->has_ert = true;
	et->n_ert = tv.n;
	et->ert = tv.n ? arena_memdup(ld->a, tv.v, tv.n * sizeof(*tv.v)) : NULL;
	free(tv.v);
	if (ld->arch_ok && link_tables(ld, et->ert, et->n_ert) < 0)
		rc = -1;
	return rc;
}

/* Add one ART entry; 'ap' is the path of the area value. */
static int push_art(struct ld *ld, const struct ysrc_node *name, const struct ysrc_node *area,
		    const struct kpath *p, const struct kpath *ap, struct spec_art_entry **v,
		    size_t *n, size_t *alloc)
{
	struct spec_art_entry e;
	memset(&e, 0, sizeof(e));
	if (ld_want_scalar(ld, name, p) < 0 || ld_double(ld, area, ap, 0.0, HUGE_VAL, &e.area_um2) < 0)
		return -1;
	e.name = arena_strdup(ld->a, name->str);
	e.component = component_of(ld->a, name->str);
	e.loc = name->loc;
	XGROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = e;
	return 0;
}

/* The tables of one ART document: [{name, area}] or {name: area}. */
static int art_tables(struct ld *ld, const struct ysrc_node *tables, const struct kpath *p,
		      struct spec_art_entry **v, size_t *n, size_t *alloc)
{
	size_t i;
	int rc = 0;

	if (tables->kind == YSRC_MAP) {
		for (i = 0; i < tables->n; i++) {
			struct kpath tp = KP_KEY(p, tables->pairs[i].key->str);
			if (push_art(ld, tables->pairs[i].key, tables->pairs[i].value, &tp, &tp, v,
				     n, alloc) < 0)
				rc = -1;
		}
		return rc;
	}
	if (ld_want_seq(ld, tables, p) < 0)
		return -1;
	for (i = 0; i < tables->n; i++) {
		const struct ysrc_node *e = tables->items[i];
		struct kpath ip = KP_IDX(p, i);
		if (ld_want_map(ld, e, &ip) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, e, &ip, art_entry_keys, ARRAY_SIZE(art_entry_keys)))
			rc = -1;
		if (!ld_get(e, "name") || !ld_get(e, "area")) {
			rc = ld_error(ld, e, &ip, "an ART entry needs a 'name' and an 'area'");
			continue;
		}
		struct kpath np = KP_KEY(&ip, "name"), ap = KP_KEY(&ip, "area");
		if (push_art(ld, ld_get(e, "name"), ld_get(e, "area"), &np, &ap, v, n, alloc) < 0)
			rc = -1;
	}
	return rc;
}

/* Point each level, the compute unit and networks at their ART entry. */
static void link_art(struct ld *ld, const struct spec_art_entry *v, size_t n)
{
	struct spec_arch *sa = &ld->s->arch;
	struct spec_level *levels = (struct spec_level *)sa->levels;
	size_t i, l;

	for (i = 0; i < n; i++) {
		bool found = false;
		for (l = 0; l < sa->n_levels; l++) {
			if (!strcmp(levels[l].name, v[i].component) && !levels[l].art) {
				levels[l].art = &v[i];
				found = true;
			}
		}
		if (sa->compute.name && !strcmp(sa->compute.name, v[i].component)) {
			if (!sa->compute.art)
				sa->compute.art = &v[i];
			found = true;
		}
		for (l = 0; l < sa->n_networks; l++)
			found = found || !strcmp(sa->networks[l].name, v[i].component);
		if (!found)
			diag_warning(ld->dl, v[i].loc, "ART entry '%s' matches no component; it is "
				     "ignored", v[i].name);
	}
}

/* The 'ART' key: s->energy.art and the components' links. */
static int load_art(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "ART");
	struct spec_energy_tables *et = &ld->s->energy;
	struct spec_art_entry *v = NULL;
	size_t n = 0, alloc = 0, f;
	int rc = 0;

	if (!top)
		return 0;
	for (f = 0; f < top->n; f++) {
		const struct ysrc_node *art = top->values[f];
		struct kpath p = KP_KEY(NULL, "ART"), tp = KP_KEY(&p, "tables");
		if (ld_want_map(ld, art, &p) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, art, &p, art_keys, ARRAY_SIZE(art_keys)) ||
		    check_version(ld, art, &p) < 0)
			rc = -1;
		if (!ld_get(art, "tables"))
			rc = ld_error(ld, art, &p, "missing 'tables'");
		else if (art_tables(ld, ld_get(art, "tables"), &tp, &v, &n, &alloc) < 0)
			rc = -1;
	}
	et->has_art = true;
	et->n_art = n;
	et->art = n ? arena_memdup(ld->a, v, n * sizeof(*v)) : NULL;
	free(v);
	if (ld->arch_ok)
		link_art(ld, et->art, et->n_art);
	return rc;
}

int spec_energy_load(struct ld *ld)
{
	int rc = 0;
	if (load_ert(ld) < 0)
		rc = -1;
	if (load_art(ld) < 0)
		rc = -1;
	return rc;
}
