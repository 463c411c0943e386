/*
 * Writers of the STPU model (accel/accel.h) and of its cycle-level check
 * (exec/exec.h): the parsed design, a human summary with one column per
 * scheme, the model-versus-simulation table, a JSON document and CSV rows.
 * Numbers are printed with fixed formats so that outputs are reproducible:
 * counts as integers, ratios with two decimals, energies in nJ with three.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel.h"
#include "exec/exec.h"
#include "util/json.h"

#define N_SCHEMES ACCEL_STPU_N_SCHEMES

/* ------------------------------------------------------------ helpers */

/* A table row: label, then one right-aligned cell per scheme. */
static void row_start(struct strbuf *sb, const char *label)
{
	strbuf_addf(sb, "  %-26s", label);
}

static void cell_u64(struct strbuf *sb, uint64_t v)
{
	strbuf_addf(sb, " %14llu", (unsigned long long)v);
}

static void cell_str(struct strbuf *sb, const char *s)
{
	strbuf_addf(sb, " %14s", s);
}

static void cell_dbl(struct strbuf *sb, const char *fmt, double v)
{
	char buf[64];
	snprintf(buf, sizeof(buf), fmt, v);
	cell_str(sb, buf);
}

/* One row of a count over the evaluated schemes. */
typedef uint64_t (*u64_of)(const struct accel_stpu_scheme_result *s);

static void row_u64(struct strbuf *sb, const struct accel_stpu_result *r, const char *label,
		    u64_of f)
{
	unsigned k;
	row_start(sb, label);
	for (k = 0; k < N_SCHEMES; k++)
		if (r->scheme[k].evaluated)
			cell_u64(sb, f(&r->scheme[k]));
		else
			cell_str(sb, "-");
	strbuf_addch(sb, '\n');
}

typedef double (*dbl_of)(const struct accel_stpu_scheme_result *s);

static void row_dbl(struct strbuf *sb, const struct accel_stpu_result *r, const char *label,
		    const char *fmt, dbl_of f)
{
	unsigned k;
	row_start(sb, label);
	for (k = 0; k < N_SCHEMES; k++)
		if (r->scheme[k].evaluated)
			cell_dbl(sb, fmt, f(&r->scheme[k]));
		else
			cell_str(sb, "-");
	strbuf_addch(sb, '\n');
}

#define U64_FIELD(name, expr)                                                   \
	static uint64_t name(const struct accel_stpu_scheme_result *s)          \
	{                                                                       \
		return expr;                                                    \
	}
#define DBL_FIELD(name, expr)                                                   \
	static double name(const struct accel_stpu_scheme_result *s)            \
	{                                                                       \
		return expr;                                                    \
	}

U64_FIELD(f_width, s->packing.packed_width)
U64_FIELD(f_gmin, s->packing.min_groups)
U64_FIELD(f_gmax, s->packing.max_groups)
U64_FIELD(f_longest, s->packing.max_group_columns)
U64_FIELD(f_coll, s->packing.n_collisions)
U64_FIELD(f_res_e, s->packing.n_residual_entries)
U64_FIELD(f_res_g, s->packing.n_residual_groups)
U64_FIELD(f_drop, s->packing.n_dropped)
U64_FIELD(f_blocks, s->counts.blocks)
U64_FIELD(f_cycles, s->counts.cycles)
U64_FIELD(f_hold, s->counts.hold)
U64_FIELD(f_latch, s->counts.latch)
U64_FIELD(f_acc, s->counts.accumulate)
U64_FIELD(f_bypass, s->counts.bypass)
U64_FIELD(f_mac, s->counts.mac)
U64_FIELD(f_xfwd, s->counts.x_forward)
U64_FIELD(f_vec, s->counts.vector_reads)
U64_FIELD(f_wwords, s->counts.weight_words)
U64_FIELD(f_whops, s->counts.weight_hops)
U64_FIELD(f_out, s->counts.output_accesses)
DBL_FIELD(f_eff, s->packing.efficiency)
DBL_FIELD(f_gmean, s->packing.mean_groups)
DBL_FIELD(f_speedup, s->speedup_vs_tpu)
DBL_FIELD(f_eratio, s->energy_ratio_vs_tpu)
DBL_FIELD(f_aratio, s->array_energy_ratio_vs_tpu)
DBL_FIELD(f_e_pe, s->energy.pe_pj * 1e-3)
DBL_FIELD(f_e_x, s->energy.x_forward_pj * 1e-3)
DBL_FIELD(f_e_w, s->energy.weight_load_pj * 1e-3)
DBL_FIELD(f_e_v, s->energy.vector_read_pj * 1e-3)
DBL_FIELD(f_e_o, s->energy.output_pj * 1e-3)
DBL_FIELD(f_e_t, s->energy.total_pj * 1e-3)

