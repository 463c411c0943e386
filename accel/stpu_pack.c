/*
 * The column packers of the STPU model (seed 004, "Basic Column Packing
 * Algorithm" and "Optimizations For More Efficient Packing"):
 *
 * - none (TPU): every original column is its own group, empty ones too.
 * - C0: partition-wise first-fit, collision-free. Columns are taken in index
 *   order; a column joins the first group none of whose rows it shares, else
 *   opens a new group. Empty columns of a partition are not packed.
 * - C1: partition-wise, collision-aware. N_ITER relaxed passes: a candidate
 *   joins the first group where the group's collisions stay within
 *   MAX_COLLISION_GROUP of that pass and no row collides more than
 *   MAX_COLLISION_ROW times, provided it adds at least one entry; its
 *   colliding entries leave it and become a residual candidate. A pass's groups, then its residuals, are the next
 *   pass's candidates. The last pass's residuals are packed collision-free
 *   into new groups (the residual pass).
 * - KMZ (Kung, McDanel, Zhang, ASPLOS'19): full-height columns, first-fit
 *   into a group of fewer than alpha columns whose conflicts with it keep
 *   the group's conflicts within gamma x rows; a conflict keeps one entry
 *   (the larger magnitude) and drops the other (lossy).
 *
 * Occupancy is kept transposed, one bit per group, word-major
 * (occ[word * rows + row]): the first group free on every row of a
 * candidate is the first zero bit of the OR of its rows' words.
 */
#include "accel/stpu_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* ------------------------------------------------------------ growable */

struct u32vec {
	uint32_t *v;
	size_t n, alloc;
};

static void u32_push(struct u32vec *a, uint32_t x)
{
	XGROW(a->v, a->n + 1, a->alloc);
	a->v[a->n++] = x;
}

/* A list of candidates: entries (row, column) grouped by candidate, rows ascending. */
struct cands {
	struct u32vec row, col;
	uint64_t *ptr;              /* n + 1 */
	size_t n, alloc;
};

static void cands_reset(struct cands *c)
{
	c->row.n = c->col.n = 0;
	c->n = 0;
	XGROW(c->ptr, 1, c->alloc);
	c->ptr[0] = 0;
}

static void cands_close(struct cands *c)
{
	XGROW(c->ptr, c->n + 2, c->alloc);
	c->ptr[++c->n] = c->row.n;
}

static void cands_add(struct cands *c, uint32_t row, uint32_t col)
{
	u32_push(&c->row, row);
	u32_push(&c->col, col);
}

static void cands_free(struct cands *c)
{
	free(c->row.v);
	free(c->col.v);
	free(c->ptr);
}

/* ------------------------------------------------------ occupancy bits */

/* Word-major group occupancy of 'rows' rows: bit g of occ[w * rows + r]. */
struct occ {
	unsigned rows;
	size_t n_words;             /* words per row in use */
	size_t cap_words;
	uint64_t *bits;
};

static void occ_reset(struct occ *o, unsigned rows)
{
	o->rows = rows;
	o->n_words = 0;
}

/* Make room for group 'g'. */
static void occ_need(struct occ *o, size_t g)
{
	size_t w = g / 64;
	if (w < o->n_words)
		return;
	if (w >= o->cap_words) {
		size_t cap = o->cap_words ? 2 * o->cap_words : 4;
		while (cap <= w)
			cap *= 2;
		o->bits = xreallocarray(o->bits, cap * o->rows, sizeof(*o->bits));
		o->cap_words = cap;
	}
	memset(o->bits + o->n_words * o->rows, 0, (w + 1 - o->n_words) * o->rows * sizeof(*o->bits));
	o->n_words = w + 1;
}

static bool occ_test(const struct occ *o, size_t g, unsigned r)
{
	return (o->bits[(g / 64) * o->rows + r] >> (g % 64)) & 1;
}

static void occ_set(struct occ *o, size_t g, unsigned r)
{
	o->bits[(g / 64) * o->rows + r] |= UINT64_C(1) << (g % 64);
}

/* Mask of the groups < n_groups among the 64 of word 'w'. */
static uint64_t valid_mask(size_t w, size_t n_groups)
{
	size_t lo = w * 64;
	if (n_groups >= lo + 64)
		return ~UINT64_C(0);
	return n_groups <= lo ? 0 : (UINT64_C(1) << (n_groups - lo)) - 1;
}

/*
 * Bit-sliced counters: after adding each candidate row's word, count(b) is
 * the number of rows whose bit b was set.
 */
struct slices {
	unsigned n;
	uint64_t s[32];
};

static void slices_init(struct slices *sl, size_t max_count)
{
	unsigned n = 1;
	while (n < 32 && (UINT64_C(1) << n) <= max_count)
		n++;
	sl->n = n;
	memset(sl->s, 0, sizeof(sl->s));
}

static void slices_add(struct slices *sl, uint64_t x)
{
	unsigned i;
	for (i = 0; x && i < sl->n; i++) {
		uint64_t carry = sl->s[i] & x;
		sl->s[i] ^= x;
		x = carry;
	}
}

