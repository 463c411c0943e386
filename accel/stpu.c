/*
 * accel_stpu_eval(): the STPU model end to end. For each scheme the packer
 * hands over one row partition at a time; the partition's groups are cut
 * into blocks of array_cols groups, each block is scheduled (stpu_sched.c)
 * and its events are counted; the counts are priced with the energy table.
 *
 * Events of a block of R rows (the partition's), width w, input group
 * lengths L_c and non-empty PEs n_c (c < w), on an array of saw columns:
 *   STPU: x_forward R sum L_c; hold sum n_c (L_c - 1); latch = accumulate =
 *         sum n_c; bypass R saw - sum n_c; vector reads sum L_c;
 *   TPU:  x_forward = mac = R w; bypass R (saw - w); vector reads w;
 *   KMZ:  as the TPU, with L_c values (the group's columns) per vector
 *         element and per forward;
 *   all:  weight words R saw, load-chain hops R saw (saw + 1) / 2, output
 *         accumulator read-modify-writes R.
 * Every element streamed into a column passes every active row of it (a
 * systolic column cannot skip a PE); only the last partition's missing rows
 * are gated off.
 */
#include "accel/accel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/stpu_int.h"
#include "density/density.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const scheme_names[ACCEL_STPU_N_SCHEMES] = {
	[ACCEL_STPU_TPU] = "TPU",
	[ACCEL_STPU_C0] = "STPU-C0",
	[ACCEL_STPU_C1] = "STPU-C1",
	[ACCEL_STPU_KMZ] = "KMZ",
};

const char *accel_stpu_scheme_name(enum accel_stpu_scheme k)
{
	return (unsigned)k < ACCEL_STPU_N_SCHEMES ? scheme_names[k] : "?";
}

/* ------------------------------------------------------------- energy */

/*
 * The horowitz45 preset (docs/sources.md §6.1, 45 nm):
 * - multiply-add: int8 = 8-bit int mult 0.2 + 32-bit int add 0.1 (the
 *   accumulator is 32 bits: a product of two int8 values needs 16 bits and a
 *   sum of up to 2^16 of them 32); fp32 = 32-bit FP mult 3.7 + FP add 0.9
 *   (Horowitz ISSCC 2014, section 4.1);
 * - register: 0.009 pJ per bit (Aladdin register, section 4.2; the 8-bit
 *   register of the Sparseloop artifact's ERT costs 0.072 = 8 x 0.009);
 * - comparison: 0.029 pJ for 32 bits (Aladdin comparator, section 4.2),
 *   taken as linear in the bits compared;
 * - buffers: 10 pJ per 64-bit read of an 8 KB SRAM (section 4.1) per bit.
 */
static void preset_horowitz45(enum spec_stpu_dtype dt, double *e)
{
	e[SPEC_STPU_E_MAC] = dt == SPEC_STPU_INT8 ? 0.2 + 0.1 : 3.7 + 0.9;
	e[SPEC_STPU_E_REGISTER_BIT] = 0.009;
	e[SPEC_STPU_E_COMPARE_BIT] = 0.029 / 32.0;
	e[SPEC_STPU_E_SRAM_BIT] = 10.0 / 64.0;
}

/* Bits of the operands: value, index (column), accumulator, KMZ select. */
struct stpu_bits {
	unsigned value, index, acc, select;
};

static unsigned ceil_log2(uint64_t n)
{
	unsigned b = 0;
	while (b < 64 && (UINT64_C(1) << b) < n)
		b++;
	return b;
}

static struct stpu_bits stpu_bits_of(const struct spec_stpu *st)
{
	struct stpu_bits b;
	b.value = st->dtype == SPEC_STPU_INT8 ? 8 : 32;
	b.acc = 32;
	b.index = st->index_bits ? st->index_bits : ceil_log2(st->matrix_cols);
	if (b.index == 0)
		b.index = 1;
	b.select = ceil_log2(st->kmz_max_columns);
	return b;
}

/*
 * The resolved table: the preset's primitives, the user's values, then each
 * PE state from its parts unless the user gave it:
 *   hold = index bits x compare; latch = hold + value bits x register;
 *   accumulate = mac + accumulator bits x register (the partial sum passed
 *   right); bypass = accumulator bits x register; x_forward = (value + index
 *   bits) x register; tpu_mac = mac + accumulator bits x register;
 *   tpu_x_forward = value bits x register; each buffer = sram unless given.
 */
