/*
 * Sweep axes: "[NAME:]PATH[,PATH...]=V1,V2,..." where each Vi is a YAML
 * flow value or a range A:B:STEP (+D or D adds D, xF or *F multiplies by
 * F; integer ranges stay integers), each PATH a path of the override
 * language (docs/yaml-reference.md, "Overrides"). Every value of the axis
 * is set at every one of its paths. Diagnostics are located in the axis
 * text, as "--axis 'TEXT':1:COL".
 */
#include "job/job_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* Refuse an axis (or a sweep) with more values than this: a range gone wrong. */
#define AXIS_MAX_VALUES 1000000

static int __attribute__((format(printf, 4, 5)))
axis_error(struct diag_list *dl, const struct job_axis *ax, size_t off, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_error(dl, (struct diag_loc){ ax->origin, 1, (unsigned)off + 1 }, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * Offset of the first 'c' in s[0..n) outside brackets, braces and quotes,
 * or n.
 */
static size_t find_top(const char *s, size_t n, char c)
{
	int depth = 0;
	char quote = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == c && depth == 0)
			return i;
		if (s[i] == '"' || s[i] == '\'')
			quote = s[i];
		else if (s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
	}
	return n;
}

/* s[*off .. *off + *n) without blanks at either end. */
static void trim(const char *s, size_t *off, size_t *n)
{
	while (*n && isspace((unsigned char)s[*off])) {
		(*off)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)s[*off + *n - 1]))
		(*n)--;
}

/* Add value 'v' (column 'label'; NULL: 'v'), written at offset 'off' of the axis. */
static void add_labelled(struct job_axis *ax, const char *label, const char *v, size_t off)
{
	XGROW(ax->values, ax->n_values + 1, ax->alloc_values);
	XGROW(ax->set_values, ax->n_values + 1, ax->alloc_set_values);
	XGROW(ax->value_offs, ax->n_values + 1, ax->alloc_value_offs);
	ax->value_offs[ax->n_values] = off;
	ax->set_values[ax->n_values] = arena_strdup(&ax->arena, v);
	ax->values[ax->n_values] = label ? arena_strdup(&ax->arena, label) :
					   ax->set_values[ax->n_values];
	ax->n_values++;
}

/* Add value 'v', written at offset 'off' of the axis (a range's values: at the range). */
static void add_value(struct job_axis *ax, const char *v, size_t off)
{
	add_labelled(ax, NULL, v, off);
}

static bool is_name(const char *s, size_t n);

/*
 * The length of LABEL in "LABEL=VALUE" at s[0..n), or 0: not a labelled
 * value. A VALUE that starts as a number is not one (a factor list "K=4 N=2"
 * is a value), nor is a LABEL that is not a name.
 */
static size_t label_len(const char *s, size_t n)
{
	size_t eq = find_top(s, n, '='), i;

	if (eq == n || eq == 0 || !is_name(s, eq))
		return 0;
	for (i = eq + 1; i < n && s[i] == ' '; i++)
		;
	if (i < n && (isdigit((unsigned char)s[i]) || ((s[i] == '-' || s[i] == '+' || s[i] == '.') &&
	    i + 1 < n && isdigit((unsigned char)s[i + 1]))))
		return 0;
	return eq;
}

