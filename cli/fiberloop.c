/*
 * fiberloop: analytical modeler for sparse tensor accelerators.
 * main() dispatches to a subcommand; see cli/cli.h for the exit codes.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/cli.h"
#include "util/diag.h"
#include "util/strbuf.h"

extern const struct cli_command cmd_check;
extern const struct cli_command cmd_model;
extern const struct cli_command cmd_map;
extern const struct cli_command cmd_exec;
extern const struct cli_command cmd_validate;
extern const struct cli_command cmd_stpu;
extern const struct cli_command cmd_ipu;
extern const struct cli_command cmd_sweep;
extern const struct cli_command cmd_results;
extern const struct cli_command cmd_batch;
extern const struct cli_command cmd_plot;
extern const struct cli_command cmd_energy;
extern const struct cli_command cmd_compose;

static const struct cli_command cmd_help = {
	.name = "help",
	.summary = "Show the help of fiberloop or of one command.",
	.usage = "help [COMMAND|metrics]",
	.help = "",
};

/* The table of subcommands, NULL-terminated. */
static const struct cli_command *const cli_commands[] = {
	&cmd_check,
	&cmd_model,
	&cmd_map,
	&cmd_exec,
	&cmd_validate,
	&cmd_energy,
	&cmd_stpu,
	&cmd_ipu,
	&cmd_compose,
	&cmd_sweep,
	&cmd_batch,
	&cmd_results,
	&cmd_plot,
	&cmd_help,
	NULL,
};

static const struct cli_command *find_command(const char *name)
{
	size_t i;
	for (i = 0; cli_commands[i]; i++)
		if (!strcmp(cli_commands[i]->name, name))
			return cli_commands[i];
	return NULL;
}

static void print_main_help(FILE *fp)
{
	size_t i;
	fprintf(fp,
		"usage: fiberloop [--version] [--help] COMMAND [ARGS]\n\n"
		"Analytical modeling of sparse tensor accelerators (Timeloop/Sparseloop compatible).\n\n"
		"Commands:\n");
	for (i = 0; cli_commands[i]; i++)
		fprintf(fp, "   %-10s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
	fprintf(fp,
		"\nFILE... arguments are YAML files merged at the top level, as Timeloop does.\n"
		"Exit status: 0 success, 1 bad input, 2 usage error, 3 infeasible design,\n"
		"130 a sweep or batch interrupted (what finished is kept).\n"
		"See 'fiberloop help COMMAND' and fiberloop(1).\n");
}

/*
 * 'fiberloop help metrics': the metric vocabulary, as the results database,
 * 'results' and 'plot' name it (job/metric.c), and the kinds of design that
 * provide each metric.
 */
static void print_metrics(void)
{
	static const char *const aggs[] = {
		[JOB_AGG_SUM] = "sum", [JOB_AGG_CYCLE_MEAN] = "cycle-weighted mean",
		[JOB_AGG_DERIVED] = "derived", [JOB_AGG_NONE] = "-",
		[JOB_AGG_SAME] = "the same (or none)",
	};
	static const char *const betters[] = {
		[JOB_BETTER_NONE] = "-", [JOB_BETTER_LOWER] = "lower", [JOB_BETTER_HIGHER] = "higher",
	};
	int m;
	size_t k;

	printf("The metrics of fiberloop's results (columns of 'fiberloop results', 'plot' and the\n"
	       "rows sweep streams; empty where a row's kind of design does not provide one):\n\n");
	printf("%-22s %-10s %-20s %-7s %-20s %s\n", "metric", "unit", "networks combine by",
	       "better", "kinds", "meaning");
	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		char name[64], kinds[64] = "";
		size_t n = 0;
		snprintf(name, sizeof(name), "%s%s", d->name,
			 d->flags & JOB_METRIC_PER_LEVEL ? ".LEVEL" : "");
		for (k = 0; k < job_kind_count(); k++)
			if (job_kind_provides(job_kind_name(k), (enum job_metric_id)m))
				n += (size_t)snprintf(kinds + n, sizeof(kinds) - n, "%s%s", n ? "," : "",
						      job_kind_name(k));
		printf("%-22s %-10s %-20s %-7s %-20s %s\n", name, d->unit[0] ? d->unit : "(text)",
		       aggs[d->agg], betters[d->better], kinds, d->description);
	}
}

static int run_help(int argc, char **argv)
{
	const struct cli_command *cmd;
	if (argc < 2) {
		print_main_help(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "metrics")) {
		print_metrics();
		return CLI_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "fiberloop help: unknown command '%s'\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	cli_print_help(cmd);
	return CLI_EXIT_OK;
}

/* Name of the known command nearest to 'name', for a hint. */
static const char *suggest_command(const char *name);

/* Parse the command line of 'cmd' and run it. */
static int run_command(const struct cli_command *cmd, int argc, char **argv)
{
	struct cli_args a;
	int rc = cli_parse(cli_commands, cmd, argc, argv, &a);

	if (!rc)
		rc = cmd->run(cmd, &a);
	cli_args_release(&a);
	return rc;
}

static int dispatch(int argc, char **argv);

/* MPI (when built with it and run under mpirun) around the command. */
int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	int rc;

	if (job_mpi_init(&argc, &argv, &err) < 0) {
		fprintf(stderr, "fiberloop: %s\n", err.buf);
		strbuf_release(&err);
		job_mpi_finalize();
		return CLI_EXIT_USAGE;
	}
	rc = dispatch(argc, argv);
	job_mpi_finalize();
	return rc;
}

static int dispatch(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		print_main_help(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("fiberloop %s\n", PACKAGE_VERSION);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_help(stdout);
		return CLI_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		const char *hint = suggest_command(argv[1]);
		fprintf(stderr, "fiberloop: '%s' is not a fiberloop command.", argv[1]);
		if (hint)
			fprintf(stderr, " Did you mean '%s'?", hint);
		fprintf(stderr, "\nSee 'fiberloop --help'.\n");
		return CLI_EXIT_USAGE;
	}
	if (cmd == &cmd_help)
		return run_help(argc - 1, argv + 1);
	if (cli_wants_help(argc - 1, argv + 1)) {
		cli_print_help(cmd);
		return CLI_EXIT_OK;
	}
	return run_command(cmd, argc - 1, argv + 1);
}

static const char *suggest_command(const char *name)
{
	const char *names[16];
	size_t n = 0;
	while (cli_commands[n] && n < 16) {
		names[n] = cli_commands[n]->name;
		n++;
	}
	return diag_suggest(name, names, n);
}
