/*
 * ipu_partition.c: fills, spills and propagation steps on small hand
 * patterns, every expectation worked out by hand from §2 of
 * docs/poplibs.md (see the comment above each case).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"

#define MAXP 8
#define MAXR 8

/* One hand case: the partitions' rows and the expected buckets and steps. */
struct pcase {
	const char *name;
	struct ipu_part_cfg cfg;
	uint32_t n_rows[MAXP];
	struct ipu_row rows[MAXP][MAXR];
	uint64_t nz[MAXP], meta[MAXP], n_sg[MAXP];   /* per bucket */
	bool overflow;
	uint64_t n_spilled, spilled_groups;
	uint64_t steps_fwd, skipped_fwd, steps_grad_a;
};

static const struct pcase cases[] = {
	/*
	 * Uniform: 2 x 2 partitions of one row of 2 blocks each; buckets of 3
	 * blocks, 24 words: each partition fits its own bucket (7 + 2 + 2 =
	 * 11 words), so no spill and no step (the seed's best case).
	 */
	{ "uniform", { 2, 2, 1, 3, 24, 7 },
	  { 1, 1, 1, 1 },
	  { { { 0, 2 } }, { { 0, 2 } }, { { 0, 2 } }, { { 0, 2 } } },
	  { 2, 2, 2, 2 }, { 11, 11, 11, 11 }, { 1, 1, 1, 1 }, false, 0, 0, 0, 0, 0 },
	/*
	 * One full partition: (1,1) holds rows {0: 2, 1: 2} = 4 > 3 blocks: row
	 * 1 is stripped (bucket 3 keeps 2 blocks, 11 words). In its own range
	 * (P_z = 1) only one block is free: with row splitting, one block of
	 * row 1 joins bucket 3's sub-group (2 + 1 words). The rest moves in
	 * the X range to bucket 2 = (1,0) (1 block, 10 words), as a new
	 * sub-group (7 + 2 + 1). Distance (0, 1): Fwd X = 1, Y = 2: 2 P_z -
	 * P_z = 1 step; GradA (1, 0): X = 2, Y = P_x = 2: 1 + 2 = 3 steps.
	 */
	{ "spill to the previous Y", { 2, 2, 1, 3, 24, 7 },
	  { 1, 1, 1, 2 },
	  { { { 0, 1 } }, { { 0, 1 } }, { { 0, 1 } }, { { 0, 2 }, { 1, 2 } } },
	  { 1, 1, 2, 3 }, { 10, 10, 20, 14 }, { 1, 1, 2, 1 }, false, 1, 1, 1, 0, 3 },
	/*
	 * The seed's worst case: all 16 blocks in partition (0,0) of 2 x 2 x 2
	 * buckets of 2 blocks. Both chunks of 8 are stripped to nothing (a row
	 * of 4 does not fit 2); row splitting then spreads them 2 blocks a
	 * bucket over the same partition's 2 buckets, then its X row's other
	 * 2, then the other X's 4: distances up to (1, 1): X = 2, Y = 2,
	 * 2 x 2 x 2 - 2 = 6 steps = P_total - P_z, in both orders.
	 */
	{ "all in one partition", { 2, 2, 2, 2, 40, 7 },
	  { 4, 0, 0, 0 },
	  { { { 0, 4 }, { 1, 4 }, { 2, 4 }, { 3, 4 } } },
	  { 2, 2, 2, 2, 2, 2, 2, 2 }, { 11, 11, 11, 11, 11, 11, 11, 11 },
	  { 1, 1, 1, 1, 1, 1, 1, 1 }, false, 6, 12, 6, 0, 6 },
	/*
	 * A skip: 3 X partitions (P_y = P_z = 1), buckets of 3 blocks. X 2 holds
	 * rows {0: 3, 1: 2}: row 1 is stripped; X 2 and X 1 (3 blocks) are
	 * full; X 0 (1 block, 10 words) takes the piece whole (7 + 2 + 2): X
	 * distance 2, none at 1. Header X = 3, Y = 1: iteration 1 is skipped
	 * (one bare shift), iteration 2 runs 1 step. GradA shifts X inside:
	 * X = 1, Y = 2 + 1: 3 - 1 = 2 steps.
	 */
	{ "a skipped X iteration", { 3, 1, 1, 3, 30, 7 },
	  { 1, 1, 2 },
	  { { { 0, 1 } }, { { 0, 3 } }, { { 0, 3 }, { 1, 2 } } },
	  { 3, 3, 3 }, { 10 + 11, 12, 12 }, { 2, 1, 1 }, false, 1, 2, 1, 1, 2 },
	/*
	 * Overflow: two partitions of one row of 4 blocks in 2 buckets of 3
	 * (P_z = 1): each row is stripped, then split back, 3 blocks in its
	 * own bucket; 2 blocks are left ("Overflow in buckets").
	 */
	{ "overflow", { 2, 1, 1, 3, 40, 7 },
	  { 1, 1 },
	  { { { 0, 4 } }, { { 0, 4 } } },
	  { 3, 3 }, { 7 + 2 + 3, 7 + 2 + 3 }, { 1, 1 }, true, 0, 0, 0, 0, 0 },
};

