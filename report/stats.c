/*
 * Timeloop's stats.txt (semantics 6.2), field for field: the dense layout
 * and the "sparse module" layout used whenever sparse_optimizations exist.
 * Labels sit in fixed-width columns; doubles print with two decimals.
 */
#include "report/report_int.h"

#include <stdio.h>
#include <string.h>

#define SPEC_W 32        /* storage SPECS labels */
#define DENSE_W 41       /* dense per-tensor labels */
#define SPARSE_W 60      /* sparse per-tensor labels */

/* "Instances : 256 (16*16)" */
static void instances_line(struct strbuf *sb, unsigned indent, unsigned width,
			   uint64_t n, unsigned x, unsigned y)
{
	report_label(sb, indent, width, "Instances");
	strbuf_addf(sb, "%llu (%u*%u)\n", (unsigned long long)n, x, y);
}

static void opt_dbl(struct strbuf *sb, const char *label, bool has, double v)
{
	if (has)
		report_dbl(sb, 8, SPEC_W, label, v, NULL);
	else
		report_str(sb, 8, SPEC_W, label, "-");
}

static void opt_int(struct strbuf *sb, const char *label, bool has, uint64_t v)
{
	if (has)
		report_int(sb, 8, SPEC_W, label, v);
	else
		report_str(sb, 8, SPEC_W, label, "-");
}

static void arith_block(const struct spec_set *s, const struct model_result *r,
			struct strbuf *sb)
{
	const struct spec_compute *c = &s->arch.compute;
	const struct model_compute *mc = &r->compute;
	bool sp = r->is_sparse_layout;

	strbuf_addf(sb, "Level 0\n-------\n=== %s ===\n\n    SPECS\n    -----\n", c->name);
	report_int(sb, 4, 22, "Word bits", c->word_bits);
	instances_line(sb, 4, 22, c->instances, c->mesh_x, c->mesh_y);
	report_dbl(sb, 4, 22, "Compute energy", mc->op_energy_pj[MODEL_COMPUTE_RANDOM], " pJ");
	if (mc->energy_source == MODEL_ENERGY_PRESET && r->energy_preset)
		strbuf_addf(sb, "    %-22s: preset:%s\n", "Compute energy source", r->energy_preset);
	strbuf_addstr(sb, "\n    STATS\n    -----\n");
	if (!sp) {
		report_int(sb, 4, 24, "Utilized instances", mc->max_x * mc->max_y);
		report_int(sb, 4, 24, "Computes (total)", mc->random);
		report_int(sb, 4, 24, "Cycles", mc->cycles);
		report_dbl(sb, 4, 24, "Energy (total)", mc->energy_pj, " pJ");
		report_dbl(sb, 4, 24, "Area (total)", mc->area_um2 * (double)c->instances, " um^2");
		strbuf_addch(sb, '\n');
		return;
	}
	report_int(sb, 4, 29, "Utilized instances (max)", mc->max_x * mc->max_y);
	report_int(sb, 4, 29, "Utilized instances (average)", (uint64_t)mc->avg_replication);
	report_int(sb, 4, 29, "Cycles", mc->cycles);
	report_int(sb, 4, 29, "Algorithmic Computes (total)", mc->algorithmic);
	report_int(sb, 4, 29, "Actual Computes (total)", mc->random);
	report_int(sb, 4, 29, "Gated Computes (total)", mc->gated);
	report_int(sb, 4, 29, "Skipped Computes (total)", mc->skipped);
	report_dbl(sb, 4, 29, "Energy (total)", mc->energy_pj, " pJ");
	report_dbl(sb, 4, 29, "Area (total)", mc->area_um2 * (double)c->instances, " um^2");
	strbuf_addstr(sb, "\n\n");
}

/* The leakage and area lines shared by both SPECS layouts. */
static void specs_tail(const struct model_level *ml, struct strbuf *sb)
{
	report_dbl(sb, 8, SPEC_W, "Per-instance-cycle leakage", ml->op_energy_pj[MODEL_OP_LEAK], " pJ");
	report_dbl(sb, 8, SPEC_W, "Instances sharing power gating", ml->power_gating_instances, NULL);
	report_dbl(sb, 8, SPEC_W, "Non-power-gated utilization",
	       ml->non_power_gated_utilization * 100.0, "%");
	report_dbl(sb, 8, SPEC_W, "Leakage energy (total)", ml->leakage_energy_pj, " pJ");
	report_dbl(sb, 8, SPEC_W, "Area", ml->area_um2, " um^2");
}