static unsigned slices_count(const struct slices *sl, unsigned b)
{
	unsigned i, c = 0;
	for (i = 0; i < sl->n; i++)
		c |= (unsigned)((sl->s[i] >> b) & 1) << i;
	return c;
}

/* ------------------------------------------------------------- packing */

/* The per-partition output the packers build for the callback. */
struct out {
	struct u32vec len, nnz;
	struct u32vec mrow, mcol, mgrp;  /* members (keep_members) */
	uint64_t *mptr;
	size_t mptr_alloc;
	uint32_t *mrow_sorted, *mcol_sorted;
	size_t msorted_alloc;
};

static void out_reset(struct out *o)
{
	o->len.n = o->nnz.n = 0;
	o->mrow.n = o->mcol.n = o->mgrp.n = 0;
}

static void out_member(struct out *o, const struct stpu_pack_params *pp, uint32_t g, uint32_t row,
		       uint32_t col)
{
	if (!pp->keep_members)
		return;
	u32_push(&o->mgrp, g);
	u32_push(&o->mrow, row);
	u32_push(&o->mcol, col);
}

struct member {
	uint32_t g, row, col;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* Sort the kept members by group, then row, into the part's arrays. */
static void out_sort_members(struct out *o, struct stpu_part *part)
{
	size_t n = o->len.n, i, k = o->mgrp.n;
	struct member *m = xmalloc((k ? k : 1) * sizeof(*m));

	for (i = 0; i < k; i++)
		m[i] = (struct member){ o->mgrp.v[i], o->mrow.v[i], o->mcol.v[i] };
	qsort(m, k, sizeof(*m), cmp_member);
	XGROW(o->mptr, n + 1, o->mptr_alloc);
	memset(o->mptr, 0, (n + 1) * sizeof(*o->mptr));
	if (k + 1 > o->msorted_alloc) {
		o->msorted_alloc = k + 1;
		o->mrow_sorted = xreallocarray(o->mrow_sorted, k + 1, sizeof(uint32_t));
		o->mcol_sorted = xreallocarray(o->mcol_sorted, k + 1, sizeof(uint32_t));
	}
	for (i = 0; i < k; i++) {
		o->mptr[m[i].g + 1]++;
		o->mrow_sorted[i] = m[i].row;
		o->mcol_sorted[i] = m[i].col;
	}
	for (i = 0; i < n; i++)
		o->mptr[i + 1] += o->mptr[i];
	part->member_ptr = o->mptr;
	part->member_row = o->mrow_sorted;
	part->member_col = o->mcol_sorted;
	free(m);
}

/* Emit the partition to the callback and add it to the statistics. */
static void out_emit(struct out *o, const struct stpu_pack_params *pp, uint64_t index,
		     unsigned rows, struct accel_stpu_packing *st, stpu_part_fn fn, void *ctx)
{
	struct stpu_part part;
	size_t g, n = o->len.n;

	memset(&part, 0, sizeof(part));
	part.index = index;
	part.rows = rows;
	part.n_groups = n;
	part.len = o->len.v;
	part.nnz = o->nnz.v;
	if (pp->keep_members)
		out_sort_members(o, &part);
	st->packed_width += n;
	if (index == 0 || n < st->min_groups)
		st->min_groups = n;
	if (n > st->max_groups)
		st->max_groups = n;
	for (g = 0; g < n; g++)
		if (o->len.v[g] > st->max_group_columns)
			st->max_group_columns = o->len.v[g];
	fn(ctx, &part);
}

static void out_free(struct out *o)
{
	free(o->len.v);
	free(o->nnz.v);
	free(o->mrow.v);
	free(o->mcol.v);
	free(o->mgrp.v);
	free(o->mptr);
	free(o->mrow_sorted);
	free(o->mcol_sorted);
}

/* The partitions of the pattern: column cursors advance with the partition. */
struct walker {
	const struct stpu_pattern *pat;
	uint64_t *cursor;           /* first entry of the column in the partition */
	unsigned part_rows;
	uint64_t r0;                /* first row of the current partition */
	unsigned rows;
};

static void walker_init(struct walker *wk, const struct stpu_pattern *pat, unsigned part_rows)
{
	wk->pat = pat;
	wk->cursor = xmalloc((size_t)(pat->cols ? pat->cols : 1) * sizeof(*wk->cursor));
	memcpy(wk->cursor, pat->col_ptr, (size_t)pat->cols * sizeof(*wk->cursor));
	wk->part_rows = part_rows;
}

/* Partition p's rows [r0, r0 + rows). */
static void walker_part(struct walker *wk, uint64_t p)
{
	uint64_t left;
	wk->r0 = p * wk->part_rows;
	left = wk->pat->rows - wk->r0;
	wk->rows = left < wk->part_rows ? (unsigned)left : wk->part_rows;
}

/* Column c's entries in the current partition: [*b, *e) of row_idx; the cursor moves on. */
static void walker_col(struct walker *wk, uint64_t c, uint64_t *b, uint64_t *e)
{
	const struct stpu_pattern *pat = wk->pat;
	uint64_t k = wk->cursor[c], end = pat->col_ptr[c + 1], lim = wk->r0 + wk->rows;
	*b = k;
	while (k < end && pat->row_idx[k] < lim)
		k++;
	*e = k;
	wk->cursor[c] = k;
}

/*
 * The entries of the pattern by partition, then column, then row (a stable
 * counting sort of the columns' entries by partition): the packers that
 * skip empty columns visit each partition's non-empty columns only, so
 * their work follows the non-zeros and the partitions, not partitions x
 * columns. Entries of partition p are [ptr[p], ptr[p + 1]); rows are
 * relative to the partition.
 */
struct by_part {
	uint64_t *ptr;
	uint32_t *col, *row;
};

static void by_part_build(struct by_part *bp, const struct stpu_pattern *pat, unsigned part_rows,
			  uint64_t n_parts)
{
	uint64_t c, k, p;

	bp->ptr = xcalloc((size_t)n_parts + 2, sizeof(*bp->ptr));
	bp->col = xmalloc((size_t)(pat->nnz ? pat->nnz : 1) * sizeof(*bp->col));
	bp->row = xmalloc((size_t)(pat->nnz ? pat->nnz : 1) * sizeof(*bp->row));
	for (k = 0; k < pat->nnz; k++)
		bp->ptr[pat->row_idx[k] / part_rows + 2]++;
	for (p = 0; p < n_parts; p++)
		bp->ptr[p + 2] += bp->ptr[p + 1];
	for (c = 0; c < pat->cols; c++)            /* ptr[p + 1]: the next free slot of p */
		for (k = pat->col_ptr[c]; k < pat->col_ptr[c + 1]; k++) {
			uint64_t at = bp->ptr[pat->row_idx[k] / part_rows + 1]++;
			bp->col[at] = (uint32_t)c;
			bp->row[at] = pat->row_idx[k] % part_rows;
		}
}

static void by_part_free(struct by_part *bp)
{
	free(bp->ptr);
	free(bp->col);
	free(bp->row);
}

/* The rows of partition p: part_rows, or what is left for the last one. */
static unsigned part_rows_of(const struct stpu_pattern *pat, unsigned part_rows, uint64_t p)
{
	uint64_t left = pat->rows - p * part_rows;
	return left < part_rows ? (unsigned)left : part_rows;
}

/* ------------------------------------------------------------------ TPU */

static void pack_none(const struct stpu_pattern *pat, const struct stpu_pack_params *pp,
		      struct accel_stpu_packing *st, stpu_part_fn fn, void *ctx)
{
	struct walker wk;
	struct out o;
	uint64_t p, c, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;

