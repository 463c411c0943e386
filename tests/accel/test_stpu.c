/*
 * stpu.c: accel_stpu_eval() on a hand matrix whose packing, blocks, cycles,
 * events and energies were worked out by hand (docs/stpu.md): the counts of
 * every scheme, the horowitz45 preset's numbers and how the per-state
 * energies are composed from them, user overrides, the ratios to the TPU,
 * which matrices get the density-aware estimate, and the errors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel.h"
#include "accel/stpu_int.h"
#include "tests/accel/stpu_fixture.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/* 4 x 6: columns {0,1} {1} {2,3} {0} {} {1,2} (rows), as in test_stpu_pack's case A. */
static const char mtx_a[] =
	"%%MatrixMarket matrix coordinate pattern general\n"
	"4 6 8\n1 1\n2 1\n2 2\n3 3\n4 3\n1 4\n2 6\n3 6\n";

static struct spec_set *load_a(const char *dtype, const char *energy)
{
	char yaml[1024];
	sf_write("a.mtx", mtx_a);
	snprintf(yaml, sizeof(yaml), "stpu:\n  array: {rows: 4, cols: 2, dtype: %s}\n%s"
		 "  matrix: {file: a.mtx}\n", dtype, energy);
	return sf_load(yaml);
}

struct count_row {
	enum accel_stpu_scheme k;
	uint64_t blocks, cycles, hold, latch, accumulate, bypass, mac, x_forward, vector_reads,
		weight_words, weight_hops, output_accesses;
};

/*
 * C0: groups (len, nnz) (2, 4) (2, 2) | (1, 2) in two blocks of 4 rows.
 * Block 0: forwards 4 (2 + 2), hold 4 x 1 + 2 x 1, latch = accumulate = 6,
 * bypass 8 - 6; block 1: forwards 4, latch = accumulate = 2, bypass 6.
 * Schedule: E0 = 3, 4; block 1 (W = 2): E = 5 (rule 2), 6; 6 + 4 rows + 1.
 * TPU: 6 columns in 3 blocks of 2: 8 multiply-adds each; E = 1,2 | 3,4 | 5,6.
 * C1 packs like C0 here but differently (3 groups too): (2,4) (3,3) | (1,1).
 */
static const struct count_row counts[] = {
	{ ACCEL_STPU_TPU, 3, 11, 0, 0, 0, 0, 24, 24, 6, 24, 36, 12 },
	{ ACCEL_STPU_C0, 2, 11, 6, 8, 8, 8, 0, 20, 5, 16, 24, 8 },
};

static void test_counts(void)
{
	struct spec_set *s = load_a("fp32", "");
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	CU_ASSERT_EQUAL(r.rows, 4);
	CU_ASSERT_EQUAL(r.cols, 6);
	CU_ASSERT_EQUAL(r.nnz, 8);
	CU_ASSERT_EQUAL(r.index_bits, 3);       /* ceil(log2 6) */
	CU_ASSERT_EQUAL(r.value_bits, 32);
	CU_ASSERT_EQUAL(r.accumulator_bits, 32);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const struct count_row *c = &counts[i];
		const struct accel_stpu_counts *n = &r.scheme[c->k].counts;
		CU_ASSERT_TRUE(r.scheme[c->k].evaluated);
		CU_ASSERT_EQUAL(n->blocks, c->blocks);
		CU_ASSERT_EQUAL(n->cycles, c->cycles);
		CU_ASSERT_EQUAL(n->hold, c->hold);
		CU_ASSERT_EQUAL(n->latch, c->latch);
		CU_ASSERT_EQUAL(n->accumulate, c->accumulate);
		CU_ASSERT_EQUAL(n->bypass, c->bypass);
		CU_ASSERT_EQUAL(n->mac, c->mac);
		CU_ASSERT_EQUAL(n->x_forward, c->x_forward);
		CU_ASSERT_EQUAL(n->vector_reads, c->vector_reads);
		CU_ASSERT_EQUAL(n->weight_words, c->weight_words);
		CU_ASSERT_EQUAL(n->weight_hops, c->weight_hops);
		CU_ASSERT_EQUAL(n->output_accesses, c->output_accesses);
	}
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].packing.efficiency, 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].speedup_vs_tpu, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_TPU].speedup_vs_tpu, 1.0, 1e-12);
	CU_ASSERT_FALSE(r.estimate.valid);      /* a file: no density model to estimate from */
	spec_set_free(s);
}

