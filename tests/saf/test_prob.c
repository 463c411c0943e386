/*
 * saf/prob.c: the probability that an access is ineffectual (semantics
 * 4.4.1) on the worked cases of semantics 5.1-5.3, plus the cases where the
 * target has a child (the target loop's tile, rounded to vector blocks) and
 * the option saving (4.4.3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density/density.h"
#include "saf/saf.h"
#include "tests/saf/nest_fixture.h"
#include "tests/unit.h"
#include "util/xalloc.h"

/* One option: design, target, conditions, where it acts, expected p. */
struct prob_case {
	const char *what;
	const char *dims;
	const char *nest;             /* fx_nest levels, innermost first */
	const char *tensors;          /* "name=proj@density;..." */
	const char *target;
	const char *conditions;       /* names, space separated */
	unsigned tl;
	int child;
	unsigned block;
	double p;
};

static const struct prob_case cases[] = {
	{ "5.1 01.2.2 gate B on A", "KM", "K16 M1", "A=K@0.25;B=K@1;Z=M@1",
	  "B", "A", 0, -1, 1, 0.75 },
	{ "5.1 01.2.2 gate Z on A", "KM", "K16 M1", "A=K@0.25;B=K@1;Z=M@1",
	  "Z", "A", 0, -1, 1, 0.75 },
	{ "5.2 02.2.1 skip A on B, acting at BackingStorage (block 4)", "MNK",
	  "M8 N8 K8 | M1 N1 K1", "A=M,K@0.25;B=N,K@0.5;Z=M,N@1", "A", "B", 1, -1, 4, 0.5 },
	{ "5.2 02.2.1 skip B on A", "MNK", "M8 N8 K8 | M1 N1 K1",
	  "A=M,K@0.25;B=N,K@0.5;Z=M,N@1", "B", "A", 0, -1, 1, 0.75 },
	{ "5.2 02.2.1 skip Z on A, B", "MNK", "M8 N8 K8 | M1 N1 K1",
	  "A=M,K@0.25;B=N,K@0.5;Z=M,N@1", "Z", "A B", 0, -1, 1, 0.875 },
	{ "5.3 03.2.1 skip Inputs on Weights", "SQ", "S3 Q9 | S1 Q1",
	  "Weights=S@0.43;Inputs=Q+S@1;Outputs=Q@1", "Inputs", "Weights", 0, -1, 1, 0.57 },
	{ "5.3 03.2.1 skip Outputs on Weights", "SQ", "S3 Q9 | S1 Q1",
	  "Weights=S@0.43;Inputs=Q+S@1;Outputs=Q@1", "Outputs", "Weights", 0, -1, 1, 0.57 },
	{ "04.2.1 gate Weights on Inputs at weights_spad", "CMRSNPQ",
	  "M16 C1 R1 S1 N1 P1 Q1 | C4 R3 M1 S1 N1 P1 Q1",
	  "Weights=C,M,R,S@0.446133;Inputs=N,C,R+P,S+Q@0.275;Outputs=N,M,Q,P@0.403",
	  "Weights", "Inputs", 1, -1, 1, 0.725 },
	/* a child below the target: the tile the target loop delivers, K2 of A per step */
	{ "child: B tile per K4 step, A tile M2 x K2", "MNK", "M2 K2 | K4",
	  "A=M,K@0.1;B=N,K@1;Z=M,N@1", "B", "A", 1, 0, 1, 0.6 },
	/* the same with 4-word blocks: the skip covers two steps, A tile M2 x K4 */
	{ "child, block 4: A tile M2 x K4", "MNK", "M2 K2 | K4",
	  "A=M,K@0.1;B=N,K@1;Z=M,N@1", "B", "A", 1, 0, 4, 0.2 },
	/* B does not move with K: its one tile waits on the whole A tile M2 x K8 */
	{ "no co-iterated dimension", "MNK", "M2 K2 | K4",
	  "A=M,K@0.05;B=N@1;Z=M,N@1", "B", "A", 1, 0, 1, 0.2 },
};

