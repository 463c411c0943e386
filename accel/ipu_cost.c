/*
 * The realized cost of a pass on a filled layout: the planner's exchange,
 * transpose and reduction phases (they depend on the plan only), the
 * distribution compute with each tile's actual work (its sub-groups in the
 * P_z buckets of its X/Y partition, the search over every bucket's
 * sub-groups), and every propagation step: a bucket shift, the control
 * vertices, and the slowest tile's compute on the bucket it now holds.
 */
#include "accel/ipu_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one tile does with one set of buckets: search cost and its own work. */
struct tile_work {
	double search;             /* supervisor cycles of the bucket scan */
	uint64_t rows, nz;         /* of the tile's own sub-groups */
	uint64_t n_info;
	double groups_per_row;     /* GradW chunks */
	double worker;             /* element-wise Fwd: the slowest workers, summed over sub-groups */
};

/*
 * The slowest worker of one element-wise Fwd sub-group on a Z share of
 * 'zgrains' grains of 'gz'. The supervisor
 * (lib/popsparse/codelets/asm/SparseDenseMatMulElementWise.h.S l.109-150,
 * poplibs 7eac0f2) walks its buckets' sub-groups and, for each one of this
 * tile, syncs with the workers (sync TEXCH_SYNCZONE_LOCAL, l.121) and runs
 * them (runall, l.140) on that sub-group alone, split as the partitioner
 * split it into the metaInfo's worker entries (SparsePartitionerImpl.cpp
 * l.826-840): by the rows' non-zeros when it has more than 2 W rows
 * (ipu_split_workers_weighted(), each worker all the Z columns), else the
 * grid of rows x Z grains. So every sub-group pays the worker overhead and
 * its own slowest worker; PopLibs' planner estimate (§1.6 (c)) splits all
 * the tile's rows once.
 */
static double ew_subgroup_worker(const struct ipu_layer *L, const struct ipu_subgroup *sg,
				 uint64_t zgrains, unsigned gz)
{
	uint32_t ends[64], begin = 0, i;
	unsigned np, k;
	double worst = 0;
	uint64_t rw, cw;

	if (sg->n_rows == 0)
		return 0;
	if (sg->n_rows <= 2 * L->W || L->W > 64) {
		ipu_split_workers(sg->n_rows, zgrains, L->W, &rw, &cw);
		return ipu_ew_worker(IPU_EW_FWD, L->half, cw * gz, (double)rw,
				     (double)sg->nz * (double)rw / (double)sg->n_rows);
	}
	np = ipu_split_workers_weighted(sg->rows, sg->n_rows, L->W, ends);
	for (k = 0; k < np; k++) {
		uint64_t nz = 0;
		double v;
		for (i = begin; i < ends[k]; i++)
			nz += sg->rows[i].nz;
		v = ipu_ew_worker(IPU_EW_FWD, L->half, zgrains * gz, (double)(ends[k] - begin),
				  (double)nz);
		if (v > worst)
			worst = v;
		begin = ends[k];
	}
	return worst;
}

/* The vertex kind of method 'meth' (element-wise) for the search costs. */
static enum ipu_ew_kind ew_kind(enum accel_ipu_method meth)
{
	switch (meth) {
	case ACCEL_IPU_FORWARD:
		return IPU_EW_FWD;
	case ACCEL_IPU_TRANSPOSE:
		return IPU_EW_TRANSPOSE;
	case ACCEL_IPU_GRAD_W:
		return IPU_EW_GRAD_W;
	default:
		return IPU_EW_FWD;
	}
}

/* Add bucket 'b' to what tile 'sg' sees: its sub-groups and the search cost. */
static void scan_bucket(const struct ipu_layer *L, enum accel_ipu_method meth,
			const struct ipu_bucket *b, uint32_t sg, uint64_t zgrains, unsigned gz,
			struct tile_work *w)
{
	bool info = false;
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->sgs[i].sg == sg) {
			info = true;
			w->rows += b->sgs[i].n_rows;
			w->nz += b->sgs[i].nz;
			if (meth == ACCEL_IPU_FORWARD)
				w->worker += ew_subgroup_worker(L, &b->sgs[i], zgrains, gz);
		}
	if (info) {
		w->n_info++;
		w->search += ipu_info_bucket_cycles(L->block, ew_kind(meth), b->n);
	} else {
		w->search += ipu_empty_bucket_cycles(L->block, b->n);
	}
}

