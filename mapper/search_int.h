/*
 * Inside the search: a stream is one independent search (a random walk
 * with its own seed, or one slice of the factorizations in linear order);
 * it is cut into batches, fixed units of work that any thread may run.
 * A batch records the outcome of every candidate it visited, in order, and
 * the candidates that improved on the ones before them in the batch; the
 * coordinator replays batches in stream order, so stopping rules and the
 * best mapping do not depend on which thread ran what.
 */
#ifndef MAPPER_SEARCH_INT_H
#define MAPPER_SEARCH_INT_H

#include "mapper/mapspace_int.h"

#include <stdatomic.h>

#define MS_BATCH_RANDOM 64       /* candidates per batch: random, random-pruned */
#define MS_BATCH_HYBRID 4        /* factorization visits per batch: hybrid */
#define MS_BATCH_LINEAR 16       /* factorizations per batch: exhaustive, linear-pruned */

/* Outcome of one candidate: bits 0-7 level, 8-11 enum mapper_fail, 15 evaluated. */
#define MS_OC_EVALUATED 0x8000u
#define MS_OC(fail, level) ((uint16_t)(((unsigned)(fail) << 8) | ((level) & 0xffu)))
#define MS_OC_FAIL(oc) ((enum mapper_fail)(((oc) >> 8) & 0xfu))
#define MS_OC_LEVEL(oc) ((unsigned)((oc) & 0xffu))

/* A candidate that improved on every earlier one of its batch. */
struct ms_best {
	uint64_t pos;                /* index in the batch */
	struct ms_point pt;
	struct mapper_eval ev;
};

/* A visited candidate, kept only when the caller logs candidates. */
struct ms_record {
	bool has_point;              /* false: pruned before its orders existed */
	struct ms_point pt;
	struct mapper_eval ev;
};

struct ms_batch {
	unsigned stream;
	uint64_t index;              /* batch number within the stream */
	uint64_t n;                  /* candidates visited */
	uint16_t *outcome;
	size_t outcome_alloc;
	struct ms_best *bests;
	size_t n_bests, bests_alloc;
	struct ms_record *records;   /* n entries when recording */
	size_t records_alloc;
	bool partial;                /* cut short by a stop */
	bool end_of_stream;          /* nothing follows in its stream */
};

/* What one thread needs to run batches. */
struct ms_worker {
	const struct mapper_space *ms;
	const struct mapper_evaluator *ev;
	const struct mapper_options *o;
	void *ws;
	struct ms_if fi;
	struct spec_mapping m;
	const atomic_int *abort;
	bool record;
	unsigned n_streams;
};

/* True when 'a' is better than 'b': metrics, then the point's order. */
bool mapper_better(const struct mapper_options *o, const struct mapper_eval *a,
		   const struct ms_point *pa, const struct mapper_eval *b, const struct ms_point *pb);

/* Factorization range [*lo, *hi) of linear stream 'stream'. */
void mapper_stream_range(const struct mapper_space *ms, unsigned stream, unsigned n_streams,
			 uint64_t *lo, uint64_t *hi);

/* Batches in linear stream 'stream' (UINT64_MAX for random streams). */
uint64_t mapper_stream_batches(const struct mapper_space *ms, enum spec_search alg,
			       unsigned stream, unsigned n_streams);

/* Run batch 'b' (stream and index set; outputs empty). */
void mapper_batch_run(struct ms_worker *w, struct ms_batch *b);

/*
 * Refine each of 'starts' in place by steepest descent (refine.c) on
 * 'n_threads' threads, until no neighbour improves, the stop flag of 'o'
 * is raised or the monotonic clock passes 'deadline' (0 = none). Adds the
 * evaluations and steps to '*n_evals' and '*n_steps'. Returns 0, or -1 with
 * 'why' filled when a thread could not be started (the ones that did are
 * joined; 'starts' is then partly refined).
 */
int mapper_refine(const struct mapper_space *ms, const struct mapper_evaluator *ev,
		  const struct mapper_options *o, unsigned n_threads, double deadline,
		  struct ms_best *starts, unsigned n_starts, uint64_t *n_evals, uint64_t *n_steps,
		  char *why, size_t why_size);

/* Free batch 'b' and everything in it; mapper_batch_free(NULL) is a no-op. */
void mapper_batch_free(struct ms_batch *b);

#endif