static void energy_resolve(const struct spec_stpu *st, const struct stpu_bits *b, double *e)
{
	unsigned k;
	double reg, cmp;

	memset(e, 0, SPEC_STPU_E_COUNT * sizeof(*e));
	preset_horowitz45(st->dtype, e);
	for (k = SPEC_STPU_E_MAC; k <= SPEC_STPU_E_SRAM_BIT; k++)
		if (st->has_energy[k])
			e[k] = st->energy_pj[k];
	reg = e[SPEC_STPU_E_REGISTER_BIT];
	cmp = e[SPEC_STPU_E_COMPARE_BIT];
	e[SPEC_STPU_E_WEIGHT_BUFFER_BIT] = e[SPEC_STPU_E_SRAM_BIT];
	e[SPEC_STPU_E_VECTOR_BUFFER_BIT] = e[SPEC_STPU_E_SRAM_BIT];
	e[SPEC_STPU_E_OUTPUT_BUFFER_BIT] = e[SPEC_STPU_E_SRAM_BIT];
	e[SPEC_STPU_E_HOLD] = b->index * cmp;
	e[SPEC_STPU_E_LATCH] = b->index * cmp + b->value * reg;
	e[SPEC_STPU_E_ACCUMULATE] = e[SPEC_STPU_E_MAC] + b->acc * reg;
	e[SPEC_STPU_E_BYPASS] = b->acc * reg;
	e[SPEC_STPU_E_X_FORWARD] = (b->value + b->index) * reg;
	e[SPEC_STPU_E_TPU_MAC] = e[SPEC_STPU_E_MAC] + b->acc * reg;
	e[SPEC_STPU_E_TPU_X_FORWARD] = b->value * reg;
	for (k = SPEC_STPU_E_WEIGHT_BUFFER_BIT; k < SPEC_STPU_E_COUNT; k++)
		if (st->has_energy[k])
			e[k] = st->energy_pj[k];
}

/* Price the counts of one scheme with table 'e'. */
static void energy_of(enum accel_stpu_scheme k, const struct accel_stpu_counts *n,
		      const struct stpu_bits *b, const double *e, struct accel_stpu_energy *out)
{
	double reg = e[SPEC_STPU_E_REGISTER_BIT];
	unsigned wbits, vbits;

	memset(out, 0, sizeof(*out));
	switch (k) {
	case ACCEL_STPU_C0:
	case ACCEL_STPU_C1:
		wbits = vbits = b->value + b->index;
		out->x_forward_pj = (double)n->x_forward * e[SPEC_STPU_E_X_FORWARD];
		break;
	case ACCEL_STPU_KMZ:
		wbits = b->value + b->select;
		vbits = b->value;
		out->x_forward_pj = (double)n->x_forward * e[SPEC_STPU_E_TPU_X_FORWARD];
		break;
	default:
		wbits = vbits = b->value;
		out->x_forward_pj = (double)n->x_forward * e[SPEC_STPU_E_TPU_X_FORWARD];
		break;
	}
	out->pe_pj = (double)n->hold * e[SPEC_STPU_E_HOLD] + (double)n->latch * e[SPEC_STPU_E_LATCH] +
		     (double)n->accumulate * e[SPEC_STPU_E_ACCUMULATE] +
		     (double)n->bypass * e[SPEC_STPU_E_BYPASS] + (double)n->mac * e[SPEC_STPU_E_TPU_MAC];
	out->weight_load_pj = (double)n->weight_words * wbits * e[SPEC_STPU_E_WEIGHT_BUFFER_BIT] +
			      (double)n->weight_hops * wbits * reg;
	out->vector_read_pj = (double)n->vector_reads * vbits * e[SPEC_STPU_E_VECTOR_BUFFER_BIT];
	out->output_pj = (double)n->output_accesses * 2.0 * b->acc * e[SPEC_STPU_E_OUTPUT_BUFFER_BIT];
	out->total_pj = out->pe_pj + out->x_forward_pj + out->weight_load_pj + out->vector_read_pj +
			out->output_pj;
}

/* --------------------------------------------------------------- cost */

struct cost_ctx {
	enum accel_stpu_scheme scheme;
	unsigned saw;
	struct stpu_sched sched;
	struct accel_stpu_counts n;
};