static void bandwidth_specs(const struct spec_level *lvl, struct strbuf *sb)
{
	opt_dbl(sb, "Shared bandwidth", lvl->has_shared_bw, lvl->shared_bw_words_per_cycle);
	opt_dbl(sb, "Read bandwidth", lvl->has_read_bw, lvl->read_bw_words_per_cycle);
	opt_dbl(sb, "Write bandwidth", lvl->has_write_bw, lvl->write_bw_words_per_cycle);
}

static void dense_specs(const struct spec_level *lvl, const struct model_result *r,
			unsigned l, struct strbuf *sb)
{
	const struct model_level *ml = &r->levels[l];
	char buf[64];

	report_str(sb, 8, SPEC_W, "Technology", lvl->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM");
	opt_int(sb, "Size", lvl->has_size, lvl->size_words);
	report_int(sb, 8, SPEC_W, "Word bits", lvl->word_bits);
	report_int(sb, 8, SPEC_W, "Block size", lvl->block_size);
	report_int(sb, 8, SPEC_W, "Cluster size", lvl->cluster_size);
	instances_line(sb, 8, SPEC_W, lvl->instances, lvl->mesh_x, lvl->mesh_y);
	bandwidth_specs(lvl, sb);
	report_dbl(sb, 8, SPEC_W, "Multiple buffering", lvl->multiple_buffering, NULL);
	opt_int(sb, "Effective size", lvl->has_size, lvl->effective_size_words);
	report_dbl(sb, 8, SPEC_W, "Min utilization", lvl->min_utilization, NULL);
	report_dbl(sb, 8, SPEC_W, "Vector access energy", ml->vector_access_energy_pj, " pJ");
	report_str(sb, 8, SPEC_W, "Vector access energy source",
	       report_level_source(r, l, buf, sizeof(buf)));
	specs_tail(ml, sb);
}

static void sparse_specs(const struct spec_level *lvl, const struct model_result *r,
			 unsigned l, struct strbuf *sb)
{
	const struct model_level *ml = &r->levels[l];
	const double *e = ml->op_energy_pj;
	char buf[64];

	report_str(sb, 8, SPEC_W, "Technology", lvl->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM");
	opt_int(sb, "Data storage size", lvl->has_size, lvl->size_words);
	report_int(sb, 8, SPEC_W, "Data word bits", lvl->word_bits);
	report_int(sb, 8, SPEC_W, "Data block size", lvl->block_size);
	report_int(sb, 8, SPEC_W, "Metadata storage width(bits)", lvl->metadata_storage_width);
	opt_int(sb, "Metadata storage depth", lvl->has_metadata_storage_depth,
		lvl->metadata_storage_depth);
	report_int(sb, 8, SPEC_W, "Cluster size", lvl->cluster_size);
	instances_line(sb, 8, SPEC_W, lvl->instances, lvl->mesh_x, lvl->mesh_y);
	bandwidth_specs(lvl, sb);
	report_dbl(sb, 8, SPEC_W, "Multiple buffering", lvl->multiple_buffering, NULL);
	opt_int(sb, "Effective data storage size", lvl->has_size, lvl->effective_size_words);
	report_dbl(sb, 8, SPEC_W, "Min utilization", lvl->min_utilization, NULL);
	report_dbl(sb, 8, SPEC_W, "Vector read energy", e[MODEL_OP_RANDOM_READ], " pJ");
	report_dbl(sb, 8, SPEC_W, "Vector write energy", e[MODEL_OP_RANDOM_FILL], " pJ");
	report_dbl(sb, 8, SPEC_W, "Vector metadata read energy", e[MODEL_OP_RANDOM_MD_READ], " pJ");
	report_dbl(sb, 8, SPEC_W, "Vector metadata write energy", e[MODEL_OP_RANDOM_MD_FILL], " pJ");
	report_dbl(sb, 8, SPEC_W, "(De)compression energy", e[MODEL_OP_DECOMPRESSION], " pJ");
	if (ml->energy_source != MODEL_ENERGY_ERT)
		report_str(sb, 8, SPEC_W, "Vector energy source", report_level_source(r, l, buf, sizeof(buf)));
	specs_tail(ml, sb);
}

/* The reduction, address-generation and energy lines both layouts print,
 * with labels padded to 'width'. */
static void energy_lines(const struct model_tile *t, unsigned width, struct strbuf *sb)
{
	double rep = t->avg_replication, clusters = (double)t->utilized_clusters;

	report_int(sb, 8, width, "Temporal reductions (per-instance)", t->temporal_reductions);
	report_int(sb, 8, width, "Address generations (per-cluster)", t->address_generations);
	report_dbl(sb, 8, width, "Energy (per-scalar-access)", t->energy_per_access_pj, " pJ");
	report_dbl(sb, 8, width, "Energy (per-instance)", t->energy_pj, " pJ");
	report_dbl(sb, 8, width, "Energy (total)", t->energy_total_pj, " pJ");
	report_dbl(sb, 8, width, "Temporal Reduction Energy (per-instance)",
	       t->temporal_reduction_energy_pj, " pJ");
	report_dbl(sb, 8, width, "Temporal Reduction Energy (total)",
	       t->temporal_reduction_energy_pj * rep, " pJ");
	report_dbl(sb, 8, width, "Address Generation Energy (per-cluster)",
	       t->addr_gen_energy_pj, " pJ");
	report_dbl(sb, 8, width, "Address Generation Energy (total)",
	       t->addr_gen_energy_pj * clusters, " pJ");
	report_dbl(sb, 8, width, "Bandwidth Consumption Scale", t->bw_consumption_scale, NULL);
}

static void dense_tensor(const struct model_tile *t, struct strbuf *sb)
{
	double rep = t->avg_replication;

	report_int(sb, 8, DENSE_W, "Partition size", t->partition_size);
	report_int(sb, 8, DENSE_W, "Utilized capacity", t->utilized_capacity);
	report_int(sb, 8, DENSE_W, "Utilized instances (max)", (uint64_t)rep);
	report_int(sb, 8, DENSE_W, "Utilized clusters (max)", t->utilized_clusters);
	report_int(sb, 8, DENSE_W, "Scalar reads (per-instance)", t->actions[MODEL_OP_RANDOM_READ]);
	report_int(sb, 8, DENSE_W, "Scalar fills (per-instance)", t->actions[MODEL_OP_RANDOM_FILL]);
	report_int(sb, 8, DENSE_W, "Scalar updates (per-instance)", t->actions[MODEL_OP_RANDOM_UPDATE]);
	energy_lines(t, DENSE_W, sb);
	report_dbl(sb, 8, DENSE_W, "Shared Bandwidth (per-instance)", t->shared_bw, " words/cycle");
	report_dbl(sb, 8, DENSE_W, "Shared Bandwidth (total)", t->shared_bw * rep, " words/cycle");
	report_dbl(sb, 8, DENSE_W, "Read Bandwidth (per-instance)", t->read_bw, " words/cycle");
	report_dbl(sb, 8, DENSE_W, "Read Bandwidth (total)", t->read_bw * rep, " words/cycle");
	report_dbl(sb, 8, DENSE_W, "Write Bandwidth (per-instance)", t->write_bw, " words/cycle");
	report_dbl(sb, 8, DENSE_W, "Write Bandwidth (total)", t->write_bw * rep, " words/cycle");
}

/* "Rank r (metadata, payload): (md,<sep>pl)" lines from the highest rank. */
static void rank_lines(struct strbuf *sb, unsigned n, const uint64_t (*v)[2], const char *sep)
{
	unsigned r;

	for (r = n; r-- > 0;)
		strbuf_addf(sb, "            Rank %u (metadata, payload): (%llu,%s%llu)\n", r,
			    (unsigned long long)v[r][0], sep, (unsigned long long)v[r][1]);
}

static void sparse_format(const struct model_tile *t, struct strbuf *sb)
{
	unsigned r;

	report_label(sb, 8, SPARSE_W, "Representation format");
	if (!t->has_metadata || !t->n_fmt_ranks) {
		strbuf_addstr(sb, "none\n");
		report_str(sb, 8, SPARSE_W, "Max utilized Repr format storage capacity", "0");
		return;
	}
	for (r = t->n_fmt_ranks; r-- > 0;)
		strbuf_addf(sb, "%s ", report_fmt_name(t->fmt_kind[r]));
	strbuf_addch(sb, '\n');
	strbuf_addf(sb, "        %-*s\n", SPARSE_W, "Max utilized Repr format storage capacity");
	rank_lines(sb, t->n_fmt_ranks, t->fmt_capacity, " ");
}

static void sparse_counts(const struct model_tile *t, struct strbuf *sb)
{
	static const char *const what[] = { "reads", "fills", "updates" };
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	unsigned op, c;

	for (op = 0; op < 3; op++) {
		uint64_t algo = op == 0 ? t->reads : op == 1 ? t->fills : t->updates;
		snprintf(label, sizeof(label), "Algorithmic scalar %s (per-instance)", what[op]);
		report_int(sb, 8, SPARSE_W, label, algo);
		for (c = 0; c < 3; c++) {
			snprintf(label, sizeof(label), "%s scalar %s (per-instance)", cls[c], what[op]);
			report_int(sb, 8, SPARSE_W, label, t->actions[3 * op + c]);
		}
	}
}

/* Does one format op class move any bits? */
static bool fmt_nonzero(const struct model_tile *t, unsigned op, unsigned c)
{
	unsigned r;

	for (r = 0; r < t->n_fmt_ranks; r++)
		if (t->fmt_access[op][c][r][0] * t->fmt_md_bits[r] +
		    t->fmt_access[op][c][r][1] * t->fmt_pl_bits[r])
			return true;
	return false;
}

static void sparse_format_counts(const struct model_tile *t, struct strbuf *sb)
{
	static const char *const what[] = { "reads", "fills", "updates" };
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	unsigned op, c;

	if (!t->has_metadata || !t->n_fmt_ranks)
		return;
	for (op = 0; op < 3; op++) {
		for (c = 0; c < 3; c++) {
			snprintf(label, sizeof(label), "%s scalar format %s (per-instance)", cls[c],
				 what[op]);
			if (!fmt_nonzero(t, op, c)) {
				report_str(sb, 8, SPARSE_W, label, "0");
				continue;
			}
			strbuf_addf(sb, "        %-*s\n", SPARSE_W, label);
			rank_lines(sb, t->n_fmt_ranks, t->fmt_access[op][c], "  ");
		}
	}
}

/* Bandwidth lines with Timeloop's breakdown quirks (semantics 6.4). */
static void sparse_bandwidth(const struct model_tile *t, struct strbuf *sb)
{
	double xy = (double)(t->max_x * t->max_y);
	struct { const char *name; double bw, ratio; const char *close; } b[3] = {
		{ "Shared", t->shared_bw, t->fmt_shared_ratio, "" },
		{ "Read", t->read_bw, t->fmt_read_ratio, ")" },
		{ "Write", t->write_bw, t->fmt_write_ratio, ")" },
	};
	char label[96];
	unsigned i;

	for (i = 0; i < 3; i++) {
		snprintf(label, sizeof(label), "Average %s Bandwidth (per-instance)", b[i].name);
		report_dbl(sb, 8, SPARSE_W, label, b[i].bw, " words/cycle");
		strbuf_addf(sb, "            Breakdown (Data, Format): (%.2f%%, %.2f%%%s\n",
			    1 - 100 * b[i].ratio, 100 * b[i].ratio, b[i].close);
		snprintf(label, sizeof(label), "%s Bandwidth (total)", b[i].name);
		report_dbl(sb, 8, SPARSE_W, label, b[i].bw * xy, " words/cycle");
	}
}

static void sparse_tensor(const struct model_tile *t, struct strbuf *sb)
{
	double rep = t->avg_replication;

	report_int(sb, 8, SPARSE_W, "Partition size", t->partition_size);
	report_str(sb, 8, SPARSE_W, "Tile density distribution", t->density_name ? t->density_name : "");
	report_int(sb, 8, SPARSE_W, "Data tile shape", t->shape);
	report_int(sb, 8, SPARSE_W, "Max utilized data storage capacity", t->utilized_capacity);
	sparse_format(t, sb);
	report_int(sb, 8, SPARSE_W, "Utilized instances (max)", t->max_x * t->max_y);
	report_dbl(sb, 8, SPARSE_W, "Utilized instances (average)", rep, NULL);
	report_int(sb, 8, SPARSE_W, "Utilized clusters (max)", t->utilized_clusters);
	sparse_counts(t, sb);
	sparse_format_counts(t, sb);
	energy_lines(t, SPARSE_W, sb);
	sparse_bandwidth(t, sb);
}

static void storage_block(const struct spec_set *s, const struct model_result *r,
			  unsigned l, struct strbuf *sb)
{
	const struct spec_level *lvl = &s->arch.levels[l];
	const struct model_level *ml = &r->levels[l];
	unsigned pv;

	strbuf_addf(sb, "Level %u\n-------\n=== %s ===\n\n    SPECS\n    -----\n", l + 1, lvl->name);
	if (r->is_sparse_layout)
		sparse_specs(lvl, r, l, sb);
	else
		dense_specs(lvl, r, l, sb);
	strbuf_addstr(sb, "\n    STATS\n    -----\n");
	report_int(sb, 4, 21, "Cycles", ml->cycles);
	report_dbl(sb, 4, 21, "Bandwidth throttling", ml->slowdown, NULL);
	for (pv = 0; pv < r->n_tensors; pv++) {
		const struct model_tile *t = &r->tiles[l][pv];
		if (!t->is_kept)
			continue;
		strbuf_addf(sb, "    %s:\n", s->workload.tensors[pv].name);
		if (r->is_sparse_layout)
			sparse_tensor(t, sb);
		else
			dense_tensor(t, sb);
	}
	strbuf_addch(sb, '\n');
}

/* The name Timeloop gives the network below level l. */
static void network_name(const struct spec_set *s, unsigned l, char *buf, size_t size)
{
	snprintf(buf, size, "%s <==> %s", s->arch.levels[l].name,
		 l ? s->arch.levels[l - 1].name : s->arch.compute.name);
}

static void networks(const struct spec_set *s, const struct model_result *r, struct strbuf *sb)
{
	char name[160];
	unsigned l;

	strbuf_addstr(sb, "Networks\n--------\n");
	for (l = 0; l < r->n_levels; l++) {
		if (r->networks[l].energy_pj == 0)
			continue;
		network_name(s, l, name, sizeof(name));
		strbuf_addf(sb, "=== %s ===\n", name);
		report_dbl(sb, 4, 21, "Ingresses (total)", r->networks[l].ingresses, NULL);
		report_dbl(sb, 4, 21, "Energy (total)", r->networks[l].energy_pj, " pJ");
	}
	strbuf_addch(sb, '\n');
}

static void op_intensity(const struct spec_set *s, const struct model_result *r,
			 struct strbuf *sb)
{
	unsigned l;

	strbuf_addstr(sb, "Operational Intensity Stats\n---------------------------\n");
	report_int(sb, 4, 40, "Total elementwise ops", r->total_elementwise_ops);
	report_int(sb, 4, 40, "Total reduction ops", r->total_reduction_ops);
	report_int(sb, 4, 40, "Total ops", r->total_ops);
	report_int(sb, 4, 40, "Total memory accesses required", r->total_memory_accesses);
	report_dbl(sb, 4, 40, "Optimal Op per Byte", r->optimal_op_per_byte, NULL);
	strbuf_addch(sb, '\n');
	for (l = 0; l < r->n_levels; l++) {
		const struct spec_level *lvl = &s->arch.levels[l];
		uint64_t n = r->levels[l].total_scalar_accesses;
		strbuf_addf(sb, "=== %s ===\n", lvl->name);
		if (!n)
			continue;
		report_int(sb, 4, 40, "Total scalar accesses", n);
		report_dbl(sb, 4, 40, "Op per Byte",
		       (double)r->total_ops / ((double)lvl->word_bits * (double)n / 8.0), NULL);
	}
	strbuf_addstr(sb, "\n\n");
}

/* "    <name padded to W>= value" for every component with energy, then Total. */
static void per_compute(const struct spec_set *s, const struct model_result *r,
			uint64_t computes, unsigned w, struct strbuf *sb)
{
	char name[160];
	double n = (double)computes;
	unsigned l;

	if (r->compute.energy_pj != 0)
		strbuf_addf(sb, "    %-*s= %.2f\n", (int)w, s->arch.compute.name,
			    r->compute.energy_pj * 1000 / n);
	for (l = 0; l < r->n_levels; l++)
		if (r->levels[l].energy_pj != 0)
			strbuf_addf(sb, "    %-*s= %.2f\n", (int)w, s->arch.levels[l].name,
				    r->levels[l].energy_pj * 1000 / n);
	for (l = 0; l < r->n_levels; l++) {
		if (r->networks[l].energy_pj == 0)
			continue;
		network_name(s, l, name, sizeof(name));
		strbuf_addf(sb, "    %-*s= %.2f\n", (int)w, name, r->networks[l].energy_pj * 1000 / n);
	}
	strbuf_addf(sb, "    %-*s= %.2f\n", (int)w, "Total", r->energy_pj * 1000 / n);
}

/* 1 + the longest component or network name. */
static unsigned name_width(const struct spec_set *s)
{
	char name[160];
	size_t w = strlen(s->arch.compute.name);
	unsigned l;

	for (l = 0; l < s->arch.n_levels; l++) {
		network_name(s, l, name, sizeof(name));
		if (strlen(s->arch.levels[l].name) > w)
			w = strlen(s->arch.levels[l].name);
		if (strlen(name) > w)
			w = strlen(name);
	}
	return (unsigned)w + 1;
}

static void summary(const struct spec_set *s, const struct model_result *r, struct strbuf *sb)
{
	unsigned w = name_width(s);

	strbuf_addstr(sb, "Summary Stats\n-------------\n");
	strbuf_addf(sb, "GFLOPs (@1GHz): %.2f\n", r->gflops);
	strbuf_addf(sb, "Utilization: %.2f%%\n", r->utilization * 100);
	strbuf_addf(sb, "Cycles: %llu\n", (unsigned long long)r->cycles);
	strbuf_addf(sb, "Energy: %.2f uJ\n", r->energy_pj / 1e6);
	strbuf_addf(sb, "EDP(J*cycle): %.2e\n", r->edp_j_cycles);
	strbuf_addf(sb, "Area: %.2f mm^2\n", r->area_mm2);
	if (r->energy_preset)
		strbuf_addf(sb, "Energy preset: %s\n", r->energy_preset);
	strbuf_addch(sb, '\n');
	if (!r->is_sparse_layout) {
		strbuf_addf(sb, "Computes = %llu\nfJ/Compute\n", (unsigned long long)r->actual_computes);
		per_compute(s, r, r->actual_computes, w, sb);
		strbuf_addch(sb, '\n');
		return;
	}
	strbuf_addf(sb, "Algorithmic Computes = %llu\nfJ/Algorithmic-Compute\n",
		    (unsigned long long)r->algorithmic_computes);
	per_compute(s, r, r->algorithmic_computes, w, sb);
	strbuf_addf(sb, "\nActual Computes = %llu\nfJ/Compute\n",
		    (unsigned long long)r->actual_computes);
	per_compute(s, r, r->actual_computes, w, sb);
	strbuf_addch(sb, '\n');
}

void report_stats_txt(const struct spec_set *s, const struct model_result *r,
		      struct strbuf *out)
{
	unsigned l;

	strbuf_addstr(out, "Buffer and Arithmetic Levels\n----------------------------\n");
	arith_block(s, r, out);
	for (l = 0; l < r->n_levels; l++)
		if (!r->levels[l].is_inconsequential)
			storage_block(s, r, l, out);
	networks(s, r, out);
	op_intensity(s, r, out);
	summary(s, r, out);
}
