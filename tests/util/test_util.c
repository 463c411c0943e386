/* Tests of the small containers: strbuf, arena, rng, checked math (atomic files: test_fileio.c). */
#include "util/arena.h"
#include "util/ckmath.h"
#include "util/rng.h"
#include "util/strbuf.h"

#include <pthread.h>
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

/* strbuf_add_u64() and u64_decimal_back() write what "%llu" writes. */
static void test_strbuf_u64(void)
{
	static const uint64_t vs[] = { 0, 9, 10, 1234567890123ull, UINT64_MAX };
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	char buf[20], *d;
	size_t i;

	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		strbuf_add_u64(&sb, vs[i]);
		strbuf_addch(&sb, ' ');
		strbuf_addf(&want, "%llu ", (unsigned long long)vs[i]);
	}
	CU_ASSERT_STRING_EQUAL(sb.buf, want.buf);
	CU_ASSERT_STRING_EQUAL(sb.buf, "0 9 10 1234567890123 18446744073709551615 ");
	d = u64_decimal_back(buf + sizeof(buf), UINT64_MAX);
	CU_ASSERT_PTR_EQUAL(d, buf);   /* 20 digits fill the buffer */
	CU_ASSERT_EQUAL(memcmp(d, "18446744073709551615", 20), 0);
	strbuf_release(&sb);
	strbuf_release(&want);
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

/*
 * Chunks a thread keeps between its arenas: a later arena gets the same
 * memory (no malloc a set), zeroed though the last one wrote all over it;
 * a thread's kept chunks go with it (the sanitizer build's leak check).
 */
static void *fill_and_release(void *arg)
{
	struct arena a = ARENA_INIT;
	int i;

	(void)arg;
	for (i = 0; i < 40; i++)
		memset(arena_alloc(&a, 30000), 0xa5, 30000);
	arena_release(&a);
	return NULL;
}

static void test_arena_reuse(void)
{
	struct arena a = ARENA_INIT, b = ARENA_INIT;
	unsigned char *p, *q, *big;
	size_t i, nonzero = 0;
	pthread_t t;

	p = arena_alloc(&a, 1000);
	memset(p, 0xff, 1000);
	big = arena_alloc(&a, 100000);   /* a chunk of its own: freed, not kept */
	memset(big, 0xff, 100000);
	arena_release(&a);
	q = arena_alloc(&b, 1000);
	CU_ASSERT_PTR_EQUAL(q, p);       /* the kept chunk */
	for (i = 0; i < 1000; i++)
		nonzero += q[i] != 0;
	for (i = 0; i < 200; i++) {      /* and the rest of the chunk, as it is handed out */
		unsigned char *r = arena_alloc(&b, 300);
		size_t k;
		for (k = 0; k < 300; k++)
			nonzero += r[k] != 0;
	}
	CU_ASSERT_EQUAL(nonzero, 0);
	CU_ASSERT_STRING_EQUAL(arena_strdup(&b, "glb"), "glb");
	arena_release(&b);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, fill_and_release, NULL), 0);
	CU_ASSERT_EQUAL(pthread_join(t, NULL), 0);
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

/* Well-formed UTF-8 characters and their code points; 0 for anything else (RFC 3629). */
static void test_utf8_len(void)
{
	static const struct {
		const char *s;
		size_t len;
		unsigned long cp;
	} rows[] = {
		{ "a", 1, 'a' },
		{ "", 0, 0 },
		{ "\303\251", 2, 0xe9 },
		{ "\342\202\254", 3, 0x20ac },
		{ "\360\237\230\200", 4, 0x1f600 },
		{ "\364\217\277\277", 4, 0x10ffff },
		{ "\364\220\200\200", 0, 0 },       /* above U+10FFFF */
		{ "\377", 0, 0 },
		{ "\200", 0, 0 },                      /* a lone continuation byte */
		{ "\300\200", 0, 0 },                 /* overlong */
		{ "\340\200\200", 0, 0 },            /* overlong */
		{ "\355\240\200", 0, 0 },            /* a surrogate */
		{ "\342\202", 0, 0 },                 /* cut short at the NUL */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long cp = 0;
		CU_ASSERT_EQUAL(strbuf_utf8_len(rows[i].s, &cp), rows[i].len);
		if (rows[i].len)
			CU_ASSERT_EQUAL(cp, rows[i].cp);
	}
}

static CU_TestInfo util_tests[] = {
	{ "UTF-8 characters", test_utf8_len },
	{ "strbuf", test_strbuf },
	{ "strbuf: a uint64 in decimal, as %llu", test_strbuf_u64 },
	{ "arena", test_arena },
	{ "arena chunks kept for the thread's next arenas, zeroed", test_arena_reuse },
	{ "rng determinism and spread", test_rng },
	{ "checked math", test_ckmath },
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
