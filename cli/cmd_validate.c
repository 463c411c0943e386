/*
 * 'fiberloop validate FILE...': evaluate the design with the analytical
 * model and execute it with the reference executor over K seeds; print, per
 * field, the model's value, the executor's mean and standard error and the
 * relative difference, and flag the fields outside tolerance. Exit 0 only
 * when every field is within tolerance.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/exec_report.h"
#include "exec/exec.h"
#include "model/model.h"
#include "specs/spec.h"
#include "util/xalloc.h"

extern const struct cli_command cmd_validate;

/* One compared quantity: the model's value and the executor's samples. */
struct vfield {
	char name[256];
	double model;
	double sum, sumsq;
	unsigned n;
};

struct vtable {
	size_t n, alloc;
	struct vfield *f;
};

/* Add sample 'v' of field 'name' (created on the first seed with 'model'). */
static void sample(struct vtable *vt, size_t *at, const char *name, double model, double v)
{
	struct vfield *f;

	if (*at == vt->n) {
		XGROW(vt->f, vt->n + 1, vt->alloc);
		f = &vt->f[vt->n++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->model = model;
	}
	f = &vt->f[(*at)++];
	f->sum += v;
	f->sumsq += v * v;
	f->n++;
}

static double per(double total, uint64_t instances)
{
	return total / (double)(instances ? instances : 1);
}

static void sample_access(struct vtable *vt, size_t *at, const char *prefix, const char *what,
			  const struct exec_access *a, uint64_t inst, uint64_t alg,
			  const uint64_t *actions)
{
	static const char *const cls[] = { "actual", "gated", "skipped" };
	char name[256];
	int k;

	snprintf(name, sizeof(name), "%s %s algorithmic", prefix, what);
	sample(vt, at, name, (double)alg, per((double)a->algorithmic, inst));
	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(name, sizeof(name), "%s %s %s", prefix, what, cls[k]);
		sample(vt, at, name, (double)actions[k], per((double)a->n[k], inst));
	}
}

static void sample_format(struct vtable *vt, size_t *at, const char *prefix,
			  const struct exec_tensor_stats *st, const struct model_tile *mt)
{
	static const char *const ops[] = { "format reads", "format fills", "format updates" };
	static const char *const cls[] = { "actual", "gated", "skipped" };
	const struct exec_format_access *fa[] = { &st->fmt_reads, &st->fmt_fills, &st->fmt_updates };
	char name[256];
	unsigned op, k, r;

	for (op = 0; op < 3; op++)
		for (k = 0; k < EXEC_N_CLASSES; k++)
			for (r = 0; r < st->n_format_ranks && r < MODEL_MAX_FMT_RANKS; r++) {
				snprintf(name, sizeof(name), "%s %s %s rank %u metadata", prefix, ops[op],
					 cls[k], r);
				sample(vt, at, name, (double)mt->fmt_access[op][k][r][0],
				       per(fa[op]->md_units[k][r], st->instances));
				snprintf(name, sizeof(name), "%s %s %s rank %u payload", prefix, ops[op],
					 cls[k], r);
				sample(vt, at, name, (double)mt->fmt_access[op][k][r][1],
				       per(fa[op]->pl_units[k][r], st->instances));
			}
}

static void sample_tile(struct vtable *vt, size_t *at, const struct spec_set *s, unsigned l,
			unsigned t, const struct exec_tensor_stats *st, const struct model_tile *mt)
{
	char prefix[96], name[256];
	uint64_t n = st->instances;
	const uint64_t *a = mt->actions;

	snprintf(prefix, sizeof(prefix), "%s %s", s->arch.levels[l].name,
		 s->workload.tensors[t].name);
	sample_access(vt, at, prefix, "reads", &st->reads, n, mt->reads,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_READ], a[MODEL_OP_GATED_READ],
					  a[MODEL_OP_SKIPPED_READ] });
	sample_access(vt, at, prefix, "fills", &st->fills, n, mt->fills,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_FILL], a[MODEL_OP_GATED_FILL],
					  a[MODEL_OP_SKIPPED_FILL] });
	sample_access(vt, at, prefix, "updates", &st->updates, n, mt->updates,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_UPDATE], a[MODEL_OP_GATED_UPDATE],
					  a[MODEL_OP_SKIPPED_UPDATE] });
	snprintf(name, sizeof(name), "%s temporal reductions", prefix);
	sample(vt, at, name, (double)mt->temporal_reductions, per((double)st->temporal_reductions, n));
	snprintf(name, sizeof(name), "%s tile shape", prefix);
	sample(vt, at, name, (double)mt->shape, (double)st->tile_shape);
	snprintf(name, sizeof(name), "%s instances", prefix);
	sample(vt, at, name, (double)mt->replication, (double)n);
	if (s->workload.tensors[t].read_write) {
		snprintf(name, sizeof(name), "%s partition", prefix);
		sample(vt, at, name, (double)mt->partition_size, per((double)st->partition, n));
	}
	if (st->has_format && mt->has_metadata)
		sample_format(vt, at, prefix, st, mt);
}

