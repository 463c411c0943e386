/*
 * 'fiberloop sweep FILE... --axis PATH=VALUES...': run a command over the
 * cartesian product (or, with --zip, the zipped lists) of override values,
 * on every core (and every MPI rank), one row per point in the results
 * database as each finishes; rows stream to stdout as CSV or JSON lines
 * with --format. A rerun skips the points the database holds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DEFAULT_DB "fiberloop.db"

/* Rows to stdout as they come; the CSV header before the first one. */
struct stream {
	enum job_format format;
	bool header_done;
	struct strbuf sb;
};

static void on_row(void *arg, const struct job_row *r)
{
	struct stream *st = arg;

	strbuf_reset(&st->sb);
	if (st->format == JOB_FORMAT_CSV) {
		if (!st->header_done)
			job_row_csv_header(r, &st->sb);
		st->header_done = true;
		job_row_csv(r, &st->sb);
	} else {
		job_row_jsonl(r, &st->sb);
	}
	fwrite(st->sb.buf, 1, st->sb.len, stdout);
	fflush(stdout);
}

/* Parse the --axis options into axes[]; diagnostics printed. Returns 0 or -1. */
static int parse_axes(struct cli_args *a, struct job_axis *axes)
{
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < a->n_axes; i++)
		if (job_axis_parse(a->axes[i], &axes[i], &dl) < 0)
			rc = -1;
	if (job_rank() == 0)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return rc;
}

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	struct job_axis *axes = xcalloc(a->n_axes + 1, sizeof(*axes));
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf definition = STRBUF_INIT;
	struct stream st = { a->job.format, false, STRBUF_INIT };
	struct job_run_result res;
	struct job_runner rn;
	struct job_options opts;
	size_t i;
	int rc = CLI_EXIT_BAD_INPUT;

	if (!a->n_axes) {
		free(axes);
		return cli_usage_error(cmd, "no --axis: nothing to sweep");
	}
	opts = a->job;
	if (job_command_parse(a->command ? a->command : "model", &opts.command, &opts.kind) < 0)
		BUG("--command '%s' is no command", a->command);
	if (cli_parse_overrides(a, &dl) == 0 && parse_axes(a, axes) == 0) {
		struct job_design d = {
			.files = a->files, .n_files = a->n_files,
			.tensors = a->tensors, .n_tensors = a->n_tensors,
			.prunes = a->prunes, .n_prunes = a->n_prunes,
			.overrides = a->overrides, .n_overrides = a->n_overrides,
			.vars = a->vars, .n_vars = a->n_vars,
			.command = opts.command, .kind = opts.kind,
		};
		struct job_sweep sw = { &d, axes, a->n_axes, a->zip, &opts };
		cli_runner_init(cmd, a, DEFAULT_DB, &rn, &definition);
		if (a->job.format == JOB_FORMAT_CSV || a->job.format == JOB_FORMAT_JSONL) {
			rn.on_row = on_row;
			rn.row_arg = &st;
		}
		rc = job_sweep_run(&sw, &rn, &res, &dl);
		if (job_rank() == 0)
			diag_print(&dl, stderr);
		rc = rc < 0 && !res.error[0] ? CLI_EXIT_BAD_INPUT
					      : cli_run_report(cmd, &rn, &res, rc, "points");
		cli_stop_end();
	} else if (job_rank() == 0) {
		diag_print(&dl, stderr);
	}
	for (i = 0; i < a->n_axes; i++)
		job_axis_release(&axes[i]);
	free(axes);
	diag_list_release(&dl);
	strbuf_release(&definition);
	strbuf_release(&st.sb);
	return rc;
}

