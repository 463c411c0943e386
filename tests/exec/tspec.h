/*
 * Spec sets built by hand for the executor's tests: a workload from a
 * dimension string and projection strings, storage levels with keep masks,
 * and per-level temporal and spatial directives written as in a Timeloop
 * mapping ("K16 M1", permutation innermost first).
 */
#ifndef TESTS_EXEC_TSPEC_H
#define TESTS_EXEC_TSPEC_H

#include "specs/spec.h"

struct tspec {
	struct spec_set s;
	struct spec_level levels[SPEC_MAX_LEVELS];
	struct spec_tensor tensors[SPEC_MAX_TENSORS];
	struct spec_mapping m;
	struct spec_sparse_target targets[SPEC_MAX_LEVELS + 1];
	struct spec_tensor_format formats[SPEC_MAX_LEVELS + 1][SPEC_MAX_TENSORS];
	struct spec_saf_group groups[SPEC_MAX_LEVELS + 1][8];
	struct spec_saf_option options[SPEC_MAX_LEVELS + 1][8];
	char names[SPEC_MAX_DIMS][2];
};

/* Dimensions are one letter each ("CMRSNPQ"), bounds in the same order. */
void tspec_init(struct tspec *ts, const char *dims, const uint64_t *bounds);

/*
 * Add a tensor. 'proj' lists ranks separated by ',', terms by '+', and an
 * optional coefficient after '*': "N,C,P*2+R,Q*2+S". Returns its index.
 */
unsigned tspec_tensor(struct tspec *ts, const char *name, const char *proj, bool read_write);

/* Set a tensor's density model. */
void tspec_density(struct tspec *ts, unsigned t, enum spec_density_kind kind, double density);

/* N:M density for tensor 't': 'n' non-zeros in every 'm' along dimension 'dim'. */
void tspec_density_nm(struct tspec *ts, unsigned t, unsigned n, unsigned m, char dim);

/* Add a storage level (levels are added innermost first). Returns its index. */
unsigned tspec_level(struct tspec *ts, const char *name, uint64_t instances, unsigned block);

/* Tensors kept at 'level', as a string of tensor indexes ("02") or "*" for all. */
void tspec_keep(struct tspec *ts, unsigned level, const char *which);

/* Temporal / spatial directive of 'level'; factors "K16 M1", perm innermost first. */
void tspec_temporal(struct tspec *ts, unsigned level, const char *factors, const char *perm);
void tspec_spatial(struct tspec *ts, unsigned level, const char *factors, const char *perm,
		   unsigned split);

/* A format for tensor 't' at 'level': kinds outermost first ("UOP CP"). */
void tspec_format(struct tspec *ts, unsigned level, unsigned t, const char *kinds);

/* A named format for tensor 't' at 'level' (nm_n, nm_m for SPEC_NAMED_NM). */
void tspec_named_format(struct tspec *ts, unsigned level, unsigned t,
			enum spec_named_format named, unsigned nm_n, unsigned nm_m);

/* A SAF at 'level': target conditioned on the tensors of 'conds' ("0", "01"). */
void tspec_saf(struct tspec *ts, unsigned level, enum spec_saf_kind kind, unsigned target,
	       const char *conds);

/* Compute-level optimizations. */
void tspec_compute_opt(struct tspec *ts, bool gating, bool skipping);

/* Derive the loop nest; returns 0 or -1 when factors do not multiply out. */
int tspec_finish(struct tspec *ts);

/* Release what the spec set's arena owns (the struct itself is the caller's). */
void tspec_release(struct tspec *ts);

#endif
