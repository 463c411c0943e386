/*
 * Hashes that name designs and points: 128 bits (two 64-bit FNV-1a lanes
 * with different offsets, each finished by a 64-bit mixer), printed as 32
 * hex digits. Not cryptographic: they tell a changed design or point from
 * a finished one, where a chance collision among 10^9 points is below
 * 10^-20. Also the set of finished keys that a resumed run skips.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define FNV_PRIME 0x100000001b3ull

void job_hash_init(struct job_hash *h)
{
	h->a = 0xcbf29ce484222325ull;
	h->b = 0x84222325cbf29ce4ull;
}

void job_hash_add(struct job_hash *h, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < n; i++) {
		h->a = (h->a ^ p[i]) * FNV_PRIME;
		h->b = (h->b ^ p[i]) * FNV_PRIME;
		h->b ^= h->b >> 29;
	}
}

void job_hash_str(struct job_hash *h, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;

	job_hash_add(h, &n, sizeof(n));   /* the length first: "ab"+"c" is not "a"+"bc" */
	if (s)
		job_hash_add(h, s, (size_t)n);
}

/* A 64-bit finalizer (splitmix64's). */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

void job_hash_hex(const struct job_hash *h, char out[JOB_KEY_CHARS + 1])
{
	snprintf(out, JOB_KEY_CHARS + 1, "%016llx%016llx", (unsigned long long)mix(h->a),
		 (unsigned long long)mix(h->b ^ h->a));
}

int job_hash_file(struct job_hash *h, const char *path, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT;
	uint64_t n;

	if (fileio_read(path, &data, err) < 0)
		return -1;
	n = data.len;
	job_hash_add(h, &n, sizeof(n));
	job_hash_add(h, data.buf, data.len);
	strbuf_release(&data);
	return 0;
}

/* ------------------------------------------------------------ key sets */

/* The first 16 hex digits of a key as a number: keys are already hashes. */
static uint64_t key_slot(const char *key)
{
	return strtoull((char[17]){ key[0], key[1], key[2], key[3], key[4], key[5], key[6],
				    key[7], key[8], key[9], key[10], key[11], key[12], key[13],
				    key[14], key[15], 0 }, NULL, 16);
}

static void set_insert(struct job_key_set *ks, const char *key)
{
	size_t i = (size_t)key_slot(key) & (ks->cap - 1);
	while (ks->slots[i][0]) {
		if (!strcmp(ks->slots[i], key))
			return;
		i = (i + 1) & (ks->cap - 1);
	}
	memcpy(ks->slots[i], key, JOB_KEY_CHARS + 1);
	ks->n++;
}

void job_key_set_add(struct job_key_set *ks, const char *key)
{
	if (strlen(key) != JOB_KEY_CHARS)
		return;                /* not one of ours: it can match nothing */
	if (2 * (ks->n + 1) > ks->cap) {
		struct job_key_set big = { 0, ks->cap ? 2 * ks->cap : 1024, NULL };
		size_t i;
		big.slots = xcalloc(big.cap, sizeof(*big.slots));
		for (i = 0; i < ks->cap; i++)
			if (ks->slots[i][0])
				set_insert(&big, ks->slots[i]);
		free(ks->slots);
		*ks = big;
	}
	set_insert(ks, key);
}

bool job_key_set_has(const struct job_key_set *ks, const char *key)
{
	size_t i;

	if (!ks->cap)
		return false;
	i = (size_t)key_slot(key) & (ks->cap - 1);
	while (ks->slots[i][0]) {
		if (!strcmp(ks->slots[i], key))
			return true;
		i = (i + 1) & (ks->cap - 1);
	}
	return false;
}

void job_key_set_release(struct job_key_set *ks)
{
	free(ks->slots);
	memset(ks, 0, sizeof(*ks));
}
