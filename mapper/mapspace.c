/*
 * Building the mapspace: tiling levels, constraints folded onto them, the
 * factorizations of every dimension, and the checks that tell a user which
 * constraint leaves no mapping.
 */
#include "mapper/mapper.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/mapspace_int.h"
#include "util/ckmath.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Saturating product. */
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return ck_mul_u64(a, b, &r) ? r : UINT64_MAX;
}

/* Location of a constraint, or none. */
static struct diag_loc con_loc(const struct spec_constraint *c)
{
	return c ? c->loc : DIAG_LOC_NONE;
}

static const char *dim_name(const struct mapper_space *ms, unsigned d)
{
	return ms->spec->workload.dim_names[d];
}

static const char *level_name(const struct mapper_space *ms, unsigned l)
{
	return ms->spec->arch.levels[l].name;
}

/*
 * Does the design skip spatially at storage level l? Its spatial loops may
 * then spread more logical instances than the fan-out, which the model
 * checks once the instances are thinned (docs/sparse.md).
 */
static bool spatial_skipping_at(const struct spec_set *s, unsigned l)
{
	unsigned i, g;

	for (i = 0; i < s->sparse.n_targets; i++) {
		const struct spec_sparse_target *tg = &s->sparse.targets[i];
		if (tg->is_compute || tg->level != l)
			continue;
		for (g = 0; g < tg->n_groups; g++)
			if (tg->groups[g].kind == SPEC_SAF_SPATIAL_SKIPPING)
				return true;
	}
	return false;
}

/* Lay out the tiling levels, inner to outer. */
static void init_tiling_levels(struct mapper_space *ms)
{
	const struct spec_arch *a = &ms->spec->arch;
	unsigned l, d;

	ms->n_tl = 0;
	for (l = 0; l < a->n_levels; l++) {
		const struct spec_level *lv = &a->levels[l];
		unsigned fx = lv->fanout_x ? lv->fanout_x : 1, fy = lv->fanout_y ? lv->fanout_y : 1;
		struct ms_tl *t;

		ms->lvl[l].tl_spatial = MS_NO_TL;
		if (fx * fy > 1) {
			t = &ms->tl[ms->n_tl];
			t->is_spatial = true;
			t->fanout_x = fx;
			t->fanout_y = fy;
			ms->lvl[l].tl_spatial = (uint8_t)ms->n_tl++;
		}
		t = &ms->tl[ms->n_tl];
		t->is_spatial = false;
		ms->lvl[l].tl_temporal = (uint8_t)ms->n_tl++;
	}
	for (l = 0; l < ms->n_tl; l++) {
		struct ms_tl *t = &ms->tl[l];
		t->split = -1;
		for (d = 0; d < SPEC_MAX_DIMS; d++)
			t->max[d] = UINT64_MAX;
	}
	for (l = 0; l < a->n_levels; l++) {
		ms->tl[ms->lvl[l].tl_temporal].level = l;
		if (ms->lvl[l].tl_spatial != MS_NO_TL) {
			ms->tl[ms->lvl[l].tl_spatial].level = l;
			ms->tl[ms->lvl[l].tl_spatial].may_thin = spatial_skipping_at(ms->spec, l);
		}
	}
}

/* Fold the factor part of constraint 'c' onto tiling level 't'. */
static int apply_factors(struct mapper_space *ms, struct ms_tl *t, const struct spec_constraint *c,
			 struct diag_list *dl)
{
	int ret = 0;
	unsigned d;

	if (c->max_remainder)
		t->max_remainder = c->max_remainder;
	ms->pad_mask |= c->pad_mask & ((1u << ms->n_dims) - 1);
	for (d = 0; d < ms->n_dims; d++) {
		if (c->fixed_mask & (1u << d)) {
			uint64_t bound = ms->spec->workload.bounds[d];
			uint64_t v = c->factors[d] ? c->factors[d] : bound;
			if (v > bound && !(c->pad_mask & (1u << d))) {
				diag_warning(dl, c->loc, "factor %s=%" PRIu64 " exceeds the bound %" PRIu64
					     " of '%s'; it is taken as %s=%" PRIu64 ", as Timeloop does",
					     dim_name(ms, d), v, bound, dim_name(ms, d), dim_name(ms, d),
					     bound);
				v = bound;
			}
			if (t->fixed[d] && t->fixed[d] != v) {
				ret = diag_error(dl, c->loc,
						 "factor %s=%" PRIu64 " at '%s' contradicts %s=%" PRIu64,
						 dim_name(ms, d), v, level_name(ms, t->level),
						 dim_name(ms, d), t->fixed[d]);
				diag_note(dl, con_loc(t->factor_con[d]), "%s=%" PRIu64 " is set here",
					  dim_name(ms, d), t->fixed[d]);
				continue;
			}
			t->fixed[d] = v;
			t->factor_con[d] = c;
		}
		if ((c->max_mask & (1u << d)) && c->max_factors[d] < t->max[d]) {
			t->max[d] = c->max_factors[d];
			if (!t->fixed[d])
				t->factor_con[d] = c;
		}
	}
	return ret;
}

