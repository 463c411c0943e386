/*
 * 'fiberloop stpu FILE...': evaluate a Sparse-TPU design (the 'stpu' key;
 * docs/stpu.md): pack its matrix with STPU-C0, STPU-C1, KMZ and no packing
 * (TPU), count the SpMV's cycles, PE states and energy, and print them side
 * by side (or JSON, or CSV). With --validate, also simulate every scheme
 * cycle by cycle (exec/) on the same matrix and print the model beside the
 * simulation; the exit status is 1 unless every count is equal and every
 * output is right. -o DIR writes the JSON document (and the validation
 * table) atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "cli/cli.h"
#include "exec/exec.h"
#include "report/report.h"
#include "specs/spec.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

extern const struct cli_command cmd_stpu;

struct stpu_args {
	char **files;
	size_t n_files;
	const char *out_dir;
	enum cli_format format;
	bool validate;
	uint64_t sim_seed;
	struct accel_stpu_options opt;
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

/* "tpu,c0,c1,kmz" -> a mask of schemes; -1 on an unknown name. */
static int parse_schemes(const char *v, unsigned *mask)
{
	static const char *const names[ACCEL_STPU_N_SCHEMES] = { "tpu", "c0", "c1", "kmz" };
	char *copy = xstrdup(v), *tok, *save = NULL;
	int rc = 0;
	unsigned k;

	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == ACCEL_STPU_N_SCHEMES)
			rc = -1;
		else
			*mask |= 1u << k;
	}
	free(copy);
	return *mask ? rc : -1;
}

static int parse_args(int argc, char **argv, struct stpu_args *a)
{
	int i;

	a->files = xcalloc((size_t)argc, sizeof(*a->files));
	for (i = 1; i < argc; i++) {
		const char *v;
		char *end;
		if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				a->files[a->n_files++] = argv[i];
		} else if ((v = opt_value(argc, argv, &i, "-o")) ||
			   (v = opt_value(argc, argv, &i, "--output"))) {
			a->out_dir = v;
		} else if ((v = opt_value(argc, argv, &i, "--format"))) {
			if (cli_parse_format(v, 7, &a->format) < 0)
				return cli_usage_error(&cmd_stpu, "unknown format '%s'", v);
		} else if ((v = opt_value(argc, argv, &i, "--schemes"))) {
			if (parse_schemes(v, &a->opt.schemes_mask) < 0)
				return cli_usage_error(&cmd_stpu, "unknown scheme list '%s' "
						       "(expected names among tpu,c0,c1,kmz)", v);
		} else if ((v = opt_value(argc, argv, &i, "--sim-seed"))) {
			a->sim_seed = strtoull(v, &end, 10);
			if (!*v || *end)
				return cli_usage_error(&cmd_stpu, "--sim-seed needs an integer, got '%s'",
						       v);
		} else if (!strcmp(argv[i], "--validate")) {
			a->validate = true;
		} else if (!strcmp(argv[i], "--no-estimate")) {
			a->opt.estimate = false;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error(&cmd_stpu, "unknown or incomplete option '%s'", argv[i]);
		} else {
			a->files[a->n_files++] = argv[i];
		}
	}
	if (!a->n_files)
		return cli_usage_error(&cmd_stpu, "no input files");
	return 0;
}

/* Simulate every evaluated scheme on the model's matrix. Returns 0, or -1 after printing. */
static int simulate(const struct spec_set *s, const struct accel_stpu_result *r, uint64_t seed,
		    struct exec_stpu_result *sim, bool *ran)
{
	struct arena a = ARENA_INIT;
	char err[256];
	const struct spec_matrix *m = accel_stpu_matrix(s->stpu, &a, err, sizeof(err));
	unsigned k;
	int rc = 0;

	if (!m) {
		fprintf(stderr, "fiberloop stpu: %s\n", err);
		return -1;
	}
	for (k = 0; k < ACCEL_STPU_N_SCHEMES && rc == 0; k++) {
		if (!r->scheme[k].evaluated)
			continue;
		if (exec_stpu_run(s->stpu, m, (enum exec_stpu_scheme)k, seed, &sim[k], err,
				  sizeof(err)) < 0) {
			fprintf(stderr, "fiberloop stpu: %s\n", err);
			rc = -1;
		}
		ran[k] = rc == 0;
	}
	arena_release(&a);
	return rc;
}

