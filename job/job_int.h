/*
 * Internals of job/: one runner per command and the helpers they share.
 * Each runner fills the summary and the outputs its options ask for and
 * returns the summary's status.
 */
#ifndef JOB_JOB_INT_H
#define JOB_JOB_INT_H

#include "job/job.h"

struct exec_options;
struct table;
struct model_options;
struct model_result;

/* The runners of Timeloop designs (the default kind). */
enum job_status job_run_model(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_map(const struct spec_set *s, const struct job_options *o,
			    struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_exec(const struct spec_set *s, const struct job_options *o,
			     struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_validate(const struct spec_set *s, const struct job_options *o,
				 struct job_summary *sum, struct job_outputs *out);
/* Accelergy's tables of the design: printed, and ERT/ART (+ summaries) as files (energy.c). */
enum job_status job_run_energy(const struct spec_set *s, const struct job_options *o,
			       struct job_summary *sum, struct job_outputs *out);

struct energy_tables;

/*
 * The energies of the model's options 'mo' (after job_model_options()):
 * the estimate of what the design's ERT/ART leave open (from o->energy_cache,
 * or built into '*own', which the caller frees with energy_tables_free()),
 * or the preset o names, with a warning per component it prices. Returns
 * JOB_OK, or JOB_BAD_INPUT with the diagnostics in out->diags (energy.c).
 */
enum job_status job_energy_prepare(const struct spec_set *s, const struct job_options *o,
				   struct model_options *mo, struct energy_tables **own,
				   struct job_summary *sum, struct job_outputs *out);

/* Set the summary's status and error text; returns 'st'. */
enum job_status job_fail(struct job_summary *sum, enum job_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* job_fail() with the message in 'why', which it releases; returns 'st'. */
enum job_status job_fail_with(struct job_summary *sum, enum job_status st, struct strbuf *why);

/* A new output file 'name' (a static string) of 'out'; its buffer. */
struct strbuf *job_out_file(struct job_outputs *out, const char *name);

/* The model's options from the job's. */
void job_model_options(const struct job_options *o, struct model_options *mo);

/* The executor's options from the job's. */
void job_exec_options(const struct job_options *o, struct exec_options *eo);

/* The loops of 'm' level by level, outermost first ("DRAM:Q2 P8 M4[W I O] | ..."). */
void job_describe_mapping(const struct spec_set *s, const struct spec_mapping *m,
			  struct strbuf *sb);

/* A model result with the mapping it is of: what the Timeloop kind's writers print. */
struct job_model_view {
	const struct spec_mapping *m;
	const struct model_result *r;
};

/*
 * Metrics, per-level energies (what bounds the run with o->roofline) and
 * the mapping 'm' of an EVAL_OK result 'r' into 'sum' (job/timeloop.c).
 */
void job_summarize_model(const struct spec_set *s, const struct job_options *o,
			 const struct spec_mapping *m, const struct model_result *r,
			 struct job_summary *sum);


/* ------------------------------------------------------ keys (hash.c) */

#define JOB_KEY_CHARS 32

/* A 128-bit hash being computed (not cryptographic: names designs and points). */
struct job_hash {
	uint64_t a, b;
};

void job_hash_init(struct job_hash *h);
void job_hash_add(struct job_hash *h, const void *data, size_t n);
/* Add a string with its length (NULL is distinct from ""). */
void job_hash_str(struct job_hash *h, const char *s);
/* Add the bytes of file 'path'. Returns 0, or -1 with 'err' filled. */
int job_hash_file(struct job_hash *h, const char *path, struct strbuf *err);
/* The hash as 32 hex digits. */
void job_hash_hex(const struct job_hash *h, char out[JOB_KEY_CHARS + 1]);
/* Add the text "PATH=VALUE" of path p and value v of an axis, as job_hash_str() would. */
void job_axis_hash_override(const struct job_axis *ax, size_t v, size_t p, struct job_hash *h);

/* A set of keys (32 hex digits each). */
struct job_key_set {
	size_t n, cap;
	char (*slots)[JOB_KEY_CHARS + 1];
};

#define JOB_KEY_SET_INIT { 0, 0, NULL }

void job_key_set_add(struct job_key_set *ks, const char *key);
bool job_key_set_has(const struct job_key_set *ks, const char *key);
void job_key_set_release(struct job_key_set *ks);

/*
 * Add what changes a job's result among 'o' (the command and its options,
 * not the threads nor the outputs) to 'h'.
 */
void job_hash_options(struct job_hash *h, const struct job_options *o);

/* ------------------------------------------------- the runner (runner.c) */

#define JOB_MAX_INPUTS 64

/* What the database and the stream get about job i, besides its summary. */
struct job_runner_row {
	uint64_t idx;                  /* the row's index in its run (default: the job's) */
	char key[JOB_KEY_CHARS + 1];
	const char *kind, *name, *parent, *tags, *command, *design_hash;
	struct strbuf overrides;       /* "PATH=VALUE" lines (reset before each describe) */
	const char *inputs[JOB_MAX_INPUTS];   /* values of the run's input columns */
};

/* The jobs of a run, as the runner sees them. */
struct job_runner_jobs {
	uint64_t n;
	void *ctx;
	const char *kind;              /* the run's: "sweep", "batch", "network" */
	const char *run_key;           /* the run's identity in the database */
	uint64_t stream_metrics;       /* the metrics of the streamed rows (job_stream_mask()) */
	size_t n_inputs;
	const char *const *input_names;
	/* the key of job i (of its first row; every rank can compute it) */
	void (*key)(void *ctx, uint64_t i, char key[JOB_KEY_CHARS + 1]);
	/* the rows of job i (NULL: one): identical layers of a network run once */
	unsigned (*n_rows)(void *ctx, uint64_t i);
	/* row k of job i (rank 0), with its index in the run */
	void (*describe)(void *ctx, uint64_t i, unsigned k, struct job_runner_row *row);
	/* per worker thread */
	void *(*ws_new)(void *ctx);
	void (*ws_free)(void *ctx, void *ws);
	/* run job i into 'sum'; false: it was interrupted, and its result is dropped */
	bool (*run)(void *ctx, void *ws, uint64_t i, struct job_summary *sum);
	/* rank 0: each finished job, after it was written; may be NULL */
	void (*take)(void *arg, uint64_t i, const struct job_summary *sum);
	void *take_arg;
};

/*
 * Run 'jobs' as 'o' says (every rank calls it): rank 0 opens the database,
 * skips the finished jobs, hands out the others to its threads and to the
 * other ranks, and writes every result as it comes. Returns 0, or -1 with
 * res->error (on every rank).
 */
int job_runner_go(const struct job_runner_jobs *jobs, const struct job_runner *o,
		  struct job_run_result *res);

/* ------------------------------------------ shared by sweep, batch, network */

/* The diagnostics of 'dl' as "file:line:col: error: ..." lines into 'buf' (truncated). */
void job_diag_text(const struct diag_list *dl, char *buf, size_t size);

/*
 * Run 'opts' on the set built from 'src' with ov[0..n_ov) into 'sum'; a set
 * that does not build gives a bad-input summary whose error is its
 * diagnostics. Returns false when 'stop' cut a search short (drop it).
 */
bool job_run_built(const struct spec_source *src, const struct spec_load_options *lo,
		   const struct spec_override *ov, size_t n_ov, const struct job_options *opts,
		   const atomic_int *stop, struct job_summary *sum);

/* 'o' for a job among many: nothing printed, one mapper thread unless given, 'stop'. */
void job_quiet_options(const struct job_options *o, const atomic_int *stop,
		       struct job_options *q);

/*
 * Parse the files of 'd' (templates rendered with its --var variables)
 * into a new source '*src' (freed by the caller in any case) and hash the
 * variables, the files' bytes and those of its tensor files into 'h'.
 * Returns 0, or -1 with diagnostics in 'dl'.
 */
int job_design_source(const struct job_design *d, struct spec_source **src,
		      struct job_hash *h, struct diag_list *dl);

/* ------------------------------------------------- networks (network.c) */

/* The layer files of a network and the distinct ones among them (its tasks). */
struct job_net_plan {
	struct arena arena;
	size_t n_files, alloc_files;
	const char **files;            /* in order */
	const char **names;            /* "resnet18/00" */
	char (*hash)[JOB_KEY_CHARS + 1];   /* of each file's bytes */
	size_t n_tasks;
	size_t *task_of;               /* per file: its task */
	size_t *task_file;             /* per task: its first file */
	unsigned *task_rows;           /* per task: its files */
};

/*
 * The layer files of items[0..n) (files, or directories of *.yaml files in
 * name order) into 'p' (released in any case). Returns 0, or -1 (dl).
 */
int job_net_plan_make(const char *const *items, size_t n, struct job_net_plan *p, struct diag_list *dl);
/* The k-th file of task 'task'. */
size_t job_net_plan_file(const struct job_net_plan *p, size_t task, unsigned k);
void job_net_plan_release(struct job_net_plan *p);

/* The key of the row of layer file 'file' of the network 'net_key'. */
void job_net_row_key(const char *net_key, const struct job_net_plan *p, size_t file,
		 char key[JOB_KEY_CHARS + 1]);

/*
 * Run 'opts' on the design 'd' (its files parsed afresh, its overrides)
 * with the layer file 'layer' replacing its problem (NULL: none) into
 * 'sum'. False when a stop cut it short.
 */
bool job_net_run_layer(const struct job_design *d, const char *layer,
		   const struct spec_load_options *lo, const struct job_options *opts,
		   const atomic_int *stop, struct job_summary *sum);

/* The network's totals of the layers sums[0..n) (NULL: not run) named names[]. */
void job_net_total(const struct job_summary *const *sums, const char *const *names, size_t n,
	       struct job_summary *t);

/* The summary of row 'r' of a results table (the metrics and level energies). */
void job_net_summary_of_row(const struct table *t, size_t r, struct job_summary *s);

/* ------------------------------------------------------------ rows (rows.c) */

struct json_writer;

/* The metrics of 'mask' of 's' as CSV fields, each after a comma (empty: none, or failed). */
void job_row_csv_metrics(const struct job_summary *s, uint64_t mask, struct strbuf *sb);

/* The metrics of 'mask' that 's' has as JSON members, then its levels ("energy_pj.LEVEL"). */
void job_row_json_metrics(const struct job_summary *s, uint64_t mask, struct json_writer *w);

/* ------------------------------------------------------- the database (results.c) */

struct store_schema;
struct store_value;

/* The metric columns of the results database: the vocabulary's, in its order. */
const struct store_schema *job_store_schema(void);

/*
 * The metrics of 's' as the database's values v[0..) (one per column of
 * job_store_schema(); NULL when 's' failed, is a check, or lacks it).
 */
void job_store_values(const struct job_summary *s, struct store_value *v);

/*
 * The combination of the successful summaries sums[0..n) into 't' (cleared
 * by the caller) as each metric's aggregation says: sums, cycle-weighted
 * means, derived metrics computed again, levels added up by name; a metric
 * some summary lacks is not in 't' (job/metric.c).
 */
void job_summary_combine(struct job_summary *t, const struct job_summary *const *sums, size_t n);

/* ---------------------------------------------------- MPI (mpi.c) */

/* A message to rank 0 from another rank. */
enum job_mpi_kind { JOB_MPI_NONE, JOB_MPI_REQUEST, JOB_MPI_RESULT, JOB_MPI_DONE };

struct job_mpi_msg {
	enum job_mpi_kind kind;
	unsigned from;
	unsigned count;                /* JOB_MPI_REQUEST: jobs wanted */
	uint64_t idx;                  /* JOB_MPI_RESULT */
	bool keep;
	struct job_summary *sum;       /* JOB_MPI_RESULT: the receiver's buffer */
};

/* Ranks on this node (1 without MPI). */
unsigned job_mpi_local_ranks(void);
/* Broadcast 'n' bytes of 'data' from rank 0. */
void job_mpi_bcast(void *data, size_t n);
/* Rank 0: the next message from another rank, if any (non-blocking). */
bool job_mpi_poll(struct job_mpi_msg *m);
/* Rank 0: jobs idx[0..n) for rank 'to' (n = 0: no more). */
void job_mpi_send_work(unsigned to, const uint64_t *idx, size_t n);
/* Other ranks: ask rank 0 for 'count' jobs. */
void job_mpi_request(unsigned count);
/* Other ranks: jobs from rank 0 into idx[0..cap), if a message came (non-blocking). */
bool job_mpi_poll_work(uint64_t *idx, size_t cap, size_t *n);
/* Other ranks: a finished job, and the end. */
void job_mpi_send_result(uint64_t idx, bool keep, const struct job_summary *sum);
void job_mpi_send_done(void);
/* Rank 0 receives 'n' bytes from every other rank into bufs[r] (r >= 1); others send. */
void job_mpi_gather(const void *mine, size_t n, void *const *bufs);

#endif
