/*
 * 'validate': evaluate the design with the analytical model and execute it
 * with the reference executor over K seeds; per field, the model's value,
 * the executor's mean and standard error and the relative difference, with
 * the fields outside tolerance flagged.
 */
#include "job/job_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "model/model.h"
#include "util/xalloc.h"

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
			  const uint64_t *actions, double keep)
{
	static const char *const cls[] = { "actual", "gated", "skipped" };
	char name[256];
	int k;

	snprintf(name, sizeof(name), "%s %s algorithmic", prefix, what);
	sample(vt, at, name, (double)alg, per((double)a->algorithmic, inst));
	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(name, sizeof(name), "%s %s %s", prefix, what, cls[k]);
		sample(vt, at, name, (double)actions[k] * keep, per((double)a->n[k], inst));
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
				sample(vt, at, name, (double)mt->fmt_access[op][k][r][0] * mt->keep_ratio,
				       per(fa[op]->md_units[k][r], st->instances));
				snprintf(name, sizeof(name), "%s %s %s rank %u payload", prefix, ops[op],
					 cls[k], r);
				sample(vt, at, name, (double)mt->fmt_access[op][k][r][1] * mt->keep_ratio,
				       per(fa[op]->pl_units[k][r], st->instances));
			}
}

static void sample_tile(struct vtable *vt, size_t *at, const struct spec_set *s, unsigned l,
			unsigned t, const struct exec_tensor_stats *st, const struct model_tile *mt)
{
	char prefix[96], name[256];
	uint64_t n = st->instances;
	/* An instance whose compressed tile is empty holds and reads nothing: the
	 * executor counts it (with zeros), the model's actual counts are per
	 * instance that keeps a tile. A tile without metadata is read zeros and
	 * all in the executor: no scaling there. */
	double keep = mt->has_metadata ? mt->keep_ratio : 1.0;
	const uint64_t *a = mt->actions;

	snprintf(prefix, sizeof(prefix), "%s %s", s->arch.levels[l].name,
		 s->workload.tensors[t].name);
	sample_access(vt, at, prefix, "reads", &st->reads, n, mt->reads,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_READ], a[MODEL_OP_GATED_READ],
					  a[MODEL_OP_SKIPPED_READ] }, keep);
	sample_access(vt, at, prefix, "fills", &st->fills, n, mt->fills,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_FILL], a[MODEL_OP_GATED_FILL],
					  a[MODEL_OP_SKIPPED_FILL] }, keep);
	sample_access(vt, at, prefix, "updates", &st->updates, n, mt->updates,
		      (const uint64_t[]){ a[MODEL_OP_RANDOM_UPDATE], a[MODEL_OP_GATED_UPDATE],
					  a[MODEL_OP_SKIPPED_UPDATE] }, keep);
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
static bool within(const struct vfield *f, const struct job_options *c, double *mean,
		   double *se, double *rel)
{
	double var;

	*mean = f->sum / f->n;
	var = f->n > 1 ? (f->sumsq - f->sum * f->sum / f->n) / (f->n - 1) : 0;
	*se = var > 0 ? sqrt(var / f->n) : 0;
	*rel = *mean != 0 ? (f->model - *mean) / fabs(*mean) : f->model != 0 ? INFINITY : 0;
	return fabs(f->model - *mean) <= c->sigmas * *se + 1e-9 || fabs(*rel) <= c->tolerance ||
	       fabs(f->model - *mean) <= 1.0;
}

static unsigned print_table(const struct vtable *vt, const struct job_options *c,
			    unsigned *n_shown, struct strbuf *sb)
{
	unsigned bad = 0, shown = 0;
	size_t i;

	strbuf_addf(sb, "%-56s %14s %24s %9s\n", "field", "model", "executor mean +- se", "diff");
	for (i = 0; i < vt->n; i++) {
		const struct vfield *f = &vt->f[i];
		double mean, se, rel;
		bool ok = within(f, c, &mean, &se, &rel);
		char ex[48];
		if (f->model == 0 && mean == 0)
			continue;
		snprintf(ex, sizeof(ex), "%.2f +- %.2f", mean, se);
		strbuf_addf(sb, "%-56s %14.2f %24s %+8.2f%% %s\n", f->name, f->model, ex, 100 * rel,
		       ok ? "ok" : "OUTSIDE");
		bad += !ok;
		shown++;
	}
	strbuf_addf(sb, "%u fields compared, %u outside tolerance (%.3g standard errors, %.3g%%, or one "
	       "count)\n", shown, bad, c->sigmas, 100 * c->tolerance);
	*n_shown = shown;
	return bad;
}

