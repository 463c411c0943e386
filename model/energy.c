/*
 * Per-action energies of every component, resolved once per spec set
 * (semantics 1.6). Each Timeloop action type takes the first entry of its
 * priority list that the component's table has; the table is the user's ERT,
 * or, for a component without one, the estimated table (energy/), or the
 * chosen energy preset (each treated exactly like an ERT). A level's
 * vector_access_energy attribute overrides them all. Areas: the user's ART,
 * a cluster_area/area attribute, then the estimate. The
 * fallback is per op, as in Timeloop: a random read, fill or update that the
 * table does not name costs the level's PAT vector energy, any other op 0.
 */
#include "model/model_int.h"

#include <string.h>

#include "model/preset_int.h"

/* Priority lists of ERT action names, NULL-terminated, per storage op. */
static const char *const *const storage_priority[MODEL_OP_COUNT] = {
	[MODEL_OP_RANDOM_READ] = (const char *const[]){ "random_read", "read", NULL },
	[MODEL_OP_GATED_READ] = (const char *const[]){ "gated_read", NULL },
	[MODEL_OP_SKIPPED_READ] = (const char *const[]){ "skipped_read", "gated_read", NULL },
	[MODEL_OP_RANDOM_FILL] = (const char *const[]){ "random_fill", "random_write", "fill",
							 "write", NULL },
	[MODEL_OP_GATED_FILL] = (const char *const[]){ "gated_fill", "gated_write", NULL },
	[MODEL_OP_SKIPPED_FILL] = (const char *const[]){ "skipped_fill", "skipped_write",
							  "gated_fill", "gated_write", NULL },
	[MODEL_OP_RANDOM_UPDATE] = (const char *const[]){ "random_update", "random_write",
							   "update", "write", NULL },
	[MODEL_OP_GATED_UPDATE] = (const char *const[]){ "gated_update", "gated_write", NULL },
	[MODEL_OP_SKIPPED_UPDATE] = (const char *const[]){ "skipped_update", "skipped_write",
							    "gated_update", "gated_write", NULL },
	[MODEL_OP_RANDOM_MD_READ] = (const char *const[]){ "random_metadata_read",
							    "metadata_read", NULL },
	[MODEL_OP_GATED_MD_READ] = (const char *const[]){ "gated_metadata_read", NULL },
	[MODEL_OP_SKIPPED_MD_READ] = (const char *const[]){ "skipped_metadata_read",
							     "gated_metadata_read", NULL },
	[MODEL_OP_RANDOM_MD_FILL] = (const char *const[]){ "random_metadata_fill",
							    "random_metadata_write", "metadata_fill",
							    "metadata_write", NULL },
	[MODEL_OP_GATED_MD_FILL] = (const char *const[]){ "gated_metadata_fill",
							   "gated_metadata_write", NULL },
	[MODEL_OP_SKIPPED_MD_FILL] = (const char *const[]){ "skipped_metadata_fill",
							     "skipped_metadata_write",
							     "gated_metadata_fill",
							     "gated_metadata_write", NULL },
	[MODEL_OP_RANDOM_MD_UPDATE] = (const char *const[]){ "random_metadata_update",
							      "random_metadata_write",
							      "metadata_update", "metadata_write",
							      NULL },
	[MODEL_OP_GATED_MD_UPDATE] = (const char *const[]){ "gated_metadata_update",
							     "gated_metadata_write", NULL },
	[MODEL_OP_SKIPPED_MD_UPDATE] = (const char *const[]){ "skipped_metadata_update",
							       "skipped_metadata_write",
							       "gated_metadata_update",
							       "gated_metadata_write", NULL },
	[MODEL_OP_DECOMPRESSION] = (const char *const[]){ "decompression_count", NULL },
	[MODEL_OP_COMPRESSION] = (const char *const[]){ "compression_count", NULL },
	[MODEL_OP_LEAK] = (const char *const[]){ "leak", NULL },
};

