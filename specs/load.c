/*
 * spec_set_load(): parse every file, merge their top-level keys as Timeloop
 * does, then run the section parsers in dependency order (problem, then
 * architecture, energy tables, sparse optimizations, mapping, constraints
 * and mapper settings) and the cross-section checks.
 */
#include "specs/spec.h"

#include <stdlib.h>
#include <string.h>

#include "specs/specs_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum top_merge {
	TOP_SINGLE,    /* at most one file may give it */
	TOP_LIST,      /* lists from several files are concatenated */
	TOP_TARGETS,   /* maps whose 'targets' / 'tables' lists are concatenated */
	TOP_IGNORED,   /* accepted and not used */
};

struct top_key {
	const char *name;       /* as written */
	const char *canonical;  /* the entry it fills */
	enum top_merge merge;
};

static const struct top_key top_keys[] = {
	{ "architecture", "architecture", TOP_SINGLE },
	{ "arch", "architecture", TOP_SINGLE },
	{ "problem", "problem", TOP_SINGLE },
	{ "mapping", "mapping", TOP_LIST },
	{ "sparse_optimizations", "sparse_optimizations", TOP_TARGETS },
	{ "ERT", "ERT", TOP_TARGETS },
	{ "ART", "ART", TOP_TARGETS },
	{ "mapper", "mapper", TOP_SINGLE },
	{ "architecture_constraints", "architecture_constraints", TOP_TARGETS },
	{ "arch_constraints", "architecture_constraints", TOP_TARGETS },
	{ "constraints", "architecture_constraints", TOP_TARGETS },
	{ "mapspace_constraints", "mapspace_constraints", TOP_TARGETS },
	{ "mapspace", "mapspace", TOP_SINGLE },
	{ "model", "model", TOP_SINGLE },
	{ "ipu", "ipu", TOP_SINGLE },
	{ "compound_components", "compound_components", TOP_IGNORED },
	{ "components", "components", TOP_IGNORED },
	{ "globals", "globals", TOP_IGNORED },
	{ "variables", "variables", TOP_IGNORED },
	{ "dumped_by_timeloop_front_end", "dumped_by_timeloop_front_end", TOP_IGNORED },
	{ "ERT_summary", "ERT_summary", TOP_IGNORED },
	{ "ART_summary", "ART_summary", TOP_IGNORED },
};

const struct ld_top *ld_top_get(const struct ld *ld, const char *key)
{
	size_t i;
	for (i = 0; i < ld->n_top; i++)
		if (!strcmp(ld->top[i].key, key))
			return ld->top[i].n ? &ld->top[i] : NULL;
	return NULL;
}

/* The known top-level key spelt 'name', or NULL. */
static const struct top_key *top_key_find(const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(top_keys); i++)
		if (ysrc_key_eq(name, top_keys[i].name))
			return &top_keys[i];
	return NULL;
}

/* The merged entry of canonical key 'canonical' (created on first use). */
static struct ld_top *top_slot(struct ld *ld, const char *canonical)
{
	size_t i;
	for (i = 0; i < ld->n_top; i++)
		if (!strcmp(ld->top[i].key, canonical))
			return &ld->top[i];
	if (ld->n_top >= ARRAY_SIZE(ld->top))
		BUG("too many top-level keys");
	ld->top[ld->n_top].key = canonical;
	return &ld->top[ld->n_top++];
}

/* "unknown top-level key" with a did-you-mean hint. */
static void unknown_top_key(struct ld *ld, const struct ysrc_node *k)
{
	const char *names[ARRAY_SIZE(top_keys)];
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(top_keys); i++)
		names[i] = top_keys[i].name;
	strbuf_addf(&sb, "unknown top-level key '%s'", k->str);
	ld_add_hint(&sb, k->str, names, ARRAY_SIZE(names));
	ld_error(ld, k, NULL, "%s", sb.buf);
	strbuf_release(&sb);
}

/* Record one top-level pair of a file; a second single-valued key is an error. */
static void add_top_pair(struct ld *ld, const struct ysrc_pair *pr)
{
	const struct top_key *tk = top_key_find(pr->key->str);
	struct ld_top *slot;

	if (!tk) {
		unknown_top_key(ld, pr->key);
		return;
	}
	slot = top_slot(ld, tk->canonical);
	if (slot->n && tk->merge == TOP_SINGLE) {
		ld_error(ld, pr->key, NULL, "'%s' is given twice (only one file may give it)",
			 pr->key->str);
		ld_note(ld, slot->keys[0]->loc, "'%s' first given here", slot->keys[0]->str);
		return;
	}
	if (slot->n >= LD_MAX_FILES_PER_KEY) {
		ld_error(ld, pr->key, NULL, "'%s' is given in more than %d files", pr->key->str,
			 LD_MAX_FILES_PER_KEY);
		return;
	}
	slot->keys[slot->n] = pr->key;
	slot->values[slot->n] = pr->value;
	slot->n++;
}

