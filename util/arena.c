#include "util/arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#define CHUNK_BYTES 65536

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

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
		c = xmalloc(sizeof(*c) + cap);
		c->used = 0;
		c->cap = cap;
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
	memset(p, 0, size);
	return p;
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
		free(c);
		c = next;
	}
	a->head = NULL;
	a->bytes = 0;
}
