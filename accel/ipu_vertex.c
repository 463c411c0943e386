/*
 * On-tile cycle estimates of PopSparse's vertices, in the structure of
 * PopLibs' estimator (docs/poplibs.md §3, "PE"): a supervisor part
 * (base overhead, a search over the sub-groups of every bucket, coefficient
 * loads for the AMP block kernels) plus W times the slowest worker (worker
 * contexts are barrel-scheduled, one instruction per tile cycle each in
 * turn). Every constant below is from that section's tables.
 */
#include "accel/ipu_int.h"

#include <math.h>

/*
 * sup(k1, k2) = floor((alpha + 1) k1 + k2) with alpha = (S - 1) / 2: the
 * search over S sub-groups of a bucket that holds work for this tile finds
 * its own after half of the others on average (§3).
 */
static uint64_t sup(uint64_t n_subgroups, double k1, double k2)
{
	double alpha = n_subgroups ? ((double)n_subgroups - 1.0) / 2.0 : 0.0;
	return (uint64_t)floor((alpha + 1.0) * k1 + k2);
}

/* ------------------------------------------------------------ element-wise */

/* Z case of the §3.1 tables: 0 = the short vector (4 f32 / 8 f16), 1 = half of it, 2 = other. */
static unsigned ew_zcase(bool half, uint64_t z)
{
	if (z == (half ? 8u : 4u))
		return 0;
	if (z == (half ? 4u : 2u))
		return 1;
	return 2;
}

/*
 * inner(y) = a + b y of the §3.1 table, for the worker's Z: the cost of one
 * row of y non-zeros. Returned as the pair (a, b).
 *
 * Fwd and GradA with a general Z: the §3.1 table charges the set-up of the
 * main loop (12 / 10 float, 16 / 14 half) once a row, but the codelets run
 * that loop once per 4 (float) or 8 (half) columns of Z and pay its set-up
 * and the accumulate-and-store of the partials on every pass
 * (lib/popsparse/codelets/asm/SparseDenseMatMulElementWise_float_float.S,
 * LzLoop4: 7 cycles before the rpt and 5 after it, 12; _half_float.S,
 * LzLoop8: 5 before and 12 after, 17; the GradA codelets alike, poplibs
 * 7eac0f2). So the constant is paid floor(Z / 4) or floor(Z / 8) times a row,
 * as PopLibs' own static estimate does for its element-wise codelet
 * (static_::matmulComputeCycles: (n / 8)(14 + 3 (k - 1)) a row).
 */
static void ew_inner(enum ipu_ew_kind k, bool half, uint64_t z, double *a, double *b)
{
	uint64_t q2 = z / 2, q4 = z / 4, q8 = z / 8, zm4 = z % 4;
	unsigned zc = ew_zcase(half, z);

	*a = 0;
	*b = 0;
	switch (k) {
	case IPU_EW_FWD:
	case IPU_EW_GRAD_A:
		if (zc == 0) {
			*b = 3;
		} else if (zc == 1) {
			*b = 2;
		} else if (!half) {
			double c12 = k == IPU_EW_FWD ? 12 : 10;
			if (q4) {
				*a += c12 * (double)q4;
				*b += 3.0 * (double)q4;
			}
			if (z & 2) {
				*a += 8;
				*b += 2.0 * (double)q2;
			}
			if (z & 1) {
				*a += 8;
				*b += 2;
			}
			*a += zm4 ? 3 : 1;
		} else {
			double c16 = k == IPU_EW_FWD ? 16 : 14, c11 = k == IPU_EW_FWD ? 11 : 10;
			if (q8) {
				*a += c16 * (double)q8;
				*b += 3.0 * (double)q8;
			}
			if (z & 4) {
				*a += 13;
				*b += 2;
			}
			if (zm4) {
				*a += c11;
				*b += 2.0 * (double)zm4;
			}
		}
		return;
	case IPU_EW_TRANSPOSE:   /* y is y' = ceil(y / W) here: rows split across workers */
		if (!half) {
			*a = 8;
			*b = (q2 ? 2.0 + 3.0 * (double)q2 : 0.0) + ((z & 1) ? 4.0 : 0.0);
		} else if (zc == 0) {
			*b = 10;
		} else if (zc == 1) {
			*b = 7;
		} else {
			*a = 8;
			*b = (q4 ? 2.0 + 5.0 * (double)q4 : 0.0) + (zm4 ? 5.0 + 3.0 * (double)zm4 : 0.0);
		}
		return;
	case IPU_EW_GRAD_W:
		if (zc == 0)
			*b = 5;
		else if (zc == 1)
			*b = 4;
		else if (!half)
			*b = 9.0 + (double)q2 + ((z & 1) ? 1.0 : 0.0);
		else
			*b = 11.0 + (double)q4 + ((z & 2) ? 3.0 : 0.0) + ((z & 1) ? 4.0 : 0.0);
		return;
	}
	BUG("element-wise vertex kind %d", (int)k);
}

