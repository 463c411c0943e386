/*
 * Sweep axes: "[NAME:]PATH[,PATH...]=V1,V2,..." where each Vi is a YAML
 * flow value or a range A:B:STEP (+D or D adds D, xF or *F multiplies by
 * F; integer ranges stay integers), each PATH a path of the override
 * language (docs/yaml-reference.md, "Overrides"). Every value of the axis
 * is set at every one of its paths. Diagnostics are located in the axis
 * text, as "--axis 'TEXT':1:COL".
 */
#include "job/job.h"

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

/* Add value 'v', written at offset 'off' of the axis (a range's values: at the range). */
static void add_value(struct job_axis *ax, const char *v, size_t off)
{
	XGROW(ax->values, ax->n_values + 1, ax->alloc_values);
	XGROW(ax->value_offs, ax->n_values + 1, ax->alloc_value_offs);
	ax->value_offs[ax->n_values] = off;
	ax->values[ax->n_values++] = arena_strdup(&ax->arena, v);
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
 * The values of the integer range 'a':'b' stepping by 'step' (added) or
 * 'factor' (multiplied, when 'geometric').
 */
static int int_range(struct job_axis *ax, const struct part *p, int64_t a, int64_t b,
		     bool geometric, int64_t step, struct diag_list *dl)
{
	char buf[32];
	int64_t v = a;
	size_t n = 0;

	if (geometric ? (step < 2 || a <= 0 || a > b) : (step == 0 || (step > 0 ? a > b : a < b)))
		return axis_error(dl, ax, p[0].off, "range '%.*s' never reaches its end",
				  (int)(p[2].off + p[2].n - p[0].off), p[0].s);
	for (;;) {
		if (++n > AXIS_MAX_VALUES)
			return axis_error(dl, ax, p[0].off, "range gives more than %d values",
					  AXIS_MAX_VALUES);
		snprintf(buf, sizeof(buf), "%lld", (long long)v);
		add_value(ax, buf, p[0].off);
		if (geometric) {
			if (v > b / step)
				break;
			v *= step;
		} else {
			int64_t next;
			if (__builtin_add_overflow(v, step, &next))
				break;
			if (step > 0 ? next > b : next < b)
				break;
			v = next;
		}
	}
	return 0;
}

/* The values of a real range (%.12g: what a person would have typed). */
static int real_range(struct job_axis *ax, const struct part *p, double a, double b,
		      bool geometric, double step, struct diag_list *dl)
{
	char buf[40];
	double n_steps;
	uint64_t i, n;

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
	if (n_steps + 1 > AXIS_MAX_VALUES)
		return axis_error(dl, ax, p[0].off, "range gives more than %d values",
				  AXIS_MAX_VALUES);
	n = (uint64_t)floor(n_steps + 1e-9) + 1;
	for (i = 0; i < n; i++) {
		double v = geometric ? a * pow(step, (double)i) : a + (double)i * step;
		snprintf(buf, sizeof(buf), "%.12g", v);
		add_value(ax, buf, p[0].off);
	}
	return 0;
}

/*
 * Item s[off..off+n) of the value list when it is a range A:B:STEP
 * (A a number): its values. '*is_range' says whether it was one.
 */
static int parse_range(struct job_axis *ax, size_t off, size_t n, bool *is_range,
		       struct diag_list *dl)
{
	const char *s = ax->text;
	struct part p[3];
	size_t c1 = find_top(s + off, n, ':'), c2;
	double a, b, step;
	bool geometric = false, ints;

	*is_range = false;
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
	ints = is_int_text(p[0].s, p[0].n) && is_int_text(p[1].s, p[1].n) &&
	       is_int_text(p[2].s, p[2].n) && fabs(a) < 9e18 && fabs(b) < 9e18 &&
	       fabs(step) < 9e18;
	if (ints)
		return int_range(ax, p, (int64_t)a, (int64_t)b, geometric, (int64_t)step, dl);
	return real_range(ax, p, a, b, geometric, step, dl);
}

/* The values of the list ax->text[off..off+n), split at top-level commas. */
static int parse_values(struct job_axis *ax, size_t off, size_t n, struct diag_list *dl)
{
	const char *s = ax->text;
	int rc = 0;

	for (;;) {
		size_t len = find_top(s + off, n, ','), io = off, in = len;
		bool is_range;
		trim(s, &io, &in);
		if (in == 0) {
			rc = axis_error(dl, ax, io, "empty value in the list of values");
		} else if (parse_range(ax, io, in, &is_range, dl) < 0) {
			rc = -1;
		} else if (!is_range) {
			char *v = arena_strndup(&ax->arena, s + io, in);
			add_value(ax, v, io);
		}
		if (len == n)
			break;
		off += len + 1;
		n -= len + 1;
	}
	if (rc == 0 && ax->n_values > AXIS_MAX_VALUES)
		rc = axis_error(dl, ax, 0, "the axis has more than %d values", AXIS_MAX_VALUES);
	return rc;
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

/*
 * The override of every (value, path) pair, located in the axis: its path
 * where the path is written, its value where the value (or its range) is.
 */
static int make_overrides(struct job_axis *ax, struct diag_list *dl)
{
	struct strbuf t = STRBUF_INIT;
	size_t v, p;
	int rc = 0;

	ax->ovs = xcalloc(ax->n_values * ax->n_paths, sizeof(*ax->ovs));
	for (v = 0; v < ax->n_values; v++)
		for (p = 0; p < ax->n_paths; p++) {
			struct spec_override *ov = &ax->ovs[v * ax->n_paths + p];
			ov->at = (struct diag_loc){ ax->origin, 1, (unsigned)ax->path_offs[p] + 1 };
			ov->value_at = (struct diag_loc){ ax->origin, 1,
							  (unsigned)ax->value_offs[v] + 1 };
			strbuf_reset(&t);
			strbuf_addf(&t, "%s=%s", ax->paths[p], ax->values[v]);
			if (spec_override_parse(t.buf, ov, dl) < 0)
				rc = -1;
		}
	strbuf_release(&t);
	return rc;
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
	return make_overrides(ax, dl);
}

void job_axis_release(struct job_axis *ax)
{
	size_t i;

	if (ax->ovs)
		for (i = 0; i < ax->n_values * ax->n_paths; i++)
			spec_override_release(&ax->ovs[i]);
	free(ax->ovs);
	free(ax->values);
	free(ax->value_offs);
	free(ax->paths);
	free(ax->path_offs);
	arena_release(&ax->arena);
	memset(ax, 0, sizeof(*ax));
}
