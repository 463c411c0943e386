/*
 * The dense baseline: the same layer as a dense matmul on the same IPU,
 * planned and costed from first principles with the constants the sparse
 * model uses (docs/ipu.md "Dense baseline"). The weights stay resident in
 * the tiles that use them; the dense input is exchanged when a tile's slice
 * exceeds its even share; each tile runs the AMP kernel over its blocks of
 * the weights, padded to the AMP block (16 x 16 for half, 8 x 8 for float:
 * the largest block kernels, poplibs §1.2) at the device's dense AMP
 * rate; partials are reduced over the split of the reduction dimension.
 * GradW multiplies two activations: both operands are exchanged.
 */
#include "accel/ipu_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"

/* C[M, N] = A[M, K] B[K, N]; A is resident (the weights) or exchanged. */
struct mm {
	uint64_t M, K, N;
	bool a_resident;
};

struct dense_cost {
	double exchange, compute, reduce, total;
	uint64_t temp;
};

/*
 * The dense matmul runs as poplin plans it: a 1 x 1 convolution whose AMP
 * vertex (ConvPartial1x1Out) takes, per pass, one group of input channels
 * (the weights a conv unit holds) against one group of output channels
 * (one per conv unit) over the output positions (the n columns) split
 * between the workers. Its cycles are poplin's own estimate
 * (lib/poplin/PerformanceEstimation.hpp: getConvPartial1x1Supervisor...
 * CycleEstimate, half and float activations, float partials), with these
 * device figures:
 *  - core loop: 4 worker-cycles an output position for half activations,
 *    8 for float ("core loop cycles for 16x8 AMP vertex");
 *  - output channels per group: the conv units (16 half, 8 float);
 *  - input channels per group: the weights a conv unit holds, i.e. the
 *    device's AMP MACs per tile-cycle x the core loop / the conv units
 *    (64 x 4 / 16 = 16 half, 16 x 8 / 8 = 16 float): W workers each
 *    finishing out x in MACs per core loop give the AMP rate;
 *  - coefficient loads at 8 bytes a cycle (popsparse's static estimator,
 *    cweiLoadBytesPerCycle, StaticMatMulPartitioner.cpp; poplin halves the
 *    128-bit load rate unless use128BitConvUnitLoad is set).
 */
struct amp_groups {
	unsigned out, in;          /* channels per group */
	unsigned core;             /* worker-cycles an output position */
};

static struct amp_groups amp_groups(const struct ipu_layer *L)
{
	struct amp_groups g;
	unsigned conv = L->dev->conv_units[L->l->dtype];

	g.core = L->half ? 4 : 8;
	g.out = conv;
	g.in = (unsigned)((uint64_t)L->dev->amp_macs_per_cycle[L->l->dtype] * g.core / conv);
	if (g.in == 0)
		g.in = 1;
	return g;
}

/* getConvPartial1x1SupervisorInnerLoopCycleEstimate: the slowest worker, x W. */
static double conv1x1_inner(const struct ipu_layer *L, const struct amp_groups *g, uint64_t nt,
			    bool zeroing)
{
	bool fa = !L->half, fp = !L->half_partials;
	bool common = (!fa && g->out == 16) || fp;
	double zc = fa && g->out == 16 ? 8 : fp ? 4 : 2, save = (!fa && (fp || g->out == 16)) ? 7 : 0;
	double mx = 0, mn = INFINITY;
	uint64_t w, used = nt < L->W ? nt : L->W;

	for (w = 0; w < L->W; w++) {
		uint64_t e = nt / L->W + (w < nt % L->W ? 1 : 0);
		double c;
		if (e == 0) {
			if (w < used)
				continue;
			c = 0;
		} else if (e == 1) {
			c = fa ? 47 + (2 + zc) * zeroing : common ? 31 + (zeroing ? 1 : 2)
							     : 39 + (2 + zc) * zeroing;
		} else if (e == 2) {
			c = fa ? 46 + (2 + zc * 2) * zeroing : common ? 40 + (zeroing ? 1 : 2)
								 : 40 + (2 + zc * 2) * zeroing;
		} else {
			double ex = (double)(e - 3) * g->core;
			c = fa ? 46 + (2 + zc * (double)e) * zeroing + ex
			       : common ? (zeroing ? 37 : 38) + ex
					: 41 + (2 + zc * (double)e) * zeroing + ex;
		}
		if (e > 0)
			c -= save;
		c *= L->W;
		if (c > mx)
			mx = c;
		if (c < mn)
			mn = c;
	}
	return mx > mn + 14 ? mx : mn + 14;
}

