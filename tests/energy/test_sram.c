/*
 * energy/sram.c: the SRAM model's partition search. The search prunes by
 * lower bounds (search_pruned(), and the repeated wire's sizes that cannot
 * win); each row is a memory the model organizes both ways, and the row
 * passes when the pruned search picks the same partition with the very same
 * figures, bit for bit, as evaluating every partition does. The rows span
 * the plug-in's queries: every node, tiny to large, narrow to wide, 1-16
 * banks, 1-2 ports, sizes that are not powers of two. The designs the
 * conformance tests estimate (eyeriss_like's 128 KiB of 8 B blocks at 32 nm,
 * simba_like's 64 KiB of 32 B at 45 nm) are rows, their partitions written
 * out as the model chose them before the search was pruned.
 */
#include <stdio.h>
#include <string.h>

#include "energy/energy_int.h"
#include "tests/unit.h"

static const struct {
	double size, block;
	int nm, banks, ports;
	struct sram_org org;            /* expected, when nspd > 0 */
} rows[] = {
	{ 131072, 8, 32, 1, 1, { 16, 2, 16, 32, 1, 1 } },     /* eyeriss_like's shared_glb */
	{ 65536, 32, 45, 1, 1, { 0, 0, 0, 0, 0, 0 } },        /* simba_like's */
	{ 256, 4, 22, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 512, 4, 90, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 768, 4, 45, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 768, 8, 45, 1, 2, { 0, 0, 0, 0, 0, 0 } },
	{ 1000, 8, 65, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 3000, 5, 32, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 8192, 16, 22, 2, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 16384, 64, 65, 1, 2, { 0, 0, 0, 0, 0, 0 } },
	{ 32768, 4, 90, 4, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 65536, 256, 32, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 262144, 16, 45, 8, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 524288, 128, 22, 16, 2, { 0, 0, 0, 0, 0, 0 } },
	{ 1048576, 64, 45, 1, 1, { 0, 0, 0, 0, 0, 0 } },
	{ 2097152, 32, 65, 2, 1, { 0, 0, 0, 0, 0, 0 } },
};

static bool same_result(const struct sram_result *a, const struct sram_result *b)
{
	return a->read_j == b->read_j && a->write_j == b->write_j && a->leak_w == b->leak_w &&
	       a->area_m2 == b->area_m2 && a->cycle_s == b->cycle_s;
}

static bool same_org(const struct sram_org *a, const struct sram_org *b)
{
	return a->nspd == b->nspd && a->ndwl == b->ndwl && a->ndbl == b->ndbl &&
	       a->ndcm == b->ndcm && a->ndsam1 == b->ndsam1 && a->ndsam2 == b->ndsam2;
}

static void test_pruned_is_exhaustive(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sram_result fast, all;
		struct sram_org of, oa;
		int rf = energy_sram_organize(rows[i].size, rows[i].block, rows[i].nm, rows[i].banks,
					      rows[i].ports, false, &fast, &of);
		int ra = energy_sram_organize(rows[i].size, rows[i].block, rows[i].nm, rows[i].banks,
					      rows[i].ports, true, &all, &oa);

		CU_ASSERT_EQUAL(rf, 0);
		CU_ASSERT_EQUAL(ra, 0);
		if (rf || ra)
			continue;
		if (!same_org(&of, &oa) || !same_result(&fast, &all))
			fprintf(stderr, "row %zu (%g B of %g B at %d nm, %d banks, %d ports): pruned "
				"%g/%d/%d/%d/%d/%d read %a, exhaustive %g/%d/%d/%d/%d/%d read %a\n",
				i, rows[i].size, rows[i].block, rows[i].nm, rows[i].banks,
				rows[i].ports, of.nspd, of.ndwl, of.ndbl, of.ndcm, of.ndsam1, of.ndsam2,
				fast.read_j, oa.nspd, oa.ndwl, oa.ndbl, oa.ndcm, oa.ndsam1, oa.ndsam2,
				all.read_j);
		CU_ASSERT_TRUE(same_org(&of, &oa));
		CU_ASSERT_TRUE(same_result(&fast, &all));
		if (rows[i].org.nspd > 0)
			CU_ASSERT_TRUE(same_org(&of, &rows[i].org));
		/* energy_sram_model() is the pruned search */
		{
			struct sram_result m;

			CU_ASSERT_EQUAL(energy_sram_model(rows[i].size, rows[i].block, rows[i].nm,
							  rows[i].banks, rows[i].ports, &m), 0);
			CU_ASSERT_TRUE(same_result(&m, &fast));
		}
	}
}

/* What no partition can hold, or no node the model has, either way. */
static void test_refused(void)
{
	struct sram_result r;
	int exhaustive;

	for (exhaustive = 0; exhaustive <= 1; exhaustive++) {
		CU_ASSERT_EQUAL(energy_sram_organize(64, 8, 45, 1, 1, exhaustive, &r, NULL), -1);
		CU_ASSERT_EQUAL(energy_sram_organize(65536, 8, 40, 1, 1, exhaustive, &r, NULL), -1);
		CU_ASSERT_EQUAL(energy_sram_organize(0, 8, 45, 1, 1, exhaustive, &r, NULL), -1);
	}
}

static CU_TestInfo tests[] = {
	{ "pruned search = exhaustive search", test_pruned_is_exhaustive },
	{ "refused", test_refused },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "energy/sram", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
