/*
 * Sparse optimizations: representation formats, storage action
 * optimizations (gating, skipping, spatial skipping) and compute
 * optimizations, from the 'sparse_optimizations' key ('targets', each named
 * by 'name' or 'target') and from node-list components (semantics 1.5).
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const doc_keys[] = { "version", "targets" };
static const char *const target_keys[] = {
	"name", "target", "representation_format", "action_optimization", "compute_optimization",
};
static const char *const body_keys[] = {
	"representation_format", "action_optimization", "compute_optimization",
};
static const char *const repr_keys[] = { "data_spaces", "version" };
static const char *const space_keys[] = {
	"name", "ranks", "rank_application_order", "compression_rate", "format",
	"metadata_word_bits", "n", "m",
};
static const char *const rank_keys[] = {
	"format", "metadata_word_bits", "payload_word_bits", "flattened_rankIDs",
	"axis", "name", "parent", "n_col",
};
static const char *const action_keys[] = { "type", "options", "target", "condition_on" };
static const char *const option_keys[] = { "target", "condition_on" };
static const char *const compute_keys[] = { "type" };

static const char *const fmt_spellings[] = {
	[FMT_U] = "U", [FMT_UOP] = "UOP", [FMT_CP] = "CP",
	[FMT_B] = "B", [FMT_RLE] = "RLE", [FMT_UB] = "UB",
};
static const char *const named_spellings[] = {
	[SPEC_NAMED_NONE] = NULL, [SPEC_NAMED_CSR] = "CSR", [SPEC_NAMED_CSC] = "CSC",
	[SPEC_NAMED_COO] = "COO", [SPEC_NAMED_BITMASK] = "bitmask", [SPEC_NAMED_CSF] = "CSF",
	[SPEC_NAMED_NM] = "N:M", [SPEC_NAMED_RLE] = "RLE",
};
static const char *const saf_spellings[] = {
	"gating", "skipping", "skipping_spatial", "spatial_skipping", "position_skipping",
};
static const enum spec_saf_kind saf_kinds[] = {
	SPEC_SAF_GATING, SPEC_SAF_SKIPPING, SPEC_SAF_SPATIAL_SKIPPING, SPEC_SAF_SPATIAL_SKIPPING,
	SPEC_SAF_POSITION_SKIPPING,
};
static const char *const compute_types[] = {
	"gating", "gate_on_zero_operand", "skipping", "skip_on_not_aligned_operands",
};

struct targetvec {
	struct spec_sparse_target *v;
	size_t n, alloc;
};

/* CP, B and RLE ranks are compressed (semantics 1.5). */
static bool fmt_compressed(enum fmt_kind k)
{
	return k == FMT_CP || k == FMT_B || k == FMT_RLE;
}

/* Case-insensitive lookup of 'n' in 'names'; reports with a hint. */
static int lookup_ci(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     const char *what, const char *const *names, size_t count)
{
	size_t i;
	for (i = 0; i < count; i++)
		if (names[i] && !strcasecmp(names[i], n->str))
			return (int)i;
	return ld_lookup(ld, n, p, what, n->str, names, count);
}

/* Adjust per-rank word bits to the level's metadata storage width. */
static int adjust_bits(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       const struct spec_level *L, int *bits)
{
	unsigned w = L->metadata_storage_width, b;
	if (*bits <= 0 || w == 0)
		return 0;
	if ((unsigned)*bits > w)
		return ld_error(ld, n, p, "%d bits exceed the metadata storage width (%u) of '%s'",
				*bits, w, L->name);
	for (b = (unsigned)*bits; w % b; b++)
		;
	if ((int)b != *bits)
		ld_warning(ld, n, p, "%d bits do not divide the metadata storage width (%u) of "
			   "'%s'; %u bits are used", *bits, w, L->name, b);
	*bits = (int)b;
	return 0;
}

