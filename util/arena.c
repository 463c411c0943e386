#include "util/arena.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define SPARE_HIDE(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SPARE_SHOW(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SPARE_HIDE(p, n) ((void)(p), (void)(n))
#define SPARE_SHOW(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK_BYTES 65536

/*
 * Chunks of CHUNK_BYTES a thread keeps when it releases an arena, for its
 * next arenas: a sweep worker builds a spec set a point and frees it, and
 * without these every point malloc'd and freed its chunks, and glibc grew
 * and shrank the thread's heap each time (an mprotect() per point or so).
 * At most SPARE_MAX (2 MB) a thread; freed when the thread exits. Under
 * AddressSanitizer a kept chunk's data is poisoned, so a use after release
 * is still reported.
 *
 * A chunk's free part is always zero (calloc'd; a kept chunk's used part
 * cleared by one memset when it is kept), so arena_alloc() hands out zeroed
 * memory without a memset per allocation.
 */
#define SPARE_MAX 32

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

/* A thread's kept chunks. */
struct spares {
	struct arena_chunk *head;
	unsigned n;
	struct spares *prev, *next;   /* in all_spares */
};

static _Thread_local struct spares *my_spares;
/*
 * Every thread's, linked from here so that they stay reachable (a leak
 * checker sees the main thread's, which no destructor frees, as kept).
 */
static struct spares *all_spares;
static pthread_mutex_t all_spares_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t spares_key;
static pthread_once_t spares_once = PTHREAD_ONCE_INIT;
static bool spares_ok;         /* the key was made */

/* The thread-exit destructor: the thread's kept chunks freed. */
static void spares_free(void *arg)
{
	struct spares *sp = arg;
	struct arena_chunk *c = sp->head;

	while (c) {
		struct arena_chunk *next;
		next = c->next;
		free(c);
		c = next;
	}
	pthread_mutex_lock(&all_spares_mu);
	if (sp->prev)
		sp->prev->next = sp->next;
	else
		all_spares = sp->next;
	if (sp->next)
		sp->next->prev = sp->prev;
	pthread_mutex_unlock(&all_spares_mu);
	free(sp);
	my_spares = NULL;
}

static void spares_make_key(void)
{
	spares_ok = pthread_key_create(&spares_key, spares_free) == 0;
}

/* This thread's spares, made on first use; NULL if they cannot be. */
static struct spares *thread_spares(void)
{
	struct spares *sp = my_spares;

	if (sp)
		return sp;
	pthread_once(&spares_once, spares_make_key);
	if (!spares_ok)
		return NULL;
	sp = xcalloc(1, sizeof(*sp));
	if (pthread_setspecific(spares_key, sp) != 0) {
		free(sp);
		return NULL;
	}
	pthread_mutex_lock(&all_spares_mu);
	sp->next = all_spares;
	if (all_spares)
		all_spares->prev = sp;
	all_spares = sp;
	pthread_mutex_unlock(&all_spares_mu);
	return my_spares = sp;
}

/* Keep chunk 'c' for this thread's next arenas: false when it is not kept. */
static bool spare_put(struct arena_chunk *c)
{
	struct spares *sp;

	if (c->cap != CHUNK_BYTES || (my_spares && my_spares->n >= SPARE_MAX) ||
	    !(sp = thread_spares()))
		return false;
	memset(c->data, 0, c->used);
	c->next = sp->head;
	sp->head = c;
	sp->n++;
	SPARE_HIDE(c->data, CHUNK_BYTES);   /* the header stays readable: LeakSanitizer follows it */
	return true;
}

/* A zeroed chunk of 'cap' bytes: a kept one for CHUNK_BYTES, else a new one. */
static struct arena_chunk *chunk_new(size_t cap)
{
	struct spares *sp = my_spares;
	struct arena_chunk *c;

	if (cap == CHUNK_BYTES && sp && sp->head) {
		c = sp->head;
		SPARE_SHOW(c->data, CHUNK_BYTES);
		sp->head = c->next;
		sp->n--;
	} else {
		c = xcalloc(1, sizeof(*c) + cap);
	}
	c->used = 0;
	c->cap = cap;
	return c;
}

static size_t align_up(size_t n)
{
	size_t a = alignof(max_align_t);
	return (n + a - 1) / a * a;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = align_up(size ? size : 1);
	void *p;

	if (need < size)
		BUG("arena allocation of %zu bytes overflows", size);
	if (!c || c->cap - c->used < need) {
		size_t cap = need > CHUNK_BYTES ? need : CHUNK_BYTES;
		c = chunk_new(cap);
		if (need > CHUNK_BYTES && a->head) {
			/* keep filling the current chunk: put the big one behind it */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	a->bytes += need;
	return p;                  /* zero: see 'spares' */
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		BUG("arena_calloc(%zu, %zu) overflows", n, size);
	return arena_alloc(a, n * size);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

void *arena_memdup(struct arena *a, const void *src, size_t n)
{
	void *p = arena_alloc(a, n);
	if (n)
		memcpy(p, src, n);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *res;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	res = arena_strndup(a, sb.buf, sb.len);
	strbuf_release(&sb);
	return res;
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		if (!spare_put(c))
			free(c);
		c = next;
	}
	a->head = NULL;
	a->bytes = 0;
}
