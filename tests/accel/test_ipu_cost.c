/*
 * ipu_cost.c: the realized cost of a filled layout, worked by hand on the
 * partitioner's "spill to the previous Y" case (tests/accel/test_ipu_partition.c)
 * with the vertex estimates pinned in test_ipu_vertex.c; the busiest tile's
 * blocks per phase; static sparsity never costs more than the dynamic plan.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"

/*
 * Buckets after the partitioner on 2 x 2 x 1 partitions of 2 x 2 blocks of
 * 4 (X = Y = 16, Z = 8): bucket 3 holds partition 3's rows {0: 2, 1: 1},
 * bucket 2 partition 2's row {0: 1} and partition 3's row {1: 1}.
 */
static struct ipu_layout *spill_layout(void)
{
	struct ipu_part_cfg cfg = { 2, 2, 1, 3, 24, 7 };
	struct ipu_row r0[] = { { 0, 1 } }, r3[] = { { 0, 2 }, { 1, 2 } };
	struct ipu_row *rows[4] = { r0, r0, r0, r3 };
	uint32_t n[4] = { 1, 1, 1, 2 };

	return ipu_partition(&cfg, rows, n);
}

static void layer16(struct ipf_layer *f, struct ipu_method *m, struct ipu_geom *g,
		    struct ipu_sizes *z)
{
	ipf_layer_init(f, true, false, 4);
	f->L.X = f->L.Y = 16;
	f->L.Z = 8;
	f->L.d = 0.25;
	memset(m, 0, sizeof(*m));
	m->gx = m->gy = 4;
	m->gz = 1;
	m->m[SPEC_IPU_FWD] = ACCEL_IPU_FORWARD_AMP_BLOCK;
	ipu_geom_init(&f->L, m, 2, 2, 1, g);
	ipu_sizes_init(&f->L, m, g, false, z);
}

/*
 * Distribution: the slowest tile is (1,1): bucket 3, one sub-group of its
 * own, 2 rows, 3 blocks: supervisor 40 + sup(1) 102 + 3 (c_ld 4 + 3 + 12) +
 * 2 rows + 2 = 203, worker 26 + 3 (18 + 2 x 2 - 3) = 83 (Z split 8 over 6
 * workers as splitTileBetweenWorkers does: four pieces of 2 columns, two of
 * them halved, so the slowest worker has 2 columns, io 18 at Z = 2; 1 column
 * and 74 before the split followed PopLibs), so 203 + 6 x 83, after zeroing 2 x 4 x 8
 * partials: ceil(64/6) 6 = 66. Propagation: one step (X iteration 0):
 * BitIsSet 8 W, the shift of B_r, BufferIndexUpdate 6 W and the slowest
 * tile: (1,1) holding bucket 2 (2 sub-groups, one its own, 1 row, 1
 * block): 40 + floor(1.5 x 46 + 56) + 19 + 1 + 2 = 187 plus 6 (26 + 18 + 4 - 3).
 */
static void test_realize_by_hand(void)
{
	struct ipf_layer f;
	struct ipu_method m;
	struct ipu_geom g;
	struct ipu_sizes z;
	struct ipu_pass_est e, plan;
	struct ipu_layout *lay = spill_layout();
	double xchg;

	layer16(&f, &m, &g, &z);
	ipu_pass_realize(&f.L, &m, &g, &z, lay, SPEC_IPU_FWD, &e);
	ipu_pass_plan(&f.L, &m, &g, &z, SPEC_IPU_FWD, false, &plan);
	CU_ASSERT_DOUBLE_EQUAL(e.dist_compute, 66 + 203 + 6 * 83, 1e-9);
	xchg = ipu_exchange_cycles(&f.L, z.bytes_r, 1, 4, true);
	CU_ASSERT_DOUBLE_EQUAL(e.prop, 8 * 6 + xchg + 6 * 6 + 187 + 6 * 45, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e.dist_exch, plan.dist_exch, 0);
	CU_ASSERT_DOUBLE_EQUAL(e.reduce, plan.reduce, 0);
	CU_ASSERT_DOUBLE_EQUAL(e.total, e.transpose + e.dist_exch + e.dist_compute + e.prop + e.reduce,
			       1e-9);
	ipu_layout_free(lay);
}

/*
 * Element-wise Fwd runs its workers once per sub-group (the supervisor syncs
 * and runs them on each of its sub-groups, split as the partitioner split
 * that sub-group): half, X = 26 rows of 5 non-zeros, one X/Y partition,
 * P_z = 2, Z = 16 (2 grains of 4 a tile). splitRegions puts 13 rows in each
 * bucket; each is split by weight (more than 2 W rows): 2, 2, 2, 2, 3, 2
 * rows, the slowest 3 rows of 5 at Z = 8: 28 + 3 x 15 + 3 x 15 = 118, twice.
 * The tile: 30 + 2 sup(1) 93 + 6 x 2 x 118 = 1632, after zeroing 26 x 8
 * partials (35 x 6 = 210). One split of all 26 rows (PopLibs' planner
 * estimate, and the model before): 5 rows, 28 + 75 + 75 = 178, 1284.
 */
