/*
 * The workspace: everything that depends only on the spec set (projections,
 * energies, the sparse analysis' models, exact footprints, scratch), made
 * once per spec set and thread.
 */
#include "model/model_int.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#include "model/preset_int.h"

const char *const *model_energy_preset_names(void)
{
	return model_preset_names();
}

const char *model_energy_preset_default(void)
{
	return model_preset_name(PRESET_DEFAULT);
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

/* What of the architecture the stages would otherwise look up per mapping. */
static void prepare_shape(struct model_ws *ws)
{
	unsigned l;

	ws->wave_first = ws->wave_last = -1;
	ws->any_warps = false;
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &ws->s->arch.levels[l];
		if (lvl->concurrent_instances) {
			if (ws->wave_first < 0)
				ws->wave_first = (int)l;
			ws->wave_last = (int)l;
		}
		ws->any_warps |= lvl->warp_registers != 0;
	}
}

/* The preset chosen by the options, or the default; -1 if none/unknown. */
static int choose_preset(const struct model_options *opt, struct strbuf *err)
{
	const char *name = opt->energy_preset ? opt->energy_preset : model_energy_preset_default();
	int p = model_preset_find(name);
	if (p < 0)
		strbuf_setf(err, "unknown energy preset '%s'", name);
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

/*
 * FIBERLOOP_NEST: "walk" always walks the nest (the reference), "check"
 * runs the walk after the fast path and stops at a difference; unset or
 * empty: the options as given.
 */
static int nest_env(struct model_options *o, struct strbuf *err)
{
	const char *v = getenv("FIBERLOOP_NEST");

	if (!v || !*v)
		return 0;
	if (!strcmp(v, "walk")) {
		o->no_fast_path = true;
	} else if (!strcmp(v, "check")) {
		o->check_fast_path = true;
	} else {
		strbuf_setf(err, "FIBERLOOP_NEST='%s': expected 'walk' or 'check'", v);
		return -1;
	}
	return 0;
}

/*
 * Prepare the cleared 'ws' for 's' and 'opt'. The scratch buffers it holds
 * (kept by model_ws_reuse(): child_key, child_flag and their capacity
 * max_children, the walk's state) are kept when big enough.
 */
static int ws_prepare(struct model_ws *ws, const struct spec_set *s,
		      const struct model_options *opt, struct sparse_ws *keep_sp, struct strbuf *err)
{
	static const struct model_options defaults = MODEL_OPTIONS_INIT;
	size_t children = max_children(&s->arch);

	ws->s = s;
	ws->opt = opt ? *opt : defaults;
	ws->n_levels = s->arch.n_levels;
	ws->n_tensors = s->workload.n_tensors;
	ws->n_dims = s->workload.n_dims;
	if (nest_env(&ws->opt, err) < 0)
		return -1;
	ws->preset = choose_preset(&ws->opt, err);
	if (ws->preset < 0) {
		ws->sp = keep_sp;    /* freed with the workspace */
		return -1;
	}
	prepare_projections(ws);
	prepare_shape(ws);
	ws->count_factor = model_count_range_factor(ws);
	model_energy_prepare(ws);
	model_sparse_prepare(ws, keep_sp);
	ws->tile_head_size = offsetof(struct model_tile, fmt_capacity);
	if (children > ws->max_children || !ws->child_key) {
		free(ws->child_key);
		free(ws->child_flag);
		model_nest_walk_release(ws);
		ws->max_children = children;
		ws->child_key = xcalloc(children, sizeof(*ws->child_key));
		ws->child_flag = xcalloc(children, sizeof(*ws->child_flag));
	}
	if (!ws->walk)
		model_nest_walk_init(ws);
	if (ws->opt.footprint == MODEL_FOOTPRINT_EXACT && model_fp_init(ws) < 0) {
		strbuf_setf(err, "exact footprints are not available in this build");
		return -1;
	}
	return 0;
}

struct model_ws *model_ws_new(const struct spec_set *s, const struct model_options *opt,
			      struct strbuf *err)
{
	return model_ws_reuse(NULL, s, opt, err);
}

/* model_ws_reuse() clears the head of the workspace around the projections. */
_Static_assert(offsetof(struct model_ws, density_name) ==
	       offsetof(struct model_ws, proj) + sizeof(((struct model_ws *)0)->proj),
	       "nothing lies between proj and density_name");

struct model_ws *model_ws_reuse(struct model_ws *ws, const struct spec_set *s,
				const struct model_options *opt, struct strbuf *err)
{
	struct sparse_ws *keep_sp = NULL;

	if (!ws) {
		ws = xcalloc(1, sizeof(*ws));
	} else {
		/*
		 * What depends on the old spec set goes and is cleared as calloc
		 * cleared it (50 KB). The per-mapping tables (loops, nest, tiles:
		 * 400 KB), the scratch and the walk's state are left as an
		 * evaluation leaves them for the next mapping: model_eval() sets
		 * what it reads of them (a workspace evaluates mapping after
		 * mapping in the mapper), and clearing them cost more than the
		 * evaluation (tests/model/test_ws checks against fresh workspaces).
		 */
		unsigned l, pv, n_levels = ws->n_levels, n_tensors = ws->n_tensors;

		model_fp_release(ws);
		keep_sp = model_sparse_detach(ws);   /* its 2 MB, used again */
		/*
		 * The projections (46 KB) and the tile extents (16 KB) are
		 * written only for the old set's tensors and levels
		 * (prepare_projections(), the nest): those are cleared, the
		 * rest is still as calloc left it.
		 */
		memset(ws, 0, offsetof(struct model_ws, proj));
		memset(ws->proj, 0, n_tensors * sizeof(ws->proj[0]));
		memset(ws->density_name, 0,
		       offsetof(struct model_ws, loops) - offsetof(struct model_ws, density_name));
		memset(ws->lv, 0, offsetof(struct model_ws, nest) - offsetof(struct model_ws, lv));
		for (l = 0; l < n_levels; l++)
			for (pv = 0; pv < n_tensors; pv++)
				memset(ws->tile_ext[l][pv], 0, sizeof(ws->tile_ext[l][pv]));
		for (l = 0; l < SPEC_MAX_LEVELS; l++)   /* the mesh neighbours are computed again */
			ws->nb[l].valid = false;
	}
	if (ws_prepare(ws, s, opt, keep_sp, err) < 0) {
		model_ws_free(ws);
		return NULL;
	}
	return ws;
}

void model_ws_free(struct model_ws *ws)
{
	if (!ws)
		return;
	model_fp_release(ws);
	model_sparse_release(ws);
	model_nest_walk_release(ws);
	free(ws->child_key);
	free(ws->child_flag);
	free(ws);
}

const struct spec_set *model_ws_spec(const struct model_ws *ws)
{
	return ws->s;
}