/*
 * One tile's matmul: m_t output-channel groups x k_t input-channel groups
 * over n_t columns (getConvPartial1x1SupervisorOuterLoopCycleEstimate, one
 * conv group, one pass of the conv units per output group).
 */
static double tile_matmul(const struct ipu_layer *L, uint64_t mt, uint64_t kt, uint64_t nt)
{
	struct amp_groups g = amp_groups(L);
	bool fa = !L->half, fp = !L->half_partials;
	bool common = (!fa && g.out == 16) || fp;
	double save1 = (!fa && (fp || g.out == 16)) ? 7 : 0, save2 = save1 ? 3 : 0;
	double loads = (double)g.out * g.in * L->b_in / 8.0;
	double zin = conv1x1_inner(L, &g, nt, true), in = conv1x1_inner(L, &g, nt, false);
	double c = (double)common, ig = (double)kt, og = (double)mt;

	return 50 + (double)L->W * (save1 + save2 * (ig - 1)) +
	       (12 + c + (ig - 1) * (15 - c + 1 + og * (19 + 6 + loads + in)) +
		(10 + 1 + og * (19 - c + 7 + loads + zin)));
}

/* The cost of 'mm' split (pm, pk, pn) over the tiles. */
static void dense_split(const struct ipu_layer *L, const struct mm *mm, uint64_t pm, uint64_t pk,
			uint64_t pn, struct dense_cost *c)
{
	struct amp_groups g = amp_groups(L);
	uint64_t Mg = ceil_div_u64(mm->M, g.out), Kg = ceil_div_u64(mm->K, g.in), T = pm * pk * pn;
	uint64_t mt = ceil_div_u64(Mg, pm), kt = ceil_div_u64(Kg, pk), nt = ceil_div_u64(mm->N, pn);
	uint64_t S0 = ceil_div_u64(Kg * mm->N, T) * g.in * L->b_in, S1 = kt * g.in * nt * L->b_in;
	uint64_t A0 = ceil_div_u64(Mg * Kg, T) * g.out * g.in * L->b_in;
	uint64_t A1 = mt * kt * g.out * g.in * L->b_in;
	uint64_t pi = mt * g.out * nt, pi0 = ceil_div_u64(pi, pk);
	bool s_exch = S1 > S0, a_exch = !mm->a_resident && A1 > A0;

	memset(c, 0, sizeof(*c));
	c->exchange = ipu_exchange_cycles(L, s_exch ? S1 : 0, pm, T, true) +
		      ipu_exchange_cycles(L, a_exch ? A1 : 0, pn, T, true);
	c->compute = tile_matmul(L, mt, kt, nt);
	if (pk > 1)
		c->reduce = ipu_exchange_cycles(L, pi * L->b_p, 1, T, false) +
			    ipu_reduce_cycles(L, pi0, pk);
	else if (L->l->partials_type != L->l->dtype)
		c->reduce = ipu_cast_cycles(L, (double)pi0);
	c->total = c->exchange + c->compute + c->reduce;
	c->temp = (s_exch ? S1 : 0) + (a_exch ? A1 : 0) + pi * L->b_p;
}

/* Partition counts giving distinct quotients (as the sparse planner). */
static size_t counts(uint64_t N, uint64_t max, uint64_t *out, size_t cap)
{
	uint64_t p = 1;
	size_t n = 0;

	while (p <= N && p <= max && n < cap) {
		uint64_t q = ceil_div_u64(N, p);
		out[n++] = p;
		if (q == 1)
			break;
		p = ceil_div_u64(N, q - 1);
	}
	return n;
}

