/*
 * job_run(): the runner of the command for the design's kind (the registry,
 * job/kinds.c), on a cleared summary; 'check' prints the design with its
 * kind's writers.
 */
#include "job/job.h"

#include <string.h>

#include "job/job_int.h"
#include "job/kind_int.h"
#include "util/xalloc.h"

enum job_status job_run(const struct spec_set *s, const struct job_options *o,
			struct job_summary *sum, struct job_outputs *out)
{
	const struct job_kind *k = job_kind_of(s), *want = job_kind_find(o->kind);
	size_t i;

	memset(sum, 0, sizeof(*sum));
	sum->command = o->command;
	sum->status = JOB_OK;
	for (i = 0; job_kinds[i] != k; i++)
		;
	sum->kind = (unsigned)i + 1;
	if (o->kind && !want)
		BUG("no kind of design named '%s'", o->kind);
	if (want && want != k)
		return job_fail(sum, JOB_BAD_INPUT, "%s", want->missing);
	if ((unsigned)o->command >= JOB_COMMAND_COUNT)
		BUG("unknown job command %d", (int)o->command);
	if (o->command == JOB_CHECK)
		return job_run_check(k, s, o, out);
	if (!k->run[o->command] && k->refuse[o->command])
		return job_fail(sum, JOB_BAD_INPUT, "%s", k->refuse[o->command]);
	if (!k->run[o->command])       /* a command the kind's row does not name */
		return job_fail(sum, JOB_BAD_INPUT, "a '%s' design does not take '%s'", k->name,
				job_command_name(o->command));
	return k->run[o->command](s, o, sum, out);
}