struct design {
	struct nest_fixture nf;
	unsigned n;
	struct spec_tensor t[SPEC_MAX_TENSORS];
	struct density_model *dm[SPEC_MAX_TENSORS];
	char names[SPEC_MAX_TENSORS][16];
};

/* Parse "A=M,K@0.25;..." into tensors and fixed_structured density models. */
static void load_design(struct design *d, const struct prob_case *c)
{
	char buf[256], *save = NULL, *tok;

	memset(d, 0, sizeof(*d));
	fx_nest(&d->nf, c->dims, c->nest);
	snprintf(buf, sizeof(buf), "%s", c->tensors);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(tok, '='), *at = strchr(tok, '@');
		uint64_t shape[SPEC_MAX_TENSOR_RANKS];
		unsigned r;
		*eq = *at = 0;
		snprintf(d->names[d->n], sizeof(d->names[d->n]), "%s", tok);
		fx_tensor(&d->t[d->n], d->names[d->n], c->dims, eq + 1);
		d->t[d->n].density.density = atof(at + 1);
		for (r = 0; r < d->t[d->n].n_ranks; r++)
			shape[r] = 1000;
		d->dm[d->n] = density_model_new_shape(&d->t[d->n].density, d->t[d->n].n_ranks,
						      shape, 0);
		d->n++;
	}
}

static int find(const struct design *d, const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < d->n; i++)
		if (strlen(d->names[i]) == len && !strncmp(d->names[i], name, len))
			return (int)i;
	BUG("no tensor %.*s", (int)len, name);
}

static void free_design(struct design *d)
{
	unsigned i;

	for (i = 0; i < d->n; i++)
		density_model_free(d->dm[i]);
}

static void test_cases(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct prob_case *c = &cases[i];
		struct design d;
		struct saf_prob_query q;
		const char *p;
		double got;

		load_design(&d, c);
		memset(&q, 0, sizeof(q));
		q.nest = &d.nf.nest;
		q.target = &d.t[find(&d, c->target, strlen(c->target))];
		q.target_level = c->tl;
		q.child_level = c->child;
		q.block_size = c->block;
		for (p = c->conditions; *p;) {
			size_t len = strcspn(p, " ");
			int k = find(&d, p, len);
			q.conditions[q.n_conditions] = &d.t[k];
			q.densities[q.n_conditions++] = d.dm[k];
			p += len + (p[len] == ' ');
		}
		got = saf_ineffectual_prob(&q);
		if (fabs(got - c->p) > 1e-9)
			fprintf(stderr, "case %u (%s): p = %.9g, expected %.9g\n", i, c->what, got,
				c->p);
		CU_ASSERT_DOUBLE_EQUAL(got, c->p, 1e-9);
		free_design(&d);
	}
}

/* Saving = E_read / block * (occupancy + md units * (md bits div word bits)) * p. */
static void test_saving(void)
{
	static const struct {
		double e, occ, md;
		unsigned block, md_bits, word_bits;
		double p, want;
	} rows[] = {
		{ 1.060977, 32, 41, 1, 4, 8, 0.75, 1.060977 * 32 * 0.75 },  /* md term 4 div 8 = 0 */
		{ 2.290882, 16, 50, 4, 4, 8, 0.5, 2.290882 / 4 * 16 * 0.5 },
		{ 2.0, 10, 5, 2, 16, 8, 0.5, 1.0 * (10 + 5 * 2) * 0.5 },      /* 16 div 8 = 2 */
		{ 2.0, 10, 5, 2, 16, 8, 0.0, 0.0 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		CU_ASSERT_DOUBLE_EQUAL(saf_option_saving(rows[i].e, rows[i].block, rows[i].occ,
							 rows[i].md, rows[i].md_bits,
							 rows[i].word_bits, rows[i].p),
				       rows[i].want, 1e-12);
}

static CU_TestInfo tests[] = {
	{ "ineffectual probability of the worked cases", test_cases },
	{ "option saving", test_saving },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "saf prob", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
