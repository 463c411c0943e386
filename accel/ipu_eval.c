/*
 * accel_ipu_eval(): plan the layer, size its buckets, cost every pass as
 * the planner sees it and as it is realized on W's pattern (exact for
 * actual data, expected over the density model otherwise), and set the
 * dense baseline beside it.
 */
#include "accel/ipu_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"

static const char *const method_names[] = {
	[ACCEL_IPU_FORWARD] = "Forward",
	[ACCEL_IPU_TRANSPOSE] = "Transpose",
	[ACCEL_IPU_GRAD_W] = "GradW",
	[ACCEL_IPU_FORWARD_AMP_BLOCK] = "ForwardAMPBlock",
	[ACCEL_IPU_TRANSPOSE_AMP_BLOCK] = "TransposeAMPBlock",
	[ACCEL_IPU_GRAD_W_BLOCK] = "GradWBlock",
	[ACCEL_IPU_GRAD_W_AMP_BLOCK] = "GradWAMPBlock",
};
_Static_assert(ARRAY_SIZE(method_names) == ACCEL_IPU_METHOD_COUNT, "one name per method");

static const char *const status_names[] = {
	[ACCEL_IPU_OK] = "ok",
	[ACCEL_IPU_NO_PLAN] = "no plan",
	[ACCEL_IPU_OVERFLOW] = "bucket overflow",
	[ACCEL_IPU_OUT_OF_MEMORY] = "out of tile memory",
};

const char *accel_ipu_method_name(enum accel_ipu_method m)
{
	return (unsigned)m < ARRAY_SIZE(method_names) ? method_names[m] : (BUG("method %d", (int)m), "");
}

const char *accel_ipu_status_name(enum accel_ipu_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : (BUG("status %d", (int)s), "");
}

static int fail(struct accel_ipu_result *out, enum accel_ipu_status st, struct strbuf *err,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct accel_ipu_result *out, enum accel_ipu_status st, struct strbuf *err,
		const char *fmt, ...)
{
	va_list ap;

	out->status = st;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
		va_end(ap);
	}
	strbuf_setf(err, "%s", out->reason);
	return -1;
}

/* The plan, bucket and per-pass planner figures into 'out'. */
static void fill_plan(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		      const struct ipu_sizes *z, uint64_t bound, uint64_t n_eval, bool is_static,
		      struct accel_ipu_result *out)
{
	struct accel_ipu_plan *p = &out->plan;
	unsigned k;

	p->px = g->px;
	p->py = g->py;
	p->pz = g->pz;
	p->tiles = g->T;
	p->gx = m->gx;
	p->gy = m->gy;
	p->gz = m->gz;
	p->nx = g->nx;
	p->ny = g->ny;
	p->nz = g->nz;
	p->kernel_block = L->kb;
	memcpy(p->methods, m->m, sizeof(p->methods));
	p->grad_w_exchange_buckets = m->grad_w_exch;
	p->temp_bound_bytes = bound;
	p->n_candidates = n_eval;
	out->buckets.nz_groups = z->Rg;
	out->buckets.groups_per_bucket = z->rb;
	out->buckets.nz_elems_per_bucket = z->nz_elems;
	out->buckets.meta_words_per_bucket = z->meta_words;
	out->buckets.bytes_per_bucket = z->bytes_r;
	out->buckets.header_words = is_static ? 0 : 3 + ceil_div_u64(g->px, 2);
	for (k = 0; k < SPEC_IPU_N_PASSES; k++) {
		struct accel_ipu_pass *ps = &out->passes[k];
		struct ipu_pass_est e;
		if (!((L->l->passes >> k) & 1))
			continue;
		ipu_pass_plan(L, m, g, z, (enum spec_ipu_pass)k, is_static, &e);
		ps->present = true;
		ps->method = m->m[k];
		ps->plan_cycles = (uint64_t)ceil(e.total);
		ps->plan_temp_bytes = e.temp;
		ps->transpose_cycles = e.transpose;
		ps->dist_exchange_cycles = e.dist_exch;
		ps->dist_compute_cycles = e.dist_compute;
		ps->reduce_cycles = e.reduce;
		ps->total_cycles = ps->total_cycles_percentile = e.total;
		ps->steps.best = 0;
		ps->steps.worst = is_static ? 0 : g->T - g->pz;
		if (out->memory.temp_bytes < e.temp)
			out->memory.temp_bytes = e.temp;
	}
}

/*
 * Bytes on a tile: its bucket (W's values and metaInfo, or the exact share
 * for static sparsity), its even shares of the dense input [Y, Z] and
 * output [X, Z] (S_0, Q_0 of §1.6), and the passes' peak temporary.
 */
