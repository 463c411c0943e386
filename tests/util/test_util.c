/* Tests of the small containers: strbuf, arena, rng, checked math, atomic files. */
#include "util/arena.h"
#include "util/ckmath.h"
#include "util/fileio.h"
#include "util/rng.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len;
	int i;

	CU_ASSERT_STRING_EQUAL(sb.buf, "");
	for (i = 0; i < 100; i++)
		strbuf_addf(&sb, "%d,", i);
	CU_ASSERT_EQUAL(sb.len, 290);
	CU_ASSERT_EQUAL(memcmp(sb.buf, "0,1,2,", 6), 0);
	strbuf_setlen(&sb, 4);
	strbuf_addchars(&sb, '-', 3);
	CU_ASSERT_STRING_EQUAL(sb.buf, "0,1,---");
	s = strbuf_detach(&sb, &len);
	CU_ASSERT_EQUAL(len, 7);
	CU_ASSERT_STRING_EQUAL(sb.buf, "");
	free(s);
	strbuf_release(&sb);
}

static void test_arena(void)
{
	struct arena a = ARENA_INIT;
	char *big, *s;
	int *xs;
	size_t i;

	xs = arena_calloc(&a, 1000, sizeof(*xs));
	for (i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(xs[i], 0);
	big = arena_alloc(&a, 200000);
	big[199999] = 'x';
	s = arena_printf(&a, "%s[%d..%d]", "pe", 1, 256);
	CU_ASSERT_STRING_EQUAL(s, "pe[1..256]");
	CU_ASSERT_PTR_NULL(arena_strdup(&a, NULL));
	CU_ASSERT_TRUE(((uintptr_t)arena_alloc(&a, 3) % sizeof(double)) == 0);
	CU_ASSERT_TRUE(a.bytes >= 204000);
	arena_release(&a);
	CU_ASSERT_EQUAL(a.bytes, 0);
}

static void test_rng(void)
{
	struct rng a, b;
	uint64_t counts[4] = { 0 };
	int i;

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(rng_next(&a), rng_next(&b));
	rng_seed_stream(&b, 42, 1);
	CU_ASSERT_NOT_EQUAL(rng_next(&a), rng_next(&b));
	for (i = 0; i < 40000; i++)
		counts[rng_below(&a, 4)]++;
	for (i = 0; i < 4; i++)
		CU_ASSERT_TRUE(counts[i] > 9500 && counts[i] < 10500);
	for (i = 0; i < 1000; i++) {
		double d = rng_double(&a);
		CU_ASSERT_TRUE(d >= 0.0 && d < 1.0);
	}
}

static void test_ckmath(void)
{
	uint64_t r;
	CU_ASSERT_TRUE(ck_mul_u64(1000000, 1000000, &r));
	CU_ASSERT_EQUAL(r, 1000000000000ull);
	CU_ASSERT_FALSE(ck_mul_u64(UINT64_MAX / 2, 3, &r));
	CU_ASSERT_FALSE(ck_add_u64(UINT64_MAX, 1, &r));
	CU_ASSERT_EQUAL(ceil_div_u64(10, 4), 3);
	CU_ASSERT_EQUAL(ceil_div_u64(8, 4), 2);
}

static void test_atomic_file(void)
{
	char dir[] = "/tmp/fiberloop-test-XXXXXX";
	char path[256];
	struct strbuf err = STRBUF_INIT, content = STRBUF_INIT;
	struct atomic_file af;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out/sub", dir);
	CU_ASSERT_EQUAL(fileio_make_dirs(path, &err), 0);
	snprintf(path, sizeof(path), "%s/out/sub/x.txt", dir);
	CU_ASSERT_EQUAL(fileio_write_atomic(path, "hello\n", 6, &err), 0);
	CU_ASSERT_EQUAL(fileio_read(path, &content, &err), 0);
	CU_ASSERT_STRING_EQUAL(content.buf, "hello\n");

	/* an aborted write leaves the old content and no temporary */
	CU_ASSERT_EQUAL(atomic_file_open(&af, path, &err), 0);
	fputs("half", af.fp);
	atomic_file_abort(&af);
	strbuf_reset(&content);
	CU_ASSERT_EQUAL(fileio_read(path, &content, &err), 0);
	CU_ASSERT_STRING_EQUAL(content.buf, "hello\n");

	snprintf(path, sizeof(path), "%s/missing/dir/x.txt", dir);
	CU_ASSERT_EQUAL(fileio_write_atomic(path, "x", 1, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "cannot write"));
	strbuf_release(&err);
	strbuf_release(&content);
}

static void test_write_files_atomic(void)
{
	char dir[] = "/tmp/fiberloop-test-XXXXXX";
	char sub[256], blocker[256];
	static const char *const names[2] = { "a.txt", "b.txt" };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT, got = STRBUF_INIT;
	const struct strbuf *bufs[2] = { &a, &b };

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	strbuf_addstr(&a, "first\n");
	strbuf_addstr(&b, "second\n");
	snprintf(sub, sizeof(sub), "%s/out", dir);
	CU_ASSERT_EQUAL(fileio_write_files_atomic(sub, names, bufs, 2, &err), 0);
	snprintf(sub, sizeof(sub), "%s/out/b.txt", dir);
	CU_ASSERT_EQUAL(fileio_read(sub, &got, &err), 0);
	CU_ASSERT_STRING_EQUAL(got.buf, "second\n");

	/* a directory that cannot be created: an error and no file */
	snprintf(blocker, sizeof(blocker), "%s/blocker", dir);
	CU_ASSERT_EQUAL(fileio_write_atomic(blocker, "x", 1, &err), 0);
	snprintf(sub, sizeof(sub), "%s/blocker/out", dir);
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(fileio_write_files_atomic(sub, names, bufs, 2, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "cannot create directory"));
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
	strbuf_release(&got);
}

static CU_TestInfo util_tests[] = {
	{ "strbuf", test_strbuf },
	{ "arena", test_arena },
	{ "rng determinism and spread", test_rng },
	{ "checked math", test_ckmath },
	{ "atomic file", test_atomic_file },
	{ "several files at once", test_write_files_atomic },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "util", .pTests = util_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
