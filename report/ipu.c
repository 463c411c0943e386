/*
 * Writers for the IPU model (accel/): a human summary, a JSON document and
 * CSV rows, plus the model-vs-executor comparison of 'fiberloop ipu --exec'.
 * Numbers: cycles and bytes as integers or with two decimals in the text,
 * %.17g in JSON (they round-trip), %.6g in CSV.
 */
#include "report/report.h"

#include <math.h>
#include <stdio.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "report/report_int.h"
#include "util/json.h"
#include "util/strbuf.h"

/* ------------------------------------------------------------------ text */

static const char *pass_label(unsigned p)
{
	return spec_ipu_pass_name((enum spec_ipu_pass)p);
}

static void text_header(const struct spec_set *s, const struct accel_ipu_result *r,
			struct strbuf *sb)
{
	const struct spec_ipu_device *d = &s->ipu->device;
	const struct spec_ipu_layer *l = &s->ipu->layer;
	const struct spec_tensor *w = &s->workload.tensors[l->tensor];
	unsigned p;

	strbuf_addf(sb, "IPU sparse fully-connected layer on %s (%llu tiles, %llu bytes a tile, "
		    "%u workers, %.3g GHz)\n", d->preset, (unsigned long long)d->tiles,
		    (unsigned long long)d->bytes_per_tile, d->workers, d->clock_hz / 1e9);
	strbuf_addf(sb, "Layer: X %llu x Y %llu x Z %llu, block %u", (unsigned long long)l->x,
		    (unsigned long long)l->y, (unsigned long long)l->z, l->block_size);
	if (r->plan.kernel_block > 1 && r->plan.kernel_block != l->block_size)
		strbuf_addf(sb, " (kernel %ux%u)", r->plan.kernel_block, r->plan.kernel_block);
	strbuf_addf(sb, ", %s, partials %s (dense %s), %s sparsity, passes",
		    spec_ipu_dtype_name(l->dtype), spec_ipu_dtype_name(l->partials_type),
		    spec_ipu_dtype_name(l->dense_partials_type), spec_ipu_sparsity_name(l->sparsity));
	for (p = 0; p < SPEC_IPU_N_PASSES; p++)
		if ((l->passes >> p) & 1)
			strbuf_addf(sb, " %s", pass_label(p));
	strbuf_addf(sb, "\nW: %s density %.6g (%llu non-zero blocks of %llu)\n",
		    spec_density_kind_name(w->density.kind), r->density,
		    (unsigned long long)r->nz_blocks, (unsigned long long)w->size);
}

static void text_plan(const struct accel_ipu_result *r, struct strbuf *sb)
{
	const struct accel_ipu_plan *p = &r->plan;
	const struct accel_ipu_buckets *b = &r->buckets;
	const struct accel_ipu_memory *m = &r->memory;

	strbuf_addf(sb, "Plan: P_X %u x P_Y %u x P_Z %u = %llu tiles; grouping %u x %u x %u; "
		    "grains per partition %llu x %llu x %llu (%llu partitions costed)\n", p->px, p->py,
		    p->pz, (unsigned long long)p->tiles, p->gx, p->gy, p->gz,
		    (unsigned long long)p->nx, (unsigned long long)p->ny, (unsigned long long)p->nz,
		    (unsigned long long)p->n_candidates);
	strbuf_addf(sb, "Buckets: %llu groups (%llu values) + %llu metaInfo words = %llu bytes "
		    "exchanged; %llu non-zero groups in W; header %llu words\n",
		    (unsigned long long)b->groups_per_bucket, (unsigned long long)b->nz_elems_per_bucket,
		    (unsigned long long)b->meta_words_per_bucket,
		    (unsigned long long)b->bytes_per_bucket, (unsigned long long)b->nz_groups,
		    (unsigned long long)b->header_words);
	strbuf_addf(sb, "Memory per tile: buckets %llu, dense shares %llu, temporary %llu (limit "
		    "%llu) = %llu of %llu bytes\n", (unsigned long long)m->bucket_bytes,
		    (unsigned long long)m->dense_bytes, (unsigned long long)m->temp_bytes,
		    (unsigned long long)m->temp_limit_bytes, (unsigned long long)m->total_bytes,
		    (unsigned long long)m->tile_bytes);
	strbuf_addf(sb, "Partitioner: %llu sub-groups, %llu spilled (%llu groups); fullest bucket "
		    "%llu groups, %llu metaInfo words\n", (unsigned long long)r->n_subgroups,
		    (unsigned long long)r->n_spilled_subgroups, (unsigned long long)r->spilled_groups,
		    (unsigned long long)r->max_bucket_nz_groups,
		    (unsigned long long)r->max_bucket_meta_words);
}

