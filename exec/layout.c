/*
 * How a level stores its tile of a tensor as a fibertree: which loops of
 * the mapping form each rank (Sparseloop's rule: ranks are taken by the
 * non-trivial loops relevant to the tensor, outermost rank from the
 * outermost loop; a compressed level whose child holds more than one point
 * stores the child's ranks below its own), and the units each rank needs
 * for the actual values of a tile, counted leaf by leaf.
 */
#include "exec/sparse_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Points of the projection hull of the op box [0, ext-1] of tensor 'g'. */
static uint64_t hull_size(const struct xgeom *g, const uint64_t *ext)
{
	uint64_t n = 1;
	unsigned r, i;

	for (r = 0; r < g->n_ranks; r++) {
		int64_t span = 0;
		for (i = 0; i < g->proj[r].n_terms; i++) {
			int64_t c = g->proj[r].terms[i].coef;
			span += (c < 0 ? -c : c) * ((int64_t)ext[g->proj[r].terms[i].dim] - 1);
		}
		n *= (uint64_t)span + 1;
	}
	return n;
}

struct sloop {
	unsigned dim;
	uint64_t end;
	int rank;                      /* -1: not in any rank */
};

/* The flattening group of rank 'r' (Sparseloop numbering) listing 'dim', or 0. */
static uint32_t flatten_group(const struct xfmt *f, unsigned r, unsigned dim, bool *has_rule)
{
	unsigned i, k;

	*has_rule = false;
	if (r >= f->n_ranks)
		return 0;
	k = f->n_ranks - 1 - r;
	*has_rule = f->n_flatten[k] > 0;
	for (i = 0; i < f->n_flatten[k]; i++)
		if (f->flatten[k][i] & (1u << dim))
			return f->flatten[k][i];
	return 0;
}

/*
 * Assign ranks [inner, R) to the loops of 's' (inner first), outer to inner
 * or inner to outer. Returns -1 when loops are left over.
 */
static int assign_ranks(struct sloop *s, size_t n, const struct xfmt *f, unsigned inner)
{
	int j = f->inner_to_outer ? 0 : (int)n - 1;
	int step = f->inner_to_outer ? 1 : -1;
	int r = f->inner_to_outer ? (int)inner : (int)f->n_ranks - 1;

	while (j >= 0 && j < (int)n) {
		bool has_rule;
		uint32_t grp;
		if (s[j].end <= 1) {
			j += step;
			continue;
		}
		if (r < (int)inner || r >= (int)f->n_ranks)
			return -1;
		grp = flatten_group(f, (unsigned)r, s[j].dim, &has_rule);
		if (f->has_md && has_rule && !grp) {
			r += step;          /* the rank stays empty; offer the loop to the next */
			continue;
		}
		s[j].rank = r;
		j += step;
		while (j >= 0 && j < (int)n &&
		       (!f->has_md || s[j].end <= 1 || (grp && (grp & (1u << s[j].dim))))) {
			s[j].rank = r;
			j += step;
		}
		r += step;
	}
	return 0;
}

static void add_loop(struct xfmt *f, size_t *alloc, unsigned dim, uint64_t end, unsigned rank)
{
	XGROW(f->loops, f->n_loops + 1, *alloc);
	f->loops[f->n_loops].dim = dim;
	f->loops[f->n_loops].end = end;
	f->loops[f->n_loops].rank = rank;
	f->n_loops++;
}

/* The loops of level 'l' (child 'c') that are relevant to 't', inner first. */
static size_t singleton_subnest(const struct xplan *p, unsigned t, unsigned l, int c,
				struct sloop **out)
{
	const struct spec_mapping *m = p->s->mapping;
	unsigned j, lo = (unsigned)(c + 1);
	size_t n = 0;
	struct sloop *s = xcalloc(m->n_complete + XD + 1, sizeof(*s));

