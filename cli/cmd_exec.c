/*
 * 'fiberloop exec FILE...': run the design's mapping on real tensors with
 * the reference executor and report every count it made. With -o DIR the
 * stats.txt-layout file and the JSON are written there atomically, and
 * nothing is written when anything fails.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_SEED] = "seed of the generated tensors (default 1)",
	[CLI_OPT_OUTPUT] = "write DIR/fiberloop-exec.stats.txt (Timeloop's layout)\n"
			   "and DIR/fiberloop-exec.stats.json",
	[CLI_OPT_FORMAT] = "what to print on stdout (default text)",
};

const struct cli_command cmd_exec = {
	.name = "exec",
	.summary = "Run the mapping on real tensors with the reference executor.",
	.usage = "exec [OPTION]... FILE...",
	.help =
		"Executes the design's mapping tile by tile on tensors generated from each tensor's density model (seeded by --seed, one random stream per tensor) or read from Matrix Market / dense text files, in their representation formats, and counts every read, fill and update per level and tensor (algorithmic, actual, gated, skipped), metadata and payload accesses per format rank, multicast and spatial reductions, and computes. The Einsum result is checked against a plain dense evaluation.\n",
	.epilogue =
		"Exit status: 0 ok, 1 bad input or a design the executor cannot run, 2 usage.\n",
	.run = cli_run_design_or_cascade,
	.job = JOB_EXEC,
	.options = CLI_OPT_BIT(CLI_OPT_CASCADE) | CLI_OPT_BIT(CLI_OPT_SEED) | CLI_OPT_BIT(CLI_OPT_TENSOR) |
		   CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_FORMAT) |
		   CLI_OPT_BIT(CLI_OPT_RETENTION) | CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) | CLI_OPT_BIT(CLI_OPT_PRUNE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON,
	.opt_help = opt_help,
};
