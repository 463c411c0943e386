/*
 * Cascades of Einsums (docs/workloads.md, "Cascades of Einsums"): the stages
 * of a cascade file run one after the other on one design, each with the
 * command (model, map, exec, validate). A stage is a file whose top-level
 * keys replace the design's (its problem, its mapping, its sparse
 * optimizations), so each stage is mapped and evaluated as any design is.
 *
 * What makes them one workload: the tensors they share. A stage may read
 * only a tensor the cascade is given ('inputs') or one an earlier stage
 * writes, with the same rank extents (else a located error in the stage's
 * problem); a tensor keeps the density its first stage gives it (an
 * intermediate read later is what its producer wrote), and a tensor listed
 * in 'structure' keeps the non-zeros of another (its density model, actual
 * data included, so that the executor draws the same non-zero positions).
 * An intermediate is written by its producer at the outermost level that
 * keeps it there and read by its consumers where they keep it: the model's
 * counts of both are the cascade's traffic table.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* What the cascade knows of one tensor so far. */
struct ctensor {
	const char *name;
	unsigned stage;                /* where it first appears */
	int producer;                  /* the stage that writes it, -1: an input */
	struct diag_loc loc;           /* in that stage's problem */
	unsigned n_ranks;
	uint64_t extent[SPEC_MAX_TENSOR_RANKS];
	struct spec_density density;   /* what every later stage sees */
};

struct cstate {
	const struct spec_cascade *cs;
	size_t n, alloc;
	struct ctensor *t;
};

static struct ctensor *find(struct cstate *c, const char *name)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->t[i].name, name))
			return &c->t[i];
	return NULL;
}

static bool is_input(const struct spec_cascade *cs, const char *name)
{
	size_t i;
	for (i = 0; i < cs->n_inputs; i++)
		if (!strcmp(cs->inputs[i], name))
			return true;
	return false;
}

static const struct spec_cascade_structure *structure_of(const struct spec_cascade *cs,
							 const char *name)
{
	size_t i;
	for (i = 0; i < cs->n_structure; i++)
		if (!strcmp(cs->structure[i].tensor, name))
			return &cs->structure[i];
	return NULL;
}

static void extents_text(unsigned n, const uint64_t *e, char *buf, size_t size)
{
	size_t at = 0;
	unsigned r;
	buf[0] = 0;
	for (r = 0; r < n && at < size; r++)
		at += (size_t)snprintf(buf + at, size - at, "%s%llu", r ? " x " : "",
				       (unsigned long long)e[r]);
}

static bool same_shape(const struct ctensor *k, const struct spec_tensor *t)
{
	unsigned r;
	if (k->n_ranks != t->n_ranks)
		return false;
	for (r = 0; r < t->n_ranks; r++)
		if (k->extent[r] != t->rank_extent[r])
			return false;
	return true;
}

static int shape_error(struct cstate *c, unsigned stage, const struct spec_tensor *t,
		       const struct ctensor *k, const char *what, struct diag_list *dl)
{
	char a[128], b[128];
	extents_text(t->n_ranks, t->rank_extent, a, sizeof(a));
	extents_text(k->n_ranks, k->extent, b, sizeof(b));
	diag_error(dl, t->loc, "shape mismatch: stage '%s' has tensor '%s' as %s, but %s it "
		   "as %s (%s:%u:%u)", c->cs->stages[stage].name, t->name, a, what, b,
		   k->loc.file ? k->loc.file : "?", k->loc.line, k->loc.col);
	return -1;
}

/*
 * Check stage 'k' of the cascade against what the earlier stages wrote and
 * give its tensors their cascade densities (in place: the set was built
 * for this cascade alone). Returns 0, or -1 with located errors in 'dl'.
 */
