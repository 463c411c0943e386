/*
 * The 'mapping' key: temporal, spatial and datatype (bypass) directives per
 * storage level, checked against the architecture and the workload, then
 * turned into loop nests by spec_mapping_derive().
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum dir_type { DIR_TEMPORAL, DIR_SPATIAL, DIR_DATATYPE, DIR_SKEW };

static const char *const type_names[] = {
	"temporal", "spatial", "datatype", "bypass", "dataspace", "skew",
};
static const enum dir_type type_of[] = {
	DIR_TEMPORAL, DIR_SPATIAL, DIR_DATATYPE, DIR_DATATYPE, DIR_DATATYPE, DIR_SKEW,
};

static const char *const directive_keys[] = {
	"target", "type", "factors", "permutation", "split", "keep", "bypass", "no_reuse",
	"no_temporal_reuse", "no_link_transfer", "rmw_first_update", "no_coalesce", "modulo",
	"terms", "stream", "pad",
};

/* Keys each directive type accepts besides 'target' and 'type'. */
static const char *const *const type_keys[] = {
	[DIR_TEMPORAL] = (const char *const[]){ "factors", "permutation", "no_reuse",
						"no_temporal_reuse", "rmw_first_update", "pad", NULL },
	[DIR_SPATIAL] = (const char *const[]){ "factors", "permutation", "split", "no_reuse",
					       "no_link_transfer", "pad", NULL },
	[DIR_DATATYPE] = (const char *const[]){ "keep", "bypass", "no_coalesce", "stream", NULL },
	[DIR_SKEW] = (const char *const[]){ "modulo", "terms", NULL },
};

/* ------------------------------------------------------------ factors */

/* Report a factor-string error at byte 'off' of scalar 'n'. */
static int factor_error(struct ld *ld, const struct ysrc_node *n, size_t off,
			const struct kpath *p, const char *fmt, const char *arg)
{
	return ld_error_at(ld, ysrc_scalar_loc_at(n, off), p, fmt, arg);
}

/* Parse the number at s[*i]; -1 when there is none. */
static int read_number(const char *s, size_t *i, uint64_t *v)
{
	if (!isdigit((unsigned char)s[*i]))
		return -1;
	*v = 0;
	while (isdigit((unsigned char)s[*i])) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(s[(*i)++] - '0');
	}
	return 0;
}

/* Read the relation after a dimension name: '=', '==', '' or (constraints) '<='. */
static int read_relation(const char *s, size_t *i, bool allow_max, bool *is_max)
{
	*is_max = false;
	if (s[*i] == '<' && s[*i + 1] == '=') {
		if (!allow_max)
			return -1;
		*is_max = true;
		*i += 2;
		return 0;
	}
	if (s[*i] == '<' || s[*i] == '>')
		return -1;
	while (s[*i] == '=')
		(*i)++;
	return 0;
}

/* Parse one factor "K=16", "K16", "D=8,5" or "M<=8" starting at s[*i]. */
static int parse_one_factor(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			    size_t *i, bool allow_max, struct factor_item *it)
{
	const struct spec_workload *w = &ld->s->workload;
	const char *s = n->str;
	size_t start = *i;
	char name[32];
	int d;

	while (isalpha((unsigned char)s[*i]) && *i - start < sizeof(name) - 1)
		(*i)++;
	memcpy(name, s + start, *i - start);
	name[*i - start] = '\0';
	while (s[*i] == ' ' || s[*i] == '\t')
		(*i)++;
	if (read_relation(s, i, allow_max, &it->is_max) < 0)
		return factor_error(ld, n, *i, p, allow_max ? "expected '=' or '<=' after '%s'"
				    : "expected '=' after '%s'", name);
	while (s[*i] == ' ' || s[*i] == '\t')
		(*i)++;
	if (read_number(s, i, &it->value) < 0)
		return factor_error(ld, n, *i, p, "expected a factor (a whole number) after '%s'",
				    name);
	it->residual = it->value;
	if (s[*i] == ',' && isdigit((unsigned char)s[*i + 1])) {
		(*i)++;
		read_number(s, i, &it->residual);
	} else if (s[*i] == '+' && !it->is_max) {
		(*i)++;
		it->derive = true;
	}
	it->loc = ysrc_scalar_loc_at(n, start);
	d = spec_dim_find(w, name);
	if (d < 0) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "unknown dimension '%s' in factors", name);
		ld_add_hint(&sb, name, w->dim_names, w->n_dims);
		ld_error_at(ld, it->loc, p, "%s", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	it->dim = (unsigned)d;
	return 0;
}

/* Check one parsed factor and resolve 0 to the bound. */
static int finish_factor(struct ld *ld, const struct kpath *p, struct factor_item *it,
			 const struct factor_item *prev, unsigned n_prev)
{
	const struct spec_workload *w = &ld->s->workload;
	unsigned k;

	for (k = 0; k < n_prev; k++)
		if (prev[k].dim == it->dim)
			return ld_error_at(ld, it->loc, p, "dimension '%s' is given twice",
					   w->dim_names[it->dim]);
	if (it->value == 0) {
		it->value = w->bounds[it->dim];
		if (it->residual == 0)
			it->residual = it->value;
	}
	if (it->derive) {
		it->residual = 0;
		return 0;
	}
	if (it->residual == 0 || it->residual > it->value)
		return ld_error_at(ld, it->loc, p, "the residual of '%s' must be in [1, %llu]",
				   w->dim_names[it->dim], (unsigned long long)it->value);
	return 0;
}

