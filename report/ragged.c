/*
 * The summary of a ragged workload (docs/model.md, "Ragged dimensions"):
 * its ragged dimensions and the totals over the parent's coordinates, from
 * the model (exact for listed extents, expected for a distribution) or from
 * the executor (summed over the coordinates it ran).
 */
#include "report/report.h"

#include "exec/exec.h"
#include "model/model.h"
#include "specs/spec.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>

/* "S by B: 4 listed extents in [1, 16]" lines. */
static void ragged_dims(const struct spec_workload *w, struct strbuf *sb)
{
	unsigned r;

	for (r = 0; r < w->n_ragged; r++) {
		const struct spec_ragged *rg = &w->ragged[r];
		strbuf_addf(sb, "Ragged: %s by %s: ", w->dim_names[rg->dim], w->dim_names[rg->parent]);
		if (rg->source == SPEC_RAGGED_LIST)
			strbuf_addf(sb, "%llu listed extents in [%llu, %llu]\n",
				    (unsigned long long)rg->n_lengths, (unsigned long long)rg->min,
				    (unsigned long long)rg->max);
		else
			strbuf_addf(sb, "extents uniform in [%llu, %llu] (expectation)\n",
				    (unsigned long long)rg->min, (unsigned long long)rg->max);
	}
}

/* One row per kept (level, tensor): reads, fills, updates over all instances. */
static void rows(const struct spec_set *s, unsigned n_levels, unsigned n_tensors,
		 const double *reads, const double *fills, const double *updates,
		 struct strbuf *sb)
{
	unsigned l, t;

	strbuf_addf(sb, "%-16s %-8s %14s %14s %14s\n", "level", "tensor", "reads", "fills",
		    "updates");
	for (l = n_levels; l-- > 0;)
		for (t = 0; t < n_tensors; t++) {
			size_t i = (size_t)l * SPEC_MAX_TENSORS + t;
			if (reads[i] == 0 && fills[i] == 0 && updates[i] == 0)
				continue;
			strbuf_addf(sb, "%-16s %-8s %14.2f %14.2f %14.2f\n", s->arch.levels[l].name,
				    s->workload.tensors[t].name, reads[i], fills[i], updates[i]);
		}
}

void report_ragged_model(const struct spec_set *s, const struct model_ragged_result *r,
			 struct strbuf *sb)
{
	ragged_dims(&s->workload, sb);
	strbuf_addf(sb, "Cases (distinct extents evaluated): %zu\n", r->n_cases);
	strbuf_addf(sb, "Computes: %.2f\nCycles: %.2f\nEnergy: %.2f uJ\n", r->computes,
		    r->cycles, r->energy_pj / 1e6);
	rows(s, r->n_levels, r->n_tensors, &r->reads[0][0], &r->fills[0][0], &r->updates[0][0],
	     sb);
}

void report_ragged_exec(const struct spec_set *s, const struct exec_ragged_result *r,
			struct strbuf *sb)
{
	size_t n = (size_t)SPEC_MAX_LEVELS * SPEC_MAX_TENSORS, i;
	double *rd = xcalloc(3 * n, sizeof(*rd)), *fl = rd + n, *up = rd + 2 * n;
	unsigned t;

	for (i = 0; i < n; i++) {
		rd[i] = (double)(&r->reads[0][0])[i];
		fl[i] = (double)(&r->fills[0][0])[i];
		up[i] = (double)(&r->updates[0][0])[i];
	}
	ragged_dims(&s->workload, sb);
	for (t = 0; t < s->workload.n_ragged; t++)
		strbuf_addf(sb, "Extents run (%s): %llu\n",
			    s->workload.dim_names[s->workload.ragged[t].dim],
			    (unsigned long long)r->elements[t]);
	strbuf_addf(sb, "Computes: %llu\n", (unsigned long long)r->computes);
	rows(s, r->n_levels, r->n_tensors, rd, fl, up, sb);
	free(rd);
}