	for (j = m->complete_begin[lo]; j < m->complete_begin[l + 1]; j++)
		if (p->geom[t].dim_mask & (1u << m->complete[j].dim))
			s[n++] = (struct sloop){ m->complete[j].dim, m->complete[j].end, -1 };
	*out = s;
	return n;
}

/* Without pre-tiling, the innermost loop of each dim also covers the child's extent. */
static size_t absorb_child_extent(const struct xplan *p, unsigned t, int c, struct sloop *s,
				  size_t n)
{
	unsigned d;
	size_t j;

	if (c < 0)
		return n;
	for (d = 0; d < p->n_dims; d++) {
		uint64_t mult = xplan_level_extent(p, c, d);
		if (mult <= 1 || !(p->geom[t].dim_mask & (1u << d)))
			continue;
		for (j = 0; j < n && s[j].dim != d; j++)
			;
		if (j < n) {
			s[j].end *= mult;
		} else {
			memmove(s + 1, s, n * sizeof(*s));
			s[0] = (struct sloop){ d, mult, -1 };
			n++;
		}
	}
	return n;
}

/* Tensor offset (per tensor rank) of combination 'k' of rank 'r's loops. */
static void rank_offset(const struct xgeom *g, const struct xfmt *f, unsigned r, uint64_t k,
			int64_t *out)
{
	int64_t off[XD] = { 0 };
	unsigned q, i;
	size_t j;

	for (j = 0; j < f->n_loops; j++)
		if (f->loops[j].rank == r) {
			off[f->loops[j].dim] += (int64_t)(k % f->loops[j].end * f->loops[j].stride);
			k /= f->loops[j].end;
		}
	for (q = 0; q < g->n_ranks; q++) {
		out[q] = 0;
		for (i = 0; i < g->proj[q].n_terms; i++)
			out[q] += g->proj[q].terms[i].coef * off[g->proj[q].terms[i].dim];
	}
}

/*
 * The distinct tensor offsets of rank 'r' (its fiber positions), in
 * ascending order: the combinations of its loops projected onto the tensor.
 */
static void rank_positions(const struct xgeom *g, struct xfmt *f, unsigned r)
{
	int64_t lo[XR], hi[XR], v[XR];
	uint64_t n = 1, k, span = 1, key, n_unique = 0;
	uint64_t *seen;
	unsigned q;
	size_t j;

	for (j = 0; j < f->n_loops; j++)
		if (f->loops[j].rank == r)
			n *= f->loops[j].end;
	for (q = 0; q < g->n_ranks; q++)
		lo[q] = INT64_MAX, hi[q] = INT64_MIN;
	for (k = 0; k < n; k++) {
		rank_offset(g, f, r, k, v);
		for (q = 0; q < g->n_ranks; q++) {
			lo[q] = v[q] < lo[q] ? v[q] : lo[q];
			hi[q] = v[q] > hi[q] ? v[q] : hi[q];
		}
	}
	for (q = 0; q < g->n_ranks; q++)
		span *= (uint64_t)(hi[q] - lo[q] + 1);
	seen = xcalloc(span / 64 + 1, sizeof(*seen));
	for (k = 0; k < n; k++) {
		rank_offset(g, f, r, k, v);
		for (key = 0, q = 0; q < g->n_ranks; q++)
			key = key * (uint64_t)(hi[q] - lo[q] + 1) + (uint64_t)(v[q] - lo[q]);
		if (!(seen[key / 64] >> (key % 64) & 1)) {
			seen[key / 64] |= 1ull << (key % 64);
			n_unique++;
		}
	}
	f->pos[r] = xcalloc(n_unique * g->n_ranks + 1, sizeof(int32_t));
	f->fiber_shape[r] = n_unique;
	for (k = 0, key = 0; key < span; key++) {
		uint64_t rest = key;
		if (!(seen[key / 64] >> (key % 64) & 1))
			continue;
		for (q = g->n_ranks; q-- > 0;) {
			uint64_t w = (uint64_t)(hi[q] - lo[q] + 1);
			f->pos[r][k * g->n_ranks + q] = (int32_t)(lo[q] + (int64_t)(rest % w));
			rest /= w;
		}
		k++;
	}
	free(seen);
}

