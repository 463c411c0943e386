/*
 * model/sparse_occupancy.c: expected occupancy with empty tiles dropped
 * under a parent with metadata (semantics 4.3.3), overbooking and the
 * metadata capacity check (4.7), and the vector-access ratio of compressed
 * tiles (3.2) on 04.2.3.
 */
#include <stdio.h>
#include <string.h>

#include "density/density.h"
#include "formats/format.h"
#include "model/model.h"
#include "specs/spec.h"
#include "tests/model/tb.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/xalloc.h"

static struct tb tb_;
static struct model_result res_;

static int eval(struct tb *b, struct model_result *r)
{
	struct model_ws *ws = model_ws_new(&b->s, NULL, NULL);
	int rc = model_eval(ws, &b->m, r);

	model_ws_free(ws);
	return rc;
}

/*
 * A[K] (0.25) in 2-element tiles on 4 PEs under a GLB that keeps A
 * compressed ('with_format'), B and Z at DRAM only.
 */
static void pe_design(struct tb *b, bool with_format)
{
	struct spec_level *lv;

	tb_init(b);
	tb_dim(b, "K", 64);
	tb_dim(b, "M", 1);
	tb_tensor(b, "A", false, "K");
	tb_tensor(b, "B", false, "K");
	tb_tensor(b, "Z", true, "M");
	tb_density(b, "A", 0.25);
	tb_compute(b, "mac", 4, 1);
	tb_ert(b, -1, "compute=1");
	tb_level(b, "PE", 16, 16, 16, 4, 1);
	lv = tb_level(b, "GLB", 256, 16, 16, 1, 1);
	lv->metadata_storage_width = 16;
	lv->metadata_word_bits = 8;
	tb_level(b, "DRAM", 0, 64, 16, 1, 1);
	tb_ert(b, 0, "read=1 write=1 update=1");
	tb_ert(b, 1, "read=2 write=2 update=2 metadata_read=1 metadata_write=1");
	tb_ert(b, 2, "read=100 write=100 update=100");
	tb_keep(b, 0, "A");
	tb_keep(b, 1, "A");
	tb_temporal(b, 0, "K2", "K");
	tb_spatial(b, 1, "K4", "K", 1);
	tb_temporal(b, 1, "K8", "K");
	if (with_format)
		tb_format(b, 1, "A", "UOP UOP CP");
	else
		tb_saf(b, 1, SPEC_SAF_GATING, "B", "A");   /* something sparse, no format */
	if (tb_finish(b) < 0)
		BUG("pe_design");
}

/*
 * A 2-element tile of A at 0.25 is empty with probability 0.5 (fixed: x =
 * 0.5). Under a GLB with metadata empty tiles are never sent: half the PEs
 * work on average, and a tile that is sent holds 1 non-zero on average.
 */
static void test_drop_empty(void)
{
	const struct model_tile *t;

	pe_design(&tb_, true);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[0][0];
	CU_ASSERT_EQUAL(t->shape, 2);
	CU_ASSERT_DOUBLE_EQUAL(t->avg_replication, 2.0, 1e-12);
	CU_ASSERT_EQUAL(t->max_x * t->max_y, 4);
	CU_ASSERT_DOUBLE_EQUAL(t->expected_occupancy, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t->expected_density, 0.5, 1e-12);
	/* the GLB tile itself: 64 x 0.25, its parent DRAM has no metadata */
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[1][0].expected_occupancy, 16.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[1][0].avg_replication, 1.0, 0);

	pe_design(&tb_, false);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[0][0];
	CU_ASSERT_DOUBLE_EQUAL(t->avg_replication, 4.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(t->expected_occupancy, 0.5, 1e-12);
}

/*
 * A[K] of 128 points, hypergeometric 0.25 (32 non-zeros), in tiles of 64
 * at a GLB of 'glb_words' that keeps it in one CP rank; DRAM walks K2.
 */
