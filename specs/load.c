/*
 * spec_set_load(): parse every file, merge their top-level keys as Timeloop
 * does, then run the section parsers in dependency order (problem, then
 * architecture, energy tables, sparse optimizations, mapping, constraints
 * and mapper settings) and the cross-section checks.
 */
#include "specs/spec.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "specs/specs_int.h"
#include "specs/template_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
	{ "per_call", "per_call", TOP_SINGLE },
	{ "stpu", "stpu", TOP_SINGLE },
	{ "ipu", "ipu", TOP_SINGLE },
	{ "compound_components", "compound_components", TOP_IGNORED },
	{ "components", "components", TOP_IGNORED },
	{ "globals", "globals", TOP_IGNORED },
	{ "variables", "variables", TOP_MERGED },
	{ "dumped_by_timeloop_front_end", "dumped_by_timeloop_front_end", TOP_IGNORED },
	{ "ERT_summary", "ERT_summary", TOP_IGNORED },
	{ "ART_summary", "ART_summary", TOP_IGNORED },
};

static const char *const top_key_names[] = {
	"architecture", "arch", "problem", "mapping", "sparse_optimizations", "ERT", "ART",
	"mapper", "architecture_constraints", "arch_constraints", "constraints",
	"mapspace_constraints", "mapspace", "model", "per_call", "stpu", "ipu",
	"compound_components",
	"components",
	"globals", "variables", "dumped_by_timeloop_front_end", "ERT_summary", "ART_summary",
};

_Static_assert(ARRAY_SIZE(top_key_names) == ARRAY_SIZE(top_keys), "one name per top-level key");

const struct ld_top *ld_top_get(const struct ld *ld, const char *key)
{
	size_t i;
	for (i = 0; i < ld->n_top; i++)
		if (!strcmp(ld->top[i].key, key))
			return ld->top[i].n ? &ld->top[i] : NULL;
	return NULL;
}

/*
 * Timeloop's v0.4 front end also takes a top-level key by a part of its
 * name, trying in this order: one holding "ignore" is ignored (anchor
 * holders such as 'problem_base_ignore'), then "components", "constraints"
 * (so 'extra_mapping_constraints' adds constraints), "mapping", "globals".
 * Here the part must be a whole word between '_' or '-', so that a
 * misspelt 'mappings' is still an error.
 */
static const struct top_key part_keys[] = {
	{ "ignore", "ignore", TOP_IGNORED },
	{ "components", "components", TOP_IGNORED },
	{ "constraints", "architecture_constraints", TOP_TARGETS },
	{ "mapping", "mapping", TOP_LIST },
	{ "globals", "globals", TOP_IGNORED },
};

/* True when 'word' is one of the '_'/'-' separated words of 'name'. */
static bool has_word(const char *name, const char *word)
{
	size_t len = strlen(word);
	const char *s = name;
	while ((s = strstr(s, word)) != NULL) {
		bool starts = s == name || s[-1] == '_' || s[-1] == '-';
		bool ends = s[len] == '\0' || s[len] == '_' || s[len] == '-';
		if (starts && ends)
			return true;
		s++;
	}
	return false;
}

const struct top_key *ld_top_key_find(const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(top_keys); i++)
		if (ysrc_key_eq(name, top_keys[i].name))
			return &top_keys[i];
	for (i = 0; i < ARRAY_SIZE(part_keys); i++)
		if (has_word(name, part_keys[i].name))
			return &part_keys[i];
	return NULL;
}

const char *const *ld_top_key_names(size_t *n)
{
	*n = ARRAY_SIZE(top_key_names);
	return top_key_names;
}

struct ld_top *ld_top_slot(struct ld_top *top, size_t *n_top, const char *canonical)
{
	size_t i;
	for (i = 0; i < *n_top; i++)
		if (!strcmp(top[i].key, canonical))
			return &top[i];
	if (*n_top >= LD_MAX_TOP)
		BUG("too many top-level keys");
	memset(&top[*n_top], 0, sizeof(top[*n_top]));
	top[*n_top].key = canonical;
	return &top[(*n_top)++];
}

