/*
 * spec_mapping_write_yaml(): a mapping as Timeloop mapping YAML (datatype
 * directives innermost level first, then each level's spatial and temporal
 * directives), which spec_set_load() reads back to the same spec_mapping.
 */
#include "specs/spec.h"

#include <ctype.h>
#include <string.h>

#include "util/strbuf.h"

/* Append 'name', single-quoted unless it is a plain YAML word. */
static void add_name(struct strbuf *out, const char *name)
{
	const char *p;
	bool plain = name[0] && (isalpha((unsigned char)name[0]) || name[0] == '_');
	for (p = name; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.';
	if (plain) {
		strbuf_addstr(out, name);
		return;
	}
	strbuf_addch(out, '\'');
	for (p = name; *p; p++) {
		if (*p == '\'')
			strbuf_addch(out, '\'');
		strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

/* "  key: [A, B]" for the tensors of 'mask' (skipped when empty and optional). */
static void add_tensors(struct strbuf *out, const char *key, const struct spec_workload *w,
			uint32_t mask, bool always)
{
	unsigned t;
	bool first = true;
	if (!mask && !always)
		return;
	strbuf_addf(out, "    %s: [", key);
	for (t = 0; t < w->n_tensors; t++) {
		if (!(mask & (1u << t)))
			continue;
		if (!first)
			strbuf_addstr(out, ", ");
		first = false;
		add_name(out, w->tensors[t].name);
	}
	strbuf_addstr(out, "]\n");
}

/* "- target: NAME" and "type: TYPE". */
static void add_head(struct strbuf *out, const struct spec_arch *arch, unsigned l,
		     const char *type)
{
	strbuf_addstr(out, "  - target: ");
	add_name(out, arch->levels[l].name);
	strbuf_addf(out, "\n    type: %s\n", type);
}

/* "    key: [M, N]" for the dimensions of 'mask'. */
static void add_dims(struct strbuf *out, const char *key, const struct spec_workload *w,
		     uint32_t mask)
{
	unsigned d;
	bool first = true;

	strbuf_addf(out, "    %s: [", key);
	for (d = 0; d < w->n_dims; d++) {
		if (!(mask & (1u << d)))
			continue;
		strbuf_addf(out, "%s%s", first ? "" : ", ", w->dim_names[d]);
		first = false;
	}
	strbuf_addstr(out, "]\n");
}

/* factors (Timeloop's "K16 M1" form, "K8,5" with a residual) and permutation. */
static void add_tiling(struct strbuf *out, const struct spec_workload *w, const uint64_t *f,
		       const uint64_t *r, const uint8_t *perm)
{
	unsigned d;
	strbuf_addstr(out, "    factors: ");
	for (d = 0; d < w->n_dims; d++) {
		strbuf_addf(out, "%s%s%llu", d ? " " : "", w->dim_names[d], (unsigned long long)f[d]);
		if (r[d] != f[d])
			strbuf_addf(out, ",%llu", (unsigned long long)r[d]);
	}
	strbuf_addstr(out, "\n    permutation: ");
	for (d = 0; d < w->n_dims; d++)
		strbuf_addstr(out, w->dim_names[perm[d]]);
	strbuf_addch(out, '\n');
}

void spec_mapping_write_yaml(const struct spec_mapping *m, const struct spec_arch *arch,
			     const struct spec_workload *w, struct strbuf *out)
{
	uint32_t all = w->n_tensors >= 32 ? ~0u : (1u << w->n_tensors) - 1;
	unsigned l;

	strbuf_addstr(out, "mapping:\n");
	for (l = 0; l < m->n_levels; l++) {
		const struct spec_map_level *ml = &m->levels[l];
		add_head(out, arch, l, "datatype");
		add_tensors(out, "keep", w, ml->keep_mask, true);
		add_tensors(out, "bypass", w, all & ~ml->keep_mask, true);
		add_tensors(out, "no_coalesce", w, ml->no_coalesce_mask, false);
	}
	for (l = 0; l < m->n_levels; l++) {
		const struct spec_map_level *ml = &m->levels[l];
		if (ml->has_spatial) {
			add_head(out, arch, l, "spatial");
			add_tiling(out, w, ml->spatial_factors, ml->spatial_residuals, ml->spatial_perm);
			strbuf_addf(out, "    split: %u\n", ml->split);
			add_tensors(out, "no_reuse", w, ml->no_multicast_mask, false);
			add_tensors(out, "no_link_transfer", w, ml->no_link_transfer_mask, false);
		}
		add_head(out, arch, l, "temporal");
		add_tiling(out, w, ml->temporal_factors, ml->temporal_residuals, ml->temporal_perm);
		add_tensors(out, "no_temporal_reuse", w, ml->no_temporal_reuse_mask, false);
		add_tensors(out, "rmw_first_update", w, ml->rmw_first_update_mask, false);
		if (l + 1 == m->n_levels && m->pad_mask)
			add_dims(out, "pad", w, m->pad_mask);
	}
}
