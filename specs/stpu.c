/*
 * The 'stpu' top-level key: a Sparse-TPU design (docs/stpu.md).
 *
 *   stpu:
 *     array:   {rows: 128, cols: 128, dtype: fp32, index_bits: 0}
 *     packing: {max_collision_row: 1, max_collision_group: [15, 4],
 *               kmz: {max_columns: 8, max_conflict_fraction: 0},
 *               scheme: C1}     # the scheme a job's row reports: none, C0, C1, KMZ
 *     energy:  {preset: horowitz45, <entry>: <pJ>, ...}
 *     matrix:  {rows: 1000, cols: 1000, density: 0.01, seed: 1}   # or {file: m.mtx}
 *
 * Defaults are the seed's (MAX_COLLISION_ROW = 1, N_ITER = 2, group
 * collision limits 15 then 4; a 128 x 128 floating-point array as TPU v3).
 */
#include "specs/specs_int.h"

#include <math.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const dtype_names[SPEC_STPU_DTYPE_COUNT] = {
	[SPEC_STPU_INT8] = "int8",
	[SPEC_STPU_FP32] = "fp32",
};

static const char *const scheme_names[SPEC_STPU_SCHEME_COUNT] = {
	[SPEC_STPU_NONE] = "none",
	[SPEC_STPU_C0] = "C0",
	[SPEC_STPU_C1] = "C1",
	[SPEC_STPU_KMZ] = "KMZ",
};

static const char *const energy_names[SPEC_STPU_E_COUNT] = {
	[SPEC_STPU_E_MAC] = "mac_pj",
	[SPEC_STPU_E_REGISTER_BIT] = "register_pj_per_bit",
	[SPEC_STPU_E_COMPARE_BIT] = "compare_pj_per_bit",
	[SPEC_STPU_E_SRAM_BIT] = "sram_pj_per_bit",
	[SPEC_STPU_E_WEIGHT_BUFFER_BIT] = "weight_buffer_pj_per_bit",
	[SPEC_STPU_E_VECTOR_BUFFER_BIT] = "vector_buffer_pj_per_bit",
	[SPEC_STPU_E_OUTPUT_BUFFER_BIT] = "output_buffer_pj_per_bit",
	[SPEC_STPU_E_HOLD] = "hold_pj",
	[SPEC_STPU_E_LATCH] = "latch_pj",
	[SPEC_STPU_E_ACCUMULATE] = "accumulate_pj",
	[SPEC_STPU_E_BYPASS] = "bypass_pj",
	[SPEC_STPU_E_X_FORWARD] = "x_forward_pj",
	[SPEC_STPU_E_TPU_MAC] = "tpu_mac_pj",
	[SPEC_STPU_E_TPU_X_FORWARD] = "tpu_x_forward_pj",
};

/* Energy presets known to the STPU model (accel/ holds their numbers). */
static const char *const preset_names[] = { "horowitz45" };

const char *spec_stpu_dtype_name(enum spec_stpu_dtype d)
{
	return (unsigned)d < SPEC_STPU_DTYPE_COUNT ? dtype_names[d] : "?";
}

const char *spec_stpu_scheme_name(enum spec_stpu_scheme k)
{
	return (unsigned)k < SPEC_STPU_SCHEME_COUNT ? scheme_names[k] : "?";
}

const char *spec_stpu_energy_key_name(enum spec_stpu_energy_key k)
{
	return (unsigned)k < SPEC_STPU_E_COUNT ? energy_names[k] : "?";
}

/* An optional unsigned 'key' of 'map' in [lo, hi] into '*out'. */
static int opt_uint(struct ld *ld, const struct ysrc_node *map, const struct kpath *p,
		    const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const struct ysrc_node *n = ld_get(map, key);
	struct kpath kp = KP_KEY(p, key);

	return n ? ld_uint(ld, n, &kp, lo, hi, out) : 0;
}

