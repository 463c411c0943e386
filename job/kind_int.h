/*
 * The registry of design kinds (job/kinds.c): one row per kind of design
 * (Timeloop/Sparseloop, IPU PopSparse layer, Sparse-TPU, ...), naming its
 * loader (the spec_kind of specs/), its runner per command, its writers
 * and the metrics it reads from its results. job_run(), 'check', the
 * command names of sweep and batch, and the loads of job/ dispatch through
 * it; a kind's own files hold everything else about it. The recipe for a
 * new kind is the comment above the table in job/kinds.c.
 */
#ifndef JOB_KIND_INT_H
#define JOB_KIND_INT_H

#include "job/job.h"

/* What a getter found: the field of the metric's type. */
struct job_metric_value {
	double real;
	uint64_t count;
	const char *text;              /* copied into the summary (may point at 'buf') */
	char buf[JOB_TEXT_VALUES];     /* room for a text the getter makes */
};

/*
 * One metric read from a result of a kind: false when this result does
 * not provide it (the metric stays NULL). 'result' is the kind's own type.
 */
struct job_metric_get {
	enum job_metric_id id;
	bool (*get)(const struct spec_set *s, const void *result, struct job_metric_value *v);
};

/* The metrics one type of result provides (a model result, a search, an IPU plan ...). */
struct job_metric_set {
	const char *result;            /* the C type it reads, for people: "struct model_result" */
	unsigned commands;             /* the commands whose runs read it (bit per job_command) */
	bool roofline;                 /* read only with the roofline option */
	const struct job_metric_get *gets;
	size_t n_gets;
	/* the per-level energies (JOB_METRIC_LEVEL_ENERGY_PJ), or NULL */
	void (*levels)(const struct spec_set *s, const void *result, struct job_summary *sum);
};

#define JOB_COMMAND_BIT(c) (1u << (c))
#define JOB_MODEL_COMMANDS (JOB_COMMAND_BIT(JOB_MODEL) | JOB_COMMAND_BIT(JOB_EXEC) | \
			    JOB_COMMAND_BIT(JOB_VALIDATE))

/* A command of a kind: fill 'sum' and the outputs 'o->want' asks for; the status. */
typedef enum job_status job_kind_run_fn(const struct spec_set *s, const struct job_options *o,
					struct job_summary *sum, struct job_outputs *out);

/* How a kind's result is printed ('result' is the kind's own type; 'o' gives the files). */
struct job_kind_writers {
	void (*text)(const struct spec_set *s, const void *result, const struct job_options *o,
		     struct strbuf *out);
	void (*json)(const struct spec_set *s, const void *result, const struct job_options *o,
		     struct strbuf *out);
	void (*csv_header)(const struct spec_set *s, struct strbuf *out);
	void (*csv_row)(const struct spec_set *s, const void *result, struct strbuf *out);
};

/* A row of the registry. */
struct job_kind {
	const char *name;              /* = spec->name: "timeloop", "ipu", "stpu" */
	const char *summary;           /* one line, for people */
	const struct spec_kind *spec;  /* its loader (specs/) */
	const char *command;           /* its own command ('fiberloop stpu'): 'model' on a
					  design of this kind; NULL: none */
	const char *missing;           /* that command's error on a design of another kind */
	/* per command but check: its runner (a sweep point and a batch job run the same);
	   NULL: the command does not apply, and refuse[] says why */
	job_kind_run_fn *run[JOB_COMMAND_COUNT];
	const char *refuse[JOB_COMMAND_COUNT];
	/* 'check': the design as parsed, as text and as one line of JSON */
	void (*design_text)(const struct spec_set *s, struct strbuf *out);
	void (*design_json)(const struct spec_set *s, struct strbuf *out);
	const struct job_kind_writers *writers;
	/* what its results provide, NULL-ended */
	const struct job_metric_set *const *metrics;
};

/* The table, NULL-ended, the default kind (Timeloop's) first (job/kinds.c). */
extern const struct job_kind *const job_kinds[];

/* The row of the kind named 'name', or NULL. */
const struct job_kind *job_kind_find(const char *name);

/* The row of the kind of the design 's'. */
const struct job_kind *job_kind_of(const struct spec_set *s);

/*
 * Print 'result' with the writers 'w' as o->format asks (text, JSON, or a
 * CSV header and row) into out->print, when o->want has JOB_WANT_PRINT.
 */
void job_kind_print(const struct job_kind_writers *w, const struct spec_set *s,
		    const void *result, const struct job_options *o, struct job_outputs *out);

/* 'check' of the design 's' of kind 'k': its writers' text or JSON (check.c). */
enum job_status job_run_check(const struct job_kind *k, const struct spec_set *s,
			      const struct job_options *o, struct job_outputs *out);

/* What Timeloop designs' results give (timeloop_results.c): a model result, seen through
   the roofline, a search, an execution; and the writers of a struct job_model_view. */
extern const struct job_metric_set job_metrics_model;
extern const struct job_metric_set job_metrics_roofline;
extern const struct job_metric_set job_metrics_search;
extern const struct job_metric_set job_metrics_exec;
extern const struct job_kind_writers job_timeloop_writers;

/* Set the metrics (and levels) 'set' reads from 'result' in 'sum'. */
void job_summary_fill(struct job_summary *sum, const struct job_metric_set *set,
		      const struct spec_set *s, const void *result);

/* Set one metric of 'sum' (the field of its type); a text that does not fit fails the job. */
void job_summary_set(struct job_summary *sum, enum job_metric_id m,
		     const struct job_metric_value *v);

/* Add a level (outermost last) with its energy; a name that does not fit fails the job. */
void job_summary_add_level(struct job_summary *sum, const char *name, double energy_pj);

/* Getters of a metric that is a field of the result type: GET_REAL(fn, type, expr of 'r'). */
#define JOB_GET_REAL(fn, type, expr)                                                          \
	static bool fn(const struct spec_set *s_, const void *r_, struct job_metric_value *v)  \
	{                                                                                      \
		const type *r = r_;                                                            \
		(void)s_;                                                                      \
		v->real = (double)(expr);                                                      \
		return true;                                                                   \
	}
#define JOB_GET_COUNT(fn, type, expr)                                                         \
	static bool fn(const struct spec_set *s_, const void *r_, struct job_metric_value *v)  \
	{                                                                                      \
		const type *r = r_;                                                            \
		(void)s_;                                                                      \
		v->count = (uint64_t)(expr);                                                   \
		return true;                                                                   \
	}

#endif
