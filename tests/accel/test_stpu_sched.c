/*
 * stpu_sched.c: the block schedule worked out by hand (docs/stpu.md,
 * "Schedule"). Each row gives the array, the trigger and a sequence of
 * blocks (rows, width, input group lengths), and the expected E (the cycle
 * each column's end signal, or value, enters the column) of the last block
 * and the cycle count. Every binding term of the recurrence appears in some
 * row: the weights (W + saw - 1), the group length after the previous
 * block's end, the diagonal wave (E[c-1] + 1), seed rule 2 (E_{b-1}[c+1] +
 * 1), the load chain (W_{b-1} + saw) and the buffer two blocks back.
 */
#include <stdio.h>
#include <string.h>

#include "accel/stpu_int.h"
#include "tests/unit.h"

#define MAX_BLOCKS 4
#define MAX_COLS 4

struct blk {
	unsigned rows, width;
	uint32_t len[MAX_COLS];
};

struct sched_row {
	const char *name;
	unsigned sah, saw;
	enum stpu_trigger trigger;
	unsigned n_blocks;
	struct blk b[MAX_BLOCKS];
	int64_t e_last[MAX_COLS];     /* E of the last block */
	uint64_t cycles;
};

static const struct sched_row rows[] = {
	/* TPU 2 x 2: W = 0, values enter at 1, 2; row 1's output is collected at 2 + 2 */
	{ "TPU one block", 2, 2, STPU_TRIGGER_ARRIVAL, 1, { { 2, 2, { 1, 1 } } }, { 1, 2 }, 5 },
	/* TPU 4 x 4: loads every saw = 4 cycles; the third block's load also
	   waits for block 0's last column (E = 6, so >= 7) but the chain
	   (4 + 4 = 8) binds */
	{ "TPU load bound", 4, 4, STPU_TRIGGER_ARRIVAL, 3,
	  { { 4, 4, { 1, 1, 1, 1 } }, { 4, 4, { 1, 1, 1, 1 } }, { 4, 4, { 1, 1, 1, 1 } } },
	  { 11, 12, 13, 14 }, 19 },
	/* STPU 4 x 2: block 0 groups of 1 and 4 elements: E = 1 + 1, then 4 + 1 = 5;
	   block 1 (W = 2, ready 3): column 0 waits for rule 2 (E0[1] + 1 = 6),
	   column 1 for its 4 elements after E0[1] = 5 (9);
	   block 2: W = max(2 + 2, E0[1] + 1 = 6) = 6, ready 7; column 0 waits for
	   rule 2 (E1[1] + 1 = 10), column 1 for the wave (11) */
	{ "STPU rule 2 and buffers", 4, 2, STPU_TRIGGER_END, 3,
	  { { 4, 2, { 1, 4 } }, { 4, 2, { 1, 4 } }, { 4, 2, { 1, 1 } } }, { 10, 11 }, 16 },
	/* STPU with a partial block: columns past the width get no elements
	   (L = 0) and only pass the partial sums; block 1 of width 1 */
	{ "STPU partial block", 4, 2, STPU_TRIGGER_END, 2,
	  { { 4, 2, { 2, 2 } }, { 4, 1, { 1 } } }, { 5, 6 }, 11 },
	/* a short last partition of 1 row: E0 = 5, 6, 7 (3 rows end at 7 + 3);
	   block 1 waits for rule 2 (7) and the wave, its row ends at 9 + 1 */
	{ "STPU short last partition", 3, 3, STPU_TRIGGER_END, 2,
	  { { 3, 3, { 3, 1, 1 } }, { 1, 1, { 1 } } }, { 7, 8, 9 }, 11 },
};

static void test_schedule(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct sched_row *r = &rows[i];
		struct stpu_sched s;
		unsigned b, c;

		stpu_sched_init(&s, r->sah, r->saw, r->trigger);
		for (b = 0; b < r->n_blocks; b++)
			stpu_sched_block(&s, r->b[b].rows, r->b[b].width, r->b[b].len);
		for (c = 0; c < r->saw; c++) {
			if (s.e_prev[c] != r->e_last[c])
				fprintf(stderr, "%s: E[%u] = %lld, expected %lld\n", r->name, c,
					(long long)s.e_prev[c], (long long)r->e_last[c]);
			CU_ASSERT_EQUAL(s.e_prev[c], r->e_last[c]);
		}
		if (stpu_sched_cycles(&s) != r->cycles)
			fprintf(stderr, "%s: %llu cycles, expected %llu\n", r->name,
				(unsigned long long)stpu_sched_cycles(&s),
				(unsigned long long)r->cycles);
		CU_ASSERT_EQUAL(stpu_sched_cycles(&s), r->cycles);
		CU_ASSERT_EQUAL(s.n_blocks, r->n_blocks);
		stpu_sched_release(&s);
	}
}

/* No block, no cycle. */
static void test_empty(void)
{
	struct stpu_sched s;
	stpu_sched_init(&s, 4, 4, STPU_TRIGGER_END);
	CU_ASSERT_EQUAL(stpu_sched_cycles(&s), 0);
	stpu_sched_release(&s);
}

/*
 * TRIGGER_ARRIVAL blocks scheduled n at a time give what they give one by
 * one: every field of the state after runs of blocks (of mixed rows, some
 * runs block by block), on arrays from 1 x 1 up, including saw = 1 and 2
 * where the recurrence's other terms come closest to binding.
 */
static void test_arrival_runs(void)
{
	static const unsigned arrays[][2] = { { 1, 1 }, { 2, 1 }, { 1, 2 }, { 3, 2 }, { 4, 4 },
					      { 7, 5 }, { 128, 128 } };
	static const uint32_t ones[128] = { 1 };
	uint64_t seed = 12345;
	size_t a, t;

	for (a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++)
		for (t = 0; t < 20; t++) {
			unsigned sah = arrays[a][0], saw = arrays[a][1], run, c;
			struct stpu_sched one, many;
			stpu_sched_init(&one, sah, saw, STPU_TRIGGER_ARRIVAL);
			stpu_sched_init(&many, sah, saw, STPU_TRIGGER_ARRIVAL);
			for (run = 0; run < 6; run++) {
				uint64_t n, i;
				unsigned n_rows;
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				n = (seed >> 33) % 7;
				n_rows = 1 + (unsigned)((seed >> 45) % sah);
				for (i = 0; i < n; i++)
					stpu_sched_block(&one, n_rows, saw, ones);
				if ((seed >> 20) % 3 == 0)
					for (i = 0; i < n; i++)
						stpu_sched_block(&many, n_rows, 1 + (unsigned)(i % saw),
								 ones);
				else
					stpu_sched_arrival_blocks(&many, n_rows, n);
			}
			CU_ASSERT_EQUAL(many.n_blocks, one.n_blocks);
			CU_ASSERT_EQUAL(many.w_prev, one.w_prev);
			CU_ASSERT_EQUAL(many.e_last_prev2, one.e_last_prev2);
			CU_ASSERT_EQUAL(many.done, one.done);
			CU_ASSERT_EQUAL(stpu_sched_cycles(&many), stpu_sched_cycles(&one));
			for (c = 0; one.n_blocks && c < saw; c++)
				CU_ASSERT_EQUAL(many.e_prev[c], one.e_prev[c]);
			stpu_sched_release(&one);
			stpu_sched_release(&many);
		}
}

static CU_TestInfo tests[] = {
	{ "schedule", test_schedule },
	{ "arrival blocks at once", test_arrival_runs },
	{ "empty", test_empty },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu_sched", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
