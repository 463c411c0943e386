/*
 * Binding format ranks to loops (semantics 4.3.1,
 * DefineCompressionFormatModels): which loops each rank of a tensor's format
 * at one level iterates, and the fiber shapes and tiles that follow.
 */
#include "formats/format.h"

#include <string.h>

#include "util/ckmath.h"
#include "util/xalloc.h"

/* Working state of one assignment. */
struct assign_ctx {
	const struct fmt_assign_in *in;
	uint64_t end[SPEC_MAX_LOOPS];   /* effective ends (child factors folded in) */
	bool projects[SPEC_MAX_LOOPS];
};

const char *fmt_assign_status_str(enum fmt_assign_status st)
{
	switch (st) {
	case FMT_ASSIGN_OK: return "ok";
	case FMT_ASSIGN_MORE_RANKS_NEEDED: return "more compression ranks needed";
	case FMT_ASSIGN_PRETILE_RANKS: return "pre-tiling: the child level has more ranks";
	case FMT_ASSIGN_PRETILE_FORMATS: return "pre-tiling: the child level's rank formats differ";
	}
	BUG("bad assign status %d", (int)st);
}

bool fmt_pretiling_required(bool compressed, bool has_child, uint64_t child_tile_points)
{
	return compressed && has_child && child_tile_points > 1;
}

enum fmt_assign_status fmt_pretiling_check(const enum fmt_kind *kinds, unsigned n,
					   const enum fmt_kind *child_kinds, unsigned n_child)
{
	unsigned r;

	if (n_child > n)
		return FMT_ASSIGN_PRETILE_RANKS;
	if (!fmt_any_compressed(child_kinds, n_child))
		return FMT_ASSIGN_OK;
	for (r = 0; r < n_child; r++)
		if (kinds[r] != child_kinds[r])
			return FMT_ASSIGN_PRETILE_FORMATS;
	return FMT_ASSIGN_OK;
}

uint64_t fmt_box_points(const struct spec_tensor *t, const uint64_t *dims, uint64_t *extent)
{
	uint64_t points = 1;
	unsigned i, k;

	for (i = 0; i < t->n_ranks; i++) {
		uint64_t e = 1;
		for (k = 0; k < t->ranks[i].n_terms; k++) {
			const struct spec_term *term = &t->ranks[i].terms[k];
			uint64_t c = (uint64_t)(term->coef < 0 ? -term->coef : term->coef), span;
			if (dims[term->dim] == 0)
				BUG("empty op box on dim %u", term->dim);
			if (!ck_mul_u64(c, dims[term->dim] - 1, &span) || !ck_add_u64(e, span, &e))
				BUG("tensor '%s' tile extent overflows", t->name);
		}
		if (extent)
			extent[i] = e;
		if (!ck_mul_u64(points, e, &points))
			BUG("tensor '%s' tile size overflows", t->name);
	}
	return points;
}

/* Product of the child factors of 'dim' (0 counts as 1). */
static uint64_t child_factor(const struct fmt_assign_in *in, unsigned dim)
{
	return in->child_factor[dim] ? in->child_factor[dim] : 1;
}

/* Fill the effective ends: the innermost loop of each dim absorbs its child factors. */
static void init_ends(struct assign_ctx *cx)
{
	const struct fmt_assign_in *in = cx->in;
	uint32_t seen = 0;
	unsigned i;

	if (in->n_loops > SPEC_MAX_LOOPS)
		BUG("%u loops", in->n_loops);
	for (i = 0; i < in->n_loops; i++) {
		unsigned d = in->loops[i].dim;
		cx->projects[i] = (in->tensor->dim_mask >> d) & 1;
		cx->end[i] = in->loops[i].end;
		if (!cx->projects[i] || in->pretiled || (seen >> d) & 1)
			continue;
		seen |= 1u << d;
		if (!ck_mul_u64(cx->end[i], child_factor(in, d), &cx->end[i]))
			BUG("loop end overflows");
	}
}

/* A loop that takes no rank: not projecting to the tensor, or of end 1. */
static bool loop_is_trivial(const struct assign_ctx *cx, int i)
{
	return !cx->projects[i] || cx->end[i] == 1;
}

/* Index of the flatten group of rank 'r' that lists 'dim', or -1. */
static int flatten_group(const struct fmt_assign_in *in, unsigned r, unsigned dim)
{
	unsigned g;

	for (g = 0; g < in->n_flatten_groups[r]; g++)
		if ((in->flatten_groups[r][g] >> dim) & 1)
			return (int)g;
	return -1;
}

/* Set rank 'b's tile to the maxtile mold of loop 'i' (all loops up to and including it). */
static void set_tile_of_loop(const struct assign_ctx *cx, int i, struct fmt_rank_binding *b)
{
	const struct fmt_assign_in *in = cx->in;
	unsigned d;
	int j;

	for (d = 0; d < SPEC_MAX_DIMS; d++)
		b->tile_dims[d] = child_factor(in, d);
	for (j = 0; j <= i; j++)
		if (!ck_mul_u64(b->tile_dims[in->loops[j].dim], in->loops[j].end,
				&b->tile_dims[in->loops[j].dim]))
			BUG("tile overflows");
	b->tile_points = fmt_box_points(in->tensor, b->tile_dims, b->tile_extent);
}

/* Make 'b' a rank without loops whose tile is 'below' (NULL: a scalar). */
static void set_loopless(const struct assign_ctx *cx, const struct fmt_rank_binding *below,
			 struct fmt_rank_binding *b)
{
	unsigned d;