/* "unknown top-level key" with a did-you-mean hint. */
static void unknown_top_key(struct diag_list *dl, const struct ysrc_node *k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "unknown top-level key '%s'", k->str);
	ld_add_hint(&sb, k->str, top_key_names, ARRAY_SIZE(top_key_names));
	diag_error(dl, k->loc, "%s", sb.buf);
	strbuf_release(&sb);
}

/*
 * Record one top-level pair of a file; a second single-valued key is an
 * error, unless 'replace' (a layer's keys replace the design's).
 */
static int add_top_pair(struct spec_source *src, const struct ysrc_pair *pr, bool replace,
			struct diag_list *dl)
{
	const struct top_key *tk = ld_top_key_find(pr->key->str);
	struct ld_top *slot;

	if (!tk) {
		unknown_top_key(dl, pr->key);
		return -1;
	}
	slot = ld_top_slot(src->top, &src->n_top, tk->canonical);
	if (replace && tk->merge != TOP_TARGETS && tk->merge != TOP_LIST)
		slot->n = 0;
	if (slot->n && tk->merge == TOP_SINGLE) {
		diag_error(dl, pr->key->loc, "'%s' is given twice (only one file may give it)",
			   pr->key->str);
		diag_note(dl, slot->keys[0]->loc, "'%s' first given here", slot->keys[0]->str);
		return -1;
	}
	if (slot->n >= LD_MAX_FILES_PER_KEY)
		return diag_error(dl, pr->key->loc, "'%s' is given in more than %d files",
				  pr->key->str, LD_MAX_FILES_PER_KEY);
	slot->keys[slot->n] = pr->key;
	slot->values[slot->n] = pr->value;
	slot->n++;
	return 0;
}

struct spec_source *spec_source_new(void)
{
	return xcalloc(1, sizeof(struct spec_source));
}

/* The name 'name' as the source keeps it (a copy, unless borrowing). */
static const char *source_name(struct spec_source *src, const char *name)
{
	XGROW(src->files, src->n_files + 1, src->alloc_files);
	src->files[src->n_files] = src->borrow_names ? name : arena_strdup(&src->arena, name);
	return src->files[src->n_files++];
}

/* Merge the top-level keys of the parsed file 'name' (root 'root'); 0 or -1. */
static int source_merge(struct spec_source *src, const char *name, const struct ysrc_node *root,
			bool replace, struct diag_list *dl)
{
	size_t j;
	int rc = 0;

	if (!src->first_root.file)
		src->first_root = root ? root->loc : (struct diag_loc){ name, 1, 1 };
	if (!root) {
		diag_warning(dl, (struct diag_loc){ name, 1, 1 }, "the file is empty");
		return 0;
	}
	if (root->kind != YSRC_MAP) {
		src->n_unparsed++;
		src->n_errors++;
		return diag_error(dl, root->loc, "expected a mapping of top-level keys "
				  "(architecture, problem, mapping, ...), got %s",
				  ysrc_kind_name(root));
	}
	for (j = 0; j < root->n; j++)
		if (add_top_pair(src, &root->pairs[j], replace, dl) < 0)
			rc = -1;
	if (rc < 0)
		src->n_errors++;
	return rc;
}

/* Count a file that could not be parsed (the sections cannot run); returns -1. */
static int source_failed(struct spec_source *src)
{
	src->n_errors++;
	src->n_unparsed++;
	return -1;
}

void spec_source_set_templates(struct spec_source *src, const char *const *vars, size_t n_vars,
			       struct spec_jinja *jinja)
{
	src->template_vars = vars;
	src->n_template_vars = n_vars;
	src->jinja = jinja;
}

/* Read and parse 'path' into 'src'; 'replace': its keys replace the earlier files'. */
static int add_file(struct spec_source *src, const char *path, bool replace, struct diag_list *dl)
{
	const char *name = source_name(src, path);
	struct tmpl_ctx t;
	struct ysrc_node *root;
	int rc;

	memset(&t, 0, sizeof(t));
	t.a = &src->arena;
	t.dl = dl;
	t.vars = src->template_vars;
	t.n_vars = src->n_template_vars;
	t.jinja = src->jinja;
	rc = tmpl_parse_file(&t, path, name, NULL, 0, &root);
	tmpl_ctx_release(&t);
	if (rc < 0)
		return source_failed(src);
	return source_merge(src, name, root, replace, dl);
}

