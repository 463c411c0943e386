/*
 * job: one design through one command. job_run() takes a loaded spec set,
 * a command (check, model, map, exec, validate) and its options, and fills
 * a compact summary (struct job_summary: status, metrics, per-level energy,
 * the mapping as text, a failed job's diagnostics whole; under 16 KiB, so
 * sweeps and batches can keep one per point in flight) and the output buffers the command would print and write. What a
 * design of each kind does with each command is a row of the registry of
 * design kinds (job/kinds.c); what each metric is, is a row of the metric
 * vocabulary (job/metric.c), the one source of the results' columns.
 * Everything the command line, sweep, batch and MPI ranks run goes through
 * here; job/ never prints, never exits and never writes a file: the caller
 * prints 'print', 'notes' and the diagnostics, and writes 'files'.
 */
#ifndef JOB_JOB_H
#define JOB_JOB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"
#include "util/diag.h"
#include "util/strbuf.h"

/*
 * The commands every kind of design is run with. A kind may also have a
 * command of its own ('ipu', 'stpu': job_options.kind), which is 'model' on
 * a design that must be of that kind. 'energy' prices a design's components
 * as Accelergy would (docs/energy.md).
 */
enum job_command { JOB_CHECK, JOB_MODEL, JOB_MAP, JOB_EXEC, JOB_VALIDATE, JOB_ENERGY,
		   JOB_COMMAND_COUNT };

struct energy_cache;

enum job_status {
	JOB_OK,
	JOB_BAD_INPUT,     /* the design cannot be run as given ('error' says why) */
	JOB_INFEASIBLE,    /* the mapping does not fit, or no valid mapping was found */
	JOB_MISMATCH,      /* validate: a field outside tolerance; exec: the numeric check failed */
	JOB_SYSTEM,        /* the system failed us (e.g. threads could not be started) */
	JOB_STATUS_COUNT
};

/* What 'print' holds (table and jsonl: for sweeps, batches and results). */
enum job_format { JOB_FORMAT_TEXT, JOB_FORMAT_JSON, JOB_FORMAT_CSV, JOB_FORMAT_TABLE,
		  JOB_FORMAT_JSONL };

enum job_footprint { JOB_FOOTPRINT_TIMELOOP, JOB_FOOTPRINT_EXACT };
enum job_retention { JOB_RETAIN_TRANSLATION, JOB_RETAIN_OVERLAP };
/* How residual iterations are counted (--residuals; enum model_imperfect). */
enum job_residuals { JOB_RESIDUALS_EXACT, JOB_RESIDUALS_TIMELOOP };

/* Outputs to produce (bits of job_options.want). */
#define JOB_WANT_PRINT 1u   /* 'print': what the command shows on stdout */
#define JOB_WANT_FILES 2u   /* 'files': what -o DIR receives */

/* Progress of a running search, for a progress line. */
struct job_progress {
	uint64_t n_evaluated, n_valid;
	bool has_best;
	double best_energy_pj, best_cycles, best_edp;
	double per_s, elapsed_s;
	unsigned n_streams_active;
};

/*
 * The mapper's settings from the command line; each 'has_' flag says that
 * the value overrides the design's 'mapper' key.
 */
struct job_map_options {
	bool has_algorithm, has_threads, has_streams, has_time_limit, has_search_size;
	bool has_timeout, has_victory, has_refine, has_imperfect;
	enum spec_search algorithm;
	enum spec_imperfect imperfect; /* imperfect factors in the mapspace (--imperfect) */
	unsigned threads;              /* 0 = all cores */
	unsigned streams;
	double time_limit_s;
	uint64_t search_size, timeout, victory, refine;
	const atomic_int *stop;        /* raised to stop the search; may be NULL */
	/* called about every 'progress_interval_s' from the coordinating thread */
	void (*on_progress)(void *arg, const struct job_progress *p);
	void *progress_arg;
	double progress_interval_s;
	/* share the streams out over the MPI ranks (the 'map' command itself) */
	bool split_ranks;
	/* every candidate visited, as CSV lines (header first); NULL: no log */
	void (*on_log_line)(void *arg, const char *line, size_t len);
	void *log_arg;
};

