/*
 * The 'ipu' key: a Graphcore IPU (a preset plus overrides) running one
 * PopSparse sparse fully-connected layer (seed 000). The layer is also
 * written into the set's workload (dims X, Y in blocks, Z in elements; one
 * data space 'W') so that W's density goes through the density parser of
 * density.c: every density kind, actual data and --tensor W=FILE.
 *
 * The seed's known limitations are located errors here: Z a multiple of 2
 * (float) or 4 (half) for element-wise sparsity, block sizes multiples of
 * 4, one group, one IPU.
 */
#include "specs/specs_int.h"

#include <math.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/*
 * Device presets. Sources (docs/sources.md §4.2 [V] and
 * docs/poplibs.md; the derivations are in docs/ipu.md):
 *  - tiles 1472, 900 MB in total = 624 KiB per tile, 6 worker threads per
 *    tile: sources §4.2 (6 workers also in the partitioner test,
 *    poplibs §4);
 *  - clock: GC200 1.33 GHz (250 TFLOPS FP16 "at about 1.33-1.35 GHz"), Bow
 *    1.85 GHz (sources §4.2);
 *  - exchange: 8 TB/s all-to-all on GC200 = 8e12 / (1472 x 1.33e9) = 4.09
 *    bytes per tile-cycle, so 4; the Bow keeps the tile design ("the same
 *    1472 tiles"), so the same bytes per cycle;
 *  - bus sharing: PopLibs asserts 2 tiles per shared exchange bus (poplibs §1.5);
 *  - dense AMP, half: 250 TFLOPS / (1472 x 1.33 GHz x 2) = 64 MACs per
 *    tile-cycle (sources §4.2); float: 16 = 64 x (8 float conv units / 16 half conv
 *    units, poplibs §3.2 and §4) x 1/2 (the float block kernels take
 *    twice the cycles per Z of the half ones at equal block, poplibs §3.2's cpz);
 *  - conv units: 16 for half input (with 8 the Bow's half peak would be
 *    175 TFLOPS, below the 230 measured, sources §4.1), 8 for float (HyperGraph's
 *    hard-coded value, poplibs §4);
 *  - conv units for half input with float partials: 8. PopLibs asks the
 *    target for getFp16InFp32OutConvUnitsPerTile() apart from the half/half
 *    count (lib/popsparse/FullyConnectedPlan.cpp getNumConvUnits,
 *    lib/poplin/PerformanceEstimation.hpp getNumConvUnits), and its IPU2
 *    code has 8 of them: the dynamic 16x16 block supervisor
 *    (lib/popsparse/codelets/asm/BlockSparseDenseMatMul.h.S) loads 32 x 64
 *    bits of weights and runs its workers twice a block for float partials
 *    on every architecture, 64 loads and one run for half partials on IPU2;
 *    poplin's 1x1 AMP codelet is conv_partial_1x1_half_float_8_and_half_half_h16.S
 *    ("half activations, float partials and 8 conv units" share the code of
 *    half/half with 16), at poplibs 7eac0f2;
 *  - sparse AMP block kernels: block^2 / cpz MACs per tile-cycle from
 *    poplibs §3.2's cycles per Z column (half: 4x4 cpz 2, 8x8 cpz 4, 16x16 cpz 4;
 *    float: 4x4 cpz 4, 8x8 cpz 8; no float 16x16 kernel, poplibs §1.2);
 *  - sync: PopLibs' estimator models no sync (poplibs §3.4): 0.
 */
struct ipu_preset {
	const char *name;
	double clock_hz;
};

static const struct ipu_preset presets[] = {
	{ "gc200", 1.33e9 },
	{ "bow", 1.85e9 },
};

static void preset_fill(struct spec_ipu_device *d, const struct ipu_preset *p)
{
	d->preset = p->name;
	d->tiles = 1472;
	d->bytes_per_tile = 624u * 1024u;
	d->workers = 6;
	d->clock_hz = p->clock_hz;
	d->exchange_bytes_per_cycle = 4;
	d->exchange_bus_sharing = true;
	d->sync_cycles = 0;
	/* PopLibs' CTC loss planner (lib/popnn/CTCLossPlan.cpp,
	 * fixedOverheadExchangeCycles): 100 cycles of fixed overhead in every
	 * exchange on top of its bytes (docs/ipu.md, "Fixed costs") */
	d->exchange_overhead_cycles = 100;
	d->amp_macs_per_cycle[SPEC_IPU_HALF] = 64;
	d->amp_macs_per_cycle[SPEC_IPU_FLOAT] = 16;
	d->conv_units[SPEC_IPU_HALF] = 16;
	d->conv_units[SPEC_IPU_FLOAT] = 8;
	d->conv_units_half_float = 8;
	d->block_macs_per_cycle[SPEC_IPU_HALF][0] = 16.0 / 2;
	d->block_macs_per_cycle[SPEC_IPU_HALF][1] = 64.0 / 4;
	d->block_macs_per_cycle[SPEC_IPU_HALF][2] = 256.0 / 4;
	d->block_macs_per_cycle[SPEC_IPU_FLOAT][0] = 16.0 / 4;
	d->block_macs_per_cycle[SPEC_IPU_FLOAT][1] = 64.0 / 8;
	d->block_macs_per_cycle[SPEC_IPU_FLOAT][2] = 0;
}

static const char *const dtype_names[] = { [SPEC_IPU_HALF] = "half", [SPEC_IPU_FLOAT] = "float" };
static const char *const pass_names[] = {
	[SPEC_IPU_FWD] = "fwd", [SPEC_IPU_GRAD_A] = "grad_a", [SPEC_IPU_GRAD_W] = "grad_w",
};
static const char *const sparsity_names[] = {
	[SPEC_IPU_DYNAMIC] = "dynamic", [SPEC_IPU_STATIC] = "static",
};
static const char *const block_kind_names[] = { "4", "8", "16" };

const char *spec_ipu_dtype_name(enum spec_ipu_dtype d)
{
	return (unsigned)d < ARRAY_SIZE(dtype_names) ? dtype_names[d] : (BUG("dtype %d", (int)d), "");
}

const char *spec_ipu_pass_name(enum spec_ipu_pass p)
{
	return (unsigned)p < ARRAY_SIZE(pass_names) ? pass_names[p] : (BUG("pass %d", (int)p), "");
}

const char *spec_ipu_sparsity_name(enum spec_ipu_sparsity s)
{
	return (unsigned)s < ARRAY_SIZE(sparsity_names) ? sparsity_names[s]
							 : (BUG("sparsity %d", (int)s), "");
}

/* ------------------------------------------------------------------ device */

static const char *const device_keys[] = {
	"preset", "tiles", "bytes_per_tile", "workers", "clock_hz", "exchange_bytes_per_cycle",
	"exchange_bus_sharing", "sync_cycles", "exchange_overhead_cycles", "amp_macs_per_cycle",
	"conv_units", "conv_units_half_float", "block_macs_per_cycle",
};

/* Optional unsigned key 'key' of 'n' in [lo, hi] into '*out' (kept when absent). */
static int opt_u64(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const struct ysrc_node *v = ld_get(n, key);
	struct kpath kp = KP_KEY(p, key);
	return v ? ld_uint(ld, v, &kp, lo, hi, out) : 0;
}

static int opt_unsigned(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			const char *key, uint64_t lo, uint64_t hi, unsigned *out)
{
	uint64_t v = *out;
	if (opt_u64(ld, n, p, key, lo, hi, &v) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* {half: N, float: N} into out[dtype]; each value an integer in [lo, hi]. */
static int per_dtype_uint(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			  uint64_t lo, uint64_t hi, unsigned *out)
{
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, dtype_names, ARRAY_SIZE(dtype_names)))
		return -1;
	for (i = 0; i < ARRAY_SIZE(dtype_names); i++) {
		const struct ysrc_node *v = ld_get(n, dtype_names[i]);
		struct kpath kp = KP_KEY(p, dtype_names[i]);
		uint64_t u;
		if (!v)
			continue;
		if (ld_uint(ld, v, &kp, lo, hi, &u) < 0)
			rc = -1;
		else
			out[i] = (unsigned)u;
	}
	return rc;
}

/* block_macs_per_cycle: {half: {4: R, 8: R, 16: R}, float: {...}}. */
static int block_rates(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       struct spec_ipu_device *d)
{
	size_t i, b;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0 || ld_check_keys(ld, n, p, dtype_names, ARRAY_SIZE(dtype_names)))
		return -1;
	for (i = 0; i < ARRAY_SIZE(dtype_names); i++) {
		const struct ysrc_node *m = ld_get(n, dtype_names[i]);
		struct kpath mp = KP_KEY(p, dtype_names[i]);
		if (!m)
			continue;
		if (ld_want_map(ld, m, &mp) < 0 ||
		    ld_check_keys(ld, m, &mp, block_kind_names, ARRAY_SIZE(block_kind_names))) {
			rc = -1;
			continue;
		}
		for (b = 0; b < SPEC_IPU_N_BLOCK_KINDS; b++) {
			const struct ysrc_node *v = ld_get(m, block_kind_names[b]);
			struct kpath vp = KP_KEY(&mp, block_kind_names[b]);
			if (v && ld_double(ld, v, &vp, 0.0, 1e6, &d->block_macs_per_cycle[i][b]) < 0)
				rc = -1;
		}
	}
	return rc;
}