/* Fold the order and split part of constraint 'c' onto tiling level 't'. */
static int apply_order(struct mapper_space *ms, struct ms_tl *t, const struct spec_constraint *c,
		       struct diag_list *dl)
{
	unsigned i;

	if (c->n_perm) {
		if (t->perm_con) {
			diag_error(dl, c->loc, "a second permutation for the %s loops of '%s'",
				   t->is_spatial ? "spatial" : "temporal", level_name(ms, t->level));
			diag_note(dl, t->perm_con->loc, "the first one is here");
			return -1;
		}
		t->perm_con = c;
		t->n_prefix = c->n_perm;
		for (i = 0; i < c->n_perm; i++) {
			t->prefix[i] = c->perm[i];
			t->ordered_mask |= 1u << c->perm[i];
		}
	}
	if (c->has_split && t->is_spatial) {
		t->split = (int)(c->split > ms->n_dims ? ms->n_dims : c->split);
		t->split_con = c;
	}
	return 0;
}

/* Fold the keep/bypass lists of 'c' onto its storage level. */
static int apply_bypass(struct mapper_space *ms, const struct spec_constraint *c,
			struct diag_list *dl)
{
	struct ms_level *lv = &ms->lvl[c->level];
	uint32_t keep = c->keep_mask & ms->all_tensors, byp = c->bypass_mask & ms->all_tensors;
	unsigned t;

	for (t = 0; t < ms->n_tensors; t++) {
		uint32_t bit = 1u << t;
		if ((byp & bit) && c->level == ms->n_levels - 1) {
			diag_error(dl, c->loc,
				   "'%s' cannot bypass '%s': the outermost level holds every tensor",
				   ms->spec->workload.tensors[t].name, level_name(ms, c->level));
			return -1;
		}
		if (((keep & bit) && ((byp | lv->force_bypass) & bit)) ||
		    ((byp & bit) && (lv->force_keep & bit))) {
			diag_error(dl, c->loc, "'%s' is both kept and bypassed at '%s'",
				   ms->spec->workload.tensors[t].name, level_name(ms, c->level));
			return -1;
		}
	}
	lv->force_keep |= keep;
	lv->force_bypass |= byp;
	if (keep || byp)
		lv->keep_con = c;
	return 0;
}

/* Apply every constraint of the spec set. */
static int apply_constraints(struct mapper_space *ms, struct diag_list *dl)
{
	const struct spec_constraints *cs = &ms->spec->constraints;
	int ret = 0;
	size_t i;
	unsigned d;

	for (i = 0; i < cs->n; i++) {
		const struct spec_constraint *c = &cs->items[i];
		const struct ms_level *lv;

		if (c->level >= ms->n_levels)
			BUG("constraint on level %u of %u", c->level, ms->n_levels);
		lv = &ms->lvl[c->level];
		switch (c->kind) {
		case SPEC_CON_TEMPORAL:
			if (apply_factors(ms, &ms->tl[lv->tl_temporal], c, dl) < 0 ||
			    apply_order(ms, &ms->tl[lv->tl_temporal], c, dl) < 0)
				ret = -1;
			break;
		case SPEC_CON_SPATIAL:
			if (lv->tl_spatial == MS_NO_TL) {
				for (d = 0; d < ms->n_dims; d++)
					if ((c->fixed_mask & (1u << d)) && c->factors[d] > 1)
						break;
				if (d < ms->n_dims)
					ret = diag_error(dl, c->loc,
							 "spatial factor %s=%" PRIu64 " at '%s', which has no fan-out",
							 dim_name(ms, d), c->factors[d], level_name(ms, c->level));
				break;
			}
			if (apply_factors(ms, &ms->tl[lv->tl_spatial], c, dl) < 0 ||
			    apply_order(ms, &ms->tl[lv->tl_spatial], c, dl) < 0)
				ret = -1;
			ms->lvl[c->level].no_link_transfer |= c->no_link_transfer_mask & ms->all_tensors;
			ms->lvl[c->level].no_multicast |= c->no_multicast_mask & ms->all_tensors;
			break;
		case SPEC_CON_BYPASS:
			if (apply_bypass(ms, c, dl) < 0)
				ret = -1;
			break;
		case SPEC_CON_UTILIZATION:
			if (lv->tl_spatial != MS_NO_TL) {
				ms->tl[lv->tl_spatial].min_utilization = c->min_utilization;
				ms->tl[lv->tl_spatial].util_con = c;
			}
			break;
		default:
			BUG("constraint kind %d", (int)c->kind);
		}
	}
	return ret;
}

