/*
 * Rows as they are streamed while a run goes (CSV or JSON lines, in the
 * order jobs finish): the job's index, name and inputs, its status, its
 * metrics and its error. The database holds the same rows in index order.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/strbuf.h"
#include "util/table.h"

void job_row_csv_header(const struct job_row *r, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "idx,kind,name");
	for (i = 0; i < r->n_inputs; i++) {
		strbuf_addch(sb, ',');
		table_csv_field(sb, r->input_names[i]);
	}
	strbuf_addstr(sb, ",status,energy_pj,cycles,edp_j_cycles,utilization,"
		      "algorithmic_computes,actual_computes,pj_per_compute,error\n");
}

/* The metrics of 's' as CSV fields (empty when it did not succeed). */
static void csv_metrics(const struct job_summary *s, struct strbuf *sb)
{
	char e[40], edp[40], u[40], pj[40];

	if (s->status != JOB_OK || s->command == JOB_CHECK) {
		strbuf_addstr(sb, ",,,,,,,");
		return;
	}
	table_format_real(s->energy_pj, e, sizeof(e));
	table_format_real(s->edp_j_cycles, edp, sizeof(edp));
	table_format_real(s->utilization, u, sizeof(u));
	table_format_real(s->pj_per_compute, pj, sizeof(pj));
	strbuf_addf(sb, ",%s,%llu,%s,%s,%llu,%llu,%s", e, (unsigned long long)s->cycles, edp, u,
		    (unsigned long long)s->algorithmic_computes,
		    (unsigned long long)s->actual_computes, pj);
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
	csv_metrics(r->sum, sb);
	strbuf_addch(sb, ',');
	table_csv_field(sb, r->sum->status != JOB_OK ? r->sum->error : NULL);
	strbuf_addch(sb, '\n');
}

void job_row_jsonl(const struct job_row *r, struct strbuf *sb)
{
	const struct job_summary *s = r->sum;
	struct json_writer w;
	size_t i;
	unsigned l;

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
		json_double(&w, "energy_pj", s->energy_pj);
		json_u64(&w, "cycles", s->cycles);
		json_double(&w, "edp_j_cycles", s->edp_j_cycles);
		json_double(&w, "utilization", s->utilization);
		json_u64(&w, "algorithmic_computes", s->algorithmic_computes);
		json_u64(&w, "actual_computes", s->actual_computes);
		json_double(&w, "pj_per_compute", s->pj_per_compute);
		json_open(&w, "level_energy_pj", '{');
		for (l = s->n_levels; l-- > 0;)
			json_double(&w, s->level_names[l], s->level_energy_pj[l]);
		json_close(&w, '}');
		if (s->mapping[0])
			json_str(&w, "mapping", s->mapping);
	} else {
		json_str(&w, "error", s->error);
	}
	json_str(&w, "key", r->key);
	json_close(&w, '}');
	strbuf_addch(sb, '\n');
}
