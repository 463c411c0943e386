/*
 * The one table of names for every enum of the spec: the parser, the
 * printers and every message use these, so a name exists in one place;
 * and the lookups of levels, tensors and dimensions by their names.
 */
#include "specs/spec.h"

#include <string.h>

#include "util/xalloc.h"

static const char *const fmt_names[] = {
	[FMT_U] = "U", [FMT_UOP] = "UOP", [FMT_CP] = "CP",
	[FMT_B] = "B", [FMT_RLE] = "RLE", [FMT_UB] = "UB",
};
_Static_assert(ARRAY_SIZE(fmt_names) == FMT_COUNT, "one name per format");

static const char *const density_names[] = {
	[SPEC_DENSITY_FIXED_STRUCTURED] = "fixed_structured",
	[SPEC_DENSITY_HYPERGEOMETRIC] = "hypergeometric",
	[SPEC_DENSITY_BANDED] = "banded",
	[SPEC_DENSITY_NM] = "structured_nm",
	[SPEC_DENSITY_ACTUAL] = "actual_data",
	[SPEC_DENSITY_BLOCK] = "block_structured",
	[SPEC_DENSITY_POWER_LAW] = "power_law",
};
_Static_assert(ARRAY_SIZE(density_names) == SPEC_DENSITY_KIND_COUNT, "one name per density");

static const char *const saf_names[] = {
	[SPEC_SAF_GATING] = "gating",
	[SPEC_SAF_SKIPPING] = "skipping",
	[SPEC_SAF_SPATIAL_SKIPPING] = "skipping_spatial",
	[SPEC_SAF_POSITION_SKIPPING] = "position_skipping",
};
_Static_assert(ARRAY_SIZE(saf_names) == SPEC_SAF_KIND_COUNT, "one name per SAF");

static const char *const named_format_names[] = {
	[SPEC_NAMED_NONE] = "none", [SPEC_NAMED_CSR] = "CSR", [SPEC_NAMED_CSC] = "CSC",
	[SPEC_NAMED_COO] = "COO", [SPEC_NAMED_BITMASK] = "bitmask", [SPEC_NAMED_CSF] = "CSF",
	[SPEC_NAMED_NM] = "N:M", [SPEC_NAMED_RLE] = "RLE",
};
_Static_assert(ARRAY_SIZE(named_format_names) == SPEC_NAMED_COUNT, "one name per named format");

static const char *const axis_kind_names[] = {
	[SPEC_AXIS_NONE] = "", [SPEC_AXIS_DENSE_FIXED] = "dense_fixed",
	[SPEC_AXIS_DENSE_VARIABLE] = "dense_variable", [SPEC_AXIS_SPARSE_FIXED] = "sparse_fixed",
	[SPEC_AXIS_SPARSE_VARIABLE] = "sparse_variable",
};
_Static_assert(ARRAY_SIZE(axis_kind_names) == SPEC_AXIS_COUNT, "one name per axis kind");

static const char *const metric_names[] = {
	[SPEC_METRIC_ENERGY] = "energy", [SPEC_METRIC_DELAY] = "delay",
	[SPEC_METRIC_EDP] = "edp", [SPEC_METRIC_LAST_LEVEL_ACCESSES] = "last_level_accesses",
};
_Static_assert(ARRAY_SIZE(metric_names) == SPEC_METRIC_COUNT, "one name per metric");

static const char *const search_names[] = {
	[SPEC_SEARCH_EXHAUSTIVE] = "exhaustive", [SPEC_SEARCH_RANDOM] = "random",
	[SPEC_SEARCH_RANDOM_PRUNED] = "random_pruned", [SPEC_SEARCH_LINEAR_PRUNED] = "linear_pruned",
	[SPEC_SEARCH_HYBRID] = "hybrid",
};
_Static_assert(ARRAY_SIZE(search_names) == SPEC_SEARCH_COUNT, "one name per search");

static const char *const spacetime_names[] = {
	[SPEC_TEMPORAL] = "temporal", [SPEC_SPATIAL_X] = "Spatial-X", [SPEC_SPATIAL_Y] = "Spatial-Y",
};

#define NAME_OF(table, k) ((unsigned)(k) < ARRAY_SIZE(table) ? table[k] : (BUG("bad enum %d", (int)(k)), ""))

const char *spec_fmt_kind_name(enum fmt_kind k) { return NAME_OF(fmt_names, k); }
const char *spec_density_kind_name(enum spec_density_kind k) { return NAME_OF(density_names, k); }
const char *spec_saf_kind_name(enum spec_saf_kind k) { return NAME_OF(saf_names, k); }
const char *spec_named_format_name(enum spec_named_format k) { return NAME_OF(named_format_names, k); }
const char *spec_axis_kind_name(enum spec_axis_kind k) { return NAME_OF(axis_kind_names, k); }
const char *spec_metric_name(enum spec_metric m) { return NAME_OF(metric_names, m); }
const char *spec_search_name(enum spec_search s) { return NAME_OF(search_names, s); }
const char *spec_spacetime_name(enum spec_spacetime st) { return NAME_OF(spacetime_names, st); }

int spec_level_find(const struct spec_arch *arch, const char *name)
{
	unsigned i;
	for (i = 0; i < arch->n_levels; i++)
		if (!strcmp(arch->levels[i].name, name))
			return (int)i;
	return -1;
}

int spec_tensor_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_tensors; i++)
		if (!strcmp(w->tensors[i].name, name))
			return (int)i;
	return -1;
}

int spec_dim_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_dims; i++)
		if (!strcmp(w->dim_names[i], name))
			return (int)i;
	return -1;
}
