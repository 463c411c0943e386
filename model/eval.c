/*
 * Micro-architectural evaluation of the collapsed tiles (semantics 3): the
 * arithmetic level, then every storage level's vector accesses, energy,
 * bandwidth and cycles. The feasibility checks are in model/check.c.
 */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

/* The level whose instances run in waves (concurrent_instances), or -1. */
static int wave_level(const struct model_ws *ws)
{
	return ws->wave_first;
}

/*
 * Waves (docs/model.md, "Waves"): a mapping may spread P logical instances
 * of the wave level (a GPU's thread blocks over its SMs) over its
 * concurrent_instances C; they run in ceil(P / C) rounds, each as long as
 * one instance's work. Returns the rounds (1 without a wave level) and the
 * arithmetic units that run at once into '*physical'.
 */
static uint64_t waves(const struct model_ws *ws, uint64_t *physical)
{
	const struct spec_arch *a = &ws->s->arch;
	int w = wave_level(ws);
	uint64_t used, conc;

	*physical = a->compute.instances;
	if (w < 0)
		return 1;
	conc = a->levels[w].concurrent_instances;
	used = ws->lv[w].max_x * ws->lv[w].max_y;
	*physical = a->compute.instances / a->levels[w].instances * conc;
	return used > conc ? (used + conc - 1) / conc : 1;
}

/*
 * Compute cycles per wave: Timeloop's ceil((random + gated) / utilized
 * instances), or the temporal iterations of an imperfect mapping; under
 * position skipping at least the packed steps, ceil(algorithmic x ratio /
 * utilized instances) (model_sparse_position_ratio(); skipped computes
 * cost no cycle only where the hardware packs the survivors).
 */
static uint64_t cycles_per_wave(const struct model_ws *ws, const struct model_compute *mc)
{
	uint64_t busy = mc->random + mc->gated, rep = (uint64_t)mc->avg_replication, cyc;
	double ratio = model_sparse_position_ratio(ws), packed;

	if (ws->exact) {   /* the steps that run, the share of them with a busy compute */
		double steps = (double)ws->temporal_steps;
		if (busy >= mc->algorithmic)
			return ws->temporal_steps;
		return (uint64_t)ceil(steps * (double)busy / (double)mc->algorithmic - 1e-9);
	}
	if (ws->m->is_imperfect)
		return mc->max_temporal_iterations;
	cyc = rep ? (busy + rep - 1) / rep : 0;
	if (ratio < 1.0 && rep) {
		packed = ceil((double)mc->algorithmic * ratio / (double)rep - 1e-9);
		if (packed > (double)cyc)
			cyc = (uint64_t)packed;
	}
	return cyc;
}

void model_eval_compute(struct model_ws *ws, struct model_result *out)
{
	struct model_compute *mc = &out->compute;
	uint64_t busy = mc->random + mc->gated, physical;

	mc->energy_source = ws->compute_source;
	memcpy(mc->op_energy_pj, ws->compute_op_pj, sizeof(mc->op_energy_pj));
	mc->max_temporal_iterations = ws->max_temporal_iterations;
	mc->waves = waves(ws, &physical);
	mc->cycles_per_wave = cycles_per_wave(ws, mc);
	mc->cycles = mc->cycles_per_wave * mc->waves;
	mc->ideal_cycles = physical ? (double)busy / (double)physical : 0;
	mc->energy_pj = (double)mc->random * mc->op_energy_pj[MODEL_COMPUTE_RANDOM] +
			(double)mc->gated * mc->op_energy_pj[MODEL_COMPUTE_GATED] +
			(double)mc->skipped * mc->op_energy_pj[MODEL_COMPUTE_SKIPPED];
	mc->area_um2 = ws->compute_area_um2;
}

/* Which format table feeds a metadata op, and the data op of a data op. */
static void op_split(unsigned op, unsigned *fop, unsigned *fclass)
{
	unsigned k = op - MODEL_OP_RANDOM_MD_READ;
	*fop = k / 3;
	*fclass = k % 3;
}