/* ------------------------------------------------------------- spec */

void report_stpu_spec(const struct spec_stpu *st, struct strbuf *out)
{
	unsigned i;

	strbuf_addf(out, "STPU design:\n  array: %u x %u PEs, %s", st->array_rows, st->array_cols,
		    spec_stpu_dtype_name(st->dtype));
	if (st->index_bits)
		strbuf_addf(out, ", %u-bit column index", st->index_bits);
	strbuf_addf(out, "\n  packing: MAX_COLLISION_ROW %u, MAX_COLLISION_GROUP", st->max_collision_row);
	for (i = 0; i < st->n_iter; i++)
		strbuf_addf(out, "%s%u", i ? ", " : " ", st->max_collision_group[i]);
	strbuf_addf(out, " (N_ITER %u); KMZ alpha %u, gamma %.9g\n", st->n_iter,
		    st->kmz_max_columns, st->kmz_max_conflict_fraction);
	strbuf_addf(out, "  energy: preset %s", st->energy_preset);
	for (i = 0; i < SPEC_STPU_E_COUNT; i++)
		if (st->has_energy[i])
			strbuf_addf(out, ", %s %.9g", spec_stpu_energy_key_name((enum spec_stpu_energy_key)i),
				    st->energy_pj[i]);
	strbuf_addf(out, "\n  matrix: %llu x %llu, ", (unsigned long long)st->matrix_rows,
		    (unsigned long long)st->matrix_cols);
	if (st->matrix.kind == SPEC_DENSITY_ACTUAL)
		strbuf_addf(out, "%zu non-zeros from %s\n", st->matrix.data->nnz, st->matrix.data->file);
	else if (st->matrix.kind == SPEC_DENSITY_BANDED)
		strbuf_addf(out, "banded, band width %llu (density %.9g)\n",
			    (unsigned long long)st->matrix.band_width, st->matrix.density);
	else
		strbuf_addf(out, "%s %.9g, seed %llu\n", spec_density_kind_name(st->matrix.kind),
			    st->matrix.density, (unsigned long long)st->seed);
}

/* ------------------------------------------------------------- text */

static void text_header(const struct accel_stpu_result *r, struct strbuf *out)
{
	unsigned k;

	strbuf_addf(out, "STPU SpMV: %llu x %llu matrix, %llu non-zeros (density %.6g): %s\n",
		    (unsigned long long)r->rows, (unsigned long long)r->cols,
		    (unsigned long long)r->nnz, r->density, r->source);
	strbuf_addf(out, "Array: %u x %u PEs, %s (value %u bits, column index %u bits, "
		    "accumulator %u bits)\n", r->array_rows, r->array_cols,
		    spec_stpu_dtype_name(r->dtype), r->value_bits, r->index_bits, r->accumulator_bits);
	strbuf_addf(out, "Energy (pJ, preset %s):", r->energy_preset);
	for (k = 0; k < SPEC_STPU_E_COUNT; k++)
		strbuf_addf(out, "%s %s %.4g", k ? "," : "",
			    spec_stpu_energy_key_name((enum spec_stpu_energy_key)k), r->energy_pj[k]);
	strbuf_addf(out, "\n\n  %-26s", "");
	for (k = 0; k < N_SCHEMES; k++)
		cell_str(out, accel_stpu_scheme_name((enum accel_stpu_scheme)k));
	strbuf_addch(out, '\n');
}