/* The overrides of a device map on top of its preset. */
static int device_overrides(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			    struct spec_ipu_device *d)
{
	const struct ysrc_node *v;
	struct kpath kc = KP_KEY(p, "clock_hz"), kb = KP_KEY(p, "exchange_bus_sharing");
	struct kpath ka = KP_KEY(p, "amp_macs_per_cycle"), ku = KP_KEY(p, "conv_units");
	struct kpath kr = KP_KEY(p, "block_macs_per_cycle");
	int rc = 0;

	if (opt_u64(ld, n, p, "tiles", 1, 1u << 20, &d->tiles) < 0 ||
	    opt_u64(ld, n, p, "bytes_per_tile", 1, 1ull << 40, &d->bytes_per_tile) < 0 ||
	    opt_unsigned(ld, n, p, "workers", 1, 64, &d->workers) < 0 ||
	    opt_unsigned(ld, n, p, "exchange_bytes_per_cycle", 1, 1u << 16,
			 &d->exchange_bytes_per_cycle) < 0 ||
	    opt_u64(ld, n, p, "sync_cycles", 0, 1ull << 32, &d->sync_cycles) < 0 ||
	    opt_u64(ld, n, p, "exchange_overhead_cycles", 0, 1ull << 32,
		    &d->exchange_overhead_cycles) < 0 ||
	    opt_unsigned(ld, n, p, "conv_units_half_float", 1, 256, &d->conv_units_half_float) < 0)
		rc = -1;
	if ((v = ld_get(n, "clock_hz")) && ld_double(ld, v, &kc, 1e6, 1e12, &d->clock_hz) < 0)
		rc = -1;
	if ((v = ld_get(n, "exchange_bus_sharing")) && ld_bool(ld, v, &kb, &d->exchange_bus_sharing) < 0)
		rc = -1;
	if ((v = ld_get(n, "amp_macs_per_cycle")) &&
	    per_dtype_uint(ld, v, &ka, 1, 1u << 16, d->amp_macs_per_cycle) < 0)
		rc = -1;
	if ((v = ld_get(n, "conv_units")) && per_dtype_uint(ld, v, &ku, 1, 256, d->conv_units) < 0)
		rc = -1;
	if ((v = ld_get(n, "block_macs_per_cycle")) && block_rates(ld, v, &kr, d) < 0)
		rc = -1;
	return rc;
}