/* metadata_word_bits or payload_word_bits of a rank (-1 when unset). */
static int parse_bits(struct ld *ld, const struct ysrc_node *r, const char *key,
		      const struct kpath *p, const struct spec_level *L, int *bits)
{
	const struct ysrc_node *n = ld_get(r, key);
	struct kpath kp = KP_KEY(p, key);
	uint64_t v;
	*bits = -1;
	if (!n)
		return 0;
	if (ld_uint(ld, n, &kp, 0, 1024, &v) < 0)
		return -1;
	*bits = (int)v;
	return adjust_bits(ld, n, &kp, L, bits);
}

/* flattened_rankIDs: [[M, K], ...] -> dimension masks. */
static int parse_flatten(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct spec_rank_format *rf)
{
	size_t i, j;
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n > SPEC_MAX_TENSOR_RANKS)
		return ld_error(ld, n, p, "too many groups");
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *g = n->items[i];
		struct kpath gp = KP_IDX(p, i);
		uint32_t mask = 0;
		if (ld_want_seq(ld, g, &gp) < 0)
			return -1;
		for (j = 0; j < g->n; j++) {
			struct kpath dp = KP_IDX(&gp, j);
			int d;
			if (ld_want_scalar(ld, g->items[j], &dp) < 0 ||
			    (d = ld_dim_index(ld, g->items[j], &dp, g->items[j]->str)) < 0)
				return -1;
			mask |= 1u << d;
		}
		rf->flatten_groups[rf->n_flatten_groups++] = mask;
	}
	return 0;
}

/* One rank {format, word bits, flattened_rankIDs}. */
static int parse_rank(struct ld *ld, const struct ysrc_node *r, const struct kpath *p,
		      const struct spec_level *L, struct spec_rank_format *rf)
{
	const struct ysrc_node *f = ld_get(r, "format"), *fl = ld_get(r, "flattened_rankIDs");
	struct kpath fp = KP_KEY(p, "format"), flp = KP_KEY(p, "flattened_rankIDs");
	int k, rc = 0;

	if (ld_want_map(ld, r, p) < 0)
		return -1;
	if (ld_check_keys(ld, r, p, rank_keys, ARRAY_SIZE(rank_keys)))
		rc = -1;
	rf->axis = SPEC_AXIS_NONE;
	rf->n_col = 0;
	rf->parent = -1;
	if (f && ld_get(r, "axis"))
		return ld_error(ld, ld_get(r, "axis"), p, "give either a rank 'format' or an "
				"'axis' kind, not both");
	if (ld_get(r, "axis")) {
		if (spec_axis_parse_rank(ld, r, p, rf) < 0)
			return -1;
	} else {
		if (!f)
			return ld_error(ld, r, p, "a rank needs a 'format' (or an 'axis' kind)");
		if (ld_want_scalar(ld, f, &fp) < 0)
			return -1;
		k = lookup_ci(ld, f, &fp, "rank format", fmt_spellings,
			      ARRAY_SIZE(fmt_spellings));
		if (k < 0)
			return -1;
		rf->kind = (enum fmt_kind)k;
		rf->loc = f->loc;
		if (ld_get(r, "n_col") || ld_get(r, "parent")) {
			const char *key = ld_get(r, "n_col") ? "n_col" : "parent";
			struct kpath kp = KP_KEY(p, key);
			return ld_error(ld, ld_get(r, key), &kp, "'%s' belongs to an 'axis' kind, "
					"not to a rank 'format'", key);
		}
	}
	if (parse_bits(ld, r, "metadata_word_bits", p, L, &rf->metadata_word_bits) < 0)
		rc = -1;
	if (parse_bits(ld, r, "payload_word_bits", p, L, &rf->payload_word_bits) < 0)
		rc = -1;
	if (fl && parse_flatten(ld, fl, &flp, rf) < 0)
		rc = -1;
	return rc;
}

