/*
 * ipu_plan.c: the uniform-pattern helper, the worker split, the exchange
 * estimator, bucket sizes by §1.4's formulas (worked by hand), and the
 * search: the chosen plan fits the tiles and the memory bound, honours the
 * plan constraint, and no other allowed partition costs less.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"
#include "util/ckmath.h"

static void test_uniform(void)
{
	double a, c;

	ipu_uniform(0.25, 8, 4, &a, &c);       /* ceil(8 (1 - 0.75^4)) = 6, ceil(8 / 6) = 2 */
	CU_ASSERT_DOUBLE_EQUAL(a, 6, 0);
	CU_ASSERT_DOUBLE_EQUAL(c, 2, 0);
	ipu_uniform(1.0, 5, 3, &a, &c);
	CU_ASSERT_DOUBLE_EQUAL(a, 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(c, 3, 0);
	ipu_uniform(0.1, 16, 16, &a, &c);      /* ceil(13.03) = 14, ceil(26 / 14) = 2 */
	CU_ASSERT_DOUBLE_EQUAL(a, 14, 0);
	CU_ASSERT_DOUBLE_EQUAL(c, 2, 0);
}

struct split_row {
	uint64_t r, c, rows, cols;
};

static const struct split_row split_rows[] = {
	/* g = 11: rows 1, cols 11, floor(16 / 11) = 1 column of pieces: four 1 x 16, two of them
	 * halved to reach 6 pieces: 1 x 16 is left (11 before the last piece took the remainder) */
	{ 4, 16, 1, 16 },
	{ 1, 16, 1, 3 },     /* g = 3: 3, 3, 3, 3, 4; the 4 halved */
	{ 1, 4, 1, 1 },      /* fewer grains than workers: 1 x 1 pieces cannot split */
	/* g = 2: five pieces of 2 rows, one halved: 2 rows remain the slowest (not 1) */
	{ 10, 1, 2, 1 },
	{ 12, 12, 2, 12 },   /* g = 24: rows min(2, 12) = 2, cols 12: exactly 6 pieces */
	/* g = 4: five pieces of 4 rows, one halved: 4 rows (2 when every piece was halved) */
	{ 20, 1, 4, 1 },
	{ 23, 1, 4, 1 },     /* 4, 4, 4, 4 and the remainder 7, halved to 4 + 3 */
};

static void test_split(void)
{
	size_t i;

	for (i = 0; i < sizeof(split_rows) / sizeof(split_rows[0]); i++) {
		uint64_t rows, cols;
		ipu_split_workers(split_rows[i].r, split_rows[i].c, 6, &rows, &cols);
		if (rows != split_rows[i].rows || cols != split_rows[i].cols)
			fprintf(stderr, "row %zu: %llu x %llu\n", i, (unsigned long long)rows,
				(unsigned long long)cols);
		CU_ASSERT_EQUAL(rows, split_rows[i].rows);
		CU_ASSERT_EQUAL(cols, split_rows[i].cols);
	}
}

/*
 * splitTileBetweenWorkers with row weights (more than 2 W rows): avg =
 * ceil(total / W), worker w ends before the first row whose running sum
 * exceeds (w + 1) avg, workers left without rows are skipped, the last takes
 * the rest.
 */
static void test_split_weighted(void)
{
	struct ipu_row even[13], heavy[13];
	uint32_t ends[6], i;
	static const uint32_t even_ends[] = { 2, 4, 6, 8, 11, 13 };
	static const uint32_t heavy_ends[] = { 3, 7, 11, 13 };

	for (i = 0; i < 13; i++) {
		even[i] = (struct ipu_row){ i, 5 };
		heavy[i] = (struct ipu_row){ i, i ? 1 : 10 };
	}
	/* 65 non-zeros, avg 11: 10, 20, 30, 40 and 55 end the first five pieces; the
	 * fifth holds 3 rows (the grid split of 13 rows x 1 column gives 3 too) */
	CU_ASSERT_EQUAL_FATAL(ipu_split_workers_weighted(even, 13, 6, ends), 6);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(ends[i], even_ends[i]);
	/* 22 non-zeros, avg 4: the heavy first row exceeds 4 and 8, so workers 0 and 1
	 * get nothing; worker 2 takes rows 0-2 (12), 3 rows 3-6 (16), 4 rows 7-10 */
	CU_ASSERT_EQUAL_FATAL(ipu_split_workers_weighted(heavy, 13, 6, ends), 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ends[i], heavy_ends[i]);
}

