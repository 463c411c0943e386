/*
 * The component library ("Library" plug-in, hwcomponents-library): tables of
 * measured components at one design point, scaled to the query's attributes.
 *
 * The rows are the library's Aladdin components (Shao et al., "Aladdin: a
 * pre-RTL, power-performance accelerator simulator", ISCA 2014; 45 nm,
 * 1 ns cycle) and its dummy components. An entry matches a query attribute
 * by column name (a column "width|datawidth" answers either); an equal value
 * matches, a different one is scaled by the rule of that parameter (below),
 * and a parameter with no rule rules the entry out. The entry with the most
 * matching attributes wins. docs/energy.md, "Component library".
 */
#include "energy/energy_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LIB_MAX_COLS 8

/* One row: its class, the actions it prices, its columns, energy (pJ) and area (um^2). */
struct lib_entry {
	const char *name;
	const char *actions;           /* '|'-separated */
	const char *cols[LIB_MAX_COLS];
	const char *vals[LIB_MAX_COLS];
	double energy_pj, area_um2;
};

#define ALADDIN_COLS "technology", "global_cycle_seconds", "width|datawidth"
#define ALADDIN_VALS(w) "45nm", "1e-9", w
#define MULT_COLS ALADDIN_COLS, "width_a|datawidth_a", "width_b|datawidth_b"
#define MULT_VALS ALADDIN_VALS("32"), "32", "32"
#define DUMMY_COLS "global_cycle_seconds", "n_instances"
#define DUMMY_VALS "1e-9", "1"

/* Aladdin's 45 nm components at 1 ns, as the component library lists them. */
static const struct lib_entry entries[] = {
	{ "aladdin_adder", "add|read", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0.21, 278 },
	{ "aladdin_adder", "leak", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0.0024, 278 },
	{ "aladdin_adder", "update|write", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0, 278 },
	{ "aladdin_comparator", "compare|read", { ALADDIN_COLS }, { ALADDIN_VALS("32") },
	  0.02947, 71 },
	{ "aladdin_comparator", "leak", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 2.51e-05, 71 },
	{ "aladdin_comparator", "update|write", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0, 71 },
	{ "aladdin_counter", "count|read", { ALADDIN_COLS }, { ALADDIN_VALS("32") },
	  0.25074, 495.5 },
	{ "aladdin_counter", "leak", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0.0003213, 495.5 },
	{ "aladdin_counter", "update|write", { ALADDIN_COLS }, { ALADDIN_VALS("32") }, 0, 495.5 },
	{ "aladdin_multiplier", "multiply|read", { MULT_COLS }, { MULT_VALS }, 12.68, 6350 },
	{ "aladdin_multiplier", "leak", { MULT_COLS }, { MULT_VALS }, 0.08, 6350 },
	{ "aladdin_multiplier", "update|write", { MULT_COLS }, { MULT_VALS }, 0, 6350 },
	{ "aladdin_register", "read", { ALADDIN_COLS }, { ALADDIN_VALS("1") }, 0.009, 5.98 },
	{ "aladdin_register", "write", { ALADDIN_COLS }, { ALADDIN_VALS("1") }, 0, 5.98 },
	{ "aladdin_register", "leak|update", { ALADDIN_COLS }, { ALADDIN_VALS("1") }, 0, 5.98 },
	{ "dummy_storage", "read|update|leak|write|*", { DUMMY_COLS }, { DUMMY_VALS }, 0, 0 },
	{ "dummy_compute", "read|update|leak|write|*", { DUMMY_COLS }, { DUMMY_VALS }, 0, 0 },
};

/* The columns every entry has besides its own, with their defaults. */
static const char *const default_cols[] = { "area_scale", "energy_scale", "n_instances" };

enum target { T_AREA, T_ENERGY, T_LEAK };

/* 'word' is one of the '|'-separated words of 'list' (case-insensitively). */
static bool in_bar_list(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while (*p) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == len && !strncasecmp(p, word, len))
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

static bool in_set(const char *param, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(param, set[i]))
			return true;
	return false;
}