/* Compute ops: gated and skipped fall back to a full compute (semantics 1.6). */
static const char *const *const compute_priority[MODEL_COMPUTE_OP_COUNT] = {
	[MODEL_COMPUTE_RANDOM] = (const char *const[]){ "mac_random", "mult_random", "mac",
							"mult", "compute", NULL },
	[MODEL_COMPUTE_GATED] = (const char *const[]){ "mac_gated", "mult_gated",
						       "compute_gated", "mac", "mult",
						       "compute", NULL },
	[MODEL_COMPUTE_SKIPPED] = (const char *const[]){ "mac_skipped", "mult_skipped",
							 "compute_skipped", "mac_gated",
							 "mult_gated", "compute_gated", "mac",
							 "mult", "compute", NULL },
};

/* Energy of the first action of 'names' in table 't'; false if none. */
static bool lookup(const struct spec_ert_table *t, const char *const *names, double *e)
{
	size_t i;

	for (; *names; names++) {
		for (i = 0; i < t->n_actions; i++) {
			const char *a = t->actions[i].name;
			if (a[0] == (*names)[0] && !strcmp(a, *names)) {   /* most differ at once */
				*e = t->actions[i].energy_pj;
				return true;
			}
		}
	}
	return false;
}

static double table_max(const struct spec_ert_table *t)
{
	double m = 0;
	size_t i;

	for (i = 0; i < t->n_actions; i++)
		if (t->actions[i].energy_pj > m)
			m = t->actions[i].energy_pj;
	return m;
}

static bool is_data_op(enum model_op op)
{
	return op == MODEL_OP_RANDOM_READ || op == MODEL_OP_RANDOM_FILL ||
	       op == MODEL_OP_RANDOM_UPDATE;
}

/*
 * PAT's SRAM energy per access of 'width_bits' bits to an array of
 * 'height' rows (Timeloop's public PAT, semantics 1.6): a line through two
 * Eyeriss figures, 0.5 KiB -> 1.0 and 100 KiB -> 6.0 units of a 16-bit
 * access, y = 1 + (KiB - 0.5) * (6 - 1) / (100 - 0.5), then scaled to the
 * width: y * width / 16 pJ. Banks and ports do not enter.
 */
static double pat_sram_pj(uint64_t height, uint64_t width_bits)
{
	double kib = (double)(width_bits * height) / (8.0 * 1024.0);
	double y = (6.0 - 1.0) / (100.0 - 0.5) * (kib - 0.5) + 1.0;

	return y * (double)width_bits / 16.0;
}

/*
 * Timeloop's built-in (PAT) vector energy of a level, the price of a
 * random read, fill or update that the level's table does not name
 * (semantics 1.6). DRAM: 200 * width / 16 pJ with width = word_bits *
 * block_size. Any other technology: PAT's SRAM line for rows of
 * word_bits * block_size * cluster_size bits and ceil(size / block_size)
 * rows, divided by the cluster size; 0 for a level without a size.
 */
static double pat_vector_energy(const struct spec_level *lvl)
{
	uint64_t block = lvl->block_size ? lvl->block_size : 1;
	uint64_t cluster = lvl->cluster_size ? lvl->cluster_size : 1;
	uint64_t height;

	if (lvl->technology == SPEC_TECH_DRAM)
		return 200.0 * (double)(lvl->word_bits * lvl->block_size) / 16.0;
	if (!lvl->has_size || lvl->size_words == 0)
		return 0.0;
	height = lvl->size_words / block + (lvl->size_words % block != 0);
	return pat_sram_pj(height, lvl->word_bits * block * cluster) / (double)cluster;
}

/* Resolve every op of a level from table 't' (ERT or preset). */
static void level_from_table(const struct spec_level *lvl, const struct spec_ert_table *t,
			     struct level_energy *le)
{
	unsigned op;

	for (op = 0; op < MODEL_OP_COUNT; op++) {
		double e;
		if (lookup(t, storage_priority[op], &e))
			le->op_pj[op] = e;
		else
			le->op_pj[op] = is_data_op(op) ? pat_vector_energy(lvl) : 0.0;
	}
	le->vector_access_pj = table_max(t) / (double)(lvl->cluster_size ? lvl->cluster_size : 1);
}

/* A level whose only energy is one per-vector figure (user or PAT). */
static void level_from_vector(struct level_energy *le, double e)
{
	unsigned op;

	for (op = 0; op < MODEL_OP_COUNT; op++)
		le->op_pj[op] = is_data_op(op) ? e : 0.0;
	le->vector_access_pj = e;
}

