/*
 * Tensors: every density model gives the counts and placements it
 * promises, values are reproducible per (seed, tensor), N:M pruning keeps
 * the largest magnitudes, compression round-trips, box counts are exact.
 */
#include "exec/exec.h"
#include "exec/exec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/exec/tspec.h"
#include "tests/unit.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* A 2-D workload A[M,K] of the given bounds with one density model. */
static void matrix(struct tspec *ts, uint64_t m, uint64_t k, enum spec_density_kind kind,
		   double density)
{
	uint64_t b[] = { m, k };
	tspec_init(ts, "MK", b);
	tspec_tensor(ts, "A", "M,K", false);
	tspec_density(ts, 0, kind, density);
}

struct count_row {
	enum spec_density_kind kind;
	uint64_t m, k;
	double density;
	uint64_t nnz_lo, nnz_hi;       /* every seed gives a count in [lo, hi] */
};

static const struct count_row count_rows[] = {
	{ SPEC_DENSITY_FIXED_STRUCTURED, 8, 8, 0.25, 16, 16 },
	{ SPEC_DENSITY_FIXED_STRUCTURED, 3, 1, 0.43, 1, 2 },   /* 1.29 rounds either way */
	{ SPEC_DENSITY_FIXED_STRUCTURED, 16, 16, 1.0, 256, 256 },
	{ SPEC_DENSITY_HYPERGEOMETRIC, 10, 10, 0.333, 34, 34 },  /* ceil(33.3) */
	{ SPEC_DENSITY_HYPERGEOMETRIC, 64, 32, 0.05, 103, 103 }, /* ceil(102.4) */
	{ SPEC_DENSITY_HYPERGEOMETRIC, 4, 4, 0.0, 0, 0 },
};

static void test_counts(void)
{
	size_t i;
	uint64_t seed;

	for (i = 0; i < sizeof(count_rows) / sizeof(count_rows[0]); i++) {
		const struct count_row *row = &count_rows[i];
		struct tspec ts;
		matrix(&ts, row->m, row->k, row->kind, row->density);
		for (seed = 1; seed <= 20; seed++) {
			char why[256];
			struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
			uint64_t n;
			CU_ASSERT_PTR_NOT_NULL_FATAL(x);
			n = exec_tensor_nnz(x);
			CU_ASSERT_TRUE(n >= row->nnz_lo && n <= row->nnz_hi);
			exec_tensor_free(x);
		}
	}
}

/*
 * fixed_structured spreads its K non-zeros evenly: N/K = 4 here, so every
 * run of 8 consecutive positions (circularly) holds one to three of them.
 */
static void test_fixed_is_even(void)
{
	struct tspec ts;
	char why[256];
	uint64_t seed, i, j;

	matrix(&ts, 12, 10, SPEC_DENSITY_FIXED_STRUCTURED, 0.25);
	for (seed = 1; seed <= 50; seed++) {
		struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
		CU_ASSERT_EQUAL_FATAL(exec_tensor_nnz(x), 30);
		for (i = 0; i < 120; i++) {
			unsigned in = 0;
			for (j = i; j < i + 8; j++)
				in += exec_tensor_values(x)[j % 120] != 0;
			CU_ASSERT_TRUE(in >= 1 && in <= 3);
		}
		exec_tensor_free(x);
	}
}

/* Over many seeds every position is non-zero with probability rho. */
static void test_uniform_placement(void)
{
	static const enum spec_density_kind kinds[] = { SPEC_DENSITY_FIXED_STRUCTURED,
							 SPEC_DENSITY_HYPERGEOMETRIC };
	unsigned hits[64];
	struct tspec ts;
	size_t k;
	uint64_t seed, i;

	/* N/K = 64/17.6 = 3.64 is not an integer: every position must still get rho */
	for (k = 0; k < 2; k++) {
		memset(hits, 0, sizeof(hits));
		matrix(&ts, 8, 8, kinds[k], 0.275);
		for (seed = 1; seed <= 4000; seed++) {
			char why[256];
			struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
			for (i = 0; i < 64; i++)
				hits[i] += exec_tensor_values(x)[i] != 0;
			exec_tensor_free(x);
		}
		/* 1100 expected (hypergeometric: 18/64 * 4000 = 1125), sd ~28: 5 sd */
		for (i = 0; i < 64; i++)
			CU_ASSERT_TRUE(fabs(hits[i] - (k ? 1125.0 : 1100.0)) < 140);
	}
}

