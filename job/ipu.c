/*
 * 'ipu': plan and cost the PopSparse sparse layer of an 'ipu:' design
 * (accel/), printed as text, JSON or a CSV row; -o DIR receives the JSON
 * document. With --seeds K the executor (exec/) also emulates the device
 * algorithm K times on the model's plan (seeds 1..K) and the two are
 * compared (report_ipu_exec_text, after the summary or on stderr beside
 * JSON and CSV): a disagreement is a mismatch.
 */
#include "job/job_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "job/kind_int.h"
#include "report/report.h"
#include "util/xalloc.h"

static const struct job_kind_writers writers;

/* ---------------------------------------------------------------- metrics */

#define IR struct accel_ipu_result
JOB_GET_COUNT(cycles, IR, ceil(r->total_cycles))
JOB_GET_REAL(speedup, IR, r->speedup)
JOB_GET_REAL(dense_cycles, IR, r->dense_total_cycles)
JOB_GET_REAL(steps, IR, r->passes[SPEC_IPU_FWD].steps.expected)
JOB_GET_REAL(fwd_cycles, IR, r->passes[SPEC_IPU_FWD].total_cycles)
JOB_GET_REAL(fwd_dense_cycles, IR, r->passes[SPEC_IPU_FWD].dense_cycles)
JOB_GET_COUNT(memory, IR, r->memory.total_bytes)
JOB_GET_REAL(seconds, IR, r->seconds)
#undef IR

static const struct job_metric_get ipu_gets[] = {
	{ JOB_METRIC_CYCLES, cycles },
	{ JOB_METRIC_SPEEDUP, speedup },
	{ JOB_METRIC_BASELINE_CYCLES, dense_cycles },
	{ JOB_METRIC_PROPAGATION_STEPS, steps },
	{ JOB_METRIC_FWD_CYCLES, fwd_cycles },
	{ JOB_METRIC_FWD_BASELINE_CYCLES, fwd_dense_cycles },
	{ JOB_METRIC_MEMORY_BYTES, memory },
	{ JOB_METRIC_SECONDS, seconds },
};

/* A plan and its cost (struct accel_ipu_result); no energy: the model has none. */
static const struct job_metric_set ipu_metrics = {
	"struct accel_ipu_result", JOB_MODEL_COMMANDS, false, ipu_gets, ARRAY_SIZE(ipu_gets), NULL,
};

/* The executor's configuration for the model's plan 'r' of 's'. */
static void exec_config(const struct spec_set *s, const struct accel_ipu_result *r, uint64_t seed,
			struct exec_ipu_config *c)
{
	memset(c, 0, sizeof(*c));
	c->px = r->plan.px;
	c->py = r->plan.py;
	c->pz = r->plan.pz;
	c->kernel_block = r->plan.kernel_block;
	c->z_grain = r->plan.gz;
	c->bucket_groups = r->buckets.nz_elems_per_bucket /
			   ((uint64_t)r->plan.kernel_block * r->plan.kernel_block);
	c->bucket_meta_words = r->buckets.meta_words_per_bucket;
	c->workers = s->ipu->device.workers;
	c->seed = seed;
}

/*
 * Run the executor 'n' times and compare; the job's status. The comparison
 * follows the text summary, or goes to the notes (stderr) beside JSON and CSV.
 */
static enum job_status compare(const struct spec_set *s, const struct accel_ipu_result *r,
			       unsigned n, const struct job_options *o, struct job_summary *sum,
			       struct job_outputs *out)
{
	struct exec_ipu_result *er = xcalloc(n, sizeof(*er));
	enum job_status st = JOB_OK;
	struct exec_ipu_config c;
	unsigned i, ran = 0;

	for (i = 0; i < n; i++, ran++) {
		exec_config(s, r, (uint64_t)i + 1, &c);
		if (exec_ipu_run(s, &c, &er[i]) < 0) {
			st = job_fail(sum, JOB_BAD_INPUT, "the executor cannot run this design: %s",
				      er[i].reason);
			ran++;
			break;
		}
	}
	if (st == JOB_OK && report_ipu_exec_text(s, r, er, n, o->format == JOB_FORMAT_TEXT ?
						 &out->print : &out->notes) < 0)
		st = job_fail(sum, JOB_MISMATCH, "the model and the executor disagree");
	for (i = 0; i < ran; i++)
		exec_ipu_result_release(&er[i]);
	free(er);
	return st;
}

static enum job_status run(const struct spec_set *s, const struct job_options *o,
			   struct job_summary *sum, struct job_outputs *out)
{
	struct accel_ipu_options ao = ACCEL_IPU_OPTIONS_INIT;
	struct accel_ipu_result *r;
	enum job_status st = JOB_OK;

	ao.n_samples = o->samples;
	ao.percentile = o->percentile;
	ao.seed = o->seed;
	r = xmalloc(sizeof(*r));
	if (accel_ipu_eval(s, &ao, r, NULL) < 0)
		st = job_fail(sum, JOB_INFEASIBLE, "%s: %s", accel_ipu_status_name(r->status),
			      r->reason);
	if (r->status == ACCEL_IPU_NO_PLAN) {
		free(r);
		return st;
	}
	if (st == JOB_OK)
		job_summary_fill(sum, &ipu_metrics, s, r);
	job_kind_print(&writers, s, r, o, out);
	if (o->want & JOB_WANT_FILES)
		report_ipu_json(s, r, o->files, o->n_files, job_out_file(out, "fiberloop-ipu.json"));
	if (st == JOB_OK && (o->has_seeds || o->command == JOB_EXEC ||
			     o->command == JOB_VALIDATE))
		st = compare(s, r, o->seeds, o, sum, out);
	free(r);
	return st;
}

/* ---------------------------------------------------------------- the row */

static void text(const struct spec_set *s, const void *r, const struct job_options *o,
		 struct strbuf *out)
{
	(void)o;
	report_ipu_text(s, r, out);
}

static void json(const struct spec_set *s, const void *r, const struct job_options *o,
		 struct strbuf *out)
{
	report_ipu_json(s, r, o->files, o->n_files, out);
}

static void csv_header(const struct spec_set *s, struct strbuf *out)
{
	(void)s;
	report_ipu_csv_header(out);
}

static void csv_row(const struct spec_set *s, const void *r, struct strbuf *out)
{
	report_ipu_csv_row(s, r, out);
}

static const struct job_kind_writers writers = { text, json, csv_header, csv_row };

static const struct job_metric_set *const metric_sets[] = { &ipu_metrics, NULL };

const struct job_kind job_kind_ipu = {
	.name = "ipu",
	.summary = "a PopSparse sparse layer on a Graphcore IPU (the 'ipu' key)",
	.spec = &spec_kind_ipu,
	.command = "ipu",
	.missing = "no 'ipu' design in the input files",
	.run = {
		[JOB_MODEL] = run, [JOB_EXEC] = run,
		[JOB_VALIDATE] = run,
	},
	.refuse = {
		[JOB_MAP] = "an 'ipu' design has no mapspace to search: its planner is part of "
			    "the model ('fiberloop ipu')",
		[JOB_ENERGY] = "an 'ipu' design has no Accelergy components to price ('energy' "
			       "takes a Timeloop architecture)",
	},
	.design_text = report_ipu_design_text,
	.design_json = report_ipu_design_json,
	.writers = &writers,
	.metrics = metric_sets,
};