/* Run the model once into 'mr'. */
static enum job_status run_model(const struct spec_set *s, const struct job_options *o,
				 struct model_result *mr, struct job_summary *sum)
{
	struct model_options mo;
	struct model_ws *ws;
	struct strbuf err = STRBUF_INIT;

	job_model_options(o, &mo);
	ws = model_ws_new(s, &mo, &err);
	if (!ws)
		return job_fail_with(sum, JOB_BAD_INPUT, &err);
	if (model_eval(ws, s->mapping, mr) < 0)
		job_fail(sum, JOB_INFEASIBLE, "the mapping is infeasible: %s", mr->reason);
	else
		job_summarize_model(s, o, s->mapping, mr, sum);
	model_ws_free(ws);
	return sum->status;
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

/* Execute on seeds 1..n and gather every field; the status on a failed execution. */
static enum job_status execute(const struct spec_set *s, const struct job_options *o,
			       const struct model_result *mr, unsigned seeds, struct vtable *vt,
			       struct job_summary *sum)
{
	struct exec_options eo;
	unsigned k;

	job_exec_options(o, &eo);
	for (k = 0; k < seeds; k++) {
		struct exec_result r;
		eo.seed = k + 1;
		if (exec_run(s, &eo, &r) < 0)
			job_fail(sum, JOB_BAD_INPUT, "cannot execute this design: %s", r.reason);
		else if (r.numeric_checked && !r.numeric_ok)
			job_fail(sum, JOB_MISMATCH, "BUG: the executed Einsum differs from the dense "
				 "evaluation (seed %u)", k + 1);
		else
			sample_run(vt, s, &r, mr);
		exec_result_release(&r);
		if (sum->status != JOB_OK)
			break;
	}
	return sum->status;
}

enum job_status job_run_validate(const struct spec_set *s, const struct job_options *o,
				 struct job_summary *sum, struct job_outputs *out)
{
	struct model_result *mr;
	struct vtable vt = { 0, 0, NULL };
	struct strbuf table = STRBUF_INIT;
	unsigned seeds;

	if (s->workload.n_ragged)
		return job_fail(sum, JOB_BAD_INPUT, "validate does not compare ragged workloads "
				"yet: 'fiberloop model' and 'fiberloop exec' print the same totals "
				"(docs/model.md, \"Ragged dimensions\")");
	mr = xcalloc(1, sizeof(*mr));

	if (run_model(s, o, mr, sum) != JOB_OK)
		goto out;
	seeds = deterministic(s) ? 1 : o->seeds;
	strbuf_addf(&out->print, "Validating the model against the executor: %u seed%s (retention "
		    "%s, footprint %s)\n", seeds, seeds > 1 ? "s" : "",
		    o->retention == JOB_RETAIN_OVERLAP ? "overlap" : "translation",
		    o->footprint == JOB_FOOTPRINT_EXACT ? "exact" : "timeloop");
	if (execute(s, o, mr, seeds, &vt, sum) != JOB_OK)
		goto out;
	sum->n_outside = print_table(&vt, o, &sum->n_fields, &table);
	if (o->want & JOB_WANT_PRINT)
		strbuf_addbuf(&out->print, &table);
	if (sum->n_outside)
		job_fail(sum, JOB_MISMATCH, "%u of %u fields outside tolerance", sum->n_outside,
			 sum->n_fields);
out:
	strbuf_release(&table);
	free(vt.f);
	free(mr);
	return sum->status;
}