/* Worker overhead 'ov' and per-row overhead 'xo' of the §3.1 table. */
static void ew_overheads(enum ipu_ew_kind k, bool half, uint64_t z, double *ov, double *xo)
{
	static const double fwd[2][2][3] = {      /* [half][ov, xo][zcase] */
		{ { 25, 27, 30 }, { 13, 11, 13 } }, { { 28, 30, 33 }, { 15, 11, 12 } },
	};
	static const double grad_a[2][2][3] = {
		{ { 23, 25, 33 }, { 13, 11, 13 } }, { { 26, 28, 32 }, { 15, 11, 11 } },
	};
	static const double transpose_f16[2][3] = { { 20, 20, 26 }, { 18, 21, 22 } };
	static const double grad_w_delta[2][3] = { { 2, 4, 6 }, { 2, 4, 7 } };
	static const double grad_w_xo[2][3] = { { 9, 7, 9 }, { 11, 10, 8 } };
	unsigned zc = ew_zcase(half, z), h = half ? 1 : 0;

	switch (k) {
	case IPU_EW_FWD:
		*ov = fwd[h][0][zc];
		*xo = fwd[h][1][zc];
		return;
	case IPU_EW_GRAD_A:
		*ov = grad_a[h][0][zc];
		*xo = grad_a[h][1][zc];
		return;
	case IPU_EW_TRANSPOSE:
		*ov = half ? transpose_f16[0][zc] : 23;
		*xo = half ? transpose_f16[1][zc] : 24;
		return;
	case IPU_EW_GRAD_W:
		*ov = 28 + grad_w_delta[h][zc];
		*xo = grad_w_xo[h][zc];
		return;
	}
	BUG("element-wise vertex kind %d", (int)k);
}

/*
 * One element-wise worker: ov + rows (xo + a) + b nz, i.e. §3.1's
 * ov + numX (xo + sum over rows of inner(y)) with inner(y) = a + b y.
 * For the transpose vertex 'nz' must already be the sum of y' per row.
 */
double ipu_ew_worker(enum ipu_ew_kind k, bool half, uint64_t z, double rows, double nz)
{
	double ov, xo, a, b;

	if (rows <= 0)
		return 0;
	ew_overheads(k, half, z, &ov, &xo);
	ew_inner(k, half, z, &a, &b);
	return ov + rows * (xo + a) + b * nz;
}

/*
 * The element-wise supervisor (§3.1) for a tile that scans 'n_buckets'
 * buckets of which 'n_info' hold work for it, each with 'n_subgroups'
 * sub-groups: 30 + 32 (B - B_p) S + B_p sup(k1, k2); GradW: 75 + B_p sup(26, 0).
 */