static void hg_design(struct tb *b, unsigned glb_words, unsigned md_depth, bool overbook)
{
	struct spec_level *lv;

	tb_init(b);
	tb_dim(b, "K", 128);
	tb_tensor(b, "A", false, "K");
	tb_tensor(b, "Z", true, "K");
	b->tensors[0].density.kind = SPEC_DENSITY_HYPERGEOMETRIC;
	b->tensors[0].density.density = 0.25;
	b->tensors[0].density.is_default = false;
	tb_compute(b, "mac", 1, 1);
	tb_ert(b, -1, "compute=1");
	lv = tb_level(b, "GLB", glb_words, 16, 16, 1, 1);
	lv->allow_overbooking = overbook;
	lv->metadata_storage_width = 8;
	lv->metadata_word_bits = 8;
	lv->has_metadata_storage_depth = true;
	lv->metadata_storage_depth = md_depth;
	lv->metadata_size_bits = lv->effective_metadata_size_bits = (uint64_t)md_depth * 8;
	tb_level(b, "DRAM", 0, 64, 16, 1, 1);
	tb_ert(b, 0, "read=2 write=2 update=2 metadata_read=1 metadata_write=1");
	tb_ert(b, 1, "read=100 write=100 update=100");
	tb_keep(b, 0, "A");
	tb_temporal(b, 0, "K64", "K");
	tb_temporal(b, 1, "K2", "K");
	tb_format(b, 0, "A", "CP");
	if (tb_finish(b) < 0)
		BUG("hg_design");
}

/* P(a 64-point tile of A holds at most n non-zeros). */
static double cdf(const struct tb *b, uint64_t n)
{
	struct density_model *m = density_model_new(&b->tensors[0]);
	struct density_tile t = density_tile_flat(64);
	double c = 0;
	uint64_t k;

	for (k = 0; k <= n; k++)
		c += density_prob(m, &t, NULL, k);
	density_model_free(m);
	return c;
}

/*
 * The max occupancy of a 64-point tile is 32, which does not fit 18 words.
 * With overbooking the tile reserves the occupancy at the largest
 * confidence (to 1%) whose quantile fits, and its accesses cost that share.
 */
static void test_overbooking(void)
{
	const struct model_tile *t, *p;
	double c18, base;

	hg_design(&tb_, 18, 1024, false);
	CU_ASSERT_EQUAL(eval(&tb_, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_OVER_CAPACITY);

	hg_design(&tb_, 18, 1024, true);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	t = &res_.tiles[0][0];
	c18 = cdf(&tb_, 18);
	CU_ASSERT(c18 > 0.5 && c18 < 1);
	CU_ASSERT(t->confidence <= c18 + 1e-12);
	CU_ASSERT(t->confidence > c18 - 0.011);
	CU_ASSERT(t->utilized_capacity <= 18);
	CU_ASSERT(t->utilized_capacity >= 16);
	/* one CP rank: a coordinate per non-zero (its payload is the data) */
	CU_ASSERT_EQUAL(t->fmt_capacity[0][0], t->utilized_capacity);
	/* DRAM pays the refetches of the 1 - c cases: GLB's read vectors (block
	 * 1) at DRAM's read energy (its metadata reads cost 0 there) */
	p = &res_.tiles[1][0];
	base = (double)((p->actions[MODEL_OP_RANDOM_READ] + 3) / 4) * 100;
	CU_ASSERT_DOUBLE_EQUAL(p->energy_pj, base + (double)t->actions[MODEL_OP_RANDOM_READ] *
			       100 * (1 - t->confidence), 1e-6);
	/* GLB's own accesses cost the confidence's share: data at 2 pJ a word, one
	 * 8-bit coordinate per metadata vector at 1 pJ */
	CU_ASSERT_DOUBLE_EQUAL(t->energy_pj, t->confidence *
			       (2.0 * (double)(t->actions[MODEL_OP_RANDOM_READ] +
					       t->actions[MODEL_OP_RANDOM_FILL]) +
				(double)(t->fmt_access[MODEL_FMT_READ][MODEL_FMT_ACTUAL][0][0] +
					 t->fmt_access[MODEL_FMT_FILL][MODEL_FMT_ACTUAL][0][0])), 1e-9);

	/* room for everything: no overbooking needed, confidence 1 */
	hg_design(&tb_, 64, 1024, true);
	CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
	CU_ASSERT_EQUAL(res_.tiles[0][0].utilized_capacity, 32);
}

/* 32 coordinates of 8 bits do not fit 16 rows of 8 bits. */
static void test_metadata_capacity(void)
{
	hg_design(&tb_, 64, 16, false);
	CU_ASSERT_EQUAL(eval(&tb_, &res_), -1);
	CU_ASSERT_EQUAL(res_.status, EVAL_METADATA_CAPACITY);
	CU_ASSERT_EQUAL(res_.fail_level, 0);
	CU_ASSERT_EQUAL(res_.fail_tensor, 0);
	hg_design(&tb_, 64, 32, false);
	CU_ASSERT_EQUAL(eval(&tb_, &res_), 0);
}

/*
 * 04.2.3 shared_glb Inputs: a compressed tile of 96 at density 0.275 in
 * blocks of 4 is small against the table's threshold (188 for index 1):
 * sum ceil(n/4) P(n) = 7 (n is 26 or 27) over 96 x 0.275 / 4 = 6.6.
 */
static void test_vector_ratio(void)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	struct spec_set *s;
	struct model_ws *ws;

	s = unit_load_case("04.2.3-eyeriss-like-onchip-compression", files, 4, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ws = model_ws_new(s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, &res_), 0);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[5][1].vector_ratio, 7 / 6.6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[6][1].vector_ratio, 1.0, 0);  /* DRAM: a big tile */
	CU_ASSERT_DOUBLE_EQUAL(res_.tiles[5][2].vector_ratio, 1.0, 0);  /* uncompressed */
	model_ws_free(ws);
	spec_set_free(s);
}

