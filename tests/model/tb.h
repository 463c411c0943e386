/*
 * A test builder: spec sets written in C, without YAML, for the model's
 * unit tests. Fields are filled the way specs/ derives them (levels stored
 * innermost first, block size from width, fan-outs from the meshes).
 */
#ifndef TESTS_MODEL_TB_H
#define TESTS_MODEL_TB_H

#include "specs/spec.h"

#define TB_MAX_ACTIONS 16

struct tb {
	struct spec_set s;
	struct spec_level levels[SPEC_MAX_LEVELS];
	struct spec_tensor tensors[SPEC_MAX_TENSORS];
	struct spec_ert_table tables[SPEC_MAX_LEVELS + 1];
	struct spec_ert_action actions[SPEC_MAX_LEVELS + 1][TB_MAX_ACTIONS];
	struct spec_art_entry areas[SPEC_MAX_LEVELS + 1];
	struct spec_mapping m;
	char names[SPEC_MAX_LEVELS][32];
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
