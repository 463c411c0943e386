#include "util/diag.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const severity_names[] = {
	[DIAG_ERROR] = "error",
	[DIAG_WARNING] = "warning",
	[DIAG_NOTE] = "note",
};

static unsigned max_errors(const struct diag_list *dl)
{
	return dl->max_errors ? dl->max_errors : DIAG_DEFAULT_MAX_ERRORS;
}

/* Append a diagnostic of 'sev' with the formatted message. */
static void push(struct diag_list *dl, enum diag_severity sev, struct diag_loc loc,
		 const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	struct diag *d;

	strbuf_vaddf(&sb, fmt, ap);
	XGROW(dl->items, dl->n + 1, dl->alloc);
	d = &dl->items[dl->n++];
	d->severity = sev;
	d->loc = loc;
	d->message = strbuf_detach(&sb, NULL);
}

int diag_verror(struct diag_list *dl, struct diag_loc loc, const char *fmt, va_list ap)
{
	dl->n_errors++;
	dl->dropping = dl->n_errors > max_errors(dl);
	if (!dl->dropping)
		push(dl, DIAG_ERROR, loc, fmt, ap);
	return -1;
}

int diag_error(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(dl, loc, fmt, ap);
	va_end(ap);
	return -1;
}

void diag_warning(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;
	dl->n_warnings++;
	dl->dropping = false;
	va_start(ap, fmt);
	push(dl, DIAG_WARNING, loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;
	if (dl->dropping)
		return;
	va_start(ap, fmt);
	push(dl, DIAG_NOTE, loc, fmt, ap);
	va_end(ap);
}

void diag_copy(struct diag_list *dl, const struct diag *d, struct diag_loc loc)
{
	if (d->severity == DIAG_ERROR)
		diag_error(dl, loc, "%s", d->message);
	else if (d->severity == DIAG_WARNING)
		diag_warning(dl, loc, "%s", d->message);
	else
		diag_note(dl, loc, "%s", d->message);
}

bool diag_has_errors(const struct diag_list *dl)
{
	return dl->n_errors > 0;
}

/* Print the "file:line:col: " prefix of 'loc' (nothing for an unknown file). */
static void print_loc(FILE *fp, struct diag_loc loc)
{
	if (!loc.file)
		return;
	fputs(loc.file, fp);
	if (loc.line) {
		fprintf(fp, ":%u", loc.line);
		if (loc.col)
			fprintf(fp, ":%u", loc.col);
	}
	fputs(": ", fp);
}

void diag_print(const struct diag_list *dl, FILE *fp)
{
	size_t i;
	for (i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		print_loc(fp, d->loc);
		fprintf(fp, "%s: %s\n", severity_names[d->severity], d->message);
	}
	if (dl->n_errors > max_errors(dl))
		fprintf(fp, "error: too many errors (%u); only the first %u are shown\n",
			dl->n_errors, max_errors(dl));
}

void diag_list_keep(struct diag_list *dl, void (*release)(void *obj), void *obj)
{
	XGROW(dl->kept, dl->n_kept + 1, dl->alloc_kept);
	dl->kept[dl->n_kept].release = release;
	dl->kept[dl->n_kept].obj = obj;
	dl->n_kept++;
}

const char *diag_list_strdup(struct diag_list *dl, const char *s)
{
	char *copy = xstrdup(s);
	diag_list_keep(dl, free, copy);
	return copy;
}

void diag_list_release(struct diag_list *dl)
{
	size_t i;
	for (i = 0; i < dl->n; i++)
		free(dl->items[i].message);
	free(dl->items);
	for (i = dl->n_kept; i-- > 0;)
		dl->kept[i].release(dl->kept[i].obj);
	free(dl->kept);
	*dl = (struct diag_list)DIAG_LIST_INIT;
}

/* Fold case and treat '-' as '_' so that spellings compare as Timeloop's do. */
static int fold(int c)
{
	if (c == '-')
		return '_';
	return tolower((unsigned char)c);
}

size_t diag_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, res;
	size_t *d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = fold(a[i - 1]) != fold(b[j - 1]);
			size_t best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
			    fold(a[i - 2]) == fold(b[j - 1]) && D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	res = D(la, lb);
#undef D
	free(d);
	return res;
}

const char *diag_suggest(const char *word, const char *const *cands, size_t n_cands)
{
	size_t len = strlen(word), limit = len / 3 > 1 ? len / 3 : 1, best = (size_t)-1, i;
	const char *pick = NULL;

	for (i = 0; i < n_cands; i++) {
		size_t dist;
		if (!cands[i])
			continue;
		dist = diag_edit_distance(word, cands[i]);
		if (dist < best) {
			best = dist;
			pick = cands[i];
		}
	}
	return best <= limit ? pick : NULL;
}