/* The best split of 'mm' under the memory bound (doubled when nothing fits). */
static void dense_plan(const struct ipu_layer *L, const struct mm *mm, struct dense_cost *best,
		       uint64_t *bp)
{
	enum { CAP = 4096 };
	uint64_t *ms = xcalloc(CAP, sizeof(*ms)), *ks = xcalloc(CAP, sizeof(*ks));
	uint64_t *ns = xcalloc(CAP, sizeof(*ns)), tiles = L->dev->tiles;
	uint64_t tile = L->dev->bytes_per_tile;
	uint64_t bound = (uint64_t)floor((double)tile * L->l->available_memory_proportion);
	struct amp_groups g = amp_groups(L);
	size_t nm = counts(ceil_div_u64(mm->M, g.out), tiles, ms, CAP);
	size_t nk = counts(ceil_div_u64(mm->K, g.in), tiles, ks, CAP);
	size_t nn = counts(mm->N, tiles, ns, CAP), i, j, k;
	bool found = false;

	for (;;) {
		for (i = 0; i < nm; i++)
			for (j = 0; j < nk && ms[i] * ks[j] <= tiles; j++)
				for (k = 0; k < nn && ms[i] * ks[j] * ns[k] <= tiles; k++) {
					struct dense_cost c;
					dense_split(L, mm, ms[i], ks[j], ns[k], &c);
					if (bound && c.temp > bound)
						continue;
					if (!found || c.total < best->total) {
						*best = c;
						bp[0] = ms[i];
						bp[1] = ks[j];
						bp[2] = ns[k];
						found = true;
					}
				}
		if (found || bound == 0)
			break;
		bound = bound < 2 * tile ? 2 * bound : 0;
	}
	free(ms);
	free(ks);
	free(ns);
}

/*
 * The dense matmul runs at the dense baseline's own partials type
 * (dense_partials_type, specs/ipu.c): a copy of the layer with it in
 * place of the sparse matmul's, for the vertex, the reduction, the cast and
 * the partials' bytes.
 */
void ipu_dense_eval(const struct ipu_layer *Ls, struct accel_ipu_result *out)
{
	struct spec_ipu_layer dl = *Ls->l;
	struct ipu_layer DL = *Ls;
	const struct ipu_layer *L = &DL;
	const struct mm mms[SPEC_IPU_N_PASSES] = {
		[SPEC_IPU_FWD] = { L->X, L->Y, L->Z, true },
		[SPEC_IPU_GRAD_A] = { L->Y, L->X, L->Z, true },
		[SPEC_IPU_GRAD_W] = { L->X, L->Z, L->Y, false },
	};
	unsigned p;

	dl.partials_type = Ls->l->dense_partials_type;
	DL.l = &dl;
	DL.half_partials = dl.partials_type == SPEC_IPU_HALF;
	DL.b_p = DL.half_partials ? 2 : 4;
	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		struct dense_cost c = { 0, 0, 0, 0, 0 };
		uint64_t bp[3] = { 1, 1, 1 };
		if (!((L->l->passes >> p) & 1))
			continue;
		dense_plan(L, &mms[p], &c, bp);
		out->passes[p].dense_cycles = c.total;
		if (p == SPEC_IPU_FWD) {
			double macs = (double)L->X * (double)L->Y * (double)L->Z;
			out->dense.pm = (unsigned)bp[0];
			out->dense.pk = (unsigned)bp[1];
			out->dense.pn = (unsigned)bp[2];
			out->dense.fwd_compute_cycles = c.compute;
			out->dense.fwd_exchange_cycles = c.exchange;
			out->dense.fwd_reduce_cycles = c.reduce;
			out->dense.fwd_peak_fraction = macs /
				((double)L->dev->tiles *
				 (double)L->dev->amp_macs_per_cycle[L->l->dtype] * c.total);
		}
	}
}
