/*
 * What dispatches through the registry of design kinds (kinds.c): the
 * lookups, the names of the commands (the kinds' own among them), the
 * loaders handed to specs/, which kinds provide which metric.
 */
#include "job/job.h"

#include <pthread.h>
#include <string.h>

#include "job/job_int.h"
#include "job/kind_int.h"
#include "util/xalloc.h"

size_t job_kind_count(void)
{
	size_t n = 0;
	while (job_kinds[n])
		n++;
	return n;
}

const char *job_kind_name(size_t i)
{
	return i < job_kind_count() ? job_kinds[i]->name : NULL;
}

const struct job_kind *job_kind_find(const char *name)
{
	size_t i;
	for (i = 0; name && job_kinds[i]; i++)
		if (!strcmp(job_kinds[i]->name, name))
			return job_kinds[i];
	return NULL;
}

const struct job_kind *job_kind_of(const struct spec_set *s)
{
	size_t i;
	for (i = 0; job_kinds[i]; i++)
		if (job_kinds[i]->spec == s->kind)
			return job_kinds[i];
	BUG("a design of kind '%s', which the registry does not have",
	    s->kind ? s->kind->name : "?");
}

/* ------------------------------------------- tables made once from the registry */

static const struct spec_kind *spec_kinds[SPEC_MAX_KINDS + 1];
static const char *command_names[JOB_COMMAND_COUNT + SPEC_MAX_KINDS + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
	static const char *const base[] = {
		[JOB_CHECK] = "check", [JOB_MODEL] = "model", [JOB_MAP] = "map",
		[JOB_EXEC] = "exec", [JOB_VALIDATE] = "validate", [JOB_ENERGY] = "energy",
	};
	size_t i, n = 0;

	_Static_assert(ARRAY_SIZE(base) == JOB_COMMAND_COUNT, "a name per command");
	if (job_kind_count() > SPEC_MAX_KINDS)
		BUG("more than %d kinds of design", SPEC_MAX_KINDS);
	for (i = 0; job_kinds[i]; i++)
		spec_kinds[i] = job_kinds[i]->spec;
	for (i = 0; i < JOB_COMMAND_COUNT; i++)
		command_names[n++] = base[i];
	for (i = 0; job_kinds[i]; i++)
		if (job_kinds[i]->command)
			command_names[n++] = job_kinds[i]->command;
}

const struct spec_kind *const *job_spec_kinds(void)
{
	pthread_once(&tables_once, make_tables);
	return spec_kinds;
}

const char *const *job_command_names(void)
{
	pthread_once(&tables_once, make_tables);
	return command_names;
}

const char *job_command_name(enum job_command c)
{
	return (unsigned)c < JOB_COMMAND_COUNT ? job_command_names()[c] : "?";
}

int job_command_parse(const char *name, enum job_command *cmd, const char **kind)
{
	size_t i;

	for (i = 0; i < JOB_COMMAND_COUNT; i++)
		if (!strcmp(job_command_names()[i], name)) {
			*cmd = (enum job_command)i;
			*kind = NULL;
			return 0;
		}
	for (i = 0; job_kinds[i]; i++)
		if (job_kinds[i]->command && !strcmp(job_kinds[i]->command, name)) {
			*cmd = JOB_MODEL;
			*kind = job_kinds[i]->name;
			return 0;
		}
	return -1;
}

const char *job_options_command_name(const struct job_options *o)
{
	const struct job_kind *k = job_kind_find(o->kind);
	return k && k->command ? k->command : job_command_name(o->command);
}

/* ------------------------------------------------------------- metrics */

bool job_kind_provides(const char *kind, enum job_metric_id m)
{
	const struct job_kind *k = job_kind_find(kind);
	const struct job_metric_set *const *set;
	size_t i;

	for (set = k ? k->metrics : NULL; set && *set; set++) {
		if (m == JOB_METRIC_LEVEL_ENERGY_PJ && (*set)->levels)
			return true;
		for (i = 0; i < (*set)->n_gets; i++)
			if ((*set)->gets[i].id == m)
				return true;
	}
	return false;
}

const char *job_summary_kind(const struct job_summary *s)
{
	return s->kind && s->kind <= job_kind_count() ? job_kinds[s->kind - 1]->name : NULL;
}
