/*
 * Tensor files for actual-data densities: Matrix Market (.mtx: coordinate or
 * array; real, integer or pattern; general, symmetric or skew-symmetric) and
 * dense text (one row per line, whitespace-separated values, '#' comments).
 * Only non-zero values are kept (an explicit zero is an absent entry);
 * entries are sorted by row, then column. Every problem is a diagnostic at
 * "file:line:col" (the word at fault, or the end of the file when something
 * is missing); nothing is returned then.
 */
#include "specs/spec.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_EXTENT (UINT64_C(1) << 31)

struct entry {
	uint64_t row, col;
	double value;
	unsigned line, column;         /* where the entry starts */
};

struct mreader {
	const char *path;
	unsigned shape_line;           /* line that fixes the shape */
	unsigned shape_col[2];         /* column of each extent on it */
	unsigned count_col;            /* column of the number of entries on it */
	struct diag_list *dl;
	char *text;
	char *cur;                     /* start of the next line */
	char *line_start;              /* the line last returned (NULL before the first) */
	unsigned line;                 /* number of the line last returned */
	struct entry *ents;
	size_t n, alloc;
	bool failed;
};

static int merr(struct mreader *r, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int merr(struct mreader *r, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(r->dl, (struct diag_loc){ r->path, line, col }, fmt, ap);
	va_end(ap);
	r->failed = true;
	return -1;
}

/* The 1-based column of 'at', a position in the line last returned. */
static unsigned col_of(const struct mreader *r, const char *at)
{
	return r->line_start && at >= r->line_start ? (unsigned)(at - r->line_start) + 1 : 1;
}

/* The column just past the end of the line last returned (where more was expected). */
static unsigned end_col(const struct mreader *r)
{
	return r->line_start ? (unsigned)strlen(r->line_start) + 1 : 1;
}

/* An error at 'at' in the line last returned. */
#define MERR_AT(r, at, ...) merr((r), (r)->line, col_of((r), (at)), __VA_ARGS__)
/* An error at the end of the line last returned (the end of the file, when none follows). */
#define MERR_END(r, ...) merr((r), (r)->line ? (r)->line : 1, end_col(r), __VA_ARGS__)

/* The next line (NUL-terminated, without its newline), or NULL at the end. */
static char *next_line(struct mreader *r)
{
	char *s = r->cur, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		r->cur = nl + 1;
	} else {
		r->cur = s + strlen(s);
	}
	if (nl && nl > s && nl[-1] == '\r')
		nl[-1] = '\0';
	r->line++;
	r->line_start = s;
	return s;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* Parse one unsigned integer token at *s; -1 with a message when it is not one. */
static int parse_index(struct mreader *r, char **s, const char *what, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!**s)
		return MERR_AT(r, *s, "expected %s", what);
	errno = 0;
	v = strtoull(*s, &end, 10);
	if (end == *s || (*end && !isspace((unsigned char)*end)) || errno || **s == '-')
		return MERR_AT(r, *s, "expected %s, found '%.*s'", what,
			       (int)strcspn(*s, " \t"), *s);
	*s = end;
	*out = v;
	return 0;
}

static int parse_value(struct mreader *r, char **s, double *out)
{
	char *end;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!**s)
		return MERR_AT(r, *s, "expected a value");
	errno = 0;
	*out = strtod(*s, &end);
	if (end == *s || (*end && !isspace((unsigned char)*end)) || errno)
		return MERR_AT(r, *s, "'%.*s' is not a number", (int)strcspn(*s, " \t"), *s);
	*s = end;
	return 0;
}

static int expect_end(struct mreader *r, char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return MERR_AT(r, s, "unexpected '%s' after the entry", s);
	return 0;
}

/* Add entry (row, col) = v, which starts at column 'column' of the current line. */
static void add_entry(struct mreader *r, uint64_t row, uint64_t col, double v, unsigned column)
{
	if (v == 0)
		return;
	XGROW(r->ents, r->n + 1, r->alloc);
	r->ents[r->n++] = (struct entry){ row, col, v, r->line, column };
}

/* --------------------------------------------------------- Matrix Market */

enum mm_format { MM_COORDINATE, MM_ARRAY };
enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN };
enum mm_sym { MM_GENERAL, MM_SYMMETRIC, MM_SKEW };

struct mm_header {
	enum mm_format format;
	enum mm_field field;
	enum mm_sym sym;
};

/* Index of 'word' in 'names' (case-insensitive), or -1. */
static int word_index(const char *word, const char *const *names, int n)
{
	int i;
	for (i = 0; i < n; i++)
		if (!strcasecmp(word, names[i]))
			return i;
	return -1;
}

