/*
 * Ragged (dense-variable) dimensions, SparseTIR's variable axes in a
 * workload: 'problem.ragged' gives, for each ragged dimension, its parent
 * dimension and its extent at each parent coordinate (a list, a file of
 * integers, or a uniform distribution). The dimension's bound in 'instance'
 * is the box the mapping tiles; each parent coordinate runs the part of it
 * its extent covers. A ragged workload is evaluated one parent coordinate at
 * a time (spec_ragged_cases, spec_ragged_view_init): the parent's loops are
 * outermost at the outermost level, so the coordinates are independent.
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const ragged_keys[] = { "parent", "lengths", "lengths_file", "distribution" };
static const char *const dist_keys[] = { "type", "min", "max" };
static const char *const dist_types[] = { "uniform" };

/* The most extent combinations the model enumerates (list groups x distribution supports). */
#define RAGGED_MAX_CASES 100000u

/* Directory part of 'path' (with the trailing '/'), or "" for a bare name. */
static const char *dir_of(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? arena_strndup(a, path, (size_t)(slash - path + 1)) : "";
}

/* lengths: [..] into r (count checked by the caller). */
static int parse_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      uint64_t bound, struct spec_ragged *r)
{
	uint64_t *v;
	size_t i;

	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	v = arena_alloc(ld->a, (n->n + 1) * sizeof(*v));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (ld_uint(ld, n->items[i], &ip, 1, bound, &v[i]) < 0)
			return -1;
	}
	r->n_lengths = n->n;
	r->lengths = v;
	return 0;
}

/* lengths_file: integers separated by white space (or commas); '#' starts a comment. */
static int parse_file(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      uint64_t bound, struct spec_ragged *r)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const char *file, *s;
	uint64_t *v = NULL, count = 0, alloc = 0;
	unsigned line = 1;
	const char *line_start;
	int rc = 0;

	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	file = n->str[0] == '/' || ld_from_override(ld, n->loc) ? n->str
		: arena_printf(ld->a, "%s%s", dir_of(ld->a, n->loc.file), n->str);
	if (fileio_read(file, &text, &err) < 0) {
		rc = ld_error(ld, n, p, "cannot read the lengths file '%s': %s", file, err.buf);
		goto out;
	}
	line_start = text.buf;
	for (s = text.buf; *s && rc == 0;) {
		char *end;
		unsigned long long x;
		if (*s == '\n') {
			line++;
			line_start = s + 1;
		}
		if (isspace((unsigned char)*s) || *s == ',') {
			s++;
			continue;
		}
		if (*s == '#') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		x = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
		if (!isdigit((unsigned char)*s) || x < 1 || x > bound ||
		    (*end && !isspace((unsigned char)*end) && *end != ',' && *end != '#')) {
			struct diag_loc at = { .file = ld_intern(ld, file), .line = line,
					       .col = (unsigned)(s - line_start) + 1 };
			rc = ld_error_at(ld, at, p, "expected an extent in [1, %llu] (the bound), "
					 "got '%.*s'", (unsigned long long)bound,
					 (int)strcspn(s, " \t\r\n,#"), s);
			break;
		}
		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[count++] = x;
		s = end;
	}
	if (rc == 0) {
		uint64_t *a = arena_alloc(ld->a, (count + 1) * sizeof(*a));
		if (count)
			memcpy(a, v, count * sizeof(*a));
		r->lengths = a;
		r->n_lengths = count;
	}
out:
	free(v);
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}

