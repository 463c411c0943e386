/* Exact tile footprints: integer fast path, isl fallback (footprint.h). */
#include "poly/footprint.h"

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "poly/footprint_int.h"
#include "poly/lattice_int.h"
#include "specs/spec.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

_Static_assert(sizeof(long) == sizeof(int64_t), "isl_val_int_from_si needs a 64-bit long");
_Static_assert(SPEC_MAX_DIMS <= 32, "dimension masks are uint32_t");

struct poly_ctx {
	isl_ctx *ctx;
	struct poly_stats stats;
};

/* One term of a rank: coef * dim. */
struct poly_term {
	unsigned dim;
	int64_t coef;
};

struct poly_rank {
	unsigned n_terms;
	struct poly_term terms[SPEC_MAX_TERMS];
};

struct poly_tensor {
	struct poly_ctx *pc;
	unsigned n_dims;
	unsigned n_ranks;
	struct poly_rank written[SPEC_MAX_TENSOR_RANKS];  /* as in the spec (the hull) */
	struct poly_rank merged[SPEC_MAX_TENSOR_RANKS];   /* one term per dim, none zero */
	uint32_t dim_mask;                                /* dims of the merged terms */
	uint64_t *bm_new, *bm_old;                        /* POLY_BITMAP_WORDS each */
	isl_space *domain;                                /* { [d0, ..., dn-1] } */
	isl_map *access;                                  /* domain -> [r0, ...] */
};

/* Abort with isl's last error: isl fails here only through a defect in poly/. */
static _Noreturn void isl_bug(isl_ctx *ctx, const char *what)
{
	const char *msg = isl_ctx_last_error_msg(ctx);
	BUG("isl failed in %s: %s", what, msg ? msg : "(no message)");
}

struct poly_ctx *poly_ctx_new(void)
{
	struct poly_ctx *pc = xcalloc(1, sizeof(*pc));

	pc->ctx = isl_ctx_alloc();
	if (!pc->ctx)
		BUG("isl_ctx_alloc failed");
	isl_options_set_on_error(pc->ctx, ISL_ON_ERROR_CONTINUE);
	return pc;
}

/* Fill "merged" with the terms of "written", one per dimension, zeros dropped. */
static void merge_terms(const struct poly_rank *written, struct poly_rank *merged)
{
	unsigned k, j;

	merged->n_terms = 0;
	for (k = 0; k < written->n_terms; k++) {
		for (j = 0; j < merged->n_terms; j++)
			if (merged->terms[j].dim == written->terms[k].dim)
				break;
		if (j == merged->n_terms)
			merged->terms[merged->n_terms++] = (struct poly_term){
				written->terms[k].dim, 0};
		if (__builtin_add_overflow(merged->terms[j].coef, written->terms[k].coef,
					   &merged->terms[j].coef))
			BUG("projection coefficient overflows int64");
	}
	for (k = j = 0; k < merged->n_terms; k++)
		if (merged->terms[k].coef != 0)
			merged->terms[j++] = merged->terms[k];
	merged->n_terms = j;
}

/* Append "{ [d0, ...] -> [r0, ...] : r0 = ... and ... }" for "pt" to "sb". */
static void access_text(const struct poly_tensor *pt, struct strbuf *sb)
{
	unsigned d, r, k;

	strbuf_addstr(sb, "{ [");
	for (d = 0; d < pt->n_dims; d++)
		strbuf_addf(sb, "%sd%u", d ? ", " : "", d);
	strbuf_addstr(sb, "] -> [");
	for (r = 0; r < pt->n_ranks; r++)
		strbuf_addf(sb, "%sr%u", r ? ", " : "", r);
	strbuf_addstr(sb, "]");
	for (r = 0; r < pt->n_ranks; r++) {
		const struct poly_rank *rk = &pt->merged[r];

		strbuf_addf(sb, "%sr%u = 0", r ? " and " : " : ", r);
		for (k = 0; k < rk->n_terms; k++) {
			int64_t c = rk->terms[k].coef;
			/* |c| as unsigned: INT64_MIN has no positive int64 */
			unsigned long long mag = c < 0 ? 0ULL - (unsigned long long)c
						       : (unsigned long long)c;
			strbuf_addf(sb, " %c %llu*d%u", c < 0 ? '-' : '+', mag, rk->terms[k].dim);
		}
	}
	strbuf_addstr(sb, " }");
}

