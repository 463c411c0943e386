/*
 * stpu_pack.c: every packer on small hand matrices whose groups were worked
 * out by hand from the seed's rules (docs/stpu.md): first-fit order, empty
 * columns left out, partition boundaries and a short last partition, C1's
 * relaxed passes (collisions evicted, the per-row and per-group limits, the
 * groups and residuals re-packed in the next pass, the collision-free
 * residual pass), KMZ's column limit and lossy conflicts; and the packing
 * efficiency (original columns x partitions / packed columns).
 *
 * A partition is written as its groups separated by " | ", a group as its
 * entries "row:column" by row ("-" for none; KMZ groups list "-:column" per
 * column), partitions separated by " || ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/stpu_int.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

struct collect {
	struct strbuf groups;       /* the partitions as described above */
	struct strbuf nnz;          /* non-empty PEs per group, partitions by " || " */
	unsigned rows[16];
	size_t n_parts;
	bool consistent;            /* len and nnz agree with the members */
};

static void collect_part(void *ctx, const struct stpu_part *p)
{
	struct collect *c = ctx;
	size_t g;

	if (c->n_parts) {
		strbuf_addstr(&c->groups, " || ");
		strbuf_addstr(&c->nnz, " || ");
	}
	if (c->n_parts < 16)
		c->rows[c->n_parts] = p->rows;
	c->n_parts++;
	for (g = 0; g < p->n_groups; g++) {
		uint64_t i, n_full = 0, n_cols = 0;
		strbuf_addstr(&c->groups, g ? " | " : "");
		strbuf_addf(&c->nnz, "%s%u", g ? " " : "", p->nnz[g]);
		if (p->member_ptr[g] == p->member_ptr[g + 1])
			strbuf_addch(&c->groups, '-');
		for (i = p->member_ptr[g]; i < p->member_ptr[g + 1]; i++) {
			uint64_t j;
			bool seen = false;
			if (p->member_row[i] == UINT32_MAX)
				strbuf_addf(&c->groups, "%s-:%u", i > p->member_ptr[g] ? " " : "",
					    p->member_col[i]);
			else
				strbuf_addf(&c->groups, "%s%u:%u", i > p->member_ptr[g] ? " " : "",
					    p->member_row[i], p->member_col[i]);
			n_full += p->member_row[i] != UINT32_MAX;
			for (j = p->member_ptr[g]; j < i; j++)
				seen |= p->member_col[j] == p->member_col[i];
			n_cols += !seen;
		}
		/* an empty TPU column is still streamed: its group has one column */
		if ((n_cols && p->len[g] != n_cols) || (!n_cols && p->len[g] != 1) ||
		    (n_full && p->nnz[g] != n_full))
			c->consistent = false;
	}
}

struct pack_row {
	const char *name;
	uint64_t rows, cols;
	const char *entries;
	unsigned part_rows;
	enum accel_stpu_scheme scheme;
	unsigned lr, n_iter, lg[3];         /* C1 */
	unsigned alpha;                     /* KMZ */
	double gamma;
	const char *expected;
	const char *expected_nnz;           /* NULL: not checked */
	uint64_t collisions, residual_entries, residual_groups, dropped;
	double efficiency;
};

#define CASE_A "0,0 1,0 1,1 2,2 3,2 0,3 1,5 2,5"
#define CASE_B "0,0 2,0 4,0 1,1 3,1 0,2 1,2 4,3"
#define CASE_C "0,0 1,0 2,0 0,1 3,1 1,2 3,2 2,3 3,3"
#define CASE_D "0,0 1,0 0,1 2,1 0,2 3,2"
#define CASE_E "0,0 1,0 2,1 3,2 0,3 2,3 1,5"
#define CASE_F "0,0 1,0 2,1 3,2 0,3 2,3 0,5"

