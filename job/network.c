/*
 * Whole networks: every layer of a network mapped on one design. A layer
 * is a YAML file whose 'problem' replaces the design's (a directory gives
 * its *.yaml files in name order). Layers with the same bytes are mapped
 * once (the mapper is deterministic) and give a row each; the network's
 * totals add the layers' energies and cycles (the layers run one after the
 * other): EDP is total energy times total cycles. The layers run on the
 * runner's threads and ranks.
 */
#include "job/job_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "energy/energy.h"
#include "job/kind_int.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* ----------------------------------------------------------- the layers */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_yaml(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/* Append the *.yaml files of directory 'dir', in name order, to 'p'. */
static int add_dir(struct job_net_plan *p, const char *dir, struct diag_list *dl)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;

	if (!d)
		return diag_error(dl, (struct diag_loc){ dir, 0, 0 }, "cannot read the directory: %s",
				  strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && is_yaml(e->d_name)) {
			XGROW(names, n + 1, alloc);
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (!n) {
		free(names);
		return diag_error(dl, (struct diag_loc){ dir, 0, 0 }, "no layer files (*.yaml) in it");
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		size_t len = strlen(dir);
		XGROW(p->files, p->n_files + 1, p->alloc_files);
		p->files[p->n_files++] = arena_printf(&p->arena, "%s%s%s", dir,
						      len && dir[len - 1] == '/' ? "" : "/",
						      names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* "resnet18/00" for ".../resnet18/00.yaml": the directory's name and the file's, no extension. */
static const char *layer_name(struct arena *a, const char *path)
{
	const char *base = strrchr(path, '/'), *dir = NULL, *dot;
	size_t n;

	if (base) {
		const char *q = base;
		while (q > path && q[-1] != '/')
			q--;
		if (q < base)
			dir = q;
		base++;
	} else {
		base = path;
	}
	dot = strrchr(base, '.');
	n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
	if (dir)
		return arena_printf(a, "%.*s/%.*s", (int)(base - 1 - dir), dir, (int)n, base);
	return arena_strndup(a, base, n);
}

int job_net_plan_make(const char *const *items, size_t n, struct job_net_plan *p, struct diag_list *dl)
{
	struct strbuf err = STRBUF_INIT;
	size_t i, k;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++) {
		struct stat st;
		if (stat(items[i], &st) < 0) {
			rc = diag_error(dl, (struct diag_loc){ items[i], 0, 0 }, "%s", strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (add_dir(p, items[i], dl) < 0)
				rc = -1;
		} else {
			XGROW(p->files, p->n_files + 1, p->alloc_files);
			p->files[p->n_files++] = arena_strdup(&p->arena, items[i]);
		}
	}
	if (rc < 0)
		return -1;
	p->names = arena_calloc(&p->arena, p->n_files + 1, sizeof(*p->names));
	p->hash = arena_calloc(&p->arena, p->n_files + 1, sizeof(*p->hash));
	p->task_of = arena_calloc(&p->arena, p->n_files + 1, sizeof(*p->task_of));
	p->task_file = arena_calloc(&p->arena, p->n_files + 1, sizeof(*p->task_file));
	p->task_rows = arena_calloc(&p->arena, p->n_files + 1, sizeof(*p->task_rows));
	for (i = 0; i < p->n_files; i++) {
		struct job_hash h;
		p->names[i] = layer_name(&p->arena, p->files[i]);
		job_hash_init(&h);
		if (job_hash_file(&h, p->files[i], &err) < 0) {
			rc = diag_error(dl, DIAG_LOC_NONE, "%s", err.buf);
			continue;
		}
		job_hash_hex(&h, p->hash[i]);
		for (k = 0; k < p->n_tasks && strcmp(p->hash[p->task_file[k]], p->hash[i]); k++)
			;
		if (k == p->n_tasks)
			p->task_file[p->n_tasks++] = i;
		p->task_of[i] = k;
		p->task_rows[k]++;
	}
	strbuf_release(&err);
	return rc;
}

size_t job_net_plan_file(const struct job_net_plan *p, size_t task, unsigned k)
{
	size_t i;

	for (i = 0; i < p->n_files; i++)
		if (p->task_of[i] == task && k-- == 0)
			return i;
	BUG("row %u of layer task %zu", k, task);
}

void job_net_plan_release(struct job_net_plan *p)
{
	free(p->files);
	arena_release(&p->arena);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------ one layer */

bool job_net_run_layer(const struct job_design *d, const char *layer,
		   const struct spec_load_options *lo, const struct job_options *opts,
		   const atomic_int *stop, struct job_summary *sum)
{
	struct spec_source *src = spec_source_new();
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;
	int rc = 0;
	bool keep;

	spec_source_set_kinds(src, job_spec_kinds());
	spec_source_set_templates(src, d->vars, d->n_vars, NULL);
	for (i = 0; i < d->n_files; i++)
		if (spec_source_add_file(src, d->files[i], &dl) < 0)
			rc = -1;
	if (layer && spec_source_add_layer(src, layer, &dl) < 0)
		rc = -1;
	if (rc < 0) {
		memset(sum, 0, sizeof(*sum));
		sum->command = opts->command;
		sum->status = JOB_BAD_INPUT;
		job_diag_text(&dl, sum->error, sizeof(sum->error));
		keep = true;
	} else {
		keep = job_run_built(src, lo, d->overrides, d->n_overrides, opts, stop, sum);
	}
	diag_list_release(&dl);
	spec_source_free(src);
	return keep;
}

/* ------------------------------------------------------------ the totals */

void job_net_total(const struct job_summary *const *sums, const char *const *names, size_t n,
	       struct job_summary *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->command = JOB_MAP;
	t->status = JOB_OK;
	for (i = 0; i < n; i++) {
		const struct job_summary *s = sums[i];
		if (!s) {
			t->status = JOB_SYSTEM;
			snprintf(t->error, sizeof(t->error), "layer '%s' did not run", names[i]);
			return;
		}
		if (s->status != JOB_OK) {
			struct strbuf sb = STRBUF_INIT;
			t->status = s->status;
			strbuf_addf(&sb, "layer '%s': %s", names[i], s->error);
			snprintf(t->error, sizeof(t->error), "%s", sb.buf);
			strbuf_release(&sb);
			return;
		}
	}
	t->kind = n ? sums[0]->kind : 0;
	job_summary_combine(t, sums, n);
	snprintf(t->mapping, sizeof(t->mapping), "%zu layers", n);
}

/* The text of cell (r, 'col') of 't', or NULL (no such column, or null). */
static const char *text_of(const struct table *t, size_t r, const char *col)
{
	long c = table_col(t, col);
	return c < 0 ? NULL : table_get(t, r, (size_t)c).text;
}

void job_net_summary_of_row(const struct table *t, size_t r, struct job_summary *s)
{
	const char *status = text_of(t, r, "status"), *error = text_of(t, r, "error");
	const char *level = job_metric_get(JOB_METRIC_LEVEL_ENERGY_PJ)->name;
	size_t c, n_level = strlen(level);
	enum job_status st;
	int m;

	memset(s, 0, sizeof(*s));
	s->command = JOB_MAP;
	s->status = JOB_SYSTEM;
	for (st = JOB_OK; st < JOB_STATUS_COUNT; st++)
		if (status && !strcmp(status, job_status_name(st)))
			s->status = st;
	snprintf(s->error, sizeof(s->error), "%s", error ? error : "");
	for (m = 0; m < JOB_METRIC_LEVEL_ENERGY_PJ; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		const char *x = text_of(t, r, d->name);
		struct job_metric_value v = { 0, 0, x, "" };
		if (!x)
			continue;
		v.real = strtod(x, NULL);
		v.count = strtoull(x, NULL, 10);
		job_summary_set(s, (enum job_metric_id)m, &v);
	}
	for (c = 0; c < t->n_cols; c++) {
		const char *col = t->cols[c];
		struct table_cell x = table_get(t, r, c);
		if (strncmp(col, level, n_level) || col[n_level] != '.' || !x.text ||
		    s->n_levels == JOB_MAX_PARTS)
			continue;
		job_summary_add_level(s, col + n_level + 1, strtod(x.text, NULL));
	}
}

/* -------------------------------------------------------- map --layers */

struct net_ctx {
	const struct job_network *nw;
	struct job_net_plan plan;
	struct spec_load_options lo;
	struct job_options opts;
	char design_hash[JOB_KEY_CHARS + 1];
	char net_key[JOB_KEY_CHARS + 1];
	struct job_summary **sums;     /* per distinct layer, as they finish */
};

void job_net_row_key(const char *net_key, const struct job_net_plan *p, size_t file,
		 char key[JOB_KEY_CHARS + 1])
{
	struct job_hash h;

	job_hash_init(&h);
	job_hash_str(&h, net_key);
	job_hash_str(&h, "layer");
	job_hash_add(&h, &file, sizeof(file));
	job_hash_str(&h, p->names[file]);
	job_hash_str(&h, p->hash[file]);
	job_hash_hex(&h, key);
}

static void nc_key(void *arg, uint64_t i, char key[JOB_KEY_CHARS + 1])
{
	struct net_ctx *c = arg;
	job_net_row_key(c->net_key, &c->plan, job_net_plan_file(&c->plan, (size_t)i, 0), key);
}

static unsigned nc_rows(void *arg, uint64_t i)
{
	struct net_ctx *c = arg;
	return c->plan.task_rows[i];
}

static void nc_describe(void *arg, uint64_t i, unsigned k, struct job_runner_row *row)
{
	struct net_ctx *c = arg;
	size_t f = job_net_plan_file(&c->plan, (size_t)i, k), o;

	job_net_row_key(c->net_key, &c->plan, f, row->key);
	row->idx = 1 + f;
	row->kind = "layer";
	row->name = c->plan.names[f];
	row->parent = c->net_key;
	row->command = "map";
	row->design_hash = c->design_hash;
	strbuf_addf(&row->overrides, "layer=%s", c->plan.files[f]);
	for (o = 0; o < c->nw->design->n_overrides; o++)
		strbuf_addf(&row->overrides, "\n%s", c->nw->design->overrides[o].text);
}

static bool nc_run(void *arg, void *ws, uint64_t i, struct job_summary *sum)
{
	struct net_ctx *c = arg;
	return job_net_run_layer(c->nw->design, c->plan.files[c->plan.task_file[i]], &c->lo, &c->opts,
			     c->opts.map.stop, sum);
}

static void nc_take(void *arg, uint64_t i, const struct job_summary *sum)
{
	struct net_ctx *c = arg;
	c->sums[i] = xmalloc(sizeof(*sum));
	memcpy(c->sums[i], sum, sizeof(*sum));
}

/* The network's key: its design, options, overrides and every layer in order. */
static void network_keys(struct net_ctx *c, const struct job_hash *design)
{
	struct job_hash h;
	size_t i;

	job_hash_hex(design, c->design_hash);
	job_hash_init(&h);
	job_hash_str(&h, "network");
	job_hash_str(&h, c->design_hash);
	job_hash_options(&h, &c->opts);
	for (i = 0; i < c->nw->design->n_overrides; i++)
		job_hash_str(&h, c->nw->design->overrides[i].text);
	for (i = 0; i < c->plan.n_files; i++) {
		job_hash_str(&h, c->plan.names[i]);
		job_hash_str(&h, c->plan.hash[i]);
	}
	job_hash_hex(&h, c->net_key);
}

/* The layers finished in an earlier run, from the database. */
static int earlier_layers(struct net_ctx *c, const char *db, struct strbuf *err)
{
	struct strbuf cond = STRBUF_INIT;
	struct table t = TABLE_INIT;
	const char *w;
	size_t r, f;
	int rc;

	strbuf_addf(&cond, "parent=%s", c->net_key);
	w = cond.buf;
	rc = job_results_query(db, &w, 1, &t, err);
	for (r = 0; rc == 0 && r < t.n_rows; r++) {
		const char *key = text_of(&t, r, "key");
		for (f = 0; f < c->plan.n_files && key; f++) {
			char k[JOB_KEY_CHARS + 1];
			size_t task = c->plan.task_of[f];
			job_net_row_key(c->net_key, &c->plan, f, k);
			if (strcmp(k, key) || c->sums[task])
				continue;
			c->sums[task] = xmalloc(sizeof(**c->sums));
			job_net_summary_of_row(&t, r, c->sums[task]);
		}
	}
	table_release(&t);
	strbuf_release(&cond);
	return rc;
}

int job_network_run(const struct job_network *nw, const struct job_runner *rn,
		    struct job_network_result *out, struct job_run_result *res,
		    struct diag_list *dl)
{
	struct net_ctx c;
	struct job_runner_jobs jobs;
	struct spec_source *src;
	struct job_hash design;
	struct strbuf err = STRBUF_INIT;
	struct energy_cache *cache = NULL;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.nw = nw;
	job_quiet_options(nw->options, rn->stop, &c.opts);
	c.opts.command = JOB_MAP;
	if (!c.opts.energy_cache)      /* one architecture: its tables built once */
		c.opts.energy_cache = cache = energy_cache_new();
	if (job_design_source(nw->design, &src, &design, dl) < 0) {
		spec_source_free(src);
		energy_cache_free(cache);
		return -1;
	}
	spec_source_free(src);
	if (job_net_plan_make(nw->layers, nw->n_layers, &c.plan, dl) < 0) {
		job_net_plan_release(&c.plan);
		energy_cache_free(cache);
		return -1;
	}
	network_keys(&c, &design);
	c.sums = xcalloc(c.plan.n_tasks + 1, sizeof(*c.sums));
	jobs = (struct job_runner_jobs){
		.n = c.plan.n_tasks, .ctx = &c, .kind = "network", .run_key = c.net_key,
		.key = nc_key, .n_rows = nc_rows, .describe = nc_describe, .run = nc_run,
		.take = nc_take, .take_arg = &c,
	};
	rc = job_runner_go(&jobs, rn, res);
	if (rc == 0 && job_rank() == 0 && rn->db_path && res->n_skipped &&
	    earlier_layers(&c, rn->db_path, &err) < 0) {
		snprintf(res->error, sizeof(res->error), "%s", err.buf);
		rc = -1;
	}
	out->n_layers = c.plan.n_files;
	out->n_distinct = c.plan.n_tasks;
	out->names = xcalloc(c.plan.n_files + 1, sizeof(*out->names));
	out->sums = xcalloc(c.plan.n_files + 1, sizeof(*out->sums));
	for (i = 0; i < c.plan.n_files; i++) {
		out->names[i] = xstrdup(c.plan.names[i]);
		if (c.sums[c.plan.task_of[i]]) {
			out->sums[i] = xmalloc(sizeof(**out->sums));
			memcpy(out->sums[i], c.sums[c.plan.task_of[i]], sizeof(**out->sums));
		}
	}
	job_net_total((const struct job_summary *const *)out->sums, (const char *const *)out->names,
		  out->n_layers, &out->total);
	for (i = 0; i < c.plan.n_tasks; i++)
		free(c.sums[i]);
	free(c.sums);
	job_net_plan_release(&c.plan);
	energy_cache_free(cache);
	strbuf_release(&err);
	return rc;
}

void job_network_result_release(struct job_network_result *r)
{
	size_t i;

	for (i = 0; i < r->n_layers; i++) {
		free(r->names[i]);
		free(r->sums[i]);
	}
	free(r->names);
	free(r->sums);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------- printing */

static void text_row(struct strbuf *sb, const char *name, const struct job_summary *s,
		     int width)
{
	if (!s) {
		strbuf_addf(sb, "%-*s  %-10s\n", width, name, "not run");
		return;
	}
	if (s->status != JOB_OK) {
		const char *nl = strchr(s->error, '\n');
		strbuf_addf(sb, "%-*s  %-10s  %.*s\n", width, name, job_status_name(s->status),
			    nl ? (int)(nl - s->error) : (int)strlen(s->error), s->error);
		return;
	}
	strbuf_addf(sb, "%-*s  %-10s  %14.6g  %14llu  %14.6g  %11.4f  %s\n", width, name, "ok",
		    job_summary_real(s, JOB_METRIC_ENERGY_PJ) * 1e-6,
		    (unsigned long long)job_summary_count(s, JOB_METRIC_CYCLES),
		    job_summary_real(s, JOB_METRIC_EDP_J_CYCLES),
		    job_summary_real(s, JOB_METRIC_UTILIZATION), s->mapping);
}

static void csv_row(struct strbuf *sb, const char *name, const struct job_summary *s)
{
	strbuf_addf(sb, "%s,%s", name, s ? job_status_name(s->status) : "not-run");
	if (s && s->status == JOB_OK) {
		job_row_csv_metrics(s, job_stream_mask(NULL, NULL), sb);
		strbuf_addch(sb, ',');
	} else {
		strbuf_addstr(sb, ",,,,,,,,");
		if (s) {
			const char *p;
			strbuf_addch(sb, '"');
			for (p = s->error; *p; p++) {
				if (*p == '"')
					strbuf_addch(sb, '"');
				strbuf_addch(sb, *p);
			}
			strbuf_addch(sb, '"');
		}
	}
	strbuf_addch(sb, '\n');
}

static void json_summary(struct json_writer *w, const char *key, const char *name,
			 const struct job_summary *s)
{
	json_open_inline(w, key, '{');
	json_str(w, "layer", name);
	json_str(w, "status", s ? job_status_name(s->status) : "not-run");
	if (s && s->status == JOB_OK) {
		job_row_json_metrics(s, job_stream_mask(NULL, NULL), w);
		json_str(w, "mapping", s->mapping);
	} else if (s) {
		json_str(w, "error", s->error);
	}
	json_close(w, '}');
}

void job_network_print(const struct job_network_result *r, enum job_format f, struct strbuf *sb)
{
	int width = 5;
	size_t i;

	if (f == JOB_FORMAT_CSV) {
		strbuf_addstr(sb, "layer,status,energy_pj,cycles,edp_j_cycles,utilization,"
			      "algorithmic_computes,actual_computes,pj_per_compute,error\n");
		for (i = 0; i < r->n_layers; i++)
			csv_row(sb, r->names[i], r->sums[i]);
		csv_row(sb, "total", &r->total);
	} else if (f == JOB_FORMAT_JSON) {
		struct json_writer w;
		json_init(&w, sb, JSON_PRETTY);
		json_open(&w, NULL, '{');
		json_u64(&w, "n_layers", r->n_layers);
		json_u64(&w, "n_distinct", r->n_distinct);
		json_open(&w, "layers", '[');
		for (i = 0; i < r->n_layers; i++)
			json_summary(&w, NULL, r->names[i], r->sums[i]);
		json_close(&w, ']');
		json_summary(&w, "total", "total", &r->total);
		json_close(&w, '}');
		strbuf_addch(sb, '\n');
	} else {
		for (i = 0; i < r->n_layers; i++)
			if ((int)strlen(r->names[i]) > width)
				width = (int)strlen(r->names[i]);
		strbuf_addf(sb, "%-*s  %-10s  %14s  %14s  %14s  %11s  %s\n", width, "layer", "status",
			    "energy (uJ)", "cycles", "EDP (J*cycle)", "utilization", "mapping");
		for (i = 0; i < r->n_layers; i++)
			text_row(sb, r->names[i], r->sums[i], width);
		text_row(sb, "total", &r->total, width);
	}
}
