/*
 * The 'problem' key: shape (dimensions, coefficients, data spaces and their
 * projections) and instance (bounds, coefficient values, densities).
 */
#include "specs/specs_int.h"

#include <math.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const problem_keys[] = { "version", "shape", "instance", "ragged" };
static const char *const shape_keys[] = {
	"name", "dimensions", "coefficients", "data_spaces", "version",
};
static const char *const coef_keys[] = { "name", "default" };
static const char *const space_keys[] = { "name", "projection", "read_write" };

/* Parse 'shape.dimensions': one-letter names, distinct. */
static int parse_dims(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	size_t i;
	int rc = 0;

	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n == 0)
		return ld_error(ld, n, p, "a problem needs at least one dimension");
	if (n->n > SPEC_MAX_DIMS)
		return ld_error(ld, n, p, "at most %d dimensions are supported, got %zu",
				SPEC_MAX_DIMS, n->n);
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *d = n->items[i];
		struct kpath ip = KP_IDX(p, i);
		if (ld_want_scalar(ld, d, &ip) < 0) {
			rc = -1;
			continue;
		}
		if (strlen(d->str) != 1 || !((d->str[0] >= 'A' && d->str[0] <= 'Z') ||
					     (d->str[0] >= 'a' && d->str[0] <= 'z'))) {
			rc = ld_error(ld, d, &ip, "a dimension name must be one letter "
				      "(permutations are strings of dimension letters), got '%s'",
				      d->str);
			continue;
		}
		if (spec_dim_find(w, d->str) >= 0) {
			rc = ld_error(ld, d, &ip, "dimension '%s' is listed twice", d->str);
			continue;
		}
		w->dim_names[w->n_dims] = arena_strdup(ld->a, d->str);
		w->bounds[w->n_dims] = 1;
		w->n_dims++;
	}
	return rc;
}

/* Index of coefficient 'name', or -1. */
static int coef_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_coefs; i++)
		if (!strcmp(w->coefs[i].name, name))
			return (int)i;
	return -1;
}

/* One coefficient {name, default}; its name must be new. */
static int parse_coef(struct ld *ld, const struct ysrc_node *c, const struct kpath *p,
		      struct spec_coef *out)
{
	const struct ysrc_node *name = ld_get(c, "name"), *def = ld_get(c, "default");
	struct kpath np = KP_KEY(p, "name"), dp = KP_KEY(p, "default");
	const struct spec_workload *w = &ld->s->workload;
	int bad;

	if (ld_want_map(ld, c, p) < 0)
		return -1;
	bad = ld_check_keys(ld, c, p, coef_keys, ARRAY_SIZE(coef_keys)) ? -1 : 0;
	if (!name)
		return ld_error(ld, c, p, "a coefficient needs a 'name'");
	if (ld_want_scalar(ld, name, &np) < 0)
		return -1;
	if (spec_dim_find(w, name->str) >= 0 || coef_find(w, name->str) >= 0)
		return ld_error(ld, name, &np, "'%s' is already a dimension or coefficient",
				name->str);
	out->name = arena_strdup(ld->a, name->str);
	out->loc = name->loc;
	out->value = 1;
	if (def && ld_int(ld, def, &dp, &out->value) < 0)
		return -1;
	return bad;
}

/* shape.coefficients into w->coefs. */
static int parse_coefs(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_coef *coefs;
	size_t i;
	int rc = 0;

	if (!n)
		return 0;
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	coefs = arena_calloc(ld->a, n->n ? n->n : 1, sizeof(*coefs));
	w->coefs = coefs;
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (parse_coef(ld, n->items[i], &ip, &coefs[w->n_coefs]) < 0)
			rc = -1;
		else
			w->n_coefs++;
	}
	return rc;
}

/* Resolve the coefficient operand 'c' of a term: a name or an integer. */
static int term_coef(struct ld *ld, const struct ysrc_node *c, const struct kpath *p,
		     struct spec_term *t)
{
	const struct spec_workload *w = &ld->s->workload;
	const char *names[64];
	int64_t v;
	unsigned i;
	int k;