struct poly_tensor *poly_tensor_new(struct poly_ctx *pc, const struct spec_workload *w,
				    unsigned tensor)
{
	const struct spec_tensor *t;
	struct poly_tensor *pt;
	struct strbuf sb = STRBUF_INIT;
	unsigned r, k;

	assert(tensor < w->n_tensors && w->n_dims <= SPEC_MAX_DIMS);
	t = &w->tensors[tensor];
	pt = xcalloc(1, sizeof(*pt));
	pt->pc = pc;
	pt->n_dims = w->n_dims;
	pt->n_ranks = t->n_ranks;
	pt->bm_new = xmalloc(POLY_BITMAP_WORDS * sizeof(*pt->bm_new));
	pt->bm_old = xmalloc(POLY_BITMAP_WORDS * sizeof(*pt->bm_old));
	for (r = 0; r < t->n_ranks; r++) {
		struct poly_rank *wr = &pt->written[r];

		wr->n_terms = t->ranks[r].n_terms;
		for (k = 0; k < wr->n_terms; k++) {
			assert(t->ranks[r].terms[k].dim < w->n_dims);
			wr->terms[k].dim = t->ranks[r].terms[k].dim;
			wr->terms[k].coef = t->ranks[r].terms[k].coef;
		}
		merge_terms(wr, &pt->merged[r]);
		for (k = 0; k < pt->merged[r].n_terms; k++)
			pt->dim_mask |= 1u << pt->merged[r].terms[k].dim;
	}
	access_text(pt, &sb);
	pt->access = isl_map_read_from_str(pc->ctx, sb.buf);
	strbuf_release(&sb);
	pt->domain = isl_space_domain(isl_map_get_space(pt->access));
	if (!pt->access || !pt->domain)
		isl_bug(pc->ctx, "poly_tensor_new");
	return pt;
}

/* -------------------------------------------------------- integer fast path */

/*
 * Fill "tb" with the merged terms of rank "r" over the box [lo, hi] and return
 * the mask of dimensions that vary (extent > 1) in it.
 */
static uint32_t rank_terms(const struct poly_tensor *pt, unsigned r, const int64_t *lo,
			   const int64_t *hi, struct poly_term_box *tb)
{
	const struct poly_rank *rk = &pt->merged[r];
	uint32_t mask = 0;
	unsigned k;

	for (k = 0; k < rk->n_terms; k++) {
		unsigned d = rk->terms[k].dim;

		assert(lo[d] <= hi[d]);
		tb[k] = (struct poly_term_box){rk->terms[k].coef, lo[d], hi[d]};
		if (lo[d] != hi[d])
			mask |= 1u << d;
	}
	return mask;
}

/* Number of bitmap words spanning [lo, hi], or 0 when it exceeds POLY_BITMAP_BITS. */
static size_t bitmap_words(int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;   /* modular: huge when hi < lo */

	return span < POLY_BITMAP_BITS ? (size_t)(span / 64 + 1) : 0;
}

/*
 * Compute the per-rank images of the box [lo, hi] into "img", each with an
 * exact count (ranks outside the closed forms are counted on a bitmap).
 * Return false when the image is not the product of its rank images (two
 * ranks vary with one dimension) or some rank is too wide for the bitmap.
 */
static bool rank_images(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi,
			struct poly_img *img)
{
	struct poly_term_box tb[SPEC_MAX_TERMS];
	uint32_t seen = 0, mask;
	unsigned r, n;
	size_t words;

