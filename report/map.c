/*
 * Timeloop's map.txt (semantics 6.3): the loop nest from the outermost loop
 * inwards, each storage level's header "<name> [ T:<tile> (<capacity>) ... ] "
 * where its block begins, and "<< Compute >>" at the bottom.
 */
#include "report/report_int.h"

#include <string.h>

/* Header of level l; returns its length. */
static size_t header(const struct spec_set *s, const struct model_result *r, unsigned l,
		     struct strbuf *sb)
{
	size_t start = sb->len;
	unsigned pv;

	strbuf_addf(sb, "%s [ ", s->arch.levels[l].name);
	for (pv = 0; pv < r->n_tensors; pv++) {
		const struct model_tile *t = &r->tiles[l][pv];
		if (t->is_kept)
			strbuf_addf(sb, "%s:%llu (%llu) ", s->workload.tensors[pv].name,
				    (unsigned long long)t->shape,
				    (unsigned long long)t->utilized_capacity);
	}
	strbuf_addstr(sb, "] ");
	return sb->len - start;
}

static void loop_line(const struct spec_set *s, const struct spec_loop *lp, unsigned depth,
		      struct strbuf *sb)
{
	strbuf_addstr(sb, "| ");
	strbuf_addchars(sb, ' ', 2 * depth);
	strbuf_addf(sb, "for %s in [0:%llu", s->workload.dim_names[lp->dim],
		    (unsigned long long)lp->end);
	if (lp->residual_end != lp->end)
		strbuf_addf(sb, ",%llu", (unsigned long long)lp->residual_end);
	strbuf_addch(sb, ')');
	if (lp->spacetime == SPEC_SPATIAL_X)
		strbuf_addstr(sb, " (Spatial-X)");
	else if (lp->spacetime == SPEC_SPATIAL_Y)
		strbuf_addstr(sb, " (Spatial-Y)");
	strbuf_addch(sb, '\n');
}

void report_map_txt(const struct spec_set *s, const struct spec_mapping *m,
		    const struct model_result *r, struct strbuf *out)
{
	size_t pending = 0;      /* dashes owed by the last header, 0 = none */
	bool after_loops = false;
	unsigned depth = 0, L, l;

	for (L = m->n_loops; L-- > 0;) {
		const struct spec_loop *lp = &m->loops[L];
		for (l = 0; l < m->n_levels; l++) {
			if (m->boundary[l] != L)
				continue;
			if (after_loops)
				strbuf_addch(out, '\n');
			if (pending)
				strbuf_addch(out, '\n');
			pending = header(s, r, l, out);
			after_loops = false;
		}
		if (lp->end <= 1)
			continue;
		if (pending) {
			strbuf_addch(out, '\n');
			strbuf_addchars(out, '-', pending - 1);
			strbuf_addch(out, '\n');
			pending = 0;
		}
		loop_line(s, lp, depth++, out);
		after_loops = true;
	}
	if (pending) {
		strbuf_addch(out, '\n');
		strbuf_addchars(out, '-', pending - 1);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "| ");
	strbuf_addchars(out, ' ', 2 * depth);
	strbuf_addstr(out, "<< Compute >>\n");
}