/* distribution: {type: uniform, min, max}. */
static int parse_dist(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      uint64_t bound, struct spec_ragged *r)
{
	const struct ysrc_node *t = ld_get(n, "type"), *lo = ld_get(n, "min"), *hi = ld_get(n, "max");
	struct kpath tp = KP_KEY(p, "type"), lp = KP_KEY(p, "min"), hp = KP_KEY(p, "max");

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, dist_keys, ARRAY_SIZE(dist_keys)))
		return -1;
	if (!t || !lo || !hi)
		return ld_error(ld, n, p, "a distribution of extents needs 'type' (uniform), "
				"'min' and 'max'");
	if (ld_want_scalar(ld, t, &tp) < 0 ||
	    ld_lookup_keyword(ld, t, &tp, "distribution of extents", t->str, dist_types,
			      ARRAY_SIZE(dist_types)) < 0)
		return -1;
	if (ld_uint(ld, lo, &lp, 1, bound, &r->min) < 0 ||
	    ld_uint(ld, hi, &hp, r->min, bound, &r->max) < 0)
		return -1;
	r->source = SPEC_RAGGED_UNIFORM;
	return 0;
}

/* One entry 'DIM: {parent, lengths | lengths_file | distribution}'. */
static int parse_one(struct ld *ld, const struct ysrc_pair *pr, const struct kpath *p,
		     struct spec_ragged *r)
{
	const struct spec_workload *w = &ld->s->workload;
	const struct ysrc_node *n = pr->value, *par, *src = NULL;
	struct kpath pp = KP_KEY(p, "parent");
	static const char *const sources[] = { "lengths", "lengths_file", "distribution" };
	unsigned i, n_src = 0, which = 0;
	int d;

	if ((d = ld_dim_index(ld, pr->key, p, pr->key->str)) < 0)
		return -1;
	r->dim = (unsigned)d;
	r->loc = pr->key->loc;
	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, ragged_keys, ARRAY_SIZE(ragged_keys)))
		return -1;
	par = ld_get(n, "parent");
	if (!par)
		return ld_error(ld, n, p, "a ragged dimension needs a 'parent': the dimension whose "
				"coordinate sets its extent");
	if (ld_want_scalar(ld, par, &pp) < 0 || (d = ld_dim_index(ld, par, &pp, par->str)) < 0)
		return -1;
	if ((unsigned)d == r->dim)
		return ld_error(ld, par, &pp, "dimension '%s' cannot be its own parent", par->str);
	r->parent = (unsigned)d;
	for (i = 0; i < ARRAY_SIZE(sources); i++)
		if (ld_get(n, sources[i])) {
			src = ld_get(n, sources[i]);
			which = i;
			n_src++;
		}
	if (n_src != 1)
		return ld_error(ld, n, p, "give the extents by exactly one of 'lengths', "
				"'lengths_file' or 'distribution' (%u given)", n_src);
	{
		struct kpath sp = KP_KEY(p, sources[which]);
		uint64_t bound = w->bounds[r->dim], pb = w->bounds[r->parent];
		uint64_t k;
		int rc = which == 0 ? parse_list(ld, src, &sp, bound, r)
			: which == 1 ? parse_file(ld, src, &sp, bound, r)
			: parse_dist(ld, src, &sp, bound, r);
		if (rc < 0)
			return -1;
		if (which == 2)
			return 0;
		if (r->n_lengths != pb)
			return ld_error(ld, src, &sp, "%llu extents for ragged dimension '%s'; its "
					"parent '%s' has bound %llu: give one per parent coordinate",
					(unsigned long long)r->n_lengths, w->dim_names[r->dim],
					w->dim_names[r->parent], (unsigned long long)pb);
		r->min = UINT64_MAX;
		r->max = 0;
		for (k = 0; k < r->n_lengths; k++) {
			if (r->lengths[k] < r->min)
				r->min = r->lengths[k];
			if (r->lengths[k] > r->max)
				r->max = r->lengths[k];
		}
	}
	return 0;
}

