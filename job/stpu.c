/*
 * Sparse-TPU designs (the 'stpu' key alone; docs/stpu.md) through the
 * commands: 'model' (and 'fiberloop stpu') evaluates the analytical model
 * (accel/), 'exec' runs the cycle-level simulation (exec/) of every scheme
 * on the model's matrix, 'validate' puts the two side by side and fails
 * unless every count is equal and every output right. The summary carries
 * STPU-C1's cycles and energy (the paper's collision-aware design) and,
 * as its "levels", the energy of each scheme.
 */
#include "job/job_int.h"

#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "report/report.h"
#include "util/xalloc.h"

#define N_SCHEMES ACCEL_STPU_N_SCHEMES

/* Per-scheme energies as the summary's levels; STPU-C1's totals as its metrics. */
static void summarize(const struct accel_stpu_result *r, struct job_summary *sum)
{
	const struct accel_stpu_scheme_result *c1 = &r->scheme[ACCEL_STPU_C1];
	struct strbuf sb = STRBUF_INIT;
	unsigned k;

	sum->n_levels = N_SCHEMES;
	for (k = 0; k < N_SCHEMES; k++) {
		const struct accel_stpu_scheme_result *x = &r->scheme[k];
		snprintf(sum->level_names[k], JOB_LEVEL_NAME, "%s",
			 accel_stpu_scheme_name((enum accel_stpu_scheme)k));
		sum->level_energy_pj[k] = x->energy.total_pj;
		if (x->evaluated)
			strbuf_addf(&sb, "%s%s: efficiency %.2f, %llu cycles", sb.len ? " | " : "",
				    sum->level_names[k], x->packing.efficiency,
				    (unsigned long long)x->counts.cycles);
	}
	snprintf(sum->mapping, JOB_MAPPING_TEXT, "%s", sb.buf);
	strbuf_release(&sb);
	if (c1->evaluated) {
		sum->energy_pj = c1->energy.total_pj;
		sum->cycles = c1->counts.cycles;
		sum->edp_j_cycles = c1->energy.total_pj * 1e-12 * (double)c1->counts.cycles;
		sum->algorithmic_computes = r->nnz;
		sum->actual_computes = c1->counts.accumulate;
		sum->pj_per_compute = r->nnz ? c1->energy.total_pj / (double)r->nnz : 0.0;
	}
}

/* Simulate every evaluated scheme on the model's matrix. */
static enum job_status simulate(const struct spec_set *s, const struct job_options *o,
				const struct accel_stpu_result *r, struct exec_stpu_result *sim,
				bool *ran, struct job_summary *sum)
{
	struct arena a = ARENA_INIT;
	char err[256];
	const struct spec_matrix *m = accel_stpu_matrix(s->stpu, &a, err, sizeof(err));
	unsigned k;

	if (!m)
		return job_fail(sum, JOB_BAD_INPUT, "%s", err);
	for (k = 0; k < N_SCHEMES; k++) {
		if (!r->scheme[k].evaluated)
			continue;
		if (exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, o->has_seed ? o->seed : 1,
				  &sim[k], err, sizeof(err)) < 0) {
			arena_release(&a);
			return job_fail(sum, JOB_BAD_INPUT, "%s", err);
		}
		ran[k] = true;
	}
	arena_release(&a);
	return JOB_OK;
}

/* Outputs of 'model': the summary, JSON or CSV; the JSON document as a file. */
static void model_outputs(const struct job_options *o, const struct accel_stpu_result *r,
			  struct job_outputs *out)
{
	if (o->want & JOB_WANT_PRINT) {
		if (o->format == JOB_FORMAT_JSON) {
			report_stpu_json(r, NULL, NULL, o->files, o->n_files, &out->print);
		} else if (o->format == JOB_FORMAT_CSV) {
			report_stpu_csv_header(&out->print);
			report_stpu_csv_row(r, &out->print);
		} else {
			report_stpu_text(r, &out->print);
		}
	}
	if (o->want & JOB_WANT_FILES)
		report_stpu_json(r, NULL, NULL, o->files, o->n_files,
				 job_out_file(out, "fiberloop-stpu.json"));
}

enum job_status job_run_stpu(const struct spec_set *s, const struct job_options *o,
			     struct job_summary *sum, struct job_outputs *out)
{
	struct accel_stpu_options ao = ACCEL_STPU_OPTIONS_INIT;
	struct accel_stpu_result *r;
	struct exec_stpu_result sim[N_SCHEMES];
	bool ran[N_SCHEMES] = { false };
	char err[256];
	unsigned k;

	if (o->command == JOB_MAP)
		return job_fail(sum, JOB_BAD_INPUT, "an STPU design has no mapping to search; "
				"run 'fiberloop stpu' (or model, exec, validate)");
	if (o->command != JOB_MODEL && s->stpu &&
	    exec_stpu_check(s->stpu, s->stpu->matrix_rows, s->stpu->matrix_cols, err,
			    sizeof(err)) < 0)
		return job_fail(sum, JOB_BAD_INPUT, "%s", err);   /* before the model's work */
	memset(sim, 0, sizeof(sim));
	r = xmalloc(sizeof(*r));
	ao.estimate = o->command == JOB_MODEL;
	if (accel_stpu_eval(s, &ao, r, err, sizeof(err)) < 0) {
		job_fail(sum, JOB_BAD_INPUT, "%s", err);
		goto out;
	}
	summarize(r, sum);
	if (o->command == JOB_MODEL) {
		model_outputs(o, r, out);
		goto out;
	}
	if (simulate(s, o, r, sim, ran, sum) != JOB_OK)
		goto out;
	if (o->command == JOB_EXEC) {
		if (o->want & JOB_WANT_PRINT)
			report_stpu_sim_text(sim, ran, &out->print);
		for (k = 0; k < N_SCHEMES; k++)
			if (ran[k] && (sim[k].n_wrong || sim[k].hazard[0]))
				job_fail(sum, JOB_MISMATCH, "%s: the simulated SpMV is not the "
					 "dense product", accel_stpu_scheme_name((enum accel_stpu_scheme)k));
		goto out;
	}
	{
		struct strbuf table = STRBUF_INIT;
		unsigned diffs = report_stpu_validation(r, sim, ran, &table);
		if (o->want & JOB_WANT_PRINT)
			strbuf_addbuf(&out->print, &table);
		if (o->want & JOB_WANT_FILES) {
			strbuf_addbuf(job_out_file(out, "fiberloop-stpu.validation.txt"), &table);
			report_stpu_json(r, sim, ran, o->files, o->n_files,
					 job_out_file(out, "fiberloop-stpu.json"));
		}
		sum->n_fields = 0;
		for (k = 0; k < N_SCHEMES; k++)
			sum->n_fields += ran[k] ? 15 : 0;
		sum->n_outside = diffs;
		if (diffs)
			job_fail(sum, JOB_MISMATCH, "the model and the simulation differ "
				 "(%u differences)", diffs);
		strbuf_release(&table);
	}
out:
	free(r);
	return sum->status;
}
