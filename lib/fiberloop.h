/*
 * libfiberloop: fiberloop from C programs (docs/library.md).
 *
 * Load a design from YAML files or from memory, override values, run it
 * with a command (model, map, exec, validate, check, or an accelerator
 * kind's own command: ipu, stpu), and read the result: the metrics of the
 * metric vocabulary (the columns of 'fiberloop results'; 'fiberloop help
 * metrics'), the energy per level, the mapping, and the JSON document the
 * command line prints with --format json (per level and per tensor,
 * docs/json-schema.md). Sweeps run into a results database; results() reads
 * one back as a table.
 *
 * Ownership, per argument and return value, in isl's style:
 *   __fl_give  the caller receives the object and must free it (with the
 *              free function of its type);
 *   __fl_take  the function takes the object: the caller must not use or
 *              free it afterwards (NULL is accepted);
 *   __fl_keep  the function only borrows it for the call; strings returned
 *              __fl_keep live as long as the object they came from.
 * Every function that can fail takes 'fiberloop_error **err': on failure it
 * returns NULL or -1 and, when err is not NULL, sets *err to a new error
 * (__fl_give: free it with fiberloop_error_free()).
 *
 * Threads: different objects may be used from different threads at once;
 * one object from one thread at a time. A run does not touch global state
 * except the shared Jinja2 helper process (serialized internally).
 */
#ifndef FIBERLOOP_H
#define FIBERLOOP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FIBERLOOP_VERSION_MAJOR 0
#define FIBERLOOP_VERSION_MINOR 1
#define FIBERLOOP_VERSION_PATCH 0
#define FIBERLOOP_VERSION "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons */
#define FIBERLOOP_VERSION_NUMBER \
	(FIBERLOOP_VERSION_MAJOR * 10000 + FIBERLOOP_VERSION_MINOR * 100 + FIBERLOOP_VERSION_PATCH)

#define __fl_give
#define __fl_take
#define __fl_keep

#if defined(__GNUC__)
#define FIBERLOOP_API __attribute__((visibility("default")))
#else
#define FIBERLOOP_API
#endif

typedef struct fiberloop_error fiberloop_error;
typedef struct fiberloop_spec fiberloop_spec;
typedef struct fiberloop_options fiberloop_options;
typedef struct fiberloop_result fiberloop_result;
typedef struct fiberloop_table fiberloop_table;

/* The library's version, "MAJOR.MINOR.PATCH" (__fl_keep: static). */
FIBERLOOP_API const char *fiberloop_version(void);

/* ------------------------------------------------------------------ errors */

/*
 * What went wrong: the diagnostics of a bad design (each located in its
 * file, line and column, as the command line prints them) or one message
 * without a location (a failed run, a bad option, a database error).
 */
enum fiberloop_status {
	FIBERLOOP_OK,
	FIBERLOOP_BAD_INPUT,           /* a bad design or option */
	FIBERLOOP_INFEASIBLE,          /* the mapping does not fit, or the search found none */
	FIBERLOOP_MISMATCH,            /* validate: a field outside tolerance; exec: bad numbers */
	FIBERLOOP_SYSTEM,              /* the system failed (threads, memory, files) */
	FIBERLOOP_INTERRUPTED,         /* stopped by fiberloop_options_stop() or the poll callback */
};

/* The status of the failure. */
FIBERLOOP_API enum fiberloop_status fiberloop_error_status(__fl_keep const fiberloop_error *e);

/* The whole report as the command line prints it ("file:line:col: error: ...\n" lines). */
FIBERLOOP_API const char *fiberloop_error_text(__fl_keep const fiberloop_error *e);

/* Its diagnostics (at least 1); of diagnostic i: severity ("error", "warning", "note"),
 * file (NULL when none), line and column (1-based; 0 when unknown), message. */
