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

/*
 * report_json() with a "roofline" object after "networks": the figures of
 * report_roofline() (docs/json-schema.md).
 */
void report_json_roofline(const struct spec_set *s, const struct spec_mapping *m,
			  const struct model_result *r, const char *const *files, size_t n_files,
			  struct strbuf *out);

/*
 * The roofline view (docs/model.md, "Roofline"): the compute cycles (per
 * wave and waves), and per storage level, outermost first, the bytes it
 * moves over all its instances, computes per byte, its bandwidths, the
 * cycles its words need at them, the cycles its tile fills wait
 * (fill_latency), its cycles and what limits it; then the level (or the
 * compute) that bounds the run. 'r' must be an EVAL_OK result.
 */
void report_roofline(const struct spec_set *s, const struct model_result *r,
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

#endif