static void text_estimate(const struct accel_stpu_result *r, struct strbuf *out)
{
	const struct accel_stpu_estimate *e = &r->estimate;
	const struct accel_stpu_scheme_result *c0 = &r->scheme[ACCEL_STPU_C0];

	if (!e->valid)
		return;
	strbuf_addf(out, "Density-aware estimate (STPU-C0): packed columns %.1f, efficiency %.2f; "
		    "per full partition %.2f groups (E[max row] %.2f, first-fit mean field %.2f)",
		    e->packed_width, e->efficiency, e->groups_full, e->max_row_full,
		    e->mean_field_full);
	if (c0->evaluated && c0->packing.packed_width)
		strbuf_addf(out, "; exact %llu (%+.2f%%)",
			    (unsigned long long)c0->packing.packed_width,
			    100.0 * (e->packed_width - (double)c0->packing.packed_width) /
				    (double)c0->packing.packed_width);
	strbuf_addch(out, '\n');
}

void report_stpu_text(const struct accel_stpu_result *r, struct strbuf *out)
{
	text_header(r, out);
	strbuf_addstr(out, "Packing\n");
	row_dbl(out, r, "efficiency", "%.2f", f_eff);
	row_u64(out, r, "packed columns", f_width);
	row_dbl(out, r, "groups per partition", "%.2f", f_gmean);
	row_u64(out, r, "  fewest", f_gmin);
	row_u64(out, r, "  most", f_gmax);
	row_u64(out, r, "longest input group", f_longest);
	row_u64(out, r, "collisions", f_coll);
	row_u64(out, r, "residual entries", f_res_e);
	row_u64(out, r, "residual groups", f_res_g);
	row_u64(out, r, "dropped non-zeros", f_drop);
	strbuf_addstr(out, "SpMV\n");
	row_u64(out, r, "blocks", f_blocks);
	row_u64(out, r, "cycles", f_cycles);
	row_dbl(out, r, "speedup vs TPU", "%.2f", f_speedup);
	row_u64(out, r, "PE hold", f_hold);
	row_u64(out, r, "PE latch", f_latch);
	row_u64(out, r, "PE accumulate", f_acc);
	row_u64(out, r, "PE bypass", f_bypass);
	row_u64(out, r, "PE multiply-add (dense)", f_mac);
	row_u64(out, r, "vector forwards", f_xfwd);
	row_u64(out, r, "vector buffer reads", f_vec);
	row_u64(out, r, "weight buffer reads", f_wwords);
	row_u64(out, r, "weight load hops", f_whops);
	row_u64(out, r, "output accumulations", f_out);
	strbuf_addstr(out, "Energy (nJ)\n");
	row_dbl(out, r, "PEs", "%.3f", f_e_pe);
	row_dbl(out, r, "vector forwards", "%.3f", f_e_x);
	row_dbl(out, r, "weight loads", "%.3f", f_e_w);
	row_dbl(out, r, "vector reads", "%.3f", f_e_v);
	row_dbl(out, r, "output accumulations", "%.3f", f_e_o);
	row_dbl(out, r, "total", "%.3f", f_e_t);
	row_dbl(out, r, "energy ratio (TPU / this)", "%.2f", f_eratio);
	row_dbl(out, r, "  the array alone", "%.2f", f_aratio);
	text_estimate(r, out);
}

/* ------------------------------------------------------- validation */

struct vfield {
	const char *name;
	uint64_t model, sim;
};

unsigned report_stpu_validation(const struct accel_stpu_result *r,
				const struct exec_stpu_result *sim, const bool *ran,
				struct strbuf *out)
{
	unsigned k, i, diffs = 0;