/*
 * The preset (docs/sources.md §6.1) and the composition of each
 * event's energy, fp32 with a 3-bit index; then both totals by hand.
 */
static void test_energy(void)
{
	struct spec_set *s = load_a("fp32", "");
	struct accel_stpu_result r;
	const double *e = r.energy_pj;
	const double reg = 0.009, cmp = 0.029 / 32, sram = 10.0 / 64, mac = 3.7 + 0.9;
	double c0, tpu;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	CU_ASSERT_STRING_EQUAL(r.energy_preset, "horowitz45");
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_MAC], mac, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_REGISTER_BIT], reg, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_COMPARE_BIT], cmp, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_SRAM_BIT], sram, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_WEIGHT_BUFFER_BIT], sram, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_HOLD], 3 * cmp, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_LATCH], 3 * cmp + 32 * reg, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_ACCUMULATE], mac + 32 * reg, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_BYPASS], 32 * reg, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_X_FORWARD], 35 * reg, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_TPU_MAC], mac + 32 * reg, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e[SPEC_STPU_E_TPU_X_FORWARD], 32 * reg, 1e-15);
	/* C0: states, forwards, weights (words + hops), vector reads, outputs */
	c0 = 6 * e[SPEC_STPU_E_HOLD] + 8 * e[SPEC_STPU_E_LATCH] + 8 * e[SPEC_STPU_E_ACCUMULATE] +
	     8 * e[SPEC_STPU_E_BYPASS] + 20 * 35 * reg + 16 * 35 * sram + 24 * 35 * reg +
	     5 * 35 * sram + 8 * 2 * 32 * sram;
	tpu = 24 * (mac + 32 * reg) + 24 * 32 * reg + 24 * 32 * sram + 36 * 32 * reg +
	      6 * 32 * sram + 12 * 2 * 32 * sram;
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].energy.total_pj, c0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_TPU].energy.total_pj, tpu, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].energy.output_pj, 8 * 64 * sram, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].energy_ratio_vs_tpu, tpu / c0, 1e-12);
	spec_set_free(s);
}

/* int8: the 8-bit multiply and 32-bit add; overrides win over derived entries. */
static void test_int8_and_overrides(void)
{
	struct spec_set *s = load_a("int8", "  energy: {register_pj_per_bit: 0.01, hold_pj: 1, "
					    "output_buffer_pj_per_bit: 0}\n");
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	CU_ASSERT_EQUAL(r.value_bits, 8);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_MAC], 0.2 + 0.1, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_REGISTER_BIT], 0.01, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_HOLD], 1.0, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_LATCH], 3 * 0.029 / 32 + 8 * 0.01, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_X_FORWARD], 11 * 0.01, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_OUTPUT_BUFFER_BIT], 0.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.energy_pj[SPEC_STPU_E_VECTOR_BUFFER_BIT], 10.0 / 64, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].energy.output_pj, 0.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C0].energy.pe_pj,
			       6 * 1.0 + 8 * (3 * 0.029 / 32 + 0.08) + 8 * (0.3 + 0.32) + 8 * 0.32,
			       1e-9);
	spec_set_free(s);
}

/* Only the asked schemes run; without the TPU there are no ratios. */
static void test_schemes_mask(void)
{
	struct spec_set *s = load_a("fp32", "");
	struct accel_stpu_options o = { false, 1u << ACCEL_STPU_C1 };
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, &o, &r, &err), 0);
	CU_ASSERT_FALSE(r.scheme[ACCEL_STPU_TPU].evaluated);
	CU_ASSERT_FALSE(r.scheme[ACCEL_STPU_C0].evaluated);
	CU_ASSERT_TRUE(r.scheme[ACCEL_STPU_C1].evaluated);
	CU_ASSERT_FALSE(r.scheme[ACCEL_STPU_KMZ].evaluated);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_C1].packing.packed_width, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.scheme[ACCEL_STPU_C1].speedup_vs_tpu, 0.0, 0);
	spec_set_free(s);
}

