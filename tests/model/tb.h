/*
 * A test builder: spec sets written in C, without YAML, for the model's
 * unit tests. Fields are filled the way specs/ derives them (levels stored
 * innermost first, block size from width, fan-outs from the meshes).
 */
#ifndef TESTS_MODEL_TB_H
#define TESTS_MODEL_TB_H

#include "specs/spec.h"

#define TB_MAX_ACTIONS 16
#define TB_MAX_GROUPS 8

struct tb {
	struct spec_set s;
	struct spec_level levels[SPEC_MAX_LEVELS];
	struct spec_tensor tensors[SPEC_MAX_TENSORS];
	struct spec_ert_table tables[SPEC_MAX_LEVELS + 1];
	struct spec_ert_action actions[SPEC_MAX_LEVELS + 1][TB_MAX_ACTIONS];
	char action_names[SPEC_MAX_LEVELS + 1][TB_MAX_ACTIONS][40];
	struct spec_art_entry areas[SPEC_MAX_LEVELS + 1];
	struct spec_mapping m;
	char names[SPEC_MAX_LEVELS][32];
	/* sparse optimizations (tb_format, tb_saf, tb_compute_opt) */
	struct spec_sparse_target targets[SPEC_MAX_LEVELS + 1];   /* by level */
	struct spec_sparse_target target_list[SPEC_MAX_LEVELS + 1];
	struct spec_tensor_format formats[SPEC_MAX_LEVELS + 1][SPEC_MAX_TENSORS];
	struct spec_saf_group groups[SPEC_MAX_LEVELS + 1][TB_MAX_GROUPS];
	struct spec_saf_option options[SPEC_MAX_LEVELS + 1][TB_MAX_GROUPS];
};

/* Start an empty design. */
void tb_init(struct tb *b);

/* Add a dimension; returns its index. */
unsigned tb_dim(struct tb *b, const char *name, uint64_t bound);

/* Add a tensor with projection "R0,R1,..." where a rank is "c*D+c*D" or "D". */
unsigned tb_tensor(struct tb *b, const char *name, bool read_write, const char *proj);

/*
 * Add a storage level OUTSIDE the previous ones (call innermost first).
 * depth 0 = unbounded (DRAM). Returns the level to adjust further.
 */
struct spec_level *tb_level(struct tb *b, const char *name, unsigned depth,
			    unsigned width_bits, unsigned word_bits, unsigned mesh_x,
			    unsigned mesh_y);

/* The compute unit. */
void tb_compute(struct tb *b, const char *name, unsigned mesh_x, unsigned mesh_y);

/* ERT actions "read=1.5 write=2 leak=0.1" for level l (or -1: the compute). */
void tb_ert(struct tb *b, int l, const char *actions);

/* Tensors kept at level l: a space-separated list of names. */
void tb_keep(struct tb *b, unsigned l, const char *names);

/* Temporal or spatial factors "C3 M4" and permutation "CM..." (innermost first). */
void tb_temporal(struct tb *b, unsigned l, const char *factors, const char *perm);
void tb_spatial(struct tb *b, unsigned l, const char *factors, const char *perm,
		unsigned split);

/* A fixed_structured density for tensor 'name'. */
void tb_density(struct tb *b, const char *name, double density);

/*
 * The representation format of tensor 'name' at level l: rank formats
 * outermost first ("UOP CP"), or a named format ("CSR", "bitmask", "2:4").
 * Switches the design to the sparse layout.
 */
void tb_format(struct tb *b, unsigned l, const char *name, const char *ranks);

/* An action optimization group of one option at level l: target on "A B". */
void tb_saf(struct tb *b, unsigned l, enum spec_saf_kind kind, const char *target,
	    const char *conditions);

/* Compute optimizations of the compute unit. */
void tb_compute_opt(struct tb *b, bool gating, bool skipping);

/* Finish: fan-outs, derived mapping. Returns 0 or -1 (factors do not multiply). */
int tb_finish(struct tb *b);

/* Build the conformance design simple_weight_stationary with its map.yaml. */
void tb_simple_weight_stationary(struct tb *b);

#endif

struct rng;

/*
 * Replace the mapping of 'b' with a random valid one: every dimension's
 * bound split over the levels' temporal and spatial factors (spatial ones
 * within each level's fan-out), random permutations, splits and bypasses.
 * Returns 0, or -1 if the derived mapping is invalid (a bug).
 */
int tb_random_mapping(struct tb *b, struct rng *r);

/* A small design with spatial fan-out at levels 0 and 2 (C, M, P, R conv1d). */
void tb_mini(struct tb *b);

/*
 * Sparseloop's 02.2.2-spMspM-tiled, dense part: Z[M,N] = A[M,K] B[N,K],
 * 8 x 8 x 8, A 0.25 and B 0.5 (fixed), Buffer (keeps B, Z; M8 N2 K8) under
 * BackingStorage (N4), both with metadata storage, the reference ERT. The
 * caller adds formats and optimizations, then calls tb_finish().
 */
void tb_spmspm(struct tb *b);
