/*
 * Sweeps: the points of a set of axes over one design. The design's files
 * are parsed once into a spec source; each point is a spec set built from
 * it with the --set overrides and the point's axis values, validated, and
 * run through job_run() in memory, on the runner's threads and ranks. A
 * point's key hashes the design's bytes, the command and its options and
 * every override of the point, so a changed design is never mistaken for
 * a finished one.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "energy/energy.h"
#include "job/kind_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* More points than this is a mistake (a range with a tiny step), not a study. */
#define SWEEP_MAX_POINTS 1000000000000ull

int job_sweep_count(const struct job_axis *axes, size_t n, bool zip, uint64_t *n_points,
		    struct diag_list *dl)
{
	uint64_t total = 1;
	size_t a;

	*n_points = 0;
	if (n == 0) {
		*n_points = 1;
		return 0;
	}
	for (a = 0; a < n; a++) {
		struct diag_loc at = { axes[a].origin, 1, 1 };   /* the axis at fault */
		if (zip && axes[a].n_values != axes[0].n_values) {
			diag_error(dl, at, "--zip takes axes of one length: '%s' has %zu values, "
				   "'%s' has %zu", axes[0].name, axes[0].n_values, axes[a].name,
				   axes[a].n_values);
			diag_note(dl, (struct diag_loc){ axes[0].origin, 1, 1 },
				  "the first axis, whose length the others take");
			return -1;
		}
		if (!zip && (total > SWEEP_MAX_POINTS / axes[a].n_values))
			return diag_error(dl, at, "the sweep has more than %llu points with this "
					  "axis", (unsigned long long)SWEEP_MAX_POINTS);
		if (!zip)
			total *= axes[a].n_values;
	}
	*n_points = zip ? axes[0].n_values : total;
	return 0;
}

void job_sweep_point(const struct job_axis *axes, size_t n, bool zip, uint64_t idx, size_t *vi)
{
	size_t a = n;

	while (a-- > 0) {
		if (zip) {
			vi[a] = (size_t)idx;
		} else {
			vi[a] = (size_t)(idx % axes[a].n_values);
			idx /= axes[a].n_values;
		}
	}
}

void job_hash_options(struct job_hash *h, const struct job_options *o)
{
	const struct job_map_options *m = &o->map;
	uint64_t u[] = {
		o->command, o->footprint, o->has_seed, o->seed, o->retention, o->seeds,
		m->has_algorithm, m->algorithm, m->has_streams, m->streams, m->has_search_size,
		m->search_size, m->has_timeout, m->timeout, m->has_victory, m->victory,
		m->has_refine, m->refine, m->has_time_limit,
	};
	double d[] = { o->tolerance, o->sigmas, m->time_limit_s };

	job_hash_add(h, u, sizeof(u));
	job_hash_add(h, d, sizeof(d));
	job_hash_str(h, job_energy_is_estimate(o) ? "estimate" : o->energy_preset);
	if (o->kind)                   /* only when set: the keys of earlier runs stay */
		job_hash_str(h, o->kind);
	if (o->roofline)
		job_hash_str(h, "roofline");
	if (o->samples != 256 || o->percentile != 0.99) {   /* the IPU model's, when not the default */
		uint64_t samples = o->samples;
		job_hash_add(h, &samples, sizeof(samples));
		job_hash_add(h, &o->percentile, sizeof(o->percentile));
	}
	if (o->residuals != JOB_RESIDUALS_EXACT || m->has_imperfect) {   /* keys of older runs stay */
		uint64_t r[] = { o->residuals, m->has_imperfect, m->imperfect };
		job_hash_add(h, r, sizeof(r));
	}
}

/* ------------------------------------------------------------- the run */

struct sweep_ctx {
	const struct job_sweep *sw;
	struct spec_source *src;
	struct spec_load_options lo;
	struct job_options opts;       /* the command's, quiet, one mapper thread */
	char design_hash[JOB_KEY_CHARS + 1];
	char run_key[JOB_KEY_CHARS + 1];
	struct job_hash base;          /* design, options, --set: what every key starts from */
	const char **input_names;
	size_t n_ov;                   /* overrides per point */
	const atomic_int *stop;
};

/*
 * The overrides of point 'idx' into ov[0..ctx->n_ov): --set (borrowed), then
 * the axes' in order, made into ov[] (its own: released by the next call),
 * or, for an axis 'a' with kept[a] (a worker's), made once into kept[a] by
 * value and path and borrowed from there. Unless 'fresh', ov[] and vi[]
 * hold an earlier point's: an axis whose value is the same keeps its
 * override as made (the inner axes change most).
 */