static void text_pass(const struct accel_ipu_result *r, unsigned k, double clock_hz,
		      struct strbuf *sb)
{
	const struct accel_ipu_pass *p = &r->passes[k];
	const struct accel_ipu_steps *st = &p->steps;

	strbuf_addf(sb, "Pass %s (%s):\n", pass_label(k), accel_ipu_method_name(p->method));
	strbuf_addf(sb, "  planner (uniform pattern): %llu cycles, %llu temporary bytes\n",
		    (unsigned long long)p->plan_cycles, (unsigned long long)p->plan_temp_bytes);
	strbuf_addf(sb, "  cycles: transpose %.2f, distribution exchange %.2f, distribution compute "
		    "%.2f, propagation %.2f, reduction %.2f\n", p->transpose_cycles,
		    p->dist_exchange_cycles, p->dist_compute_cycles, p->prop_cycles, p->reduce_cycles);
	strbuf_addf(sb, "  total: %.2f cycles (%.3f us); at the steps' p%g: %.2f cycles\n",
		    p->total_cycles, p->total_cycles / clock_hz * 1e6, 100.0 * r->percentile,
		    p->total_cycles_percentile);
	if (r->sparsity == SPEC_IPU_STATIC) {
		strbuf_addstr(sb, "  steps: none (static sparsity: no propagation)\n");
	} else if (st->is_exact) {
		strbuf_addf(sb, "  steps: %llu (exact; best %llu, worst %llu)\n",
			    (unsigned long long)st->exact, (unsigned long long)st->best,
			    (unsigned long long)st->worst);
	} else {
		strbuf_addf(sb, "  steps: expected %.4g (standard error %.2g), percentile %llu; best "
			    "%llu, worst %llu; P(spill) %.3g, expected spilled groups %.3g\n",
			    st->expected, st->std_error, (unsigned long long)st->percentile,
			    (unsigned long long)st->best, (unsigned long long)st->worst, st->p_spill,
			    st->expected_spill_groups);
	}
	strbuf_addf(sb, "  dense: %.2f cycles; speedup %.3fx; %.4g non-zero TFLOP/s\n",
		    p->dense_cycles, p->speedup, p->nz_flops_per_s / 1e12);
}

void report_ipu_text(const struct spec_set *s, const struct accel_ipu_result *r, struct strbuf *out)
{
	const struct accel_ipu_dense *d = &r->dense;
	unsigned k;

	text_header(s, r, out);
	text_plan(r, out);
	for (k = 0; k < SPEC_IPU_N_PASSES; k++)
		if (r->passes[k].present)
			text_pass(r, k, s->ipu->device.clock_hz, out);
	strbuf_addf(out, "Dense baseline (fwd): P_M %u x P_K %u x P_N %u; exchange %.2f, compute "
		    "%.2f, reduction %.2f cycles; %.1f%% of the AMP peak\n", d->pm, d->pk, d->pn,
		    d->fwd_exchange_cycles, d->fwd_compute_cycles, d->fwd_reduce_cycles,
		    100.0 * d->fwd_peak_fraction);
	strbuf_addf(out, "Total: %.2f cycles (%.3f us), dense %.2f cycles, speedup %.3fx\n",
		    r->total_cycles, r->seconds * 1e6, r->dense_total_cycles, r->speedup);
}

/* ------------------------------------------------------------------ JSON */