/* True when tensor 't' has a representation format at storage level 'l'. */
static bool has_format(const struct spec_set *s, unsigned l, unsigned t)
{
	unsigned i, j;

	for (i = 0; i < s->sparse.n_targets; i++) {
		const struct spec_sparse_target *st = &s->sparse.targets[i];
		if (st->is_compute || st->level != l)
			continue;
		for (j = 0; j < st->n_formats; j++)
			if (st->formats[j].tensor == t)
				return true;
	}
	return false;
}

static void init_levels(struct mapper_space *ms)
{
	unsigned l, t;

	for (l = 0; l < ms->n_levels; l++) {
		const struct spec_level *sl = &ms->spec->arch.levels[l];
		struct ms_level *lv = &ms->lvl[l];
		lv->has_size = sl->has_size;
		lv->cap_words = sl->has_size ? sl->effective_size_words : UINT64_MAX;
		lv->min_words = sl->has_size ? (double)sl->effective_size_words * sl->min_utilization : 0;
		for (t = 0; t < ms->n_tensors; t++)
			if (!has_format(ms->spec, l, t))
				lv->precheck_mask |= 1u << t;
	}
	ms->lvl[ms->n_levels - 1].force_keep = ms->all_tensors;
}

/* Describe the bounds of dimension 'd' as notes. */
static void note_dim_bounds(struct mapper_space *ms, unsigned d, struct diag_list *dl)
{
	unsigned i;

	for (i = 0; i < ms->n_tl; i++) {
		const struct ms_tl *t = &ms->tl[i];
		if (t->fixed[d])
			diag_note(dl, con_loc(t->factor_con[d]), "%s loops of '%s' fix %s=%" PRIu64,
				  t->is_spatial ? "spatial" : "temporal", level_name(ms, t->level),
				  dim_name(ms, d), t->fixed[d]);
		else if (t->max[d] != UINT64_MAX)
			diag_note(dl, con_loc(t->factor_con[d]), "%s loops of '%s' bound %s<=%" PRIu64,
				  t->is_spatial ? "spatial" : "temporal", level_name(ms, t->level),
				  dim_name(ms, d), t->max[d]);
	}
}

/* Check the fixed factors of dimension 'd' against its bound; set *rest. */
static int fixed_product(struct mapper_space *ms, unsigned d, uint64_t *rest,
			 const struct spec_constraint **last, struct diag_list *dl)
{
	uint64_t bound = ms->dim[d].bound, prod = 1;
	unsigned i;

	*last = NULL;
	for (i = 0; i < ms->n_tl; i++) {
		const struct ms_tl *t = &ms->tl[i];
		if (!t->fixed[d])
			continue;
		prod = sat_mul(prod, t->fixed[d]);
		*last = t->factor_con[d];
		if (bound % prod && !ms->dim[d].imperfect) {
			diag_error(dl, con_loc(t->factor_con[d]),
				   "the fixed factors of dimension '%s' reach %" PRIu64
				   " here, which does not divide its bound %" PRIu64,
				   dim_name(ms, d), prod, bound);
			note_dim_bounds(ms, d, dl);
			return -1;
		}
	}
	*rest = bound % prod ? (bound + prod - 1) / prod : bound / prod;
	return 0;
}