static int parse_device(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_ipu_device *d)
{
	const char *names[ARRAY_SIZE(presets)];
	const struct ysrc_node *pn;
	struct kpath kp = KP_KEY(p, "preset");
	size_t i;
	int k, rc;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	d->loc = n->loc;
	rc = ld_check_keys(ld, n, p, device_keys, ARRAY_SIZE(device_keys)) ? -1 : 0;
	pn = ld_get(n, "preset");
	if (!pn)
		return ld_error(ld, n, p, "a device needs a 'preset' (gc200 or bow)");
	if (ld_want_scalar(ld, pn, &kp) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(presets); i++)
		names[i] = presets[i].name;
	k = ld_lookup_keyword(ld, pn, &kp, "IPU preset", pn->str, names, ARRAY_SIZE(names));
	if (k < 0)
		return -1;
	preset_fill(d, &presets[k]);
	if (device_overrides(ld, n, p, d) < 0)
		rc = -1;
	return rc;
}

/* ------------------------------------------------------------------- layer */

static const char *const layer_keys[] = {
	"x", "y", "z", "block_size", "dtype", "partials_type", "dense_partials_type", "passes",
	"sparsity",
	"available_memory_proportion", "meta_info_bucket_oversize_proportion", "groups",
	"ipus", "partition", "density",
};