static void point_overrides(const struct sweep_ctx *c, uint64_t idx, struct spec_override *ov,
			    size_t *vi, bool fresh, struct spec_override *const *kept)
{
	const struct job_sweep *sw = c->sw;
	size_t a, p, k = 0, before[JOB_MAX_INPUTS];

	memcpy(before, vi, sw->n_axes * sizeof(*vi));
	job_sweep_point(sw->axes, sw->n_axes, sw->zip, idx, vi);
	for (k = 0; k < sw->design->n_overrides; k++)
		ov[k] = sw->design->overrides[k];
	for (a = 0; a < sw->n_axes; a++)
		for (p = 0; p < sw->axes[a].n_paths; p++, k++) {
			struct spec_override *m;
			if (!fresh && vi[a] == before[a])
				continue;
			if (!kept || !kept[a]) {
				job_axis_override(&sw->axes[a], vi[a], p, &ov[k]);
				continue;
			}
			m = &kept[a][vi[a] * sw->axes[a].n_paths + p];
			if (!m->text)
				job_axis_override(&sw->axes[a], vi[a], p, m);
			ov[k] = *m;
		}
}

static void sweep_key(void *arg, uint64_t idx, char key[JOB_KEY_CHARS + 1])
{
	struct sweep_ctx *c = arg;
	const struct job_sweep *sw = c->sw;
	struct job_hash h = c->base;
	size_t vi[JOB_MAX_INPUTS], a, p;

	job_sweep_point(sw->axes, sw->n_axes, sw->zip, idx, vi);
	for (a = 0; a < sw->n_axes; a++)
		for (p = 0; p < sw->axes[a].n_paths; p++) {
			const char *sv = sw->axes[a].set_values[vi[a]];
			job_axis_hash_override(&sw->axes[a], vi[a], p, &h);
			if (sv[0] == '@') {     /* a changed file is a new point */
				struct strbuf err = STRBUF_INIT;
				if (job_hash_file(&h, sv + 1, &err) < 0)
					job_hash_str(&h, err.buf);
				strbuf_release(&err);
			}
		}
	job_hash_hex(&h, key);
}

static void sweep_describe(void *arg, uint64_t idx, unsigned k_row, struct job_runner_row *row)
{
	struct sweep_ctx *c = arg;
	const struct job_sweep *sw = c->sw;
	size_t vi[JOB_MAX_INPUTS], a, p, k;

	sweep_key(arg, idx, row->key);
	job_sweep_point(sw->axes, sw->n_axes, sw->zip, idx, vi);
	row->kind = "point";
	row->command = job_options_command_name(&c->opts);
	row->design_hash = c->design_hash;
	/* "TEXT" and "PATH=VALUE" a line each (appended piece by piece: the main thread's per point) */
	for (k = 0; k < sw->design->n_overrides; k++) {
		if (k)
			strbuf_addch(&row->overrides, '\n');
		strbuf_addstr(&row->overrides, sw->design->overrides[k].text);
	}
	for (a = 0; a < sw->n_axes; a++)
		for (p = 0; p < sw->axes[a].n_paths; p++, k++) {
			if (k)
				strbuf_addch(&row->overrides, '\n');
			strbuf_addstr(&row->overrides, sw->axes[a].paths[p]);
			strbuf_addch(&row->overrides, '=');
			strbuf_addstr(&row->overrides, sw->axes[a].values[vi[a]]);
		}
	for (a = 0; a < sw->n_axes; a++)
		row->inputs[a] = sw->axes[a].values[vi[a]];
}

/*
 * An axis with at most this many overrides (values x paths) has each made
 * once by a worker, the first time a point needs it, and kept: the points
 * of an inner axis come back to its values again and again.
 */
#define SWEEP_KEPT_OVERRIDES 4096

/* What a worker keeps between points. */
struct sweep_ws {
	struct spec_override *ov;
	size_t vi[JOB_MAX_INPUTS];
	bool made;                     /* ov[] and vi[] hold the last point's */
	/* per axis: its overrides by value and path (ov[] borrows them), or NULL */
	struct spec_override *kept[JOB_MAX_INPUTS];
	struct job_options opts;       /* the sweep's, with this worker's scratch */
};

