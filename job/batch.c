/*
 * Batches: the jobs of a batch file (specs/batch.c), each a design run
 * with a command or a network whose layers are mapped, on the runner's
 * threads and ranks, one row per job (per layer for a network) in the
 * results database. A job whose files or overrides make a bad spec is a
 * row with its located error, and the batch goes on. At the end, rank 0
 * adds each finished network's row (its totals, from its layers' rows)
 * and ranks the jobs by a metric, from the database, so that jobs finished
 * by an earlier run are in the table too.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "energy/energy.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* What the batch keeps of one job. */
struct bjob {
	const struct spec_batch_job *spec;
	struct job_design design;
	const char **vars;             /* the command line's, then the job's */
	struct spec_override *ovs;
	char ov_error[JOB_ERROR_TEXT]; /* an override that does not parse: the job's error */
	struct job_options opts;
	char design_hash[JOB_KEY_CHARS + 1];
	char key[JOB_KEY_CHARS + 1];   /* the job's row (the network's, for a network) */
	char *tags;                    /* "a,b" or NULL */
	bool is_network;
	struct spec_load_options lo;   /* its loader's options (its command's, its prunes) */
	struct job_net_plan plan;
	char plan_error[JOB_ERROR_TEXT]; /* its layers cannot be read: the job's error */
	uint64_t first_task, n_tasks;
	uint64_t base_idx;             /* its row's index; its layers follow */
};

struct batch_ctx {
	const struct job_batch *b;
	const atomic_int *stop;
	struct bjob *jobs;
	size_t n_jobs;
	uint64_t n_tasks;
	char run_key[JOB_KEY_CHARS + 1];
};

/* The job of task 'i' and the task's place in it. */
static struct bjob *job_of(const struct batch_ctx *c, uint64_t i, size_t *sub)
{
	size_t lo = 0, hi = c->n_jobs;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (c->jobs[mid].first_task <= i)
			lo = mid;
		else
			hi = mid;
	}
	*sub = (size_t)(i - c->jobs[lo].first_task);
	return &c->jobs[lo];
}

/* ------------------------------------------------------------ jobs */

/* The job's overrides, parsed; the first one that does not parse is its error. */
static void parse_sets(struct bjob *j)
{
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;

	j->ovs = xcalloc(j->spec->n_sets + 1, sizeof(*j->ovs));
	for (i = 0; i < j->spec->n_sets; i++) {
		j->ovs[i].at = j->spec->set_at[2 * i];    /* located in the batch file */
		j->ovs[i].value_at = j->spec->set_at[2 * i + 1];
		if (spec_override_parse(j->spec->sets[i], &j->ovs[i], &dl) < 0 && !j->ov_error[0])
			job_diag_text(&dl, j->ov_error, sizeof(j->ov_error));
	}
	diag_list_release(&dl);
	j->design.files = j->spec->files;
	j->design.n_files = j->spec->n_files;
	j->design.overrides = j->ovs;
	j->design.n_overrides = j->spec->n_sets;
	j->design.command = j->opts.command;
	j->design.kind = j->opts.kind;
	j->design.prunes = j->spec->prunes;
	j->design.n_prunes = j->spec->n_prunes;
}

/* The design's hash: its variables, its files' bytes (or why one cannot be read). */
static void design_hash(struct bjob *j)
{
	struct strbuf err = STRBUF_INIT;
	struct job_hash h;
	size_t i;

	job_hash_init(&h);
	for (i = 0; i < j->design.n_vars; i++)
		job_hash_str(&h, j->design.vars[i]);
	for (i = 0; i < j->spec->n_files; i++)
		if (job_hash_file(&h, j->spec->files[i], &err) < 0)
			job_hash_str(&h, err.buf);
	job_hash_hex(&h, j->design_hash);
	strbuf_release(&err);
}

