/*
 * Accelergy's output files (energy.h): ERT, ERT_summary, ART, ART_summary,
 * in the layout Accelergy writes and Timeloop reads (and fiberloop reads
 * back). Numbers are rounded to 6 decimals and printed as Python prints them.
 */
#include "energy/energy_int.h"

#include <math.h>
#include <string.h>

#define ERT_VERSION "0.4"

/* 'x' rounded to 6 decimals, as Python's repr prints it. */
static void number(struct strbuf *sb, double x)
{
	struct spec_value v = { SPEC_VALUE_FLOAT, false, 0, 0, NULL };

	v.f = round(x * 1e6) / 1e6;
	if (v.f == 0)
		v.f = 0;            /* no "-0.0" */
	spec_value_format(&v, sb);
}

/* A component's entry of an ERT or its summary: each action's name, 'extra' lines, its energy. */
static void actions(struct strbuf *sb, const struct energy_component *c, const char *extra)
{
	size_t k;

	strbuf_addf(sb, "  - name: %s\n    actions:\n", c->name);
	for (k = 0; k < c->n_actions; k++) {
		strbuf_addf(sb, "    - name: %s\n%s      energy: ", c->actions[k].name, extra);
		number(sb, c->actions[k].energy_pj);
		strbuf_addch(sb, '\n');
	}
}

void energy_write_ert(const struct energy_tables *t, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "ERT:\n  version: '%s'\n  tables:\n", ERT_VERSION);
	for (i = 0; i < t->n_components; i++) {
		const struct energy_component *c = &t->components[i];
		if (!c->has_energy || !c->n_actions)
			continue;
		actions(sb, c, "      arguments: {}\n");
	}
}

/* "  - name: X\n    estimator: Y" lines of a component's primitives. */
static void estimators(struct strbuf *sb, size_t n, const struct energy_primitive *p,
		       const char *key)
{
	size_t i;

	strbuf_addf(sb, "    %s:%s\n", key, n ? "" : " []");
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "    - name: %s\n      estimator: %s\n", p[i].name,
			    energy_family_name(p[i].family));
}

void energy_write_ert_summary(const struct energy_tables *t, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "ERT_summary:\n  version: '%s'\n  table_summary:\n", ERT_VERSION);
	for (i = 0; i < t->n_components; i++) {
		const struct energy_component *c = &t->components[i];
		if (!c->has_energy || !c->n_actions)
			continue;
		actions(sb, c, "");
		estimators(sb, c->n_used, c->used, "primitive_estimation(s)");
	}
}

/* ART.yaml, or ART_summary.yaml with each component's primitives. */
static void write_art(const struct energy_tables *t, struct strbuf *sb, bool summary)
{
	size_t i;

	strbuf_addf(sb, "%s:\n  version: '%s'\n  %s:\n", summary ? "ART_summary" : "ART",
		    ERT_VERSION, summary ? "table_summary" : "tables");
	for (i = 0; i < t->n_components; i++) {
		const struct energy_component *c = &t->components[i];
		if (!c->has_area)
			continue;
		strbuf_addf(sb, "  - name: %s\n    area: ", c->name);
		number(sb, c->area_um2);
		strbuf_addch(sb, '\n');
		if (summary)
			estimators(sb, c->n_prims, c->prims, "primitive_estimations");
	}
}

void energy_write_art(const struct energy_tables *t, struct strbuf *sb)
{
	write_art(t, sb, false);
}

void energy_write_art_summary(const struct energy_tables *t, struct strbuf *sb)
{
	write_art(t, sb, true);
}