/*
 * GradW's round on one bucket (§1.7 (c)): the groups cut row-major into W
 * chunks, each chunk's vertex divided by its row count; the worst chunk.
 */
static double gradw_round(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			  uint64_t zcols, double rows, double groups)
{
	double c1 = rows > 0 ? groups / rows : 0, worst = 0, per;
	unsigned w;

	if (groups <= 0)
		return 0;
	if (meth == ACCEL_IPU_GRAD_W_AMP_BLOCK)
		return ipu_block_gradw_amp(L, b, zcols, rows, groups, 1);
	per = ceil(groups / L->W);
	for (w = 0; w < L->W && w * per < groups; w++) {
		double lo = w * per, hi = fmin(groups, (w + 1) * per);
		double r = ceil(hi / c1) - floor(lo / c1), v;
		if (r < 1)
			r = 1;
		if (meth == ACCEL_IPU_GRAD_W)
			v = ipu_ew_supervisor(IPU_EW_GRAD_W, 1, 1, 1) +
			    (double)L->W * ipu_ew_worker(IPU_EW_GRAD_W, L->half, zcols, r, hi - lo);
		else
			v = 101.0 + (double)L->W * ipu_block_gradw_worker(L, b, zcols, r, hi - lo);
		v = ceil(v / r);
		if (v > worst)
			worst = v;
	}
	return worst;
}

/*
 * Cycles of one tile's vertex on what 'w' describes, for a Z share of
 * 'zcols' elements: the supervisor (base, search, coefficient loads) plus
 * W times the slowest worker, split as the planner splits (§1.6 (c)).
 */
static double tile_cycles(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			  uint64_t zgrains, unsigned gz, const struct tile_work *w)
{
	uint64_t rw, cw;
	double worker = 0, sup, rows = (double)w->rows, nz = (double)w->nz;

	switch (meth) {
	case ACCEL_IPU_FORWARD:      /* one run of the workers a sub-group (ew_subgroup_worker) */
		return 30 + w->search + (double)L->W * w->worker;
	case ACCEL_IPU_TRANSPOSE:
		sup = 30 + w->search;
		if (w->rows) {
			double num_x = ceil(nz / rows), yp = ceil(rows / L->W);
			worker = ipu_ew_worker(IPU_EW_TRANSPOSE, L->half, zgrains * gz, num_x, num_x * yp);
		}
		return sup + (double)L->W * worker;
	case ACCEL_IPU_FORWARD_AMP_BLOCK:
	case ACCEL_IPU_TRANSPOSE_AMP_BLOCK: {
		bool fwd = meth == ACCEL_IPU_FORWARD_AMP_BLOCK;
		double c_ld = (double)b * b / (L->half ? 4.0 : 2.0), ov, io, nu;
		ipu_block_consts(b, L->half, L->half_partials, ipu_block_conv_units(L), 3, &ov, &io,
				 &nu);
		sup = 40 + w->search + nz * (c_ld + 3 + 12 * nu) + (fwd ? rows : 0) + 2;
		if (w->nz) {
			ipu_split_workers(1, zgrains, L->W, &rw, &cw);
			worker = ipu_block_worker(L, b, cw * gz, nz, fwd);
		}
		return sup + (double)L->W * worker;
	}
	case ACCEL_IPU_GRAD_W:
	case ACCEL_IPU_GRAD_W_BLOCK:
	case ACCEL_IPU_GRAD_W_AMP_BLOCK:
		return w->search + gradw_round(L, meth, b, zgrains * gz, rows, nz);
	default:
		BUG("method %d", (int)meth);
	}
}

