/*
 * The fiberloop command: git-style subcommands sharing one option style,
 * one way of loading specs and one set of exit codes.
 *
 * Exit codes: 0 ok, 1 bad input (a diagnostic was printed), 2 usage error,
 * 3 infeasible design (a valid spec whose mapping does not fit). Only cli/
 * prints and exits.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct spec_set;
struct spec_load_options;

enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_BAD_INPUT = 1,
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_INFEASIBLE = 3,
};

enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_JSON, CLI_FORMAT_CSV };

/* A subcommand: its name, one-line summary, usage line and full help. */
struct cli_command {
	const char *name;
	const char *summary;
	const char *usage;   /* after "fiberloop " */
	const char *help;    /* options and details, printed by 'help CMD' */
	int (*run)(int argc, char **argv);  /* argv[0] is the command name */
};

/* The table of subcommands, NULL-terminated (cli/fiberloop.c). */
extern const struct cli_command *const cli_commands[];

/* Print "fiberloop CMD: message" and the usage line to stderr; returns 2. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the full help of 'cmd' to stdout. */
void cli_print_help(const struct cli_command *cmd);

/* True when argv holds -h or --help before any "--". */
bool cli_wants_help(int argc, char **argv);

/* Parse "text|json|csv" (the allowed subset in 'allowed', a bit per format). */
int cli_parse_format(const char *s, unsigned allowed, enum cli_format *out);

/*
 * Load the YAML files 'paths', printing every diagnostic to stderr.
 * Returns the set, or NULL after printing (the command then exits 1).
 */
struct spec_set *cli_load_specs(char **paths, size_t n_paths,
				const struct spec_load_options *opt);

#endif
