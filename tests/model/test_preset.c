/*
 * Tests of model/preset.c: the embedded energy tables. Expected values are
 * the published figures (docs/energy-presets.md) at their own sizes and
 * widths, and hand-computed interpolations between them.
 */
#include "model/preset_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/unit.h"
#include "util/diag.h"

#define DRAM SPEC_TECH_DRAM
#define SRAM SPEC_TECH_SRAM
#define NOSIZE 0   /* size_words 0: unbounded */

struct level_case {
	int preset;
	enum spec_tech tech;
	const char *class_name;
	uint64_t size_words;
	unsigned word_bits, block_size, md_bits;
	const char *action;
	double energy;          /* -1: the action must be absent */
};

#define H PRESET_HOROWITZ45
#define A PRESET_ACCELERGY45
#define E PRESET_EYERISS_NORM

static const struct level_case level_cases[] = {
	/* accelergy45: DRAM 8 pJ/bit, per vector access */
	{A, DRAM, "DRAM", NOSIZE, 64, 1, 0, "read", 512},
	{A, DRAM, "DRAM", NOSIZE, 8, 8, 0, "write", 512},
	{A, DRAM, "DRAM", NOSIZE, 16, 1, 0, "update", 128},
	{A, DRAM, "DRAM", NOSIZE, 8, 8, 0, "gated_read", -1},
	{A, DRAM, "DRAM", NOSIZE, 8, 8, 0, "metadata_read", -1},
	/* accelergy45 SRAMs at the published sizes and widths */
	{A, SRAM, "SRAM", 16384, 64, 1, 0, "read", 32.3},
	{A, SRAM, "SRAM", 16384, 64, 1, 0, "write", 26.1},
	{A, SRAM, "SRAM", 16384, 64, 1, 0, "update", 26.1},
	{A, SRAM, "SRAM", 131072, 8, 8, 0, "read", 32.3},  /* 128 KB, 64-bit vector */
	{A, SRAM, "SRAM", 16384, 64, 1, 28, "metadata_read", 32.3 / 64 * 28},
	{A, SRAM, "SRAM", 16384, 64, 1, 28, "metadata_write", 26.1 / 64 * 28},
	{A, SRAM, "SRAM", 16384, 64, 1, 28, "gated_read", 0.006},
	{A, SRAM, "SRAM", 16384, 64, 1, 28, "gated_metadata_update", 0.006},
	{A, SRAM, "SRAM", 4096, 512, 1, 0, "read", 286},
	{A, SRAM, "SRAM", 4096, 512, 1, 0, "write", 317},
	{A, SRAM, "SRAM", 4096, 512, 1, 0, "leak", 0},
	/* 64 KB: halfway in log2(size) between 512 B and 128 KB, per bit */
	{A, SRAM, "SRAM", 8192, 64, 1, 0, "read", 64 * (0.43 / 8 + 7.0 / 8 * (32.3 / 64 - 0.43 / 8))},
	/* 512 KB: the 128 KB -> 256 KB segment extended by one doubling */
	{A, SRAM, "SRAM", 65536, 64, 1, 0, "read", 64 * (286.0 / 512 * 2 - 32.3 / 64)},
	/* accelergy45 registers and register files */
	{A, SRAM, "aladdin_register", 1, 8, 1, 0, "read", 0.072},
	{A, SRAM, "aladdin_register", 1, 8, 1, 0, "gated_read", 0.003},
	{A, SRAM, "regfile", 2048, 8, 1, 0, "read", 1.68},
	{A, SRAM, "smartbuffer_RF", 2048, 8, 1, 0, "write", 1.68},
	{A, SRAM, "smartbuffer_RF", 8192, 8, 1, 0, "read", 1.68},        /* flat above 2 KB */
	{A, SRAM, "regfile", 1024, 8, 1, 0, "read", 8 * (0.009 + (1.68 / 8 - 0.009) * 1023 / 2047)},
	{A, SRAM, "SRAM", 512, 8, 1, 0, "read", 8 * (0.009 + (1.68 / 8 - 0.009) * 511 / 2047)},
	{A, SRAM, "regfile", 12, 16, 1, 0, "gated_read", 16 * 0.003 / 8},
	/* horowitz45 */
	{H, DRAM, "DRAM", NOSIZE, 64, 1, 0, "read", 1300},
	{H, DRAM, "DRAM", NOSIZE, 16, 4, 0, "write", 1300},
	{H, SRAM, "SRAM", 1024, 64, 1, 0, "read", 10},         /* 8 KB */
	{H, SRAM, "SRAM", 4096, 64, 1, 0, "read", 20},         /* 32 KB */
	{H, SRAM, "SRAM", 131072, 64, 1, 0, "read", 100},      /* 1 MB */
	{H, SRAM, "SRAM", 131072, 64, 1, 0, "write", 100},
	{H, SRAM, "SRAM", 16384, 32, 1, 0, "read", 32 * (20.0 / 64 + (100.0 - 20) / 64 / 5)},  /* 64 KB */
	{H, SRAM, "SRAM", 262144, 64, 1, 0, "read", 100 + (100.0 - 20) / 5},  /* 2 MB */
	{H, SRAM, "regfile", 64, 32, 1, 0, "read", 1},         /* 256 B register file */
	{H, SRAM, "SRAM", 256, 32, 1, 0, "read", 1},           /* 1 KB */
	{H, SRAM, "SRAM", 2048, 32, 2, 0, "read", 10},         /* 8 KB, 64-bit vector */
	{H, SRAM, "SRAM", 1024, 64, 1, 0, "gated_read", -1},
	{H, SRAM, "SRAM", 1024, 64, 1, 8, "metadata_read", 10.0 / 8},
	/* eyeriss_norm, in 16-bit MACs */
	{E, DRAM, "DRAM", NOSIZE, 16, 1, 0, "read", 200},
	{E, DRAM, "DRAM", NOSIZE, 16, 4, 0, "read", 800},
	{E, SRAM, "SRAM", 51200, 16, 1, 0, "read", 6},         /* 100 KB */
	{E, SRAM, "SRAM", 51200, 16, 4, 0, "write", 24},
	{E, SRAM, "regfile", 256, 16, 1, 0, "read", 1},        /* 0.5 KB */
	{E, SRAM, "regfile", 12, 16, 1, 0, "read", 1},
	{E, SRAM, "SRAM", 25728, 16, 1, 0, "read", 3.5},       /* 50.25 KB: halfway */
	{E, SRAM, "SRAM", NOSIZE, 16, 1, 0, "read", 6},
	{E, SRAM, "SRAM", 51200, 16, 1, 0, "gated_read", -1},
};

