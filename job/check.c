/*
 * 'check': the design as fiberloop understood it, as text or JSON (the
 * writers of its kind).
 */
#include "job/job_int.h"

#include "job/kind_int.h"
#include "report/report.h"

enum job_status job_run_check(const struct job_kind *k, const struct spec_set *s,
			      const struct job_options *o, struct job_outputs *out)
{
	if (!(o->want & JOB_WANT_PRINT))
		return JOB_OK;
	if (o->format == JOB_FORMAT_JSON) {
		k->design_json(s, &out->print);
	} else {
		report_design_files(s, &out->print);
		k->design_text(s, &out->print);
	}
	return JOB_OK;
}
