/*
 * What every command's runner shares: options (and --energy's choices),
 * outputs, failure, the model's and executor's options, the summary of a
 * model result and the mapping as one line of text.
 */
#include "job/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "job/job_int.h"
#include "job/kind_int.h"
#include "exec/exec.h"
#include "model/model.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void job_options_init(struct job_options *o, enum job_command command)
{
	memset(o, 0, sizeof(*o));
	o->command = command;
	o->format = JOB_FORMAT_TEXT;
	o->want = JOB_WANT_PRINT;
	o->footprint = JOB_FOOTPRINT_TIMELOOP;
	o->seed = 1;
	o->retention = JOB_RETAIN_TRANSLATION;
	o->seeds = 30;
	o->tolerance = 0.01;
	o->sigmas = 3;
	o->samples = 256;
	o->percentile = 0.99;
}

void job_outputs_init(struct job_outputs *out)
{
	size_t i;

	strbuf_init(&out->print, 0);
	strbuf_init(&out->notes, 0);
	out->diags = (struct diag_list)DIAG_LIST_INIT;
	out->n_files = 0;
	for (i = 0; i < JOB_MAX_OUT_FILES; i++) {
		out->file_names[i] = NULL;
		strbuf_init(&out->files[i], 0);
	}
}

void job_outputs_release(struct job_outputs *out)
{
	size_t i;

	strbuf_release(&out->print);
	strbuf_release(&out->notes);
	diag_list_release(&out->diags);
	for (i = 0; i < JOB_MAX_OUT_FILES; i++)
		strbuf_release(&out->files[i]);
	out->n_files = 0;
}

const char *job_status_name(enum job_status st)
{
	static const char *const names[] = {
		[JOB_OK] = "ok", [JOB_BAD_INPUT] = "bad-input", [JOB_INFEASIBLE] = "infeasible",
		[JOB_MISMATCH] = "mismatch", [JOB_SYSTEM] = "system",
	};
	return (unsigned)st < JOB_STATUS_COUNT ? names[st] : "?";
}

/* The name that asks for the estimator (job/energy.c), first among --energy's choices. */
#define ESTIMATE "estimate"

const char *const *job_energy_presets(void)
{
	static const char *names[8];
	const char *const *presets;
	size_t i;

	if (!names[0]) {
		presets = model_energy_preset_names();
		for (i = 0; presets[i] && i + 2 < ARRAY_SIZE(names); i++)
			names[i + 1] = presets[i];
		names[0] = ESTIMATE;
	}
	return names;
}

bool job_energy_is_estimate(const struct job_options *o)
{
	return !o->energy_preset || !strcmp(o->energy_preset, ESTIMATE);
}

enum job_status job_fail(struct job_summary *sum, enum job_status st, const char *fmt, ...)
{
	va_list ap;

	sum->status = st;
	va_start(ap, fmt);
	vsnprintf(sum->error, sizeof(sum->error), fmt, ap);
	va_end(ap);
	return st;
}

enum job_status job_fail_with(struct job_summary *sum, enum job_status st, struct strbuf *why)
{
	job_fail(sum, st, "%s", why->buf);
	strbuf_release(why);
	return st;
}

struct strbuf *job_out_file(struct job_outputs *out, const char *name)
{
	if (out->n_files >= JOB_MAX_OUT_FILES)
		BUG("more than %d output files", JOB_MAX_OUT_FILES);
	out->file_names[out->n_files] = name;
	return &out->files[out->n_files++];
}

void job_model_options(const struct job_options *o, struct model_options *mo)
{
	*mo = (struct model_options)MODEL_OPTIONS_INIT;
	mo->footprint = o->footprint == JOB_FOOTPRINT_EXACT ? MODEL_FOOTPRINT_EXACT
							    : MODEL_FOOTPRINT_TIMELOOP;
	mo->energy_preset = job_energy_is_estimate(o) ? NULL : o->energy_preset;
	mo->imperfect = o->residuals == JOB_RESIDUALS_TIMELOOP ? MODEL_IMPERFECT_TIMELOOP
							      : MODEL_IMPERFECT_EXACT;
}

/* (a row of every sweep point: strbuf_addstr, not strbuf_addf, for its cost) */
void job_describe_mapping(const struct spec_set *s, const struct spec_mapping *m,
			  struct strbuf *sb)
{
	int l;
	unsigned i, t;

	for (l = (int)m->n_levels - 1; l >= 0; l--) {
		bool first = true;
		if (l != (int)m->n_levels - 1)
			strbuf_addstr(sb, " | ");
		strbuf_addstr(sb, s->arch.levels[l].name);
		strbuf_addch(sb, ':');
		for (i = m->n_loops; i-- > 0;) {
			const struct spec_loop *lp = &m->loops[i];
			if (lp->level != (unsigned)l || lp->end <= 1)
				continue;
			if (!first)
				strbuf_addch(sb, ' ');
			strbuf_addstr(sb, s->workload.dim_names[lp->dim]);
			strbuf_add_u64(sb, lp->end);
			if (lp->spacetime == SPEC_SPATIAL_X)
				strbuf_addch(sb, 'x');
			else if (lp->spacetime == SPEC_SPATIAL_Y)
				strbuf_addch(sb, 'y');
			first = false;
		}
		strbuf_addch(sb, '[');
		first = true;
		for (t = 0; t < s->workload.n_tensors; t++) {
			if (!(m->levels[l].keep_mask & (1u << t)))
				continue;
			if (!first)
				strbuf_addch(sb, ' ');
			strbuf_addstr(sb, s->workload.tensors[t].name);
			first = false;
		}
		strbuf_addch(sb, ']');
	}
}

void job_exec_options(const struct job_options *o, struct exec_options *eo)
{
	*eo = (struct exec_options)EXEC_OPTIONS_INIT;
	eo->seed = o->seed;
	eo->retention = o->retention == JOB_RETAIN_OVERLAP ? EXEC_RETAIN_OVERLAP
							   : EXEC_RETAIN_TRANSLATION;
	eo->footprint = o->footprint == JOB_FOOTPRINT_EXACT ? EXEC_FOOTPRINT_EXACT
							    : EXEC_FOOTPRINT_HULL;
}

void job_kind_print(const struct job_kind_writers *w, const struct spec_set *s,
		    const void *result, const struct job_options *o, struct job_outputs *out)
{
	if (!(o->want & JOB_WANT_PRINT))
		return;
	if (o->format == JOB_FORMAT_JSON) {
		w->json(s, result, o, &out->print);
	} else if (o->format == JOB_FORMAT_CSV) {
		w->csv_header(s, &out->print);
		w->csv_row(s, result, &out->print);
	} else {
		w->text(s, result, o, &out->print);
	}
}
