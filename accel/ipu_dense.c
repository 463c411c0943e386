/*
 * The dense baseline: the same layer as a dense matmul on the same IPU,
 * planned and costed from first principles with the constants the sparse
 * model uses (docs/ipu.md "Dense baseline"). The weights stay resident in
 * the tiles that use them; the dense input is exchanged when a tile's slice
 * exceeds its even share; each tile runs the AMP kernel over its blocks of
 * the weights, padded to the AMP block (16 x 16 for half, 8 x 8 for float:
 * the largest block kernels, ipu-popsparse §1.2) at the device's dense AMP
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

/* The AMP weight block of the input type: 16 (half), 8 (float). */
static unsigned amp_block(const struct ipu_layer *L)
{
	return L->half ? 16 : 8;
}

/*
 * One tile's AMP matmul of m_t x k_t weight blocks over n_t columns: the
 * §3.2 block kernel with one bucket and one sub-group (no search), cycles
 * per column block^2 / (dense AMP MACs per tile-cycle), Z split over the
 * workers; zeroing the partials first (§1.6 (c)).
 */
static double tile_matmul(const struct ipu_layer *L, uint64_t mt, uint64_t kt, uint64_t nt)
{
	unsigned a = amp_block(L), conv = L->dev->conv_units[L->l->dtype];
	double cpz = (double)a * a / (double)L->dev->amp_macs_per_cycle[L->l->dtype];
	double ov, io, nu, blocks = (double)mt * (double)kt, c_ld = (double)a * a / (L->half ? 4.0 : 2.0);
	double sup, worker;
	uint64_t rw, cw;

	ipu_split_workers(1, nt, L->W, &rw, &cw);
	ipu_block_consts(a, L->half, L->half_partials, conv, cw, &ov, &io, &nu);
	worker = ov + blocks * nu * (io + (double)cw * cpz - 3.0);
	sup = 40.0 + 102.0 + blocks * (c_ld + 3.0 + 12.0 * nu) + (double)mt + 2.0;
	return ipu_zero_cycles(L, (double)(mt * a * nt)) + sup + (double)L->W * worker;
}

/* The cost of 'mm' split (pm, pk, pn) over the tiles. */
static void dense_split(const struct ipu_layer *L, const struct mm *mm, uint64_t pm, uint64_t pk,
			uint64_t pn, struct dense_cost *c)
{
	unsigned a = amp_block(L);
	uint64_t Mg = ceil_div_u64(mm->M, a), Kg = ceil_div_u64(mm->K, a), T = pm * pk * pn;
	uint64_t mt = ceil_div_u64(Mg, pm), kt = ceil_div_u64(Kg, pk), nt = ceil_div_u64(mm->N, pn);
	uint64_t S0 = ceil_div_u64(Kg * mm->N, T) * a * L->b_in, S1 = kt * a * nt * L->b_in;
	uint64_t A0 = ceil_div_u64(Mg * Kg, T) * a * a * L->b_in, A1 = mt * kt * a * a * L->b_in;
	uint64_t pi = mt * a * nt, pi0 = ceil_div_u64(pi, pk);
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
	uint64_t tile = L->dev->bytes_per_tile, a = amp_block(L);
	uint64_t bound = (uint64_t)floor((double)tile * L->l->available_memory_proportion);
	size_t nm = counts(ceil_div_u64(mm->M, a), tiles, ms, CAP);
	size_t nk = counts(ceil_div_u64(mm->K, a), tiles, ks, CAP);
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

void ipu_dense_eval(const struct ipu_layer *L, struct accel_ipu_result *out)
{
	const struct mm mms[SPEC_IPU_N_PASSES] = {
		[SPEC_IPU_FWD] = { L->X, L->Y, L->Z, true },
		[SPEC_IPU_GRAD_A] = { L->Y, L->X, L->Z, true },
		[SPEC_IPU_GRAD_W] = { L->X, L->Z, L->Y, false },
	};
	unsigned p;

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
