/*
 * job: one design through one command. job_run() takes a loaded spec set,
 * a command (check, model, map, exec, validate) and its options, and fills
 * a compact summary (struct job_summary: status, metrics, per-level energy,
 * the mapping as text; well under 4 KiB, so sweeps and batches can keep one
 * per point) and the output buffers the command would print and write.
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

enum job_command { JOB_CHECK, JOB_MODEL, JOB_MAP, JOB_EXEC, JOB_VALIDATE, JOB_COMMAND_COUNT };

enum job_status {
	JOB_OK,
	JOB_BAD_INPUT,     /* the design cannot be run as given ('error' says why) */
	JOB_INFEASIBLE,    /* the mapping does not fit, or no valid mapping was found */
	JOB_MISMATCH,      /* validate: a field outside tolerance; exec: the numeric check failed */
	JOB_SYSTEM,        /* the system failed us (e.g. threads could not be started) */
	JOB_STATUS_COUNT
};

/* What 'print' holds. */
enum job_format { JOB_FORMAT_TEXT, JOB_FORMAT_JSON, JOB_FORMAT_CSV };

enum job_footprint { JOB_FOOTPRINT_TIMELOOP, JOB_FOOTPRINT_EXACT };
enum job_retention { JOB_RETAIN_TRANSLATION, JOB_RETAIN_OVERLAP };

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
	bool has_timeout, has_victory, has_refine;
	enum spec_search algorithm;
	unsigned threads;              /* 0 = all cores */
	unsigned streams;
	double time_limit_s;
	uint64_t search_size, timeout, victory, refine;
	const atomic_int *stop;        /* raised to stop the search; may be NULL */
	/* called about every 'progress_interval_s' from the coordinating thread */
	void (*on_progress)(void *arg, const struct job_progress *p);
	void *progress_arg;
	double progress_interval_s;
	/* every candidate visited, as CSV lines (header first); NULL: no log */
	void (*on_log_line)(void *arg, const char *line, size_t len);
	void *log_arg;
};

struct job_options {
	enum job_command command;
	enum job_format format;
	unsigned want;                 /* JOB_WANT_* */
	const char *const *files;      /* the inputs' names, for the JSON documents */
	size_t n_files;
	/* model (and the model side of map and validate) */
	const char *energy_preset;     /* NULL: the default preset */
	enum job_footprint footprint;
	bool roofline;                 /* the roofline view in the summary and the JSON */
	/* map: the search seed; exec: the tensors' seed */
	bool has_seed;
	uint64_t seed;
	/* exec, validate */
	enum job_retention retention;
	unsigned seeds;                /* validate: executions with seeds 1..seeds */
	double tolerance;              /* validate: relative tolerance */
	double sigmas;                 /* validate: standard errors allowed */
	struct job_map_options map;
};

/* Defaults: text, print only, seed 1 for exec, 30 seeds, 1% and 3 standard errors. */
void job_options_init(struct job_options *o, enum job_command command);

#define JOB_MAX_OUT_FILES 4
#define JOB_MAPPING_TEXT 1024
#define JOB_LEVEL_NAME 32

/* What one job gives, compactly (kept per point by sweep and batch). */
struct job_summary {
	enum job_command command;
	enum job_status status;
	char error[512];               /* why, when status != JOB_OK */
	double energy_pj;
	uint64_t cycles;
	double edp_j_cycles;
	double utilization;
	uint64_t algorithmic_computes, actual_computes;
	double pj_per_compute;
	unsigned n_levels;             /* storage levels, 0 = innermost */
	char level_names[SPEC_MAX_LEVELS][JOB_LEVEL_NAME];
	double level_energy_pj[SPEC_MAX_LEVELS];
	double compute_energy_pj;
	char mapping[JOB_MAPPING_TEXT]; /* "DRAM:Q2 P8 M4[W I O] | ..." outermost first */
	uint64_t n_evaluated, n_valid;  /* map: candidates visited and valid */
	unsigned n_fields, n_outside;   /* validate: fields compared and outside tolerance */
};

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
	enum job_command command;      /* what the design must provide (a mapping, a problem) */
};

/*
 * Load and validate the design 'd' for its command. Every problem goes to
 * 'dl' (for exec and validate, tensor files are checked first, so that a
 * malformed one is reported at its own file:line). Returns the set, or NULL.
 * The set and the diagnostics may point into the overrides: keep them until
 * both are released.
 */
struct spec_set *job_load(const struct job_design *d, struct diag_list *dl);

/* Names of the energy presets (NULL-terminated), for option checking. */
const char *const *job_energy_presets(void);

/* "ok", "bad-input", "infeasible", "mismatch", "system". */
const char *job_status_name(enum job_status st);

#endif
