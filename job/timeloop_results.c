/*
 * What the results of Timeloop/Sparseloop designs (the default kind) give:
 * the metrics a model result, a search and an execution provide, and the
 * writers of a model result, for the runners (model.c, map.c, exec.c,
 * validate.c) and the kind's row (timeloop.c).
 */
#include "job/job_int.h"

#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "job/kind_int.h"
#include "mapper/mapper.h"
#include "model/model.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---------------------------------------------------------------- metrics */

#define MR struct model_result
JOB_GET_REAL(energy, MR, r->energy_pj)
JOB_GET_COUNT(cycles, MR, r->cycles)
JOB_GET_REAL(edp, MR, r->edp_j_cycles)
JOB_GET_REAL(utilization, MR, r->utilization)
JOB_GET_COUNT(algorithmic, MR, r->algorithmic_computes)
JOB_GET_COUNT(actual, MR, r->actual_computes)
JOB_GET_REAL(pj_per_compute, MR, r->pj_per_compute)
JOB_GET_REAL(compute_energy, MR, r->compute.energy_pj)
#undef MR

/* The design's area (levels and compute unit, times instances); none when nothing gives one. */
static bool area(const struct spec_set *s, const void *result, struct job_metric_value *v)
{
	const struct model_result *r = result;

	(void)s;
	v->real = r->area_total_um2;
	return r->area_total_um2 > 0;
}

/* The time of the run at the design's clock, when it gives one. */
static bool seconds(const struct spec_set *s, const void *result, struct job_metric_value *v)
{
	const struct model_result *r = result;
	double cs;

	if (!spec_arch_cycle_seconds(&s->arch, &cs))
		return false;
	v->real = (double)r->cycles * cs;
	return true;
}

/* Each storage level's energy, innermost first; then each tensor's, as "tensor.NAME". */
static void model_levels(const struct spec_set *s, const void *result, struct job_summary *sum)
{
	const struct model_result *r = result;
	unsigned l;

	struct strbuf name = STRBUF_INIT;
	unsigned pv;

	for (l = 0; l < r->n_levels; l++)
		job_summary_add_level(sum, s->arch.levels[l].name, r->levels[l].energy_pj);
	for (pv = 0; pv < s->workload.n_tensors; pv++) {   /* energy_pj.tensor.NAME */
		strbuf_reset(&name);
		strbuf_addf(&name, "%s%s", REPORT_TENSOR_PREFIX, s->workload.tensors[pv].name);
		job_summary_add_level(sum, name.buf, report_tensor_energy(r, pv));
	}
	strbuf_release(&name);
}

static const struct job_metric_get model_gets[] = {
	{ JOB_METRIC_ENERGY_PJ, energy },
	{ JOB_METRIC_CYCLES, cycles },
	{ JOB_METRIC_EDP_J_CYCLES, edp },
	{ JOB_METRIC_UTILIZATION, utilization },
	{ JOB_METRIC_ALGORITHMIC_COMPUTES, algorithmic },
	{ JOB_METRIC_ACTUAL_COMPUTES, actual },
	{ JOB_METRIC_PJ_PER_COMPUTE, pj_per_compute },
	{ JOB_METRIC_COMPUTE_ENERGY_PJ, compute_energy },
	{ JOB_METRIC_AREA_UM2, area },
	{ JOB_METRIC_SECONDS, seconds },
};

/* The model's result (model, map's best mapping, validate). */
const struct job_metric_set job_metrics_model = {
	"struct model_result",
	JOB_COMMAND_BIT(JOB_MODEL) | JOB_COMMAND_BIT(JOB_MAP) | JOB_COMMAND_BIT(JOB_VALIDATE),
	false, model_gets, ARRAY_SIZE(model_gets), model_levels,
};

/* What bounds the run: "compute", or "LEVEL bandwidth|latency". */
static bool bound(const struct spec_set *s, const void *result, struct job_metric_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	bool fits;

	report_roofline_bound(s, result, &sb);
	fits = sb.len < sizeof(v->buf);
	if (fits)
		memcpy(v->buf, sb.buf, sb.len + 1);
	v->text = v->buf;
	strbuf_release(&sb);
	return fits;
}

static const struct job_metric_get roofline_gets[] = { { JOB_METRIC_BOUND, bound } };

/* The model's result seen through the roofline (with --roofline). */
const struct job_metric_set job_metrics_roofline = {
	"struct model_result",
	JOB_COMMAND_BIT(JOB_MODEL) | JOB_COMMAND_BIT(JOB_MAP) | JOB_COMMAND_BIT(JOB_VALIDATE),
	true, roofline_gets, ARRAY_SIZE(roofline_gets), NULL,
};

JOB_GET_COUNT(evaluated, struct mapper_result, r->n_evaluated)
JOB_GET_COUNT(valid, struct mapper_result, r->n_valid)

static const struct job_metric_get search_gets[] = {
	{ JOB_METRIC_N_EVALUATED, evaluated },
	{ JOB_METRIC_N_VALID, valid },
};

/* The mapper's search (map). */
const struct job_metric_set job_metrics_search = {
	"struct mapper_result", JOB_COMMAND_BIT(JOB_MAP), false, search_gets,
	ARRAY_SIZE(search_gets), NULL,
};

JOB_GET_COUNT(exec_algorithmic, struct exec_result, r->computes)
JOB_GET_COUNT(exec_actual, struct exec_result, r->computes_class[EXEC_ACTUAL])

static const struct job_metric_get exec_gets[] = {
	{ JOB_METRIC_ALGORITHMIC_COMPUTES, exec_algorithmic },
	{ JOB_METRIC_ACTUAL_COMPUTES, exec_actual },
};

/* The executor's counts (exec). */
const struct job_metric_set job_metrics_exec = {
	"struct exec_result", JOB_COMMAND_BIT(JOB_EXEC), false, exec_gets, ARRAY_SIZE(exec_gets),
	NULL,
};

void job_summarize_model(const struct spec_set *s, const struct job_options *o,
			 const struct spec_mapping *m, const struct model_result *r,
			 struct job_summary *sum)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	job_summary_fill(sum, &job_metrics_model, s, r);
	if (o->roofline)
		job_summary_fill(sum, &job_metrics_roofline, s, r);
	job_describe_mapping(s, m, &sb);
	n = sb.len < sizeof(sum->mapping) ? sb.len : sizeof(sum->mapping) - 1;   /* as snprintf cuts */
	memcpy(sum->mapping, sb.buf, n);
	sum->mapping[n] = '\0';
	strbuf_release(&sb);
}

/* ---------------------------------------------------------------- writers */

static void text(const struct spec_set *s, const void *result, const struct job_options *o,
		 struct strbuf *out)
{
	const struct job_model_view *v = result;

	report_summary(s, v->r, out);
	if (o->roofline)
		report_roofline(s, v->r, out);
	report_per_call(s, v->r, out);
}

static void json(const struct spec_set *s, const void *result, const struct job_options *o,
		 struct strbuf *out)
{
	const struct job_model_view *v = result;

	(o->roofline ? report_json_roofline : report_json)(s, v->m, v->r, o->files, o->n_files,
							    out);
}

static void csv_row(const struct spec_set *s, const void *result, struct strbuf *out)
{
	const struct job_model_view *v = result;

	report_csv_row(s, v->r, out);
}

const struct job_kind_writers job_timeloop_writers = { text, json, report_csv_header, csv_row };
