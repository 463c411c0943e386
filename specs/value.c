/*
 * Schema-checked scalar readers (their diagnostics are located by ldiag.c).
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

const struct ysrc_node *ld_get(const struct ysrc_node *map, const char *key)
{
	const struct ysrc_node *v = ysrc_map_get(map, key);
	return ysrc_is_null(v) ? NULL : v;
}

/* True when 'key' is one of 'known' (with '-' and '_' equal). */
static bool key_known(const char *key, const char *const *known, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (known[i] && ysrc_key_eq(key, known[i]))
			return true;
	return false;
}

bool ld_ignored_key(const char *key)
{
	const char *s = key;
	while ((s = strstr(s, "ignore")) != NULL) {
		bool starts = s == key || s[-1] == '_' || s[-1] == '-';
		bool ends = s[6] == '\0' || s[6] == '_' || s[6] == '-';
		if (starts && ends)
			return true;
		s++;
	}
	return false;
}

int ld_check_keys(struct ld *ld, const struct ysrc_node *map, const struct kpath *p,
		  const char *const *known, size_t n_known)
{
	size_t i;
	int n_bad = 0;

	if (!map || map->kind != YSRC_MAP)
		return 0;
	for (i = 0; i < map->n; i++) {
		const struct ysrc_node *k = map->pairs[i].key;
		struct strbuf sb = STRBUF_INIT;
		if (key_known(k->str, known, n_known) || ld_ignored_key(k->str))
			continue;
		strbuf_addf(&sb, "unknown key '%s'", k->str);
		ld_add_hint(&sb, k->str, known, n_known);
		ld_error(ld, k, p, "%s", sb.buf);
		strbuf_release(&sb);
		n_bad++;
	}
	return n_bad;
}

int ld_want_map(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	if (n && n->kind == YSRC_MAP)
		return 0;
	return ld_error(ld, n, p, "expected a mapping, got %s", ysrc_kind_name(n));
}

int ld_want_seq(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	if (n && n->kind == YSRC_SEQ)
		return 0;
	return ld_error(ld, n, p, "expected a list, got %s", ysrc_kind_name(n));
}

int ld_want_scalar(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	if (n && n->kind == YSRC_SCALAR)
		return 0;
	return ld_error(ld, n, p, "expected a single value, got %s", ysrc_kind_name(n));
}