/* A name of 'names' (keyword match) into '*out'. */
static int keyword(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   const char *what, const char *const *names, size_t n_names, unsigned *out)
{
	int k;
	if (ld_want_scalar(ld, n, p) < 0)
		return -1;
	k = ld_lookup_keyword(ld, n, p, what, n->str, names, n_names);
	if (k < 0)
		return -1;
	*out = (unsigned)k;
	return 0;
}

/* passes: a list of fwd, grad_a, grad_w; fwd must be one of them (an empty list too). */
static int parse_passes(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			uint32_t *mask)
{
	size_t i;
	int rc = 0;

	if (n->kind == YSRC_SCALAR) {
		unsigned k;
		if (keyword(ld, n, p, "pass", pass_names, ARRAY_SIZE(pass_names), &k) < 0)
			return -1;
		*mask = 1u << k;
	} else {
		if (ld_want_seq(ld, n, p) < 0)
			return -1;
		*mask = 0;
		for (i = 0; i < n->n; i++) {
			struct kpath ip = KP_IDX(p, i);
			unsigned k;
			if (keyword(ld, n->items[i], &ip, "pass", pass_names, ARRAY_SIZE(pass_names),
				    &k) < 0) {
				rc = -1;
				continue;
			}
			if (*mask & (1u << k))
				rc = ld_error(ld, n->items[i], &ip, "pass '%s' is listed twice",
					      pass_names[k]);
			*mask |= 1u << k;
		}
	}
	if (n->kind != YSRC_SCALAR && n->n == 0)
		rc = ld_error(ld, n, p, "an empty list plans nothing: expected a list of passes "
			      "including 'fwd' (fwd, grad_a, grad_w)");
	else if (*mask && !(*mask & (1u << SPEC_IPU_FWD)))
		rc = ld_error(ld, n, p, "the passes must include 'fwd' (PopSparse always plans the "
			      "forward pass)");
	return rc;
}

/* partition: {x: P, y: P, z: P}, each optional: a plan constraint. */
static int parse_partition(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			   const struct spec_ipu_device *d, unsigned *part)
{
	static const char *const keys[] = { "x", "y", "z" };
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0 || ld_check_keys(ld, n, p, keys, ARRAY_SIZE(keys)))
		return -1;
	for (i = 0; i < 3; i++)
		if (opt_unsigned(ld, n, p, keys[i], 1, d->tiles, &part[i]) < 0)
			rc = -1;
	return rc;
}

/* The seed's restriction on Z for element-wise sparsity (§3 of the seed). */
static int check_z(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   const struct spec_ipu_layer *l)
{
	uint64_t need = l->dtype == SPEC_IPU_HALF ? 4 : 2;

	if (l->block_size != 1 || l->z % need == 0)
		return 0;
	return ld_error(ld, n, p, "element-wise sparsity (block_size 1) with %s data needs 'z' to "
			"be a multiple of %llu, got %llu (a known limitation of PopSparse: pad Z)",
			dtype_names[l->dtype], (unsigned long long)need, (unsigned long long)l->z);
}

/* x and y: multiples of the block size, so that the blocks tile W. */
static int check_blocked(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 const char *key, uint64_t v, unsigned b)
{
	if (b <= 1 || v % b == 0)
		return 0;
	return ld_error(ld, n, p, "'%s' (%llu) must be a multiple of block_size %u", key,
			(unsigned long long)v, b);
}

