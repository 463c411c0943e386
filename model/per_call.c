/*
 * What one call of a kernel costs beyond the kernel (docs/model.md, "Per
 * call"): the design's 'per_call' key turned into times, beside the
 * kernel's own (which it never changes).
 *
 * A framework or library launches its kernels asynchronously: in a loop
 * of calls the host runs ahead of the device, and a call takes the longer
 * of the two. The device's time is the kernel's cycles at the clock, a
 * launch time for every kernel it runs, and the extra kernels' rooflines:
 * each copy reads and writes its tensor once at the outermost level's
 * bandwidth, a compression reads the dense tensor and writes it as the
 * design stores it there, a dense stage moves its bytes there or runs its
 * flops at the compute units' peak, the longer. The host's time is its
 * operators at host_us each plus the call's setup.
 */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

/* Bytes a second the outermost level moves at the clock (0: unlimited). */
static double outer_bytes_per_us(const struct spec_set *s, double clock_mhz)
{
	const struct spec_level *top = &s->arch.levels[s->arch.n_levels - 1];
	double words = 0;

	if (top->has_shared_bw && top->shared_bw_words_per_cycle > 0)
		words = top->shared_bw_words_per_cycle;
	else if (top->has_read_bw && top->read_bw_words_per_cycle > 0)
		words = top->read_bw_words_per_cycle;
	return words * (double)top->word_bits / 8.0 * clock_mhz;
}

/* The MACs that run at once (the wave level's concurrent instances' share). */
static double peak_macs_per_cycle(const struct spec_set *s)
{
	const struct spec_arch *a = &s->arch;
	unsigned l;

	for (l = 0; l < a->n_levels; l++)
		if (a->levels[l].concurrent_instances)
			return (double)a->compute.instances / (double)a->levels[l].instances *
			       (double)a->levels[l].concurrent_instances;
	return (double)a->compute.instances;
}

/* Dense words of tensor pv (the product of its ranks' extents). */
static double tensor_words(const struct spec_set *s, unsigned pv)
{
	return (double)s->workload.tensors[pv].size;
}

/* Bytes tensor pv takes at the outermost level as the result stores it (values and metadata). */
static double stored_bytes(const struct spec_set *s, const struct model_result *r, unsigned pv)
{
	unsigned top = s->arch.n_levels - 1, k;
	const struct model_tile *t = &r->tiles[top][pv];
	double bits;

	if (!t->is_kept || !t->has_metadata)
		return tensor_words(s, pv) * (double)s->arch.levels[top].word_bits / 8.0;
	bits = (double)t->utilized_capacity * (double)s->arch.levels[top].word_bits;
	for (k = 0; k < t->n_fmt_ranks && k < MODEL_MAX_FMT_RANKS; k++)
		bits += (double)t->fmt_capacity[k][0] * t->fmt_md_bits[k] +
			(double)t->fmt_capacity[k][1] * t->fmt_pl_bits[k];
	return bits / 8.0;
}

void model_per_call(const struct spec_set *s, const struct model_result *r,
		    struct model_per_call *out)
{
	const struct spec_per_call *pc = &s->per_call;
	double bw, peak, dense_bytes, word_bytes;
	unsigned pv;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!pc->present)
		return;
	out->present = true;
	bw = outer_bytes_per_us(s, pc->clock_mhz);
	peak = 2.0 * peak_macs_per_cycle(s) * pc->clock_mhz;        /* flops a microsecond */
	word_bytes = (double)s->arch.levels[s->arch.n_levels - 1].word_bits / 8.0;
	out->kernel_us = (double)r->cycles / pc->clock_mhz;
	out->kernels = 1;
	for (pv = 0; pv < s->workload.n_tensors; pv++) {
		dense_bytes = tensor_words(s, pv) * word_bytes;
		if (pc->copy_mask & (1u << pv)) {
			out->copy_us += bw > 0 ? 2.0 * dense_bytes / bw : 0;
			out->kernels++;
		}
		if (pc->compress_mask & (1u << pv)) {
			out->compress_us += bw > 0 ? (dense_bytes + stored_bytes(s, r, pv)) / bw : 0;
			out->kernels++;
		}
	}
	for (i = 0; i < pc->n_stages; i++) {
		const struct spec_per_call_stage *st = &pc->stages[i];
		double t = bw > 0 ? st->bytes / bw : 0;
		if (peak > 0 && st->flops / peak > t)
			t = st->flops / peak;
		out->stages_us += t * (double)st->count;
		out->kernels += st->count;
	}
	out->launch_us = pc->launch_us * (double)out->kernels;
	out->device_us = out->kernel_us + out->launch_us + out->copy_us + out->compress_us +
			 out->stages_us;
	out->host_us = pc->host_us * (double)pc->ops + pc->setup_us;
	out->call_us = fmax(out->device_us, out->host_us);
}
