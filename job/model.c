/*
 * 'model': evaluate the design's mapping once. The outputs: the summary,
 * JSON or a CSV header and row to print; Timeloop's stats.txt and map.txt
 * plus the JSON document as files.
 */
#include "job/job_int.h"

#include <stdlib.h>

#include "energy/energy.h"
#include "job/kind_int.h"
#include "model/model.h"
#include "report/report.h"
#include "util/xalloc.h"

/* Fill the outputs of a feasible evaluation 'r'. */
static void model_outputs(const struct spec_set *s, const struct job_options *o,
			  const struct model_result *r, struct job_outputs *out)
{
	struct job_model_view v = { s->mapping, r };

	job_kind_print(&job_timeloop_writers, s, &v, o, out);
	if (o->want & JOB_WANT_FILES) {
		report_stats_txt(s, r, job_out_file(out, "fiberloop-model.stats.txt"));
		report_map_txt(s, s->mapping, r, job_out_file(out, "fiberloop-model.map.txt"));
		job_timeloop_writers.json(s, &v, o,
					       job_out_file(out, "fiberloop-model.stats.json"));
		if (o->roofline)   /* 'gnuplot FILE > roofline.svg' draws it */
			report_roofline_gnuplot(s, r, job_out_file(out, "fiberloop-model.roofline.gp"));
	}
}

struct job_scratch {
	struct model_ws *ws;           /* prepared for the last job's spec set, or NULL */
	struct model_result *result;
};

struct job_scratch *job_scratch_new(void)
{
	return xcalloc(1, sizeof(struct job_scratch));
}

void job_scratch_free(struct job_scratch *sc)
{
	if (!sc)
		return;
	model_ws_free(sc->ws);
	free(sc->result);
	free(sc);
}

/* A ragged workload: the totals over its parent's coordinates (text only, so far). */
static enum job_status run_ragged(const struct spec_set *s, const struct job_options *o,
				  const struct model_options *mo, struct job_summary *sum,
				  struct job_outputs *out)
{
	struct model_ragged_result *r;

	if (o->format != JOB_FORMAT_TEXT || (o->want & JOB_WANT_FILES))
		return job_fail(sum, JOB_BAD_INPUT, "a ragged workload has a text summary only "
				"(no JSON, CSV or output files yet)");
	r = xmalloc(sizeof(*r));
	if (model_eval_ragged(s, s->mapping, mo, r) < 0)
		job_fail(sum, JOB_INFEASIBLE, "infeasible mapping (%s): %s",
			 model_status_name(r->status), r->reason);
	else if (o->want & JOB_WANT_PRINT)
		report_ragged_model(s, r, &out->print);
	free(r);
	return sum->status;
}

enum job_status job_run_model(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out)
{
	struct model_options mo;
	struct energy_tables *own;
	struct model_ws *ws;
	struct model_result *r;
	struct strbuf err = STRBUF_INIT;

	if (!s->has_mapping)
		return job_fail(sum, JOB_BAD_INPUT, "the design has no mapping");
	job_model_options(o, &mo);
	if (job_energy_prepare(s, o, &mo, &own, sum, out) != JOB_OK)
		return sum->status;
	if (s->workload.n_ragged) {
		run_ragged(s, o, &mo, sum, out);
		energy_tables_free(own);
		return sum->status;
	}
	if (o->scratch) {   /* the thread's memory, kept (a failed reuse frees the workspace) */
		ws = o->scratch->ws = model_ws_reuse(o->scratch->ws, s, &mo, &err);
		if (!o->scratch->result)
			o->scratch->result = xmalloc(sizeof(*r));
		r = o->scratch->result;
	} else {
		ws = model_ws_new(s, &mo, &err);
		r = ws ? xmalloc(sizeof(*r)) : NULL;
	}
	if (!ws) {
		energy_tables_free(own);
		return job_fail_with(sum, JOB_BAD_INPUT, &err);
	}
	if (model_eval(ws, s->mapping, r) < 0) {
		job_fail(sum, JOB_INFEASIBLE, "infeasible mapping (%s): %s",
			 model_status_name(r->status), r->reason);
	} else {
		job_summarize_model(s, o, s->mapping, r, sum);
		model_outputs(s, o, r, out);
	}
	if (!o->scratch) {
		free(r);
		model_ws_free(ws);
	}
	energy_tables_free(own);
	return sum->status;
}
