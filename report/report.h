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

#include <stdbool.h>
#include <stddef.h>

/* The results and specs are only borrowed: their headers are the writers' business. */
struct accel_ipu_result;
struct accel_stpu_result;
struct exec_ipu_result;
struct exec_options;
struct exec_result;
struct exec_ragged_result;
struct model_ragged_result;
struct exec_stpu_result;
struct model_result;
struct spec_mapping;
struct spec_set;
struct spec_stpu;
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

/*
 * The per-call view (docs/model.md, "Per call"): when the design has a
 * 'per_call' key, what a call costs beyond the kernel, device and host;
 * nothing without one. 'r' must be an EVAL_OK result.
 */
void report_per_call(const struct spec_set *s, const struct model_result *r,
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

/* The line "Files: A B ..." that 'fiberloop check' starts with. */
void report_design_files(const struct spec_set *s, struct strbuf *out);

/*
 * A Timeloop design as parsed ('fiberloop check'): levels outermost first,
 * the compute unit, the workload, the mapping as a loop nest, the sparse
 * optimizations, mapper settings and constraints, as text.
 */
void report_design_text(const struct spec_set *s, struct strbuf *out);

/* The same as one line of JSON (compact), ending in a newline. */
void report_design_json(const struct spec_set *s, struct strbuf *out);

/*
 * What bounds the run 'r' (report_roofline()'s last line): "compute", or
 * the level with its limit ("DRAM bandwidth", "GLB latency").
 */
void report_roofline_bound(const struct spec_set *s, const struct model_result *r,
			   struct strbuf *out);

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

/* The energy sources of the run: "ERT", "estimate", "preset <name>", "ERT + estimate", ... */
void report_energy_source(const struct model_result *r, struct strbuf *out);

/*
 * Where each component's energies came from, the first line of a report:
 * each source followed by the components it prices, outermost level first
 * ("estimate: DRAM GLB RF mac" or "ERT: DRAM; estimate: GLB RF mac").
 */
void report_energy_source_by_level(const struct spec_set *s, const struct model_result *r,
				   struct strbuf *out);

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
	const char *level_metric;      /* the level columns are LEVEL_METRIC.NAME ("energy_pj") */
	const char *xlabel;            /* the x axis's label, with its unit (default: x) */
	const char *const *ylabels;    /* each panel's y label (default: its column) */
	const bool *higher;            /* per y: higher is better (the speedup's direction) */
	const char *baseline;          /* a series (or an x category): y becomes its y / y */
};

/* The prefix of the per-tensor energy columns after LEVEL_METRIC: "energy_pj.tensor.W". */
#define REPORT_TENSOR_PREFIX "tensor."

/*
 * The roofline of 'r' as a gnuplot script (an SVG on its standard output):
 * x the computes per byte each level moves, y computes per cycle, the
 * compute roof and each level's bandwidth roof, the run at each level.
 */
void report_roofline_gnuplot(const struct spec_set *s, const struct model_result *r,
			     struct strbuf *out);

/* The energy of tensor 'pv' over all levels of 'r' (pJ). */
double report_tensor_energy(const struct model_result *r, unsigned pv);

/*
 * The gnuplot script that draws 'p' from 't' (its data inline) as an SVG
 * or PNG on gnuplot's standard output, into 'out': lines (a numeric x),
 * clustered bars from 0 (a text x: categories, never joined), the stacked
 * energy per level ({"levels"}) or per tensor ({"tensors"}), each series in
 * its own colour of a colour-blind-safe palette (Paul Tol's 'muted', then
 * dashed), a title, labelled axes (large or small numbers with SI
 * prefixes), and with 'baseline' the speedup over a series or category.
 * Returns 0, or -1 with 'err' filled (a column that the table lacks, with
 * a hint; a baseline that is neither a series nor a category).
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
/* -------------------------------------------------------------- STPU */

/* Version of the JSON document written by report_stpu_json(). */
#define REPORT_STPU_JSON_VERSION 1

/* The STPU design as parsed (for 'fiberloop check'). */
void report_stpu_spec(const struct spec_stpu *st, struct strbuf *out);

