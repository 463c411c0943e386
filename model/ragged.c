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

int model_eval_ragged(const struct spec_set *s, const struct spec_mapping *m,
		      const struct model_options *opt, struct model_ragged_result *out)
{
	struct spec_ragged_case *cases = NULL;
	struct spec_ragged_view *v = xmalloc(sizeof(*v));
	struct model_result *r = xmalloc(sizeof(*r));
	struct strbuf why = STRBUF_INIT;
	size_t n, i;

	memset(out, 0, sizeof(*out));
	out->status = EVAL_OK;
	out->n_levels = s->arch.n_levels;
	out->n_tensors = s->workload.n_tensors;
	if (spec_ragged_check_mapping(&s->workload, m, &why) < 0) {
		out->status = EVAL_BAD_MAPPING;
		snprintf(out->reason, sizeof(out->reason), "%s", why.buf);
		n = 0;
	} else {
		n = spec_ragged_cases(&s->workload, &cases);
	}
	for (i = 0; i < n && out->status == EVAL_OK; i++) {
		struct model_ws *ws;
		if (spec_ragged_view_init(v, s, m, cases[i].extent) < 0) {
			out->status = EVAL_BAD_MAPPING;
			snprintf(out->reason, sizeof(out->reason), "the factors cannot tile a ragged "
				 "extent");
			break;
		}
		ws = model_ws_new(&v->set, opt, &why);
		if (!ws) {
			out->status = EVAL_BAD_MAPPING;
			snprintf(out->reason, sizeof(out->reason), "%s", why.buf);
			break;
		}
		if (model_eval(ws, &v->map, r) < 0) {
			out->status = r->status;
			memcpy(out->reason, r->reason, sizeof(out->reason));
		} else {
			accumulate(out, r, cases[i].weight);
		}
		model_ws_free(ws);
	}
	out->n_cases = n;
	free(cases);
	free(v);
	free(r);
	strbuf_release(&why);
	return out->status == EVAL_OK ? 0 : -1;
}