/* Count the events of one block (see the top of this file). */
static void count_block(struct cost_ctx *x, unsigned rows, unsigned width, const uint32_t *len,
			const uint32_t *nnz)
{
	struct accel_stpu_counts *n = &x->n;
	uint64_t saw = x->saw, sum_l = 0, sum_nz = 0, hold = 0;
	unsigned c;

	for (c = 0; c < width; c++) {
		sum_l += len[c];
		sum_nz += nnz[c];
		hold += (uint64_t)nnz[c] * (len[c] - 1);
	}
	n->blocks++;
	n->weight_words += (uint64_t)rows * saw;
	n->weight_hops += (uint64_t)rows * (saw * (saw + 1) / 2);
	n->output_accesses += rows;
	switch (x->scheme) {
	case ACCEL_STPU_C0:
	case ACCEL_STPU_C1:
		n->x_forward += rows * sum_l;
		n->hold += hold;
		n->latch += sum_nz;
		n->accumulate += sum_nz;
		n->bypass += rows * saw - sum_nz;
		n->vector_reads += sum_l;
		break;
	case ACCEL_STPU_KMZ:
		n->x_forward += rows * sum_l;
		n->mac += (uint64_t)rows * width;
		n->bypass += (uint64_t)rows * (saw - width);
		n->vector_reads += sum_l;
		break;
	default:
		n->x_forward += (uint64_t)rows * width;
		n->mac += (uint64_t)rows * width;
		n->bypass += (uint64_t)rows * (saw - width);
		n->vector_reads += width;
		break;
	}
}

/* One partition: blocks of saw groups, scheduled and counted in order. */
static void cost_part(void *ctx, const struct stpu_part *part)
{
	struct cost_ctx *x = ctx;
	size_t q;

	for (q = 0; q < part->n_groups; q += x->saw) {
		unsigned width = (unsigned)(part->n_groups - q < x->saw ? part->n_groups - q : x->saw);
		stpu_sched_block(&x->sched, part->rows, width, part->len + q);
		count_block(x, part->rows, width, part->len + q, part->nnz + q);
	}
}

/*
 * The counts and schedule of a scheme whose groups are the same in every
 * partition (TPU, KMZ: see the top of the file with L_c = 1 for the TPU):
 * its full partitions at once, then the short last one.
 */
static void cost_uniform(struct cost_ctx *x, const struct stpu_uniform *u, uint64_t rows,
			 unsigned part_rows)
{
	struct accel_stpu_counts *n = &x->n;
	uint64_t saw = x->saw, G = u->n_groups, nb = (G + saw - 1) / saw;
	struct {
		uint64_t count;
		unsigned rows;
	} runs[2] = { { rows / part_rows, part_rows }, { rows % part_rows != 0, rows % part_rows } };
	unsigned i;

	for (i = 0; i < 2 && G; i++) {
		uint64_t P = runs[i].count, R = runs[i].rows;
		if (!P)
			continue;
		stpu_sched_arrival_blocks(&x->sched, runs[i].rows, P * nb);
		n->blocks += P * nb;
		n->weight_words += P * nb * R * saw;
		n->weight_hops += P * nb * R * (saw * (saw + 1) / 2);
		n->output_accesses += P * nb * R;
		n->x_forward += P * R * u->sum_len;
		n->mac += P * R * G;
		n->bypass += P * R * (saw * nb - G);
		n->vector_reads += P * u->sum_len;
	}
}

/* Pack and cost one scheme. */
static void eval_scheme(const struct spec_stpu *st, const struct stpu_pattern *pat,
			enum accel_stpu_scheme k, struct accel_stpu_scheme_result *r)
{
	struct stpu_pack_params pp;
	struct cost_ctx x;

	memset(&pp, 0, sizeof(pp));
	pp.part_rows = st->array_rows;
	pp.max_collision_row = st->max_collision_row;
	pp.n_iter = st->n_iter;
	pp.max_collision_group = st->max_collision_group;
	pp.kmz_max_columns = st->kmz_max_columns;
	pp.kmz_max_conflict_fraction = st->kmz_max_conflict_fraction;
	memset(&x, 0, sizeof(x));
	x.scheme = k;
	x.saw = st->array_cols;
	stpu_sched_init(&x.sched, st->array_rows, st->array_cols,
			k == ACCEL_STPU_C0 || k == ACCEL_STPU_C1 ? STPU_TRIGGER_END
								 : STPU_TRIGGER_ARRIVAL);
	if (k == ACCEL_STPU_TPU || k == ACCEL_STPU_KMZ) {
		struct stpu_uniform u;
		stpu_pack_uniform(pat, k, &pp, &r->packing, &u);
		cost_uniform(&x, &u, pat->rows, st->array_rows);
		stpu_uniform_release(&u);
	} else {
		stpu_pack(pat, k, &pp, &r->packing, cost_part, &x);
	}
	x.n.cycles = stpu_sched_cycles(&x.sched);
	stpu_sched_release(&x.sched);
	r->counts = x.n;
	r->evaluated = true;
}