/* Bits moved by one format op class (semantics 3.2, format ops). */
static uint64_t fmt_bits(const struct model_tile *t, unsigned fop, unsigned fclass)
{
	uint64_t bits = 0;
	unsigned r;

	for (r = 0; r < t->n_fmt_ranks && r < MODEL_MAX_FMT_RANKS; r++)
		bits += t->fmt_access[fop][fclass][r][0] * t->fmt_md_bits[r] +
			t->fmt_access[fop][fclass][r][1] * t->fmt_pl_bits[r];
	return bits;
}

/* Vector accesses of one op of a tile at a level. */
static double vector_accesses(const struct spec_level *lvl, const struct model_tile *t,
			      unsigned op)
{
	if (op <= MODEL_OP_SKIPPED_UPDATE) {
		uint64_t n = t->actions[op];
		uint64_t b = lvl->block_size ? lvl->block_size : 1;
		if (n == 0 || t->shape == 0)
			return (double)n;
		return (double)((n + b - 1) / b) * t->vector_ratio;
	}
	if (op <= MODEL_OP_SKIPPED_MD_UPDATE) {
		unsigned fop, fclass;
		uint64_t bits, w = lvl->metadata_storage_width;
		op_split(op, &fop, &fclass);
		bits = fmt_bits(t, fop, fclass);
		return w ? (double)((bits + w - 1) / w) : 0.0;
	}
	if (op == MODEL_OP_LEAK)
		return 0.0;
	return (double)t->actions[op];
}

/* Energy, address generations and clusters of one kept tile. */
static void tile_energy(struct model_ws *ws, unsigned l, struct model_tile *t)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	const struct level_energy *le = &ws->lev_energy[l];
	uint64_t xy = t->max_x * t->max_y, clusters;
	double e = 0, actual;
	unsigned op;

	clusters = lvl->instances / (lvl->cluster_size ? lvl->cluster_size : 1);
	t->utilized_clusters = xy < clusters ? xy : clusters;
	if (ws->sp) {
		for (op = 0; op <= MODEL_OP_SKIPPED_UPDATE; op++)
			if (t->actions[op])
				e += vector_accesses(lvl, t, op) * le->op_pj[op];
	} else {
		/* dense: no gated or skipped actions; the same terms in the same order */
		for (op = MODEL_OP_RANDOM_READ; op <= MODEL_OP_RANDOM_UPDATE; op += 3)
			if (t->actions[op])
				e += vector_accesses(lvl, t, op) * le->op_pj[op];
	}
	for (op = MODEL_OP_RANDOM_MD_READ; t->n_fmt_ranks && op <= MODEL_OP_SKIPPED_MD_UPDATE; op++)
		e += vector_accesses(lvl, t, op) * le->op_pj[op];
	for (op = MODEL_OP_DECOMPRESSION; op <= MODEL_OP_COMPRESSION; op++)
		if (t->actions[op])
			e += vector_accesses(lvl, t, op) * le->op_pj[op];
	e *= t->confidence;
	if (t->avg_replication > 0 && t->utilized_clusters)
		t->energy_pj = e / ((double)xy / (double)t->utilized_clusters);
	t->energy_total_pj = t->energy_pj * t->avg_replication;
	actual = (double)(t->actions[MODEL_OP_RANDOM_READ] + t->actions[MODEL_OP_RANDOM_FILL] +
			  t->actions[MODEL_OP_RANDOM_UPDATE]);
	t->energy_per_access_pj = actual > 0 ? t->energy_pj / actual : 0;
	t->temporal_reduction_energy_pj = 0;   /* adder energy is 0 (semantics 3.3) */
	t->addr_gen_energy_pj = lvl->addr_gen_energy_pj >= 0 ?
		(double)t->address_generations * lvl->addr_gen_energy_pj : 0;
}

