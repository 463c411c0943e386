/*
 * Tensor densities: 'problem.instance.densities', 'commonDensity' and the
 * "NAME=FILE" load options (actual data from Matrix Market files).
 */
#include "specs/specs_int.h"

#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

struct dist_name {
	const char *name;
	enum spec_density_kind kind;
};

static const struct dist_name dist_names[] = {
	{ "fixed_structured", SPEC_DENSITY_FIXED_STRUCTURED },
	{ "fixed", SPEC_DENSITY_FIXED_STRUCTURED },
	{ "hypergeometric", SPEC_DENSITY_HYPERGEOMETRIC },
	{ "banded", SPEC_DENSITY_BANDED },
	{ "diagonal", SPEC_DENSITY_BANDED },
	{ "structured_nm", SPEC_DENSITY_NM },
	{ "nm", SPEC_DENSITY_NM },
	{ "actual_data", SPEC_DENSITY_ACTUAL },
	{ "block_structured", SPEC_DENSITY_BLOCK },
	{ "block", SPEC_DENSITY_BLOCK },
	{ "power_law", SPEC_DENSITY_POWER_LAW },
};

static const char *const density_keys[] = {
	"distribution", "density", "workload_tensor_size", "band_width",
	"n", "m", "dimension", "file", "block_shape", "exponent", "permute_rows",
};

/* Largest power-law exponent: (i + 1)^-16 stays a normal double for every 64-bit row index. */
#define MAX_EXPONENT 16.0

/* The 'distribution' name (aliases included) -> density kind. */
static int parse_kind(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      enum spec_density_kind *kind)
{
	const char *names[ARRAY_SIZE(dist_names)];
	size_t i;
	int k;

	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(dist_names); i++)
		names[i] = dist_names[i].name;
	k = ld_lookup_keyword(ld, n, p, "distribution", n->str, names, ARRAY_SIZE(names));
	if (k < 0)
		return -1;
	*kind = dist_names[k].kind;
	return 0;
}

/* Density of a band of half-width 'w' in an n x n matrix. */
static double banded_density(uint64_t n, uint64_t w)
{
	double nz = (double)n;
	uint64_t u;
	if (w > n - 1)
		w = n - 1;
	for (u = 1; u <= w; u++)
		nz += 2.0 * (double)(n - u);
	return nz / ((double)n * (double)n);
}

/* banded: a square 2-rank data space; the density follows from the band. */
static int finish_banded(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 const struct spec_tensor *t, struct spec_density *d)
{
	const uint64_t *ext = t->rank_extent;

	if (t->n_ranks != 2)
		return ld_error(ld, n, p, "a banded density needs a 2-rank data space; '%s' has %u",
				t->name, t->n_ranks);
	if (ext[0] != ext[1])
		return ld_error(ld, n, p, "a banded density needs a square data space; '%s' is "
				"%llu x %llu", t->name, (unsigned long long)ext[0],
				(unsigned long long)ext[1]);
	d->density = banded_density(ext[0], d->band_width);
	return 0;
}

/*
 * The rank of 't' that 'dimension' (node 'dn', NULL: absent) names into
 * '*dim': a dimension that indexes 't'; absent: the first dimension of
 * rank 'default_rank'.
 */
static int rank_dimension(struct ld *ld, const struct ysrc_node *dn, const struct kpath *kd,
			  const struct spec_tensor *t, unsigned default_rank, unsigned *dim)
{
	int k;

	if (!dn) {
		*dim = t->ranks[default_rank].terms[0].dim;
		return 0;
	}
	if (ld_want_scalar(ld, dn, kd) < 0 || (k = ld_dim_index(ld, dn, kd, dn->str)) < 0)
		return -1;
	if (!(t->dim_mask & (1u << k)))
		return ld_error(ld, dn, kd, "dimension '%s' does not index data space '%s'",
				dn->str, t->name);
	*dim = (unsigned)k;
	return 0;
}