	for (r = 0; r < pt->n_ranks; r++) {
		n = pt->merged[r].n_terms;
		mask = rank_terms(pt, r, lo, hi, tb);
		if (mask & seen)
			return false;
		seen |= mask;
		poly_img_of_terms(tb, n, &img[r]);
		if (img[r].kind != POLY_IMG_UNKNOWN)
			continue;
		words = bitmap_words(img[r].lo, img[r].hi);
		if (!words)
			return false;
		poly_img_bitmap(tb, n, img[r].lo, pt->bm_new, words);
		img[r].kind = POLY_IMG_COUNTED;
		img[r].count = poly_bitmap_meet(pt->bm_new, pt->bm_new, words);
	}
	return true;
}

/* Return the product of the counts of the "n" images "img"; BUG on overflow. */
static uint64_t count_product(const struct poly_img *img, unsigned n)
{
	uint64_t p = 1;
	unsigned r;

	for (r = 0; r < n; r++)
		if (__builtin_mul_overflow(p, img[r].count, &p))
			BUG("tile footprint exceeds 2^64 points");
	return p;
}

/* Whether the boxes agree on every dimension of rank "r". */
static bool rank_same_box(const struct poly_tensor *pt, unsigned r, const int64_t *lo_a,
			  const int64_t *hi_a, const int64_t *lo_b, const int64_t *hi_b)
{
	const struct poly_rank *rk = &pt->merged[r];
	unsigned k;

	for (k = 0; k < rk->n_terms; k++) {
		unsigned d = rk->terms[k].dim;
		if (lo_a[d] != lo_b[d] || hi_a[d] != hi_b[d])
			return false;
	}
	return true;
}

/*
 * Count into "*out" the points shared by the images of rank "r" over the new
 * box (terms "tb_new", image "img_new") and the old one ("tb_old",
 * "img_old"): closed form for two lattice intervals, else on two bitmaps
 * over their common span. Return false when that span is too wide.
 */
static bool rank_meet(struct poly_tensor *pt, unsigned r, const struct poly_term_box *tb_new,
		      const struct poly_img *img_new, const struct poly_term_box *tb_old,
		      const struct poly_img *img_old, uint64_t *out)
{
	int64_t lo, hi;
	size_t words;

	if (img_new->kind == POLY_IMG_LATTICE && img_old->kind == POLY_IMG_LATTICE)
		return poly_img_meet_count(img_new, img_old, out);
	if (img_new->hi < img_old->lo || img_old->hi < img_new->lo) {
		*out = 0;
		return true;
	}
	lo = img_new->lo < img_old->lo ? img_new->lo : img_old->lo;
	hi = img_new->hi > img_old->hi ? img_new->hi : img_old->hi;
	words = bitmap_words(lo, hi);
	if (!words)
		return false;
	poly_img_bitmap(tb_new, pt->merged[r].n_terms, lo, pt->bm_new, words);
	poly_img_bitmap(tb_old, pt->merged[r].n_terms, lo, pt->bm_old, words);
	*out = poly_bitmap_meet(pt->bm_new, pt->bm_old, words);
	return true;
}

bool poly_footprint_size_fast(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi,
			      uint64_t *out)
{
	struct poly_img img[SPEC_MAX_TENSOR_RANKS];

	if (!rank_images(pt, lo, hi, img))
		return false;
	*out = count_product(img, pt->n_ranks);
	return true;
}

/*
 * |A \ B| for product sets A = prod_r A_r and B = prod_r B_r is
 * prod_r |A_r| - prod_r |A_r ∩ B_r|. A rank whose dimensions have the same
 * bounds in both boxes has A_r = B_r; otherwise rank_meet counts A_r ∩ B_r.
 */