static void *sweep_ws_new(void *arg)
{
	struct sweep_ctx *c = arg;
	const struct job_sweep *sw = c->sw;
	struct sweep_ws *w = xcalloc(1, sizeof(*w));
	size_t k, a;

	w->ov = xcalloc(c->n_ov + 1, sizeof(*w->ov));
	for (k = 0; k < c->n_ov; k++)
		w->ov[k] = (struct spec_override)SPEC_OVERRIDE_INIT;
	for (a = 0; a < sw->n_axes; a++) {
		size_t n = sw->axes[a].n_values * sw->axes[a].n_paths;
		if (n && n <= SWEEP_KEPT_OVERRIDES) {
			w->kept[a] = xcalloc(n, sizeof(*w->kept[a]));
			for (k = 0; k < n; k++)
				w->kept[a][k] = (struct spec_override)SPEC_OVERRIDE_INIT;
		}
	}
	w->opts = c->opts;
	w->opts.scratch = job_scratch_new();
	return w;
}

static void sweep_ws_free(void *arg, void *ws)
{
	struct sweep_ctx *c = arg;
	const struct job_sweep *sw = c->sw;
	struct sweep_ws *w = ws;
	size_t k = sw->design->n_overrides, a, p;

	for (a = 0; a < sw->n_axes; a++) {
		for (p = 0; p < sw->axes[a].n_paths; p++, k++)
			if (!w->kept[a])   /* the axes' made into ov[] */
				spec_override_release(&w->ov[k]);
		for (p = 0; w->kept[a] && p < sw->axes[a].n_values * sw->axes[a].n_paths; p++)
			spec_override_release(&w->kept[a][p]);
		free(w->kept[a]);
	}
	free(w->ov);
	job_scratch_free(w->opts.scratch);
	free(w);
}

/*
 * The diagnostics of 'dl' as text into 'buf', whole; when they do not fit,
 * the whole lines that do and a last line saying how many were left out
 * (never a line cut in the middle).
 */
void job_diag_text(const struct diag_list *dl, char *buf, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (!fp) {
		snprintf(buf, size, "the diagnostics could not be written");
		return;
	}
	diag_print(dl, fp);
	fclose(fp);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (len >= size && size > 64) {
		size_t keep = 0, i, left = 1;
		for (i = 0; i < len && i + 48 < size; i++)
			if (text[i] == '\n')
				keep = i;
		for (i = keep + 1; i < len; i++)
			left += text[i] == '\n';
		snprintf(buf, size, "%.*s%s(%zu more line%s of diagnostics not kept)", (int)keep, text,
			 keep ? "\n" : "", left, left == 1 ? "" : "s");
	} else {
		snprintf(buf, size, "%s", text);
	}
	free(text);
}

/*
 * Run the job of 'opts' on the set built from 'src' with ov[0..n_ov) into
 * 'sum'; a set that does not build is a bad-input summary with its
 * diagnostics as the error. False when a stop cut the job short.
 */
bool job_run_built(const struct spec_source *src, const struct spec_load_options *lo,
		   const struct spec_override *ov, size_t n_ov, const struct job_options *opts,
		   const atomic_int *stop, struct job_summary *sum)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_build(src, ov, n_ov, lo, &dl);

	if (!s) {
		memset(sum, 0, sizeof(*sum));
		sum->command = opts->command;
		sum->status = JOB_BAD_INPUT;
		job_diag_text(&dl, sum->error, sizeof(sum->error));
	} else {
		struct job_outputs out;
		job_outputs_init(&out);
		job_run(s, opts, sum, &out);
		if (sum->status != JOB_OK && !sum->error[0])
			job_diag_text(&out.diags, sum->error, sizeof(sum->error));
		job_outputs_release(&out);
	}
	spec_set_free(s);
	diag_list_release(&dl);
	return !(opts->command == JOB_MAP && stop && atomic_load(stop));
}

static bool sweep_run_point(void *arg, void *ws, uint64_t idx, struct job_summary *sum)
{
	struct sweep_ctx *c = arg;
	struct sweep_ws *w = ws;

	point_overrides(c, idx, w->ov, w->vi, !w->made, w->kept);
	w->made = true;
	return job_run_built(c->src, &c->lo, w->ov, c->n_ov, &w->opts, c->stop, sum);
}