/* structured_nm: n of every m along 'dimension' (default: the innermost rank's). */
static int finish_nm(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     const struct spec_tensor *t, struct spec_density *d)
{
	const struct ysrc_node *dn = ld_get(n, "dimension"), *nn = ld_get(n, "n");
	const struct ysrc_node *mn = ld_get(n, "m");
	struct kpath kn = KP_KEY(p, "n"), km = KP_KEY(p, "m"), kd = KP_KEY(p, "dimension");
	uint64_t vn, vm;

	if (!nn || !mn)
		return ld_error(ld, n, p, "a structured_nm density needs 'n' and 'm'");
	if (ld_uint(ld, nn, &kn, 0, 1u << 20, &vn) < 0 || ld_uint(ld, mn, &km, 1, 1u << 20, &vm) < 0)
		return -1;
	if (vn > vm)
		return ld_error(ld, nn, &kn, "'n' (%llu) must not exceed 'm' (%llu)",
				(unsigned long long)vn, (unsigned long long)vm);
	d->nm_n = (unsigned)vn;
	d->nm_m = (unsigned)vm;
	if (rank_dimension(ld, dn, &kd, t, t->n_ranks - 1, &d->nm_dim) < 0)
		return -1;
	d->density = (double)vn / (double)vm;
	return 0;
}

/* The 'density' every remaining distribution needs, in [0, 1]. */
static int need_density(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_density *d)
{
	const struct ysrc_node *dn = ld_get(n, "density");
	struct kpath kden = KP_KEY(p, "density");

	if (!dn)
		return ld_error(ld, n, p, "distribution '%s' needs a 'density'",
				spec_density_kind_name(d->kind));
	return ld_double(ld, dn, &kden, 0.0, 1.0, &d->density);
}

/*
 * block_structured: 'block_shape' gives one extent (>= 1) per rank of data
 * space 't'; 'density' is the fraction of blocks that are non-zero.
 */
static int finish_block(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			const struct spec_tensor *t, struct spec_density *d)
{
	const struct ysrc_node *bn = ld_get(n, "block_shape");
	struct kpath kb = KP_KEY(p, "block_shape");
	int rc = need_density(ld, n, p, d);
	size_t i;

	if (!bn)
		return ld_error(ld, n, p, "a block_structured density needs a 'block_shape'");
	if (ld_want_seq(ld, bn, &kb) < 0)
		return -1;
	if (bn->n != t->n_ranks)
		return ld_error(ld, bn, &kb, "'block_shape' has %zu extents but data space '%s' "
				"has %u ranks", bn->n, t->name, t->n_ranks);
	for (i = 0; i < bn->n; i++) {
		struct kpath ki = KP_IDX(&kb, i);
		if (ld_uint(ld, bn->items[i], &ki, 1, UINT64_MAX, &d->block_shape[i]) < 0)
			rc = -1;
	}
	return rc;
}

/*
 * power_law: 'density', 'exponent' in [0, 16], the rows' rank named by
 * 'dimension' (default: the outermost rank), 'permute_rows' (default false).
 */
static int finish_power_law(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			    const struct spec_tensor *t, struct spec_density *d)
{
	const struct ysrc_node *en = ld_get(n, "exponent"), *pn = ld_get(n, "permute_rows");
	struct kpath ke = KP_KEY(p, "exponent"), kp = KP_KEY(p, "permute_rows");
	struct kpath kd = KP_KEY(p, "dimension");
	int rc = need_density(ld, n, p, d);

	if (!en)
		rc = ld_error(ld, n, p, "a power_law density needs an 'exponent'");
	else if (ld_double(ld, en, &ke, 0.0, MAX_EXPONENT, &d->exponent) < 0)
		rc = -1;
	if (pn && ld_bool(ld, pn, &kp, &d->permute_rows) < 0)
		rc = -1;
	if (rank_dimension(ld, ld_get(n, "dimension"), &kd, t, 0, &d->row_dim) < 0)
		rc = -1;
	return rc;
}

