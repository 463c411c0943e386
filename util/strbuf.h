/*
 * A growable, always NUL-terminated string (git's strbuf, reduced).
 *
 * The caller owns the struct; strbuf_release() frees the buffer and leaves an
 * empty, reusable strbuf. 'buf' is never NULL after STRBUF_INIT.
 */
#ifndef UTIL_STRBUF_H
#define UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty_[];
#define STRBUF_INIT { 0, 0, strbuf_empty_ }

/* Initialize 'sb' to the empty string, reserving 'hint' bytes (may be 0). */
void strbuf_init(struct strbuf *sb, size_t hint);

/* Make room for 'extra' more bytes plus the terminating NUL. */
void strbuf_grow(struct strbuf *sb, size_t extra);

/* Append 'n' bytes of 'data'. */
void strbuf_add(struct strbuf *sb, const void *data, size_t n);

/* Append the NUL-terminated string 's'. */
void strbuf_addstr(struct strbuf *sb, const char *s);

/* Append one character. */
void strbuf_addch(struct strbuf *sb, int c);

/*
 * Write 'v' in decimal, as "%llu" writes it, into the bytes just before
 * 'end' (at most 20); returns where it starts. No NUL is written.
 */
char *u64_decimal_back(char *end, uint64_t v);

/* Append 'v' in decimal, as "%llu" writes it (without printf). */
void strbuf_add_u64(struct strbuf *sb, uint64_t v);

/* Append the contents of 'other'. */
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);

/* Append printf-formatted text. */
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Make 'sb' hold the printf-formatted text alone; nothing when 'sb' is
 * NULL. How a function below cli/ says why it failed (a non-spec failure:
 * docs/ARCHITECTURE.md, "Failures") into its caller's buffer.
 */
void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append vprintf-formatted text. */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), nonnull(2)));

/* Append 'n' copies of character 'c'. */
void strbuf_addchars(struct strbuf *sb, int c, size_t n);

/* Truncate to 'len' bytes (len <= sb->len). */
void strbuf_setlen(struct strbuf *sb, size_t len);

/* Empty the string, keeping the allocation. */
void strbuf_reset(struct strbuf *sb);

/* Hand the buffer to the caller (who frees it) and reset 'sb'. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Free the buffer; 'sb' becomes an empty strbuf again. */
void strbuf_release(struct strbuf *sb);

/*
 * The length in bytes (1 to 4) of the well-formed UTF-8 character at 's'
 * (RFC 3629: shortest form, no surrogates, at most U+10FFFF), or 0 when
 * the bytes there are not one (or 's' is at its NUL). Its code point goes
 * to '*cp' (may be NULL).
 */
size_t strbuf_utf8_len(const char *s, unsigned long *cp);

#endif
