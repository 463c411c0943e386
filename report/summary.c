/*
 * The human summary of 'fiberloop model' and its CSV form: totals first,
 * then where the energy goes (by level, by tensor), and where it came from.
 */
#include "report/report_int.h"

#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

void report_energy_source(const struct model_result *r, struct strbuf *out)
{
	bool ert = r->compute.energy_source == MODEL_ENERGY_ERT;
	bool est = r->compute.energy_source == MODEL_ENERGY_ESTIMATE;
	bool preset = r->compute.energy_source == MODEL_ENERGY_PRESET;
	bool other = !ert && !preset && !est;
	unsigned l;

	for (l = 0; l < r->n_levels; l++) {
		enum model_energy_source src = r->levels[l].energy_source;
		ert |= src == MODEL_ENERGY_ERT;
		est |= src == MODEL_ENERGY_ESTIMATE;
		preset |= src == MODEL_ENERGY_PRESET;
		other |= src == MODEL_ENERGY_USER || src == MODEL_ENERGY_PAT;
	}
	if (ert)
		strbuf_addstr(out, "ERT");
	if (est)
		strbuf_addf(out, "%sestimate", ert ? " + " : "");
	if (preset && r->energy_preset)
		strbuf_addf(out, "%spreset %s", ert || est ? " + " : "", r->energy_preset);
	if (other)
		strbuf_addf(out, "%suser/PAT", ert || est || preset ? " + " : "");
	if (!out->len)
		strbuf_addstr(out, "none");
}

/* The source of a component as the first line names it ("estimate", "preset accelergy45"). */
static void source_text(const struct model_result *r, enum model_energy_source src,
			struct strbuf *sb)
{
	if (src == MODEL_ENERGY_PRESET && r->energy_preset)
		strbuf_addf(sb, "preset %s", r->energy_preset);
	else
		strbuf_addstr(sb, model_energy_source_name(src));
}

void report_energy_source_by_level(const struct spec_set *s, const struct model_result *r,
				   struct strbuf *out)
{
	enum model_energy_source seen[8];
	size_t n_seen = 0, k;
	int l;

	/* each source once, in order of first appearance (outermost level first, compute last) */
	for (l = (int)r->n_levels; l >= -1; l--) {
		enum model_energy_source src;
		bool dup = false;
		if (l == (int)r->n_levels)
			continue;
		src = l < 0 ? r->compute.energy_source : r->levels[l].energy_source;
		if (src == MODEL_ENERGY_NONE)
			continue;
		for (k = 0; k < n_seen; k++)
			dup = dup || seen[k] == src;
		if (!dup && n_seen < ARRAY_SIZE(seen))
			seen[n_seen++] = src;
	}
	for (k = 0; k < n_seen; k++) {
		strbuf_addstr(out, k ? "; " : "");
		source_text(r, seen[k], out);
		strbuf_addch(out, ':');
		for (l = (int)r->n_levels - 1; l >= -1; l--) {
			enum model_energy_source src = l < 0 ? r->compute.energy_source
							     : r->levels[l].energy_source;
			if (src == seen[k])
				strbuf_addf(out, " %s", l < 0 ? s->arch.compute.name
							      : s->arch.levels[l].name);
		}
	}
	if (!n_seen)
		strbuf_addstr(out, "none");
}

double report_tensor_energy(const struct model_result *r, unsigned pv)
{
	double e = 0;
	unsigned l;

	for (l = 0; l < r->n_levels; l++)
		e += report_tile_energy(&r->tiles[l][pv]);
	return e;
}

static double leakage(const struct model_result *r)
{
	double e = 0;
	unsigned l;

	for (l = 0; l < r->n_levels; l++)
		e += r->levels[l].leakage_energy_pj;
	return e;
}

static void share_line(struct strbuf *sb, const char *name, double e, double total)
{
	strbuf_addf(sb, "    %-24s %16.2f pJ  %6.2f%%\n", name, e,
		    total > 0 ? 100.0 * e / total : 0.0);
}