/* Directory part of 'path' (with the trailing '/'), or "" for a bare name. */
static char *dir_of(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? arena_strndup(a, path, (size_t)(slash - path + 1)) : arena_strdup(a, "");
}

/*
 * Move the diagnostics of 'tmp' (about a tensor file) to the loader's list:
 * those located in the file stay there, with a note at 'at' (the YAML key
 * or the option that names the file); one without a line (the file cannot
 * be read) is reported at 'at' with the key path 'p'. Returns -1 when
 * 'tmp' has errors.
 */
static int relay_file_diags(struct ld *ld, struct diag_list *tmp, struct diag_loc at,
			    const struct kpath *p)
{
	bool errors = diag_has_errors(tmp), in_file = false;
	size_t i;

	for (i = 0; i <= tmp->n; i++) {
		const struct diag *dg = i < tmp->n ? &tmp->items[i] : NULL;
		if (in_file && (!dg || dg->severity != DIAG_NOTE))
			ld_note(ld, at, "the tensor file is named here");
		if (!dg)
			break;
		if (dg->severity != DIAG_NOTE)
			in_file = dg->loc.line != 0;
		if (!dg->loc.line && dg->severity == DIAG_ERROR)
			ld_error_at(ld, at, p, "%s", dg->message);
		else
			diag_copy(ld->dl, dg, dg->loc);
	}
	diag_list_release(tmp);
	return errors ? -1 : 0;
}

/*
 * Load the matrix 'file'. Problems found in the matrix file are reported at
 * the file's own locations (the name interned, so that they outlive the
 * arena) with a note at 'at' (the YAML key, or the option).
 */
static const struct spec_matrix *load_matrix(struct ld *ld, const char *file, struct diag_loc at,
					     const struct kpath *p)
{
	struct diag_list tmp = DIAG_LIST_INIT;
	const struct spec_matrix *m = spec_matrix_load(ld->a, ld_intern(ld, file), &tmp);

	return relay_file_diags(ld, &tmp, at, p) < 0 ? NULL : m;
}

/* Check that matrix 'm' has the shape of tensor 't' and set the density. */
static int attach_matrix(struct ld *ld, struct diag_loc at, const struct kpath *p,
			 const struct spec_tensor *t, const struct spec_matrix *m,
			 struct spec_density *d)
{
	struct diag_list tmp = DIAG_LIST_INIT;

	spec_matrix_check_shape(m, ld_intern(ld, m->file), t, &tmp);
	if (relay_file_diags(ld, &tmp, at, p) < 0)
		return -1;
	d->kind = SPEC_DENSITY_ACTUAL;
	d->data = m;
	d->density = t->size ? (double)m->nnz / (double)t->size : 0.0;
	return 0;
}

/*
 * actual_data: 'file' is read relative to the YAML file that names it (to
 * the current directory when an override names it, as for --tensor).
 */
static int finish_actual(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 const struct spec_tensor *t, struct spec_density *d)
{
	const struct ysrc_node *fn = ld_get(n, "file");
	struct kpath fp = KP_KEY(p, "file");
	const struct spec_matrix *m;
	const char *file;

	if (!fn)
		return ld_error(ld, n, p, "an actual_data density needs a 'file'");
	if (ld_want_scalar(ld, fn, &fp) < 0)
		return -1;
	if (ld_get(n, "density"))
		return ld_error(ld, ld_get(n, "density"), p,
				"the density of actual data comes from its file; remove 'density'");
	file = fn->str[0] == '/' || ld_from_override(ld, fn->loc) ? arena_strdup(ld->a, fn->str)
		: arena_printf(ld->a, "%s%s", dir_of(ld->a, fn->loc.file), fn->str);
	m = load_matrix(ld, file, fn->loc, &fp);
	return m ? attach_matrix(ld, fn->loc, &fp, t, m, d) : -1;
}