int spec_ragged_load(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct kpath rp = KP_KEY(p, "ragged");
	struct spec_ragged *rs;
	uint64_t cases = 1;
	size_t i;

	if (!n)
		return 0;
	if (ld_want_map(ld, n, &rp) < 0)
		return -1;
	if (n->n > SPEC_MAX_DIMS)
		return ld_error(ld, n, &rp, "more ragged dimensions than dimensions");
	rs = arena_alloc(ld->a, (n->n + 1) * sizeof(*rs));
	memset(rs, 0, (n->n + 1) * sizeof(*rs));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_KEY(&rp, n->pairs[i].key->str);
		size_t j;
		if (parse_one(ld, &n->pairs[i], &ip, &rs[i]) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (rs[j].dim == rs[i].parent || rs[i].dim == rs[j].parent)
				return ld_error(ld, n->pairs[i].key, &ip, "a ragged dimension cannot "
						"be a parent: '%s' and '%s' are both", w->dim_names[rs[i].dim],
						w->dim_names[rs[j].dim]);
			else if (rs[j].parent != rs[i].parent)
				return ld_error(ld, n->pairs[i].key, &ip, "every ragged dimension has "
						"one parent: '%s' has '%s', '%s' has '%s'",
						w->dim_names[rs[j].dim], w->dim_names[rs[j].parent],
						w->dim_names[rs[i].dim], w->dim_names[rs[i].parent]);
		if (rs[i].source == SPEC_RAGGED_UNIFORM)
			cases *= rs[i].max - rs[i].min + 1;
		else
			cases *= rs[i].n_lengths;
		if (cases > RAGGED_MAX_CASES)
			return ld_error(ld, n->pairs[i].key, &ip, "more than %u combinations of "
					"extents to evaluate; use fewer distinct extents",
					RAGGED_MAX_CASES);
	}
	w->n_ragged = (unsigned)n->n;
	w->ragged = rs;
	return 0;
}

/* ------------------------------------------------------ evaluation helpers */

int spec_ragged_check_mapping(const struct spec_workload *w, const struct spec_mapping *m,
			      struct strbuf *why)
{
	unsigned parent, i, top = m->n_levels - 1;
	bool outer = true;

	if (!w->n_ragged)
		return 0;
	parent = w->ragged[0].parent;
	for (i = m->n_loops; i-- > 0;) {
		const struct spec_loop *lp = &m->loops[i];
		if (lp->dim != parent) {
			outer = false;
			continue;
		}
		if (!outer || lp->level != top || lp->spacetime != SPEC_TEMPORAL) {
			strbuf_addf(why, "the loops of '%s', the parent of ragged dimension '%s', must "
				    "be temporal and outermost at the outermost level",
				    w->dim_names[parent], w->dim_names[w->ragged[0].dim]);
			return -1;
		}
	}
	return 0;
}

static unsigned g_n_list;

