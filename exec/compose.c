/*
 * Composable formats, the executor (exec/compose.h). It shares no code with
 * the model (model/compose.c): it builds the arrays a GPU kernel would read
 * and counts the reads and writes as it runs them.
 */
#include "exec/compose.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct elem {
	uint64_t r, c;
	double v;
	size_t owner;                  /* part index + 1, 0 = not taken yet */
};

struct run {
	const struct compose_part *parts;
	size_t n;
	enum compose_op op;
	uint64_t rows, cols, features;
	double *B, *C;                 /* SDDMM: B is Y (cols x features) */
	double *X;                     /* SDDMM: rows x features */
	double *out;                   /* SDDMM: each element's output (sorted order) */
	uint32_t *written;             /* SDDMM: the writes of each element's output */
	uint32_t *row_updates;         /* updates of each row of C, over all parts */
	uint64_t **upd_rows;           /* per part: the rows it updated, one entry per update */
	size_t *n_upd, *alloc_upd;
};

static int cmp_rc(const void *a, const void *b)
{
	const struct elem *x = a, *y = b;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c;
}

static double b_value(uint64_t k, uint64_t j)
{
	return (double)((k * 7 + j * 3) % 11) - 5.0;
}

/* Row 'r' of C gets 'acc' (features words): one update by part 'p'. */
static void update_row(struct run *rn, size_t p, uint64_t r, const double *acc,
		       struct compose_counts *c)
{
	uint64_t j;
	for (j = 0; j < rn->features; j++)
		rn->C[r * rn->features + j] += acc[j];
	c->c_updates += rn->features;
	rn->row_updates[r]++;
	if (rn->n_upd[p] == rn->alloc_upd[p]) {
		rn->alloc_upd[p] = rn->alloc_upd[p] ? 2 * rn->alloc_upd[p] : 64;
		rn->upd_rows[p] = xrealloc(rn->upd_rows[p], rn->alloc_upd[p] * sizeof(uint64_t));
	}
	rn->upd_rows[p][rn->n_upd[p]++] = r;
}

/*
 * The features are computed in slices of the part's warp_features (a warp
 * each): slice 'sl' covers [lo, hi). Each warp reads the unit's A values and
 * indices itself.
 */
static uint64_t slice_width(const struct run *rn, size_t p)
{
	uint64_t wf = rn->parts[p].warp_features ? rn->parts[p].warp_features
		: COMPOSE_WARP_FEATURES;
	return wf < rn->features ? wf : rn->features;
}

static uint64_t slices(const struct run *rn, size_t p)
{
	uint64_t wf = slice_width(rn, p);
	return (rn->features + wf - 1) / wf;
}

/* The end of the slice of width 'wf' that starts at feature 'lo'. */
static uint64_t slice_end(const struct run *rn, uint64_t lo, uint64_t wf)
{
	return lo + wf < rn->features ? lo + wf : rn->features;
}

/* acc[lo, hi) += a * B[k, lo..hi) */
static void mac_row(struct run *rn, double *acc, double a, bool pad, uint64_t k, uint64_t lo,
		    uint64_t hi, struct compose_counts *c)
{
	uint64_t j;
	for (j = lo; j < hi; j++)
		acc[j] += a * rn->B[k * rn->features + j];
	c->b_reads += hi - lo;
	c->macs += hi - lo;
	if (pad)
		c->padded_macs += hi - lo;
}

/*
 * SDDMM at one slot, features [lo, hi): C += a * X[r, lo..hi) . Y[k, lo..hi),
 * one word written (the first slice stores it, the others add to it, reading
 * it back); 'idx' the element the slot holds (SIZE_MAX: padding, whose output
 * is not the matrix's). The caller counts the reads of X and Y (a BSR block
 * reads a row of Y once for its b rows).
 */
