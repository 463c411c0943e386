/*
 * Embedded energy presets: ERT-shaped tables built from public figures, so a
 * design with no Accelergy ERT still gets energies (docs/energy-presets.md
 * gives the source of every number). A preset table has exactly the shape of
 * a user ERT table (struct spec_ert_table), with Accelergy's action names and
 * the same unit: energy per *vector* access of a storage level (block_size
 * words of word_bits), per operation of the compute unit. A user ERT entry
 * always wins over a preset; the model decides that per component.
 * horowitz45 and accelergy45 are in pJ; eyeriss_norm is relative to one
 * 16-bit MAC (= 1). Everything here is pure: no allocation, no state.
 */
#ifndef MODEL_PRESET_INT_H
#define MODEL_PRESET_INT_H

#include "specs/spec.h"

/* Room for every action a preset table may hold. */
#define PRESET_MAX_ACTIONS 16

/* The presets, in the order of model_preset_names(). */
enum preset_id {
	PRESET_HOROWITZ45,    /* Horowitz ISSCC 2014, 45 nm, pJ */
	PRESET_ACCELERGY45,   /* Accelergy/Aladdin-style public 45 nm tables, pJ */
	PRESET_EYERISS_NORM,  /* Eyeriss normalized costs, 1 = one 16-bit MAC */
	PRESET_COUNT
};

/* The preset used when a design has no ERT at all and none is chosen. */
#define PRESET_DEFAULT PRESET_ACCELERGY45

/*
 * Index of the preset named 'name' (case and the '-'/'_' spelling ignored),
 * or -1 when there is none.
 */
int model_preset_find(const char *name);

/* The PRESET_COUNT preset names followed by NULL (for help and diag_suggest). */
const char *const *model_preset_names(void);

/* Name of preset 'preset' (0 <= preset < PRESET_COUNT). */
const char *model_preset_name(int preset);

/* Version of the preset's table, to record next to its name in outputs. */
const char *model_preset_version(int preset);

/* Unit of the preset's energies: "pJ", or "MAC16" (relative) for eyeriss_norm. */
const char *model_preset_unit(int preset);

/*
 * Fill '*out' with the table of storage level 'lvl' under 'preset'. Its
 * actions are written to 'actions' (borrowed by '*out'), and its names to
 * 'lvl' (borrowed too). Actions: read, write, update, leak; metadata_read,
 * metadata_write and metadata_update when the level declares metadata;
 * gated_* variants when the preset has gating figures. A dummy_storage level
 * gets zero energies.
 */
void model_preset_level_table(int preset, const struct spec_level *lvl,
			      struct spec_ert_table *out,
			      struct spec_ert_action actions[PRESET_MAX_ACTIONS]);

/*
 * Fill '*out' with the table of the compute unit 'c' under 'preset':
 * 'compute' (one MAC of c's width: word_bits, or the multiplier_width and
 * adder_width attributes when given; floating point when the class name
 * contains "fp" or "float"), and 'compute_gated' when the preset has it.
 * 'actions' and 'c' are borrowed as in model_preset_level_table().
 */
void model_preset_compute_table(int preset, const struct spec_compute *c,
				struct spec_ert_table *out,
				struct spec_ert_action actions[PRESET_MAX_ACTIONS]);

#endif
