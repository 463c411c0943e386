/*
 * The planner (docs/poplibs.md §1): candidate methods and groupings,
 * bucket sizes, the exchange estimator, the cost of each pass for a
 * perfectly uniform pattern (what PopLibs' planner optimises), and the
 * exhaustive search over P_X P_Y P_Z <= tiles minimising the summed cycles
 * of the requested passes under the temporary-memory bound.
 */
#include "accel/ipu_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"

/* ------------------------------------------------------------- the layer */

/*
 * The kernel block for a layer block 'b' (getBlockDimensionsToUse, §1.2):
 * the largest supported square block dividing b: {4, 8, 16} for half and
 * {4, 8} for float, i.e. those with a block rate on the device.
 */
static unsigned kernel_block(const struct spec_ipu_device *dev, enum spec_ipu_dtype t, unsigned b)
{
	static const unsigned sizes[] = { 16, 8, 4 };
	size_t i;

	if (b == 1)
		return 1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (b % sizes[i] == 0 && dev->block_macs_per_cycle[t][ipu_block_kind(sizes[i])] > 0)
			return sizes[i];
	return 0;
}

void ipu_layer_init(struct ipu_layer *L, const struct spec_set *s)
{
	const struct spec_ipu *ipu = s->ipu;
	const struct spec_ipu_layer *l = &ipu->layer;

	memset(L, 0, sizeof(*L));
	L->dev = &ipu->device;
	L->l = l;
	L->half = l->dtype == SPEC_IPU_HALF;
	L->half_partials = l->partials_type == SPEC_IPU_HALF;
	L->b_in = L->half ? 2 : 4;
	L->b_p = L->half_partials ? 2 : 4;
	L->block = l->block_size > 1;
	L->kb = kernel_block(L->dev, l->dtype, l->block_size);
	L->q = L->kb ? l->block_size / L->kb : 1;
	L->X = l->x;
	L->Y = l->y;
	L->Z = l->z;
	L->d = s->workload.tensors[l->tensor].density.density;
	L->grad_a = (l->passes >> SPEC_IPU_GRAD_A) & 1;
	L->grad_w = (l->passes >> SPEC_IPU_GRAD_W) & 1;
	L->o = l->meta_info_bucket_oversize_proportion;
	L->W = ipu->device.workers;
	L->E = ipu->device.exchange_bytes_per_cycle;
}

/* ---------------------------------------------------------------- helpers */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? ceil_div_u64(v, a) * a : v;
}

static uint64_t lcm_u64(uint64_t a, uint64_t b)
{
	return a / gcd_u64(a, b) * b;
}

/*
 * Xc(B) = ceil(16 B / (s h)) with s = max(1, round(16 E)) and h = 2 when
 * the target shares exchange buses between 2 tiles and the tiles receiving
 * the same data are all of them or an even number (§1.5), plus the
 * device's sync per exchange (0 by default: PopLibs' sparse estimator
 * models none, §3.4, and the benchmark's timed interval leaves syncs out)
 * and its fixed overhead of an exchange phase (100 by default: PopLibs'
 * CTC loss planner, lib/popnn/CTCLossPlan.cpp, fixedOverheadExchangeCycles;
 * docs/ipu.md "Fixed costs").
 */
double ipu_exchange_cycles(const struct ipu_layer *L, uint64_t bytes, uint64_t consecutive,
			   uint64_t T, bool allow_sharing)
{
	double s = floor(16.0 * (double)L->E + 0.5), h = 1;

	if (bytes == 0)
		return 0;
	if (s < 1)
		s = 1;
	if (allow_sharing && L->dev->exchange_bus_sharing && (consecutive == T || consecutive % 2 == 0))
		h = 2;
	return ceil(16.0 * (double)bytes / (s * h)) + (double)L->dev->sync_cycles +
	       (double)L->dev->exchange_overhead_cycles;
}

/*
 * U(d, a, c) (getNumGroupsGivenUniformSparsityPattern, §1.4): of 'a' rows
 * of 'c' groups at density d, a' = ceil(a (1 - (1 - d)^c)) are non-empty
 * and hold c' = ceil(ceil(a c d) / a') groups each.
 */