/* Evaluations are deterministic; the estimate is given for uniform models only. */
static void test_estimate_kinds(void)
{
	static const char *const designs[] = {
		"stpu:\n  array: {rows: 8, cols: 8}\n"
		"  matrix: {rows: 50, cols: 40, density: 0.05, seed: 3}\n",
		"stpu:\n  array: {rows: 8, cols: 8}\n"
		"  matrix: {rows: 50, cols: 40, density: {distribution: hypergeometric, "
		"density: 0.9}, seed: 3}\n",
		"stpu:\n  array: {rows: 8, cols: 8}\n"
		"  matrix: {rows: 30, cols: 30, density: {distribution: banded, band_width: 2}}\n",
		"stpu:\n  array: {rows: 8, cols: 8}\n"
		"  matrix: {rows: 70, cols: 50, density: {distribution: power_law, density: 0.1, "
		"exponent: 1}, seed: 2}\n",
	};
	static const bool estimated[] = { true, true, false, false };
	size_t i;

	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		struct spec_set *s = sf_load(designs[i]);
		struct accel_stpu_result r1, r2;
		struct strbuf err = STRBUF_INIT;
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r1, &err), 0);
		CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r2, &err), 0);
		CU_ASSERT_EQUAL(r1.estimate.valid, estimated[i]);
		CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof(r1)), 0);
		spec_set_free(s);
	}
}

/*
 * A matrix too large to generate is an error with a message, not a crash
 * (the loader refuses such a design first: the matrix is grown after it).
 */
