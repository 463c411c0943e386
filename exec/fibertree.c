/*
 * Fibertrees with their own encoders: per rank, U stores nothing, UOP the
 * offset pairs of its children (a CSR row pointer), CP the coordinates of
 * the non-empty elements, B a bitmask plus the non-empty elements, RLE the
 * run of empty positions before each non-empty element, UB a bitmask plus
 * every element. Lookups walk the encoding as a sparse compiler lowers an
 * access: offsets for dense axes, binary search in coordinate lists for
 * sparse axes, popcounts for bitmasks and run-length scans.
 */
#include "exec/exec_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct ftrank {
	enum fmt_kind kind;
	uint64_t f;                    /* fiber shape */
	uint64_t n_fibers;             /* stored fibers */
	uint64_t n_elems;              /* stored elements */
	uint64_t *seg;                 /* n_fibers + 1 element offsets (offset pairs) */
	uint64_t *coord;               /* CP: coordinate; RLE: empty run before; per element */
	uint64_t *bits;                /* B, UB: f bits per fiber */
	unsigned wpf;                  /* words per fiber bitmask */
	uint64_t *dense;               /* dense element id of each stored element */
	uint64_t md_units, pl_units;
};

struct exec_fibertree {
	unsigned n;
	struct ftrank r[SPEC_MAX_FMT_RANKS];
	double *vals;                  /* per stored element of the last rank */
	uint64_t nnz;
};

static bool is_compressed(enum fmt_kind k)
{
	return k == FMT_CP || k == FMT_B || k == FMT_RLE;
}

/*
 * Non-empty flags of every rank, outermost first: ne[i] has one byte per
 * dense element of rank i (prod of shapes[0..i]); ne[n-1] is 'leaf'.
 */
static uint8_t **rank_flags(unsigned n, const uint64_t *shapes, const uint8_t *leaf)
{
	uint8_t **ne = xcalloc(n + 1, sizeof(*ne));
	uint64_t count = 1, e, q;
	uint64_t counts[SPEC_MAX_FMT_RANKS];
	int i;

	for (i = 0; i < (int)n; i++) {
		count *= shapes[i];
		counts[i] = count;
	}
	ne[n - 1] = (uint8_t *)leaf;
	for (i = (int)n - 2; i >= 0; i--) {
		ne[i] = xcalloc(counts[i] + 1, 1);
		for (e = 0; e < counts[i]; e++)
			for (q = 0; q < shapes[i + 1] && !ne[i][e]; q++)
				ne[i][e] = ne[i + 1][e * shapes[i + 1] + q];
	}
	return ne;
}

static void free_flags(uint8_t **ne, unsigned n)
{
	unsigned i;
	for (i = 0; i + 1 < n; i++)
		free(ne[i]);
	free(ne);
}

static uint64_t count_set(const uint8_t *v, uint64_t n)
{
	uint64_t i, c = 0;
	for (i = 0; i < n; i++)
		c += v[i] != 0;
	return c;
}

void exec_ft_units(unsigned n, const enum fmt_kind *kinds, const uint64_t *shapes,
		   const uint64_t *fixed, const uint8_t *leaf_ne, bool top_is_rank0,
		   uint64_t *md, uint64_t *pl)
{
	uint8_t **ne;
	uint64_t F = 1;
	int i, innermost = -1;
	bool empty_rank[SPEC_MAX_FMT_RANKS];

	if (!n)
		return;
	ne = rank_flags(n, shapes, leaf_ne);
	for (i = 0; i < (int)n; i++) {
		uint64_t f = shapes[i], fibers, elems;
		bool top = top_is_rank0 ? i == 0 : i == (int)n - 1;
		md[i] = pl[i] = 0;
		empty_rank[i] = f == 1 && !top;
		if (empty_rank[i]) {
			continue;
		}
		fibers = i == 0 ? count_set(ne[0], f) > 0 : count_set(ne[i - 1], F);
		elems = count_set(ne[i], F * f);
		switch (kinds[i]) {
		case FMT_U:
			break;
		case FMT_UOP:
			pl[i] = fibers * (f + 1);
			break;
		case FMT_CP:
			if (fixed && fixed[i]) {
				md[i] = pl[i] = F * (fixed[i] < f ? fixed[i] : f);
				break;
			}
			md[i] = pl[i] = elems;
			break;
		case FMT_RLE:
			md[i] = pl[i] = elems;
			break;
		case FMT_B:
			md[i] = fibers * f;
			pl[i] = elems;
			break;
		case FMT_UB:
			md[i] = pl[i] = F * f;
			break;
		default:
			BUG("format kind %d", (int)kinds[i]);
		}
		F *= f;
		innermost = i;
	}
	if (innermost >= 0)
		pl[innermost] = 0;
	free_flags(ne, n);
}

/* --------------------------------------------------------------- encoding */

