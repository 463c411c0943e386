/*
 * Totals (semantics 3.6, 3.7): total cycles, leakage with the final cycle
 * count, the inferred networks, and the summary and operational-intensity
 * metrics Timeloop prints.
 */
#include "model/model_int.h"

#include <math.h>

/*
 * Level l's energy in Timeloop's summation order (semantics 3.3): per data
 * space, its access energy, reductions and address generations, plus an
 * equal share of the leakage (the order decides the last bit, which shows
 * in the 2-decimal per-compute figures).
 */
static void level_energy(struct model_ws *ws, unsigned l, struct model_result *out)
{
	struct model_level *ml = &out->levels[l];
	double share = ml->leakage_energy_pj / (double)(ws->n_tensors ? ws->n_tensors : 1), e = 0;
	unsigned pv;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		double part = 0;
		if (t->is_kept)
			part = t->energy_total_pj +
			       t->temporal_reduction_energy_pj * t->avg_replication +
			       t->addr_gen_energy_pj * (double)t->utilized_clusters;
		e += part + share;
	}
	ml->energy_pj = e;
}

/* Leakage of level l over 'cycles' (semantics 3.3, power gating). */
static void level_leakage(struct model_ws *ws, unsigned l, uint64_t cycles,
			  struct model_result *out)
{
	const struct spec_arch *a = &ws->s->arch;
	const struct spec_level *lvl = &a->levels[l];
	struct model_level *ml = &out->levels[l];
	double mine = 0, leaks;
	unsigned pv, g = lvl->power_gated_at < ws->n_levels ? lvl->power_gated_at : l;

	for (pv = 0; pv < ws->n_tensors; pv++)
		if (out->tiles[l][pv].avg_replication > mine)
			mine = out->tiles[l][pv].avg_replication;
	if (g != l && a->levels[g].instances < lvl->instances) {
		double n = (double)lvl->instances / (double)a->levels[g].instances, theirs = 0;
		for (pv = 0; pv < ws->n_tensors; pv++)
			if (out->tiles[g][pv].avg_replication > theirs)
				theirs = out->tiles[g][pv].avg_replication;
		leaks = n * (theirs > 1.0 ? theirs : 1.0);   /* fmax(1, theirs), NaN included */
		ml->power_gating_instances = n;
		ml->non_power_gated_utilization = mine / leaks;
	} else {
		leaks = mine > 1.0 ? mine : 1.0;
		ml->power_gating_instances = 1.0;
		ml->non_power_gated_utilization = 1.0;
	}
	ml->leakage_energy_pj = ml->op_energy_pj[MODEL_OP_LEAK] * (double)cycles * leaks;
	level_energy(ws, l, out);
}

/* The Legacy network below level l: words injected, times the ingress and
 * router energies (hop counts are not modelled; 0 wire energy by default). */
static void network(struct model_ws *ws, unsigned l, struct model_result *out)
{
	const struct spec_network_params *np = &ws->s->arch.levels[l].network;
	struct model_network *net = &out->networks[l];
	double per = np->ingress_energy_pj + np->router_energy_pj;
	unsigned pv, i;

	net->ingresses = 0;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct coll_tile *ct = &ws->coll[l][pv];
		if (!out->tiles[l][pv].is_kept)
			continue;
		for (i = 0; i < ct->n_rec; i++)
			net->ingresses += ct->acc[i] * out->tiles[l][pv].avg_replication;
	}
	net->energy_pj = net->ingresses * per;
}

/* Algorithmic scalar accesses of a level, summed over instances. */
static uint64_t level_accesses(const struct model_ws *ws, unsigned l,
			       const struct model_result *out)
{
	uint64_t n = 0;
	unsigned pv;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		if (t->is_kept)
			n += (uint64_t)floor(t->avg_replication *
					     (double)(t->reads + t->updates + t->fills));
	}
	return n;
}

/* Every level's and the compute unit's area (per instance) times their instances. */
static double total_area(const struct model_ws *ws, const struct model_result *r)
{
	const struct spec_arch *a = &ws->s->arch;
	double t = r->compute.area_um2 * (double)a->compute.instances;
	unsigned l;

	for (l = 0; l < ws->n_levels; l++)
		t += r->levels[l].area_um2 * (double)a->levels[l].instances;
	return t;
}

