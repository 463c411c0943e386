/*
 * Cross-section checks, run once every section loaded without errors:
 * things that are only wrong (or only suspicious) in combination.
 */
#include "specs/specs_int.h"

#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* With an ERT, a real (non-dummy) component without a table gets a warning. */
static void check_ert_coverage(struct ld *ld)
{
	const struct spec_arch *sa = &ld->s->arch;
	unsigned l;

	if (!ld->s->energy.has_ert)
		return;
	for (l = 0; l < sa->n_levels; l++) {
		const struct spec_level *L = &sa->levels[l];
		if (!L->ert && !L->is_dummy && !L->has_vector_access_energy)
			diag_warning(ld->dl, L->loc, "no ERT table for storage level '%s'; its "
				     "energies fall back to the built-in estimates", L->name);
	}
	if (!sa->compute.ert && !sa->compute.has_energy)
		diag_warning(ld->dl, sa->compute.loc, "no ERT table for compute unit '%s'; its "
			     "energy falls back to the built-in estimate", sa->compute.name);
}

/* A format for a tensor the mapping bypasses at that level is never used. */
static void check_unused_formats(struct ld *ld)
{
	const struct spec_sparse *sp = &ld->s->sparse;
	const struct spec_mapping *m = ld->s->mapping;
	unsigned i, k;

	if (!ld->s->has_mapping)
		return;
	for (i = 0; i < sp->n_targets; i++) {
		const struct spec_sparse_target *tg = &sp->targets[i];
		if (tg->is_compute)
			continue;
		for (k = 0; k < tg->n_formats; k++) {
			unsigned t = tg->formats[k].tensor;
			if (m->levels[tg->level].keep_mask & (1u << t))
				continue;
			diag_warning(ld->dl, tg->formats[k].loc, "the format of '%s' at '%s' is unused: "
				     "the mapping bypasses '%s' there",
				     ld->s->workload.tensors[t].name, tg->name,
				     ld->s->workload.tensors[t].name);
		}
	}
}

/*
 * Compute optimizations classify two read-only operands (semantics 4.6), or
 * one (its partner never empty: a reduction or an elementwise stage of a
 * cascade), or more of which at most two may be empty (SDDMM's sampling
 * matrix with its two dense factors): docs/workloads.md.
 */
static int check_sparse_compute(struct ld *ld)
{
	const struct spec_sparse *sp = &ld->s->sparse;
	const struct spec_workload *w = &ld->s->workload;
	unsigned i, n_read_only = 0, n_sparse = 0, t;

	for (t = 0; t < w->n_tensors; t++) {
		const struct spec_density *d = &w->tensors[t].density;
		if (w->tensors[t].read_write)
			continue;
		n_read_only++;
		n_sparse += !(d->kind == SPEC_DENSITY_FIXED_STRUCTURED && d->density >= 1.0);
	}
	for (i = 0; i < sp->n_targets; i++) {
		const struct spec_sparse_target *tg = &sp->targets[i];
		if (!tg->is_compute || !(tg->compute_gating || tg->compute_skipping))
			continue;
		if (n_read_only == 0 || n_sparse > 2)
			return diag_error(ld->dl, tg->loc, "compute optimizations need one or two "
					  "read-only operands that may be empty; the workload has %u "
					  "read-only operands, %u of them sparse", n_read_only, n_sparse);
	}
	return 0;
}

/* The location of attribute 'key' among 'attrs', or 'fallback'. */
static struct diag_loc attr_loc(const struct spec_attr *attrs, size_t n, const char *key,
				struct diag_loc fallback)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (ysrc_key_eq(attrs[i].key, key))
			return attrs[i].loc;
	return fallback;
}

/* A user network name must name a network component. */
static int check_network_name(struct ld *ld, const char *name, const char *what,
			      const char *owner, struct diag_loc loc)
{
	const struct spec_arch *sa = &ld->s->arch;
	const char *names[64];
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!name)
		return 0;
	for (i = 0; i < sa->n_networks; i++)
		if (!strcmp(sa->networks[i].name, name))
			return 0;
	for (i = 0; i < sa->n_networks && i < ARRAY_SIZE(names); i++)
		names[i] = sa->networks[i].name;
	strbuf_addf(&sb, "'%s' of '%s' names no network component: '%s'", what, owner, name);
	ld_add_hint(&sb, name, names, i);
	diag_error(ld->dl, loc, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* network_read/fill/update/drain and network_operand/result name networks. */
static int check_networks(struct ld *ld)
{
	const struct spec_arch *sa = &ld->s->arch;
	static const char *const keys[] = {
		"network_read", "network_fill", "network_update", "network_drain",
	};
	const struct spec_compute *c = &sa->compute;
	unsigned l, k;
	int rc = 0;

	for (l = 0; l < sa->n_levels; l++) {
		const struct spec_level *L = &sa->levels[l];
		const char *names[4] = { L->network_read, L->network_fill, L->network_update,
					 L->network_drain };
		for (k = 0; k < 4; k++)   /* (the attribute's location only for a name given) */
			if (names[k])
				rc |= check_network_name(ld, names[k], keys[k], L->name,
							 attr_loc(L->attrs, L->n_attrs, keys[k],
								  L->loc));
	}
	if (c->network_operand)
		rc |= check_network_name(ld, c->network_operand, "network_operand", c->name,
					 attr_loc(c->attrs, c->n_attrs, "network_operand", c->loc));
	if (c->network_result)
		rc |= check_network_name(ld, c->network_result, "network_result", c->name,
					 attr_loc(c->attrs, c->n_attrs, "network_result", c->loc));
	return rc ? -1 : 0;
}

int spec_check_all(struct ld *ld)
{
	int rc;

	if (!ld->arch_ok)
		return 0;
	rc = check_networks(ld);
	check_ert_coverage(ld);
	if (!ld->problem_ok)
		return rc;
	check_unused_formats(ld);
	return check_sparse_compute(ld) < 0 ? -1 : rc;
}