static int parse_header(struct mreader *r, char *line, struct mm_header *h)
{
	static const char *const formats[] = { "coordinate", "array" };
	static const char *const fields[] = { "real", "integer", "pattern" };
	static const char *const syms[] = { "general", "symmetric", "skew-symmetric" };
	char *w[6] = { NULL }, *save = NULL, *tok;
	int n = 0, v;

	for (tok = strtok_r(line, " \t", &save); tok && n < 6; tok = strtok_r(NULL, " \t", &save))
		w[n++] = tok;
	if (n < 1 || strcasecmp(w[0], "%%MatrixMarket"))
		return MERR_AT(r, n ? w[0] : line, "not a Matrix Market file: the first line must "
			       "start with '%%%%MatrixMarket'");
	if (n != 5)
		return MERR_AT(r, n > 5 ? w[5] : w[n - 1] + strlen(w[n - 1]), "the header needs 4 "
			       "words after '%%%%MatrixMarket' (object, format, field, symmetry), "
			       "found %d", n - 1);
	if (strcasecmp(w[1], "matrix"))
		return MERR_AT(r, w[1], "unknown object '%s' (expected 'matrix')", w[1]);
	if ((v = word_index(w[2], formats, 2)) < 0)
		return MERR_AT(r, w[2], "unknown format '%s' (expected 'coordinate' or 'array')",
			       w[2]);
	h->format = (enum mm_format)v;
	if ((v = word_index(w[3], fields, 3)) < 0)
		return MERR_AT(r, w[3], "unsupported field '%s' (expected 'real', 'integer' or "
			       "'pattern')", w[3]);
	h->field = (enum mm_field)v;
	if ((v = word_index(w[4], syms, 3)) < 0)
		return MERR_AT(r, w[4], "unsupported symmetry '%s' (expected 'general', "
			       "'symmetric' or 'skew-symmetric')", w[4]);
	h->sym = (enum mm_sym)v;
	if (h->format == MM_ARRAY && h->field == MM_PATTERN)
		return MERR_AT(r, w[3], "an 'array' file cannot have the 'pattern' field");
	return 0;
}

/* The first line that is neither a comment nor blank, or NULL. */
static char *data_line(struct mreader *r)
{
	char *s;
	while ((s = next_line(r)))
		if (s[0] != '%' && !blank(s))
			return s;
	return NULL;
}

static int parse_size(struct mreader *r, const struct mm_header *h, uint64_t *rows,
		      uint64_t *cols, uint64_t *count)
{
	char *s = data_line(r);
	const char *what = h->format == MM_COORDINATE ? "the size line 'rows columns entries'"
						      : "the size line 'rows columns'";

	char *start = s;

	if (!s)
		return MERR_END(r, "expected %s", what);
	while (isspace((unsigned char)*s))
		s++;
	r->shape_col[0] = col_of(r, s);
	if (parse_index(r, &s, "the number of rows", rows) < 0)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	r->shape_col[1] = col_of(r, s);
	if (parse_index(r, &s, "the number of columns", cols) < 0)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	r->count_col = col_of(r, s);
	if (h->format == MM_COORDINATE && parse_index(r, &s, "the number of entries", count) < 0)
		return -1;
	if (expect_end(r, s) < 0)
		return -1;
	r->shape_line = r->line;
	if (!*rows || !*cols || *rows > MAX_EXTENT || *cols > MAX_EXTENT)
		return MERR_AT(r, start, "a %llux%llu matrix is not supported",
			       (unsigned long long)*rows, (unsigned long long)*cols);
	if (h->sym != MM_GENERAL && *rows != *cols)
		return MERR_AT(r, start, "a %s matrix must be square, not %llux%llu",
			       h->sym == MM_SYMMETRIC ? "symmetric" : "skew-symmetric",
			       (unsigned long long)*rows, (unsigned long long)*cols);
	if (h->format == MM_ARRAY)
		*count = h->sym == MM_GENERAL ? *rows * *cols
			 : h->sym == MM_SYMMETRIC ? *rows * (*rows + 1) / 2
						  : *rows * (*rows - 1) / 2;
	return 0;
}

static void add_symmetric(struct mreader *r, const struct mm_header *h, uint64_t i, uint64_t j,
			  double v, unsigned column)
{
	add_entry(r, i, j, v, column);
	if (h->sym != MM_GENERAL && i != j)
		add_entry(r, j, i, h->sym == MM_SKEW ? -v : v, column);
}