/* Strides inside the tile and the fiber positions of every rank. */
static void finish_positions(const struct xplan *p, unsigned t, struct xfmt *f)
{
	uint64_t scale[XD];
	unsigned r, d;
	size_t i;

	for (d = 0; d < XD; d++)
		scale[d] = 1;
	for (i = 0; i < f->n_loops; i++) {
		f->loops[i].stride = scale[f->loops[i].dim];
		scale[f->loops[i].dim] *= f->loops[i].end;
	}
	for (r = 0; r < f->n_ranks; r++)
		rank_positions(&p->geom[t], f, r);
}

/*
 * Expand the named format of 'f' for a level whose subnest has 'own' loops
 * that take ranks, above 'inner' ranks of the child (pre-tiling), into
 * per-rank formats, outermost first (docs/formats-and-densities.md, "Named
 * formats"): CSR and CSC are offset pairs over one coordinate rank, COO is
 * one coordinate rank that flattens every dimension of the tensor, bitmask
 * is a bitmask on every rank, CSF coordinates on every rank, and N:M keeps
 * uncompressed ranks over one coordinate rank (each value's index in its
 * group). Returns -1 when that needs more ranks than a format may have.
 */
static int expand_named(struct xfmt *f, unsigned inner, unsigned own, uint32_t dims)
{
	unsigned n = f->named == SPEC_NAMED_COO ? inner + 1 : inner + (own ? own : 1), i;

	if (n > SPEC_MAX_FMT_RANKS)
		return -1;
	f->n_ranks = n;
	for (i = 0; i < n; i++) {
		bool last = i + 1 == n;
		f->n_flatten[i] = 0;
		switch (f->named) {
		case SPEC_NAMED_CSR:
		case SPEC_NAMED_CSC:
			f->kind[i] = last ? FMT_CP : FMT_UOP;
			break;
		case SPEC_NAMED_COO:
			f->kind[i] = FMT_CP;
			f->n_flatten[i] = 1;
			f->flatten[i][0] = dims;
			break;
		case SPEC_NAMED_BITMASK:
			f->kind[i] = FMT_B;
			break;
		case SPEC_NAMED_CSF:
			f->kind[i] = FMT_CP;
			break;
		case SPEC_NAMED_NM:
			f->kind[i] = last ? FMT_CP : FMT_U;
			break;
		case SPEC_NAMED_RLE:
			f->kind[i] = last ? FMT_RLE : FMT_U;
			break;
		default:
			BUG("named format %d", (int)f->named);
		}
	}
	return 0;
}

/* Loops of 's' that take a rank: the non-trivial ones. */
static unsigned count_rank_loops(const struct sloop *s, size_t n)
{
	unsigned k = 0;
	size_t j;

	for (j = 0; j < n; j++)
		k += s[j].end > 1;
	return k;
}