/* Operational intensity (semantics 3.6). */
static void op_intensity(struct model_ws *ws, struct model_result *out)
{
	uint64_t required = 0, reduced = 0;
	unsigned pv, l, top_bits = ws->s->arch.levels[ws->n_levels - 1].word_bits;

	for (pv = 0; pv < ws->n_tensors; pv++) {
		for (l = ws->n_levels; l-- > 0;) {
			uint64_t cap = out->tiles[l][pv].is_kept ?
				       out->tiles[l][pv].utilized_capacity : 0;
			if (!cap)
				continue;
			required += cap;
			if (ws->proj[pv].read_write)
				reduced += cap;
			break;
		}
	}
	out->total_elementwise_ops = out->actual_computes;
	out->total_reduction_ops = out->actual_computes > reduced ?
				   out->actual_computes - reduced : 0;
	out->total_ops = out->total_elementwise_ops + out->total_reduction_ops;
	out->total_memory_accesses = required;
	out->optimal_op_per_byte = required ?
		(double)out->total_ops / ((double)top_bits * (double)required / 8.0) : 0;
	for (l = 0; l < ws->n_levels; l++)
		out->levels[l].total_scalar_accesses = level_accesses(ws, l, out);
}

/* A level Timeloop hides: no accesses and no energy. */
static bool inconsequential(const struct model_ws *ws, unsigned l,
			    const struct model_result *out)
{
	unsigned pv;

	if (out->levels[l].energy_pj != 0)
		return false;
	for (pv = 0; pv < ws->n_tensors; pv++) {
		const struct model_tile *t = &out->tiles[l][pv];
		if (t->is_kept && t->reads + t->fills + t->updates)
			return false;
	}
	return true;
}

/* The problem's own computes when the mapping pads some dimension. */
static void useful_computes(const struct model_ws *ws, struct model_result *out)
{
	const struct spec_workload *w = &ws->s->workload;
	double n = 1;
	unsigned d;

	out->padded = ws->m->pad_mask != 0;
	out->useful_computes = out->algorithmic_computes;
	out->useful_utilization = out->utilization;
	if (!out->padded)
		return;
	for (d = 0; d < w->n_dims; d++)
		n *= (double)w->bounds[d];
	out->useful_computes = (uint64_t)n;
	if (out->algorithmic_computes)
		out->useful_utilization = out->utilization * n / (double)out->algorithmic_computes;
}

void model_eval_totals(struct model_ws *ws, struct model_result *out)
{
	uint64_t cycles = out->compute.cycles;
	unsigned l;
	double e = out->compute.energy_pj;

	for (l = 0; l < ws->n_levels; l++) {
		if (out->levels[l].cycles > cycles)
			cycles = out->levels[l].cycles;
	}
	for (l = 0; l < ws->n_levels; l++) {
		const struct spec_level *lvl = &ws->s->arch.levels[l];
		cycles += lvl->network_fill_latency_cycles + lvl->network_drain_latency_cycles;
	}
	cycles += out->compute.waves * out->compute.block_tiles *
		  (out->compute.prologue_cycles + out->compute.epilogue_cycles);
	out->cycles = cycles;
	for (l = 0; l < ws->n_levels; l++) {
		level_leakage(ws, l, cycles, out);
		network(ws, l, out);
		e += out->levels[l].energy_pj + out->networks[l].energy_pj;
		out->levels[l].is_inconsequential = inconsequential(ws, l, out);
	}
	out->energy_pj = e;
	out->algorithmic_computes = out->compute.algorithmic;
	out->actual_computes = out->compute.random;
	out->utilization = cycles ? out->compute.ideal_cycles / (double)cycles : 0;
	useful_computes(ws, out);
	out->pj_per_compute = out->actual_computes ? e / (double)out->actual_computes : 0;
	out->edp_j_cycles = (double)cycles * e * 1e-12;
	out->area_mm2 = 0;
	out->area_total_um2 = total_area(ws, out);
	op_intensity(ws, out);
	out->gflops = cycles ? (double)out->total_ops / (double)cycles : 0;
	out->last_level_accesses = out->levels[ws->n_levels - 1].total_scalar_accesses;
}
