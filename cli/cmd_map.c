/*
 * 'fiberloop map FILE...': search the mapspace of a design under its
 * constraints and write the best mapping found. Progress goes to stderr
 * when it is a terminal; SIGINT or --time-limit stops the search and the
 * best mapping so far is written. Exit 3 when no valid mapping was found.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/fileio.h"

#define OUT_PREFIX "fiberloop-mapper"

static atomic_int stop_flag;

static void on_sigint(int sig)
{
	(void)sig;
	atomic_store(&stop_flag, 1);
}

/* Stop on the first SIGINT; a second one ends the process as usual. */
static void install_sigint(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

struct progress_state {
	bool printed;
};

static void on_progress(void *arg, const struct job_progress *p)
{
	struct progress_state *ps = arg;
	fprintf(stderr, "\r%llu evaluated, %llu valid, ", (unsigned long long)p->n_evaluated,
		(unsigned long long)p->n_valid);
	if (p->has_best)
		fprintf(stderr, "best %.4g uJ %.0f cycles EDP %.4g, ", p->best_energy_pj * 1e-6,
			p->best_cycles, p->best_edp);
	fprintf(stderr, "%.0f/s, %.1f s, %u streams left   ", p->per_s, p->elapsed_s,
		p->n_streams_active);
	ps->printed = true;
}

static void on_log_line(void *arg, const char *line, size_t len)
{
	struct atomic_file *f = arg;
	fwrite(line, 1, len, f->fp);
}

/*
 * 'map --layers': every layer of a network on the design, the per-layer
 * table and the totals on stdout.
 */
static int run_network(const struct cli_command *cmd, struct cli_args *a)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf definition = STRBUF_INIT, out = STRBUF_INIT;
	struct job_network_result nr;
	struct job_run_result res;
	struct job_runner rn;
	int rc = CLI_EXIT_BAD_INPUT;

	if (a->out_dir || a->log_path)
		return cli_usage_error(cmd, "'%s' does not go with --layers (the rows are in --db)",
				       a->out_dir ? "-o" : "--log");
	if (a->n_prunes || a->job.roofline)
		return cli_usage_error(cmd, "'%s' does not go with --layers",
				       a->n_prunes ? "--prune" : "--roofline");
	if (cli_parse_overrides(a, &dl) == 0) {
		struct job_design d = {
			.files = a->files, .n_files = a->n_files,
			.overrides = a->overrides, .n_overrides = a->n_overrides,
			.vars = a->vars, .n_vars = a->n_vars,
			.command = JOB_MAP,
		};
		struct job_network nw = { &d, a->layers, a->n_layers, &a->job };
		cli_runner_init(cmd, a, NULL, &rn, &definition);
		rc = job_network_run(&nw, &rn, &nr, &res, &dl);
		if (job_rank() == 0)
			diag_print(&dl, stderr);
		if (rc < 0 && !res.error[0]) {
			rc = CLI_EXIT_BAD_INPUT;
		} else {
			rc = cli_run_report(cmd, &rn, &res, rc, "distinct layers");
			if (job_rank() == 0 && rc != CLI_EXIT_BAD_INPUT) {
				job_network_print(&nr, a->job.format, &out);
				fwrite(out.buf, 1, out.len, stdout);
				if (rc == CLI_EXIT_OK && nr.total.status == JOB_INFEASIBLE)
					rc = CLI_EXIT_INFEASIBLE;
				else if (rc == CLI_EXIT_OK && nr.total.status != JOB_OK)
					rc = CLI_EXIT_BAD_INPUT;
			}
		}
		job_network_result_release(&nr);
		cli_stop_end();
	} else if (job_rank() == 0) {
		diag_print(&dl, stderr);
	}
	diag_list_release(&dl);
	strbuf_release(&definition);
	strbuf_release(&out);
	return rc;
}

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	struct progress_state ps = { false };
	struct atomic_file log;
	struct strbuf err = STRBUF_INIT;
	struct sigaction old;
	struct spec_set *s;
	int rc;

	if (a->n_layers)
		return run_network(cmd, a);
	if (a->cascade)
		return cli_run_cascade(cmd, a);
	if (a->db_path || a->jobs || !a->resume)
		return cli_usage_error(cmd, "'--db', '--jobs' and '--no-resume' go with --layers");
	s = cli_load(cmd, a);
	if (!s)
		return CLI_EXIT_BAD_INPUT;
	if (a->log_path) {
		if (atomic_file_open(&log, a->log_path, &err) < 0) {
			fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
			strbuf_release(&err);
			spec_set_free(s);
			return CLI_EXIT_BAD_INPUT;
		}
		a->job.map.on_log_line = on_log_line;
		a->job.map.log_arg = &log;
	}
	a->job.map.split_ranks = true;
	if (isatty(STDERR_FILENO) && job_rank() == 0) {
		a->job.map.on_progress = on_progress;
		a->job.map.progress_arg = &ps;
		a->job.map.progress_interval_s = 0.25;
	}
	atomic_store(&stop_flag, 0);
	a->job.map.stop = &stop_flag;
	install_sigint(&old);
	rc = cli_run_job(cmd, a, s, ".");
	sigaction(SIGINT, &old, NULL);
	if (ps.printed)
		fprintf(stderr, "\n");
	if (a->log_path && rc != CLI_EXIT_OK && rc != CLI_EXIT_INFEASIBLE) {
		atomic_file_abort(&log);        /* no search ran: nothing to log */
	} else if (a->log_path && atomic_file_commit(&log, &err) < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
		if (rc == CLI_EXIT_OK)
			rc = CLI_EXIT_BAD_INPUT;
	}
	strbuf_release(&err);
	spec_set_free(s);
	return rc;
}

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = "directory of the outputs (default .)",
	[CLI_OPT_SEED] = "random seed of the search (default 0)",
	[CLI_OPT_TENSOR] = "actual non-zero pattern of tensor NAME",
	[CLI_OPT_FORMAT] = "what to print after the search: text (the default), json or csv (the best mapping's evaluation, as 'fiberloop model' prints it; with --layers, one row per layer and the totals)",
	[CLI_OPT_DB] = "with --layers: one row per layer in this results database (none by default); a rerun skips the layers it holds",
	[CLI_OPT_JOBS] = "with --layers: layers mapped at once (0: the cores; each on one thread)",
	[CLI_OPT_RESUME] = "with --layers and --db: skip the layers the database holds (the default)",
};