/* The layer's shape and types, as both JSON reports (a run's and a design's) write them. */
static void json_layer_shape(struct json_writer *w, const struct spec_ipu_layer *l)
{
	json_u64(w, "x", l->x);
	json_u64(w, "y", l->y);
	json_u64(w, "z", l->z);
	json_u64(w, "block_size", l->block_size);
	json_str(w, "dtype", spec_ipu_dtype_name(l->dtype));
	json_str(w, "partials_type", spec_ipu_dtype_name(l->partials_type));
	json_str(w, "dense_partials_type", spec_ipu_dtype_name(l->dense_partials_type));
	json_str(w, "sparsity", spec_ipu_sparsity_name(l->sparsity));
}

static void json_pass(struct json_writer *w, const struct accel_ipu_pass *p)
{
	json_str(w, "method", accel_ipu_method_name(p->method));
	json_u64(w, "plan_cycles", p->plan_cycles);
	json_u64(w, "plan_temp_bytes", p->plan_temp_bytes);
	json_double(w, "transpose_cycles", p->transpose_cycles);
	json_double(w, "dist_exchange_cycles", p->dist_exchange_cycles);
	json_double(w, "dist_compute_cycles", p->dist_compute_cycles);
	json_double(w, "prop_cycles", p->prop_cycles);
	json_double(w, "reduce_cycles", p->reduce_cycles);
	json_double(w, "total_cycles", p->total_cycles);
	json_double(w, "total_cycles_percentile", p->total_cycles_percentile);
	json_open(w, "steps", '{');
	json_u64(w, "best", p->steps.best);
	json_u64(w, "worst", p->steps.worst);
	json_bool(w, "is_exact", p->steps.is_exact);
	json_u64(w, "exact", p->steps.exact);
	json_double(w, "expected", p->steps.expected);
	json_double(w, "std_error", p->steps.std_error);
	json_u64(w, "percentile", p->steps.percentile);
	json_double(w, "p_spill", p->steps.p_spill);
	json_double(w, "expected_spill_groups", p->steps.expected_spill_groups);
	json_close(w, '}');
	json_double(w, "dense_cycles", p->dense_cycles);
	json_double(w, "speedup", p->speedup);
	json_double(w, "seconds", p->seconds);
	json_double(w, "nz_flops_per_s", p->nz_flops_per_s);
}

