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

#include "util/rng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The rng stream of the simulated values ("STPX"). */
#define SIM_VALUE_STREAM UINT64_C(0x53545058)

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

/* A packed column: its PE contents (one per partition row) and input group. */
struct sgroup {
	struct pword *pe;
	uint64_t *in;              /* original columns streamed, ascending */
	size_t n_in;
};

struct spart {
	uint64_t row0;
	unsigned rows;
	size_t n;
	struct sgroup *g;
};

static struct sgroup *part_add_group(struct spart *p, size_t *alloc)
{
	struct sgroup *g;
	XGROW(p->g, p->n + 1, *alloc);
	g = &p->g[p->n++];
	g->pe = xcalloc(p->rows ? p->rows : 1, sizeof(*g->pe));
	g->in = NULL;
	g->n_in = 0;
	return g;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Set g's input group to the distinct columns of its PEs. */
static void group_inputs_from_pe(struct sgroup *g, unsigned rows)
{
	unsigned r;
	size_t k = 0, i;

	free(g->in);
	g->in = xmalloc((rows ? rows : 1) * sizeof(*g->in));
	for (r = 0; r < rows; r++)
		if (g->pe[r].full)
			g->in[k++] = g->pe[r].col;
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

/* The entries of column c in partition [row0, row0 + rows). */
static void column_entries(const struct smat *a, uint64_t c, uint64_t row0, unsigned rows,
			   struct elist *out)
{
	size_t i;
	out->n = 0;
	for (i = a->cp[c]; i < a->cp[c + 1]; i++)
		if (a->e[i].row >= row0 && a->e[i].row < row0 + rows)
			elist_add(out, (unsigned)(a->e[i].row - row0),
				  (struct pword){ true, a->e[i].val, a->e[i].col });
}

/* Does the candidate fit group g without any shared row? */
static bool fits_free(const struct sgroup *g, const struct elist *c)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		if (g->pe[c->row[i]].full)
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
		gr = part_add_group(p, alloc);
	for (i = 0; i < c->n; i++)
		gr->pe[c->row[i]] = c->w[i];
}

static void pack_part_none(const struct smat *a, struct spart *p)
{
	size_t alloc = 0;
	uint64_t c;
	struct elist l;

	memset(&l, 0, sizeof(l));
	for (c = 0; c < a->cols; c++) {
		struct sgroup *g = part_add_group(p, &alloc);
		size_t i;
		column_entries(a, c, p->row0, p->rows, &l);
		for (i = 0; i < l.n; i++)
			g->pe[l.row[i]] = l.w[i];
		g->in = xmalloc(sizeof(*g->in));
		g->in[0] = c;
		g->n_in = 1;
	}
	free(l.row);
	free(l.w);
}

static void pack_part_c0(const struct smat *a, struct spart *p)
{
	size_t alloc = 0, g;
	uint64_t c;
	struct elist l;

	memset(&l, 0, sizeof(l));
	for (c = 0; c < a->cols; c++) {
		column_entries(a, c, p->row0, p->rows, &l);
		if (l.n)
			first_fit(p, &alloc, 0, &l);
	}
	for (g = 0; g < p->n; g++)
		group_inputs_from_pe(&p->g[g], p->rows);
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
static void pack_part_c1(const struct smat *a, const struct spec_stpu *st, struct spart *p,
			 uint64_t *n_coll)
{
	struct elist *cand = NULL, *res = NULL;
	size_t n_cand = 0, cand_alloc = 0, n_res = 0, g, alloc = 0, first_resid;
	struct rgroup *gs = NULL;
	size_t ng = 0;
	unsigned it, r;
	uint64_t c;

	for (c = 0; c < a->cols; c++) {
		struct elist l;
		memset(&l, 0, sizeof(l));
		column_entries(a, c, p->row0, p->rows, &l);
		if (!l.n) {
			free(l.row);
			free(l.w);
			continue;
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
		struct sgroup *sg = part_add_group(p, &alloc);
		memcpy(sg->pe, gs[g].pe, p->rows * sizeof(*sg->pe));
		free(gs[g].pe);
		free(gs[g].row_coll);
	}
	free(gs);
	first_resid = p->n;
	for (g = 0; g < n_res; g++)
		first_fit(p, &alloc, first_resid, &res[g]);
	free_cands(res, n_res);
	for (g = 0; g < p->n; g++)
		group_inputs_from_pe(&p->g[g], p->rows);
}

/* KMZ: full-height groups (their PEs for every matrix row) and columns. */
struct kgroup {
	struct pword *pe;          /* matrix rows */
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
				hits += gs[g].pe[a->e[i].row].full;
			if (gs[g].conflicts + hits <= budget)
				gr = &gs[g];
		}
		if (!gr) {
			XGROW(gs, ng + 1, alloc);
			gr = &gs[ng++];
			gr->pe = xcalloc((size_t)a->rows, sizeof(*gr->pe));
			gr->cols = xmalloc(st->kmz_max_columns * sizeof(*gr->cols));
			gr->n_cols = 0;
			gr->conflicts = 0;
		}
		for (i = a->cp[c]; i < a->cp[c + 1]; i++) {
			struct pword *w = &gr->pe[a->e[i].row];
			if (w->full) {
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
	return bl->part->g[bl->q + c].pe[r];
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

static struct spart *pack(const struct smat *a, const struct spec_stpu *st, enum exec_stpu_scheme k,
			  size_t *n_parts, struct exec_stpu_result *out)
{
	size_t np = (size_t)((a->rows + st->array_rows - 1) / st->array_rows), p, g, ng = 0;
	struct spart *parts = xcalloc(np ? np : 1, sizeof(*parts));
	struct kgroup *kg = NULL;
	uint64_t n_coll = 0;

	if (k == EXEC_STPU_KMZ)
		kg = pack_kmz(a, st, &ng, &out->n_dropped);
	for (p = 0; p < np; p++) {
		struct spart *pt = &parts[p];
		size_t alloc = 0;
		pt->row0 = (uint64_t)p * st->array_rows;
		pt->rows = (unsigned)(a->rows - pt->row0 < st->array_rows ? a->rows - pt->row0
									 : st->array_rows);
		switch (k) {
		case EXEC_STPU_TPU:
			pack_part_none(a, pt);
			break;
		case EXEC_STPU_C0:
			pack_part_c0(a, pt);
			break;
		case EXEC_STPU_C1:
			pack_part_c1(a, st, pt, &n_coll);
			break;
		default:
			for (g = 0; g < ng; g++) {
				struct sgroup *sg = part_add_group(pt, &alloc);
				memcpy(sg->pe, kg[g].pe + pt->row0, pt->rows * sizeof(*sg->pe));
				sg->in = xmalloc(kg[g].n_cols * sizeof(*sg->in));
				memcpy(sg->in, kg[g].cols, kg[g].n_cols * sizeof(*sg->in));
				sg->n_in = kg[g].n_cols;
			}
			break;
		}
		out->packed_width += pt->n;
	}
	for (g = 0; g < ng; g++) {
		free(kg[g].pe);
		free(kg[g].cols);
	}
	free(kg);
	*n_parts = np;
	return parts;
}

/* The dense products: with the entries the packed array holds, and with all of them. */
static void check_numeric(const struct smat *a, const struct spart *parts, size_t np,
			  const int64_t *y, struct exec_stpu_result *out)
{
	int64_t *kept = xcalloc((size_t)a->rows + 1, sizeof(*kept));
	int64_t *full = xcalloc((size_t)a->rows + 1, sizeof(*full));
	size_t p, g, i;
	unsigned r;
	uint64_t row;

	for (i = 0; i < a->nnz; i++)
		full[a->e[i].row] += a->e[i].val * a->x[a->e[i].col];
	for (p = 0; p < np; p++)
		for (g = 0; g < parts[p].n; g++)
			for (r = 0; r < parts[p].rows; r++) {
				const struct pword *w = &parts[p].g[g].pe[r];
				if (w->full)
					kept[parts[p].row0 + r] += w->val * a->x[w->col];
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

static void free_parts(struct spart *parts, size_t np)
{
	size_t p, g;
	for (p = 0; p < np; p++) {
		for (g = 0; g < parts[p].n; g++) {
			free(parts[p].g[g].pe);
			free(parts[p].g[g].in);
		}
		free(parts[p].g);
	}
	free(parts);
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
	struct smat a;
	struct spart *parts;
	struct sim s;
	size_t np;

	memset(out, 0, sizeof(*out));
	if (m->n_ranks != 2) {
		strbuf_setf(err, "the STPU simulation needs a 2-rank matrix, got %u ranks",
			 m->n_ranks);
		return -1;
	}
	if ((double)m->shape[0] * (double)m->shape[1] > 1e9) {
		strbuf_setf(err, "a %llu x %llu matrix is too large to simulate",
			 (unsigned long long)m->shape[0], (unsigned long long)m->shape[1]);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	smat_build(&a, m, seed);
	parts = pack(&a, st, k, &np, out);
	sim_init(&s, st, k == EXEC_STPU_C0 || k == EXEC_STPU_C1, k == EXEC_STPU_KMZ, &a, parts, np,
		 out);
	out->blocks = s.nb;
	simulate(&s);
	check_numeric(&a, parts, np, s.y, out);
	sim_release(&s);
	free_parts(parts, np);
	smat_free(&a);
	return 0;
}
