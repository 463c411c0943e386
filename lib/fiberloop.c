/*
 * libfiberloop's interface (lib/fiberloop.h) over the engine (job/): a
 * design is a parsed source plus overrides, built into a spec set for a
 * command (and kept while neither changes); a run is job_run() on it; a
 * result keeps the job's summary and the document it printed. Every
 * failure becomes a fiberloop_error that owns copies of its diagnostics.
 */
#include "lib/fiberloop.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* ------------------------------------------------------------------ errors */

struct fl_diag {
	enum diag_severity severity;
	char *file;
	unsigned line, col;
	char *message;
};

struct fiberloop_error {
	enum fiberloop_status status;
	size_t n;
	struct fl_diag *d;
	char *text;
};

static const char *severity_name(enum diag_severity s)
{
	return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

/* The text diag_print() gives for 'dl' (the command line's). */
static char *diag_text(const struct diag_list *dl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return xstrdup("");
	diag_print(dl, fp);
	fclose(fp);
	return buf ? buf : xstrdup("");
}

/* An error of 'status' with the diagnostics of 'dl' then, when not NULL, 'message'. */
static fiberloop_error *error_new(enum fiberloop_status status, const struct diag_list *dl,
				  const char *message)
{
	fiberloop_error *e = xcalloc(1, sizeof(*e));
	struct strbuf text = STRBUF_INIT;
	size_t i, n = (dl ? dl->n : 0) + (message ? 1 : 0);

	e->status = status;
	e->d = xcalloc(n ? n : 1, sizeof(*e->d));
	if (dl) {
		char *t = diag_text(dl);
		strbuf_addstr(&text, t);
		free(t);
		for (i = 0; i < dl->n; i++) {
			const struct diag *d = &dl->items[i];
			struct fl_diag *o = &e->d[e->n++];
			o->severity = d->severity;
			o->file = d->loc.file ? xstrdup(d->loc.file) : NULL;
			o->line = d->loc.line;
			o->col = d->loc.col;
			o->message = xstrdup(d->message ? d->message : "");
		}
	}
	if (message || !e->n) {
		struct fl_diag *o = &e->d[e->n++];
		if (!message)
			message = "failed";
		o->severity = DIAG_ERROR;
		o->message = xstrdup(message);
		strbuf_addf(&text, "%s\n", message);
	}
	e->text = strbuf_detach(&text, NULL);
	return e;
}

/* Set *err (when err is not NULL) to a new error, else drop it. Returns -1. */
static int fail(fiberloop_error **err, fiberloop_error *e)
{
	if (err)
		*err = e;
	else
		fiberloop_error_free(e);
	return -1;
}

static int failf(fiberloop_error **err, enum fiberloop_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int failf(fiberloop_error **err, enum fiberloop_status st, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rc = fail(err, error_new(st, NULL, sb.buf));
	strbuf_release(&sb);
	return rc;
}

const char *fiberloop_version(void)
{
	return FIBERLOOP_VERSION;
}

enum fiberloop_status fiberloop_error_status(const fiberloop_error *e)
{
	return e->status;
}

const char *fiberloop_error_text(const fiberloop_error *e)
{
	return e->text;
}

size_t fiberloop_error_count(const fiberloop_error *e)
{
	return e->n;
}

const char *fiberloop_error_severity(const fiberloop_error *e, size_t i)
{
	return i < e->n ? severity_name(e->d[i].severity) : NULL;
}

const char *fiberloop_error_file(const fiberloop_error *e, size_t i)
{
	return i < e->n ? e->d[i].file : NULL;
}

unsigned fiberloop_error_line(const fiberloop_error *e, size_t i)
{
	return i < e->n ? e->d[i].line : 0;
}

unsigned fiberloop_error_column(const fiberloop_error *e, size_t i)
{
	return i < e->n ? e->d[i].col : 0;
}

const char *fiberloop_error_message(const fiberloop_error *e, size_t i)
{
	return i < e->n ? e->d[i].message : NULL;
}

void fiberloop_error_free(fiberloop_error *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->n; i++) {
		free(e->d[i].file);
		free(e->d[i].message);
	}
	free(e->d);
	free(e->text);
	free(e);
}

/* ------------------------------------------------------------------ designs */

/* A growable list of owned strings. */
struct strlist {
	char **v;
	size_t n, alloc;
};

static void strlist_add(struct strlist *l, const char *s)
{
	XGROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = xstrdup(s);
}

static void strlist_release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct fiberloop_spec {
	struct spec_source *src;       /* made by the first file or text */
	struct strlist vars, files, tensors;
	bool has_text, broken;
	struct spec_override *ovs;
	size_t n_ovs, alloc_ovs;
	/* the set last built, for the load options it was built with */
	struct spec_set *set;
	struct spec_load_options set_lo;
};

fiberloop_spec *fiberloop_spec_new(void)
{
	return xcalloc(1, sizeof(struct fiberloop_spec));
}

static void spec_forget_set(fiberloop_spec *s)
{
	spec_set_free(s->set);
	s->set = NULL;
}

static void spec_source(fiberloop_spec *s)
{
	if (s->src)
		return;
	s->src = spec_source_new();
	spec_source_set_kinds(s->src, job_spec_kinds());
	spec_source_set_templates(s->src, (const char *const *)s->vars.v, s->vars.n, NULL);
}

int fiberloop_spec_add_var(fiberloop_spec *s, const char *pair, fiberloop_error **err)
{
	const char *eq = strchr(pair, '=');

	if (s->src)
		return failf(err, FIBERLOOP_BAD_INPUT,
			     "variable '%s': give the variables before the files", pair);
	if (!eq || eq == pair)
		return failf(err, FIBERLOOP_BAD_INPUT,
			     "variable '%s': expected NAME=VALUE", pair);
	strlist_add(&s->vars, pair);
	return 0;
}

/* After an add: fail when 'dl' has errors (the design is then broken). */
static int spec_added(fiberloop_spec *s, int rc, struct diag_list *dl, fiberloop_error **err)
{
	spec_forget_set(s);
	if (rc < 0 || dl->n_errors) {
		s->broken = true;
		rc = fail(err, error_new(FIBERLOOP_BAD_INPUT, dl, NULL));
	}
	diag_list_release(dl);
	return rc < 0 ? -1 : 0;
}

int fiberloop_spec_add_file(fiberloop_spec *s, const char *path, fiberloop_error **err)
{
	struct diag_list dl = DIAG_LIST_INIT;

	if (s->broken)
		return failf(err, FIBERLOOP_BAD_INPUT, "an earlier file of the design failed");
	spec_source(s);
	strlist_add(&s->files, path);
	return spec_added(s, spec_source_add_file(s->src, path, &dl), &dl, err);
}

int fiberloop_spec_add_text(fiberloop_spec *s, const char *name, const char *text, size_t len,
			    fiberloop_error **err)
{
	struct diag_list dl = DIAG_LIST_INIT;

	if (s->broken)
		return failf(err, FIBERLOOP_BAD_INPUT, "an earlier file of the design failed");
	spec_source(s);
	s->has_text = true;
	return spec_added(s, spec_source_add_text(s->src, name, text, len, &dl), &dl, err);
}

int fiberloop_spec_set(fiberloop_spec *s, const char *override, fiberloop_error **err)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_override ov = SPEC_OVERRIDE_INIT;

	if (spec_override_parse(override, &ov, &dl) < 0) {
		fail(err, error_new(FIBERLOOP_BAD_INPUT, &dl, NULL));
		spec_override_release(&ov);
		diag_list_release(&dl);
		return -1;
	}
	diag_list_release(&dl);
	XGROW(s->ovs, s->n_ovs + 1, s->alloc_ovs);
	s->ovs[s->n_ovs++] = ov;
	spec_forget_set(s);
	return 0;
}