/* The STPU design of 's' as parsed, as text and as one line of JSON ('fiberloop check'). */
void report_stpu_design_text(const struct spec_set *s, struct strbuf *out);
void report_stpu_design_json(const struct spec_set *s, struct strbuf *out);

/*
 * The human summary of an STPU run: the matrix, the array, the energy
 * table, then one column per scheme (TPU, STPU-C0, STPU-C1, KMZ): packing,
 * the density-aware estimate, cycles, events and energy, and the ratios to
 * the TPU.
 */
void report_stpu_text(const struct accel_stpu_result *r, struct strbuf *out);

/*
 * The model-versus-simulation table of an STPU run: for every scheme run by
 * both ('sim[k]' for scheme k; 'ran[k]' says whether it was simulated), each
 * count of the model beside the simulation's, and the numeric check.
 * Returns the number of differences (counts that differ, wrong outputs,
 * scheduling conflicts).
 */
unsigned report_stpu_validation(const struct accel_stpu_result *r,
				const struct exec_stpu_result *sim, const bool *ran,
				struct strbuf *out);

/*
 * The cycle-level simulation of every scheme 'ran' (sim[k] for scheme k):
 * cycles, events and the numeric check against the dense product.
 */
void report_stpu_sim_text(const struct exec_stpu_result *sim, const bool *ran,
			  struct strbuf *out);

/*
 * The JSON document of an STPU run (version REPORT_STPU_JSON_VERSION); 'sim'
 * and 'ran' may be NULL (no simulation). 'files' names the inputs.
 */
void report_stpu_json(const struct accel_stpu_result *r, const struct exec_stpu_result *sim,
		      const bool *ran, const char *const *files, size_t n_files,
		      struct strbuf *out);

/* The CSV header of report_stpu_csv_row(). */
void report_stpu_csv_header(struct strbuf *out);

/* One CSV row: the design, then per scheme efficiency, cycles, energy and ratios. */
void report_stpu_csv_row(const struct accel_stpu_result *r, struct strbuf *out);
/* ------------------------------------------------------------ IPU (accel/) */

/*
 * The human summary of an IPU evaluation: device and layer, plan, buckets,
 * memory per tile, the partitioner, each pass's planner estimate, realized
 * phases, steps and dense speedup. 'r' must be a result of 's'.
 */
void report_ipu_text(const struct spec_set *s, const struct accel_ipu_result *r,
		     struct strbuf *out);

/* The IPU design of 's' as parsed, as text and as one line of JSON ('fiberloop check'). */
void report_ipu_design_text(const struct spec_set *s, struct strbuf *out);
void report_ipu_design_json(const struct spec_set *s, struct strbuf *out);

/* The JSON document of an IPU evaluation ('files' names the inputs). */
void report_ipu_json(const struct spec_set *s, const struct accel_ipu_result *r,
		     const char *const *files, size_t n_files, struct strbuf *out);

/* The CSV header and one data row of an IPU evaluation (fixed columns). */
void report_ipu_csv_header(struct strbuf *out);
void report_ipu_csv_row(const struct spec_set *s, const struct accel_ipu_result *r,
			struct strbuf *out);

/*
 * The model against 'n' executor runs on the model's plan: exact steps and
 * partitioner figures on actual data, else the model's expected steps
 * against the runs' mean (within 3 standard errors); numbers checked.
 * Returns 0 when they agree, -1 otherwise (the text says where).
 */
int report_ipu_exec_text(const struct spec_set *s, const struct accel_ipu_result *r,
			 const struct exec_ipu_result *er, unsigned n, struct strbuf *out);

/*
 * The summary of a ragged workload's totals over its parent's coordinates
 * (the ragged dimensions, computes, cycles and energy, and the reads, fills
 * and updates of every kept tensor at every level over its instances).
 */
void report_ragged_model(const struct spec_set *s, const struct model_ragged_result *r,
			 struct strbuf *sb);
void report_ragged_exec(const struct spec_set *s, const struct exec_ragged_result *r,
			struct strbuf *sb);

#endif
