/*
 * 'model': evaluate the design's mapping once. The outputs: the summary,
 * JSON or a CSV header and row to print; Timeloop's stats.txt and map.txt
 * plus the JSON document as files.
 */
#include "job/job_int.h"

#include <stdlib.h>

#include "model/model.h"
#include "report/report.h"
#include "util/xalloc.h"

/* Fill the outputs of a feasible evaluation 'r'. */
static void model_outputs(const struct spec_set *s, const struct job_options *o,
			  const struct model_result *r, struct job_outputs *out)
{
	struct strbuf json = STRBUF_INIT;

	if (((o->want & JOB_WANT_FILES) || o->format == JOB_FORMAT_JSON) && o->roofline)
		report_json_roofline(s, s->mapping, r, o->files, o->n_files, &json);
	else if ((o->want & JOB_WANT_FILES) || o->format == JOB_FORMAT_JSON)
		report_json(s, s->mapping, r, o->files, o->n_files, &json);
	if (o->want & JOB_WANT_PRINT) {
		if (o->format == JOB_FORMAT_JSON) {
			strbuf_addbuf(&out->print, &json);
		} else if (o->format == JOB_FORMAT_CSV) {
			report_csv_header(s, &out->print);
			report_csv_row(s, r, &out->print);
		} else {
			report_summary(s, r, &out->print);
			if (o->roofline)
				report_roofline(s, r, &out->print);
			report_per_call(s, r, &out->print);
		}
	}
	if (o->want & JOB_WANT_FILES) {
		report_stats_txt(s, r, job_out_file(out, "fiberloop-model.stats.txt"));
		report_map_txt(s, s->mapping, r, job_out_file(out, "fiberloop-model.map.txt"));
		strbuf_addbuf(job_out_file(out, "fiberloop-model.stats.json"), &json);
	}
	strbuf_release(&json);
}

enum job_status job_run_model(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out)
{
	struct model_options mo;
	struct model_ws *ws;
	struct model_result *r;
	char err[256];

	if (!s->has_mapping)
		return job_fail(sum, JOB_BAD_INPUT, "the design has no mapping");
	job_model_options(o, &mo);
	ws = model_ws_new(s, &mo, err, sizeof(err));
	if (!ws)
		return job_fail(sum, JOB_BAD_INPUT, "%s", err);
	r = xmalloc(sizeof(*r));
	if (model_eval(ws, s->mapping, r) < 0) {
		job_fail(sum, JOB_INFEASIBLE, "infeasible mapping (%s): %s",
			 model_status_name(r->status), r->reason);
	} else {
		job_summarize_model(s, s->mapping, r, sum);
		model_outputs(s, o, r, out);
	}
	free(r);
	model_ws_free(ws);
	return sum->status;
}