/* Keys that only one distribution understands. */
static int check_kind_keys(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			   enum spec_density_kind kind)
{
	static const char *const nm_only[] = { "n", "m" };
	static const char *const pl_only[] = { "exponent", "permute_rows" };
	size_t i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(nm_only); i++)
		if (kind != SPEC_DENSITY_NM && ysrc_map_get(n, nm_only[i]))
			rc = ld_error(ld, ysrc_map_pair(n, nm_only[i])->key, p,
				      "'%s' applies only to distribution 'structured_nm'",
				      nm_only[i]);
	if (kind != SPEC_DENSITY_NM && kind != SPEC_DENSITY_POWER_LAW && ysrc_map_get(n, "dimension"))
		rc = ld_error(ld, ysrc_map_pair(n, "dimension")->key, p, "'dimension' applies only "
			      "to distributions 'structured_nm' and 'power_law'");
	for (i = 0; i < ARRAY_SIZE(pl_only); i++)
		if (kind != SPEC_DENSITY_POWER_LAW && ysrc_map_get(n, pl_only[i]))
			rc = ld_error(ld, ysrc_map_pair(n, pl_only[i])->key, p,
				      "'%s' applies only to distribution 'power_law'", pl_only[i]);
	if (kind != SPEC_DENSITY_BLOCK && ysrc_map_get(n, "block_shape"))
		rc = ld_error(ld, ysrc_map_pair(n, "block_shape")->key, p,
			      "'block_shape' applies only to distribution 'block_structured'");
	if (kind != SPEC_DENSITY_ACTUAL && ysrc_map_get(n, "file"))
		rc = ld_error(ld, ysrc_map_pair(n, "file")->key, p,
			      "'file' applies only to distribution 'actual_data'");
	return rc;
}

static int parse_density_values(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
				const struct spec_tensor *t, struct spec_density *d);

/* A density map; unknown keys are reported and the rest is still checked. */
static int parse_density_map(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			     const struct spec_tensor *t, struct spec_density *d)
{
	if (ld_check_keys(ld, n, p, density_keys, ARRAY_SIZE(density_keys))) {
		parse_density_values(ld, n, p, t, d);   /* still report what else is wrong */
		return -1;
	}
	return parse_density_values(ld, n, p, t, d);
}

/* The keys of a density map, once they are known to be valid names. */
static int parse_density_values(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
				const struct spec_tensor *t, struct spec_density *d)
{
	const struct ysrc_node *dist = ld_get(n, "distribution"), *dn = ld_get(n, "density");
	const struct ysrc_node *ws = ld_get(n, "workload_tensor_size"), *bw = ld_get(n, "band_width");
	struct kpath kdist = KP_KEY(p, "distribution"), kden = KP_KEY(p, "density");
	struct kpath kws = KP_KEY(p, "workload_tensor_size"), kbw = KP_KEY(p, "band_width");

	d->kind = SPEC_DENSITY_FIXED_STRUCTURED;
	if (dist && parse_kind(ld, dist, &kdist, &d->kind) < 0)
		return -1;
	if (check_kind_keys(ld, n, p, d->kind) < 0)
		return -1;
	if (ws && ld_uint(ld, ws, &kws, 0, UINT64_MAX, &d->workload_tensor_size) < 0)
		return -1;
	if (bw && ld_uint(ld, bw, &kbw, 0, UINT64_MAX, &d->band_width) < 0)
		return -1;
	switch (d->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
	case SPEC_DENSITY_HYPERGEOMETRIC:
		if (!dn)
			return ld_error(ld, n, p, "distribution '%s' needs a 'density'",
					spec_density_kind_name(d->kind));
		return ld_double(ld, dn, &kden, 0.0, 1.0, &d->density);
	case SPEC_DENSITY_BANDED:
		return finish_banded(ld, n, p, t, d);
	case SPEC_DENSITY_NM:
		if (finish_nm(ld, n, p, t, d) < 0)
			return -1;
		if (dn) {
			double v;
			if (ld_double(ld, dn, &kden, 0.0, 1.0, &v) < 0)
				return -1;
			if (v < d->density - 1e-9 || v > d->density + 1e-9)
				return ld_error(ld, dn, &kden, "density %s contradicts n/m = %u/%u",
						dn->str, d->nm_n, d->nm_m);
		}
		return 0;
	case SPEC_DENSITY_ACTUAL:
		return finish_actual(ld, n, p, t, d);
	case SPEC_DENSITY_BLOCK:
		return finish_block(ld, n, p, t, d);
	case SPEC_DENSITY_POWER_LAW:
		return finish_power_law(ld, n, p, t, d);
	default:
		BUG("density kind %d", (int)d->kind);
	}
}

