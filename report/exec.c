/*
 * Writers for the executor's results: a file in Timeloop's stats.txt layout
 * holding the counts the executor produces (per-instance values rounded as
 * Timeloop prints them), JSON with the exact totals and the options used,
 * and a short summary for the terminal.
 */
#include "report/report.h"

#include <math.h>
#include <stdio.h>

#include "exec/exec.h"
#include "specs/spec.h"
#include "util/json.h"
#include "util/strbuf.h"

/* Per-instance value of a total, rounded as Timeloop prints its integers. */
/* Does any tensor of 'r' come from --prune? */
static bool any_pruned(const struct exec_result *r)
{
	unsigned t;
	for (t = 0; t < r->n_tensors && t < SPEC_MAX_TENSORS; t++)
		if (r->pruned[t].pruned)
			return true;
	return false;
}

static unsigned long long per(uint64_t total, uint64_t instances)
{
	return (unsigned long long)llround((double)total / (double)(instances ? instances : 1));
}

static unsigned long long per_d(double total, uint64_t instances)
{
	return (unsigned long long)ceil(total / (double)(instances ? instances : 1) - 1e-9);
}

static bool level_keeps_any(const struct exec_result *r, unsigned l)
{
	unsigned t;
	for (t = 0; t < r->n_tensors; t++)
		if (exec_result_stats(r, l, t)->kept)
			return true;
	return false;
}

static void field(struct strbuf *out, int width, const char *label, unsigned long long v)
{
	strbuf_addf(out, "        %-*s: %llu\n", width, label, v);
}

static void compute_block(struct strbuf *out, const struct spec_set *s,
			  const struct exec_result *r)
{
	strbuf_addf(out, "Level 0\n-------\n=== %s ===\n\n    STATS\n    -----\n",
		    s->arch.compute.name ? s->arch.compute.name : "mac");
	if (!s->sparse.present) {
		strbuf_addf(out, "    Utilized instances      : %llu\n",
			    (unsigned long long)r->compute_instances);
		strbuf_addf(out, "    Computes (total)        : %llu\n\n",
			    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
		return;
	}
	strbuf_addf(out, "    Utilized instances (max)     : %llu\n",
		    (unsigned long long)(r->compute_busy_max ? r->compute_busy_max
							     : r->compute_instances));
	if (r->compute_busy_max)
		strbuf_addf(out, "    Utilized instances (average) : %llu\n",
			    (unsigned long long)r->compute_busy_avg);
	strbuf_addf(out, "    Algorithmic Computes (total) : %llu\n", (unsigned long long)r->computes);
	strbuf_addf(out, "    Actual Computes (total)      : %llu\n",
		    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
	strbuf_addf(out, "    Gated Computes (total)       : %llu\n",
		    (unsigned long long)r->computes_class[EXEC_GATED]);
	strbuf_addf(out, "    Skipped Computes (total)     : %llu\n\n",
		    (unsigned long long)r->computes_class[EXEC_SKIPPED]);
}

static void dense_tensor(struct strbuf *out, const struct exec_tensor_stats *st)
{
	uint64_t n = st->instances;
	field(out, 41, "Partition size", per(st->partition, n));
	field(out, 41, "Utilized capacity", st->tile_shape);
	field(out, 41, "Utilized instances (max)", n);
	field(out, 41, "Scalar reads (per-instance)", per(st->reads.algorithmic, n));
	field(out, 41, "Scalar fills (per-instance)", per(st->fills.algorithmic, n));
	field(out, 41, "Scalar updates (per-instance)", per(st->updates.algorithmic, n));
	field(out, 41, "Temporal reductions (per-instance)", per(st->temporal_reductions, n));
	field(out, 41, "Multicast copies (per-instance)", per(st->multicast_words, n));
	field(out, 41, "Link transfers (per-instance)", per(st->link_transfers, n));
	field(out, 41, "Spatial reductions (per-instance)", per(st->spatial_reductions, n));
}

static void rank_lines(struct strbuf *out, const char *label, unsigned R, const double *md,
		       const double *pl, uint64_t n, const char *sep)
{
	double sum = 0;
	int r;

	for (r = 0; r < (int)R; r++)
		sum += md[r] + pl[r];
	if (sum == 0) {
		strbuf_addf(out, "        %-60s: 0\n", label);
		return;
	}
	strbuf_addf(out, "        %-60s\n", label);
	for (r = (int)R - 1; r >= 0; r--)
		strbuf_addf(out, "            Rank %d (metadata, payload): (%llu,%s%llu)\n", r,
			    per_d(md[r], n), sep, per_d(pl[r], n));
}

static void sparse_access(struct strbuf *out, const char *what, const struct exec_access *a,
			  uint64_t n)
{
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	int k;

	snprintf(label, sizeof(label), "Algorithmic scalar %s (per-instance)", what);
	strbuf_addf(out, "        %-60s: %llu\n", label, per(a->algorithmic, n));
	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(label, sizeof(label), "%s scalar %s (per-instance)", cls[k], what);
		strbuf_addf(out, "        %-60s: %llu\n", label, per(a->n[k], n));
	}
}

static void sparse_format(struct strbuf *out, const char *what, const struct exec_format_access *fa,
			  unsigned R, uint64_t n)
{
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	int k;

	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(label, sizeof(label), "%s scalar format %s (per-instance)", cls[k], what);
		rank_lines(out, label, R, fa->md_units[k], fa->pl_units[k], n, "  ");
	}
}

