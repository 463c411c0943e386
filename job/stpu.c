/*
 * Sparse-TPU designs (the 'stpu' key alone; docs/stpu.md) through the
 * commands: 'model' (and 'fiberloop stpu') evaluates the analytical model
 * (accel/), 'exec' runs the cycle-level simulation (exec/) of every scheme
 * on the model's matrix, 'validate' puts the two side by side and fails
 * unless every count is equal and every output right. The summary carries
 * the figures of the design's scheme ('packing.scheme', STPU-C1 unless
 * given: the paper's collision-aware design) with the TPU as its baseline,
 * each scheme's energy as its "levels" (energy_pj.STPU-C0, ...), and each
 * scheme's efficiency and cycles as its mapping text.
 */
#include "job/job_int.h"

#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "job/kind_int.h"
#include "report/report.h"
#include "util/xalloc.h"

#define N_SCHEMES ACCEL_STPU_N_SCHEMES

_Static_assert((int)SPEC_STPU_NONE == (int)ACCEL_STPU_TPU && (int)SPEC_STPU_C0 == (int)ACCEL_STPU_C0 &&
	       (int)SPEC_STPU_C1 == (int)ACCEL_STPU_C1 && (int)SPEC_STPU_KMZ == (int)ACCEL_STPU_KMZ &&
	       (int)SPEC_STPU_SCHEME_COUNT == N_SCHEMES, "the design's schemes are accel/'s");

static const struct job_kind_writers writers;

/* ---------------------------------------------------------------- metrics */

/* The result of the design's scheme, or NULL when it was not evaluated. */
static const struct accel_stpu_scheme_result *row_scheme(const struct spec_set *s,
							  const struct accel_stpu_result *r)
{
	const struct accel_stpu_scheme_result *x = &r->scheme[s->stpu->scheme];
	return x->evaluated ? x : NULL;
}

/* The TPU's result, or NULL when it was not evaluated. */
static const struct accel_stpu_scheme_result *tpu(const struct accel_stpu_result *r)
{
	return r->scheme[ACCEL_STPU_TPU].evaluated ? &r->scheme[ACCEL_STPU_TPU] : NULL;
}

/* A getter of the design's scheme's figures: FIELD(fn, type-field, expr of 'x'). */
#define SCHEME_GET(fn, field, expr)                                                          	static bool fn(const struct spec_set *s, const void *r_, struct job_metric_value *v)  	{                                                                                     		const struct accel_stpu_result *r = r_;                                       		const struct accel_stpu_scheme_result *x = row_scheme(s, r);                  		(void)r;                                                                      		if (x)                                                                        			v->field = (expr);                                                    		return x != NULL;                                                             	}

SCHEME_GET(energy, real, x->energy.total_pj)
SCHEME_GET(cycles, count, x->counts.cycles)
SCHEME_GET(edp, real, x->energy.total_pj * 1e-12 * (double)x->counts.cycles)
SCHEME_GET(algorithmic, count, r->nnz)
SCHEME_GET(actual, count, s->stpu->scheme == SPEC_STPU_C0 || s->stpu->scheme == SPEC_STPU_C1 ?
			  x->counts.accumulate : x->counts.mac)
SCHEME_GET(pj_per_compute, real, r->nnz ? x->energy.total_pj / (double)r->nnz : 0.0)
SCHEME_GET(efficiency, real, x->packing.efficiency)
#undef SCHEME_GET

static bool estimate(const struct spec_set *s, const void *result, struct job_metric_value *v)
{
	const struct accel_stpu_result *r = result;
	(void)s;
	v->real = r->estimate.efficiency;
	return r->estimate.valid;
}

static bool scheme(const struct spec_set *s, const void *r, struct job_metric_value *v)
{
	(void)r;
	v->text = spec_stpu_scheme_name(s->stpu->scheme);
	return true;
}

/* The TPU's figures, and the design's scheme's against them. */
static bool baseline_cycles(const struct spec_set *s, const void *r, struct job_metric_value *v)
{
	const struct accel_stpu_scheme_result *t = tpu(r);
	(void)s;
	if (t)
		v->real = (double)t->counts.cycles;
	return t != NULL;
}