/* The scalar keys of the layer. */
static int layer_scalars(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 struct spec_ipu_layer *l)
{
	const struct ysrc_node *v;
	struct kpath kb = KP_KEY(p, "block_size"), kd = KP_KEY(p, "dtype");
	struct kpath kq = KP_KEY(p, "partials_type"), ks = KP_KEY(p, "sparsity");
	struct kpath kdq = KP_KEY(p, "dense_partials_type");
	struct kpath ka = KP_KEY(p, "available_memory_proportion");
	struct kpath ko = KP_KEY(p, "meta_info_bucket_oversize_proportion");
	struct kpath kg = KP_KEY(p, "groups"), ki = KP_KEY(p, "ipus");
	uint64_t u;
	unsigned k;
	int rc = 0;

	if (opt_u64(ld, n, p, "x", 1, 1u << 24, &l->x) < 0 ||
	    opt_u64(ld, n, p, "y", 1, 1u << 24, &l->y) < 0 ||
	    opt_u64(ld, n, p, "z", 1, 1u << 24, &l->z) < 0)
		rc = -1;
	if ((v = ld_get(n, "block_size"))) {
		if (ld_uint(ld, v, &kb, 1, 256, &u) < 0)
			rc = -1;
		else if (u != 1 && u % 4)
			rc = ld_error(ld, v, &kb, "block sizes other than 1 must be multiples of 4 (a "
				      "known limitation of PopSparse), got %llu",
				      (unsigned long long)u);
		else
			l->block_size = (unsigned)u;
	}
	if ((v = ld_get(n, "dtype"))) {
		if (keyword(ld, v, &kd, "data type", dtype_names, ARRAY_SIZE(dtype_names), &k) < 0)
			rc = -1;
		else
			l->dtype = (enum spec_ipu_dtype)k;
	}
	if ((v = ld_get(n, "partials_type"))) {
		if (keyword(ld, v, &kq, "data type", dtype_names, ARRAY_SIZE(dtype_names), &k) < 0)
			rc = -1;
		else
			l->partials_type = (enum spec_ipu_dtype)k;
	}
	if ((v = ld_get(n, "dense_partials_type"))) {
		if (keyword(ld, v, &kdq, "data type", dtype_names, ARRAY_SIZE(dtype_names), &k) < 0)
			rc = -1;
		else
			l->dense_partials_type = (enum spec_ipu_dtype)k;
	}
	if ((v = ld_get(n, "sparsity"))) {
		if (keyword(ld, v, &ks, "sparsity", sparsity_names, ARRAY_SIZE(sparsity_names), &k) < 0)
			rc = -1;
		else
			l->sparsity = (enum spec_ipu_sparsity)k;
	}
	if ((v = ld_get(n, "available_memory_proportion"))) {
		if (ld_double(ld, v, &ka, 0.0, 1.0, &l->available_memory_proportion) < 0)
			rc = -1;
		else if (l->available_memory_proportion <= 0.0)
			rc = ld_error(ld, v, &ka, "must be > 0 (with 0 PopLibs does not plan at all)");
	}
	if ((v = ld_get(n, "meta_info_bucket_oversize_proportion")) &&
	    ld_double(ld, v, &ko, 0.0, 100.0, &l->meta_info_bucket_oversize_proportion) < 0)
		rc = -1;
	if ((v = ld_get(n, "groups"))) {
		if (ld_uint(ld, v, &kg, 1, 1u << 20, &u) < 0)
			rc = -1;
		else if (u != 1)
			rc = ld_error(ld, v, &kg, "grouped matmuls are not supported (a known "
				      "limitation of PopSparse): 'groups' must be 1, got %llu",
				      (unsigned long long)u);
	}
	if ((v = ld_get(n, "ipus"))) {
		if (ld_uint(ld, v, &ki, 1, 1u << 20, &u) < 0)
			rc = -1;
		else if (u != 1)
			rc = ld_error(ld, v, &ki, "only one IPU is supported (a known limitation of "
				      "PopSparse), got %llu", (unsigned long long)u);
	}
	return rc;
}

