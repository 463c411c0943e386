/*
 * util/hashmap.h: open addressing with linear probing. A slot is a 64-bit
 * tag (the key's hash, 0 = empty slot), the key, then the value. The tag
 * spares a key comparison on almost every mismatch and the rehash when the
 * table grows. 'order' lists the occupied slots in insertion order, so that
 * iteration is in insertion order and clearing costs the entries, not the
 * table: it zeroes their tags, and an insertion zeroes the value it hands
 * out.
 */
#include "util/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define HASHMAP_MIN_SLOTS 16

static inline uint64_t bytes_hash(const void *data, size_t n)
{
	const unsigned char *b = data;
	uint64_t h = HASH_K1 ^ (uint64_t)n, w;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = hash_combine(h, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = hash_combine(h, w);
	}
	return hash_u64(h);
}

uint64_t hashmap_hash_bytes(const void *data, size_t n)
{
	return bytes_hash(data, n);
}

/* hashmap_hash_bytes() of a key of 'h' (the common 8-byte key unrolled). */
static inline uint64_t key_hash(const struct hashmap *h, const void *key)
{
	return h->key_size == 8 ? bytes_hash(key, 8) : bytes_hash(key, h->key_size);
}

/* ------------------------------------------------------------------ table */

void hashmap_init(struct hashmap *h, size_t key_size, size_t val_size)
{
	struct hashmap empty = HASHMAP_INIT(key_size, val_size);

	if (key_size == 0)
		BUG("hashmap of empty keys");
	*h = empty;
}

/* Tag of a key's hash: never 0, which marks an empty slot. */
static inline uint64_t tag_of(uint64_t hash)
{
	return hash ? hash : 1;
}

static inline unsigned char *slot_at(const struct hashmap *h, size_t i)
{
	return h->slots + i * h->slot_size;
}

static inline uint64_t slot_tag(const unsigned char *s)
{
	uint64_t t;
	memcpy(&t, s, sizeof(t));
	return t;
}

/* True when the key stored at 'k' is 'key' (8-byte keys compared as one word). */
static inline bool key_equal(const struct hashmap *h, const unsigned char *k, const void *key)
{
	uint64_t a, b;

	if (h->key_size != 8)
		return !memcmp(k, key, h->key_size);
	memcpy(&a, k, 8);
	memcpy(&b, key, 8);
	return a == b;
}

/* Index of the slot holding 'key' (tag 'tag'), or of the empty slot where it would go. */
static inline size_t probe(const struct hashmap *h, const void *key, uint64_t tag)
{
	size_t i = (size_t)tag & h->mask;

	for (;; i = (i + 1) & h->mask) {
		const unsigned char *s = slot_at(h, i);
		uint64_t t = slot_tag(s);
		if (t == 0 || (t == tag && key_equal(h, s + 8, key)))
			return i;
	}
}

/*
 * Fill an empty slot with 'key' and tag 'tag' and a zero value (a cleared
 * table zeroes only the tags of its slots).
 */
static inline void slot_fill(const struct hashmap *h, unsigned char *s, const void *key,
			     uint64_t tag)
{
	uint64_t *v = (uint64_t *)(void *)(s + h->val_off);
	size_t i;

	memcpy(s, &tag, sizeof(tag));
	if (h->key_size == 8)
		memcpy(s + 8, key, 8);
	else
		memcpy(s + 8, key, h->key_size);
	for (i = 0; i < h->val_words; i++)
		v[i] = 0;
}

/*
 * Reallocate to 'slots' slots (a power of two, at least twice the entries)
 * and reinsert the entries in insertion order.
 */
static void rehash(struct hashmap *h, size_t slots)
{
	unsigned char *old = h->slots;
	size_t *old_order = h->order, old_size = h->slot_size, i;

	h->slots = xcalloc(slots, h->slot_size);
	h->order = xcalloc(slots / 2, sizeof(*h->order));
	h->n_slots = slots;
	h->mask = slots - 1;
	for (i = 0; i < h->n; i++) {
		const unsigned char *s = old + old_order[i] * old_size;
		size_t j;
		for (j = (size_t)slot_tag(s) & h->mask; slot_tag(slot_at(h, j)); j = (j + 1) & h->mask)
			;
		memcpy(slot_at(h, j), s, h->slot_size);
		h->order[i] = j;
	}
	free(old);
	free(old_order);
}

void hashmap_reserve(struct hashmap *h, size_t n)
{
	size_t want = HASHMAP_MIN_SLOTS;

	while (want < 2 * n)
		want *= 2;
	if (want > h->n_slots)
		rehash(h, want);
}

void *hashmap_get(const struct hashmap *h, const void *key)
{
	unsigned char *s;

	if (!h->n)
		return NULL;
	s = slot_at(h, probe(h, key, tag_of(key_hash(h, key))));
	return slot_tag(s) ? s + h->val_off : NULL;
}

void *hashmap_put(struct hashmap *h, const void *key, bool *is_new)
{
	uint64_t tag = tag_of(key_hash(h, key));
	unsigned char *s;
	size_t i;

	if (2 * (h->n + 1) > h->n_slots)
		hashmap_reserve(h, h->n + 1);
	i = probe(h, key, tag);
	s = slot_at(h, i);
	if (is_new)
		*is_new = !slot_tag(s);
	if (!slot_tag(s)) {
		slot_fill(h, s, key, tag);
		h->order[h->n++] = i;
	}
	return s + h->val_off;
}

bool hashmap_next(const struct hashmap *h, size_t *pos, const void **key, void **val)
{
	unsigned char *s;

	if (*pos >= h->n)
		return false;
	s = slot_at(h, h->order[(*pos)++]);
	if (key)
		*key = s + 8;
	if (val)
		*val = s + h->val_off;
	return true;
}

void hashmap_clear(struct hashmap *h)
{
	static const uint64_t empty = 0;
	size_t i;

	for (i = 0; i < h->n; i++)
		memcpy(slot_at(h, h->order[i]), &empty, sizeof(empty));
	h->n = 0;
}

void hashmap_release(struct hashmap *h)
{
	free(h->slots);
	free(h->order);
	h->slots = NULL;
	h->order = NULL;
	h->n_slots = h->mask = 0;
	h->n = 0;
}
