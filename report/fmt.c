/*
 * Label and number formatting shared by the writers.
 */
#include "report/report_int.h"

#include <stdio.h>

#include "specs/spec.h"

void report_label(struct strbuf *sb, unsigned indent, unsigned width, const char *label)
{
	strbuf_addchars(sb, ' ', indent);
	strbuf_addf(sb, "%-*s: ", (int)width, label);
}

void report_int(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    uint64_t v)
{
	report_label(sb, indent, width, label);
	strbuf_addf(sb, "%llu\n", (unsigned long long)v);
}

void report_dbl(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    double v, const char *unit)
{
	report_label(sb, indent, width, label);
	strbuf_addf(sb, "%.2f%s\n", v, unit ? unit : "");
}

void report_str(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    const char *v)
{
	report_label(sb, indent, width, label);
	strbuf_addf(sb, "%s\n", v);
}

const char *report_level_source(const struct model_result *r, unsigned l, char *buf,
			    unsigned size)
{
	enum model_energy_source src = r->levels[l].energy_source;

	if (src == MODEL_ENERGY_PRESET && r->energy_preset) {
		snprintf(buf, size, "preset:%s", r->energy_preset);
		return buf;
	}
	return model_energy_source_name(src);
}

double report_tile_energy(const struct model_tile *t)
{
	if (!t->is_kept)
		return 0;
	return t->energy_total_pj + t->temporal_reduction_energy_pj * t->avg_replication +
	       t->addr_gen_energy_pj * (double)t->utilized_clusters;
}

const char *report_fmt_name(unsigned kind)
{
	static const char *const names[FMT_COUNT] = {
		[FMT_U] = "u", [FMT_UOP] = "uop", [FMT_CP] = "cp",
		[FMT_B] = "b", [FMT_RLE] = "rle", [FMT_UB] = "ub",
	};
	return kind < FMT_COUNT ? names[kind] : "?";
}

uint64_t report_tile_metadata_bits(const struct model_tile *t)
{
	uint64_t bits = 0;
	unsigned r;

	for (r = 0; r < t->n_fmt_ranks && r < MODEL_MAX_FMT_RANKS; r++)
		bits += t->fmt_capacity[r][0] * t->fmt_md_bits[r] +
			t->fmt_capacity[r][1] * t->fmt_pl_bits[r];
	return bits;
}

double report_tile_stored_fraction(const struct model_tile *t, unsigned word_bits)
{
	double dense = (double)t->shape * (double)word_bits;

	if (dense <= 0)
		return 0;
	return ((double)t->utilized_capacity * (double)word_bits +
		(double)report_tile_metadata_bits(t)) / dense;
}
