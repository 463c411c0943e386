/*
 * Rows as they are streamed while a run goes (CSV or JSON lines, in the
 * order jobs finish): the job's index, name and inputs, its status, its
 * streamed metrics (job/metric.c) and its error. The database holds the
 * same rows in index order.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/kind_int.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/table.h"

uint64_t job_stream_mask(const char *kind, const struct job_options *o)
{
	const struct job_kind *k = job_kind_find(kind);
	const struct job_metric_set *const *set;
	uint64_t mask = 0;
	size_t i;
	int m;

	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		if ((d->flags & JOB_METRIC_CORE) && (d->flags & JOB_METRIC_STREAM))
			mask |= UINT64_C(1) << m;
	}
	for (set = k ? k->metrics : NULL; set && *set; set++) {
		if (!((*set)->commands & JOB_COMMAND_BIT(o->command)) ||
		    ((*set)->roofline && !o->roofline))
			continue;
		for (i = 0; i < (*set)->n_gets; i++)
			if (job_metric_get((*set)->gets[i].id)->flags & JOB_METRIC_STREAM)
				mask |= UINT64_C(1) << (*set)->gets[i].id;
	}
	return mask;
}

void job_row_csv_header(const struct job_row *r, struct strbuf *sb)
{
	size_t i;
	int m;

	strbuf_addstr(sb, "idx,kind,name");
	for (i = 0; i < r->n_inputs; i++) {
		strbuf_addch(sb, ',');
		table_csv_field(sb, r->input_names[i]);
	}
	strbuf_addstr(sb, ",status");
	for (m = 0; m < JOB_METRIC_COUNT; m++)
		if (r->metrics >> m & 1)
			strbuf_addf(sb, ",%s", job_metric_get((enum job_metric_id)m)->name);
	strbuf_addstr(sb, ",error\n");
}

/* A metric of 's' as a CSV field, or JSON member (nothing when it has none). */
static void csv_value(const struct job_summary *s, enum job_metric_id m, struct strbuf *sb)
{
	char buf[40];

	if (!job_summary_has(s, m))
		return;
	switch (job_metric_get(m)->type) {
	case JOB_VALUE_REAL:
		table_format_real(s->value[m].real, buf, sizeof(buf));
		strbuf_addstr(sb, buf);
		break;
	case JOB_VALUE_COUNT:
		strbuf_addf(sb, "%llu", (unsigned long long)s->value[m].count);
		break;
	case JOB_VALUE_TEXT:
		table_csv_field(sb, job_summary_text(s, m));
		break;
	}
}

void job_row_csv_metrics(const struct job_summary *s, uint64_t mask, struct strbuf *sb)
{
	bool ok = s->status == JOB_OK && s->command != JOB_CHECK;
	int m;

	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		if (!(mask >> m & 1))
			continue;
		strbuf_addch(sb, ',');
		if (ok)
			csv_value(s, (enum job_metric_id)m, sb);
	}
}

void job_row_json_metrics(const struct job_summary *s, uint64_t mask, struct json_writer *w)
{
	const char *level = job_metric_get(JOB_METRIC_LEVEL_ENERGY_PJ)->name;
	struct strbuf key = STRBUF_INIT;
	unsigned l;
	int m;

	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		const struct job_metric *d = job_metric_get((enum job_metric_id)m);
		if (!(mask >> m & 1) || !job_summary_has(s, (enum job_metric_id)m))
			continue;
		if (d->type == JOB_VALUE_REAL)
			json_double(w, d->name, s->value[m].real);
		else if (d->type == JOB_VALUE_COUNT)
			json_u64(w, d->name, s->value[m].count);
		else
			json_str(w, d->name, job_summary_text(s, (enum job_metric_id)m));
	}
	for (l = s->n_levels; l-- > 0;) {
		strbuf_reset(&key);
		strbuf_addf(&key, "%s.%s", level, job_summary_level_name(s, l));
		json_double(w, key.buf, s->level_energy_pj[l]);
	}
	strbuf_release(&key);
}

void job_row_csv(const struct job_row *r, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "%llu,%s,", (unsigned long long)r->idx, r->kind);
	table_csv_field(sb, r->name);
	for (i = 0; i < r->n_inputs; i++) {
		strbuf_addch(sb, ',');
		table_csv_field(sb, r->input_values[i]);
	}
	strbuf_addf(sb, ",%s", job_status_name(r->sum->status));
	job_row_csv_metrics(r->sum, r->metrics, sb);
	strbuf_addch(sb, ',');
	table_csv_field(sb, r->sum->status != JOB_OK ? r->sum->error : NULL);
	strbuf_addch(sb, '\n');
}

void job_row_jsonl(const struct job_row *r, struct strbuf *sb)
{
	const struct job_summary *s = r->sum;
	struct json_writer w;
	size_t i;

	json_init(&w, sb, JSON_COMPACT);
	json_open(&w, NULL, '{');
	json_u64(&w, "idx", r->idx);
	json_str(&w, "kind", r->kind);
	json_str(&w, "name", r->name);
	json_open(&w, "inputs", '{');
	for (i = 0; i < r->n_inputs; i++)
		json_str(&w, r->input_names[i], r->input_values[i]);
	json_close(&w, '}');
	json_str(&w, "status", job_status_name(s->status));
	if (s->status == JOB_OK && s->command != JOB_CHECK) {
		job_row_json_metrics(s, r->metrics, &w);
		if (s->mapping[0])
			json_str(&w, "mapping", s->mapping);
	} else {
		json_str(&w, "error", s->error);
	}
	json_str(&w, "key", r->key);
	json_close(&w, '}');
	strbuf_addch(sb, '\n');
}