static void test_banded(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *x;
	uint64_t i, j, c[2];

	matrix(&ts, 6, 6, SPEC_DENSITY_BANDED, 0);
	ts.tensors[0].density.band_width = 1;
	x = exec_tensor_new(&ts.s.workload, 0, 1, why);
	CU_ASSERT_EQUAL(exec_tensor_nnz(x), 6 + 2 * 5);
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++) {
			c[0] = i;
			c[1] = j;
			CU_ASSERT_EQUAL(exec_tensor_get(x, c) != 0, (i > j ? i - j : j - i) <= 1);
		}
	exec_tensor_free(x);
}

static void test_values_reproducible(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *a, *b, *c;
	uint64_t i;
	bool differs = false;

	matrix(&ts, 16, 16, SPEC_DENSITY_HYPERGEOMETRIC, 0.5);
	a = exec_tensor_new(&ts.s.workload, 0, 42, why);
	b = exec_tensor_new(&ts.s.workload, 0, 42, why);
	c = exec_tensor_new(&ts.s.workload, 0, 43, why);
	CU_ASSERT_EQUAL(memcmp(exec_tensor_values(a), exec_tensor_values(b), 256 * sizeof(double)), 0);
	for (i = 0; i < 256; i++) {
		double v = exec_tensor_values(a)[i];
		differs |= v != exec_tensor_values(c)[i];
		CU_ASSERT_TRUE(v == floor(v) && fabs(v) <= 15);
	}
	CU_ASSERT_TRUE(differs);
	exec_tensor_free(a);
	exec_tensor_free(b);
	exec_tensor_free(c);
}

/* ------------------------------------------------------------------- N:M */

static void test_prune_nm(void)
{
	static const uint64_t ext[] = { 2, 8 };
	static const double in[] = { 1, -5, 3, 2, 0, 7, -7, 1, /* ties: lower position wins */
				     4, 4, 4, 4, -1, 0, 0, 0 };
	static const double want[] = { 0, -5, 3, 0, 0, 7, -7, 0,
				       4, 4, 0, 0, -1, 0, 0, 0 };
	struct exec_tensor *x = exec_tensor_new_zero(2, ext);
	uint64_t i, c[2];

	for (i = 0; i < 16; i++) {
		c[0] = i / 8;
		c[1] = i % 8;
		exec_tensor_set(x, c, in[i]);
	}
	exec_tensor_prune_nm(x, 2, 4, 1);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(exec_tensor_values(x)[i], want[i]);
	exec_tensor_free(x);
}

static void test_nm_compress(void)
{
	static const uint64_t ext[] = { 4, 8 };
	struct exec_tensor *x = exec_tensor_new_zero(2, ext), *y = exec_tensor_new_zero(2, ext);
	double values[16];
	uint8_t idx[16];
	struct rng r;
	uint64_t i, c[2];

	rng_seed(&r, 3);
	for (i = 0; i < 32; i++) {
		c[0] = i / 8;
		c[1] = i % 8;
		exec_tensor_set(x, c, (double)rng_below(&r, 9) - 4);
	}
	exec_tensor_prune_nm(x, 2, 4, 1);
	CU_ASSERT_EQUAL(exec_nm_index_bits(4), 2);
	CU_ASSERT_EQUAL(exec_nm_index_bits(8), 3);
	CU_ASSERT_EQUAL_FATAL(exec_nm_compress(x, 2, 4, 1, values, idx), 16);
	for (i = 0; i < 16; i++)
		CU_ASSERT_TRUE(idx[i] < 4);
	for (i = 0; i < 16; i += 2)
		CU_ASSERT_TRUE(idx[i] < idx[i + 1]);   /* sorted inside a group */
	exec_nm_decompress(y, 2, 4, 1, values, idx);
	CU_ASSERT_EQUAL(memcmp(exec_tensor_values(x), exec_tensor_values(y), 32 * sizeof(double)), 0);
	/* a group with 3 non-zeros cannot be 2:4 */
	c[0] = 0;
	c[1] = 0;
	exec_tensor_set(y, c, 1);
	c[1] = 1;
	exec_tensor_set(y, c, 1);
	c[1] = 2;
	exec_tensor_set(y, c, 1);
	CU_ASSERT_EQUAL(exec_nm_compress(y, 2, 4, 1, values, idx), 0);
	exec_tensor_free(x);
	exec_tensor_free(y);
}

