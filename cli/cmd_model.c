/*
 * 'fiberloop model': evaluate the architecture + workload + mapping given in
 * FILE... and print a summary (or JSON, or CSV); with -o DIR also write
 * Timeloop-compatible stats.txt and map.txt plus a JSON document, all
 * atomically and only when the evaluation succeeded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

extern const struct cli_command cmd_model;

struct model_args {
	char **files;
	size_t n_files;
	const char *out_dir;
	enum cli_format format;
	struct model_options opt;
};

/* The value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int parse_footprint(const char *v, enum model_footprint *out)
{
	if (!strcmp(v, "timeloop"))
		*out = MODEL_FOOTPRINT_TIMELOOP;
	else if (!strcmp(v, "exact"))
		*out = MODEL_FOOTPRINT_EXACT;
	else
		return -1;
	return 0;
}

static int check_preset(const char *name)
{
	const char *const *names = model_energy_preset_names();
	size_t n = 0;
	const char *hint;

	while (names[n]) {
		if (!strcmp(names[n], name))
			return 0;
		n++;
	}
	hint = diag_suggest(name, names, n);
	return cli_usage_error(&cmd_model, "unknown energy preset '%s'%s%s%s", name,
			       hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
}

static int parse_args(int argc, char **argv, struct model_args *a)
{
	int i;

	a->files = xcalloc((size_t)argc, sizeof(*a->files));
	for (i = 1; i < argc; i++) {
		const char *v;
		if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				a->files[a->n_files++] = argv[i];
		} else if ((v = opt_value(argc, argv, &i, "-o")) ||
			   (v = opt_value(argc, argv, &i, "--output"))) {
			a->out_dir = v;
		} else if ((v = opt_value(argc, argv, &i, "--format"))) {
			if (cli_parse_format(v, 7, &a->format) < 0)
				return cli_usage_error(&cmd_model, "unknown format '%s'", v);
		} else if ((v = opt_value(argc, argv, &i, "--energy"))) {
			if (check_preset(v))
				return CLI_EXIT_USAGE;
			a->opt.energy_preset = v;
		} else if ((v = opt_value(argc, argv, &i, "--footprint"))) {
			if (parse_footprint(v, &a->opt.footprint) < 0)
				return cli_usage_error(&cmd_model, "unknown footprint '%s'", v);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error(&cmd_model, "unknown or incomplete option '%s'",
					       argv[i]);
		} else {
			a->files[a->n_files++] = argv[i];
		}
	}
	if (!a->n_files)
		return cli_usage_error(&cmd_model, "no input files");
	return 0;
}

/* Write the three output files of -o DIR. Returns 0, or -1 after printing. */
static int write_outputs(const char *dir, struct strbuf *const bufs[3])
{
	static const char *const names[3] = {
		"fiberloop-model.stats.txt", "fiberloop-model.map.txt",
		"fiberloop-model.stats.json",
	};
	struct strbuf err = STRBUF_INIT;
	int rc = fileio_write_files_atomic(dir, names, (const struct strbuf *const *)bufs, 3, &err);

	if (rc < 0)
		fprintf(stderr, "fiberloop model: %s\n", err.buf);
	strbuf_release(&err);
	return rc;
}

/* Print the chosen format to stdout and write -o files. */
static int emit(const struct model_args *a, const struct spec_set *s,
		const struct model_result *r)
{
	struct strbuf stats = STRBUF_INIT, map = STRBUF_INIT, json = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	struct strbuf *const bufs[3] = { &stats, &map, &json };
	int rc = CLI_EXIT_OK;

	report_json(s, s->mapping, r, (const char *const *)a->files, a->n_files, &json);
	if (a->format == CLI_FORMAT_JSON) {
		strbuf_addstr(&out, json.buf);
	} else if (a->format == CLI_FORMAT_CSV) {
		report_csv_header(s, &out);
		report_csv_row(s, r, &out);
	} else {
		report_summary(s, r, &out);
	}
	if (a->out_dir) {
		report_stats_txt(s, r, &stats);
		report_map_txt(s, s->mapping, r, &map);
		if (write_outputs(a->out_dir, bufs) < 0)
			rc = CLI_EXIT_BAD_INPUT;
	}
	if (rc == CLI_EXIT_OK)
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&stats);
	strbuf_release(&map);
	strbuf_release(&json);
	strbuf_release(&out);
	return rc;
}

static int run(int argc, char **argv)
{
	struct model_args a = { .opt = MODEL_OPTIONS_INIT };
	struct spec_load_options lo = { .require_mapping = true };
	struct spec_set *s;
	struct model_ws *ws = NULL;
	struct model_result *r = NULL;
	char err[256];
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		goto out;
	s = cli_load_specs(a.files, a.n_files, &lo);
	if (!s) {
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	ws = model_ws_new(s, &a.opt, err, sizeof(err));
	if (!ws) {
		fprintf(stderr, "fiberloop model: %s\n", err);
		rc = CLI_EXIT_BAD_INPUT;
		goto free_specs;
	}
	r = xmalloc(sizeof(*r));
	if (model_eval(ws, s->mapping, r) < 0) {
		fprintf(stderr, "fiberloop model: infeasible mapping (%s): %s\n",
			model_status_name(r->status), r->reason);
		rc = CLI_EXIT_INFEASIBLE;
	} else {
		rc = emit(&a, s, r);
	}
	free(r);
	model_ws_free(ws);
free_specs:
	spec_set_free(s);
out:
	free(a.files);
	return rc;
}

const struct cli_command cmd_model = {
	.name = "model",
	.summary = "Evaluate a mapping of a workload on an architecture.",
	.usage = "model FILE... [-o DIR] [--format text|json|csv] [--energy PRESET] "
		 "[--footprint timeloop|exact]",
	.help =
	"Loads FILE... (architecture, problem, mapping, and optionally ERT/ART\n"
	"tables and sparse optimizations, merged at the top level as Timeloop does)\n"
	"and evaluates the mapping, count for count with Timeloop/Sparseloop.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR       also write DIR/fiberloop-model.stats.txt (Timeloop's\n"
	"                         layout), DIR/fiberloop-model.map.txt and\n"
	"                         DIR/fiberloop-model.stats.json (docs/json-schema.md)\n"
	"  --format FMT           what to print: text (a summary, the default), json,\n"
	"                         or csv (a header row and a data row)\n"
	"  --energy PRESET        energy preset for components without an ERT entry\n"
	"                         (horowitz45, accelergy45, eyeriss_norm; a user ERT\n"
	"                         always wins; the default is accelergy45)\n"
	"  --footprint MODE       timeloop (convex hulls, holes counted; the default)\n"
	"                         or exact (only the tensor points touched)\n"
	"\n"
	"Exit status: 0 success, 1 bad input or unwritable output, 2 usage error,\n"
	"3 infeasible mapping (the reason is printed; nothing is written).\n",
	.run = run,
};
