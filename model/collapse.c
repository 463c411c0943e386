/*
 * Collapse the per-loop nest results into one tile per storage level and
 * tensor (semantics 2.6, Timeloop's CollapseDataMovementNest): partition
 * sizes, the parent's access share, bypass masking, peer accesses from link
 * transfers, and the algorithmic reads, fills, updates and temporal
 * reductions with first-read elision.
 *
 * Residuals counted exactly (ws->exact) add three passes (exact_*): the
 * nest's records are totals over the instances, turned into per-instance
 * averages over the instances the mapping uses; partitions are exact where
 * they can be; and the counts are rounded from those averages.
 */
#include "model/model_int.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/ckmath.h"

/* One tensor's view of every level while collapsing. */
struct col {
	unsigned top;
	uint64_t size[SPEC_MAX_LEVELS];
	uint64_t partition[SPEC_MAX_LEVELS];
	double content[SPEC_MAX_LEVELS];
	double share[SPEC_MAX_LEVELS];
	double link[SPEC_MAX_LEVELS];
	double peer[SPEC_MAX_LEVELS];
	double fanout[SPEC_MAX_LEVELS];
	double replication[SPEC_MAX_LEVELS];
	double part[SPEC_MAX_LEVELS];         /* exact mode: partition per instance, unrounded */
	bool kept[SPEC_MAX_LEVELS];
	struct coll_tile *rec[SPEC_MAX_LEVELS];
};

static double weighted(const struct coll_tile *t)
{
	double s = 0;
	unsigned i;

	for (i = 0; i < t->n_rec; i++)
		s += t->acc[i] * t->m[i];
	return s;
}

static double total(const struct coll_tile *t)
{
	double s = 0;
	unsigned i;

	for (i = 0; i < t->n_rec; i++)
		s += t->acc[i];
	return s;
}

/* partition(l) = partition(l+1) * size(l) div denominator(l). */
static uint64_t scale_partition(uint64_t parent, uint64_t size, uint64_t den)
{
	uint64_t p;

	if (den == 0)
		return parent;
	if (ck_mul_u64(parent, size, &p))
		return p / den;
	return (uint64_t)((long double)parent * size / den);
}

/* What every tensor's view shares: the levels' fan-outs and replications. */
struct col_levels {
	double fanout[SPEC_MAX_LEVELS];
	double replication[SPEC_MAX_LEVELS];
};

static void load_levels(const struct model_ws *ws, struct col_levels *cl)
{
	unsigned l;

	for (l = 0; l < ws->n_levels; l++) {
		cl->fanout[l] = (double)ws->loops[ws->lv[l].in].logical_fanout;
		cl->replication[l] = ws->loops[ws->lv[l].boundary].utilized_spatial_elems;
	}
}

static void load(struct model_ws *ws, unsigned pv, const struct col_levels *cl, struct col *c)
{
	unsigned l, i;
	uint32_t bit = 1u << pv;

	c->top = ws->n_levels - 1;
	for (l = 0; l < ws->n_levels; l++) {
		const struct nest_tile *nt = &ws->nest.t[l][pv];
		struct coll_tile *ct = &ws->coll[l][pv];
		double content = 0;   /* total(ct), summed in the same order */
		ct->n_rec = nt->n_rec;
		for (i = 0; i < nt->n_rec; i++) {
			ct->m[i] = (double)nt->rec[i].m;
			ct->scatter[i] = (double)nt->rec[i].scatter;
			ct->acc[i] = (double)nt->rec[i].accesses;
			content += ct->acc[i];
		}
		c->rec[l] = ct;
		c->size[l] = nt->size;
		c->content[l] = content;
		c->link[l] = (double)nt->link_transfers;
		c->peer[l] = 0;
		c->share[l] = 0;
		c->fanout[l] = cl->fanout[l];
		c->replication[l] = cl->replication[l];
		c->kept[l] = ws->m->levels[l].keep_mask & bit;
	}
}

/*
 * Exact mode: level l's instances are those the mapping ever uses, each
 * serving the children's over them; the nest's totals become per instance.
 */
static void exact_load(const struct model_ws *ws, struct col *c)
{
	unsigned l, i;

	for (l = 0; l < ws->n_levels; l++) {
		double n = (double)ws->level_instances[l];
		double below = (double)(l == 0 ? ws->compute_instances : ws->level_instances[l - 1]);
		c->replication[l] = n;
		c->fanout[l] = n > 0 ? below / n : 0;
		if (n <= 0)
			continue;
		for (i = 0; i < c->rec[l]->n_rec; i++)
			c->rec[l]->acc[i] /= n;
		c->content[l] = total(c->rec[l]);
		c->link[l] /= n;
	}
}