int spec_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || strpbrk(s, "xXpP"))    /* no hexadecimal floats */
		return -1;
	errno = 0;
	v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int spec_parse_u64(const char *s, uint64_t *out)
{
	const char *q = s;
	double d;

	while (isspace((unsigned char)*q))
		q++;
	if (*q == '+')
		q++;
	if (isdigit((unsigned char)*q)) {
		char *end;
		unsigned long long v;
		errno = 0;
		v = strtoull(q, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (!*end && errno != ERANGE) {
			*out = v;
			return 0;
		}
	}
	/* integral floats such as "1.0" or "1e3" */
	if (spec_parse_double(s, &d) < 0 || d < 0 || d != floor(d) || d >= 18446744073709551616.0)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

int spec_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/*
 * The text a reader parses for scalar 'n': its own, or the value of the
 * expression it is (vars.c). '*computed' is set when the text is the value
 * of an expression the reader asked for (not the node's own). Returns -1
 * after the expression's error. The text shown in a message (reader_shown)
 * is made only when there is one to report.
 */
static int reader_text(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       int (*parses)(const char *), const char **text, bool *computed)
{
	int r;
	*text = n->str;
	*computed = false;
	if (ld_expr_text(ld, n) || parses(n->str))
		return 0;
	r = ld_expr_value(ld, n, p, text);
	*computed = r > 0;
	return r < 0 ? -1 : 0;
}

/*
 * What a message shows of the value read from 'n' into 'sb': "'EXPR' = VALUE"
 * for a replaced expression, "'TEXT'", or "'TEXT' = VALUE" when the reader
 * computed it. Returns sb->buf.
 */
static const char *reader_shown(const struct ld *ld, const struct ysrc_node *n,
				const char *text, bool computed, struct strbuf *sb)
{
	const char *expr = ld_expr_text(ld, n);
	if (expr)
		strbuf_addf(sb, "'%s' = %s", expr, n->str);
	else if (computed)
		strbuf_addf(sb, "'%s' = %s", n->str, text);
	else
		strbuf_addf(sb, "'%s'", n->str);
	return sb->buf;
}

static int parses_u64(const char *s)
{
	uint64_t v;
	return spec_parse_u64(s, &v) == 0;
}

static int parses_double(const char *s)
{
	double v;
	return spec_parse_double(s, &v) == 0;
}

static int parses_bool(const char *s)
{
	bool v;
	return spec_parse_bool(s, &v) == 0;
}

int ld_uint(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	    uint64_t lo, uint64_t hi, uint64_t *out)
{
	struct strbuf shown = STRBUF_INIT;
	const char *text;
	bool computed;
	uint64_t v;
	int rc = 0;

	if (ld_want_scalar(ld, n, p) < 0 ||
	    reader_text(ld, n, p, parses_u64, &text, &computed) < 0)
		return -1;
	if (spec_parse_u64(text, &v) < 0 || v < lo || v > hi) {
		reader_shown(ld, n, text, computed, &shown);
		if (hi == UINT64_MAX)
			rc = ld_error(ld, n, p, "expected an integer >= %llu, got %s",
				      (unsigned long long)lo, shown.buf);
		else
			rc = ld_error(ld, n, p, "expected an integer in [%llu, %llu], got %s",
				      (unsigned long long)lo, (unsigned long long)hi, shown.buf);
	} else {
		*out = v;
	}
	strbuf_release(&shown);
	return rc;
}

int ld_int(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, int64_t *out)
{
	struct strbuf shown = STRBUF_INIT;
	const char *text;
	bool computed;
	double d;
	int rc = 0;

	if (ld_want_scalar(ld, n, p) < 0 ||
	    reader_text(ld, n, p, parses_double, &text, &computed) < 0)
		return -1;
	if (spec_parse_double(text, &d) < 0 || d != floor(d) || fabs(d) > 9.0e18)
		rc = ld_error(ld, n, p, "expected an integer, got %s",
			      reader_shown(ld, n, text, computed, &shown));
	else
		*out = (int64_t)d;
	strbuf_release(&shown);
	return rc;
}

int ld_double(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	      double lo, double hi, double *out)
{
	struct strbuf shown = STRBUF_INIT;
	const char *text;
	bool computed;
	double v;
	int rc = 0;

	if (ld_want_scalar(ld, n, p) < 0 ||
	    reader_text(ld, n, p, parses_double, &text, &computed) < 0)
		return -1;
	if (spec_parse_double(text, &v) < 0)
		rc = ld_error(ld, n, p, "expected a number, got %s",
			      reader_shown(ld, n, text, computed, &shown));
	else if ((v < lo || v > hi) && hi == HUGE_VAL)
		rc = ld_error(ld, n, p, "expected a number >= %g, got %s", lo,
			      reader_shown(ld, n, text, computed, &shown));
	else if (v < lo || v > hi)
		rc = ld_error(ld, n, p, "expected a number in [%g, %g], got %s", lo, hi,
			      reader_shown(ld, n, text, computed, &shown));
	else
		*out = v;
	strbuf_release(&shown);
	return rc;
}

int ld_bool(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, bool *out)
{
	struct strbuf shown = STRBUF_INIT;
	const char *text;
	bool computed;
	int rc = 0;

	if (ld_want_scalar(ld, n, p) < 0 ||
	    reader_text(ld, n, p, parses_bool, &text, &computed) < 0)
		return -1;
	if (spec_parse_bool(text, out) < 0)
		rc = ld_error(ld, n, p, "expected true or false, got %s",
			      reader_shown(ld, n, text, computed, &shown));
	strbuf_release(&shown);
	return rc;
}

const char *ld_str(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	if (ld_want_scalar(ld, n, p) < 0)
		return NULL;
	return arena_strdup(ld->a, n->str);
}

/* " (a, b or c)": the names a value may take, when they are few (at most 8). */
static void add_choices(struct strbuf *sb, const char *const *names, size_t n_names)
{
	size_t i, n = 0, k = 0;

	for (i = 0; i < n_names; i++)
		n += names[i] != NULL;
	if (n == 0 || n > 8)
		return;
	strbuf_addstr(sb, " (");
	for (i = 0; i < n_names; i++) {
		if (!names[i])
			continue;
		k++;
		strbuf_addf(sb, "%s%s", k == 1 ? "" : k == n ? " or " : ", ", names[i]);
	}
	strbuf_addch(sb, ')');
}

int ld_lookup(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	      const char *what, const char *name, const char *const *names, size_t n_names)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n_names; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	strbuf_addf(&sb, "unknown %s '%s'", what, name);
	if (diag_suggest(name, names, n_names))
		ld_add_hint(&sb, name, names, n_names);
	else
		add_choices(&sb, names, n_names);
	ld_error(ld, n, p, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int ld_lookup_keyword(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      const char *what, const char *name, const char *const *names,
		      size_t n_names)
{
	size_t i;
	for (i = 0; i < n_names; i++)
		if (names[i] && ysrc_key_eq(names[i], name))
			return (int)i;
	return ld_lookup(ld, n, p, what, name, names, n_names);
}

int ld_level_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   const char *name)
{
	const struct spec_arch *arch = &ld->s->arch;
	const char *names[SPEC_MAX_LEVELS + 1];
	unsigned i;
	struct strbuf sb = STRBUF_INIT;

	for (i = 0; i < arch->n_levels; i++)
		if (!strcmp(arch->levels[i].name, name))
			return (int)i;
	for (i = 0; i < arch->n_levels; i++)       /* a spatial container's level */
		if (arch->levels[i].is_dummy && !strncmp(arch->levels[i].name, "inter_", 6) &&
		    strlen(arch->levels[i].name) == strlen(name) + 14 &&
		    !strncmp(arch->levels[i].name + 6, name, strlen(name)) &&
		    !strcmp(arch->levels[i].name + 6 + strlen(name), "_spatial"))
			return (int)i;
	if (arch->compute.name && !strcmp(arch->compute.name, name))
		return ld_error(ld, n, p, "'%s' is the compute unit, not a storage level", name);
	for (i = 0; i < arch->n_levels; i++)
		names[i] = arch->levels[i].name;
	strbuf_addf(&sb, "unknown storage level '%s'", name);
	ld_add_hint(&sb, name, names, arch->n_levels);
	ld_error(ld, n, p, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int ld_tensor_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    const char *name)
{
	const struct spec_workload *w = &ld->s->workload;
	const char *names[SPEC_MAX_TENSORS];
	unsigned i;
	for (i = 0; i < w->n_tensors; i++)
		names[i] = w->tensors[i].name;
	return ld_lookup(ld, n, p, "data space", name, names, w->n_tensors);
}

int ld_dim_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		 const char *name)
{
	const struct spec_workload *w = &ld->s->workload;
	return ld_lookup(ld, n, p, "dimension", name, w->dim_names, w->n_dims);
}

/* Add tensor name 'item' to the mask; errors for unknown names and repeats. */
static int tensor_item(struct ld *ld, const struct ysrc_node *item, const struct kpath *p,
		       uint32_t *mask, uint8_t *order, unsigned *n_order)
{
	int t;
	if (ld_want_scalar(ld, item, p) < 0)
		return -1;
	if (!strcmp(item->str, "*")) {   /* the front end's "all" (quoted: '*' starts an alias) */
		unsigned k;
		for (k = 0; k < ld->s->workload.n_tensors; k++)
			if (!(*mask & (1u << k))) {
				*mask |= 1u << k;
				if (order)
					order[(*n_order)++] = (uint8_t)k;
			}
		return 0;
	}
	t = ld_tensor_index(ld, item, p, item->str);
	if (t < 0)
		return -1;
	if (*mask & (1u << t))
		return ld_error(ld, item, p, "data space '%s' listed twice", item->str);
	*mask |= 1u << t;
	if (order)
		order[(*n_order)++] = (uint8_t)t;
	return 0;
}

int ld_tensor_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   uint32_t *mask, uint8_t *order, unsigned *n_order)
{
	size_t i;
	int rc = 0;

	*mask = 0;
	if (n_order)
		*n_order = 0;
	if (!n || ysrc_is_null(n))
		return 0;
	if (n->kind == YSRC_SCALAR)
		return tensor_item(ld, n, p, mask, order, n_order);
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (tensor_item(ld, n->items[i], &ip, mask, order, n_order) < 0)
			rc = -1;
	}
	return rc;
}