static void tile_addresses(const struct model_ws *ws, unsigned pv, struct model_tile *t)
{
	const uint64_t *a = t->actions;

	if (ws->proj[pv].read_write)
		t->address_generations = a[MODEL_OP_RANDOM_UPDATE] + a[MODEL_OP_GATED_UPDATE] +
					 a[MODEL_OP_RANDOM_FILL] + a[MODEL_OP_GATED_FILL];
	else
		t->address_generations = a[MODEL_OP_RANDOM_READ] + a[MODEL_OP_GATED_READ] +
					 a[MODEL_OP_RANDOM_FILL] + a[MODEL_OP_GATED_FILL];
}

/*
 * Unthrottled words per cycle one instance reads and writes (semantics 3.5).
 * The format shares of the breakdown lines divide the format words by the
 * words of the same direction; the shared one turns the read and write
 * format bits into words together, (rbits + wbits) div word_bits, as
 * Timeloop head does (own-pat-fallback-inner-to-outer: 968 bits are 121
 * words, not 60 + 60), over the separately rounded read + write words.
 */
static void tile_bandwidth(const struct spec_level *lvl, unsigned pv, struct model_tile *t,
			   uint64_t compute_cycles, double *rd, double *wr, double *rwords,
			   double *wwords)
{
	const uint64_t *a = t->actions;
	uint64_t wb = lvl->word_bits ? lvl->word_bits : 1, rbits = 0, wbits = 0;
	double r, w, scale = t->avg_replication > 0 ?
		   (double)(t->max_x * t->max_y) / t->avg_replication : 1.0;

	if (t->n_fmt_ranks) {
		rbits = fmt_bits(t, MODEL_FMT_READ, MODEL_FMT_ACTUAL) +
			fmt_bits(t, MODEL_FMT_READ, MODEL_FMT_GATED);
		wbits = fmt_bits(t, MODEL_FMT_FILL, MODEL_FMT_ACTUAL) +
			fmt_bits(t, MODEL_FMT_FILL, MODEL_FMT_GATED) +
			fmt_bits(t, MODEL_FMT_UPDATE, MODEL_FMT_ACTUAL) +
			fmt_bits(t, MODEL_FMT_UPDATE, MODEL_FMT_GATED);
	}
	r = (double)(a[MODEL_OP_RANDOM_READ] + a[MODEL_OP_GATED_READ] + rbits / wb);
	w = (double)(a[MODEL_OP_RANDOM_FILL] + a[MODEL_OP_GATED_FILL] +
		     a[MODEL_OP_RANDOM_UPDATE] + a[MODEL_OP_GATED_UPDATE] + wbits / wb);
	if (rbits | wbits) {
		t->fmt_read_ratio = r > 0 ? (double)(rbits / wb) / r : 0;
		t->fmt_write_ratio = w > 0 ? (double)(wbits / wb) / w : 0;
		t->fmt_shared_ratio = r + w > 0 ? (double)((rbits + wbits) / wb) / (r + w) : 0;
	} else {
		t->fmt_read_ratio = t->fmt_write_ratio = t->fmt_shared_ratio = 0;
	}
	if (scale != 1.0) {   /* r and w are whole numbers: ceil() would keep them */
		r = ceil(r / scale);
		w = ceil(w / scale);
	}
	t->bw_consumption_scale = lvl->bw_consumption_scale[pv] > 0 ?
				  lvl->bw_consumption_scale[pv] : 1.0;
	*rd = compute_cycles ? r / (double)compute_cycles * t->bw_consumption_scale : 0;
	*wr = compute_cycles ? w / (double)compute_cycles * t->bw_consumption_scale : 0;
	*rwords = r * t->bw_consumption_scale;
	*wwords = w * t->bw_consumption_scale;
}