static int read_coordinate(struct mreader *r, const struct mm_header *h, uint64_t rows,
			   uint64_t cols, uint64_t count)
{
	uint64_t k, i, j;
	double v = 1;
	char *s, *row_at, *col_at;

	for (k = 0; k < count; k++) {
		if (!(s = data_line(r)))
			return MERR_END(r, "expected %llu entries, found %llu",
					(unsigned long long)count, (unsigned long long)k);
		row_at = s + strspn(s, " \t");
		if (parse_index(r, &s, "a row index", &i) < 0)
			return -1;
		col_at = s + strspn(s, " \t");
		if (parse_index(r, &s, "a column index", &j) < 0)
			return -1;
		if (h->field != MM_PATTERN && parse_value(r, &s, &v) < 0)
			return -1;
		if (expect_end(r, s) < 0)
			return -1;
		if (i < 1 || i > rows)
			return MERR_AT(r, row_at, "row index %llu is out of range 1..%llu",
				       (unsigned long long)i, (unsigned long long)rows);
		if (j < 1 || j > cols)
			return MERR_AT(r, col_at, "column index %llu is out of range 1..%llu",
				       (unsigned long long)j, (unsigned long long)cols);
		if (h->sym != MM_GENERAL && j > i)
			return MERR_AT(r, row_at, "entry (%llu, %llu) is above the diagonal of a %s "
				       "matrix", (unsigned long long)i, (unsigned long long)j,
				       h->sym == MM_SYMMETRIC ? "symmetric" : "skew-symmetric");
		if (h->sym == MM_SKEW && i == j)
			return MERR_AT(r, row_at, "a skew-symmetric matrix has no diagonal entries");
		add_symmetric(r, h, i - 1, j - 1, v, col_of(r, row_at));
	}
	if ((s = data_line(r)))
		return MERR_AT(r, s + strspn(s, " \t"), "more entries than the %llu declared",
			       (unsigned long long)count);
	return 0;
}

/* Array files list values column by column (the lower triangle if symmetric). */
static int read_array(struct mreader *r, const struct mm_header *h, uint64_t rows,
		      uint64_t cols, uint64_t count)
{
	uint64_t k = 0, i, j;
	double v;
	char *s;

	for (j = 0; j < cols; j++) {
		for (i = h->sym == MM_GENERAL ? 0 : h->sym == MM_SYMMETRIC ? j : j + 1; i < rows; i++) {
			if (!(s = data_line(r)))
				return MERR_END(r, "expected %llu values, found %llu",
						(unsigned long long)count, (unsigned long long)k);
			if (parse_value(r, &s, &v) < 0 || expect_end(r, s) < 0)
				return -1;
			add_symmetric(r, h, i, j, v, col_of(r, r->line_start));
			k++;
		}
	}
	if ((s = data_line(r)))
		return MERR_AT(r, s + strspn(s, " \t"), "more values than the %llu declared",
			       (unsigned long long)count);
	return 0;
}

static int read_mtx(struct mreader *r, uint64_t *rows, uint64_t *cols)
{
	struct mm_header h;
	uint64_t count = 0;
	char *first = next_line(r);

	if (!first)
		return merr(r, 1, 1, "not a Matrix Market file: the file is empty");
	if (parse_header(r, first, &h) < 0 || parse_size(r, &h, rows, cols, &count) < 0)
		return -1;
	if (h.format == MM_COORDINATE && count > *rows * *cols)
		return merr(r, r->line, r->count_col, "%llu entries do not fit a %llux%llu matrix",
			    (unsigned long long)count, (unsigned long long)*rows,
			    (unsigned long long)*cols);
	if (h.format == MM_COORDINATE)
		return read_coordinate(r, &h, *rows, *cols, count);
	return read_array(r, &h, *rows, *cols, count);
}

/* ------------------------------------------------------------ dense text */

static int read_dense(struct mreader *r, uint64_t *rows, uint64_t *cols)
{
	unsigned first_line = 0;
	uint64_t row = 0;
	char *s;

	*cols = 0;
	while ((s = next_line(r))) {
		uint64_t n = 0;
		char *hash = strchr(s, '#');
		double v;
		if (hash)
			*hash = '\0';
		if (blank(s))
			continue;
		while (!blank(s)) {
			unsigned at;
			s += strspn(s, " \t");
			at = col_of(r, s);
			if (parse_value(r, &s, &v) < 0)
				return -1;
			add_entry(r, row, n++, v, at);
		}
		if (!*cols) {
			*cols = n;
			first_line = r->line;
			r->shape_line = r->line;
			r->shape_col[0] = r->shape_col[1] = col_of(r, r->line_start +
								    strspn(r->line_start, " \t"));
		} else if (n != *cols) {
			return MERR_AT(r, r->line_start + strspn(r->line_start, " \t"),
				       "this row has %llu values, the first row (line %u) has %llu",
				       (unsigned long long)n, first_line, (unsigned long long)*cols);
		}
		row++;
	}
	if (!row)
		return MERR_END(r, "no values: a dense text file has one row of values per line");
	*rows = row;
	return 0;
}