void ipu_uniform(double d, uint64_t a, uint64_t c, double *a1, double *c1)
{
	double nonempty = ceil((double)a * -expm1((double)c * log1p(-(d < 1 ? d : 1 - 1e-16))));
	double nz = ceil((double)a * (double)c * d);

	if (d >= 1)
		nonempty = (double)a;
	if (nonempty < 1)
		nonempty = nz > 0 ? 1 : 0;
	*a1 = nonempty;
	*c1 = nonempty > 0 ? ceil(nz / nonempty) : 0;
}

/*
 * splitTileBetweenWorkers(r, c, W), grid case (§2 "Worker split";
 * lib/popsparse/FullyConnectedUtils.cpp at poplibs 7eac0f2): g = ceil(rc/W)
 * grains per worker, rows per worker rw = min(ceil(g/c), r), columns
 * cw = min(ceil(g/rw), c); floor(r/rw) x floor(c/cw) pieces, the last row and
 * column of pieces taking the remainders; then, while fewer than W pieces
 * exist, the largest piece (by area) is split in two along its rows when it
 * has more rows than columns, else along its columns (the first half
 * ceil(size/2)); a piece of one row and one column ends the splitting.
 * Returns the largest piece after it (by area, then rows): the slowest
 * worker. Only that one piece is halved at each step, the others keep
 * their size.
 */
void ipu_split_workers(uint64_t r, uint64_t c, unsigned W, uint64_t *rows, uint64_t *cols)
{
	uint64_t g, rw, cw, nr, nc, pr[64], pc[64];
	size_t n = 0, i, big;

	if (r == 0 || c == 0 || W == 0) {
		*rows = r;
		*cols = c;
		return;
	}
	if (W > 64)
		BUG("%u workers (the device key allows 64)", W);
	g = ceil_div_u64(r * c, W);
	rw = ceil_div_u64(g, c);
	if (rw > r)
		rw = r;
	cw = ceil_div_u64(g, rw);
	if (cw > c)
		cw = c;
	nr = r / rw;
	nc = c / cw;
	/* the pieces' shapes: (nr - 1) rows of rw and the last of r - (nr - 1) rw, alike for columns */
	for (i = 0; i < nr * nc && n < W; i++) {
		uint64_t ri = i / nc, ci = i % nc;
		pr[n] = ri + 1 == nr ? r - (nr - 1) * rw : rw;
		pc[n] = ci + 1 == nc ? c - (nc - 1) * cw : cw;
		n++;
	}
	while (n < W) {
		big = 0;
		for (i = 1; i < n; i++)
			if (pr[i] * pc[i] > pr[big] * pc[big])
				big = i;
		if (pr[big] > pc[big]) {
			uint64_t h = (pr[big] + 1) / 2;
			if (h == pr[big])
				break;
			pr[n] = h;
			pc[n] = pc[big];
			pr[big] -= h;
		} else {
			uint64_t h = (pc[big] + 1) / 2;
			if (h == pc[big])
				break;
			pr[n] = pr[big];
			pc[n] = h;
			pc[big] -= h;
		}
		n++;
	}
	big = 0;
	for (i = 1; i < n; i++)
		if (pr[i] * pc[i] > pr[big] * pc[big] ||
		    (pr[i] * pc[i] == pr[big] * pc[big] && pr[i] > pr[big]))
			big = i;
	*rows = pr[big];
	*cols = pc[big];
}

/*
 * splitTileBetweenWorkers with row weights (§2 "Worker split";
 * lib/popsparse/FullyConnectedUtils.cpp l.171-205 at poplibs 7eac0f2), the
 * case the partitioner takes for an element-wise sub-group of more than 2 W
 * rows, each row weighted by its non-zeros (SparsePartitionerImpl.cpp
 * l.826-840): avg = ceil(total / W); worker w ends its rows before the first
 * row whose running sum exceeds (w + 1) avg (std::upper_bound), a worker
 * left without rows is skipped, the last takes every row left; each piece
 * covers all the Z columns. Writes one past each piece's last row to
 * 'ends' and returns the number of pieces (at most W).
 */
