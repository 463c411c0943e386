/*
 * exec_stpu_run(): SpMV simulated cycle by cycle on the Sparse-TPU array,
 * the independent check of the analytical STPU model (accel/stpu_*.c). It
 * shares no code with it: the packers below are written again from the
 * seed's description, straightforwardly (a group is an array of rows), and
 * the timing is not computed but happens: each cycle the load chains shift,
 * the column controllers inject what the hardware rules allow, every token
 * in the array acts on the PE it is at and moves one PE on, and the output
 * accumulators take what reaches the right edge.
 *
 * The hardware (docs/stpu.md): PE (r, c) has two weight buffers of (value,
 * column index), an element latch and a partial-sum register read by its
 * right neighbour. Row r's weights for a block enter at the left edge, one
 * word per cycle for array_cols cycles, through a chain of registers, and
 * are copied into the buffer in the last of those cycles; a row starts a
 * load one cycle after the row above started it, when its chain is free
 * and when the block two back has left that buffer (its last PE of the row
 * has acted). A column controller injects, at most one element per cycle,
 * the elements of its input group once the block's weights reached the
 * top PE and the previous group's end signal went in; the end signal goes
 * in after the last element, after the left column's end signal (the
 * partial sum must come from the left) and after the right column's end
 * signal of the previous block (that partial sum must have been used) -
 * seed rules 1 and 2. TPU and KMZ columns inject one value (KMZ: the
 * bundle of the group's columns) that is multiplied on arrival, under the
 * same rules. Rows past a short last partition are clock-gated.
 */
#include "exec/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/rng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The rng stream of the simulated values ("STPX"). */
#define SIM_VALUE_STREAM UINT64_C(0x53545058)

/*
 * What one simulation may take, checked before it runs: about 2^31 units of
 * work, a unit being a PE (counting a row and a column of controllers) for
 * one cycle (about 1 ns each here, so a few seconds), and 2^21 packed
 * columns over all partitions (each is a group the simulation holds).
 */
#define SIM_MAX_WORK (UINT64_C(1) << 31)
#define SIM_MAX_GROUPS (UINT64_C(1) << 21)

/* ----------------------------------------------------------- the matrix */

struct sentry {
	uint64_t row, col;
	int64_t val;
};

/* The matrix by column: entries of column c are e[cp[c] .. cp[c+1]), rows ascending. */
struct smat {
	uint64_t rows, cols;
	size_t nnz;
	struct sentry *e;
	size_t *cp;
	int64_t *x;                /* the vector */
};