/* Parse the factors in the text of scalar 'n', appending to 'items'. */
static int factors_text(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			bool allow_max, struct factor_item *items, unsigned *n_items)
{
	const char *s = n->str;
	size_t i = 0;
	int rc = 0;

	for (;;) {
		struct factor_item it;
		while (s[i] && (isspace((unsigned char)s[i]) || s[i] == ','))
			i++;
		if (!s[i] || s[i] == '#')
			break;
		if (!isalpha((unsigned char)s[i]))
			return factor_error(ld, n, i, p, "expected a dimension name, got '%s'", s + i);
		memset(&it, 0, sizeof(it));
		if (parse_one_factor(ld, n, p, &i, allow_max, &it) < 0)
			return -1;
		if (finish_factor(ld, p, &it, items, *n_items) < 0) {
			rc = -1;
			continue;
		}
		if (*n_items >= SPEC_MAX_DIMS)
			return ld_error(ld, n, p, "too many factors");
		items[(*n_items)++] = it;
	}
	return rc;
}

int spec_parse_factors(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       bool allow_max, struct factor_item *items, unsigned *n_items)
{
	size_t i;
	int rc = 0;

	*n_items = 0;
	if (n->kind == YSRC_SCALAR)
		return factors_text(ld, n, p, allow_max, items, n_items);
	if (n->kind != YSRC_SEQ)
		return ld_error(ld, n, p, "factors are written as 'M=8 K=4' (or a list of such "
				"strings), got %s", ysrc_kind_name(n));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (ld_want_scalar(ld, n->items[i], &ip) < 0 ||
		    factors_text(ld, n->items[i], &ip, allow_max, items, n_items) < 0)
			rc = -1;
	}
	return rc;
}

/* ------------------------------------------------------- permutations */

/* Add dimension 'name' to 'perm'; errors for unknown and repeated names. */
static int perm_add(struct ld *ld, struct diag_loc loc, const struct kpath *p, const char *name,
		    uint8_t *perm, unsigned *n)
{
	const struct spec_workload *w = &ld->s->workload;
	int d = spec_dim_find(w, name);
	unsigned k;

	if (d < 0) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "unknown dimension '%s' in the permutation (dimensions: ", name);
		for (k = 0; k < w->n_dims; k++)
			strbuf_addstr(&sb, w->dim_names[k]);
		strbuf_addch(&sb, ')');
		ld_error_at(ld, loc, p, "%s", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	for (k = 0; k < *n; k++)
		if (perm[k] == d)
			return ld_error_at(ld, loc, p, "dimension '%s' appears twice in the "
					   "permutation", name);
	perm[(*n)++] = (uint8_t)d;
	return 0;
}

int spec_parse_perm(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, uint8_t *perm)
{
	unsigned count = 0;
	size_t i;
	int rc = 0;

	if (n->kind == YSRC_SEQ) {
		for (i = 0; i < n->n; i++) {
			struct kpath ip = KP_IDX(p, i);
			if (ld_want_scalar(ld, n->items[i], &ip) < 0 ||
			    perm_add(ld, n->items[i]->loc, &ip, n->items[i]->str, perm, &count) < 0)
				rc = -1;
		}
		return rc < 0 ? -1 : (int)count;
	}
	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	for (i = 0; n->str[i]; i++) {
		char name[2] = { n->str[i], '\0' };
		if (isspace((unsigned char)name[0]) || name[0] == ',')
			continue;
		if (perm_add(ld, ysrc_scalar_loc_at(n, i), p, name, perm, &count) < 0)
			rc = -1;
	}
	return rc < 0 ? -1 : (int)count;
}

/* Complete a partial permutation with the missing dimensions in id order. */
static void perm_complete(uint8_t *perm, unsigned given, unsigned n_dims)
{
	unsigned d, k, n = given;
	for (d = 0; d < n_dims; d++) {
		for (k = 0; k < given; k++)
			if (perm[k] == d)
				break;
		if (k == given)
			perm[n++] = (uint8_t)d;
	}
}

/* ---------------------------------------------------------- directives */

struct map_state {
	struct spec_mapping *m;
	const struct ysrc_node *seen[SPEC_MAX_LEVELS][3];
	uint32_t bypass_given[SPEC_MAX_LEVELS];
	const struct ysrc_node *bypass_node[SPEC_MAX_LEVELS];
};

/* Resolve 'target': a level name or a storage level index. */
static int parse_target(struct ld *ld, const struct ysrc_node *t, const struct kpath *p)
{
	uint64_t idx;
	if (ld_want_scalar(ld, t, p) < 0)
		return -1;
	if (t->style == YSRC_PLAIN && spec_parse_u64(t->str, &idx) == 0) {
		if (idx >= ld->s->arch.n_levels)
			return ld_error(ld, t, p, "storage level index %llu is out of range [0, %u]",
					(unsigned long long)idx, ld->s->arch.n_levels - 1);
		return (int)idx;
	}
	return ld_level_index(ld, t, p, t->str);
}

/* The directive 'type'; bypass and dataspace are datatype. */
static int parse_type(struct ld *ld, const struct ysrc_node *t, const struct kpath *p,
		      enum dir_type *out)
{
	int k;
	if (ld_want_scalar(ld, t, p) < 0)
		return -1;
	k = ld_lookup_keyword(ld, t, p, "directive type", t->str, type_names, ARRAY_SIZE(type_names));
	if (k < 0)
		return -1;
	*out = type_of[k];
	return 0;
}

