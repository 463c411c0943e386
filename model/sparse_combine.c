/*
 * Combining the optimizations in the model (semantics 4.5, 4.6): the
 * representation impact of compressed tiles, the propagation of every
 * optimization through the levels (saf/), the (de)compression counts, and
 * the compute classes.
 */
#include "model/sparse_int.h"

#include <math.h>
#include <string.h>

/* floor(x * f) for a count. */
static uint64_t floor_share(uint64_t x, double f)
{
	double v = floor((double)x * f);
	return v > 0 ? (v < (double)x ? (uint64_t)v : x) : 0;
}

/* Compressed tiles hold only the non-zeros: remove floor(x (1 - d)) accesses. */
static void representation_impact(struct model_tile *t, bool read_write)
{
	double sp = 1.0 - t->expected_density;

	t->actions[MODEL_OP_RANDOM_READ] = t->reads - floor_share(t->reads, sp);
	t->actions[MODEL_OP_RANDOM_FILL] = t->fills - floor_share(t->fills, sp);
	if (read_write)
		t->actions[MODEL_OP_RANDOM_UPDATE] = t->updates - floor_share(t->updates, sp);
}

/* Fill the propagation chain of tensor pv from the tiles. */
static void load_chain(struct model_ws *ws, unsigned pv, struct model_result *out)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++) {
		const struct model_tile *t = &out->tiles[l][pv];
		const struct sp_tile *st = &ws->sp->t[l][pv];
		struct saf_tile *c = &ws->sp->chain[l];
		c->is_kept = t->is_kept && t->shape;
		c->has_metadata = t->has_metadata;
		c->n_ranks = t->n_fmt_ranks;
		c->child = t->child_level;
		c->action = st->action;
		c->p = st->p;
		c->has_spatial = st->has_spatial;
		c->p_spatial = st->p_spatial;
		c->spatial_nested = (st->spatial_cond_mask & ~st->cond_mask) == 0;
		c->updates = t->updates;
		c->temporal_reductions = t->temporal_reductions;
		if (c->is_kept)
			memcpy(c->count, t->actions, sizeof(c->count));
		else
			memset(c->count, 0, sizeof(c->count));
		if (c->has_metadata)
			memcpy(c->fmt, t->fmt_access, sizeof(c->fmt));
	}
}

static void store_chain(struct model_ws *ws, unsigned pv, struct model_result *out)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++) {
		struct model_tile *t = &out->tiles[l][pv];
		const struct saf_tile *c = &ws->sp->chain[l];
		if (!t->is_kept)
			continue;
		t->temporal_reductions = c->temporal_reductions;
		memcpy(t->actions, c->count, sizeof(c->count));
		if (t->has_metadata)
			memcpy(t->fmt_access, c->fmt, sizeof(c->fmt));
	}
}

/*
 * (De)compression between a tile and its parent: an uncompressed tile
 * under a compressed parent decompresses what it receives and compresses
 * what it sends back (read-write); the reverse (a compressed tile under an
 * uncompressed parent, which Timeloop rejects) compresses on the way in.
 */
static void compression_counts(struct model_tile *t, const struct model_tile *parent,
			       bool read_write)
{
	if (!t->is_compressed && parent->is_compressed) {
		t->actions[MODEL_OP_DECOMPRESSION] += t->actions[MODEL_OP_RANDOM_FILL];
		if (read_write)
			t->actions[MODEL_OP_COMPRESSION] += parent->actions[MODEL_OP_RANDOM_UPDATE];
	} else if (t->is_compressed && !parent->is_compressed) {
		t->actions[MODEL_OP_COMPRESSION] += t->actions[MODEL_OP_RANDOM_FILL];
		if (read_write)
			t->actions[MODEL_OP_DECOMPRESSION] += t->actions[MODEL_OP_RANDOM_UPDATE];
	}
}

/* Does any level optimize the accesses of tensor pv? */
static bool has_saf(const struct model_ws *ws, unsigned pv)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		if (ws->sp->t[l][pv].action != SAF_NONE || ws->sp->t[l][pv].has_spatial)
			return true;
	return false;
}

/* Without optimizations: only the temporal reductions follow the updates. */
static void no_saf(struct model_ws *ws, unsigned pv, struct model_result *out)
{
	unsigned l;

	ws->sp->gs_saf[pv] = false;
	ws->sp->empty_cond_prob[pv] = 0;
	for (l = 0; l < ws->n_levels; l++) {
		struct model_tile *t = &out->tiles[l][pv];
		if (!t->is_kept || !t->updates)
			continue;
		t->temporal_reductions = (uint64_t)ceil((double)t->temporal_reductions *
							(double)t->actions[MODEL_OP_RANDOM_UPDATE] /
							(double)t->updates);
	}
}

/* Combine the optimizations of tensor pv over its levels. */
static void combine_tensor(struct model_ws *ws, unsigned pv, struct model_result *out,
			   struct saf_compute_effect *ce)
{
	bool rw = ws->proj[pv].read_write;
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		if (out->tiles[l][pv].is_kept && out->tiles[l][pv].has_metadata)
			representation_impact(&out->tiles[l][pv], rw);
	if (has_saf(ws, pv)) {
		load_chain(ws, pv, out);
		ce->gs_saf = false;
		ce->empty_cond_prob = 0;
		saf_propagate(ws->sp->chain, ws->n_levels, rw, ce);
		ws->sp->gs_saf[pv] = ce->gs_saf;
		ws->sp->empty_cond_prob[pv] = ce->empty_cond_prob;
		store_chain(ws, pv, out);
	} else {
		no_saf(ws, pv, out);
	}
	for (l = 0; l < ws->n_levels; l++) {
		struct model_tile *t = &out->tiles[l][pv];
		if (t->is_kept && t->parent_level >= 0)
			compression_counts(t, &out->tiles[t->parent_level][pv], rw);
	}
}