	memset(&o, 0, sizeof(o));
	walker_init(&wk, pat, pp->part_rows);
	for (p = 0; p < n_parts; p++) {
		walker_part(&wk, p);
		out_reset(&o);
		for (c = 0; c < pat->cols; c++) {
			uint64_t b, e, k;
			walker_col(&wk, c, &b, &e);
			u32_push(&o.len, 1);
			u32_push(&o.nnz, (uint32_t)(e - b));
			for (k = b; k < e; k++)
				out_member(&o, pp, (uint32_t)c, (uint32_t)(pat->row_idx[k] - wk.r0),
					   (uint32_t)c);
		}
		out_emit(&o, pp, p, wk.rows, st, fn, ctx);
	}
	st->n_groups_total = pat->cols;
	free(wk.cursor);
	out_free(&o);
}

/* ------------------------------------------------------------------- C0 */

/* The first group free on every row of rows[0..m) (n_groups if none). */
static size_t first_free(const struct occ *o, size_t n_groups, const uint32_t *rows, size_t m)
{
	size_t w, i;

	for (w = 0; w < o->n_words; w++) {
		uint64_t x = 0, free_bits, valid = valid_mask(w, n_groups);
		for (i = 0; i < m && (x & valid) != valid; i++)   /* stop once every group is hit */
			x |= o->bits[w * o->rows + rows[i]];
		free_bits = ~x & valid;
		if (free_bits)
			return w * 64 + (size_t)__builtin_ctzll(free_bits);
	}
	return n_groups;
}

/*
 * Collision-free first-fit of the candidates 'cs' into the groups that
 * 'occ' already holds (n_groups of them); new groups are appended. Each
 * group's columns are counted with 'stamp'.
 */
struct c0_state {
	struct occ occ;
	size_t n_groups;
};

static size_t c0_place(struct c0_state *s, const uint32_t *rows, size_t m)
{
	size_t g = first_free(&s->occ, s->n_groups, rows, m), i;
	if (g == s->n_groups) {
		occ_need(&s->occ, g);
		s->n_groups++;
	}
	for (i = 0; i < m; i++)
		occ_set(&s->occ, g, rows[i]);
	return g;
}

static void pack_c0(const struct stpu_pattern *pat, const struct stpu_pack_params *pp,
		    struct accel_stpu_packing *st, stpu_part_fn fn, void *ctx)
{
	struct by_part bp;
	struct out o;
	struct c0_state s;
	uint64_t p, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;

	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	by_part_build(&bp, pat, pp->part_rows, n_parts);
	for (p = 0; p < n_parts; p++) {
		unsigned rows = part_rows_of(pat, pp->part_rows, p);
		uint64_t b = bp.ptr[p], e;
		out_reset(&o);
		occ_reset(&s.occ, rows);
		s.n_groups = 0;
		for (; b < bp.ptr[p + 1]; b = e) {    /* one non-empty column at a time */
			uint32_t c = bp.col[b];
			size_t g, m;
			uint64_t k;
			for (e = b; e < bp.ptr[p + 1] && bp.col[e] == c; e++)
				;
			m = (size_t)(e - b);
			g = c0_place(&s, bp.row + b, m);
			if (g == o.len.n) {
				u32_push(&o.len, 0);
				u32_push(&o.nnz, 0);
			}
			o.len.v[g]++;
			o.nnz.v[g] += (uint32_t)m;
			for (k = b; k < e; k++)
				out_member(&o, pp, (uint32_t)g, bp.row[k], c);
		}
		st->n_groups_total += o.len.n;
		out_emit(&o, pp, p, rows, st, fn, ctx);
	}
	by_part_free(&bp);
	free(s.occ.bits);
	out_free(&o);
}

/* ------------------------------------------------------------------- C1 */

/* The state of one relaxed pass over a partition. */
struct c1_pass {
	struct occ occ;             /* entries */
	struct occ full;            /* (group, row) whose collision budget is spent */
	size_t n_groups;
	uint32_t *owner;            /* [g * rows + r]: column of the entry, or UINT32_MAX */
	uint32_t *row_coll;         /* [g * rows + r]: collisions of that row */
	uint32_t *coll;             /* [g]: collisions of the group */
	size_t cap_groups;
};

static void c1_pass_reset(struct c1_pass *ps, unsigned rows)
{
	occ_reset(&ps->occ, rows);
	occ_reset(&ps->full, rows);
	ps->n_groups = 0;
}

static void c1_new_group(struct c1_pass *ps)
{
	unsigned rows = ps->occ.rows, r;
	size_t g = ps->n_groups++;

	occ_need(&ps->occ, g);
	occ_need(&ps->full, g);
	if (g >= ps->cap_groups) {
		size_t cap = ps->cap_groups ? 2 * ps->cap_groups : 16;
		ps->owner = xreallocarray(ps->owner, cap * rows, sizeof(*ps->owner));
		ps->row_coll = xreallocarray(ps->row_coll, cap * rows, sizeof(*ps->row_coll));
		ps->coll = xreallocarray(ps->coll, cap, sizeof(*ps->coll));
		ps->cap_groups = cap;
	}
	for (r = 0; r < rows; r++) {
		ps->owner[g * rows + r] = UINT32_MAX;
		ps->row_coll[g * rows + r] = 0;
	}
	ps->coll[g] = 0;
}

/*
 * The first group that takes candidate rows[0..m): one it does not collide
 * with, or one where it adds an entry, its collisions keep the group within
 * 'lg' and every colliding row within 'lr'. n_groups when none.
 */
static size_t c1_find(const struct c1_pass *ps, const uint32_t *rows, size_t m, unsigned lg,
		      unsigned lr)
{
	size_t w, i, R = ps->occ.rows;
	unsigned top = 1;

	while (top < 16 && (UINT64_C(1) << top) <= lg)
		top++;                          /* counters of 'top' bits hold 0..lg */
	for (w = 0; w < ps->occ.n_words; w++) {
		uint64_t any = 0, forb = 0, over = 0, valid = valid_mask(w, ps->n_groups);
		uint64_t nocoll, below, cand;
		struct slices sl;
		slices_init(&sl, 0);
		sl.n = top;
		for (i = 0; i < m; i++) {
			uint64_t x = ps->occ.bits[w * R + rows[i]] & valid, carry = x;
			unsigned b;
			any |= x;
			forb |= x & ps->full.bits[w * R + rows[i]];
			for (b = 0; carry && b < top; b++) {
				uint64_t c = sl.s[b] & carry;
				sl.s[b] ^= carry;
				carry = c;
			}
			over |= carry;          /* counts past 2^top - 1 > lg: never taken */
			if (((over | forb) & valid) == valid && lr)
				break;          /* every group of the word collides too much */
		}
		if (lr == 0)
			forb = any;
		nocoll = ~any & valid;
		below = nocoll ? (UINT64_C(1) << __builtin_ctzll(nocoll)) - 1 : ~UINT64_C(0);
		cand = any & ~forb & ~over & valid & below;
		while (cand) {
			unsigned b = (unsigned)__builtin_ctzll(cand);
			size_t g = w * 64 + b;
			unsigned n = slices_count(&sl, b);
			if (n < m && (uint64_t)ps->coll[g] + n <= lg)
				return g;
			cand &= cand - 1;
		}
		if (nocoll)
			return w * 64 + (size_t)__builtin_ctzll(nocoll);
	}
	return ps->n_groups;
}

/*
 * Put candidate k of 'cs' into group g of 'ps'; colliding entries go to
 * 'res' as one new residual candidate. Returns the number of collisions.
 */
static uint64_t c1_merge(struct c1_pass *ps, size_t g, const struct cands *cs, size_t k,
			 unsigned lr, struct cands *res)
{
	unsigned R = ps->occ.rows;
	uint64_t i, n_coll = 0;

	for (i = cs->ptr[k]; i < cs->ptr[k + 1]; i++) {
		uint32_t r = cs->row.v[i], col = cs->col.v[i];
		if (occ_test(&ps->occ, g, r)) {
			cands_add(res, r, col);
			n_coll++;
			ps->coll[g]++;
			if (++ps->row_coll[g * R + r] >= lr)
				occ_set(&ps->full, g, r);
			continue;
		}
		occ_set(&ps->occ, g, r);
		ps->owner[g * R + r] = col;
	}
	if (n_coll)
		cands_close(res);
	return n_coll;
}

/* One relaxed pass: candidates 'cs' into fresh groups; residuals into 'res'. */
static uint64_t c1_relaxed(struct c1_pass *ps, const struct cands *cs, unsigned lg, unsigned lr,
			   struct cands *res)
{
	uint64_t n_coll = 0;
	size_t k;