struct job_options {
	enum job_command command;
	const char *kind;              /* the design must be of this kind (its own command, such
					  as 'stpu'); NULL: any */
	enum job_format format;
	unsigned want;                 /* JOB_WANT_* */
	const char *const *files;      /* the inputs' names, for the JSON documents */
	size_t n_files;
	/* model (and the model side of map and validate) */
	const char *energy_preset;     /* NULL or "estimate": estimated (energy/); else a preset */
	struct energy_cache *energy_cache;  /* estimated tables shared by the jobs of a run
					       (one per architecture); NULL: per job */
	enum job_footprint footprint;
	enum job_residuals residuals;
	bool roofline;                 /* the roofline view in the summary and the JSON */
	/* map: the search seed; exec: the tensors' seed */
	bool has_seed;
	uint64_t seed;
	/* exec, validate */
	enum job_retention retention;
	unsigned seeds;                /* validate: executions with seeds 1..seeds */
	bool has_seeds;                /* given on the command line (ipu: run the executor) */
	double tolerance;              /* validate: relative tolerance */
	double sigmas;                 /* validate: standard errors allowed */
	struct job_map_options map;
	/* ipu (accel/): patterns drawn from the density model, and the percentile reported */
	unsigned samples;
	double percentile;
};

/* Defaults: text, print only, seed 1 for exec, 30 seeds, 1% and 3 standard errors. */
void job_options_init(struct job_options *o, enum job_command command);

#define JOB_MAX_OUT_FILES 4
#define JOB_MAPPING_TEXT 1024
#define JOB_LEVEL_NAMES 2048           /* the level and tensor names of a summary, each NUL-ended */
#define JOB_MAX_PARTS (SPEC_MAX_LEVELS + SPEC_MAX_TENSORS)   /* per-level energies: levels, tensors */
#define JOB_TEXT_VALUES 128            /* the text metrics of a summary, each NUL-ended */
#define JOB_ERROR_TEXT 8192            /* a failed job's diagnostics, whole (job_diag_text) */

/* ------------------------------------------------------------ the metrics */

/*
 * The metric vocabulary: every metric a job can give, declared once
 * (job/metric.c) with its unit, type, how rows combine and its description.
 * The results database's columns, the streamed CSV and JSON rows, 'results'
 * and 'plot' take their names from it; a kind of design provides the
 * metrics its getters read from its results, and a metric it does not
 * provide is NULL (never 0). Per-level metrics are columns NAME.LEVEL
 * ("energy_pj.DRAM"); the level names are never cut.
 */
enum job_metric_id {
	JOB_METRIC_ENERGY_PJ,
	JOB_METRIC_CYCLES,
	JOB_METRIC_EDP_J_CYCLES,
	JOB_METRIC_UTILIZATION,
	JOB_METRIC_ALGORITHMIC_COMPUTES,
	JOB_METRIC_ACTUAL_COMPUTES,
	JOB_METRIC_PJ_PER_COMPUTE,
	JOB_METRIC_COMPUTE_ENERGY_PJ,
	JOB_METRIC_N_EVALUATED,
	JOB_METRIC_N_VALID,
	JOB_METRIC_AREA_UM2,
	JOB_METRIC_SPEEDUP,
	JOB_METRIC_BASELINE_CYCLES,
	JOB_METRIC_BASELINE_ENERGY_PJ,
	JOB_METRIC_ENERGY_RATIO,
	JOB_METRIC_SCHEME,
	JOB_METRIC_PACKING_EFFICIENCY,
	JOB_METRIC_ESTIMATED_PACKING_EFFICIENCY,
	JOB_METRIC_PROPAGATION_STEPS,
	JOB_METRIC_FWD_CYCLES,
	JOB_METRIC_FWD_BASELINE_CYCLES,
	JOB_METRIC_MEMORY_BYTES,
	JOB_METRIC_SECONDS,
	JOB_METRIC_BOUND,
	JOB_METRIC_LEVEL_ENERGY_PJ,    /* per level: energy_pj.LEVEL */
	JOB_METRIC_COUNT
};

