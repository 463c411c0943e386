/*
 * The mapper: the mapspace of a design under its constraints, and searches
 * over it on every core.
 *
 * A mapspace point is an index factorization (every dimension's bound split
 * over the tiling levels), a keep/bypass choice per storage level, and per
 * tiling level an order of the non-trivial loops (plus the X/Y split of a
 * spatial level). Orders that differ only in trivial (factor-1) loops are one
 * point. The search evaluates points through a 'struct mapper_evaluator' (the
 * analytical model, or a test function), one workspace per thread, and keeps
 * the best by a priority list of metrics. Results do not depend on the
 * number of threads: see docs/mapper.md. Nothing here prints or exits.
 */
#ifndef MAPPER_MAPPER_H
#define MAPPER_MAPPER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

struct diag_list;
struct mapper_space;
struct model_options;
struct model_result;
struct model_ragged_result;

/* --------------------------------------------------------------- constants */

/* Timeloop's mapper defaults (applied when the 'mapper:' key is absent). */
#define MAPPER_DEFAULT_ALGORITHM SPEC_SEARCH_HYBRID
#define MAPPER_DEFAULT_TIMEOUT 1000
#define MAPPER_DEFAULT_VICTORY 500
#define MAPPER_DEFAULT_MAX_PERMS 16
/* Independent search streams (Timeloop runs one search per thread; we keep a
 * fixed number of searches so that the thread count changes only the speed). */
#define MAPPER_DEFAULT_STREAMS 32
/* Best points of distinct streams refined by steepest descent afterwards. */
#define MAPPER_DEFAULT_REFINE 32

/* Why a candidate is not a valid mapping. */
enum mapper_fail {
	MAPPER_OK,
	MAPPER_FAIL_CAPACITY,   /* a tile does not fit a level, or under-fills it */
	MAPPER_FAIL_FANOUT,     /* spatial factors do not fit a level's fan-out */
	MAPPER_FAIL_OTHER,      /* the evaluator rejected it for another reason */
	MAPPER_FAIL_COUNT
};

/* Why a search stopped. */
enum mapper_stop {
	MAPPER_STOP_DONE,          /* the stream's part of the mapspace was exhausted */
	MAPPER_STOP_SEARCH_SIZE,   /* its share of 'search_size' valid mappings */
	MAPPER_STOP_VICTORY,       /* 'victory_condition' valid mappings without improvement */
	MAPPER_STOP_TIMEOUT,       /* 'timeout' invalid mappings in a row */
	MAPPER_STOP_TIME_LIMIT,    /* the wall-clock limit */
	MAPPER_STOP_INTERRUPTED,   /* the stop flag was raised (SIGINT) */
	MAPPER_STOP_COUNT
};

/* ------------------------------------------------------------ evaluation */

/* The outcome of evaluating one mapping. */
struct mapper_eval {
	enum mapper_fail status;
	unsigned fail_level;                 /* storage level, when status != OK */
	double metrics[SPEC_METRIC_COUNT];   /* indexed by enum spec_metric; valid when OK */
};

/*
 * What the search calls to evaluate a mapping. ws_new() is called once per
 * thread with 'ctx' and its workspace is used by that thread only; eval()
 * must be reentrant across workspaces. 'm' is complete (derived loop nests).
 */
struct mapper_evaluator {
	const void *ctx;
	void *(*ws_new)(const void *ctx);
	void (*ws_free)(void *ws);
	void (*eval)(void *ws, const struct spec_mapping *m, struct mapper_eval *out);
};

/* The analytical model (model/) as an evaluator; both borrowed, and they
 * must outlive the search. 'options' may be NULL for the model's defaults. */
struct mapper_model_ctx {
	const struct spec_set *spec;
	const struct model_options *options;
};

/* --------------------------------------------------------------- options */

/* Progress of a running search, reported to 'on_progress'. */
struct mapper_progress {
	uint64_t n_evaluated;        /* candidates visited, in search order */
	uint64_t n_valid;
	bool has_best;
	double best[SPEC_METRIC_COUNT];
	double elapsed_s;
	double per_s;                /* candidates per second so far */
	unsigned n_streams_active;
};