/* The tile's own partition (x * P_y + y) and the bucket index at offsets. */
static uint64_t pn_of(const struct ipu_part_cfg *c, uint64_t x, uint64_t y, uint64_t z)
{
	return (x * c->py + y) * c->pz + z;
}

/*
 * The distribution phase's compute: every tile reads the P_z buckets of its
 * X/Y partition; the slowest tile.
 */
static double dist_compute(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			   const struct ipu_geom *g, unsigned gz, const struct ipu_layout *lay)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	double worst = 0;
	uint64_t x, y, z;

	for (x = 0; x < c->px; x++)
		for (y = 0; y < c->py; y++) {
			struct tile_work w;
			double v;
			memset(&w, 0, sizeof(w));
			for (z = 0; z < c->pz; z++)
				scan_bucket(L, meth, &lay->buckets[pn_of(c, x, y, z)],
					    (uint32_t)(x * c->py + y), g->nz, gz, &w);
			if (meth == ACCEL_IPU_GRAD_W || meth == ACCEL_IPU_GRAD_W_BLOCK ||
			    meth == ACCEL_IPU_GRAD_W_AMP_BLOCK) {
				/* GradW: P_z rounds, one bucket each; the worst bucket */
				double r = 0;
				for (z = 0; z < c->pz; z++) {
					struct tile_work one;
					memset(&one, 0, sizeof(one));
					scan_bucket(L, meth, &lay->buckets[pn_of(c, x, y, z)],
						    (uint32_t)(x * c->py + y), g->nz, gz, &one);
					v = tile_cycles(L, meth, b, g->nz, gz, &one);
					if (v > r)
						r = v;
				}
				v = (double)c->pz * r;
			} else {
				v = tile_cycles(L, meth, b, g->nz, gz, &w);
			}
			if (v > worst)
				worst = v;
		}
	return worst;
}

/* The buckets holding a sub-group at each distance (dx, dy) from its owner. */
struct dist_index {
	uint64_t *start;           /* [px * py + 1] into 'pn' */
	uint64_t *pn;
	uint64_t max_subgroups;    /* the most sub-groups of any bucket */
};

static void dist_index_init(const struct ipu_layout *lay, struct dist_index *ix)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	uint64_t n_d = (uint64_t)c->px * c->py, pn, total = 0, d;
	uint32_t i;

	ix->start = xcalloc(n_d + 1, sizeof(*ix->start));
	ix->max_subgroups = 0;
	for (pn = 0; pn < lay->n_buckets; pn++) {
		const struct ipu_bucket *b = &lay->buckets[pn];
		uint64_t xb = pn / ((uint64_t)c->py * c->pz), yb = pn / c->pz % c->py, seen = UINT64_MAX;
		if (b->n > ix->max_subgroups)
			ix->max_subgroups = b->n;
		for (i = 0; i < b->n; i++) {
			uint64_t xs = b->sgs[i].sg / c->py, ys = b->sgs[i].sg % c->py;
			d = ((xs + c->px - xb) % c->px) * c->py + (ys + c->py - yb) % c->py;
			if (d == seen)
				continue;
			ix->start[d + 1]++;
			seen = d;
			total++;
		}
	}
	for (d = 0; d < n_d; d++)
		ix->start[d + 1] += ix->start[d];
	ix->pn = xcalloc(total ? total : 1, sizeof(*ix->pn));
	{
		uint64_t *fill = xcalloc(n_d, sizeof(*fill));
		for (pn = 0; pn < lay->n_buckets; pn++) {
			const struct ipu_bucket *b = &lay->buckets[pn];
			uint64_t xb = pn / ((uint64_t)c->py * c->pz), yb = pn / c->pz % c->py;
			uint64_t seen = UINT64_MAX;
			for (i = 0; i < b->n; i++) {
				uint64_t xs = b->sgs[i].sg / c->py, ys = b->sgs[i].sg % c->py;
				d = ((xs + c->px - xb) % c->px) * c->py + (ys + c->py - yb) % c->py;
				if (d == seen)
					continue;
				ix->pn[ix->start[d] + fill[d]++] = pn;
				seen = d;
			}
		}
		free(fill);
	}
}