/* True when s[0..n) is an integer: an optional sign and digits. */
static bool is_int_text(const char *s, size_t n)
{
	size_t i = n && (*s == '-' || *s == '+') ? 1 : 0;
	if (i == n)
		return false;
	for (; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* s[0..n) as a finite number. */
static bool number_of(const char *s, size_t n, double *out)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return !*end && errno != ERANGE && isfinite(*out) && !isspace((unsigned char)*buf);
}

/* One part of a range: its text and offset in the axis. */
struct part {
	const char *s;
	size_t off, n;
};

/*
 * The number of values of the integer range 'a':'b' stepping by 'step'
 * (added) or 'step' as a factor (when 'geometric'), or 0 when it never
 * reaches its end. The range stops before a value would pass the 64-bit
 * integers.
 */
static uint64_t int_range_count(int64_t a, int64_t b, bool geometric, int64_t step)
{
	uint64_t n = 1;
	int64_t v = a;

	if (geometric ? (step < 2 || a <= 0 || a > b) : (step == 0 || (step > 0 ? a > b : a < b)))
		return 0;
	if (!geometric)
		return step > 0 ? ((uint64_t)b - (uint64_t)a) / (uint64_t)step + 1
				: ((uint64_t)a - (uint64_t)b) / (UINT64_C(0) - (uint64_t)step) + 1;
	while (v <= b / step) {
		v *= step;
		n++;
	}
	return n;
}

/* Append the 'n' values of the integer range from 'a' (see int_range_count()). */
static void int_range(struct job_axis *ax, const struct part *p, int64_t a, bool geometric,
		      int64_t step, uint64_t n)
{
	char buf[32];
	int64_t v = a;
	uint64_t i;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%lld", (long long)v);
		add_value(ax, buf, p[0].off);
		if (i + 1 < n)
			v = geometric ? v * step : v + step;
	}
}

/*
 * The number of values of the real range 'a':'b' by 'step' into '*n', or
 * -1 with an error when it never reaches its end.
 */
static int real_range_count(struct job_axis *ax, const struct part *p, double a, double b,
			    bool geometric, double step, uint64_t *n, struct diag_list *dl)
{
	double n_steps;

	if (geometric) {
		if (!(step > 1) || !(a > 0) || a > b)
			return axis_error(dl, ax, p[0].off, "range '%.*s' never reaches its end "
					  "(a geometric range needs 0 < A <= B and a factor above 1)",
					  (int)(p[2].off + p[2].n - p[0].off), p[0].s);
		n_steps = log(b / a) / log(step);
	} else {
		if (step == 0 || (step > 0 ? a > b : a < b))
			return axis_error(dl, ax, p[0].off, "range '%.*s' never reaches its end",
					  (int)(p[2].off + p[2].n - p[0].off), p[0].s);
		n_steps = (b - a) / step;
	}
	*n = n_steps + 1 > AXIS_MAX_VALUES ? (uint64_t)AXIS_MAX_VALUES + 1
					   : (uint64_t)floor(n_steps + 1e-9) + 1;
	return 0;
}

/* Append the 'n' values of a real range (%.12g: what a person would have typed). */
static void real_range(struct job_axis *ax, const struct part *p, double a, bool geometric,
		       double step, uint64_t n)
{
	char buf[40];
	uint64_t i;

	for (i = 0; i < n; i++) {
		double v = geometric ? a * pow(step, (double)i) : a + (double)i * step;
		snprintf(buf, sizeof(buf), "%.12g", v);
		add_value(ax, buf, p[0].off);
	}
}

/*
 * Integer text s[0..n) (is_int_text()) as an int64_t; -1 with an error
 * located at 'off' when it is outside the 64-bit integers.
 */
static int int_of(struct job_axis *ax, const char *s, size_t n, size_t off, int64_t *out,
		  struct diag_list *dl)
{
	char buf[64];

