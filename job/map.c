/*
 * 'map': search the mapspace of the design under its constraints and
 * evaluate the best mapping found once more for the full report. Prints
 * the search summary and the best mapping's summary; the files are the
 * mapping as YAML (loadable by 'model'), its stats.txt, map.txt and JSON.
 */
#include "job/job_int.h"

#include <stdlib.h>
#include <string.h>

#include "energy/energy.h"
#include "job/kind_int.h"
#include "mapper/mapper.h"
#include "model/model.h"
#include "report/report.h"
#include "util/xalloc.h"

#define OUT_PREFIX "fiberloop-mapper"

static const char *const metric_units[] = {
	[SPEC_METRIC_ENERGY] = "pJ", [SPEC_METRIC_DELAY] = "cycles",
	[SPEC_METRIC_EDP] = "J*cycle", [SPEC_METRIC_LAST_LEVEL_ACCESSES] = "accesses",
};

/* The command line's settings on top of the design's 'mapper' key. */
static void apply_overrides(const struct job_options *jo, struct mapper_options *o)
{
	const struct job_map_options *m = &jo->map;

	if (m->has_algorithm)
		o->algorithm = m->algorithm;
	if (m->has_threads)
		o->n_threads = m->threads;
	if (m->has_streams)
		o->n_streams = m->streams;
	if (jo->has_seed)
		o->seed = jo->seed;
	if (m->has_search_size)
		o->search_size = m->search_size;
	if (m->has_timeout)
		o->timeout = m->timeout;
	if (m->has_victory)
		o->victory_condition = m->victory;
	if (m->has_refine)
		o->refine = (unsigned)m->refine;
	if (m->has_time_limit)
		o->time_limit_s = m->time_limit_s;
}

/* ------------------------------------------------------------ callbacks */

struct map_hooks {
	const struct spec_set *s;
	const struct job_map_options *m;
	struct strbuf line;
};

static void on_progress(void *arg, const struct mapper_progress *p)
{
	struct map_hooks *h = arg;
	struct job_progress jp = {
		.n_evaluated = p->n_evaluated, .n_valid = p->n_valid, .has_best = p->has_best,
		.best_energy_pj = p->best[SPEC_METRIC_ENERGY],
		.best_cycles = p->best[SPEC_METRIC_DELAY], .best_edp = p->best[SPEC_METRIC_EDP],
		.per_s = p->per_s, .elapsed_s = p->elapsed_s,
		.n_streams_active = p->n_streams_active,
	};
	h->m->on_progress(h->m->progress_arg, &jp);
}

/* One CSV line of the candidate log. */
static void on_candidate(void *arg, const struct mapper_candidate *c)
{
	struct map_hooks *h = arg;
	struct strbuf *sb = &h->line;

	strbuf_reset(sb);
	strbuf_addf(sb, "%u,%llu,%s,", c->stream, (unsigned long long)c->seq,
		    mapper_fail_name(c->eval.status));
	if (c->eval.status != MAPPER_OK)
		strbuf_addf(sb, "%s,,,,,0,", h->s->arch.levels[c->eval.fail_level].name);
	else
		strbuf_addf(sb, ",%.17g,%.17g,%.17g,%.17g,%d,", c->eval.metrics[SPEC_METRIC_ENERGY],
			    c->eval.metrics[SPEC_METRIC_DELAY], c->eval.metrics[SPEC_METRIC_EDP],
			    c->eval.metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES], c->is_best);
	if (c->mapping)
		job_describe_mapping(h->s, c->mapping, sb);
	strbuf_addch(sb, '\n');
	h->m->on_log_line(h->m->log_arg, sb->buf, sb->len);
}

static void hook_up(struct map_hooks *h, struct mapper_options *o)
{
	static const char header[] = "stream,seq,status,fail_level,energy_pj,cycles,edp,"
				     "last_level_accesses,is_best,mapping\n";

	if (h->m->on_progress) {
		o->on_progress = on_progress;
		o->progress_arg = h;
		o->progress_interval_s = h->m->progress_interval_s;
	}
	if (h->m->on_log_line) {
		h->m->on_log_line(h->m->log_arg, header, sizeof(header) - 1);
		o->on_candidate = on_candidate;
		o->candidate_arg = h;
	}
	o->stop = h->m->stop;
}

/* -------------------------------------------------------------- output */

