/*
 * Reading the results database for 'fiberloop results' and 'fiberloop
 * plot' (cli/ does not see store/): filters "COLUMN OP VALUE" parsed, the
 * rows queried as a typed table, and the columns a text table shows.
 */
#include "job/job_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* --------------------------------------------- the database's metric columns */

_Static_assert(JOB_METRIC_LEVEL_ENERGY_PJ == JOB_METRIC_COUNT - 1,
	       "the per-level metric is the last: the others are the database's columns in order");
#define N_COLUMNS (JOB_METRIC_COUNT - 1)

static struct store_metric columns[N_COLUMNS];
static struct store_schema schema;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void make_schema(void)
{
	static const enum store_type types[] = {
		[JOB_VALUE_REAL] = STORE_REAL, [JOB_VALUE_COUNT] = STORE_INTEGER,
		[JOB_VALUE_TEXT] = STORE_TEXT,
	};
	size_t m;

	for (m = 0; m < N_COLUMNS; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		columns[m] = (struct store_metric){ d->name, types[d->type],
						    (d->flags & JOB_METRIC_CORE) != 0 };
	}
	schema = (struct store_schema){ columns, N_COLUMNS,
					job_metric_get(JOB_METRIC_LEVEL_ENERGY_PJ)->name };
}

const struct store_schema *job_store_schema(void)
{
	pthread_once(&schema_once, make_schema);
	return &schema;
}

void job_store_values(const struct job_summary *s, struct store_value *v)
{
	bool ok = s->status == JOB_OK && s->command != JOB_CHECK;
	size_t m;

	for (m = 0; m < N_COLUMNS; m++) {
		enum job_metric_id id = (enum job_metric_id)m;
		v[m] = (struct store_value){ !ok || !job_summary_has(s, id), 0, 0, NULL };
		if (v[m].is_null)
			continue;
		switch (job_metric_get(id)->type) {
		case JOB_VALUE_REAL:
			v[m].real = s->value[m].real;
			break;
		case JOB_VALUE_COUNT:
			v[m].integer = s->value[m].count;
			break;
		case JOB_VALUE_TEXT:
			v[m].text = job_summary_text(s, id);
			break;
		}
	}
}

/* Operators, longest first so that "<=" is not read as "<". */
static const struct {
	const char *text;
	enum store_op op;
} ops[] = {
	{ "<=", STORE_LE }, { ">=", STORE_GE }, { "!=", STORE_NE }, { "=", STORE_EQ },
	{ "<", STORE_LT }, { ">", STORE_GT }, { "~", STORE_LIKE },
};

/* A copy of s[0..n) without blanks at either end. */
static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/*
 * Parse "COLUMN OP VALUE" (the first operator outside brackets) into 'c' (strings owned, freed with
 * free()). Returns 0, or -1 with 'err' filled.
 */
static int parse_cond(const char *text, struct store_cond *c, struct strbuf *err)
{
	size_t i, k;
	int depth = 0;

	for (i = 0; text[i]; i++) {
		if (text[i] == '[')
			depth++;
		else if (text[i] == ']' && depth > 0)
			depth--;
		if (depth)
			continue;
		for (k = 0; k < ARRAY_SIZE(ops); k++) {
			size_t n = strlen(ops[k].text);
			if (strncmp(text + i, ops[k].text, n))
				continue;
			c->column = trimmed(text, i);
			c->op = ops[k].op;
			c->value = trimmed(text + i + n, strlen(text + i + n));
			if (!*c->column) {
				strbuf_addf(err, "'--where %s': no column before '%s'", text,
					    ops[k].text);
				return -1;
			}
			return 0;
		}
	}
	strbuf_addf(err, "'--where %s': expected COLUMN OP VALUE with OP one of "
		    "= != < <= > >= ~", text);
	return -1;
}

int job_results_query(const char *db, const char *const *wheres, size_t n_wheres,
		      struct table *out, struct strbuf *err)
{
	struct store_cond *w = xcalloc(n_wheres + 1, sizeof(*w));
	struct store *st = NULL;
	size_t i, n = 0;
	int rc = -1;

	for (i = 0; i < n_wheres; i++, n++)
		if (parse_cond(wheres[i], &w[i], err) < 0)
			goto out;
	st = store_open(db, STORE_READ, job_store_schema(), err);
	if (st)
		rc = store_query(st, w, n, out, err);
out:
	for (i = 0; i < n_wheres; i++) {
		free((char *)w[i].column);
		free((char *)w[i].value);
	}
	free(w);
	store_close(st);
	return rc;
}

size_t job_results_brief(const struct table *t, size_t *cols)
{
	long name = table_col(t, "name"), status = table_col(t, "status");
	static const char *const main_metrics[] = { "energy_pj", "cycles", "edp_j_cycles" };
	size_t n = 0, c, i;
	int m;

	cols[n++] = (size_t)table_col(t, "idx");
	if (name < 0 || status < 0)
		BUG("a results table without 'name' or 'status'");
	for (c = (size_t)name; c <= (size_t)status; c++)
		cols[n++] = c;
	for (i = 0; i < ARRAY_SIZE(main_metrics); i++)
		if (table_col(t, main_metrics[i]) >= 0)
			cols[n++] = (size_t)table_col(t, main_metrics[i]);
	for (m = 0; m < JOB_METRIC_COUNT; m++) {   /* the metrics of the other kinds of design */
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		if (!(d->flags & (JOB_METRIC_CORE | JOB_METRIC_PER_LEVEL)) &&
		    table_col(t, d->name) >= 0)
			cols[n++] = (size_t)table_col(t, d->name);
	}
	if (table_col(t, "error") >= 0)
		cols[n++] = (size_t)table_col(t, "error");
	return n;
}