/* One visited candidate, reported to 'on_candidate' in search order. */
struct mapper_candidate {
	unsigned stream;
	uint64_t seq;                        /* index in its stream */
	const struct spec_mapping *mapping;  /* NULL when pruned before a mapping existed */
	struct mapper_eval eval;
	bool is_best;                        /* it improved its stream's best */
};

struct mapper_options {
	enum spec_search algorithm;
	unsigned n_threads;            /* worker threads; 0 = all cores */
	unsigned n_streams;            /* independent searches (>= 1) */
	unsigned n_metrics;
	enum spec_metric metrics[SPEC_MAX_METRICS];  /* priority order */
	uint64_t search_size;          /* valid mappings over all streams; 0 = unlimited */
	uint64_t timeout;              /* consecutive invalid per stream; 0 = none */
	uint64_t victory_condition;    /* consecutive non-improving valid per stream; 0 = none */
	unsigned max_permutations_per_if_visit;
	uint64_t seed;
	double time_limit_s;           /* 0 = none */
	unsigned refine;               /* stream bests to refine afterwards; 0 = none */
	const atomic_int *stop;        /* raised (non-zero) to stop; may be NULL */
	/* called from the coordinating thread about every 'progress_interval_s' */
	void (*on_progress)(void *arg, const struct mapper_progress *p);
	void *progress_arg;
	double progress_interval_s;
	/* called from the coordinating thread for every candidate, in order;
	 * NULL keeps the search from recording candidates at all */
	void (*on_candidate)(void *arg, const struct mapper_candidate *c);
	void *candidate_arg;
};

#define MAPPER_ERROR_MAX 160

/* The result of a search. */
struct mapper_result {
	char error[MAPPER_ERROR_MAX];        /* why mapper_run() returned -1, else "" */
	bool found;
	struct spec_mapping best;            /* derived; valid when 'found' */
	struct mapper_eval best_eval;
	unsigned best_stream;
	uint64_t n_evaluated;                /* candidates visited (pruned ones included) */
	uint64_t n_valid;
	uint64_t n_model_calls;              /* full evaluations (search only) */
	bool refined;                        /* refinement ran */
	struct mapper_eval searched_eval;    /* the best before refinement */
	uint64_t n_refine_evals, n_refine_steps;
	uint64_t fail_counts[MAPPER_FAIL_COUNT][SPEC_MAX_LEVELS];
	unsigned stream_stops[MAPPER_STOP_COUNT];  /* streams by reason */
	double elapsed_s;
	unsigned n_threads;                  /* threads actually used */
};

/*
 * A search shared out over several processes (MPI ranks): each runs part
 * p of n (the streams s with s % n == p) with mapper_run_part(); one
 * merges the parts with mapper_run_merge(), which refines and picks the
 * best as mapper_run() does, so that the result is mapper_run()'s for any
 * n. The parts are plain bytes (no pointers) of mapper_part_size(), to be
 * copied between processes of one binary.
 */
#define MAPPER_POINT_BYTES 512

/* How one stream ended, in the part that ran it. */
struct mapper_stream_end {
	uint8_t ran, has_best, stop;   /* stop: enum mapper_stop */
	uint8_t point[MAPPER_POINT_BYTES];   /* its best point */
	struct mapper_eval best_eval;
};

/* One part of a search: its counts and its streams' ends (the others have ran = 0). */
struct mapper_part {
	uint64_t n_evaluated, n_valid, n_model_calls;
	uint64_t fail_counts[MAPPER_FAIL_COUNT][SPEC_MAX_LEVELS];
	uint32_t user_stop;            /* a stop or the time limit cut it short */
	uint32_t n_threads;
	double elapsed_s;
	char error[MAPPER_ERROR_MAX];  /* why it could not run, else "" */
	struct mapper_stream_end ends[];   /* o->n_streams */
};

/* ------------------------------------------------------------- functions */

/*
 * Options with Timeloop's defaults, then the settings of the 'mapper:' key
 * ('s' may be NULL or not present). Command-line overrides go on top.
 */
void mapper_options_init(struct mapper_options *o, const struct spec_mapper_settings *s);

