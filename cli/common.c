/*
 * What every command does around job/: load the design (printing its
 * diagnostics), run the job, and deliver its outputs (stderr for errors,
 * -o DIR for files, stdout for what it prints), with the exit code that
 * matches the job's status.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "util/fileio.h"
#include "util/xalloc.h"

/* Parse every --set of 'a' into a->overrides. Returns 0, or -1 with diagnostics in 'dl'. */
static int parse_overrides(struct cli_args *a, struct diag_list *dl)
{
	size_t i;
	int rc = 0;

	a->overrides = xcalloc(a->n_sets ? a->n_sets : 1, sizeof(*a->overrides));
	for (i = 0; i < a->n_sets; i++, a->n_overrides++)
		if (spec_override_parse(a->sets[i], &a->overrides[i], dl) < 0)
			rc = -1;
	return rc;
}

struct spec_set *cli_load(const struct cli_command *cmd, struct cli_args *a)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = NULL;

	if (parse_overrides(a, &dl) == 0) {
		struct job_design d = {
			.files = a->files, .n_files = a->n_files,
			.tensors = a->tensors, .n_tensors = a->n_tensors,
			.prunes = a->prunes, .n_prunes = a->n_prunes,
			.overrides = a->overrides, .n_overrides = a->n_overrides,
			.command = cmd->job,
		};
		s = job_load(&d, &dl);
	}
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

int cli_write_outputs(const struct cli_command *cmd, const char *dir,
		      const struct job_outputs *out)
{
	const struct strbuf *bufs[JOB_MAX_OUT_FILES];
	struct strbuf err = STRBUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < out->n_files; i++)
		bufs[i] = &out->files[i];
	rc = fileio_write_files_atomic(dir, out->file_names, bufs, out->n_files, &err);
	if (rc < 0)
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
	strbuf_release(&err);
	return rc;
}

/* The exit code of a job's status. */
static int exit_code(enum job_status st)
{
	switch (st) {
	case JOB_OK:
		return CLI_EXIT_OK;
	case JOB_INFEASIBLE:
		return CLI_EXIT_INFEASIBLE;
	default:
		return CLI_EXIT_BAD_INPUT;
	}
}

/* The job's diagnostics, its error and its notes, to stderr. */
static void print_failure(const struct cli_command *cmd, const struct job_summary *sum,
			  const struct job_outputs *out)
{
	if (sum->status != JOB_OK && sum->error[0])
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, sum->error);
	fwrite(out->notes.buf, 1, out->notes.len, stderr);
}

int cli_run_job(const struct cli_command *cmd, struct cli_args *a, const struct spec_set *s,
		const char *default_dir)
{
	struct job_outputs out;
	struct job_summary sum;
	const char *dir = a->out_dir ? a->out_dir : default_dir;
	bool print_first = cmd->job == JOB_MAP || cmd->job == JOB_VALIDATE;
	int rc;

	job_outputs_init(&out);
	if (dir)
		a->job.want |= JOB_WANT_FILES;
	job_run(s, &a->job, &sum, &out);
	diag_print(&out.diags, stderr);
	if (print_first)
		fwrite(out.print.buf, 1, out.print.len, stdout);
	print_failure(cmd, &sum, &out);
	rc = exit_code(sum.status);
	if (rc == CLI_EXIT_OK && dir) {
		if (cli_write_outputs(cmd, dir, &out) < 0)
			rc = CLI_EXIT_BAD_INPUT;
		else if (cmd->job == JOB_MAP)
			printf("wrote %s/%s (and .stats.txt, .map.txt, .stats.json)\n", dir,
			       out.file_names[0]);
	}
	if (!print_first && rc == CLI_EXIT_OK)
		fwrite(out.print.buf, 1, out.print.len, stdout);
	job_outputs_release(&out);
	return rc;
}

int cli_run_design(const struct cli_command *cmd, struct cli_args *a)
{
	struct spec_set *s = cli_load(cmd, a);
	int rc;

	if (!s)
		return CLI_EXIT_BAD_INPUT;
	rc = cli_run_job(cmd, a, s, NULL);
	spec_set_free(s);
	return rc;
}