/* ceil(16 B / (round(16 E) h)); h = 2 when the receivers are all or an even number. */
static void test_exchange(void)
{
	struct ipf_layer f;

	ipf_layer_init(&f, true, false, 16);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 3, 8, true), 250, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 2, 8, true), 125, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 8, 8, true), 125, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 2, 8, false), 250, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 0, 2, 8, true), 0, 0);
	f.dev.exchange_bus_sharing = false;
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1001, 2, 8, true), 251, 0);
	f.dev.sync_cycles = 100;
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 1, 8, true), 350, 0);
	/* each exchange phase pays the fixed overhead (the presets' 100, from
	 * PopLibs' CTC planner) on top of its bytes and sync; no bytes, no phase */
	f.dev.sync_cycles = 0;
	f.dev.exchange_overhead_cycles = 100;
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 1000, 1, 8, true), 350, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 4, 1, 8, true), 101, 0);
	CU_ASSERT_DOUBLE_EQUAL(ipu_exchange_cycles(&f.L, 0, 1, 8, true), 0, 0);
}

struct size_row {
	const char *layer;
	unsigned px, py, pz;
	uint64_t Rg, rb, nz_elems, meta, bytes_r;
};

/*
 * Worked by hand from §1.4. Block 4 half: R_g = 64, ceil(64/16) = 4, round(5.2)
 * = 5, gamma 1; U(0.25, 4, 4) = (3, 2): align(14 + ceil(15.6), 4) = 32;
 * B_r = 5 x 16 x 2 + 2 x 32. Element-wise half with GradW: R_g = ceil(102.4)
 * = 103, ceil(103/4) = 26, round(33.8) = 34, gamma = lcm(2, 4)/2 = 2;
 * nzElems align(34, 8/4); U(0.1, 16, 16) = (14, 2): align(2 (9 + 60) +
 * ceil(72.8), 4) = 212.
 */
static const struct size_row size_rows[] = {
	{ "x: 64, y: 64, z: 8, block_size: 4, density: 0.25", 4, 4, 1, 64, 5, 80, 32, 224 },
	{ "x: 32, y: 32, z: 8, passes: [fwd, grad_w], density: 0.1", 2, 2, 1, 103, 34, 34, 212,
	  34 * 2 + 2 * 212 },
	{ "x: 64, y: 64, z: 8, block_size: 4, dtype: float, density: 0.25", 4, 4, 1, 64, 5, 80, 32,
	  5 * 16 * 4 + 64 },
};

static void test_sizes(void)
{
	size_t i;

	for (i = 0; i < sizeof(size_rows) / sizeof(size_rows[0]); i++) {
		const struct size_row *r = &size_rows[i];
		struct spec_set *s = ipf_load("bow", r->layer);
		struct ipu_layer L;
		struct ipu_method ms[4];
		struct ipu_geom g;
		struct ipu_sizes z;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		ipu_layer_init(&L, s);
		ipu_methods(&L, ms);
		ipu_geom_init(&L, &ms[0], r->px, r->py, r->pz, &g);
		ipu_sizes_init(&L, &ms[0], &g, false, &z);
		if (z.Rg != r->Rg || z.rb != r->rb || z.nz_elems != r->nz_elems ||
		    z.meta_words != r->meta || z.bytes_r != r->bytes_r)
			fprintf(stderr, "row %zu: Rg %llu rb %llu nz %llu M %llu B %llu\n", i,
				(unsigned long long)z.Rg, (unsigned long long)z.rb,
				(unsigned long long)z.nz_elems, (unsigned long long)z.meta_words,
				(unsigned long long)z.bytes_r);
		CU_ASSERT_EQUAL(z.Rg, r->Rg);
		CU_ASSERT_EQUAL(z.rb, r->rb);
		CU_ASSERT_EQUAL(z.nz_elems, r->nz_elems);
		CU_ASSERT_EQUAL(z.meta_words, r->meta);
		CU_ASSERT_EQUAL(z.bytes_r, r->bytes_r);
		spec_set_free(s);
	}
}

