/*
 * 'fiberloop energy FILE...': the design's energy and area as Accelergy
 * computes them (docs/energy.md): every component's class expanded and
 * priced, printed as a table; with -o DIR, Accelergy's files ERT.yaml,
 * ERT_summary.yaml (with the estimator that priced each primitive),
 * ART.yaml and ART_summary.yaml, written atomically.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = "write DIR/ERT.yaml, DIR/ERT_summary.yaml, DIR/ART.yaml and\n"
			   "DIR/ART_summary.yaml (Accelergy's layout; 'model' reads them)",
};

const struct cli_command cmd_energy = {
	.name = "energy",
	.summary = "Estimate energy per action and area per component, as Accelergy does.",
	.usage = "energy [OPTION]... FILE...",
	.help =
	"Loads FILE... (an architecture with its compound component classes; a problem and a mapping are not needed) and estimates every storage level and the compute unit the way Accelergy does: each component's class is expanded (attribute expressions, subcomponents, actions) down to primitives, and each primitive is priced by the model of the plug-in Accelergy would use (CACTI-like SRAM, DRAM per type, Aladdin's and the component library's tables, NeuroSim's adder) at the design's technology. Prints the energy of every action and the area of every component; a user ERT/ART in FILE... is not used here. 'model', 'map', 'sweep' and 'batch' make the same estimate for the components a design's ERT/ART leave open.\n",
	.epilogue =
	"Exit status: 0 success, 1 bad input (an unknown class, a missing 'must_specify' attribute, an attribute expression that fails, a technology outside a model's range) or unwritable output, 2 usage error.\n",
	.run = cli_run_design,
	.job = JOB_ENERGY,
	.options = CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR),
	.formats = 1u << JOB_FORMAT_TEXT,
	.opt_help = opt_help,
};
