/*
 * saf/propagate.c: local application and propagation of the storage
 * optimizations (semantics 4.5b) on the worked cases of semantics 5.1 and
 * 5.2, a chain of two optimized levels (with Timeloop's format quirks), and
 * spatial skipping alone and combined with temporal skipping on one level.
 */
#include <stdio.h>
#include <string.h>

#include "saf/saf.h"
#include "tests/unit.h"
#include "util/xalloc.h"

#define NL 2    /* levels per case: 0 inner, 1 outer */

/* One level of a case: inputs. */
struct lin {
	bool kept, md;
	unsigned ranks;
	int child;
	char act;                 /* 0, 'g' gate, 's' skip */
	double p;
	bool spatial, nested;
	double ps;
	uint64_t r, f, u, tr;     /* random reads, fills, updates; temporal reductions */
	uint64_t fr[2][2], ff[2][2];   /* format reads, fills: [rank][md, pl] */
};

/* One level of a case: expected outputs. */
struct lout {
	uint64_t r[3], f[3], u[3];          /* random, gated, skipped */
	uint64_t tr;
	uint64_t fr[3][2][2], ff[3][2][2];  /* [class][rank][md, pl] */
};

struct prop_case {
	const char *what;
	bool rw;
	struct lin in[NL];
	uint64_t computes_in, computes_out;
	bool gs;
	double icp;
	struct lout out[NL];
};

static const struct prop_case cases[] = {
	{ "5.1 01.2.2 B gated on A", false,
	  { { .kept = true, .child = -1, .act = 'g', .p = 0.75, .r = 16 }, { .child = -1 } },
	  16, 4, true, 0.75,
	  { { .r = { 4, 12, 0 } }, { .r = { 0 } } } },
	{ "5.1 01.2.2 Z (read-write) gated on A", true,
	  { { .kept = true, .child = -1, .act = 'g', .p = 0.75, .r = 15, .u = 16, .tr = 15 },
	    { .child = -1 } },
	  4, 4, false, 0,
	  { { .r = { 3, 12, 0 }, .u = { 4, 12, 0 }, .tr = 4 }, { .r = { 0 } } } },
	{ "5.2 02.2.1 A skipped on B at BackingStorage", false,
	  { { .child = -1 },
	    { .kept = true, .md = true, .ranks = 2, .child = -1, .act = 's', .p = 0.5, .r = 128,
	      .fr = { { 128, 0 }, { 0, 72 } } } },
	  512, 256, true, 0.5,
	  { { .r = { 0 } },
	    { .r = { 64, 0, 64 },
	      .fr = { { { 64, 0 }, { 0, 36 } }, { { 0 } }, { { 64, 0 }, { 0, 36 } } } } } },
	{ "5.2 02.2.1 B skipped on A at Buffer", false,
	  { { .kept = true, .md = true, .ranks = 2, .child = -1, .act = 's', .p = 0.75, .r = 256,
	      .f = 32, .fr = { { 256, 0 }, { 0, 72 } }, .ff = { { 32, 0 }, { 0, 9 } } },
	    { .kept = true, .md = true, .ranks = 2, .child = 0, .r = 32,
	      .fr = { { 32, 0 }, { 0, 9 } } } },
	  256, 64, true, 0.75,
	  { { .r = { 64, 0, 192 }, .f = { 32, 0, 0 },
	      .fr = { { { 64, 0 }, { 0, 18 } }, { { 0 } }, { { 192, 0 }, { 0, 54 } } },
	      .ff = { { { 32, 0 }, { 0, 9 } } } },
	    { .r = { 32, 0, 0 }, .fr = { { { 32, 0 }, { 0, 9 } } } } } },
	{ "5.2 02.2.1 Z skipped on A and B", true,
	  { { .kept = true, .child = -1, .act = 's', .p = 0.875, .r = 448, .u = 512, .tr = 448 },
	    { .kept = true, .child = 0, .u = 64 } },
	  64, 64, false, 0,
	  { { .r = { 56, 0, 392 }, .u = { 64, 0, 448 }, .tr = 56 }, { .u = { 64, 0, 0 } } } },
	/* two optimized levels: the lower one applies 1 - (1 - 0.75) / (1 - 0.5) = 0.5
	 * locally, its format reads come from its format updates (0), and its rank 0
	 * is scaled because the upper level has one rank */
	{ "chain of two skipping levels", false,
	  { { .kept = true, .md = true, .ranks = 1, .child = -1, .act = 's', .p = 0.75, .r = 200,
	      .f = 100, .fr = { { 200, 0 } }, .ff = { { 100, 0 } } },
	    { .kept = true, .md = true, .ranks = 1, .child = 0, .act = 's', .p = 0.5, .r = 100,
	      .fr = { { 100, 0 } } } },
	  1000, 250, true, 0.75,
	  { { .r = { 50, 0, 50 }, .f = { 50, 0, 0 }, .ff = { { { 50, 0 } } } },
	    { .r = { 50, 0, 50 },
	      .fr = { { { 50, 0 } }, { { 0 } }, { { 50, 0 } } } } } },
	{ "spatial skipping nested in temporal skipping on one level", false,
	  { { .kept = true, .child = -1, .r = 400, .f = 40 },
	    { .kept = true, .child = 0, .act = 's', .p = 0.75, .spatial = true, .nested = true,
	      .ps = 0.5, .r = 100 } },
	  1000, 250, true, 0.75,
	  { { .r = { 100, 0, 0 }, .f = { 10, 0, 0 } }, { .r = { 25, 0, 75 } } } },
	{ "spatial and temporal skipping on different conditions", false,
	  { { .kept = true, .child = -1, .r = 400, .f = 40 },
	    { .kept = true, .child = 0, .act = 's', .p = 0.75, .spatial = true, .nested = false,
	      .ps = 0.5, .r = 100 } },
	  1000, 125, true, 0.875,
	  { { .r = { 50, 0, 0 }, .f = { 5, 0, 0 } }, { .r = { 25, 0, 75 } } } },
	{ "spatial skipping alone, on a level that bypasses the tensor", false,
	  { { .kept = true, .child = -1, .r = 400, .f = 40 },
	    { .child = 0, .spatial = true, .ps = 0.5 } },
	  1000, 500, true, 0.5,
	  { { .r = { 200, 0, 0 }, .f = { 20, 0, 0 } }, { .r = { 0 } } } },
};