static void dist_index_release(struct dist_index *ix)
{
	free(ix->start);
	free(ix->pn);
}

/*
 * One propagation compute step at offsets (ox, oy, oz) of the buckets
 * (tile (x, y, z) holds bucket ((x - ox), (y - oy), (z - oz)) mod P): the
 * slowest tile. Only buckets holding a sub-group at distance (ox, oy) give
 * their new tile work; every other tile only scans its bucket, the worst
 * of which is the bucket with the most sub-groups.
 */
static double step_compute(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			   const struct ipu_geom *g, unsigned gz, const struct ipu_layout *lay,
			   const struct dist_index *ix, uint64_t ox, uint64_t oy)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	uint64_t d = (ox % c->px) * c->py + oy % c->py, k;
	struct tile_work w;
	double worst;

	memset(&w, 0, sizeof(w));
	w.search = ipu_empty_bucket_cycles(L->block, ix->max_subgroups);
	worst = tile_cycles(L, meth, b, g->nz, gz, &w);
	for (k = ix->start[d]; k < ix->start[d + 1]; k++) {
		uint64_t pn = ix->pn[k], xb = pn / ((uint64_t)c->py * c->pz), yb = pn / c->pz % c->py;
		uint32_t owner = (uint32_t)(((xb + ox) % c->px) * c->py + (yb + oy) % c->py);
		double v;
		memset(&w, 0, sizeof(w));
		scan_bucket(L, meth, &lay->buckets[pn], owner, g->nz, gz, &w);
		v = tile_cycles(L, meth, b, g->nz, gz, &w);
		if (v > worst)
			worst = v;
	}
	return worst;
}

/*
 * The propagation loop (§2, docs/ipu.md "schedule"): flat positions P_z ..
 * X Y P_z - 1 of the header (X, Y, P_z); the shift before each compute is
 * along Z inside a Y block, along the inner dimension at a Y block's start,
 * along the outer dimension at an X iteration's start; an X iteration whose
 * bit is clear runs only its outer shift. Fwd: outer X, inner Y; GradA:
 * outer Y, inner X. Each step costs the bucket exchange, BufferIndexUpdate
 * (6 W) and the slowest tile; each X iteration BitIsSet (8 W) (§3.4).
 */
static double propagation(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			  const struct ipu_geom *g, unsigned gz, const struct ipu_layout *lay,
			  bool grad_a, uint64_t bucket_bytes)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	unsigned outer_max = grad_a ? lay->gdx_max : lay->dx_max;
	unsigned inner_max = grad_a ? lay->gdy_max : lay->dy_max;
	uint64_t p_inner = grad_a ? c->px : c->py;
	const uint8_t *bits = grad_a ? lay->ybits : lay->xbits;
	uint64_t X = outer_max + 1, Y = X == 1 ? inner_max + 1 : p_inner, xo, yo, zi;
	uint64_t o_out = 0, o_in = 0, oz = 0;
	double xchg = ipu_exchange_cycles(L, bucket_bytes, 1, g->T, true), total = 0;
	double w6 = 6.0 * L->W, w8 = 8.0 * L->W;
	struct dist_index ix;

	if (X == 1 && Y == 1)
		return 0;
	dist_index_init(lay, &ix);
	for (xo = 0; xo < X; xo++) {
		total += w8;
		if (xo > 0 && !bits[xo]) {
			o_out++;
			total += xchg;
			continue;
		}
		for (yo = 0; yo < Y; yo++)
			for (zi = 0; zi < c->pz; zi++) {
				if (xo == 0 && yo == 0)
					continue;
				if (zi)
					oz++;
				else if (yo)
					o_in++;
				else
					o_out++;
				total += xchg + w6 +
					 step_compute(L, meth, b, g, gz, lay, &ix, grad_a ? o_in : o_out,
						      grad_a ? o_out : o_in);
			}
	}
	dist_index_release(&ix);
	return total;
}