/* ----------------------------------------------------------------- result */

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int check_duplicates(struct mreader *r)
{
	size_t i;
	for (i = 1; i < r->n; i++)
		if (r->ents[i].row == r->ents[i - 1].row && r->ents[i].col == r->ents[i - 1].col)
			return merr(r, r->ents[i].line, r->ents[i].column, "duplicate entry (%llu, "
				    "%llu); the first is at line %u", (unsigned long long)r->ents[i].row + 1,
				    (unsigned long long)r->ents[i].col + 1, r->ents[i - 1].line);
	return 0;
}

static bool is_mtx(const char *path, const char *text)
{
	size_t n = strlen(path);
	return !strncasecmp(text, "%%MatrixMarket", 14) || (n > 4 && !strcasecmp(path + n - 4, ".mtx"));
}

static const struct spec_matrix *build(struct arena *a, struct mreader *r, uint64_t rows,
				       uint64_t cols)
{
	struct spec_matrix *m = arena_alloc(a, sizeof(*m));
	uint64_t *coords = arena_calloc(a, 2 * r->n + 1, sizeof(*coords));
	double *values = arena_calloc(a, r->n + 1, sizeof(*values));
	size_t i;

	m->file = arena_strdup(a, r->path);
	m->n_ranks = 2;
	m->shape[0] = rows;
	m->shape[1] = cols;
	m->nnz = r->n;
	m->shape_line = r->shape_line;
	m->shape_col[0] = r->shape_col[0];
	m->shape_col[1] = r->shape_col[1];
	for (i = 0; i < r->n; i++) {
		coords[2 * i] = r->ents[i].row;
		coords[2 * i + 1] = r->ents[i].col;
		values[i] = r->ents[i].value;
	}
	m->coords = coords;
	m->values = values;
	return m;
}

const struct spec_matrix *spec_matrix_parse(struct arena *a, const char *name, const char *text,
					    size_t len, struct diag_list *dl)
{
	struct strbuf copy = STRBUF_INIT;
	struct mreader r = { .path = name, .dl = dl };
	const struct spec_matrix *m = NULL;
	uint64_t rows = 0, cols = 0;
	int rc;

	strbuf_add(&copy, text, len);   /* NUL-terminated, whatever the input holds */
	r.text = copy.buf;
	r.cur = copy.buf;
	rc = is_mtx(name, copy.buf) ? read_mtx(&r, &rows, &cols) : read_dense(&r, &rows, &cols);
	if (rc == 0) {
		if (r.n > 1)    /* r.ents is NULL without entries */
			qsort(r.ents, r.n, sizeof(*r.ents), cmp_entry);
		rc = check_duplicates(&r);
	}
	if (rc == 0 && !r.failed)
		m = build(a, &r, rows, cols);
	free(r.ents);
	strbuf_release(&copy);
	return m;
}

int spec_matrix_check_shape(const struct spec_matrix *m, const char *file,
			    const struct spec_tensor *t, struct diag_list *dl)
{
	unsigned r;

	if (m->n_ranks != t->n_ranks)
		return diag_error(dl, (struct diag_loc){ file, m->shape_line, 1 }, "data space '%s' "
				  "has %u rank%s; this file gives %u", t->name, t->n_ranks,
				  t->n_ranks == 1 ? "" : "s", m->n_ranks);
	for (r = 0; r < m->n_ranks; r++)
		if (m->shape[r] != t->rank_extent[r])
			return diag_error(dl, (struct diag_loc){ file, m->shape_line,
								 r < 2 ? m->shape_col[r] : 1 },
					  "rank %u has %llu coordinates; data space '%s' needs %llu "
					  "(its projection)", r, (unsigned long long)m->shape[r],
					  t->name, (unsigned long long)t->rank_extent[r]);
	return 0;
}

const struct spec_matrix *spec_matrix_load(struct arena *a, const char *path,
					   struct diag_list *dl)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const struct spec_matrix *m = NULL;

	if (fileio_read(path, &text, &err) < 0)
		diag_error(dl, (struct diag_loc){ path, 0, 0 }, "%s", err.buf);
	else
		m = spec_matrix_parse(a, path, text.buf, text.len, dl);
	strbuf_release(&text);
	strbuf_release(&err);
	return m;
}