static const char *const area_linear[] = {
	"area_scale", "width", "datawidth", "depth", "rows", "cols", "columns", "width_a",
	"width_b", "datawidth_a", "datawidth_b",
};
static const char *const area_none[] = {
	"energy_scale", "average_input_value", "average_weight_value", "average_output_value",
	"no_scale_area", "no_scale_energy", "voltage", "n_instances", "global_cycle_seconds",
};
static const char *const energy_linear[] = {
	"width", "datawidth", "energy_scale", "average_input_value", "average_weight_value",
	"average_output_value", "width_a", "width_b", "datawidth_a", "datawidth_b", "n_steps",
};
static const char *const energy_none[] = {
	"rows", "cols", "columns", "area_scale", "no_scale_area", "no_scale_energy",
	"n_instances", "global_cycle_seconds",
};

/*
 * The factor that scales 'target' when parameter 'param' goes from v0 to v1:
 * 0 with '*s' set, or -1 (no rule for it, or a technology out of range) with
 * 'why' filled.
 */
static int scale_rule(const char *param, double v0, double v1, enum target target, double *s,
		      struct strbuf *why)
{
	if (v0 == 0) {
		strbuf_addf(why, "cannot scale '%s' from 0", param);
		return -1;
	}
	if (!strcasecmp(param, "technology")) {
		bool ok = target == T_AREA ? energy_tech_area_scale(v0, v1, s)
					   : energy_tech_energy_scale(v0, v1, 0, s);
		if (!ok)
			strbuf_addf(why, "technology %g nm is outside the 7-130 nm the library "
				    "scales to", v1);
		return ok ? 0 : -1;
	}
	if (!strcasecmp(param, "resolution")) {
		*s = pow(2.0, v1 - v0);
		return 0;
	}
	if (target == T_LEAK && !strcasecmp(param, "voltage")) {
		*s = 1;
		return 0;
	}
	if (target == T_LEAK && !strcasecmp(param, "global_cycle_seconds")) {
		*s = v1 / v0;
		return 0;
	}
	if (target == T_AREA) {
		if (in_set(param, area_linear, ARRAY_SIZE(area_linear)))
			return *s = v1 / v0, 0;
		if (in_set(param, area_none, ARRAY_SIZE(area_none)))
			return *s = 1, 0;
	} else {
		if (in_set(param, energy_linear, ARRAY_SIZE(energy_linear)))
			return *s = v1 / v0, 0;
		if (in_set(param, energy_none, ARRAY_SIZE(energy_none)))
			return *s = 1, 0;
		if (!strcasecmp(param, "depth"))       /* CACTI's 2x depth -> 1.56x energy */
			return *s = pow(v1 / v0, 1.56 / 2), 0;
		if (!strcasecmp(param, "voltage"))
			return *s = (v1 / v0) * (v1 / v0), 0;
	}
	strbuf_addf(why, "the library cannot scale '%s'", param);
	return -1;
}

/*
 * A number from text as the library reads it: the leading and trailing
 * characters that cannot be part of a number are dropped ("45nm" -> 45).
 */
static bool lib_float(const char *s, double *out)
{
	const char *b = s, *e = s + strlen(s);
	char buf[64], *end;
	size_t n;

	while (*b && !strchr("0123456789eE-+.", *b))
		b++;
	while (e > b && !strchr("0123456789eE-+.", e[-1]))
		e--;
	n = (size_t)(e - b);
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0';
}

/*
 * An int or float attribute's value, when it is one lib_float() would read
 * back from its text (finite: "inf" and "nan" are no numbers to it).
 */
static bool attr_number(const struct spec_value *v, double *out)
{
	if (v->kind == SPEC_VALUE_INT)
		*out = (double)v->i;
	else if (v->kind == SPEC_VALUE_FLOAT)
		*out = v->f;
	else
		return false;
	return isfinite(*out);
}

/* The column of entry 'e' that query attribute 'attr' reads, or -1 (defaults: 100+i). */
static int column_of(const struct lib_entry *e, const char *attr)
{
	size_t i;

	for (i = 0; i < LIB_MAX_COLS && e->cols[i]; i++)
		if (!strcasecmp(e->cols[i], attr) || in_bar_list(e->cols[i], attr))
			return (int)i;
	for (i = 0; i < ARRAY_SIZE(default_cols); i++)
		if (!strcasecmp(default_cols[i], attr))
			return 100 + (int)i;
	return -1;
}

