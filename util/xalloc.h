/*
 * Allocation that never fails, growable arrays, and BUG().
 *
 * x-allocators print "fatal: out of memory" and abort when the system cannot
 * satisfy a request, so callers never check for NULL. BUG() reports a broken
 * invariant (a defect in fiberloop, never bad user input) and aborts.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

/* Number of elements of a true array (not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Grow 'arr' (with capacity 'alloc' elements) so it holds at least 'need'. */
#define XGROW(arr, need, alloc)                                              \
	do {                                                                 \
		if ((size_t)(need) > (size_t)(alloc)) {                      \
			size_t xg_n_ = (size_t)(alloc) ? (size_t)(alloc) * 2 : 8; \
			if (xg_n_ < (size_t)(need))                          \
				xg_n_ = (size_t)(need);                      \
			(arr) = xreallocarray((arr), xg_n_, sizeof(*(arr))); \
			(alloc) = xg_n_;                                     \
		}                                                            \
	} while (0)

/* Report a broken invariant at the caller's location and abort. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)

/* malloc that aborts on failure; size 0 returns a unique pointer. */
void *xmalloc(size_t size);

/* calloc that aborts on failure (overflow of n*size included). */
void *xcalloc(size_t n, size_t size);

/* realloc that aborts on failure. */
void *xrealloc(void *ptr, size_t size);

/* realloc of n elements of 'size' bytes, aborting on overflow or failure. */
void *xreallocarray(void *ptr, size_t n, size_t size);

/* strdup that aborts on failure; 's' must not be NULL. */
char *xstrdup(const char *s);

/* Copy of the first 'n' bytes of 's' plus a terminating NUL. */
char *xstrndup(const char *s, size_t n);

/* Print "BUG: file:line: message" to stderr and abort(). */
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
