/*
 * 'fiberloop ipu FILE...': plan and cost the PopSparse sparse
 * fully-connected layer of an 'ipu:' design (accel/) and print a summary,
 * JSON or a CSV row; with --exec also run the executor's emulation of the
 * device algorithm (exec/) on the model's plan and compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "cli/cli.h"
#include "exec/exec.h"
#include "report/report.h"
#include "specs/spec.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

extern const struct cli_command cmd_ipu;

struct ipu_args {
	char **files;
	size_t n_files;
	const char **tensors;
	size_t n_tensors;
	enum cli_format format;
	struct accel_ipu_options opt;
	bool exec;
	unsigned exec_seeds;
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

/* An unsigned number in [lo, hi] from 'v', or -1. */
static int parse_uint(const char *v, unsigned long long lo, unsigned long long hi,
		      unsigned long long *out)
{
	char *end;
	unsigned long long x;

	if (!v || !*v || *v == '-')
		return -1;
	x = strtoull(v, &end, 10);
	if (*end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int parse_args(int argc, char **argv, struct ipu_args *a)
{
	int i;

	a->files = xcalloc((size_t)argc, sizeof(*a->files));
	a->tensors = xcalloc((size_t)argc, sizeof(*a->tensors));
	for (i = 1; i < argc; i++) {
		const char *v;
		unsigned long long u;
		if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				a->files[a->n_files++] = argv[i];
		} else if ((v = opt_value(argc, argv, &i, "--format"))) {
			if (cli_parse_format(v, 7, &a->format) < 0)
				return cli_usage_error(&cmd_ipu, "unknown format '%s'", v);
		} else if ((v = opt_value(argc, argv, &i, "--tensor"))) {
			a->tensors[a->n_tensors++] = v;
		} else if ((v = opt_value(argc, argv, &i, "--samples"))) {
			if (parse_uint(v, 1, 1u << 20, &u) < 0)
				return cli_usage_error(&cmd_ipu, "--samples needs a count in [1, %u], "
						       "got '%s'", 1u << 20, v);
			a->opt.n_samples = (unsigned)u;
		} else if ((v = opt_value(argc, argv, &i, "--seed"))) {
			if (parse_uint(v, 0, UINT64_MAX, &u) < 0)
				return cli_usage_error(&cmd_ipu, "--seed needs an integer, got '%s'", v);
			a->opt.seed = u;
		} else if ((v = opt_value(argc, argv, &i, "--percentile"))) {
			char *end;
			double p = strtod(v, &end);
			if (*end || !(p > 0 && p <= 100))
				return cli_usage_error(&cmd_ipu, "--percentile needs a number in "
						       "(0, 100], got '%s'", v);
			a->opt.percentile = p / 100.0;
		} else if (!strcmp(argv[i], "--exec")) {
			a->exec = true;
		} else if ((v = opt_value(argc, argv, &i, "--exec-seeds"))) {
			if (parse_uint(v, 1, 1u << 16, &u) < 0)
				return cli_usage_error(&cmd_ipu, "--exec-seeds needs a count in "
						       "[1, %u], got '%s'", 1u << 16, v);
			a->exec = true;
			a->exec_seeds = (unsigned)u;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error(&cmd_ipu, "unknown or incomplete option '%s'", argv[i]);
		} else {
			a->files[a->n_files++] = argv[i];
		}
	}
	if (!a->n_files)
		return cli_usage_error(&cmd_ipu, "no input files");
	return 0;
}

/* The executor's configuration for the model's plan of 's'. */
static void exec_config(const struct spec_set *s, const struct accel_ipu_result *r, uint64_t seed,
			struct exec_ipu_config *c)
{
	memset(c, 0, sizeof(*c));
	c->px = r->plan.px;
	c->py = r->plan.py;
	c->pz = r->plan.pz;
	c->kernel_block = r->plan.kernel_block;
	c->z_grain = r->plan.gz;
	c->bucket_groups = r->buckets.nz_elems_per_bucket /
			   ((uint64_t)r->plan.kernel_block * r->plan.kernel_block);
	c->bucket_meta_words = r->buckets.meta_words_per_bucket;
	c->workers = s->ipu->device.workers;
	c->seed = seed;
}

/* Model vs executor: exact figures on actual data, the steps' mean over seeds otherwise. */
static int run_exec(const struct ipu_args *a, const struct spec_set *s,
		    const struct accel_ipu_result *r, struct strbuf *out)
{
	unsigned n = a->exec_seeds ? a->exec_seeds : 1, i;
	struct exec_ipu_config c;
	struct exec_ipu_result *er = xcalloc(n, sizeof(*er));
	int rc = CLI_EXIT_OK;

	for (i = 0; i < n; i++) {
		exec_config(s, r, (uint64_t)i + 1, &c);
		if (exec_ipu_run(s, &c, &er[i]) < 0) {
			fprintf(stderr, "fiberloop ipu: the executor cannot run this design: %s\n",
				er[i].reason);
			rc = CLI_EXIT_BAD_INPUT;
			n = i + 1;
			break;
		}
	}
	if (rc == CLI_EXIT_OK && report_ipu_exec_text(s, r, er, n, out) < 0)
		rc = CLI_EXIT_INFEASIBLE;
	for (i = 0; i < n; i++)
		exec_ipu_result_release(&er[i]);
	free(er);
	return rc;
}

static int run(int argc, char **argv)
{
	struct ipu_args a = { .opt = ACCEL_IPU_OPTIONS_INIT };
	struct spec_load_options lo = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct accel_ipu_result *r = NULL;
	struct spec_set *s;
	char err[256];
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		goto done;
	lo.tensor_files = a.tensors;
	lo.n_tensor_files = a.n_tensors;
	s = cli_load_specs(a.files, a.n_files, &lo);
	if (!s) {
		rc = CLI_EXIT_BAD_INPUT;
		goto done;
	}
	if (!s->ipu) {
		fprintf(stderr, "fiberloop ipu: no 'ipu' design in the input files\n");
		rc = CLI_EXIT_BAD_INPUT;
		goto free_specs;
	}
	r = xmalloc(sizeof(*r));
	if (accel_ipu_eval(s, &a.opt, r, err, sizeof(err)) < 0 &&
	    r->status != ACCEL_IPU_OUT_OF_MEMORY && r->status != ACCEL_IPU_OVERFLOW) {
		fprintf(stderr, "fiberloop ipu: %s: %s\n", accel_ipu_status_name(r->status), err);
		rc = CLI_EXIT_INFEASIBLE;
		goto free_specs;
	}
	if (a.format == CLI_FORMAT_JSON) {
		report_ipu_json(s, r, (const char *const *)a.files, a.n_files, &out);
	} else if (a.format == CLI_FORMAT_CSV) {
		report_ipu_csv_header(&out);
		report_ipu_csv_row(s, r, &out);
	} else {
		report_ipu_text(s, r, &out);
	}
	if (r->status != ACCEL_IPU_OK) {
		fprintf(stderr, "fiberloop ipu: %s: %s\n", accel_ipu_status_name(r->status), r->reason);
		rc = CLI_EXIT_INFEASIBLE;
	}
	if (rc == CLI_EXIT_OK && a.exec)
		rc = run_exec(&a, s, r, &out);
	fwrite(out.buf, 1, out.len, stdout);
free_specs:
	spec_set_free(s);
done:
	strbuf_release(&out);
	free(r);
	free(a.files);
	free(a.tensors);
	return rc;
}

const struct cli_command cmd_ipu = {
	.name = "ipu",
	.summary = "Plan and cost a PopSparse sparse layer on a Graphcore IPU.",
	.usage = "ipu FILE... [--format text|json|csv] [--tensor W=FILE] [--samples N] "
		 "[--seed N] [--percentile P] [--exec] [--exec-seeds N]",
	.help =
	"Loads FILE... holding an 'ipu:' design (a device preset, gc200 or bow, with\n"
	"overrides, and a sparse fully-connected layer; see docs/ipu.md), runs\n"
	"PopSparse's planner over P_X x P_Y x P_Z <= tiles, sizes the buckets, runs the\n"
	"partitioner on W's pattern (actual data) or on patterns drawn from W's density\n"
	"model, and costs every pass: the planner's estimate, the realized distribution,\n"
	"propagation steps and reduction, and the dense IPU matmul of the same pass.\n"
	"\n"
	"Options:\n"
	"  --format FMT       text (a summary, the default), json, or csv (a header\n"
	"                     row and a data row)\n"
	"  --tensor W=FILE    W's non-zero blocks from a Matrix Market or dense text file\n"
	"  --samples N        patterns drawn from the density model (default 256)\n"
	"  --seed N           seed of those draws (default 1)\n"
	"  --percentile P     percentile of the propagation steps reported (default 99)\n"
	"  --exec             also emulate the device algorithm on real values (exec/)\n"
	"                     with the model's plan, check the numbers against a dense\n"
	"                     product and compare steps and bucket fills with the model\n"
	"  --exec-seeds N     emulate N patterns (seeds 1..N) and compare the model's\n"
	"                     expected steps with their mean (within 3 standard errors)\n"
	"\n"
	"Exit status: 0 success, 1 bad input, 2 usage error, 3 no plan, overflowing\n"
	"buckets, a tile out of memory, or a model/executor disagreement.\n",
	.run = run,
};