enum job_value_type {
	JOB_VALUE_REAL,                /* a double */
	JOB_VALUE_COUNT,               /* an exact unsigned integer */
	JOB_VALUE_TEXT,
};

/* How the rows of a network's layers combine into its row. */
enum job_aggregation {
	JOB_AGG_SUM,
	JOB_AGG_CYCLE_MEAN,            /* the mean weighted by each row's cycles */
	JOB_AGG_DERIVED,               /* computed again from the combined metrics */
	JOB_AGG_NONE,                  /* does not combine: NULL in a combined row */
	JOB_AGG_SAME,                  /* a property of the design (its area): the rows' value
					  when they all agree, else NULL */
};

/* Which way a metric is better (for ranking). */
enum job_better { JOB_BETTER_NONE, JOB_BETTER_LOWER, JOB_BETTER_HIGHER };

struct job_summary;

#define JOB_METRIC_CORE 1u             /* always a column of the results (the first schema's) */
#define JOB_METRIC_STREAM 2u           /* in the rows a sweep streams (CSV, JSON lines) */
#define JOB_METRIC_PER_LEVEL 4u        /* one value per level: columns NAME.LEVEL */

struct job_metric {
	const char *name;              /* the column: "energy_pj" */
	const char *unit;              /* "pJ", "cycles", "1" (a ratio), "" (text) */
	enum job_value_type type;
	enum job_aggregation agg;
	enum job_better better;
	unsigned flags;                /* JOB_METRIC_* */
	const char *description;
	/* JOB_AGG_DERIVED: set it in 's' from the other metrics of 's' (when they are there) */
	void (*derive)(struct job_summary *s);
};

/* The metric 'm' (m < JOB_METRIC_COUNT). */
const struct job_metric *job_metric_get(enum job_metric_id m);

/* The metric named 'name' (a column name; "energy_pj.DRAM" is the per-level one), or -1. */
int job_metric_find(const char *name);

/* The kinds of design, in registry order, by name ("timeloop", "ipu", "stpu"). */
size_t job_kind_count(void);
const char *job_kind_name(size_t i);

/* True when designs of kind 'kind' (a name) provide metric 'm' with some command. */
bool job_kind_provides(const char *kind, enum job_metric_id m);

/*
 * The loaders of every kind of design, NULL-ended, the default first: for
 * spec_load_options.kinds and spec_source_set_kinds() when a caller loads
 * designs itself (job_load() does).
 */
const struct spec_kind *const *job_spec_kinds(void);

/* One metric's value (the field its type says). */
union job_value {
	double real;
	uint64_t count;
	uint32_t text;                 /* offset of the text in job_summary.texts */
};

/* What one job gives, compactly (kept per point by sweep and batch; sent between ranks). */
struct job_summary {
	enum job_command command;
	enum job_status status;
	unsigned kind;                 /* the design's kind: 1 + its registry index; 0: none */
	char error[JOB_ERROR_TEXT];    /* why, when status != JOB_OK */
	uint64_t has;                  /* bit m: metric m has a value */
	union job_value value[JOB_METRIC_COUNT];
	unsigned n_levels;             /* per-level energies, 0 = innermost */
	uint16_t level_name_at[JOB_MAX_PARTS];   /* offsets into level_names */
	double level_energy_pj[JOB_MAX_PARTS];   /* the levels, then "tensor.NAME" entries */
	char mapping[JOB_MAPPING_TEXT]; /* "DRAM:Q2 P8 M4[W I O] | ..." outermost first */
	unsigned n_fields, n_outside;  /* validate: fields compared and outside tolerance */
	uint32_t texts_len, level_names_len;
	char texts[JOB_TEXT_VALUES];
	char level_names[JOB_LEVEL_NAMES];
};