/* A compressed rank listed above (outside) an uncompressed one is rejected. */
static int check_rank_order(struct ld *ld, const struct ysrc_node *ranks, const struct kpath *p,
			    const struct spec_tensor_format *tf)
{
	unsigned i, j;
	for (i = 0; i < tf->n_ranks; i++) {
		if (!fmt_compressed(tf->ranks[i].kind))
			continue;
		for (j = i + 1; j < tf->n_ranks; j++) {
			if (fmt_compressed(tf->ranks[j].kind))
				continue;
			return ld_error_at(ld, tf->ranks[i].loc, p, "compressed rank %u (%s) is above "
					   "uncompressed rank %u (%s); compressed ranks must be "
					   "the inner ones", i, spec_fmt_kind_name(tf->ranks[i].kind),
					   j, spec_fmt_kind_name(tf->ranks[j].kind));
		}
	}
	(void)ranks;
	return 0;
}

/* A named format: "CSR", "bitmask", "N:M" (with n, m) or "2:4". */
static int parse_named(struct ld *ld, const struct ysrc_node *s, const struct kpath *p,
		       struct spec_tensor_format *tf)
{
	const struct ysrc_node *f = ld_get(s, "format");
	struct kpath fp = KP_KEY(p, "format"), np = KP_KEY(p, "n"), mp = KP_KEY(p, "m");
	unsigned a, b;
	uint64_t v;
	int k;

	if (ld_want_scalar(ld, f, &fp) < 0)
		return -1;
	tf->loc = f->loc;
	if (sscanf(f->str, "%u:%u", &a, &b) == 2 && b > 0 && a <= b) {
		tf->named = SPEC_NAMED_NM;
		tf->nm_n = a;
		tf->nm_m = b;
		return 0;
	}
	k = lookup_ci(ld, f, &fp, "named format", named_spellings, ARRAY_SIZE(named_spellings));
	if (k < 0)
		return -1;
	tf->named = (enum spec_named_format)k;
	if (tf->named != SPEC_NAMED_NM)
		return 0;
	if (!ld_get(s, "n") || !ld_get(s, "m"))
		return ld_error(ld, f, &fp, "format N:M needs 'n' and 'm' (or write it as '2:4')");
	if (ld_uint(ld, ld_get(s, "n"), &np, 1, 1024, &v) < 0)
		return -1;
	tf->nm_n = (unsigned)v;
	if (ld_uint(ld, ld_get(s, "m"), &mp, tf->nm_n, 1024, &v) < 0)
		return -1;
	tf->nm_m = (unsigned)v;
	return 0;
}

/* rank_application_order: outer_to_inner (default) or inner_to_outer. */
static int parse_order(struct ld *ld, const struct ysrc_node *s, const struct kpath *p,
		       struct spec_tensor_format *tf)
{
	static const char *const orders[] = { "outer_to_inner", "inner_to_outer" };
	const struct ysrc_node *o = ld_get(s, "rank_application_order");
	struct kpath op = KP_KEY(p, "rank_application_order");
	int k;
	if (!o)
		return 0;
	if (ld_want_scalar(ld, o, &op) < 0)
		return -1;
	for (k = 0; k < 2; k++)
		if (ysrc_key_eq(o->str, orders[k]))
			break;
	if (k == 2 && ld_lookup(ld, o, &op, "rank application order", o->str, orders, 2) < 0)
		return -1;
	tf->inner_to_outer = k == 1;
	return 0;
}