double ipu_ew_supervisor(enum ipu_ew_kind k, uint64_t n_buckets, uint64_t n_info,
			 uint64_t n_subgroups)
{
	double empty = 32.0 * (double)(n_buckets - n_info) * (double)n_subgroups;

	switch (k) {
	case IPU_EW_FWD:
		return 30 + empty + (double)n_info * (double)sup(n_subgroups, 47, 46);
	case IPU_EW_GRAD_A:
		return 30 + empty + (double)n_info * (double)sup(n_subgroups, 46, 46);
	case IPU_EW_TRANSPOSE:
		return 30 + empty + (double)n_info * (double)sup(n_subgroups, 44, 68);
	case IPU_EW_GRAD_W:
		return 37 + 38 + (double)n_info * (double)sup(n_subgroups, 26, 0);
	}
	BUG("element-wise vertex kind %d", (int)k);
}

/* Supervisor cost of one bucket with 'n_subgroups' sub-groups that holds no work here. */
double ipu_empty_bucket_cycles(bool block, uint64_t n_subgroups)
{
	return (block ? 33.0 : 32.0) * (double)n_subgroups;
}

/* Supervisor cost of one bucket with 'n_subgroups' sub-groups, one of them ours. */
double ipu_info_bucket_cycles(bool block, enum ipu_ew_kind k, uint64_t n_subgroups)
{
	if (block)
		return (double)sup(n_subgroups, 46, 56);
	switch (k) {
	case IPU_EW_FWD:
		return (double)sup(n_subgroups, 47, 46);
	case IPU_EW_GRAD_A:
		return (double)sup(n_subgroups, 46, 46);
	case IPU_EW_TRANSPOSE:
		return (double)sup(n_subgroups, 44, 68);
	case IPU_EW_GRAD_W:
		return (double)sup(n_subgroups, 26, 0);
	}
	BUG("element-wise vertex kind %d", (int)k);
}

/* --------------------------------------------------------- AMP block kernels */

/* Index of block side 4, 8, 16 in the tables; -1 for other sizes. */
int ipu_block_kind(unsigned b)
{
	return b == 4 ? 0 : b == 8 ? 1 : b == 16 ? 2 : -1;
}

/*
 * The conv units the AMP block kernel (Fwd / GradA) runs on. Dynamic
 * sparsity with half input and float partials (popsparse's default
 * partialsType) uses the FP16-in, FP32-out units, as PopLibs' planner asks
 * for them (lib/popsparse/FullyConnectedPlan.cpp getNumConvUnits:
 * getFp16InFp32OutConvUnitsPerTile), 8 on the IPU2: the 16x16 block
 * supervisor (lib/popsparse/codelets/asm/BlockSparseDenseMatMul.h.S, poplibs
 * 7eac0f2) then loads each block in two 16x8 halves and runs its workers
 * twice. Static sparsity has only a half-partials 16x16 kernel
 * (StaticBlock16x16SparseDenseMatMul_half_half.S; popsparse::static_ runs at
 * the input type's partials, which the loader sets, specs/ipu.c): the input
 * type's units, one run a block.
 */
unsigned ipu_block_conv_units(const struct ipu_layer *L)
{
	if (L->half && !L->half_partials && L->l->sparsity == SPEC_IPU_DYNAMIC)
		return L->dev->conv_units_half_float;
	return L->dev->conv_units[L->l->dtype];
}

/*
 * The §3.2 row of the AMP block kernel (Fwd / GradA): worker overhead 'ov',
 * inner overhead 'io' for the worker's Z (1, 2, other), and weight loads per
 * block 'nu'. 'half_partials' only matters for half input; 'conv_units' is
 * ipu_block_conv_units()'s (16x16 needs 16 for one load: PerformanceEstimation.hpp
 * numWeightLoadsPerBlock = numConvUnits == 8 ? 2 : 1).
 */
