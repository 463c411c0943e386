/*
 * The fiberloop command: git-style subcommands over job/, sharing one
 * option table (every option defined once, `--opt=value` and `--opt value`
 * everywhere, the same error text for the same mistake), one way of loading
 * a design and one set of exit codes.
 *
 * Exit codes: 0 ok, 1 bad input (a diagnostic was printed), 2 usage error,
 * 3 infeasible design (a valid spec whose mapping does not fit). Only cli/
 * prints and exits.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/job.h"

enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_BAD_INPUT = 1,
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_INFEASIBLE = 3,
	CLI_EXIT_INTERRUPTED = 130,    /* sweep, batch: Ctrl-C; what finished is kept */
};

/* Every option of every command (cli/options.c holds their one table). */
enum cli_opt {
	CLI_OPT_OUTPUT,
	CLI_OPT_FORMAT,
	CLI_OPT_TENSOR,
	CLI_OPT_SET,
	CLI_OPT_VAR,
	CLI_OPT_ENERGY,
	CLI_OPT_FOOTPRINT,
	CLI_OPT_SEED,
	CLI_OPT_RETENTION,
	CLI_OPT_SEEDS,
	CLI_OPT_TOLERANCE,
	CLI_OPT_SIGMAS,
	CLI_OPT_LOG,
	CLI_OPT_ALGORITHM,
	CLI_OPT_THREADS,
	CLI_OPT_STREAMS,
	CLI_OPT_REFINE,
	CLI_OPT_TIME_LIMIT,
	CLI_OPT_SEARCH_SIZE,
	CLI_OPT_TIMEOUT,
	CLI_OPT_VICTORY,
	CLI_OPT_SAMPLES,
	CLI_OPT_PERCENTILE,
	CLI_OPT_AXIS,
	CLI_OPT_ZIP,
	CLI_OPT_COMMAND,
	CLI_OPT_DB,
	CLI_OPT_RESUME,
	CLI_OPT_JOBS,
	CLI_OPT_METRIC,
	CLI_OPT_WHERE,
	CLI_OPT_X,
	CLI_OPT_Y,
	CLI_OPT_SERIES,
	CLI_OPT_LOGSCALE,
	CLI_OPT_TITLE,
	CLI_OPT_LAYERS,
	CLI_OPT_COLUMNS,
	CLI_OPT_ROOFLINE,
	CLI_OPT_PRUNE,
	CLI_OPT_RESIDUALS,
	CLI_OPT_IMPERFECT,
	CLI_OPT_BEST,
	CLI_OPT_BY,
	CLI_OPT_PIVOT,
	CLI_OPT_CROSSOVERS,
	CLI_OPT_AT,
	CLI_OPT_BASELINE,
	CLI_OPT_CASCADE,
	CLI_OPT_COUNT
};

#define CLI_OPT_BIT(o) (UINT64_C(1) << (o))

/* The axes '--logscale' makes logarithmic (bits). */
#define CLI_LOG_X 1u
#define CLI_LOG_Y 2u

/* A command's parsed command line. */
struct cli_args {
	struct job_options job;
	const char **files;            /* FILE... (borrowed from argv) */
	size_t n_files;
	const char **tensors;          /* --tensor NAME=FILE, in order */
	size_t n_tensors;
	const char **vars;             /* --var NAME=VALUE, in order */
	size_t n_vars;
	const char **sets;             /* --set PATH=VALUE, in order */
	size_t n_sets;
	const char **prunes;           /* --prune NAME=N:M[:DIM], in order */
	size_t n_prunes;
	struct spec_override *overrides;  /* the parsed --set, owned (cli_load) */
	size_t n_overrides;
	const char *out_dir;           /* -o DIR, or NULL */
	const char *log_path;          /* --log FILE, or NULL */
	/* sweep, batch, results, plot, map --layers */
	const char **axes;             /* --axis, in order */
	size_t n_axes;
	const char **wheres;           /* --where COND, in order */
	size_t n_wheres;
	const char **ys;               /* --y COLUMN, in order */
	size_t n_ys;
	const char **series;           /* --series COLUMN, in order */
	size_t n_series;
	const char **layers;           /* --layers DIR|FILE, in order */
	const char *cascade;           /* --cascade FILE (model, map, exec, validate), or NULL */
	size_t n_layers;
	bool zip;
	bool resume;                   /* default true */
	const char *command;           /* --command (one of job_command_names()), or NULL */
	const char *db_path;           /* --db FILE, or NULL */
	unsigned jobs;                 /* --jobs N (0: the cores) */
	enum job_metric_id metric;     /* --metric */
	const char *x;                 /* --x COLUMN */
	unsigned logscale;             /* CLI_LOG_* */
	const char *title;
	const char *columns;           /* --columns A,B,... */
	const char *best, *by, *pivot, *at;   /* results: --best, --by, --pivot, --at */
	bool crossovers;               /* results: --crossovers */
	const char *baseline;          /* plot: --baseline SERIES|X */
	int argc;                      /* the whole command line, for the record */
	char **argv;
};