/* The options every point runs with: the command's, printing nothing, one mapper thread. */
void job_quiet_options(const struct job_options *o, const atomic_int *stop,
		       struct job_options *q)
{
	*q = *o;
	q->want = 0;
	q->format = JOB_FORMAT_TEXT;
	if (!q->map.has_threads) {
		q->map.threads = 1;
		q->map.has_threads = true;
	}
	q->map.on_progress = NULL;
	q->map.on_log_line = NULL;
	q->map.split_ranks = false;
	q->map.stop = stop;
	q->scratch = NULL;   /* a thread's: the runner's workers bring their own */
}

/* Parse the design's files into a source and hash them. Returns 0 or -1 (dl). */
int job_design_source(const struct job_design *d, struct spec_source **src,
		      struct job_hash *h, struct diag_list *dl)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;
	int rc = 0;

	*src = spec_source_new();
	spec_source_set_kinds(*src, job_spec_kinds());
	spec_source_set_templates(*src, d->vars, d->n_vars, NULL);
	job_hash_init(h);
	for (i = 0; i < d->n_vars; i++)
		job_hash_str(h, d->vars[i]);    /* a variable changes what a template gives */
	for (i = 0; i < d->n_files; i++) {
		if (spec_source_add_file(*src, d->files[i], dl) < 0)
			rc = -1;
		else if (job_hash_file(h, d->files[i], &err) < 0)
			rc = diag_error(dl, DIAG_LOC_NONE, "%s", err.buf);
	}
	for (i = 0; i < d->n_tensors && rc == 0; i++) {
		const char *eq = strchr(d->tensors[i], '=');
		job_hash_str(h, d->tensors[i]);
		if (eq && job_hash_file(h, eq + 1, &err) < 0)
			rc = diag_error(dl, DIAG_LOC_NONE, "%s", err.buf);
	}
	strbuf_release(&err);
	return rc;
}

/* The hashes of the sweep: the design's, the base of every key, the run's. */
static void sweep_hashes(struct sweep_ctx *c, const struct job_hash *design)
{
	const struct job_sweep *sw = c->sw;
	struct job_hash run;
	size_t a, k;

	job_hash_hex(design, c->design_hash);
	job_hash_init(&c->base);
	job_hash_str(&c->base, c->design_hash);
	job_hash_options(&c->base, &c->opts);
	for (k = 0; k < sw->design->n_overrides; k++)
		job_hash_str(&c->base, sw->design->overrides[k].text);
	for (k = 0; k < sw->design->n_prunes; k++)   /* none: the keys of earlier runs stay */
		job_hash_str(&c->base, sw->design->prunes[k]);
	run = c->base;
	job_hash_str(&run, "sweep");
	job_hash_add(&run, &sw->zip, sizeof(sw->zip));
	for (a = 0; a < sw->n_axes; a++) {
		job_hash_str(&run, sw->axes[a].text);
		job_hash_str(&run, sw->axes[a].name);
	}
	job_hash_hex(&run, c->run_key);
}

/* The axis and path whose text holds location 'at' (a path, not its values), or false. */
static bool axis_path_at(const struct job_sweep *sw, struct diag_loc at, size_t *ax, size_t *path)
{
	size_t a, p;

	for (a = 0; a < sw->n_axes; a++) {
		const struct job_axis *x = &sw->axes[a];
		if (!at.file || strcmp(at.file, x->origin) != 0)
			continue;
		for (p = 0; p < x->n_paths; p++)
			if (at.col > x->path_offs[p] &&
			    at.col <= x->path_offs[p] + strlen(x->paths[p])) {
				*ax = a;
				*path = p;
				return true;
			}
	}
	return false;
}

/*
 * Build the first point before any runs: an axis path that matches nothing
 * in the design (a misspelt key, a name no item has) fails the sweep here,
 * naming the axis, instead of failing every point. A value a point cannot
 * take is left to that point. Returns 0 or -1 (dl).
 */