/* The job's key: its name, design, command and options, overrides, layers. */
static void job_key(struct bjob *j)
{
	struct job_hash h;
	size_t i;

	job_hash_init(&h);
	job_hash_str(&h, j->is_network ? "network" : "job");
	job_hash_str(&h, j->spec->name);
	job_hash_str(&h, j->design_hash);
	job_hash_options(&h, &j->opts);
	for (i = 0; i < j->spec->n_sets; i++)
		job_hash_str(&h, j->spec->sets[i]);
	for (i = 0; i < j->spec->n_prunes; i++)    /* none: the keys of earlier runs stay */
		job_hash_str(&h, j->spec->prunes[i]);
	for (i = 0; i < j->plan.n_files; i++) {
		job_hash_str(&h, j->plan.names[i]);
		job_hash_str(&h, j->plan.hash[i]);
	}
	job_hash_hex(&h, j->key);
}

/* Set up job 'j' of the batch file. */
static void job_init(const struct job_batch *b, const atomic_int *stop,
		     const struct spec_batch_job *sj, struct bjob *j)
{
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;

	j->spec = sj;
	job_quiet_options(b->options, stop, &j->opts);
	if (job_command_parse(sj->command, &j->opts.command, &j->opts.kind) < 0)
		BUG("the batch file's command '%s' is no job command", sj->command);
	if (sj->has_seed) {
		j->opts.seed = sj->seed;
		j->opts.has_seed = true;
	}
	parse_sets(j);
	j->lo.require_mapping = !j->opts.kind && (j->opts.command == JOB_MODEL ||
			j->opts.command == JOB_EXEC || j->opts.command == JOB_VALIDATE);
	j->lo.allow_no_problem = j->opts.command == JOB_CHECK;
	j->lo.prunes = sj->prunes;
	j->lo.n_prunes = sj->n_prunes;
	j->vars = xcalloc(b->n_vars + sj->n_vars + 1, sizeof(*j->vars));
	for (i = 0; i < b->n_vars; i++)
		j->vars[j->design.n_vars++] = b->vars[i];
	for (i = 0; i < sj->n_vars; i++)
		j->vars[j->design.n_vars++] = sj->vars[i];
	j->design.vars = j->vars;
	design_hash(j);
	j->is_network = sj->n_layers > 0;
	if (j->is_network && job_net_plan_make(sj->layers, sj->n_layers, &j->plan, &dl) < 0) {
		job_diag_text(&dl, j->plan_error, sizeof(j->plan_error));
		job_net_plan_release(&j->plan);
	}
	j->n_tasks = j->is_network && !j->plan_error[0] ? j->plan.n_tasks : 1;
	if (sj->n_tags) {
		struct strbuf sb = STRBUF_INIT;
		for (i = 0; i < sj->n_tags; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", sj->tags[i]);
		j->tags = strbuf_detach(&sb, NULL);
	}
	job_key(j);
	diag_list_release(&dl);
}

static void job_release(struct bjob *j)
{
	size_t i;

	for (i = 0; i < j->spec->n_sets; i++)
		spec_override_release(&j->ovs[i]);
	free(j->ovs);
	free(j->vars);
	free(j->tags);
	job_net_plan_release(&j->plan);
}

/* True when the job runs its layers as tasks (a network whose layers could be read). */
static bool has_layers(const struct bjob *j)
{
	return j->is_network && !j->plan_error[0];
}

/* ------------------------------------------------------ runner callbacks */

static void b_key(void *arg, uint64_t i, char key[JOB_KEY_CHARS + 1])
{
	struct batch_ctx *c = arg;
	size_t sub;
	struct bjob *j = job_of(c, i, &sub);

	if (has_layers(j))
		job_net_row_key(j->key, &j->plan, job_net_plan_file(&j->plan, sub, 0), key);
	else
		memcpy(key, j->key, JOB_KEY_CHARS + 1);
}

static unsigned b_rows(void *arg, uint64_t i)
{
	struct batch_ctx *c = arg;
	size_t sub;
	struct bjob *j = job_of(c, i, &sub);
	return has_layers(j) ? j->plan.task_rows[sub] : 1;
}

static void b_describe(void *arg, uint64_t i, unsigned k, struct job_runner_row *row)
{
	struct batch_ctx *c = arg;
	size_t sub, o;
	struct bjob *j = job_of(c, i, &sub);

	row->command = job_options_command_name(&j->opts);
	row->design_hash = j->design_hash;
	row->tags = j->tags;
	for (o = 0; o < j->spec->n_sets; o++)
		strbuf_addf(&row->overrides, "%s%s", o ? "\n" : "", j->spec->sets[o]);
	if (has_layers(j)) {
		size_t f = job_net_plan_file(&j->plan, sub, k);
		job_net_row_key(j->key, &j->plan, f, row->key);
		row->idx = j->base_idx + 1 + f;
		row->kind = "layer";
		row->name = j->plan.names[f];
		row->parent = j->key;
		strbuf_addf(&row->overrides, "%slayer=%s", j->spec->n_sets ? "\n" : "",
			    j->plan.files[f]);
	} else {
		memcpy(row->key, j->key, JOB_KEY_CHARS + 1);
		row->idx = j->base_idx;
		row->kind = j->is_network ? "network" : "job";
		row->name = j->spec->name;
	}
}

/* A summary that says why job 'j' cannot run at all. */
static void failed(const struct bjob *j, const char *why, struct job_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->command = j->opts.command;
	sum->status = JOB_BAD_INPUT;
	snprintf(sum->error, sizeof(sum->error), "%s", why);
}

static bool b_run(void *arg, void *ws, uint64_t i, struct job_summary *sum)
{
	struct batch_ctx *c = arg;
	size_t sub;
	struct bjob *j = job_of(c, i, &sub);

	if (j->ov_error[0]) {
		failed(j, j->ov_error, sum);
		return true;
	}
	if (j->plan_error[0]) {
		failed(j, j->plan_error, sum);
		return true;
	}
	return job_net_run_layer(&j->design,
			     has_layers(j) ? j->plan.files[j->plan.task_file[sub]] : NULL,
			     &j->lo, &j->opts, c->stop, sum);
}

/* ------------------------------------------------------- after the run */

/* Rows of every network job whose layers are all in the results 't': its totals. */
static int network_rows(struct batch_ctx *c, const struct table *t, const struct job_runner *rn,
			struct strbuf *err)
{
	long kc = table_col(t, "key");
	struct store *st = NULL;
	size_t jn, r, f;
	int rc = 0;

	for (jn = 0; jn < c->n_jobs && rc == 0; jn++) {
		struct bjob *j = &c->jobs[jn];
		struct job_summary **sums, total;
		const char **names;
		struct store_level lv[JOB_MAX_PARTS];
		struct store_value values[JOB_METRIC_COUNT];
		struct store_row row;
		size_t n_found = 0;
		unsigned l;

		if (!has_layers(j))
			continue;
		sums = xcalloc(j->plan.n_files + 1, sizeof(*sums));
		names = xcalloc(j->plan.n_files + 1, sizeof(*names));
		for (f = 0; f < j->plan.n_files; f++) {
			char key[JOB_KEY_CHARS + 1];
			job_net_row_key(j->key, &j->plan, f, key);
			names[f] = j->plan.names[f];
			for (r = 0; r < t->n_rows && !sums[f]; r++) {
				const char *k = table_get(t, r, (size_t)kc).text;
				if (k && !strcmp(k, key)) {
					sums[f] = xmalloc(sizeof(**sums));
					job_net_summary_of_row(t, r, sums[f]);
					n_found++;
				}
			}
		}
		if (n_found == j->plan.n_files) {
			struct store_run_def def = {
				.key = c->run_key, .kind = "batch", .definition = rn->definition ?
				rn->definition : "", .n_points = c->n_tasks,
			};
			job_net_total((const struct job_summary *const *)sums, names, j->plan.n_files,
				  &total);
			memset(&row, 0, sizeof(row));
			row.key = j->key;
			row.idx = j->base_idx;
			row.kind = "network";
			row.name = j->spec->name;
			row.tags = j->tags;
			row.command = "map";
			row.design_hash = j->design_hash;
			row.overrides = "";
			row.status = job_status_name(total.status);
			row.error = total.status != JOB_OK ? total.error : NULL;
			job_store_values(&total, values);
			row.metrics = values;
			row.mapping = total.mapping;
			row.n_levels = total.status == JOB_OK ? total.n_levels : 0;
			for (l = 0; l < row.n_levels; l++)
				lv[l] = (struct store_level){ job_summary_level_name(&total, l),
							      total.level_energy_pj[l] };
			row.levels = lv;
			if (!st && (!(st = store_open(rn->db_path, STORE_WRITE, job_store_schema(),
						      err)) ||
				    store_begin_run(st, &def, err) < 0))
				rc = -1;
			if (rc == 0 && store_put(st, &row, 1, err) < 0)
				rc = -1;
		}
		for (f = 0; f < j->plan.n_files; f++)
			free(sums[f]);
		free(sums);
		free(names);
	}
	store_close(st);
	return rc;
}

/* A job's row in the ranking: its results row, its value of the metric. */
struct ranked {
	size_t row;
	int group;                     /* 0: ranked; 1: failed, or without the metric */
	double v;
	uint64_t idx;
};

/* Ranked by 'better' (lower or higher first), then by index. */
static int cmp_lower(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->group != y->group)
		return x->group - y->group;
	if (x->group == 0 && x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_higher(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->group == 0 && y->group == 0 && x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return cmp_lower(a, b);
}

/* The columns of the ranking: the main ones, then the other metrics some row has. */
static size_t ranking_columns(const struct table *t, const char **cols)
{
	static const char *const head[] = {
		"name", "kind", "command", "status", "energy_pj", "cycles", "edp_j_cycles",
		"utilization",
	};
	size_t n = 0, i;
	int m;

	for (i = 0; i < ARRAY_SIZE(head); i++)
		cols[n++] = head[i];
	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		if (!(d->flags & (JOB_METRIC_CORE | JOB_METRIC_PER_LEVEL)) && table_col(t, d->name) >= 0)
			cols[n++] = d->name;
	}
	cols[n++] = "tags";
	cols[n++] = "error";
	return n;
}

/*
 * The jobs' rows of 't', ranked by the metric, as the table 'out': those
 * with a value first, then in index order those without a rank: failed
 * jobs, checks, and jobs whose kind does not provide the metric (a note in
 * 'notes' names these).
 */
static void ranking(const struct batch_ctx *c, const struct table *t, enum job_metric_id metric,
		    struct table *out, struct strbuf *notes)
{
	const struct job_metric *d = job_metric_get(metric);
	const char *cols[8 + JOB_METRIC_COUNT + 2];
	struct ranked *rk = xcalloc(c->n_jobs + 1, sizeof(*rk));
	long kc = table_col(t, "key"), sc = table_col(t, "status"), mc = table_col(t, d->name);
	struct strbuf unranked = STRBUF_INIT;
	size_t n = 0, n_cols = ranking_columns(t, cols), n_unranked = 0, jn, r, i;

	for (jn = 0; jn < c->n_jobs; jn++)
		for (r = 0; r < t->n_rows; r++) {
			const char *k = table_get(t, r, (size_t)kc).text;
			const char *s = table_get(t, r, (size_t)sc).text;
			const char *v = mc >= 0 ? table_get(t, r, (size_t)mc).text : NULL;
			bool ok = s && !strcmp(s, "ok");
			if (!k || strcmp(k, c->jobs[jn].key))
				continue;
			rk[n].row = r;
			rk[n].group = ok && v ? 0 : 1;
			rk[n].v = v ? strtod(v, NULL) : 0;
			rk[n].idx = c->jobs[jn].base_idx;
			if (ok && !v && c->jobs[jn].opts.command != JOB_CHECK)
				strbuf_addf(&unranked, "%s'%s'", n_unranked++ ? ", " : "",
					    c->jobs[jn].spec->name);
			n++;
			break;
		}
	qsort(rk, n, sizeof(*rk), d->better == JOB_BETTER_HIGHER ? cmp_higher : cmp_lower);
	if (n_unranked)
		strbuf_addf(notes, "%zu job%s not ranked: %s give%s no %s\n", n_unranked,
			    n_unranked == 1 ? "" : "s", unranked.buf, n_unranked == 1 ? "s" : "",
			    d->name);
	table_add_col(out, "rank");
	for (i = 0; i < n_cols; i++)
		table_add_col(out, cols[i]);
	for (i = 0; i < n; i++) {
		char buf[24];
		size_t k;
		table_add_row(out);
		snprintf(buf, sizeof(buf), "%zu", i + 1);
		table_set(out, i, 0, TABLE_INT, rk[i].group == 0 ? buf : NULL);
		for (k = 0; k < n_cols; k++) {
			long col = table_col(t, cols[k]);
			struct table_cell x = table_get(t, rk[i].row, (size_t)col);
			table_set(out, i, k + 1, x.type, x.text);
		}
	}
	strbuf_release(&unranked);
	free(rk);
}

/* ----------------------------------------------------------------- run */

/* Set up every job, the tasks and the run's key. */
static void batch_init(const struct job_batch *b, const atomic_int *stop, struct batch_ctx *c)
{
	struct job_hash h;
	uint64_t task = 0, idx = 0;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->b = b;
	c->stop = stop;
	c->n_jobs = b->batch->n_jobs;
	c->jobs = xcalloc(c->n_jobs + 1, sizeof(*c->jobs));
	job_hash_init(&h);
	job_hash_str(&h, "batch");
	for (i = 0; i < c->n_jobs; i++) {
		struct bjob *j = &c->jobs[i];
		job_init(b, stop, &b->batch->jobs[i], j);
		j->first_task = task;
		j->base_idx = idx;
		task += j->n_tasks;
		idx += 1 + (has_layers(j) ? j->plan.n_files : 0);
		job_hash_str(&h, j->key);
	}
	c->n_tasks = task;
	job_hash_hex(&h, c->run_key);
}

int job_batch_run(const struct job_batch *b, const struct job_runner *rn,
		  enum job_metric_id metric, struct table *out, struct strbuf *notes,
		  struct job_run_result *res)
{
	struct batch_ctx c;
	struct job_runner_jobs jobs;
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct energy_cache *cache = energy_cache_new();   /* shared by jobs of one design */
	size_t i;
	int rc;

	batch_init(b, rn->stop, &c);
	for (i = 0; i < c.n_jobs; i++)
		if (!c.jobs[i].opts.energy_cache)
			c.jobs[i].opts.energy_cache = cache;
	jobs = (struct job_runner_jobs){
		.n = c.n_tasks, .ctx = &c, .kind = "batch", .run_key = c.run_key,
		.key = b_key, .n_rows = b_rows, .describe = b_describe, .run = b_run,
	};
	rc = job_runner_go(&jobs, rn, res);
	if (rc == 0 && job_rank() == 0 && rn->db_path) {
		if (job_results_query(rn->db_path, NULL, 0, &t, &err) < 0 ||
		    network_rows(&c, &t, rn, &err) < 0) {
			rc = -1;
		} else {
			table_release(&t);
			if (job_results_query(rn->db_path, NULL, 0, &t, &err) < 0)
				rc = -1;
			else
				ranking(&c, &t, metric, out, notes);
		}
		if (rc < 0)
			snprintf(res->error, sizeof(res->error), "%s", err.buf);
	}
	for (i = 0; i < c.n_jobs; i++)
		job_release(&c.jobs[i]);
	free(c.jobs);
	energy_cache_free(cache);
	table_release(&t);
	strbuf_release(&err);
	return rc;
}