static void test_too_large(void)
{
	struct spec_set *s = sf_load("stpu:\n  matrix: {rows: 10, cols: 10, density: 0.5}\n");
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	((struct spec_stpu *)s->stpu)->matrix_rows = 10000000;
	((struct spec_stpu *)s->stpu)->matrix_cols = 10000000;
	CU_ASSERT_EQUAL(accel_stpu_eval(s, NULL, &r, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "a 10000000 x 10000000 matrix with 50000000000000 non-zeros "
			       "is too large to generate (at most 2^32 positions, or 2^27 "
			       "non-zeros)");
	strbuf_release(&err);
	spec_set_free(s);
}

/* The reference cost of TPU and KMZ: partition by partition through stpu_pack(), block by block. */
struct ref_cost {
	enum accel_stpu_scheme k;
	unsigned saw;
	struct stpu_sched sched;
	struct accel_stpu_counts n;
};

static void ref_part(void *ctx, const struct stpu_part *p)
{
	struct ref_cost *x = ctx;
	size_t q, c;

	for (q = 0; q < p->n_groups; q += x->saw) {
		unsigned w = (unsigned)(p->n_groups - q < x->saw ? p->n_groups - q : x->saw);
		uint64_t sum_l = 0;
		for (c = 0; c < w; c++)
			sum_l += p->len[q + c];
		stpu_sched_block(&x->sched, p->rows, w, p->len + q);
		x->n.blocks++;
		x->n.weight_words += (uint64_t)p->rows * x->saw;
		x->n.weight_hops += (uint64_t)p->rows * (x->saw * (x->saw + 1) / 2);
		x->n.output_accesses += p->rows;
		x->n.x_forward += (uint64_t)p->rows * (x->k == ACCEL_STPU_KMZ ? sum_l : w);
		x->n.mac += (uint64_t)p->rows * w;
		x->n.bypass += (uint64_t)p->rows * (x->saw - w);
		x->n.vector_reads += x->k == ACCEL_STPU_KMZ ? sum_l : w;
	}
}

/*
 * TPU and KMZ present the same groups to every partition, so the model
 * costs their full partitions at once: the same counts, cycles and packing
 * statistics as a walk partition by partition and block by block, on
 * generated matrices of several shapes, arrays and KMZ budgets.
 */
static void test_uniform_schemes(void)
{
	static const char *const designs[] = {
		"{rows: 4, cols: 2}", "{rows: 16, cols: 8}", "{rows: 7, cols: 5}", "{rows: 1, cols: 1}",
	};
	static const char *const matrices[] = {
		"{rows: 300, cols: 200, density: 0.02, seed: 4}",
		"{rows: 129, cols: 517, density: 0.3, seed: 5}",
		"{rows: 1000, cols: 3, density: 0.001, seed: 6}",
		"{rows: 50, cols: 50, density: 0, seed: 6}",
	};
	static const char *const kmz[] = { "{max_columns: 8, max_conflict_fraction: 0}",
					   "{max_columns: 3, max_conflict_fraction: 0.05}" };
	size_t d, m, z;
	unsigned k;

	for (d = 0; d < 4; d++)
		for (m = 0; m < 4; m++)
			for (z = 0; z < 2; z++) {
				char yaml[512];
				struct strbuf err = STRBUF_INIT;
				struct spec_set *s;
				struct accel_stpu_result r;
				struct stpu_pattern pat;
				snprintf(yaml, sizeof(yaml), "stpu:\n  array: %s\n  packing: {kmz: %s}\n"
					 "  matrix: %s\n", designs[d], kmz[z], matrices[m]);
				s = sf_load(yaml);
				CU_ASSERT_PTR_NOT_NULL_FATAL(s);
				CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
				CU_ASSERT_EQUAL_FATAL(stpu_pattern_build(s->stpu, &pat, &err), 0);
				for (k = ACCEL_STPU_TPU; k <= ACCEL_STPU_KMZ; k += 3) {
					struct ref_cost x;
					struct stpu_pack_params pp;
					struct accel_stpu_packing st;
					const struct accel_stpu_scheme_result *got = &r.scheme[k];
					memset(&x, 0, sizeof(x));
					memset(&pp, 0, sizeof(pp));
					x.k = (enum accel_stpu_scheme)k;
					x.saw = s->stpu->array_cols;
					pp.part_rows = s->stpu->array_rows;
					pp.kmz_max_columns = s->stpu->kmz_max_columns;
					pp.kmz_max_conflict_fraction = s->stpu->kmz_max_conflict_fraction;
					stpu_sched_init(&x.sched, s->stpu->array_rows, x.saw,
							STPU_TRIGGER_ARRIVAL);
					stpu_pack(&pat, x.k, &pp, &st, ref_part, &x);
					x.n.cycles = stpu_sched_cycles(&x.sched);
					CU_ASSERT_EQUAL(memcmp(&got->counts, &x.n, sizeof(x.n)), 0);
					CU_ASSERT_EQUAL(memcmp(&got->packing, &st, sizeof(st)), 0);
					if (memcmp(&got->counts, &x.n, sizeof(x.n)))
						fprintf(stderr, "%s %s: %llu cycles, reference %llu\n",
							accel_stpu_scheme_name(x.k), yaml,
							(unsigned long long)got->counts.cycles,
							(unsigned long long)x.n.cycles);
					stpu_sched_release(&x.sched);
				}
				stpu_pattern_release(&pat);
				spec_set_free(s);
			}
}

/*
 * One non-zero in a 10^6 x 10^6 matrix: the work follows the non-zeros and
 * the array (this took minutes when every partition walked every column).
 * TPU: 7813 partitions (the last of 64 rows) of 7813 blocks, the last block
 * ending at (B + 1) saw - 2 + 64; STPU-C0: one group, one block; KMZ: one
 * group streamed through every partition.
 */
static void test_huge_sparse(void)
{
	struct spec_set *s = sf_load("stpu:\n  matrix: {rows: 1000000, cols: 1000000, "
				     "density: 1e-12}\n");
	const uint64_t P = 7813, B = P * P;
	struct accel_stpu_result r;
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(accel_stpu_eval(s, NULL, &r, &err), 0);
	CU_ASSERT_EQUAL(r.nnz, 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_TPU].counts.blocks, B);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_TPU].counts.cycles, (B + 1) * 128 - 2 + 64 + 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_TPU].counts.mac, UINT64_C(1000000) * 1000000);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_TPU].packing.packed_width, P * 1000000);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_C0].packing.packed_width, 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_C0].counts.blocks, 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_C1].counts.latch, 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_KMZ].packing.n_groups_total, 1);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_KMZ].counts.blocks, P);
	CU_ASSERT_EQUAL(r.scheme[ACCEL_STPU_KMZ].counts.cycles, (P + 1) * 128 - 2 + 64 + 1);
	spec_set_free(s);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(accel_stpu_scheme_name(ACCEL_STPU_TPU), "TPU");
	CU_ASSERT_STRING_EQUAL(accel_stpu_scheme_name(ACCEL_STPU_C0), "STPU-C0");
	CU_ASSERT_STRING_EQUAL(accel_stpu_scheme_name(ACCEL_STPU_C1), "STPU-C1");
	CU_ASSERT_STRING_EQUAL(accel_stpu_scheme_name(ACCEL_STPU_KMZ), "KMZ");
	CU_ASSERT_STRING_EQUAL(accel_stpu_scheme_name(ACCEL_STPU_N_SCHEMES), "?");
}

static CU_TestInfo tests[] = {
	{ "counts", test_counts },
	{ "TPU and KMZ costed a run of partitions at once", test_uniform_schemes },
	{ "a huge sparse matrix", test_huge_sparse },
	{ "energy", test_energy },
	{ "int8 and overrides", test_int8_and_overrides },
	{ "schemes mask", test_schemes_mask },
	{ "estimate by density kind", test_estimate_kinds },
	{ "too large", test_too_large },
	{ "names", test_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "accel/stpu", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
