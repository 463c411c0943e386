/*
 * The top-level keys of a design: the known spellings and how the files'
 * values of each are merged (Timeloop's front end's rules, parts of names
 * included; each kind of design with a key of its own adds that key), and
 * the merged entries the section parsers read.
 */
#include "specs/specs_int.h"

#include <string.h>

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
	{ "compound_components", "compound_components", TOP_CLASSES },
	{ "components", "components", TOP_CLASSES },
	{ "globals", "globals", TOP_IGNORED },
	{ "variables", "variables", TOP_MERGED },
	{ "dumped_by_timeloop_front_end", "dumped_by_timeloop_front_end", TOP_IGNORED },
	{ "ERT_summary", "ERT_summary", TOP_IGNORED },
	{ "ART_summary", "ART_summary", TOP_IGNORED },
};

static const char *const top_key_names[] = {
	"architecture", "arch", "problem", "mapping", "sparse_optimizations", "ERT", "ART",
	"mapper", "architecture_constraints", "arch_constraints", "constraints",
	"mapspace_constraints", "mapspace", "model", "per_call", "compound_components",
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
	{ "components", "components", TOP_CLASSES },
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


const struct top_key *ld_top_key_of(const struct spec_source *src, const char *name,
				    struct top_key *buf)
{
	const struct spec_kind *const *k;

	for (k = src ? src->kinds : NULL; k && *k; k++)
		if ((*k)->key && ysrc_key_eq(name, (*k)->key)) {
			*buf = (struct top_key){ (*k)->key, (*k)->key, TOP_SINGLE };
			return buf;
		}
	return ld_top_key_find(name);
}

void ld_top_key_unknown(const struct spec_source *src, const char *name, struct strbuf *sb)
{
	const char *names[ARRAY_SIZE(top_key_names) + SPEC_MAX_KINDS];
	const struct spec_kind *const *k;
	size_t n;

	for (n = 0; n < ARRAY_SIZE(top_key_names); n++)
		names[n] = top_key_names[n];
	for (k = src ? src->kinds : NULL; k && *k; k++)
		if ((*k)->key)
			names[n++] = (*k)->key;
	strbuf_addf(sb, "unknown top-level key '%s'", name);
	ld_add_hint(sb, name, names, n);
}

void spec_source_set_kinds(struct spec_source *src, const struct spec_kind *const *kinds)
{
	size_t n = 0;

	for (; kinds && kinds[n]; n++) {
		if (n == SPEC_MAX_KINDS)
			BUG("more than %d kinds of design", SPEC_MAX_KINDS);
		src->kinds[n] = kinds[n];
	}
	src->kinds[n] = NULL;
}