const struct cli_command cmd_sweep = {
	.name = "sweep",
	.summary = "Run a command over every combination of spec values.",
	.usage = "sweep [OPTION]... FILE... --axis PATH=V1,V2,... [--axis ...]",
	.help =
	"Runs the command (default model) on the design in FILE... once per point of the axes: the cartesian product of their values (the first axis slowest), or with --zip the i-th value of every axis together. Each point is the design with --set, then each axis's value at each of its paths, as '--set PATH=VALUE' would; the files are parsed once and every point is built, validated and run in memory, on all cores. Each point becomes a row of the results database (--db, SQLite) as it finishes: its axis values, overrides, design hash, status, metrics and per-level energies, or its located error when its values make a bad spec (the sweep goes on). Run again, the same sweep skips the points the database holds (a changed design or option is a new point). 'fiberloop results' and 'fiberloop plot' read the database; docs/sweep.md has the schema.\n",
	.epilogue =
	"An axis path that matches nothing in the design (a misspelt key) fails the sweep before any point runs, naming the axis. A progress line (points, rate, ETA) is redrawn on stderr when it is a terminal, and written as a line every 5 s otherwise (FIBERLOOP_PROGRESS_SECONDS sets the interval), for batch-system logs. Points that do not succeed are counted by distinct reason at the end; each row keeps its whole error. Ctrl-C stops handing out points; those finished are kept, and the same command finishes the sweep later. Under 'mpirun -np N' (built with --with-mpi), rank 0 hands out points to every rank and writes the database; the rows are the same for any N.\nExit status: 0 when every point succeeded, 1 for a bad design, axis or database or when a point had bad input, 3 when points were infeasible (or mismatched), 2 for a usage error, 130 when interrupted.\n",
	.run = run,
	.job = JOB_MODEL,
	.options = CLI_OPT_BIT(CLI_OPT_AXIS) | CLI_OPT_BIT(CLI_OPT_ZIP) |
		   CLI_OPT_BIT(CLI_OPT_COMMAND) | CLI_OPT_BIT(CLI_OPT_DB) |
		   CLI_OPT_BIT(CLI_OPT_RESUME) | CLI_OPT_BIT(CLI_OPT_JOBS) |
		   CLI_OPT_BIT(CLI_OPT_FORMAT) | CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) |
		   CLI_OPT_BIT(CLI_OPT_TENSOR) | CLI_OPT_BIT(CLI_OPT_ENERGY) |
		   CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_RESIDUALS) | CLI_OPT_BIT(CLI_OPT_IMPERFECT) | CLI_OPT_BIT(CLI_OPT_SEED) |
		   CLI_OPT_BIT(CLI_OPT_ALGORITHM) | CLI_OPT_BIT(CLI_OPT_STREAMS) |
		   CLI_OPT_BIT(CLI_OPT_REFINE) | CLI_OPT_BIT(CLI_OPT_SEARCH_SIZE) |
		   CLI_OPT_BIT(CLI_OPT_TIMEOUT) | CLI_OPT_BIT(CLI_OPT_VICTORY) |
		   CLI_OPT_BIT(CLI_OPT_RETENTION) | CLI_OPT_BIT(CLI_OPT_SEEDS) |
		   CLI_OPT_BIT(CLI_OPT_TOLERANCE) | CLI_OPT_BIT(CLI_OPT_SIGMAS) |
		   CLI_OPT_BIT(CLI_OPT_PRUNE) | CLI_OPT_BIT(CLI_OPT_ROOFLINE) |
		   CLI_OPT_BIT(CLI_OPT_SAMPLES) | CLI_OPT_BIT(CLI_OPT_PERCENTILE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_CSV | 1u << JOB_FORMAT_JSONL,
	.opt_help = (const char *const[CLI_OPT_COUNT]){
		[CLI_OPT_FORMAT] = "text (a summary on stderr at the end; the default), or csv or jsonl: every row on stdout as it finishes (in finishing order; the database lists them in point order)",
		[CLI_OPT_ROOFLINE] = "give each row of a design with a mapping a 'bound' column: what bounds the run (compute, or a level and its bandwidth or fill latency)",
		[CLI_OPT_SEED] = "the mapper's seed (--command map) or the tensors' (exec)",
	},
};