int spec_source_add_file(struct spec_source *src, const char *path, struct diag_list *dl)
{
	return add_file(src, path, false, dl);
}

int spec_source_add_layer(struct spec_source *src, const char *path, struct diag_list *dl)
{
	return add_file(src, path, true, dl);
}

int spec_source_add_text(struct spec_source *src, const char *name, const char *text,
			 size_t len, struct diag_list *dl)
{
	const char *own = source_name(src, name);
	struct ysrc_node *root;

	if (ysrc_parse(&src->arena, own, text, len, dl, &root) < 0)
		return source_failed(src);
	return source_merge(src, own, root, false, dl);
}

void spec_source_free(struct spec_source *src)
{
	if (!src)
		return;
	arena_release(&src->arena);
	free(src->files);
	free(src);
}

/*
 * The design's kind from its top-level keys: an accelerator model's key
 * ('ipu', 'stpu') stands alone, without the Timeloop sections. -1 (reported)
 * when keys of two kinds are mixed.
 */
static int accel_design(struct ld *ld)
{
	static const struct {
		const char *key;
		enum spec_design_kind kind;
	} accels[] = { { "ipu", SPEC_DESIGN_IPU }, { "stpu", SPEC_DESIGN_STPU } };
	static const char *const timeloop_keys[] = {
		"architecture", "problem", "mapping", "sparse_optimizations", "mapper",
		"architecture_constraints", "mapspace_constraints", "mapspace",
	};
	const struct ld_top *given = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(accels); i++) {
		const struct ld_top *t = ld_top_get(ld, accels[i].key);
		if (!t)
			continue;
		if (given) {
			ld_error(ld, t->keys[0], NULL, "'%s' and '%s' are designs of two different "
				 "models; give one", t->keys[0]->str, given->keys[0]->str);
			ld_note(ld, given->keys[0]->loc, "'%s' is given here", given->keys[0]->str);
			rc = -1;
			continue;
		}
		given = t;
		ld->s->kind = accels[i].kind;
	}
	for (i = 0; given && i < ARRAY_SIZE(timeloop_keys); i++) {
		const struct ld_top *t = ld_top_get(ld, timeloop_keys[i]);
		if (t)
			rc = ld_error(ld, t->keys[0], NULL, "'%s' does not apply to an '%s' design "
				      "(it stands alone: everything it needs is under '%s')",
				      t->keys[0]->str, given->keys[0]->str, given->keys[0]->str);
	}
	return rc;
}

/*
 * Where an error about the design as a whole (a section no file gives) is
 * reported: the first file's top-level mapping.
 */
static struct diag_loc design_loc(const struct ld *ld)
{
	const struct spec_source *src = ld->s->source;
	if (src && src->first_root.file)
		return src->first_root;
	return ld->s->n_files ? (struct diag_loc){ ld->s->files[0], 1, 1 } : DIAG_LOC_NONE;
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

	if (accel_design(ld) < 0)
		rc = -1;
	if (ld->s->kind == SPEC_DESIGN_STPU)
		return spec_stpu_load(ld) < 0 ? -1 : rc;
	if (ld->s->kind == SPEC_DESIGN_IPU)
		return spec_ipu_load(ld) < 0 ? -1 : rc;
	if (spec_problem_load(ld) < 0)
		rc = -1;
	if (!ld_top_get(ld, "problem") && !(opt && opt->allow_no_problem))
		rc = diag_error(ld->dl, design_loc(ld), "no 'problem' given in any file");
	if (!ld_top_get(ld, "architecture"))
		return diag_error(ld->dl, design_loc(ld), "no 'architecture' given in any file");
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
	if (spec_per_call_load(ld) < 0)
		rc = -1;
	if (rc == 0 && !ld->s->has_mapping && opt && opt->require_mapping) {
		const struct ld_top *m = ld_top_get(ld, "mapping");
		rc = diag_error(ld->dl, m ? m->values[0]->loc : design_loc(ld), m ?
				"the mapping is empty" : "no 'mapping' given in any file");
	}
	if (rc == 0 && spec_check_all(ld) < 0)
		rc = -1;
	return rc;
}