/* Does a tile have anything sparse to show (a format, gated or skipped accesses)? */
static bool tile_is_sparse(const struct model_tile *t)
{
	unsigned op;

	if (!t->is_kept)
		return false;
	if (t->has_metadata)
		return true;
	for (op = 0; op <= MODEL_OP_SKIPPED_UPDATE; op++)
		if (op % 3 && t->actions[op])
			return true;
	return false;
}

/* "actual/gated/skipped" counts of one data op. */
static void classes(struct strbuf *sb, const char *what, const struct model_tile *t,
		    unsigned first_op)
{
	strbuf_addf(sb, " %s %llu/%llu/%llu", what, (unsigned long long)t->actions[first_op],
		    (unsigned long long)t->actions[first_op + 1],
		    (unsigned long long)t->actions[first_op + 2]);
}

/*
 * One line per sparse tile: its format (outermost rank first), expected
 * density, what it stores against its dense size (data and metadata), and
 * its actual/gated/skipped reads, fills and updates per instance.
 */
static void sparse_tiles(const struct spec_set *s, const struct model_result *r,
			 struct strbuf *out)
{
	struct strbuf name = STRBUF_INIT;
	unsigned l, pv, k;
	bool any = false;

	for (l = r->n_levels; l-- > 0;) {
		for (pv = 0; pv < r->n_tensors; pv++) {
			const struct model_tile *t = &r->tiles[l][pv];
			if (!tile_is_sparse(t))
				continue;
			if (!any)
				strbuf_addstr(out, "Sparse tiles (format, density, stored/dense, "
						   "actual/gated/skipped per instance):\n");
			any = true;
			strbuf_reset(&name);
			strbuf_addf(&name, "%s.%s", s->arch.levels[l].name,
				    s->workload.tensors[pv].name);
			strbuf_addf(out, "    %-24s ", name.buf);
			for (k = t->n_fmt_ranks; k-- > 0;)
				strbuf_addf(out, "%s%s", report_fmt_name(t->fmt_kind[k]), k ? " " : "");
			if (!t->n_fmt_ranks)
				strbuf_addstr(out, "none");
			strbuf_addf(out, ", density %.3f, stored %.2f%%;", t->expected_density,
				    100 * report_tile_stored_fraction(t, s->arch.levels[l].word_bits));
			classes(out, "reads", t, MODEL_OP_RANDOM_READ);
			classes(out, "fills", t, MODEL_OP_RANDOM_FILL);
			classes(out, "updates", t, MODEL_OP_RANDOM_UPDATE);
			strbuf_addch(out, '\n');
		}
	}
	strbuf_release(&name);
}

void report_summary(const struct spec_set *s, const struct model_result *r,
		    struct strbuf *out)
{
	struct strbuf src = STRBUF_INIT;
	double net = 0, cycle_s;
	unsigned l, pv;

