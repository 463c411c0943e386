/*
 * 'fiberloop model': evaluate the architecture + workload + mapping given in
 * FILE... and print a summary (or JSON, or CSV); with -o DIR also write
 * Timeloop-compatible stats.txt and map.txt plus a JSON document, all
 * atomically and only when the evaluation succeeded.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = "also write DIR/fiberloop-model.stats.txt (Timeloop's\n"
			   "layout), DIR/fiberloop-model.map.txt and\n"
			   "DIR/fiberloop-model.stats.json (docs/json-schema.md)",
	[CLI_OPT_FORMAT] = "what to print: text (a summary, the default), json,\n"
			   "or csv (a header row and a data row)",
};

const struct cli_command cmd_model = {
	.name = "model",
	.summary = "Evaluate a mapping of a workload on an architecture.",
	.usage = "model [OPTION]... FILE...",
	.help =
	"Loads FILE... (architecture, problem, mapping, and optionally ERT/ART tables and sparse optimizations, merged at the top level as Timeloop does) and evaluates the mapping, count for count with Timeloop/Sparseloop.\n",
	.epilogue =
	"Exit status: 0 success, 1 bad input or unwritable output, 2 usage error, 3 infeasible mapping (the reason is printed; nothing is written).\n",
	.run = cli_run_design_or_cascade,
	.job = JOB_MODEL,
	.options = CLI_OPT_BIT(CLI_OPT_CASCADE) | CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_FORMAT) |
		   CLI_OPT_BIT(CLI_OPT_ENERGY) | CLI_OPT_BIT(CLI_OPT_FOOTPRINT) |
		   CLI_OPT_BIT(CLI_OPT_RESIDUALS) |
		   CLI_OPT_BIT(CLI_OPT_TENSOR) | CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) |
		   CLI_OPT_BIT(CLI_OPT_ROOFLINE) | CLI_OPT_BIT(CLI_OPT_PRUNE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON | 1u << JOB_FORMAT_CSV,
	.opt_help = opt_help,
};
