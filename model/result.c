/*
 * The result type's helpers: names of statuses, actions and energy
 * sources, recording an infeasible result, copying a result. Every stage
 * may call them; they call no other file of the model.
 */
#include "model/model_int.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[EVAL_STATUS_COUNT] = {
	[EVAL_OK] = "ok",
	[EVAL_OVER_CAPACITY] = "over-capacity",
	[EVAL_METADATA_CAPACITY] = "metadata-over-capacity",
	[EVAL_UNDER_UTILIZATION] = "under-utilization",
	[EVAL_FANOUT] = "fanout",
	[EVAL_BAD_MAPPING] = "bad-mapping",
	[EVAL_SPARSE] = "sparse",
	[EVAL_TOO_LARGE] = "too-large",
};

static const char *const op_names[MODEL_OP_COUNT] = {
	"random_read", "gated_read", "skipped_read",
	"random_fill", "gated_fill", "skipped_fill",
	"random_update", "gated_update", "skipped_update",
	"random_metadata_read", "gated_metadata_read", "skipped_metadata_read",
	"random_metadata_fill", "gated_metadata_fill", "skipped_metadata_fill",
	"random_metadata_update", "gated_metadata_update", "skipped_metadata_update",
	"decompression_count", "compression_count", "leak",
};

const char *model_status_name(enum model_status st)
{
	return (unsigned)st < EVAL_STATUS_COUNT ? status_names[st] : "?";
}

const char *model_op_name(enum model_op op)
{
	return (unsigned)op < MODEL_OP_COUNT ? op_names[op] : "?";
}

const char *model_energy_source_name(enum model_energy_source src)
{
	switch (src) {
	case MODEL_ENERGY_ERT: return "ERT";
	case MODEL_ENERGY_USER: return "user";
	case MODEL_ENERGY_PRESET: return "preset";
	case MODEL_ENERGY_PAT: return "PAT";
	case MODEL_ENERGY_ESTIMATE: return "estimate";
	case MODEL_ENERGY_NONE: break;
	}
	return "none";
}

int model_result_fail(struct model_result *out, enum model_status st, int level, int tensor,
		      const char *fmt, ...)
{
	va_list ap;

	out->status = st;
	out->fail_level = level;
	out->fail_tensor = tensor;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	return -1;
}

void model_result_copy(struct model_result *dst, const struct model_result *src)
{
	unsigned l;

	memcpy(dst, src, offsetof(struct model_result, levels));
	memcpy(dst->levels, src->levels, src->n_levels * sizeof(src->levels[0]));
	memcpy(dst->networks, src->networks, src->n_levels * sizeof(src->networks[0]));
	for (l = 0; l < src->n_levels; l++)
		memcpy(dst->tiles[l], src->tiles[l], src->n_tensors * sizeof(src->tiles[l][0]));
}