/* Errors for keys that the directive type does not take. */
static int check_type_keys(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			   enum dir_type type, const char *type_name)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < d->n; i++) {
		const char *k = d->pairs[i].key->str;
		const char *const *ok;
		bool fine = ysrc_key_eq(k, "target") || ysrc_key_eq(k, "type");
		for (ok = type_keys[type]; *ok && !fine; ok++)
			fine = ysrc_key_eq(k, *ok);
		if (!fine)
			rc = ld_error(ld, d->pairs[i].key, p, "'%s' does not apply to a %s directive",
				      k, type_name);
	}
	return rc;
}

/* Parse 'factors' and 'permutation' of a tiling directive into the arrays. */
static int parse_tiling(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			uint64_t *factors, uint64_t *residuals, uint8_t *perm)
{
	const struct ysrc_node *f = ld_get(d, "factors"), *pm = ld_get(d, "permutation");
	struct kpath fp = KP_KEY(p, "factors"), pp = KP_KEY(p, "permutation");
	struct factor_item items[SPEC_MAX_DIMS];
	unsigned n = 0, k;
	int given, rc = 0;

	if (f && spec_parse_factors(ld, f, &fp, false, items, &n) < 0)
		rc = -1;
	for (k = 0; k < n; k++) {
		factors[items[k].dim] = items[k].value;
		residuals[items[k].dim] = items[k].residual;
	}
	if (pm) {
		given = spec_parse_perm(ld, pm, &pp, perm);
		if (given < 0)
			return -1;
		perm_complete(perm, (unsigned)given, ld->s->workload.n_dims);
	}
	return rc;
}

/* Dimension 'n' (a scalar) into 'mask'. */
static int dim_list_item(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 uint32_t *mask)
{
	const struct spec_workload *w = &ld->s->workload;
	struct strbuf sb = STRBUF_INIT;
	int d;

	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	d = spec_dim_find(w, n->str);
	if (d >= 0) {
		*mask |= 1u << d;
		return 0;
	}
	strbuf_addf(&sb, "unknown dimension '%s'", n->str);
	ld_add_hint(&sb, n->str, w->dim_names, w->n_dims);
	ld_error(ld, n, p, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int spec_parse_dim_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			uint32_t *mask)
{
	size_t i;
	int rc = 0;

	*mask = 0;
	if (!n)
		return 0;
	if (n->kind != YSRC_SEQ)
		return dim_list_item(ld, n, p, mask);
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (dim_list_item(ld, n->items[i], &ip, mask) < 0)
			rc = -1;
	}
	return rc;
}

/* A list of tensors given under 'key' of directive 'd', as a mask. */
static int tensor_key(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
		      const char *key, uint32_t *mask)
{
	struct kpath kp = KP_KEY(p, key);
	*mask = 0;
	return ld_tensor_list(ld, ld_get(d, key), &kp, mask, NULL, NULL);
}

/* A temporal directive: factors, permutation and the temporal masks. */
static int parse_temporal(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			  struct spec_map_level *ml)
{
	uint32_t a = 0, b = 0, c = 0;
	int rc = parse_tiling(ld, d, p, ml->temporal_factors, ml->temporal_residuals,
			      ml->temporal_perm);
	if (tensor_key(ld, d, p, "no_reuse", &a) < 0)
		rc = -1;
	if (tensor_key(ld, d, p, "no_temporal_reuse", &b) < 0)
		rc = -1;
	if (tensor_key(ld, d, p, "rmw_first_update", &c) < 0)
		rc = -1;
	ml->no_temporal_reuse_mask = a | b;
	ml->rmw_first_update_mask = c;
	ml->temporal_loc = d->loc;
	return rc;
}

/* 'pad: [dims]' of a tiling directive, added to the mapping's pad_mask. */
static int parse_pad(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
		     struct spec_mapping *m)
{
	struct kpath pp = KP_KEY(p, "pad");
	uint32_t mask;

	if (spec_parse_dim_list(ld, ld_get(d, "pad"), &pp, &mask) < 0)
		return -1;
	m->pad_mask |= mask;
	return 0;
}

/* A spatial directive: only on a level with a fanout; factors, split, masks. */
static int parse_spatial(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			 unsigned level, struct spec_map_level *ml)
{
	const struct spec_level *L = &ld->s->arch.levels[level];
	const struct ysrc_node *split = ld_get(d, "split");
	struct kpath sp = KP_KEY(p, "split");
	uint64_t v;
	int rc;

	if (!ml->has_spatial)
		return ld_error(ld, d, p, "level '%s' has no spatial fanout (meshX %u, meshY %u, "
				"the same as its inner neighbour's), so it takes no spatial directive",
				L->name, L->mesh_x, L->mesh_y);
	rc = parse_tiling(ld, d, p, ml->spatial_factors, ml->spatial_residuals, ml->spatial_perm);
	if (split) {
		if (ld_uint(ld, split, &sp, 0, UINT64_MAX, &v) < 0)
			rc = -1;
		else
			ml->split = v > ld->s->workload.n_dims ? ld->s->workload.n_dims : (unsigned)v;
	}
	if (tensor_key(ld, d, p, "no_reuse", &ml->no_multicast_mask) < 0)
		rc = -1;
	if (tensor_key(ld, d, p, "no_link_transfer", &ml->no_link_transfer_mask) < 0)
		rc = -1;
	ml->spatial_loc = d->loc;
	return rc;
}