uint64_t ms_slot_bound(const struct ms_tl *t, unsigned d)
{
	uint64_t b = t->max[d];
	if (t->is_spatial) {
		uint64_t f = t->fanout_x > t->fanout_y ? t->fanout_x : t->fanout_y;
		if (f < b)
			b = f;
	}
	return b;
}

struct factor_walk {
	struct ms_dim *dim;
	const uint64_t *divs;
	size_t n_divs;
	uint64_t bound[MS_MAX_TL];
	uint64_t row[MS_MAX_TL];
	uint32_t alloc;
	bool overflow;
};

/* Emit every split of 'rest' over slots 'i'.. of the walk. */
static void factor_rec(struct factor_walk *w, unsigned i, uint64_t rest)
{
	struct ms_dim *dm = w->dim;
	size_t k;

	if (w->overflow)
		return;
	if (i + 1 == dm->n_free) {
		if (rest > w->bound[i])
			return;
		w->row[i] = rest;
		if (dm->n_choices >= MS_MAX_CHOICES) {
			w->overflow = true;
			return;
		}
		XGROW(dm->choices, ((size_t)dm->n_choices + 1) * dm->n_free, w->alloc);
		memcpy(dm->choices + (size_t)dm->n_choices * dm->n_free, w->row,
		       dm->n_free * sizeof(*w->row));
		dm->n_choices++;
		return;
	}
	for (k = 0; k < w->n_divs && w->divs[k] <= rest; k++) {
		if (rest % w->divs[k] || w->divs[k] > w->bound[i])
			continue;
		w->row[i] = w->divs[k];
		factor_rec(w, i + 1, rest / w->divs[k]);
	}
}

/* Sorted divisors of 'n'. */
static uint64_t *divisors(uint64_t n, size_t *count)
{
	uint64_t *lo = NULL, *hi = NULL, i;
	size_t n_lo = 0, n_hi = 0, a_lo = 0, a_hi = 0, k;

	for (i = 1; i <= n / i; i++) {
		if (n % i)
			continue;
		XGROW(lo, n_lo + 1, a_lo);
		lo[n_lo++] = i;
		if (i != n / i) {
			XGROW(hi, n_hi + 1, a_hi);
			hi[n_hi++] = n / i;
		}
	}
	XGROW(lo, n_lo + n_hi + 1, a_lo);
	for (k = 0; k < n_hi; k++)
		lo[n_lo + k] = hi[n_hi - 1 - k];
	free(hi);
	*count = n_lo + n_hi;
	return lo;
}

#define MS_MAX_IMPERFECT (1u << 18)   /* imperfect factorizations of one dimension */

/* True when every prime factor of n is at most 7. */
static bool smooth7(uint64_t n)
{
	static const uint64_t primes[] = { 2, 3, 5, 7 };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(primes); i++)
		while (n > 1 && n % primes[i] == 0)
			n /= primes[i];
	return n <= 1;
}

size_t ms_imperfect_candidates(uint64_t R, uint64_t cap, double spacing, uint64_t *out,
			       size_t max)
{
	uint64_t q = 1, last_q = 0, v;
	size_t n = 0, i;

	while (q <= R && n < max) {
		v = (R + q - 1) / q;
		if (v <= cap && (spacing <= 1 || R % v == 0 || last_q == 0 ||
				 (double)q >= (double)last_q * spacing)) {
			out[n++] = v;
			last_q = q;
		}
		if (v == 1)
			break;
		q = (R + v - 2) / (v - 1);
	}
	for (i = 0; i < n / 2; i++) {   /* ascending */
		v = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = v;
	}
	return n;
}

struct imperfect_walk {
	struct mapper_space *ms;
	struct ms_dim *dim;
	unsigned d;
	double spacing;
	uint64_t row[MS_MAX_TL];
	uint32_t alloc;
	bool overflow;
};

/* Does residual 'r' of tile 'f' at tiling level 't' respect Ruby's 'remainders'? */
static bool remainder_ok(const struct mapper_space *ms, const struct ms_tl *t, uint64_t f,
			 uint64_t r)
{
	return !ms->any_remainders || r == f || (t->max_remainder && r <= t->max_remainder);
}

/*
 * Emit every imperfect split of the extent R left at tiling level 'tl'
 * (the 'fi'-th free slot next): a fixed factor f needs R >= f, a free
 * slot takes each of imperfect_candidates(); the rest is ceil(R / f).
 */