/* True when some level spatially skips (the busy units are then compared). */
static bool has_spatial_skipping(const struct spec_set *s)
{
	unsigned i, g;

	for (i = 0; i < s->sparse.n_targets; i++)
		for (g = 0; g < s->sparse.targets[i].n_groups; g++)
			if (s->sparse.targets[i].groups[g].kind == SPEC_SAF_SPATIAL_SKIPPING)
				return true;
	return false;
}

/* Add one execution's values, in a fixed order, to the table. */
static void sample_run(struct vtable *vt, const struct spec_set *s, const struct exec_result *r,
		       const struct model_result *mr)
{
	size_t at = 0;
	unsigned l, t;

	sample(vt, &at, "compute algorithmic", (double)mr->compute.algorithmic, (double)r->computes);
	sample(vt, &at, "compute actual", (double)mr->compute.random,
	       (double)r->computes_class[EXEC_ACTUAL]);
	sample(vt, &at, "compute gated", (double)mr->compute.gated,
	       (double)r->computes_class[EXEC_GATED]);
	sample(vt, &at, "compute skipped", (double)mr->compute.skipped,
	       (double)r->computes_class[EXEC_SKIPPED]);
	if (has_spatial_skipping(s)) {
		sample(vt, &at, "compute instances (max)",
		       (double)(mr->compute.max_x * mr->compute.max_y),
		       (double)r->compute_busy_max);
		sample(vt, &at, "compute instances (average)", mr->compute.avg_replication,
		       r->compute_busy_avg);
	}
	for (l = 0; l < r->n_levels; l++)
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (st->kept || mr->tiles[l][t].is_kept)
				sample_tile(vt, &at, s, l, t, st, &mr->tiles[l][t]);
		}
}

/*
 * A field is within tolerance when the model is within 'sigmas' standard
 * errors of the executor's mean, or within 'tol' of it relatively, or
 * within one count (the model rounds its expected values to integers).
 */
static bool within(const struct vfield *f, const struct exec_cli *c, double *mean, double *se,
		   double *rel)
{
	double var;

	*mean = f->sum / f->n;
	var = f->n > 1 ? (f->sumsq - f->sum * f->sum / f->n) / (f->n - 1) : 0;
	*se = var > 0 ? sqrt(var / f->n) : 0;
	*rel = *mean != 0 ? (f->model - *mean) / fabs(*mean) : f->model != 0 ? INFINITY : 0;
	return fabs(f->model - *mean) <= c->sigmas * *se + 1e-9 || fabs(*rel) <= c->tolerance ||
	       fabs(f->model - *mean) <= 1.0;
}

static unsigned print_table(const struct vtable *vt, const struct exec_cli *c)
{
	unsigned bad = 0, shown = 0;
	size_t i;

	printf("%-56s %14s %24s %9s\n", "field", "model", "executor mean +- se", "diff");
	for (i = 0; i < vt->n; i++) {
		const struct vfield *f = &vt->f[i];
		double mean, se, rel;
		bool ok = within(f, c, &mean, &se, &rel);
		char ex[48];
		if (f->model == 0 && mean == 0)
			continue;
		snprintf(ex, sizeof(ex), "%.2f +- %.2f", mean, se);
		printf("%-56s %14.2f %24s %+8.2f%% %s\n", f->name, f->model, ex, 100 * rel,
		       ok ? "ok" : "OUTSIDE");
		bad += !ok;
		shown++;
	}
	printf("%u fields compared, %u outside tolerance (%.3g standard errors, %.3g%%, or one "
	       "count)\n", shown, bad, c->sigmas, 100 * c->tolerance);
	return bad;
}