void fiberloop_spec_clear_overrides(fiberloop_spec *s)
{
	size_t i;

	for (i = 0; i < s->n_ovs; i++)
		spec_override_release(&s->ovs[i]);
	s->n_ovs = 0;
	spec_forget_set(s);
}

int fiberloop_spec_add_tensor(fiberloop_spec *s, const char *pair, fiberloop_error **err)
{
	const char *eq = strchr(pair, '=');

	if (!eq || eq == pair || !eq[1])
		return failf(err, FIBERLOOP_BAD_INPUT, "tensor '%s': expected NAME=FILE", pair);
	strlist_add(&s->tensors, pair);
	spec_forget_set(s);
	return 0;
}

const char *fiberloop_spec_kind(const fiberloop_spec *s)
{
	return s->src ? spec_source_kind(s->src)->name : job_kind_name(0);
}

void fiberloop_spec_free(fiberloop_spec *s)
{
	if (!s)
		return;
	spec_forget_set(s);
	fiberloop_spec_clear_overrides(s);
	free(s->ovs);
	spec_source_free(s->src);
	strlist_release(&s->vars);
	strlist_release(&s->files);
	strlist_release(&s->tensors);
	free(s);
}

/* ------------------------------------------------------------------ options */

enum document { DOC_JSON, DOC_TEXT, DOC_CSV, DOC_NONE };

