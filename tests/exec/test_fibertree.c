/*
 * Fibertrees: every combination of rank formats finds every value of random
 * blocks through its own encoding, and the metadata/payload units of small
 * blocks are the ones counted by hand from the format definitions.
 */
#include "exec/exec.h"
#include "exec/exec_int.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/rng.h"

static const enum fmt_kind all_kinds[] = { FMT_U, FMT_UOP, FMT_CP, FMT_B, FMT_RLE, FMT_UB };

/* Encode a random block and look up every position. */
static void round_trip(unsigned n, const enum fmt_kind *kinds, const uint64_t *shapes,
		       double density, uint64_t seed)
{
	uint64_t total = 1, i, pos[8];
	struct exec_fibertree *ft;
	double *v;
	struct rng r;
	unsigned k;

	for (k = 0; k < n; k++)
		total *= shapes[k];
	v = calloc(total, sizeof(*v));
	rng_seed(&r, seed);
	for (i = 0; i < total; i++)
		v[i] = rng_double(&r) < density ? (double)(1 + rng_below(&r, 9)) : 0;
	ft = exec_fibertree_encode(n, kinds, shapes, v);
	for (i = 0; i < total; i++) {
		uint64_t rest = i;
		for (k = n; k-- > 0;) {
			pos[k] = rest % shapes[k];
			rest /= shapes[k];
		}
		CU_ASSERT_EQUAL(exec_fibertree_lookup(ft, pos), v[i]);
	}
	exec_fibertree_free(ft);
	free(v);
}

static void test_lookup_all_formats(void)
{
	static const uint64_t s2[] = { 7, 9 }, s3[] = { 3, 5, 70 };
	static const double densities[] = { 0.0, 0.1, 0.5, 1.0 };
	enum fmt_kind kinds[3];
	size_t a, b, c, d;

	for (a = 0; a < 6; a++)
		for (b = 0; b < 6; b++)
			for (d = 0; d < 4; d++) {
				kinds[0] = all_kinds[a];
				kinds[1] = all_kinds[b];
				round_trip(2, kinds, s2, densities[d], a * 100 + b * 10 + d);
			}
	for (a = 0; a < 6; a++)
		for (c = 0; c < 6; c++) {
			kinds[0] = all_kinds[a];
			kinds[1] = FMT_UOP;
			kinds[2] = all_kinds[c];
			round_trip(3, kinds, s3, 0.2, a * 10 + c);
		}
}

struct units_row {
	unsigned n;
	enum fmt_kind kinds[3];
	uint64_t shapes[3];
	double values[16];
	uint64_t md[3], pl[3];         /* outermost rank first */
};

/*
 * Block [[1,0,0,2],[0,0,0,0]]: one non-empty row of two, two non-zeros.
 * UOP: offsets of non-empty fibers, f+1 each. CP: one coordinate per
 * non-empty element. B: f bits per non-empty fiber, payload per non-empty
 * element. UB: bits and payload for every position. RLE: one run per
 * non-empty element. The innermost rank's payload is the data itself.
 */
static const struct units_row units_rows[] = {
	{ 2, { FMT_UOP, FMT_CP }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 0, 2 }, { 3, 0 } },
	{ 2, { FMT_B, FMT_B }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 2, 4 }, { 1, 0 } },
	{ 2, { FMT_UB, FMT_UB }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 2, 8 }, { 2, 0 } },
	{ 2, { FMT_CP, FMT_CP }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 1, 2 }, { 1, 0 } },
	{ 2, { FMT_UOP, FMT_UOP }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 0, 0 }, { 3, 0 } },
	{ 2, { FMT_UOP, FMT_RLE }, { 2, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 0, 2 }, { 3, 0 } },
	{ 1, { FMT_RLE }, { 8 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 2 }, { 0 } },
	{ 1, { FMT_CP }, { 16 }, { 0, 3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 4 }, { 4 }, { 0 } },
	/* two non-empty rows: UOP has one non-empty fiber (the block), CP 3 + 1 */
	{ 2, { FMT_UOP, FMT_CP }, { 2, 4 }, { 1, 1, 0, 1, 0, 0, 7, 0 }, { 0, 4 }, { 3, 0 } },
	/* an empty block: nothing is stored */
	{ 2, { FMT_UOP, FMT_CP }, { 2, 4 }, { 0 }, { 0, 0 }, { 0, 0 } },
	/* a rank of fiber shape 1 below the top holds nothing */
	{ 3, { FMT_UOP, FMT_UOP, FMT_CP }, { 2, 1, 4 }, { 1, 0, 0, 2, 0, 0, 0, 0 }, { 0, 0, 2 },
	  { 3, 0, 0 } },
};

static void test_units(void)
{
	size_t i;
	unsigned k;

	for (i = 0; i < sizeof(units_rows) / sizeof(units_rows[0]); i++) {
		const struct units_row *row = &units_rows[i];
		struct exec_fibertree *ft =
			exec_fibertree_encode(row->n, row->kinds, row->shapes, row->values);
		for (k = 0; k < row->n; k++) {
			uint64_t md, pl;
			exec_fibertree_units(ft, k, &md, &pl);
			if (md != row->md[k] || pl != row->pl[k])
				fprintf(stderr, "\nunits row %zu rank %u: (%llu, %llu)\n", i, k,
					(unsigned long long)md, (unsigned long long)pl);
			CU_ASSERT_EQUAL(md, row->md[k]);
			CU_ASSERT_EQUAL(pl, row->pl[k]);
		}
		exec_fibertree_free(ft);
	}
}

/* The same units from leaf flags: the walk's per-tile counter agrees with the encoder. */
static void test_units_from_flags(void)
{
	static const uint64_t shapes[] = { 4, 3, 5 };
	enum fmt_kind kinds[3];
	double v[60];
	uint8_t ne[60];
	struct rng r;
	size_t a, b, c, i;
	uint64_t n_nz = 0;

	rng_seed(&r, 9);
	for (i = 0; i < 60; i++) {
		v[i] = rng_below(&r, 4) == 0 ? 1 : 0;
		ne[i] = v[i] != 0;
		n_nz += ne[i];
	}
	for (a = 0; a < 6; a++)
		for (b = 0; b < 6; b++)
			for (c = 0; c < 6; c++) {
				struct exec_fibertree *ft;
				uint64_t md[3], pl[3], m, p;
				unsigned k;
				kinds[0] = all_kinds[a];
				kinds[1] = all_kinds[b];
				kinds[2] = all_kinds[c];
				ft = exec_fibertree_encode(3, kinds, shapes, v);
				exec_ft_units(3, kinds, shapes, NULL, ne, true, md, pl);
				for (k = 0; k < 3; k++) {
					exec_fibertree_units(ft, k, &m, &p);
					CU_ASSERT_EQUAL(m, md[k]);
					CU_ASSERT_EQUAL(p, pl[k]);
				}
				CU_ASSERT_EQUAL(exec_fibertree_nnz(ft), n_nz);
				exec_fibertree_free(ft);
			}
}

CU_TestInfo fibertree_tests[] = {
	{ "lookups through every format", test_lookup_all_formats },
	{ "units counted by hand", test_units },
	{ "units from leaf flags = encoder", test_units_from_flags },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo suites[] = {
	{ .pName = "fibertree", .pTests = fibertree_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