/* Run the model once; NULL-free result in 'mr'. Returns 0 or an exit code. */
static int run_model(const struct spec_set *s, const struct exec_cli *c, struct model_result *mr)
{
	struct model_options mo = MODEL_OPTIONS_INIT;
	char err[256];
	struct model_ws *ws;

	mo.footprint = c->opt.footprint == EXEC_FOOTPRINT_EXACT ? MODEL_FOOTPRINT_EXACT
								 : MODEL_FOOTPRINT_TIMELOOP;
	ws = model_ws_new(s, &mo, err, sizeof(err));
	if (!ws) {
		fprintf(stderr, "fiberloop validate: %s\n", err);
		return CLI_EXIT_BAD_INPUT;
	}
	if (model_eval(ws, s->mapping, mr) < 0) {
		fprintf(stderr, "fiberloop validate: the mapping is infeasible: %s\n", mr->reason);
		model_ws_free(ws);
		return CLI_EXIT_INFEASIBLE;
	}
	model_ws_free(ws);
	return 0;
}

/* True when no tensor is drawn at random (the executor is deterministic). */
static bool deterministic(const struct spec_set *s)
{
	unsigned t;
	for (t = 0; t < s->workload.n_tensors; t++) {
		const struct spec_density *d = &s->workload.tensors[t].density;
		if (s->workload.tensors[t].read_write || d->kind == SPEC_DENSITY_BANDED ||
		    d->kind == SPEC_DENSITY_ACTUAL)
			continue;
		if (d->kind == SPEC_DENSITY_FIXED_STRUCTURED && (d->is_default || d->density >= 1))
			continue;
		return false;
	}
	return true;
}

static int validate(const struct spec_set *s, struct exec_cli *c)
{
	struct model_result *mr = xcalloc(1, sizeof(*mr));
	struct vtable vt = { 0, 0, NULL };
	unsigned k, seeds;
	int rc;

	if ((rc = run_model(s, c, mr)))
		goto out;
	seeds = deterministic(s) ? 1 : c->seeds;
	printf("Validating the model against the executor: %u seed%s (retention %s, footprint "
	       "%s)\n", seeds, seeds > 1 ? "s" : "", exec_retention_name(c->opt.retention),
	       exec_footprint_name(c->opt.footprint));
	for (k = 0; k < seeds; k++) {
		struct exec_result r;
		c->opt.seed = k + 1;
		if (exec_run(s, &c->opt, &r) < 0) {
			fprintf(stderr, "fiberloop validate: cannot execute this design: %s\n",
				r.reason);
			exec_result_release(&r);
			rc = CLI_EXIT_BAD_INPUT;
			goto out;
		}
		if (r.numeric_checked && !r.numeric_ok) {
			fprintf(stderr, "fiberloop validate: BUG: the executed Einsum differs from the "
				"dense evaluation (seed %u)\n", k + 1);
			exec_result_release(&r);
			rc = CLI_EXIT_BAD_INPUT;
			goto out;
		}
		sample_run(&vt, s, &r, mr);
		exec_result_release(&r);
	}
	rc = print_table(&vt, c) ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
out:
	free(vt.f);
	free(mr);
	return rc;
}

static int run(int argc, char **argv)
{
	struct exec_cli c;
	struct spec_set *s;
	int rc;

	if ((rc = exec_cli_parse(&cmd_validate, argc, argv, &c, true))) {
		exec_cli_release(&c);
		return rc;
	}
	s = exec_cli_load(&c);
	rc = s ? validate(s, &c) : CLI_EXIT_BAD_INPUT;
	spec_set_free(s);
	exec_cli_release(&c);
	return rc;
}

const struct cli_command cmd_validate = {
	.name = "validate",
	.summary = "Compare the analytical model with the reference executor.",
	.usage = "validate [--seeds K] [--tensor NAME=FILE]... [--tolerance R] [--sigmas S]\n"
		 "                      [--retention translation|overlap] [--footprint timeloop|exact] FILE...",
	.help =
		"Evaluates the design with the model, executes it with the reference executor\n"
		"on K seeds (once when no tensor is random), and prints for every count (reads,\n"
		"fills, updates: algorithmic, actual, gated, skipped; format accesses per rank;\n"
		"temporal reductions; tile shapes; instances; computes) the model's value, the\n"
		"executor's mean +- standard error and the relative difference. A field is\n"
		"within tolerance when the model lies within S standard errors of the mean, or\n"
		"within R relatively, or within one count.\n"
		"\n"
		"Options:\n"
		"  --seeds K           executions with seeds 1..K (default 30)\n"
		"  --tolerance R       relative tolerance (default 0.01)\n"
		"  --sigmas S          standard errors allowed (default 3)\n"
		"  --tensor NAME=FILE  actual data for tensor NAME (both sides use it)\n"
		"  --retention, --footprint   as for 'fiberloop exec'\n"
		"\n"
		"Exit status: 0 every field within tolerance, 1 some field outside (or bad\n"
		"input), 2 usage, 3 infeasible mapping.\n",
	.run = run,
};