static int layout_one(struct xrun *x, struct xsparse *sp, unsigned t, unsigned i,
		      char why[256])
{
	const struct xplan *p = &x->plan;
	const char *tn = p->s->workload.tensors[t].name;
	unsigned l = (unsigned)p->chain[t][i];
	int c = i ? p->chain[t][i - 1] : -1;
	struct xfmt *f = xsparse_fmt(sp, l, t), *cf = c >= 0 ? xsparse_fmt(sp, (unsigned)c, t) : NULL;
	uint64_t cext[XD];
	struct sloop *s;
	size_t n, alloc = 0, j;
	unsigned d, inner = 0;
	bool pretile;

	for (d = 0; d < p->n_dims; d++) {
		f->ext[d] = xplan_level_extent(p, (int)l, d);
		cext[d] = xplan_level_extent(p, c, d);
	}
	pretile = f->compressed && cf && hull_size(&p->geom[t], cext) > 1;
	n = singleton_subnest(p, t, l, c, &s);
	if (!pretile)
		n = absorb_child_extent(p, t, c, s, n);
	if (pretile)
		inner = cf->n_ranks;
	if (f->named != SPEC_NAMED_NONE &&
	    expand_named(f, inner, count_rank_loops(s, n), p->geom[t].dim_mask) < 0) {
		snprintf(why, 256, "tensor '%s' at level %u needs more than %d format ranks", tn, l,
			 SPEC_MAX_FMT_RANKS);
		free(s);
		return -1;
	}
	if (pretile) {
		if (inner > f->n_ranks) {
			snprintf(why, 256, "tensor '%s' has fewer format ranks at level %u than below it",
				 tn, l);
			free(s);
			return -1;
		}
		for (j = 0; j < cf->n_loops; j++)
			add_loop(f, &alloc, cf->loops[j].dim, cf->loops[j].end, cf->loops[j].rank);
	}
	if (assign_ranks(s, n, f, inner) < 0) {
		snprintf(why, 256, "tensor '%s' at level %u needs more format ranks than given", tn, l);
		free(s);
		return -1;
	}
	for (j = 0; j < n; j++)
		if (s[j].rank >= 0)
			add_loop(f, &alloc, s[j].dim, s[j].end, (unsigned)s[j].rank);
	free(s);
	finish_positions(p, t, f);
	return 0;
}

int exec_layout_init(struct xrun *x, struct xsparse *sp, char why[256])
{
	const struct xplan *p = &x->plan;
	unsigned t, i;

	for (t = 0; t < p->n_tensors; t++)
		for (i = 0; i < p->n_chain[t]; i++)
			if (layout_one(x, sp, t, i, why) < 0)
				return -1;
	return 0;
}

/* ----------------------------------------------------------- tile units */

/* Non-empty flags of every leaf of the tile whose tensor origin is 'org'. */
static uint8_t *leaf_flags(const struct xfmt *f, const struct exec_tensor *v,
			   const int64_t *org, uint64_t *n_leaves)
{
	uint64_t n = 1, k, idx[SPEC_MAX_FMT_RANKS] = { 0 };
	uint8_t *ne;
	unsigned r, q, R = f->n_ranks;

	for (r = 0; r < R; r++)
		n *= f->fiber_shape[r];
	ne = xcalloc(n + 1, 1);
	for (k = 0; k < n; k++) {
		uint64_t lin = 0;
		bool in = true;
		for (q = 0; q < v->n_ranks && in; q++) {
			int64_t c = org[q];
			for (r = 0; r < R; r++)
				c += f->pos[r][idx[r] * v->n_ranks + q];
			in = c >= 0 && (uint64_t)c < v->extent[q];
			lin += (uint64_t)c * v->stride[q];
		}
		ne[k] = in && v->values[lin] != 0;
		for (r = 0; r < R; r++) {      /* rank 0 (innermost) varies fastest */
			if (++idx[r] < f->fiber_shape[r])
				break;
			idx[r] = 0;
		}
	}
	*n_leaves = n;
	return ne;
}