/* Print the chosen format and write -o files. */
static int emit(const struct stpu_args *a, const struct accel_stpu_result *r,
		const struct exec_stpu_result *sim, const bool *ran)
{
	static const char *const names[2] = { "fiberloop-stpu.json", "fiberloop-stpu.validation.txt" };
	struct strbuf json = STRBUF_INIT, val = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	const struct strbuf *bufs[2] = { &json, &val };
	unsigned diffs = 0;
	int rc = CLI_EXIT_OK;

	report_stpu_json(r, a->validate ? sim : NULL, a->validate ? ran : NULL,
			 (const char *const *)a->files, a->n_files, &json);
	if (a->validate)
		diffs = report_stpu_validation(r, sim, ran, &val);
	if (a->format == CLI_FORMAT_JSON) {
		strbuf_addstr(&out, json.buf);
	} else if (a->format == CLI_FORMAT_CSV) {
		report_stpu_csv_header(&out);
		report_stpu_csv_row(r, &out);
	} else {
		report_stpu_text(r, &out);
		if (a->validate) {
			strbuf_addch(&out, '\n');
			strbuf_addstr(&out, val.buf);
		}
	}
	if (a->out_dir && write_files_atomic(a->out_dir, names, bufs, a->validate ? 2 : 1, &err) < 0) {
		fprintf(stderr, "fiberloop stpu: %s\n", err.buf);
		rc = CLI_EXIT_BAD_INPUT;
	}
	if (rc == CLI_EXIT_OK) {
		fwrite(out.buf, 1, out.len, stdout);
		if (diffs) {
			fprintf(stderr, "fiberloop stpu: the model and the simulation differ "
				"(%u differences)\n", diffs);
			rc = CLI_EXIT_BAD_INPUT;
		}
	}
	strbuf_release(&json);
	strbuf_release(&val);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

static int run(int argc, char **argv)
{
	struct stpu_args a = { .opt = ACCEL_STPU_OPTIONS_INIT, .sim_seed = 1 };
	struct spec_load_options lo = { .require_mapping = false };
	struct accel_stpu_result *r = NULL;
	struct exec_stpu_result sim[ACCEL_STPU_N_SCHEMES];
	bool ran[ACCEL_STPU_N_SCHEMES] = { false };
	struct spec_set *s = NULL;
	char err[256];
	int rc;

	memset(sim, 0, sizeof(sim));
	rc = parse_args(argc, argv, &a);
	if (rc)
		goto out;
	s = cli_load_specs(a.files, a.n_files, &lo);
	if (!s) {
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	if (!s->stpu) {
		fprintf(stderr, "fiberloop stpu: no 'stpu' design in the input files\n");
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	r = xmalloc(sizeof(*r));
	if (accel_stpu_eval(s, &a.opt, r, err, sizeof(err)) < 0) {
		fprintf(stderr, "fiberloop stpu: %s\n", err);
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	if (a.validate && simulate(s, r, a.sim_seed, sim, ran) < 0) {
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	rc = emit(&a, r, sim, ran);
out:
	free(r);
	spec_set_free(s);
	free(a.files);
	return rc;
}

const struct cli_command cmd_stpu = {
	.name = "stpu",
	.summary = "Evaluate a Sparse-TPU design: packing, SpMV cycles and energy vs TPU and KMZ.",
	.usage = "stpu FILE... [-o DIR] [--format text|json|csv] [--validate] "
		 "[--schemes LIST] [--sim-seed N] [--no-estimate]",
	.help =
	"Loads FILE... holding an 'stpu' design (array, packing, energy, matrix;\n"
	"docs/stpu.md), packs the matrix with every scheme (TPU: none, STPU-C0,\n"
	"STPU-C1, KMZ), counts the SpMV's blocks, cycles, PE states and buffer\n"
	"accesses with the array's scheduling rules, and prices them with the\n"
	"energy table. The density-aware estimate of STPU-C0's packed width is\n"
	"printed beside the exact packer's for uniform matrices.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR     also write DIR/fiberloop-stpu.json (and, with\n"
	"                       --validate, DIR/fiberloop-stpu.validation.txt)\n"
	"  --format FMT         text (the default), json, or csv (header + row)\n"
	"  --validate           simulate every scheme cycle by cycle on the same\n"
	"                       matrix and compare: every count must be equal and\n"
	"                       every output equal to the dense product\n"
	"  --schemes LIST       evaluate only these (comma-separated tpu,c0,c1,kmz;\n"
	"                       the ratios need tpu)\n"
	"  --sim-seed N         seed of the simulated values (default 1)\n"
	"  --no-estimate        skip the density-aware estimate\n"
	"\n"
	"Exit status: 0 success, 1 bad input, unwritable output or a model/simulation\n"
	"difference, 2 usage error.\n",
	.run = run,
};
