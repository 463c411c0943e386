/*
 * Ordered attribute dictionaries (energy_int.h): Python's dict semantics,
 * which Accelergy's sequential evaluation depends on (an updated key keeps
 * its place, so a default never moves ahead of what it refers to).
 */
#include "energy/energy_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const struct eattr *eattrs_get(const struct eattrs *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].key, key))
			return &a->v[i];
	return NULL;
}

void eattrs_set(struct ectx *c, struct eattrs *a, const char *key, const struct spec_value *v,
		struct diag_loc loc)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (!strcmp(a->v[i].key, key)) {
			a->v[i].v = *v;
			a->v[i].loc = loc;
			return;
		}
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;
		struct eattr *nv = arena_calloc(c->a, cap, sizeof(*nv));
		if (a->n)
			memcpy(nv, a->v, a->n * sizeof(*nv));
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n].key = key;
	a->v[a->n].v = *v;
	a->v[a->n].loc = loc;
	a->n++;
}

void eattrs_copy(struct ectx *c, struct eattrs *dst, const struct eattrs *src)
{
	dst->n = src->n;
	dst->cap = src->n;
	dst->v = src->n ? arena_memdup(c->a, src->v, src->n * sizeof(*src->v)) : NULL;
}

bool eattrs_number(const struct eattrs *a, const char *key, double *out)
{
	const struct eattr *e = eattrs_get(a, key);

	return e && spec_value_number(&e->v, out);
}

const char *eattrs_value_text(struct ectx *c, const struct spec_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *r;

	if (v->kind == SPEC_VALUE_STR)
		return v->s;
	spec_value_format(v, &sb);
	r = arena_strdup(c->a, sb.buf);
	strbuf_release(&sb);
	return r;
}

const char *eattrs_text(struct ectx *c, const struct eattrs *a, const char *key)
{
	const struct eattr *e = eattrs_get(a, key);

	return e ? eattrs_value_text(c, &e->v) : NULL;
}

/*
 * Accelergy reads a technology as a number of nm: an int or float, or a
 * string of one with a unit, "45nm" (the plug-ins strip the unit; "um"
 * values such as "0.045um" are converted here).
 */
bool energy_tech_nm(const struct spec_value *v, double *nm)
{
	const char *s;
	char *end;
	double x;

	if (spec_value_number(v, nm))
		return v->kind != SPEC_VALUE_BOOL;
	if (v->kind != SPEC_VALUE_STR)
		return false;
	for (s = v->s; isspace((unsigned char)*s); s++)
		;
	x = strtod(s, &end);
	if (end == s)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (!strcmp(end, "nm") || !*end)
		*nm = x;
	else if (!strcmp(end, "um"))
		*nm = x * 1000.0;
	else
		return false;
	return true;
}
