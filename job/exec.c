/*
 * 'exec': run the design's mapping on real tensors with the reference
 * executor. Prints its summary (or JSON); the files are the counts in
 * Timeloop's stats.txt layout and the JSON document.
 */
#include "job/job_int.h"
#include "job/kind_int.h"

#include "exec/exec.h"
#include "report/report.h"
#include "util/xalloc.h"

#include <stdlib.h>

enum job_status job_run_exec(const struct spec_set *s, const struct job_options *o,
			     struct job_summary *sum, struct job_outputs *out)
{
	struct exec_options eo;
	struct exec_result r;

	job_exec_options(o, &eo);
	eo.all_partitions = true;       /* the report prints every partition */
	if (s->workload.n_ragged) {
		struct exec_ragged_result *rr;
		if (o->format != JOB_FORMAT_TEXT || (o->want & JOB_WANT_FILES))
			return job_fail(sum, JOB_BAD_INPUT, "a ragged workload has a text summary "
					"only (no JSON or output files yet)");
		rr = xmalloc(sizeof(*rr));
		if (exec_run_ragged(s, &eo, rr) < 0)
			job_fail(sum, JOB_BAD_INPUT, "cannot execute this design: %s", rr->reason);
		else if (o->want & JOB_WANT_PRINT)
			report_ragged_exec(s, rr, &out->print);
		free(rr);
		return sum->status;
	}
	if (exec_run(s, &eo, &r) < 0) {
		job_fail(sum, JOB_BAD_INPUT, "cannot execute this design: %s", r.reason);
	} else if (r.numeric_checked && !r.numeric_ok) {
		job_fail(sum, JOB_MISMATCH, "BUG: the executed Einsum differs from the dense "
			 "evaluation (max abs error %.9g)", r.numeric_max_abs_err);
	} else {
		job_summary_fill(sum, &job_metrics_exec, s, &r);
		if (o->want & JOB_WANT_PRINT) {
			if (o->format == JOB_FORMAT_JSON)
				report_exec_json(s, &r, &eo, &out->print);
			else
				report_exec_summary(s, &r, &eo, &out->print);
		}
		if (o->want & JOB_WANT_FILES) {
			report_exec_stats(s, &r, job_out_file(out, "fiberloop-exec.stats.txt"));
			report_exec_json(s, &r, &eo, job_out_file(out, "fiberloop-exec.stats.json"));
		}
	}
	exec_result_release(&r);
	return sum->status;
}