void ipu_block_consts(unsigned b, bool half, bool half_partials, unsigned conv_units, uint64_t z,
		      double *ov, double *io, double *nu)
{
	static const double ov_t[3][3] = {       /* [block][f32, f16->f32, f16->f16] */
		{ 26, 26, 26 }, { 23, 20, 23 }, { 23, 23, 22 },
	};
	static const double io_t[3][3][3] = {    /* [block][type][z 1, 2, other] */
		{ { 14, 14, 14 }, { 17, 18, 19 }, { 15, 16, 17 } },
		{ { 22, 22, 23 }, { 22, 23, 23 }, { 19, 20, 20 } },
		{ { 24, 25, 24 }, { 24, 25, 24 }, { 22, 23, 22 } },
	};
	int bk = ipu_block_kind(b);
	unsigned t = !half ? 0 : half_partials ? 2 : 1, zc = z == 1 ? 0 : z == 2 ? 1 : 2;

	if (bk < 0)
		BUG("block %u", b);
	*ov = ov_t[bk][t];
	*io = io_t[bk][t][zc];
	*nu = 1;
	if (bk == 2 && conv_units < 16) {       /* 16x16 with 8 conv units: two loads */
		*nu = 2;
		if (t == 2) {                    /* f16->f16 on 8 units takes the ->f32 row */
			*ov = 23;
			*io = io_t[2][1][zc];
		}
	}
}

/*
 * Cycles per Z column of one block for the worker (§3.2's cpz): block^2
 * over the kernel's MACs per tile-cycle (the device's block rate).
 */
double ipu_block_cpz(const struct ipu_layer *L, unsigned b)
{
	double rate = L->dev->block_macs_per_cycle[L->l->dtype][ipu_block_kind(b)];
	return rate > 0 ? (double)b * (double)b / rate : 0;
}

/*
 * One AMP block worker (§3.2): ov + blocks nu (io + Z cpz - 3 rho), with
 * rho = retainX (1 for Fwd, 0 for GradA / transpose).
 */
double ipu_block_worker(const struct ipu_layer *L, unsigned b, uint64_t z, double blocks, bool retain_x)
{
	double ov, io, nu;

	if (blocks <= 0 || z == 0)
		return 0;
	ipu_block_consts(b, L->half, L->half_partials, ipu_block_conv_units(L), z, &ov, &io, &nu);
	return ov + blocks * nu * (io + (double)z * ipu_block_cpz(L, b) - (retain_x ? 3.0 : 0.0));
}

/*
 * The AMP block supervisor (§3.2): 40 + 33 (B - B_p) S + B_p sup(46, 56)
 * + (sum_y y (c_ld + 3 + 12 nu) + rho) nXB + 2, where the coefficient loads
 * c_ld = b^2 / (f32 ? 2 : 4) (64-bit loads) are paid once per block;
 * 'blocks' is sum_y y nXB and 'rows' nXB.
 */
double ipu_block_supervisor(const struct ipu_layer *L, unsigned b, uint64_t n_buckets,
			    uint64_t n_info, uint64_t n_subgroups, double rows, double blocks,
			    bool retain_x)
{
	double ov, io, nu, c_ld = (double)b * (double)b / (L->half ? 4.0 : 2.0);

	ipu_block_consts(b, L->half, L->half_partials, ipu_block_conv_units(L), 3, &ov, &io, &nu);
	return 40.0 + 33.0 * (double)(n_buckets - n_info) * (double)n_subgroups +
	       (double)n_info * (double)sup(n_subgroups, 46, 56) +
	       blocks * (c_ld + 3.0 + 12.0 * nu) + (retain_x ? rows : 0.0) + 2.0;
}

/*
 * GradW without AMP (§3.2 "GradW, no AMP"): supervisor 75 + B_p sup(26, 0);
 * worker ov + rows xo + sum_y y (yo + Z cpz) = ov + rows xo + blocks (yo + Z cpz).
 */
