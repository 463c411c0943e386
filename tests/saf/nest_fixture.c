#include "tests/saf/nest_fixture.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static unsigned dim_index(const char *dims, char c)
{
	const char *p = strchr(dims, c);

	if (!p || !c)
		BUG("no dimension '%c' in '%s'", c, dims);
	return (unsigned)(p - dims);
}

void fx_tensor(struct spec_tensor *t, const char *name, const char *dims, const char *proj)
{
	const char *p;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->n_ranks = 1;
	for (p = proj; *p; p++) {
		struct spec_rank_proj *r = &t->ranks[t->n_ranks - 1];
		if (*p == ',') {
			t->n_ranks++;
		} else if (*p != '+' && *p != ' ') {
			unsigned d = dim_index(dims, *p);
			r->terms[r->n_terms].dim = d;
			r->terms[r->n_terms].coef = 1;
			r->terms[r->n_terms].coef_idx = -1;
			r->n_terms++;
			t->dim_mask |= 1u << d;
		}
	}
	t->density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
	t->density.density = 1.0;
}

void fx_nest(struct nest_fixture *f, const char *dims, const char *levels)
{
	const char *p = levels;
	unsigned n = 0, l = 0;

	memset(f, 0, sizeof(*f));
	f->begin[0] = 0;
	while (*p) {
		if (*p == '|') {
			f->begin[++l] = n;
			p++;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		f->loops[n].spacetime = SPEC_TEMPORAL;
		if (*p == 's' || *p == 'y') {
			f->loops[n].spacetime = *p == 's' ? SPEC_SPATIAL_X : SPEC_SPATIAL_Y;
			p++;
		}
		f->loops[n].dim = (uint8_t)dim_index(dims, *p++);
		f->loops[n].level = (uint8_t)l;
		f->loops[n].end = strtoull(p, (char **)&p, 10);
		f->loops[n].residual_end = f->loops[n].end;
		n++;
	}
	f->begin[++l] = n;
	f->nest.n_loops = n;
	f->nest.loops = f->loops;
	f->nest.n_levels = l;
	f->nest.level_begin = f->begin;
}