	if (n >= sizeof(buf))
		return axis_error(dl, ax, off, "'%.*s' is outside the 64-bit integers", (int)n, s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtoll(buf, NULL, 10);
	if (errno == ERANGE)
		return axis_error(dl, ax, off, "'%.*s' is outside the 64-bit integers", (int)n, s);
	return 0;
}

/* True when s[0..n) is numeric text that is not a finite number (nan, inf, 1e999). */
static bool nonfinite_number(const char *s, size_t n)
{
	char buf[64], *end;
	double v;

	if (n == 0 || n >= sizeof(buf) || isspace((unsigned char)*s))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	return !*end && (errno == ERANGE || !isfinite(v));
}

/*
 * Item s[off..off+n) of the value list when it is a range A:B:STEP
 * (A a number): its number of values into '*count' and, with 'expand',
 * its values appended. '*is_range' says whether it was one.
 */
static int parse_range(struct job_axis *ax, size_t off, size_t n, bool expand, bool *is_range,
		       uint64_t *count, struct diag_list *dl)
{
	const char *s = ax->text;
	struct part p[3];
	size_t c1 = find_top(s + off, n, ':'), c2;
	double a, b, step;
	bool geometric = false;

	*is_range = false;
	if (c1 < n && nonfinite_number(s + off, c1))
		return axis_error(dl, ax, off, "the start of a range must be a finite number, "
				  "got '%.*s'", (int)c1, s + off);
	if (c1 == n || !number_of(s + off, c1, &a))
		return 0;
	c2 = c1 + 1 + find_top(s + off + c1 + 1, n - c1 - 1, ':');
	*is_range = true;
	p[0] = (struct part){ s + off, off, c1 };
	if (c2 >= n)
		return axis_error(dl, ax, off + n, "expected a range A:B:STEP (STEP +D, D, xF or *F)");
	p[1] = (struct part){ s + off + c1 + 1, off + c1 + 1, c2 - c1 - 1 };
	p[2] = (struct part){ s + off + c2 + 1, off + c2 + 1, n - c2 - 1 };
	trim(s, &p[1].off, &p[1].n);
	p[1].s = s + p[1].off;
	trim(s, &p[2].off, &p[2].n);
	p[2].s = s + p[2].off;
	if (!number_of(p[1].s, p[1].n, &b))
		return axis_error(dl, ax, p[1].off, "the end of a range must be a number, got '%.*s'",
				  (int)p[1].n, p[1].s);
	if (p[2].n && (*p[2].s == 'x' || *p[2].s == '*')) {
		geometric = true;
		p[2].s++;
		p[2].off++;
		p[2].n--;
	} else if (p[2].n && *p[2].s == '+') {
		p[2].s++;
		p[2].off++;
		p[2].n--;
	}
	if (!number_of(p[2].s, p[2].n, &step))
		return axis_error(dl, ax, p[2].off, "the step of a range must be +D, D, xF or *F, "
				  "got '%.*s'", (int)p[2].n, p[2].s);
	if (is_int_text(p[0].s, p[0].n) && is_int_text(p[1].s, p[1].n) &&
	    is_int_text(p[2].s, p[2].n)) {
		int64_t ia, ib, istep;
		if (int_of(ax, p[0].s, p[0].n, p[0].off, &ia, dl) < 0 ||
		    int_of(ax, p[1].s, p[1].n, p[1].off, &ib, dl) < 0 ||
		    int_of(ax, p[2].s, p[2].n, p[2].off, &istep, dl) < 0)
			return -1;
		*count = int_range_count(ia, ib, geometric, istep);
		if (*count == 0)
			return axis_error(dl, ax, p[0].off, "range '%.*s' never reaches its end",
					  (int)(p[2].off + p[2].n - p[0].off), p[0].s);
		if (expand)
			int_range(ax, p, ia, geometric, istep, *count);
		return 0;
	}
	if (real_range_count(ax, p, a, b, geometric, step, count, dl) < 0)
		return -1;
	if (expand && *count <= AXIS_MAX_VALUES)
		real_range(ax, p, a, geometric, step, *count);
	return 0;
}

/*
 * One pass over the list ax->text[off..off+n), split at top-level commas:
 * without 'expand' every item is checked and counted, and the axis refused
 * when its values would pass AXIS_MAX_VALUES (before any is made); with
 * 'expand' the values are appended.
 */
static int scan_values(struct job_axis *ax, size_t off, size_t n, bool expand,
		       struct diag_list *dl)
{
	const char *s = ax->text;
	uint64_t total = 0;
	int rc = 0;

