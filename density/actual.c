/*
 * Actual data: the tensor's own non-zero pattern (a spec_matrix). A tile
 * shape cuts the tensor into a grid (edge tiles clipped) and P(n) is the
 * fraction of grid tiles holding n non-zeros. Under a constraint (parent
 * shape, O) it is the fraction of child tiles, over the child grid cut from
 * each parent tile, among the parents that hold exactly O non-zeros.
 */
#include "density/density_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* A non-zero's parent tile and child tile (within the parent). */
struct pair {
	uint64_t parent, child;
};

static int cmp_pair(const void *va, const void *vb)
{
	const struct pair *a = va, *b = vb;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	return 0;
}

/* Add 'weight' tiles holding 'count' to 'h'. */
static void hist_add(struct density_dist *h, uint64_t count, double weight)
{
	struct density_dist one = DENSITY_DIST_INIT;

	if (h->n && count >= h->lo && count - h->lo < h->n) {
		h->p[count - h->lo] += weight;
		return;
	}
	density_dist_point(&one, count);
	density_dist_add(h, &one, weight);
	density_dist_release(&one);
}

/* Grid of tiles of extents 'e' over extents 'shape': tiles per rank into 'g'. */
static void grid(unsigned n, const uint64_t *shape, const uint64_t *e, uint64_t *g)
{
	unsigned i;

	for (i = 0; i < n; i++)
		g[i] = (shape[i] + e[i] - 1) / e[i];
}

/* Parent (grid index) and child (index in the parent's own grid) of non-zero 'k'. */
static struct pair locate(const struct density_model *m, size_t k, const uint64_t *pe,
			  const uint64_t *pg, const uint64_t *ce, const uint64_t *cg)
{
	const uint64_t *x = m->spec.data->coords + k * m->n_ranks;
	uint64_t pc[SPEC_MAX_TENSOR_RANKS], cc[SPEC_MAX_TENSOR_RANKS];
	struct pair p;
	unsigned i;

	for (i = 0; i < m->n_ranks; i++) {
		pc[i] = x[i] / pe[i];
		cc[i] = (x[i] % pe[i]) / ce[i];
	}
	p.parent = density_grid_index(m->n_ranks, pg, pc);
	p.child = density_grid_index(m->n_ranks, cg, cc);
	return p;
}

/* Number of child tiles of extents 'ce' in the parent tile of grid index 'parent'. */
static uint64_t children_of(const struct density_model *m, uint64_t parent, const uint64_t *pe,
			    const uint64_t *pg, const uint64_t *ce)
{
	uint64_t coord[SPEC_MAX_TENSOR_RANKS], n = 1;
	int i;

	for (i = (int)m->n_ranks - 1; i >= 0; i--) {
		coord[i] = parent % pg[i];
		parent /= pg[i];
	}
	for (i = 0; i < (int)m->n_ranks; i++) {
		uint64_t start = coord[i] * pe[i];
		uint64_t ext = m->shape[i] - start < pe[i] ? m->shape[i] - start : pe[i];
		n *= (ext + ce[i] - 1) / ce[i];
	}
	return n;
}

/*
 * The histogram of child-tile counts over the parents holding 'want'
 * non-zeros (every parent when 'all'), with the number of child tiles seen.
 */
static double child_histogram(const struct density_model *m, const struct pair *v, size_t nnz,
			      const uint64_t *pe, const uint64_t *pg, const uint64_t *ce,
			      bool all, uint64_t want, struct density_dist *h)
{
	double n_children = 0.0;
	size_t i = 0, j, k;

	while (i < nnz) {
		for (j = i; j < nnz && v[j].parent == v[i].parent; j++)
			;
		if (all || j - i == want) {
			for (k = i; k < j;) {
				size_t l = k;
				while (l < j && v[l].child == v[k].child)
					l++;
				hist_add(h, l - k, 1.0);
				k = l;
			}
			n_children += (double)children_of(m, v[i].parent, pe, pg, ce);
		}
		i = j;
	}
	return n_children;
}

/* Add the empty tiles so that 'total' tiles are counted, then normalize. */
static void finish(struct density_dist *h, double total)
{
	double seen = 0.0;
	size_t i;

	for (i = 0; i < h->n; i++)
		seen += h->p[i];
	if (total > seen)
		hist_add(h, 0, total - seen);
	density_dist_scale(h, total);
	density_dist_trim(h);
}

static void actual_distribution(const struct density_model *m, const struct density_tile *t,
				const struct density_constraint *c, struct density_dist *out)
{
	const struct spec_matrix *data = m->spec.data;
	uint64_t pe[SPEC_MAX_TENSOR_RANKS], pg[SPEC_MAX_TENSOR_RANKS], cg[SPEC_MAX_TENSOR_RANKS];
	struct pair *v;
	double n_children;
	size_t k;

	density_dist_release(out);
	if (c && c->occupancy == 0) {
		density_dist_point(out, 0);
		return;
	}
	if (c)
		memcpy(pe, c->parent.extent, m->n_ranks * sizeof(uint64_t));
	else
		memcpy(pe, m->shape, m->n_ranks * sizeof(uint64_t));
	grid(m->n_ranks, m->shape, pe, pg);
	grid(m->n_ranks, pe, t->extent, cg);
	v = xmalloc((data->nnz ? data->nnz : 1) * sizeof(*v));
	for (k = 0; k < data->nnz; k++)
		v[k] = locate(m, k, pe, pg, t->extent, cg);
	qsort(v, data->nnz, sizeof(*v), cmp_pair);
	if (!c) {
		/* one parent, the whole tensor: every child tile counts */
		child_histogram(m, v, data->nnz, pe, pg, t->extent, true, 0, out);
		n_children = (double)children_of(m, 0, pe, pg, t->extent);
	} else {
		n_children = child_histogram(m, v, data->nnz, pe, pg, t->extent, false,
					     c->occupancy, out);
	}
	free(v);
	if (n_children == 0.0) {
		uint64_t pop = density_tile_size(&c->parent);
		density_hg_dist(pop, c->occupancy < pop ? c->occupancy : pop,
				density_tile_size(t), out);
		return;
	}
	finish(out, n_children);
}

const struct density_kind_ops density_actual_ops = { .distribution = actual_distribution };