/* The candidate methods and groupings of §1.2. */
static void test_methods(void)
{
	struct ipu_method ms[4];
	struct spec_set *s = ipf_load("bow", "x: 64, y: 64, z: 32, block_size: 16, "
				      "passes: [fwd, grad_w], density: 0.25");
	struct ipu_layer L;
	unsigned n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ipu_layer_init(&L, s);
	n = ipu_methods(&L, ms);
	CU_ASSERT_EQUAL(n, 4);                 /* two groupings x gradWExchangeBuckets */
	CU_ASSERT_EQUAL(ms[0].m[SPEC_IPU_GRAD_W], ACCEL_IPU_GRAD_W_BLOCK);
	CU_ASSERT_EQUAL(ms[2].gz, 16);
	CU_ASSERT_EQUAL(ms[2].m[SPEC_IPU_GRAD_W], ACCEL_IPU_GRAD_W_AMP_BLOCK);
	CU_ASSERT(ms[1].grad_w_exch && !ms[0].grad_w_exch);
	spec_set_free(s);
	s = ipf_load("bow", "x: 64, y: 64, z: 8, dtype: float, density: 0.25");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ipu_layer_init(&L, s);
	n = ipu_methods(&L, ms);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(ms[0].gz, 2);          /* the float vector width */
	CU_ASSERT_EQUAL(ms[0].m[SPEC_IPU_GRAD_A], ACCEL_IPU_TRANSPOSE);
	spec_set_free(s);
	/* float 16 x 16 blocks run the 8 x 8 kernel (getBlockDimensionsToUse) */
	s = ipf_load("bow", "x: 64, y: 64, z: 8, block_size: 16, dtype: float, density: 0.25");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ipu_layer_init(&L, s);
	CU_ASSERT_EQUAL(L.kb, 8);
	CU_ASSERT_EQUAL(L.q, 2);
	spec_set_free(s);
}

/* Summed planner cycles and peak temporary of the layer's passes under (m, g). */
static void plan_cost(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		      double *cycles, uint64_t *temp)
{
	struct ipu_sizes z;
	struct ipu_pass_est e;
	unsigned p;

	ipu_sizes_init(L, m, g, false, &z);
	*cycles = 0;
	*temp = 0;
	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		if (!((L->l->passes >> p) & 1))
			continue;
		ipu_pass_plan(L, m, g, &z, (enum spec_ipu_pass)p, false, &e);
		*cycles += e.total;
		if (e.temp > *temp)
			*temp = e.temp;
	}
}

/* Whether the tile holds the plan's buckets, dense shares and 'temp'. */
static bool plan_fits(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		      uint64_t temp)
{
	struct ipu_sizes z;

	ipu_sizes_init(L, m, g, false, &z);
	return ipu_tile_bytes(L, m, g, &z, temp) <= L->dev->bytes_per_tile;
}

/*
 * Of every partition the search may pick (P the smallest count of its
 * quotient, P_z dividing the Z grains, §1.3), under every method: the
 * fewest summed cycles of those whose temporaries are within 'bound' (0:
 * any) and whose tile holds the plan. Returns how many such plans exist.
 */
static uint64_t cheapest_fitting(const struct ipu_layer *L, uint64_t bound, double *cheapest)
{
	struct ipu_method ms[4];
	struct ipu_geom h;
	uint64_t px, py, pz, temp, n_fit = 0;
	unsigned n_m = ipu_methods(L, ms), k;
	double cycles;

	*cheapest = INFINITY;
	for (k = 0; k < n_m; k++) {
		uint64_t Nx = ceil_div_u64(L->X, ms[k].gx), Ny = ceil_div_u64(L->Y, ms[k].gy);
		uint64_t Nz = ceil_div_u64(L->Z, ms[k].gz);
		for (pz = 1; pz <= Nz && pz <= L->dev->tiles; pz++) {
			if (Nz % pz)
				continue;
			for (px = 1; px <= Nx && px * pz <= L->dev->tiles; px++) {
				if (px > 1 && ceil_div_u64(Nx, px) == ceil_div_u64(Nx, px - 1))
					continue;
				for (py = 1; py <= Ny && px * py * pz <= L->dev->tiles; py++) {
					if (py > 1 && ceil_div_u64(Ny, py) == ceil_div_u64(Ny, py - 1))
						continue;
					ipu_geom_init(L, &ms[k], (unsigned)px, (unsigned)py, (unsigned)pz, &h);
					plan_cost(L, &ms[k], &h, &cycles, &temp);
					if ((bound && temp > bound) || !plan_fits(L, &ms[k], &h, temp))
						continue;
					n_fit++;
					if (cycles < *cheapest)
						*cheapest = cycles;
				}
			}
		}
	}
	return n_fit;
}

