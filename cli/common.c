/*
 * What every command does around job/: load the design (printing its
 * diagnostics), run the job, and deliver its outputs (stderr for errors,
 * -o DIR for files, stdout for what it prints), with the exit code that
 * matches the job's status.
 */
#include "cli/cli.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/xalloc.h"

int cli_parse_overrides(struct cli_args *a, struct diag_list *dl)
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

	if (cli_parse_overrides(a, &dl) == 0) {
		struct job_design d = {
			.files = a->files, .n_files = a->n_files,
			.tensors = a->tensors, .n_tensors = a->n_tensors,
			.prunes = a->prunes, .n_prunes = a->n_prunes,
			.overrides = a->overrides, .n_overrides = a->n_overrides,
			.vars = a->vars, .n_vars = a->n_vars,
			.command = cmd->job, .kind = cmd->kind,
		};
		s = job_load(&d, &dl);
	}
	if (job_rank() == 0)
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
	bool print_first = cmd->job == JOB_MAP || cmd->job == JOB_VALIDATE || cmd->print_first;
	int rc;

	job_outputs_init(&out);
	if (dir)
		a->job.want |= JOB_WANT_FILES;
	job_run(s, &a->job, &sum, &out);
	if (job_rank() != 0) {         /* rank 0 prints and writes what the ranks found */
		job_outputs_release(&out);
		return exit_code(sum.status);
	}
	diag_print(&out.diags, stderr);
	if (print_first)
		fwrite(out.print.buf, 1, out.print.len, stdout);
	print_failure(cmd, &sum, &out);
	rc = exit_code(sum.status);
	if (rc == CLI_EXIT_OK && dir) {
		if (cli_write_outputs(cmd, dir, &out) < 0)
			rc = CLI_EXIT_BAD_INPUT;
		else if (cmd->job == JOB_MAP)
			fprintf(a->job.format == JOB_FORMAT_TEXT ? stdout : stderr,
				"wrote %s/%s (and .stats.txt, .map.txt, .stats.json)\n", dir,
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

/* ------------------------------------------------------- many jobs at once */

static atomic_int stop_flag;
static struct sigaction old_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	atomic_store(&stop_flag, 1);
}

const atomic_int *cli_stop_begin(void)
{
	struct sigaction sa;

	atomic_store(&stop_flag, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_sigint);
	return &stop_flag;
}

void cli_stop_end(void)
{
	sigaction(SIGINT, &old_sigint, NULL);
}

/* How a progress line is shown: redrawn on a terminal, a line every few seconds in a log. */
struct progress_style {
	const char *what;
	bool tty;
};

static struct progress_style progress_style;

/* Seconds between progress lines in a log: FIBERLOOP_PROGRESS_SECONDS, default 5. */
static double log_progress_interval(void)
{
	const char *e = getenv("FIBERLOOP_PROGRESS_SECONDS");
	char *end;
	double s;

	if (!e || !*e)
		return 5.0;
	s = strtod(e, &end);
	return *end || !(s >= 0.0) || s > 86400.0 ? 5.0 : s;
}

/*
 * "1234/100000 done (12 failed, 56 before), 3456/s, 12.3 s, ETA 25 s" on
 * stderr (the rate as "2.5 s/point" when slower than one a second).
 */
static void on_progress(void *arg, const struct job_run_progress *p)
{
	const struct progress_style *ps = arg;
	const char *what = ps->what;

	fprintf(stderr, "%s%s: %llu/%llu done", ps->tty ? "\r" : "", what,
		(unsigned long long)(p->n_done + p->n_skipped), (unsigned long long)p->n_total);
	if (p->n_failed || p->n_skipped) {
		fprintf(stderr, " (");
		if (p->n_failed)
			fprintf(stderr, "%llu failed%s", (unsigned long long)p->n_failed,
				p->n_skipped ? ", " : "");
		if (p->n_skipped)
			fprintf(stderr, "%llu before", (unsigned long long)p->n_skipped);
		fprintf(stderr, ")");
	}
	if (p->per_s >= 1.0)
		fprintf(stderr, ", %.0f/s", p->per_s);
	else if (p->n_done)
		fprintf(stderr, ", %.1f s/point", p->elapsed_s / (double)p->n_done);
	fprintf(stderr, ", %.1f s", p->elapsed_s);
	if (p->eta_s >= 0)
		fprintf(stderr, ", ETA %.0f s", p->eta_s);
	fprintf(stderr, ps->tty ? "   " : "\n");
	if (!ps->tty)
		fflush(stderr);
}

void cli_runner_init(const struct cli_command *cmd, const struct cli_args *a,
		     const char *default_db, struct job_runner *rn, struct strbuf *definition)
{
	int i;

	memset(rn, 0, sizeof(*rn));
	strbuf_addstr(definition, "fiberloop");
	for (i = 0; i < a->argc; i++)
		strbuf_addf(definition, " %s", a->argv[i]);
	rn->db_path = a->db_path ? a->db_path : default_db;
	rn->resume = a->resume;
	rn->n_workers = a->jobs;
	rn->definition = definition->buf;
	rn->stop = cli_stop_begin();
	if (job_rank() == 0) {
		progress_style.what = cmd->name;
		progress_style.tty = isatty(STDERR_FILENO);
		rn->on_progress = on_progress;
		rn->progress_arg = &progress_style;
		rn->progress_interval_s = progress_style.tty ? 0.25 : log_progress_interval();
	}
}

/* The most frequent reason first; equal counts by status, then by text. */
static int reason_cmp(const void *a, const void *b)
{
	const struct job_reason *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	return strcmp(x->text, y->text);
}

/*
 * Why the jobs that did not succeed failed: each distinct reason with its
 * count, in an order that does not depend on which worker met it first.
 */
static void print_reasons(const struct job_run_result *res)
{
	struct job_reason r[JOB_MAX_REASONS];
	size_t i;

	memcpy(r, res->reasons, res->n_reasons * sizeof(r[0]));
	qsort(r, res->n_reasons, sizeof(r[0]), reason_cmp);
	for (i = 0; i < res->n_reasons; i++)
		fprintf(stderr, "  %llu x %s: %s\n", (unsigned long long)r[i].n,
			job_status_name(r[i].status), r[i].text);
	if (res->n_other_reasons)
		fprintf(stderr, "  %llu x other reasons ('fiberloop results DB --where status!=ok' "
			"lists them)\n", (unsigned long long)res->n_other_reasons);
}

/*
 * The exit status of a run some of whose jobs did not succeed: 1 when one
 * had bad input (or the system failed it), else 3 (infeasible, mismatched);
 * 0 when all succeeded.
 */
static int failed_exit(const struct job_run_result *res)
{
	if (!res->n_failed)
		return CLI_EXIT_OK;
	return res->any_bad_input ? CLI_EXIT_BAD_INPUT : CLI_EXIT_INFEASIBLE;
}

int cli_run_report(const struct cli_command *cmd, const struct job_runner *rn,
		   const struct job_run_result *res, int rc, const char *what)
{
	if (rn->on_progress && progress_style.tty)
		fputc('\n', stderr);
	if (job_rank() != 0)
		return rc < 0 ? CLI_EXIT_BAD_INPUT : res->interrupted ? CLI_EXIT_INTERRUPTED : 0;
	if (rc < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, res->error);
		return CLI_EXIT_BAD_INPUT;
	}
	fprintf(stderr, "%s: %llu %s", cmd->name, (unsigned long long)res->n_total, what);
	if (res->n_skipped)
		fprintf(stderr, ", %llu finished before", (unsigned long long)res->n_skipped);
	fprintf(stderr, "; %llu run in %.2f s (%.0f/s) on %u thread%s x %u rank%s",
		(unsigned long long)res->n_done, res->elapsed_s,
		res->elapsed_s > 0 ? (double)res->n_done / res->elapsed_s : 0.0, res->n_workers,
		res->n_workers == 1 ? "" : "s", res->n_ranks, res->n_ranks == 1 ? "" : "s");
	if (res->n_failed)
		fprintf(stderr, "; %llu did not succeed", (unsigned long long)res->n_failed);
	fprintf(stderr, "\n");
	print_reasons(res);
	if (rn->db_path)
		fprintf(stderr, "results in %s ('fiberloop results %s')\n", rn->db_path, rn->db_path);
	if (res->interrupted) {
		fprintf(stderr, "fiberloop %s: interrupted: %llu of %llu left; run the same command "
			"again to finish\n", cmd->name,
			(unsigned long long)(res->n_total - res->n_skipped - res->n_done),
			(unsigned long long)res->n_total);
		return CLI_EXIT_INTERRUPTED;
	}
	/* a batch's jobs are results whatever they give (a ranking leaves the failed out) */
	return strcmp(cmd->name, "sweep") ? CLI_EXIT_OK : failed_exit(res);
}