struct fiberloop_options {
	struct job_options job;
	char command[16];
	enum document document;
	atomic_int stop;
	int (*poll)(void *arg);
	void *poll_arg;
	double poll_interval_s;
	struct job_scratch *scratch;   /* the runs' memory, kept between them (one thread at a time) */
};

const char *const *fiberloop_command_names(void)
{
	return job_command_names();
}

fiberloop_options *fiberloop_options_new(const char *command, fiberloop_error **err)
{
	enum job_command cmd;
	const char *kind;
	fiberloop_options *o;

	if (!command)
		command = "model";
	if (job_command_parse(command, &cmd, &kind) < 0) {
		failf(err, FIBERLOOP_BAD_INPUT, "unknown command '%s'", command);
		return NULL;
	}
	o = xcalloc(1, sizeof(*o));
	job_options_init(&o->job, cmd);
	o->job.kind = kind;
	snprintf(o->command, sizeof(o->command), "%s", command);
	o->document = DOC_JSON;
	o->poll_interval_s = 0.1;
	return o;
}

void fiberloop_options_free(fiberloop_options *o)
{
	if (!o)
		return;
	job_scratch_free(o->scratch);
	free(o);
}

void fiberloop_options_set_poll(fiberloop_options *o, int (*poll)(void *arg), void *arg,
				double interval_s)
{
	o->poll = poll;
	o->poll_arg = arg;
	o->poll_interval_s = interval_s > 0 ? interval_s : 0.1;
}

void fiberloop_options_stop(fiberloop_options *o)
{
	atomic_store(&o->stop, 1);
}

enum opt_type { O_CHOICE, O_UINT, O_REAL, O_BOOL };

struct opt {
	const char *name;
	enum opt_type type;
	const char *const *choices;    /* O_CHOICE, NULL-ended, by enum value */
	double min, max;               /* O_UINT, O_REAL */
};

static const char *const doc_choices[] = { "json", "text", "csv", "none", NULL };
static const char *const footprint_choices[] = { "timeloop", "exact", NULL };
static const char *const residuals_choices[] = { "exact", "timeloop", NULL };
static const char *const retention_choices[] = { "translation", "overlap", NULL };
static const char *const imperfect_choices[] = { "auto", "off", "on", NULL };
static const char *const algorithm_choices[] = { "exhaustive", "random", "random-pruned",
						 "linear-pruned", "hybrid", NULL };
_Static_assert(sizeof(algorithm_choices) / sizeof(algorithm_choices[0]) == SPEC_SEARCH_COUNT + 1,
	       "one name per search algorithm");
_Static_assert(sizeof(imperfect_choices) / sizeof(imperfect_choices[0]) ==
	       SPEC_IMPERFECT_COUNT + 1, "one name per imperfect setting");

/* The options, with the command line's names and bounds (cli/options.c). */
static const struct opt opts[] = {
	{ "document", O_CHOICE, doc_choices, 0, 0 },
	{ "energy", O_CHOICE, NULL, 0, 0 },            /* job_energy_presets() */
	{ "footprint", O_CHOICE, footprint_choices, 0, 0 },
	{ "residuals", O_CHOICE, residuals_choices, 0, 0 },
	{ "roofline", O_BOOL, NULL, 0, 0 },
	{ "seed", O_UINT, NULL, 0, 18446744073709551615.0 },
	{ "seeds", O_UINT, NULL, 2, 100000 },
	{ "tolerance", O_REAL, NULL, 0, 1e9 },
	{ "sigmas", O_REAL, NULL, 0, 1e9 },
	{ "retention", O_CHOICE, retention_choices, 0, 0 },
	{ "algorithm", O_CHOICE, algorithm_choices, 0, 0 },
	{ "threads", O_UINT, NULL, 0, SPEC_MAX_THREADS },
	{ "streams", O_UINT, NULL, 1, 65536 },
	{ "refine", O_UINT, NULL, 0, 65536 },
	{ "time-limit", O_REAL, NULL, 0, 1e9 },
	{ "search-size", O_UINT, NULL, 0, 18446744073709551615.0 },
	{ "timeout", O_UINT, NULL, 0, 18446744073709551615.0 },
	{ "victory", O_UINT, NULL, 0, 18446744073709551615.0 },
	{ "imperfect", O_CHOICE, imperfect_choices, 0, 0 },
	{ "samples", O_UINT, NULL, 1, 1u << 20 },
	{ "percentile", O_REAL, NULL, 0.01, 100 },
};

