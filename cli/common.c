#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "specs/spec.h"
#include "util/diag.h"

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "fiberloop %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: fiberloop %s\n", cmd->usage);
	fprintf(stderr, "Try 'fiberloop help %s' for more information.\n", cmd->name);
	return CLI_EXIT_USAGE;
}

void cli_print_help(const struct cli_command *cmd)
{
	printf("usage: fiberloop %s\n\n%s\n", cmd->usage, cmd->summary);
	if (cmd->help && *cmd->help)
		printf("\n%s", cmd->help);
}

bool cli_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int cli_parse_format(const char *s, unsigned allowed, enum cli_format *out)
{
	static const char *const names[] = { "text", "json", "csv" };
	unsigned i;
	for (i = 0; i < 3; i++) {
		if ((allowed & (1u << i)) && !strcmp(s, names[i])) {
			*out = (enum cli_format)i;
			return 0;
		}
	}
	return -1;
}

struct spec_set *cli_load_specs(char **paths, size_t n_paths,
				const struct spec_load_options *opt)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_load((const char *const *)paths, n_paths, opt, &dl);
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}
