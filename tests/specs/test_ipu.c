/*
 * ipu.c: the device presets and their overrides, the layer's defaults
 * (FullyConnectedOptions), its workload (W in blocks), the density through
 * every form, --tensor W=FILE, and validateOptions' partials changes as
 * warnings. The errors are pinned by the bad-spec corpus (tests/data/specs/bad/ipu_*).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct spec_set *load(const char *device, const char *layer, const struct spec_load_options *o,
			     struct diag_list *dl)
{
	struct strbuf sb = STRBUF_INIT;
	const char *texts[1];
	struct spec_set *s;

	strbuf_addf(&sb, "ipu:\n  device: {%s}\n  layer: {%s}\n", device, layer);
	texts[0] = sb.buf;
	s = st_load(texts, 1, o, dl);
	strbuf_release(&sb);
	return s;
}

struct preset_row {
	const char *device;
	uint64_t tiles, bytes;
	double clock;
	unsigned workers, exch, amp_half, amp_float, conv_half, conv_half_float;
	bool sharing;
	double rate_h16, rate_f8;
	uint64_t xchg_overhead;        /* exchange_overhead_cycles */
};

static const struct preset_row preset_rows[] = {
	{ "preset: gc200", 1472, 638976, 1.33e9, 6, 4, 64, 16, 16, 8, true, 64, 8, 100 },
	{ "preset: bow", 1472, 638976, 1.85e9, 6, 4, 64, 16, 16, 8, true, 64, 8, 100 },
	{ "preset: bow, tiles: 736, clock_hz: 1e9, workers: 4, exchange_bytes_per_cycle: 8, "
	  "exchange_bus_sharing: false, amp_macs_per_cycle: {float: 32}, conv_units: {half: 8}, "
	  "block_macs_per_cycle: {half: {16: 32}, float: {8: 16}}, bytes_per_tile: 1000000, "
	  "exchange_overhead_cycles: 0, conv_units_half_float: 16",
	  736, 1000000, 1e9, 4, 8, 64, 32, 8, 16, false, 32, 16, 0 },
};

