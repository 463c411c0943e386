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
	uint64_t s[16];
};

static void slices_init(struct slices *sl, size_t max_count)
{
	unsigned n = 1;
	while (n < 16 && (UINT64_C(1) << n) <= max_count)
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
	struct walker wk;
	struct out o;
	struct c0_state s;
	struct u32vec rows = { NULL, 0, 0 };
	uint64_t p, c, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;

	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	walker_init(&wk, pat, pp->part_rows);
	for (p = 0; p < n_parts; p++) {
		walker_part(&wk, p);
		out_reset(&o);
		occ_reset(&s.occ, wk.rows);
		s.n_groups = 0;
		for (c = 0; c < pat->cols; c++) {
			uint64_t b, e, k;
			size_t g;
			walker_col(&wk, c, &b, &e);
			if (b == e)
				continue;
			rows.n = 0;
			for (k = b; k < e; k++)
				u32_push(&rows, (uint32_t)(pat->row_idx[k] - wk.r0));
			g = c0_place(&s, rows.v, rows.n);
			if (g == o.len.n) {
				u32_push(&o.len, 0);
				u32_push(&o.nnz, 0);
			}
			o.len.v[g]++;
			o.nnz.v[g] += (uint32_t)rows.n;
			for (k = 0; k < rows.n; k++)
				out_member(&o, pp, (uint32_t)g, rows.v[k], (uint32_t)c);
		}
		st->n_groups_total += o.len.n;
		out_emit(&o, pp, p, wk.rows, st, fn, ctx);
	}
	free(wk.cursor);
	free(s.occ.bits);
	free(rows.v);
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
	struct walker wk;
	struct out o;
	struct c1_scratch x;
	uint64_t p, c, n_parts = (pat->rows + pp->part_rows - 1) / pp->part_rows;

	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	x.stamp = xcalloc((size_t)(pat->cols ? pat->cols : 1), sizeof(*x.stamp));
	walker_init(&wk, pat, pp->part_rows);
	for (p = 0; p < n_parts; p++) {
		walker_part(&wk, p);
		out_reset(&o);
		x.ps.occ.rows = wk.rows;
		cands_reset(&x.a);
		for (c = 0; c < pat->cols; c++) {
			uint64_t b, e, k;
			walker_col(&wk, c, &b, &e);
			if (b == e)
				continue;
			for (k = b; k < e; k++)
				cands_add(&x.a, (uint32_t)(pat->row_idx[k] - wk.r0), (uint32_t)c);
			cands_close(&x.a);
		}
		c1_pass_reset(&x.ps, wk.rows);
		c1_partition(&x, pp, st, &o);
		st->n_groups_total += o.len.n;
		out_emit(&o, pp, p, wk.rows, st, fn, ctx);
	}
	free(wk.cursor);
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

struct kmz {
	struct occ occ;             /* full height */
	size_t n_groups, cap;
	uint32_t *size;             /* columns per group */
	uint64_t *conflicts;        /* per group */
	uint64_t *open;             /* bit per group: fewer than alpha columns */
	size_t open_words;
	struct u32vec *rows;        /* kept rows per group */
};

static void kmz_new_group(struct kmz *k)
{
	size_t g = k->n_groups++;
	occ_need(&k->occ, g);
	if (g >= k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		k->size = xreallocarray(k->size, cap, sizeof(*k->size));
		k->conflicts = xreallocarray(k->conflicts, cap, sizeof(*k->conflicts));
		k->rows = xreallocarray(k->rows, cap, sizeof(*k->rows));
		k->cap = cap;
	}
	if (g / 64 >= k->open_words) {
		k->open = xreallocarray(k->open, g / 64 + 1, sizeof(*k->open));
		k->open[g / 64] = 0;
		k->open_words = g / 64 + 1;
	}
	k->size[g] = 0;
	k->conflicts[g] = 0;
	memset(&k->rows[g], 0, sizeof(k->rows[g]));
	k->open[g / 64] |= UINT64_C(1) << (g % 64);
}

/* The first open group that takes column rows[0..m) within 'budget' conflicts. */
static size_t kmz_find(const struct kmz *k, const uint32_t *rows, size_t m, uint64_t budget)
{
	size_t w, i, R = k->occ.rows;

	for (w = 0; w < k->occ.n_words; w++) {
		uint64_t any = 0, open = k->open[w] & valid_mask(w, k->n_groups), nocoll, below, cand;
		if (!open)
			continue;
		for (i = 0; i < m && (budget || (any & open) != open); i++)
			any |= k->occ.bits[w * R + rows[i]];
		nocoll = ~any & open;
		below = nocoll ? (UINT64_C(1) << __builtin_ctzll(nocoll)) - 1 : ~UINT64_C(0);
		cand = budget ? any & open & below : 0;
		if (cand) {
			struct slices sl;
			slices_init(&sl, m);
			for (i = 0; i < m; i++)
				slices_add(&sl, k->occ.bits[w * R + rows[i]] & cand);
			while (cand) {
				unsigned b = (unsigned)__builtin_ctzll(cand);
				size_t g = w * 64 + b;
				if (k->conflicts[g] + slices_count(&sl, b) <= budget)
					return g;
				cand &= cand - 1;
			}
		}
		if (nocoll)
			return w * 64 + (size_t)__builtin_ctzll(nocoll);
	}
	return k->n_groups;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Pack full-height columns into k; the members of each group go to 'members' when kept. */
static void kmz_pack_all(struct kmz *k, const struct stpu_pattern *pat,
			 const struct stpu_pack_params *pp, struct accel_stpu_packing *st,
			 struct cands *members)
{
	uint64_t budget = (uint64_t)floor(pp->kmz_max_conflict_fraction * (double)pat->rows);
	uint64_t c;
	size_t g;

	occ_reset(&k->occ, (unsigned)pat->rows);
	for (c = 0; c < pat->cols; c++) {
		const uint32_t *rows = pat->row_idx + pat->col_ptr[c];
		size_t m = (size_t)(pat->col_ptr[c + 1] - pat->col_ptr[c]), i;
		if (!m)
			continue;
		g = kmz_find(k, rows, m, budget);
		if (g == k->n_groups)
			kmz_new_group(k);
		for (i = 0; i < m; i++) {
			if (occ_test(&k->occ, g, rows[i])) {
				k->conflicts[g]++;
				st->n_collisions++;
				st->n_dropped++;
				continue;
			}
			occ_set(&k->occ, g, rows[i]);
			u32_push(&k->rows[g], rows[i]);
		}
		if (++k->size[g] >= pp->kmz_max_columns)
			k->open[g / 64] &= ~(UINT64_C(1) << (g % 64));
		if (members) {
			cands_add(members, (uint32_t)g, (uint32_t)c);
		}
	}
	for (g = 0; g < k->n_groups; g++)
		qsort(k->rows[g].v, k->rows[g].n, sizeof(uint32_t), cmp_u32);
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
	for (g = 0; g < k.n_groups; g++)
		free(k.rows[g].v);
	free(k.rows);
	free(k.size);
	free(k.conflicts);
	free(k.open);
	free(k.occ.bits);
	free(cursor);
	cands_free(&members);
	out_free(&o);
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
	st->mean_groups = st->n_partitions ? (double)st->packed_width / (double)st->n_partitions
					   : 0.0;
	st->efficiency = st->packed_width ? (double)st->n_partitions * (double)pat->cols /
						    (double)st->packed_width
					  : 0.0;
}