static void load(const struct lin *in, struct saf_tile *t)
{
	unsigned r, u;

	memset(t, 0, sizeof(*t));
	t->is_kept = in->kept;
	t->has_metadata = in->md;
	t->n_ranks = in->ranks;
	t->child = in->child;
	t->action = in->act == 'g' ? SAF_GATE : in->act == 's' ? SAF_SKIP : SAF_NONE;
	t->p = in->p;
	t->has_spatial = in->spatial;
	t->p_spatial = in->ps;
	t->spatial_nested = in->nested;
	t->updates = in->u;
	t->temporal_reductions = in->tr;
	t->count[SAF_READ][SAF_RANDOM] = in->r;
	t->count[SAF_FILL][SAF_RANDOM] = in->f;
	t->count[SAF_UPDATE][SAF_RANDOM] = in->u;
	for (r = 0; r < 2; r++) {
		for (u = 0; u < 2; u++) {
			t->fmt[SAF_READ][SAF_RANDOM][r][u] = in->fr[r][u];
			t->fmt[SAF_FILL][SAF_RANDOM][r][u] = in->ff[r][u];
		}
	}
}

static void check(unsigned i, unsigned l, const struct lout *o, const struct saf_tile *t)
{
	unsigned c, r, u;
	bool ok = true;

	for (c = 0; c < 3; c++) {
		ok &= t->count[SAF_READ][c] == o->r[c];
		ok &= t->count[SAF_FILL][c] == o->f[c];
		ok &= t->count[SAF_UPDATE][c] == o->u[c];
		for (r = 0; r < 2; r++) {
			for (u = 0; u < 2; u++) {
				ok &= t->fmt[SAF_READ][c][r][u] == o->fr[c][r][u];
				ok &= t->fmt[SAF_FILL][c][r][u] == o->ff[c][r][u];
			}
		}
	}
	ok &= t->temporal_reductions == o->tr;
	if (!ok)
		fprintf(stderr, "case %u (%s) level %u: reads %llu/%llu/%llu fills %llu updates "
			"%llu/%llu/%llu tr %llu, format reads r0 (%llu,%llu)/(%llu,%llu)\n", i,
			cases[i].what, l, (unsigned long long)t->count[0][0],
			(unsigned long long)t->count[0][1], (unsigned long long)t->count[0][2],
			(unsigned long long)t->count[1][0], (unsigned long long)t->count[2][0],
			(unsigned long long)t->count[2][1], (unsigned long long)t->count[2][2],
			(unsigned long long)t->temporal_reductions,
			(unsigned long long)t->fmt[0][0][0][0], (unsigned long long)t->fmt[0][0][0][1],
			(unsigned long long)t->fmt[0][2][0][0], (unsigned long long)t->fmt[0][2][0][1]);
	CU_ASSERT(ok);
}