unsigned ipu_split_workers_weighted(const struct ipu_row *rows, uint32_t n, unsigned W,
				    uint32_t *ends)
{
	uint64_t total = 0, avg, ps = 0;
	uint32_t i, begin = 0;
	unsigned w, np = 0;

	if (n == 0 || W == 0)
		return 0;
	for (i = 0; i < n; i++)
		total += rows[i].nz;
	avg = ceil_div_u64(total, W);
	i = 0;
	for (w = 0; w < W; w++) {
		uint64_t t = (uint64_t)(w + 1) * avg;
		while (i < n && ps + rows[i].nz <= t)
			ps += rows[i++].nz;
		if (begin == i)
			continue;
		ends[np++] = w + 1 == W ? n : i;
		if (i == n)
			break;
		begin = ends[np - 1];
	}
	return np;
}

/* --------------------------------------------------------------- methods */

unsigned ipu_methods(const struct ipu_layer *L, struct ipu_method *out)
{
	struct ipu_method base;
	unsigned n = 0, k, zg = L->half ? 16 : 8;
	unsigned n_base = 1;
	struct ipu_method bases[2];

	memset(&base, 0, sizeof(base));
	if (!L->block) {
		base.gx = base.gy = 1;
		base.gz = ipu_vector_width(L->l->dtype);
		base.m[SPEC_IPU_FWD] = ACCEL_IPU_FORWARD;
		base.m[SPEC_IPU_GRAD_A] = ACCEL_IPU_TRANSPOSE;
		base.m[SPEC_IPU_GRAD_W] = ACCEL_IPU_GRAD_W;
		bases[0] = base;
	} else {
		base.gx = base.gy = L->kb;
		base.gz = 1;
		base.m[SPEC_IPU_FWD] = ACCEL_IPU_FORWARD_AMP_BLOCK;
		base.m[SPEC_IPU_GRAD_A] = ACCEL_IPU_TRANSPOSE_AMP_BLOCK;
		base.m[SPEC_IPU_GRAD_W] = ACCEL_IPU_GRAD_W_BLOCK;
		bases[0] = base;
		if (L->Z % zg == 0 && L->kb % 4 == 0) {
			base.gz = zg;
			base.m[SPEC_IPU_GRAD_W] = ACCEL_IPU_GRAD_W_AMP_BLOCK;
			bases[n_base++] = base;
		}
	}
	for (k = 0; k < n_base; k++) {
		out[n] = bases[k];
		out[n++].grad_w_exch = false;
		if (L->grad_w) {
			out[n] = bases[k];
			out[n++].grad_w_exch = true;
		}
	}
	return n;
}

void ipu_geom_init(const struct ipu_layer *L, const struct ipu_method *m, unsigned px,
		   unsigned py, unsigned pz, struct ipu_geom *g)
{
	g->px = px;
	g->py = py;
	g->pz = pz;
	g->T = (uint64_t)px * py * pz;
	g->Nx = ceil_div_u64(L->X, m->gx);
	g->Ny = ceil_div_u64(L->Y, m->gy);
	g->Nz = ceil_div_u64(L->Z, m->gz);
	g->nx = ceil_div_u64(g->Nx, px);
	g->ny = ceil_div_u64(g->Ny, py);
	g->nz = ceil_div_u64(g->Nz, pz);
}

/*
 * Bucket sizes (§1.4): R_g = ceil(N_x N_y d) groups; r_b = align(round(
 * ceil(R_g / T) (1 + o)), gamma) with gamma = lcm(g_x g_y b_in, E) /
 * (g_x g_y b_in); nzElemsPerBucket = align(r_b g_x g_y, GradW ? 8 / b_p : 1);
 * metaInfo M = align(2 (9 + W (5 + 5 [GradW])) + ceil(a' (2 + c') (1 + o)), A)
 * element-wise, align(2 (7 + 4 W [GradW]) + ..., A) for blocks, A = lcm(2, E);
 * B_r = r_b g_x g_y b_in + 2 M; B_w = 2 M + r_b g_x g_y b_p. Static
 * sparsity (docs/ipu.md): the exact share ceil(R_g / T), no headroom, and
 * only the coordinates (2 words a row, 1 a group) as metaInfo.
 */