/* The N:M density model: exactly N non-zeros in every group of M. */
static void test_nm_density(void)
{
	struct tspec ts;
	char why[256];
	struct exec_tensor *x;
	uint64_t i, j, g;

	matrix(&ts, 6, 16, SPEC_DENSITY_NM, 0.5);
	ts.tensors[0].density.nm_n = 2;
	ts.tensors[0].density.nm_m = 4;
	ts.tensors[0].density.nm_dim = 1;
	x = exec_tensor_new(&ts.s.workload, 0, 5, why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	for (i = 0; i < 6; i++)
		for (g = 0; g < 4; g++) {
			unsigned n = 0;
			for (j = g * 4; j < g * 4 + 4; j++)
				n += exec_tensor_values(x)[i * 16 + j] != 0;
			CU_ASSERT_EQUAL(n, 2);
		}
	exec_tensor_free(x);
}

/* ------------------------------------------------------ block structured */

/* A tensor of 'n' ranks of extents 'ext' (dimensions "MKN"), cut into blocks of 'blk'. */
static void block_tensor(struct tspec *ts, unsigned n, const uint64_t *ext, const uint64_t *blk,
			 double density)
{
	static const char *const proj[] = { "", "M", "M,K", "M,K,N" };
	static const char *const dims[] = { "", "M", "MK", "MKN" };
	unsigned r;

	tspec_init(ts, dims[n], ext);
	tspec_tensor(ts, "A", proj[n], false);
	tspec_density(ts, 0, SPEC_DENSITY_BLOCK, density);
	for (r = 0; r < n; r++)
		ts->tensors[0].density.block_shape[r] = blk[r];
}

static const struct {
	unsigned n;
	uint64_t ext[3], blk[3];
	double density;
	uint64_t n_blocks, nonzero;
} block_rows[] = {
	{ 2, { 10, 13 }, { 4, 3 }, 0.3, 15, 5 },           /* edge blocks 2 x 1; round(4.5) */
	{ 2, { 16, 16 }, { 16, 4 }, 0.5, 4, 2 },
	{ 2, { 8, 8 }, { 1, 1 }, 0.25, 64, 16 },           /* blocks of one point */
	{ 3, { 5, 6, 7 }, { 2, 3, 4 }, 0.4, 12, 5 },       /* round(4.8) */
	{ 1, { 9 }, { 4 }, 1.0, 3, 3 },
	{ 2, { 6, 6 }, { 3, 3 }, 0.0, 4, 0 },
};

/*
 * Every block is all zero or all non-zero, exactly round(rho B) blocks are
 * non-zero, and over seeds every block is chosen with probability K/B.
 */
static void test_block(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(block_rows); i++) {
		unsigned n = block_rows[i].n, q;
		uint64_t nb = block_rows[i].n_blocks, per[3] = { 1, 1, 1 }, seed, p, b;
		double *hits = calloc(nb, sizeof(double));
		struct tspec ts;

		for (q = 0; q < n; q++)
			per[q] = (block_rows[i].ext[q] + block_rows[i].blk[q] - 1) / block_rows[i].blk[q];
		block_tensor(&ts, n, block_rows[i].ext, block_rows[i].blk, block_rows[i].density);
		for (seed = 1; seed <= 400; seed++) {
			char why[256];
			struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
			uint64_t *nnz = calloc(nb, sizeof(uint64_t)), *pts = calloc(nb, sizeof(uint64_t));
			uint64_t on = 0;
			CU_ASSERT_PTR_NOT_NULL_FATAL(x);
			for (p = 0; p < exec_tensor_size(x); p++) {
				uint64_t rest = p, c[3] = { 0, 0, 0 };
				for (q = n; q-- > 0;) {
					c[q] = rest % block_rows[i].ext[q];
					rest /= block_rows[i].ext[q];
				}
				b = 0;
				for (q = 0; q < n; q++)
					b = b * per[q] + c[q] / block_rows[i].blk[q];
				pts[b]++;
				nnz[b] += exec_tensor_values(x)[p] != 0;
			}
			for (b = 0; b < nb; b++) {
				CU_ASSERT(nnz[b] == 0 || nnz[b] == pts[b]);
				on += nnz[b] != 0;
				hits[b] += nnz[b] != 0;
			}
			CU_ASSERT_EQUAL(on, block_rows[i].nonzero);
			free(nnz);
			free(pts);
			exec_tensor_free(x);
		}
		/* Binomial(400, K/B): within 5 standard deviations */
		for (b = 0; b < nb; b++) {
			double pr = (double)block_rows[i].nonzero / (double)nb;
			CU_ASSERT(fabs(hits[b] - 400 * pr) <= 5 * sqrt(400 * pr * (1 - pr)) + 1e-9);
		}
		free(hits);
	}
}

/* ---------------------------------------------------------------- power law */

