/*
 * Test fixtures for the mapper: a matrix-multiply design built in C
 * (A[M,K] * B[K,N] -> Z[M,N], Z read-write) on a small storage hierarchy,
 * constraints added one by one, and a synthetic evaluator whose metrics are
 * a hash of the loop nest, so that every distinct mapping scores
 * differently and tests can predict the best one by brute force.
 */
#ifndef TESTS_MAPPER_FIXTURE_H
#define TESTS_MAPPER_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "mapper/mapper.h"
#include "specs/spec.h"

enum { FX_M, FX_K, FX_N };
enum { FX_A, FX_B, FX_Z };

struct fx_level {
	const char *name;
	bool has_size;
	uint64_t size_words;
	unsigned fanout_x, fanout_y;
	double min_utilization;
};

/* A matmul design with 'n_levels' storage levels (innermost first). */
struct spec_set *fx_matmul(uint64_t m, uint64_t k, uint64_t n, const struct fx_level *levels,
			   unsigned n_levels);

/* Append a constraint (its loc gets line 'line' of "constraints.yaml"). */
struct spec_constraint *fx_constraint(struct spec_set *s, enum spec_constraint_kind kind,
				      unsigned level, unsigned line);

/* Fix factor 'dim' = 'value' (0: the bound) in constraint 'c'. */
void fx_fix(struct spec_constraint *c, unsigned dim, uint64_t value);

/* Set the permutation of 'c' from a string of dimension letters ("MKN"). */
void fx_perm(struct spec_constraint *c, const char *dims);

/* A key of a derived mapping: its non-trivial loops and keep masks. */
uint64_t fx_mapping_key(const struct spec_mapping *m);

/* The metrics the fixture evaluator gives a mapping of key 'key'. */
void fx_metrics_of_key(uint64_t key, double *metrics);

/* The evaluator whose metrics are a function of fx_mapping_key(); when
 * 'ctx' points to an unsigned 'k' > 0, mappings with key % k == 0 fail. */
void fx_evaluator(struct mapper_evaluator *ev, const unsigned *fail_every);

/* Every distinct valid mapping key of the design, by brute force over full
 * permutations, splits and keep masks (independent of mapper/); sorted and
 * unique. Returns the count; *keys is malloc'ed. */
size_t fx_brute_keys(const struct spec_set *s, uint64_t **keys);

/* Sort and deduplicate; returns the new count. */
size_t fx_sort_unique(uint64_t *keys, size_t n);

#endif