static int check_stage(struct cstate *c, unsigned k, struct spec_set *s, struct diag_list *dl)
{
	const struct spec_cascade *cs = c->cs;
	struct spec_workload *w = &s->workload;
	struct spec_tensor *tensors = (struct spec_tensor *)w->tensors;
	unsigned t;
	int rc = 0;

	for (t = 0; t < w->n_tensors; t++) {
		struct spec_tensor *tt = &tensors[t];
		struct ctensor *known = find(c, tt->name);
		const struct spec_cascade_structure *st = structure_of(cs, tt->name);

		if (known) {
			if (!same_shape(known, tt)) {
				rc = shape_error(c, k, tt, known, known->producer >= 0 ?
						 (known->producer == (int)known->stage ?
						  "the stage that writes it has" : "an earlier stage has") :
						 "the stage that first reads it has", dl);
				continue;
			}
			if (tt->read_write) {
				if (known->producer < 0)
					rc = diag_error(dl, tt->loc, "stage '%s' writes tensor '%s', "
							"an input of the cascade (%s)",
							cs->stages[k].name, tt->name, cs->path);
				else
					known->producer = (int)k;
				continue;
			}
			tt->density = known->density;   /* what its producer wrote */
			continue;
		}
		if (!tt->read_write && !is_input(cs, tt->name)) {
			const char **cands = xcalloc(c->n + cs->n_inputs + 1, sizeof(*cands));
			const char *hint;
			size_t i, n = 0;
			for (i = 0; i < c->n; i++)
				if (c->t[i].producer >= 0)
					cands[n++] = c->t[i].name;
			for (i = 0; i < cs->n_inputs; i++)
				cands[n++] = cs->inputs[i];
			hint = diag_suggest(tt->name, cands, n);
			rc = diag_error(dl, tt->loc, "stage '%s' reads tensor '%s', which no earlier "
					"stage writes and which is not an input of the cascade (%s)%s%s%s",
					cs->stages[k].name, tt->name, cs->path,
					hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
			free(cands);
			continue;
		}
		if (st) {
			struct ctensor *from = find(c, st->from);
			if (!from) {
				rc = diag_error(dl, st->from_loc, "'%s' keeps the non-zeros of '%s', "
						"which no stage before '%s' has", tt->name, st->from,
						cs->stages[k].name);
				continue;
			}
			if (!same_shape(from, tt)) {
				rc = shape_error(c, k, tt, from, "the tensor whose non-zeros it keeps has",
						 dl);
				continue;
			}
			tt->density = from->density;
		}
		XGROW(c->t, c->n + 1, c->alloc);
		known = &c->t[c->n++];
		memset(known, 0, sizeof(*known));
		known->name = tt->name;
		known->stage = k;
		known->producer = tt->read_write ? (int)k : -1;
		known->loc = tt->loc;
		known->n_ranks = tt->n_ranks;
		memcpy(known->extent, tt->rank_extent, sizeof(known->extent));
		known->density = tt->density;
	}
	return rc;
}

/* --------------------------------------------------------------- traffic */

/* The model's counts of the tensors of stage 'k' at the levels that hold them outermost. */
static void stage_traffic(struct job_cascade_result *r, unsigned k, const struct spec_set *s,
			  const struct job_options *o)
{
	struct model_options mo;
	struct model_ws *ws;
	struct model_result *res;
	unsigned t;

	if (!s->has_mapping)
		return;
	job_model_options(o, &mo);
	ws = model_ws_new(s, &mo, NULL);
	if (!ws)
		return;
	res = xcalloc(1, sizeof(*res));
	if (model_eval(ws, s->mapping, res) == 0 && res->status == EVAL_OK) {
		for (t = 0; t < s->workload.n_tensors; t++) {
			const struct spec_tensor *tt = &s->workload.tensors[t];
			struct job_cascade_flow *f;
			unsigned rk, u;
			int l;
			for (l = (int)res->n_levels - 1; l >= 0 && !res->tiles[l][t].is_kept; l--)
				;
			if (l < 0)
				continue;
			XGROW(r->flows, r->n_flows + 1, r->alloc_flows);
			f = &r->flows[r->n_flows++];
			memset(f, 0, sizeof(*f));
			snprintf(f->tensor, sizeof(f->tensor), "%s", tt->name);
			snprintf(f->level, sizeof(f->level), "%s", s->arch.levels[l].name);
			f->stage = k;
			f->writes = tt->read_write;
			f->words = (double)(tt->read_write ?
					    res->tiles[l][t].actions[MODEL_OP_RANDOM_UPDATE] :
					    res->tiles[l][t].actions[MODEL_OP_RANDOM_READ]);
			for (rk = 0; rk < res->tiles[l][t].n_fmt_ranks; rk++)
				for (u = 0; u < 2; u++)
					f->metadata += (double)res->tiles[l][t].fmt_access
						[tt->read_write ? MODEL_FMT_UPDATE : MODEL_FMT_READ]
						[MODEL_FMT_ACTUAL][rk][u];
			f->energy_pj = res->tiles[l][t].energy_total_pj;
		}
	}
	free(res);
	model_ws_free(ws);
}

/* ------------------------------------------------------------------ run */

int job_cascade_run(const struct job_cascade *jc, struct job_cascade_result *r,
		    struct diag_list *dl)
{
	const struct job_design *d = jc->design;
	struct spec_cascade *cs;
	struct cstate c;
	const struct job_summary **sums;
	struct spec_set **sets;        /* kept to the end: later stages use their densities */
	struct spec_source **srcs;
	unsigned k;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!(cs = spec_cascade_load(jc->path, dl)))
		return -1;             /* r->name stays NULL: nothing to print */
	memset(&c, 0, sizeof(c));
	c.cs = cs;
	r->n_stages = cs->n_stages;
	r->names = xcalloc(cs->n_stages + 1, sizeof(*r->names));
	r->sums = xcalloc(cs->n_stages + 1, sizeof(*r->sums));
	r->outs = xcalloc(cs->n_stages + 1, sizeof(*r->outs));
	sets = xcalloc(cs->n_stages + 1, sizeof(*sets));
	srcs = xcalloc(cs->n_stages + 1, sizeof(*srcs));
	for (k = 0; k < cs->n_stages; k++) {
		struct spec_load_options lo;
		struct spec_source *src = spec_source_new();
		struct spec_set *s = NULL;
		size_t i;

		r->names[k] = xstrdup(cs->stages[k].name);
		job_outputs_init(&r->outs[k]);
		memset(&lo, 0, sizeof(lo));
		lo.require_mapping = jc->options->command != JOB_MAP &&
				     jc->options->command != JOB_CHECK;
		lo.kinds = job_spec_kinds();
		spec_source_set_kinds(src, job_spec_kinds());
		spec_source_set_templates(src, d->vars, d->n_vars, NULL);
		for (i = 0; i < d->n_files; i++)
			if (spec_source_add_file(src, d->files[i], dl) < 0)
				rc = -1;
		if (rc == 0 && spec_source_add_layer(src, cs->stages[k].file, dl) < 0) {
			diag_note(dl, cs->stages[k].file_loc, "the file of stage '%s'",
				  cs->stages[k].name);
			rc = -1;
		}
		if (rc == 0 && !(s = spec_set_build(src, d->overrides, d->n_overrides, &lo, dl)))
			rc = -1;
		if (rc == 0 && check_stage(&c, k, s, dl) < 0)
			rc = -1;
		if (rc == 0) {
			job_run(s, jc->options, &r->sums[k], &r->outs[k]);
			if (jc->options->command == JOB_MODEL || jc->options->command == JOB_VALIDATE)
				stage_traffic(r, k, s, jc->options);
			r->n_run = k + 1;
		}
		sets[k] = s;
		srcs[k] = src;
		if (rc < 0)
			break;
	}
	if (rc == 0) {
		sums = xcalloc(cs->n_stages + 1, sizeof(*sums));
		for (k = 0; k < cs->n_stages; k++)
			sums[k] = &r->sums[k];
		job_summary_combine(&r->total, sums, cs->n_stages);
		free(sums);
	}
	r->name = xstrdup(cs->name ? cs->name : jc->path);
	r->sets_ = sets;               /* the diagnostics point into them */
	r->sources_ = srcs;
	free(c.t);
	spec_cascade_free(cs);
	return rc;
}