/* ----------------------------------------------------------- estimate */

/* P(n) of a tile of 'ext' (rows x cols) under model 'm' into a fresh array of support length. */
static double *tile_dist(struct density_model *m, uint64_t r, uint64_t c, size_t *n)
{
	struct density_tile t;
	uint64_t ext[2] = { r, c };
	double *p;

	t = density_tile_box(2, ext);
	*n = density_distribution(m, &t, NULL, NULL, 0);
	p = xcalloc(*n ? *n : 1, sizeof(*p));
	density_distribution(m, &t, NULL, p, *n);
	return p;
}

/* Expected groups of a partition of 'rows' rows under model 'm'. */
static double estimate_partition(struct density_model *m, unsigned rows, uint64_t cols,
				 double *max_row, double *mean_field)
{
	size_t n_col, n_row, k;
	double *col = tile_dist(m, rows, 1, &n_col), *row = tile_dist(m, 1, cols, &n_row);
	double *pm = xcalloc((size_t)rows + 1, sizeof(*pm)), g;

	for (k = 0; k < n_col && k <= rows; k++)
		pm[k] = col[k];
	g = stpu_estimate_groups(rows, cols, pm, row, n_row, max_row, mean_field);
	free(col);
	free(row);
	free(pm);
	return g;
}

/*
 * The density-aware packed width of STPU-C0: the expected groups of a full
 * partition times the full partitions, plus the last partial one. Uniform
 * models only (a generated uniform matrix is hypergeometric whatever the
 * kind, so the estimate uses hypergeometric tiles).
 */
static void estimate(const struct spec_stpu *st, struct accel_stpu_estimate *e)
{
	struct spec_density d = st->matrix;
	uint64_t shape[2] = { st->matrix_rows, st->matrix_cols };
	uint64_t full = st->matrix_rows / st->array_rows;
	unsigned last = (unsigned)(st->matrix_rows % st->array_rows);
	struct density_model *m;
	double width = 0.0;

	memset(e, 0, sizeof(*e));
	if (d.kind != SPEC_DENSITY_FIXED_STRUCTURED && d.kind != SPEC_DENSITY_HYPERGEOMETRIC)
		return;
	d.kind = SPEC_DENSITY_HYPERGEOMETRIC;
	d.workload_tensor_size = 0;
	m = density_model_new_shape(&d, 2, shape, 1);
	if (full) {
		e->groups_full = estimate_partition(m, st->array_rows, st->matrix_cols,
						    &e->max_row_full, &e->mean_field_full);
		width += (double)full * e->groups_full;
	}
	if (last)
		width += estimate_partition(m, last, st->matrix_cols, NULL, NULL);
	density_model_free(m);
	e->valid = true;
	e->packed_width = width;
	e->efficiency = width > 0 ? (double)(full + (last != 0)) * (double)st->matrix_cols / width
				  : 0.0;
}

/* --------------------------------------------------------------- eval */

/* "generated hypergeometric 0.01 seed 1", "banded 3 seed 1", or the file. */
static void describe_source(const struct spec_stpu *st, char *buf, size_t size)
{
	const struct spec_density *d = &st->matrix;

	if (d->kind == SPEC_DENSITY_ACTUAL)
		snprintf(buf, size, "%s", d->data->file);
	else if (d->kind == SPEC_DENSITY_BANDED)
		snprintf(buf, size, "banded, band width %llu", (unsigned long long)d->band_width);
	else if (d->kind == SPEC_DENSITY_POWER_LAW)
		snprintf(buf, size, "power_law %.9g, exponent %.9g%s, seed %llu", d->density,
			 d->exponent, d->permute_rows ? ", rows permuted" : "",
			 (unsigned long long)st->seed);
	else if (d->kind == SPEC_DENSITY_BLOCK)
		snprintf(buf, size, "block_structured %.9g, blocks %llu x %llu, seed %llu", d->density,
			 (unsigned long long)d->block_shape[0], (unsigned long long)d->block_shape[1],
			 (unsigned long long)st->seed);
	else
		snprintf(buf, size, "%s %.9g, seed %llu", spec_density_kind_name(d->kind), d->density,
			 (unsigned long long)st->seed);
}

