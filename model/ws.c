/*
 * The workspace (per spec set, per thread) and the evaluation pipeline.
 */
#include "model/model_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#include "model/preset_int.h"

static const char *const status_names[EVAL_STATUS_COUNT] = {
	[EVAL_OK] = "ok",
	[EVAL_OVER_CAPACITY] = "over-capacity",
	[EVAL_METADATA_CAPACITY] = "metadata-over-capacity",
	[EVAL_UNDER_UTILIZATION] = "under-utilization",
	[EVAL_FANOUT] = "fanout",
	[EVAL_BAD_MAPPING] = "bad-mapping",
	[EVAL_SPARSE] = "sparse",
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
	case MODEL_ENERGY_NONE: break;
	}
	return "none";
}

const char *const *model_energy_preset_names(void)
{
	return preset_names();
}

const char *model_energy_preset_default(void)
{
	return preset_name(PRESET_DEFAULT);
}

int result_fail(struct model_result *out, enum model_status st, int level, int tensor,
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

/* The non-zero entries of p->cm by dimension. */
static void index_dims(struct proj *p, unsigned n_dims)
{
	unsigned d, r;

	for (d = 0; d < n_dims; d++) {
		struct proj_dim *pd = &p->dims[d];
		pd->n = 0;
		pd->rank_mask = 0;
		for (r = 0; r < p->n_ranks; r++) {
			if (!p->cm[r][d])
				continue;
			pd->rank_mask |= 1u << r;
			pd->rank[pd->n] = (uint8_t)r;
			pd->coef[pd->n++] = p->cm[r][d];
		}
	}
}

static void prepare_projections(struct model_ws *ws)
{
	unsigned pv, r, t;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct spec_tensor *st = &ws->s->workload.tensors[pv];
		struct proj *p = &ws->proj[pv];
		p->n_ranks = st->n_ranks;
		p->dim_mask = st->dim_mask;
		p->read_write = st->read_write;
		for (r = 0; r < st->n_ranks; r++) {
			p->ranks[r].n_terms = st->ranks[r].n_terms;
			for (t = 0; t < st->ranks[r].n_terms; t++) {
				p->ranks[r].dim[t] = (uint8_t)st->ranks[r].terms[t].dim;
				p->ranks[r].coef[t] = st->ranks[r].terms[t].coef;
				p->ranks[r].abs_coef[t] = (uint64_t)llabs(st->ranks[r].terms[t].coef);
				p->cm[r][st->ranks[r].terms[t].dim] += st->ranks[r].terms[t].coef;
			}
		}
		index_dims(p, ws->n_dims);
		ws->density_name[pv] = spec_density_kind_name(st->density.kind);
	}
}

/* The preset chosen by the options, or the default; -1 if none/unknown. */
static int choose_preset(const struct model_options *opt, char *err, size_t err_size)
{
	const char *name = opt->energy_preset ? opt->energy_preset : model_energy_preset_default();
	int p = preset_find(name);
	if (p < 0 && err)
		snprintf(err, err_size, "unknown energy preset '%s'", name);
	return p;
}

static size_t max_children(const struct spec_arch *a)
{
	size_t n = a->compute.instances;
	unsigned l;

	for (l = 0; l < a->n_levels; l++)
		if (a->levels[l].instances > n)
			n = a->levels[l].instances;
	return n ? n : 1;
}

struct model_ws *model_ws_new(const struct spec_set *s, const struct model_options *opt,
			      char *err, size_t err_size)
{
	static const struct model_options defaults = MODEL_OPTIONS_INIT;
	struct model_ws *ws = xcalloc(1, sizeof(*ws));

	ws->s = s;
	ws->opt = opt ? *opt : defaults;
	ws->n_levels = s->arch.n_levels;
	ws->n_tensors = s->workload.n_tensors;
	ws->n_dims = s->workload.n_dims;
	ws->preset = choose_preset(&ws->opt, err, err_size);
	if (ws->preset < 0) {
		free(ws);
		return NULL;
	}
	prepare_projections(ws);
	energy_prepare(ws);
	sparse_prepare(ws);
	ws->tile_head_size = offsetof(struct model_tile, fmt_capacity);
	ws->max_children = max_children(&s->arch);
	ws->child_key = xcalloc(ws->max_children, sizeof(*ws->child_key));
	ws->child_flag = xcalloc(ws->max_children, sizeof(*ws->child_flag));
	nest_walk_init(ws);
	if (ws->opt.footprint == MODEL_FOOTPRINT_EXACT && fp_init(ws) < 0) {
		if (err)
			snprintf(err, err_size, "exact footprints are not available in this build");
		model_ws_free(ws);
		return NULL;
	}
	return ws;
}