/* Timeloop keeps areas in single precision; its printed values show it. */
static double area_as_timeloop(double a)
{
	return (double)(float)a;
}

static void prepare_level(struct model_ws *ws, unsigned l)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	struct level_energy *le = &ws->lev_energy[l];
	struct spec_ert_action acts[PRESET_MAX_ACTIONS];
	struct spec_ert_table pt;

	const struct energy_component *est = ws->opt.energy ? ws->opt.energy->level[l] : NULL;

	memset(le, 0, sizeof(*le));
	le->area_um2 = area_as_timeloop(lvl->art ? lvl->art->area_um2 :
					lvl->has_cluster_area ? lvl->cluster_area_um2 :
					est && est->has_area ? est->area_um2 : 0.0);
	if (lvl->has_vector_access_energy) {
		le->source = MODEL_ENERGY_USER;
		level_from_vector(le, lvl->vector_access_energy_pj);
	} else if (lvl->ert) {
		le->source = MODEL_ENERGY_ERT;
		level_from_table(lvl, lvl->ert, le);
	} else if (est && est->has_energy) {
		le->source = lvl->is_dummy ? MODEL_ENERGY_NONE : MODEL_ENERGY_ESTIMATE;
		if (!lvl->is_dummy)
			level_from_table(lvl, &est->ert, le);
	} else if (ws->preset >= 0) {
		model_preset_level_table(ws->preset, lvl, &pt, acts);
		le->source = lvl->is_dummy ? MODEL_ENERGY_NONE : MODEL_ENERGY_PRESET;
		level_from_table(lvl, &pt, le);
		if (!lvl->is_dummy)
			ws->preset_name = model_preset_name(ws->preset);
	} else {
		le->source = lvl->is_dummy ? MODEL_ENERGY_NONE : MODEL_ENERGY_PAT;
		level_from_vector(le, pat_vector_energy(lvl));
	}
}

/* Resolve the compute ops from table 't'. */
static void compute_from_table(struct model_ws *ws, const struct spec_ert_table *t)
{
	unsigned op;
	double any = table_max(t);

	for (op = 0; op < MODEL_COMPUTE_OP_COUNT; op++) {
		double e;
		if (lookup(t, compute_priority[op], &e))
			ws->compute_op_pj[op] = e;
		else
			ws->compute_op_pj[op] = op == MODEL_COMPUTE_RANDOM ? any : 0.0;
	}
}

static void prepare_compute(struct model_ws *ws)
{
	const struct spec_compute *c = &ws->s->arch.compute;
	struct spec_ert_action acts[PRESET_MAX_ACTIONS];
	struct spec_ert_table pt;

	const struct energy_component *est = ws->opt.energy ? ws->opt.energy->compute : NULL;

	memset(ws->compute_op_pj, 0, sizeof(ws->compute_op_pj));
	ws->compute_area_um2 = area_as_timeloop(c->art ? c->art->area_um2 :
						c->has_area ? c->area_um2 :
						est && est->has_area ? est->area_um2 : 0.0);
	if (c->has_energy) {
		ws->compute_source = MODEL_ENERGY_USER;
		ws->compute_op_pj[MODEL_COMPUTE_RANDOM] = c->energy_pj;
	} else if (c->ert) {
		ws->compute_source = MODEL_ENERGY_ERT;
		compute_from_table(ws, c->ert);
	} else if (est && est->has_energy) {
		ws->compute_source = MODEL_ENERGY_ESTIMATE;
		compute_from_table(ws, &est->ert);
	} else if (ws->preset >= 0) {
		model_preset_compute_table(ws->preset, c, &pt, acts);
		ws->compute_source = MODEL_ENERGY_PRESET;
		ws->preset_name = model_preset_name(ws->preset);
		compute_from_table(ws, &pt);
	} else {
		double w = (double)(c->word_bits ? c->word_bits : 16) / 16.0;
		ws->compute_source = MODEL_ENERGY_PAT;
		ws->compute_op_pj[MODEL_COMPUTE_RANDOM] = w * w;
	}
}

void model_energy_prepare(struct model_ws *ws)
{
	unsigned l;

	ws->preset_name = NULL;
	for (l = 0; l < ws->n_levels; l++)
		prepare_level(ws, l);
	prepare_compute(ws);
}
