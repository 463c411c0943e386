/*
 * Ragged workloads (docs/model.md, "Ragged dimensions"): a workload whose
 * ragged dimensions' extents depend on the coordinate of their parent is
 * evaluated one distinct combination of extents at a time, as the dense
 * workload of one parent coordinate under the mapping with the parent's
 * factors 1 and the ragged ones' factors as tile sizes (specs/ragged.c),
 * and the counts are summed with the combinations' weights: exactly for a
 * list of extents, in expectation for a distribution. This is exact when the
 * parent's loops are temporal and outermost at the outermost level (checked):
 * then no level below holds anything across parent coordinates.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* Add 'w' times the totals of 'r' into 'out'. */
static void accumulate(struct model_ragged_result *out, const struct model_result *r, double w)
{
	unsigned l, t;

	out->computes += w * (double)r->algorithmic_computes;
	out->actual_computes += w * (double)r->actual_computes;
	out->cycles += w * (double)r->cycles;
	out->energy_pj += w * r->energy_pj;
	for (l = 0; l < r->n_levels; l++)
		for (t = 0; t < r->n_tensors; t++) {
			const struct model_tile *mt = &r->tiles[l][t];
			double rep = (double)mt->replication;
			if (!mt->is_kept)
				continue;
			out->reads[l][t] += w * rep * (double)mt->reads;
			out->fills[l][t] += w * rep * (double)mt->fills;
			out->updates[l][t] += w * rep * (double)mt->updates;
		}
}

struct model_ragged_ws {
	const struct spec_set *s;
	size_t n_cases;
	struct spec_ragged_case *cases;
	struct spec_ragged_view *views;     /* [case]: the workspaces borrow their sets */
	struct model_ws **ws;               /* [case] */
	struct model_result *r;
};

struct model_ragged_ws *model_ragged_ws_new(const struct spec_set *s,
					    const struct model_options *opt, struct strbuf *err)
{
	struct model_ragged_ws *w = xcalloc(1, sizeof(*w));
	size_t i;

	w->s = s;
	w->n_cases = spec_ragged_cases(&s->workload, &w->cases);
	w->views = xcalloc(w->n_cases + 1, sizeof(*w->views));
	w->ws = xcalloc(w->n_cases + 1, sizeof(*w->ws));
	w->r = xmalloc(sizeof(*w->r));
	for (i = 0; i < w->n_cases; i++) {
		spec_ragged_view_init(&w->views[i], s, w->cases[i].extent);
		w->ws[i] = model_ws_new(&w->views[i].set, opt, err);
		if (!w->ws[i]) {
			model_ragged_ws_free(w);
			return NULL;
		}
	}
	return w;
}

void model_ragged_ws_free(struct model_ragged_ws *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n_cases; i++)
		model_ws_free(w->ws[i]);
	free(w->ws);
	free(w->views);
	free(w->cases);
	free(w->r);
	free(w);
}

int model_ragged_eval(struct model_ragged_ws *w, const struct spec_mapping *m,
		      struct model_ragged_result *out)
{
	const struct spec_set *s = w->s;
	struct strbuf why = STRBUF_INIT;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->status = EVAL_OK;
	out->n_levels = s->arch.n_levels;
	out->n_tensors = s->workload.n_tensors;
	out->n_cases = w->n_cases;
	if (spec_ragged_check_mapping(&s->workload, m, &why) < 0) {
		out->status = EVAL_BAD_MAPPING;
		snprintf(out->reason, sizeof(out->reason), "%s", why.buf);
	}
	strbuf_release(&why);
	for (i = 0; i < w->n_cases && out->status == EVAL_OK; i++) {
		struct spec_ragged_view *v = &w->views[i];
		if (spec_ragged_view_map(v, s, m) < 0) {
			out->status = EVAL_BAD_MAPPING;
			snprintf(out->reason, sizeof(out->reason), "the factors cannot tile a ragged "
				 "extent");
		} else if (model_eval(w->ws[i], &v->map, w->r) < 0) {
			out->status = w->r->status;
			memcpy(out->reason, w->r->reason, sizeof(out->reason));
		} else {
			accumulate(out, w->r, w->cases[i].weight);
		}
	}
	return out->status == EVAL_OK ? 0 : -1;
}

int model_eval_ragged(const struct spec_set *s, const struct spec_mapping *m,
		      const struct model_options *opt, struct model_ragged_result *out)
{
	struct strbuf err = STRBUF_INIT;
	struct model_ragged_ws *w = model_ragged_ws_new(s, opt, &err);
	int rc;

	if (!w) {
		memset(out, 0, sizeof(*out));
		out->status = EVAL_BAD_MAPPING;
		snprintf(out->reason, sizeof(out->reason), "%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	rc = model_ragged_eval(w, m, out);
	model_ragged_ws_free(w);
	strbuf_release(&err);
	return rc;
}