/* A layer of 'layer' on the bow preset, planned: the set (to free) and the plan. */
struct planned {
	struct spec_set *s;
	struct ipu_layer L;
	struct ipu_method m;
	struct ipu_geom g;
	struct ipu_sizes z;
	uint64_t bound, n_eval;
	int rc;                    /* ipu_plan_search's */
};

static void plan_layer(const char *layer, bool is_static, struct planned *p)
{
	char why[256];

	p->s = ipf_load("bow", layer);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->s);
	ipu_layer_init(&p->L, p->s);
	p->rc = ipu_plan_search(&p->L, is_static, &p->m, &p->g, &p->z, &p->bound, &p->n_eval, why,
				sizeof(why));
}

static const char *const search_layers[] = {
	"x: 256, y: 512, z: 16, block_size: 16, density: 0.0625",
	"x: 128, y: 128, z: 32, passes: [fwd, grad_a], density: 0.1",
	("x: 512, y: 256, z: 64, block_size: 8, dtype: float, passes: [fwd, grad_a, grad_w], "
	 "density: 0.125"),
	"x: 4096, y: 4096, z: 2048, block_size: 16, density: 0.0625",
};

/*
 * The chosen plan uses at most the device's tiles, its temporaries fit the
 * bound it was found under, P_z divides the Z grains, and no partition with
 * P the smallest count of its quotient (§1.3) costs less within the bound.
 */
static void test_search(void)
{
	size_t i;

	for (i = 0; i < sizeof(search_layers) / sizeof(search_layers[0]); i++) {
		struct planned p;
		uint64_t best_temp;
		double best, cheapest;
		plan_layer(search_layers[i], false, &p);
		CU_ASSERT_FATAL(p.rc == 0);
		CU_ASSERT(p.g.T <= p.L.dev->tiles);
		CU_ASSERT_EQUAL(p.g.T, (uint64_t)p.g.px * p.g.py * p.g.pz);
		CU_ASSERT_EQUAL(p.g.Nz % p.g.pz, 0);
		plan_cost(&p.L, &p.m, &p.g, &best, &best_temp);
		CU_ASSERT(p.bound == 0 || best_temp <= p.bound);
		CU_ASSERT_EQUAL(p.bound, (uint64_t)floor(0.6 * 624 * 1024));
		CU_ASSERT(cheapest_fitting(&p.L, p.bound, &cheapest) > 0);
		if (cheapest < best - 1e-6)
			fprintf(stderr, "layer %zu: a partition costs %g < %g\n", i, cheapest, best);
		CU_ASSERT(cheapest >= best - 1e-6);
		spec_set_free(p.s);
	}
}

/* A plan constraint fixes the partition (planConstraints, §1.3). */
static void test_constraint(void)
{
	struct planned p;

	plan_layer("x: 256, y: 256, z: 16, block_size: 4, density: 0.1, "
		   "partition: {x: 3, y: 5, z: 2}", false, &p);
	CU_ASSERT_FATAL(p.rc == 0);
	CU_ASSERT_EQUAL(p.g.px, 3);
	CU_ASSERT_EQUAL(p.g.py, 5);
	CU_ASSERT_EQUAL(p.g.pz, 2);
	CU_ASSERT_EQUAL(p.n_eval, 1);
	spec_set_free(p.s);
	/* P_z must divide the Z grains: 3 does not divide 16 */
	plan_layer("x: 256, y: 256, z: 16, block_size: 4, density: 0.1, partition: {z: 3}", false, &p);
	CU_ASSERT(p.rc < 0);
	spec_set_free(p.s);
}

/*
 * Memory: the bound is floor(bytes_per_tile x proportion); with a tiny
 * proportion nothing fits and the bound doubles (then is dropped).
 */
