#include "util/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"

/* Everything diag_print writes for 'dl', as one string (caller frees). */
static char *printed(const struct diag_list *dl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	diag_print(dl, fp);
	fclose(fp);
	return buf;
}

static void test_gnu_format(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct diag_loc at = { "arch.yaml", 14, 16 };
	char *out;

	CU_ASSERT_EQUAL(diag_error(&dl, at, "'word_bits' must be in [1, 64], got %d", -4), -1);
	diag_note(&dl, (struct diag_loc){ "arch.yaml", 11, 7 }, "in 'architecture.levels[2]'");
	diag_warning(&dl, (struct diag_loc){ "map.yaml", 3, 0 }, "factor of 'N' not given");
	diag_error(&dl, DIAG_LOC_NONE, "no mapping given");
	out = printed(&dl);
	CU_ASSERT_STRING_EQUAL(out,
		"arch.yaml:14:16: error: 'word_bits' must be in [1, 64], got -4\n"
		"arch.yaml:11:7: note: in 'architecture.levels[2]'\n"
		"map.yaml:3: warning: factor of 'N' not given\n"
		"error: no mapping given\n");
	CU_ASSERT_EQUAL(dl.n_errors, 2);
	CU_ASSERT_EQUAL(dl.n_warnings, 1);
	CU_ASSERT_TRUE(diag_has_errors(&dl));
	free(out);
	diag_list_release(&dl);
	CU_ASSERT_FALSE(diag_has_errors(&dl));
}

/* A copy keeps severity and message, takes the new place, and counts again. */
static void test_copy(void)
{
	struct diag_list from = DIAG_LIST_INIT, to = DIAG_LIST_INIT;
	struct diag_loc at = { "--set 'x=1'", 1, 3 };
	size_t i;
	char *out;

	diag_error(&from, (struct diag_loc){ "t.yaml", 1, 1 }, "bad value");
	diag_note(&from, DIAG_LOC_NONE, "from here");
	diag_warning(&from, (struct diag_loc){ "t.yaml", 2, 5 }, "unused key");
	for (i = 0; i < from.n; i++)
		diag_copy(&to, &from.items[i], at);
	out = printed(&to);
	CU_ASSERT_STRING_EQUAL(out,
		"--set 'x=1':1:3: error: bad value\n"
		"--set 'x=1':1:3: note: from here\n"
		"--set 'x=1':1:3: warning: unused key\n");
	CU_ASSERT_EQUAL(to.n_errors, 1);
	CU_ASSERT_EQUAL(to.n_warnings, 1);
	free(out);
	diag_list_release(&from);
	diag_list_release(&to);
}

static void test_cap_drops_errors_and_their_notes(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct diag_loc at = { "f.yaml", 1, 1 };
	char *out;
	int i;

	dl.max_errors = 2;
	for (i = 0; i < 4; i++) {
		diag_error(&dl, at, "e%d", i);
		diag_note(&dl, at, "n%d", i);
	}
	out = printed(&dl);
	CU_ASSERT_STRING_EQUAL(out,
		"f.yaml:1:1: error: e0\nf.yaml:1:1: note: n0\n"
		"f.yaml:1:1: error: e1\nf.yaml:1:1: note: n1\n"
		"error: too many errors (4); only the first 2 are shown\n");
	free(out);
	diag_list_release(&dl);
}

static const struct {
	const char *a, *b;
	size_t dist;
} distances[] = {
	{ "capacity", "capcity", 1 },
	{ "word_bits", "word-bits", 0 },
	{ "Weights", "weights", 0 },
	{ "ab", "ba", 1 },
	{ "", "abc", 3 },
	{ "kitten", "sitting", 3 },
};

static void test_edit_distance(void)
{
	size_t i;
	for (i = 0; i < sizeof(distances) / sizeof(distances[0]); i++)
		CU_ASSERT_EQUAL(diag_edit_distance(distances[i].a, distances[i].b),
				distances[i].dist);
}

static void test_suggest(void)
{
	const char *const keys[] = { "depth", "width", "datawidth", NULL, "read_bandwidth" };
	CU_ASSERT_STRING_EQUAL(diag_suggest("dpeth", keys, 5), "depth");
	CU_ASSERT_STRING_EQUAL(diag_suggest("read-bandwith", keys, 5), "read_bandwidth");
	CU_ASSERT_PTR_NULL(diag_suggest("technology", keys, 5));
}

/* Count releases, for diag_list_keep(). */
static void count_release(void *obj)
{
	++*(int *)obj;
}

/* What a list keeps alive is released with it, once, and the list is reusable. */
static void test_keep(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	int a = 0, b = 0;

	diag_list_keep(&dl, count_release, &a);
	diag_list_keep(&dl, count_release, &b);
	diag_error(&dl, (struct diag_loc){ "kept.yaml", 1, 1 }, "x");
	CU_ASSERT_EQUAL(a + b, 0);
	diag_list_release(&dl);
	CU_ASSERT_EQUAL(a, 1);
	CU_ASSERT_EQUAL(b, 1);
	CU_ASSERT_EQUAL(dl.n_kept, 0);
	diag_list_release(&dl);
	CU_ASSERT_EQUAL(a, 1);
}

static CU_TestInfo diag_tests[] = {
	{ "GNU format with notes and warnings", test_gnu_format },
	{ "copies at another place", test_copy },
	{ "cap drops errors and their notes", test_cap_drops_errors_and_their_notes },
	{ "edit distance", test_edit_distance },
	{ "did you mean", test_suggest },
	{ "objects kept with the list", test_keep },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "diag", .pTests = diag_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