double ipu_block_gradw_worker(const struct ipu_layer *L, unsigned b, uint64_t z, double rows,
			      double blocks)
{
	static const double ov_t[3][3] = { { 27, 26, 26 }, { 24, 26, 26 }, { 27, 27, 27 } };
	static const double xo_t[3][3] = { { 9, 9, 9 }, { 7, 9, 9 }, { 9, 9, 9 } };
	static const double yo_t[3][3] = { { 45, 33, 29 }, { 208, 113, 113 }, { 505, 505, 441 } };
	static const double cpz_t[3][3] = { { 12, 6, 6 }, { 48, 24, 24 }, { 96, 96, 96 } };
	int bk = ipu_block_kind(b);
	unsigned t = !L->half ? 0 : L->half_partials ? 2 : 1;

	if (bk < 0)
		BUG("block %u", b);
	if (rows <= 0)
		return 0;
	return ov_t[bk][t] + rows * xo_t[bk][t] + blocks * (yo_t[bk][t] + (double)z * cpz_t[bk][t]);
}

/*
 * GradW with AMP (§3.2 "GradW with AMP", all workers share one block):
 * n_b = ceil(Z / (f32 ? 8 : 16)); supervisor 75 + B_p sup(26, 0) + 23 +
 * 8 (nXB - 1) + sum over rows [32 + 10 (y - 1) + y (15 + 4 (n_b - 1) +
 * n_b (s_R + s_W))]; worker w_R + blocks (w_N n_b - (n_b - 1) w_Z). Rows
 * of equal length y = blocks / rows are assumed for the sum over rows.
 */
double ipu_block_gradw_amp(const struct ipu_layer *L, unsigned b, uint64_t z, double rows,
			   double blocks, uint64_t n_info)
{
	unsigned conv = L->dev->conv_units[L->l->dtype];
	double nb = ceil((double)z / (L->half ? 16.0 : 8.0));
	double s_w, s_r, w_r, w_n, w_z, y, sup_c, work;
	int bk = ipu_block_kind(b);

	if (bk < 0)
		BUG("block %u", b);
	if (rows <= 0)
		return 0;
	switch (bk) {
	case 2:
		if (L->half && conv == 4) {
			s_w = 32, s_r = 17, w_r = L->half_partials ? 5 : 6;
			w_n = L->half_partials ? 58 : 62, w_z = 2;
		} else {
			s_w = 32, s_r = 8, w_r = 5, w_n = 32, w_z = 4;
		}
		break;
	case 1:
		s_w = 16, s_r = 8, w_r = 5, w_n = L->half ? 27 : 33, w_z = L->half ? 4 : 2;
		break;
	default:
		s_w = 8, s_r = 8, w_r = 5;
		w_n = !L->half ? 20 : L->half_partials ? 15 : 17;
		w_z = !L->half ? 1 : L->half_partials ? 1 : 2;
		break;
	}
	y = blocks / rows;
	sup_c = 75.0 + (double)n_info * (double)sup(1, 26, 0) + 23.0 + 8.0 * (rows - 1.0) +
		rows * (32.0 + 10.0 * (y - 1.0) + y * (15.0 + 4.0 * (nb - 1.0) + nb * (s_r + s_w)));
	work = w_r + blocks * (w_n * nb - (nb - 1.0) * w_z);
	return sup_c + (double)L->dev->workers * work;
}

/* ---------------------------------------------------------- auxiliary (§3.4) */

/* Zeroing 'n' partials: ceil(n / W) W (§1.6 (c)). */
double ipu_zero_cycles(const struct ipu_layer *L, double n)
{
	double w = (double)L->dev->workers;
	return ceil(n / w) * w;
}

/*
 * Cast of 'n' elements (§3.4): m = ceil(n / W), (max(ceil(m / vw_p),
 * ceil(m / vw_o)) + 26) W, vector widths of the partials and the input type.
 */