void ipu_sizes_init(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		    bool is_static, struct ipu_sizes *z)
{
	uint64_t grp = (uint64_t)m->gx * m->gy, gbytes = grp * L->b_in;
	uint64_t gamma = lcm_u64(gbytes, L->E) / gbytes, A = lcm_u64(2, L->E), fixed;
	double o = is_static ? 0.0 : L->o;

	z->Rg = (uint64_t)ceil((double)g->Nx * (double)g->Ny * L->d);
	ipu_uniform(L->d, g->nx, g->ny, &z->a1, &z->c1);
	if (is_static) {
		z->rb = ceil_div_u64(z->Rg, g->T);
		z->nz_elems = z->rb * grp;
		z->meta_words = (uint64_t)ceil(z->a1 * (2.0 + z->c1));
	} else {
		z->rb = align_up((uint64_t)floor((double)ceil_div_u64(z->Rg, g->T) * (1.0 + o) + 0.5),
				 gamma);
		z->nz_elems = align_up(z->rb * grp, L->grad_w ? 8 / L->b_p : 1);
		if (!L->block)
			fixed = 2 * (9 + (uint64_t)L->W * (5 + (L->grad_w ? 5 : 0)));
		else
			fixed = 2 * (7 + (L->grad_w ? 4 * (uint64_t)L->W : 0));
		z->meta_words = align_up(fixed + (uint64_t)ceil(z->a1 * (2.0 + z->c1) * (1.0 + o)), A);
	}
	z->bytes_r = z->rb * grp * L->b_in + 2 * z->meta_words;
	z->bytes_w = 2 * z->meta_words + z->rb * grp * L->b_p;
}

/* ----------------------------------------------------------- pass costs */

/* A pass in its own space: GradA swaps X and Y (the toGradA swizzle). */
struct pspace {
	uint64_t px, py, pz, nx, ny, nz, Nx, Ny, Nz;
	unsigned gx, gy, gz;
	bool x_consec, z_consec;   /* tiles sharing the dense operand / buckets are consecutive */
};

/*
 * The pass's space. Fwd linearises PN = ((y P_z) + z) P_x + x (X innermost,
 * §1.2); GradA's order {0,1,3,2} in GradA space puts GradA's Y (Fwd X)
 * innermost, then Z, then GradA's X.
 */
static void pass_space(const struct ipu_method *m, const struct ipu_geom *g, bool grad_a,
		       struct pspace *s)
{
	if (!grad_a) {
		*s = (struct pspace){ g->px, g->py, g->pz, g->nx, g->ny, g->nz, g->Nx, g->Ny, g->Nz,
				      m->gx, m->gy, m->gz, true, g->px == 1 };
	} else {
		*s = (struct pspace){ g->py, g->px, g->pz, g->ny, g->nx, g->nz, g->Ny, g->Nx, g->Nz,
				      m->gy, m->gx, m->gz, (uint64_t)g->px * g->pz == 1, g->px == 1 };
	}
}

/*
 * The vertex estimate V of the distribution compute (§1.6 (c)) for a
 * uniform pattern: every tile reads its P_z buckets (B = B_p), one
 * sub-group each (static: one "bucket", its own blocks), with (a', c') =
 * U(d, n_x, n_y) of the pass space.
 */
static double dist_vertex(const struct ipu_layer *L, enum accel_ipu_method meth,
			  const struct pspace *s, uint64_t n_buckets)
{
	double a1, c1, w, sup;
	uint64_t rw, cw;

	ipu_uniform(L->d, s->nx, s->ny, &a1, &c1);
	switch (meth) {
	case ACCEL_IPU_FORWARD:
		ipu_split_workers((uint64_t)a1, s->nz, L->W, &rw, &cw);
		w = ipu_ew_worker(IPU_EW_FWD, L->half, cw * s->gz, (double)rw, (double)rw * c1 * s->gy);
		sup = ipu_ew_supervisor(IPU_EW_FWD, n_buckets, n_buckets, 1);
		break;
	case ACCEL_IPU_TRANSPOSE: {
		double num_x = c1 * s->gy, yp = ceil((double)s->nx / L->W);
		w = ipu_ew_worker(IPU_EW_TRANSPOSE, L->half, s->nz * s->gz, num_x, num_x * yp);
		sup = ipu_ew_supervisor(IPU_EW_TRANSPOSE, n_buckets, n_buckets, 1);
		break;
	}
	case ACCEL_IPU_FORWARD_AMP_BLOCK:
	case ACCEL_IPU_TRANSPOSE_AMP_BLOCK: {
		bool fwd = meth == ACCEL_IPU_FORWARD_AMP_BLOCK;
		double rows = fwd ? a1 : c1;
		ipu_split_workers(1, s->nz, L->W, &rw, &cw);
		w = ipu_block_worker(L, s->gx, cw * s->gz, a1 * c1, fwd);
		sup = ipu_block_supervisor(L, s->gx, n_buckets, n_buckets, 1, rows, a1 * c1, fwd);
		break;
	}
	default:
		BUG("method %d in a sparse-dense pass", (int)meth);
	}
	return sup + (double)L->W * w;
}