static void search_summary(const struct mapper_options *o, const struct mapper_result *r,
			   struct strbuf *sb)
{
	unsigned i;

	strbuf_addf(sb, "search: %s, %u streams on %u threads", spec_search_name(o->algorithm),
		    o->n_streams, r->n_threads);
	if (job_ranks() > 1)
		strbuf_addf(sb, " of %u MPI ranks", job_ranks());
	strbuf_addf(sb, ", seed %llu\n", (unsigned long long)o->seed);
	strbuf_addf(sb, "  %llu candidates (%llu valid, %llu model evaluations) in %.2f s "
		    "(%.0f/s)\n", (unsigned long long)r->n_evaluated, (unsigned long long)r->n_valid,
		    (unsigned long long)r->n_model_calls, r->elapsed_s,
		    r->elapsed_s > 0 ? (double)r->n_evaluated / r->elapsed_s : 0.0);
	strbuf_addstr(sb, "  streams stopped by:");
	for (i = 0; i < MAPPER_STOP_COUNT; i++)
		if (r->stream_stops[i])
			strbuf_addf(sb, " %s %u;", mapper_stop_name(i), r->stream_stops[i]);
	strbuf_addch(sb, '\n');
	if (r->refined)
		strbuf_addf(sb, "  refinement: %llu evaluations, %llu steps; %s %.9g before\n",
			    (unsigned long long)r->n_refine_evals, (unsigned long long)r->n_refine_steps,
			    spec_metric_name(o->metrics[0]), r->searched_eval.metrics[o->metrics[0]]);
	if (!r->found)
		return;
	strbuf_addf(sb, "best mapping (stream %u):\n", r->best_stream);
	for (i = 0; i < SPEC_METRIC_COUNT; i++)
		strbuf_addf(sb, "  %-20s %.9g %s\n", spec_metric_name(i), r->best_eval.metrics[i],
			    metric_units[i]);
	strbuf_addch(sb, '\n');
}

/* Why no candidate was valid, by reason and level. */
static void failures(const struct spec_set *s, const struct mapper_result *r, struct strbuf *sb)
{
	unsigned f, l;

	for (f = 1; f < MAPPER_FAIL_COUNT; f++)
		for (l = 0; l < s->arch.n_levels; l++)
			if (r->fail_counts[f][l])
				strbuf_addf(sb, "  %s of '%s': %llu\n", mapper_fail_name(f),
					    s->arch.levels[l].name,
					    (unsigned long long)r->fail_counts[f][l]);
}

/* Evaluate the best mapping once more; the summary and the files from it. */
static void best_outputs(const struct spec_set *s, const struct job_options *o,
			 const struct model_options *mo, const struct mapper_result *r,
			 struct job_summary *sum, struct job_outputs *out)
{
	struct model_result *mr;
	struct model_ws *ws;
	struct job_model_view v;
	double metrics[SPEC_METRIC_COUNT];

	if (s->workload.n_ragged) {
		struct model_ragged_result *rr = xmalloc(sizeof(*rr));
		if (model_eval_ragged(s, &r->best, mo, rr) < 0)
			BUG("the best mapping no longer evaluates");
		if (o->want & JOB_WANT_PRINT) {
			spec_mapping_write_yaml(&r->best, &s->arch, &s->workload, &out->print);
			report_ragged_model(s, rr, &out->print);
		}
		if (o->want & JOB_WANT_FILES)
			spec_mapping_write_yaml(&r->best, &s->arch, &s->workload,
						job_out_file(out, OUT_PREFIX ".map.yaml"));
		free(rr);
		return;
	}
	mr = xmalloc(sizeof(*mr));
	ws = model_ws_new(s, mo, NULL);
	v.m = &r->best;
	v.r = mr;

	if (!ws || model_eval(ws, &r->best, mr) < 0)
		BUG("the best mapping no longer evaluates");
	mapper_metrics_of_result(mr, metrics);
	if (memcmp(metrics, r->best_eval.metrics, sizeof(metrics)))
		BUG("the model gives the best mapping other metrics on a second evaluation");
	job_summarize_model(s, o, &r->best, mr, sum);
	job_kind_print(&job_timeloop_writers, s, &v, o, out);
	if (o->want & JOB_WANT_FILES) {
		spec_mapping_write_yaml(&r->best, &s->arch, &s->workload,
					job_out_file(out, OUT_PREFIX ".map.yaml"));
		report_stats_txt(s, mr, job_out_file(out, OUT_PREFIX ".stats.txt"));
		report_map_txt(s, &r->best, mr, job_out_file(out, OUT_PREFIX ".map.txt"));
		job_timeloop_writers.json(s, &v, o, job_out_file(out, OUT_PREFIX ".stats.json"));
	}
	model_ws_free(ws);
	free(mr);
}

