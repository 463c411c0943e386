/*
 * 'fiberloop stpu FILE...': evaluate a Sparse-TPU design (the 'stpu' key;
 * docs/stpu.md): pack its matrix with STPU-C0, STPU-C1, KMZ and no packing
 * (TPU), count the SpMV's cycles, PE states and energy, and print them side
 * by side (or JSON, or CSV). The same as 'model' on such a design; 'exec'
 * simulates it cycle by cycle and 'validate' compares the two.
 */
#include "cli/cli.h"

static const char *const opt_help[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = "also write DIR/fiberloop-stpu.json",
	[CLI_OPT_FORMAT] = "what to print: text (one column per scheme, the default),\n"
			   "json, or csv (a header row and a data row)",
};

const struct cli_command cmd_stpu = {
	.name = "stpu",
	.summary = "Evaluate a Sparse-TPU design: packing, SpMV cycles and energy vs TPU and KMZ.",
	.usage = "stpu [OPTION]... FILE...",
	.help =
	"Loads FILE... holding an 'stpu' design (array, packing, energy, matrix; docs/stpu.md), packs the matrix with every scheme (TPU: none, STPU-C0, STPU-C1, KMZ), counts the SpMV's blocks, cycles, PE states and buffer accesses with the array's scheduling rules, and prices them with the energy table; the density-aware estimate of STPU-C0's packed width is printed beside the exact packer's for uniform matrices. 'fiberloop exec' on the same files simulates every scheme cycle by cycle, and 'fiberloop validate' requires the model and the simulation to agree on every count and the simulated product to be exact.\n",
	.epilogue = "Exit status: 0 success, 1 bad input or unwritable output, 2 usage error.\n",
	.run = cli_run_design,
	.job = JOB_MODEL,
	.kind = "stpu",
	.options = CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_FORMAT) |
		   CLI_OPT_BIT(CLI_OPT_SET) | CLI_OPT_BIT(CLI_OPT_VAR),
	.formats = 1u << JOB_FORMAT_TEXT | 1u << JOB_FORMAT_JSON | 1u << JOB_FORMAT_CSV,
	.opt_help = opt_help,
};