/* The edit distance of a and b (short names only), for did-you-mean. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(cur[0]) * (lb + 1));
	}
	return prev[lb];
}

/* " (did you mean 'X'?)" for the nearest of names[] to 'what', or "". */
static void did_you_mean(const char *what, const char *const *names, struct strbuf *sb)
{
	const char *best = NULL;
	size_t i, d, bd = 3;

	for (i = 0; names[i]; i++)
		if ((d = distance(what, names[i])) < bd) {
			bd = d;
			best = names[i];
		}
	if (best)
		strbuf_addf(sb, " (did you mean '%s'?)", best);
}

/* The choice index of 'value' in choices[], or fail with the list and a hint. */
static int parse_choice(const char *name, const char *value, const char *const *choices,
			fiberloop_error **err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int rc;

	for (i = 0; choices[i]; i++)
		if (strcmp(value, choices[i]) == 0)
			return (int)i;
	strbuf_addf(&sb, "option '%s': '%s' is not one of", name, value);
	for (i = 0; choices[i]; i++)
		strbuf_addf(&sb, "%s %s", i ? "," : "", choices[i]);
	did_you_mean(value, choices, &sb);
	rc = fail(err, error_new(FIBERLOOP_BAD_INPUT, NULL, sb.buf));
	strbuf_release(&sb);
	return rc;
}

int fiberloop_options_set(fiberloop_options *o, const char *name, const char *value,
			  fiberloop_error **err)
{
	struct job_options *j = &o->job;
	struct job_map_options *m = &j->map;
	const struct opt *op = NULL;
	const char *names[sizeof(opts) / sizeof(opts[0]) + 1];
	double d = 0;
	uint64_t u = 0;
	int c = 0;
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		names[i] = opts[i].name;
		if (strcmp(opts[i].name, name) == 0)
			op = &opts[i];
	}
	names[i] = NULL;
	if (!op) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "unknown option '%s'", name);
		did_you_mean(name, names, &sb);
		fail(err, error_new(FIBERLOOP_BAD_INPUT, NULL, sb.buf));
		strbuf_release(&sb);
		return -1;
	}
	switch (op->type) {
	case O_CHOICE:
		c = parse_choice(name, value, op->choices ? op->choices : job_energy_presets(),
				 err);
		if (c < 0)
			return -1;
		break;
	case O_BOOL:
		if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
			c = 1;
		else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
			c = 0;
		else
			return failf(err, FIBERLOOP_BAD_INPUT,
				     "option '%s': expected true or false, not '%s'", name, value);
		break;
	case O_UINT: {
		char *end;
		errno = 0;
		u = strtoull(value, &end, 10);
		if (!*value || *end || errno || value[0] == '-' || (double)u < op->min ||
		    (double)u > op->max)
			return failf(err, FIBERLOOP_BAD_INPUT,
				     "option '%s': expected an integer in [%.0f, %.0f], not '%s'",
				     name, op->min, op->max, value);
		break;
	}
	case O_REAL: {
		char *end;
		errno = 0;
		d = strtod(value, &end);
		if (!*value || *end || errno || !isfinite(d) || d < op->min || d > op->max)
			return failf(err, FIBERLOOP_BAD_INPUT,
				     "option '%s': expected a number in [%g, %g], not '%s'", name,
				     op->min, op->max, value);
		break;
	}
	}
	if (strcmp(name, "document") == 0) o->document = (enum document)c;
	else if (strcmp(name, "energy") == 0) j->energy_preset = job_energy_presets()[c];
	else if (strcmp(name, "footprint") == 0) j->footprint = (enum job_footprint)c;
	else if (strcmp(name, "residuals") == 0) j->residuals = (enum job_residuals)c;
	else if (strcmp(name, "roofline") == 0) j->roofline = c;
	else if (strcmp(name, "seed") == 0) { j->seed = u; j->has_seed = true; }
	else if (strcmp(name, "seeds") == 0) { j->seeds = (unsigned)u; j->has_seeds = true; }
	else if (strcmp(name, "tolerance") == 0) j->tolerance = d;
	else if (strcmp(name, "sigmas") == 0) j->sigmas = d;
	else if (strcmp(name, "retention") == 0) j->retention = (enum job_retention)c;
	else if (strcmp(name, "algorithm") == 0) { m->algorithm = (enum spec_search)c; m->has_algorithm = true; }
	else if (strcmp(name, "threads") == 0) { m->threads = (unsigned)u; m->has_threads = true; }
	else if (strcmp(name, "streams") == 0) { m->streams = (unsigned)u; m->has_streams = true; }
	else if (strcmp(name, "refine") == 0) { m->refine = u; m->has_refine = true; }
	else if (strcmp(name, "time-limit") == 0) { m->time_limit_s = d; m->has_time_limit = true; }
	else if (strcmp(name, "search-size") == 0) { m->search_size = u; m->has_search_size = true; }
	else if (strcmp(name, "timeout") == 0) { m->timeout = u; m->has_timeout = true; }
	else if (strcmp(name, "victory") == 0) { m->victory = u; m->has_victory = true; }
	else if (strcmp(name, "imperfect") == 0) { m->imperfect = (enum spec_imperfect)c; m->has_imperfect = true; }
	else if (strcmp(name, "samples") == 0) j->samples = (unsigned)u;
	else if (strcmp(name, "percentile") == 0) j->percentile = d / 100.0;
	return 0;
}