/* True when metric 'm' of 's' has a value. */
bool job_summary_has(const struct job_summary *s, enum job_metric_id m);

/* The value of a real or count metric as a double (0 when it has none). */
double job_summary_real(const struct job_summary *s, enum job_metric_id m);

/* The value of a count metric (0 when it has none). */
uint64_t job_summary_count(const struct job_summary *s, enum job_metric_id m);

/* The value of a text metric (NULL when it has none). */
const char *job_summary_text(const struct job_summary *s, enum job_metric_id m);

/* The name of level 'l' of 's' (l < s->n_levels). */
const char *job_summary_level_name(const struct job_summary *s, unsigned l);

/* The name of the kind of design 's' was run on, or NULL. */
const char *job_summary_kind(const struct job_summary *s);

/* The printed and written outputs of a job. */
struct job_outputs {
	struct strbuf print;           /* for stdout */
	struct strbuf notes;           /* details for stderr after 'error' (e.g. failure counts) */
	struct diag_list diags;        /* diagnostics about the design (warnings, constraint errors) */
	size_t n_files;
	const char *file_names[JOB_MAX_OUT_FILES];   /* static strings */
	struct strbuf files[JOB_MAX_OUT_FILES];
};

void job_outputs_init(struct job_outputs *out);
void job_outputs_release(struct job_outputs *out);

/*
 * Run command o->command on the design 's' (borrowed). Fills 'sum' and the
 * buffers of 'out' that o->want asks for. Returns sum->status: JOB_OK, or
 * another status with sum->error saying why (nothing in 'out' is to be
 * written then, though 'print' may hold what a command shows anyway, such
 * as the mapper's search summary).
 */
enum job_status job_run(const struct spec_set *s, const struct job_options *o,
			struct job_summary *sum, struct job_outputs *out);

/* What loading a design needs: its files, actual-data tensors and overrides. */
struct job_design {
	const char *const *files;
	size_t n_files;
	const char *const *tensors;    /* "NAME=FILE" */
	size_t n_tensors;
	const char *const *prunes;     /* "NAME=N:M[:DIM]" (--prune) */
	size_t n_prunes;
	const struct spec_override *overrides;  /* --set, applied in order before validation */
	size_t n_overrides;
	const char *const *vars;       /* --var NAME=VALUE: Jinja2 variables of template files */
	size_t n_vars;
	enum job_command command;      /* what the design must provide (a mapping, a problem) */
	const char *kind;              /* the kind it must be of (a kind's own command), or NULL */
};

/*
 * Load and validate the design 'd' for its command. Every problem goes to
 * 'dl' (for exec and validate, tensor files are checked first, so that a
 * malformed one is reported at its own file:line). Returns the set, or NULL.
 * The set and the diagnostics may point into the overrides: keep them until
 * both are released.
 */
struct spec_set *job_load(const struct job_design *d, struct diag_list *dl);

/*
 * The choices of --energy (NULL-terminated): "estimate" (the default: what
 * the design's ERT/ART leave open is estimated as Accelergy would), then the
 * energy presets.
 */
const char *const *job_energy_presets(void);

/* True when 'o' asks for the estimator (no preset named). */
bool job_energy_is_estimate(const struct job_options *o);

/* "ok", "bad-input", "infeasible", "mismatch", "system". */
const char *job_status_name(enum job_status st);

/* "check", "model", "map", "exec", "validate", "energy". */
const char *job_command_name(enum job_command c);

/* The name of the command 'o' runs: its kind's own command, else job_command_name(). */
const char *job_options_command_name(const struct job_options *o);

/*
 * Every command name, NULL-ended: the commands of enum job_command, then
 * the own commands of the kinds of design ("ipu", "stpu").
 */
const char *const *job_command_names(void);

/*
 * The command named 'name' (one of job_command_names()): its command and,
 * for a kind's own command, the kind's name (else NULL). Returns 0, or -1
 * for an unknown name.
 */
int job_command_parse(const char *name, enum job_command *cmd, const char **kind);

