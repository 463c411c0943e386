/*
 * 'fiberloop batch JOBS.yaml': the jobs of a batch file (designs with a
 * command, networks of layers) on every core (and every MPI rank), one row
 * per job in the results database as each finishes, then a table of the
 * jobs ranked by --metric. A rerun skips the jobs the database holds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

#define DEFAULT_DB "fiberloop.db"

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf definition = STRBUF_INIT, out = STRBUF_INIT, notes = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct job_run_result res;
	struct job_runner rn;
	struct spec_batch *batch;
	int rc;

	if (a->n_files != 1)
		return cli_usage_error(cmd, "one batch file, not %zu files", a->n_files);
	batch = spec_batch_load(a->files[0], job_command_names(), &dl);
	if (job_rank() == 0)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	if (!batch)
		return CLI_EXIT_BAD_INPUT;
	{
		struct job_batch b = { batch, &a->job, a->vars, a->n_vars };
		cli_runner_init(cmd, a, DEFAULT_DB, &rn, &definition);
		rc = job_batch_run(&b, &rn, a->metric, &t, &notes, &res);
		rc = cli_run_report(cmd, &rn, &res, rc, "jobs to run (a network's distinct layers each)");
		if (job_rank() == 0 && rc != CLI_EXIT_BAD_INPUT && notes.len)
			fprintf(stderr, "fiberloop %s: %s", cmd->name, notes.buf);
		cli_stop_end();
	}
	if (job_rank() == 0 && rc != CLI_EXIT_BAD_INPUT) {
		if (a->job.format == JOB_FORMAT_CSV)
			report_table_csv(&t, NULL, 0, &out);
		else if (a->job.format == JOB_FORMAT_JSON)
			report_table_json(&t, NULL, 0, &out);
		else
			report_table_text(&t, NULL, 0, &out);
		fwrite(out.buf, 1, out.len, stdout);
	}
	table_release(&t);
	spec_batch_free(batch);
	strbuf_release(&definition);
	strbuf_release(&out);
	strbuf_release(&notes);
	return rc;
}

const struct cli_command cmd_batch = {
	.name = "batch",
	.summary = "Run the jobs of a batch file and rank them.",
	.usage = "batch [OPTION]... JOBS.yaml",
	.help =
	"Runs every job of JOBS.yaml (docs/sweep.md, \"Batch files\"): a design (its 'files', 'set' overrides, 'vars' for its templates, 'prune' as --prune, 'command' (a kind's own command too: ipu, stpu), 'name', 'tags', 'seed') run with its command, or a network ('layers': layer files or directories) whose layers are all mapped on the design, on all cores. Each job (each layer of a network) becomes a row of the results database (--db) as it finishes; a job whose files or overrides make a bad spec is a row with its located error, and the batch goes on. At the end each network gets a row with its totals, and a table of the jobs ranked by --metric is printed (failed jobs last). Run again, the batch skips the jobs the database holds. The options below apply to every job.\n",
	.epilogue =
	"A progress line is redrawn on stderr when it is a terminal, and written every 5 s otherwise (FIBERLOOP_PROGRESS_SECONDS); jobs that do not succeed are counted by distinct reason at the end. Ctrl-C stops handing out jobs and keeps those finished. Under 'mpirun -np N' (built with --with-mpi), rank 0 hands out the jobs and writes the database.\nExit status: 0 when every job ran (whatever its result), 1 for a bad batch file or database, 2 for a usage error, 130 when interrupted.\n",
	.run = run,
	.job = JOB_MODEL,
	.options = CLI_OPT_BIT(CLI_OPT_DB) | CLI_OPT_BIT(CLI_OPT_RESUME) | CLI_OPT_BIT(CLI_OPT_VAR) |
		   CLI_OPT_BIT(CLI_OPT_JOBS) | CLI_OPT_BIT(CLI_OPT_METRIC) |
		   CLI_OPT_BIT(CLI_OPT_FORMAT) | CLI_OPT_BIT(CLI_OPT_ENERGY) |
		   CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_RESIDUALS) | CLI_OPT_BIT(CLI_OPT_IMPERFECT) | CLI_OPT_BIT(CLI_OPT_SEED) |
		   CLI_OPT_BIT(CLI_OPT_ALGORITHM) | CLI_OPT_BIT(CLI_OPT_STREAMS) |
		   CLI_OPT_BIT(CLI_OPT_REFINE) | CLI_OPT_BIT(CLI_OPT_SEARCH_SIZE) |
		   CLI_OPT_BIT(CLI_OPT_TIMEOUT) | CLI_OPT_BIT(CLI_OPT_VICTORY) |
		   CLI_OPT_BIT(CLI_OPT_ROOFLINE) | CLI_OPT_BIT(CLI_OPT_SAMPLES) |
		   CLI_OPT_BIT(CLI_OPT_PERCENTILE),
	.formats = 1u << JOB_FORMAT_TABLE | 1u << JOB_FORMAT_CSV | 1u << JOB_FORMAT_JSON,
	.opt_help = (const char *const[CLI_OPT_COUNT]){
		[CLI_OPT_FORMAT] = "the final table: table (the default), csv or json",
		[CLI_OPT_ROOFLINE] = "give each row of a design with a mapping a 'bound' column: what bounds the run (compute, or a level and its bandwidth or fill latency)",
		[CLI_OPT_SEED] = "the seed of every job without its own 'seed'",
	},
};
