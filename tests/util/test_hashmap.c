/*
 * util/hashmap.c: insertion, lookup, growth, clearing and iteration (in
 * insertion order) over key and value sizes that are and are not multiples
 * of 8; many keys in few slots (collisions and wrap-around); and the hash
 * functions' mixing.
 */
#include "util/hashmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"

/* Key number 'i' of 'size' bytes: i spread over the key, the rest a pattern. */
static void make_key(unsigned char *k, size_t size, uint64_t i)
{
	size_t b;

	for (b = 0; b < size; b++)
		k[b] = (unsigned char)(0xA5 ^ (b * 7));
	for (b = 0; b < 8; b++)
		k[(b * 5) % size] ^= (unsigned char)(i >> (8 * b));
}

/* Value of key 'i': 'size' bytes derived from it. */
static void make_val(unsigned char *v, size_t size, uint64_t i)
{
	size_t b;

	for (b = 0; b < size; b++)
		v[b] = (unsigned char)(i * 31 + b);
}

struct table_row {
	size_t key_size, val_size;
	unsigned n;               /* keys inserted */
	size_t reserve;           /* hashmap_reserve() first, or 0 */
};

static const struct table_row table_rows[] = {
	{ 8, 8, 1, 0 },
	{ 8, 8, 7, 0 },           /* fits the first 16 slots */
	{ 8, 8, 9, 0 },           /* grows once */
	{ 8, 0, 300, 0 },         /* a set */
	{ 3, 5, 1000, 0 },        /* sizes not multiples of 8 */
	{ 12, 8, 2000, 0 },       /* a value after a padded key */
	{ 20, 40, 5000, 0 },
	{ 144, 8, 3000, 0 },      /* the density cache's key size */
	{ 16, 24, 10000, 64 },    /* reserved small, grows many times */
	{ 8, 8, 4000, 4000 },     /* reserved: no growth */
};