FIBERLOOP_API size_t fiberloop_error_count(__fl_keep const fiberloop_error *e);
FIBERLOOP_API const char *fiberloop_error_severity(__fl_keep const fiberloop_error *e, size_t i);
FIBERLOOP_API const char *fiberloop_error_file(__fl_keep const fiberloop_error *e, size_t i);
FIBERLOOP_API unsigned fiberloop_error_line(__fl_keep const fiberloop_error *e, size_t i);
FIBERLOOP_API unsigned fiberloop_error_column(__fl_keep const fiberloop_error *e, size_t i);
FIBERLOOP_API const char *fiberloop_error_message(__fl_keep const fiberloop_error *e, size_t i);

FIBERLOOP_API void fiberloop_error_free(__fl_take fiberloop_error *e);

/* ------------------------------------------------------------------ designs */

/* A new, empty design. */
FIBERLOOP_API __fl_give fiberloop_spec *fiberloop_spec_new(void);

/*
 * A Jinja2 variable "NAME=VALUE" for the template files added after it
 * (as --var). Returns 0, or -1 (a malformed pair, or files already added).
 */
FIBERLOOP_API int fiberloop_spec_add_var(__fl_keep fiberloop_spec *s, __fl_keep const char *pair,
					 fiberloop_error **err);

/* Parse the YAML file 'path' and merge its top-level keys into the design (as the command
 * line's FILE...). Returns 0, or -1 (the design is then unusable). */
FIBERLOOP_API int fiberloop_spec_add_file(__fl_keep fiberloop_spec *s, __fl_keep const char *path,
					  fiberloop_error **err);

/*
 * fiberloop_spec_add_file() of the YAML (or JSON) text 'text' of 'len'
 * bytes, located as file 'name' in diagnostics. 'text' is copied.
 */
FIBERLOOP_API int fiberloop_spec_add_text(__fl_keep fiberloop_spec *s, __fl_keep const char *name,
					  __fl_keep const char *text, size_t len,
					  fiberloop_error **err);

/*
 * Override: "PATH=VALUE" (as --set; VALUE is YAML flow text), applied in
 * the order given before the design is validated. Returns 0, or -1 (a
 * malformed override; a path the design lacks is reported by the run).
 */
FIBERLOOP_API int fiberloop_spec_set(__fl_keep fiberloop_spec *s, __fl_keep const char *override,
				     fiberloop_error **err);

/* Forget every override. */
FIBERLOOP_API void fiberloop_spec_clear_overrides(__fl_keep fiberloop_spec *s);

/* Actual data for a tensor, "NAME=FILE" (as --tensor; exec and validate). Returns 0 or -1. */
FIBERLOOP_API int fiberloop_spec_add_tensor(__fl_keep fiberloop_spec *s, __fl_keep const char *pair,
					    fiberloop_error **err);

/* The design's kind by its top-level keys ("timeloop", "ipu", "stpu"; __fl_keep). */
FIBERLOOP_API const char *fiberloop_spec_kind(__fl_keep const fiberloop_spec *s);

FIBERLOOP_API void fiberloop_spec_free(__fl_take fiberloop_spec *s);

/* ------------------------------------------------------------------ options */

/*
 * The options of a command: "check", "model", "map", "exec", "validate",
 * "ipu", "stpu" (fiberloop_command_name()), with the command line's
 * defaults, and the JSON document requested ("document" = "json").
 */
FIBERLOOP_API __fl_give fiberloop_options *fiberloop_options_new(__fl_keep const char *command,
								 fiberloop_error **err);

/*
 * Set option 'name' to 'value' (text, as on the command line): energy,
 * footprint, residuals, roofline (true/false), seed, seeds, tolerance,
 * sigmas, retention, algorithm, threads, streams, refine, time-limit,
 * search-size, timeout, victory, imperfect, samples, percentile, and
 * document (json: the JSON document of the command line's --format json;
 * text; csv; none: nothing but the summary, the cheapest). Returns 0, or
 * -1 (an unknown option, with a did-you-mean, or a value out of range).
 */