/*
 * The partials types. The dynamic options' two changes (validateOptions,
 * poplibs §1.1), as warnings: float partials for element-wise sparsity,
 * and never narrower than the input type. The dense baseline's
 * (dense_partials_type) is poplin's option, given to the dense matmul
 * alone (the benchmark's matmul_bench.cpp l.293; its matmul_bench.py
 * l.199-200 passes half only with half data): by default the sparse
 * matmul's as changed above, never narrower than the input type. Static
 * sparsity then runs at its input type's partials whatever was asked:
 * popsparse::static_ sets options.partialsType = inputType before it
 * plans (lib/popsparse/StaticMatMul.cpp l.931, 948, 1415, poplibs
 * 7eac0f2).
 */
static void adjust_partials(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			    struct spec_ipu_layer *l)
{
	const struct ysrc_node *v = ld_get(n, "partials_type");
	const struct ysrc_node *dv = ld_get(n, "dense_partials_type");
	struct kpath kq = KP_KEY(p, "partials_type"), kdq = KP_KEY(p, "dense_partials_type");

	if (l->sparsity == SPEC_IPU_DYNAMIC && l->partials_type == SPEC_IPU_HALF &&
	    (l->block_size == 1 || l->dtype == SPEC_IPU_FLOAT)) {
		if (v)
			ld_warning(ld, v, &kq, "%s: PopSparse uses float partials here",
				   l->block_size == 1 ? "element-wise sparsity" : "float data");
		l->partials_type = SPEC_IPU_FLOAT;
	}
	if (!dv)
		l->dense_partials_type = l->partials_type;
	if (l->dense_partials_type == SPEC_IPU_HALF && l->dtype == SPEC_IPU_FLOAT) {
		if (dv)
			ld_warning(ld, dv, &kdq, "float data: the dense matmul uses float "
				   "partials here");
		l->dense_partials_type = SPEC_IPU_FLOAT;
	}
	if (l->sparsity == SPEC_IPU_STATIC && l->partials_type != l->dtype) {
		if (v)
			ld_warning(ld, v, &kq, "static sparsity: PopSparse uses the input type's "
				   "partials (%s)", spec_ipu_dtype_name(l->dtype));
		l->partials_type = l->dtype;
	}
}

/* The workload of the layer: dims X, Y (blocks) and Z; data space W[X][Y]. */
static void layer_workload(struct ld *ld, const struct spec_ipu_layer *l, struct diag_loc loc)
{
	struct spec_workload *w = &ld->s->workload;
	struct spec_tensor *t = arena_calloc(ld->a, 1, sizeof(*t));
	unsigned b = l->block_size;

	memset(w, 0, sizeof(*w));
	w->shape_name = "ipu_sparse_fc";
	w->loc = loc;
	w->n_dims = 3;
	w->dim_names[0] = "X";
	w->dim_names[1] = "Y";
	w->dim_names[2] = "Z";
	w->bounds[0] = l->x / b;
	w->bounds[1] = l->y / b;
	w->bounds[2] = l->z;
	t->name = "W";
	t->loc = loc;
	t->n_ranks = 2;
	t->ranks[0].n_terms = 1;
	t->ranks[0].terms[0] = (struct spec_term){ 0, -1, 1 };
	t->ranks[1].n_terms = 1;
	t->ranks[1].terms[0] = (struct spec_term){ 1, -1, 1 };
	t->dim_mask = 3;
	t->rank_extent[0] = w->bounds[0];
	t->rank_extent[1] = w->bounds[1];
	t->size = w->bounds[0] * w->bounds[1];
	t->density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
	t->density.density = 1.0;
	t->density.is_default = true;
	t->density.loc = loc;
	w->n_tensors = 1;
	w->tensors = t;
}

