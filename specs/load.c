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

/* "unknown top-level key" with a did-you-mean hint. */
static void unknown_top_key(const struct spec_source *src, struct diag_list *dl,
			    const struct ysrc_node *k)
{
	struct strbuf sb = STRBUF_INIT;

	ld_top_key_unknown(src, k->str, &sb);
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
	struct top_key buf;
	const struct top_key *tk = ld_top_key_of(src, pr->key->str, &buf);
	struct ld_top *slot;

	if (!tk) {
		unknown_top_key(src, dl, pr->key);
		return -1;
	}
	slot = ld_top_slot(src->top, &src->n_top, tk->canonical);
	if (replace && tk->merge != TOP_TARGETS && tk->merge != TOP_LIST &&
	    tk->merge != TOP_CLASSES)
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
	struct spec_source *src = xcalloc(1, sizeof(struct spec_source));

	pthread_mutex_init(&src->cc_mu, NULL);
	return src;
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
	arena_release(&src->cc_arena);
	free(src->inert_key);
	free(src->inert_val);
	free(src->levels_memo);
	free(src->tables_memo);
	pthread_mutex_destroy(&src->cc_mu);
	free(src->files);
	free(src);
}

/*
 * The kind of the design from its top-level keys (into ld->s->kind): a kind
 * with a key of its own stands alone; without one, the default kind (the
 * first). -1 (reported) when keys of two kinds are mixed.
 */
static int design_kind(struct ld *ld, const struct spec_kind *const *kinds)
{
	const struct ld_top *given = NULL;
	const struct spec_kind *const *k;
	const char *const *sec;
	int rc = 0;

	ld->s->kind = kinds[0];
	for (k = kinds; *k; k++) {
		const struct ld_top *t = (*k)->key ? ld_top_get(ld, (*k)->key) : NULL;
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
		ld->s->kind = *k;
	}
	for (sec = kinds[0]->sections; given && sec && *sec; sec++) {
		const struct ld_top *t = ld_top_get(ld, *sec);
		if (t)
			rc = ld_error(ld, t->keys[0], NULL, "'%s' does not apply to an '%s' design "
				      "(it stands alone: everything it needs is under '%s')",
				      t->keys[0]->str, given->keys[0]->str, given->keys[0]->str);
	}
	return rc;
}

/* The kinds of 'src': those it was given, or the default kind alone. */
static const struct spec_kind *const *kinds_of(const struct spec_source *src)
{
	static const struct spec_kind *const only_default[] = { &spec_kind_timeloop, NULL };
	return src->kinds[0] ? src->kinds : only_default;
}

const struct spec_kind *spec_source_kind(const struct spec_source *src)
{
	const struct spec_kind *const *k, *const *all = kinds_of(src);
	size_t i;

	for (k = all; *k; k++)
		for (i = 0; (*k)->key && i < src->n_top; i++)
			if (!strcmp(src->top[i].key, (*k)->key) && src->top[i].n)
				return *k;
	return all[0];
}

/* Find the design's kind and run its loader. */
static int run_sections(struct ld *ld)
{
	int rc = design_kind(ld, kinds_of(ld->s->source));

	return ld->s->kind->load(ld) < 0 ? -1 : rc;
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
	if (opt) {
		spec_source_set_templates(src, opt->template_vars, opt->n_template_vars, opt->jinja);
		spec_source_set_kinds(src, opt->kinds);
	}
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