	strbuf_addstr(out, "Model vs cycle-level simulation\n");
	for (k = 0; k < N_SCHEMES; k++) {
		const struct accel_stpu_scheme_result *m = &r->scheme[k];
		const struct exec_stpu_result *s = &sim[k];
		const struct accel_stpu_counts *c = &m->counts;
		struct vfield f[] = {
			{ "packed columns", m->packing.packed_width, s->packed_width },
			{ "blocks", c->blocks, s->blocks },
			{ "cycles", c->cycles, s->cycles },
			{ "hold", c->hold, s->hold },
			{ "latch", c->latch, s->latch },
			{ "accumulate", c->accumulate, s->accumulate },
			{ "bypass", c->bypass, s->bypass },
			{ "multiply-add", c->mac, s->mac },
			{ "vector forwards", c->x_forward, s->x_forward },
			{ "vector reads", c->vector_reads, s->vector_reads },
			{ "weight reads", c->weight_words, s->weight_words },
			{ "weight hops", c->weight_hops, s->weight_hops },
			{ "output accumulations", c->output_accesses, s->output_accesses },
			{ "dropped non-zeros", m->packing.n_dropped, s->n_dropped },
		};
		unsigned bad = 0;
		if (!m->evaluated || !ran[k])
			continue;
		strbuf_addf(out, "  %s\n", accel_stpu_scheme_name((enum accel_stpu_scheme)k));
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			bool same = f[i].model == f[i].sim;
			strbuf_addf(out, "    %-22s %14llu %14llu%s\n", f[i].name,
				    (unsigned long long)f[i].model, (unsigned long long)f[i].sim,
				    same ? "" : "  DIFFERS");
			bad += !same;
		}
		strbuf_addf(out, "    %-22s %llu of %llu outputs differ from the dense product",
			    "numeric", (unsigned long long)s->n_wrong,
			    (unsigned long long)s->n_outputs);
		if (k == ACCEL_STPU_KMZ)
			strbuf_addf(out, " of the kept entries (largest error vs the full "
				    "matrix: %.9g)", s->max_abs_error_full);
		strbuf_addch(out, '\n');
		bad += s->n_wrong != 0;
		if (s->hazard[0]) {
			strbuf_addf(out, "    scheduling conflict: %s\n", s->hazard);
			bad++;
		}
		strbuf_addf(out, "    %s\n", bad ? "MISMATCH" : "exact");
		diffs += bad;
	}
	return diffs;
}

/* ------------------------------------------------------- simulation */

void report_stpu_sim_text(const struct exec_stpu_result *sim, const bool *ran,
			  struct strbuf *out)
{
	unsigned k;

	strbuf_addf(out, "STPU cycle-level simulation\n  %-26s", "");
	for (k = 0; k < N_SCHEMES; k++)
		if (ran[k])
			cell_str(out, accel_stpu_scheme_name((enum accel_stpu_scheme)k));
	strbuf_addch(out, '\n');
#define SIM_ROW(label, field)                                              \
	do {                                                               \
		row_start(out, label);                                     \
		for (k = 0; k < N_SCHEMES; k++)                            \
			if (ran[k])                                        \
				cell_u64(out, sim[k].field);               \
		strbuf_addch(out, '\n');                                   \
	} while (0)
	SIM_ROW("packed columns", packed_width);
	SIM_ROW("blocks", blocks);
	SIM_ROW("cycles", cycles);
	SIM_ROW("PE hold", hold);
	SIM_ROW("PE latch", latch);
	SIM_ROW("PE accumulate", accumulate);
	SIM_ROW("PE bypass", bypass);
	SIM_ROW("PE multiply-add (dense)", mac);
	SIM_ROW("vector forwards", x_forward);
	SIM_ROW("vector buffer reads", vector_reads);
	SIM_ROW("weight buffer reads", weight_words);
	SIM_ROW("weight load hops", weight_hops);
	SIM_ROW("output accumulations", output_accesses);
	SIM_ROW("dropped non-zeros", n_dropped);
	SIM_ROW("wrong outputs", n_wrong);
#undef SIM_ROW
	for (k = 0; k < N_SCHEMES; k++)
		if (ran[k] && sim[k].hazard[0])
			strbuf_addf(out, "%s: scheduling conflict: %s\n",
				    accel_stpu_scheme_name((enum accel_stpu_scheme)k), sim[k].hazard);
}

/* ------------------------------------------------------------- JSON */