/* Parse the density 'n' (a number or a map) of tensor 't' into 'd'. */
static int parse_density(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 const struct spec_tensor *t, struct spec_density *d)
{
	struct spec_density nd;

	memset(&nd, 0, sizeof(nd));
	nd.loc = n->loc;
	if (n->kind == YSRC_SCALAR) {
		nd.kind = SPEC_DENSITY_FIXED_STRUCTURED;
		if (ld_double(ld, n, p, 0.0, 1.0, &nd.density) < 0)
			return -1;
	} else {
		if (ld_want_map(ld, n, p) < 0 || parse_density_map(ld, n, p, t, &nd) < 0)
			return -1;
	}
	*d = nd;
	return 0;
}

/* commonDensity: the same density for every data space. */
static int parse_common(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_tensor *ts = (struct spec_tensor *)w->tensors;
	unsigned t;
	int rc = 0;
	for (t = 0; t < w->n_tensors; t++)
		if (parse_density(ld, n, p, &ts[t], &ts[t].density) < 0)
			rc = -1;
	return rc;
}

/* densities: {data space: density}. */
static int parse_per_tensor(struct ld *ld, const struct ysrc_node *n, const struct kpath *p)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_tensor *ts = (struct spec_tensor *)w->tensors;
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	for (i = 0; i < n->n; i++) {
		const struct ysrc_pair *pr = &n->pairs[i];
		struct kpath tp = KP_KEY(p, pr->key->str);
		int t = ld_tensor_index(ld, pr->key, p, pr->key->str);
		if (t < 0 || parse_density(ld, pr->value, &tp, &ts[t], &ts[t].density) < 0)
			rc = -1;
	}
	return rc;
}

/*
 * The "NAME=FILE" options: actual data for tensor NAME. An option's errors
 * are located in the option itself, "--tensor 'NAME=FILE':1:COL" (as
 * --set's are), and those of its file in the file.
 */
static int apply_tensor_files(struct ld *ld)
{
	const struct spec_load_options *opt = ld->opt;
	struct spec_workload *w = &ld->s->workload;
	size_t i;
	int rc = 0;

	for (i = 0; opt && i < opt->n_tensor_files; i++) {
		const char *arg = opt->tensor_files[i], *eq = strchr(arg, '=');
		const char *origin = ld_intern(ld, arena_printf(ld->a, "--tensor '%s'", arg));
		struct diag_loc name_at = { origin, 1, 1 };
		struct diag_loc file_at = { origin, 1, eq ? (unsigned)(eq - arg) + 2 : 1 };
		char *name;
		int t;
		const struct spec_matrix *m;
		if (!eq || eq == arg || !eq[1]) {
			rc = ld_error_at(ld, eq && eq != arg ? file_at : name_at, NULL,
					 "a tensor file is given as NAME=FILE");
			continue;
		}
		name = arena_strndup(ld->a, arg, (size_t)(eq - arg));
		t = ld_tensor_index(ld, ysrc_scalar_new(ld->a, name, name_at), NULL, name);
		if (t < 0) {
			rc = -1;
			continue;
		}
		m = load_matrix(ld, eq + 1, file_at, NULL);
		if (!m || attach_matrix(ld, file_at, NULL, &w->tensors[t], m,
					(struct spec_density *)&w->tensors[t].density) < 0) {
			rc = -1;
			continue;
		}
		((struct spec_tensor *)w->tensors)[t].density.is_default = false;
	}
	return rc;
}