/*
 * Build a set from 'src' with overrides ov[0..n_ov): the merged view is the
 * source's, copied; overrides replace nodes of the copy; then the sections.
 * With overrides, diagnostics pass through a list of their own so that the
 * ones about overridden nodes get their notes (spec_overrides_report).
 */
static struct spec_set *build(const struct spec_source *src, const struct spec_override *ov,
			      size_t n_ov, const struct spec_load_options *opt,
			      struct diag_list *dl, unsigned errors_before)
{
	struct spec_set *s = xcalloc(1, sizeof(*s));
	struct diag_list own = DIAG_LIST_INIT;
	struct ld ld;

	own.max_errors = UINT_MAX;
	memset(&ld, 0, sizeof(ld));
	ld.s = s;
	ld.a = &s->arena;
	ld.dl = n_ov ? &own : dl;
	ld.dl_out = dl;
	ld.opt = opt;
	ld.n_top = src->n_top;
	memcpy(ld.top, src->top, src->n_top * sizeof(src->top[0]));
	s->n_files = src->n_files;
	s->files = src->files;
	s->source = src;
	if (spec_overrides_apply(&ld, ov, n_ov) == 0) {
		spec_expressions_apply(&ld);   /* its errors fail the build; the sections say more */
		run_sections(&ld);
	}
	if (n_ov)
		spec_overrides_report(&ld, &own, dl);
	diag_list_release(&own);
	free(ld.comps);
	free(ld.ov_seen);
	free(ld.deferred);
	if (dl->n_errors != errors_before) {
		spec_set_free(s);
		return NULL;
	}
	return s;
}

struct spec_set *spec_set_build(const struct spec_source *src, const struct spec_override *ov,
				size_t n_ov, const struct spec_load_options *opt,
				struct diag_list *dl)
{
	if (src->n_errors)
		return diag_error(dl, DIAG_LOC_NONE, "the design's files have errors; no spec set "
				  "is built from them"), NULL;
	if (src->n_files == 0)
		return diag_error(dl, DIAG_LOC_NONE, "no input files"), NULL;
	return build(src, ov, n_ov, opt, dl, dl->n_errors);
}

/* spec_source_free() for diag_list_keep(). */
static void source_release(void *src)
{
	spec_source_free(src);
}

struct spec_set *spec_set_load(const char *const *paths, size_t n_paths,
			       const struct spec_load_options *opt, struct diag_list *dl)
{
	return spec_set_load_overrides(paths, n_paths, NULL, 0, opt, dl);
}

struct spec_set *spec_set_load_overrides(const char *const *paths, size_t n_paths,
					 const struct spec_override *ov, size_t n_ov,
					 const struct spec_load_options *opt,
					 struct diag_list *dl)
{
	struct spec_source *src = spec_source_new();
	struct spec_set *s = NULL;
	unsigned errors_before = dl->n_errors;
	size_t i;

	src->borrow_names = true;
	if (opt)
		spec_source_set_templates(src, opt->template_vars, opt->n_template_vars, opt->jinja);
	for (i = 0; i < n_paths; i++)
		spec_source_add_file(src, paths[i], dl);
	if (n_paths == 0)
		diag_error(dl, DIAG_LOC_NONE, "no input files");
	else if (src->n_unparsed == 0)   /* clashing top-level keys: the sections still run */
		s = build(src, ov, n_ov, opt, dl, errors_before);
	if (!s) {   /* the diagnostics may name files only the source knows (included ones) */
		diag_list_keep(dl, source_release, src);
		return NULL;
	}
	s->owns_source = true;
	return s;
}

void spec_set_free(struct spec_set *s)
{
	if (!s)
		return;
	if (s->owns_source)
		spec_source_free((struct spec_source *)s->source);
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