	if (ld_want_scalar(ld, c, p) < 0)
		return -1;
	k = coef_find(w, c->str);
	if (k >= 0) {
		t->coef_idx = k;
		t->coef = w->coefs[k].value;
		return 0;
	}
	if (spec_parse_double(c->str, &(double){ 0 }) == 0) {
		if (ld_int(ld, c, p, &v) < 0)
			return -1;
		t->coef_idx = -1;
		t->coef = v;
		return 0;
	}
	for (i = 0; i < w->n_coefs && i < ARRAY_SIZE(names); i++)
		names[i] = w->coefs[i].name;
	return ld_lookup(ld, c, p, "coefficient", c->str, names, i);
}

/* One projection term: 'dim', '[dim]', '[dim, coef]' or '[coef, dim]'. */
static int parse_term(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      struct spec_term *t)
{
	const struct spec_workload *w = &ld->s->workload;
	const struct ysrc_node *dn = n, *cn = NULL;
	int d;

	t->coef_idx = -1;
	t->coef = 1;
	if (n->kind == YSRC_SEQ) {
		if (n->n < 1 || n->n > 2)
			return ld_error(ld, n, p, "a projection term is [dimension] or "
					"[dimension, coefficient], got %zu items", n->n);
		dn = n->items[0];
		cn = n->n == 2 ? n->items[1] : NULL;
		if (cn && cn->kind == YSRC_SCALAR && dn->kind == YSRC_SCALAR &&
		    spec_dim_find(w, dn->str) < 0 && spec_dim_find(w, cn->str) >= 0) {
			const struct ysrc_node *tmp = dn;
			dn = cn;
			cn = tmp;
		}
	}
	if (ld_want_scalar(ld, dn, p) < 0)
		return -1;
	d = ld_dim_index(ld, dn, p, dn->str);
	if (d < 0)
		return -1;
	t->dim = (unsigned)d;
	return cn ? term_coef(ld, cn, p, t) : 0;
}

/* One rank: a dimension name or a list of terms. */
static int parse_rank(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      struct spec_rank_proj *r)
{
	size_t i;
	int rc = 0;

	if (n->kind == YSRC_SCALAR) {
		r->n_terms = 1;
		return parse_term(ld, n, p, &r->terms[0]);
	}
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n == 0 || n->n > SPEC_MAX_TERMS)
		return ld_error(ld, n, p, "a rank needs 1 to %d terms, got %zu", SPEC_MAX_TERMS,
				n->n);
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (parse_term(ld, n->items[i], &ip, &r->terms[i]) < 0)
			rc = -1;
	}
	r->n_terms = (unsigned)n->n;
	return rc;
}

/* A data space's projection: a list of ranks. */
static int parse_projection(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			    struct spec_tensor *t)
{
	size_t i;
	int rc = 0;

	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n > SPEC_MAX_TENSOR_RANKS)
		return ld_error(ld, n, p, "at most %d ranks are supported, got %zu",
				SPEC_MAX_TENSOR_RANKS, n->n);
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (parse_rank(ld, n->items[i], &ip, &t->ranks[i]) < 0)
			rc = -1;
	}
	t->n_ranks = (unsigned)n->n;
	return rc;
}

/* One data space {name, projection, read_write}. */
static int parse_space(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       struct spec_tensor *t)
{
	const struct ysrc_node *name = ld_get(n, "name"), *proj = ld_get(n, "projection");
	const struct ysrc_node *rw = ld_get(n, "read_write");
	struct kpath np = KP_KEY(p, "name"), pp = KP_KEY(p, "projection");
	struct kpath rp = KP_KEY(p, "read_write");
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, space_keys, ARRAY_SIZE(space_keys)))
		rc = -1;
	if (!name || ld_want_scalar(ld, name, &np) < 0)
		return name ? -1 : ld_error(ld, n, p, "a data space needs a 'name'");
	t->name = arena_strdup(ld->a, name->str);
	t->loc = name->loc;
	if (!proj)
		return ld_error(ld, n, p, "data space '%s' needs a 'projection'", t->name);
	if (parse_projection(ld, proj, &pp, t) < 0)
		rc = -1;
	if (rw && ld_bool(ld, rw, &rp, &t->read_write) < 0)
		rc = -1;
	return rc;
}

