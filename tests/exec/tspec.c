#include "tests/exec/tspec.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int dim_of(const struct tspec *ts, char c)
{
	unsigned d;
	for (d = 0; d < ts->s.workload.n_dims; d++)
		if (ts->names[d][0] == c)
			return (int)d;
	BUG("no dimension '%c'", c);
}

void tspec_init(struct tspec *ts, const char *dims, const uint64_t *bounds)
{
	unsigned d;

	memset(ts, 0, sizeof(*ts));
	ts->s.workload.n_dims = (unsigned)strlen(dims);
	for (d = 0; d < ts->s.workload.n_dims; d++) {
		ts->names[d][0] = dims[d];
		ts->s.workload.dim_names[d] = ts->names[d];
		ts->s.workload.bounds[d] = bounds[d];
	}
	ts->s.workload.tensors = ts->tensors;
	ts->s.arch.levels = ts->levels;
	ts->s.has_mapping = true;
	ts->s.mapping = &ts->m;
	ts->s.sparse.targets = ts->targets;
	ts->s.arch.compute.instances = 1;
	ts->s.arch.compute.name = "mac";
}

unsigned tspec_tensor(struct tspec *ts, const char *name, const char *proj, bool read_write)
{
	unsigned t = ts->s.workload.n_tensors++;
	struct spec_tensor *st = &ts->tensors[t];
	const char *c = proj;
	uint64_t size = 1;
	unsigned r;

	st->name = name;
	st->read_write = read_write;
	st->density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
	st->density.density = 1.0;
	st->density.is_default = true;
	st->n_ranks = 1;
	while (*c) {
		struct spec_rank_proj *rp = &st->ranks[st->n_ranks - 1];
		struct spec_term *tm = &rp->terms[rp->n_terms++];
		tm->dim = (unsigned)dim_of(ts, *c++);
		tm->coef = 1;
		tm->coef_idx = -1;
		st->dim_mask |= 1u << tm->dim;
		if (*c == '*')
			tm->coef = strtol(c + 1, (char **)&c, 10);
		if (*c == ',')
			st->n_ranks++;
		if (*c == ',' || *c == '+')
			c++;
	}
	for (r = 0; r < st->n_ranks; r++) {
		int64_t span = 0;
		unsigned i;
		for (i = 0; i < st->ranks[r].n_terms; i++)
			span += st->ranks[r].terms[i].coef *
				((int64_t)ts->s.workload.bounds[st->ranks[r].terms[i].dim] - 1);
		st->rank_extent[r] = (uint64_t)span + 1;
		size *= st->rank_extent[r];
	}
	st->size = size;
	return t;
}

void tspec_density(struct tspec *ts, unsigned t, enum spec_density_kind kind, double density)
{
	ts->tensors[t].density.kind = kind;
	ts->tensors[t].density.density = density;
	ts->tensors[t].density.is_default = false;
}

void tspec_density_nm(struct tspec *ts, unsigned t, unsigned n, unsigned m, char dim)
{
	ts->tensors[t].density.kind = SPEC_DENSITY_NM;
	ts->tensors[t].density.density = (double)n / (double)m;
	ts->tensors[t].density.nm_n = n;
	ts->tensors[t].density.nm_m = m;
	ts->tensors[t].density.nm_dim = (unsigned)dim_of(ts, dim);
	ts->tensors[t].density.is_default = false;
}

unsigned tspec_level(struct tspec *ts, const char *name, uint64_t instances, unsigned block)
{
	unsigned l = ts->s.arch.n_levels++, d;
	struct spec_map_level *ml = &ts->m.levels[l];

	ts->levels[l].name = name;
	ts->levels[l].instances = instances;
	ts->levels[l].block_size = block;
	ts->m.n_levels = ts->s.arch.n_levels;
	ts->m.n_dims = ts->s.workload.n_dims;
	for (d = 0; d < ts->s.workload.n_dims; d++) {
		ml->temporal_factors[d] = ml->temporal_residuals[d] = 1;
		ml->spatial_factors[d] = ml->spatial_residuals[d] = 1;
		ml->temporal_perm[d] = ml->spatial_perm[d] = (uint8_t)d;
	}
	ml->split = ts->s.workload.n_dims;
	return l;
}

void tspec_keep(struct tspec *ts, unsigned level, const char *which)
{
	const char *c;
	if (!strcmp(which, "*")) {
		ts->m.levels[level].keep_mask = (1u << ts->s.workload.n_tensors) - 1;
		return;
	}
	ts->m.levels[level].keep_mask = 0;
	for (c = which; *c; c++)
		ts->m.levels[level].keep_mask |= 1u << (*c - '0');
}

