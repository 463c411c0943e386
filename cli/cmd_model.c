/*
 * 'fiberloop model': placeholder until its issue lands.
 */
#include <stdio.h>

#include "cli/cli.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "fiberloop model: not available in this build yet\n");
	return CLI_EXIT_USAGE;
}

const struct cli_command cmd_model = {
	.name = "model",
	.summary = "(not available yet)",
	.usage = "model FILE...",
	.help = "",
	.run = run,
};
