/*
 * 'fiberloop check FILE...': load and validate a design and print it as
 * parsed (text or JSON on stdout). Diagnostics go to stderr; exit 1 when
 * any error was found. Nothing is written to files.
 */
#include "cli/cli.h"

const struct cli_command cmd_check = {
	.name = "check",
	.summary = "Load and validate a design; print it as parsed.",
	.usage = "check [OPTION]... FILE...",
	.help =
		"Loads the YAML files (merged at the top level, as Timeloop does), checks\n"
		"every section and prints the design as fiberloop understood it: storage\n"
		"levels outermost first, the compute unit, tensors with their projections and\n"
		"densities, the mapping as a loop nest, sparse optimizations, which ERT entry\n"
		"feeds each component, the mapper settings and constraints. A mapping is\n"
		"optional. Every error is reported as file:line:col on stderr.\n",
	.epilogue = "Exit status: 0 valid, 1 errors were found, 2 usage error.\n",
	.run = cli_run_design,
	.job = JOB_CHECK,
	.options = CLI_OPT_BIT(CLI_OPT_FORMAT) | CLI_OPT_BIT(CLI_OPT_TENSOR) |
		   CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR) | CLI_OPT_BIT(CLI_OPT_PRUNE),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON,
};
