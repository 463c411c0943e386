/*
 * 'fiberloop exec': placeholder until its issue lands.
 */
#include <stdio.h>

#include "cli/cli.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "fiberloop exec: not available in this build yet\n");
	return CLI_EXIT_USAGE;
}

const struct cli_command cmd_exec = {
	.name = "exec",
	.summary = "(not available yet)",
	.usage = "exec FILE...",
	.help = "",
	.run = run,
};
