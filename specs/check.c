/*
 * Cross-section checks, run once every section loaded without errors:
 * things that are only wrong (or only suspicious) in combination.
 */
#include "specs/specs_int.h"

#include <string.h>

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

/* Compute optimizations classify exactly two read-only operands (semantics 4.6). */
static int check_sparse_compute(struct ld *ld)
{
	const struct spec_sparse *sp = &ld->s->sparse;
	const struct spec_workload *w = &ld->s->workload;
	unsigned i, n_read_only = 0, t;

	for (t = 0; t < w->n_tensors; t++)
		n_read_only += !w->tensors[t].read_write;
	for (i = 0; i < sp->n_targets; i++) {
		const struct spec_sparse_target *tg = &sp->targets[i];
		if (!tg->is_compute || !(tg->compute_gating || tg->compute_skipping))
			continue;
		if (n_read_only != 2)
			return diag_error(ld->dl, tg->loc, "compute optimizations need exactly two "
					  "read-only operands; the workload has %u", n_read_only);
	}
	return 0;
}

int spec_check_all(struct ld *ld)
{
	if (!ld->arch_ok)
		return 0;
	check_ert_coverage(ld);
	if (!ld->problem_ok)
		return 0;
	check_unused_formats(ld);
	return check_sparse_compute(ld);
}