/*
 * Build the mapspace of 's' under its constraints, for mappings evaluated
 * with model options 'mo' (NULL: the model's defaults): the capacity
 * pre-check counts a tile's words with model_tile_words() under them, as
 * model_eval() does (hull or exact footprints). A constraint that is
 * malformed for this design, or that leaves no mapping, is reported to 'dl'
 * with its location and NULL is returned. The space borrows 's' and copies
 * 'mo'.
 */
struct mapper_space *mapper_space_new(const struct spec_set *s, const struct model_options *mo,
				      struct diag_list *dl);

/*
 * mapper_space_new() with the imperfect factors 'imperfect' instead of the
 * design's mapper setting (the --imperfect option).
 */
struct mapper_space *mapper_space_new_imperfect(const struct spec_set *s,
						const struct model_options *mo,
						enum spec_imperfect imperfect, struct diag_list *dl);

/* Number of index factorizations (saturating at UINT64_MAX). */
uint64_t mapper_space_n_factorizations(const struct mapper_space *ms);

/* Number of factorizations of dimension 'dim' alone. */
uint64_t mapper_space_dim_factorizations(const struct mapper_space *ms, unsigned dim);

/*
 * Search 'ms' with 'ev' under 'o'. Returns 0 when the search ran (whether or
 * not a valid mapping was found: see out->found). Returns -1, with the
 * reason in out->error (nothing else of 'out' is meaningful), on invalid
 * options or when a search or refinement thread could not be started; the
 * threads that did start have been stopped and joined by then.
 */
int mapper_run(const struct mapper_space *ms, const struct mapper_evaluator *ev,
	       const struct mapper_options *o, struct mapper_result *out);

/* Bytes of a part of a search of 'n_streams' streams. */
size_t mapper_part_size(unsigned n_streams);

/*
 * Run part 'part' of 'n_parts' of the search (no refinement) into 'out'
 * (mapper_part_size(o->n_streams) bytes). Returns 0, or -1 on invalid
 * options (a candidate log is one of them: its order needs every stream)
 * or with out->error filled when its threads could not start.
 */
int mapper_run_part(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		    const struct mapper_options *o, unsigned part, unsigned n_parts,
		    struct mapper_part *out);

/*
 * Merge parts[0..n_parts) of a search of 'o' (every stream run by one of
 * them), refine and pick the best as mapper_run() would, into 'out'. Its
 * counts are the parts' sums; n_threads their threads. Returns 0, or -1
 * with out->error filled (a part that failed, threads that did not start).
 */
int mapper_run_merge(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		     const struct mapper_options *o, const struct mapper_part *const *parts,
		     unsigned n_parts, struct mapper_result *out);

/* Fill 'ev' with the model evaluator of 'ctx' (mapper/eval_model.c). The
 * caller checks beforehand that model_ws_new() accepts ctx->options. */
void mapper_evaluator_model(struct mapper_evaluator *ev, const struct mapper_model_ctx *ctx);

/* The metrics of a model result, indexed by enum spec_metric. */
void mapper_metrics_of_result(const struct model_result *r, double *metrics);

/*
 * The metrics of a ragged workload's totals (its evaluator runs
 * model_eval_ragged(): the parent's loops must be outermost at the outermost
 * level, other candidates fail): energy, cycles, their product in J x
 * cycles, and the outermost level's reads, fills and updates.
 */
void mapper_metrics_of_ragged(const struct model_ragged_result *r, double *metrics);

/*
 * Order two evaluations by the metric priority list: Timeloop's rule (a
 * metric decides when it differs by more than 0.1%) made a total order by
 * comparing in 0.1% buckets, then exactly. Returns <0 when 'a' is better.
 */
int mapper_eval_compare(const struct mapper_eval *a, const struct mapper_eval *b,
			const enum spec_metric *metrics, unsigned n_metrics);

/* Free a mapspace. mapper_space_free(NULL) is a no-op. */
void mapper_space_free(struct mapper_space *ms);

/* Names for messages. */
const char *mapper_fail_name(enum mapper_fail f);
const char *mapper_stop_name(enum mapper_stop s);

#endif