/* Cycles that 'read' and 'write' words per instance need at level l's bandwidths; 0: unlimited. */
static double bw_cycles(const struct spec_level *lvl, double read, double write)
{
	double c = 0, x;

	/* words and bandwidths are finite and >= 0: a comparison is fmax() */
	if (lvl->has_read_bw && lvl->read_bw_words_per_cycle > 0 &&
	    (x = read / lvl->read_bw_words_per_cycle) > c)
		c = x;
	if (lvl->has_write_bw && lvl->write_bw_words_per_cycle > 0 &&
	    (x = write / lvl->write_bw_words_per_cycle) > c)
		c = x;
	if (lvl->has_shared_bw && lvl->shared_bw_words_per_cycle > 0 &&
	    (x = (read + write) / lvl->shared_bw_words_per_cycle) > c)
		c = x;
	return c;
}

/*
 * The fill latency bound of level l per instance (docs/model.md, "Fill
 * latency"): each of its n tile fills (fills / tile points, the largest over
 * its tensors) waits fill_latency cycles for its data; the tiles stream
 * through as many buffers as its capacity holds, stages = floor(effective
 * size / the tiles' words), so stages - 1 fills are in flight while one
 * tile is used (Little's law), and the first fill is waited for before any
 * work starts (the pipeline's prologue):
 *     latency x (1 + n / max(stages - 1, 1))
 * At or below a wave level with serial_prologue_epilogue the first fill is
 * the prologue's, added to the run rather than bounding it (model/gpu.c),
 * and the bound is latency x n / max(stages - 1, 1).
 * 0 without a fill_latency or a size.
 */
static uint64_t latency_bound(const struct model_ws *ws, unsigned l,
			      const struct model_result *out)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	uint64_t need = 0, n = 0, stages;
	double wait;
	unsigned pv;
	int w;

	if (!lvl->fill_latency_cycles || !lvl->has_size)
		return 0;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		if (!t->is_kept || !t->shape)
			continue;
		need += t->utilized_capacity;
		if ((t->fills + t->shape - 1) / t->shape > n)
			n = (t->fills + t->shape - 1) / t->shape;
	}
	if (!need || !n)
		return 0;
	stages = lvl->effective_size_words / need;
	w = wave_level(ws);
	wait = ceil((double)n * (double)lvl->fill_latency_cycles /
		    (double)(stages > 2 ? stages - 1 : 1));
	/* the first fill: in the prologue when the blocks' prologue is serial (model/gpu.c) */
	if (w < 0 || (int)l > w || !ws->s->arch.levels[w].serial_prologue_epilogue)
		wait += (double)lvl->fill_latency_cycles;
	return wait < 0x1p64 ? (uint64_t)wait : UINT64_MAX;   /* too large: the caller fails */
}

/* Bandwidth throttling of level l (semantics 3.5). */
static void level_bandwidth(struct model_ws *ws, unsigned l, struct model_result *out)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	struct model_level *ml = &out->levels[l];
	double rd[SPEC_MAX_TENSORS], wr[SPEC_MAX_TENSORS], sr = 0, sw = 0, slow = 1.0;
	double rw, ww, c;
	int w = wave_level(ws);
	uint64_t cc = out->compute.cycles, nw = 1, lat;
	unsigned pv;

	if (w >= 0 && (int)l <= w) {   /* per logical instance: one wave's cycles */
		cc = out->compute.cycles_per_wave;
		nw = out->compute.waves;
	}
	ml->read_words = ml->write_words = ml->total_words = 0;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		rd[pv] = wr[pv] = 0;
		if (out->tiles[l][pv].is_kept) {
			tile_bandwidth(lvl, pv, &out->tiles[l][pv], cc, &rd[pv], &wr[pv], &rw, &ww);
			ml->read_words += rw * (double)nw;
			ml->write_words += ww * (double)nw;
			ml->total_words += (rw + ww) * out->tiles[l][pv].avg_replication;
		}
		sr += rd[pv];
		sw += wr[pv];
	}
	ml->bw_cycles = bw_cycles(lvl, ml->read_words, ml->write_words);
	if (lvl->has_read_bw && lvl->read_bw_words_per_cycle < sr)
		slow = fmin(slow, lvl->read_bw_words_per_cycle / sr);
	if (lvl->has_write_bw && lvl->write_bw_words_per_cycle < sw)
		slow = fmin(slow, lvl->write_bw_words_per_cycle / sw);
	if (lvl->has_shared_bw && lvl->shared_bw_words_per_cycle < sr + sw)
		slow = fmin(slow, lvl->shared_bw_words_per_cycle / (sr + sw));
	ml->slowdown = slow;
	/* unthrottled (slow 1): ceil() of a whole number is that number */
	c = slow > 0 && slow != 1.0 ? ceil((double)cc / slow) : (double)cc;
	lat = latency_bound(ws, l, out);
	if ((double)lat > c)
		c = (double)lat;
	if (c * (double)nw >= 0x1p64 || (double)lat * (double)nw >= 0x1p64) {
		model_result_fail(out, EVAL_TOO_LARGE, (int)l, -1, "'%s' would take more than "
				  "2^64 - 1 cycles at its bandwidth (%.3g times the computes' %llu)",
				  lvl->name, 1 / slow, (unsigned long long)cc);
	} else {
		ml->latency_cycles = lat * nw;
		ml->cycles = (uint64_t)c * nw;
	}
	for (pv = 0; pv < ws->n_tensors; pv++) {
		struct model_tile *t = &out->tiles[l][pv];
		t->read_bw = slow * rd[pv];
		t->write_bw = slow * wr[pv];
		t->shared_bw = t->read_bw + t->write_bw;
	}
}