/*
 * N:M as stored: A[M,K] (8 x 64) pruned n:m along K, kept at a GLB in the
 * named n:m format with 'word_bits' values. The GLB tile stores the values
 * and one ceil(log2 m)-bit index per value: 9/16 of dense for 2:4 at 16
 * bits, 10/16 at 8 bits, 33/64 for 1:2 at 32 bits (formats/nm.c gives the
 * same fractions).
 */
static void nm_design(struct tb *b, unsigned n, unsigned m, unsigned word_bits)
{
	struct spec_level *lv;
	char name[16];

	tb_init(b);
	tb_dim(b, "M", 8);
	tb_dim(b, "K", 64);
	tb_tensor(b, "A", false, "M,K");
	tb_tensor(b, "Z", true, "M");
	b->tensors[0].density.kind = SPEC_DENSITY_NM;
	b->tensors[0].density.nm_n = n;
	b->tensors[0].density.nm_m = m;
	b->tensors[0].density.nm_dim = 1;
	b->tensors[0].density.density = (double)n / m;
	b->tensors[0].density.is_default = false;
	tb_compute(b, "mac", 1, 1);
	tb_ert(b, -1, "compute=1");
	lv = tb_level(b, "GLB", 0, word_bits, word_bits, 1, 1);
	lv->metadata_storage_width = 48;   /* whole 1-, 2- and 3-bit indices (32 raises 3 to 4) */
	tb_level(b, "DRAM", 0, 64, word_bits, 1, 1);
	tb_ert(b, 0, "read=2 write=2 update=2 metadata_read=1 metadata_write=1");
	tb_ert(b, 1, "read=100 write=100 update=100");
	tb_keep(b, 0, "A");
	tb_temporal(b, 0, "K64 M8", "KM");
	snprintf(name, sizeof(name), "%u:%u", n, m);
	tb_format(b, 0, "A", name);
	if (tb_finish(b) < 0)
		BUG("nm_design");
}

static void test_nm_stored(void)
{
	static const struct { unsigned n, m, bits; uint64_t num, den; } rows[] = {
		{ 2, 4, 16, 9, 16 }, { 2, 4, 8, 10, 16 }, { 1, 2, 32, 33, 64 },
		{ 2, 8, 8, 11, 32 }, { 1, 4, 16, 9, 32 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct model_tile *t;
		struct fmt_nm_ratio q;
		uint64_t md_bits = 0;
		unsigned r;
		nm_design(&tb_, rows[i].n, rows[i].m, rows[i].bits);
		CU_ASSERT_EQUAL_FATAL(eval(&tb_, &res_), 0);
		t = &res_.tiles[0][0];
		CU_ASSERT_EQUAL(t->shape, 512);
		CU_ASSERT_EQUAL(t->utilized_capacity, 512 / rows[i].m * rows[i].n);
		for (r = 0; r < t->n_fmt_ranks; r++)
			md_bits += t->fmt_capacity[r][0] * t->fmt_md_bits[r] +
				   t->fmt_capacity[r][1] * t->fmt_pl_bits[r];
		CU_ASSERT_EQUAL((t->utilized_capacity * rows[i].bits + md_bits) * rows[i].den,
				t->shape * rows[i].bits * rows[i].num);
		q = fmt_nm_stored_ratio(rows[i].n, rows[i].m, rows[i].bits, 0);
		CU_ASSERT_EQUAL(q.num * rows[i].den, q.den * rows[i].num);
	}
}

static CU_TestInfo tests[] = {
	{ "empty tiles dropped under metadata", test_drop_empty },
	{ "overbooking", test_overbooking },
	{ "metadata capacity", test_metadata_capacity },
	{ "vector ratio of a compressed tile", test_vector_ratio },
	{ "N:M as stored: 9/16, 10/16, 33/64", test_nm_stored },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sparse occupancy", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