/* The format of one data space: ranks, or a named format. */
static int parse_space_format(struct ld *ld, const struct ysrc_node *s, const struct kpath *p,
			      const struct spec_level *L, struct spec_tensor_format *tf)
{
	const struct ysrc_node *name = ld_get(s, "name"), *ranks = ld_get(s, "ranks");
	struct kpath np = KP_KEY(p, "name"), rp = KP_KEY(p, "ranks");
	size_t i;
	int t, rc = 0;

	if (ld_want_map(ld, s, p) < 0)
		return -1;
	if (ld_check_keys(ld, s, p, space_keys, ARRAY_SIZE(space_keys)))
		rc = -1;
	if (!name || ld_want_scalar(ld, name, &np) < 0)
		return name ? -1 : ld_error(ld, s, p, "missing 'name'");
	if ((t = ld_tensor_index(ld, name, &np, name->str)) < 0)
		return -1;
	tf->tensor = (unsigned)t;
	tf->loc = name->loc;
	tf->named_metadata_word_bits = -1;
	if (parse_order(ld, s, p, tf) < 0)
		return -1;
	if (ld_get(s, "format") && ranks)
		return ld_error(ld, s, p, "give either 'ranks' or a named 'format', not both%s",
				ld_from_override(ld, ld_get(s, "format")->loc) &&
				!ld_from_override(ld, ranks->loc) ?
				"; to replace the ranks by a named format, also set 'ranks' to null" :
				"");
	if (ld_get(s, "format")) {
		if (parse_bits(ld, s, "metadata_word_bits", p, L, &tf->named_metadata_word_bits) < 0)
			return -1;
		return parse_named(ld, s, p, tf) < 0 ? -1 : rc;
	}
	if (!ranks)
		return ld_error(ld, s, p, "data space '%s' needs 'ranks' or a named 'format'",
				name->str);
	if (ld_want_seq(ld, ranks, &rp) < 0)
		return -1;
	if (ranks->n > SPEC_MAX_FMT_RANKS)
		return ld_error(ld, ranks, &rp, "at most %d ranks are supported", SPEC_MAX_FMT_RANKS);
	for (i = 0; i < ranks->n; i++) {
		struct kpath ip = KP_IDX(&rp, i);
		if (parse_rank(ld, ranks->items[i], &ip, L, &tf->ranks[i]) < 0)
			rc = -1;
	}
	tf->n_ranks = (unsigned)ranks->n;
	if (rc < 0 || spec_axis_resolve(ld, ranks, &rp, tf) < 0)
		return -1;
	return check_rank_order(ld, ranks, &rp, tf);
}

/* representation_format: {data_spaces: [...]}; not on the compute unit. */
static int parse_repr(struct ld *ld, const struct ysrc_node *r, const struct kpath *p,
		      struct spec_sparse_target *tg)
{
	const struct ysrc_node *ds = ld_get(r, "data_spaces");
	struct kpath dp = KP_KEY(p, "data_spaces");
	struct spec_tensor_format *v;
	size_t i, j;
	int rc = 0;

	if (tg->is_compute)
		return ld_error(ld, r, p, "the compute unit '%s' has no representation format",
				tg->name);
	if (ld_want_map(ld, r, p) < 0)
		return -1;
	if (ld_check_keys(ld, r, p, repr_keys, ARRAY_SIZE(repr_keys)))
		rc = -1;
	if (!ds)
		return rc;
	if (ld_want_seq(ld, ds, &dp) < 0)
		return -1;
	v = arena_calloc(ld->a, ds->n ? ds->n : 1, sizeof(*v));
	for (i = 0; i < ds->n; i++) {
		struct kpath ip = KP_IDX(&dp, i);
		if (parse_space_format(ld, ds->items[i], &ip, &ld->s->arch.levels[tg->level],
				       &v[i]) < 0) {
			rc = -1;
			continue;
		}
		for (j = 0; j < i; j++)
			if (v[j].tensor == v[i].tensor)
				rc = ld_error(ld, ds->items[i], &ip, "a second format for data space "
					      "'%s' at '%s'",
					      ld->s->workload.tensors[v[i].tensor].name, tg->name);
	}
	tg->formats = v;
	tg->n_formats = (unsigned)ds->n;
	return rc;
}

/*
 * One option {target, condition_on}: a follower and its leaders. Position
 * skipping acts on the target's own empty positions: its 'condition_on' may
 * be left out, and must be empty when given.
 */