void report_ipu_json(const struct spec_set *s, const struct accel_ipu_result *r,
		     const char *const *files, size_t n_files, struct strbuf *out)
{
	struct json_writer w;
	const struct spec_ipu_layer *l = &s->ipu->layer;
	size_t i;
	unsigned k;

	json_init(&w, out, JSON_PRETTY);
	json_open(&w, NULL, '{');
	json_u64(&w, "version", REPORT_JSON_VERSION);
	json_str(&w, "kind", "ipu");
	json_open(&w, "inputs", '[');
	for (i = 0; i < n_files; i++)
		json_str(&w, NULL, files[i]);
	json_close(&w, ']');
	json_str(&w, "status", accel_ipu_status_name(r->status));
	json_str(&w, "reason", r->reason);
	json_open(&w, "layer", '{');
	json_str(&w, "device", s->ipu->device.preset);
	json_layer_shape(&w, l);
	json_double(&w, "density", r->density);
	json_u64(&w, "nz_blocks", r->nz_blocks);
	json_close(&w, '}');
	json_open(&w, "plan", '{');
	json_u64(&w, "px", r->plan.px);
	json_u64(&w, "py", r->plan.py);
	json_u64(&w, "pz", r->plan.pz);
	json_u64(&w, "tiles", r->plan.tiles);
	json_u64(&w, "gx", r->plan.gx);
	json_u64(&w, "gy", r->plan.gy);
	json_u64(&w, "gz", r->plan.gz);
	json_u64(&w, "kernel_block", r->plan.kernel_block);
	json_bool(&w, "grad_w_exchange_buckets", r->plan.grad_w_exchange_buckets);
	json_u64(&w, "temp_bound_bytes", r->plan.temp_bound_bytes);
	json_u64(&w, "n_candidates", r->plan.n_candidates);
	json_close(&w, '}');
	json_open(&w, "buckets", '{');
	json_u64(&w, "nz_groups", r->buckets.nz_groups);
	json_u64(&w, "groups_per_bucket", r->buckets.groups_per_bucket);
	json_u64(&w, "nz_elems_per_bucket", r->buckets.nz_elems_per_bucket);
	json_u64(&w, "meta_words_per_bucket", r->buckets.meta_words_per_bucket);
	json_u64(&w, "bytes_per_bucket", r->buckets.bytes_per_bucket);
	json_u64(&w, "header_words", r->buckets.header_words);
	json_close(&w, '}');
	json_open(&w, "memory_per_tile", '{');
	json_u64(&w, "tile_bytes", r->memory.tile_bytes);
	json_u64(&w, "temp_limit_bytes", r->memory.temp_limit_bytes);
	json_u64(&w, "bucket_bytes", r->memory.bucket_bytes);
	json_u64(&w, "dense_bytes", r->memory.dense_bytes);
	json_u64(&w, "temp_bytes", r->memory.temp_bytes);
	json_u64(&w, "total_bytes", r->memory.total_bytes);
	json_close(&w, '}');
	json_open(&w, "partitioner", '{');
	json_u64(&w, "n_subgroups", r->n_subgroups);
	json_u64(&w, "n_spilled_subgroups", r->n_spilled_subgroups);
	json_u64(&w, "spilled_groups", r->spilled_groups);
	json_u64(&w, "max_bucket_nz_groups", r->max_bucket_nz_groups);
	json_u64(&w, "max_bucket_meta_words", r->max_bucket_meta_words);
	json_close(&w, '}');
	json_open(&w, "passes", '{');
	for (k = 0; k < SPEC_IPU_N_PASSES; k++) {
		if (!r->passes[k].present)
			continue;
		json_open(&w, pass_label(k), '{');
		json_pass(&w, &r->passes[k]);
		json_close(&w, '}');
	}
	json_close(&w, '}');
	json_open(&w, "dense", '{');
	json_u64(&w, "pm", r->dense.pm);
	json_u64(&w, "pk", r->dense.pk);
	json_u64(&w, "pn", r->dense.pn);
	json_double(&w, "fwd_exchange_cycles", r->dense.fwd_exchange_cycles);
	json_double(&w, "fwd_compute_cycles", r->dense.fwd_compute_cycles);
	json_double(&w, "fwd_reduce_cycles", r->dense.fwd_reduce_cycles);
	json_double(&w, "fwd_peak_fraction", r->dense.fwd_peak_fraction);
	json_close(&w, '}');
	json_double(&w, "total_cycles", r->total_cycles);
	json_double(&w, "dense_total_cycles", r->dense_total_cycles);
	json_double(&w, "speedup", r->speedup);
	json_double(&w, "seconds", r->seconds);
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}

/* ------------------------------------------------------------------- CSV */

void report_ipu_csv_header(struct strbuf *out)
{
	strbuf_addstr(out, "device,x,y,z,block_size,dtype,sparsity,density,px,py,pz,tiles,"
		      "groups_per_bucket,meta_words_per_bucket,memory_bytes,fwd_plan_cycles,"
		      "fwd_cycles,fwd_steps_expected,fwd_steps_percentile,fwd_dense_cycles,"
		      "fwd_speedup,fwd_nz_tflops,total_cycles,dense_total_cycles,speedup,status\n");
}

void report_ipu_csv_row(const struct spec_set *s, const struct accel_ipu_result *r,
			struct strbuf *out)
{
	const struct spec_ipu_layer *l = &s->ipu->layer;
	const struct accel_ipu_pass *f = &r->passes[SPEC_IPU_FWD];

	strbuf_addf(out, "%s,%llu,%llu,%llu,%u,%s,%s,%.6g,%u,%u,%u,%llu,%llu,%llu,%llu,%llu,%.6g,"
		    "%.6g,%llu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", s->ipu->device.preset,
		    (unsigned long long)l->x, (unsigned long long)l->y, (unsigned long long)l->z,
		    l->block_size, spec_ipu_dtype_name(l->dtype), spec_ipu_sparsity_name(l->sparsity),
		    r->density, r->plan.px, r->plan.py, r->plan.pz, (unsigned long long)r->plan.tiles,
		    (unsigned long long)r->buckets.groups_per_bucket,
		    (unsigned long long)r->buckets.meta_words_per_bucket,
		    (unsigned long long)r->memory.total_bytes, (unsigned long long)f->plan_cycles,
		    f->total_cycles, f->steps.expected, (unsigned long long)f->steps.percentile,
		    f->dense_cycles, f->speedup, f->nz_flops_per_s / 1e12, r->total_cycles,
		    r->dense_total_cycles, r->speedup, accel_ipu_status_name(r->status));
}