/* A datatype directive: keep and bypass (never both for one data space). */
static int parse_datatype(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			  unsigned level, struct map_state *st)
{
	struct spec_map_level *ml = &st->m->levels[level];
	const struct spec_workload *w = &ld->s->workload;
	uint32_t keep = 0, bypass = 0;
	unsigned t;
	int rc = 0;

	if (tensor_key(ld, d, p, "keep", &keep) < 0)
		rc = -1;
	if (tensor_key(ld, d, p, "bypass", &bypass) < 0)
		rc = -1;
	if (tensor_key(ld, d, p, "no_coalesce", &ml->no_coalesce_mask) < 0)
		rc = -1;
	if (ld_get(d, "stream")) {   /* Timeloop's mapper writes it; its model reads only keep/bypass */
		uint32_t stream;
		if (tensor_key(ld, d, p, "stream", &stream) < 0)
			rc = -1;
	}
	for (t = 0; t < w->n_tensors; t++)
		if (keep & bypass & (1u << t))
			rc = ld_error(ld, ld_get(d, "bypass"), p, "data space '%s' is both kept and "
				      "bypassed", w->tensors[t].name);
	ml->keep_mask = (ml->keep_mask & ~bypass) | keep;
	st->bypass_given[level] = bypass;
	st->bypass_node[level] = ld_get(d, "bypass");
	ml->datatype_loc = d->loc;
	return rc;
}

/* Record that level 'l' has a directive of 'type'; a second one is an error. */
static int mark_seen(struct ld *ld, struct map_state *st, unsigned l, enum dir_type type,
		     const struct ysrc_node *d, const struct kpath *p)
{
	static const char *const what[] = { "temporal", "spatial", "datatype" };
	const struct ysrc_node **slot = &st->seen[l][type];
	if (*slot) {
		ld_error(ld, d, p, "a second %s directive for level '%s'", what[type],
			 ld->s->arch.levels[l].name);
		ld_note(ld, (*slot)->loc, "the first one is here");
		return -1;
	}
	*slot = d;
	return 0;
}

/* One directive: its keys, type, target, then the type's own keys. */
static int parse_directive(struct ld *ld, const struct ysrc_node *d, const struct kpath *p,
			   struct map_state *st)
{
	const struct ysrc_node *tn = ld_get(d, "target"), *ty = ld_get(d, "type");
	struct kpath tp = KP_KEY(p, "target"), yp = KP_KEY(p, "type");
	enum dir_type type;
	int l, bad;

	if (ld_want_map(ld, d, p) < 0)
		return -1;
	bad = ld_check_keys(ld, d, p, directive_keys, ARRAY_SIZE(directive_keys)) ? -1 : 0;
	if (!tn || !ty)
		return ld_error(ld, d, p, "a mapping directive needs a 'target' and a 'type'");
	if (parse_type(ld, ty, &yp, &type) < 0)
		return -1;
	if (check_type_keys(ld, d, p, type, ty->str) < 0)
		return -1;
	if ((l = parse_target(ld, tn, &tp)) < 0)
		return -1;
	if (type == DIR_SKEW) {
		ld_warning(ld, d, p, "skew directives are not supported; this one is ignored");
		return 0;
	}
	if (mark_seen(ld, st, (unsigned)l, type, d, p) < 0)
		return -1;
	if ((type == DIR_TEMPORAL || type == DIR_SPATIAL) && parse_pad(ld, d, p, st->m) < 0)
		bad = -1;
	if (type == DIR_TEMPORAL)
		return parse_temporal(ld, d, p, &st->m->levels[l]) < 0 ? -1 : bad;
	if (type == DIR_SPATIAL)
		return parse_spatial(ld, d, p, (unsigned)l, &st->m->levels[l]) < 0 ? -1 : bad;
	return parse_datatype(ld, d, p, (unsigned)l, st) < 0 ? -1 : bad;
}

/* Defaults: factors 1, identity permutations, all X, everything kept. */
static void mapping_init(struct ld *ld, struct spec_mapping *m)
{
	const struct spec_arch *sa = &ld->s->arch;
	const struct spec_workload *w = &ld->s->workload;
	unsigned l, d;

	m->n_levels = sa->n_levels;   /* the rest is zero: m is the arena's (arena_alloc) */
	m->n_dims = w->n_dims;
	for (l = 0; l < sa->n_levels; l++) {
		struct spec_map_level *ml = &m->levels[l];
		for (d = 0; d < w->n_dims; d++) {
			ml->temporal_factors[d] = ml->temporal_residuals[d] = 1;
			ml->spatial_factors[d] = ml->spatial_residuals[d] = 1;
			ml->temporal_perm[d] = ml->spatial_perm[d] = (uint8_t)d;
		}
		ml->split = w->n_dims;
		ml->has_spatial = sa->levels[l].fanout_x * sa->levels[l].fanout_y > 1;
		ml->keep_mask = w->n_tensors >= 32 ? ~0u : (1u << w->n_tensors) - 1;
	}
}

/*
 * A spatial container of a v0.4 node list becomes a level of its own; the
 * front end gives it the directives a mapping does not: all its temporal
 * factors 1 (the default) and every data space bypassed.
 */