/*
 * Overbooking (semantics 3.3): a child tile that reserved less than its max
 * occupancy (confidence c < 1) refetches from its parent in the remaining
 * 1 - c of the cases: the parent is charged the child's random data and
 * metadata read vectors at the parent's energies, times 1 - c, spread over
 * the parent's instances.
 */
static void overbooking_charges(struct model_ws *ws, struct model_result *out)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &ws->s->arch.levels[l];
		for (pv = 0; pv < ws->n_tensors; pv++) {
			const struct model_tile *t = &out->tiles[l][pv];
			struct model_tile *p;
			const double *e;
			double extra;
			if (!t->is_kept || t->confidence >= 1.0 || t->parent_level < 0)
				continue;
			p = &out->tiles[t->parent_level][pv];
			e = ws->lev_energy[t->parent_level].op_pj;
			extra = (vector_accesses(lvl, t, MODEL_OP_RANDOM_READ) * e[MODEL_OP_RANDOM_READ] +
				 vector_accesses(lvl, t, MODEL_OP_RANDOM_MD_READ) *
				 e[MODEL_OP_RANDOM_MD_READ]) * (1.0 - t->confidence);
			extra *= t->avg_replication / (p->avg_replication > 1 ? p->avg_replication : 1);
			p->energy_pj += extra;
			p->energy_total_pj = p->energy_pj * p->avg_replication;
		}
	}
}

void model_eval_levels(struct model_ws *ws, struct model_result *out)
{
	unsigned l, pv;

	for (l = 0; l < ws->n_levels; l++) {
		struct model_level *ml = &out->levels[l];
		const struct level_energy *le = &ws->lev_energy[l];
		ml->energy_source = le->source;
		memcpy(ml->op_energy_pj, le->op_pj, sizeof(ml->op_energy_pj));
		ml->vector_access_energy_pj = le->vector_access_pj;
		ml->area_um2 = le->area_um2;
		ml->max_x = ws->lv[l].max_x;
		ml->max_y = ws->lv[l].max_y;
		ml->energy_pj = 0;
		for (pv = 0; pv < ws->n_tensors; pv++) {
			struct model_tile *t = &out->tiles[l][pv];
			if (!t->is_kept)
				continue;
			tile_addresses(ws, pv, t);
			tile_energy(ws, l, t);
			ml->energy_pj += t->energy_total_pj +
					 t->temporal_reduction_energy_pj * t->avg_replication +
					 t->addr_gen_energy_pj * (double)t->utilized_clusters;
		}
		level_bandwidth(ws, l, out);
	}
	overbooking_charges(ws, out);
}