static void imperfect_rec(struct imperfect_walk *w, unsigned tl, unsigned fi, uint64_t R)
{
	struct ms_dim *dm = w->dim;
	const struct ms_tl *t;
	uint64_t cands[2048], f, q, r;
	size_t n, k;

	if (w->overflow)
		return;
	if (tl == w->ms->n_tl) {
		if (R != 1)
			return;
		if (dm->n_choices >= MS_MAX_IMPERFECT) {
			w->overflow = true;
			return;
		}
		XGROW(dm->choices, ((size_t)dm->n_choices + 1) * (dm->n_free ? dm->n_free : 1),
		      w->alloc);
		memcpy(dm->choices + (size_t)dm->n_choices * dm->n_free, w->row,
		       dm->n_free * sizeof(*w->row));
		dm->n_choices++;
		return;
	}
	t = &w->ms->tl[tl];
	if (t->fixed[w->d]) {
		f = t->fixed[w->d];
		if (f > R)     /* the levels inside left less than the fixed tile */
			return;
		q = (R + f - 1) / f;
		if (remainder_ok(w->ms, t, f, R - f * (q - 1)))
			imperfect_rec(w, tl + 1, fi, q);
		return;
	}
	n = ms_imperfect_candidates(R, ms_slot_bound(t, w->d), w->spacing, cands, ARRAY_SIZE(cands));
	for (k = 0; k < n; k++) {
		f = cands[k];
		q = (R + f - 1) / f;
		r = R - f * (q - 1);
		if (!remainder_ok(w->ms, t, f, r))
			continue;
		w->row[fi] = f;
		imperfect_rec(w, tl + 1, fi + 1, q);
	}
}

/*
 * The imperfect factorizations of dimension 'd'; past MS_MAX_IMPERFECT the
 * trip counts tried are spaced out, 1.25, 1.5, 2, 4 times apart.
 */
static int build_dim_imperfect(struct mapper_space *ms, unsigned d, struct diag_list *dl)
{
	static const double spacings[] = { 1, 1.25, 1.5, 2, 4 };
	struct ms_dim *dm = &ms->dim[d];
	struct imperfect_walk w;
	unsigned i, k;

	memset(&w, 0, sizeof(w));
	w.ms = ms;
	w.dim = dm;
	w.d = d;
	dm->n_free = 0;
	for (i = 0; i < ms->n_tl; i++)
		if (!ms->tl[i].fixed[d])
			dm->free_tl[dm->n_free++] = (uint8_t)i;
	for (k = 0; k < ARRAY_SIZE(spacings); k++) {
		w.spacing = spacings[k];
		w.overflow = false;
		dm->n_choices = 0;
		imperfect_rec(&w, 0, 0, dm->bound);
		if (!w.overflow)
			break;
	}
	if (w.overflow)
		return diag_error(dl, ms->spec->workload.loc,
				  "dimension '%s' has more than %u imperfect factorizations over %u "
				  "tiling levels; constrain its factors (or set 'imperfect: off')",
				  dim_name(ms, d), MS_MAX_IMPERFECT, dm->n_free);
	if (dm->n_choices == 0) {
		diag_error(dl, ms->spec->workload.loc,
			   "no split of dimension '%s' (%" PRIu64 ") respects its fixed factors, "
			   "upper bounds and fan-outs", dim_name(ms, d), dm->bound);
		note_dim_bounds(ms, d, dl);
		return -1;
	}
	if (!dm->choices)
		dm->choices = xcalloc(1, sizeof(*dm->choices));
	return 0;
}

