/*
 * Writers for the executor's results (until report/ covers them): a file in
 * Timeloop's stats.txt layout holding the counts the executor produces
 * (per-instance values rounded as Timeloop prints them), JSON with the exact
 * totals, and a short summary for the terminal.
 */
#ifndef CLI_EXEC_REPORT_H
#define CLI_EXEC_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "exec/exec.h"

struct strbuf;

/* The command line shared by 'exec' and 'validate'. */
struct exec_cli {
	char **files;
	size_t n_files;
	const char **tensors;          /* "NAME=FILE" */
	size_t n_tensors;
	struct exec_options opt;
	const char *out_dir;           /* -o DIR, or NULL */
	enum cli_format format;
	unsigned seeds;                /* validate: executions per design */
	double tolerance;              /* validate: relative tolerance */
	double sigmas;                 /* validate: standard errors allowed */
};

/*
 * Parse argv for 'cmd' into 'a' (allocates 'files' and 'tensors'; release
 * with exec_cli_release). 'validate' enables --seeds/--tolerance/--sigmas,
 * otherwise --seed/-o/--format. Returns 0, or an exit code after printing
 * a usage error.
 */
int exec_cli_parse(const struct cli_command *cmd, int argc, char **argv, struct exec_cli *a,
		   bool validate);
void exec_cli_release(struct exec_cli *a);

/*
 * Check the --tensor files first, so that a malformed one is reported as
 * "file:line: error: ..."; then load the design. NULL (after printing)
 * when anything is wrong.
 */
struct spec_set *exec_cli_load(const struct exec_cli *a);

/* Timeloop stats.txt layout (dense or sparse labels, as the design asks). */
void exec_report_stats(struct strbuf *out, const struct spec_set *s, const struct exec_result *r);

/* JSON document with every count (totals over instances) and the options used. */
void exec_report_json(struct strbuf *out, const struct spec_set *s, const struct exec_result *r,
		      const struct exec_options *opt);

/* A short table: per level and tensor, per-instance reads, fills, updates. */
void exec_report_summary(FILE *fp, const struct spec_set *s, const struct exec_result *r,
			 const struct exec_options *opt);

/* Names of the option values, for messages and JSON. */
const char *exec_retention_name(enum exec_retention r);
const char *exec_footprint_name(enum exec_footprint f);

#endif
