/*
 * Diagnostics: messages about user input, each tied to a place in a file.
 *
 * Library code appends to a caller-owned 'struct diag_list' and goes on
 * checking; diag_error() returns -1 so that "return diag_error(...)" reads as
 * git's "return error(...)". Nothing in this module exits; only cli/ prints
 * (diag_print) and decides the exit code. Locations are 1-based; 0 means
 * unknown. 'diag_loc.file' is borrowed: print before freeing its owner.
 */
#ifndef UTIL_DIAG_H
#define UTIL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

/* Default cap on the errors kept in a list; later ones are only counted. */
#define DIAG_DEFAULT_MAX_ERRORS 50

struct diag_loc {
	const char *file; /* borrowed; NULL when the message has no file */
	unsigned line;    /* 1-based; 0 = unknown */
	unsigned col;     /* 1-based; 0 = unknown */
};

#define DIAG_LOC_NONE ((struct diag_loc){ NULL, 0, 0 })

struct diag {
	enum diag_severity severity;
	struct diag_loc loc;
	char *message; /* owned */
};

/* An object the list keeps alive for its diagnostics (see diag_list_keep). */
struct diag_kept {
	void (*release)(void *obj);
	void *obj;
};

struct diag_list {
	struct diag *items;
	size_t n, alloc;
	unsigned n_errors;     /* every error reported, kept or not */
	unsigned n_warnings;
	unsigned max_errors;   /* 0 = DIAG_DEFAULT_MAX_ERRORS */
	bool dropping;         /* the last error was over the cap: drop its notes */
	struct diag_kept *kept;        /* released by diag_list_release() */
	size_t n_kept, alloc_kept;
};

#define DIAG_LIST_INIT { NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0 }

/* Record an error at 'loc'. Always returns -1. */
int diag_error(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* va_list form of diag_error(). Returns -1. */
int diag_verror(struct diag_list *dl, struct diag_loc loc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0), nonnull(3)));

/* Record a warning at 'loc'. */
void diag_warning(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Attach a note (context for the previous error or warning) at 'loc'. */
void diag_note(struct diag_list *dl, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a copy of 'd' (same severity and message) at 'loc'. */
void diag_copy(struct diag_list *dl, const struct diag *d, struct diag_loc loc);

/* True when at least one error was recorded. */
bool diag_has_errors(const struct diag_list *dl);

/*
 * Print every kept diagnostic in GNU form, "file:line:col: error: message",
 * then, if errors were dropped over the cap, a line saying how many.
 */
void diag_print(const struct diag_list *dl, FILE *fp);

/*
 * Keep 'obj' alive as long as the list: diag_list_release() calls
 * release(obj). For the owner of strings that diagnostics borrow (file
 * names) when the owner would otherwise go before they are printed.
 */
void diag_list_keep(struct diag_list *dl, void (*release)(void *obj), void *obj);

/*
 * A copy of 's' that lives as long as the list: for file names that
 * diagnostics borrow when their owner may go before they are printed.
 */
const char *diag_list_strdup(struct diag_list *dl, const char *s);

/* Free every message (and what diag_list_keep() kept); 'dl' becomes empty and reusable. */
void diag_list_release(struct diag_list *dl);

/*
 * The candidate closest to 'word' for a "did you mean" hint, or NULL when
 * none is close enough (edit distance at most max(1, len/3), case and the
 * '-'/'_' spelling ignored). 'cands' may hold NULL entries, which are skipped.
 */
const char *diag_suggest(const char *word, const char *const *cands, size_t n_cands);

/* Damerau-Levenshtein (optimal string alignment) distance, case-insensitive. */
size_t diag_edit_distance(const char *a, const char *b);

#endif