/* shape.data_spaces ('n', NULL when 'shape' has none) into w->tensors; names must be distinct. */
static int parse_spaces(struct ld *ld, const struct ysrc_node *shape, const struct ysrc_node *n,
			const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_tensor *ts;
	size_t i;
	int rc = 0;

	if (!n)
		return ld_error(ld, shape, p->up, "missing 'data_spaces'");
	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n == 0 || n->n > SPEC_MAX_TENSORS)
		return ld_error(ld, n, p, "a problem needs 1 to %d data spaces, got %zu",
				SPEC_MAX_TENSORS, n->n);
	ts = arena_calloc(ld->a, n->n, sizeof(*ts));
	w->tensors = ts;
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		size_t j;
		if (parse_space(ld, n->items[i], &ip, &ts[i]) < 0) {
			rc = -1;
			continue;
		}
		for (j = 0; j < i; j++)
			if (ts[j].name && !strcmp(ts[j].name, ts[i].name))
				break;
		if (j < i) {
			rc = ld_error(ld, ysrc_map_get(n->items[i], "name"), &ip,
				      "data space '%s' is defined twice", ts[i].name);
			ld_note(ld, ts[j].loc, "'%s' first defined here", ts[j].name);
		}
	}
	w->n_tensors = (unsigned)n->n;
	return rc;
}

/* shape: name, dimensions and coefficients (data spaces come later). */
static int parse_shape(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct kpath dp = KP_KEY(p, "dimensions"), cp = KP_KEY(p, "coefficients");
	struct kpath np = KP_KEY(p, "name");
	const struct ysrc_node *name = ld_get(n, "name");
	int bad;

	if (n->kind == YSRC_SCALAR)
		return ld_error(ld, n, p, "named problem shapes ('%s') are not supported; "
				"give the shape as a mapping", n->str);
	if (ld_want_map(ld, n, p) < 0)
		return -1;
	bad = ld_check_keys(ld, n, p, shape_keys, ARRAY_SIZE(shape_keys)) ? -1 : 0;
	w->loc = n->loc;
	if (name)
		w->shape_name = ld_str(ld, name, &np);
	if (!ld_get(n, "dimensions"))
		return ld_error(ld, n, p, "missing 'dimensions'");
	if (parse_dims(ld, ld_get(n, "dimensions"), &dp) < 0)
		return -1;
	if (parse_coefs(ld, ld_get(n, "coefficients"), &cp) < 0)
		return -1;
	return bad;
}

/*
 * Timeloop ignores instance keys that are neither dimensions nor
 * coefficients (the front end writes helper values such as 'H' or 'Wpad').
 * One that looks like a misspelt dimension or coefficient gets a warning;
 * one that an override wrote is an error. Returns 0 or -1.
 */