static bool baseline_energy(const struct spec_set *s, const void *r, struct job_metric_value *v)
{
	const struct accel_stpu_scheme_result *t = tpu(r);
	(void)s;
	if (t)
		v->real = t->energy.total_pj;
	return t != NULL;
}

static bool speedup(const struct spec_set *s, const void *r, struct job_metric_value *v)
{
	const struct accel_stpu_scheme_result *x = row_scheme(s, r);
	if (x && tpu(r))
		v->real = x->speedup_vs_tpu;
	return x && tpu(r);
}

static bool energy_ratio(const struct spec_set *s, const void *r, struct job_metric_value *v)
{
	const struct accel_stpu_scheme_result *x = row_scheme(s, r);
	if (x && tpu(r))
		v->real = x->energy_ratio_vs_tpu;
	return x && tpu(r);
}

/* Each evaluated scheme's energy, as a level named after it. */
static void scheme_levels(const struct spec_set *s, const void *result, struct job_summary *sum)
{
	const struct accel_stpu_result *r = result;
	unsigned k;

	(void)s;
	for (k = 0; k < N_SCHEMES; k++)
		if (r->scheme[k].evaluated)
			job_summary_add_level(sum, accel_stpu_scheme_name((enum accel_stpu_scheme)k),
					      r->scheme[k].energy.total_pj);
}

static const struct job_metric_get stpu_gets[] = {
	{ JOB_METRIC_ENERGY_PJ, energy },
	{ JOB_METRIC_CYCLES, cycles },
	{ JOB_METRIC_EDP_J_CYCLES, edp },
	{ JOB_METRIC_ALGORITHMIC_COMPUTES, algorithmic },
	{ JOB_METRIC_ACTUAL_COMPUTES, actual },
	{ JOB_METRIC_PJ_PER_COMPUTE, pj_per_compute },
	{ JOB_METRIC_SCHEME, scheme },
	{ JOB_METRIC_PACKING_EFFICIENCY, efficiency },
	{ JOB_METRIC_ESTIMATED_PACKING_EFFICIENCY, estimate },
	{ JOB_METRIC_BASELINE_CYCLES, baseline_cycles },
	{ JOB_METRIC_BASELINE_ENERGY_PJ, baseline_energy },
	{ JOB_METRIC_SPEEDUP, speedup },
	{ JOB_METRIC_ENERGY_RATIO, energy_ratio },
};

/* The model's evaluation of every scheme (struct accel_stpu_result). */
static const struct job_metric_set stpu_metrics = {
	"struct accel_stpu_result", JOB_MODEL_COMMANDS, false, stpu_gets, ARRAY_SIZE(stpu_gets),
	scheme_levels,
};

/* The metrics, and each scheme's efficiency and cycles as the mapping text. */
static void summarize(const struct spec_set *s, const struct accel_stpu_result *r,
		      struct job_summary *sum)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned k;

	job_summary_fill(sum, &stpu_metrics, s, r);
	for (k = 0; k < N_SCHEMES; k++) {
		const struct accel_stpu_scheme_result *x = &r->scheme[k];
		if (x->evaluated)
			strbuf_addf(&sb, "%s%s: efficiency %.2f, %llu cycles", sb.len ? " | " : "",
				    accel_stpu_scheme_name((enum accel_stpu_scheme)k),
				    x->packing.efficiency, (unsigned long long)x->counts.cycles);
	}
	snprintf(sum->mapping, JOB_MAPPING_TEXT, "%s", sb.buf);
	strbuf_release(&sb);
}