/* ------------------------------------------------------ model vs executor */

/* Per-pass mean and standard error of the executor's steps over 'n' runs. */
static void exec_steps(const struct exec_ipu_result *er, unsigned n, unsigned k, double *mean,
		       double *se)
{
	double s1 = 0, s2 = 0, var;
	unsigned i;

	for (i = 0; i < n; i++) {
		s1 += (double)er[i].passes[k].steps;
		s2 += (double)er[i].passes[k].steps * (double)er[i].passes[k].steps;
	}
	*mean = s1 / n;
	var = n > 1 ? (s2 - n * *mean * *mean) / (n - 1) : 0;
	*se = n > 1 && var > 0 ? sqrt(var / n) : 0;
}

int report_ipu_exec_text(const struct spec_set *s, const struct accel_ipu_result *r,
			 const struct exec_ipu_result *er, unsigned n, struct strbuf *out)
{
	bool ok = true, exact = r->passes[SPEC_IPU_FWD].steps.is_exact;
	uint64_t max_nz = 0, max_meta = 0, t;
	unsigned k, i;

	(void)s;
	strbuf_addf(out, "Executor (%u pattern%s, the model's plan):\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		for (k = 0; k < SPEC_IPU_N_PASSES; k++)
			if (er[i].passes[k].run && !er[i].passes[k].numeric_ok) {
				strbuf_addf(out, "  seed %u pass %s: result differs from the dense product "
					    "by %g\n", i + 1, pass_label(k), er[i].passes[k].max_abs_err);
				ok = false;
			}
	for (i = 0; i < n; i++)
		if (er[i].overflow) {
			strbuf_addf(out, "  seed %u: the pattern overflows the buckets\n", i + 1);
			ok = false;
		}
	if (exact) {
		for (t = 0; t < er[0].n_buckets; t++) {
			if (er[0].bucket_groups[t] > max_nz)
				max_nz = er[0].bucket_groups[t];
			if (er[0].bucket_meta[t] > max_meta)
				max_meta = er[0].bucket_meta[t];
		}
		strbuf_addf(out, "  partitioner: sub-groups %llu / %llu, spilled %llu / %llu (%llu / "
			    "%llu groups), fullest bucket %llu / %llu groups, %llu / %llu metaInfo "
			    "words (model / executor)\n", (unsigned long long)r->n_subgroups,
			    (unsigned long long)er[0].n_subgroups,
			    (unsigned long long)r->n_spilled_subgroups,
			    (unsigned long long)er[0].n_spilled, (unsigned long long)r->spilled_groups,
			    (unsigned long long)er[0].spilled_groups,
			    (unsigned long long)r->max_bucket_nz_groups, (unsigned long long)max_nz,
			    (unsigned long long)r->max_bucket_meta_words, (unsigned long long)max_meta);
		if (r->n_subgroups != er[0].n_subgroups || r->n_spilled_subgroups != er[0].n_spilled ||
		    r->spilled_groups != er[0].spilled_groups || r->max_bucket_nz_groups != max_nz ||
		    r->max_bucket_meta_words != max_meta)
			ok = false;
	}
	for (k = 0; k < SPEC_IPU_N_PASSES; k++) {
		const struct accel_ipu_steps *st = &r->passes[k].steps;
		double mean, se, diff, lim;
		if (!r->passes[k].present || !er[0].passes[k].run)
			continue;
		exec_steps(er, n, k, &mean, &se);
		if (exact) {
			strbuf_addf(out, "  %s: steps %llu / %llu (model / executor), numbers %s\n",
				    pass_label(k), (unsigned long long)st->exact,
				    (unsigned long long)er[0].passes[k].steps,
				    er[0].passes[k].numeric_ok ? "equal to the dense product" : "WRONG");
			if (st->exact != er[0].passes[k].steps)
				ok = false;
			continue;
		}
		diff = fabs(st->expected - mean);
		lim = 3.0 * sqrt(se * se + st->std_error * st->std_error);
		strbuf_addf(out, "  %s: steps expected %.4g (model) vs mean %.4g (executor, standard "
			    "error %.2g): %s\n", pass_label(k), st->expected, mean, se,
			    diff <= lim ? "within 3 standard errors" : "OUTSIDE 3 standard errors");
		if (diff > lim)
			ok = false;
	}
	strbuf_addf(out, "Model vs executor: %s\n", ok ? "agree" : "DISAGREE");
	return ok ? 0 : -1;
}

/* ----------------------------------------------------------- the design */

/* An 'ipu:' design: the device after its preset and overrides, and the layer. */
static void text_ipu(struct strbuf *sb, const struct spec_set *s)
{
	const struct spec_ipu_device *d = &s->ipu->device;
	const struct spec_ipu_layer *l = &s->ipu->layer;
	unsigned p;

	strbuf_addf(sb, "IPU device '%s': %llu tiles of %llu bytes, %u workers, %.4g Hz, exchange "
		    "%u bytes/cycle%s, AMP half %u / float %u MACs/cycle\n", d->preset,
		    (unsigned long long)d->tiles, (unsigned long long)d->bytes_per_tile, d->workers,
		    d->clock_hz, d->exchange_bytes_per_cycle,
		    d->exchange_bus_sharing ? " (bus sharing)" : "",
		    d->amp_macs_per_cycle[SPEC_IPU_HALF], d->amp_macs_per_cycle[SPEC_IPU_FLOAT]);
	strbuf_addf(sb, "IPU layer: X %llu, Y %llu, Z %llu, block %u, %s (partials %s, dense %s), "
		    "%s sparsity, passes", (unsigned long long)l->x, (unsigned long long)l->y,
		    (unsigned long long)l->z, l->block_size, spec_ipu_dtype_name(l->dtype),
		    spec_ipu_dtype_name(l->partials_type), spec_ipu_dtype_name(l->dense_partials_type),
		    spec_ipu_sparsity_name(l->sparsity));
	for (p = 0; p < SPEC_IPU_N_PASSES; p++)
		if ((l->passes >> p) & 1)
			strbuf_addf(sb, " %s", spec_ipu_pass_name((enum spec_ipu_pass)p));
	strbuf_addf(sb, ", available memory %g, bucket oversize %g\n",
		    l->available_memory_proportion, l->meta_info_bucket_oversize_proportion);
}

void report_ipu_design_text(const struct spec_set *s, struct strbuf *out)
{
	text_ipu(out, s);
	report_workload_text(s, out);
}

/* The 'ipu' design: the device after its preset and overrides, and the layer. */
static void json_ipu(struct json_writer *w, const struct spec_set *s)
{
	const struct spec_ipu_device *d = &s->ipu->device;
	const struct spec_ipu_layer *l = &s->ipu->layer;
	unsigned p;

	json_open(w, "ipu", '{');
	json_open(w, "device", '{');
	json_str(w, "preset", d->preset);
	json_u64(w, "tiles", d->tiles);
	json_u64(w, "bytes_per_tile", d->bytes_per_tile);
	json_u64(w, "workers", d->workers);
	json_double(w, "clock_hz", d->clock_hz);
	json_u64(w, "exchange_bytes_per_cycle", d->exchange_bytes_per_cycle);
	json_close(w, '}');
	json_open(w, "layer", '{');
	json_layer_shape(w, l);
	json_open(w, "passes", '[');
	for (p = 0; p < SPEC_IPU_N_PASSES; p++)
		if ((l->passes >> p) & 1)
			json_str(w, NULL, spec_ipu_pass_name((enum spec_ipu_pass)p));
	json_close(w, ']');
	json_double(w, "available_memory_proportion", l->available_memory_proportion);
	json_double(w, "meta_info_bucket_oversize_proportion",
		    l->meta_info_bucket_oversize_proportion);
	json_close(w, '}');
	json_close(w, '}');
}

void report_ipu_design_json(const struct spec_set *s, struct strbuf *out)
{
	struct json_writer w;

	json_init(&w, out, JSON_COMPACT);
	json_open(&w, NULL, '{');
	json_ipu(&w, s);
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}