/* A storage level with the given parameters (static storage). */
static const struct spec_level *make_level(enum spec_tech tech, const char *cls,
					   uint64_t size_words, unsigned word_bits,
					   unsigned block_size, unsigned md_bits)
{
	static struct spec_level l;

	memset(&l, 0, sizeof(l));
	l.name = "Buffer";
	l.class_name = cls;
	l.technology = tech;
	l.has_size = size_words != NOSIZE;
	l.size_words = size_words;
	l.word_bits = word_bits;
	l.block_size = block_size;
	l.metadata_word_bits = md_bits;
	l.metadata_block_size = 1;
	return &l;
}

/* The energy of action 'name' in 't', or -1 when absent. */
static double action_pj(const struct spec_ert_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n_actions; i++)
		if (strcmp(t->actions[i].name, name) == 0)
			return t->actions[i].energy_pj;
	return -1;
}

static void test_level_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(level_cases) / sizeof(level_cases[0]); i++) {
		const struct level_case *c = &level_cases[i];
		struct spec_ert_action acts[PRESET_MAX_ACTIONS];
		struct spec_ert_table t;
		double got;

		model_preset_level_table(c->preset, make_level(c->tech, c->class_name, c->size_words,
					 c->word_bits, c->block_size, c->md_bits),
					 &t, acts);
		got = action_pj(&t, c->action);
		if (fabs(got - c->energy) > 1e-9 * (1 + fabs(c->energy)))
			fprintf(stderr, "\nlevel case %zu (%s %s %llu x %u/%u %s): %.9g, expected %.9g\n",
				i, model_preset_name(c->preset), c->class_name,
				(unsigned long long)c->size_words, c->word_bits, c->block_size,
				c->action, got, c->energy);
		CU_ASSERT_DOUBLE_EQUAL(got, c->energy, 1e-9 * (1 + fabs(c->energy)));
		CU_ASSERT_PTR_EQUAL(t.actions, acts);
		CU_ASSERT_STRING_EQUAL(t.component, "Buffer");
		CU_ASSERT_TRUE(t.n_actions <= PRESET_MAX_ACTIONS);
	}
}

/* The per-bit metadata assumption reproduces Accelergy's own metadata figure. */
static void test_metadata_consistency(void)
{
	struct spec_ert_action acts[PRESET_MAX_ACTIONS];
	struct spec_ert_table t;

	/* 128 KB SRAM with 28-bit metadata: published metadata read 14.0 pJ */
	model_preset_level_table(A, make_level(SRAM, "SRAM", 16384, 64, 1, 28), &t, acts);
	CU_ASSERT_TRUE(fabs(action_pj(&t, "metadata_read") - 14.0) / 14.0 < 0.02);
	/* 512 x 8b buffer priced as a register file: published SRAM read 0.43 */
	model_preset_level_table(A, make_level(SRAM, "SRAM", 512, 8, 1, 0), &t, acts);
	CU_ASSERT_TRUE(fabs(action_pj(&t, "read") - 0.43) / 0.43 < 0.15);
}