FIBERLOOP_API int fiberloop_options_set(__fl_keep fiberloop_options *o, __fl_keep const char *name,
					__fl_keep const char *value, fiberloop_error **err);

/*
 * While a run of 'o' searches (map) or sweeps, poll(arg) is called about
 * every 'interval_s' seconds from the thread that called the run; a
 * non-zero return stops it (the run then fails with
 * FIBERLOOP_INTERRUPTED). poll NULL: none.
 */
FIBERLOOP_API void fiberloop_options_set_poll(__fl_keep fiberloop_options *o,
					      int (*poll)(void *arg), void *arg,
					      double interval_s);

/* Stop the run of 'o' under way (async-signal-safe: callable from a signal handler). */
FIBERLOOP_API void fiberloop_options_stop(__fl_keep fiberloop_options *o);

FIBERLOOP_API void fiberloop_options_free(__fl_take fiberloop_options *o);

/* The command names, NULL-ended (__fl_keep: static). */
FIBERLOOP_API const char *const *fiberloop_command_names(void);

/* ------------------------------------------------------------------ runs */

/*
 * Run the design 's' with the options 'o' (NULL: "model" with defaults).
 * Returns the result of a run that went through (status FIBERLOOP_OK, or
 * FIBERLOOP_MISMATCH for validate and exec), or NULL with *err: a bad
 * design (its located diagnostics), an infeasible mapping, a stop.
 * The options keep the model's memory (about 1 MB resident) from one run
 * to the next, whatever the design: a loop of runs with one options object
 * allocates it once; fiberloop_options_free() gives it back.
 */
FIBERLOOP_API __fl_give fiberloop_result *fiberloop_run(__fl_keep fiberloop_spec *s,
							 __fl_keep fiberloop_options *o,
							 fiberloop_error **err);

/* fiberloop_run() with the default options of one command. */
FIBERLOOP_API __fl_give fiberloop_result *fiberloop_model(__fl_keep fiberloop_spec *s,
							   fiberloop_error **err);

/* ------------------------------------------------------------------ results */

/* OK, or MISMATCH (validate, exec). */
FIBERLOOP_API enum fiberloop_status fiberloop_result_status(__fl_keep const fiberloop_result *r);

/* The command run ("model", "ipu", ...) and the design's kind ("timeloop", ...). */
FIBERLOOP_API const char *fiberloop_result_command(__fl_keep const fiberloop_result *r);
FIBERLOOP_API const char *fiberloop_result_kind(__fl_keep const fiberloop_result *r);

/*
 * The metric vocabulary (fiberloop help metrics): metric m < count has a
 * name ("energy_pj"), a unit ("pJ", "cycles", "1", "" for text), a type
 * ("real", "count", "text"), which way it is better ("lower", "higher",
 * ""), whether it has one value per level (energy_pj.LEVEL columns) and a
 * description. All __fl_keep (static).
 */
FIBERLOOP_API size_t fiberloop_metric_count(void);
FIBERLOOP_API const char *fiberloop_metric_name(size_t m);
FIBERLOOP_API const char *fiberloop_metric_unit(size_t m);
FIBERLOOP_API const char *fiberloop_metric_type(size_t m);
FIBERLOOP_API const char *fiberloop_metric_better(size_t m);
FIBERLOOP_API int fiberloop_metric_per_level(size_t m);
FIBERLOOP_API const char *fiberloop_metric_description(size_t m);
/* The metric named 'name' (a column name: "energy_pj.DRAM" is the per-level one), or -1. */
FIBERLOOP_API int fiberloop_metric_find(__fl_keep const char *name);

/* Whether metric m has a value in 'r' (a kind does not give every metric), and the value:
 * real and count metrics as a double, count ones exactly, text ones as text (NULL: none). */