static void dot_slot(struct run *rn, double a, size_t idx, uint64_t r, uint64_t k, uint64_t lo,
		     uint64_t hi, struct compose_counts *c)
{
	double s = 0.0;
	uint64_t j;
	if (r < rn->rows && k < rn->cols)
		for (j = lo; j < hi; j++)
			s += rn->X[r * rn->features + j] * rn->B[k * rn->features + j];
	c->macs += hi - lo;
	if (idx == SIZE_MAX)
		c->padded_macs += hi - lo;
	c->c_updates++;
	if (lo)
		c->c_reads++;
	if (idx != SIZE_MAX) {
		if (!lo) {
			rn->out[idx] = a * s;
			rn->written[idx]++;
		} else {
			rn->out[idx] += a * s;
		}
	}
}

/* ---------------------------------------------------------------- BSR */

struct blk_key {
	uint64_t br, bc;
	size_t idx;                    /* the element, in the (row, column) order */
};

static int cmp_block(const void *a, const void *b)
{
	const struct blk_key *x = a, *y = b;
	if (x->br != y->br)
		return x->br < y->br ? -1 : 1;
	if (x->bc != y->bc)
		return x->bc < y->bc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void run_bsr(struct run *rn, size_t p, struct elem *e, size_t nnz, struct compose_counts *c)
{
	const struct compose_part *q = &rn->parts[p];
	uint64_t b = q->block, nbr = (rn->rows + b - 1) / b, i;
	struct blk_key *s = xcalloc(nnz + 1, sizeof(*s));
	uint64_t *ptr = xcalloc(nbr + 2, sizeof(*ptr)), *bcol = NULL;
	double *val = NULL, *acc = xcalloc(b * rn->features + 1, sizeof(*acc));
	unsigned char *mask = NULL;
	size_t nb = 0, alloc = 0, k, j, *eidx = NULL;
	uint64_t wf = slice_width(rn, p), ns = slices(rn, p), sl;

	/* the elements in block order */
	for (k = 0; k < nnz; k++) {
		s[k].br = e[k].r / b;
		s[k].bc = e[k].c / b;
		s[k].idx = k;
	}
	qsort(s, nnz, sizeof(*s), cmp_block);
	/* the arrays: block row offsets, block columns, dense b x b values (and their mask) */
	for (k = 0; k < nnz;) {
		uint64_t br = s[k].br, bc = s[k].bc;
		for (j = k; j < nnz && s[j].br == br && s[j].bc == bc; j++)
			;
		if (j - k >= q->min_fill) {
			size_t t;
			if (nb == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				bcol = xrealloc(bcol, alloc * sizeof(*bcol));
				val = xrealloc(val, alloc * b * b * sizeof(*val));
				mask = xrealloc(mask, alloc * b * b);
				eidx = xrealloc(eidx, alloc * b * b * sizeof(*eidx));
			}
			bcol[nb] = bc;
			memset(val + nb * b * b, 0, b * b * sizeof(*val));
			memset(mask + nb * b * b, 0, b * b);
			for (t = 0; t < b * b; t++)
				eidx[nb * b * b + t] = SIZE_MAX;
			for (t = k; t < j; t++) {
				const struct elem *x = &e[s[t].idx];
				val[nb * b * b + (x->r % b) * b + x->c % b] = x->v;
				mask[nb * b * b + (x->r % b) * b + x->c % b] = 1;
				eidx[nb * b * b + (x->r % b) * b + x->c % b] = s[t].idx;
				e[s[t].idx].owner = p + 1;
			}
			c->nnz += j - k;
			ptr[br + 1]++;
			nb++;
		}
		k = j;
	}
	for (i = 0; i < nbr; i++)
		ptr[i + 1] += ptr[i];
	c->blocks = nb;
	c->slots = nb * b * b;
	/* run: one unit per block row */
	if (nb) {
		uint64_t prev = ptr[0];
		c->meta_reads++;
		for (i = 0; i < nbr; i++) {
			uint64_t end = ptr[i + 1], x, unit = 0, r0 = i * b, r1;
			c->meta_reads++;
			if (end == prev) {
				continue;
			}
			c->rows++;
			memset(acc, 0, b * rn->features * sizeof(*acc));
			for (sl = 0; sl < ns; sl++) {
				uint64_t lo = sl * wf, hi = slice_end(rn, lo, wf);
				for (x = prev; x < end; x++) {
					uint64_t bc = bcol[x], rr, cc;
					c->meta_reads++;
					if (rn->op == COMPOSE_SDDMM) {
						/* the block's b rows of X and of Y, b^2 dot products */
						c->x_reads += b * (hi - lo);
						for (cc = 0; cc < b; cc++) {
							/* Y's row: read once for the block's b rows */
							c->b_reads += hi - lo;
							for (rr = 0; rr < b; rr++) {
								c->data_reads++;
								unit += sl == 0;
								dot_slot(rn, val[x * b * b + rr * b + cc],
									 eidx[x * b * b + rr * b + cc],
									 r0 + rr, bc * b + cc, lo, hi, c);
							}
						}
						continue;
					}
					for (cc = 0; cc < b; cc++) {
						/* B's row bc*b + cc is read once for the block's b rows */
						uint64_t kk = bc * b + cc;
						for (rr = 0; rr < b; rr++) {
							double a = val[x * b * b + rr * b + cc];
							bool pad = !mask[x * b * b + rr * b + cc];
							uint64_t jj;
							c->data_reads++;
							unit += sl == 0;
							for (jj = lo; jj < hi; jj++)
								if (kk < rn->cols)
									acc[rr * rn->features + jj] +=
										a * rn->B[kk * rn->features + jj];
							c->macs += hi - lo;
							if (pad)
								c->padded_macs += hi - lo;
						}
						c->b_reads += hi - lo;
					}
				}
			}
			if (unit > c->max_unit)
				c->max_unit = unit;
			r1 = r0 + b > rn->rows ? rn->rows : r0 + b;
			for (x = r0; x < r1 && rn->op == COMPOSE_SPMM; x++)
				update_row(rn, p, x, acc + (x - r0) * rn->features, c);
			prev = end;
		}
	}
	free(s);
	free(ptr);
	free(bcol);
	free(val);
	free(mask);
	free(eidx);
	free(acc);
}

/* ------------------------------------------------- CSR, COO and ELL */

/* The elements of 'e' (sorted by row, column) no part took, in q's columns, of rows of q's lengths. */
static size_t take(struct run *rn, size_t p, struct elem *e, size_t nnz, size_t **out)
{
	const struct compose_part *q = &rn->parts[p];
	size_t *v = xcalloc(nnz + 1, sizeof(*v)), n = 0, k, j;

	for (k = 0; k < nnz;) {
		uint64_t d = 0;
		for (j = k; j < nnz && e[j].r == e[k].r; j++)
			if (e[j].c >= q->col_lo && e[j].c < q->col_hi && e[j].owner == 0)
				d++;
		/* whether a block took an element, d counts the rest: blocks go first */
		if (d && d >= q->min_length && d <= q->max_length) {
			size_t t;
			for (t = k; t < j; t++)
				if (e[t].c >= q->col_lo && e[t].c < q->col_hi && e[t].owner == 0)
					v[n++] = t;
		}
		k = j;
	}
	*out = v;
	return n;
}

static void run_csr(struct run *rn, size_t p, struct elem *e, const size_t *t, size_t n,
		    struct compose_counts *c)
{
	uint64_t *ptr = xcalloc(rn->rows + 2, sizeof(*ptr)), *col = xcalloc(n + 1, sizeof(*col));
	double *val = xcalloc(n + 1, sizeof(*val)), *acc = xcalloc(rn->features + 1, sizeof(*acc));
	uint64_t r, prev, wf = slice_width(rn, p), ns = slices(rn, p), sl;
	size_t k;

	for (k = 0; k < n; k++) {
		ptr[e[t[k]].r + 1]++;
		col[k] = e[t[k]].c;
		val[k] = e[t[k]].v;
	}
	for (r = 0; r < rn->rows; r++)
		ptr[r + 1] += ptr[r];
	c->nnz = n;
	c->slots = n;
	if (!n)
		goto out;
	prev = ptr[0];
	c->meta_reads++;
	for (r = 0; r < rn->rows; r++) {
		uint64_t end = ptr[r + 1], x;
		c->meta_reads++;
		if (end == prev)
			continue;
		memset(acc, 0, rn->features * sizeof(*acc));
		for (sl = 0; sl < ns; sl++) {
			uint64_t lo = sl * wf, hi = slice_end(rn, lo, wf);
			if (rn->op == COMPOSE_SDDMM)
				c->x_reads += hi - lo;  /* X's row, once for the row's non-zeros */
			for (x = prev; x < end; x++) {
				c->meta_reads++;
				c->data_reads++;
				if (rn->op == COMPOSE_SDDMM) {
					c->b_reads += hi - lo;
					dot_slot(rn, val[x], t[x], r, col[x], lo, hi, c);
				} else
					mac_row(rn, acc, val[x], false, col[x], lo, hi, c);
			}
		}
		if (end - prev > c->max_unit)
			c->max_unit = end - prev;
		c->rows++;
		if (rn->op == COMPOSE_SPMM)
			update_row(rn, p, r, acc, c);
		prev = end;
	}
out:
	free(ptr);
	free(col);
	free(val);
	free(acc);
}

static void run_coo(struct run *rn, size_t p, struct elem *e, const size_t *t, size_t n,
		    struct compose_counts *c)
{
	double *acc = xcalloc(rn->features + 1, sizeof(*acc));
	uint64_t wf = slice_width(rn, p), ns = slices(rn, p), sl;
	size_t k;

	c->nnz = n;
	c->slots = n;
	for (k = 0; k < n; k++) {
		const struct elem *x = &e[t[k]];
		memset(acc, 0, rn->features * sizeof(*acc));
		for (sl = 0; sl < ns; sl++) {
			uint64_t lo = sl * wf, hi = slice_end(rn, lo, wf);
			c->meta_reads += 2;
			c->data_reads++;
			if (rn->op == COMPOSE_SDDMM) {
				c->x_reads += hi - lo;
				c->b_reads += hi - lo;
				dot_slot(rn, x->v, t[k], x->r, x->c, lo, hi, c);
			} else {
				mac_row(rn, acc, x->v, false, x->c, lo, hi, c);
			}
		}
		if (rn->op == COMPOSE_SPMM)
			update_row(rn, p, x->r, acc, c);
		if (k == 0 || x->r != e[t[k - 1]].r)
			c->rows++;
		c->max_unit = 1;
	}
	free(acc);
}

/* ELL rows as SparseTIR's column_part_hyb builds them: a row fills slots of the
 * width, a new stored row starts at a new matrix row or a full one, and the
 * last stored row of a matrix row is padded with column 0 and value 0. */
static void run_ell(struct run *rn, size_t p, struct elem *e, const size_t *t, size_t n,
		    struct compose_counts *c)
{
	const struct compose_part *q = &rn->parts[p];
	uint64_t w = q->width, *rowi = NULL, *coli = NULL, nr = 0, alloc = 0, i;
	double *val = NULL, *acc = xcalloc(rn->features + 1, sizeof(*acc));
	unsigned char *mask = NULL;
	size_t k, fill = 0, *eidx = NULL;
	uint64_t wf = slice_width(rn, p), ns = slices(rn, p), sl;

	for (k = 0; k < n; k++) {
		const struct elem *x = &e[t[k]];
		if (fill % w != 0 && x->r != rowi[nr - 1]) {
			for (; fill % w; fill++) {
				coli[fill] = 0;
				val[fill] = 0.0;
				mask[fill] = 0;
				eidx[fill] = SIZE_MAX;
			}
		}
		if (fill % w == 0) {
			if (nr == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				rowi = xrealloc(rowi, alloc * sizeof(*rowi));
				coli = xrealloc(coli, alloc * w * sizeof(*coli));
				val = xrealloc(val, alloc * w * sizeof(*val));
				mask = xrealloc(mask, alloc * w);
				eidx = xrealloc(eidx, alloc * w * sizeof(*eidx));
			}
			rowi[nr++] = x->r;
		}
		coli[fill] = x->c;
		val[fill] = x->v;
		mask[fill] = 1;
		eidx[fill] = t[k];
		fill++;
	}
	for (; fill % w; fill++) {
		coli[fill] = 0;
		val[fill] = 0.0;
		mask[fill] = 0;
		eidx[fill] = SIZE_MAX;
	}
	c->nnz = n;
	c->rows = nr;
	c->slots = nr * w;
	for (i = 0; i < nr; i++) {
		uint64_t s;
		memset(acc, 0, rn->features * sizeof(*acc));
		for (sl = 0; sl < ns; sl++) {
			uint64_t lo = sl * wf, hi = slice_end(rn, lo, wf);
			c->meta_reads++;
			if (rn->op == COMPOSE_SDDMM)
				c->x_reads += hi - lo;  /* X's row, once for the stored row */
			for (s = 0; s < w; s++) {
				c->meta_reads++;
				c->data_reads++;
				if (rn->op == COMPOSE_SDDMM) {
					c->b_reads += hi - lo;
					dot_slot(rn, val[i * w + s], eidx[i * w + s], rowi[i],
						 coli[i * w + s], lo, hi, c);
				} else
					mac_row(rn, acc, val[i * w + s], !mask[i * w + s],
						coli[i * w + s], lo, hi, c);
			}
		}
		c->max_unit = w;
		if (rn->op == COMPOSE_SPMM)
			update_row(rn, p, rowi[i], acc, c);
	}
	free(eidx);
	free(rowi);
	free(coli);
	free(val);
	free(mask);
	free(acc);
}

static double x_value(uint64_t i, uint64_t j)
{
	return (double)((i * 5 + j * 2) % 7) - 3.0;
}

int exec_compose_run(const struct spec_matrix *m, const struct compose_part *parts, size_t n,
		     enum compose_op op, uint64_t features, struct compose_counts *out, char *err,
		     size_t err_len)
{
	struct run rn;
	struct elem *e;
	double *ref;
	size_t nnz = m->nnz, k, p;
	uint64_t i, j;
	int rc = 0;

	if (m->n_ranks != 2) {
		snprintf(err, err_len, "a composable format splits a matrix (2 ranks), not %u ranks",
			 m->n_ranks);
		return -1;
	}
	memset(&rn, 0, sizeof(rn));
	memset(out, 0, n * sizeof(*out));
	rn.parts = parts;
	rn.n = n;
	rn.op = op;
	rn.rows = m->shape[0];
	rn.cols = m->shape[1];
	rn.features = features;
	rn.B = xcalloc(rn.cols * features + 1, sizeof(*rn.B));
	rn.C = xcalloc(rn.rows * features + 1, sizeof(*rn.C));
	ref = xcalloc(rn.rows * features + 1, sizeof(*ref));
	rn.row_updates = xcalloc(rn.rows + 1, sizeof(*rn.row_updates));
	rn.upd_rows = xcalloc(n + 1, sizeof(*rn.upd_rows));
	rn.n_upd = xcalloc(n + 1, sizeof(*rn.n_upd));
	rn.alloc_upd = xcalloc(n + 1, sizeof(*rn.alloc_upd));
	for (i = 0; i < rn.cols; i++)
		for (j = 0; j < features; j++)
			rn.B[i * features + j] = b_value(i, j);
	if (op == COMPOSE_SDDMM) {
		rn.X = xcalloc(rn.rows * features + 1, sizeof(*rn.X));
		for (i = 0; i < rn.rows; i++)
			for (j = 0; j < features; j++)
				rn.X[i * features + j] = x_value(i, j);
		rn.out = xcalloc(nnz + 1, sizeof(*rn.out));
		rn.written = xcalloc(nnz + 1, sizeof(*rn.written));
	}
	e = xcalloc(nnz + 1, sizeof(*e));
	for (k = 0; k < nnz; k++) {
		e[k].r = m->coords[2 * k];
		e[k].c = m->coords[2 * k + 1];
		e[k].v = m->values ? m->values[k] : 1.0;
		for (j = 0; j < features && op == COMPOSE_SPMM; j++)
			ref[e[k].r * features + j] += e[k].v * rn.B[e[k].c * features + j];
	}
	qsort(e, nnz, sizeof(*e), cmp_rc);
	/* blocks first: the other parts take what the blocks leave */
	for (p = 0; p < n; p++)
		if (parts[p].format == COMPOSE_BSR)
			run_bsr(&rn, p, e, nnz, &out[p]);
	{
		/* decide every part's elements before any takes them: a row's
		 * length in a range counts what the blocks left */
		size_t **taken = xcalloc(n + 1, sizeof(*taken)), *n_taken = xcalloc(n + 1, sizeof(size_t));
		for (p = 0; p < n; p++)
			if (parts[p].format != COMPOSE_BSR)
				n_taken[p] = take(&rn, p, e, nnz, &taken[p]);
		for (p = 0; p < n && rc == 0; p++) {
			for (k = 0; k < n_taken[p]; k++) {
				struct elem *x = &e[taken[p][k]];
				if (x->owner) {
					snprintf(err, err_len, "element (%llu, %llu) is in part %zu (%s) "
						 "and part %zu (%s): the parts overlap",
						 (unsigned long long)x->r, (unsigned long long)x->c,
						 x->owner - 1, parts[x->owner - 1].name, p, parts[p].name);
					rc = -1;
					break;
				}
				x->owner = p + 1;
			}
		}
		for (p = 0; p < n && rc == 0; p++) {
			switch (parts[p].format) {
			case COMPOSE_CSR:
				run_csr(&rn, p, e, taken[p], n_taken[p], &out[p]);
				break;
			case COMPOSE_COO:
				run_coo(&rn, p, e, taken[p], n_taken[p], &out[p]);
				break;
			case COMPOSE_ELL:
				run_ell(&rn, p, e, taken[p], n_taken[p], &out[p]);
				break;
			case COMPOSE_BSR:
				break;
			}
		}
		for (p = 0; p < n; p++)
			free(taken[p]);
		free(taken);
		free(n_taken);
	}
	for (k = 0; k < nnz && rc == 0; k++)
		if (!e[k].owner) {
			snprintf(err, err_len, "element (%llu, %llu) is in no part: the parts do not "
				 "cover the matrix", (unsigned long long)e[k].r,
				 (unsigned long long)e[k].c);
			rc = -1;
		}
	/* SDDMM: every non-zero's output written once, A[i, j] * X[i, :] . Y[j, :] */
	for (k = 0; k < nnz && rc == 0 && op == COMPOSE_SDDMM; k++) {
		double want = 0.0;
		for (j = 0; j < features; j++)
			want += rn.X[e[k].r * features + j] * rn.B[e[k].c * features + j];
		want *= e[k].v;
		if (rn.written[k] != 1) {
			snprintf(err, err_len, "C[%llu, %llu] written %u times, not once",
				 (unsigned long long)e[k].r, (unsigned long long)e[k].c, rn.written[k]);
			rc = -1;
		} else if (fabs(rn.out[k] - want) > 1e-9 * (1.0 + fabs(want))) {
			snprintf(err, err_len, "C[%llu, %llu] is %g, A[i, j] * X[i, :] . Y[j, :] gives %g",
				 (unsigned long long)e[k].r, (unsigned long long)e[k].c, rn.out[k],
				 want);
			rc = -1;
		}
	}
	/* the shared output: updates of a row updated more than once are atomic */
	for (p = 0; p < n && rc == 0; p++)
		for (k = 0; k < rn.n_upd[p]; k++)
			if (rn.row_updates[rn.upd_rows[p][k]] >= 2)
				out[p].c_reads += features;
	for (i = 0; i < rn.rows * features && rc == 0; i++)
		if (fabs(rn.C[i] - ref[i]) > 1e-9 * (1.0 + fabs(ref[i]))) {
			snprintf(err, err_len, "C[%llu, %llu] is %g, the product of the matrix gives %g",
				 (unsigned long long)(i / features), (unsigned long long)(i % features),
				 rn.C[i], ref[i]);
			rc = -1;
		}
	for (p = 0; p < n; p++)
		free(rn.upd_rows[p]);
	free(rn.upd_rows);
	free(rn.n_upd);
	free(rn.alloc_upd);
	free(rn.row_updates);
	free(rn.B);
	free(rn.C);
	free(rn.X);
	free(rn.out);
	free(rn.written);
	free(ref);
	free(e);
	return rc;
}