static const struct pack_row rows[] = {
	/* first-fit; column 4 is empty and left out; efficiency 6 / 3 */
	{ "C0", 4, 6, CASE_A, 4, ACCEL_STPU_C0, 1, 2, { 15, 4 }, 8, 0,
	  "0:0 1:0 2:2 3:2 | 0:3 1:1 | 1:5 2:5", "4 2 2", 0, 0, 0, 0, 2.0 },
	/* no packing: every column, the empty one too */
	{ "TPU", 4, 6, CASE_A, 4, ACCEL_STPU_TPU, 1, 2, { 15, 4 }, 8, 0,
	  "0:0 1:0 | 1:1 | 2:2 3:2 | 0:3 | - | 1:5 2:5", "2 1 2 1 0 2", 0, 0, 0, 0, 1.0 },
	/* C1: column 5 joins group 1 evicting (1, 5), which pass 2 puts alone */
	{ "C1 seed limits", 4, 6, CASE_A, 4, ACCEL_STPU_C1, 1, 2, { 15, 4 }, 8, 0,
	  "0:0 1:0 2:2 3:2 | 0:3 1:1 2:5 | 1:5", "4 3 1", 1, 0, 0, 0, 2.0 },
	/* partitions of 2 rows, the last of 1; 3 x 4 columns / 5 groups */
	{ "C0 partitions", 5, 4, CASE_B, 2, ACCEL_STPU_C0, 1, 2, { 15, 4 }, 8, 0,
	  "0:0 1:1 | 0:2 1:2 || 0:0 1:1 || 0:0 | 0:3", "2 2 || 2 || 1 1", 0, 0, 0, 0, 2.4 },
	{ "C0 collisions", 4, 4, CASE_C, 4, ACCEL_STPU_C0, 1, 2, { 2, 1 }, 8, 0,
	  "0:0 1:0 2:0 | 0:1 3:1 | 1:2 3:2 | 2:3 3:3", NULL, 0, 0, 0, 0, 1.0 },
	/* pass 1 (limit 2): (0,1) and (3,3) evicted; pass 2 (limit 1) re-packs */
	{ "C1 two passes", 4, 4, CASE_C, 4, ACCEL_STPU_C1, 1, 2, { 2, 1 }, 8, 0,
	  "0:0 1:0 2:0 3:1 | 0:1 1:2 2:3 3:2 | 3:3", "4 4 1", 2, 0, 0, 0, 4.0 / 3.0 },
	/* one pass: the two evicted entries go to the residual pass, one new group */
	{ "C1 residual pass", 4, 4, CASE_C, 4, ACCEL_STPU_C1, 1, 1, { 2 }, 8, 0,
	  "0:0 1:0 2:0 3:1 | 1:2 2:3 3:2 | 0:1 3:3", "4 3 2", 2, 2, 1, 0, 4.0 / 3.0 },
	/* MAX_COLLISION_ROW 1: row 0 of group 0 has collided once, column 2 may not */
	{ "C1 row limit 1", 4, 3, CASE_D, 4, ACCEL_STPU_C1, 1, 1, { 15 }, 8, 0,
	  "0:0 1:0 2:1 | 0:2 3:2 | 0:1", "3 2 1", 1, 1, 1, 0, 1.0 },
	{ "C1 row limit 2", 4, 3, CASE_D, 4, ACCEL_STPU_C1, 2, 1, { 15 }, 8, 0,
	  "0:0 1:0 2:1 3:2 | 0:1 | 0:2", "4 1 1", 2, 2, 2, 0, 1.0 },
	/* MAX_COLLISION_ROW 0: no collision allowed, C1 is C0 */
	{ "C1 row limit 0", 4, 3, CASE_D, 4, ACCEL_STPU_C1, 0, 1, { 15 }, 8, 0,
	  "0:0 1:0 | 0:1 2:1 | 0:2 3:2", "2 2 2", 0, 0, 0, 0, 1.0 },
	/* KMZ, alpha 2: groups close at two columns; full-height groups */
	{ "KMZ alpha 2", 4, 6, CASE_E, 4, ACCEL_STPU_KMZ, 1, 2, { 15, 4 }, 2, 0,
	  "-:0 -:1 | -:2 -:3 | -:5", "3 3 1", 0, 0, 0, 0, 2.0 },
	/* KMZ, alpha 3, gamma 1/4 of 4 rows: column 5 conflicts on row 0, one entry dropped */
	{ "KMZ lossy", 4, 6, CASE_F, 2, ACCEL_STPU_KMZ, 1, 2, { 15, 4 }, 3, 0.25,
	  "-:0 -:1 -:2 | -:3 -:5 || -:0 -:1 -:2 | -:3 -:5", "2 1 || 2 1", 1, 0, 0, 1, 3.0 },
};

