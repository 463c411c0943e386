/*
 * The analytical model as the search's evaluator (the mapspace uses model/
 * only to count tiles). One model workspace and one result buffer per
 * thread; a failed evaluation becomes a mapper_fail at a storage level.
 */
#include "mapper/mapper.h"

#include <stdlib.h>

#include "model/model.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct model_eval_ws {
	struct model_ws *ws;
	struct model_result res;
	struct model_ragged_ws *ragged;      /* a ragged workload: evaluated case by case */
	struct model_ragged_result rres;
};

static void *model_ws_open(const void *ctx)
{
	const struct mapper_model_ctx *mc = ctx;
	struct model_eval_ws *w = xmalloc(sizeof(*w));
	struct strbuf err = STRBUF_INIT;

	w->ragged = mc->spec->workload.n_ragged ?
		    model_ragged_ws_new(mc->spec, mc->options, &err) : NULL;
	if (mc->spec->workload.n_ragged && !w->ragged)
		BUG("ragged model workspace: %s (checked before the search)", err.buf);
	w->ws = model_ws_new(mc->spec, mc->options, &err);
	if (!w->ws)
		BUG("model workspace: %s (checked before the search)", err.buf);
	strbuf_release(&err);
	return w;
}

static void model_ws_close(void *ws)
{
	struct model_eval_ws *w = ws;
	if (!w)
		return;
	model_ws_free(w->ws);
	model_ragged_ws_free(w->ragged);
	free(w);
}

/* The mapper's view of a model status. */
static enum mapper_fail fail_of(enum model_status st)
{
	switch (st) {
	case EVAL_OK:
		return MAPPER_OK;
	case EVAL_OVER_CAPACITY:
	case EVAL_METADATA_CAPACITY:
	case EVAL_UNDER_UTILIZATION:
		return MAPPER_FAIL_CAPACITY;
	case EVAL_FANOUT:
		return MAPPER_FAIL_FANOUT;
	default:
		return MAPPER_FAIL_OTHER;
	}
}

void mapper_metrics_of_result(const struct model_result *r, double *metrics)
{
	metrics[SPEC_METRIC_ENERGY] = r->energy_pj;
	metrics[SPEC_METRIC_DELAY] = (double)r->cycles;
	metrics[SPEC_METRIC_EDP] = r->edp_j_cycles;
	metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES] = (double)r->last_level_accesses;
}

void mapper_metrics_of_ragged(const struct model_ragged_result *r, double *metrics)
{
	unsigned t, top = r->n_levels - 1;
	double acc = 0.0;

	for (t = 0; t < r->n_tensors; t++)
		acc += r->reads[top][t] + r->fills[top][t] + r->updates[top][t];
	metrics[SPEC_METRIC_ENERGY] = r->energy_pj;
	metrics[SPEC_METRIC_DELAY] = r->cycles;
	metrics[SPEC_METRIC_EDP] = r->cycles * r->energy_pj * 1e-12;
	metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES] = acc;
}

static void model_eval_one(void *ws, const struct spec_mapping *m, struct mapper_eval *out)
{
	struct model_eval_ws *w = ws;

	if (w->ragged) {
		model_ragged_eval(w->ragged, m, &w->rres);
		out->status = fail_of(w->rres.status);
		out->fail_level = 0;
		if (out->status == MAPPER_OK)
			mapper_metrics_of_ragged(&w->rres, out->metrics);
		return;
	}

	model_eval(w->ws, m, &w->res);
	out->status = fail_of(w->res.status);
	out->fail_level = w->res.fail_level >= 0 ? (unsigned)w->res.fail_level : 0;
	if (out->status == MAPPER_OK)
		mapper_metrics_of_result(&w->res, out->metrics);
}

void mapper_evaluator_model(struct mapper_evaluator *ev, const struct mapper_model_ctx *ctx)
{
	ev->ctx = ctx;
	ev->ws_new = model_ws_open;
	ev->ws_free = model_ws_close;
	ev->eval = model_eval_one;
}