static int warn_unknown_instance_key(struct ld *ld, const struct ysrc_pair *pr,
				     const struct kpath *p, const char *const *names, size_t n)
{
	const struct ysrc_node *k = pr->key;
	const char *hint = strlen(k->str) > 2 ? diag_suggest(k->str, names, n) : NULL;
	const struct ysrc_node *ov = ld_from_override(ld, k->loc) ? k : pr->value;
	if (ld_override_key_first(ld, ov->loc)) {   /* an override is never ignored */
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "'%s' is neither a dimension nor a coefficient", k->str);
		ld_add_hint(&sb, k->str, names, n);
		ld_error(ld, ov, p, "%s", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	if (hint)
		ld_warning(ld, k, p, "'%s' is neither a dimension nor a coefficient and is "
			   "ignored; did you mean '%s'?", k->str, hint);
	return 0;
}

/*
 * Every count the model prints is exact in 64 bits, and the computes are
 * the points of the operation space, the product of every dimension's
 * bound: past 2^64 - 1 the workload cannot be counted. The error is at the
 * bound (in the order given) that takes the product past it.
 */
static int check_operation_space(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	const struct spec_workload *w = &ld->s->workload;
	uint64_t points = 1;
	size_t i;

	for (i = 0; i < n->n; i++) {
		const struct ysrc_pair *pr = &n->pairs[i];
		int d = spec_dim_find(w, pr->key->str);
		struct kpath kp = KP_KEY(p, pr->key->str);
		if (d >= 0 && !ck_mul_u64(points, w->bounds[d], &points))
			return ld_error(ld, pr->value, &kp, "the operation space (the product of "
					"the dimensions' bounds) exceeds 2^64 - 1 points; counts "
					"are exact 64-bit integers");
	}
	return 0;
}

/* Apply 'instance' bounds and coefficient values (before projections). */
static int parse_instance_values(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_coef *coefs = (struct spec_coef *)w->coefs;
	const char *names[SPEC_MAX_DIMS + 64 + 2];
	size_t i, n_names = 0;
	int rc = 0;

	for (i = 0; i < w->n_dims; i++)
		names[n_names++] = w->dim_names[i];
	for (i = 0; i < w->n_coefs && n_names < ARRAY_SIZE(names) - 2; i++)
		names[n_names++] = w->coefs[i].name;
	names[n_names++] = "densities";
	names[n_names++] = "commonDensity";
	for (i = 0; i < n->n; i++) {
		const struct ysrc_pair *pr = &n->pairs[i];
		struct kpath kp = KP_KEY(p, pr->key->str);
		int d = spec_dim_find(w, pr->key->str), c = coef_find(w, pr->key->str);
		if (d >= 0) {
			if (ld_uint(ld, pr->value, &kp, 1, UINT64_MAX, &w->bounds[d]) < 0)
				rc = -1;
		} else if (c >= 0) {
			if (ld_int(ld, pr->value, &kp, &coefs[c].value) < 0)
				rc = -1;
			coefs[c].loc = pr->value->loc;
		} else if (!ysrc_key_eq(pr->key->str, "densities") &&
			   !ysrc_key_eq(pr->key->str, "commonDensity")) {
			if (warn_unknown_instance_key(ld, pr, p, names, n_names) < 0)
				rc = -1;
		}
	}
	if (rc == 0)
		rc = check_operation_space(ld, n, p);
	return rc;
}

/*
 * Points of the projection 'rp' over the bounds of 'w': the convex hull of
 * its values, 1 + sum over terms of |coef| * (bound - 1) (a stride or a
 * dilation is a coefficient). Returns false when that exceeds 2^64 - 1.
 */
static bool rank_extent(const struct spec_workload *w, const struct spec_rank_proj *rp,
			uint64_t *out)
{
	uint64_t extent = 1;
	unsigned k;

	for (k = 0; k < rp->n_terms; k++) {
		const struct spec_term *tm = &rp->terms[k];
		uint64_t c = tm->coef < 0 ? -(uint64_t)tm->coef : (uint64_t)tm->coef, span;
		if (!ck_mul_u64(c, w->bounds[tm->dim] - 1, &span) || !ck_add_u64(extent, span, &extent))
			return false;
	}
	*out = extent;
	return true;
}

/* Fill dim_mask, resolved coefficients, rank extents and the size of tensor 't'. */
static int finish_tensor(struct ld *ld, struct spec_tensor *t)
{
	const struct spec_workload *w = &ld->s->workload;
	uint64_t size = 1;
	unsigned r, k;

	t->dim_mask = 0;
	for (r = 0; r < t->n_ranks; r++) {
		for (k = 0; k < t->ranks[r].n_terms; k++) {
			struct spec_term *tm = &t->ranks[r].terms[k];
			if (tm->coef_idx >= 0)
				tm->coef = w->coefs[tm->coef_idx].value;
			t->dim_mask |= 1u << tm->dim;
		}
		if (!rank_extent(w, &t->ranks[r], &t->rank_extent[r]))
			return diag_error(ld->dl, t->loc, "data space '%s' is too large: rank %u "
					  "spans more than 2^64 - 1 points", t->name, r);
		if (!ck_mul_u64(size, t->rank_extent[r], &size))
			return diag_error(ld->dl, t->loc, "data space '%s' is too large: its "
					  "ranks span more than 2^64 - 1 points together", t->name);
	}
	t->size = size;
	return 0;
}

/* Set the default density of every tensor. */
static void default_densities(struct ld *ld)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_tensor *ts = (struct spec_tensor *)w->tensors;
	unsigned t;
	for (t = 0; t < w->n_tensors; t++) {
		ts[t].density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
		ts[t].density.density = 1.0;
		ts[t].density.is_default = true;
		ts[t].density.loc = ts[t].loc;
	}
}

