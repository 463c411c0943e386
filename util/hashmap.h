/*
 * A hash table over fixed-size keys and values, and the hash functions.
 *
 * Open addressing with linear probing in a power-of-two table kept at most
 * half full (it doubles when an insertion would pass that). Keys and values
 * are stored inline in the slots (values 8-byte aligned) and keys are
 * compared byte by byte, so a key struct must have its padding zeroed.
 * Entries move when the table grows: a value pointer is valid until the
 * next insertion. There is no deletion, only hashmap_clear(). The caller
 * owns the struct; a table belongs to one thread.
 */
#ifndef UTIL_HASHMAP_H
#define UTIL_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap {
	size_t key_size;            /* bytes of a key (> 0) */
	size_t val_size;            /* bytes of a value (may be 0: a set) */
	size_t val_off;             /* offset of the value in a slot (8-byte aligned) */
	size_t val_words;           /* the value's 8-byte words */
	size_t slot_size;           /* tag, key, value, each padded to 8 bytes */
	size_t n;                   /* entries */
	size_t n_slots;             /* a power of two, or 0 while nothing is allocated */
	size_t mask;                /* n_slots - 1 */
	unsigned char *slots;
	size_t *order;              /* slot of each entry, in insertion order */
};

#define HASHMAP_ROUND8_(x) (((x) + 7) & ~(size_t)7)
#define HASHMAP_INIT(key_size_, val_size_) \
	{ (key_size_), (val_size_), 8 + HASHMAP_ROUND8_(key_size_), HASHMAP_ROUND8_(val_size_) / 8, \
	  8 + HASHMAP_ROUND8_(key_size_) + HASHMAP_ROUND8_(val_size_), 0, 0, 0, NULL, NULL }

/* Initialize an empty table of keys of 'key_size' (> 0) and values of 'val_size' bytes. */
void hashmap_init(struct hashmap *h, size_t key_size, size_t val_size);

/* Make room for 'n' entries in all without growing again. */
void hashmap_reserve(struct hashmap *h, size_t n);

/* The value stored under 'key' (borrowed until the next insertion), or NULL. */
void *hashmap_get(const struct hashmap *h, const void *key);

/*
 * The value stored under 'key', inserted with all bytes zero when absent;
 * '*is_new' (may be NULL) says which. Borrowed until the next insertion.
 */
void *hashmap_put(struct hashmap *h, const void *key, bool *is_new);

/*
 * Iterate over the entries in insertion order: start with *pos = 0; each
 * call sets *key and *val (either may be NULL) to the next entry and
 * returns true, or returns false after the last one.
 */
bool hashmap_next(const struct hashmap *h, size_t *pos, const void **key, void **val);

/* Remove every entry (in time proportional to their number); the memory is kept. */
void hashmap_clear(struct hashmap *h);

/* Free the table; 'h' is then empty and reusable. */
void hashmap_release(struct hashmap *h);

#define HASH_K1 0x9E3779B97F4A7C15ull   /* 2^64 / golden ratio, odd */
#define HASH_K2 0xBF58476D1CE4E5B9ull   /* splitmix64's finalizer multipliers */
#define HASH_K3 0x94D049BB133111EBull

/*
 * 64-bit hash of 'n' bytes: hash_combine() of every 8-byte word (the last
 * one zero-padded) into a seed made from 'n', then hash_u64(), so that every
 * input bit reaches the low bits the table uses.
 */
uint64_t hashmap_hash_bytes(const void *data, size_t n);

/*
 * An avalanche of 'x': every bit of x affects every bit of the result.
 * splitmix64's finalizer (Steele, Lea and Flood, OOPSLA 2014).
 */
static inline uint64_t hash_u64(uint64_t x)
{
	x = (x ^ (x >> 30)) * HASH_K2;
	x = (x ^ (x >> 27)) * HASH_K3;
	return x ^ (x >> 31);
}

/*
 * Fold 'x' into the running hash 'h' (order matters): h rotated (so that
 * what earlier words left in the high bits meets x's low bits), xored with
 * x, multiplied by an odd constant (a bijection). Finish with hash_u64()
 * before using the low bits.
 */
static inline uint64_t hash_combine(uint64_t h, uint64_t x)
{
	return (((h << 23) | (h >> 41)) ^ x) * HASH_K1;
}

#endif