FIBERLOOP_API int fiberloop_result_has(__fl_keep const fiberloop_result *r, size_t m);
FIBERLOOP_API double fiberloop_result_real(__fl_keep const fiberloop_result *r, size_t m);
FIBERLOOP_API uint64_t fiberloop_result_count(__fl_keep const fiberloop_result *r, size_t m);
FIBERLOOP_API const char *fiberloop_result_text(__fl_keep const fiberloop_result *r, size_t m);

/* The levels with an energy (0 = innermost): their number, names and energies in pJ. */
FIBERLOOP_API size_t fiberloop_result_levels(__fl_keep const fiberloop_result *r);
FIBERLOOP_API const char *fiberloop_result_level_name(__fl_keep const fiberloop_result *r,
						      size_t l);
FIBERLOOP_API double fiberloop_result_level_energy_pj(__fl_keep const fiberloop_result *r,
						      size_t l);

/* The mapping, "DRAM:Q2 P8 M4[W I O] | ...", outermost first ("" when none). */
FIBERLOOP_API const char *fiberloop_result_mapping(__fl_keep const fiberloop_result *r);

/*
 * The document the options asked for (JSON by default: the command line's
 * --format json output, with the per-level and per-tensor results,
 * docs/json-schema.md), 'len' bytes when len is not NULL; "" when none.
 */
FIBERLOOP_API const char *fiberloop_result_document(__fl_keep const fiberloop_result *r,
						    size_t *len);

/* Warnings about the design, as the command line prints them ("" when none). */
FIBERLOOP_API const char *fiberloop_result_warnings(__fl_keep const fiberloop_result *r);

FIBERLOOP_API void fiberloop_result_free(__fl_take fiberloop_result *r);

/* ------------------------------------------------------------------ sweeps */

/*
 * Sweep the design 's' (its files and overrides; a design given as text
 * cannot be swept) over the axes[0..n_axes) ("[NAME:]PATH[,PATH...]=V1,V2,..."
 * or ranges A:B:STEP, as --axis; zip: the axes taken together) with the
 * options 'o' (NULL: model), one row per point in the results database
 * 'db' (created, or resumed: points it has are not run again), on
 * 'n_workers' threads (0: every core). Returns the number of points, or
 * -1 with *err (located in the axis that is wrong). A stop keeps what
 * finished and fails with FIBERLOOP_INTERRUPTED.
 */
FIBERLOOP_API int64_t fiberloop_sweep(__fl_keep fiberloop_spec *s,
				      __fl_keep const char *const *axes, size_t n_axes, int zip,
				      __fl_keep fiberloop_options *o, __fl_keep const char *db,
				      unsigned n_workers, fiberloop_error **err);

/*
 * The rows of the results database 'db' satisfying every "COLUMN OP VALUE"
 * of wheres[0..n) (OP: = != < <= > >= ~), as 'fiberloop results' shows them.
 */
FIBERLOOP_API __fl_give fiberloop_table *fiberloop_results(__fl_keep const char *db,
							   __fl_keep const char *const *wheres,
							   size_t n_wheres, fiberloop_error **err);

/* Its columns, rows, and cells: the type ('i' integer, 'r' real, 't' text, 'n' null) and
 * the text (NULL for null). */
FIBERLOOP_API size_t fiberloop_table_columns(__fl_keep const fiberloop_table *t);
FIBERLOOP_API size_t fiberloop_table_rows(__fl_keep const fiberloop_table *t);
FIBERLOOP_API const char *fiberloop_table_column(__fl_keep const fiberloop_table *t, size_t c);
FIBERLOOP_API char fiberloop_table_type(__fl_keep const fiberloop_table *t, size_t r, size_t c);
FIBERLOOP_API const char *fiberloop_table_cell(__fl_keep const fiberloop_table *t, size_t r,
					       size_t c);

FIBERLOOP_API void fiberloop_table_free(__fl_take fiberloop_table *t);

#ifdef __cplusplus
}
#endif

#endif