/*
 * Exact mode, a tensor whose ranks are each one dimension (each dimension in
 * one rank): the points the instances of level l ever hold, summed over
 * them. An instance holds every value of a dimension of the tensor that its
 * spatial indices give it (the values of one dimension, over the instances,
 * are the bound), and shares the others with its replicas: bound x bound ...
 * x the instances the other dimensions' spatial loops make. -1 otherwise.
 */
static double exact_partition_total(const struct model_ws *ws, unsigned pv, unsigned l)
{
	const struct proj *p = &ws->proj[pv];
	const struct spec_workload *w = &ws->s->workload;
	double total_pts = 1;
	unsigned r, d;

	for (r = 0; r < p->n_ranks; r++)
		if (p->ranks[r].n_terms != 1)
			return -1;
	for (d = 0; d < ws->n_dims; d++) {
		if (p->dims[d].n > 1)
			return -1;
		if (p->dims[d].n == 1)
			total_pts *= (double)w->bounds[d];
	}
	return total_pts * (double)model_loops_count(ws, ~p->dim_mask, true,
						     (int)ws->lv[l].boundary);
}

/* Exact mode: the partitions per instance, unrounded (after masking). */
static void exact_partitions(const struct model_ws *ws, unsigned pv, struct col *c)
{
	unsigned l;

	for (l = 0; l <= c->top; l++) {
		double t = c->partition[l] ? exact_partition_total(ws, pv, l) : -1;
		c->part[l] = (double)c->partition[l];
		if (t >= 0 && c->replication[l] > 0) {
			c->part[l] = t / c->replication[l];
			c->partition[l] = (uint64_t)llround(c->part[l]);
		}
	}
}

/* Steps 1 and 2: partition sizes and parent access shares. */
static void partitions_and_shares(struct model_ws *ws, unsigned pv, struct col *c)
{
	unsigned l, o;

	c->partition[c->top] = c->size[c->top];
	for (l = c->top; l-- > 0;) {
		const struct mlevel *up = &ws->lv[l + 1];
		uint64_t den = up->has_master ? ws->nest.t[l + 1][pv].spatial_size : c->size[l];
		c->partition[l] = scale_partition(c->partition[l + 1], c->size[l], den);
	}
	for (l = 0; l < c->top; l++) {
		if (c->size[l] == 0)
			continue;
		for (o = l + 1; o <= c->top && c->size[o] == 0; o++)
			;
		if (o > c->top || c->fanout[o] == 0)
			continue;
		c->share[l] = weighted(c->rec[o]) / c->fanout[o];
	}
}

static void zero_buffer(struct col *c, unsigned l)
{
	c->size[l] = 0;
	c->partition[l] = 0;
	c->content[l] = 0;
	c->share[l] = 0;
}

/* Step 4: bypassed levels hand their children to the next level up. */
static void mask(struct model_ws *ws, unsigned pv, struct col *c)
{
	unsigned l, o, i;

	for (l = 0; l <= c->top; l++) {
		bool no_coalesce = ws->m->levels[l].no_coalesce_mask & (1u << pv);
		double w, f;
		if (c->kept[l] && !no_coalesce)
			continue;
		for (o = l + 1; o <= c->top && c->size[o] == 0; o++)
			;
		if (o > c->top) {
			zero_buffer(c, l);
			break;
		}
		w = weighted(c->rec[o]);
		if (w > 0) {
			f = c->content[l] * c->fanout[o] / w;
			for (i = 0; i < c->rec[o]->n_rec; i++)
				c->rec[o]->acc[i] *= f;
		}
		c->link[o] = 0;
		c->content[o] = total(c->rec[o]);
		zero_buffer(c, l);
	}
	for (l = c->top + 1; l-- > 0;) {
		if (c->kept[l]) {
			c->share[l] = 0;
			break;
		}
		zero_buffer(c, l);
	}
}

/* x rounded half away from zero (llround's rounding, past 2^63 too). */
static uint64_t round_u64(double x)
{
	if (x > 0 && x < 0x1p63) {
		/* the counts are mostly whole already: no call to round() for them */
		uint64_t u = (uint64_t)x;
		if ((double)u == x)
			return u;
	}
	return x > 0 ? (uint64_t)round(x) : 0;
}

static uint64_t trunc_u64(double x)
{
	return x > 0 ? (uint64_t)x : 0;
}

/*
 * Exact mode, after store(): a kept tile's counts from its per-instance
 * averages, rounded (read-only fills too), first reads elided by the exact
 * partition.
 */