int accel_stpu_eval(const struct spec_set *s, const struct accel_stpu_options *o,
		    struct accel_stpu_result *out, struct strbuf *err)
{
	static const struct accel_stpu_options defaults = ACCEL_STPU_OPTIONS_INIT;
	const struct spec_stpu *st = s->stpu;
	struct stpu_pattern pat;
	struct stpu_bits b;
	unsigned k;

	if (!o)
		o = &defaults;
	memset(out, 0, sizeof(*out));
	if (!st) {
		strbuf_setf(err, "the design has no 'stpu' section");
		return -1;
	}
	if (stpu_pattern_build(st, &pat, err) < 0)
		return -1;
	b = stpu_bits_of(st);
	out->rows = pat.rows;
	out->cols = pat.cols;
	out->nnz = pat.nnz;
	out->density = (double)pat.nnz / ((double)pat.rows * (double)pat.cols);
	describe_source(st, out->source, sizeof(out->source));
	out->array_rows = st->array_rows;
	out->array_cols = st->array_cols;
	out->dtype = st->dtype;
	out->value_bits = b.value;
	out->index_bits = b.index;
	out->accumulator_bits = b.acc;
	out->kmz_select_bits = b.select;
	snprintf(out->energy_preset, sizeof(out->energy_preset), "%s", st->energy_preset);
	energy_resolve(st, &b, out->energy_pj);
	for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++) {
		struct accel_stpu_scheme_result *r = &out->scheme[k];
		if (o->schemes_mask && !(o->schemes_mask & (1u << k)))
			continue;
		eval_scheme(st, &pat, (enum accel_stpu_scheme)k, r);
		energy_of((enum accel_stpu_scheme)k, &r->counts, &b, out->energy_pj, &r->energy);
	}
	for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++) {
		struct accel_stpu_scheme_result *r = &out->scheme[k];
		const struct accel_stpu_scheme_result *t = &out->scheme[ACCEL_STPU_TPU];
		if (!r->evaluated || !t->evaluated)
			continue;
		r->speedup_vs_tpu = r->counts.cycles ? (double)t->counts.cycles /
						       (double)r->counts.cycles : 0.0;
		r->energy_ratio_vs_tpu = r->energy.total_pj > 0 ? t->energy.total_pj /
								  r->energy.total_pj : 0.0;
		r->array_energy_ratio_vs_tpu =
			r->energy.pe_pj + r->energy.x_forward_pj > 0
				? (t->energy.pe_pj + t->energy.x_forward_pj) /
					  (r->energy.pe_pj + r->energy.x_forward_pj)
				: 0.0;
	}
	if (o->estimate)
		estimate(st, &out->estimate);
	stpu_pattern_release(&pat);
	return 0;
}

const struct spec_matrix *accel_stpu_matrix(const struct spec_stpu *st, struct arena *a,
					    struct strbuf *err)
{
	struct stpu_pattern pat;
	struct spec_matrix *m;
	uint64_t *coords, c, k;
	double *values;

	if (stpu_pattern_build(st, &pat, err) < 0)
		return NULL;
	m = arena_calloc(a, 1, sizeof(*m));
	coords = arena_calloc(a, pat.nnz ? 2 * pat.nnz : 1, sizeof(*coords));
	values = arena_calloc(a, pat.nnz ? pat.nnz : 1, sizeof(*values));
	for (c = 0; c < pat.cols; c++)
		for (k = pat.col_ptr[c]; k < pat.col_ptr[c + 1]; k++) {
			coords[2 * k] = pat.row_idx[k];
			coords[2 * k + 1] = c;
			values[k] = 1.0;
		}
	m->file = st->matrix.kind == SPEC_DENSITY_ACTUAL ? st->matrix.data->file : "(generated)";
	m->n_ranks = 2;
	m->shape[0] = pat.rows;
	m->shape[1] = pat.cols;
	m->nnz = pat.nnz;
	m->coords = coords;
	m->values = values;
	stpu_pattern_release(&pat);
	return m;
}
