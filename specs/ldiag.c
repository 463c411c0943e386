/*
 * The loader's diagnostics: key paths ("architecture.subtree[0].local[2]")
 * and errors, warnings and notes located at a node, below every section
 * parser and reader.
 */
#include "specs/specs_int.h"

#include <stdarg.h>
#include <string.h>

#include "util/strbuf.h"

/* Write index 'v' as rendered ("[12]", "[-1]") just before 'end'; returns where it starts. */
static char *index_back(char *end, long v)
{
	*--end = ']';
	end = u64_decimal_back(end, v < 0 ? 0UL - (unsigned long)v : (unsigned long)v);
	if (v < 0)
		*--end = '-';
	*--end = '[';
	return end;
}

void ld_kpath_render(const struct kpath *p, struct strbuf *sb)
{
	if (!p)
		return;
	ld_kpath_render(p->up, sb);
	if (p->key) {
		if (p->up)
			strbuf_addch(sb, '.');
		strbuf_addstr(sb, p->key);
	} else {
		/* by hand: a printf per index was most of a model run's path rendering */
		char buf[24], *e = buf + sizeof(buf), *d = index_back(e, p->index);

		strbuf_add(sb, d, (size_t)(e - d));
	}
}

/* The characters of index 'v' as rendered ("[12]", "[-1]"). */
static size_t index_len(long v)
{
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	size_t n = 2 + (v < 0);

	do
		n++;
	while ((u /= 10) != 0);
	return n;
}

/*
 * Rendered straight into the arena, from the end back (a path is rendered
 * for every component entry a build reads, whether or not a message needs
 * it: no strbuf, no malloc).
 */
const char *ld_kpath_strdup(struct ld *ld, const struct kpath *p)
{
	const struct kpath *q;
	size_t len = 0;
	char *r, *d;

	for (q = p; q; q = q->up)
		len += q->key ? strlen(q->key) + (q->up != NULL) : index_len(q->index);
	r = arena_alloc(ld->a, len + 1);
	d = r + len;
	*d = '\0';
	for (q = p; q; q = q->up) {
		if (q->key) {
			size_t k = strlen(q->key);
			d -= k;
			memcpy(d, q->key, k);
			if (q->up)
				*--d = '.';
		} else {
			d = index_back(d, q->index);
		}
	}
	return r;
}

/* Format "in 'PATH': MESSAGE" into 'sb'. */
static void format_msg(struct strbuf *sb, const struct kpath *p, const char *fmt, va_list ap)
{
	if (p) {
		strbuf_addstr(sb, "in '");
		ld_kpath_render(p, sb);
		strbuf_addstr(sb, "': ");
	}
	strbuf_vaddf(sb, fmt, ap);
}

int ld_error_at(struct ld *ld, struct diag_loc loc, const struct kpath *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	format_msg(&sb, p, fmt, ap);
	va_end(ap);
	diag_error(ld->dl, loc, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int ld_error(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	format_msg(&sb, p, fmt, ap);
	va_end(ap);
	diag_error(ld->dl, n ? n->loc : DIAG_LOC_NONE, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

void ld_warning(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	format_msg(&sb, p, fmt, ap);
	va_end(ap);
	diag_warning(ld->dl, n ? n->loc : DIAG_LOC_NONE, "%s", sb.buf);
	strbuf_release(&sb);
}

void ld_note(struct ld *ld, struct diag_loc loc, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_note(ld->dl, loc, "%s", sb.buf);
	strbuf_release(&sb);
}

const char *ld_intern(struct ld *ld, const char *s)
{
	return diag_list_strdup(ld->dl_out ? ld->dl_out : ld->dl, s);
}

void ld_add_hint(struct strbuf *sb, const char *word, const char *const *cands, size_t n)
{
	const char *hint = diag_suggest(word, cands, n);
	if (hint)
		strbuf_addf(sb, "; did you mean '%s'?", hint);
}

struct diag_loc ld_design_loc(const struct ld *ld)
{
	const struct spec_source *src = ld->s->source;
	if (src && src->first_root.file)
		return src->first_root;
	return ld->s->n_files ? (struct diag_loc){ ld->s->files[0], 1, 1 } : DIAG_LOC_NONE;
}