	report_energy_source_by_level(s, r, &src);
	strbuf_addf(out, "Energy:         %.2f pJ (%.2f uJ), source %s\n", r->energy_pj,
		    r->energy_pj / 1e6, src.buf);
	if (r->footprint == MODEL_FOOTPRINT_EXACT)
		strbuf_addstr(out, "Footprints:     exact (tensor points touched; holes not counted)\n");
	strbuf_addf(out, "Cycles:         %llu", (unsigned long long)r->cycles);
	if (spec_arch_cycle_seconds(&s->arch, &cycle_s))
		strbuf_addf(out, " (%.4g s at %.4g s a cycle)", (double)r->cycles * cycle_s, cycle_s);
	strbuf_addch(out, '\n');
	strbuf_addf(out, "Utilization:    %.2f%%\n", r->utilization * 100);
	strbuf_addf(out, "Computes:       %llu algorithmic, %llu actual",
		    (unsigned long long)r->algorithmic_computes,
		    (unsigned long long)r->actual_computes);
	if (r->is_sparse_layout)
		strbuf_addf(out, ", %llu gated, %llu skipped",
			    (unsigned long long)r->compute.gated,
			    (unsigned long long)r->compute.skipped);
	strbuf_addch(out, '\n');
	if (r->padded)
		strbuf_addf(out, "Padding:        %llu of the computes pad (%llu useful), useful "
			    "utilization %.2f%%\n",
			    (unsigned long long)(r->algorithmic_computes - r->useful_computes),
			    (unsigned long long)r->useful_computes, r->useful_utilization * 100);
	strbuf_addf(out, "pJ/compute:     %.3f\n", r->pj_per_compute);
	strbuf_addf(out, "EDP:            %.3e J*cycle\n", r->edp_j_cycles);
	if (r->area_total_um2 > 0)
		strbuf_addf(out, "Area:           %.4f mm^2 (all instances)\n",
			    r->area_total_um2 * 1e-6);
	strbuf_addstr(out, "Energy by level:\n");
	share_line(out, s->arch.compute.name, r->compute.energy_pj, r->energy_pj);
	for (l = r->n_levels; l-- > 0;) {
		if (!r->levels[l].is_inconsequential)
			share_line(out, s->arch.levels[l].name, r->levels[l].energy_pj, r->energy_pj);
		net += r->networks[l].energy_pj;
	}
	if (net != 0)
		share_line(out, "(networks)", net, r->energy_pj);
	strbuf_addstr(out, "Energy by tensor:\n");
	for (pv = 0; pv < r->n_tensors; pv++)
		share_line(out, s->workload.tensors[pv].name, report_tensor_energy(r, pv), r->energy_pj);
	share_line(out, "(compute)", r->compute.energy_pj, r->energy_pj);
	share_line(out, "(leakage)", leakage(r), r->energy_pj);
	if (r->is_sparse_layout)
		sparse_tiles(s, r, out);
	strbuf_release(&src);
}

/* A CSV field: quoted when it holds a separator, quote or newline. */
static void csv_text(struct strbuf *sb, const char *v)
{
	if (!strpbrk(v, ",\"\n")) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *v; v++) {
		if (*v == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *v);
	}
	strbuf_addch(sb, '"');
}

void report_csv_header(const struct spec_set *s, struct strbuf *out)
{
	struct strbuf col = STRBUF_INIT;
	unsigned l, pv;

	strbuf_addstr(out, "status,energy_pj,cycles,utilization,algorithmic_computes,"
			   "actual_computes,pj_per_compute,edp_j_cycles,last_level_accesses,"
			   "energy_source,compute_energy_pj");
	for (l = 0; l < s->arch.n_levels; l++) {
		strbuf_reset(&col);
		strbuf_addf(&col, "energy_pj.%s", s->arch.levels[l].name);
		strbuf_addch(out, ',');
		csv_text(out, col.buf);
	}
	for (pv = 0; pv < s->workload.n_tensors; pv++) {
		strbuf_reset(&col);
		strbuf_addf(&col, "energy_pj.%s", s->workload.tensors[pv].name);
		strbuf_addch(out, ',');
		csv_text(out, col.buf);
	}
	strbuf_addch(out, '\n');
	strbuf_release(&col);
}

void report_csv_row(const struct spec_set *s, const struct model_result *r,
		    struct strbuf *out)
{
	struct strbuf src = STRBUF_INIT;
	unsigned l, pv;

	report_energy_source(r, &src);
	strbuf_addf(out, "%s,%.6f,%llu,%.6f,%llu,%llu,%.6f,%.6e,%llu,",
		    model_status_name(r->status), r->energy_pj, (unsigned long long)r->cycles,
		    r->utilization, (unsigned long long)r->algorithmic_computes,
		    (unsigned long long)r->actual_computes, r->pj_per_compute, r->edp_j_cycles,
		    (unsigned long long)r->last_level_accesses);
	csv_text(out, src.buf);
	strbuf_addf(out, ",%.6f", r->compute.energy_pj);
	for (l = 0; l < s->arch.n_levels; l++)
		strbuf_addf(out, ",%.6f", r->levels[l].energy_pj);
	for (pv = 0; pv < s->workload.n_tensors; pv++)
		strbuf_addf(out, ",%.6f", report_tensor_energy(r, pv));
	strbuf_addch(out, '\n');
	strbuf_release(&src);
}