/* A power-law A[M,K] (rows: M) or A[M,K,N] with rows along 'row_dim'. */
static void power_law_tensor(struct tspec *ts, unsigned n, const uint64_t *ext, double density,
			     double exponent, unsigned row_dim, bool permute)
{
	static const char *const proj[] = { "", "M", "M,K", "M,K,N" };
	static const char *const dims[] = { "", "M", "MK", "MKN" };

	tspec_init(ts, dims[n], ext);
	tspec_tensor(ts, "A", proj[n], false);
	tspec_density(ts, 0, SPEC_DENSITY_POWER_LAW, density);
	ts->tensors[0].density.exponent = exponent;
	ts->tensors[0].density.row_dim = row_dim;
	ts->tensors[0].density.permute_rows = permute;
}

/* Non-zeros of each row (coordinate of rank 'rank') of 'x' into 'len'. */
static void row_counts(const struct exec_tensor *x, unsigned rank, uint64_t *len)
{
	uint64_t p, stride = 1;
	unsigned q;

	for (q = rank + 1; q < exec_tensor_n_ranks(x); q++)
		stride *= exec_tensor_extent(x, q);
	memset(len, 0, exec_tensor_extent(x, rank) * sizeof(uint64_t));
	for (p = 0; p < exec_tensor_size(x); p++)
		len[p / stride % exec_tensor_extent(x, rank)] += exec_tensor_values(x)[p] != 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x > y ? -1 : x < y;
}

/* Row lengths by the definition's hand arithmetic (see tests/density/test_density.c). */
static const struct {
	unsigned n;
	uint64_t ext[3];
	double density, exponent;
	unsigned row_dim;
	uint64_t len[8];
} pl_rows[] = {
	{ 2, { 4, 8 }, 10.0 / 32, 1.0, 0, { 5, 2, 2, 1 } },
	{ 2, { 4, 3 }, 10.0 / 12, 1.0, 0, { 3, 3, 2, 2 } },   /* two full rows */
	{ 2, { 5, 4 }, 0.45, 1.0, 0, { 4, 2, 1, 1, 1 } },
	{ 2, { 6, 3 }, 0.5, 2.0, 0, { 3, 3, 1, 1, 1, 0 } },
	{ 2, { 4, 5 }, 0.35, 0.0, 0, { 2, 2, 2, 1 } },
	/* rows along K of a 2 x 4 x 3 tensor: slices of 6, T 10 as in the first row but S 6 */
	{ 3, { 2, 4, 3 }, 10.0 / 24, 1.0, 1, { 5, 2, 2, 1 } },
};

/*
 * The exact total and the defined row lengths (in row order; permuted:
 * as a multiset), and over seeds every place of a row equally likely.
 */
static void test_power_law_rows(void)
{
	size_t i;
	int perm;

	for (i = 0; i < ARRAY_SIZE(pl_rows); i++)
		for (perm = 0; perm < 2; perm++) {
			unsigned rank = pl_rows[i].row_dim;
			uint64_t R = pl_rows[i].ext[rank], want[8], got[8], seed, total = 0, r;
			struct tspec ts;
			power_law_tensor(&ts, pl_rows[i].n, pl_rows[i].ext, pl_rows[i].density,
					 pl_rows[i].exponent, rank, perm);
			memcpy(want, pl_rows[i].len, sizeof(want));
			for (r = 0; r < R; r++)
				total += want[r];
			if (perm)
				qsort(want, R, sizeof(uint64_t), cmp_desc);
			for (seed = 1; seed <= 30; seed++) {
				char why[256];
				struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
				CU_ASSERT_PTR_NOT_NULL_FATAL(x);
				CU_ASSERT_EQUAL(exec_tensor_nnz(x), total);
				row_counts(x, rank, got);
				if (perm)
					qsort(got, R, sizeof(uint64_t), cmp_desc);
				for (r = 0; r < R; r++)
					CU_ASSERT_EQUAL(got[r], want[r]);
				exec_tensor_free(x);
			}
		}
}

/*
 * A larger matrix: log(row length) against log(rank) has slope -alpha
 * (least squares over the rows whose quota is at least 8, where rounding
 * moves the logarithm by less than 1/8); with permuted rows the lengths
 * sorted over each seed give the same, and every row is equally likely to
 * get each length (mean over seeds T/R); the places of each row are uniform.
 */