/*
 * A Fwd or GradA pass (§1.6): (a) GradA's bucket transpose for real 2-D
 * blocks; (b) the dense operand S (exchanged when its slice S_1 exceeds
 * its even share S_0) and every tile receiving the P_z buckets of its X/Y
 * partition; (c) zeroing the partials and the vertex; (d) propagation: 0
 * cycles for a uniform pattern, two bucket buffers of memory; (e) the
 * reduction over P_y (exchange of the partials and a multi-input reduce,
 * or a cast). Static sparsity keeps (b), (c), (e) with exact buckets and no
 * bucket search (docs/ipu.md).
 */
static void pass_sparse_dense(const struct ipu_layer *L, const struct ipu_method *m,
			      const struct ipu_geom *g, const struct ipu_sizes *z, bool grad_a,
			      bool is_static, struct ipu_pass_est *e)
{
	struct pspace s;
	uint64_t T = g->T, S0, S1, pi, pi0, tb, tc, td, te, ta = 0;
	bool s_exch, cast = L->l->partials_type != L->l->dtype;
	enum accel_ipu_method meth = m->m[grad_a ? SPEC_IPU_GRAD_A : SPEC_IPU_FWD];

	pass_space(m, g, grad_a, &s);
	memset(e, 0, sizeof(*e));
	if (grad_a && m->gx * m->gy >= m->gx + m->gy) {
		e->transpose = ipu_transpose_cycles(L, z->rb, m->gx, m->gy);
		ta = z->rb * m->gx * m->gy * L->b_in;
	}
	S0 = ceil_div_u64(s.Ny * s.Nz, T) * s.gy * s.gz * L->b_in;
	S1 = s.ny * s.nz * s.gy * s.gz * L->b_in;
	s_exch = S1 > S0;
	e->dist_exch = ipu_exchange_cycles(L, s_exch ? S1 : 0, s.x_consec ? s.px : 1, T, true) +
		       ipu_exchange_cycles(L, s.pz > 1 ? s.pz * z->bytes_r : 0,
					   s.z_consec ? s.pz : 1, T, true);
	tb = (s_exch ? S1 : 0) + (s.pz - 1) * z->bytes_r;
	pi = s.nx * s.nz * s.gx * s.gz;
	e->dist_compute = ipu_zero_cycles(L, (double)pi) +
			  dist_vertex(L, meth, &s, is_static ? 1 : s.pz);
	tc = tb + ((cast || s.pz > 1) ? pi * L->b_p : 0);
	td = 2 * z->bytes_r + (s_exch ? S1 : 0) + pi * L->b_p;
	pi0 = ceil_div_u64(pi, s.py);
	if (s.py > 1)
		e->reduce = ipu_exchange_cycles(L, pi * L->b_p, 1, T, false) +
			    ipu_reduce_cycles(L, pi0, s.py);
	else if (cast)
		e->reduce = ipu_cast_cycles(L, (double)pi0);
	te = pi * L->b_p;
	e->total = e->transpose + e->dist_exch + e->dist_compute + e->reduce;
	e->temp = ta;
	if (tb > e->temp)
		e->temp = tb;
	if (tc > e->temp)
		e->temp = tc;
	if (!is_static && td > e->temp)
		e->temp = td;
	if (te > e->temp)
		e->temp = te;
}

/* The §1.7 GradW vertex of one worker's chunk: 'rows' rows holding 'nz' groups. */
static double gradw_vertex(const struct ipu_layer *L, enum accel_ipu_method meth, unsigned b,
			   uint64_t z, double rows, double nz)
{
	switch (meth) {
	case ACCEL_IPU_GRAD_W:
		return ipu_ew_supervisor(IPU_EW_GRAD_W, 1, 1, 1) +
		       (double)L->W * ipu_ew_worker(IPU_EW_GRAD_W, L->half, z, rows, nz);
	case ACCEL_IPU_GRAD_W_BLOCK:
		return 75.0 + 26.0 + (double)L->W * ipu_block_gradw_worker(L, b, z, rows, nz);
	case ACCEL_IPU_GRAD_W_AMP_BLOCK:
		return ipu_block_gradw_amp(L, b, z, rows, nz, 1);
	default:
		BUG("method %d in a GradW pass", (int)meth);
	}
}