const struct cli_command cmd_map = {
	.name = "map",
	.summary = "Search the mapspace of a design for the best mapping.",
	.usage = "map [OPTION]... FILE... [--layers DIR|FILE...]",
	.help =
		"Searches the mappings of the design in FILE... (architecture, problem, ERT, 'architecture_constraints' / 'mapspace', 'mapper' settings) and writes the best one by the 'optimization_metrics' of the 'mapper' key (default edp) to DIR/" OUT_PREFIX ".map.yaml, loadable by 'fiberloop model', with its evaluation as DIR/" OUT_PREFIX ".stats.txt, .map.txt (Timeloop's layouts) and .stats.json. A 'mapping' key in FILE... is ignored. The options below override the 'mapper' key.\n",
	.epilogue =
		"With --layers DIR|FILE..., every layer of a network is mapped on the design instead (each layer file's 'problem' replaces the design's; identical layers are mapped once), the layers on all cores, and a table of the layers with the network's totals is printed: energy and cycles added over the layers, EDP of the two sums.\nA progress line is shown on stderr when it is a terminal. Ctrl-C stops the search within a second and writes the best mapping so far (a second Ctrl-C ends the program). Under 'mpirun -np N' (built with --with-mpi) the search's streams are shared out over the ranks (the layers, with --layers) and the result is the same as on one process. Exit status 3 when no valid mapping was found; the reasons (capacity or fan-out of which level) are counted on stderr.\n",
	.run = run,
	.job = JOB_MAP,
	.options = CLI_OPT_BIT(CLI_OPT_CASCADE) | CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_LOG) |
		   CLI_OPT_BIT(CLI_OPT_ALGORITHM) | CLI_OPT_BIT(CLI_OPT_THREADS) |
		   CLI_OPT_BIT(CLI_OPT_STREAMS) | CLI_OPT_BIT(CLI_OPT_REFINE) |
		   CLI_OPT_BIT(CLI_OPT_SEED) | CLI_OPT_BIT(CLI_OPT_TIME_LIMIT) |
		   CLI_OPT_BIT(CLI_OPT_SEARCH_SIZE) | CLI_OPT_BIT(CLI_OPT_TIMEOUT) |
		   CLI_OPT_BIT(CLI_OPT_VICTORY) | CLI_OPT_BIT(CLI_OPT_TENSOR) |
		   CLI_OPT_BIT(CLI_OPT_ENERGY) | CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_RESIDUALS) | CLI_OPT_BIT(CLI_OPT_IMPERFECT) |
		   CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) | CLI_OPT_BIT(CLI_OPT_FORMAT) |
		   CLI_OPT_BIT(CLI_OPT_LAYERS) | CLI_OPT_BIT(CLI_OPT_DB) |
		   CLI_OPT_BIT(CLI_OPT_JOBS) | CLI_OPT_BIT(CLI_OPT_RESUME) |
		   CLI_OPT_BIT(CLI_OPT_ROOFLINE) | CLI_OPT_BIT(CLI_OPT_PRUNE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON | 1u << JOB_FORMAT_CSV,
	.opt_help = opt_help,
};