/* Order tuples of list extents (qsort). */
static int cmp_tuple(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	unsigned i;

	for (i = 0; i < g_n_list; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t spec_ragged_cases(const struct spec_workload *w, struct spec_ragged_case **out)
{
	uint64_t pb, k, *tuples;
	unsigned li[SPEC_MAX_DIMS], ui[SPEC_MAX_DIMS], n_list = 0, n_uni = 0, r;
	size_t n_groups = 0, n = 0, g, alloc;
	uint64_t *gcount;
	double uw = 1.0;
	struct spec_ragged_case *c;

	*out = NULL;
	if (!w->n_ragged)
		return 0;
	pb = w->bounds[w->ragged[0].parent];
	for (r = 0; r < w->n_ragged; r++) {
		if (w->ragged[r].source == SPEC_RAGGED_LIST)
			li[n_list++] = r;
		else
			ui[n_uni++] = r;
	}
	/* group the parent coordinates by their tuple of listed extents */
	tuples = xmalloc((size_t)(pb * (n_list ? n_list : 1)) * sizeof(*tuples) + 8);
	gcount = xmalloc((size_t)pb * sizeof(*gcount) + 8);
	for (k = 0; k < pb; k++)
		for (r = 0; r < n_list; r++)
			tuples[k * n_list + r] = w->ragged[li[r]].lengths[k];
	if (n_list) {
		g_n_list = n_list;
		qsort(tuples, (size_t)pb, n_list * sizeof(*tuples), cmp_tuple);
		for (k = 0; k < pb; k++) {
			if (k && !memcmp(&tuples[k * n_list], &tuples[(n_groups - 1) * n_list],
					 n_list * sizeof(*tuples))) {
				gcount[n_groups - 1]++;
				continue;
			}
			memmove(&tuples[n_groups * n_list], &tuples[k * n_list],
				n_list * sizeof(*tuples));
			gcount[n_groups++] = 1;
		}
	} else {
		n_groups = 1;
		gcount[0] = pb;
	}
	alloc = n_groups;
	for (r = 0; r < n_uni; r++) {
		const struct spec_ragged *rg = &w->ragged[ui[r]];
		alloc *= (size_t)(rg->max - rg->min + 1);
		uw /= (double)(rg->max - rg->min + 1);
	}
	c = xcalloc(alloc + 1, sizeof(*c));
	for (g = 0; g < n_groups; g++) {
		uint64_t idx[SPEC_MAX_DIMS] = { 0 };
		for (;;) {
			for (r = 0; r < n_list; r++)
				c[n].extent[li[r]] = tuples[g * n_list + r];
			for (r = 0; r < n_uni; r++)
				c[n].extent[ui[r]] = w->ragged[ui[r]].min + idx[r];
			c[n].weight = (double)gcount[g] * uw;
			n++;
			for (r = 0; r < n_uni; r++) {
				const struct spec_ragged *rg = &w->ragged[ui[r]];
				if (++idx[r] <= rg->max - rg->min)
					break;
				idx[r] = 0;
			}
			if (r == n_uni)
				break;
		}
	}
	free(tuples);
	free(gcount);
	*out = c;
	return n;
}

void spec_ragged_view_init(struct spec_ragged_view *v, const struct spec_set *s,
			   const uint64_t *extent)
{
	struct spec_workload *w;
	unsigned r, t, q, parent;

	v->set = *s;
	w = &v->set.workload;
	parent = s->workload.ragged[0].parent;
	w->n_ragged = 0;
	w->ragged = NULL;
	w->bounds[parent] = 1;
	for (r = 0; r < s->workload.n_ragged; r++) {
		w->bounds[s->workload.ragged[r].dim] = extent[r];
		v->extent[r] = extent[r];
	}
	for (t = 0; t < w->n_tensors && t < SPEC_MAX_TENSORS; t++) {
		struct spec_tensor *tn = &v->tensors[t];
		*tn = s->workload.tensors[t];
		tn->size = 1;
		for (q = 0; q < tn->n_ranks; q++) {
			const struct spec_rank_proj *rp = &tn->ranks[q];
			uint64_t e = 1;
			unsigned i;
			for (i = 0; i < rp->n_terms; i++) {
				int64_t c = rp->terms[i].coef;
				e += (uint64_t)(c < 0 ? -c : c) * (w->bounds[rp->terms[i].dim] - 1);
			}
			tn->rank_extent[q] = e;
			tn->size *= e;
		}
	}
	w->tensors = v->tensors;
	v->set.mapping = &v->map;
	v->set.has_mapping = true;
}

int spec_ragged_view_map(struct spec_ragged_view *v, const struct spec_set *s,
			 const struct spec_mapping *m)
{
	unsigned l, r, parent = s->workload.ragged[0].parent;

	v->map = *m;
	for (l = 0; l < v->map.n_levels; l++) {
		struct spec_map_level *ml = &v->map.levels[l];
		ml->temporal_factors[parent] = ml->temporal_residuals[parent] = 1;
		ml->spatial_factors[parent] = ml->spatial_residuals[parent] = 1;
	}
	for (r = 0; r < s->workload.n_ragged; r++)
		if (spec_mapping_fit_dim(&v->map, s->workload.ragged[r].dim, v->extent[r]) < 0)
			return -1;
	return spec_mapping_derive(&v->map, &v->set.workload) < 0 ? -1 : 0;
}