static void fill_memory(const struct ipu_layer *L, const struct ipu_method *m,
			const struct ipu_geom *g, const struct ipu_sizes *z,
			struct accel_ipu_result *out)
{
	struct accel_ipu_memory *mem = &out->memory;

	mem->tile_bytes = L->dev->bytes_per_tile;
	mem->temp_limit_bytes = (uint64_t)floor((double)mem->tile_bytes *
						L->l->available_memory_proportion);
	mem->bucket_bytes = z->nz_elems * L->b_in + 2 * z->meta_words;
	mem->total_bytes = ipu_tile_bytes(L, m, g, z, mem->temp_bytes);
	mem->dense_bytes = mem->total_bytes - mem->bucket_bytes - mem->temp_bytes;
}

/* Time, rates, speedups and totals from the cycles. */
static void fill_rates(const struct ipu_layer *L, struct accel_ipu_result *out)
{
	double macs = (double)L->X * (double)L->Y * (double)L->Z * L->d;
	unsigned k;

	out->total_cycles = out->dense_total_cycles = 0;
	for (k = 0; k < SPEC_IPU_N_PASSES; k++) {
		struct accel_ipu_pass *ps = &out->passes[k];
		if (!ps->present)
			continue;
		ps->seconds = ps->total_cycles / L->dev->clock_hz;
		ps->nz_flops_per_s = ps->seconds > 0 ? 2.0 * macs / ps->seconds : 0;
		ps->speedup = ps->total_cycles > 0 ? ps->dense_cycles / ps->total_cycles : 0;
		out->total_cycles += ps->total_cycles;
		out->dense_total_cycles += ps->dense_cycles;
	}
	out->seconds = out->total_cycles / L->dev->clock_hz;
	out->speedup = out->total_cycles > 0 ? out->dense_total_cycles / out->total_cycles : 0;
}

int accel_ipu_eval(const struct spec_set *s, const struct accel_ipu_options *o,
		   struct accel_ipu_result *out, struct strbuf *err)
{
	static const struct accel_ipu_options defaults = ACCEL_IPU_OPTIONS_INIT;
	struct ipu_layer L;
	struct ipu_method m;
	struct ipu_geom g;
	struct ipu_sizes z;
	uint64_t bound, n_eval;
	bool is_static;
	char why[256];

	memset(out, 0, sizeof(*out));
	if (!s->ipu)
		BUG("accel_ipu_eval on a design without 'ipu'");
	if (!o)
		o = &defaults;
	ipu_layer_init(&L, s);
	is_static = L.l->sparsity == SPEC_IPU_STATIC;
	out->sparsity = L.l->sparsity;
	out->percentile = o->percentile;
	out->density = L.d;
	out->nz_blocks = (uint64_t)ceil(L.d * (double)(L.X / L.l->block_size) *
					(double)(L.Y / L.l->block_size));
	if (!L.kb)
		return fail(out, ACCEL_IPU_NO_PLAN, err, "no %s block kernel divides "
			    "block size %u on this device", spec_ipu_dtype_name(L.l->dtype),
			    L.l->block_size);
	if (ipu_plan_search(&L, is_static, &m, &g, &z, &bound, &n_eval, why, sizeof(why)) < 0)
		return fail(out, ACCEL_IPU_NO_PLAN, err, "%s", why);
	fill_plan(&L, &m, &g, &z, bound, n_eval, is_static, out);
	fill_memory(&L, &m, &g, &z, out);
	/*
	 * A plan whose tiles overflow fails below, with the cycles it would
	 * take. Where one tile would need more than the whole device holds,
	 * its partitions are far too large to draw patterns over (2^24 x 2^24
	 * at 4 x 4 blocks: 10^10 blocks a partition) and the planner's
	 * cycles stand.
	 */
	if (!is_static && (long double)out->memory.total_bytes <=
			  (long double)L.dev->tiles * (long double)out->memory.tile_bytes)
		ipu_density_eval(s, &L, &m, &g, &z, o, out);
	ipu_dense_eval(&L, out);
	fill_rates(&L, out);
	if (out->status == ACCEL_IPU_OK && out->memory.total_bytes > out->memory.tile_bytes)
		fail(out, ACCEL_IPU_OUT_OF_MEMORY, NULL, "a tile needs %llu bytes, it has %llu",
		     (unsigned long long)out->memory.total_bytes,
		     (unsigned long long)out->memory.tile_bytes);
	if (out->status != ACCEL_IPU_OK)
		return fail(out, out->status, err, NULL);
	return 0;
}