double ipu_cast_cycles(const struct ipu_layer *L, double n)
{
	double w = (double)L->dev->workers, m = ceil(n / w);
	double a = ceil(m / (double)ipu_vector_width(L->l->partials_type));
	double c = ceil(m / (double)ipu_vector_width(L->l->dtype));

	return n > 0 ? ((a > c ? a : c) + 26.0) * w : 0;
}

/*
 * Reduce 'out' partials of depth 'p' (§3.4 getReduceCycleEstimate): for
 * float partials loops = floor(out/4) + [out&1] + [out&2], L = floor(loops/W),
 * c = 32; if loops mod W != 0 then c += 2p + 13 when out mod 4 != 0, else
 * L += 1; c += (3p + (f32 out ? 7 : 6)) L; half partials alike with 8, 4,
 * 2p + 11, 9 / 8. Result c W.
 */
double ipu_reduce_cycles(const struct ipu_layer *L, uint64_t out, uint64_t p)
{
	uint64_t w = L->dev->workers, loops, lw;
	double c = 32;
	bool f32p = L->l->partials_type == SPEC_IPU_FLOAT, f32o = L->l->dtype == SPEC_IPU_FLOAT;
	unsigned g = f32p ? 4 : 8;

	if (f32p)
		loops = out / 4 + (out & 1) + ((out & 2) ? 1 : 0);
	else
		loops = out / 8 + (out & 1) + ((out & 2) ? 1 : 0) + ((out & 4) ? 1 : 0);
	lw = loops / w;
	if (loops % w) {
		if (out % g)
			c += (double)(2 * p + (f32p ? 13 : 11));
		else
			lw++;
	}
	c += (double)(3 * p + (f32p ? (f32o ? 7 : 6) : (f32o ? 9 : 8))) * (double)lw;
	return c * (double)w;
}

/*
 * Transpose of 'n' blocks of r x c for GradA (§3.4 getTransposeCycleEstimate):
 * grain g = 2 and cpg = 3 for f32, g = 4 and cpg = 4 for f16; R = r/g,
 * C = c/g, t = ceil(n/W); worker 29 (R = C = 1, t = 1), 37 + (t-2) cpg
 * (R = C = 1), 27 + t (35 + cpg) (C = 1), else 29 + t (18 + R (12 +
 * cpg (C-2))); result 7 + W worker.
 */
double ipu_transpose_cycles(const struct ipu_layer *L, uint64_t n, unsigned r, unsigned c)
{
	double g = L->half ? 4 : 2, cpg = L->half ? 4 : 3, w = (double)L->dev->workers;
	double R = (double)r / g, C = (double)c / g, t = ceil((double)n / w), worker;

	if (R <= 1 && C <= 1)
		worker = t <= 1 ? 29 : 37 + (t - 2) * cpg;
	else if (C <= 1)
		worker = 27 + t * (35 + cpg * (R - 2));
	else
		worker = 29 + t * (18 + R * (12 + cpg * (C - 2)));
	return 7 + w * worker;
}

/*
 * BlockTransposeGradW (§3.4): 18 + W (34 + ceil(nBlk/W) (3 + (Z/b_z)(3 + k)))
 * with b_z = 8, k = 12 floor(bs/2) for f32 and b_z = 16, k = 23 floor(bs/4) for f16.
 */
double ipu_block_transpose_gradw_cycles(const struct ipu_layer *L, unsigned bs, uint64_t n_blocks,
					uint64_t z)
{
	double w = (double)L->dev->workers, bz = L->half ? 16 : 8;
	double k = L->half ? 23.0 * (double)(bs / 4) : 12.0 * (double)(bs / 2);

	return 18 + w * (34 + ceil((double)n_blocks / w) * (3 + ((double)z / bz) * (3 + k)));
}

/* Vector width of a type on a 64-bit data path: 4 halves, 2 floats (§1.2). */
unsigned ipu_vector_width(enum spec_ipu_dtype t)
{
	return t == SPEC_IPU_HALF ? 4 : 2;
}