/* The whole 'problem' map. */
static int load_problem_node(struct ld *ld, const struct ysrc_node *prob, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct kpath sp = KP_KEY(p, "shape"), ip = KP_KEY(p, "instance");
	const struct ysrc_node *shape, *inst;
	unsigned t;
	int rc = 0;

	if (ld_want_map(ld, prob, p) < 0)
		return -1;
	if (ld_check_keys(ld, prob, p, problem_keys, ARRAY_SIZE(problem_keys)))
		rc = -1;
	shape = ld_get(prob, "shape");
	inst = ld_get(prob, "instance");
	if (!shape)
		return ld_error(ld, prob, p, "missing 'shape' (named shapes are not supported)");
	if (parse_shape(ld, shape, &sp) < 0)
		rc = -1;
	if (w->n_dims == 0)
		return -1;
	if (inst && (ld_want_map(ld, inst, &ip) < 0 || parse_instance_values(ld, inst, &ip) < 0))
		rc = -1;
	{
		struct kpath dsp = KP_KEY(&sp, "data_spaces");
		if (parse_spaces(ld, shape, ld_get(shape, "data_spaces"), &dsp) < 0)
			return -1;
	}
	for (t = 0; t < w->n_tensors; t++)
		if (finish_tensor(ld, (struct spec_tensor *)&w->tensors[t]) < 0)
			rc = -1;
	if (rc < 0)
		return -1;
	if (spec_ragged_load(ld, ld_get(prob, "ragged"), p) < 0)
		return -1;
	default_densities(ld);
	ld->problem_ok = true;    /* density errors do not stop the mapping checks */
	return spec_densities_load(ld, inst && inst->kind == YSRC_MAP ? inst : NULL, &ip);
}

/* ------------------------------------------------- workloads read once */

/*
 * One node of the 'problem' value as a key: a node of the files by its
 * pointer (nothing below it can differ); a node an override made (or
 * copied on its path) by its kind, style, tag and text, its children
 * following it. Locations are not in the key: a workload is kept only when
 * none of its locations is in an override, and only when its read said
 * nothing.
 */
struct pm_token {
	const struct ysrc_node *files;     /* a node of the files, or NULL */
	const char *str, *tag;
	unsigned kind, style;
	size_t n;
};

#define PM_MAX_TOKENS 128

struct ld_problem_memo {
	struct ld_problem_memo *next;
	size_t n_tokens;
	struct pm_token *tokens;           /* strings in cc_arena */
	struct spec_workload w;            /* its arrays and strings in cc_arena */
};

#define LD_MAX_PROBLEM_MEMO 256

/* Append the tokens of 'n' to t[*k..); false when there are too many. */
static bool pm_tokens(const struct spec_source *src, const struct ysrc_node *n,
		      struct pm_token *t, size_t *k)
{
	size_t i;

	if (*k >= PM_MAX_TOKENS)
		return false;
	memset(&t[*k], 0, sizeof(t[*k]));
	if (ld_files_node(src, n)) {
		t[(*k)++].files = n;
		return true;
	}
	t[*k].str = n->kind == YSRC_SCALAR ? n->str : NULL;
	t[*k].tag = n->tag;
	t[*k].kind = n->kind;
	t[*k].style = n->style;
	t[*k].n = n->kind == YSRC_SCALAR ? 0 : n->n;
	(*k)++;
	for (i = 0; n->kind != YSRC_SCALAR && i < n->n; i++) {
		if (n->kind == YSRC_MAP && !pm_tokens(src, n->pairs[i].key, t, k))
			return false;
		if (!pm_tokens(src, n->kind == YSRC_MAP ? n->pairs[i].value : n->items[i], t, k))
			return false;
	}
	return true;
}

static bool pm_same(const struct pm_token *a, const struct pm_token *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (a[i].files != b[i].files || a[i].kind != b[i].kind || a[i].style != b[i].style ||
		    a[i].n != b[i].n || !ld_same_text(a[i].str, b[i].str) ||
		    !ld_same_text(a[i].tag, b[i].tag))
			return false;
	return true;
}

/* The workload an earlier build read from the same nodes, or NULL. Under cc_mu. */
static const struct ld_problem_memo *pm_find(const struct spec_source *src,
					     const struct pm_token *t, size_t n)
{
	const struct ld_problem_memo *e;
	for (e = src->problem_memo; e; e = e->next)
		if (e->n_tokens == n && pm_same(e->tokens, t, n))
			return e;
	return NULL;
}