/*
 * The GradW pass (§1.7): the pre-distribution exchange of the dense
 * operands Q (Y_grad) and S (X); GradWAMPBlock's transposes; a full trip
 * round Z, of the buckets (gradWExchangeBuckets) or of the dense operands;
 * zeroing the nz partials plus P_z rounds of the worst worker's chunk (the
 * a' c' groups of U(d, ceil(n_x / P_z), n_y) cut row-major into W chunks,
 * each chunk's vertex divided by its row count, as the planner does); a
 * cast of the nz partials.
 */
static void pass_grad_w(const struct ipu_layer *L, const struct ipu_method *m,
			const struct ipu_geom *g, const struct ipu_sizes *z, bool is_static,
			struct ipu_pass_est *e)
{
	enum accel_ipu_method meth = m->m[SPEC_IPU_GRAD_W];
	uint64_t T = g->T, Q0, Q1, S0, S1, Qt, St, zcols = g->nz * m->gz, per, w;
	bool q_exch, s_exch, xb = m->grad_w_exch, cast = L->l->partials_type != L->l->dtype;
	bool x_consec = xb ? true : (uint64_t)g->py * g->pz == 1;
	bool y_consec = xb ? (uint64_t)g->px * g->pz == 1 : g->pz == 1;
	bool z_consec = xb ? g->px == 1 : true;
	double a1, c1, worst = 0, groups;

	memset(e, 0, sizeof(*e));
	Q0 = ceil_div_u64(g->Nx * g->Nz, T) * m->gx * m->gz * L->b_in;
	Q1 = g->nx * g->nz * m->gx * m->gz * L->b_in;
	S0 = ceil_div_u64(g->Ny * g->Nz, T) * m->gy * m->gz * L->b_in;
	S1 = g->ny * g->nz * m->gy * m->gz * L->b_in;
	q_exch = Q1 > Q0;
	s_exch = S1 > S0;
	e->dist_exch = ipu_exchange_cycles(L, q_exch ? Q1 : 0, y_consec ? g->py : 1, T, true) +
		       ipu_exchange_cycles(L, s_exch ? S1 : 0, x_consec ? g->px : 1, T, true);
	Qt = q_exch ? Q1 : 0;
	St = s_exch ? S1 : 0;
	if (meth == ACCEL_IPU_GRAD_W_AMP_BLOCK) {
		e->transpose = ipu_block_transpose_gradw_cycles(L, m->gx, g->nx, zcols) +
			       ipu_block_transpose_gradw_cycles(L, m->gy, g->ny, zcols);
		Qt = Q1;
		St = S1;
	}
	if (g->pz > 1) {
		if (xb)
			e->dist_exch += (double)g->pz * ipu_exchange_cycles(L, z->bytes_w, 1, T, true);
		else
			e->dist_exch += (double)g->pz *
					(ipu_exchange_cycles(L, Q1, z_consec ? g->pz : 1, T, true) +
					 ipu_exchange_cycles(L, S1, z_consec ? g->pz : 1, T, true));
	}
	ipu_uniform(L->d, ceil_div_u64(g->nx, g->pz), g->ny, &a1, &c1);
	groups = a1 * c1;
	if (meth == ACCEL_IPU_GRAD_W_AMP_BLOCK) {
		worst = gradw_vertex(L, meth, m->gx, zcols, a1, groups);
	} else if (groups > 0) {
		per = (uint64_t)ceil(groups / L->W);
		for (w = 0; w < L->W && (double)(w * per) < groups; w++) {
			double lo = (double)(w * per), hi = fmin(groups, (double)((w + 1) * per));
			double first_row = floor(lo / c1), last_row = ceil(hi / c1);
			double rows = last_row - first_row, v;
			if (rows < 1)
				rows = 1;
			v = ceil(gradw_vertex(L, meth, m->gx, zcols, rows, hi - lo) / rows);
			if (v > worst)
				worst = v;
		}
	}
	e->dist_compute = ipu_zero_cycles(L, (double)(z->rb * m->gx * m->gy)) + (double)g->pz * worst;
	if (cast)
		e->reduce = ipu_cast_cycles(L, (double)(z->rb * m->gx * m->gy));
	e->total = e->transpose + e->dist_exch + e->dist_compute + e->reduce;
	e->temp = xb ? Qt + St + 2 * z->bytes_w : (cast ? 2 * 2 * z->meta_words : 0) + 2 * (Qt + St);
}

