/*
 * Energy and area for the model's commands, and the 'energy' command.
 *
 * By default a design's components that its ERT/ART leave open are
 * estimated as Accelergy would (energy/), once per distinct architecture
 * when the job shares a cache (sweeps, batches, networks). With an energy
 * preset named (--energy accelergy45 ...), the old behaviour: the preset
 * prices those components, and each one gets a warning saying which preset
 * entry stands in for it.
 */
#include "job/job_int.h"

#include "energy/energy.h"
#include "model/model.h"
#include "util/xalloc.h"

/* One warning per component a preset prices, naming the entry that stands in. */
static void preset_warnings(const struct spec_set *s, const char *preset, struct diag_list *dl)
{
	const struct spec_compute *c = &s->arch.compute;
	char what[160];
	int l;

	for (l = (int)s->arch.n_levels - 1; l >= 0; l--) {
		const struct spec_level *L = &s->arch.levels[l];
		if (L->is_dummy || L->ert || L->has_vector_access_energy)
			continue;
		model_energy_preset_describe(preset, s, l, what, sizeof(what));
		diag_warning(dl, L->loc, "'%s' (class %s) is priced by preset %s as %s, not "
			     "estimated from its class (--energy %s)", L->name,
			     L->subclass ? L->subclass : L->class_name, preset, what, preset);
	}
	if (!c->ert && !c->has_energy) {
		model_energy_preset_describe(preset, s, -1, what, sizeof(what));
		diag_warning(dl, c->loc, "'%s' (class %s) is priced by preset %s as %s, not "
			     "estimated from its class (--energy %s)", c->name,
			     c->subclass ? c->subclass : c->class_name, preset, what, preset);
	}
}

enum job_status job_energy_prepare(const struct spec_set *s, const struct job_options *o,
				   struct model_options *mo, struct energy_tables **own,
				   struct job_summary *sum, struct job_outputs *out)
{
	const struct energy_tables *t;

	*own = NULL;
	if (!job_energy_is_estimate(o)) {
		mo->energy_preset = o->energy_preset;
		preset_warnings(s, o->energy_preset, &out->diags);
		return JOB_OK;
	}
	mo->energy_preset = NULL;
	if (!energy_needed(s, NULL))
		return JOB_OK;
	if (o->energy_cache)
		t = energy_cache_get(o->energy_cache, s, NULL, &out->diags);
	else
		t = *own = energy_estimate(s, NULL, &out->diags);
	if (!t) {                      /* the diagnostics say why (a sweep's row shows them) */
		sum->status = JOB_BAD_INPUT;
		return sum->status;
	}
	mo->energy = t;
	return JOB_OK;
}

/* The 'energy' command's printed table: each component's actions and area. */
static void energy_table(const struct energy_tables *t, struct strbuf *sb)
{
	size_t i, k;
	unsigned f;

	strbuf_addstr(sb, "Energy per action (pJ) and area per instance (um^2), estimated as "
			  "Accelergy would:\n");
	for (i = 0; i < t->n_components; i++) {
		const struct energy_component *c = &t->components[i];
		strbuf_addf(sb, "  %s (class %s)\n", c->name, c->class_name);
		for (k = 0; c->has_energy && k < c->n_actions; k++) {
			const struct energy_action *a = &c->actions[k];
			bool first = true;
			strbuf_addf(sb, "    %-24s %14.6f  ", a->name, a->energy_pj);
			for (f = 0; f < ENERGY_FAMILY_COUNT; f++) {
				if (a->family_pj[f] == 0)
					continue;
				strbuf_addf(sb, "%s%s", first ? "" : "+", energy_family_name(f));
				first = false;
			}
			strbuf_addch(sb, '\n');
		}
		if (c->has_area)
			strbuf_addf(sb, "    %-24s %14.2f\n", "area", c->area_um2);
	}
}

enum job_status job_run_energy(const struct spec_set *s, const struct job_options *o,
			       struct job_summary *sum, struct job_outputs *out)
{
	struct energy_options eo = ENERGY_OPTIONS_INIT;
	struct energy_tables *t;

	eo.all = true;
	t = energy_estimate(s, &eo, &out->diags);
	if (!t) {                      /* the diagnostics say why */
		sum->status = JOB_BAD_INPUT;
		return sum->status;
	}
	if (o->want & JOB_WANT_PRINT)
		energy_table(t, &out->print);
	if (o->want & JOB_WANT_FILES) {
		energy_write_ert(t, job_out_file(out, "ERT.yaml"));
		energy_write_ert_summary(t, job_out_file(out, "ERT_summary.yaml"));
		energy_write_art(t, job_out_file(out, "ART.yaml"));
		energy_write_art_summary(t, job_out_file(out, "ART_summary.yaml"));
	}
	energy_tables_free(t);
	return sum->status;
}