/* ------------------------------------------------------- many jobs at once */

/*
 * Sweeps, batches and networks run many jobs on every core (and, built
 * with MPI, on every rank of mpirun), write one row per job to the results
 * database (store/, docs/sweep.md) as each finishes, skip the jobs a
 * previous run finished (by their key: the design's hash, the overrides,
 * the command and its options), and give rows in the order of their
 * index whatever the number of threads or ranks.
 */

/* How far a run is, for a progress line. */
struct job_run_progress {
	uint64_t n_total;              /* jobs of the run */
	uint64_t n_skipped;            /* finished by an earlier run */
	uint64_t n_done;               /* finished by this one */
	uint64_t n_failed;             /* of which did not succeed */
	double per_s, elapsed_s, eta_s;   /* eta_s < 0: unknown */
	unsigned n_ranks, n_workers;
};

/* A finished row, as it is streamed (in the order jobs finish). */
struct job_row {
	uint64_t idx;
	const char *key;
	const char *kind;              /* "point", "job", "layer", "network" */
	const char *name;              /* job or layer name, or NULL */
	size_t n_inputs;
	const char *const *input_names, *const *input_values;
	const char *overrides;         /* "PATH=VALUE" lines */
	uint64_t metrics;              /* the metrics streamed (bit per metric: job_stream_mask()) */
	const struct job_summary *sum;
};

/* How to run many jobs. */
struct job_runner {
	const char *db_path;           /* the results database; NULL: none */
	bool resume;                   /* skip the jobs the database has */
	unsigned n_workers;            /* threads per process; 0: the cores (shared by the ranks of a node) */
	const char *definition;        /* the command line, recorded with the run */
	const atomic_int *stop;        /* raised: start no new job; may be NULL */
	void (*on_progress)(void *arg, const struct job_run_progress *p);
	void *progress_arg;
	double progress_interval_s;
	void (*on_row)(void *arg, const struct job_row *row);   /* may be NULL */
	void *row_arg;
};

/* What a run did. */
/* One reason jobs did not succeed, and how many gave it. */
struct job_reason {
	enum job_status status;
	char text[240];                /* the first line of the error, without its location */
	uint64_t n;
};

#define JOB_MAX_REASONS 8

struct job_run_result {
	uint64_t n_total, n_skipped, n_done, n_failed;
	struct job_reason reasons[JOB_MAX_REASONS];   /* the distinct reasons, in order seen */
	size_t n_reasons;
	uint64_t n_other_reasons;      /* failed jobs whose reason did not fit in reasons[] */
	bool any_bad_input;            /* a job failed with bad input (or the system failed it) */
	bool interrupted;              /* stopped before every job ran */
	double elapsed_s;
	unsigned n_ranks, n_workers;
	char error[1024];              /* when the run failed: the database's error */
};

/*
 * One axis of a sweep, "[NAME:]PATH[,PATH...]=V1,V2,..." (docs/sweep.md):
 * each value Vi (YAML flow text, or a range A:B:STEP with STEP +D, D, xF
 * or *F) set at every PATH, as '--set PATH=Vi' would. NAME (default: the
 * paths as written) names the axis's column in the database. A value
 * LABEL=V sets V and is LABEL in the database; a value @FILE sets the YAML
 * file (at PATH its key of PATH's last key, else the whole file); NAME=@F1,
 * @F2,... (one bare name, every value a file) replaces the design's
 * top-level keys by each file's.
 */
struct job_axis {
	struct arena arena;            /* owns the strings */
	const char *text;              /* as given */
	const char *origin;            /* "--axis 'TEXT'": the file of its diagnostics */
	const char *name;
	size_t n_paths;
	const char **paths;
	size_t *path_offs;             /* where each path is written in 'text' */
	size_t n_values, alloc_values, alloc_value_offs;
	const char **values;           /* each value as the database's column holds it */
	const char **set_values;       /* what each value sets: VALUE of LABEL=VALUE, '@FILE' */
	size_t alloc_set_values;
	size_t *value_offs;            /* where each value (or its range) is written */
	bool whole_files;              /* NAME=@F1,@F2: each file's top-level keys replace the
					  design's */
};