static void json_scheme(struct json_writer *w, const struct accel_stpu_scheme_result *s,
			const struct exec_stpu_result *sim)
{
	const struct accel_stpu_packing *p = &s->packing;
	const struct accel_stpu_counts *c = &s->counts;
	const struct accel_stpu_energy *e = &s->energy;

	json_open(w, "packing", '{');
	json_double(w, "efficiency", p->efficiency);
	json_u64(w, "packed_columns", p->packed_width);
	json_u64(w, "partitions", p->n_partitions);
	json_double(w, "groups_per_partition", p->mean_groups);
	json_u64(w, "min_groups", p->min_groups);
	json_u64(w, "max_groups", p->max_groups);
	json_u64(w, "groups", p->n_groups_total);
	json_u64(w, "longest_input_group", p->max_group_columns);
	json_u64(w, "collisions", p->n_collisions);
	json_u64(w, "residual_entries", p->n_residual_entries);
	json_u64(w, "residual_groups", p->n_residual_groups);
	json_u64(w, "dropped", p->n_dropped);
	json_close(w, '}');
	json_open(w, "counts", '{');
	json_u64(w, "blocks", c->blocks);
	json_u64(w, "cycles", c->cycles);
	json_u64(w, "hold", c->hold);
	json_u64(w, "latch", c->latch);
	json_u64(w, "accumulate", c->accumulate);
	json_u64(w, "bypass", c->bypass);
	json_u64(w, "mac", c->mac);
	json_u64(w, "x_forward", c->x_forward);
	json_u64(w, "vector_reads", c->vector_reads);
	json_u64(w, "weight_words", c->weight_words);
	json_u64(w, "weight_hops", c->weight_hops);
	json_u64(w, "output_accesses", c->output_accesses);
	json_close(w, '}');
	json_open(w, "energy_pj", '{');
	json_double(w, "pe", e->pe_pj);
	json_double(w, "x_forward", e->x_forward_pj);
	json_double(w, "weight_load", e->weight_load_pj);
	json_double(w, "vector_read", e->vector_read_pj);
	json_double(w, "output", e->output_pj);
	json_double(w, "total", e->total_pj);
	json_close(w, '}');
	json_double(w, "speedup_vs_tpu", s->speedup_vs_tpu);
	json_double(w, "energy_ratio_vs_tpu", s->energy_ratio_vs_tpu);
	json_double(w, "array_energy_ratio_vs_tpu", s->array_energy_ratio_vs_tpu);
	if (!sim)
		return;
	json_open(w, "simulation", '{');
	json_u64(w, "cycles", sim->cycles);
	json_u64(w, "blocks", sim->blocks);
	json_u64(w, "hold", sim->hold);
	json_u64(w, "latch", sim->latch);
	json_u64(w, "accumulate", sim->accumulate);
	json_u64(w, "bypass", sim->bypass);
	json_u64(w, "mac", sim->mac);
	json_u64(w, "x_forward", sim->x_forward);
	json_u64(w, "vector_reads", sim->vector_reads);
	json_u64(w, "weight_words", sim->weight_words);
	json_u64(w, "weight_hops", sim->weight_hops);
	json_u64(w, "output_accesses", sim->output_accesses);
	json_u64(w, "wrong_outputs", sim->n_wrong);
	json_double(w, "max_abs_error_full", sim->max_abs_error_full);
	json_str(w, "conflict", sim->hazard);
	json_close(w, '}');
}

void report_stpu_json(const struct accel_stpu_result *r, const struct exec_stpu_result *sim,
		      const bool *ran, const char *const *files, size_t n_files,
		      struct strbuf *out)
{
	struct json_writer w;
	const struct accel_stpu_estimate *e = &r->estimate;
	size_t i;
	unsigned k;

