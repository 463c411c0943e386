/* Mapper test fixtures (see fixture.h). */
#include "tests/mapper/fixture.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/xalloc.h"

#define FX_MAX_CONSTRAINTS 32

static const char *const fx_dims[] = { "M", "K", "N" };

/* One rank projecting dimension 'dim' with coefficient 1. */
static struct spec_rank_proj rank_of(unsigned dim)
{
	struct spec_rank_proj r;
	memset(&r, 0, sizeof(r));
	r.n_terms = 1;
	r.terms[0].dim = dim;
	r.terms[0].coef_idx = -1;
	r.terms[0].coef = 1;
	return r;
}

struct spec_set *fx_matmul(uint64_t m, uint64_t k, uint64_t n, const struct fx_level *levels,
			   unsigned n_levels)
{
	struct spec_set *s = xcalloc(1, sizeof(*s));
	struct spec_level *lv;
	struct spec_tensor *t;
	struct spec_constraint *cons;
	unsigned l;

	s->workload.shape_name = "matmul";
	s->workload.n_dims = 3;
	memcpy(s->workload.dim_names, fx_dims, sizeof(fx_dims));
	s->workload.bounds[FX_M] = m;
	s->workload.bounds[FX_K] = k;
	s->workload.bounds[FX_N] = n;
	t = arena_calloc(&s->arena, 3, sizeof(*t));
	t[FX_A].name = "A";
	t[FX_A].n_ranks = 2;
	t[FX_A].ranks[0] = rank_of(FX_M);
	t[FX_A].ranks[1] = rank_of(FX_K);
	t[FX_B].name = "B";
	t[FX_B].n_ranks = 2;
	t[FX_B].ranks[0] = rank_of(FX_K);
	t[FX_B].ranks[1] = rank_of(FX_N);
	t[FX_Z].name = "Z";
	t[FX_Z].n_ranks = 2;
	t[FX_Z].ranks[0] = rank_of(FX_M);
	t[FX_Z].ranks[1] = rank_of(FX_N);
	t[FX_Z].read_write = true;
	s->workload.n_tensors = 3;
	s->workload.tensors = t;

	lv = arena_calloc(&s->arena, n_levels, sizeof(*lv));
	for (l = 0; l < n_levels; l++) {
		lv[l].name = levels[l].name;
		lv[l].loc = (struct diag_loc){ "arch.yaml", 10 + l, 5 };
		lv[l].has_size = levels[l].has_size;
		lv[l].size_words = lv[l].effective_size_words = levels[l].size_words;
		lv[l].fanout_x = levels[l].fanout_x ? levels[l].fanout_x : 1;
		lv[l].fanout_y = levels[l].fanout_y ? levels[l].fanout_y : 1;
		lv[l].min_utilization = levels[l].min_utilization;
		lv[l].instances = 1;
		lv[l].multiple_buffering = 1;
	}
	s->arch.n_levels = n_levels;
	s->arch.levels = lv;
	cons = arena_calloc(&s->arena, FX_MAX_CONSTRAINTS, sizeof(*cons));
	s->constraints.items = cons;
	s->constraints.n = 0;
	return s;
}