	c1_pass_reset(ps, ps->occ.rows);
	for (k = 0; k < cs->n; k++) {
		const uint32_t *rows = cs->row.v + cs->ptr[k];
		size_t m = (size_t)(cs->ptr[k + 1] - cs->ptr[k]);
		size_t g = c1_find(ps, rows, m, lg, lr);
		if (g == ps->n_groups)
			c1_new_group(ps);
		n_coll += c1_merge(ps, g, cs, k, lr, res);
	}
	return n_coll;
}

/* The groups of 'ps' as candidates (entries by row) into 'cs'. */
static void c1_groups_to_cands(const struct c1_pass *ps, struct cands *cs)
{
	unsigned R = ps->occ.rows, r;
	size_t g;

	for (g = 0; g < ps->n_groups; g++) {
		for (r = 0; r < R; r++)
			if (ps->owner[g * R + r] != UINT32_MAX)
				cands_add(cs, r, ps->owner[g * R + r]);
		cands_close(cs);
	}
}

/* Scratch of the C1 packer, reused across partitions. */
struct c1_scratch {
	struct c1_pass ps;
	struct c0_state rs;
	struct cands a, b, res;
	uint64_t *stamp;            /* per column: the last group that counted it */
	uint64_t stamp_next;
};

/* Count group g's distinct columns and entries into o (entries cols[0..n)). */
static void count_group(struct c1_scratch *x, struct out *o, const uint32_t *cols, size_t n)
{
	uint32_t len = 0;
	size_t i;
	uint64_t id = ++x->stamp_next;

	for (i = 0; i < n; i++) {
		if (x->stamp[cols[i]] != id) {
			x->stamp[cols[i]] = id;
			len++;
		}
	}
	u32_push(&o->len, len);
	u32_push(&o->nnz, (uint32_t)n);
}

/* Emit the final groups of one partition: the last pass's, then the residual pass's. */
static void c1_output(struct c1_scratch *x, const struct stpu_pack_params *pp, struct out *o,
		      const struct cands *resid, const size_t *resid_group)
{
	unsigned R = x->ps.occ.rows, r;
	size_t g, k, base = x->ps.n_groups;
	struct u32vec cols = { NULL, 0, 0 };

	for (g = 0; g < x->ps.n_groups; g++) {
		cols.n = 0;
		for (r = 0; r < R; r++)
			if (x->ps.owner[g * R + r] != UINT32_MAX) {
				u32_push(&cols, x->ps.owner[g * R + r]);
				out_member(o, pp, (uint32_t)g, r, x->ps.owner[g * R + r]);
			}
		count_group(x, o, cols.v, cols.n);
	}
	for (g = 0; g < x->rs.n_groups; g++) {
		cols.n = 0;
		for (k = 0; k < resid->n; k++) {
			uint64_t i;
			if (resid_group[k] != g)
				continue;
			for (i = resid->ptr[k]; i < resid->ptr[k + 1]; i++) {
				u32_push(&cols, resid->col.v[i]);
				out_member(o, pp, (uint32_t)(base + g), resid->row.v[i],
					   resid->col.v[i]);
			}
		}
		count_group(x, o, cols.v, cols.n);
	}
	free(cols.v);
}

/* One partition through N_ITER relaxed passes and the residual pass. */
static void c1_partition(struct c1_scratch *x, const struct stpu_pack_params *pp,
			 struct accel_stpu_packing *st, struct out *o)
{
	struct cands *in = &x->a, *next = &x->b;
	size_t *resid_group = NULL, k;
	unsigned it;