static void encode_rank(struct ftrank *rk, const uint8_t *ne, const uint64_t *parent_dense,
			uint64_t n_parent)
{
	uint64_t fi, p, e = 0, alloc = n_parent * rk->f + 1;

	rk->n_fibers = n_parent;
	rk->seg = xcalloc(n_parent + 1, sizeof(*rk->seg));
	rk->coord = xcalloc(alloc, sizeof(*rk->coord));
	rk->dense = xcalloc(alloc, sizeof(*rk->dense));
	rk->wpf = (unsigned)((rk->f + 63) / 64);
	if (rk->kind == FMT_B || rk->kind == FMT_UB)
		rk->bits = xcalloc(n_parent * rk->wpf + 1, sizeof(*rk->bits));
	for (fi = 0; fi < n_parent; fi++) {
		int64_t last = -1;
		rk->seg[fi] = e;
		for (p = 0; p < rk->f; p++) {
			uint64_t d = parent_dense[fi] * rk->f + p;
			bool nz = ne[d] != 0;
			if (nz && rk->bits)
				rk->bits[fi * rk->wpf + p / 64] |= 1ull << (p % 64);
			if (!nz && is_compressed(rk->kind))
				continue;
			rk->coord[e] = rk->kind == FMT_RLE ? (uint64_t)((int64_t)p - last - 1) : p;
			rk->dense[e++] = d;
			last = (int64_t)p;
		}
	}
	rk->seg[n_parent] = e;
	rk->n_elems = e;
}

struct exec_fibertree *exec_fibertree_encode(unsigned n_ranks, const enum fmt_kind *kinds,
					     const uint64_t *shapes, const double *values)
{
	struct exec_fibertree *ft = xcalloc(1, sizeof(*ft));
	uint64_t total = 1, i, root = 0;
	uint64_t md[SPEC_MAX_FMT_RANKS], pl[SPEC_MAX_FMT_RANKS];
	uint8_t *leaf, **ne;
	const uint64_t *parent = &root;
	uint64_t n_parent = 1;
	unsigned r;

	if (n_ranks == 0 || n_ranks > SPEC_MAX_FMT_RANKS)
		BUG("fibertree of %u ranks", n_ranks);
	ft->n = n_ranks;
	for (r = 0; r < n_ranks; r++)
		total *= shapes[r];
	leaf = xcalloc(total + 1, 1);
	for (i = 0; i < total; i++) {
		leaf[i] = values[i] != 0;
		ft->nnz += leaf[i];
	}
	ne = rank_flags(n_ranks, shapes, leaf);
	for (r = 0; r < n_ranks; r++) {
		ft->r[r].kind = kinds[r];
		ft->r[r].f = shapes[r];
		encode_rank(&ft->r[r], ne[r], parent, n_parent);
		parent = ft->r[r].dense;
		n_parent = ft->r[r].n_elems;
	}
	ft->vals = xcalloc(n_parent + 1, sizeof(*ft->vals));
	for (i = 0; i < n_parent; i++)
		ft->vals[i] = values[parent[i]];
	exec_ft_units(n_ranks, kinds, shapes, NULL, leaf, true, md, pl);
	for (r = 0; r < n_ranks; r++) {
		ft->r[r].md_units = md[r];
		ft->r[r].pl_units = pl[r];
	}
	free_flags(ne, n_ranks);
	free(leaf);
	return ft;
}

/* Stored element of position 'p' in fiber 'fi' of rank 'rk', or -1 if absent. */
static int64_t find_element(const struct ftrank *rk, uint64_t fi, uint64_t p)
{
	uint64_t lo = rk->seg[fi], hi = rk->seg[fi + 1], e, pos;
	const uint64_t *b = rk->bits ? rk->bits + fi * rk->wpf : NULL;
	uint64_t w, below = 0;

	switch (rk->kind) {
	case FMT_UB:
		if (!(b[p / 64] >> (p % 64) & 1))
			return -1;
		/* fall through */
	case FMT_U:
	case FMT_UOP:
		return (int64_t)(lo + p);
	case FMT_CP:
		while (lo < hi) {              /* binary search in [lo, hi) */
			uint64_t mid = lo + (hi - lo) / 2;
			if (rk->coord[mid] < p)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < rk->seg[fi + 1] && rk->coord[lo] == p ? (int64_t)lo : -1;
	case FMT_B:
		if (!(b[p / 64] >> (p % 64) & 1))
			return -1;
		for (w = 0; w < p / 64; w++)
			below += (uint64_t)__builtin_popcountll(b[w]);
		if (p % 64)
			below += (uint64_t)__builtin_popcountll(b[p / 64] & ((1ull << (p % 64)) - 1));
		return (int64_t)(lo + below);
	case FMT_RLE:
		for (e = lo, pos = 0; e < hi; e++) {
			pos += rk->coord[e];
			if (pos == p)
				return (int64_t)e;
			if (pos > p)
				return -1;
			pos++;
		}
		return -1;
	default:
		BUG("format kind %d", (int)rk->kind);
	}
}

double exec_fibertree_lookup(const struct exec_fibertree *ft, const uint64_t *pos)
{
	uint64_t fi = 0;
	unsigned r;

	for (r = 0; r < ft->n; r++) {
		int64_t e;
		if (pos[r] >= ft->r[r].f)
			return 0;
		e = find_element(&ft->r[r], fi, pos[r]);
		if (e < 0)
			return 0;
		fi = (uint64_t)e;
	}
	return ft->vals[fi];
}

void exec_fibertree_units(const struct exec_fibertree *ft, unsigned r, uint64_t *md_units,
			  uint64_t *pl_units)
{
	*md_units = ft->r[r].md_units;
	*pl_units = ft->r[r].pl_units;
}

uint64_t exec_fibertree_nnz(const struct exec_fibertree *ft)
{
	return ft->nnz;
}

void exec_fibertree_free(struct exec_fibertree *ft)
{
	unsigned r;

	if (!ft)
		return;
	for (r = 0; r < ft->n; r++) {
		free(ft->r[r].seg);
		free(ft->r[r].coord);
		free(ft->r[r].bits);
		free(ft->r[r].dense);
	}
	free(ft->vals);
	free(ft);
}
