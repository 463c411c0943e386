/*
 * --cascade FILE on model, map, exec and validate: the stages of a cascade
 * of Einsums run in turn on the design (job/cascade.c, docs/workloads.md).
 */
#include "cli/cli.h"

#include <stdio.h>

int cli_run_cascade(const struct cli_command *cmd, struct cli_args *a)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf out = STRBUF_INIT;
	struct job_cascade_result r;
	size_t k;
	int rc = CLI_EXIT_BAD_INPUT;

	if (a->out_dir || a->log_path || a->n_tensors || a->n_prunes || a->n_layers ||
	    a->job.roofline)
		return cli_usage_error(cmd, "'%s' does not go with --cascade",
				       a->out_dir ? "-o" : a->log_path ? "--log" :
				       a->n_tensors ? "--tensor" : a->n_prunes ? "--prune" :
				       a->n_layers ? "--layers" : "--roofline");
	if (a->job.format != JOB_FORMAT_TEXT)
		return cli_usage_error(cmd, "--cascade prints text only");
	if (cli_parse_overrides(a, &dl) == 0) {
		struct job_design d = {
			.files = a->files, .n_files = a->n_files,
			.overrides = a->overrides, .n_overrides = a->n_overrides,
			.vars = a->vars, .n_vars = a->n_vars,
			.command = cmd->job,
		};
		struct job_cascade c = { &d, a->cascade, &a->job };
		int st = job_cascade_run(&c, &r, &dl);
		diag_print(&dl, stderr);
		job_cascade_print(&r, &a->job, &out);
		fwrite(out.buf, 1, out.len, stdout);
		rc = st < 0 ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
		for (k = 0; k < r.n_run; k++)
			diag_print(&r.outs[k].diags, stderr);
		for (k = 0; st == 0 && k < r.n_stages; k++) {
			const struct job_summary *s = &r.sums[k];
			if (s->status == JOB_OK)
				continue;
			fprintf(stderr, "fiberloop %s: stage '%s': %s\n", cmd->name, r.names[k],
				s->error[0] ? s->error : job_status_name(s->status));
			if (s->status == JOB_INFEASIBLE && rc == CLI_EXIT_OK)
				rc = CLI_EXIT_INFEASIBLE;
			else if (s->status != JOB_INFEASIBLE)
				rc = CLI_EXIT_BAD_INPUT;
		}
		job_cascade_result_release(&r);
	} else {
		diag_print(&dl, stderr);
	}
	diag_list_release(&dl);
	strbuf_release(&out);
	return rc;
}

int cli_run_design_or_cascade(const struct cli_command *cmd, struct cli_args *a)
{
	return a->cascade ? cli_run_cascade(cmd, a) : cli_run_design(cmd, a);
}