/*
 * Parse the axis 'text' into 'ax' (release it with job_axis_release() in
 * any case). Returns 0, or -1 with located diagnostics in 'dl'.
 */
int job_axis_parse(const char *text, struct job_axis *ax, struct diag_list *dl);
void job_axis_release(struct job_axis *ax);

/*
 * The override PATH p = VALUE v of an axis into 'ov' (released first: start
 * from SPEC_OVERRIDE_INIT), located in the axis: its path where the path is
 * written, its value where the value (or its range) is. Made when a point
 * needs it, so that an axis holds only its values.
 */
void job_axis_override(const struct job_axis *ax, size_t v, size_t p,
		       struct spec_override *ov);

/*
 * The number of points of the sweep over axes[0..n): their cartesian
 * product (the first axis slowest), or with 'zip' their values taken
 * together (every axis as long as the first). Returns 0, or -1 with an
 * error in 'dl' (zipped axes of different lengths, too many points).
 */
int job_sweep_count(const struct job_axis *axes, size_t n, bool zip, uint64_t *n_points,
		    struct diag_list *dl);

/* The value index vi[a] of every axis a at point 'idx' of the sweep. */
void job_sweep_point(const struct job_axis *axes, size_t n, bool zip, uint64_t idx,
		     size_t *vi);

/* A sweep: the axes over one design, run with one command. */
struct job_sweep {
	const struct job_design *design;  /* files, tensors, --set (applied before the axes) */
	const struct job_axis *axes;
	size_t n_axes;
	bool zip;
	const struct job_options *options;   /* the command and its options */
};

/*
 * Run the sweep 'sw': the design parsed once, each point built with its
 * overrides, validated and run in memory; a point whose overrides make a
 * bad spec is a row with the located error. Returns 0 (see res for what
 * ran), or -1: the design's files do not parse (diagnostics in 'dl') or
 * the database failed (res->error).
 */
int job_sweep_run(const struct job_sweep *sw, const struct job_runner *rn,
		  struct job_run_result *res, struct diag_list *dl);

/*
 * The metrics a sweep of designs of kind 'kind' (a name; NULL: none, and
 * 'o' may be NULL) run as 'o' says streams: the streamed core metrics, then
 * the other streamed metrics such a run provides (bit per metric).
 */
uint64_t job_stream_mask(const char *kind, const struct job_options *o);

/*
 * The CSV header of rows like 'r' (its input names and streamed metrics), a
 * row, and a row as one JSON line (the streamed metrics it has, and its
 * level energies as "energy_pj.LEVEL").
 */
void job_row_csv_header(const struct job_row *r, struct strbuf *sb);
void job_row_csv(const struct job_row *r, struct strbuf *sb);
void job_row_jsonl(const struct job_row *r, struct strbuf *sb);

/* A network: every layer mapped on one design. */
struct job_network {
	const struct job_design *design;  /* architecture, constraints, ERT; --set */
	const char *const *layers;     /* layer files, or directories of *.yaml */
	size_t n_layers;
	const struct job_options *options;   /* the mapper's */
};

/* What a network gave: each layer's summary (NULL: not run) and the totals. */
struct job_network_result {
	size_t n_layers, n_distinct;
	char **names;                  /* "resnet18/00" */
	struct job_summary **sums;
	struct job_summary total;      /* energies and cycles added; EDP of the sums */
};

/*
 * Map every layer of 'nw' (each layer's 'problem' replacing the design's;
 * layers with the same bytes mapped once) on the runner's threads and
 * ranks; with a database, one row per layer. Returns 0, or -1: the files
 * cannot be read (dl) or the database failed (res->error). Release 'out'
 * in any case.
 */
int job_network_run(const struct job_network *nw, const struct job_runner *rn,
		    struct job_network_result *out, struct job_run_result *res,
		    struct diag_list *dl);
