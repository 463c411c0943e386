/*
 * Representation formats bound to the mapping (semantics 4.3.1,
 * DefineCompressionFormatModels): for each tensor, from its innermost
 * storage level upwards, the format's ranks are assigned to the loops of
 * the level's singleton subnest (through formats/), pre-tiled on the
 * child's ranks when the level is compressed, and named formats (CSR, COO,
 * bitmask, CSF, N:M) are expanded for the loops they meet.
 */
#include "model/sparse_int.h"

#include <string.h>

/* The op-space box of every level's data tile: the maxtile mold of its last loop. */
static void level_boxes(struct model_ws *ws)
{
	const struct spec_mapping *m = ws->m;
	uint64_t (*box)[SPEC_MAX_DIMS] = ws->sp->box;
	unsigned i, l, k = 0;

	for (l = 0; l < ws->n_levels; l++) {
		for (i = 0; i < SPEC_MAX_DIMS; i++)
			box[l][i] = l ? box[l - 1][i] : 1;
		for (; k < m->complete_begin[l + 1]; k++)
			box[l][m->complete[k].dim] *= m->complete[k].end;
	}
}

/* The rank formats listed for (l, pv), innermost first; returns how many. */
static unsigned listed_kinds(const struct spec_tensor_format *f, enum fmt_kind *kinds)
{
	unsigned r;

	for (r = 0; r < f->n_ranks; r++)
		kinds[r] = f->ranks[f->n_ranks - 1 - r].kind;
	return f->n_ranks;
}

/* The format spec of rank r (innermost first) of tile 'st' with format 'f'. */
static const struct spec_rank_format *rank_spec(const struct sp_tile *st,
						const struct spec_tensor_format *f, unsigned r)
{
	if (f->named != SPEC_NAMED_NONE)
		return &st->named[st->n_ranks - 1 - r];
	return &f->ranks[f->n_ranks - 1 - r];
}

/* The singleton subnest of level l above child c, and the child factors. */
static void fill_assign_in(struct model_ws *ws, unsigned pv, unsigned l, int c,
			   struct fmt_assign_in *in)
{
	const struct spec_mapping *m = ws->m;
	struct sparse_ws *sp = ws->sp;
	unsigned lo = m->complete_begin[c + 1], hi = m->complete_begin[l + 1], i;

	memset(in, 0, sizeof(*in));
	in->tensor = &ws->s->workload.tensors[pv];
	for (i = lo; i < hi; i++) {
		sp->floops[i - lo].dim = m->complete[i].dim;
		sp->floops[i - lo].end = m->complete[i].end;
	}
	in->n_loops = hi - lo;
	in->loops = sp->floops;
	for (i = 0; i < SPEC_MAX_DIMS; i++)
		in->child_factor[i] = 1;
	for (i = 0; i < lo; i++)
		in->child_factor[m->complete[i].dim] *= m->complete[i].end;
}

/* Resolve the ranks of (l, pv) with format 'f': listed, or a named format expanded. */
static void resolve_ranks(struct model_ws *ws, unsigned pv, unsigned l, int c,
			  const struct fmt_assign_in *in, struct sp_tile *st)
{
	const struct spec_tensor_format *f = ws->sp->fmt[l][pv];
	const struct sp_tile *ch = c >= 0 ? &ws->sp->t[c][pv] : NULL;
	unsigned n, own, r;

	st->n_ranks = 0;
	if (f->named == SPEC_NAMED_NONE) {
		st->n_ranks = listed_kinds(f, st->kind);
	} else {
		/* every named format is compressed: pre-tiled over a child tile */
		struct fmt_assign_in own_in = *in;
		bool pretile = fmt_pretiling_required(true, ch != NULL, ch ? ch->points : 0);
		own_in.pretiled = pretile ? &ch->asg : NULL;
		own = fmt_count_rank_loops(&own_in);
		n = fmt_named_n_ranks(f->named, own, pretile ? ch->n_ranks : 0);
		n = fmt_named_expand(f->named, n, in->tensor->dim_mask, f->nm_m,
				     f->named_metadata_word_bits, st->named);
		st->n_ranks = n;
		for (r = 0; r < n; r++)
			st->kind[r] = st->named[n - 1 - r].kind;
	}
	st->has_metadata = fmt_has_metadata(st->kind, st->n_ranks);
	st->compressed = fmt_any_compressed(st->kind, st->n_ranks);
	if (!st->has_metadata) {
		st->n_ranks = 1;
		st->kind[0] = FMT_U;
	}
}

/* Word bits and fiber shapes of a metadata-bearing tile. */
static void fill_layout(const struct spec_level *lvl, const struct spec_tensor_format *f,
			struct sp_tile *st)
{
	unsigned r;

	memset(&st->lay, 0, sizeof(st->lay));
	st->lay.n_ranks = st->n_ranks;
	st->lay.inner_to_outer = f && f->inner_to_outer;
	for (r = 0; r < st->n_ranks; r++) {
		st->lay.kind[r] = st->kind[r];
		st->lay.fiber_shape[r] = st->asg.rank[r].fiber_shape;
		if (!st->has_metadata)
			continue;
		st->lay.fixed_coords[r] = rank_spec(st, f, r)->n_col;
		fmt_word_bits(st->kind[r], true, rank_spec(st, f, r)->metadata_word_bits,
			      lvl->metadata_word_bits, lvl->metadata_storage_width,
			      &st->lay.metadata_word_bits[r]);
		fmt_word_bits(st->kind[r], false, rank_spec(st, f, r)->payload_word_bits,
			      lvl->metadata_word_bits, lvl->metadata_storage_width,
			      &st->lay.payload_word_bits[r]);
	}
}

