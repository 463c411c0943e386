/*
 * 'fiberloop validate FILE...': evaluate the design with the analytical
 * model and execute it with the reference executor over K seeds; print, per
 * field, the model's value, the executor's mean and standard error and the
 * relative difference, and flag the fields outside tolerance. Exit 0 only
 * when every field is within tolerance.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_TENSOR] = "actual data for tensor NAME (both sides use it)",
};

const struct cli_command cmd_validate = {
	.name = "validate",
	.summary = "Compare the analytical model with the reference executor.",
	.usage = "validate [OPTION]... FILE...",
	.help =
		"Evaluates the design with the model, executes it with the reference executor on K seeds (once when no tensor is random), and prints for every count (reads, fills, updates: algorithmic, actual, gated, skipped; format accesses per rank; temporal reductions; tile shapes; instances; computes) the model's value, the executor's mean +- standard error and the relative difference. A field is within tolerance when the model lies within S standard errors of the mean, or within R relatively, or within one count.\n",
	.epilogue =
		"Exit status: 0 every field within tolerance, 1 some field outside (or bad input), 2 usage, 3 infeasible mapping.\n",
	.run = cli_run_design_or_cascade,
	.job = JOB_VALIDATE,
	.options = CLI_OPT_BIT(CLI_OPT_CASCADE) | CLI_OPT_BIT(CLI_OPT_SEEDS) | CLI_OPT_BIT(CLI_OPT_TENSOR) |
		   CLI_OPT_BIT(CLI_OPT_TOLERANCE) | CLI_OPT_BIT(CLI_OPT_SIGMAS) |
		   CLI_OPT_BIT(CLI_OPT_RETENTION) | CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_RESIDUALS) |
		   CLI_OPT_BIT(CLI_OPT_ENERGY) | CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) |
		   CLI_OPT_BIT(CLI_OPT_PRUNE),
	.opt_help = opt_help,
};