/* SRAM energy grows with size, for reads and writes, in every preset. */
static void test_monotone(void)
{
	int p;

	for (p = 0; p < PRESET_COUNT; p++) {
		double last_r = 0, last_w = 0;
		uint64_t words;

		for (words = 4; words <= (UINT64_C(1) << 24); words *= 2) {
			struct spec_ert_action acts[PRESET_MAX_ACTIONS];
			struct spec_ert_table t;
			double r, w;

			model_preset_level_table(p, make_level(SRAM, "SRAM", words, 16, 4, 0), &t, acts);
			r = action_pj(&t, "read");
			w = action_pj(&t, "write");
			CU_ASSERT_TRUE(r >= last_r && w >= last_w && r > 0 && w > 0);
			last_r = r;
			last_w = w;
		}
		/* strictly larger across the published range */
		{
			struct spec_ert_action a1[PRESET_MAX_ACTIONS], a2[PRESET_MAX_ACTIONS];
			struct spec_ert_table t1, t2;

			model_preset_level_table(p, make_level(SRAM, "SRAM", 2048, 16, 4, 0), &t1, a1);
			model_preset_level_table(p, make_level(SRAM, "SRAM", 65536, 16, 4, 0), &t2, a2);
			CU_ASSERT_TRUE(action_pj(&t2, "read") > action_pj(&t1, "read") * 1.5);
		}
	}
}

/* A register access is far below a DRAM access of the same width. */
static void test_register_vs_dram(void)
{
	int p;

	for (p = 0; p < PRESET_COUNT; p++) {
		struct spec_ert_action ar[PRESET_MAX_ACTIONS], ad[PRESET_MAX_ACTIONS];
		struct spec_ert_table tr, td;

		model_preset_level_table(p, make_level(SRAM, "regfile", 16, 16, 1, 0), &tr, ar);
		model_preset_level_table(p, make_level(DRAM, "DRAM", NOSIZE, 16, 1, 0), &td, ad);
		CU_ASSERT_TRUE(action_pj(&td, "read") > 100 * action_pj(&tr, "read"));
	}
}

/* dummy_storage levels cost nothing. */
static void test_dummy(void)
{
	int p;

	for (p = 0; p < PRESET_COUNT; p++) {
		struct spec_ert_action acts[PRESET_MAX_ACTIONS];
		struct spec_ert_table t;
		struct spec_level l = *make_level(SRAM, "dummy_storage", 1, 16, 1, 4);
		size_t i;

		l.is_dummy = true;
		model_preset_level_table(p, &l, &t, acts);
		CU_ASSERT_TRUE(t.n_actions >= 4);
		CU_ASSERT_DOUBLE_EQUAL(action_pj(&t, "read"), 0, 0);
		for (i = 0; i < t.n_actions; i++)
			CU_ASSERT_DOUBLE_EQUAL(t.actions[i].energy_pj, 0, 0);
	}
}

struct compute_case {
	int preset;
	const char *class_name;
	unsigned word_bits;
	const char *mult_width, *add_width;   /* attributes, NULL when absent */
	const char *action;
	double energy;
};

