/*
 * Label and number formatting shared by the writers.
 */
#include "report/report_int.h"

#include <stdio.h>

#include "specs/spec.h"

void rp_label(struct strbuf *sb, unsigned indent, unsigned width, const char *label)
{
	strbuf_addchars(sb, ' ', indent);
	strbuf_addf(sb, "%-*s: ", (int)width, label);
}

void rp_int(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    uint64_t v)
{
	rp_label(sb, indent, width, label);
	strbuf_addf(sb, "%llu\n", (unsigned long long)v);
}

void rp_dbl(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    double v, const char *unit)
{
	rp_label(sb, indent, width, label);
	strbuf_addf(sb, "%.2f%s\n", v, unit ? unit : "");
}

void rp_str(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    const char *v)
{
	rp_label(sb, indent, width, label);
	strbuf_addf(sb, "%s\n", v);
}

const char *rp_level_source(const struct model_result *r, unsigned l, char *buf,
			    unsigned size)
{
	enum model_energy_source src = r->levels[l].energy_source;

	if (src == MODEL_ENERGY_PRESET && r->energy_preset) {
		snprintf(buf, size, "preset:%s", r->energy_preset);
		return buf;
	}
	return model_energy_source_name(src);
}

double rp_tile_energy(const struct model_tile *t)
{
	if (!t->is_kept)
		return 0;
	return t->energy_total_pj + t->temporal_reduction_energy_pj * t->avg_replication +
	       t->addr_gen_energy_pj * (double)t->utilized_clusters;
}
