/*
 * The default kind of design, Timeloop's: the section parsers run in
 * dependency order (problem, then compound component classes, architecture,
 * energy tables, mapper settings, sparse optimizations, mapping,
 * constraints, per-call costs) and the cross-section checks.
 */
#include "specs/specs_int.h"

/* The top-level keys that make a Timeloop design (no other kind may sit beside them). */
static const char *const sections[] = {
	"architecture", "problem", "mapping", "sparse_optimizations", "mapper",
	"architecture_constraints", "mapspace_constraints", "mapspace", "per_call", NULL,
};

/*
 * Run the section parsers. A section whose input is broken stops only the
 * sections that depend on it (the mapping needs the architecture and the
 * problem), so that one run reports the errors of every section.
 */
static int load(struct ld *ld)
{
	const struct spec_load_options *opt = ld->opt;
	int rc = 0;

	if (spec_problem_load(ld) < 0)
		rc = -1;
	if (!ld_top_get(ld, "problem") && !(opt && opt->allow_no_problem))
		rc = diag_error(ld->dl, ld_design_loc(ld), "no 'problem' given in any file");
	if (!ld_top_get(ld, "architecture"))
		return diag_error(ld->dl, ld_design_loc(ld), "no 'architecture' given in any file");
	if (spec_components_load(ld) < 0)   /* first: the attributes a class declares */
		rc = -1;
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
		rc = diag_error(ld->dl, m ? m->values[0]->loc : ld_design_loc(ld), m ?
				"the mapping is empty" : "no 'mapping' given in any file");
	}
	if (rc == 0 && spec_check_all(ld) < 0)
		rc = -1;
	return rc;
}

const struct spec_kind spec_kind_timeloop = {
	.name = "timeloop",
	.key = NULL,
	.sections = sections,
	.load = load,
};