/* Is 'd' dense: every value non-zero (a fixed 1.0, the default, or a full matrix)? */
static bool density_is_dense(const struct spec_density *d, const struct spec_tensor *t)
{
	if (d->is_default)
		return true;
	if (d->kind == SPEC_DENSITY_ACTUAL)
		return d->data && d->data->nnz == t->size;
	return d->kind == SPEC_DENSITY_FIXED_STRUCTURED && d->density == 1.0;
}

/* Read a decimal number of at most 7 digits at '*s' into '*v', advancing '*s'; -1 when none. */
static int read_small_uint(const char **s, uint64_t *v)
{
	unsigned n = 0;

	*v = 0;
	while (**s >= '0' && **s <= '9' && n < 8) {
		*v = *v * 10 + (uint64_t)(**s - '0');
		(*s)++;
		n++;
	}
	return n && n < 8 ? 0 : -1;
}

/* Column 'c' of the --prune option 'origin' (its text "NAME=N:M[:DIM]"). */
static struct diag_loc prune_at(const char *origin, const char *arg, const char *c)
{
	return (struct diag_loc){ origin, 1, (unsigned)(c - arg) + 1 };
}

/*
 * Parse "N:M" or "N:M:DIM" (after "NAME=") of a --prune into 'd'; -1 after
 * an error, located in the option 'origin' at the part at fault.
 */
static int parse_prune_spec(struct ld *ld, const char *origin, const char *arg, const char *spec,
			    const struct spec_tensor *t, struct spec_density *d)
{
	const char *c = spec, *dim = NULL;
	uint64_t n, m;
	int k;

	if (read_small_uint(&c, &n) < 0 || *c++ != ':' || read_small_uint(&c, &m) < 0 ||
	    (*c && (*c != ':' || !c[1])))
		return ld_error_at(ld, prune_at(origin, arg, spec), NULL, "a pruning is given as "
				   "NAME=N:M or NAME=N:M:DIM, got '%s'", arg);
	if (*c)
		dim = c + 1;
	if (!m || n > m || m > (1u << 20))
		return ld_error_at(ld, prune_at(origin, arg, spec), NULL, "N:M needs "
				   "1 <= M <= %u and N <= M", 1u << 20);
	d->nm_n = (unsigned)n;
	d->nm_m = (unsigned)m;
	d->nm_dim = t->ranks[t->n_ranks - 1].terms[0].dim;
	if (!dim)
		return 0;
	if ((k = ld_dim_index(ld, ysrc_scalar_new(ld->a, dim, prune_at(origin, arg, dim)), NULL,
			      dim)) < 0)
		return -1;
	if (!(t->dim_mask & (1u << k)))
		return ld_error_at(ld, prune_at(origin, arg, dim), NULL, "dimension '%s' does "
				   "not index data space '%s'", dim, t->name);
	d->nm_dim = (unsigned)k;
	return 0;
}

/*
 * The "NAME=N:M[:DIM]" options (--prune): dense tensor NAME, pruned to N:M
 * by magnitude along DIM, has the structured_nm density; the dense one it
 * comes from is kept as its prune_source (the executor prunes its values).
 * An option's errors are located in it, "--prune 'NAME=N:M':1:COL" (as
 * --tensor's are).
 */