static void test_realize_subgroups(void)
{
	struct ipf_layer f;
	struct ipu_method m;
	struct ipu_geom g;
	struct ipu_sizes z;
	struct ipu_pass_est e;
	struct ipu_part_cfg cfg = { 1, 1, 2, 100, 1000, 39 };
	struct ipu_row r[26], *rows[1] = { r };
	uint32_t n[1] = { 26 }, i;
	struct ipu_layout *lay;

	for (i = 0; i < 26; i++)
		r[i] = (struct ipu_row){ i, 5 };
	lay = ipu_partition(&cfg, rows, n);
	CU_ASSERT_EQUAL_FATAL(lay->buckets[0].n, 1);
	CU_ASSERT_EQUAL_FATAL(lay->buckets[0].sgs[0].n_rows, 13);
	ipf_layer_init(&f, true, false, 1);
	f.L.X = 26;
	f.L.Y = 5;
	f.L.Z = 16;
	f.L.d = 1;
	memset(&m, 0, sizeof(m));
	m.gx = m.gy = 1;
	m.gz = 4;
	m.m[SPEC_IPU_FWD] = ACCEL_IPU_FORWARD;
	ipu_geom_init(&f.L, &m, 1, 1, 2, &g);
	ipu_sizes_init(&f.L, &m, &g, false, &z);
	ipu_pass_realize(&f.L, &m, &g, &z, lay, SPEC_IPU_FWD, &e);
	CU_ASSERT_DOUBLE_EQUAL(e.dist_compute, 210 + 30 + 2 * 93 + 6 * 2 * 118, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e.prop, 0, 0);
	ipu_layout_free(lay);
}

/* The busiest tile's blocks: distribution, and summed over the steps. */
static void test_work(void)
{
	struct ipu_part_cfg worst_cfg = { 2, 2, 2, 2, 40, 7 };
	struct ipu_row r[] = { { 0, 4 }, { 1, 4 }, { 2, 4 }, { 3, 4 } };
	struct ipu_row *rows[4] = { r, NULL, NULL, NULL };
	uint32_t n[4] = { 4, 0, 0, 0 };
	struct ipu_layout *lay = spill_layout();
	uint64_t dist, sum;

	ipu_layout_work(lay, SPEC_IPU_FWD, &dist, &sum);
	CU_ASSERT_EQUAL(dist, 3);     /* partition 3 in its own bucket */
	CU_ASSERT_EQUAL(sum, 1);      /* one step, its 1 spilled block */
	ipu_layout_free(lay);
	/* the worst case: tile (0,0,z) reads 2 + 2 in the distribution; each of
	 * the 6 steps brings 2 blocks to one tile */
	lay = ipu_partition(&worst_cfg, rows, n);
	ipu_layout_work(lay, SPEC_IPU_FWD, &dist, &sum);
	CU_ASSERT_EQUAL(dist, 4);
	CU_ASSERT_EQUAL(sum, 6 * 2);
	ipu_layout_work(lay, SPEC_IPU_GRAD_A, &dist, &sum);
	CU_ASSERT_EQUAL(sum, 6 * 2);
	ipu_layout_free(lay);
}

/* Static sparsity (exact buckets, no search, no propagation) never costs more. */
static void test_static(void)
{
	static const char *const layers[] = {
		"x: 1024, y: 1024, z: 64, block_size: 16, passes: [fwd, grad_a, grad_w], density: 0.1",
		"x: 512, y: 2048, z: 128, passes: [fwd, grad_a], density: 0.05",
		"x: 256, y: 256, z: 16, block_size: 8, dtype: float, density: 0.2",
	};
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct spec_set *s = ipf_load("bow", layers[i]);
		struct ipu_layer L;
		struct ipu_method m;
		struct ipu_geom g;
		struct ipu_sizes zd, zs;
		uint64_t bound, n_eval;
		char why[256];
		unsigned p;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		ipu_layer_init(&L, s);
		CU_ASSERT_FATAL(ipu_plan_search(&L, false, &m, &g, &zd, &bound, &n_eval, why,
						sizeof(why)) == 0);
		ipu_sizes_init(&L, &m, &g, true, &zs);
		CU_ASSERT(zs.rb <= zd.rb);
		CU_ASSERT(zs.bytes_r < zd.bytes_r);
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			struct ipu_pass_est ed, es;
			if (!((L.l->passes >> p) & 1))
				continue;
			ipu_pass_plan(&L, &m, &g, &zd, (enum spec_ipu_pass)p, false, &ed);
			ipu_pass_plan(&L, &m, &g, &zs, (enum spec_ipu_pass)p, true, &es);
			if (es.total > ed.total)
				fprintf(stderr, "layer %zu pass %u: static %g, dynamic %g\n", i, p, es.total,
					ed.total);
			CU_ASSERT(es.total <= ed.total);
			CU_ASSERT(es.prop == 0);
		}
		spec_set_free(s);
	}
}

static CU_TestInfo tests[] = {
	{ "realized cost by hand", test_realize_by_hand },
	{ "element-wise workers run per sub-group", test_realize_subgroups },
	{ "busiest tile's blocks", test_work },
	{ "static is never dearer", test_static },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_cost", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