/* Parse "K16 M1" into 'factors' and a permutation (innermost first) into 'perm'. */
static void directive(struct tspec *ts, const char *factors, const char *perm, uint64_t *f,
		      uint64_t *res, uint8_t *p)
{
	const char *c = factors;
	unsigned n = 0, d;
	bool used[SPEC_MAX_DIMS] = { false };

	while (*c) {
		if (*c == ' ') {
			c++;
			continue;
		}
		d = (unsigned)dim_of(ts, *c++);
		f[d] = res[d] = strtoull(c, (char **)&c, 10);
	}
	for (c = perm; *c; c++) {
		d = (unsigned)dim_of(ts, *c);
		p[n++] = (uint8_t)d;
		used[d] = true;
	}
	for (d = 0; d < ts->s.workload.n_dims; d++)
		if (!used[d])
			p[n++] = (uint8_t)d;
}

void tspec_temporal(struct tspec *ts, unsigned level, const char *factors, const char *perm)
{
	struct spec_map_level *ml = &ts->m.levels[level];
	directive(ts, factors, perm, ml->temporal_factors, ml->temporal_residuals,
		  ml->temporal_perm);
}

void tspec_spatial(struct tspec *ts, unsigned level, const char *factors, const char *perm,
		   unsigned split)
{
	struct spec_map_level *ml = &ts->m.levels[level];
	ml->has_spatial = true;
	ml->split = split;
	directive(ts, factors, perm, ml->spatial_factors, ml->spatial_residuals, ml->spatial_perm);
}

static struct spec_sparse_target *target_of(struct tspec *ts, unsigned level, bool compute)
{
	unsigned i;
	struct spec_sparse_target *tg;

	ts->s.sparse.present = true;
	for (i = 0; i < ts->s.sparse.n_targets; i++) {
		tg = &ts->targets[i];
		if (tg->is_compute == compute && (compute || tg->level == level))
			return tg;
	}
	tg = &ts->targets[ts->s.sparse.n_targets];
	tg->name = compute ? "mac" : ts->levels[level].name;
	tg->is_compute = compute;
	tg->level = level;
	tg->formats = ts->formats[ts->s.sparse.n_targets];
	tg->groups = ts->groups[ts->s.sparse.n_targets];
	ts->s.sparse.n_targets++;
	return tg;
}

void tspec_format(struct tspec *ts, unsigned level, unsigned t, const char *kinds)
{
	struct spec_sparse_target *tg = target_of(ts, level, false);
	struct spec_tensor_format *tf = (struct spec_tensor_format *)&tg->formats[tg->n_formats++];
	const char *c = kinds;

	memset(tf, 0, sizeof(*tf));
	tf->tensor = t;
	tf->named = SPEC_NAMED_NONE;
	while (*c) {
		static const char *const names[] = { "U", "UOP", "CP", "B", "RLE", "UB" };
		size_t len = strcspn(c, " ");
		unsigned k;
		for (k = 0; k < FMT_COUNT; k++)
			if (strlen(names[k]) == len && !strncmp(names[k], c, len))
				break;
		tf->ranks[tf->n_ranks].kind = (enum fmt_kind)k;
		tf->ranks[tf->n_ranks].metadata_word_bits = -1;
		tf->ranks[tf->n_ranks++].payload_word_bits = -1;
		c += len;
		while (*c == ' ')
			c++;
	}
}

void tspec_named_format(struct tspec *ts, unsigned level, unsigned t,
			enum spec_named_format named, unsigned nm_n, unsigned nm_m)
{
	struct spec_sparse_target *tg = target_of(ts, level, false);
	struct spec_tensor_format *tf = (struct spec_tensor_format *)&tg->formats[tg->n_formats++];

	memset(tf, 0, sizeof(*tf));
	tf->tensor = t;
	tf->named = named;
	tf->nm_n = nm_n;
	tf->nm_m = nm_m;
	tf->named_metadata_word_bits = -1;
}

void tspec_saf(struct tspec *ts, unsigned level, enum spec_saf_kind kind, unsigned target,
	       const char *conds)
{
	struct spec_sparse_target *tg = target_of(ts, level, false);
	unsigned idx = (unsigned)(tg - ts->targets);
	struct spec_saf_group *g = &ts->groups[idx][tg->n_groups];
	struct spec_saf_option *o = &ts->options[idx][tg->n_groups];
	const char *c;

	memset(o, 0, sizeof(*o));
	o->target = target;
	for (c = conds; *c; c++) {
		o->conditions[o->n_conditions++] = (uint8_t)(*c - '0');
		o->condition_mask |= 1u << (*c - '0');
	}
	g->kind = kind;
	g->n_options = 1;
	g->options = o;
	tg->n_groups++;
}

void tspec_compute_opt(struct tspec *ts, bool gating, bool skipping)
{
	struct spec_sparse_target *tg = target_of(ts, 0, true);
	tg->compute_gating = gating;
	tg->compute_skipping = skipping;
}

int tspec_finish(struct tspec *ts)
{
	return spec_mapping_derive(&ts->m, &ts->s.workload);
}

void tspec_release(struct tspec *ts)
{
	arena_release(&ts->s.arena);
}