/* Parse every file and merge the top-level keys; -1 when any failed. */
static int load_files(struct ld *ld, const char *const *paths, size_t n_paths)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < n_paths; i++) {
		struct ysrc_node *root;
		if (ysrc_parse_file(ld->a, paths[i], ld->dl, &root) < 0) {
			rc = -1;
			continue;
		}
		if (!root) {
			diag_warning(ld->dl, (struct diag_loc){ paths[i], 0, 0 }, "the file is empty");
			continue;
		}
		if (root->kind != YSRC_MAP) {
			rc = ld_error(ld, root, NULL, "expected a mapping of top-level keys "
				      "(architecture, problem, mapping, ...), got %s",
				      ysrc_kind_name(root));
			continue;
		}
		for (j = 0; j < root->n; j++)
			add_top_pair(ld, &root->pairs[j]);
	}
	return rc;
}

/*
 * Run the section parsers. A section whose input is broken stops only the
 * sections that depend on it (the mapping needs the architecture and the
 * problem), so that one run reports the errors of every section.
 */
static int run_sections(struct ld *ld)
{
	const struct spec_load_options *opt = ld->opt;
	int rc = 0;

	if (ld_top_get(ld, "ipu"))
		return spec_ipu_load(ld);
	if (spec_problem_load(ld) < 0)
		rc = -1;
	if (!ld_top_get(ld, "problem") && !(opt && opt->allow_no_problem))
		rc = diag_error(ld->dl, DIAG_LOC_NONE, "no 'problem' given in any file");
	if (!ld_top_get(ld, "architecture"))
		return diag_error(ld->dl, DIAG_LOC_NONE, "no 'architecture' given in any file");
	if (spec_arch_load(ld) < 0)
		rc = -1;
	if (!ld->arch_ok)
		return -1;
	if (spec_energy_load(ld) < 0)
		rc = -1;
	if (spec_mapper_load(ld) < 0)
		rc = -1;
	if (!ld->problem_ok)
		return -1;
	if (spec_sparse_load(ld) < 0)
		rc = -1;
	if (spec_mapping_load(ld) < 0)
		rc = -1;
	if (spec_constraints_load(ld) < 0)
		rc = -1;
	if (rc == 0 && !ld->s->has_mapping && opt && opt->require_mapping)
		rc = diag_error(ld->dl, DIAG_LOC_NONE, ld_top_get(ld, "mapping") ?
				"the mapping is empty" : "no 'mapping' given in any file");
	if (rc == 0 && spec_check_all(ld) < 0)
		rc = -1;
	return rc;
}

struct spec_set *spec_set_load(const char *const *paths, size_t n_paths,
			       const struct spec_load_options *opt, struct diag_list *dl)
{
	struct spec_set *s = xcalloc(1, sizeof(*s));
	struct ld ld;
	unsigned errors_before = dl->n_errors;
	const char **files;
	size_t i;

	memset(&ld, 0, sizeof(ld));
	ld.s = s;
	ld.a = &s->arena;
	ld.dl = dl;
	ld.opt = opt;
	files = arena_calloc(ld.a, n_paths ? n_paths : 1, sizeof(*files));
	for (i = 0; i < n_paths; i++)
		files[i] = paths[i];
	s->n_files = n_paths;
	s->files = files;
	if (n_paths == 0)
		diag_error(dl, DIAG_LOC_NONE, "no input files");
	else if (load_files(&ld, paths, n_paths) == 0)
		run_sections(&ld);
	free(ld.comps);
	if (dl->n_errors != errors_before) {
		spec_set_free(s);
		return NULL;
	}
	return s;
}

void spec_set_free(struct spec_set *s)
{
	if (!s)
		return;
	arena_release(&s->arena);
	free(s);
}

int spec_level_find(const struct spec_arch *arch, const char *name)
{
	unsigned i;
	for (i = 0; i < arch->n_levels; i++)
		if (!strcmp(arch->levels[i].name, name))
			return (int)i;
	return -1;
}

int spec_tensor_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_tensors; i++)
		if (!strcmp(w->tensors[i].name, name))
			return (int)i;
	return -1;
}

int spec_dim_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_dims; i++)
		if (!strcmp(w->dim_names[i], name))
			return (int)i;
	return -1;
}