static int parse_option(struct ld *ld, const struct ysrc_node *o, const struct kpath *p,
			enum spec_saf_kind kind, struct spec_saf_option *opt)
{
	const struct ysrc_node *t = ld_get(o, "target"), *c = ld_get(o, "condition_on");
	struct kpath tp = KP_KEY(p, "target"), cp = KP_KEY(p, "condition_on");
	int k;

	if (kind == SPEC_SAF_POSITION_SKIPPING && t && (!c || ysrc_is_null(c)))
		c = NULL;
	else if (!t || !c)
		return ld_error(ld, o, p, "an action optimization needs a 'target' and "
				"'condition_on'");
	if (ld_want_scalar(ld, t, &tp) < 0 || (k = ld_tensor_index(ld, t, &tp, t->str)) < 0)
		return -1;
	opt->target = (unsigned)k;
	opt->loc = t->loc;
	if (!c)
		return 0;
	if (ld_want_seq(ld, c, &cp) < 0)
		return -1;
	if (ld_tensor_list(ld, c, &cp, &opt->condition_mask, opt->conditions, &opt->n_conditions) < 0)
		return -1;
	if (opt->condition_mask & (1u << k))
		return ld_error(ld, c, &cp, "data space '%s' cannot be conditioned on itself", t->str);
	if (kind == SPEC_SAF_POSITION_SKIPPING && opt->n_conditions)
		return ld_error(ld, c, &cp, "'position_skipping' skips the empty positions of "
				"'%s' itself: 'condition_on' must be empty, got '%s'", t->str,
				ld->s->workload.tensors[opt->conditions[0]].name);
	return 0;
}

/* One action optimization: short form or a group of options. */
static int parse_group(struct ld *ld, const struct ysrc_node *g, const struct kpath *p,
		       struct spec_saf_group *grp)
{
	const struct ysrc_node *ty = ld_get(g, "type"), *opts = ld_get(g, "options");
	struct kpath yp = KP_KEY(p, "type"), op = KP_KEY(p, "options");
	struct spec_saf_option *v;
	size_t i;
	int k, rc = 0;

	if (ld_want_map(ld, g, p) < 0)
		return -1;
	if (ld_check_keys(ld, g, p, action_keys, ARRAY_SIZE(action_keys)))
		rc = -1;
	if (!ty || ld_want_scalar(ld, ty, &yp) < 0)
		return ty ? -1 : ld_error(ld, g, p, "an action optimization needs a 'type'");
	if ((k = ld_lookup_keyword(ld, ty, &yp, "action optimization type", ty->str, saf_spellings,
			   ARRAY_SIZE(saf_spellings))) < 0)
		return -1;
	grp->kind = saf_kinds[k];
	grp->loc = g->loc;
	if (opts && (ld_get(g, "target") || ld_get(g, "condition_on")))
		return ld_error(ld, g, p, "give either 'options' or 'target' + 'condition_on'");
	if (!opts) {
		v = arena_calloc(ld->a, 1, sizeof(*v));
		grp->options = v;
		grp->n_options = 1;
		return parse_option(ld, g, p, grp->kind, v) < 0 ? -1 : rc;
	}
	if (ld_want_seq(ld, opts, &op) < 0)
		return -1;
	if (opts->n == 0)
		return ld_error(ld, opts, &op, "an action optimization needs at least one option");
	v = arena_calloc(ld->a, opts->n, sizeof(*v));
	for (i = 0; i < opts->n; i++) {
		struct kpath ip = KP_IDX(&op, i);
		if (ld_want_map(ld, opts->items[i], &ip) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, opts->items[i], &ip, option_keys, ARRAY_SIZE(option_keys)))
			rc = -1;
		if (parse_option(ld, opts->items[i], &ip, grp->kind, &v[i]) < 0)
			rc = -1;
	}
	grp->options = v;
	grp->n_options = (unsigned)opts->n;
	return rc;
}

/* action_optimization: a list of groups; storage levels only. */
static int parse_actions(struct ld *ld, const struct ysrc_node *a, const struct kpath *p,
			 struct spec_sparse_target *tg)
{
	struct spec_saf_group *v;
	size_t i;
	int rc = 0;