/* ------------------------------------------------------------------ runs */

struct fiberloop_result {
	struct job_summary sum;
	char command[16];
	char *document;
	size_t document_len;
	char *warnings;
};

/* The load options of a run of 'o' (job_load()'s). */
static void load_options(const fiberloop_spec *s, const struct job_options *o,
			 struct spec_load_options *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->require_mapping = !o->kind && (o->command == JOB_MODEL || o->command == JOB_EXEC ||
					   o->command == JOB_VALIDATE);
	lo->allow_no_problem = o->command == JOB_CHECK;
	lo->kinds = job_spec_kinds();
	lo->template_vars = (const char *const *)s->vars.v;
	lo->n_template_vars = s->vars.n;
	lo->tensor_files = (const char *const *)s->tensors.v;
	lo->n_tensor_files = s->tensors.n;
}

/* The set of 's' for a run of 'o', built when it is not there yet. */
static const struct spec_set *spec_build(fiberloop_spec *s, const struct job_options *o,
					 fiberloop_error **err)
{
	struct spec_load_options lo;
	struct diag_list dl = DIAG_LIST_INIT;

	if (s->broken || !s->src) {
		failf(err, FIBERLOOP_BAD_INPUT, s->broken ? "the design failed to load"
							    : "the design has no file");
		return NULL;
	}
	load_options(s, o, &lo);
	if (s->set && s->set_lo.require_mapping == lo.require_mapping &&
	    s->set_lo.allow_no_problem == lo.allow_no_problem)
		return s->set;
	spec_forget_set(s);
	s->set = spec_set_build(s->src, s->ovs, s->n_ovs, &lo, &dl);
	if (!s->set)
		fail(err, error_new(FIBERLOOP_BAD_INPUT, &dl, NULL));
	s->set_lo = lo;
	diag_list_release(&dl);
	return s->set;
}

static enum fiberloop_status status_of(enum job_status st)
{
	switch (st) {
	case JOB_OK: return FIBERLOOP_OK;
	case JOB_BAD_INPUT: return FIBERLOOP_BAD_INPUT;
	case JOB_INFEASIBLE: return FIBERLOOP_INFEASIBLE;
	case JOB_MISMATCH: return FIBERLOOP_MISMATCH;
	default: return FIBERLOOP_SYSTEM;
	}
}