static int apply_prunes(struct ld *ld)
{
	const struct spec_load_options *opt = ld->opt;
	struct spec_tensor *ts = (struct spec_tensor *)ld->s->workload.tensors;
	size_t i;
	int rc = 0;

	for (i = 0; opt && i < opt->n_prunes; i++) {
		const char *arg = opt->prunes[i], *eq = strchr(arg, '=');
		const char *origin = ld_intern(ld, arena_printf(ld->a, "--prune '%s'", arg));
		struct diag_loc name_at = { origin, 1, 1 };
		struct spec_density nd, *src;
		char *name;
		int t;
		if (!eq || eq == arg || !eq[1]) {
			rc = ld_error_at(ld, eq && eq != arg ? prune_at(origin, arg, eq + 1) : name_at,
					 NULL, "a pruning is given as NAME=N:M or NAME=N:M:DIM, got "
					 "'%s'", arg);
			continue;
		}
		name = arena_strndup(ld->a, arg, (size_t)(eq - arg));
		t = ld_tensor_index(ld, ysrc_scalar_new(ld->a, name, name_at), NULL, name);
		if (t < 0) {
			rc = -1;
			continue;
		}
		if (ts[t].prune_source) {
			rc = ld_error_at(ld, name_at, NULL, "'%s' is pruned twice", ts[t].name);
			continue;
		}
		if (ts[t].read_write || !density_is_dense(&ts[t].density, &ts[t])) {
			rc = ld_error_at(ld, name_at, NULL, "'%s' must be a dense input (an operand "
					 "that is not written, with density 1.0 or a matrix without "
					 "zeros)", ts[t].name);
			continue;
		}
		memset(&nd, 0, sizeof(nd));
		nd.kind = SPEC_DENSITY_NM;
		nd.loc = ts[t].density.loc;
		if (parse_prune_spec(ld, origin, arg, eq + 1, &ts[t], &nd) < 0) {
			rc = -1;
			continue;
		}
		nd.density = (double)nd.nm_n / (double)nd.nm_m;
		src = arena_calloc(ld->a, 1, sizeof(*src));
		*src = ts[t].density;
		ts[t].prune_source = src;
		ts[t].density = nd;
	}
	return rc;
}

int spec_densities_load(struct ld *ld, const struct ysrc_node *inst, const struct kpath *p)
{
	const struct ysrc_pair *common = ysrc_map_pair(inst, "commonDensity");
	const struct ysrc_node *per = ld_get(inst, "densities");
	struct kpath cp = KP_KEY(p, "commonDensity"), dp = KP_KEY(p, "densities");
	int rc = 0;

	if (common && !ysrc_is_null(common->value) && parse_common(ld, common->value, &cp) < 0)
		rc = -1;
	if (per && parse_per_tensor(ld, per, &dp) < 0)
		rc = -1;
	if (apply_tensor_files(ld) < 0)
		rc = -1;
	if (rc == 0 && apply_prunes(ld) < 0)
		rc = -1;
	return rc;
}

int spec_density_parse_matrix(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			      const char *name, uint64_t rows, uint64_t cols,
			      struct spec_density *d)
{
	struct spec_tensor t;
	int rc;

	memset(&t, 0, sizeof(t));
	t.name = name;
	t.loc = n->loc;
	t.n_ranks = 2;
	t.rank_extent[0] = rows;
	t.rank_extent[1] = cols;
	t.size = rows * cols;
	rc = parse_density(ld, n, p, &t, d);
	if (rc == 0 && d->kind == SPEC_DENSITY_NM)
		rc = ld_error(ld, n, p, "distribution 'structured_nm' needs a problem dimension; "
			      "it is not available for '%s'", name);
	return rc;
}

const struct spec_matrix *spec_matrix_load_at(struct ld *ld, const char *file, struct diag_loc at,
					      const struct kpath *p)
{
	return load_matrix(ld, file, at, p);
}

int spec_density_parse(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, unsigned t)
{
	struct spec_tensor *ts = (struct spec_tensor *)ld->s->workload.tensors;
	return parse_density(ld, n, p, &ts[t], &ts[t].density);
}

int spec_density_apply_files(struct ld *ld)
{
	return apply_tensor_files(ld);
}