static int sweep_probe(const struct sweep_ctx *c, struct diag_list *dl)
{
	const struct job_sweep *sw = c->sw;
	struct spec_override *ov = xcalloc(c->n_ov + 1, sizeof(*ov));
	struct diag_list tmp = DIAG_LIST_INIT;
	size_t vi[JOB_MAX_INPUTS] = { 0 }, i, a = 0, p = 0;
	struct spec_set *s;
	bool bad = false;

	point_overrides(c, 0, ov, vi, true, NULL);
	s = spec_set_build(c->src, ov, c->n_ov, &c->lo, &tmp);
	for (i = 0; !s && i < tmp.n && !bad; i++)
		bad = tmp.items[i].severity == DIAG_ERROR && axis_path_at(sw, tmp.items[i].loc, &a, &p);
	if (bad) {
		for (i = 0; i < tmp.n; i++) {     /* the file names outlive the source */
			struct diag_loc at = tmp.items[i].loc;
			if (at.file)
				at.file = diag_list_strdup(dl, at.file);
			diag_copy(dl, &tmp.items[i], at);
		}
		diag_note(dl, (struct diag_loc){ sw->axes[a].origin, 1,
						 (unsigned)sw->axes[a].path_offs[p] + 1 },
			  "axis '%s': its path '%s' matches nothing in the design; no point was run",
			  sw->axes[a].name, sw->axes[a].paths[p]);
	}
	spec_set_free(s);
	diag_list_release(&tmp);
	for (i = sw->design->n_overrides; i < c->n_ov; i++)   /* the axes', made here */
		spec_override_release(&ov[i]);
	free(ov);
	return bad ? -1 : 0;
}

int job_sweep_run(const struct job_sweep *sw, const struct job_runner *rn,
		  struct job_run_result *res, struct diag_list *dl)
{
	struct sweep_ctx c;
	struct job_runner_jobs jobs;
	struct job_hash design;
	struct energy_cache *cache = NULL;
	uint64_t n_points;
	size_t a;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if (sw->n_axes > JOB_MAX_INPUTS)
		return diag_error(dl, (struct diag_loc){ sw->axes[JOB_MAX_INPUTS].origin, 1, 1 },
				  "more than %d axes", JOB_MAX_INPUTS);
	for (a = 0; a < sw->n_axes; a++) {
		size_t b;
		for (b = 0; b < a; b++)
			if (!strcasecmp(sw->axes[a].name, sw->axes[b].name)) {
				diag_error(dl, (struct diag_loc){ sw->axes[a].origin, 1, 1 },
					   "two axes are named '%s'%s (name one with NAME:PATH=...)",
					   sw->axes[a].name, strcmp(sw->axes[a].name, sw->axes[b].name)
					   ? ", one database column: column names ignore case" : "");
				diag_note(dl, (struct diag_loc){ sw->axes[b].origin, 1, 1 },
					  "'%s' first named here", sw->axes[b].name);
				return -1;
			}
	}
	if (job_sweep_count(sw->axes, sw->n_axes, sw->zip, &n_points, dl) < 0)
		return -1;
	c.sw = sw;
	c.stop = rn->stop;
	c.lo.require_mapping = !sw->options->kind && (sw->options->command == JOB_MODEL ||
			       sw->options->command == JOB_EXEC || sw->options->command == JOB_VALIDATE);
	c.lo.allow_no_problem = sw->options->command == JOB_CHECK;
	c.lo.tensor_files = sw->design->tensors;
	c.lo.n_tensor_files = sw->design->n_tensors;
	c.lo.prunes = sw->design->prunes;
	c.lo.n_prunes = sw->design->n_prunes;
	job_quiet_options(sw->options, rn->stop, &c.opts);
	if (!c.opts.energy_cache)      /* tables built once per architecture the axes make */
		c.opts.energy_cache = cache = energy_cache_new();
	c.n_ov = sw->design->n_overrides;
	for (a = 0; a < sw->n_axes; a++)
		c.n_ov += sw->axes[a].n_paths;
	if (job_design_source(sw->design, &c.src, &design, dl) < 0) {
		spec_source_free(c.src);
		energy_cache_free(cache);
		return -1;
	}
	if (sweep_probe(&c, dl) < 0) {
		spec_source_free(c.src);
		return -1;
	}
	sweep_hashes(&c, &design);
	c.input_names = xcalloc(sw->n_axes + 1, sizeof(*c.input_names));
	for (a = 0; a < sw->n_axes; a++)
		c.input_names[a] = sw->axes[a].name;
	jobs = (struct job_runner_jobs){
		.n = n_points, .ctx = &c, .kind = "sweep", .run_key = c.run_key,
		.stream_metrics = job_stream_mask(spec_source_kind(c.src)->name, &c.opts),
		.n_inputs = sw->n_axes, .input_names = c.input_names,
		.key = sweep_key, .describe = sweep_describe,
		.ws_new = sweep_ws_new, .ws_free = sweep_ws_free, .run = sweep_run_point,
	};
	rc = job_runner_go(&jobs, rn, res);
	free(c.input_names);
	spec_source_free(c.src);
	energy_cache_free(cache);
	return rc;
}