static void complete_containers(struct ld *ld, struct map_state *st)
{
	size_t i;
	for (i = 0; i < ld->n_comps; i++) {
		const struct raw_comp *c = &ld->comps[i];
		if (c->is_dummy && c->level >= 0 && !st->seen[c->level][DIR_DATATYPE])
			st->m->levels[c->level].keep_mask = 0;
	}
}

/* The outermost level keeps everything. */
static void force_outer_keep(struct ld *ld, struct map_state *st)
{
	const struct spec_workload *w = &ld->s->workload;
	unsigned top = st->m->n_levels - 1, t;
	uint32_t all = (1u << w->n_tensors) - 1;

	for (t = 0; t < w->n_tensors; t++)
		if (st->bypass_given[top] & (1u << t))
			ld_warning(ld, st->bypass_node[top], NULL, "the outermost level '%s' always "
				   "keeps '%s'; its bypass is ignored", ld->s->arch.levels[top].name,
				   w->tensors[t].name);
	st->m->levels[top].keep_mask = all;
}

/* The tiling slots of dimension 'd', inner to outer: factor, residual, level, spatial. */
struct dim_slot {
	uint64_t *factor, *residual;
	unsigned level;
	bool spatial;
};

static unsigned dim_slots(struct spec_mapping *m, unsigned d, struct dim_slot *out)
{
	unsigned l, n = 0;

	for (l = 0; l < m->n_levels; l++) {
		struct spec_map_level *ml = &m->levels[l];
		if (ml->has_spatial)
			out[n++] = (struct dim_slot){ &ml->spatial_factors[d], &ml->spatial_residuals[d],
						      l, true };
		out[n++] = (struct dim_slot){ &ml->temporal_factors[d], &ml->temporal_residuals[d],
					      l, false };
	}
	return n;
}

/*
 * Give the loops of dimension 'd' residuals that cover 'bound' (docs/
 * yaml-reference.md, "factors"), inner to outer: the extent R left to cover
 * starts at the bound; a loop of factor f whose residual is to be derived
 * (0) runs ceil(R / f) tiles of f, the last one R - f (ceil(R / f) - 1),
 * unless it is the outermost loop that iterates (then it runs R); a loop
 * with a residual r given leaves (R - r) / f + 1. 'all' derives every
 * residual (the hint for factors that do not multiply to the bound).
 * Returns 0, or -1 when they do not cover it exactly; R is left in '*left'.
 */
static int derive_residuals(struct spec_mapping *m, unsigned d, uint64_t bound, bool all,
			    uint64_t *res_out, uint64_t *left)
{
	struct dim_slot sl[2 * SPEC_MAX_LEVELS];
	unsigned n = dim_slots(m, d, sl), i, outer = 0;
	uint64_t R = bound;

	*left = R;
	for (i = 0; i < n; i++)
		if (*sl[i].factor > 1)
			outer = i;
	for (i = 0; i < n; i++) {
		uint64_t f = *sl[i].factor, r = all ? 0 : *sl[i].residual, q;
		if (f == 0)
			return -1;
		if (r == 0) {
			q = (R + f - 1) / f;
			r = i == outer && q > 1 ? f : R - f * (q - 1);
			R = q;
		} else {
			if (R < r || (R - r) % f)
				return -1;
			R = (R - r) / f + 1;
			*left = R;
		}
		res_out[i] = r;
	}
	*left = R;
	return R == 1 ? 0 : -1;
}

int spec_mapping_fit_dim(struct spec_mapping *m, unsigned d, uint64_t bound)
{
	struct dim_slot sl[2 * SPEC_MAX_LEVELS];
	uint64_t res[2 * SPEC_MAX_LEVELS], left;
	unsigned n = dim_slots(m, d, sl), i;

	if (derive_residuals(m, d, bound, true, res, &left) < 0)
		return -1;
	for (i = 0; i < n; i++)
		*sl[i].residual = res[i];
	return 0;
}

/* The extent that the factors of dimension 'd' give (semantics 1.4 validity). */
static uint64_t dim_extent(const struct spec_mapping *m, unsigned d)
{
	uint64_t v = 0;
	bool first = true;
	int l, k;

	for (l = (int)m->n_levels - 1; l >= 0; l--) {
		const struct spec_map_level *ml = &m->levels[l];
		for (k = 0; k < 2; k++) {
			uint64_t f = k == 0 ? ml->temporal_factors[d] : ml->spatial_factors[d];
			uint64_t r = k == 0 ? ml->temporal_residuals[d] : ml->spatial_residuals[d];
			if (k == 1 && !ml->has_spatial)
				continue;
			if (first) {
				v = r;
				first = false;
			} else if (!ck_mul_u64(v - 1, f, &v) || !ck_add_u64(v, r, &v)) {
				return UINT64_MAX;
			}
		}
	}
	return v;
}

/* Notes at every directive that gives dimension 'd' a factor other than 1. */
static void note_factors(struct ld *ld, const struct spec_mapping *m, unsigned d)
{
	const char *dn = ld->s->workload.dim_names[d];
	unsigned l;
	for (l = 0; l < m->n_levels; l++) {
		const struct spec_map_level *ml = &m->levels[l];
		if (ml->temporal_factors[d] != 1)
			ld_note(ld, ml->temporal_loc, "'%s' has temporal factor %llu at '%s'", dn,
				(unsigned long long)ml->temporal_factors[d],
				ld->s->arch.levels[l].name);
		if (ml->has_spatial && ml->spatial_factors[d] != 1)
			ld_note(ld, ml->spatial_loc, "'%s' has spatial factor %llu at '%s'", dn,
				(unsigned long long)ml->spatial_factors[d],
				ld->s->arch.levels[l].name);
	}
}