/* The conditions of the innermost optimization of tensor pv (0: none). */
static uint32_t bottom_conditions(const struct model_ws *ws, unsigned pv)
{
	unsigned l;
	for (l = 0; l < ws->n_levels; l++)
		if (ws->sp->t[l][pv].action != SAF_NONE)
			return ws->sp->t[l][pv].cond_mask;
	return 0;
}

/*
 * The computes lose the share of each read-only tensor's innermost
 * optimization (semantics 4.5b): once per set of conditions. Two operands
 * conditioned on each other (Timeloop's case) are two events; two operands
 * conditioned on the same tensor (SDDMM's dense factors, both on the mask)
 * are one, and the second must not remove its share again.
 */
void model_sparse_combine(struct model_ws *ws, struct model_result *out)
{
	struct saf_compute_effect ce = { out->compute.algorithmic, false, 0 };
	uint32_t applied[SPEC_MAX_TENSORS];
	unsigned pv, n_applied = 0, i;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		uint64_t before = ce.computes;
		uint32_t m;
		combine_tensor(ws, pv, out, &ce);
		if (ws->proj[pv].read_write || ce.computes == before)
			continue;
		m = bottom_conditions(ws, pv);
		if (!m)                /* spatial or position skipping: their own event */
			continue;
		for (i = 0; i < n_applied && applied[i] != m; i++)
			;
		if (i < n_applied)
			ce.computes = before;
		else
			applied[n_applied++] = m;
	}
	out->compute.random = ce.computes;
}

/* ------------------------------------------------------------------ compute */

/* The operand view of read-only tensor pv at its innermost kept level. */
static struct saf_operand operand(struct model_ws *ws, unsigned pv,
				  const struct model_result *out)
{
	static const uint64_t ones[SPEC_MAX_TENSOR_RANKS] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct density_tile one = density_tile_box(ws->s->workload.tensors[pv].n_ranks, ones);
	struct saf_operand o;
	int l = model_sparse_keeping_level(out, 0, pv);
	o.density = round(density_expected_occupancy(ws->sp->density[pv], &one) * 1e6) / 1e6;
	o.has_metadata = l >= 0 && out->tiles[l][pv].has_metadata;
	o.gs_saf = ws->sp->gs_saf[pv];
	o.empty_cond_prob = ws->sp->empty_cond_prob[pv];
	if ((ws->sp->pos_skipped >> pv) & 1) {   /* only its non-empty positions computed */
		o.density = 1.0;
		o.gs_saf = false;
		o.empty_cond_prob = 0;
	}
	return o;
}

/*
 * The operand that is never empty: the partner of a lone operand (a reduction
 * over one tensor, an elementwise stage) in the classification of two.
 */
static const struct saf_operand dense_operand = { 1.0, false, false, 0.0 };

/* True when read-only tensor pv is dense (density 1): never empty. */
static bool operand_is_dense(const struct model_ws *ws, unsigned pv)
{
	const struct spec_tensor *t = &ws->s->workload.tensors[pv];
	return t->density.kind == SPEC_DENSITY_FIXED_STRUCTURED && t->density.density >= 1.0;
}

void model_sparse_classify(struct model_ws *ws, struct model_result *out)
{
	struct model_compute *mc = &out->compute;
	unsigned ops[2], n = 0, n_sparse = 0, sparse_ops[2], pv;
	struct saf_operand a, b;
	struct saf_computes c;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		if (ws->proj[pv].read_write)
			continue;
		if (n < 2)
			ops[n] = pv;
		n++;
		if (!operand_is_dense(ws, pv)) {
			if (n_sparse < 2)
				sparse_ops[n_sparse] = pv;
			n_sparse++;
		}
	}
	if (n == 2) {                  /* Timeloop's case (semantics 4.6) */
		a = operand(ws, ops[0], out);
		b = operand(ws, ops[1], out);
	} else if (n == 1) {           /* one operand: its partner is never empty */
		a = operand(ws, ops[0], out);
		b = dense_operand;
	} else if (n > 2 && n_sparse <= 2) {   /* the operands that may be empty (SDDMM: S) */
		a = n_sparse ? operand(ws, sparse_ops[0], out) : dense_operand;
		b = dense_operand;
		if (n_sparse == 2) {
			b = operand(ws, sparse_ops[1], out);
		} else {
			/* a dense partner whose accesses were skipped on the sparse one's
			 * emptiness (SDDMM's factors on the mask): the computes lost that
			 * share already (the leader/follower correction) */
			for (pv = 0; pv < ws->n_tensors; pv++)
				if (!ws->proj[pv].read_write && operand_is_dense(ws, pv) &&
				    ws->sp->gs_saf[pv]) {
					b = operand(ws, pv, out);
					break;
				}
		}
	} else {
		return;
	}
	c = saf_classify_computes(&a, &b, ws->sp->compute_gating, ws->sp->compute_skipping,
				  mc->random);
	mc->random = c.random;
	mc->gated = c.gated;
	mc->skipped = c.skipped;
}