/* The map search's progress: ask the poll callback whether to stop. */
static void on_map_progress(void *arg, const struct job_progress *p)
{
	fiberloop_options *o = arg;

	(void)p;
	if (o->poll && o->poll(o->poll_arg))
		atomic_store(&o->stop, 1);
}

fiberloop_result *fiberloop_run(fiberloop_spec *s, fiberloop_options *o, fiberloop_error **err)
{
	fiberloop_options *own = NULL;
	const struct spec_set *set;
	struct job_options jo;
	struct job_outputs out;
	fiberloop_result *r;
	enum fiberloop_status st;

	if (!o && !(o = own = fiberloop_options_new("model", err)))
		return NULL;
	jo = o->job;
	if (!(set = spec_build(s, &jo, err))) {
		fiberloop_options_free(own);
		return NULL;
	}
	static const enum job_format formats[] = { JOB_FORMAT_JSON, JOB_FORMAT_TEXT,
						   JOB_FORMAT_CSV, JOB_FORMAT_TEXT };
	jo.format = formats[o->document];
	jo.want = o->document == DOC_NONE ? 0 : JOB_WANT_PRINT;
	jo.files = (const char *const *)s->files.v;
	jo.n_files = s->files.n;
	if (!o->scratch)
		o->scratch = job_scratch_new();
	jo.scratch = o->scratch;
	atomic_store(&o->stop, 0);
	jo.map.stop = &o->stop;
	if (o->poll) {
		jo.map.on_progress = on_map_progress;
		jo.map.progress_arg = o;
		jo.map.progress_interval_s = o->poll_interval_s;
	}
	r = xcalloc(1, sizeof(*r));
	job_outputs_init(&out);
	job_run(set, &jo, &r->sum, &out);
	st = status_of(r->sum.status);
	if (jo.command == JOB_MAP && atomic_load(&o->stop)) {
		fail(err, error_new(FIBERLOOP_INTERRUPTED, &out.diags, "interrupted"));
		st = FIBERLOOP_INTERRUPTED;
	} else if (st != FIBERLOOP_OK && st != FIBERLOOP_MISMATCH) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, r->sum.error[0] ? r->sum.error : job_status_name(r->sum.status));
		if (out.notes.len)
			strbuf_addf(&msg, "\n%.*s", (int)(out.notes.len && out.notes.buf[out.notes.len - 1] == '\n'
						       ? out.notes.len - 1 : out.notes.len),
				    out.notes.buf);
		fail(err, error_new(st, &out.diags, msg.buf));
		strbuf_release(&msg);
	}
	if (st != FIBERLOOP_OK && st != FIBERLOOP_MISMATCH) {
		job_outputs_release(&out);
		fiberloop_options_free(own);
		free(r);
		return NULL;
	}
	snprintf(r->command, sizeof(r->command), "%s", o->command);
	r->document = strbuf_detach(&out.print, &r->document_len);
	r->warnings = diag_text(&out.diags);
	job_outputs_release(&out);
	fiberloop_options_free(own);
	return r;
}

fiberloop_result *fiberloop_model(fiberloop_spec *s, fiberloop_error **err)
{
	return fiberloop_run(s, NULL, err);
}

/* ------------------------------------------------------------------ results */

enum fiberloop_status fiberloop_result_status(const fiberloop_result *r)
{
	return status_of(r->sum.status);
}

const char *fiberloop_result_command(const fiberloop_result *r)
{
	return r->command;
}

const char *fiberloop_result_kind(const fiberloop_result *r)
{
	const char *k = job_summary_kind(&r->sum);
	return k ? k : "";
}

size_t fiberloop_metric_count(void)
{
	return JOB_METRIC_COUNT;
}

static const struct job_metric *metric(size_t m)
{
	return m < JOB_METRIC_COUNT ? job_metric_get((enum job_metric_id)m) : NULL;
}

const char *fiberloop_metric_name(size_t m)
{
	return metric(m) ? metric(m)->name : NULL;
}

const char *fiberloop_metric_unit(size_t m)
{
	return metric(m) ? metric(m)->unit : NULL;
}

const char *fiberloop_metric_type(size_t m)
{
	static const char *const names[] = { "real", "count", "text" };
	return metric(m) ? names[metric(m)->type] : NULL;
}

const char *fiberloop_metric_better(size_t m)
{
	static const char *const names[] = { "", "lower", "higher" };
	return metric(m) ? names[metric(m)->better] : NULL;
}