/*
 * Where to blame dimension 'd' whose factors do not give its bound: the
 * outermost directive that gives it a factor other than 1, or, when none
 * does, the outermost temporal directive (where a missing factor belongs),
 * or 'fallback'.
 */
static struct diag_loc product_loc(const struct spec_mapping *m, unsigned d,
				   struct diag_loc fallback)
{
	int l;

	for (l = (int)m->n_levels - 1; l >= 0; l--) {
		const struct spec_map_level *ml = &m->levels[l];
		if (ml->temporal_factors[d] != 1 && ml->temporal_loc.file)
			return ml->temporal_loc;
		if (ml->has_spatial && ml->spatial_factors[d] != 1 && ml->spatial_loc.file)
			return ml->spatial_loc;
	}
	for (l = (int)m->n_levels - 1; l >= 0; l--)
		if (m->levels[l].temporal_loc.file)
			return m->levels[l].temporal_loc;
	return fallback;
}

/* Derive the residuals left to the bound ('+' factors) of every dimension. */
static int derive_all(struct ld *ld, struct spec_mapping *m, const struct ysrc_node *at)
{
	const struct spec_workload *w = &ld->s->workload;
	struct kpath p = KP_KEY(NULL, "mapping");
	unsigned d, i, n;
	int rc = 0;

	for (d = 0; d < m->n_dims; d++) {
		struct dim_slot sl[2 * SPEC_MAX_LEVELS];
		uint64_t res[2 * SPEC_MAX_LEVELS], left;
		bool any = false;
		n = dim_slots(m, d, sl);
		for (i = 0; i < n; i++)
			any |= *sl[i].residual == 0;
		if (!any)
			continue;
		if (m->pad_mask & (1u << d)) {
			rc = ld_error_at(ld, product_loc(m, d, at->loc), &p, "padded dimension '%s' "
					 "takes no residual ('+'): every tile is full",
					 w->dim_names[d]);
			for (i = 0; i < n; i++)
				if (*sl[i].residual == 0)
					*sl[i].residual = *sl[i].factor ? *sl[i].factor : 1;
			continue;
		}
		if (derive_residuals(m, d, w->bounds[d], false, res, &left) < 0) {
			rc = ld_error_at(ld, product_loc(m, d, at->loc), &p,
					 "the factors of dimension '%s' do not cover its bound %llu "
					 "with residuals (%llu of its extent left above the outermost "
					 "loop)", w->dim_names[d], (unsigned long long)w->bounds[d],
					 (unsigned long long)left);
			for (i = 0; i < n; i++)
				if (*sl[i].residual == 0)
					*sl[i].residual = *sl[i].factor ? *sl[i].factor : 1;
			continue;
		}
		for (i = 0; i < n; i++)
			*sl[i].residual = res[i];
	}
	return rc;
}

/*
 * Factors that do not give the bound but cover it with residuals (Timeloop
 * issue #300: P2 over P4 for P = 7), every loop's last pass holding some of
 * it (the product minus its outermost tile is below the bound): a note with
 * the residual to write.
 */
static void note_residual_hint(struct ld *ld, struct spec_mapping *m, unsigned d, uint64_t bound)
{
	struct dim_slot sl[2 * SPEC_MAX_LEVELS];
	uint64_t res[2 * SPEC_MAX_LEVELS], left, prod = 1, outer = 1;
	unsigned n = dim_slots(m, d, sl), i;
	const char *dn = ld->s->workload.dim_names[d];

	for (i = 0; i < n; i++) {
		if (*sl[i].residual != *sl[i].factor)
			return;   /* residuals were given: no guess */
		if (!ck_mul_u64(prod, *sl[i].factor, &prod))
			return;
		if (*sl[i].factor > 1)
			outer = *sl[i].factor;
	}
	if (prod <= bound || prod - prod / outer >= bound)
		return;
	if (derive_residuals(m, d, bound, true, res, &left) < 0)
		return;
	for (i = 0; i < n && res[i] == *sl[i].factor; i++)
		;
	if (i == n)
		return;
	ld_note(ld, sl[i].spatial ? m->levels[sl[i].level].spatial_loc
				  : m->levels[sl[i].level].temporal_loc,
		"with a residual they cover %llu: write '%s=%llu,%llu' (Timeloop's form) or "
		"'%s=%llu+' in the %s factors of '%s', or list '%s' under 'pad' to compute "
		"the padding", (unsigned long long)bound, dn, (unsigned long long)*sl[i].factor,
		(unsigned long long)res[i], dn, (unsigned long long)*sl[i].factor,
		sl[i].spatial ? "spatial" : "temporal", ld->s->arch.levels[sl[i].level].name, dn);
}

/*
 * A padded dimension: every tile full, no residual, the factors' product at
 * least the bound, and some of the outermost loop's last tile in it.
 */