/*
 * The search of 'o' shared out over the MPI ranks: each runs the streams
 * s with s % ranks == rank, rank 0 gathers the parts and merges them into
 * 'r' (mapper_run()'s result for any number of ranks); '*lead' says
 * whether this is rank 0. Returns 0, or -1 (rank 0: with r->error).
 */
static int run_on_ranks(const struct mapper_space *ms, const struct mapper_evaluator *ev,
			const struct mapper_options *o, struct mapper_result *r, bool *lead_out)
{
	unsigned i, n = job_ranks();
	size_t size = mapper_part_size(o->n_streams);
	struct mapper_part **parts = xcalloc(n, sizeof(*parts));
	bool lead = job_rank() == 0;
	int rc;

	for (i = 0; i < n; i++)
		if (lead || i == job_rank())
			parts[i] = xcalloc(1, size);
	rc = mapper_run_part(ms, ev, o, job_rank(), n, parts[job_rank()]);
	job_mpi_gather(parts[job_rank()], size, (void *const *)parts);   /* a failed part says why */
	if (lead)
		rc = mapper_run_merge(ms, ev, o, (const struct mapper_part *const *)parts, n, r);
	for (i = 0; i < n; i++)
		free(parts[i]);
	free(parts);
	*lead_out = lead;
	return rc;
}

enum job_status job_run_map(const struct spec_set *s, const struct job_options *jo,
			    struct job_summary *sum, struct job_outputs *out)
{
	struct model_options mo;
	struct mapper_model_ctx mc = { s, &mo };
	struct map_hooks hooks = { s, &jo->map, STRBUF_INIT };
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_space *ms;
	struct mapper_result *r;
	struct model_ws *ws;
	struct energy_tables *own;
	bool lead = true;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	job_model_options(jo, &mo);
	if (job_energy_prepare(s, jo, &mo, &own, sum, out) != JOB_OK)
		return sum->status;
	mapper_options_init(&o, &s->mapper);
	apply_overrides(jo, &o);
	ms = mapper_space_new_imperfect(s, &mo, jo->map.has_imperfect ? jo->map.imperfect
								       : s->mapper.imperfect,
					&out->diags);
	if (!ms) {
		energy_tables_free(own);
		sum->status = JOB_BAD_INPUT;   /* the diagnostics say why */
		return sum->status;
	}
	ws = model_ws_new(s, &mo, &err);   /* before threads ask for one each */
	if (!ws) {
		mapper_space_free(ms);
		energy_tables_free(own);
		return job_fail_with(sum, JOB_BAD_INPUT, &err);
	}
	model_ws_free(ws);
	hook_up(&hooks, &o);
	mapper_evaluator_model(&ev, &mc);
	r = xmalloc(sizeof(*r));
	if (jo->map.split_ranks && job_ranks() > 1 && o.on_candidate) {
		job_fail(sum, JOB_BAD_INPUT, "--log needs the whole search on one process: run it "
			 "without mpirun");
		lead = false;
	} else if (jo->map.split_ranks && job_ranks() > 1) {
		rc = run_on_ranks(ms, &ev, &o, r, &lead);
	} else {
		rc = mapper_run(ms, &ev, &o, r);
	}
	if (!lead) {
		/* another rank: rank 0 has the result */
	} else if (rc < 0) {
		job_fail(sum, JOB_SYSTEM, "%s", r->error);
	} else {
		job_summary_fill(sum, &job_metrics_search, s, r);
		if ((jo->want & JOB_WANT_PRINT) && jo->format == JOB_FORMAT_TEXT)
			search_summary(&o, r, &out->print);
		if (!r->found) {
			job_fail(sum, JOB_INFEASIBLE, "no valid mapping among %llu candidates:",
				 (unsigned long long)r->n_evaluated);
			failures(s, r, &out->notes);
		} else {
			best_outputs(s, jo, &mo, r, sum, out);
		}
	}
	strbuf_release(&hooks.line);
	free(r);
	mapper_space_free(ms);
	energy_tables_free(own);
	return sum->status;
}