void model_ws_free(struct model_ws *ws)
{
	if (!ws)
		return;
	fp_release(ws);
	sparse_release(ws);
	nest_walk_release(ws);
	free(ws->child_key);
	free(ws->child_flag);
	free(ws);
}

const struct spec_set *model_ws_spec(const struct model_ws *ws)
{
	return ws->s;
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

/* Reset the summary part of 'out' and record the run's settings. */
static void result_start(struct model_ws *ws, struct model_result *out)
{
	memset(out, 0, offsetof(struct model_result, compute));
	memset(out->levels, 0, ws->n_levels * sizeof(out->levels[0]));
	memset(out->networks, 0, ws->n_levels * sizeof(out->networks[0]));
	out->status = EVAL_OK;
	out->fail_level = out->fail_tensor = -1;
	out->n_levels = ws->n_levels;
	out->n_tensors = ws->n_tensors;
	out->is_sparse_layout = ws->s->sparse.present;
	out->energy_preset = ws->preset_name;
	out->footprint = ws->opt.footprint;
}

static void nest_clear(struct model_ws *ws)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct nest_tile *t = &ws->nest.t[l][pv];
			t->size = t->spatial_size = t->link_transfers = 0;
			t->n_rec = 0;
		}
	}
	ws->nest.compute_accesses = 0;
}

/*
 * Make room for the largest spatial group of the mapping: under spatial
 * skipping a mapping may spread more children than the hardware has
 * instances (the sparse hook checks the thinned fan-out).
 */
static void reserve_children(struct model_ws *ws)
{
	uint64_t n = 1;
	unsigned i;

	for (i = 0; i < ws->m->n_loops; i++)
		if (ws->m->loops[i].spacetime != SPEC_TEMPORAL)
			n *= ws->m->loops[i].end;
	if (n <= ws->max_children)
		return;
	free(ws->child_key);
	free(ws->child_flag);
	nest_walk_release(ws);
	ws->max_children = (size_t)n;
	ws->child_key = xcalloc(ws->max_children, sizeof(*ws->child_key));
	ws->child_flag = xcalloc(ws->max_children, sizeof(*ws->child_flag));
	nest_walk_init(ws);
}

int model_eval(struct model_ws *ws, const struct spec_mapping *m, struct model_result *out)
{
	result_start(ws, out);
	loops_prepare(ws, m);
	if (sparse_defers_fanout(ws))
		reserve_children(ws);
	else if (check_levels_fanout(ws, out) < 0)
		return -1;
	nest_clear(ws);
	if (ws->opt.no_fast_path || nest_fast(ws) < 0) {
		nest_clear(ws);
		nest_walk(ws);
		out->nest_walked = true;
	}
	collapse(ws, out);
	if (sparse_hook(ws, out) < 0)
		return -1;
	if (check_levels(ws, out) < 0)
		return -1;
	eval_compute(ws, out);
	eval_levels(ws, out);
	eval_totals(ws, out);
	return 0;
}

int model_check_capacity(struct model_ws *ws, const struct spec_mapping *m,
			 struct model_result *out)
{
	unsigned l, pv;

	result_start(ws, out);
	loops_prepare(ws, m);
	if (!sparse_defers_fanout(ws) && check_levels_fanout(ws, out) < 0)
		return -1;
	for (l = 0; l < ws->n_levels; l++) {
		const uint64_t *ext = ws->loops[ws->lv[l].boundary].extent;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			t->is_kept = ws->m->levels[l].keep_mask & (1u << pv);
			t->utilized_capacity = t->is_kept && !sparse_has_format(ws, l, pv) ?
					       model_tile_words(ws, pv, ext) : 0;
		}
	}
	return check_levels(ws, out);
}
