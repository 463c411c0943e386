/*
 * 'fiberloop check': placeholder until its issue lands.
 */
#include <stdio.h>

#include "cli/cli.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "fiberloop check: not available in this build yet\n");
	return CLI_EXIT_USAGE;
}

const struct cli_command cmd_check = {
	.name = "check",
	.summary = "(not available yet)",
	.usage = "check FILE...",
	.help = "",
	.run = run,
};