static void sparse_tensor(struct strbuf *out, const struct exec_tensor_stats *st, const char *fmt)
{
	uint64_t n = st->instances;
	strbuf_addf(out, "        %-60s: %llu\n", "Partition size", per(st->partition, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Data tile shape", (unsigned long long)st->tile_shape);
	strbuf_addf(out, "        %-60s: %llu\n", "Max utilized data storage capacity",
		    (unsigned long long)st->max_occupancy);
	strbuf_addf(out, "        %-60s: %s\n", "Representation format", fmt);
	if (st->has_format)
		rank_lines(out, "Max utilized Repr format storage capacity", st->n_format_ranks,
			   st->max_md_units, st->max_pl_units, 1, " ");
	else
		strbuf_addf(out, "        %-60s: 0\n", "Max utilized Repr format storage capacity");
	strbuf_addf(out, "        %-60s: %llu\n", "Utilized instances (max)", (unsigned long long)n);
	sparse_access(out, "reads", &st->reads, n);
	sparse_access(out, "fills", &st->fills, n);
	sparse_access(out, "updates", &st->updates, n);
	if (st->has_format) {
		sparse_format(out, "reads", &st->fmt_reads, st->n_format_ranks, n);
		sparse_format(out, "fills", &st->fmt_fills, st->n_format_ranks, n);
		sparse_format(out, "updates", &st->fmt_updates, st->n_format_ranks, n);
	}
	strbuf_addf(out, "        %-60s: %llu\n", "Temporal reductions (per-instance)",
		    per(st->temporal_reductions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Multicast copies (per-instance)",
		    per(st->multicast_words, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Link transfers (per-instance)",
		    per(st->link_transfers, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Spatial reductions (per-instance)",
		    per(st->spatial_reductions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Decompressions (per-instance)",
		    per(st->decompressions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Compressions (per-instance)",
		    per(st->compressions, n));
}

/* "uop cp " for the format of 't' at level 'l', or "none". */
static void format_names(const struct spec_set *s, unsigned l, unsigned t, char *buf, size_t size)
{
	unsigned i, j, r;
	size_t n = 0;

	snprintf(buf, size, "none");
	for (i = 0; i < s->sparse.n_targets; i++) {
		const struct spec_sparse_target *tg = &s->sparse.targets[i];
		for (j = 0; !tg->is_compute && tg->level == l && j < tg->n_formats; j++) {
			const struct spec_tensor_format *tf = &tg->formats[j];
			if (tf->tensor != t || !tf->n_ranks)
				continue;
			buf[0] = '\0';
			for (r = 0; r < tf->n_ranks && n < size; r++) {
				const char *nm = spec_fmt_kind_name(tf->ranks[r].kind);
				size_t k;
				for (k = 0; nm[k] && n + 2 < size; k++)
					buf[n++] = (char)(nm[k] | 0x20);
				buf[n++] = ' ';
				buf[n] = '\0';
			}
		}
	}
}

void report_exec_stats(const struct spec_set *s, const struct exec_result *r, struct strbuf *out)
{
	unsigned l, t;
	char fmt[128];

	strbuf_addstr(out, "Buffer and Arithmetic Levels\n----------------------------\n");
	compute_block(out, s, r);
	for (l = 0; l < r->n_levels; l++) {
		if (!level_keeps_any(r, l))
			continue;
		strbuf_addf(out, "Level %u\n-------\n=== %s ===\n\n    STATS\n    -----\n", l + 1,
			    s->arch.levels[l].name);
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (!st->kept)
				continue;
			strbuf_addf(out, "    %s:\n", s->workload.tensors[t].name);
			if (s->sparse.present) {
				format_names(s, l, t, fmt, sizeof(fmt));
				sparse_tensor(out, st, fmt);
			} else {
				dense_tensor(out, st);
			}
		}
		strbuf_addch(out, '\n');
	}
	strbuf_addf(out, "Summary Stats\n-------------\n");
	strbuf_addf(out, "%sComputes = %llu\n", s->sparse.present ? "Algorithmic " : "",
		    (unsigned long long)r->computes);
	if (s->sparse.present)
		strbuf_addf(out, "Actual Computes = %llu\n",
			    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
	if (r->numeric_checked)
		strbuf_addf(out, "Numeric check: %s (%llu outputs, max abs error %.9g)\n",
			    r->numeric_ok ? "ok" : "FAILED", (unsigned long long)r->numeric_n_outputs,
			    r->numeric_max_abs_err);
}

/* ------------------------------------------------------------------- JSON */

static void json_access(struct json_writer *w, const char *name, const struct exec_access *a)
{
	json_open_inline(w, name, '{');
	json_u64(w, "algorithmic", a->algorithmic);
	json_u64(w, "actual", a->n[EXEC_ACTUAL]);
	json_u64(w, "gated", a->n[EXEC_GATED]);
	json_u64(w, "skipped", a->n[EXEC_SKIPPED]);
	json_close(w, '}');
}

/* Per rank [metadata, payload] units: [[md0, pl0], [md1, pl1], ...] on one line. */
static void json_units(struct json_writer *w, const char *name, unsigned R, const double *md,
		       const double *pl)
{
	unsigned r;

	json_open_inline(w, name, '[');
	for (r = 0; r < R; r++) {
		json_open(w, NULL, '[');
		json_double(w, NULL, md[r]);
		json_double(w, NULL, pl[r]);
		json_close(w, ']');
	}
	json_close(w, ']');
}

static void json_format(struct json_writer *w, const char *name,
			const struct exec_format_access *fa, unsigned R)
{
	static const char *const cls[] = { "actual", "gated", "skipped" };
	int k;

	json_open(w, name, '{');
	for (k = 0; k < EXEC_N_CLASSES; k++)
		json_units(w, cls[k], R, fa->md_units[k], fa->pl_units[k]);
	json_close(w, '}');
}

static void json_tensor(struct json_writer *w, const char *name, const struct exec_tensor_stats *st)
{
	json_open(w, NULL, '{');
	json_str(w, "name", name);
	json_u64(w, "instances", st->instances);
	json_u64(w, "tile_shape", st->tile_shape);
	json_u64(w, "max_occupancy", st->max_occupancy);
	json_u64(w, "partition", st->partition);
	json_access(w, "reads", &st->reads);
	json_access(w, "fills", &st->fills);
	json_access(w, "updates", &st->updates);
	json_u64(w, "temporal_reductions", st->temporal_reductions);
	json_u64(w, "multicast_words", st->multicast_words);
	json_u64(w, "link_transfers", st->link_transfers);
	json_u64(w, "spatial_reductions", st->spatial_reductions);
	json_u64(w, "decompressions", st->decompressions);
	json_u64(w, "compressions", st->compressions);
	if (st->has_format) {
		json_open(w, "format", '{');
		json_u64(w, "ranks", st->n_format_ranks);
		json_units(w, "max_units", st->n_format_ranks, st->max_md_units, st->max_pl_units);
		json_format(w, "reads", &st->fmt_reads, st->n_format_ranks);
		json_format(w, "fills", &st->fmt_fills, st->n_format_ranks);
		json_format(w, "updates", &st->fmt_updates, st->n_format_ranks);
		json_close(w, '}');
	}
	json_close(w, '}');
}

void report_exec_json(const struct spec_set *s, const struct exec_result *r,
		      const struct exec_options *opt, struct strbuf *out)
{
	struct json_writer w;
	unsigned l, t;

	json_init(&w, out, JSON_PRETTY);
	json_open(&w, NULL, '{');
	json_u64(&w, "fiberloop_exec_version", 1);
	json_u64(&w, "seed", opt->seed);
	json_str(&w, "retention", exec_retention_name(opt->retention));
	json_str(&w, "footprint", exec_footprint_name(opt->footprint));
	json_open_inline(&w, "computes", '{');
	json_u64(&w, "instances", r->compute_instances);
	json_u64(&w, "algorithmic", r->computes);
	json_u64(&w, "actual", r->computes_class[EXEC_ACTUAL]);
	json_u64(&w, "gated", r->computes_class[EXEC_GATED]);
	json_u64(&w, "skipped", r->computes_class[EXEC_SKIPPED]);
	json_close(&w, '}');
	if (r->compute_busy_max) {
		json_open_inline(&w, "busy_units", '{');
		json_u64(&w, "max", r->compute_busy_max);
		json_double(&w, "average", r->compute_busy_avg);
		json_close(&w, '}');
	}
	json_open_inline(&w, "numeric_check", '{');
	json_bool(&w, "checked", r->numeric_checked);
	json_bool(&w, "ok", r->numeric_ok);
	json_u64(&w, "outputs", r->numeric_n_outputs);
	json_double(&w, "max_abs_error", r->numeric_max_abs_err);
	json_close(&w, '}');
	if (any_pruned(r)) {
		json_open(&w, "pruned", '[');
		for (t = 0; t < r->n_tensors && t < SPEC_MAX_TENSORS; t++) {
			const struct exec_pruned *p = &r->pruned[t];
			if (!p->pruned)
				continue;
			json_open_inline(&w, NULL, '{');
			json_str(&w, "tensor", s->workload.tensors[t].name);
			json_u64(&w, "n", p->n);
			json_u64(&w, "m", p->m);
			json_u64(&w, "rank", p->rank);
			json_u64(&w, "points", p->dense_points);
			json_u64(&w, "nonzeros", p->nonzeros);
			json_u64(&w, "groups", p->groups);
			json_u64(&w, "short_groups", p->short_groups);
			json_u64(&w, "values", p->values);
			json_u64(&w, "index_bits", p->index_bits);
			json_bool(&w, "round_trip_ok", p->round_trip_ok);
			json_close(&w, '}');
		}
		json_close(&w, ']');
	}
	json_open(&w, "levels", '[');
	for (l = 0; l < r->n_levels; l++) {
		if (!level_keeps_any(r, l))
			continue;
		json_open(&w, NULL, '{');
		json_u64(&w, "index", l);
		json_str(&w, "name", s->arch.levels[l].name);
		json_open(&w, "tensors", '[');
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (st->kept)
				json_tensor(&w, s->workload.tensors[t].name, st);
		}
		json_close(&w, ']');
		json_close(&w, '}');
	}
	json_close(&w, ']');
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}

/* ---------------------------------------------------------------- summary */

/*
 * One line per pruned tensor: what was kept and what the packed values and
 * indices take at the outermost level's word bits, against dense.
 */
static void pruned_lines(const struct spec_set *s, const struct exec_result *r,
			 struct strbuf *out)
{
	unsigned t, vbits = s->arch.levels[s->arch.n_levels - 1].word_bits;

	for (t = 0; t < r->n_tensors && t < SPEC_MAX_TENSORS; t++) {
		const struct exec_pruned *p = &r->pruned[t];
		const struct spec_tensor *st = &s->workload.tensors[t];
		uint64_t bits = p->values * (vbits + p->index_bits), dense = p->dense_points * vbits;
		if (!p->pruned)
			continue;
		strbuf_addf(out, "Pruned %s: %u:%u along %s by magnitude, %llu of %llu values kept "
			    "(%llu groups short of %u); packed as %llu values + %llu %u-bit indices "
			    "= %llu of %llu bits at %u-bit values (%.2f%% of dense); unpacked %s\n",
			    st->name, p->n, p->m, s->workload.dim_names[st->ranks[p->rank].terms[0].dim],
			    (unsigned long long)p->nonzeros, (unsigned long long)p->dense_points,
			    (unsigned long long)p->short_groups, p->n, (unsigned long long)p->values,
			    (unsigned long long)p->values, p->index_bits, (unsigned long long)bits,
			    (unsigned long long)dense, vbits, dense ? 100.0 * (double)bits / (double)dense : 0,
			    p->round_trip_ok ? "exactly" : "WRONG");
	}
}

void report_exec_summary(const struct spec_set *s, const struct exec_result *r,
			 const struct exec_options *opt, struct strbuf *out)
{
	unsigned l, t;

	strbuf_addf(out, "Executed with seed %llu (retention %s, footprint %s)\n",
		(unsigned long long)opt->seed, exec_retention_name(opt->retention),
		exec_footprint_name(opt->footprint));
	strbuf_addf(out, "Computes: %llu algorithmic, %llu actual, %llu gated, %llu skipped on %llu "
		"units\n", (unsigned long long)r->computes,
		(unsigned long long)r->computes_class[EXEC_ACTUAL],
		(unsigned long long)r->computes_class[EXEC_GATED],
		(unsigned long long)r->computes_class[EXEC_SKIPPED],
		(unsigned long long)r->compute_instances);
	if (r->compute_busy_max)
		strbuf_addf(out, "Spatial skipping: at most %llu units have work at a step, %.2f on "
			"average\n", (unsigned long long)r->compute_busy_max, r->compute_busy_avg);
	pruned_lines(s, r, out);
	strbuf_addf(out, "%-24s %-12s %5s %14s %14s %14s\n", "level", "tensor", "inst",
		"reads/inst", "fills/inst", "updates/inst");
	for (l = r->n_levels; l-- > 0;)
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (!st->kept)
				continue;
			strbuf_addf(out, "%-24s %-12s %5llu %14llu %14llu %14llu\n", s->arch.levels[l].name,
				s->workload.tensors[t].name, (unsigned long long)st->instances,
				per(st->reads.n[EXEC_ACTUAL], st->instances),
				per(st->fills.n[EXEC_ACTUAL], st->instances),
				per(st->updates.n[EXEC_ACTUAL], st->instances));
		}
	if (r->numeric_checked)
		strbuf_addf(out, "Numeric check against %s: %s (%llu outputs)\n",
			any_pruned(r) ? "the dense product of the pruned tensors" :
			"a dense evaluation", r->numeric_ok ? "ok" : "FAILED",
			(unsigned long long)r->numeric_n_outputs);
}