/* Enumerate the factorizations of dimension 'd'. */
static int build_dim(struct mapper_space *ms, unsigned d, struct diag_list *dl)
{
	struct ms_dim *dm = &ms->dim[d];
	struct factor_walk w;
	const struct spec_constraint *last;
	uint64_t rest;
	unsigned i;

	memset(&w, 0, sizeof(w));
	if (dm->imperfect)
		return build_dim_imperfect(ms, d, dl);
	if (fixed_product(ms, d, &rest, &last, dl) < 0)
		return -1;
	dm->n_free = 0;
	for (i = 0; i < ms->n_tl; i++) {
		if (ms->tl[i].fixed[d])
			continue;
		w.bound[dm->n_free] = ms_slot_bound(&ms->tl[i], d);
		dm->free_tl[dm->n_free++] = (uint8_t)i;
	}
	if (dm->n_free == 0) {
		if (rest != 1) {
			diag_error(dl, con_loc(last),
				   "every factor of dimension '%s' is fixed, and they multiply to %"
				   PRIu64 ", not its bound %" PRIu64,
				   dim_name(ms, d), dm->bound / rest, dm->bound);
			return -1;
		}
		dm->n_choices = 1;
		dm->choices = xcalloc(1, sizeof(*dm->choices));
		return 0;
	}
	w.dim = dm;
	w.divs = divisors(rest, &w.n_divs);
	factor_rec(&w, 0, rest);
	free((void *)w.divs);
	if (w.overflow) {
		return diag_error(dl, ms->spec->workload.loc,
				  "dimension '%s' has more than %u factorizations over %u tiling levels;"
				  " constrain its factors", dim_name(ms, d), MS_MAX_CHOICES, dm->n_free);
	}
	if (dm->n_choices == 0) {
		const struct spec_constraint *c = NULL;
		for (i = 0; i < ms->n_tl; i++)
			if (!ms->tl[i].fixed[d] && ms->tl[i].max[d] != UINT64_MAX)
				c = ms->tl[i].factor_con[d];
		diag_error(dl, con_loc(c),
			   "no split of dimension '%s' (%" PRIu64 " after fixed factors) respects"
			   " its upper bounds and the fan-outs", dim_name(ms, d), rest);
		note_dim_bounds(ms, d, dl);
		return -1;
	}
	return 0;
}

/*
 * Fixed spatial factors must fit the fan-out, on X and Y apart under the
 * split and order constraints (free factors only make that harder).
 */
static int check_spatial(struct mapper_space *ms, struct diag_list *dl)
{
	int ret = 0;
	unsigned i, d;

	for (i = 0; i < ms->n_tl; i++) {
		const struct ms_tl *t = &ms->tl[i];
		uint64_t prod = 1, fan, f[SPEC_MAX_DIMS];
		const struct spec_constraint *c = NULL;
		if (!t->is_spatial)
			continue;
		fan = (uint64_t)t->fanout_x * t->fanout_y;
		for (d = 0; d < ms->n_dims; d++) {
			f[d] = t->fixed[d] ? t->fixed[d] : 1;
			if (!t->fixed[d])
				continue;
			prod = sat_mul(prod, t->fixed[d]);
			c = t->factor_con[d];
		}
		if (prod > fan && !t->may_thin)
			ret = diag_error(dl, con_loc(c),
					 "fixed spatial factors at '%s' multiply to %" PRIu64
					 ", more than its fan-out %u x %u",
					 level_name(ms, t->level), prod, t->fanout_x, t->fanout_y);
		else if (!ms_tl_arrangement_exists(ms, i, f))
			ret = diag_error(dl, con_loc(t->split_con ? t->split_con : t->perm_con ? t->perm_con : c),
					 "the spatial factors fixed at '%s' fit no X/Y arrangement of its "
					 "fan-out %u x %u under this split and order",
					 level_name(ms, t->level), t->fanout_x, t->fanout_y);
	}
	return ret;
}

/* The largest divisor of 'n' that is at most 'cap'. */
static uint64_t largest_divisor(uint64_t n, uint64_t cap)
{
	uint64_t d, best = 1;
	for (d = 1; d <= n / d; d++) {
		if (n % d)
			continue;
		if (d <= cap && d > best)
			best = d;
		if (n / d <= cap && n / d > best)
			best = n / d;
	}
	return best;
}

/*
 * A spatial utilization bound must be reachable: each dimension can give a
 * spatial level at most its largest divisor within the slot's bound.
 */