bool poly_delta_size_fast(struct poly_tensor *pt, const int64_t *lo_new, const int64_t *hi_new,
			  const int64_t *lo_old, const int64_t *hi_old, uint64_t *out)
{
	struct poly_img img_new[SPEC_MAX_TENSOR_RANKS], img_old;
	struct poly_term_box tb_new[SPEC_MAX_TERMS], tb_old[SPEC_MAX_TERMS];
	uint64_t total, meet = 1, meet_r;
	uint32_t seen = 0, mask;
	unsigned r;

	assert((lo_old == NULL) == (hi_old == NULL));
	if (!rank_images(pt, lo_new, hi_new, img_new))
		return false;
	total = count_product(img_new, pt->n_ranks);
	if (!lo_old) {
		*out = total;
		return true;
	}
	for (r = 0; r < pt->n_ranks; r++) {
		mask = rank_terms(pt, r, lo_old, hi_old, tb_old);
		if (mask & seen)
			return false;
		seen |= mask;
		if (rank_same_box(pt, r, lo_new, hi_new, lo_old, hi_old)) {
			meet_r = img_new[r].count;
		} else {
			rank_terms(pt, r, lo_new, hi_new, tb_new);
			poly_img_of_terms(tb_old, pt->merged[r].n_terms, &img_old);
			if (!rank_meet(pt, r, tb_new, &img_new[r], tb_old, &img_old, &meet_r))
				return false;
		}
		meet *= meet_r;     /* <= total: no overflow */
	}
	*out = total - meet;
	return true;
}

/* ------------------------------------------------------------ isl fallback */

/* Return the box [lo, hi] on the dimensions of "pt" as an isl set. */
static __isl_give isl_set *box_set(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi)
{
	isl_ctx *ctx = pt->pc->ctx;
	isl_set *set = isl_set_universe(isl_space_copy(pt->domain));
	unsigned d;

	for (d = 0; d < pt->n_dims; d++) {
		if (!(pt->dim_mask & (1u << d)))
			continue;
		assert(lo[d] <= hi[d]);
		set = isl_set_lower_bound_val(set, isl_dim_set, d, isl_val_int_from_si(ctx, lo[d]));
		set = isl_set_upper_bound_val(set, isl_dim_set, d, isl_val_int_from_si(ctx, hi[d]));
	}
	return set;
}

/* Return the image of the box [lo, hi] under the access map of "pt". */
static __isl_give isl_set *box_image(struct poly_tensor *pt, const int64_t *lo,
				     const int64_t *hi)
{
	return isl_set_apply(box_set(pt, lo, hi), isl_map_copy(pt->access));
}

/* Return the number of points of "set" (enumerated by isl). */
static uint64_t set_count(isl_ctx *ctx, __isl_take isl_set *set)
{
	isl_val *v = isl_set_count_val(set);
	long n;

	isl_set_free(set);
	if (!v)
		isl_bug(ctx, "isl_set_count_val");
	if (isl_val_is_int(v) != isl_bool_true || isl_val_is_neg(v) != isl_bool_false ||
	    isl_val_cmp_si(v, LONG_MAX) >= 0) {
		isl_val_free(v);
		BUG("isl count is not a 63-bit natural number");
	}
	n = isl_val_get_num_si(v);
	isl_val_free(v);
	return (uint64_t)n;
}

uint64_t poly_footprint_size_isl(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi)
{
	pt->pc->stats.n_isl++;
	return set_count(pt->pc->ctx, box_image(pt, lo, hi));
}

uint64_t poly_delta_size_isl(struct poly_tensor *pt, const int64_t *lo_new, const int64_t *hi_new,
			     const int64_t *lo_old, const int64_t *hi_old)
{
	isl_set *img;

	assert((lo_old == NULL) == (hi_old == NULL));
	pt->pc->stats.n_isl++;
	img = box_image(pt, lo_new, hi_new);
	if (lo_old)
		img = isl_set_subtract(img, box_image(pt, lo_old, hi_old));
	return set_count(pt->pc->ctx, img);
}

/* ------------------------------------------------------------- public API */

uint64_t poly_footprint_size(struct poly_tensor *pt, const int64_t *lo, const int64_t *hi)
{
	uint64_t n;

	if (poly_footprint_size_fast(pt, lo, hi, &n)) {
		pt->pc->stats.n_fast++;
		return n;
	}
	return poly_footprint_size_isl(pt, lo, hi);
}

