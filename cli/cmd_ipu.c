/*
 * 'fiberloop ipu FILE...': plan and cost the PopSparse sparse
 * fully-connected layer of an 'ipu:' design (job/ipu.c, accel/) and print a
 * summary, JSON or a CSV row; with --seeds K also emulate it with the
 * executor and compare.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = "also write DIR/fiberloop-ipu.json",
	[CLI_OPT_FORMAT] = "what to print: a summary, a JSON document, or a CSV header and row",
	[CLI_OPT_TENSOR] = "W=FILE: W's non-zero blocks (Matrix Market or dense text)",
	[CLI_OPT_SEED] = "seed of the patterns drawn from the density model (default 1)",
	[CLI_OPT_SEEDS] = "also emulate the device algorithm on real values with the executor, "
			  "for seeds 1..K, on the model's plan: the numbers against a dense "
			  "product, steps and bucket fills exactly on actual data, the expected "
			  "steps within 3 standard errors of the executions' mean otherwise",
	[CLI_OPT_SAMPLES] = "patterns drawn from the density model for the expected propagation "
			    "steps (default 256)",
	[CLI_OPT_PERCENTILE] = "percentile of the steps reported (default 99)",
};

const struct cli_command cmd_ipu = {
	.name = "ipu",
	.summary = "Plan and cost a PopSparse sparse layer on a Graphcore IPU.",
	.usage = "ipu [OPTION]... FILE...",
	.help =
	"Loads FILE... holding an 'ipu:' design (a device preset, gc200 or bow, with overrides, and a sparse fully-connected layer; docs/ipu.md), runs PopSparse's planner over P_X x P_Y x P_Z <= tiles, sizes the buckets, runs the partitioner on W's pattern (actual data) or on patterns drawn from W's density model, and costs every pass: the planner's estimate, the realized distribution, propagation steps and reduction, and the dense IPU matmul of the same pass.\n",
	.epilogue =
	"Exit status: 0 success, 1 bad input or a model/executor disagreement, 2 usage error, 3 no plan, overflowing buckets or a tile out of memory (the reason is printed).\n",
	.run = cli_run_design,
	.job = JOB_MODEL,
	.kind = "ipu",
	.print_first = true,
	.options = CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_FORMAT) |
		   CLI_OPT_BIT(CLI_OPT_TENSOR) | CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) | CLI_OPT_BIT(CLI_OPT_SEED) |
		   CLI_OPT_BIT(CLI_OPT_SEEDS) | CLI_OPT_BIT(CLI_OPT_SAMPLES) |
		   CLI_OPT_BIT(CLI_OPT_PERCENTILE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON | 1u << JOB_FORMAT_CSV,
	.opt_help = opt_help,
};