	memset(b, 0, sizeof(*b));
	b->first_loop = -1;
	b->fiber_shape = 1;
	for (d = 0; d < SPEC_MAX_DIMS; d++) {
		b->fiber_dims[d] = 1;
		b->tile_dims[d] = below ? below->tile_dims[d] : 1;
	}
	if (below) {
		b->tile_points = below->tile_points;
		memcpy(b->tile_extent, below->tile_extent, sizeof(b->tile_extent));
	} else {
		b->tile_points = fmt_box_points(cx->in->tensor, b->tile_dims, b->tile_extent);
	}
}

/*
 * Bind rank 'r' to the loops starting at '*li' and moving by 'step' (-1:
 * inwards, +1: outwards); advance '*li' past the loops taken. Returns false
 * when the rank's flatten rule does not list the loop's dimension (the
 * rank stays empty and the loop is left for the next rank).
 */
static bool take_loops(const struct assign_ctx *cx, unsigned r, int *li, int step,
		       struct fmt_rank_binding *b)
{
	const struct fmt_assign_in *in = cx->in;
	int n = (int)in->n_loops, i = *li, outermost = *li, g = -1;
	unsigned d;

	if (in->has_metadata && in->n_flatten_groups[r]) {
		g = flatten_group(in, r, in->loops[i].dim);
		if (g < 0)
			return false;
	}
	memset(b, 0, sizeof(*b));
	for (d = 0; d < SPEC_MAX_DIMS; d++)
		b->fiber_dims[d] = 1;
	for (; i >= 0 && i < n; i += step) {
		if (i != *li && !loop_is_trivial(cx, i)) {
			if (in->has_metadata && g < 0)
				break;
			if (g >= 0 && !((in->flatten_groups[r][g] >> in->loops[i].dim) & 1))
				break;
		}
		if (cx->projects[i])
			b->fiber_dims[in->loops[i].dim] *= cx->end[i];
		b->n_loops++;
		if (i > outermost)
			outermost = i;
	}
	b->first_loop = *li;
	b->fiber_shape = fmt_box_points(in->tensor, b->fiber_dims, NULL);
	set_tile_of_loop(cx, outermost, b);
	*li = i;
	return true;
}

/* Move '*li' by 'step' past trivial loops. */
static void skip_trivial(const struct assign_ctx *cx, int *li, int step)
{
	while (*li >= 0 && *li < (int)cx->in->n_loops && loop_is_trivial(cx, *li))
		*li += step;
}

static enum fmt_assign_status assign_outer_to_inner(const struct assign_ctx *cx, unsigned inner,
						    struct fmt_assign *out)
{
	const struct fmt_assign_in *in = cx->in;
	int li = (int)in->n_loops - 1, r;
	bool empty[SPEC_MAX_FMT_RANKS] = { false };

	for (r = (int)in->n_ranks - 1; r >= (int)inner; r--) {
		skip_trivial(cx, &li, -1);
		if (li < 0 || !take_loops(cx, (unsigned)r, &li, -1, &out->rank[r]))
			empty[r] = true;
	}
	skip_trivial(cx, &li, -1);
	for (r = (int)inner; r < (int)in->n_ranks; r++)
		if (empty[r])
			set_loopless(cx, r > 0 ? &out->rank[r - 1] : NULL, &out->rank[r]);
	return li >= 0 ? FMT_ASSIGN_MORE_RANKS_NEEDED : FMT_ASSIGN_OK;
}

static enum fmt_assign_status assign_inner_to_outer(const struct assign_ctx *cx, unsigned inner,
						    struct fmt_assign *out)
{
	const struct fmt_assign_in *in = cx->in;
	int li = 0;
	unsigned r;

	for (r = inner; r < in->n_ranks; r++) {
		skip_trivial(cx, &li, +1);
		if (li >= (int)in->n_loops || !take_loops(cx, r, &li, +1, &out->rank[r]))
			set_loopless(cx, r > 0 ? &out->rank[r - 1] : NULL, &out->rank[r]);
	}
	skip_trivial(cx, &li, +1);
	return li < (int)in->n_loops ? FMT_ASSIGN_MORE_RANKS_NEEDED : FMT_ASSIGN_OK;
}

enum fmt_assign_status fmt_assign_ranks(const struct fmt_assign_in *in, struct fmt_assign *out)
{
	struct assign_ctx cx = { .in = in };
	unsigned inner = in->pretiled ? in->pretiled->n_ranks : 0, r;

	if (in->n_ranks == 0 || in->n_ranks > SPEC_MAX_FMT_RANKS)
		BUG("%u format ranks", in->n_ranks);
	memset(out, 0, sizeof(*out));
	out->n_ranks = in->n_ranks;
	if (inner > in->n_ranks)
		return FMT_ASSIGN_PRETILE_RANKS;
	for (r = 0; r < inner; r++) {
		out->rank[r] = in->pretiled->rank[r];
		out->rank[r].first_loop = -1;
		out->rank[r].n_loops = 0;
	}
	init_ends(&cx);
	if (in->inner_to_outer)
		return assign_inner_to_outer(&cx, inner, out);
	return assign_outer_to_inner(&cx, inner, out);
}

unsigned fmt_count_rank_loops(const struct fmt_assign_in *in)
{
	struct assign_ctx cx = { .in = in };
	unsigned i, n = 0;

	init_ends(&cx);
	for (i = 0; i < in->n_loops; i++)
		if (!loop_is_trivial(&cx, (int)i))
			n++;
	return n ? n : 1;
}