/* Insert, find, re-insert, iterate, clear and reuse, for every row. */
static void test_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(table_rows) / sizeof(table_rows[0]); i++) {
		const struct table_row *row = &table_rows[i];
		struct hashmap h;
		unsigned char key[256], val[256];
		unsigned k, seen = 0, bad = 0;
		size_t pos = 0, slots;
		const void *kp;
		void *vp;
		bool is_new;

		hashmap_init(&h, row->key_size, row->val_size);
		if (row->reserve)
			hashmap_reserve(&h, row->reserve);
		slots = h.n_slots;
		for (k = 0; k < row->n; k++) {
			make_key(key, row->key_size, k);
			vp = hashmap_put(&h, key, &is_new);
			bad += !is_new;
			bad += ((uintptr_t)vp & 7) != 0;
			bad += row->val_size && ((unsigned char *)vp)[0] != 0;   /* zeroed */
			make_val(val, row->val_size, k);
			memcpy(vp, val, row->val_size);
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(h.n, row->n);
		CU_ASSERT_TRUE(2 * h.n <= h.n_slots);              /* at most half full */
		CU_ASSERT_EQUAL(h.n_slots & h.mask, 0);           /* a power of two */
		if (row->reserve >= row->n)
			CU_ASSERT_EQUAL(h.n_slots, slots);         /* never grew */
		for (k = 0; k < row->n; k++) {
			make_key(key, row->key_size, k);
			make_val(val, row->val_size, k);
			vp = hashmap_get(&h, key);
			bad += !vp || memcmp(vp, val, row->val_size) != 0;
			vp = hashmap_put(&h, key, &is_new);         /* present: found, not added */
			bad += is_new || memcmp(vp, val, row->val_size) != 0;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(h.n, row->n);
		for (k = row->n; k < row->n + 100; k++) {          /* absent keys */
			make_key(key, row->key_size, k);
			bad += hashmap_get(&h, key) != NULL;
		}
		CU_ASSERT_EQUAL(bad, 0);
		while (hashmap_next(&h, &pos, &kp, &vp)) {       /* in insertion order */
			make_key(key, row->key_size, seen++);
			bad += memcmp(kp, key, row->key_size) != 0;
			bad += hashmap_get(&h, kp) != vp;
		}
		CU_ASSERT_EQUAL(seen, row->n);
		CU_ASSERT_EQUAL(bad, 0);
		hashmap_clear(&h);
		CU_ASSERT_EQUAL(h.n, 0);
		make_key(key, row->key_size, row->n - 1);          /* its value was non-zero */
		CU_ASSERT_PTR_NULL(hashmap_get(&h, key));
		pos = 0;
		CU_ASSERT_FALSE(hashmap_next(&h, &pos, NULL, NULL));
		vp = hashmap_put(&h, key, &is_new);
		CU_ASSERT_TRUE(is_new);
		memset(val, 0, sizeof(val));
		CU_ASSERT_EQUAL(memcmp(vp, val, row->val_size), 0);   /* zeroed again */
		CU_ASSERT_EQUAL(h.n, 1);
		hashmap_release(&h);
		CU_ASSERT_EQUAL(h.n, 0);
		CU_ASSERT_PTR_NULL(hashmap_get(&h, key));
		CU_ASSERT_PTR_NOT_NULL(hashmap_put(&h, key, NULL));   /* reusable */
		hashmap_release(&h);
		if (bad)
			fprintf(stderr, "row %zu failed\n", i);
	}
}

/*
 * Many keys whose hashes share their low bits land in one run of slots:
 * linear probing must walk past the others and wrap around the table's
 * end. Keys are found by searching for ones whose tag hits the last slot.
 */
static void test_collisions(void)
{
	struct hashmap h = HASHMAP_INIT(sizeof(uint64_t), sizeof(uint64_t));
	uint64_t keys[6], k, *v;
	unsigned n = 0, i;

	hashmap_reserve(&h, 8);                                  /* 16 slots */
	CU_ASSERT_EQUAL_FATAL(h.mask, 15);
	for (k = 0; n < 6; k++)
		if ((hashmap_hash_bytes(&k, sizeof(k)) & 15) == 15)
			keys[n++] = k;
	for (i = 0; i < 6; i++)
		*(uint64_t *)hashmap_put(&h, &keys[i], NULL) = 100 + i;
	CU_ASSERT_EQUAL(h.mask, 15);                             /* 6 of 16: no growth */
	for (i = 0; i < 6; i++) {
		v = hashmap_get(&h, &keys[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v);
		CU_ASSERT_EQUAL(*v, 100 + i);
	}
	for (k = keys[5] + 1; (hashmap_hash_bytes(&k, sizeof(k)) & 15) != 15; k++)
		;
	CU_ASSERT_PTR_NULL(hashmap_get(&h, &k));                 /* probes the whole run */
	hashmap_release(&h);
}

/* Number of bits set in x. */
static unsigned popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

/*
 * Mixing: equal inputs hash equal; length counts (zero bytes of different
 * lengths differ); flipping any one input bit flips about half the output
 * bits; keys differing only in their top bits spread over the low bits the
 * table indexes with.
 */
static void test_hash_functions(void)
{
	static const unsigned char zeros[16];
	unsigned char buf[24];
	uint64_t h0, buckets[4096 / 64] = { 0 }, k;
	unsigned bit, flips, min_flips = 64, max_flips = 0, n_buckets = 0, i;

	CU_ASSERT_EQUAL(hashmap_hash_bytes("abc", 3), hashmap_hash_bytes("abc", 3));
	CU_ASSERT_NOT_EQUAL(hashmap_hash_bytes("abc", 3), hashmap_hash_bytes("abd", 3));
	for (i = 0; i < 16; i++)
		CU_ASSERT_NOT_EQUAL(hashmap_hash_bytes(zeros, i), hashmap_hash_bytes(zeros, i + 1));
	memset(buf, 0x5c, sizeof(buf));
	h0 = hashmap_hash_bytes(buf, sizeof(buf));
	for (bit = 0; bit < 8 * sizeof(buf); bit++) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		flips = popcount64(h0 ^ hashmap_hash_bytes(buf, sizeof(buf)));
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		min_flips = flips < min_flips ? flips : min_flips;
		max_flips = flips > max_flips ? flips : max_flips;
	}
	CU_ASSERT_TRUE(min_flips >= 14);
	CU_ASSERT_TRUE(max_flips <= 50);
	for (k = 0; k < 4096; k++) {
		uint64_t key = k << 52, b = hashmap_hash_bytes(&key, sizeof(key)) & 4095;
		buckets[b / 64] |= 1ull << (b % 64);
	}
	for (i = 0; i < 4096 / 64; i++)
		n_buckets += popcount64(buckets[i]);
	CU_ASSERT_TRUE(n_buckets > 2400);     /* a random function fills 2589 on average */
	CU_ASSERT_NOT_EQUAL(hash_u64(1), hash_u64(2));
	CU_ASSERT_TRUE(popcount64(hash_u64(1) ^ hash_u64(2)) >= 14);
	CU_ASSERT_NOT_EQUAL(hash_combine(hash_combine(0, 1), 2), hash_combine(hash_combine(0, 2), 1));
	if (min_flips < 14 || max_flips > 50 || n_buckets <= 2400)
		fprintf(stderr, "flips %u..%u, buckets %u\n", min_flips, max_flips, n_buckets);
}

static CU_TestInfo hashmap_tests[] = {
	{ "insert, find, grow, iterate, clear", test_table },
	{ "colliding keys and wrap-around", test_collisions },
	{ "hash functions", test_hash_functions },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "hashmap", .pTests = hashmap_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
