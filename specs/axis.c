/*
 * SparseTIR's axis kinds in a representation format: a rank written as
 * {axis: dense_fixed | dense_variable | sparse_fixed | sparse_variable}
 * (with 'name', 'parent' for dense_variable and 'n_col' for sparse_fixed)
 * instead of {format: ...}. Each kind becomes a rank format with the
 * metadata it implies (docs/formats-and-densities.md, "Axis kinds"):
 * dense_fixed is U; dense_variable is U and makes its parent's rank hold
 * offsets (UOP); sparse_variable is CP and makes the rank above hold
 * offsets; sparse_fixed is CP with exactly n_col coordinates a fiber.
 */
#include "specs/specs_int.h"

#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const axis_spellings[] = {
	[SPEC_AXIS_NONE] = NULL, [SPEC_AXIS_DENSE_FIXED] = "dense_fixed",
	[SPEC_AXIS_DENSE_VARIABLE] = "dense_variable", [SPEC_AXIS_SPARSE_FIXED] = "sparse_fixed",
	[SPEC_AXIS_SPARSE_VARIABLE] = "sparse_variable",
};

int spec_axis_parse_rank(struct ld *ld, const struct ysrc_node *r, const struct kpath *p,
			 struct spec_rank_format *rf)
{
	const struct ysrc_node *a = ld_get(r, "axis"), *nc = ld_get(r, "n_col");
	const struct ysrc_node *par = ld_get(r, "parent");
	struct kpath ap = KP_KEY(p, "axis"), np = KP_KEY(p, "n_col"), pp = KP_KEY(p, "parent");
	int k;

	rf->parent = -1;
	rf->n_col = 0;
	rf->axis = SPEC_AXIS_NONE;
	if (ld_want_scalar(ld, a, &ap) < 0)
		return -1;
	k = ld_lookup_keyword(ld, a, &ap, "axis kind", a->str, axis_spellings,
			      ARRAY_SIZE(axis_spellings));
	if (k < 0)
		return -1;
	rf->axis = (enum spec_axis_kind)k;
	rf->loc = a->loc;
	rf->kind = rf->axis == SPEC_AXIS_SPARSE_FIXED || rf->axis == SPEC_AXIS_SPARSE_VARIABLE ?
		   FMT_CP : FMT_U;
	if (rf->axis == SPEC_AXIS_SPARSE_FIXED) {
		uint64_t v;
		if (!nc)
			return ld_error(ld, a, &ap, "a sparse_fixed axis needs 'n_col', its "
					"coordinates per fiber (ELL's width)");
		if (ld_uint(ld, nc, &np, 1, UINT32_MAX, &v) < 0)
			return -1;
		rf->n_col = v;
	} else if (nc) {
		return ld_error(ld, nc, &np, "only a sparse_fixed axis takes 'n_col' (this axis "
				"is %s)", spec_axis_kind_name(rf->axis));
	}
	if (rf->axis == SPEC_AXIS_DENSE_VARIABLE && !par)
		return ld_error(ld, a, &ap, "a dense_variable axis needs a 'parent': the name of "
				"the outer axis whose coordinate sets its length");
	if (rf->axis != SPEC_AXIS_DENSE_VARIABLE && par)
		return ld_error(ld, par, &pp, "only a dense_variable axis takes a 'parent' (this "
				"axis is %s)", spec_axis_kind_name(rf->axis));
	return 0;
}

/* The index of the rank named 'want' among ranks[0..n) of 'seq', or -1. */
static int rank_named(const struct ysrc_node *seq, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ysrc_node *nm = ld_get(seq->items[i], "name");
		if (nm && nm->str && !strcmp(nm->str, want))
			return (int)i;
	}
	return -1;
}

/* The names of ranks[0..n) of 'seq' into 'out' (the unnamed skipped); the count. */
static size_t rank_names(const struct ysrc_node *seq, size_t n, const char **out)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		const struct ysrc_node *nm = ld_get(seq->items[i], "name");
		if (nm && nm->str)
			out[c++] = nm->str;
	}
	return c;
}

/* Names are unique among the ranks; a parent names an outer rank. */
static int resolve_parents(struct ld *ld, const struct ysrc_node *ranks, const struct kpath *p,
			   struct spec_tensor_format *tf)
{
	const char *names[SPEC_MAX_FMT_RANKS];
	unsigned i;

	for (i = 0; i < tf->n_ranks; i++) {
		const struct ysrc_node *r = ranks->items[i], *nm = ld_get(r, "name");
		const struct ysrc_node *par = ld_get(r, "parent");
		struct kpath ip = KP_IDX(p, i), nmp = KP_KEY(&ip, "name"), pp = KP_KEY(&ip, "parent");
		int j;

		if (nm && ld_want_scalar(ld, nm, &nmp) < 0)
			return -1;
		if (nm && (j = rank_named(ranks, i, nm->str)) >= 0)
			return ld_error(ld, nm, &nmp, "axis name '%s' is already rank %d's",
					nm->str, j);
		if (!par || tf->ranks[i].axis != SPEC_AXIS_DENSE_VARIABLE)
			continue;
		if (ld_want_scalar(ld, par, &pp) < 0)
			return -1;
		if ((j = rank_named(ranks, i, par->str)) >= 0) {
			tf->ranks[i].parent = j;
			continue;
		}
		if (rank_named(ranks, tf->n_ranks, par->str) >= 0)
			return ld_error(ld, par, &pp, "parent '%s' is not an outer axis: a parent "
					"is listed above the axes whose lengths it sets", par->str);
		{
			struct strbuf sb = STRBUF_INIT;
			int rc;
			ld_add_hint(&sb, par->str, names, rank_names(ranks, i, names));
			rc = ld_error(ld, par, &pp, "no outer axis is named '%s'%s", par->str,
				      sb.len ? sb.buf : "");
			strbuf_release(&sb);
			return rc;
		}
	}
	return 0;
}

int spec_axis_resolve(struct ld *ld, const struct ysrc_node *ranks, const struct kpath *p,
		      struct spec_tensor_format *tf)
{
	unsigned i;

	if (resolve_parents(ld, ranks, p, tf) < 0)
		return -1;
	for (i = 0; i < tf->n_ranks; i++) {
		struct spec_rank_format *rf = &tf->ranks[i];
		int above = -1;
		if (rf->axis == SPEC_AXIS_DENSE_VARIABLE)
			above = rf->parent;
		else if (rf->axis == SPEC_AXIS_SPARSE_VARIABLE && i > 0)
			above = (int)i - 1;
		if (above >= 0 && tf->ranks[above].kind == FMT_U)
			tf->ranks[above].kind = FMT_UOP;
	}
	return 0;
}