static void compute_units(struct xrun *x, unsigned l, unsigned t, struct xfmt *f,
			  const int64_t *origin, struct units_entry *e)
{
	const struct xplan *p = &x->plan;
	const struct xgeom *g = &p->geom[t];
	struct exec_tensor *v = x->pattern[t];
	int64_t org[XR], hi_op[XD], lo_t[XR], hi_t[XR];
	enum fmt_kind kinds[SPEC_MAX_FMT_RANKS];
	uint64_t shapes[SPEC_MAX_FMT_RANKS], md[SPEC_MAX_FMT_RANKS], pl[SPEC_MAX_FMT_RANKS], n;
	unsigned r, q, i, R = f->n_ranks;
	uint8_t *ne;

	for (i = 0; i < p->n_dims; i++) {
		hi_op[i] = origin[i] + (int64_t)f->ext[i] - 1;
		if ((uint64_t)hi_op[i] >= p->bound[i])
			hi_op[i] = (int64_t)p->bound[i] - 1;
	}
	for (q = 0; q < g->n_ranks; q++) {
		org[q] = lo_t[q] = hi_t[q] = -g->origin[q];
		for (i = 0; i < g->proj[q].n_terms; i++) {
			int64_t c = g->proj[q].terms[i].coef;
			unsigned d = g->proj[q].terms[i].dim;
			org[q] += c * origin[d];
			lo_t[q] += c >= 0 ? c * origin[d] : c * hi_op[d];
			hi_t[q] += c >= 0 ? c * hi_op[d] : c * origin[d];
		}
	}
	e->nnz = exec_tensor_box_nnz(v, lo_t, hi_t);
	e->shape = 1;
	for (q = 0; q < g->n_ranks; q++)
		e->shape *= (uint64_t)(hi_t[q] - lo_t[q] + 1);
	if (!f->has_md)
		return;
	ne = leaf_flags(f, v, org, &n);
	for (i = 0; i < R; i++) {
		kinds[i] = f->kind[i];
		shapes[i] = f->fiber_shape[R - 1 - i];
	}
	exec_ft_units(R, kinds, shapes, f->fixed, ne, !f->inner_to_outer, md, pl);
	for (r = 0; r < R; r++) {
		e->md[r] = (double)md[R - 1 - r];
		e->pl[r] = (double)pl[R - 1 - r];
	}
	free(ne);
	(void)l;
}

/* The tensor box (lo then hi per rank) of the tile at op origin 'origin': the cache key. */
static void tile_key(const struct xrun *x, unsigned t, const struct xfmt *f,
		     const int64_t *origin, int64_t *key)
{
	const struct xplan *p = &x->plan;
	const struct xgeom *g = &p->geom[t];
	unsigned q, i;

	for (q = 0; q < g->n_ranks; q++) {
		int64_t lo = -g->origin[q], hi = -g->origin[q];
		for (i = 0; i < g->proj[q].n_terms; i++) {
			int64_t c = g->proj[q].terms[i].coef;
			unsigned d = g->proj[q].terms[i].dim;
			int64_t a = origin[d], b = origin[d] + (int64_t)f->ext[d] - 1;
			if ((uint64_t)b >= p->bound[d])
				b = (int64_t)p->bound[d] - 1;
			lo += c >= 0 ? c * a : c * b;
			hi += c >= 0 ? c * b : c * a;
		}
		key[q] = lo;
		key[g->n_ranks + q] = hi;
	}
}

const struct units_entry *exec_layout_units(struct xrun *x, unsigned l, unsigned t,
					    const int64_t *origin)
{
	struct xfmt *f = xsparse_fmt(x->sp, l, t);
	unsigned nk = 2 * x->plan.geom[t].n_ranks;
	int64_t key[XD] = { 0 };
	struct units_entry *e;
	bool is_new;

	tile_key(x, t, f, origin, key);
	if (f->last && !memcmp(f->last_key, key, nk * sizeof(*key)))
		return f->last;
	if (!f->cache.key_size)
		hashmap_init(&f->cache, nk * sizeof(*key), sizeof(*e));
	e = hashmap_put(&f->cache, key, &is_new);
	if (is_new)
		compute_units(x, l, t, f, origin, e);
	memcpy(f->last_key, key, nk * sizeof(*key));
	f->last = e;
	return e;
}

void exec_layout_release(struct xsparse *sp)
{
	unsigned i, r;

	for (i = 0; i < sp->n_levels * sp->n_tensors; i++) {
		struct xfmt *f = &sp->fmt[i];
		free(f->loops);
		hashmap_release(&f->cache);
		for (r = 0; r < SPEC_MAX_FMT_RANKS; r++)
			free(f->pos[r]);
	}
}