void job_cascade_result_release(struct job_cascade_result *r)
{
	size_t k;
	for (k = 0; k < r->n_stages; k++) {
		free(r->names ? r->names[k] : NULL);
		if (r->outs)
			job_outputs_release(&r->outs[k]);
		if (r->sets_)
			spec_set_free(r->sets_[k]);
		if (r->sources_)
			spec_source_free(r->sources_[k]);
	}
	free(r->sets_);
	free(r->sources_);
	free(r->names);
	free(r->outs);
	free(r->sums);
	free(r->flows);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

/* ----------------------------------------------------------------- print */

void job_cascade_print(const struct job_cascade_result *r, const struct job_options *o,
		       struct strbuf *sb)
{
	size_t k, f;

	if (!r->name)                  /* the cascade file did not load: nothing ran */
		return;
	strbuf_addf(sb, "Cascade %s: %zu stages, run one after the other\n", r->name,
		    r->n_stages);
	for (k = 0; k < r->n_run; k++) {
		const struct job_outputs *out = &r->outs[k];
		strbuf_addf(sb, "\n== stage %zu: %s ==\n", k + 1, r->names[k]);
		strbuf_add(sb, out->print.buf, out->print.len);
		if (r->sums[k].status != JOB_OK)
			strbuf_addf(sb, "%s: %s\n", job_status_name(r->sums[k].status),
				    r->sums[k].error);
	}
	if (r->n_flows) {
		strbuf_addf(sb, "\nTensors between stages (actual accesses at the level that holds "
			    "them outermost; format: metadata and payload units of its ranks):\n");
		strbuf_addf(sb, "    %-12s %-16s %-8s %-16s %14s %14s %14s\n", "tensor", "stage",
			    "action", "level", "data", "format", "energy_pj");
		for (f = 0; f < r->n_flows; f++) {
			const struct job_cascade_flow *fl = &r->flows[f];
			strbuf_addf(sb, "    %-12s %-16s %-8s %-16s %14.2f %14.2f %14.2f\n",
				    fl->tensor, r->names[fl->stage], fl->writes ? "writes" : "reads",
				    fl->level, fl->words, fl->metadata, fl->energy_pj);
		}
	}
	if (o->command != JOB_CHECK && r->n_run == r->n_stages) {
		const struct job_summary *t = &r->total;
		const char *sep = "";
		strbuf_addf(sb, "\nCascade totals (stages added):");
		if (job_summary_has(t, JOB_METRIC_ENERGY_PJ)) {
			strbuf_addf(sb, " energy %.2f pJ", job_summary_real(t, JOB_METRIC_ENERGY_PJ));
			sep = ",";
		}
		if (job_summary_has(t, JOB_METRIC_CYCLES)) {
			strbuf_addf(sb, "%s cycles %llu", sep,
				    (unsigned long long)job_summary_count(t, JOB_METRIC_CYCLES));
			sep = ",";
		}
		if (job_summary_has(t, JOB_METRIC_ACTUAL_COMPUTES))
			strbuf_addf(sb, "%s actual computes %llu", sep,
				    (unsigned long long)job_summary_count(t,
						JOB_METRIC_ACTUAL_COMPUTES));
		strbuf_addf(sb, "\n");
	}
}