/* A subcommand: its name, one-line summary, usage line and full help. */
struct cli_command {
	const char *name;
	const char *summary;
	const char *usage;             /* after "fiberloop " */
	const char *help;              /* what it does, before the options */
	const char *epilogue;          /* after the options (exit status ...), may be NULL */
	int (*run)(const struct cli_command *cmd, struct cli_args *a);
	enum job_command job;
	const char *kind;              /* a kind's own command: the design must be of it */
	bool print_first;              /* what the job prints goes out before its failure */
	uint64_t options;              /* CLI_OPT_BIT()s of the options it takes */
	unsigned formats;              /* 1 << enum job_format, for --format */
	bool no_files;                 /* takes no FILE... (a database instead, say) */
	const char *const *opt_help;   /* per option, overriding the table's help; may be NULL */
};

/*
 * Parse argv (argv[0] is the command's name) for 'cmd' into 'a', starting
 * from the command's defaults; all[] (NULL-terminated: every command) names
 * the commands an option belongs to when 'cmd' does not take it. Returns 0,
 * or CLI_EXIT_USAGE after printing the error and the usage line. Release
 * 'a' with cli_args_release().
 */
int cli_parse(const struct cli_command *const *all, const struct cli_command *cmd, int argc,
	      char **argv, struct cli_args *a);
void cli_args_release(struct cli_args *a);

/* Print "fiberloop CMD: message" and the usage line to stderr; returns 2. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the full help of 'cmd' (with its options from the table) to stdout. */
void cli_print_help(const struct cli_command *cmd);

/* True when argv holds -h or --help before any "--". */
bool cli_wants_help(int argc, char **argv);

/*
 * Load the design of 'a' for 'cmd' with its --set overrides (parsed into
 * a->overrides, released with 'a'), printing every diagnostic to stderr.
 * Returns the set, or NULL after printing (the command then exits 1).
 */
struct spec_set *cli_load(const struct cli_command *cmd, struct cli_args *a);

/*
 * Run the job of 'a' on 's' and deliver it: diagnostics and errors to
 * stderr, files into -o DIR (or 'default_dir'), 'print' to stdout. Returns
 * the exit code.
 */
int cli_run_job(const struct cli_command *cmd, struct cli_args *a, const struct spec_set *s,
		const char *default_dir);

/* The whole of a plain command: load the design, run the job, deliver. The exit code. */
int cli_run_design(const struct cli_command *cmd, struct cli_args *a);

/*
 * model, map, exec, validate --cascade FILE: every stage of the cascade on
 * the design (job_cascade_run), each stage's output, the tensors between
 * stages and the totals on stdout. The exit code.
 */
int cli_run_cascade(const struct cli_command *cmd, struct cli_args *a);

/* cli_run_cascade() with --cascade, else cli_run_design() (model, exec, validate). */
int cli_run_design_or_cascade(const struct cli_command *cmd, struct cli_args *a);

/* Parse every --set of 'a' into a->overrides. Returns 0, or -1 with diagnostics in 'dl'. */
int cli_parse_overrides(struct cli_args *a, struct diag_list *dl);

/*
 * What sweep, batch and map --layers share: a stop flag raised by the
 * first Ctrl-C (a second one ends the program), a progress line on stderr
 * when it is a terminal, and the runner's options from 'a' (database,
 * resume, threads, the command line).
 */
const atomic_int *cli_stop_begin(void);
void cli_stop_end(void);
void cli_runner_init(const struct cli_command *cmd, const struct cli_args *a,
		     const char *default_db, struct job_runner *rn, struct strbuf *definition);

/*
 * The end of a run (sweep, batch): the failure 'res->error' when rc < 0,
 * else what ran, on stderr (rank 0 only). Returns the exit code.
 */
int cli_run_report(const struct cli_command *cmd, const struct job_runner *rn,
		   const struct job_run_result *res, int rc, const char *what);

/* Write the files of 'out' into 'dir' atomically. Returns 0, or -1 after printing. */
int cli_write_outputs(const struct cli_command *cmd, const char *dir,
		      const struct job_outputs *out);

#endif