void ipu_pass_plan(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		   const struct ipu_sizes *z, enum spec_ipu_pass p, bool is_static,
		   struct ipu_pass_est *e)
{
	if (p == SPEC_IPU_GRAD_W)
		pass_grad_w(L, m, g, z, is_static, e);
	else
		pass_sparse_dense(L, m, g, z, p == SPEC_IPU_GRAD_A, is_static, e);
}

/* ---------------------------------------------------------------- search */

/*
 * The partition counts worth trying for N grains: P is the smallest count
 * giving its quotient n = ceil(N / P) (popsolver's ceildivConstrainDivisor,
 * §1.3), at most 'max'. Returns their number in 'out' (cap entries).
 */
static size_t divisor_counts(uint64_t N, uint64_t max, unsigned *out, size_t cap)
{
	uint64_t p = 1;
	size_t n = 0;

	while (p <= N && p <= max && n < cap) {
		uint64_t q = ceil_div_u64(N, p);
		out[n++] = (unsigned)p;
		if (q == 1)
			break;
		p = ceil_div_u64(N, q - 1);
	}
	return n;
}

/* The element-wise metaInfo offsets must fit 16 bits (§1.3 addMetaInfoRangeLimits). */
static bool meta_range_ok(const struct ipu_layer *L, const struct ipu_method *m,
			  const struct ipu_geom *g)
{
	uint64_t fy = L->half ? 2 : 4, a, b;

	if (L->block)
		return true;
	a = (g->ny * m->gy - 1) * g->nz * m->gz * fy;
	b = g->nx * m->gx - 1;
	return (a > b ? a : b) <= 65535;
}

struct best {
	bool found;
	double cycles;
	uint64_t temp;
	struct ipu_method m;
	struct ipu_geom g;
	struct ipu_sizes z;
};

/*
 * What a tile holds under a plan: its bucket (W's values and metaInfo, or
 * the exact share for static sparsity), its even shares of the dense input
 * [Y, Z] and output [X, Z] (S_0, Q_0 of §1.6), and the passes' peak
 * temporary bytes 'temp'.
 */
uint64_t ipu_tile_bytes(const struct ipu_layer *L, const struct ipu_method *m,
			const struct ipu_geom *g, const struct ipu_sizes *z, uint64_t temp)
{
	uint64_t bucket = z->nz_elems * L->b_in + 2 * z->meta_words;
	uint64_t dense = (ceil_div_u64(g->Ny * g->Nz, g->T) * m->gy +
			  ceil_div_u64(g->Nx * g->Nz, g->T) * m->gx) * m->gz * L->b_in;

	return bucket + dense + temp;
}

/*
 * Cost every pass of the layer under (m, g) and keep it in 'b' when it is
 * the best so far. A plan whose temporaries exceed 'bound' (0: none) is
 * left out, and so is one whose tile would overflow when 'fit' (every
 * bounded search, so that no overflowing plan is returned while one that
 * fits exists).
 */
static void consider(const struct ipu_layer *L, bool is_static, const struct ipu_method *m,
		     unsigned px, unsigned py, unsigned pz, uint64_t bound, bool fit,
		     struct best *b)
{
	struct ipu_geom g;
	struct ipu_sizes z;
	struct ipu_pass_est e;
	double cycles = 0;
	uint64_t temp = 0;
	unsigned p;

	ipu_geom_init(L, m, px, py, pz, &g);
	if (!meta_range_ok(L, m, &g))
		return;
	ipu_sizes_init(L, m, &g, is_static, &z);
	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		if (!((L->l->passes >> p) & 1))
			continue;
		ipu_pass_plan(L, m, &g, &z, (enum spec_ipu_pass)p, is_static, &e);
		cycles += e.total;
		if (e.temp > temp)
			temp = e.temp;
		if (b->found && cycles > b->cycles)
			return;
	}
	if (bound && temp > bound)
		return;
	if (fit && ipu_tile_bytes(L, m, &g, &z, temp) > L->dev->bytes_per_tile)
		return;
	if (b->found && (cycles > b->cycles || (cycles == b->cycles && temp >= b->temp)))
		return;
	b->found = true;
	b->cycles = cycles;
	b->temp = temp;
	b->m = *m;
	b->g = g;
	b->z = z;
}