	if (tg->is_compute)
		return ld_error(ld, a, p, "'%s' is the compute unit: use 'compute_optimization'",
				tg->name);
	if (ld_want_seq(ld, a, p) < 0)
		return -1;
	v = arena_calloc(ld->a, a->n ? a->n : 1, sizeof(*v));
	for (i = 0; i < a->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (parse_group(ld, a->items[i], &ip, &v[i]) < 0)
			rc = -1;
	}
	tg->groups = v;
	tg->n_groups = (unsigned)a->n;
	return rc;
}

/* compute_optimization: gating and/or skipping; the compute unit only. */
static int parse_compute_opts(struct ld *ld, const struct ysrc_node *c, const struct kpath *p,
			      struct spec_sparse_target *tg)
{
	size_t i;
	int rc = 0;

	if (!tg->is_compute)
		return ld_error(ld, c, p, "'%s' is a storage level; 'compute_optimization' belongs "
				"to the compute unit '%s'", tg->name, ld->s->arch.compute.name);
	if (ld_want_seq(ld, c, p) < 0)
		return -1;
	for (i = 0; i < c->n; i++) {
		const struct ysrc_node *e = c->items[i], *ty;
		struct kpath ip = KP_IDX(p, i), yp = KP_KEY(&ip, "type");
		int k;
		if (ld_want_map(ld, e, &ip) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, e, &ip, compute_keys, ARRAY_SIZE(compute_keys)))
			rc = -1;
		ty = ld_get(e, "type");
		if (!ty || ld_want_scalar(ld, ty, &yp) < 0 ||
		    (k = ld_lookup_keyword(ld, ty, &yp, "compute optimization type", ty->str,
				   compute_types, ARRAY_SIZE(compute_types))) < 0) {
			rc = ty ? -1 : ld_error(ld, e, &ip, "missing 'type'");
			continue;
		}
		if (k < 2)
			tg->compute_gating = true;
		else
			tg->compute_skipping = true;
	}
	return rc;
}

/* Resolve the target name: a storage level or the compute unit. */
static int resolve_target(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			  struct spec_sparse_target *tg)
{
	const struct spec_arch *sa = &ld->s->arch;
	int l;
	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	tg->name = arena_strdup(ld->a, n->str);
	tg->loc = n->loc;
	if (sa->compute.name && !strcmp(sa->compute.name, n->str)) {
		tg->is_compute = true;
		return 0;
	}
	if ((l = ld_level_index(ld, n, p, n->str)) < 0)
		return -1;
	tg->level = (unsigned)l;
	return 0;
}

/*
 * Parse the optimizations in 'body' (at path 'p') for the component named by
 * 'name' (at path 'np').
 */
static int parse_body(struct ld *ld, const struct ysrc_node *body, const struct ysrc_node *name,
		      const struct kpath *p, const struct kpath *np, struct targetvec *tv)
{
	const struct ysrc_node *r = ld_get(body, "representation_format");
	const struct ysrc_node *a = ld_get(body, "action_optimization");
	const struct ysrc_node *c = ld_get(body, "compute_optimization");
	struct kpath rp = KP_KEY(p, "representation_format"), ap = KP_KEY(p, "action_optimization");
	struct kpath cp = KP_KEY(p, "compute_optimization");
	struct spec_sparse_target tg;
	size_t i;
	int rc = 0;

	memset(&tg, 0, sizeof(tg));
	if (resolve_target(ld, name, np, &tg) < 0)
		return -1;
	if (!r && !a && !c) {
		ld_warning(ld, body, p, "no representation_format, action_optimization or "
			   "compute_optimization for '%s'; nothing to do", tg.name);
		return 0;
	}
	if (r && parse_repr(ld, r, &rp, &tg) < 0)
		rc = -1;
	if (a && parse_actions(ld, a, &ap, &tg) < 0)
		rc = -1;
	if (c && parse_compute_opts(ld, c, &cp, &tg) < 0)
		rc = -1;
	for (i = 0; i < tv->n; i++) {
		if (tv->v[i].is_compute == tg.is_compute &&
		    (tg.is_compute || tv->v[i].level == tg.level)) {
			ld_error(ld, name, np, "sparse optimizations for '%s' are given twice", tg.name);
			ld_note(ld, tv->v[i].loc, "the first ones are here");
			return -1;
		}
	}
	XGROW(tv->v, tv->n + 1, tv->alloc);
	tv->v[tv->n++] = tg;
	return rc;
}