static void check_case(size_t i, const struct pcase *c)
{
	uint64_t P = (uint64_t)c->cfg.px * c->cfg.py, T = P * c->cfg.pz, pn, skipped, st;
	struct ipu_row *rows[MAXP];
	struct ipu_layout *lay;

	for (pn = 0; pn < P; pn++)
		rows[pn] = (struct ipu_row *)c->rows[pn];
	lay = ipu_partition(&c->cfg, rows, c->n_rows);
	CU_ASSERT_EQUAL(lay->n_buckets, T);
	for (pn = 0; pn < T; pn++) {
		if (lay->buckets[pn].nz != c->nz[pn] || lay->buckets[pn].meta != c->meta[pn] ||
		    lay->buckets[pn].n != c->n_sg[pn])
			fprintf(stderr, "%s: bucket %llu holds %llu blocks, %llu words, %u sub-groups\n",
				c->name, (unsigned long long)pn,
				(unsigned long long)lay->buckets[pn].nz,
				(unsigned long long)lay->buckets[pn].meta, lay->buckets[pn].n);
		CU_ASSERT_EQUAL(lay->buckets[pn].nz, c->nz[pn]);
		CU_ASSERT_EQUAL(lay->buckets[pn].meta, c->meta[pn]);
		CU_ASSERT_EQUAL(lay->buckets[pn].n, c->n_sg[pn]);
	}
	CU_ASSERT_EQUAL(lay->overflow, c->overflow);
	CU_ASSERT_EQUAL(lay->n_spilled, c->n_spilled);
	CU_ASSERT_EQUAL(lay->spilled_groups, c->spilled_groups);
	st = ipu_layout_steps(lay, false, &skipped);
	if (st != c->steps_fwd || skipped != c->skipped_fwd)
		fprintf(stderr, "case %zu (%s): %llu steps, %llu skipped\n", i, c->name,
			(unsigned long long)st, (unsigned long long)skipped);
	CU_ASSERT_EQUAL(st, c->steps_fwd);
	CU_ASSERT_EQUAL(skipped, c->skipped_fwd);
	st = ipu_layout_steps(lay, true, &skipped);
	CU_ASSERT_EQUAL(st, c->steps_grad_a);
	ipu_layout_free(lay);
}

static void test_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(i, &cases[i]);
}

/*
 * The initial assignment cuts a partition's n blocks into ceil(n / ceil(n /
 * P_z)) near-equal chunks (splitRegions): 10 blocks over P_z = 4 give
 * chunks of 3 (V = ceil(10/3) = 4): [0,2) [2,5) [5,7) [7,10), splitting rows.
 */
static void test_chunks(void)
{
	struct ipu_part_cfg cfg = { 1, 1, 4, 100, 200, 7 };
	struct ipu_row r0[] = { { 0, 4 }, { 1, 6 } };
	struct ipu_row *rows[1] = { r0 };
	uint32_t n[1] = { 2 };
	static const uint64_t want_nz[4] = { 2, 3, 2, 3 }, want_rows[4] = { 1, 2, 1, 1 };
	struct ipu_layout *lay = ipu_partition(&cfg, rows, n);
	unsigned k;

	for (k = 0; k < 4; k++) {
		CU_ASSERT_EQUAL(lay->buckets[k].nz, want_nz[k]);
		CU_ASSERT_EQUAL(lay->buckets[k].sgs[0].n_rows, want_rows[k]);
	}
	CU_ASSERT_EQUAL(lay->n_spilled, 0);
	ipu_layout_free(lay);
}

static CU_TestInfo tests[] = {
	{ "hand patterns: fills, spills, steps", test_cases },
	{ "initial chunks", test_chunks },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_partition", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