uint64_t poly_delta_size(struct poly_tensor *pt, const int64_t *lo_new, const int64_t *hi_new,
			 const int64_t *lo_old, const int64_t *hi_old)
{
	uint64_t n;

	if (poly_delta_size_fast(pt, lo_new, hi_new, lo_old, hi_old, &n)) {
		pt->pc->stats.n_fast++;
		return n;
	}
	return poly_delta_size_isl(pt, lo_new, hi_new, lo_old, hi_old);
}

/* Set [*rlo, *rhi] to Timeloop's hull of rank "r" over the box [lo, hi]. */
static void hull_rank(const struct poly_tensor *pt, unsigned r, const int64_t *lo,
		      const int64_t *hi, int64_t *rlo, int64_t *rhi)
{
	const struct poly_rank *rk = &pt->written[r];
	int64_t a, b;
	unsigned k;

	*rlo = *rhi = 0;
	for (k = 0; k < rk->n_terms; k++) {
		unsigned d = rk->terms[k].dim;

		assert(lo[d] <= hi[d]);
		if (__builtin_mul_overflow(rk->terms[k].coef, lo[d], &a) ||
		    __builtin_mul_overflow(rk->terms[k].coef, hi[d], &b) ||
		    __builtin_add_overflow(*rlo, a < b ? a : b, rlo) ||
		    __builtin_add_overflow(*rhi, a < b ? b : a, rhi))
			BUG("rank coordinate overflows int64");
	}
}

/* Return hi - lo + 1 (hi >= lo - 1) as a count; BUG when it does not fit. */
static uint64_t extent(int64_t lo, int64_t hi)
{
	uint64_t n = (uint64_t)hi - (uint64_t)lo + 1;   /* modular: exact when it fits */

	if (hi >= lo && n == 0)
		BUG("rank extent exceeds 2^64");
	return hi < lo ? 0 : n;
}

uint64_t poly_hull_size(const struct poly_tensor *pt, const int64_t *lo, const int64_t *hi)
{
	uint64_t p = 1;
	int64_t rlo, rhi;
	unsigned r;

	for (r = 0; r < pt->n_ranks; r++) {
		hull_rank(pt, r, lo, hi, &rlo, &rhi);
		if (__builtin_mul_overflow(p, extent(rlo, rhi), &p))
			BUG("hull footprint exceeds 2^64 points");
	}
	return p;
}

uint64_t poly_hull_delta_size(const struct poly_tensor *pt, const int64_t *lo_new,
			      const int64_t *hi_new, const int64_t *lo_old,
			      const int64_t *hi_old)
{
	uint64_t total = poly_hull_size(pt, lo_new, hi_new), meet = 1;
	int64_t nlo, nhi, olo, ohi;
	unsigned r;

	assert((lo_old == NULL) == (hi_old == NULL));
	if (!lo_old)
		return total;
	for (r = 0; r < pt->n_ranks && meet != 0; r++) {
		hull_rank(pt, r, lo_new, hi_new, &nlo, &nhi);
		hull_rank(pt, r, lo_old, hi_old, &olo, &ohi);
		meet *= extent(nlo > olo ? nlo : olo, nhi < ohi ? nhi : ohi);
	}
	return total - meet;
}

void poly_ctx_stats(const struct poly_ctx *pc, struct poly_stats *out)
{
	*out = pc->stats;
}

void poly_tensor_free(struct poly_tensor *pt)
{
	if (!pt)
		return;
	isl_map_free(pt->access);
	isl_space_free(pt->domain);
	free(pt->bm_new);
	free(pt->bm_old);
	free(pt);
}

void poly_ctx_free(struct poly_ctx *pc)
{
	if (!pc)
		return;
	isl_options_set_on_error(pc->ctx, ISL_ON_ERROR_ABORT);
	isl_ctx_free(pc->ctx);
	free(pc);
}