/* The flatten rules of each rank. */
static void fill_flatten(const struct sp_tile *st, const struct spec_tensor_format *f,
			 struct fmt_assign_in *in)
{
	unsigned r, g;

	for (r = 0; f && st->has_metadata && r < st->n_ranks; r++) {
		const struct spec_rank_format *rf = rank_spec(st, f, r);
		in->n_flatten_groups[r] = rf->n_flatten_groups;
		for (g = 0; g < rf->n_flatten_groups; g++)
			in->flatten_groups[r][g] = rf->flatten_groups[g];
	}
}

/*
 * The binding of a tile without metadata: one rank that takes every loop of
 * its subnest, whose fiber and tile are the data tile (what
 * fmt_assign_ranks() gives, without the walk).
 */
static void bind_dense(const struct model_ws *ws, unsigned l, struct sp_tile *st)
{
	struct fmt_rank_binding *b = &st->asg.rank[0];

	st->asg.n_ranks = 1;
	b->first_loop = -1;
	b->n_loops = 0;
	b->fiber_shape = b->tile_points = st->points;
	memcpy(b->fiber_dims, ws->sp->box[l], sizeof(b->fiber_dims));
	memcpy(b->tile_dims, ws->sp->box[l], sizeof(b->tile_dims));
	memcpy(b->tile_extent, st->dtile.extent, sizeof(b->tile_extent));
	st->lay.n_ranks = 1;
	st->lay.kind[0] = FMT_U;
	st->lay.fiber_shape[0] = st->points;
	st->lay.inner_to_outer = false;
}

/* Bind the format of (l, pv) above child c (-1: none). */
static int bind_tile(struct model_ws *ws, unsigned pv, unsigned l, int c,
		     struct model_result *out)
{
	const struct spec_level *lvl = &ws->s->arch.levels[l];
	const struct spec_tensor_format *f = ws->sp->fmt[l][pv];
	struct sp_tile *st = &ws->sp->t[l][pv], *ch = c >= 0 ? &ws->sp->t[c][pv] : NULL;
	struct fmt_assign_in in;
	enum fmt_assign_status as = FMT_ASSIGN_OK;
	uint64_t ext[SPEC_MAX_TENSOR_RANKS];
	const struct spec_tensor *tensor = &ws->s->workload.tensors[pv];

	st->points = fmt_box_points(tensor, ws->sp->box[l], ext);
	st->dtile = density_tile_box(tensor->n_ranks, ext);
	if (!f) {
		st->has_metadata = st->compressed = st->pretiled = false;
		st->n_ranks = 1;
		st->kind[0] = FMT_U;
		bind_dense(ws, l, st);
		return 0;
	}
	fill_assign_in(ws, pv, l, c, &in);
	resolve_ranks(ws, pv, l, c, &in, st);
	if (st->n_ranks > MODEL_MAX_FMT_RANKS || st->n_ranks == 0)
		return model_result_fail(out, EVAL_SPARSE, (int)l, (int)pv,
					 "'%s' at '%s': %u format ranks (at most %d)", tensor->name,
					 lvl->name, st->n_ranks, MODEL_MAX_FMT_RANKS);
	st->pretiled = fmt_pretiling_required(st->compressed, ch != NULL, ch ? ch->points : 0);
	if (st->pretiled)
		as = fmt_pretiling_check(st->kind, st->n_ranks, ch->kind, ch->n_ranks);
	in.n_ranks = st->n_ranks;
	in.has_metadata = st->has_metadata;
	in.inner_to_outer = f && f->inner_to_outer;
	in.pretiled = st->pretiled ? &ch->asg : NULL;
	fill_flatten(st, f, &in);
	if (as == FMT_ASSIGN_OK)
		as = fmt_assign_ranks(&in, &st->asg);
	if (as != FMT_ASSIGN_OK)
		return model_result_fail(out, EVAL_SPARSE, (int)l, (int)pv, "'%s' at '%s': %s",
					 tensor->name, lvl->name, fmt_assign_status_str(as));
	fill_layout(lvl, f, st);
	return 0;
}

/* Copy the format description of (l, pv) into its result tile. */
static void publish(const struct sp_tile *st, struct model_tile *t)
{
	unsigned r;

	t->has_metadata = st->has_metadata;
	t->is_compressed = st->compressed;
	t->n_fmt_ranks = st->has_metadata ? st->n_ranks : 0;
	for (r = 0; r < t->n_fmt_ranks; r++) {
		t->fmt_kind[r] = (uint8_t)st->kind[r];
		t->fmt_md_bits[r] = st->lay.metadata_word_bits[r];
		t->fmt_pl_bits[r] = st->lay.payload_word_bits[r];
	}
}

int model_sparse_formats(struct model_ws *ws, struct model_result *out)
{
	unsigned pv, l;

	level_boxes(ws);
	for (pv = 0; pv < ws->n_tensors; pv++) {
		int c = -1;
		for (l = 0; l < ws->n_levels; l++) {
			struct model_tile *t = &out->tiles[l][pv];
			if (!t->is_kept || t->shape == 0)
				continue;
			if (bind_tile(ws, pv, l, c, out) < 0)
				return -1;
			publish(&ws->sp->t[l][pv], t);
			c = (int)l;
		}
	}
	return 0;
}