/*
 * True when the workload the build read can be kept: none of its locations
 * is in an override (each build has its own copy of an override's text),
 * and it holds nothing read from elsewhere (matrices, ragged extents,
 * prunings).
 */
static bool pm_keepable(const struct ld *ld, const struct spec_workload *w)
{
	unsigned i;

	if (w->n_ragged || ld_from_override(ld, w->loc))
		return false;
	for (i = 0; i < w->n_coefs; i++)
		if (ld_from_override(ld, w->coefs[i].loc))
			return false;
	for (i = 0; i < w->n_tensors; i++) {
		const struct spec_tensor *t = &w->tensors[i];
		if (t->density.data || t->prune_source || ld_from_override(ld, t->loc) ||
		    ld_from_override(ld, t->density.loc))
			return false;
	}
	return true;
}

/* Keep workload 'w', read from the nodes of tokens t[0..n) with nothing said. */
static void pm_put(struct spec_source *src, const struct pm_token *t, size_t n,
		   const struct spec_workload *w)
{
	struct arena *a = &src->cc_arena;
	struct ld_problem_memo *e;
	struct spec_coef *coefs;
	struct spec_tensor *ts;
	unsigned i;

	pthread_mutex_lock(&src->cc_mu);
	if (src->n_problem_memo < LD_MAX_PROBLEM_MEMO && !pm_find(src, t, n)) {
		e = arena_calloc(a, 1, sizeof(*e));
		e->n_tokens = n;
		e->tokens = arena_memdup(a, t, n * sizeof(*t));
		for (i = 0; i < n; i++) {
			e->tokens[i].str = arena_strdup(a, t[i].str);
			e->tokens[i].tag = arena_strdup(a, t[i].tag);
		}
		e->w = *w;
		e->w.shape_name = arena_strdup(a, w->shape_name);
		for (i = 0; i < w->n_dims; i++)
			e->w.dim_names[i] = arena_strdup(a, w->dim_names[i]);
		coefs = arena_calloc(a, w->n_coefs ? w->n_coefs : 1, sizeof(*coefs));
		for (i = 0; i < w->n_coefs; i++) {
			coefs[i] = w->coefs[i];
			coefs[i].name = arena_strdup(a, w->coefs[i].name);
		}
		e->w.coefs = coefs;
		ts = arena_memdup(a, w->tensors, w->n_tensors * sizeof(*ts));
		for (i = 0; i < w->n_tensors; i++)
			ts[i].name = arena_strdup(a, w->tensors[i].name);
		e->w.tensors = ts;
		e->next = src->problem_memo;
		src->problem_memo = e;
		src->n_problem_memo++;
	}
	pthread_mutex_unlock(&src->cc_mu);
}

/*
 * The 'problem' key. A sweep's points mostly leave the problem alone, or
 * change it the same way for many points in a row (an outer axis): such a
 * build takes the workload an earlier build of the source read (its data
 * spaces copied: a cascade gives them densities in place).
 */
int spec_problem_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "problem");
	struct kpath p = KP_KEY(NULL, "problem");
	struct spec_source *src = (struct spec_source *)ld->s->source;
	const struct spec_load_options *opt = ld->opt;
	struct pm_token tokens[PM_MAX_TOKENS];
	const struct ld_problem_memo *e = NULL;
	size_t n = 0, said;
	bool keyed = false;
	int rc;

	if (!top)
		return 0;
	/* a value a reader computes (an expression) depends on the variables; options read files */
	if (src && !ld->n_deferred && !(opt && (opt->n_tensor_files || opt->n_prunes)))
		keyed = pm_tokens(src, top->values[0], tokens, &n);
	if (keyed) {
		pthread_mutex_lock(&src->cc_mu);
		e = pm_find(src, tokens, n);
		pthread_mutex_unlock(&src->cc_mu);
	}
	if (e) {
		ld->s->workload = e->w;
		ld->s->workload.tensors = arena_memdup(ld->a, e->w.tensors,
						       e->w.n_tensors * sizeof(*e->w.tensors));
		ld->problem_ok = true;
		return 0;
	}
	said = ld_said(ld);
	rc = load_problem_node(ld, top->values[0], &p);
	if (keyed && rc == 0 && ld->problem_ok && ld_said(ld) == said &&
	    pm_keepable(ld, &ld->s->workload))
		pm_put(src, tokens, n, &ld->s->workload);
	return rc;
}