static void test_power_law_shares(void)
{
	static const double alphas[] = { 0.8, 1.2, 2.0 };
	uint64_t ext[2] = { 64, 256 }, len[64], seed, r, j;
	size_t a;
	int perm;

	for (a = 0; a < ARRAY_SIZE(alphas); a++)
		for (perm = 0; perm < 2; perm++) {
			double mean_len[64] = { 0 }, *hits = xcalloc(64 * 256, sizeof(double));
			double total = 0.3 * 64 * 256;
			double slope_sum = 0.0;
			struct tspec ts;
			power_law_tensor(&ts, 2, ext, 0.3, alphas[a], 0, perm);
			for (seed = 1; seed <= 200; seed++) {
				char why[256];
				struct exec_tensor *x = exec_tensor_new(&ts.s.workload, 0, seed, why);
				double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
				CU_ASSERT_PTR_NOT_NULL_FATAL(x);
				CU_ASSERT_EQUAL(exec_tensor_nnz(x), (uint64_t)llround(total));
				row_counts(x, 0, len);
				for (r = 0; r < 64; r++)
					mean_len[r] += (double)len[r] / 200;
				for (j = 0; j < 64 * 256; j++)
					hits[j] += exec_tensor_values(x)[j] != 0;
				qsort(len, 64, sizeof(uint64_t), cmp_desc);
				for (r = 0; r < 64 && len[r] >= 8; r++) {
					double lx = log((double)r + 1), ly = log((double)len[r]);
					if (len[r] == 256)
						continue;     /* full rows are capped */
					sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, k++;
				}
				CU_ASSERT_FATAL(k >= 3);
				slope_sum += (k * sxy - sx * sy) / (k * sxx - sx * sx);
				exec_tensor_free(x);
			}
			CU_ASSERT_DOUBLE_EQUAL(slope_sum / 200, -alphas[a], 0.06);
			if (perm) {
				/* each row's mean length over 200 seeds: T/R = 76.8 within 5 sd */
				double var = 0.0;
				for (r = 0; r < 64; r++)
					var += (double)len[r] * len[r] / 64;
				var -= (total / 64) * (total / 64);
				for (r = 0; r < 64; r++)
					CU_ASSERT(fabs(mean_len[r] - total / 64) <= 5 * sqrt(var / 200));
			}
			/* unpermuted, every place of row r is non-zero with p = L_r/256 */
			for (r = 0; !perm && r < 64; r++) {
				double p = mean_len[r] / 256;
				if (200 * p < 25 || 200 * (1 - p) < 25)
					continue;     /* too skewed for 5 normal sd */
				for (j = 0; j < 256; j++)
					CU_ASSERT(fabs(hits[r * 256 + j] - 200 * p) <=
						  5 * sqrt(200 * p * (1 - p)));
			}
			free(hits);
		}
}

/* ------------------------------------------------------------ box counts */

static void test_box_nnz(void)
{
	static const uint64_t ext[] = { 5, 6, 7 };
	struct exec_tensor *x = exec_tensor_new_zero(3, ext);
	struct rng r;
	uint64_t i, c[3];
	int k;

	rng_seed(&r, 11);
	for (i = 0; i < 210; i++) {
		c[0] = i / 42;
		c[1] = i / 7 % 6;
		c[2] = i % 7;
		exec_tensor_set(x, c, rng_below(&r, 3) == 0 ? 1 : 0);
	}
	for (k = 0; k < 200; k++) {
		int64_t lo[3], hi[3];
		uint64_t want = 0, a, b, d;
		unsigned q;
		for (q = 0; q < 3; q++) {
			lo[q] = (int64_t)rng_below(&r, ext[q]) - 1;
			hi[q] = lo[q] + (int64_t)rng_below(&r, ext[q] + 1);
		}
		for (a = 0; a < 5; a++)
			for (b = 0; b < 6; b++)
				for (d = 0; d < 7; d++) {
					int64_t v[3] = { (int64_t)a, (int64_t)b, (int64_t)d };
					bool in = true;
					for (q = 0; q < 3; q++)
						in &= v[q] >= lo[q] && v[q] <= hi[q];
					want += in && exec_tensor_values(x)[a * 42 + b * 7 + d] != 0;
				}
		CU_ASSERT_EQUAL(exec_tensor_box_nnz(x, lo, hi), want);
	}
	exec_tensor_free(x);
}

CU_TestInfo tensor_tests[] = {
	{ "non-zero counts per density model", test_counts },
	{ "fixed_structured spreads evenly", test_fixed_is_even },
	{ "placement is uniform over seeds", test_uniform_placement },
	{ "banded", test_banded },
	{ "values reproducible per seed", test_values_reproducible },
	{ "N:M magnitude pruning", test_prune_nm },
	{ "N:M compression round trip", test_nm_compress },
	{ "N:M density model", test_nm_density },
	{ "box non-zero counts", test_box_nnz },
	{ "block structured", test_block },
	{ "power-law row lengths", test_power_law_rows },
	{ "power-law shares and places", test_power_law_shares },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "tensor", .pTests = tensor_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