static void test_compute_table(void)
{
	/* not static: clang folds no pow() in a static initializer */
	const struct compute_case compute_cases[] = {
		{E, "intmac", 16, NULL, NULL, "compute", 1},
		{E, "intmac", 8, NULL, NULL, "compute", 0.25},
		{E, "intmac", 32, NULL, NULL, "compute", 4},
		{E, "fpmac", 16, NULL, NULL, "compute", 1},
		{E, "intmac", 16, "8", NULL, "compute", 0.25},
		{E, "intmac", 16, NULL, NULL, "compute_gated", -1},
		{A, "intmac", 8, NULL, NULL, "compute", 0.56},
		{A, "intmac", 8, NULL, NULL, "compute_gated", 0.036},
		{A, "mac", 16, "8", "8", "compute", 0.56},
		/* 16-bit: 0.56 * (12.68/4 + 0.21/2) / (12.68/16 + 0.21/4) */
		{A, "intmac", 16, NULL, NULL, "compute", 0.56 * (3.17 + 0.105) / (0.7925 + 0.0525)},
		{A, "intmac", 8, "8", "16", "compute", 0.56 * (0.7925 + 0.105) / (0.7925 + 0.0525)},
		{A, "fpmac", 32, NULL, NULL, "compute",
		 0.56 * (12.68 + 0.21) / (0.7925 + 0.0525) * (3.7 + 0.9) / (3.1 + 0.1)},
		{H, "intmac", 8, NULL, NULL, "compute", 0.2 + 0.03},
		{H, "intmac", 16, NULL, NULL, "compute", 1.0 + 0.05},
		{H, "intmac", 32, NULL, NULL, "compute", 3.1 + 0.1},
		{H, "fpmac", 16, NULL, NULL, "compute", 1.1 + 0.4},
		{H, "FP_MAC", 32, NULL, NULL, "compute", 3.7 + 0.9},
		{H, "intmac", 64, NULL, NULL, "compute", 3.1 * 4 + 0.1 * 2},       /* extrapolated */
		{H, "intmac", 4, NULL, NULL, "compute", 0.2 / 4 + 0.03 / 2},
		{H, "intmac", 8, "16", "32", "compute", 1.0 + 0.1},
		{H, "intmac", 8, "junk", NULL, "compute", 0.2 + 0.03},             /* ignored */
		{H, "intmac", 12, NULL, NULL, "compute",
		 0.2 * pow(1.5, log2(5.0)) + 0.03 * pow(1.5, log2(5.0 / 3))},  /* power law, 8 -> 16 */
		{H, "intmac", 8, NULL, NULL, "compute_gated", -1},
	};
	size_t i;

	for (i = 0; i < sizeof(compute_cases) / sizeof(compute_cases[0]); i++) {
		const struct compute_case *c = &compute_cases[i];
		struct spec_ert_action acts[PRESET_MAX_ACTIONS];
		struct spec_attr attrs[2];
		struct spec_compute comp;
		struct spec_ert_table t;
		double got;

		memset(&comp, 0, sizeof(comp));
		memset(attrs, 0, sizeof(attrs));
		comp.name = "mac";
		comp.class_name = c->class_name;
		comp.word_bits = c->word_bits;
		comp.attrs = attrs;
		if (c->mult_width)
			attrs[comp.n_attrs++] = (struct spec_attr){.key = "multiplier_width",
								   .value = c->mult_width};
		if (c->add_width)
			attrs[comp.n_attrs++] = (struct spec_attr){.key = "adder-width",
								   .value = c->add_width};
		model_preset_compute_table(c->preset, &comp, &t, acts);
		got = action_pj(&t, c->action);
		if (fabs(got - c->energy) > 1e-9 * (1 + fabs(c->energy)))
			fprintf(stderr, "\ncompute case %zu (%s %s %u): %.9g, expected %.9g\n", i,
				model_preset_name(c->preset), c->class_name, c->word_bits, got, c->energy);
		CU_ASSERT_DOUBLE_EQUAL(got, c->energy, 1e-9 * (1 + fabs(c->energy)));
		CU_ASSERT_STRING_EQUAL(t.component, "mac");
	}
}

static void test_names(void)
{
	const char *const *names = model_preset_names();
	int i;

	CU_ASSERT_EQUAL(model_preset_find("horowitz45"), PRESET_HOROWITZ45);
	CU_ASSERT_EQUAL(model_preset_find("accelergy45"), PRESET_ACCELERGY45);
	CU_ASSERT_EQUAL(model_preset_find("eyeriss_norm"), PRESET_EYERISS_NORM);
	CU_ASSERT_EQUAL(model_preset_find("Eyeriss-Norm"), PRESET_EYERISS_NORM);
	CU_ASSERT_EQUAL(model_preset_find("eyeriss"), -1);
	CU_ASSERT_EQUAL(model_preset_find(""), -1);
	CU_ASSERT_EQUAL(model_preset_find(NULL), -1);
	for (i = 0; i < PRESET_COUNT; i++) {
		CU_ASSERT_STRING_EQUAL(names[i], model_preset_name(i));
		CU_ASSERT_EQUAL(model_preset_find(names[i]), i);
		CU_ASSERT_TRUE(model_preset_version(i)[0] != '\0');
	}
	CU_ASSERT_PTR_NULL(names[PRESET_COUNT]);
	CU_ASSERT_STRING_EQUAL(diag_suggest("acclergy45", names, PRESET_COUNT), "accelergy45");
	CU_ASSERT_STRING_EQUAL(model_preset_unit(PRESET_EYERISS_NORM), "MAC16");
	CU_ASSERT_STRING_EQUAL(model_preset_unit(PRESET_DEFAULT), "pJ");
}

static CU_TestInfo preset_tests[] = {
	{"storage tables", test_level_table},
	{"metadata and small-SRAM consistency", test_metadata_consistency},
	{"SRAM energy grows with size", test_monotone},
	{"register far below DRAM", test_register_vs_dram},
	{"dummy storage is free", test_dummy},
	{"compute tables", test_compute_table},
	{"names, versions, units", test_names},
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{.pName = "model preset", .pTests = preset_tests},
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