/* array: {rows, cols, dtype, index_bits}. */
static int parse_array(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       struct spec_stpu *st)
{
	static const char *const keys[] = { "rows", "cols", "dtype", "index_bits" };
	const struct ysrc_node *dt = ld_get(n, "dtype");
	struct kpath kd = KP_KEY(p, "dtype");
	uint64_t rows = st->array_rows, cols = st->array_cols, ib = 0;
	int rc = 0, k;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if (opt_uint(ld, n, p, "rows", 1, 4096, &rows) < 0 ||
	    opt_uint(ld, n, p, "cols", 1, 4096, &cols) < 0 ||
	    opt_uint(ld, n, p, "index_bits", 0, 32, &ib) < 0)
		rc = -1;
	if (dt) {
		for (k = 0; k < SPEC_STPU_DTYPE_COUNT; k++)
			if (dt->kind == YSRC_SCALAR && !strcmp(dt->str, dtype_names[k]))
				break;
		if (ld_want_scalar(ld, dt, &kd) < 0)
			rc = -1;
		else if (k == SPEC_STPU_DTYPE_COUNT)
			rc = ld_error(ld, dt, &kd, "unknown dtype '%s' (int8 or fp32)", dt->str);
		else
			st->dtype = (enum spec_stpu_dtype)k;
	}
	st->array_rows = (unsigned)rows;
	st->array_cols = (unsigned)cols;
	st->index_bits = (unsigned)ib;
	return rc;
}

/* max_collision_group: one limit per iteration (the list's length is N_ITER). */
static int parse_group_limits(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			      struct spec_stpu *st)
{
	size_t i;
	int rc = 0;

	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	if (n->n < 1 || n->n > SPEC_STPU_MAX_ITER)
		return ld_error(ld, n, p, "expected 1 to %d limits (one per iteration), got %zu",
				SPEC_STPU_MAX_ITER, n->n);
	for (i = 0; i < n->n; i++) {
		struct kpath kp = KP_IDX(p, i);
		uint64_t v;
		if (ld_uint(ld, n->items[i], &kp, 0, 1000000, &v) < 0) {
			rc = -1;
			continue;
		}
		st->max_collision_group[i] = (unsigned)v;
	}
	if (rc == 0)
		st->n_iter = (unsigned)n->n;
	return rc;
}

/* kmz: {max_columns, max_conflict_fraction}. */
static int parse_kmz(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		     struct spec_stpu *st)
{
	static const char *const keys[] = { "max_columns", "max_conflict_fraction" };
	const struct ysrc_node *fr = ld_get(n, "max_conflict_fraction");
	struct kpath kf = KP_KEY(p, "max_conflict_fraction");
	uint64_t a = st->kmz_max_columns;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if (opt_uint(ld, n, p, "max_columns", 1, 1024, &a) < 0)
		rc = -1;
	if (fr && ld_double(ld, fr, &kf, 0.0, 1.0, &st->kmz_max_conflict_fraction) < 0)
		rc = -1;
	st->kmz_max_columns = (unsigned)a;
	return rc;
}

/* packing: {max_collision_row, max_collision_group, kmz}. */
static int parse_packing(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct spec_stpu *st)
{
	static const char *const keys[] = { "max_collision_row", "max_collision_group", "kmz",
					    "scheme" };
	const struct ysrc_node *g = ld_get(n, "max_collision_group"), *k = ld_get(n, "kmz");
	const struct ysrc_node *sc = ld_get(n, "scheme");
	struct kpath kg = KP_KEY(p, "max_collision_group"), kk = KP_KEY(p, "kmz");
	struct kpath ks = KP_KEY(p, "scheme");
	uint64_t row = st->max_collision_row;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if (opt_uint(ld, n, p, "max_collision_row", 0, 4096, &row) < 0)
		rc = -1;
	st->max_collision_row = (unsigned)row;
	if (g && parse_group_limits(ld, g, &kg, st) < 0)
		rc = -1;
	if (k && parse_kmz(ld, k, &kk, st) < 0)
		rc = -1;
	if (sc && ld_want_scalar(ld, sc, &ks) == 0) {
		int c = ld_lookup(ld, sc, &ks, "scheme", sc->str, scheme_names,
				  SPEC_STPU_SCHEME_COUNT);
		if (c < 0)
			rc = -1;
		st->scheme = c < 0 ? SPEC_STPU_C1 : (enum spec_stpu_scheme)c;
		st->has_scheme = c >= 0;
	} else if (sc) {
		rc = -1;
	}
	return rc;
}