static void test_presets(void)
{
	size_t i;

	for (i = 0; i < sizeof(preset_rows) / sizeof(preset_rows[0]); i++) {
		const struct preset_row *r = &preset_rows[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load(r->device, "x: 64, y: 64, z: 8, density: 0.5", NULL, &dl);
		const struct spec_ipu_device *d;
		if (!s)
			diag_print(&dl, stderr);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->ipu);
		d = &s->ipu->device;
		CU_ASSERT_EQUAL(d->tiles, r->tiles);
		CU_ASSERT_EQUAL(d->bytes_per_tile, r->bytes);
		CU_ASSERT_DOUBLE_EQUAL(d->clock_hz, r->clock, 1);
		CU_ASSERT_EQUAL(d->workers, r->workers);
		CU_ASSERT_EQUAL(d->exchange_bytes_per_cycle, r->exch);
		CU_ASSERT_EQUAL(d->exchange_bus_sharing, r->sharing);
		CU_ASSERT_EQUAL(d->exchange_overhead_cycles, r->xchg_overhead);
		CU_ASSERT_EQUAL(d->amp_macs_per_cycle[SPEC_IPU_HALF], r->amp_half);
		CU_ASSERT_EQUAL(d->amp_macs_per_cycle[SPEC_IPU_FLOAT], r->amp_float);
		CU_ASSERT_EQUAL(d->conv_units[SPEC_IPU_HALF], r->conv_half);
		CU_ASSERT_EQUAL(d->conv_units_half_float, r->conv_half_float);
		CU_ASSERT_DOUBLE_EQUAL(d->block_macs_per_cycle[SPEC_IPU_HALF][2], r->rate_h16, 0);
		CU_ASSERT_DOUBLE_EQUAL(d->block_macs_per_cycle[SPEC_IPU_FLOAT][1], r->rate_f8, 0);
		CU_ASSERT_DOUBLE_EQUAL(d->block_macs_per_cycle[SPEC_IPU_HALF][0], 8, 0);
		CU_ASSERT_DOUBLE_EQUAL(d->block_macs_per_cycle[SPEC_IPU_FLOAT][2], 0, 0);
		CU_ASSERT_EQUAL(dl.n_errors, 0);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* Defaults from FullyConnectedOptions (poplibs §1.1) and the workload of W. */
static void test_layer(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("preset: bow", "x: 128, y: 64, z: 8, block_size: 16, density: 0.25",
				  NULL, &dl);
	const struct spec_ipu_layer *l;
	const struct spec_workload *w;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	l = &s->ipu->layer;
	CU_ASSERT_EQUAL(l->dtype, SPEC_IPU_HALF);
	CU_ASSERT_EQUAL(l->partials_type, SPEC_IPU_FLOAT);
	CU_ASSERT_EQUAL(l->passes, 1u << SPEC_IPU_FWD);
	CU_ASSERT_EQUAL(l->sparsity, SPEC_IPU_DYNAMIC);
	CU_ASSERT_DOUBLE_EQUAL(l->available_memory_proportion, 0.6, 0);
	CU_ASSERT_DOUBLE_EQUAL(l->meta_info_bucket_oversize_proportion, 0.3, 0);
	CU_ASSERT_EQUAL(l->groups, 1);
	CU_ASSERT_EQUAL(l->ipus, 1);
	w = &s->workload;
	CU_ASSERT_EQUAL(w->n_dims, 3);
	CU_ASSERT_EQUAL(w->bounds[0], 8);      /* X in blocks of 16 */
	CU_ASSERT_EQUAL(w->bounds[1], 4);
	CU_ASSERT_EQUAL(w->bounds[2], 8);
	CU_ASSERT_EQUAL(w->n_tensors, 1);
	CU_ASSERT_STRING_EQUAL(w->tensors[l->tensor].name, "W");
	CU_ASSERT_EQUAL(w->tensors[0].size, 32);
	CU_ASSERT_EQUAL(w->tensors[0].density.kind, SPEC_DENSITY_FIXED_STRUCTURED);
	CU_ASSERT_DOUBLE_EQUAL(w->tensors[0].density.density, 0.25, 0);
	spec_set_free(s);
	diag_list_release(&dl);

	s = load("preset: gc200", "x: 64, y: 64, z: 4, dtype: float, partials_type: float, "
		 "passes: [fwd, grad_w, grad_a], sparsity: static, available_memory_proportion: 0.3, "
		 "meta_info_bucket_oversize_proportion: 0, groups: 1, ipus: 1, partition: {y: 4}, "
		 "density: {distribution: banded, band_width: 2}", NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	l = &s->ipu->layer;
	CU_ASSERT_EQUAL(l->passes, 7u);
	CU_ASSERT_EQUAL(l->sparsity, SPEC_IPU_STATIC);
	CU_ASSERT_EQUAL(l->partition[0], 0);
	CU_ASSERT_EQUAL(l->partition[1], 4);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.kind, SPEC_DENSITY_BANDED);
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[0].density.density, (64.0 + 2 * 63 + 2 * 62) / 4096,
			       1e-12);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* --tensor W=FILE gives W actual data (in blocks). */
static void test_tensor_file(void)
{
	const char *f = st_write("w.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
				 "4 4 3\n1 1\n2 3\n4 4\n");
	char arg[4096];
	const char *args[1] = { arg };
	struct spec_load_options o = { .tensor_files = args, .n_tensor_files = 1 };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;

	snprintf(arg, sizeof(arg), "W=%s", f);
	s = load("preset: bow", "x: 16, y: 16, z: 4, block_size: 4", &o, &dl);
	if (!s)
		diag_print(&dl, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.kind, SPEC_DENSITY_ACTUAL);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.data->nnz, 3);
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[0].density.density, 3.0 / 16, 1e-12);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* validateOptions raises half partials to float for element-wise and float data. */
static void test_partials(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load("preset: bow", "x: 64, y: 64, z: 8, partials_type: half, density: 0.5",
				  NULL, &dl);
	char *d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->ipu->layer.partials_type, SPEC_IPU_FLOAT);
	d = st_diags(&dl);
	CU_ASSERT(strstr(d, "warning: in 'ipu.layer.partials_type': element-wise sparsity: "
			 "PopSparse uses float partials here") != NULL);
	free(d);
	spec_set_free(s);
	diag_list_release(&dl);
	s = load("preset: bow", "x: 64, y: 64, z: 8, block_size: 4, partials_type: half, density: 0.5",
		 NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->ipu->layer.partials_type, SPEC_IPU_HALF);
	CU_ASSERT_EQUAL(dl.n, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

/*
 * The partials types as the layer keeps them: the sparse matmul's
 * (dynamic: element-wise and float data raise half to float; static takes
 * the input type's, popsparse::static_ StaticMatMul.cpp l.931, 948, 1415)
 * and the dense baseline's (dense_partials_type: by default the sparse
 * matmul's before static's change; half raised to float for float data).
 */
struct partials_case {
	const char *layer;
	enum spec_ipu_dtype partials, dense;
	const char *warning;       /* NULL: none */
};

static const struct partials_case partials_cases[] = {
	{ "block_size: 4", SPEC_IPU_FLOAT, SPEC_IPU_FLOAT, NULL },
	{ "block_size: 4, partials_type: half", SPEC_IPU_HALF, SPEC_IPU_HALF, NULL },
	{ "block_size: 4, dense_partials_type: half", SPEC_IPU_FLOAT, SPEC_IPU_HALF, NULL },
	{ "dense_partials_type: half", SPEC_IPU_FLOAT, SPEC_IPU_HALF, NULL },
	{ "partials_type: half", SPEC_IPU_FLOAT, SPEC_IPU_FLOAT, "element-wise sparsity" },
	{ "dtype: float, dense_partials_type: half", SPEC_IPU_FLOAT, SPEC_IPU_FLOAT,
	  "'ipu.layer.dense_partials_type': float data: the dense matmul uses float partials" },
	{ "block_size: 4, sparsity: static", SPEC_IPU_HALF, SPEC_IPU_FLOAT, NULL },
	{ "sparsity: static, dense_partials_type: half", SPEC_IPU_HALF, SPEC_IPU_HALF, NULL },
	{ "block_size: 4, sparsity: static, partials_type: float", SPEC_IPU_HALF, SPEC_IPU_FLOAT,
	  "static sparsity: PopSparse uses the input type's partials (half)" },
	{ "block_size: 4, sparsity: static, dtype: float", SPEC_IPU_FLOAT, SPEC_IPU_FLOAT, NULL },
	{ "sparsity: static, partials_type: half", SPEC_IPU_HALF, SPEC_IPU_HALF, NULL },
	{ "block_size: 4, sparsity: static, dtype: float, partials_type: half", SPEC_IPU_FLOAT,
	  SPEC_IPU_FLOAT, "static sparsity: PopSparse uses the input type's partials (float)" },
};

static void test_partials_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(partials_cases) / sizeof(partials_cases[0]); i++) {
		const struct partials_case *c = &partials_cases[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		char layer[192];
		char *d;

		snprintf(layer, sizeof(layer), "x: 64, y: 64, z: 8, density: 0.5, %s", c->layer);
		s = load("preset: bow", layer, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->ipu->layer.partials_type, c->partials);
		CU_ASSERT_EQUAL(s->ipu->layer.dense_partials_type, c->dense);
		d = st_diags(&dl);
		if (c->warning) {
			CU_ASSERT(strstr(d, c->warning) != NULL);
		} else {
			CU_ASSERT_EQUAL(dl.n, 0);
		}
		if ((c->warning && !strstr(d, c->warning)) || (!c->warning && dl.n))
			fprintf(stderr, "case %zu (%s): %s\n", i, c->layer, d);
		free(d);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static CU_TestInfo tests[] = {
	{ "presets and overrides", test_presets },
	{ "layer defaults and workload", test_layer },
	{ "--tensor W=FILE", test_tensor_file },
	{ "partials type", test_partials },
	{ "partials types, sparse and dense", test_partials_table },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "specs_ipu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