static void test_packers(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pack_row *r = &rows[i];
		struct arena a = ARENA_INIT;
		struct stpu_pattern pat = STPU_PATTERN_INIT;
		struct stpu_pack_params pp;
		struct accel_stpu_packing st;
		struct collect c = { STRBUF_INIT, STRBUF_INIT, { 0 }, 0, true };

		stpu_pattern_from_matrix(sf_matrix(&a, r->rows, r->cols, r->entries), &pat);
		memset(&pp, 0, sizeof(pp));
		pp.part_rows = r->part_rows;
		pp.max_collision_row = r->lr;
		pp.n_iter = r->n_iter;
		pp.max_collision_group = r->lg;
		pp.kmz_max_columns = r->alpha;
		pp.kmz_max_conflict_fraction = r->gamma;
		pp.keep_members = true;
		stpu_pack(&pat, r->scheme, &pp, &st, collect_part, &c);
		if (strcmp(c.groups.buf, r->expected))
			fprintf(stderr, "%s: expected\n  %s\ngot\n  %s\n", r->name, r->expected,
				c.groups.buf);
		CU_ASSERT_STRING_EQUAL(c.groups.buf, r->expected);
		if (r->expected_nnz) {
			if (strcmp(c.nnz.buf, r->expected_nnz))
				fprintf(stderr, "%s: nnz expected %s got %s\n", r->name,
					r->expected_nnz, c.nnz.buf);
			CU_ASSERT_STRING_EQUAL(c.nnz.buf, r->expected_nnz);
		}
		CU_ASSERT_TRUE(c.consistent);
		CU_ASSERT_EQUAL(st.n_collisions, r->collisions);
		CU_ASSERT_EQUAL(st.n_residual_entries, r->residual_entries);
		CU_ASSERT_EQUAL(st.n_residual_groups, r->residual_groups);
		CU_ASSERT_EQUAL(st.n_dropped, r->dropped);
		CU_ASSERT_DOUBLE_EQUAL(st.efficiency, r->efficiency, 1e-12);
		CU_ASSERT_EQUAL(st.n_partitions, c.n_parts);
		strbuf_release(&c.groups);
		strbuf_release(&c.nnz);
		stpu_pattern_release(&pat);
		arena_release(&a);
	}
}

/* Partition sizes, groups per partition and the efficiency's definition. */
static void test_statistics(void)
{
	struct arena a = ARENA_INIT;
	struct stpu_pattern pat = STPU_PATTERN_INIT;
	struct stpu_pack_params pp;
	struct accel_stpu_packing st;
	struct collect c = { STRBUF_INIT, STRBUF_INIT, { 0 }, 0, true };
	static const unsigned lg[2] = { 15, 4 };

	stpu_pattern_from_matrix(sf_matrix(&a, 5, 4, CASE_B), &pat);
	memset(&pp, 0, sizeof(pp));
	pp.part_rows = 2;
	pp.n_iter = 2;
	pp.max_collision_group = lg;
	pp.max_collision_row = 1;
	pp.kmz_max_columns = 8;
	pp.keep_members = true;
	stpu_pack(&pat, ACCEL_STPU_C0, &pp, &st, collect_part, &c);
	CU_ASSERT_EQUAL(st.n_partitions, 3);
	CU_ASSERT_EQUAL(c.rows[0], 2);
	CU_ASSERT_EQUAL(c.rows[1], 2);
	CU_ASSERT_EQUAL(c.rows[2], 1);
	CU_ASSERT_EQUAL(st.packed_width, 5);
	CU_ASSERT_EQUAL(st.min_groups, 1);
	CU_ASSERT_EQUAL(st.max_groups, 2);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_groups, 5.0 / 3.0, 1e-12);
	CU_ASSERT_EQUAL(st.max_group_columns, 2);
	CU_ASSERT_EQUAL(st.n_groups_total, 5);
	/* the paper's packing efficiency: original columns / packed columns,
	   partition by partition: 3 partitions x 4 columns / 5 groups */
	CU_ASSERT_DOUBLE_EQUAL(st.efficiency, 12.0 / 5.0, 1e-12);
	strbuf_release(&c.groups);
	strbuf_release(&c.nnz);
	stpu_pattern_release(&pat);
	arena_release(&a);
}

/* A pattern from a matrix merges duplicate entries and sorts rows. */
static void test_pattern_from_matrix(void)
{
	struct arena a = ARENA_INIT;
	struct stpu_pattern pat = STPU_PATTERN_INIT;

	stpu_pattern_from_matrix(sf_matrix(&a, 3, 2, "2,1 0,1 2,1 1,0"), &pat);
	CU_ASSERT_EQUAL(pat.nnz, 3);
	CU_ASSERT_EQUAL(pat.col_ptr[0], 0);
	CU_ASSERT_EQUAL(pat.col_ptr[1], 1);
	CU_ASSERT_EQUAL(pat.col_ptr[2], 3);
	CU_ASSERT_EQUAL(pat.row_idx[0], 1);
	CU_ASSERT_EQUAL(pat.row_idx[1], 0);
	CU_ASSERT_EQUAL(pat.row_idx[2], 2);
	stpu_pattern_release(&pat);
	arena_release(&a);
}

static CU_TestInfo tests[] = {
	{ "packers", test_packers },
	{ "statistics", test_statistics },
	{ "pattern from a matrix", test_pattern_from_matrix },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu_pack", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