/* One 'targets' entry of the sparse_optimizations document. */
static int parse_target_entry(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
			      struct targetvec *tv)
{
	const struct ysrc_node *name = ld_get(e, "name"), *target = ld_get(e, "target");

	int bad;

	if (ld_want_map(ld, e, p) < 0)
		return -1;
	bad = ld_check_keys(ld, e, p, target_keys, ARRAY_SIZE(target_keys)) ? -1 : 0;
	if (name && target)
		return ld_error(ld, e, p, "give either 'name' or 'target', not both");
	if (!name && !target)
		return ld_error(ld, e, p, "a sparse optimization target needs a 'name'");
	{
		struct kpath np = KP_KEY(p, name ? "name" : "target");
		return parse_body(ld, e, name ? name : target, p, &np, tv) < 0 ? -1 : bad;
	}
}

/* The 'sparse_optimizations' documents of every file. */
static int load_documents(struct ld *ld, const struct ld_top *top, struct targetvec *tv)
{
	size_t f, i;
	int rc = 0;

	for (f = 0; top && f < top->n; f++) {
		const struct ysrc_node *doc = top->values[f], *targets;
		struct kpath p = KP_KEY(NULL, "sparse_optimizations"), tp = KP_KEY(&p, "targets");
		if (ysrc_is_null(doc))
			continue;
		if (ld_want_map(ld, doc, &p) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, doc, &p, doc_keys, ARRAY_SIZE(doc_keys)))
			rc = -1;
		targets = ld_get(doc, "targets");
		if (!targets)
			continue;
		if (ld_want_seq(ld, targets, &tp) < 0) {
			rc = -1;
			continue;
		}
		for (i = 0; i < targets->n; i++) {
			struct kpath ip = KP_IDX(&tp, i);
			if (parse_target_entry(ld, targets->items[i], &ip, tv) < 0)
				rc = -1;
		}
	}
	return rc;
}

/* The per-component sparse_optimizations of a node list. */
static int load_components(struct ld *ld, struct targetvec *tv)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < ld->n_comps; i++) {
		const struct raw_comp *c = &ld->comps[i];
		struct kpath root = KP_KEY(NULL, c->sparse_path);
		struct ysrc_node *name;
		if (!c->sparse)
			continue;
		if (ld_want_map(ld, c->sparse, &root) < 0) {
			rc = -1;
			continue;
		}
		if (ld_check_keys(ld, c->sparse, &root, body_keys, ARRAY_SIZE(body_keys)))
			rc = -1;
		name = ysrc_scalar_new(ld->a, c->name, c->loc);
		if (parse_body(ld, c->sparse, name, &root, &root, tv) < 0)
			rc = -1;
	}
	return rc;
}

int spec_sparse_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "sparse_optimizations");
	struct spec_sparse *sp = &ld->s->sparse;
	struct targetvec tv = { NULL, 0, 0 };
	int rc = 0;

	sp->present = top != NULL || ld->nodes_sparse_present;
	if (!ld->arch_ok)
		return 0;
	if (load_components(ld, &tv) < 0)
		rc = -1;
	if (load_documents(ld, top, &tv) < 0)
		rc = -1;
	sp->n_targets = (unsigned)tv.n;
	sp->targets = tv.n ? arena_memdup(ld->a, tv.v, tv.n * sizeof(*tv.v)) : NULL;
	free(tv.v);
	return rc;
}
