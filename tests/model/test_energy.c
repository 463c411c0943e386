/*
 * model/energy.c: per-action energies from the ERT priority lists
 * (semantics 1.6), user overrides, presets for components without an ERT,
 * and Timeloop's fallbacks.
 */
#include <string.h>

#include "model/model_int.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/xalloc.h"

static struct tb tb_;

/* A one-level design whose buffer has the ERT 'actions' ("" = none). */
static struct model_ws *one_level(const char *actions, const char *mac_actions)
{
	tb_init(&tb_);
	tb_dim(&tb_, "K", 4);
	tb_tensor(&tb_, "A", false, "K");
	tb_compute(&tb_, "mac", 1, 1);
	tb_level(&tb_, "buf", 64, 32, 16, 1, 1);   /* block 2 */
	tb_.levels[0].cluster_size = 2;
	if (*actions)
		tb_ert(&tb_, 0, actions);
	if (mac_actions && *mac_actions)
		tb_ert(&tb_, -1, mac_actions);
	tb_temporal(&tb_, 0, "K4", "K");
	if (tb_finish(&tb_) < 0)
		BUG("one level");
	return model_ws_new(&tb_.s, NULL, NULL);
}

static void test_storage_priority(void)
{
	static const struct {
		const char *ert;
		enum model_op op;
		double pj;
	} rows[] = {
		{ "read=1 write=2", MODEL_OP_RANDOM_READ, 1 },
		{ "random_read=3 read=1", MODEL_OP_RANDOM_READ, 3 },
		{ "read=1 write=2", MODEL_OP_RANDOM_FILL, 2 },
		{ "read=1 write=2", MODEL_OP_RANDOM_UPDATE, 2 },
		{ "read=1 write=2 update=5", MODEL_OP_RANDOM_UPDATE, 5 },
		{ "read=1 random_write=4 write=2", MODEL_OP_RANDOM_FILL, 4 },
		{ "read=1 fill=6 write=2", MODEL_OP_RANDOM_FILL, 6 },
		{ "read=1 write=2", MODEL_OP_GATED_READ, 0 },          /* storage: 0 */
		{ "read=1 gated_read=0.5", MODEL_OP_GATED_READ, 0.5 },
		{ "read=1 gated_read=0.5", MODEL_OP_SKIPPED_READ, 0.5 },
		{ "read=1 gated_write=0.25", MODEL_OP_SKIPPED_FILL, 0.25 },
		{ "read=1 metadata_read=0.1", MODEL_OP_RANDOM_MD_READ, 0.1 },
		{ "read=1 metadata_write=0.2", MODEL_OP_RANDOM_MD_UPDATE, 0.2 },
		{ "read=1 leak=0.01", MODEL_OP_LEAK, 0.01 },
		{ "read=1 decompression_count=0.3", MODEL_OP_DECOMPRESSION, 0.3 },
		{ "read=1", MODEL_OP_LEAK, 0 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_ws *ws = one_level(rows[i].ert, NULL);
		CU_ASSERT_EQUAL(ws->lev_energy[0].source, MODEL_ENERGY_ERT);
		CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[rows[i].op], rows[i].pj, 1e-12);
		model_ws_free(ws);
	}
}

/*
 * The fallback is per op: a random read, fill or update the table does not
 * name costs PAT's vector energy, whatever else the table lists. PAT's SRAM
 * line gives 1.0 unit of a 16-bit access at 0.5 KiB and 6.0 at 100 KiB; the
 * one_level buffer (64 rows of 2 x 16-bit words, cluster 2) is 64 rows x 64
 * bits = 0.5 KiB: 1.0 x 64 / 16 = 4 pJ per cluster access, 2 pJ per instance.
 */
static void test_pat_fallback(void)
{
	static const struct {
		unsigned depth, width_bits, word_bits, cluster;
		enum model_op op;
		double pj;
	} rows[] = {
		{ 64, 32, 16, 2, MODEL_OP_RANDOM_READ, 2.0 },
		{ 64, 32, 16, 2, MODEL_OP_RANDOM_FILL, 2.0 },
		{ 64, 32, 16, 2, MODEL_OP_RANDOM_UPDATE, 2.0 },
		{ 64, 32, 16, 2, MODEL_OP_GATED_READ, 0 },      /* not a data op: 0 */
		{ 64, 32, 16, 2, MODEL_OP_RANDOM_MD_READ, 0 },
		/* 16 x 8 bits = 1/64 KiB: (1 + 5/99.5 x (1/64 - 0.5)) x 8 / 16 */
		{ 16, 8, 8, 1, MODEL_OP_RANDOM_READ, 0.48782977386934673 },
		{ 6400, 128, 16, 1, MODEL_OP_RANDOM_FILL, 48.0 },   /* 100 KiB: 6 units */
		{ 0, 64, 8, 1, MODEL_OP_RANDOM_READ, 800.0 },       /* DRAM: 200 x 64 / 16 */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_ws *ws;
		tb_init(&tb_);
		tb_dim(&tb_, "K", 4);
		tb_tensor(&tb_, "A", false, "K");
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "buf", rows[i].depth, rows[i].width_bits, rows[i].word_bits, 1, 1);
		tb_.levels[0].cluster_size = rows[i].cluster;
		tb_ert(&tb_, 0, "access=0.01 leak=0.02");
		tb_temporal(&tb_, 0, "K4", "K");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		ws = model_ws_new(&tb_.s, NULL, NULL);
		CU_ASSERT_EQUAL(ws->lev_energy[0].source, MODEL_ENERGY_ERT);
		CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[rows[i].op], rows[i].pj, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[MODEL_OP_LEAK], 0.02, 1e-12);
		model_ws_free(ws);
	}
}