static void test_cases(void)
{
	unsigned i, l;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct prop_case *c = &cases[i];
		struct saf_tile t[NL];
		struct saf_compute_effect ce = { c->computes_in, false, 0 };
		for (l = 0; l < NL; l++)
			load(&c->in[l], &t[l]);
		saf_propagate(t, NL, c->rw, &ce);
		for (l = 0; l < NL; l++)
			check(i, l, &c->out[l], &t[l]);
		CU_ASSERT_EQUAL(ce.computes, c->computes_out);
		CU_ASSERT_EQUAL(ce.gs_saf, c->gs);
		CU_ASSERT_DOUBLE_EQUAL(ce.empty_cond_prob, c->icp, 1e-12);
	}
}

/* Rounding of the local application: ceil for read-write reads, floor elsewhere. */
static void test_apply_local(void)
{
	static const struct {
		bool rw;
		uint64_t r, u, tr;
		double p;
		uint64_t r_moved, u_moved, tr_out;
	} rows[] = {
		{ false, 16, 0, 0, 0.75, 12, 0, 0 },
		{ true, 15, 16, 15, 0.75, 12, 12, 4 },        /* ceil(11.25), floor(12), ceil(3.75) */
		{ true, 448, 512, 448, 0.875, 392, 448, 56 },
		{ false, 10, 0, 0, 0.33, 3, 0, 0 },
		{ true, 10, 10, 9, 0.33, 4, 3, 7 },           /* ceil(3.3); ceil(9 * 7 / 10) */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct saf_tile t;
		memset(&t, 0, sizeof(t));
		t.is_kept = true;
		t.count[SAF_READ][SAF_RANDOM] = rows[i].r;
		t.count[SAF_UPDATE][SAF_RANDOM] = t.updates = rows[i].u;
		t.count[SAF_FILL][SAF_RANDOM] = 7;
		t.temporal_reductions = rows[i].tr;
		saf_apply_local(&t, rows[i].p, SAF_GATED, rows[i].rw, 0);
		CU_ASSERT_EQUAL(t.count[SAF_READ][SAF_GATED], rows[i].r_moved);
		CU_ASSERT_EQUAL(t.count[SAF_READ][SAF_RANDOM], rows[i].r - rows[i].r_moved);
		CU_ASSERT_EQUAL(t.count[SAF_UPDATE][SAF_GATED], rows[i].u_moved);
		CU_ASSERT_EQUAL(t.count[SAF_FILL][SAF_RANDOM], 7);   /* fills never move */
		CU_ASSERT_EQUAL(t.count[SAF_FILL][SAF_GATED], 0);
		CU_ASSERT_EQUAL(t.temporal_reductions, rows[i].tr_out);
	}
}

/* The probability passed below a level with both kinds of skipping. */
static void test_p_down(void)
{
	struct saf_tile t;

	memset(&t, 0, sizeof(t));
	CU_ASSERT_DOUBLE_EQUAL(saf_tile_p_down(&t), 0, 0);
	t.action = SAF_SKIP;
	t.p = 0.6;
	CU_ASSERT_DOUBLE_EQUAL(saf_tile_p_down(&t), 0.6, 0);
	t.has_spatial = true;
	t.p_spatial = 0.3;
	t.spatial_nested = true;
	CU_ASSERT_DOUBLE_EQUAL(saf_tile_p_down(&t), 0.6, 0);
	t.spatial_nested = false;
	CU_ASSERT_DOUBLE_EQUAL(saf_tile_p_down(&t), 1 - 0.4 * 0.7, 1e-15);
	t.action = SAF_NONE;
	CU_ASSERT_DOUBLE_EQUAL(saf_tile_p_down(&t), 0.3, 0);
}

static CU_TestInfo tests[] = {
	{ "propagation of the worked cases", test_cases },
	{ "local application", test_apply_local },
	{ "probability passed below", test_p_down },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "saf propagate", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