void ipu_pass_realize(const struct ipu_layer *L, const struct ipu_method *m,
		      const struct ipu_geom *g, const struct ipu_sizes *z,
		      const struct ipu_layout *lay, enum spec_ipu_pass p, struct ipu_pass_est *e)
{
	struct ipu_pass_est plan;
	enum accel_ipu_method meth = m->m[p];
	double zero = ipu_zero_cycles(L, (double)(p == SPEC_IPU_GRAD_W ? z->rb * m->gx * m->gy :
				       (p == SPEC_IPU_GRAD_A ? g->ny * m->gy : g->nx * m->gx) *
				       g->nz * m->gz));

	ipu_pass_plan(L, m, g, z, p, false, &plan);
	*e = plan;
	e->dist_compute = zero + dist_compute(L, meth, m->gx, g, m->gz, lay);
	e->prop = propagation(L, meth, m->gx, g, m->gz, lay, p == SPEC_IPU_GRAD_A,
			      p == SPEC_IPU_GRAD_W ? z->bytes_w : z->bytes_r);
	e->total = e->transpose + e->dist_exch + e->dist_compute + e->prop + e->reduce;
}

/*
 * The blocks the busiest tile processes: in the distribution phase, and
 * summed over the propagation steps of pass 'p' (the quantities the
 * executor counts while it emulates the device).
 */
void ipu_layout_work(const struct ipu_layout *lay, enum spec_ipu_pass p, uint64_t *dist_max,
		     uint64_t *step_max_sum)
{
	const struct ipu_part_cfg *c = &lay->cfg;
	bool grad_a = p == SPEC_IPU_GRAD_A;
	unsigned outer_max = grad_a ? lay->gdx_max : lay->dx_max;
	unsigned inner_max = grad_a ? lay->gdy_max : lay->dy_max;
	const uint8_t *bits = grad_a ? lay->ybits : lay->xbits;
	uint64_t X = outer_max + 1, Y = X == 1 ? inner_max + 1 : (grad_a ? c->px : c->py);
	uint64_t x, y, z, xo, yo, zi, o_out = 0, o_in = 0;
	struct dist_index ix;
	uint32_t i;

	*dist_max = *step_max_sum = 0;
	for (x = 0; x < c->px; x++)
		for (y = 0; y < c->py; y++) {
			uint64_t n = 0;
			for (z = 0; z < c->pz; z++) {
				const struct ipu_bucket *b = &lay->buckets[pn_of(c, x, y, z)];
				for (i = 0; i < b->n; i++)
					if (b->sgs[i].sg == x * c->py + y)
						n += b->sgs[i].nz;
			}
			if (n > *dist_max)
				*dist_max = n;
		}
	dist_index_init(lay, &ix);
	for (xo = 0; xo < X; xo++) {
		if (xo > 0 && !bits[xo]) {
			o_out++;
			continue;
		}
		for (yo = 0; yo < Y; yo++)
			for (zi = 0; zi < c->pz; zi++) {
				uint64_t ox, oy, d, k, worst = 0;
				if (xo == 0 && yo == 0)
					continue;
				if (!zi && yo)
					o_in++;
				else if (!zi)
					o_out++;
				ox = (grad_a ? o_in : o_out) % c->px;
				oy = (grad_a ? o_out : o_in) % c->py;
				d = ox * c->py + oy;
				for (k = ix.start[d]; k < ix.start[d + 1]; k++) {
					uint64_t pn = ix.pn[k], n = 0;
					uint64_t xb = pn / ((uint64_t)c->py * c->pz), yb = pn / c->pz % c->py;
					uint32_t owner = (uint32_t)(((xb + ox) % c->px) * c->py + (yb + oy) % c->py);
					const struct ipu_bucket *b = &lay->buckets[pn];
					for (i = 0; i < b->n; i++)
						if (b->sgs[i].sg == owner)
							n += b->sgs[i].nz;
					if (n > worst)
						worst = n;
				}
				*step_max_sum += worst;
			}
	}
	dist_index_release(&ix);
}
