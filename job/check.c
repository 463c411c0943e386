/*
 * 'check': the design as fiberloop understood it, as text or JSON.
 */
#include "job/job_int.h"

#include "report/report.h"

enum job_status job_run_check(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out)
{
	(void)sum;
	if (!(o->want & JOB_WANT_PRINT))
		return JOB_OK;
	if (o->format == JOB_FORMAT_JSON)
		report_design_json(s, &out->print);
	else
		report_design_text(s, &out->print);
	return JOB_OK;
}