static int check_padded(struct ld *ld, struct spec_mapping *m, unsigned d, struct diag_loc loc)
{
	const struct spec_workload *w = &ld->s->workload;
	struct kpath p = KP_KEY(NULL, "mapping");
	struct dim_slot sl[2 * SPEC_MAX_LEVELS];
	unsigned n = dim_slots(m, d, sl), i;
	uint64_t prod = 1, outer = 1;

	for (i = 0; i < n; i++) {
		if (*sl[i].residual != *sl[i].factor)
			return ld_error_at(ld, loc, &p, "padded dimension '%s' takes no residual (%llu,"
					   "%llu): every tile is full", w->dim_names[d],
					   (unsigned long long)*sl[i].factor,
					   (unsigned long long)*sl[i].residual);
		if (!ck_mul_u64(prod, *sl[i].factor, &prod))
			return ld_error_at(ld, loc, &p, "the factors of dimension '%s' overflow",
					   w->dim_names[d]);
		if (*sl[i].factor > 1)
			outer = *sl[i].factor;
	}
	if (prod < w->bounds[d])
		return ld_error_at(ld, loc, &p, "the factors of padded dimension '%s' multiply to "
				   "%llu, below its bound %llu", w->dim_names[d],
				   (unsigned long long)prod, (unsigned long long)w->bounds[d]);
	if (prod - prod / outer >= w->bounds[d])
		return ld_error_at(ld, loc, &p, "the factors of padded dimension '%s' multiply to "
				   "%llu for a bound of %llu: the last iteration of its outermost "
				   "loop would compute padding only", w->dim_names[d],
				   (unsigned long long)prod, (unsigned long long)w->bounds[d]);
	return 0;
}

/* Every dimension's factors must give its bound; notes name the directives. */
static int check_products(struct ld *ld, struct spec_mapping *m, const struct ysrc_node *at)
{
	const struct spec_workload *w = &ld->s->workload;
	struct kpath p = KP_KEY(NULL, "mapping");
	unsigned d;
	int rc = 0;

	for (d = 0; d < w->n_dims; d++) {
		uint64_t e = dim_extent(m, d);
		struct diag_loc loc = product_loc(m, d, at->loc);
		if (m->pad_mask & (1u << d)) {
			if (check_padded(ld, m, d, loc) < 0)
				rc = -1;
			continue;
		}
		if (e == w->bounds[d])
			continue;
		if (e == UINT64_MAX)
			rc = ld_error_at(ld, loc, &p, "the factors of dimension '%s' overflow",
					 w->dim_names[d]);
		else
			rc = ld_error_at(ld, loc, &p, "the factors of dimension '%s' multiply to "
					 "%llu, but its bound is %llu", w->dim_names[d],
					 (unsigned long long)e, (unsigned long long)w->bounds[d]);
		note_factors(ld, m, d);
		note_residual_hint(ld, m, d, w->bounds[d]);
	}
	return rc;
}

/* ------------------------------------------------- mappings read once */

/*
 * What reading the mapping takes from outside its own nodes: the files'
 * values of 'mapping' (nodes of the files: no override or expression of the
 * build made them), and of the architecture and the workload exactly the
 * fields spec_mapping_load() and the lookups it calls read (level names,
 * which levels are spatial and which are a spatial container's, dimension
 * names and bounds, data space names). The mesh sizes and the compute
 * unit's name appear only in errors, and a read that says anything is
 * never kept.
 */
struct ld_map_memo {
	struct ld_map_memo *next;
	size_t n_vals;
	const struct ysrc_node *vals[LD_MAX_FILES_PER_KEY];
	unsigned n_levels, n_dims, n_tensors;
	uint32_t spatial, dummy, container;   /* per level: has_spatial, is_dummy, a dummy comp's */
	const char *level_names[SPEC_MAX_LEVELS];
	const char *dim_names[SPEC_MAX_DIMS];
	uint64_t bounds[SPEC_MAX_DIMS];
	const char *tensor_names[SPEC_MAX_TENSORS];
	const struct spec_mapping *m;         /* in cc_arena, never changed */
};

#define LD_MAX_MAP_MEMO 32

/* The key of this build's read into 'k' (its strings the build's); false: none can be kept. */
static bool map_key(const struct ld *ld, const struct ld_top *top, struct ld_map_memo *k)
{
	const struct spec_source *src = ld->s->source;
	const struct spec_arch *sa = &ld->s->arch;
	const struct spec_workload *w = &ld->s->workload;
	size_t i;

	/* a value a reader computes (ld_uint on an expression) depends on the variables */
	if (!src || ld->n_deferred || top->n > LD_MAX_FILES_PER_KEY ||
	    sa->n_levels > SPEC_MAX_LEVELS || w->n_dims > SPEC_MAX_DIMS ||
	    w->n_tensors > SPEC_MAX_TENSORS)
		return false;
	memset(k, 0, offsetof(struct ld_map_memo, level_names));
	k->n_vals = top->n;
	for (i = 0; i < top->n; i++) {
		if (!ld_files_node(src, top->values[i]))
			return false;
		k->vals[i] = top->values[i];
	}
	k->n_levels = sa->n_levels;
	for (i = 0; i < sa->n_levels; i++) {
		k->level_names[i] = sa->levels[i].name;
		if (sa->levels[i].fanout_x * sa->levels[i].fanout_y > 1)
			k->spatial |= 1u << i;
		if (sa->levels[i].is_dummy)
			k->dummy |= 1u << i;
	}
	for (i = 0; i < ld->n_comps; i++)
		if (ld->comps[i].is_dummy && ld->comps[i].level >= 0)
			k->container |= 1u << ld->comps[i].level;
	k->n_dims = w->n_dims;
	for (i = 0; i < w->n_dims; i++) {
		k->dim_names[i] = w->dim_names[i];
		k->bounds[i] = w->bounds[i];
	}
	k->n_tensors = w->n_tensors;
	for (i = 0; i < w->n_tensors; i++)
		k->tensor_names[i] = w->tensors[i].name;
	return true;
}

