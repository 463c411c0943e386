/*
 * Writers for results: the model's in Timeloop's stats.txt and map.txt
 * layouts (so scripts written for Timeloop keep working), a versioned JSON
 * document (docs/json-schema.md), CSV rows and the human summary of
 * 'fiberloop model'; the executor's counts in the same layouts; the parsed
 * design of 'fiberloop check'.
 *
 * Every writer appends to a caller-owned strbuf and never prints; the
 * results and specs are borrowed. Numbers follow Timeloop's formatting:
 * doubles with two decimals, integers as is, unspecified attributes as '-'.
 */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#include "model/model.h"

struct exec_options;
struct exec_result;

struct strbuf;
struct table;

/* Version of the JSON document written by report_json(). */
#define REPORT_JSON_VERSION 1

/*
 * Timeloop's stats.txt (semantics 6.2): the dense layout, or the "sparse
 * module" layout when the design has sparse_optimizations. 'r' must be an
 * EVAL_OK result of 's'.
 */
void report_stats_txt(const struct spec_set *s, const struct model_result *r,
		      struct strbuf *out);

/* Timeloop's map.txt (semantics 6.3) for mapping 'm' evaluated into 'r'. */
void report_map_txt(const struct spec_set *s, const struct spec_mapping *m,
		    const struct model_result *r, struct strbuf *out);

/*
 * The JSON document (schema docs/json-schema.json, version
 * REPORT_JSON_VERSION). 'r' may be infeasible: then only the status part is
 * written. 'files' names the inputs (may be NULL when n_files is 0).
 */
void report_json(const struct spec_set *s, const struct spec_mapping *m,
		 const struct model_result *r, const char *const *files, size_t n_files,
		 struct strbuf *out);

/* The CSV header row for 's' (column names depend on its level names). */
void report_csv_header(const struct spec_set *s, struct strbuf *out);

/* One CSV data row matching report_csv_header(). */
void report_csv_row(const struct spec_set *s, const struct model_result *r,
		    struct strbuf *out);

/*
 * The human summary: total energy with a per-level and per-tensor
 * breakdown, cycles, utilization, computes, pJ/compute, EDP and the energy
 * source.
 */
void report_summary(const struct spec_set *s, const struct model_result *r,
		    struct strbuf *out);

/*
 * The design as parsed ('fiberloop check'): levels outermost first, the
 * compute unit, the workload, the mapping as a loop nest, the sparse
 * optimizations, mapper settings and constraints, as text.
 */
void report_design_text(const struct spec_set *s, struct strbuf *out);

/* The same as one line of JSON (compact), ending in a newline. */
void report_design_json(const struct spec_set *s, struct strbuf *out);

/*
 * The executor's counts in Timeloop's stats.txt layout (dense or sparse
 * labels, as the design asks; per-instance values rounded as Timeloop
 * prints them).
 */
void report_exec_stats(const struct spec_set *s, const struct exec_result *r,
		       struct strbuf *out);

/* The executor's JSON document: every count (totals over instances) and the options used. */
void report_exec_json(const struct spec_set *s, const struct exec_result *r,
		      const struct exec_options *opt, struct strbuf *out);

/* A short table for the terminal: per level and tensor, per-instance reads, fills, updates. */
void report_exec_summary(const struct spec_set *s, const struct exec_result *r,
			 const struct exec_options *opt, struct strbuf *out);

/* Name of the energy source of the run: "ERT", "preset <name>", "ERT + preset <name>". */
void report_energy_source(const struct model_result *r, struct strbuf *out);

/* ------------------------------------------------------ plots (plot.c) */

enum report_image { REPORT_IMAGE_SVG, REPORT_IMAGE_PNG };

#define REPORT_LOG_X 1u
#define REPORT_LOG_Y 2u

/* A plot of a results table. */
struct report_plot {
	const char *x;                 /* the column on the x axis */
	const char *const *ys;         /* a panel per y column; {"levels"}: level energy bars */
	size_t n_ys;
	const char *const *series;     /* one line per combination of their values */
	size_t n_series;
	unsigned logscale;             /* REPORT_LOG_* */
	const char *title;             /* may be NULL */
	enum report_image image;
};

/*
 * The gnuplot script that draws 'p' from 't' (its data inline) as an SVG
 * or PNG on gnuplot's standard output, into 'out'. Returns 0, or -1 with
 * 'err' filled (a column that the table lacks, with a hint).
 */
int report_plot_gnuplot(const struct table *t, const struct report_plot *p, struct strbuf *out,
			struct strbuf *err);

/* ---------------------------------------------- tables of results (table.c) */

/*
 * The columns cols[0..n_cols) of 't' (all when 'cols' is NULL) as CSV: a
 * header of column names, then a line per row (nulls empty; a field with a
 * comma, a quote or a line break quoted, RFC 4180).
 */
void report_table_csv(const struct table *t, const size_t *cols, size_t n_cols,
		      struct strbuf *out);

/*
 * The columns cols[0..n_cols) of 't' (all when NULL) as a JSON array of
 * one object per row, each on a line (numbers as numbers, nulls as null).
 */
void report_table_json(const struct table *t, const size_t *cols, size_t n_cols,
		       struct strbuf *out);

/*
 * 't' as an aligned text table of the columns cols[0..n_cols) (all when
 * 'cols' is NULL), leaving out those that hold only nulls; long or
 * multi-line text is shortened to one line.
 */
void report_table_text(const struct table *t, const size_t *cols, size_t n_cols,
		       struct strbuf *out);

#endif