/* Simulate every evaluated scheme on the model's matrix. */
static enum job_status simulate(const struct spec_set *s, const struct job_options *o,
				const struct accel_stpu_result *r, struct exec_stpu_result *sim,
				bool *ran, struct job_summary *sum)
{
	struct arena a = ARENA_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct spec_matrix *m = accel_stpu_matrix(s->stpu, &a, &err);
	unsigned k;

	if (!m)
		return job_fail_with(sum, JOB_BAD_INPUT, &err);
	for (k = 0; k < N_SCHEMES; k++) {
		if (!r->scheme[k].evaluated)
			continue;
		if (exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, o->has_seed ? o->seed : 1,
				  &sim[k], &err) < 0) {
			arena_release(&a);
			return job_fail_with(sum, JOB_BAD_INPUT, &err);
		}
		ran[k] = true;
	}
	arena_release(&a);
	return JOB_OK;
}

/* Outputs of 'model': the summary, JSON or CSV; the JSON document as a file. */
static void model_outputs(const struct spec_set *s, const struct job_options *o,
			  const struct accel_stpu_result *r, struct job_outputs *out)
{
	job_kind_print(&writers, s, r, o, out);
	if (o->want & JOB_WANT_FILES)
		report_stpu_json(r, NULL, NULL, o->files, o->n_files,
				 job_out_file(out, "fiberloop-stpu.json"));
}

static enum job_status run(const struct spec_set *s, const struct job_options *o,
			   struct job_summary *sum, struct job_outputs *out)
{
	struct accel_stpu_options ao = ACCEL_STPU_OPTIONS_INIT;
	struct accel_stpu_result *r;
	struct exec_stpu_result sim[N_SCHEMES];
	bool ran[N_SCHEMES] = { false };
	struct strbuf err = STRBUF_INIT;
	unsigned k;

	if (o->command != JOB_MODEL && s->stpu &&
	    exec_stpu_check(s->stpu, s->stpu->matrix_rows, s->stpu->matrix_cols, &err) < 0)
		return job_fail_with(sum, JOB_BAD_INPUT, &err);   /* before the model's work */
	memset(sim, 0, sizeof(sim));
	r = xmalloc(sizeof(*r));
	ao.estimate = o->command == JOB_MODEL;
	if (accel_stpu_eval(s, &ao, r, &err) < 0) {
		job_fail_with(sum, JOB_BAD_INPUT, &err);
		goto out;
	}
	summarize(s, r, sum);
	if (o->command == JOB_MODEL) {
		model_outputs(s, o, r, out);
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

/* ---------------------------------------------------------------- the row */

static void text(const struct spec_set *s, const void *r, const struct job_options *o,
		 struct strbuf *out)
{
	(void)s;
	(void)o;
	report_stpu_text(r, out);
}

static void json(const struct spec_set *s, const void *r, const struct job_options *o,
		 struct strbuf *out)
{
	(void)s;
	report_stpu_json(r, NULL, NULL, o->files, o->n_files, out);
}

static void csv_header(const struct spec_set *s, struct strbuf *out)
{
	(void)s;
	report_stpu_csv_header(out);
}

static void csv_row(const struct spec_set *s, const void *r, struct strbuf *out)
{
	(void)s;
	report_stpu_csv_row(r, out);
}

static const struct job_kind_writers writers = { text, json, csv_header, csv_row };

static const struct job_metric_set *const metric_sets[] = { &stpu_metrics, NULL };

const struct job_kind job_kind_stpu = {
	.name = "stpu",
	.summary = "a Sparse-TPU design: column packing and systolic SpMV (the 'stpu' key)",
	.spec = &spec_kind_stpu,
	.command = "stpu",
	.missing = "the input files hold no 'stpu' design alone",
	.run = {
		[JOB_MODEL] = run, [JOB_EXEC] = run,
		[JOB_VALIDATE] = run,
	},
	.refuse = {
		[JOB_MAP] = "an STPU design has no mapping to search; run 'fiberloop stpu' (or "
			    "model, exec, validate)",
		[JOB_ENERGY] = "an STPU design prices its energy with its own model (docs/stpu.md); "
			       "'energy' takes a Timeloop architecture",
	},
	.design_text = report_stpu_design_text,
	.design_json = report_stpu_design_json,
	.writers = &writers,
	.metrics = metric_sets,
};