static int cmp_sentry(const void *a, const void *b)
{
	const struct sentry *x = a, *y = b;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* A non-zero integer in [-9, 9]: exact sums, distinct magnitudes for KMZ. */
static int64_t small_value(struct rng *r)
{
	int64_t v = (int64_t)rng_below(r, 18) - 9;
	return v >= 0 ? v + 1 : v;
}

static void smat_build(struct smat *a, const struct spec_matrix *m, uint64_t seed)
{
	struct rng r;
	size_t i, k = 0;
	uint64_t c;

	a->rows = m->shape[0];
	a->cols = m->shape[1];
	a->e = xmalloc((m->nnz ? m->nnz : 1) * sizeof(*a->e));
	for (i = 0; i < m->nnz; i++) {
		a->e[i].row = m->coords[2 * i];
		a->e[i].col = m->coords[2 * i + 1];
	}
	qsort(a->e, m->nnz, sizeof(*a->e), cmp_sentry);
	for (i = 0; i < m->nnz; i++)
		if (!k || a->e[i].row != a->e[k - 1].row || a->e[i].col != a->e[k - 1].col)
			a->e[k++] = a->e[i];
	a->nnz = k;
	rng_seed_stream(&r, seed, SIM_VALUE_STREAM);
	for (i = 0; i < k; i++)
		a->e[i].val = small_value(&r);
	a->x = xmalloc((size_t)(a->cols ? a->cols : 1) * sizeof(*a->x));
	for (c = 0; c < a->cols; c++)
		a->x[c] = (int64_t)rng_below(&r, 19) - 9;
	a->cp = xcalloc((size_t)a->cols + 1, sizeof(*a->cp));
	for (i = 0; i < k; i++)
		a->cp[a->e[i].col + 1]++;
	for (c = 0; c < a->cols; c++)
		a->cp[c + 1] += a->cp[c];
}

static void smat_free(struct smat *a)
{
	free(a->e);
	free(a->cp);
	free(a->x);
}

/* ------------------------------------------------------------ packing */

/* What a PE holds: an entry (value, original column) or nothing. */
struct pword {
	bool full;
	int64_t val;
	uint64_t col;
};

/* A PE of a packed column that holds an entry: its row in the partition and the entry. */
struct pent {
	unsigned row;
	struct pword w;
};

/*
 * A packed column: the PEs that hold an entry (by row) and its input group.
 * While a partition is packed, 'dense' holds its PEs one per row; sealing
 * the group keeps the full ones only, so the groups of all partitions take
 * memory in their entries, not in partition rows x groups.
 */
struct sgroup {
	struct pword *dense;       /* while packing: one per partition row; then NULL */
	struct pent *pe;
	size_t n_pe;
	uint64_t *in;              /* original columns streamed, ascending */
	size_t n_in;
};

struct spart {
	uint64_t row0;
	unsigned rows;
	size_t n;
	struct sgroup *g;
};

/* A new group of 'p'; with 'dense', its PEs one per row for packing. */
static struct sgroup *part_add_group(struct spart *p, size_t *alloc, bool dense)
{
	struct sgroup *g;
	XGROW(p->g, p->n + 1, *alloc);
	g = &p->g[p->n++];
	memset(g, 0, sizeof(*g));
	if (dense)
		g->dense = xcalloc(p->rows ? p->rows : 1, sizeof(*g->dense));
	return g;
}

/* The word PE 'row' of a sealed group holds (none when empty). */
static struct pword group_pe(const struct sgroup *g, unsigned row)
{
	struct pword none = { false, 0, 0 };
	size_t lo = 0, hi = g->n_pe;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->pe[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_pe && g->pe[lo].row == row ? g->pe[lo].w : none;
}

/* Keep the full PEs of a group packed with 'dense' ones, by row. */
static void group_seal(struct sgroup *g, unsigned rows)
{
	unsigned r;
	size_t n = 0;

	for (r = 0; r < rows; r++)
		n += g->dense[r].full;
	g->pe = xmalloc((n ? n : 1) * sizeof(*g->pe));
	for (r = 0, g->n_pe = 0; r < rows; r++)
		if (g->dense[r].full)
			g->pe[g->n_pe++] = (struct pent){ r, g->dense[r] };
	free(g->dense);
	g->dense = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Set g's input group to the distinct columns of its (sealed) PEs. */
static void group_inputs_from_pe(struct sgroup *g)
{
	size_t k = 0, i;

	free(g->in);
	g->in = xmalloc((g->n_pe ? g->n_pe : 1) * sizeof(*g->in));
	for (i = 0; i < g->n_pe; i++)
		g->in[k++] = g->pe[i].w.col;
	qsort(g->in, k, sizeof(*g->in), cmp_u64);
	for (i = 0, g->n_in = 0; i < k; i++)
		if (!g->n_in || g->in[i] != g->in[g->n_in - 1])
			g->in[g->n_in++] = g->in[i];
}

/* A list of entries with partition-relative rows. */
struct elist {
	unsigned *row;
	struct pword *w;
	size_t n, alloc, alloc_w;
};

static void elist_add(struct elist *l, unsigned row, struct pword w)
{
	XGROW(l->row, l->n + 1, l->alloc);
	XGROW(l->w, l->n + 1, l->alloc_w);
	l->row[l->n] = row;
	l->w[l->n++] = w;
}

/*
 * The entries of one partition: indexes into a->e of its non-empty columns,
 * by column then row (a->e is by column then row, and the partitions are
 * cut from it in one stable pass), so that packing visits the non-zeros,
 * not partitions x columns.
 */
struct pentries {
	size_t *ptr;               /* partition p: idx[ptr[p] .. ptr[p + 1]) */
	size_t *idx;
};

static void pentries_build(struct pentries *pe, const struct smat *a, unsigned part_rows,
			   size_t n_parts)
{
	size_t i, p;

	pe->ptr = xcalloc(n_parts + 2, sizeof(*pe->ptr));
	pe->idx = xmalloc((a->nnz ? a->nnz : 1) * sizeof(*pe->idx));
	for (i = 0; i < a->nnz; i++)
		pe->ptr[a->e[i].row / part_rows + 2]++;
	for (p = 0; p < n_parts; p++)
		pe->ptr[p + 2] += pe->ptr[p + 1];
	for (i = 0; i < a->nnz; i++)
		pe->idx[pe->ptr[a->e[i].row / part_rows + 1]++] = i;
}

static void pentries_free(struct pentries *pe)
{
	free(pe->ptr);
	free(pe->idx);
}

/*
 * The next non-empty column of partition p from entry '*k' on: its entries
 * into 'out' (rows relative to row0), its column into '*col'; false when
 * the partition has no more.
 */
static bool next_column(const struct smat *a, const struct pentries *pe, size_t p, uint64_t row0,
			size_t *k, uint64_t *col, struct elist *out)
{
	out->n = 0;
	if (*k >= pe->ptr[p + 1])
		return false;
	*col = a->e[pe->idx[*k]].col;
	for (; *k < pe->ptr[p + 1] && a->e[pe->idx[*k]].col == *col; (*k)++) {
		const struct sentry *x = &a->e[pe->idx[*k]];
		elist_add(out, (unsigned)(x->row - row0), (struct pword){ true, x->val, x->col });
	}
	return true;
}

/* Does the candidate fit group g (being packed) without any shared row? */
static bool fits_free(const struct sgroup *g, const struct elist *c)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		if (g->dense[c->row[i]].full)
			return false;
	return true;
}

/* Collision-free first-fit of candidate 'c' into p's groups from 'first' on. */
static void first_fit(struct spart *p, size_t *alloc, size_t first, const struct elist *c)
{
	size_t g, i;
	struct sgroup *gr = NULL;

	for (g = first; g < p->n; g++)
		if (fits_free(&p->g[g], c)) {
			gr = &p->g[g];
			break;
		}
	if (!gr)
		gr = part_add_group(p, alloc, true);
	for (i = 0; i < c->n; i++)
		gr->dense[c->row[i]] = c->w[i];
}

/* Seal every group of 'p' and set its input group from its PEs. */
static void part_seal(struct spart *p)
{
	size_t g;
	for (g = 0; g < p->n; g++) {
		group_seal(&p->g[g], p->rows);
		group_inputs_from_pe(&p->g[g]);
	}
}

/* The TPU: every column is a group, the empty ones too. */
static void pack_part_none(const struct smat *a, const struct pentries *pe, size_t pi,
			   struct spart *p)
{
	size_t alloc = 0, k = pe->ptr[pi], i;
	uint64_t c, next = UINT64_MAX;
	struct elist l;

	memset(&l, 0, sizeof(l));
	if (!next_column(a, pe, pi, p->row0, &k, &next, &l))
		next = UINT64_MAX;
	for (c = 0; c < a->cols; c++) {
		struct sgroup *g = part_add_group(p, &alloc, false);
		if (c == next) {
			g->pe = xmalloc(l.n * sizeof(*g->pe));
			for (i = 0; i < l.n; i++)
				g->pe[i] = (struct pent){ l.row[i], l.w[i] };
			g->n_pe = l.n;
			if (!next_column(a, pe, pi, p->row0, &k, &next, &l))
				next = UINT64_MAX;
		}
		g->in = xmalloc(sizeof(*g->in));
		g->in[0] = c;
		g->n_in = 1;
	}
	free(l.row);
	free(l.w);
}

static void pack_part_c0(const struct smat *a, const struct pentries *pe, size_t pi,
			 struct spart *p)
{
	size_t alloc = 0, k = pe->ptr[pi];
	uint64_t c;
	struct elist l;

	memset(&l, 0, sizeof(l));
	while (next_column(a, pe, pi, p->row0, &k, &c, &l))
		first_fit(p, &alloc, 0, &l);
	part_seal(p);
	free(l.row);
	free(l.w);
}

/* A relaxed-pass group: its entries, its collisions, collisions per row. */
struct rgroup {
	struct pword *pe;
	unsigned *row_coll;
	uint64_t coll;
};

/*
 * One relaxed pass of C1 over candidates cand[0..n): returns the groups
 * (count in *n_groups); collided entries are appended to 'res' as one
 * candidate per merge.
 */
static struct rgroup *relaxed_pass(unsigned rows, struct elist *cand, size_t n, unsigned lg,
				   unsigned lr, size_t *n_groups, struct elist **res, size_t *n_res,
				   uint64_t *n_coll)
{
	struct rgroup *gs = NULL;
	size_t ng = 0, alloc = 0, k, g, i, res_alloc = *n_res;

	for (k = 0; k < n; k++) {
		const struct elist *c = &cand[k];
		struct rgroup *gr = NULL;
		for (g = 0; g < ng && !gr; g++) {
			uint64_t hits = 0;
			bool ok = true;
			for (i = 0; i < c->n; i++) {
				if (!gs[g].pe[c->row[i]].full)
					continue;
				hits++;
				if (gs[g].row_coll[c->row[i]] >= lr)
					ok = false;
			}
			if (hits == 0 || (ok && hits < c->n && gs[g].coll + hits <= lg))
				gr = &gs[g];
		}
		if (!gr) {
			XGROW(gs, ng + 1, alloc);
			gr = &gs[ng++];
			gr->pe = xcalloc(rows, sizeof(*gr->pe));
			gr->row_coll = xcalloc(rows, sizeof(*gr->row_coll));
			gr->coll = 0;
		}
		{
			struct elist ev;
			memset(&ev, 0, sizeof(ev));
			for (i = 0; i < c->n; i++) {
				unsigned r = c->row[i];
				if (gr->pe[r].full) {
					elist_add(&ev, r, c->w[i]);
					gr->coll++;
					gr->row_coll[r]++;
					(*n_coll)++;
				} else {
					gr->pe[r] = c->w[i];
				}
			}
			if (ev.n) {
				XGROW(*res, *n_res + 1, res_alloc);
				(*res)[(*n_res)++] = ev;
			}
		}
	}
	*n_groups = ng;
	return gs;
}

static void free_cands(struct elist *c, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(c[i].row);
		free(c[i].w);
	}
	free(c);
}

/* C1 on one partition (see accel/stpu_pack.c's description, followed from the seed). */
static void pack_part_c1(const struct smat *a, const struct pentries *pe, size_t pi,
			 const struct spec_stpu *st, struct spart *p, uint64_t *n_coll)
{
	struct elist *cand = NULL, *res = NULL;
	size_t n_cand = 0, cand_alloc = 0, n_res = 0, g, alloc = 0, first_resid, k = pe->ptr[pi];
	struct rgroup *gs = NULL;
	size_t ng = 0;
	unsigned it, r;
	uint64_t c;

	for (;;) {
		struct elist l;
		memset(&l, 0, sizeof(l));
		if (!next_column(a, pe, pi, p->row0, &k, &c, &l)) {
			free(l.row);
			free(l.w);
			break;
		}
		XGROW(cand, n_cand + 1, cand_alloc);
		cand[n_cand++] = l;
	}
	for (it = 0; it < st->n_iter; it++) {
		res = NULL;
		n_res = 0;
		gs = relaxed_pass(p->rows, cand, n_cand, st->max_collision_group[it],
				  st->max_collision_row, &ng, &res, &n_res, n_coll);
		free_cands(cand, n_cand);
		cand = NULL;
		n_cand = 0;
		if (it + 1 == st->n_iter)
			break;
		cand_alloc = ng + n_res;
		cand = xcalloc(cand_alloc ? cand_alloc : 1, sizeof(*cand));
		for (g = 0; g < ng; g++) {
			for (r = 0; r < p->rows; r++)
				if (gs[g].pe[r].full)
					elist_add(&cand[n_cand], r, gs[g].pe[r]);
			n_cand++;
			free(gs[g].pe);
			free(gs[g].row_coll);
		}
		free(gs);
		for (g = 0; g < n_res; g++)
			cand[n_cand++] = res[g];
		free(res);
	}
	for (g = 0; g < ng; g++) {
		struct sgroup *sg = part_add_group(p, &alloc, false);
		sg->dense = gs[g].pe;
		free(gs[g].row_coll);
	}
	free(gs);
	first_resid = p->n;
	for (g = 0; g < n_res; g++)
		first_fit(p, &alloc, first_resid, &res[g]);
	free_cands(res, n_res);
	part_seal(p);
}

/*
 * KMZ: full-height groups, their PEs by matrix row (a hash map of the rows
 * that hold an entry, so a group takes memory in its entries, not in the
 * matrix's rows) and columns.
 */
struct kgroup {
	struct hashmap pe;         /* uint64_t row -> struct pword */
	uint64_t *cols;
	size_t n_cols;
	uint64_t conflicts;
};

static struct kgroup *pack_kmz(const struct smat *a, const struct spec_stpu *st, size_t *n_groups,
			       uint64_t *n_dropped)
{
	uint64_t budget = (uint64_t)floor(st->kmz_max_conflict_fraction * (double)a->rows);
	struct kgroup *gs = NULL;
	size_t ng = 0, alloc = 0, g, i;
	uint64_t c;

	for (c = 0; c < a->cols; c++) {
		struct kgroup *gr = NULL;
		if (a->cp[c] == a->cp[c + 1])
			continue;
		for (g = 0; g < ng && !gr; g++) {
			uint64_t hits = 0;
			if (gs[g].n_cols >= st->kmz_max_columns)
				continue;
			for (i = a->cp[c]; i < a->cp[c + 1]; i++)
				hits += hashmap_get(&gs[g].pe, &a->e[i].row) != NULL;
			if (gs[g].conflicts + hits <= budget)
				gr = &gs[g];
		}
		if (!gr) {
			XGROW(gs, ng + 1, alloc);
			gr = &gs[ng++];
			memset(gr, 0, sizeof(*gr));
			hashmap_init(&gr->pe, sizeof(uint64_t), sizeof(struct pword));
			gr->cols = xmalloc(st->kmz_max_columns * sizeof(*gr->cols));
		}
		for (i = a->cp[c]; i < a->cp[c + 1]; i++) {
			bool is_new;
			struct pword *w = hashmap_put(&gr->pe, &a->e[i].row, &is_new);
			if (!is_new) {
				gr->conflicts++;
				(*n_dropped)++;
				if (llabs(a->e[i].val) > llabs(w->val))
					*w = (struct pword){ true, a->e[i].val, c };
				continue;
			}
			*w = (struct pword){ true, a->e[i].val, c };
		}
		gr->cols[gr->n_cols++] = c;
	}
	*n_groups = ng;
	return gs;
}

struct kent {
	uint64_t row;
	struct pword w;
};

static int cmp_kent(const void *x, const void *y)
{
	const struct kent *p = x, *q = y;
	return p->row < q->row ? -1 : p->row > q->row;
}

/* The PEs of KMZ group 'g' by row, for cutting into partitions. */
static struct kent *kmz_sorted(const struct kgroup *g, size_t *n)
{
	struct kent *v = xmalloc((g->pe.n ? g->pe.n : 1) * sizeof(*v));
	const void *key;
	void *val;
	size_t pos = 0;

	*n = 0;
	while (hashmap_next(&g->pe, &pos, &key, &val)) {
		memcpy(&v[*n].row, key, sizeof(uint64_t));
		v[(*n)++].w = *(const struct pword *)val;
	}
	qsort(v, *n, sizeof(*v), cmp_kent);
	return v;
}

/* ---------------------------------------------------------- the array */

enum tok_kind { TOK_ELEM, TOK_END, TOK_VALUE, TOK_BYPASS };

struct tok {
	enum tok_kind kind;
	int64_t block;
	unsigned row;
	uint64_t idx;              /* TOK_ELEM: the element's column */
	int64_t val;               /* TOK_ELEM / TOK_VALUE (TPU) */
	const struct sgroup *grp;  /* TOK_VALUE: the group (KMZ bundle: its input group) */
};

struct tlist {
	struct tok *t;
	size_t n, alloc;
};

struct psum {
	int64_t block;             /* -1: never written */
	int64_t val;
	bool used;
};

struct latchv {
	int64_t block;
	int64_t val;
};

struct slotv {
	int64_t block;
	struct pword w;
};

/* A pending register write, applied at the end of the cycle. */
struct wr {
	enum { WR_PSUM, WR_USED, WR_LATCH } kind;
	unsigned r, c;
	int64_t block, val;
};

struct sblock {
	const struct spart *part;
	size_t q;                  /* first group */
	unsigned width;
};

struct loadrow {
	bool busy;
	int64_t block;             /* being loaded */
	unsigned pushed;
	int64_t next;              /* next block to load */
	int64_t started_block, started_cycle;
	int64_t done_block, done_cycle;  /* last block whose last PE of this row acted */
	struct pword *chain;
};

struct sim {
	unsigned sah, saw;
	bool stpu;                 /* end-signal PEs; else multiply on arrival */
	bool kmz;
	const struct smat *a;
	struct sblock *b;
	size_t nb;
	struct slotv *slot[2];     /* [r * saw + c] */
	struct latchv *latch;
	struct psum *psum;
	int64_t *used_at;          /* cycle a partial sum was last taken */
	struct loadrow *ld;
	struct tlist *col;         /* tokens per column */
	/* column controllers */
	int64_t *cur;              /* block being injected per column */
	size_t *pos;               /* elements injected of it */
	int64_t *end_cycle;        /* [b * saw + c]: cycle its end signal / value went in */
	struct wr *w;
	size_t nw, aw;
	int64_t *y;
	int64_t t, last_collect;
	struct exec_stpu_result *out;
};

static void hazard(struct sim *s, const char *what, unsigned r, unsigned c, int64_t b)
{
	if (s->out->hazard[0])
		return;
	snprintf(s->out->hazard, sizeof(s->out->hazard), "cycle %lld, PE (%u, %u), block %lld: %s",
		 (long long)s->t, r, c, (long long)b, what);
}

static void pend(struct sim *s, struct wr w)
{
	XGROW(s->w, s->nw + 1, s->aw);
	s->w[s->nw++] = w;
}

static unsigned block_rows(const struct sim *s, int64_t b)
{
	return s->b[b].part->rows;
}

/* The word PE (r, c) holds for block b. */
static struct pword block_word(const struct sim *s, int64_t b, unsigned r, unsigned c)
{
	const struct sblock *bl = &s->b[b];
	struct pword none = { false, 0, 0 };
	if (c >= bl->width || r >= bl->part->rows)
		return none;
	return group_pe(&bl->part->g[bl->q + c], r);
}

/* Has 'cycle' (a recorded event, -1 = not yet) happened before the current cycle? */
static bool before(const struct sim *s, int64_t cycle)
{
	return cycle >= 0 && cycle < s->t;
}

/* The next block whose partition has row r, from b on. */
static int64_t next_block_with_row(const struct sim *s, int64_t b, unsigned r)
{
	while (b < (int64_t)s->nb && r >= block_rows(s, b))
		b++;
	return b;
}

/* Load chains: shift one word in on busy rows, start loads where allowed. */
static void step_loads(struct sim *s)
{
	unsigned r, i;

	for (r = 0; r < s->sah; r++) {
		struct loadrow *L = &s->ld[r];
		if (!L->busy) {
			int64_t b = L->next;
			bool ok;
			if (b >= (int64_t)s->nb)
				continue;
			ok = r == 0 || s->ld[r - 1].started_block > b ||
			     (s->ld[r - 1].started_block == b && before(s, s->ld[r - 1].started_cycle));
			if (b >= 2)
				ok = ok && (L->done_block > b - 2 ||
					    (L->done_block == b - 2 && before(s, L->done_cycle)));
			if (!ok)
				continue;
			L->busy = true;
			L->block = b;
			L->pushed = 0;
			L->started_block = b;
			L->started_cycle = s->t;
		}
		for (i = L->pushed; i > 0; i--)
			L->chain[i] = L->chain[i - 1];
		L->chain[0] = block_word(s, L->block, r, s->saw - 1 - L->pushed);
		L->pushed++;
		s->out->weight_hops += L->pushed;
		if (L->pushed == s->saw) {
			for (i = 0; i < s->saw; i++) {
				s->slot[L->block % 2][r * s->saw + i].block = L->block;
				s->slot[L->block % 2][r * s->saw + i].w = L->chain[i];
			}
			s->out->weight_words += s->saw;
			L->busy = false;
			L->next = next_block_with_row(s, L->block + 1, r);
		}
	}
}

static void inject(struct sim *s, unsigned c, struct tok t)
{
	struct tlist *l = &s->col[c];
	XGROW(l->t, l->n + 1, l->alloc);
	t.row = 0;
	l->t[l->n++] = t;
}

/* May column c's end signal (or value) of block b go in this cycle? */
static bool end_allowed(const struct sim *s, int64_t b, unsigned c)
{
	if (c > 0 && !before(s, s->end_cycle[b * s->saw + c - 1]))
		return false;
	if (b > 0 && !before(s, s->end_cycle[(b - 1) * s->saw + c]))
		return false;
	if (b > 0 && c + 1 < s->saw && !before(s, s->end_cycle[(b - 1) * s->saw + c + 1]))
		return false;
	return s->slot[b % 2][c].block == b;   /* the weights reached the top PE */
}

/* Column controllers. */
static void step_inject(struct sim *s)
{
	unsigned c;

	for (c = 0; c < s->saw; c++) {
		int64_t b = s->cur[c];
		const struct sblock *bl;
		const struct sgroup *g;
		if (b >= (int64_t)s->nb)
			continue;
		bl = &s->b[b];
		g = c < bl->width ? &bl->part->g[bl->q + c] : NULL;
		if (!s->stpu) {
			if (!end_allowed(s, b, c))
				continue;
			inject(s, c, (struct tok){ g ? TOK_VALUE : TOK_BYPASS, b, 0, 0,
						   g && !s->kmz ? s->a->x[g->in[0]] : 0, g });
			if (g)
				s->out->vector_reads += g->n_in;
			s->end_cycle[b * s->saw + c] = s->t;
			s->cur[c]++;
			continue;
		}
		if (s->pos[c] == (g ? g->n_in : 0) && end_allowed(s, b, c)) {
			inject(s, c, (struct tok){ TOK_END, b, 0, 0, 0, NULL });
			s->end_cycle[b * s->saw + c] = s->t;
			s->cur[c]++;
			s->pos[c] = 0;
			if (++b >= (int64_t)s->nb)
				continue;
			bl = &s->b[b];
			g = c < bl->width ? &bl->part->g[bl->q + c] : NULL;
		}
		if (g && s->pos[c] < g->n_in && s->slot[b % 2][c].block == b) {
			uint64_t idx = g->in[s->pos[c]++];
			inject(s, c, (struct tok){ TOK_ELEM, b, 0, idx, s->a->x[idx], NULL });
			s->out->vector_reads++;
		}
	}
}

/* The partial sum entering PE (r, c) for block b (0 at the left edge); marks it used. */
static bool psum_in(struct sim *s, unsigned r, unsigned c, int64_t b, int64_t *v)
{
	struct psum *p;
	if (c == 0) {
		*v = 0;
		return true;
	}
	p = &s->psum[r * s->saw + c - 1];
	if (p->block != b || p->used) {
		hazard(s, "the partial sum from the left is not this block's", r, c, b);
		return false;
	}
	*v = p->val;
	pend(s, (struct wr){ WR_USED, r, c - 1, b, 0 });
	s->used_at[r * s->saw + c - 1] = s->t;
	return true;
}

/*
 * Write PE (r, c)'s partial sum for block b; the previous one must have
 * been taken, at the latest in this cycle (it is read before the register
 * is written at the clock edge).
 */
static void psum_out(struct sim *s, unsigned r, unsigned c, int64_t b, int64_t v)
{
	const struct psum *p = &s->psum[r * s->saw + c];
	if (p->block >= 0 && !p->used && s->used_at[r * s->saw + c] != s->t)
		hazard(s, "a partial sum is overwritten before its use", r, c, b);
	pend(s, (struct wr){ WR_PSUM, r, c, b, v });
	if (c + 1 == s->saw) {
		s->ld[r].done_block = b;
		s->ld[r].done_cycle = s->t;
	}
}

/* The multiplier of a KMZ PE: the bundle value of the PE's column. */
static bool bundle_value(const struct sim *s, const struct sgroup *g, uint64_t col, int64_t *x)
{
	size_t i;
	for (i = 0; i < g->n_in; i++)
		if (g->in[i] == col) {
			*x = s->a->x[col];
			return true;
		}
	return false;
}

/* Token 't' acts on PE (t->row, c). */
static void act(struct sim *s, unsigned c, const struct tok *t)
{
	unsigned r = t->row;
	const struct slotv *sl = &s->slot[t->block % 2][r * s->saw + c];
	int64_t in, x;

	if (sl->block != t->block) {
		hazard(s, "the PE does not hold this block's weight", r, c, t->block);
		return;
	}
	switch (t->kind) {
	case TOK_ELEM:
		s->out->x_forward++;
		if (!sl->w.full)
			return;
		if (sl->w.col == t->idx) {
			s->out->latch++;
			pend(s, (struct wr){ WR_LATCH, r, c, t->block, t->val });
		} else {
			s->out->hold++;
		}
		return;
	case TOK_END:
		if (!psum_in(s, r, c, t->block, &in))
			return;
		if (!sl->w.full) {
			s->out->bypass++;
			psum_out(s, r, c, t->block, in);
			return;
		}
		if (s->latch[r * s->saw + c].block != t->block) {
			hazard(s, "no element was latched for this block", r, c, t->block);
			return;
		}
		s->out->accumulate++;
		psum_out(s, r, c, t->block, in + sl->w.val * s->latch[r * s->saw + c].val);
		return;
	case TOK_VALUE:
		if (!psum_in(s, r, c, t->block, &in))
			return;
		s->out->mac++;
		s->out->x_forward += s->kmz ? t->grp->n_in : 1;
		x = t->val;
		if (s->kmz && sl->w.full && !bundle_value(s, t->grp, sl->w.col, &x))
			hazard(s, "the PE's column is not in the bundle", r, c, t->block);
		psum_out(s, r, c, t->block, in + (sl->w.full ? sl->w.val * x : 0));
		return;
	case TOK_BYPASS:
		if (!psum_in(s, r, c, t->block, &in))
			return;
		s->out->bypass++;
		psum_out(s, r, c, t->block, in);
		return;
	}
}

/* Every token acts, then moves one PE down (gated rows end its trip). */
static void step_pes(struct sim *s)
{
	unsigned c;
	size_t i, k;

	for (c = 0; c < s->saw; c++) {
		struct tlist *l = &s->col[c];
		for (i = 0; i < l->n; i++)
			act(s, c, &l->t[i]);
		for (i = 0, k = 0; i < l->n; i++) {
			l->t[i].row++;
			if (l->t[i].row < block_rows(s, l->t[i].block))
				l->t[k++] = l->t[i];
		}
		l->n = k;
	}
}

/* The output accumulators take the partial sums at the right edge. */
static void step_collect(struct sim *s)
{
	unsigned r, c = s->saw - 1;

	for (r = 0; r < s->sah; r++) {
		const struct psum *p = &s->psum[r * s->saw + c];
		if (p->block < 0 || p->used)
			continue;
		s->y[s->b[p->block].part->row0 + r] += p->val;
		s->out->output_accesses++;
		pend(s, (struct wr){ WR_USED, r, c, p->block, 0 });
		s->used_at[r * s->saw + c] = s->t;
		s->last_collect = s->t;
	}
}

static void apply_writes(struct sim *s)
{
	size_t i;
	for (i = 0; i < s->nw; i++) {
		const struct wr *w = &s->w[i];
		size_t at = (size_t)w->r * s->saw + w->c;
		switch (w->kind) {
		case WR_PSUM:
			s->psum[at] = (struct psum){ w->block, w->val, false };
			break;
		case WR_USED:
			s->psum[at].used = true;
			break;
		case WR_LATCH:
			s->latch[at] = (struct latchv){ w->block, w->val };
			break;
		}
	}
	s->nw = 0;
}

/* Is anything left to do? */
static bool busy(const struct sim *s)
{
	unsigned c, r;
	for (c = 0; c < s->saw; c++)
		if (s->cur[c] < (int64_t)s->nb || s->col[c].n)
			return true;
	for (r = 0; r < s->sah; r++) {
		const struct psum *p = &s->psum[r * s->saw + s->saw - 1];
		if (p->block >= 0 && !p->used)
			return true;
	}
	return false;
}

static void simulate(struct sim *s)
{
	int64_t idle = 0;
	uint64_t before_events = 0;

	s->last_collect = -1;
	for (s->t = 0; busy(s) && !s->out->hazard[0]; s->t++) {
		uint64_t ev;
		step_loads(s);
		step_inject(s);
		step_collect(s);
		step_pes(s);
		apply_writes(s);
		ev = s->out->weight_hops + s->out->vector_reads + s->out->output_accesses +
		     s->out->x_forward + s->out->accumulate + s->out->bypass + s->out->mac;
		idle = ev == before_events ? idle + 1 : 0;
		before_events = ev;
		if (idle > 4 * (int64_t)(s->sah + s->saw) + 16) {
			hazard(s, "nothing moves: the schedule is stuck", 0, 0, s->cur[0]);
			break;
		}
	}
	s->out->cycles = s->last_collect >= 0 ? (uint64_t)s->last_collect + 1 : 0;
}

/* ---------------------------------------------------------------- run */

/* Cut the partitions into blocks of saw groups. */
static struct sblock *make_blocks(const struct spart *parts, size_t n_parts, unsigned saw,
				  size_t *nb)
{
	struct sblock *b = NULL;
	size_t n = 0, alloc = 0, p, q;

	for (p = 0; p < n_parts; p++)
		for (q = 0; q < parts[p].n; q += saw) {
			XGROW(b, n + 1, alloc);
			b[n].part = &parts[p];
			b[n].q = q;
			b[n].width = (unsigned)(parts[p].n - q < saw ? parts[p].n - q : saw);
			n++;
		}
	*nb = n;
	return b;
}

/* The partitions of a rows-row matrix on an array of sah rows. */
static size_t n_partitions(uint64_t rows, unsigned sah)
{
	return (size_t)((rows + sah - 1) / sah);
}

/*
 * Refuse (-1 with 'err', located at the design's 'stpu' key) a simulation of
 * 'name' that would hold more than SIM_MAX_GROUPS packed columns, or step
 * more than SIM_MAX_WORK units: 'cycles' (an estimate) times the array's PEs
 * with a row and a column of controllers.
 */
static int check_size(const struct spec_stpu *st, const char *name, uint64_t groups,
		      double cycles, struct strbuf *err)
{
	double work = cycles * (st->array_rows + 1.0) * (st->array_cols + 1.0);
	const char *file = st->loc.file ? st->loc.file : "-";

	if (groups > SIM_MAX_GROUPS)
		strbuf_setf(err, "%s:%u:%u: error: in 'stpu': simulating %s would hold %llu "
			 "packed columns, over the limit of %llu; simulate a smaller matrix (the "
			 "model has no such limit)", file, st->loc.line, st->loc.col, name,
			 (unsigned long long)groups, (unsigned long long)SIM_MAX_GROUPS);
	else if (work > (double)SIM_MAX_WORK)
		strbuf_setf(err, "%s:%u:%u: error: in 'stpu': simulating %s would take about "
			 "%.3g PE-cycles (%.3g cycles on %u x %u PEs), over the limit of %.3g; "
			 "simulate a smaller matrix or array", file, st->loc.line, st->loc.col, name,
			 work, cycles, st->array_rows, st->array_cols, (double)SIM_MAX_WORK);
	else
		return 0;
	return -1;
}

/*
 * An estimate of the cycles of the blocks of 'parts': each block holds the
 * load chain saw cycles and streams its longest input group; then the
 * array drains.
 */
static double estimate_cycles(const struct spart *parts, size_t np, unsigned sah, unsigned saw,
			      bool stpu)
{
	double cycles = sah + 2.0 * saw;
	size_t p, q, g;

	for (p = 0; p < np; p++)
		for (q = 0; q < parts[p].n; q += saw) {
			size_t longest = 0;
			for (g = q; stpu && g < parts[p].n && g < q + saw; g++)
				if (parts[p].g[g].n_in > longest)
					longest = parts[p].g[g].n_in;
			cycles += saw + (double)longest;
		}
	return cycles;
}

int exec_stpu_check(const struct spec_stpu *st, uint64_t rows, uint64_t cols, struct strbuf *err)
{
	uint64_t np = n_partitions(rows, st->array_rows);
	uint64_t blocks = np * ((cols + st->array_cols - 1) / st->array_cols);
	double cycles = (double)blocks * st->array_cols + st->array_rows + 2.0 * st->array_cols;

	return check_size(st, "TPU", np * cols, cycles, err);
}

static void free_parts(struct spart *parts, size_t np)
{
	size_t p, g;
	for (p = 0; p < np; p++) {
		for (g = 0; g < parts[p].n; g++) {
			free(parts[p].g[g].dense);
			free(parts[p].g[g].pe);
			free(parts[p].g[g].in);
		}
		free(parts[p].g);
	}
	free(parts);
}

/* Cut KMZ's full-height groups into the partitions; -1 (err) when they would be too many. */
static int kmz_partitions(const struct smat *a, const struct spec_stpu *st, struct spart *parts,
			  size_t np, struct exec_stpu_result *out, struct strbuf *err)
{
	size_t ng = 0, g, p;
	struct kgroup *kg = pack_kmz(a, st, &ng, &out->n_dropped);
	uint64_t blocks = (uint64_t)np * ((ng + st->array_cols - 1) / st->array_cols);
	int rc = check_size(st, "KMZ", (uint64_t)np * ng,
			    (double)blocks * st->array_cols + st->array_rows + 2.0 * st->array_cols,
			    err);
	size_t *alloc = xcalloc(np ? np : 1, sizeof(*alloc));

	for (g = 0; g < ng; g++) {
		size_t n = 0, at = 0;
		struct kent *v = rc == 0 ? kmz_sorted(&kg[g], &n) : NULL;
		for (p = 0; rc == 0 && p < np; p++) {
			struct spart *pt = &parts[p];
			size_t from = at;
			struct sgroup *sg = part_add_group(pt, &alloc[p], false);
			while (at < n && v[at].row < pt->row0 + pt->rows)
				at++;
			sg->pe = xmalloc((at - from ? at - from : 1) * sizeof(*sg->pe));
			for (sg->n_pe = 0; from < at; from++)
				sg->pe[sg->n_pe++] = (struct pent){ (unsigned)(v[from].row - pt->row0),
								    v[from].w };
			sg->in = xmalloc(kg[g].n_cols * sizeof(*sg->in));
			memcpy(sg->in, kg[g].cols, kg[g].n_cols * sizeof(*sg->in));
			sg->n_in = kg[g].n_cols;
		}
		free(v);
		hashmap_release(&kg[g].pe);
		free(kg[g].cols);
	}
	free(kg);
	free(alloc);
	return rc;
}

/*
 * Pack the matrix with scheme 'k' into its partitions; NULL (err) when the
 * simulation would be too large (the TPU and KMZ are checked before their
 * groups are made: theirs are the same in every partition).
 */
static struct spart *pack(const struct smat *a, const struct spec_stpu *st, enum exec_stpu_scheme k,
			  size_t *n_parts, struct exec_stpu_result *out, struct strbuf *err)
{
	size_t np = n_partitions(a->rows, st->array_rows), p;
	struct spart *parts;
	struct pentries pe;
	uint64_t n_coll = 0;
	int rc = 0;

	*n_parts = np;
	if (k == EXEC_STPU_TPU && exec_stpu_check(st, a->rows, a->cols, err) < 0)
		return NULL;
	parts = xcalloc(np ? np : 1, sizeof(*parts));
	for (p = 0; p < np; p++) {
		parts[p].row0 = (uint64_t)p * st->array_rows;
		parts[p].rows = (unsigned)(a->rows - parts[p].row0 < st->array_rows
						   ? a->rows - parts[p].row0 : st->array_rows);
	}
	if (k == EXEC_STPU_KMZ) {
		rc = kmz_partitions(a, st, parts, np, out, err);
	} else {
		pentries_build(&pe, a, st->array_rows, np);
		for (p = 0; p < np; p++) {
			if (k == EXEC_STPU_TPU)
				pack_part_none(a, &pe, p, &parts[p]);
			else if (k == EXEC_STPU_C0)
				pack_part_c0(a, &pe, p, &parts[p]);
			else
				pack_part_c1(a, &pe, p, st, &parts[p], &n_coll);
		}
		pentries_free(&pe);
	}
	for (p = 0; p < np; p++)
		out->packed_width += parts[p].n;
	if (rc < 0) {
		free_parts(parts, np);
		return NULL;
	}
	return parts;
}

/* The dense products: with the entries the packed array holds, and with all of them. */
static void check_numeric(const struct smat *a, const struct spart *parts, size_t np,
			  const int64_t *y, struct exec_stpu_result *out)
{
	int64_t *kept = xcalloc((size_t)a->rows + 1, sizeof(*kept));
	int64_t *full = xcalloc((size_t)a->rows + 1, sizeof(*full));
	size_t p, g, i;
	uint64_t row;

	for (i = 0; i < a->nnz; i++)
		full[a->e[i].row] += a->e[i].val * a->x[a->e[i].col];
	for (p = 0; p < np; p++)
		for (g = 0; g < parts[p].n; g++)
			for (i = 0; i < parts[p].g[g].n_pe; i++) {
				const struct pent *w = &parts[p].g[g].pe[i];
				kept[parts[p].row0 + w->row] += w->w.val * a->x[w->w.col];
			}
	out->n_outputs = a->rows;
	for (row = 0; row < a->rows; row++) {
		double e = fabs((double)(y[row] - full[row]));
		if (y[row] != kept[row])
			out->n_wrong++;
		if (e > out->max_abs_error_full)
			out->max_abs_error_full = e;
	}
	free(kept);
	free(full);
}

/* Set up the array of 'st' for the blocks of 'parts'. */
static void sim_init(struct sim *s, const struct spec_stpu *st, bool stpu, bool kmz,
		     const struct smat *a, const struct spart *parts, size_t np,
		     struct exec_stpu_result *out)
{
	size_t i;
	unsigned r, n;

	memset(s, 0, sizeof(*s));
	s->sah = st->array_rows;
	s->saw = st->array_cols;
	s->stpu = stpu;
	s->kmz = kmz;
	s->a = a;
	s->out = out;
	s->b = make_blocks(parts, np, s->saw, &s->nb);
	n = s->sah * s->saw;
	for (i = 0; i < 2; i++) {
		s->slot[i] = xcalloc(n, sizeof(*s->slot[i]));
		for (r = 0; r < n; r++)
			s->slot[i][r].block = -1;
	}
	s->latch = xcalloc(n, sizeof(*s->latch));
	s->psum = xcalloc(n, sizeof(*s->psum));
	s->used_at = xmalloc(n * sizeof(*s->used_at));
	for (r = 0; r < n; r++) {
		s->latch[r].block = -1;
		s->psum[r].block = -1;
		s->used_at[r] = -1;
	}
	s->ld = xcalloc(s->sah, sizeof(*s->ld));
	for (r = 0; r < s->sah; r++) {
		s->ld[r].chain = xcalloc(s->saw, sizeof(*s->ld[r].chain));
		s->ld[r].next = next_block_with_row(s, 0, r);
		s->ld[r].started_block = -1;
		s->ld[r].done_block = -1;
	}
	s->col = xcalloc(s->saw, sizeof(*s->col));
	s->cur = xcalloc(s->saw, sizeof(*s->cur));
	s->pos = xcalloc(s->saw, sizeof(*s->pos));
	s->end_cycle = xmalloc((s->nb ? s->nb : 1) * s->saw * sizeof(*s->end_cycle));
	for (i = 0; i < s->nb * s->saw; i++)
		s->end_cycle[i] = -1;
	s->y = xcalloc((size_t)a->rows + 1, sizeof(*s->y));
}

static void sim_release(struct sim *s)
{
	unsigned r;

	for (r = 0; r < s->sah; r++)
		free(s->ld[r].chain);
	for (r = 0; r < s->saw; r++)
		free(s->col[r].t);
	free(s->ld);
	free(s->col);
	free(s->cur);
	free(s->pos);
	free(s->end_cycle);
	free(s->y);
	free(s->w);
	free(s->slot[0]);
	free(s->slot[1]);
	free(s->latch);
	free(s->psum);
	free(s->used_at);
	free(s->b);
}

int exec_stpu_run(const struct spec_stpu *st, const struct spec_matrix *m, enum exec_stpu_scheme k,
		  uint64_t seed, struct exec_stpu_result *out, struct strbuf *err)
{
	static const char *const names[] = { "TPU", "STPU-C0", "STPU-C1", "KMZ" };
	bool stpu = k == EXEC_STPU_C0 || k == EXEC_STPU_C1;
	struct smat a;
	struct spart *parts;
	struct sim s;
	double cycles;
	size_t np;

	memset(out, 0, sizeof(*out));
	if (m->n_ranks != 2) {
		strbuf_setf(err, "the STPU simulation needs a 2-rank matrix, got %u ranks",
			 m->n_ranks);
		return -1;
	}
	if (k == EXEC_STPU_TPU && exec_stpu_check(st, m->shape[0], m->shape[1], err) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	smat_build(&a, m, seed);
	parts = pack(&a, st, k, &np, out, err);
	if (!parts) {
		smat_free(&a);
		return -1;
	}
	cycles = estimate_cycles(parts, np, st->array_rows, st->array_cols, stpu);
	if (check_size(st, names[k], out->packed_width, cycles, err) < 0) {
		free_parts(parts, np);
		smat_free(&a);
		return -1;
	}
	sim_init(&s, st, stpu, k == EXEC_STPU_KMZ, &a, parts, np, out);
	out->blocks = s.nb;
	simulate(&s);
	check_numeric(&a, parts, np, s.y, out);
	sim_release(&s);
	free_parts(parts, np);
	smat_free(&a);
	return 0;
}
