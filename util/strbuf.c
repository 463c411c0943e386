#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

char strbuf_empty_[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = strbuf_empty_;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	if (!sb->alloc) {
		sb->buf = NULL;
	}
	{
		size_t n = sb->alloc ? sb->alloc : 64;
		while (n < need)
			n *= 2;
		sb->buf = xrealloc(sb->buf, n);
		sb->alloc = n;
	}
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

char *u64_decimal_back(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	return end;
}

void strbuf_add_u64(struct strbuf *sb, uint64_t v)
{
	char buf[20], *e = buf + sizeof(buf), *d = u64_decimal_back(e, v);

	strbuf_add(sb, d, (size_t)(e - d));
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed for format '%s'", fmt);
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	if (!sb)
		return;
	strbuf_reset(sb);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_addchars(struct strbuf *sb, int c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		BUG("strbuf_setlen(%zu) beyond length %zu", len, sb->len);
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;
	if (!sb->alloc)
		strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}

size_t strbuf_utf8_len(const char *s, unsigned long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long c, min;
	size_t n, i;

	if (u[0] == 0)
		return 0;
	if (u[0] < 0x80) {
		n = 1, c = u[0], min = 0;
	} else if ((u[0] & 0xe0) == 0xc0) {
		n = 2, c = u[0] & 0x1f, min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		n = 3, c = u[0] & 0x0f, min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		n = 4, c = u[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (cp)
		*cp = c;
	return n;
}