int fiberloop_metric_per_level(size_t m)
{
	return metric(m) && (metric(m)->flags & JOB_METRIC_PER_LEVEL);
}

const char *fiberloop_metric_description(size_t m)
{
	return metric(m) ? metric(m)->description : NULL;
}

int fiberloop_metric_find(const char *name)
{
	return job_metric_find(name);
}

int fiberloop_result_has(const fiberloop_result *r, size_t m)
{
	if (m == JOB_METRIC_LEVEL_ENERGY_PJ)
		return r->sum.n_levels > 0;
	return m < JOB_METRIC_COUNT && job_summary_has(&r->sum, (enum job_metric_id)m);
}

double fiberloop_result_real(const fiberloop_result *r, size_t m)
{
	if (!fiberloop_result_has(r, m) || metric(m)->type == JOB_VALUE_TEXT ||
	    m == JOB_METRIC_LEVEL_ENERGY_PJ)
		return NAN;
	return job_summary_real(&r->sum, (enum job_metric_id)m);
}

uint64_t fiberloop_result_count(const fiberloop_result *r, size_t m)
{
	if (!fiberloop_result_has(r, m) || m == JOB_METRIC_LEVEL_ENERGY_PJ)
		return 0;
	if (metric(m)->type == JOB_VALUE_COUNT)
		return job_summary_count(&r->sum, (enum job_metric_id)m);
	if (metric(m)->type == JOB_VALUE_REAL) {
		double v = job_summary_real(&r->sum, (enum job_metric_id)m);
		return v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : 0;
	}
	return 0;
}

const char *fiberloop_result_text(const fiberloop_result *r, size_t m)
{
	if (!fiberloop_result_has(r, m) || metric(m)->type != JOB_VALUE_TEXT)
		return NULL;
	return job_summary_text(&r->sum, (enum job_metric_id)m);
}

/* The summary's parts are the storage levels, then the tensors ("tensor.NAME"): the levels. */
static size_t storage_levels(const fiberloop_result *r)
{
	size_t l = 0;

	while (l < r->sum.n_levels &&
	       strncmp(job_summary_level_name(&r->sum, (unsigned)l), "tensor.", 7))
		l++;
	return l;
}

size_t fiberloop_result_levels(const fiberloop_result *r)
{
	return storage_levels(r);
}

const char *fiberloop_result_level_name(const fiberloop_result *r, size_t l)
{
	return l < storage_levels(r) ? job_summary_level_name(&r->sum, (unsigned)l) : NULL;
}

double fiberloop_result_level_energy_pj(const fiberloop_result *r, size_t l)
{
	return l < storage_levels(r) ? r->sum.level_energy_pj[l] : NAN;
}

const char *fiberloop_result_mapping(const fiberloop_result *r)
{
	return r->sum.mapping;
}

const char *fiberloop_result_document(const fiberloop_result *r, size_t *len)
{
	if (len)
		*len = r->document_len;
	return r->document;
}

const char *fiberloop_result_warnings(const fiberloop_result *r)
{
	return r->warnings;
}

void fiberloop_result_free(fiberloop_result *r)
{
	if (!r)
		return;
	free(r->document);
	free(r->warnings);
	free(r);
}

/* ------------------------------------------------------------------ sweeps */

struct fiberloop_table {
	struct table t;
};

static void on_sweep_progress(void *arg, const struct job_run_progress *p)
{
	on_map_progress(arg, NULL);
	(void)p;
}