static int check_utilization(struct mapper_space *ms, struct diag_list *dl)
{
	int ret = 0;
	unsigned i, d;

	for (i = 0; i < ms->n_tl; i++) {
		const struct ms_tl *t = &ms->tl[i];
		uint64_t most = 1, fan, rest;
		const struct spec_constraint *last;
		if (!t->is_spatial || t->min_utilization <= 0)
			continue;
		fan = (uint64_t)t->fanout_x * t->fanout_y;
		for (d = 0; d < ms->n_dims; d++) {
			if (t->fixed[d]) {
				most = sat_mul(most, t->fixed[d]);
				continue;
			}
			if (fixed_product(ms, d, &rest, &last, dl) < 0)
				return -1;
			if (ms->dim[d].imperfect)
				most = sat_mul(most, rest < ms_slot_bound(t, d) ? rest : ms_slot_bound(t, d));
			else
				most = sat_mul(most, largest_divisor(rest, ms_slot_bound(t, d)));
		}
		if (most > fan)
			most = fan;
		if ((double)most < t->min_utilization * (double)fan - 1e-9)
			ret = diag_error(dl, con_loc(t->util_con),
					 "the spatial loops of '%s' can use at most %" PRIu64 " of its %"
					 PRIu64 " instances, below the minimum utilization %g",
					 level_name(ms, t->level), most, fan, t->min_utilization);
	}
	return ret;
}

/* Tensors in 'mask' as "A, B" into 'sb'. */
static void tensor_list(const struct mapper_space *ms, uint32_t mask, struct strbuf *sb)
{
	unsigned t;
	for (t = 0; t < ms->n_tensors; t++) {
		if (!(mask & (1u << t)))
			continue;
		if (sb->len)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, ms->spec->workload.tensors[t].name);
	}
}

/*
 * The smallest extent of dimension 'd' below and at tiling level 'tl':
 * 'fixed_below' (the fixed factors there) when a free slot above could take
 * the rest, else the bound over the factors fixed above.
 */
static uint64_t min_extent(const struct mapper_space *ms, unsigned d, unsigned tl,
			   uint64_t fixed_below)
{
	uint64_t above = 1;
	unsigned i;

	for (i = tl + 1; i < ms->n_tl; i++) {
		if (!ms->tl[i].fixed[d])
			return fixed_below;
		above = sat_mul(above, ms->tl[i].fixed[d]);
	}
	return ms->dim[d].bound / above;
}

/*
 * The smallest tiles a level must hold (min_extent() of every dimension),
 * counted by 'mws' as the model counts them. When even those overflow a
 * level, no mapping fits it.
 */
static int check_min_capacity(struct mapper_space *ms, struct model_ws *mws, struct diag_list *dl)
{
	uint64_t ext[SPEC_MAX_DIMS];
	int ret = 0;
	unsigned l, d, i, t, tl_done = 0;

	for (d = 0; d < ms->n_dims; d++)
		ext[d] = 1;
	for (l = 0; l < ms->n_levels; l++) {
		const struct ms_level *lv = &ms->lvl[l];
		uint32_t mask = lv->force_keep & lv->precheck_mask;
		uint64_t sum = 0, tile[SPEC_MAX_DIMS];

		for (i = tl_done; i <= lv->tl_temporal; i++)
			for (d = 0; d < ms->n_dims; d++)
				if (ms->tl[i].fixed[d])
					ext[d] = sat_mul(ext[d], ms->tl[i].fixed[d]);
		tl_done = lv->tl_temporal + 1;
		if (!lv->has_size || !mask)
			continue;
		for (d = 0; d < ms->n_dims; d++)
			tile[d] = min_extent(ms, d, lv->tl_temporal, ext[d]);
		for (t = 0; t < ms->n_tensors; t++)
			if (mask & (1u << t)) {
				uint64_t w = model_tile_words(mws, t, tile);
				sum = sum > UINT64_MAX - w ? UINT64_MAX : sum + w;
			}
		if (sum > lv->cap_words) {
			struct strbuf sb = STRBUF_INIT;
			struct diag_loc loc = lv->keep_con ? lv->keep_con->loc
							   : ms->spec->arch.levels[l].loc;
			tensor_list(ms, mask, &sb);
			ret = diag_error(dl, loc,
					 "'%s' must keep %s, whose smallest tiles need %" PRIu64
					 " words; it holds %" PRIu64,
					 level_name(ms, l), sb.buf, sum, lv->cap_words);
			strbuf_release(&sb);
		}
	}
	return ret;
}

/*
 * Which dimensions take imperfect factors: every one ('on'), those whose
 * bound has a prime factor above 7 ('auto'), none ('off'); under 'auto' or
 * 'on', also a dimension with a fixed factor that does not divide its bound
 * (as Timeloop's mapspace takes it since its imperfect factors), and every
 * one when a level bounds its residuals (Ruby's 'remainders'). A padded
 * dimension ('pad' constraint) is split perfectly over the bound rounded up
 * to a multiple of its fixed factors: every tile full, the rest padding.
 */