	json_init(&w, out, JSON_PRETTY);
	json_open(&w, NULL, '{');
	json_u64(&w, "stpu_json_version", REPORT_STPU_JSON_VERSION);
	json_open_inline(&w, "files", '[');
	for (i = 0; i < n_files; i++)
		json_str(&w, NULL, files[i]);
	json_close(&w, ']');
	json_open(&w, "matrix", '{');
	json_u64(&w, "rows", r->rows);
	json_u64(&w, "cols", r->cols);
	json_u64(&w, "nnz", r->nnz);
	json_double(&w, "density", r->density);
	json_str(&w, "source", r->source);
	json_close(&w, '}');
	json_open(&w, "array", '{');
	json_u64(&w, "rows", r->array_rows);
	json_u64(&w, "cols", r->array_cols);
	json_str(&w, "dtype", spec_stpu_dtype_name(r->dtype));
	json_u64(&w, "value_bits", r->value_bits);
	json_u64(&w, "index_bits", r->index_bits);
	json_u64(&w, "accumulator_bits", r->accumulator_bits);
	json_close(&w, '}');
	json_open(&w, "energy_table_pj", '{');
	json_str(&w, "preset", r->energy_preset);
	for (k = 0; k < SPEC_STPU_E_COUNT; k++)
		json_double(&w, spec_stpu_energy_key_name((enum spec_stpu_energy_key)k),
			    r->energy_pj[k]);
	json_close(&w, '}');
	json_open(&w, "schemes", '{');
	for (k = 0; k < N_SCHEMES; k++) {
		if (!r->scheme[k].evaluated)
			continue;
		json_open(&w, accel_stpu_scheme_name((enum accel_stpu_scheme)k), '{');
		json_scheme(&w, &r->scheme[k], sim && ran && ran[k] ? &sim[k] : NULL);
		json_close(&w, '}');
	}
	json_close(&w, '}');
	json_open(&w, "estimate", '{');
	json_bool(&w, "valid", e->valid);
	json_double(&w, "packed_columns", e->packed_width);
	json_double(&w, "efficiency", e->efficiency);
	json_double(&w, "groups_full_partition", e->groups_full);
	json_double(&w, "max_row", e->max_row_full);
	json_double(&w, "mean_field", e->mean_field_full);
	json_close(&w, '}');
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}

/* -------------------------------------------------------------- CSV */

void report_stpu_csv_header(struct strbuf *out)
{
	unsigned k;

	strbuf_addstr(out, "rows,cols,nnz,density,array_rows,array_cols,dtype,estimate_efficiency");
	for (k = 0; k < N_SCHEMES; k++) {
		const char *n = accel_stpu_scheme_name((enum accel_stpu_scheme)k);
		strbuf_addf(out, ",%s_efficiency,%s_packed_columns,%s_cycles,%s_energy_pj,"
			    "%s_speedup,%s_energy_ratio,%s_array_energy_ratio", n, n, n, n, n, n, n);
	}
	strbuf_addch(out, '\n');
}

void report_stpu_csv_row(const struct accel_stpu_result *r, struct strbuf *out)
{
	unsigned k;

	strbuf_addf(out, "%llu,%llu,%llu,%.9g,%u,%u,%s,", (unsigned long long)r->rows,
		    (unsigned long long)r->cols, (unsigned long long)r->nnz, r->density,
		    r->array_rows, r->array_cols, spec_stpu_dtype_name(r->dtype));
	if (r->estimate.valid)
		strbuf_addf(out, "%.9g", r->estimate.efficiency);
	for (k = 0; k < N_SCHEMES; k++) {
		const struct accel_stpu_scheme_result *s = &r->scheme[k];
		if (!s->evaluated) {
			strbuf_addstr(out, ",,,,,,,");
			continue;
		}
		strbuf_addf(out, ",%.9g,%llu,%llu,%.9g,%.9g,%.9g,%.9g", s->packing.efficiency,
			    (unsigned long long)s->packing.packed_width,
			    (unsigned long long)s->counts.cycles, s->energy.total_pj,
			    s->speedup_vs_tpu, s->energy_ratio_vs_tpu, s->array_energy_ratio_vs_tpu);
	}
	strbuf_addch(out, '\n');
}

/* ----------------------------------------------------------- the design */

void report_stpu_design_text(const struct spec_set *s, struct strbuf *out)
{
	report_stpu_spec(s->stpu, out);
}

/* The 'stpu' design's main parameters. */
static void json_stpu(struct json_writer *w, const struct spec_stpu *st)
{
	json_open(w, "stpu", '{');
	json_u64(w, "array_rows", st->array_rows);
	json_u64(w, "array_cols", st->array_cols);
	json_str(w, "dtype", spec_stpu_dtype_name(st->dtype));
	json_u64(w, "n_iter", st->n_iter);
	json_u64(w, "matrix_rows", st->matrix_rows);
	json_u64(w, "matrix_cols", st->matrix_cols);
	json_str(w, "distribution", spec_density_kind_name(st->matrix.kind));
	json_double(w, "density", st->matrix.density);
	json_close(w, '}');
}

void report_stpu_design_json(const struct spec_set *s, struct strbuf *out)
{
	struct json_writer w;

	json_init(&w, out, JSON_COMPACT);
	json_open(&w, NULL, '{');
	json_stpu(&w, s->stpu);
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}