void job_network_result_release(struct job_network_result *r);

/* The per-layer table and the totals as text, CSV or JSON. */
void job_network_print(const struct job_network_result *r, enum job_format f,
		       struct strbuf *sb);

/* A batch: the jobs of a batch file, with the command line's options. */
struct job_batch {
	const struct spec_batch *batch;
	const struct job_options *options;   /* each job's command and seed on top */
	const char *const *vars;       /* --var NAME=VALUE, before each job's 'vars' */
	size_t n_vars;
};

struct table;

/*
 * Run the batch 'b' (rank 0 writes every row to rn->db_path, which must be
 * set). A job with a bad spec is a row with its located error; the batch
 * goes on. Then rank 0 adds the row of each network whose layers are all
 * done and puts the jobs' rows (all of them: those of earlier runs too)
 * ranked by 'metric' (its better way), into 'out' (columns rank, name,
 * kind, command, status, energy_pj, cycles, edp_j_cycles, utilization, the
 * other metrics some row has, tags, error): the rows that have the metric
 * first, then those of kinds that do not provide it (no rank; 'notes' says
 * which), then the failed ones. Returns 0, or -1 with res->error.
 */
int job_batch_run(const struct job_batch *b, const struct job_runner *rn,
		  enum job_metric_id metric, struct table *out, struct strbuf *notes,
		  struct job_run_result *res);

/*
 * The rows of the results database 'db' that satisfy every "COLUMN OP
 * VALUE" of wheres[0..n) (OP: = != < <= > >= ~), in run and index order,
 * into 'out' (store_query's columns, docs/sweep.md). Returns 0, or -1 with
 * 'err' filled (a bad filter, an unknown column, not a results database).
 */
int job_results_query(const char *db, const char *const *wheres, size_t n_wheres,
		      struct table *out, struct strbuf *err);

/*
 * The columns of a results table 't' worth a look (index, name, inputs,
 * status, energy, cycles, EDP, the metrics of other kinds of design it has,
 * error) into cols[] (room for t->n_cols); their number.
 */
size_t job_results_brief(const struct table *t, size_t *cols);

/* What 'fiberloop results' answers instead of listing rows (job/analysis.c). */
struct job_results_view {
	const char *best;              /* --best METRIC: the best row of each group */
	const char *by;                /* --by A,B: the groups (none: one group) */
	const char *pivot;             /* --pivot A,B: the series (default: the other axes) */
	const char *x;                 /* --x COLUMN: the rows of a pivot, the axis of crossovers */
	const char *const *ys;         /* --y METRIC...: the pivot's values (default energy_pj) */
	size_t n_ys;
	bool crossovers;               /* --crossovers: where one series starts to beat another */
	const char *at;                /* --at V1,V2,...: the x values a pivot keeps */
};

/*
 * The answer 'v' asks of the results table 't' (rows whose status is ok),
 * as a table into 'out': with 'best', per group (the values of 'by') the
 * best row by the metric (lower or higher, as the vocabulary says), its
 * series (the other axes), the runner-up of another series and the margin
 * (how many times better, >= 1); else a pivot of the 'ys' by 'x' (rows, in
 * numeric order when numbers) and the series (columns, with the best
 * series per metric), or with 'crossovers' each x where, between two
 * series, the better one changes. Returns 0, or -1 with 'err' (an unknown
 * column with a did-you-mean; two rows in one cell of a pivot).
 */
int job_results_view(const struct table *t, const struct job_results_view *v, struct table *out,
		     struct strbuf *err);

/* This process's rank and the number of ranks (0 and 1 without MPI). */
unsigned job_rank(void);
unsigned job_ranks(void);

/*
 * Start MPI when the program runs under mpirun (built with MPI); otherwise
 * nothing. Call first thing in main(); job_mpi_finalize() before exiting.
 * Returns 0, or -1 with 'err' filled.
 */
int job_mpi_init(int *argc, char ***argv, struct strbuf *err);
void job_mpi_finalize(void);

#endif