static bool same_names(const char *const *a, const char *const *b, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		if (!ld_same_text(a[i], b[i]))
			return false;
	return true;
}

static bool map_key_eq(const struct ld_map_memo *a, const struct ld_map_memo *b)
{
	return a->n_vals == b->n_vals &&
	       !memcmp(a->vals, b->vals, a->n_vals * sizeof(a->vals[0])) &&
	       a->n_levels == b->n_levels && a->n_dims == b->n_dims &&
	       a->n_tensors == b->n_tensors && a->spatial == b->spatial &&
	       a->dummy == b->dummy && a->container == b->container &&
	       !memcmp(a->bounds, b->bounds, a->n_dims * sizeof(a->bounds[0])) &&
	       same_names(a->level_names, b->level_names, a->n_levels) &&
	       same_names(a->dim_names, b->dim_names, a->n_dims) &&
	       same_names(a->tensor_names, b->tensor_names, a->n_tensors);
}

/* The mapping an earlier build of the source read with key 'k', or NULL. Under cc_mu. */
static const struct spec_mapping *map_memo_find(const struct spec_source *src,
						const struct ld_map_memo *k)
{
	const struct ld_map_memo *e;
	for (e = src->map_memo; e; e = e->next)
		if (map_key_eq(e, k))
			return e->m;
	return NULL;
}

static void copy_names(struct arena *a, const char **to, const char *const *from, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		to[i] = arena_strdup(a, from[i]);
}

/* Keep mapping 'm', read with key 'k' and nothing said, for later builds. */
static void map_memo_put(struct spec_source *src, const struct ld_map_memo *k,
			 const struct spec_mapping *m)
{
	struct ld_map_memo *e;

	pthread_mutex_lock(&src->cc_mu);
	if (src->n_map_memo < LD_MAX_MAP_MEMO && !map_memo_find(src, k)) {
		e = arena_memdup(&src->cc_arena, k, sizeof(*k));
		copy_names(&src->cc_arena, e->level_names, k->level_names, k->n_levels);
		copy_names(&src->cc_arena, e->dim_names, k->dim_names, k->n_dims);
		copy_names(&src->cc_arena, e->tensor_names, k->tensor_names, k->n_tensors);
		e->m = arena_memdup(&src->cc_arena, m, sizeof(*m));
		e->next = src->map_memo;
		src->map_memo = e;
		src->n_map_memo++;
	}
	pthread_mutex_unlock(&src->cc_mu);
}

/* Read the mapping of the files' values 'top' into ld->s->mapping. */
static int mapping_read(struct ld *ld, const struct ld_top *top)
{
	struct map_state *st;
	size_t f, i, n_dirs = 0;
	int rc = 0;

	st = xcalloc(1, sizeof(*st));
	st->m = arena_alloc(ld->a, sizeof(*st->m));
	mapping_init(ld, st->m);
	for (f = 0; f < top->n; f++) {
		const struct ysrc_node *list = top->values[f];
		struct kpath p = KP_KEY(NULL, "mapping");
		if (ld_want_seq(ld, list, &p) < 0) {
			rc = -1;
			continue;
		}
		for (i = 0; i < list->n; i++, n_dirs++) {
			struct kpath ip = KP_IDX(&p, n_dirs);
			if (parse_directive(ld, list->items[i], &ip, st) < 0)
				rc = -1;
		}
	}
	complete_containers(ld, st);
	force_outer_keep(ld, st);
	if (rc == 0 && n_dirs > 0 && derive_all(ld, st->m, top->keys[0]) < 0)
		rc = -1;
	if (rc == 0 && n_dirs > 0 && check_products(ld, st->m, top->keys[0]) < 0)
		rc = -1;
	if (rc == 0 && n_dirs > 0) {
		if (spec_mapping_derive(st->m, &ld->s->workload) < 0)
			BUG("mapping passed the factor check but not spec_mapping_derive");
		ld->s->mapping = st->m;
		ld->s->has_mapping = true;
	}
	free(st);
	return rc;
}

/*
 * The 'mapping' key. A sweep's points mostly leave the mapping and what it
 * reads alone (an axis on a buffer's depth or a density changes neither):
 * such a build takes the mapping an earlier build of the source read.
 */
int spec_mapping_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "mapping");
	struct spec_source *src;
	struct ld_map_memo key;
	const struct spec_mapping *m = NULL;
	bool keyed;
	size_t said;
	int rc;

	if (!top || !ld->arch_ok)
		return 0;
	src = (struct spec_source *)ld->s->source;
	keyed = map_key(ld, top, &key);
	if (keyed) {
		pthread_mutex_lock(&src->cc_mu);
		m = map_memo_find(src, &key);
		pthread_mutex_unlock(&src->cc_mu);
	}
	if (m) {
		ld->s->mapping = m;
		ld->s->has_mapping = true;
		return 0;
	}
	said = ld_said(ld);
	rc = mapping_read(ld, top);
	if (keyed && rc == 0 && ld->s->has_mapping && ld_said(ld) == said)
		map_memo_put(src, &key, ld->s->mapping);
	return rc;
}