/* One search under 'bound' (0: none). Returns the number of partitions costed. */
static uint64_t search_bound(const struct ipu_layer *L, bool is_static, const struct ipu_method *ms,
			     unsigned n_methods, uint64_t bound, struct best *b)
{
	static const unsigned cap = 1u << 16;
	unsigned *xs = xcalloc(cap, sizeof(*xs)), *ys = xcalloc(cap, sizeof(*ys));
	unsigned *zs = xcalloc(cap, sizeof(*zs));
	const unsigned *part = L->l->partition;
	uint64_t tiles = L->dev->tiles, n_eval = 0;
	unsigned k;

	for (k = 0; k < n_methods; k++) {
		const struct ipu_method *m = &ms[k];
		uint64_t Nx = ceil_div_u64(L->X, m->gx), Ny = ceil_div_u64(L->Y, m->gy);
		uint64_t Nz = ceil_div_u64(L->Z, m->gz), p;
		size_t nxs, nys, nzs = 0, i, j, t;

		nxs = part[0] ? (xs[0] = part[0], 1) : divisor_counts(Nx, tiles, xs, cap);
		nys = part[1] ? (ys[0] = part[1], 1) : divisor_counts(Ny, tiles, ys, cap);
		for (p = 1; p <= Nz && p <= tiles && nzs < cap; p++)
			if (Nz % p == 0 && (!part[2] || p == part[2]))
				zs[nzs++] = (unsigned)p;
		for (t = 0; t < nzs; t++)
			for (i = 0; i < nxs && (uint64_t)xs[i] * zs[t] <= tiles; i++)
				for (j = 0; j < nys && (uint64_t)xs[i] * ys[j] * zs[t] <= tiles; j++) {
					consider(L, is_static, m, xs[i], ys[j], zs[t], bound,
						 bound != 0, b);
					n_eval++;
				}
	}
	free(xs);
	free(ys);
	free(zs);
	return n_eval;
}

/*
 * The search (§1.8): minimise (summed cycles of the passes, temporary
 * bytes) over methods and partitions with temp <= floor(bytes_per_tile x
 * availableMemoryProportion); when nothing fits, double the bound while it
 * is below 2 x bytes_per_tile, then search with no bound. PopLibs bounds
 * only the temporaries; here every bounded search also requires that the
 * plan's buckets, dense shares and temporaries fit the tile
 * (ipu_tile_bytes), so the doubled bound (1.2 tiles at the default 0.6)
 * never admits an overflowing plan while a fitting one exists; only the
 * last, unbounded search may return one, reported "out of tile memory".
 */
int ipu_plan_search(const struct ipu_layer *L, bool is_static, struct ipu_method *m,
		    struct ipu_geom *g, struct ipu_sizes *z, uint64_t *bound, uint64_t *n_evaluated,
		    char *why, size_t why_size)
{
	struct ipu_method ms[4];
	unsigned n_methods = ipu_methods(L, ms);
	uint64_t tile = L->dev->bytes_per_tile;
	uint64_t bnd = (uint64_t)floor((double)tile * L->l->available_memory_proportion);
	struct best b;

	memset(&b, 0, sizeof(b));
	*n_evaluated = 0;
	for (;;) {
		*n_evaluated += search_bound(L, is_static, ms, n_methods, bnd, &b);
		if (b.found || bnd == 0)
			break;
		bnd = bnd < 2 * tile ? 2 * bnd : 0;
	}
	if (!b.found) {
		snprintf(why, why_size, "no partition of X, Y, Z over at most %llu tiles satisfies "
			 "the constraints (partition %u x %u x %u, Z grains divisible by P_z)",
			 (unsigned long long)L->dev->tiles, L->l->partition[0], L->l->partition[1],
			 L->l->partition[2]);
		return -1;
	}
	*m = b.m;
	*g = b.g;
	*z = b.z;
	*bound = bnd;
	return 0;
}