/* The density of W (any kind, or --tensor W=FILE); it must hold non-zeros. */
static int layer_density(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			 const struct spec_ipu_layer *l)
{
	const struct ysrc_node *dn = ld_get(n, "density");
	struct kpath kd = KP_KEY(p, "density");
	const struct spec_density *d = &ld->s->workload.tensors[0].density;
	int rc = 0;

	if (dn && spec_density_parse(ld, dn, &kd, 0) < 0)
		rc = -1;
	if (spec_density_apply_files(ld) < 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (!dn && d->is_default)
		return ld_error(ld, n, p, "the layer needs the 'density' of its sparse operand W "
				"(or --tensor W=FILE)");
	if (d->density <= 0.0)
		return ld_error(ld, dn ? dn : n, dn ? &kd : p, "the sparse operand W has no "
				"non-zeros (density 0)");
	(void)l;
	return 0;
}

static int parse_layer(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       const struct spec_ipu_device *d, struct spec_ipu_layer *l)
{
	static const char *const required[] = { "x", "y", "z" };
	const struct ysrc_node *v;
	struct kpath kz = KP_KEY(p, "z"), kx = KP_KEY(p, "x"), ky = KP_KEY(p, "y");
	struct kpath kp = KP_KEY(p, "passes"), kt = KP_KEY(p, "partition");
	size_t i;
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	l->loc = n->loc;
	if (ld_check_keys(ld, n, p, layer_keys, ARRAY_SIZE(layer_keys)))
		rc = -1;
	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!ld_get(n, required[i]))
			rc = ld_error(ld, n, p, "a layer needs '%s'", required[i]);
	l->block_size = 1;
	l->dtype = SPEC_IPU_HALF;
	l->partials_type = SPEC_IPU_FLOAT;
	l->dense_partials_type = SPEC_IPU_FLOAT;
	l->passes = 1u << SPEC_IPU_FWD;
	l->sparsity = SPEC_IPU_DYNAMIC;
	l->available_memory_proportion = 0.6;          /* FullyConnectedOptions defaults */
	l->meta_info_bucket_oversize_proportion = 0.3;
	l->groups = 1;
	l->ipus = 1;
	if (layer_scalars(ld, n, p, l) < 0)
		rc = -1;
	if ((v = ld_get(n, "passes")) && parse_passes(ld, v, &kp, &l->passes) < 0)
		rc = -1;
	if ((v = ld_get(n, "partition")) && parse_partition(ld, v, &kt, d, l->partition) < 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (check_z(ld, ld_get(n, "z"), &kz, l) < 0 ||
	    check_blocked(ld, ld_get(n, "x"), &kx, "x", l->x, l->block_size) < 0 ||
	    check_blocked(ld, ld_get(n, "y"), &ky, "y", l->y, l->block_size) < 0)
		return -1;
	adjust_partials(ld, n, p, l);
	layer_workload(ld, l, n->loc);
	l->tensor = 0;
	return layer_density(ld, n, p, l);
}

int spec_ipu_load(struct ld *ld)
{
	static const char *const keys[] = { "device", "layer" };
	const struct ld_top *top = ld_top_get(ld, "ipu");
	const struct ysrc_node *n = top->values[0];
	struct kpath p = KP_KEY(NULL, "ipu"), kd = KP_KEY(&p, "device");
	struct kpath kl = KP_KEY(&p, "layer");
	struct spec_ipu *ipu = arena_calloc(ld->a, 1, sizeof(*ipu));
	const struct ysrc_node *dn, *ln;
	int rc = 0;

	if (ld_want_map(ld, n, &p) < 0)
		return -1;
	ipu->loc = n->loc;
	if (ld_check_keys(ld, n, &p, keys, ARRAY_SIZE(keys)))
		return -1;
	dn = ld_get(n, "device");
	ln = ld_get(n, "layer");
	if (!dn)
		rc = ld_error(ld, n, &p, "an 'ipu' design needs a 'device'");
	else if (parse_device(ld, dn, &kd, &ipu->device) < 0)
		rc = -1;
	if (rc < 0)
		preset_fill(&ipu->device, &presets[0]);   /* bounds for checking the layer */
	if (!ln)
		rc = ld_error(ld, n, &p, "an 'ipu' design needs a 'layer'");
	else if (parse_layer(ld, ln, &kl, &ipu->device, &ipu->layer) < 0)
		rc = -1;
	if (rc == 0) {
		ld->s->ipu = ipu;
		ld->s->design = ipu;
	}
	return rc;
}

const struct spec_kind spec_kind_ipu = {
	.name = "ipu",
	.key = "ipu",
	.load = spec_ipu_load,
};