/* Vector access energy: the largest action (leak included) over the cluster. */
static void test_vector_access_energy(void)
{
	struct model_ws *ws = one_level("read=1 write=2 leak=7", NULL);

	CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].vector_access_pj, 3.5, 1e-12);
	model_ws_free(ws);
}

/* Compute: gated and skipped computes cost a full compute without an entry. */
static void test_compute_priority(void)
{
	static const struct {
		const char *ert;
		double random, gated, skipped;
	} rows[] = {
		{ "compute=0.5 leak=1", 0.5, 0.5, 0.5 },
		{ "mac_random=0.4 mac_gated=0.1 compute=0.5", 0.4, 0.1, 0.1 },
		{ "compute=0.5 compute_skipped=0.05", 0.5, 0.5, 0.05 },
		{ "leak=0.2", 0.2, 0, 0 },     /* no compute entry: the largest action */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct model_ws *ws = one_level("read=1", rows[i].ert);
		CU_ASSERT_EQUAL(ws->compute_source, MODEL_ENERGY_ERT);
		CU_ASSERT_DOUBLE_EQUAL(ws->compute_op_pj[MODEL_COMPUTE_RANDOM], rows[i].random, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(ws->compute_op_pj[MODEL_COMPUTE_GATED], rows[i].gated, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(ws->compute_op_pj[MODEL_COMPUTE_SKIPPED], rows[i].skipped, 1e-12);
		model_ws_free(ws);
	}
}

/* A user vector_access_energy wins over the ERT; no ERT takes the preset. */
static void test_sources(void)
{
	struct model_ws *ws;

	tb_init(&tb_);
	ws = one_level("read=1 write=2", NULL);
	model_ws_free(ws);
	tb_.levels[0].has_vector_access_energy = true;
	tb_.levels[0].vector_access_energy_pj = 9;
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_EQUAL(ws->lev_energy[0].source, MODEL_ENERGY_USER);
	CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[MODEL_OP_RANDOM_READ], 9, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[MODEL_OP_RANDOM_FILL], 9, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].op_pj[MODEL_OP_GATED_READ], 0, 1e-12);
	model_ws_free(ws);

	ws = one_level("", NULL);      /* no ERT at all: the default preset */
	CU_ASSERT_EQUAL(ws->lev_energy[0].source, MODEL_ENERGY_PRESET);
	CU_ASSERT_EQUAL(ws->compute_source, MODEL_ENERGY_PRESET);
	CU_ASSERT(ws->lev_energy[0].op_pj[MODEL_OP_RANDOM_READ] > 0);
	CU_ASSERT_STRING_EQUAL(ws->preset_name, "accelergy45");
	model_ws_free(ws);
}

/* A preset DRAM access costs far more than a register access. */
static void test_preset_plausible(void)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	const char *const presets[] = { "accelergy45", "horowitz45", "eyeriss_norm" };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(presets); i++) {
		struct model_ws *ws;
		tb_init(&tb_);
		tb_dim(&tb_, "K", 4);
		tb_tensor(&tb_, "A", false, "K");
		tb_compute(&tb_, "mac", 1, 1);
		tb_level(&tb_, "reg", 1, 16, 16, 1, 1);
		tb_level(&tb_, "DRAM", 0, 16, 16, 1, 1);
		tb_.levels[0].class_name = "regfile";
		tb_.levels[1].class_name = "DRAM";
		tb_temporal(&tb_, 1, "K4", "K");
		CU_ASSERT_EQUAL_FATAL(tb_finish(&tb_), 0);
		opt.energy_preset = presets[i];
		ws = model_ws_new(&tb_.s, &opt, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
		CU_ASSERT(ws->lev_energy[1].op_pj[MODEL_OP_RANDOM_READ] >
			  20 * ws->lev_energy[0].op_pj[MODEL_OP_RANDOM_READ]);
		CU_ASSERT_STRING_EQUAL(ws->preset_name, presets[i]);
		model_ws_free(ws);
	}
}

/* Timeloop keeps areas in single precision (1419.815 prints as 1419.81). */
static void test_area_single_precision(void)
{
	struct model_ws *ws;
	struct spec_art_entry art = { "x", "buf", 1419.815, DIAG_LOC_NONE };

	tb_init(&tb_);
	ws = one_level("read=1", NULL);
	model_ws_free(ws);
	tb_.levels[0].art = &art;
	ws = model_ws_new(&tb_.s, NULL, NULL);
	CU_ASSERT_DOUBLE_EQUAL(ws->lev_energy[0].area_um2, (double)1419.815f, 0);
	CU_ASSERT(ws->lev_energy[0].area_um2 < 1419.815);
	model_ws_free(ws);
}

static CU_TestInfo tests[] = {
	{ "storage priority lists", test_storage_priority },
	{ "PAT fallback per op", test_pat_fallback },
	{ "vector access energy", test_vector_access_energy },
	{ "compute priority lists", test_compute_priority },
	{ "user override and presets", test_sources },
	{ "presets: DRAM far above a register", test_preset_plausible },
	{ "areas in single precision", test_area_single_precision },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "energy", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