static void test_memory_bound(void)
{
	struct planned p;
	double cycles;
	uint64_t temp;

	plan_layer("x: 1024, y: 1024, z: 1024, block_size: 16, density: 0.25, "
		   "available_memory_proportion: 0.001", false, &p);
	CU_ASSERT_FATAL(p.rc == 0);
	CU_ASSERT(p.bound > (uint64_t)floor(0.001 * 624 * 1024));
	plan_cost(&p.L, &p.m, &p.g, &cycles, &temp);
	CU_ASSERT(p.bound == 0 || temp <= p.bound);
	CU_ASSERT(p.bound == 0 || temp > p.bound / 2);   /* it did not fit the previous bound */
	spec_set_free(p.s);
}

/*
 * The shapes where the doubled bound (1.2 tiles) admitted a plan that
 * overflowed its tile while plans that fit exist: m = k = 8192, n = 1024,
 * static Fwd (t7.sh's largest layer) at several block sizes and densities.
 * Each plan now fits its tile after the bound was doubled.
 */
static const char *const overflow_layers[] = {
	"x: 8192, y: 8192, z: 1024, block_size: 4, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.125}",
	"x: 8192, y: 8192, z: 1024, block_size: 4, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.0625}",
	"x: 8192, y: 8192, z: 1024, block_size: 4, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.03125}",
	"x: 8192, y: 8192, z: 1024, block_size: 8, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.125}",
	"x: 8192, y: 8192, z: 1024, block_size: 16, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.125}",
	"x: 8192, y: 8192, z: 1024, block_size: 16, sparsity: static, passes: [fwd], "
	"density: {distribution: hypergeometric, density: 0.0625}",
};

static void test_overflow_shapes(void)
{
	size_t i;

	for (i = 0; i < sizeof(overflow_layers) / sizeof(overflow_layers[0]); i++) {
		struct accel_ipu_result *r = xcalloc(1, sizeof(*r));
		struct planned p;
		plan_layer(overflow_layers[i], true, &p);
		CU_ASSERT_FATAL(p.rc == 0);
		/* nothing fitted 0.6 of the tile: the bound was doubled */
		CU_ASSERT_EQUAL(p.bound, 2 * (uint64_t)floor(0.6 * 624 * 1024));
		CU_ASSERT_EQUAL(accel_ipu_eval(p.s, NULL, r, NULL), 0);
		CU_ASSERT_EQUAL(r->status, ACCEL_IPU_OK);
		CU_ASSERT(r->memory.total_bytes <= r->memory.tile_bytes);
		CU_ASSERT(r->memory.temp_bytes > r->memory.temp_limit_bytes);
		if (r->memory.total_bytes > r->memory.tile_bytes)
			fprintf(stderr, "layer %zu: %llu bytes\n", i,
				(unsigned long long)r->memory.total_bytes);
		spec_set_free(p.s);
		free(r);
	}
}

/*
 * The dynamic Fwd + GradA layer at the failing shape, 4 x 4 blocks: no
 * plan's temporaries fit 0.6 of the tile; of every partition the search
 * may pick, the chosen plan fits its tile and no fitting one is faster.
 */
static void test_overflow_exhaustive(void)
{
	struct planned p;
	double best, cheapest;
	uint64_t temp;

	plan_layer("x: 8192, y: 8192, z: 1024, block_size: 4, "
		   "density: {distribution: hypergeometric, density: 0.0625}", false, &p);
	CU_ASSERT_FATAL(p.rc == 0);
	plan_cost(&p.L, &p.m, &p.g, &best, &temp);
	CU_ASSERT(plan_fits(&p.L, &p.m, &p.g, temp));
	CU_ASSERT(temp > (uint64_t)floor(0.6 * 624 * 1024));
	CU_ASSERT(cheapest_fitting(&p.L, 0, &cheapest) > 0);
	CU_ASSERT(cheapest >= best - 1e-6);
	spec_set_free(p.s);
}

static CU_TestInfo tests[] = {
	{ "uniform helper U(d, a, c)", test_uniform },
	{ "worker split", test_split },
	{ "worker split by row weights", test_split_weighted },
	{ "exchange estimator", test_exchange },
	{ "bucket sizes by hand", test_sizes },
	{ "candidate methods", test_methods },
	{ "search is exhaustive and within bounds", test_search },
	{ "plan constraint", test_constraint },
	{ "memory bound relaxation", test_memory_bound },
	{ "no overflowing plan at the failing shapes", test_overflow_shapes },
	{ "the fastest plan that fits, when the bound is doubled", test_overflow_exhaustive },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_plan", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
