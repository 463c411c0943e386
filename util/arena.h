/*
 * A bump allocator: many small allocations freed together.
 *
 * The spec set lives in one arena (STYLE 3.5): every struct, array and string
 * of a loaded design stays valid until arena_release(). Allocations are
 * zero-filled and aligned for any C object; they never fail (out of memory
 * aborts, as with the x-allocators).
 */
#ifndef UTIL_ARENA_H
#define UTIL_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head; /* newest chunk first */
	size_t bytes;             /* total bytes handed out */
};

#define ARENA_INIT { NULL, 0 }

/* 'size' zero-filled bytes owned by 'a'. */
void *arena_alloc(struct arena *a, size_t size);

/* Zero-filled array of 'n' elements of 'size' bytes (overflow aborts). */
void *arena_calloc(struct arena *a, size_t n, size_t size);

/* Copy of 's' (which may be NULL, giving NULL) owned by 'a'. */
char *arena_strdup(struct arena *a, const char *s);

/* Copy of the first 'n' bytes of 's' plus a NUL, owned by 'a'. */
char *arena_strndup(struct arena *a, const char *s, size_t n);

/* printf into a string owned by 'a'. */
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Copy of 'n' bytes of 'src' owned by 'a'. */
void *arena_memdup(struct arena *a, const void *src, size_t n);

/* Free everything allocated from 'a'; 'a' becomes empty and reusable. */
void arena_release(struct arena *a);

#endif
