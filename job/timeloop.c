/*
 * The default kind of design, Timeloop/Sparseloop's (architecture,
 * workload, mapping; model/, mapper/, exec/): its row of the registry. The
 * runners are model.c, map.c, exec.c and validate.c; the metrics and the
 * writers of its results are in timeloop_results.c.
 */
#include "job/job_int.h"

#include "job/kind_int.h"
#include "report/report.h"

static const struct job_metric_set *const metric_sets[] = {
	&job_metrics_model, &job_metrics_roofline, &job_metrics_search, &job_metrics_exec, NULL,
};

const struct job_kind job_kind_timeloop = {
	.name = "timeloop",
	.summary = "a Timeloop/Sparseloop design: architecture, workload, mapping",
	.spec = &spec_kind_timeloop,
	.run = {
		[JOB_MODEL] = job_run_model, [JOB_MAP] = job_run_map, [JOB_EXEC] = job_run_exec,
		[JOB_VALIDATE] = job_run_validate, [JOB_ENERGY] = job_run_energy,
	},
	.design_text = report_design_text,
	.design_json = report_design_json,
	.writers = &job_timeloop_writers,
	.metrics = metric_sets,
};