int64_t fiberloop_sweep(fiberloop_spec *s, const char *const *axes, size_t n_axes, int zip,
			fiberloop_options *o, const char *db, unsigned n_workers,
			fiberloop_error **err)
{
	fiberloop_options *own = NULL;
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_axis *ax;
	struct job_run_result res;
	struct strbuf def = STRBUF_INIT;
	size_t i, n_parsed = 0;
	int64_t rc = -1;

	if (s->broken || !s->src)
		return failf(err, FIBERLOOP_BAD_INPUT, s->broken ? "the design failed to load"
								  : "the design has no file");
	if (s->has_text)
		return failf(err, FIBERLOOP_BAD_INPUT,
			     "a design given as text cannot be swept: give it as files");
	if (!db || !*db)
		return failf(err, FIBERLOOP_BAD_INPUT, "a sweep needs a results database");
	if (!o && !(o = own = fiberloop_options_new("model", err)))
		return -1;
	ax = xcalloc(n_axes ? n_axes : 1, sizeof(*ax));
	for (i = 0; i < n_axes; i++, n_parsed++)
		if (job_axis_parse(axes[i], &ax[i], &dl) < 0) {
			n_parsed++;
			break;
		}
	strbuf_addstr(&def, "libfiberloop sweep");
	for (i = 0; i < s->files.n; i++)
		strbuf_addf(&def, " %s", s->files.v[i]);
	for (i = 0; i < s->n_ovs; i++)
		strbuf_addf(&def, " --set '%s'", s->ovs[i].text);
	for (i = 0; i < n_axes; i++)
		strbuf_addf(&def, " --axis '%s'", axes[i]);
	if (!dl.n_errors) {
		struct job_design d = {
			.files = (const char *const *)s->files.v, .n_files = s->files.n,
			.tensors = (const char *const *)s->tensors.v, .n_tensors = s->tensors.n,
			.overrides = s->ovs, .n_overrides = s->n_ovs,
			.vars = (const char *const *)s->vars.v, .n_vars = s->vars.n,
			.command = o->job.command, .kind = o->job.kind,
		};
		struct job_options jo = o->job;
		struct job_sweep sw = { &d, ax, n_axes, zip != 0, &jo };
		struct job_runner rn = {
			.db_path = db, .resume = true, .n_workers = n_workers,
			.definition = def.buf, .stop = &o->stop,
		};
		atomic_store(&o->stop, 0);
		if (o->poll) {
			rn.on_progress = on_sweep_progress;
			rn.progress_arg = o;
			rn.progress_interval_s = o->poll_interval_s;
		}
		memset(&res, 0, sizeof(res));
		if (job_sweep_run(&sw, &rn, &res, &dl) < 0)
			fail(err, error_new(FIBERLOOP_BAD_INPUT, dl.n ? &dl : NULL,
					    dl.n ? NULL : res.error));
		else if (res.interrupted)
			failf(err, FIBERLOOP_INTERRUPTED,
			      "interrupted: %llu of %llu points left (the same sweep finishes them)",
			      (unsigned long long)(res.n_total - res.n_skipped - res.n_done),
			      (unsigned long long)res.n_total);
		else
			rc = (int64_t)res.n_total;
	} else {
		fail(err, error_new(FIBERLOOP_BAD_INPUT, &dl, NULL));
	}
	for (i = 0; i < n_parsed; i++)
		job_axis_release(&ax[i]);
	free(ax);
	strbuf_release(&def);
	diag_list_release(&dl);
	fiberloop_options_free(own);
	return rc;
}

fiberloop_table *fiberloop_results(const char *db, const char *const *wheres, size_t n_wheres,
				   fiberloop_error **err)
{
	fiberloop_table *t = xcalloc(1, sizeof(*t));
	struct strbuf e = STRBUF_INIT;

	if (job_results_query(db, wheres, n_wheres, &t->t, &e) < 0) {
		failf(err, FIBERLOOP_BAD_INPUT, "%s", e.buf);
		strbuf_release(&e);
		fiberloop_table_free(t);
		return NULL;
	}
	strbuf_release(&e);
	return t;
}

size_t fiberloop_table_columns(const fiberloop_table *t)
{
	return t->t.n_cols;
}

size_t fiberloop_table_rows(const fiberloop_table *t)
{
	return t->t.n_rows;
}

const char *fiberloop_table_column(const fiberloop_table *t, size_t c)
{
	return c < t->t.n_cols ? t->t.cols[c] : NULL;
}

char fiberloop_table_type(const fiberloop_table *t, size_t r, size_t c)
{
	static const char types[] = { 'n', 'i', 'r', 't' };
	if (r >= t->t.n_rows || c >= t->t.n_cols)
		return 'n';
	return types[table_get(&t->t, r, c).type];
}

const char *fiberloop_table_cell(const fiberloop_table *t, size_t r, size_t c)
{
	if (r >= t->t.n_rows || c >= t->t.n_cols)
		return NULL;
	return table_get(&t->t, r, c).text;
}

void fiberloop_table_free(fiberloop_table *t)
{
	if (!t)
		return;
	table_release(&t->t);
	free(t);
}