	for (;;) {
		size_t len = find_top(s + off, n, ','), io = off, in = len;
		uint64_t count = 1;
		bool is_range;
		size_t ll;
		trim(s, &io, &in);
		ll = in ? label_len(s + io, in) : 0;
		if (in == 0) {
			rc = axis_error(dl, ax, io, "empty value in the list of values");
		} else if (ll) {          /* LABEL=VALUE: one value, named */
			size_t vo = io + ll + 1, vn = in - ll - 1;
			trim(s, &vo, &vn);
			if (vn == 0) {
				rc = axis_error(dl, ax, io + ll, "no value after '%.*s='", (int)ll,
						s + io);
			} else if (expand) {
				char *label = arena_strndup(&ax->arena, s + io, ll);
				char *v = arena_strndup(&ax->arena, s + vo, vn);
				add_labelled(ax, label, v, io);
			}
			total++;
		} else if (parse_range(ax, io, in, expand, &is_range, &count, dl) < 0) {
			rc = -1;
		} else if (is_range && count > AXIS_MAX_VALUES) {
			rc = axis_error(dl, ax, io, "range gives more than %d values",
					AXIS_MAX_VALUES);
		} else if ((total += count) > AXIS_MAX_VALUES) {
			return axis_error(dl, ax, io, "the axis has more than %d values",
					  AXIS_MAX_VALUES);
		} else if (!is_range && expand) {
			char *v = arena_strndup(&ax->arena, s + io, in);
			add_value(ax, v, io);
		}
		if (len == n)
			break;
		off += len + 1;
		n -= len + 1;
	}
	return rc;
}

/* The values of the list ax->text[off..off+n): counted and checked, then made. */
static int parse_values(struct job_axis *ax, size_t off, size_t n, struct diag_list *dl)
{
	if (scan_values(ax, off, n, false, dl) < 0)
		return -1;
	return scan_values(ax, off, n, true, dl);
}

/* True when s[0..n) is a name: letters, digits, '_', '-', '.', not starting with a digit. */
static bool is_name(const char *s, size_t n)
{
	size_t i;
	if (n == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return false;
	return true;
}

/*
 * Copy the diagnostics of 'from' (about the override "PATH=VALUE" of the
 * path at offset 'off' of the axis) to 'dl', located in the axis.
 */
static void relocate(const struct job_axis *ax, size_t off, const struct diag_list *from,
		     struct diag_list *dl)
{
	size_t i;
	for (i = 0; i < from->n; i++) {
		const struct diag *d = &from->items[i];
		struct diag_loc at = { ax->origin, 1, d->loc.col ? d->loc.col + (unsigned)off : 0 };
		diag_copy(dl, d, at);
	}
}

/* The paths of ax->text[off..off+n), split at top-level commas; their syntax checked. */
static int parse_paths(struct job_axis *ax, size_t off, size_t n, struct diag_list *dl)
{
	const char *s = ax->text;
	size_t alloc = 0, alloc_offs = 0;
	int rc = 0;

	for (;;) {
		size_t len = find_top(s + off, n, ','), io = off, in = len;
		trim(s, &io, &in);
		if (in == 0) {
			rc = axis_error(dl, ax, io, "empty path in the list of paths");
		} else {
			struct spec_override ov = SPEC_OVERRIDE_INIT;
			struct diag_list tmp = DIAG_LIST_INIT;
			struct strbuf t = STRBUF_INIT;
			strbuf_add(&t, s + io, in);
			strbuf_addstr(&t, "=0");
			if (spec_override_parse(t.buf, &ov, &tmp) < 0) {
				relocate(ax, io, &tmp, dl);
				rc = -1;
			}
			spec_override_release(&ov);
			diag_list_release(&tmp);
			strbuf_release(&t);
			XGROW(ax->paths, ax->n_paths + 1, alloc);
			XGROW(ax->path_offs, ax->n_paths + 1, alloc_offs);
			ax->path_offs[ax->n_paths] = io;
			ax->paths[ax->n_paths++] = arena_strndup(&ax->arena, s + io, in);
		}
		if (len == n)
			break;
		off += len + 1;
		n -= len + 1;
	}
	return rc;
}

void job_axis_override(const struct job_axis *ax, size_t v, size_t p,
		       struct spec_override *ov)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf t = STRBUF_INIT;

	spec_override_release(ov);
	ov->at = (struct diag_loc){ ax->origin, 1, (unsigned)ax->path_offs[p] + 1 };
	ov->value_at = (struct diag_loc){ ax->origin, 1, (unsigned)ax->value_offs[v] + 1 };
	strbuf_addf(&t, "%s=%s", ax->paths[p], ax->set_values[v]);
	/* only the path is parsed, and job_axis_parse() parsed it: nothing can fail */
	if (spec_override_parse(t.buf, ov, &dl) < 0)
		BUG("axis '%s': the override '%s' does not parse", ax->text, t.buf);
	if (ax->set_values[v][0] == '@') {   /* job_axis_parse() refused a bare '@' */
		ov->value_file = ax->set_values[v] + 1;
		ov->whole_file = ax->whole_files;
	}
	strbuf_release(&t);
	diag_list_release(&dl);
}

void job_axis_hash_override(const struct job_axis *ax, size_t v, size_t p, struct job_hash *h)
{
	size_t np = strlen(ax->paths[p]), nv = strlen(ax->set_values[v]);
	uint64_t n = np + 1 + nv;

	/* job_hash_str() of "PATH=VALUE", without writing it */
	job_hash_add(h, &n, sizeof(n));
	job_hash_add(h, ax->paths[p], np);
	job_hash_add(h, "=", 1);
	job_hash_add(h, ax->set_values[v], nv);
}

int job_axis_parse(const char *text, struct job_axis *ax, struct diag_list *dl)
{
	size_t len = strlen(text), eq, colon, paths_off = 0;

	memset(ax, 0, sizeof(*ax));
	ax->text = arena_strdup(&ax->arena, text);
	ax->origin = arena_printf(&ax->arena, "--axis '%s'", text);
	eq = find_top(text, len, '=');
	if (eq == len && strchr(text, '[') && find_top(text, len, '\0') == len) {
		size_t i, open = 0;
		int depth = 0;
		for (i = 0; i < len; i++)
			if (text[i] == '[' && depth++ == 0)
				open = i;
			else if (text[i] == ']' && depth > 0)
				depth--;
		if (depth)
			return axis_error(dl, ax, open, "'[' is not closed");
	}
	if (eq == len)
		return axis_error(dl, ax, len, "expected [NAME:]PATH[,PATH...]=VALUE,VALUE,...: "
				  "no '=' after the path");
	colon = find_top(text, eq, ':');
	if (colon < eq && is_name(text, colon)) {
		ax->name = arena_strndup(&ax->arena, text, colon);
		paths_off = colon + 1;
	}
	if (parse_paths(ax, paths_off, eq - paths_off, dl) < 0)
		return -1;
	if (!ax->name)
		ax->name = arena_strndup(&ax->arena, text, eq);
	if (parse_values(ax, eq + 1, len - eq - 1, dl) < 0)
		return -1;
	/* NAME=@F1,@F2: one bare name (no path syntax) and every value a file */
	ax->whole_files = paths_off == 0 && ax->n_paths == 1 && !strpbrk(ax->paths[0], ".[") &&
			  ax->n_values > 0;
	for (size_t v = 0; v < ax->n_values && ax->whole_files; v++)
		ax->whole_files = ax->set_values[v][0] == '@';
	for (size_t v = 0; v < ax->n_values; v++)
		if (!strcmp(ax->set_values[v], "@"))
			return axis_error(dl, ax, ax->value_offs[v], "'@' without a file");
	return 0;
}

void job_axis_release(struct job_axis *ax)
{
	free(ax->values);
	free(ax->set_values);
	free(ax->value_offs);
	free(ax->paths);
	free(ax->path_offs);
	arena_release(&ax->arena);
	memset(ax, 0, sizeof(*ax));
}
