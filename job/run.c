/*
 * job_run(): the command's runner, on a cleared summary.
 */
#include "job/job.h"

#include <string.h>

#include "job/job_int.h"
#include "util/xalloc.h"

enum job_status job_run(const struct spec_set *s, const struct job_options *o,
			struct job_summary *sum, struct job_outputs *out)
{
	memset(sum, 0, sizeof(*sum));
	sum->command = o->command;
	sum->status = JOB_OK;
	if (s->kind == SPEC_DESIGN_STPU && o->command != JOB_CHECK)
		return job_run_stpu(s, o, sum, out);
	if (s->kind == SPEC_DESIGN_IPU && o->command != JOB_CHECK) {
		if (o->command == JOB_MAP)
			return job_fail(sum, JOB_BAD_INPUT, "an 'ipu' design has no mapspace to "
					"search: its planner is part of the model ('fiberloop ipu')");
		return job_run_ipu(s, o, sum, out);
	}
	switch (o->command) {
	case JOB_CHECK:
		return job_run_check(s, o, sum, out);
	case JOB_MODEL:
		return job_run_model(s, o, sum, out);
	case JOB_MAP:
		return job_run_map(s, o, sum, out);
	case JOB_EXEC:
		return job_run_exec(s, o, sum, out);
	case JOB_VALIDATE:
		return job_run_validate(s, o, sum, out);
	case JOB_IPU:
		return job_run_ipu(s, o, sum, out);
	case JOB_ENERGY:
		return job_run_energy(s, o, sum, out);
	default:
		BUG("unknown job command %d", (int)o->command);
	}
}
