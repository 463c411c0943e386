/*
 * Internals of job/: one runner per command and the helpers they share.
 * Each runner fills the summary and the outputs its options ask for and
 * returns the summary's status.
 */
#ifndef JOB_JOB_INT_H
#define JOB_JOB_INT_H

#include "job/job.h"

struct exec_options;
struct model_options;
struct model_result;

enum job_status job_run_check(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_model(const struct spec_set *s, const struct job_options *o,
			      struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_map(const struct spec_set *s, const struct job_options *o,
			    struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_exec(const struct spec_set *s, const struct job_options *o,
			     struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_validate(const struct spec_set *s, const struct job_options *o,
				 struct job_summary *sum, struct job_outputs *out);
/* A Sparse-TPU design (s->stpu, no architecture) for model, exec, validate (job/stpu.c). */
enum job_status job_run_stpu(const struct spec_set *s, const struct job_options *o,
			     struct job_summary *sum, struct job_outputs *out);
enum job_status job_run_ipu(const struct spec_set *s, const struct job_options *o,
			    struct job_summary *sum, struct job_outputs *out);

/* Set the summary's status and error text; returns 'st'. */
enum job_status job_fail(struct job_summary *sum, enum job_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A new output file 'name' (a static string) of 'out'; its buffer. */
struct strbuf *job_out_file(struct job_outputs *out, const char *name);

/* The model's options from the job's. */
void job_model_options(const struct job_options *o, struct model_options *mo);

/* The executor's options from the job's. */
void job_exec_options(const struct job_options *o, struct exec_options *eo);

/* The loops of 'm' level by level, outermost first ("DRAM:Q2 P8 M4[W I O] | ..."). */
void job_describe_mapping(const struct spec_set *s, const struct spec_mapping *m,
			  struct strbuf *sb);

/* Metrics, per-level energies and the mapping of an EVAL_OK result into 'sum'. */
void job_summarize_model(const struct spec_set *s, const struct spec_mapping *m,
			 const struct model_result *r, struct job_summary *sum);

#endif