static const char *column_value(const struct lib_entry *e, int col)
{
	return col >= 100 ? "1" : e->vals[col];
}

/*
 * Match entry 'e' against the query's attributes: 0 with the scale and the
 * number of matching attributes, or -1 (the entry cannot be scaled to them).
 */
static int match(struct ectx *c, const struct lib_entry *e, const struct eattrs *attrs,
		 enum target target, double *scale, int *n_match, struct strbuf *why)
{
	int used[LIB_MAX_COLS + ARRAY_SIZE(default_cols)];
	size_t n_used = 0, i, k;

	*scale = 1;
	*n_match = 0;
	for (i = 0; i < attrs->n; i++) {
		const struct eattr *a = &attrs->v[i];
		const char *ev, *av;
		int col = column_of(e, a->key);
		double from, to, s;
		bool taken = false, from_ok, to_ok;
		for (k = 0; k < n_used; k++)
			taken = taken || used[k] == col;
		if (col < 0 || taken)
			continue;
		used[n_used++] = col;
		ev = column_value(e, col);
		if (!strcmp(ev, "*")) {
			(*n_match)++;
			continue;
		}
		from_ok = lib_float(ev, &from);
		if (attr_number(&a->v, &to)) {
			/* as the text compare below, without writing the number as text */
			if (from_ok && from == to) {
				(*n_match)++;
				continue;
			}
			av = NULL;
			to_ok = true;
		} else {
			av = eattrs_value_text(c, &a->v);
			if (!strcasecmp(ev, av)) {
				(*n_match)++;
				continue;
			}
			to_ok = lib_float(av, &to);
		}
		if (!from_ok || !to_ok) {
			if (!av)
				av = eattrs_value_text(c, &a->v);
			strbuf_addf(why, "'%s' is '%s', not a number the library can scale", a->key,
				    av);
			return -1;
		}
		if (scale_rule(a->key, from, to, target, &s, why) < 0)
			return -1;
		if (s == 1)
			(*n_match)++;
		*scale *= s;
	}
	return 0;
}

/* True when the library has entries of class 'cls'. */
static bool lib_knows(const char *cls)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(entries); i++)
		if (!strcasecmp(entries[i].name, cls))
			return true;
	return false;
}

/* The best entry's value for the query: 0, or -1 with 'why'. */
static int lookup(struct ectx *c, const struct equery *q, double *value, struct strbuf *why)
{
	enum target target = !q->action ? T_AREA : !strcasecmp(q->action, "leak") ? T_LEAK
										 : T_ENERGY;
	int best_matches = -1;
	size_t i;
	bool any = false;

	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		const struct lib_entry *e = &entries[i];
		double s;
		int n;
		if (strcasecmp(e->name, q->class_name) ||
		    (q->action && !in_bar_list(e->actions, q->action)))
			continue;
		any = true;
		if (match(c, e, q->attrs, target, &s, &n, why) < 0)
			continue;
		if (n > best_matches) {
			best_matches = n;
			*value = (q->action ? e->energy_pj : e->area_um2) * s;
		}
	}
	if (best_matches >= 0)
		return 0;
	if (!any)
		strbuf_addf(why, "the library has no '%s'%s%s", q->class_name,
			    q->action ? " action " : "", q->action ? q->action : "");
	return -1;
}

static int lib_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	struct strbuf mine = STRBUF_INIT;
	double v;
	int r;

	if (!lib_knows(q->class_name))     /* another estimator's class: nothing to say */
		return 0;
	r = lookup(c, q, &v, &mine);
	if (r < 0)
		strbuf_addbuf(why, &mine);
	strbuf_release(&mine);
	if (r == 0) {
		c->lib_q = q;
		c->lib_value = v;
	}
	return r == 0 ? 90 : 0;
}

/* The value the accuracy found for this query (a lookup costs as much as the rest of the estimate). */
static int lib_estimate(struct ectx *c, const struct equery *q, double *value, struct strbuf *why)
{
	if (c->lib_q == q) {
		*value = c->lib_value;
		return 0;
	}
	return lookup(c, q, value, why);
}

const struct estimator energy_est_library = {
	"Library", ENERGY_FAMILY_LIBRARY, lib_accuracy, lib_estimate,
};