static void choose_imperfect(struct mapper_space *ms, enum spec_imperfect imperfect)
{
	unsigned d, i;

	for (i = 0; i < ms->n_tl; i++)
		if (ms->tl[i].max_remainder)
			ms->any_remainders = true;
	for (d = 0; d < ms->n_dims; d++) {
		uint64_t bound = ms->spec->workload.bounds[d], fixed = 1;
		bool on = imperfect == SPEC_IMPERFECT_ON || ms->any_remainders ||
			  (imperfect == SPEC_IMPERFECT_AUTO && !smooth7(bound));
		for (i = 0; i < ms->n_tl; i++) {
			if (!ms->tl[i].fixed[d])
				continue;
			fixed = sat_mul(fixed, ms->tl[i].fixed[d]);
			on |= bound % ms->tl[i].fixed[d] != 0;
		}
		ms->dim[d].bound = bound;
		if (ms->pad_mask & (1u << d)) {   /* the fixed factors' tiles, full */
			ms->dim[d].bound = sat_mul(fixed, (bound + fixed - 1) / fixed);
			on = false;
		}
		ms->dim[d].imperfect = imperfect != SPEC_IMPERFECT_OFF && on && bound > 1;
	}
}

struct mapper_space *mapper_space_new(const struct spec_set *s, const struct model_options *mo,
				      struct diag_list *dl)
{
	return mapper_space_new_imperfect(s, mo, s->mapper.imperfect, dl);
}

struct mapper_space *mapper_space_new_imperfect(const struct spec_set *s,
						const struct model_options *mo,
						enum spec_imperfect imperfect, struct diag_list *dl)
{
	static const struct model_options defaults = MODEL_OPTIONS_INIT;
	struct mapper_space *ms;
	struct model_ws *mws;
	unsigned d, l;
	int ret = 0;

	if (s->arch.n_levels == 0 || s->workload.n_dims == 0)
		BUG("mapspace of an empty design");
	ms = xcalloc(1, sizeof(*ms));
	ms->spec = s;
	ms->model_opt = mo ? *mo : defaults;
	ms->model_opt.energy_preset = NULL;
	ms->n_dims = s->workload.n_dims;
	ms->n_tensors = s->workload.n_tensors;
	ms->n_levels = s->arch.n_levels;
	ms->all_tensors = ms->n_tensors >= 32 ? UINT32_MAX : (1u << ms->n_tensors) - 1;
	init_tiling_levels(ms);
	init_levels(ms);
	if (apply_constraints(ms, dl) < 0) {
		mapper_space_free(ms);
		return NULL;
	}
	if (check_spatial(ms, dl) < 0)
		ret = -1;
	choose_imperfect(ms, imperfect);
	for (d = 0; d < ms->n_dims; d++)
		if (build_dim(ms, d, dl) < 0)
			ret = -1;
	if (ret == 0 && check_utilization(ms, dl) < 0)
		ret = -1;
	if (ret == 0) {
		mws = ms_tile_counter_new(ms);
		if (check_min_capacity(ms, mws, dl) < 0)
			ret = -1;
		model_ws_free(mws);
	}
	if (ret < 0) {
		mapper_space_free(ms);
		return NULL;
	}
	ms->n_if = 1;
	for (d = 0; d < ms->n_dims; d++)
		ms->n_if = sat_mul(ms->n_if, ms->dim[d].n_choices);
	for (l = 0; l < ms->n_levels; l++) {
		struct ms_level *lv = &ms->lvl[l];
		unsigned n;
		lv->free_mask = ms->all_tensors & ~(lv->force_keep | lv->force_bypass);
		n = (unsigned)__builtin_popcount(lv->free_mask);
		if (n > ms->max_free_keep)
			ms->max_free_keep = n;
	}
	return ms;
}

uint64_t mapper_space_n_factorizations(const struct mapper_space *ms)
{
	return ms->n_if;
}

uint64_t mapper_space_dim_factorizations(const struct mapper_space *ms, unsigned dim)
{
	return dim < ms->n_dims ? ms->dim[dim].n_choices : 0;
}

void mapper_space_free(struct mapper_space *ms)
{
	unsigned d;

	if (!ms)
		return;
	for (d = 0; d < SPEC_MAX_DIMS; d++)
		free(ms->dim[d].choices);
	free(ms);
}