static void exact_accesses(struct model_ws *ws, unsigned pv, const struct col *c, unsigned l,
			   bool outermost, struct model_tile *t)
{
	const struct spec_map_level *ml = &ws->m->levels[l];
	double content = c->content[l] + c->peer[l];
	double fills = c->share[l] + c->peer[l];
	double part = c->part[l];

	if (!ws->proj[pv].read_write) {
		t->fills = round_u64(fills);
		return;
	}
	if (ml->no_coalesce_mask & (1u << pv) || ml->rmw_first_update_mask & (1u << pv))
		return;
	t->reads = t->temporal_reductions = round_u64(content - part);
	t->fills = round_u64(outermost ? fills : fills - part);
}

/* Step 7: algorithmic reads, fills, updates of one kept tile. */
static void accesses(struct model_ws *ws, unsigned pv, const struct col *c, unsigned l,
		     bool outermost, struct model_tile *t)
{
	const struct spec_map_level *ml = &ws->m->levels[l];
	double content = c->content[l] + c->peer[l];
	double fills = c->share[l] + c->peer[l];
	double part = (double)c->partition[l];

	if (!ws->proj[pv].read_write) {
		t->reads = round_u64(content);
		t->fills = trunc_u64(fills);
		t->updates = 0;
		t->temporal_reductions = 0;
		return;
	}
	t->updates = round_u64(c->content[l]);
	if (ml->no_coalesce_mask & (1u << pv)) {
		t->reads = t->temporal_reductions = t->fills = round_u64(content);
	} else if (ml->rmw_first_update_mask & (1u << pv)) {
		t->reads = t->temporal_reductions = round_u64(content);
		t->fills = round_u64(fills);
	} else {
		t->reads = t->temporal_reductions = round_u64(content - part);
		t->fills = round_u64(outermost ? fills : fills - part);
	}
}

/* The counts of a bypassed tile (the rest of it is left as it was). */
static void clear_bypassed(struct model_tile *t)
{
	t->shape = t->partition_size = t->utilized_capacity = 0;
	t->reads = t->fills = t->updates = t->temporal_reductions = 0;
	t->address_generations = 0;
	t->energy_pj = t->energy_total_pj = 0;
}

/* Write the collapsed tiles of tensor pv into 'out'. */
static void store(struct model_ws *ws, unsigned pv, struct col *c, struct model_result *out)
{
	int outer_kept = -1, l;

	for (l = (int)c->top; l >= 0 && outer_kept < 0; l--)
		if (c->kept[l])
			outer_kept = l;
	for (l = 0; l <= (int)c->top; l++) {
		struct model_tile *t = &out->tiles[l][pv];
		const struct mlevel *lv = &ws->lv[l];
		int k;
		if (c->kept[l])
			memset(t, 0, ws->tile_head_size);
		else
			clear_bypassed(t);
		t->is_kept = c->kept[l];
		t->replication = (uint64_t)c->replication[l];
		t->avg_replication = c->replication[l];
		t->keep_ratio = 1.0;
		t->max_x = lv->max_x;
		t->max_y = lv->max_y;
		t->confidence = 1.0;
		t->parent_level = t->child_level = -1;
		if (!t->is_kept)
			continue;
		t->shape = c->size[l];
		t->partition_size = c->partition[l];
		t->content_accesses = c->content[l];
		t->parent_access_share = c->share[l];
		t->link_transfers = c->link[l];
		t->peer_accesses = t->peer_fills = c->peer[l];
		for (k = l + 1; k <= (int)c->top && t->parent_level < 0; k++)
			if (c->kept[k] && c->size[k])
				t->parent_level = k;
		for (k = l - 1; k >= 0 && t->child_level < 0; k--)
			if (c->kept[k] && c->size[k])
				t->child_level = k;
		accesses(ws, pv, c, (unsigned)l, l == outer_kept, t);
		if (ws->exact)
			exact_accesses(ws, pv, c, (unsigned)l, l == outer_kept, t);
	}
}

void model_collapse(struct model_ws *ws, struct model_result *out)
{
	struct col_levels cl;
	struct col c;
	unsigned pv, l;

	load_levels(ws, &cl);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		load(ws, pv, &cl, &c);
		if (ws->exact)
			exact_load(ws, &c);
		partitions_and_shares(ws, pv, &c);
		mask(ws, pv, &c);
		if (ws->exact)
			exact_partitions(ws, pv, &c);
		for (l = 1; l <= c.top; l++)
			if (c.link[l] > 0 && c.replication[l - 1] > 0)
				c.peer[l - 1] += c.link[l] / c.replication[l - 1];
		store(ws, pv, &c, out);
	}
}