struct spec_constraint *fx_constraint(struct spec_set *s, enum spec_constraint_kind kind,
				      unsigned level, unsigned line)
{
	struct spec_constraint *c;

	if (s->constraints.n >= FX_MAX_CONSTRAINTS)
		BUG("too many fixture constraints");
	c = (struct spec_constraint *)&s->constraints.items[s->constraints.n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->level = level;
	c->loc = (struct diag_loc){ "constraints.yaml", line, 7 };
	return c;
}

void fx_fix(struct spec_constraint *c, unsigned dim, uint64_t value)
{
	c->fixed_mask |= 1u << dim;
	c->factors[dim] = value;
}

void fx_perm(struct spec_constraint *c, const char *dims)
{
	c->n_perm = 0;
	for (; *dims; dims++)
		c->perm[c->n_perm++] = *dims == 'M' ? FX_M : *dims == 'K' ? FX_K : FX_N;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	unsigned i;
	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t fx_mapping_key(const struct spec_mapping *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned i;

	for (i = 0; i < m->n_loops; i++) {
		const struct spec_loop *lp = &m->loops[i];
		h = fnv(h, lp->dim | (uint64_t)lp->spacetime << 8 | (uint64_t)lp->level << 16);
		h = fnv(h, lp->end);
		h = fnv(h, lp->residual_end);
	}
	for (i = 0; i < m->n_levels; i++)
		h = fnv(h, m->levels[i].keep_mask);
	return h;
}

static void *fx_ws_new(const void *ctx)
{
	return (void *)ctx;
}

static void fx_ws_free(void *ws)
{
	(void)ws;
}

void fx_metrics_of_key(uint64_t key, double *metrics)
{
	metrics[SPEC_METRIC_ENERGY] = 1.0 + (double)(key % 1000003) / 1000003.0;
	metrics[SPEC_METRIC_DELAY] = (double)(1 + (key >> 20) % 97);
	metrics[SPEC_METRIC_EDP] = metrics[SPEC_METRIC_ENERGY] * metrics[SPEC_METRIC_DELAY];
	metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES] = (double)((key >> 40) % 13);
}

static void fx_eval(void *ws, const struct spec_mapping *m, struct mapper_eval *out)
{
	const unsigned *fail_every = ws;
	uint64_t key = fx_mapping_key(m);

	memset(out, 0, sizeof(*out));
	if (fail_every && *fail_every && key % *fail_every == 0) {
		out->status = MAPPER_FAIL_OTHER;
		out->fail_level = 0;
		return;
	}
	out->status = MAPPER_OK;
	fx_metrics_of_key(key, out->metrics);
}

void fx_evaluator(struct mapper_evaluator *ev, const unsigned *fail_every)
{
	ev->ctx = fail_every;
	ev->ws_new = fx_ws_new;
	ev->ws_free = fx_ws_free;
	ev->eval = fx_eval;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t fx_sort_unique(uint64_t *keys, size_t n)
{
	size_t i, j = 0;
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (i = 0; i < n; i++)
		if (!j || keys[j - 1] != keys[i])
			keys[j++] = keys[i];
	return j;
}

/* ------------------------------------------------------------ brute force */

#define BR_MAX_TL 8
#define BR_MAX_CHOICES 4096

/* One way to lay out a tiling level: a full permutation and a split. */
struct br_choice {
	uint8_t perm[SPEC_MAX_DIMS];
	unsigned split;
};

struct brute {
	const struct spec_set *s;
	unsigned n_tl, nd;
	unsigned tl_level[BR_MAX_TL];
	bool tl_spatial[BR_MAX_TL];
	uint64_t fixed[BR_MAX_TL][SPEC_MAX_DIMS];
	uint64_t max[BR_MAX_TL][SPEC_MAX_DIMS];
	const struct spec_constraint *perm_con[BR_MAX_TL];
	int split[BR_MAX_TL];
	double min_util[BR_MAX_TL];
	uint32_t keep[SPEC_MAX_LEVELS], bypass[SPEC_MAX_LEVELS];
	uint64_t f[BR_MAX_TL][SPEC_MAX_DIMS];
	struct br_choice *choices[BR_MAX_TL];
	unsigned n_choices[BR_MAX_TL];
	uint32_t keep_now[SPEC_MAX_LEVELS];
	uint64_t *keys;
	size_t n_keys, alloc;
};

static void br_fold(struct brute *b)
{
	const struct spec_arch *a = &b->s->arch;
	unsigned l, i, d, tl_of[SPEC_MAX_LEVELS][2];

	b->nd = b->s->workload.n_dims;
	for (l = 0; l < a->n_levels; l++) {
		if (a->levels[l].fanout_x * a->levels[l].fanout_y > 1) {
			tl_of[l][1] = b->n_tl;
			b->tl_spatial[b->n_tl] = true;
			b->tl_level[b->n_tl++] = l;
		} else {
			tl_of[l][1] = ~0u;
		}
		tl_of[l][0] = b->n_tl;
		b->tl_level[b->n_tl++] = l;
	}
	for (i = 0; i < b->n_tl; i++) {
		b->split[i] = -1;
		for (d = 0; d < b->nd; d++)
			b->max[i][d] = UINT64_MAX;
	}
	for (i = 0; i < b->s->constraints.n; i++) {
		const struct spec_constraint *c = &b->s->constraints.items[i];
		unsigned tl;
		if (c->kind == SPEC_CON_BYPASS) {
			b->keep[c->level] |= c->keep_mask;
			b->bypass[c->level] |= c->bypass_mask;
			continue;
		}
		tl = tl_of[c->level][c->kind == SPEC_CON_TEMPORAL ? 0 : 1];
		if (tl == ~0u)
			continue;
		if (c->kind == SPEC_CON_UTILIZATION) {
			b->min_util[tl] = c->min_utilization;
			continue;
		}
		for (d = 0; d < b->nd; d++) {
			if (c->fixed_mask & (1u << d))
				b->fixed[tl][d] = c->factors[d] ? c->factors[d] : b->s->workload.bounds[d];
			if (c->max_mask & (1u << d))
				b->max[tl][d] = c->max_factors[d];
		}
		if (c->n_perm)
			b->perm_con[tl] = c;
		if (c->has_split)
			b->split[tl] = (int)(c->split > b->nd ? b->nd : c->split);
	}
}

/* Add 'perm'/'split' of 'tl' to its choices unless an equal layout is there. */
static void br_add_choice(struct brute *b, unsigned tl, const uint8_t *perm, unsigned split)
{
	const struct spec_level *lv = &b->s->arch.levels[b->tl_level[tl]];
	uint64_t px = 1, py = 1, all;
	unsigned i, j, c;

	if (b->tl_spatial[tl]) {
		for (i = 0; i < b->nd; i++) {
			if (i < split)
				px *= b->f[tl][perm[i]];
			else
				py *= b->f[tl][perm[i]];
		}
		if (px > lv->fanout_x || py > lv->fanout_y)
			return;
		all = px * py;
		if ((double)all < b->min_util[tl] * lv->fanout_x * lv->fanout_y - 1e-9)
			return;
	}
	for (c = 0; c < b->n_choices[tl]; c++) {
		const struct br_choice *o = &b->choices[tl][c];
		uint8_t s1[SPEC_MAX_DIMS * 2], s2[SPEC_MAX_DIMS * 2];
		unsigned n1 = 0, n2 = 0;
		for (i = 0; i < b->nd; i++) {
			if (b->f[tl][perm[i]] > 1) {
				s1[n1++] = perm[i];
				s1[n1++] = b->tl_spatial[tl] && i < split;
			}
			if (b->f[tl][o->perm[i]] > 1) {
				s2[n2++] = o->perm[i];
				s2[n2++] = b->tl_spatial[tl] && i < o->split;
			}
		}
		if (n1 == n2 && !memcmp(s1, s2, n1))
			return;
	}
	if (b->n_choices[tl] >= BR_MAX_CHOICES)
		BUG("brute force: too many layouts");
	j = b->n_choices[tl]++;
	memcpy(b->choices[tl][j].perm, perm, b->nd);
	b->choices[tl][j].split = split;
}

/* Every permutation of 'tl' from position 'k' on (positions < k placed). */
static void br_perms(struct brute *b, unsigned tl, uint8_t *perm, unsigned k)
{
	unsigned i, s;
	const struct spec_constraint *pc = b->perm_con[tl];

	if (k == b->nd) {
		if (pc)
			for (i = 0; i < pc->n_perm; i++)
				if (perm[i] != pc->perm[i])
					return;
		if (!b->tl_spatial[tl]) {
			br_add_choice(b, tl, perm, 0);
			return;
		}
		for (s = 0; s <= b->nd; s++)
			if (b->split[tl] < 0 || (unsigned)b->split[tl] == s)
				br_add_choice(b, tl, perm, s);
		return;
	}
	for (i = k; i < b->nd; i++) {
		uint8_t t = perm[k];
		perm[k] = perm[i];
		perm[i] = t;
		br_perms(b, tl, perm, k + 1);
		perm[i] = perm[k];
		perm[k] = t;
	}
}

static bool br_capacity_ok(struct brute *b)
{
	const struct spec_workload *w = &b->s->workload;
	uint64_t ext[SPEC_MAX_DIMS];
	unsigned l, d, tl = 0, t, r;

	for (d = 0; d < b->nd; d++)
		ext[d] = 1;
	for (l = 0; l < b->s->arch.n_levels; l++) {
		const struct spec_level *lv = &b->s->arch.levels[l];
		uint64_t sum = 0;
		for (; tl < b->n_tl && b->tl_level[tl] == l; tl++)
			for (d = 0; d < b->nd; d++)
				ext[d] *= b->f[tl][d];
		for (t = 0; t < w->n_tensors; t++) {
			uint64_t words = 1;
			if (!(b->keep_now[l] & (1u << t)))
				continue;
			for (r = 0; r < w->tensors[t].n_ranks; r++)
				words *= ext[w->tensors[t].ranks[r].terms[0].dim];
			sum += words;
		}
		if (lv->has_size && (sum > lv->effective_size_words ||
				     (double)sum < lv->min_utilization * lv->effective_size_words))
			return false;
	}
	return true;
}

static void br_emit(struct brute *b, unsigned tl, unsigned *pick)
{
	struct spec_mapping m;
	unsigned i, l, d;

	if (tl < b->n_tl) {
		for (i = 0; i < b->n_choices[tl]; i++) {
			pick[tl] = i;
			br_emit(b, tl + 1, pick);
		}
		return;
	}
	memset(&m, 0, sizeof(m));
	m.n_levels = b->s->arch.n_levels;
	m.n_dims = b->nd;
	for (i = 0; i < b->n_tl; i++) {
		struct spec_map_level *ml = &m.levels[b->tl_level[i]];
		const struct br_choice *c = &b->choices[i][pick[i]];
		for (d = 0; d < b->nd; d++) {
			if (b->tl_spatial[i])
				ml->spatial_factors[d] = ml->spatial_residuals[d] = b->f[i][d];
			else
				ml->temporal_factors[d] = ml->temporal_residuals[d] = b->f[i][d];
		}
		if (b->tl_spatial[i]) {
			ml->has_spatial = true;
			memcpy(ml->spatial_perm, c->perm, b->nd);
			ml->split = c->split;
		} else {
			memcpy(ml->temporal_perm, c->perm, b->nd);
		}
	}
	for (l = 0; l < m.n_levels; l++)
		m.levels[l].keep_mask = b->keep_now[l];
	if (spec_mapping_derive(&m, &b->s->workload) < 0)
		BUG("brute force: bad factors");
	XGROW(b->keys, b->n_keys + 1, b->alloc);
	b->keys[b->n_keys++] = fx_mapping_key(&m);
}

/* Every keep choice of levels 'l'.. for the current factors. */
static void br_keeps(struct brute *b, unsigned l)
{
	const struct spec_arch *a = &b->s->arch;
	unsigned n_t = b->s->workload.n_tensors, pick[BR_MAX_TL];
	uint32_t mask;

	if (l == a->n_levels) {
		if (br_capacity_ok(b))
			br_emit(b, 0, pick);
		return;
	}
	for (mask = 0; mask < (1u << n_t); mask++) {
		if ((mask & b->keep[l]) != b->keep[l] || (mask & b->bypass[l]))
			continue;
		if (l == a->n_levels - 1 && mask != (1u << n_t) - 1)
			continue;
		b->keep_now[l] = mask;
		br_keeps(b, l + 1);
	}
}

/* Every factor of dimension 'd' at tiling level 'tl' onwards. */
static void br_factors(struct brute *b, unsigned d, unsigned tl, uint64_t rest)
{
	uint64_t f;
	unsigned i;

	if (d == b->nd) {
		for (i = 0; i < b->n_tl; i++) {
			uint8_t perm[SPEC_MAX_DIMS];
			unsigned k;
			for (k = 0; k < b->nd; k++)
				perm[k] = (uint8_t)k;
			b->n_choices[i] = 0;
			br_perms(b, i, perm, 0);
			if (!b->n_choices[i])
				return;
		}
		br_keeps(b, 0);
		return;
	}
	if (tl == b->n_tl) {
		if (rest == 1)
			br_factors(b, d + 1, 0, b->s->workload.bounds[d + 1 < b->nd ? d + 1 : d]);
		return;
	}
	for (f = 1; f <= rest; f++) {
		if (rest % f || f > b->max[tl][d] || (b->fixed[tl][d] && f != b->fixed[tl][d]))
			continue;
		b->f[tl][d] = f;
		br_factors(b, d, tl + 1, rest / f);
	}
}

size_t fx_brute_keys(const struct spec_set *s, uint64_t **keys)
{
	struct brute *b = xcalloc(1, sizeof(*b));
	unsigned i;
	size_t n;

	b->s = s;
	br_fold(b);
	for (i = 0; i < b->n_tl; i++)
		b->choices[i] = xcalloc(BR_MAX_CHOICES, sizeof(struct br_choice));
	br_factors(b, 0, 0, s->workload.bounds[0]);
	for (i = 0; i < b->n_tl; i++)
		free(b->choices[i]);
	n = fx_sort_unique(b->keys, b->n_keys);
	*keys = b->keys;
	free(b);
	return n;
}