/* energy: {preset, <entry>: <pJ>...}; every entry is a number >= 0. */
static int parse_energy(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_stpu *st)
{
	const char *keys[SPEC_STPU_E_COUNT + 1];
	const struct ysrc_node *pr = ld_get(n, "preset");
	struct kpath kpr = KP_KEY(p, "preset");
	unsigned e;
	int rc = 0, k;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	keys[0] = "preset";
	for (e = 0; e < SPEC_STPU_E_COUNT; e++)
		keys[e + 1] = energy_names[e];
	if (ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if (pr) {
		if (ld_want_scalar(ld, pr, &kpr) < 0)
			rc = -1;
		else if ((k = ld_lookup(ld, pr, &kpr, "STPU energy preset", pr->str, preset_names,
					ARRAY_SIZE(preset_names))) < 0)
			rc = -1;
		else
			st->energy_preset = preset_names[k];
	}
	for (e = 0; e < SPEC_STPU_E_COUNT; e++) {
		const struct ysrc_node *v = ld_get(n, energy_names[e]);
		struct kpath kv = KP_KEY(p, energy_names[e]);
		if (!v)
			continue;
		if (ld_double(ld, v, &kv, 0.0, 1e12, &st->energy_pj[e]) < 0)
			rc = -1;
		else
			st->has_energy[e] = true;
	}
	return rc;
}

/* Non-zeros of the band |row - col| <= w of a rows x cols matrix (what the model generates). */
static uint64_t band_nonzeros(uint64_t rows, uint64_t cols, uint64_t w)
{
	uint64_t c, n = 0;

	for (c = 0; c < cols && (c <= w || c - w < rows); c++) {
		uint64_t lo = c > w ? c - w : 0, hi = c + w < rows - 1 ? c + w : rows - 1;
		n += hi - lo + 1;
	}
	return n;
}

/*
 * The matrix the model would generate from the density at 'n' must be one
 * it can generate (SPEC_STPU_MAX_*): the same counts as accel/stpu_pattern.c.
 */
static int check_generable(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			   const struct spec_stpu *st)
{
	const struct spec_density *d = &st->matrix;
	uint64_t rows = st->matrix_rows, cols = st->matrix_cols, positions = rows * cols, nnz;
	double want = d->density * (double)rows * (double)cols;

	switch (d->kind) {
	case SPEC_DENSITY_FIXED_STRUCTURED:
	case SPEC_DENSITY_HYPERGEOMETRIC:
		nnz = ceil(want) < (double)positions ? (uint64_t)ceil(want) : positions;
		if (positions <= SPEC_STPU_MAX_POSITIONS || nnz <= SPEC_STPU_MAX_SORTED_NONZEROS)
			return 0;
		return ld_error(ld, n, p, "a %llu x %llu matrix with %llu non-zeros is more than "
				"the model generates (at most 2^32 positions, or 2^27 non-zeros)",
				(unsigned long long)rows, (unsigned long long)cols,
				(unsigned long long)nnz);
	case SPEC_DENSITY_POWER_LAW:
		if (llround(want) <= (long long)SPEC_STPU_MAX_SORTED_NONZEROS)
			return 0;
		return ld_error(ld, n, p, "a power-law matrix with %.0f non-zeros is more than the "
				"model generates (at most 2^27)", round(want));
	case SPEC_DENSITY_BLOCK: {
		uint64_t br = d->block_shape[0], bc = d->block_shape[1];
		double blocks = ceil((double)rows / (double)br) * ceil((double)cols / (double)bc);
		if (blocks <= (double)SPEC_STPU_MAX_POSITIONS &&
		    round(d->density * blocks) * (double)br * (double)bc <=
		    (double)SPEC_STPU_MAX_NONZEROS)
			return 0;
		return ld_error(ld, n, p, "a %llu x %llu matrix of %.0f blocks of %llu x %llu is more "
				"than the model generates (at most 2^32 blocks and 2^32 non-zeros)",
				(unsigned long long)rows, (unsigned long long)cols, blocks,
				(unsigned long long)br, (unsigned long long)bc);
	}
	case SPEC_DENSITY_BANDED:
		nnz = band_nonzeros(rows, cols, d->band_width);
		if (nnz <= SPEC_STPU_MAX_NONZEROS)
			return 0;
		return ld_error(ld, n, p, "a %llu x %llu band of half-width %llu holds %llu non-zeros, "
				"more than the model generates (at most 2^32)",
				(unsigned long long)rows, (unsigned long long)cols,
				(unsigned long long)d->band_width, (unsigned long long)nnz);
	default:
		return 0;
	}
}

/* matrix: {file} or {rows, cols, density, seed}; rows/cols must match a file. */
static int parse_matrix(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_stpu *st)
{
	static const char *const keys[] = { "rows", "cols", "density", "file", "seed" };
	const struct ysrc_node *fn = ld_get(n, "file"), *dn = ld_get(n, "density");
	const struct ysrc_node *rn = ld_get(n, "rows"), *cn = ld_get(n, "cols");
	struct kpath kf = KP_KEY(p, "file"), kd = KP_KEY(p, "density");
	uint64_t rows = 0, cols = 0;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if (!fn && (!rn || !cn || !dn))
		return ld_error(ld, n, p, "a matrix needs 'rows', 'cols' and 'density', or a 'file'");
	if (opt_uint(ld, n, p, "rows", 1, 10000000, &rows) < 0 ||
	    opt_uint(ld, n, p, "cols", 1, 10000000, &cols) < 0 ||
	    opt_uint(ld, n, p, "seed", 0, UINT64_MAX, &st->seed) < 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (fn && dn)
		return ld_error(ld, dn, p, "give either 'file' or 'density', not both");
	if (fn) {
		const struct spec_matrix *m;
		const char *file;
		if (ld_want_scalar(ld, fn, &kf) < 0)
			return -1;
		/* beside the YAML file that names it; as given from --set */
		file = fn->str[0] == '/' || ld_from_override(ld, fn->loc) ||
				       !strrchr(fn->loc.file, '/')
			       ? arena_strdup(ld->a, fn->str)
			       : arena_printf(ld->a, "%.*s%s",
					      (int)(strrchr(fn->loc.file, '/') - fn->loc.file + 1),
					      fn->loc.file, fn->str);
		m = spec_matrix_load_at(ld, file, fn->loc, &kf);
		if (!m)
			return -1;
		if (m->n_ranks != 2)
			return ld_error(ld, fn, &kf, "'%s' has %u ranks; an STPU matrix has 2",
					file, m->n_ranks);
		if ((rn && rows != m->shape[0]) || (cn && cols != m->shape[1]))
			return ld_error(ld, rn && rows != m->shape[0] ? rn : cn, p,
					"'%s' is %llu x %llu but rows x cols is %llu x %llu", file,
					(unsigned long long)m->shape[0],
					(unsigned long long)m->shape[1],
					(unsigned long long)(rn ? rows : m->shape[0]),
					(unsigned long long)(cn ? cols : m->shape[1]));
		st->matrix_rows = m->shape[0];
		st->matrix_cols = m->shape[1];
		st->matrix.kind = SPEC_DENSITY_ACTUAL;
		st->matrix.data = m;
		st->matrix.loc = fn->loc;
		st->matrix.density = (double)m->nnz / ((double)m->shape[0] * (double)m->shape[1]);
		return 0;
	}
	st->matrix_rows = rows;
	st->matrix_cols = cols;
	if (spec_density_parse_matrix(ld, dn, &kd, "matrix", rows, cols, &st->matrix) < 0)
		return -1;
	return check_generable(ld, dn, &kd, st);
}

int spec_stpu_load(struct ld *ld)
{
	static const char *const keys[] = { "array", "packing", "energy", "matrix" };
	const struct ld_top *top = ld_top_get(ld, "stpu");
	const struct ysrc_node *n = top->values[0];
	struct kpath p = KP_KEY(NULL, "stpu");
	struct kpath ka = KP_KEY(&p, "array"), kp = KP_KEY(&p, "packing");
	struct kpath ke = KP_KEY(&p, "energy"), km = KP_KEY(&p, "matrix");
	struct spec_stpu *st = arena_calloc(ld->a, 1, sizeof(*st));
	const struct ysrc_node *v;
	int rc = 0;

	st->loc = top->keys[0]->loc;
	st->array_rows = 128;
	st->array_cols = 128;
	st->dtype = SPEC_STPU_FP32;
	st->max_collision_row = 1;
	st->n_iter = 2;
	st->max_collision_group[0] = 15;
	st->max_collision_group[1] = 4;
	st->scheme = SPEC_STPU_C1;
	st->kmz_max_columns = 8;
	st->energy_preset = preset_names[0];
	st->seed = 1;
	if (ld_want_map(ld, n, &p) < 0)
		return -1;
	if (ld_check_keys(ld, n, &p, keys, ARRAY_SIZE(keys)))
		rc = -1;
	if ((v = ld_get(n, "array")) && parse_array(ld, v, &ka, st) < 0)
		rc = -1;
	if ((v = ld_get(n, "packing")) && parse_packing(ld, v, &kp, st) < 0)
		rc = -1;
	if ((v = ld_get(n, "energy")) && parse_energy(ld, v, &ke, st) < 0)
		rc = -1;
	if (!(v = ld_get(n, "matrix")))
		rc = ld_error(ld, top->keys[0], &p, "an STPU design needs a 'matrix'");
	else if (parse_matrix(ld, v, &km, st) < 0)
		rc = -1;
	if (rc == 0) {
		ld->s->stpu = st;
		ld->s->design = st;
	}
	return rc;
}

const struct spec_kind spec_kind_stpu = {
	.name = "stpu",
	.key = "stpu",
	.load = spec_stpu_load,
};