	for (it = 0; it < pp->n_iter; it++) {
		cands_reset(next);
		cands_reset(&x->res);
		st->n_collisions += c1_relaxed(&x->ps, in, pp->max_collision_group[it],
					       pp->max_collision_row, &x->res);
		if (it + 1 == pp->n_iter)
			break;
		c1_groups_to_cands(&x->ps, next);
		for (k = 0; k < x->res.n; k++) {
			uint64_t i;
			for (i = x->res.ptr[k]; i < x->res.ptr[k + 1]; i++)
				cands_add(next, x->res.row.v[i], x->res.col.v[i]);
			cands_close(next);
		}
		{
			struct cands *t = in;
			in = next;
			next = t;
		}
	}
	/* the residual pass: collision-free, into new groups */
	occ_reset(&x->rs.occ, x->ps.occ.rows);
	x->rs.n_groups = 0;
	resid_group = xmalloc((x->res.n ? x->res.n : 1) * sizeof(*resid_group));
	for (k = 0; k < x->res.n; k++) {
		const uint32_t *rows = x->res.row.v + x->res.ptr[k];
		resid_group[k] = c0_place(&x->rs, rows, (size_t)(x->res.ptr[k + 1] - x->res.ptr[k]));
	}
	st->n_residual_entries += x->res.row.n;
	st->n_residual_groups += x->rs.n_groups;
	c1_output(x, pp, o, &x->res, resid_group);
	free(resid_group);
}

static void pack_c1(const struct stpu_pattern *pat, const struct stpu_pack_params *pp,
		    struct accel_stpu_packing *st, stpu_part_fn fn, void *ctx)
{
	struct by_part bp;
	struct out o;
	struct c1_scratch x;
	uint64_t p, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;

	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	x.stamp = xcalloc((size_t)(pat->cols ? pat->cols : 1), sizeof(*x.stamp));
	by_part_build(&bp, pat, pp->part_rows, n_parts);
	for (p = 0; p < n_parts; p++) {
		unsigned rows = part_rows_of(pat, pp->part_rows, p);
		uint64_t k;
		out_reset(&o);
		x.ps.occ.rows = rows;
		cands_reset(&x.a);
		for (k = bp.ptr[p]; k < bp.ptr[p + 1]; k++) {
			cands_add(&x.a, bp.row[k], bp.col[k]);
			if (k + 1 == bp.ptr[p + 1] || bp.col[k + 1] != bp.col[k])
				cands_close(&x.a);
		}
		c1_pass_reset(&x.ps, rows);
		c1_partition(&x, pp, st, &o);
		st->n_groups_total += o.len.n;
		out_emit(&o, pp, p, rows, st, fn, ctx);
	}
	by_part_free(&bp);
	free(x.ps.occ.bits);
	free(x.ps.full.bits);
	free(x.ps.owner);
	free(x.ps.row_coll);
	free(x.ps.coll);
	free(x.rs.occ.bits);
	free(x.stamp);
	cands_free(&x.a);
	cands_free(&x.b);
	cands_free(&x.res);
	out_free(&o);
}

/* ------------------------------------------------------------------ KMZ */

/*
 * KMZ's first-fit over full-height groups. Only open groups (fewer than
 * alpha columns) take columns, so the occupancy bits are kept for open
 * groups only, each in a slot that a closing group gives back (its bits
 * cleared from its own rows), and for the rows that hold a non-zero only
 * (rows renumbered): memory follows the rows with non-zeros times the
 * groups open at once, not rows x groups. Slots are not in group order, so
 * a column takes the lowest-numbered group among the slots that fit it.
 */
struct kmz {
	struct occ occ;             /* active rows x slots */
	size_t n_groups, cap;
	uint32_t *size;             /* columns per group */
	uint64_t *conflicts;        /* per group */
	uint32_t *slot;             /* per group: its slot while open */
	struct u32vec *rows;        /* kept rows per group (active numbers, ascending) */
	uint32_t *group_of;         /* per slot: its group */
	uint64_t *used;             /* bit per slot: held by an open group */
	size_t n_slots, slots_alloc, used_words;
	struct u32vec free_slots;
};

/* A slot for a new group: the last one given back, else a new one. */
static uint32_t kmz_take_slot(struct kmz *k)
{
	uint32_t s;

	if (k->free_slots.n) {
		s = k->free_slots.v[--k->free_slots.n];
	} else {
		s = (uint32_t)k->n_slots++;
		occ_need(&k->occ, s);
		XGROW(k->group_of, k->n_slots, k->slots_alloc);
		if (s / 64 >= k->used_words) {
			k->used = xreallocarray(k->used, s / 64 + 1, sizeof(*k->used));
			k->used[s / 64] = 0;
			k->used_words = s / 64 + 1;
		}
	}
	k->used[s / 64] |= UINT64_C(1) << (s % 64);
	return s;
}

static void kmz_new_group(struct kmz *k)
{
	size_t g = k->n_groups++;
	if (g >= k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		k->size = xreallocarray(k->size, cap, sizeof(*k->size));
		k->conflicts = xreallocarray(k->conflicts, cap, sizeof(*k->conflicts));
		k->slot = xreallocarray(k->slot, cap, sizeof(*k->slot));
		k->rows = xreallocarray(k->rows, cap, sizeof(*k->rows));
		k->cap = cap;
	}
	k->size[g] = 0;
	k->conflicts[g] = 0;
	memset(&k->rows[g], 0, sizeof(k->rows[g]));
	k->slot[g] = kmz_take_slot(k);
	k->group_of[k->slot[g]] = (uint32_t)g;
}

/* Group g has its alpha columns: give its slot back, its bits cleared on its rows. */
static void kmz_close(struct kmz *k, size_t g)
{
	uint32_t s = k->slot[g];
	size_t i;

	for (i = 0; i < k->rows[g].n; i++)
		k->occ.bits[(s / 64) * k->occ.rows + k->rows[g].v[i]] &= ~(UINT64_C(1) << (s % 64));
	k->used[s / 64] &= ~(UINT64_C(1) << (s % 64));
	u32_push(&k->free_slots, s);
}

/*
 * The lowest-numbered open group that takes column rows[0..m) (active row
 * numbers) within 'budget' conflicts: one it does not conflict with, or one
 * whose conflicts with it keep the group's within the budget. n_groups
 * when none does.
 */
static size_t kmz_find(const struct kmz *k, const uint32_t *rows, size_t m, uint64_t budget)
{
	size_t w, i, R = k->occ.rows, best = k->n_groups;

	for (w = 0; w < k->used_words; w++) {
		uint64_t any = 0, open = k->used[w], nocoll, cand;
		if (!open)
			continue;
		for (i = 0; i < m && (budget || (any & open) != open); i++)
			any |= k->occ.bits[w * R + rows[i]];
		nocoll = ~any & open;
		while (nocoll) {
			size_t g = k->group_of[w * 64 + (size_t)__builtin_ctzll(nocoll)];
			if (g < best)
				best = g;
			nocoll &= nocoll - 1;
		}
		cand = budget ? any & open : 0;
		if (cand) {
			struct slices sl;
			slices_init(&sl, m);
			for (i = 0; i < m; i++)
				slices_add(&sl, k->occ.bits[w * R + rows[i]] & cand);
			while (cand) {
				unsigned b = (unsigned)__builtin_ctzll(cand);
				size_t g = k->group_of[w * 64 + b];
				if (g < best && k->conflicts[g] + slices_count(&sl, b) <= budget)
					best = g;
				cand &= cand - 1;
			}
		}
	}
	return best;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The rows that hold a non-zero, ascending, into '*act' (their number is
 * returned), and each entry's row as its index there into '*idx': a bit per
 * matrix row and a running count per 64 rows give each row's rank.
 */
static size_t active_rows(const struct stpu_pattern *pat, uint32_t **act, uint32_t **idx)
{
	size_t n_words = (size_t)(pat->rows + 63) / 64, n = 0, w;
	uint64_t *bits = xcalloc(n_words + 1, sizeof(*bits)), k;
	uint32_t *rank = xmalloc((n_words + 1) * sizeof(*rank));

	for (k = 0; k < pat->nnz; k++)
		bits[pat->row_idx[k] / 64] |= UINT64_C(1) << (pat->row_idx[k] % 64);
	*act = xmalloc((size_t)(pat->nnz ? pat->nnz : 1) * sizeof(**act));
	for (w = 0; w < n_words; w++) {
		uint64_t x = bits[w];
		rank[w] = (uint32_t)n;
		while (x) {
			(*act)[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
			x &= x - 1;
		}
	}
	*idx = xmalloc((size_t)(pat->nnz ? pat->nnz : 1) * sizeof(**idx));
	for (k = 0; k < pat->nnz; k++) {
		uint32_t r = pat->row_idx[k];
		uint64_t below = bits[r / 64] & ((UINT64_C(1) << (r % 64)) - 1);
		(*idx)[k] = rank[r / 64] + (uint32_t)__builtin_popcountll(below);
	}
	free(bits);
	free(rank);
	return n;
}

/*
 * Pack full-height columns into k; the members of each group go to
 * 'members' when kept. The groups' rows are left as matrix rows, ascending.
 */
static void kmz_pack_all(struct kmz *k, const struct stpu_pattern *pat,
			 const struct stpu_pack_params *pp, struct accel_stpu_packing *st,
			 struct cands *members)
{
	uint64_t budget = (uint64_t)floor(pp->kmz_max_conflict_fraction * (double)pat->rows);
	uint32_t *act, *idx;
	uint64_t c;
	size_t g, i, n_act = active_rows(pat, &act, &idx);

	occ_reset(&k->occ, (unsigned)(n_act ? n_act : 1));
	for (c = 0; c < pat->cols; c++) {
		const uint32_t *rows = idx + pat->col_ptr[c];
		size_t m = (size_t)(pat->col_ptr[c + 1] - pat->col_ptr[c]);
		if (!m)
			continue;
		g = kmz_find(k, rows, m, budget);
		if (g == k->n_groups)
			kmz_new_group(k);
		for (i = 0; i < m; i++) {
			uint32_t s = k->slot[g];
			if (occ_test(&k->occ, s, rows[i])) {
				k->conflicts[g]++;
				st->n_collisions++;
				st->n_dropped++;
				continue;
			}
			occ_set(&k->occ, s, rows[i]);
			u32_push(&k->rows[g], rows[i]);
		}
		if (++k->size[g] >= pp->kmz_max_columns)
			kmz_close(k, g);
		if (members)
			cands_add(members, (uint32_t)g, (uint32_t)c);
	}
	for (g = 0; g < k->n_groups; g++) {
		qsort(k->rows[g].v, k->rows[g].n, sizeof(uint32_t), cmp_u32);
		for (i = 0; i < k->rows[g].n; i++)
			k->rows[g].v[i] = act[k->rows[g].v[i]];
	}
	free(act);
	free(idx);
}

static void kmz_free(struct kmz *k)
{
	size_t g;

	for (g = 0; g < k->n_groups; g++)
		free(k->rows[g].v);
	free(k->rows);
	free(k->size);
	free(k->conflicts);
	free(k->slot);
	free(k->group_of);
	free(k->used);
	free(k->free_slots.v);
	free(k->occ.bits);
}

static void pack_kmz(const struct stpu_pattern *pat, const struct stpu_pack_params *pp,
		     struct accel_stpu_packing *st, stpu_part_fn fn, void *ctx)
{
	struct kmz k;
	struct out o;
	size_t *cursor, g;
	uint64_t p, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;
	struct cands members;

	memset(&k, 0, sizeof(k));
	memset(&o, 0, sizeof(o));
	memset(&members, 0, sizeof(members));
	cands_reset(&members);
	kmz_pack_all(&k, pat, pp, st, pp->keep_members ? &members : NULL);
	cursor = xcalloc(k.n_groups ? k.n_groups : 1, sizeof(*cursor));
	for (p = 0; p < n_parts; p++) {
		uint64_t r0 = p * pp->part_rows, lim = r0 + pp->part_rows;
		unsigned rows = (unsigned)(pat->rows - r0 < pp->part_rows ? pat->rows - r0
									 : pp->part_rows);
		out_reset(&o);
		for (g = 0; g < k.n_groups; g++) {
			size_t b = cursor[g];
			while (cursor[g] < k.rows[g].n && k.rows[g].v[cursor[g]] < lim)
				cursor[g]++;
			u32_push(&o.len, k.size[g]);
			u32_push(&o.nnz, (uint32_t)(cursor[g] - b));
			if (pp->keep_members) {
				size_t i;
				for (i = 0; i < members.row.n; i++)
					if (members.row.v[i] == g)
						out_member(&o, pp, (uint32_t)g, UINT32_MAX,
							   members.col.v[i]);
			}
		}
		out_emit(&o, pp, p, rows, st, fn, ctx);
	}
	st->n_groups_total = k.n_groups;
	kmz_free(&k);
	free(cursor);
	cands_free(&members);
	out_free(&o);
}

/* The statistics that follow from the packed width (as the paper defines the efficiency). */
static void finish_stats(const struct stpu_pattern *pat, struct accel_stpu_packing *st)
{
	st->mean_groups = st->n_partitions ? (double)st->packed_width / (double)st->n_partitions
					   : 0.0;
	st->efficiency = st->packed_width ? (double)st->n_partitions * (double)pat->cols /
						    (double)st->packed_width
					  : 0.0;
}

void stpu_pack_uniform(const struct stpu_pattern *pat, enum accel_stpu_scheme scheme,
		       const struct stpu_pack_params *pp, struct accel_stpu_packing *st,
		       struct stpu_uniform *u)
{
	size_t g;
	uint32_t max_len = 1;

	memset(st, 0, sizeof(*st));
	memset(u, 0, sizeof(*u));
	st->n_partitions = (pat->rows + pp->part_rows - 1) / pp->part_rows;
	if (scheme == ACCEL_STPU_TPU) {
		u->n_groups = (size_t)pat->cols;
		u->sum_len = pat->cols;
	} else if (scheme == ACCEL_STPU_KMZ) {
		struct kmz k;
		memset(&k, 0, sizeof(k));
		kmz_pack_all(&k, pat, pp, st, NULL);
		u->n_groups = k.n_groups;
		u->len = xmalloc((k.n_groups ? k.n_groups : 1) * sizeof(*u->len));
		for (g = 0, max_len = 0; g < k.n_groups; g++) {
			u->len[g] = k.size[g];
			u->sum_len += k.size[g];
			if (k.size[g] > max_len)
				max_len = k.size[g];
		}
		kmz_free(&k);
	} else {
		BUG("STPU scheme %d has groups of its own in each partition", (int)scheme);
	}
	st->packed_width = st->n_partitions * u->n_groups;
	st->min_groups = st->max_groups = u->n_groups;
	st->max_group_columns = u->n_groups ? max_len : 0;
	st->n_groups_total = u->n_groups;
	finish_stats(pat, st);
}

void stpu_uniform_release(struct stpu_uniform *u)
{
	free(u->len);
	memset(u, 0, sizeof(*u));
}

void stpu_pack(const struct stpu_pattern *pat, enum accel_stpu_scheme scheme,
	       const struct stpu_pack_params *pp, struct accel_stpu_packing *st,
	       stpu_part_fn fn, void *ctx)
{
	memset(st, 0, sizeof(*st));
	st->n_partitions = (pat->rows + pp->part_rows - 1) / pp->part_rows;
	switch (scheme) {
	case ACCEL_STPU_TPU:
		pack_none(pat, pp, st, fn, ctx);
		break;
	case ACCEL_STPU_C0:
		pack_c0(pat, pp, st, fn, ctx);
		break;
	case ACCEL_STPU_C1:
		pack_c1(pat, pp, st, fn, ctx);
		break;
	case ACCEL_STPU_KMZ:
		pack_kmz(pat, pp, st, fn, ctx);
		break;
	default:
		BUG("STPU scheme %d", (int)scheme);
	}
	finish_stats(pat, st);
}
