/*
 * macros.c: the v0.4 front end's constraint macros and its merging of
 * constraints on one level. One table of constraints and the factors,
 * permutations and keep/bypass lists they become (maximize_dims values as
 * the front end's greedy allocation gives them), one of the errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

/* A node list with a PE container (meshX %u) over a register; %s: its constraints. */
static const char arch_fmt[] =
	"architecture:\n"
	"  version: 0.4\n"
	"  nodes:\n"
	"  - !Container {name: sys}\n"
	"  - !Component {name: DRAM, class: DRAM, attributes: {datawidth: 8, width: 64}}\n"
	"  - !Component\n"
	"    name: buf\n"
	"    class: SRAM\n"
	"    attributes: {datawidth: 8, width: 64, depth: 4096}\n"
	"    constraints: %s\n"
	"  - !Container\n"
	"    name: PE\n"
	"    spatial: {meshX: %u}\n"
	"    constraints: %s\n"
	"  - !Component {name: reg, class: regfile, attributes: {datawidth: 8, width: 8, depth: 64}}\n"
	"  - !Component {name: mac, class: intmac}\n"
	"problem:\n"
	"  version: 0.4\n"
	"  shape:\n"
	"    name: conv1d\n"
	"    dimensions: [M, C, P, R]\n"
	"    data_spaces:\n"
	"    - {name: Weights, projection: [[[M]], [[C]], [[R]]]}\n"
	"    - {name: Inputs, projection: [[[C]], [[P], [R]]]}\n"
	"    - {name: Outputs, projection: [[[M]], [[P]]], read_write: true}\n"
	"  instance: {M: %u, C: %u, P: 16, R: 3}\n"
	"%s";

/* The constraint of 'kind' on level 'level' as "M=8 C=1 R<=2 | perm | keep/bypass". */
static char *render(const struct spec_set *s, const char *level, enum spec_constraint_kind kind)
{
	struct strbuf sb = STRBUF_INIT;
	int l = spec_level_find(&s->arch, level);
	unsigned i, d, n = 0;

	for (i = 0; i < s->constraints.n; i++) {
		const struct spec_constraint *c = &s->constraints.items[i];
		if ((int)c->level != l || c->kind != kind)
			continue;
		n++;
		for (d = 0; d < s->workload.n_dims; d++) {
			if (c->fixed_mask & (1u << d))
				strbuf_addf(&sb, "%s=%llu ", s->workload.dim_names[d],
					    (unsigned long long)c->factors[d]);
			else if (c->max_mask & (1u << d))
				strbuf_addf(&sb, "%s<=%llu ", s->workload.dim_names[d],
					    (unsigned long long)c->max_factors[d]);
		}
		strbuf_addstr(&sb, "|");
		for (d = 0; d < c->n_perm; d++)
			strbuf_addf(&sb, " %s", s->workload.dim_names[c->perm[d]]);
		if (c->has_split)
			strbuf_addf(&sb, " split %u", c->split);
		if (c->keep_mask || c->bypass_mask) {
			strbuf_addstr(&sb, " keep");
			for (d = 0; d < s->workload.n_tensors; d++)
				if (c->keep_mask & (1u << d))
					strbuf_addf(&sb, " %s", s->workload.tensors[d].name);
			strbuf_addstr(&sb, " bypass");
			for (d = 0; d < s->workload.n_tensors; d++)
				if (c->bypass_mask & (1u << d))
					strbuf_addf(&sb, " %s", s->workload.tensors[d].name);
		}
		if (c->no_multicast_mask)
			strbuf_addstr(&sb, " no_reuse");
		for (d = 0; d < s->workload.n_tensors; d++)
			if (c->no_multicast_mask & (1u << d))
				strbuf_addf(&sb, " %s", s->workload.tensors[d].name);
		if (c->no_link_transfer_mask)
			strbuf_addstr(&sb, " no_link_transfer");
		for (d = 0; d < s->workload.n_tensors; d++)
			if (c->no_link_transfer_mask & (1u << d))
				strbuf_addf(&sb, " %s", s->workload.tensors[d].name);
	}
	if (n != 1)
		strbuf_addf(&sb, " (%u constraints)", n);
	return strbuf_detach(&sb, NULL);
}

struct row {
	const char *buf_con, *pe_con;  /* constraints of 'buf' and of the container */
	unsigned mesh, m, c;           /* meshX of PE, bounds of M and C */
	const char *extra;             /* more top-level YAML */
	const char *level;             /* the constraint checked */
	enum spec_constraint_kind kind;
	const char *want;
};

/* Load one row's design; the diagnostics go to 'dl'. */
static struct spec_set *load_row(const struct row *r, struct diag_list *dl)
{
	char text[8192];
	const char *texts[1] = { text };
	snprintf(text, sizeof(text), arch_fmt, r->buf_con, r->mesh, r->pe_con, r->m, r->c,
		 r->extra ? r->extra : "");
	return st_load(texts, 1, NULL, dl);
}

static void test_macros(void)
{
	static const struct row rows[] = {
		/* maximize_dims: the front end's greedy allocation over the fan-out */
		{ "{}", "{spatial: {factors: [P=1, R=1], maximize_dims: [[M, C]]}}", 8, 128, 128,
		  NULL, "inter_PE_spatial", SPEC_CON_SPATIAL, "M=8 C=1 P=1 R=1 |" },
		{ "{}", "{spatial: {maximize_dims: [M, C]}}", 8, 128, 128, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=8 C=1 |" },
		{ "{}", "{spatial: {maximize_dims: [[C], [M]]}}", 8, 128, 128, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=1 C=8 |" },
		{ "{}", "{spatial: {maximize_dims: [[M]]}}", 8, 12, 4, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=8 |" },
		{ "{}", "{spatial: {maximize_dims: [[M, C]]}}", 16, 12, 10, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=3 C=5 |" },
		{ "{}", "{spatial: {maximize_dims: [[C, M]]}}", 8, 7, 3, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=7 C=1 |" },
		{ "{}", "{spatial: {maximize_dims: [[M]]}}", 64, 100, 4, NULL, "inter_PE_spatial",
		  SPEC_CON_SPATIAL, "M=52 |" },
		/* the capacity divided by the constraint's fixed factors; what is left of M */
		{ "{temporal: {factors: M=4}}", "{spatial: {factors: C=2, maximize_dims: [[M]]}}", 8, 16, 4,
		  NULL, "inter_PE_spatial", SPEC_CON_SPATIAL, "M=4 C=2 |" },
		{ "{temporal: {maximize_dims: [[M, C]], maximize_dims_capacity: 32}}", "{}", 4, 16, 4,
		  NULL, "buf", SPEC_CON_TEMPORAL, "M=16 C=2 |" },
		/* factors_only, the data space macros */
		{ "{temporal: {factors_only: M=4}}", "{}", 4, 16, 4, NULL, "buf", SPEC_CON_TEMPORAL,
		  "M=4 C=1 P=1 R=1 |" },
		{ "{temporal: {factors_only: [M<=4], factors: [C=2]}}", "{}", 4, 16, 4, NULL, "buf",
		  SPEC_CON_TEMPORAL, "M<=4 C=2 P=1 R=1 |" },
		{ "{temporal: {factors_only: []}}", "{}", 4, 16, 4, NULL, "buf", SPEC_CON_TEMPORAL,
		  "M=1 C=1 P=1 R=1 |" },
		{ "{temporal: {no_iteration_over_dataspaces: [Weights]}}", "{}", 4, 16, 4, NULL, "buf",
		  SPEC_CON_TEMPORAL, "M=1 C=1 R=1 |" },
		{ "{temporal: {must_iterate_over_dataspaces: [Outputs]}}", "{}", 4, 16, 4, NULL, "buf",
		  SPEC_CON_TEMPORAL, "C=1 R=1 |" },
		{ "{dataspace: {keep_only: [Inputs]}}", "{}", 4, 16, 4, NULL, "buf", SPEC_CON_BYPASS,
		  "| keep Inputs bypass Weights Outputs" },
		{ "{dataspace: {bypass_only: [Inputs]}}", "{}", 4, 16, 4, NULL, "buf", SPEC_CON_BYPASS,
		  "| keep Weights Outputs bypass Inputs" },
		{ "{dataspace: {keep: ['*']}}", "{}", 4, 16, 4, NULL, "buf", SPEC_CON_BYPASS,
		  "| keep Weights Inputs Outputs bypass" },
		/* constraints on one level from two sources are merged */
		{ "{}", "{spatial: {factors: [C=1], permutation: [M, C]}}", 4, 16, 4,
		  "constraints:\n  targets:\n"
		  "  - {target: PE, type: spatial, factors: [P=1], permutation: [M, C], split: 1}\n",
		  "inter_PE_spatial", SPEC_CON_SPATIAL, "C=1 P=1 | M C split 1" },
		/* so are no_reuse and no_link_transfer on a spatial constraint */
		{ "{}", "{spatial: {factors: [C=1], no_reuse: [Weights]}}", 4, 16, 4,
		  "constraints:\n  targets:\n"
		  "  - {target: PE, type: spatial, no_reuse: [Inputs], no_link_transfer: [Outputs]}\n",
		  "inter_PE_spatial", SPEC_CON_SPATIAL,
		  "C=1 | no_reuse Weights Inputs no_link_transfer Outputs" },
		{ "{temporal: {factors: [M=2]}}", "{}", 4, 16, 4,
		  "extra_mapping_constraints:\n  targets:\n"
		  "  - {target: buf, type: temporal, factors_only: [C=4]}\n"
		  "  - {target: buf, type: dataspace, keep: [Weights]}\n"
		  "  - {target: buf, type: dataspace, bypass: [Inputs]}\n",
		  "buf", SPEC_CON_TEMPORAL, "M=2 C=4 P=1 R=1 |" },
		/* the container's level: its own spatial constraint, then all-1 temporal */
		{ "{}", "{spatial: {factors: [C=1]}}", 4, 16, 4, NULL, "inter_PE_spatial",
		  SPEC_CON_TEMPORAL, "M=1 C=1 P=1 R=1 | M C P R" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_row(&rows[i], &dl);
		char *got;
		if (!s) {
			char *d = st_diags(&dl);
			fprintf(stderr, "row %zu:\n%s", i, d);
			free(d);
			CU_FAIL("the design did not load");
			diag_list_release(&dl);
			continue;
		}
		got = render(s, rows[i].level, rows[i].kind);
		if (strcmp(got, rows[i].want))
			fprintf(stderr, "row %zu: got '%s', want '%s'\n", i, got, rows[i].want);
		CU_ASSERT_STRING_EQUAL(got, rows[i].want);
		free(got);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_errors(void)
{
	static const struct {
		const char *buf_con, *pe_con, *extra, *want;
	} rows[] = {
		{ "{}", "{spatial: {factors: [M=2], maximize_dims: [[M, C]]}}", NULL,
		  "14:62: error: cannot maximize 'M': the factors already constrain it" },
		{ "{}", "{spatial: {maximize_dims: [[M, Q]]}}", NULL,
		  "14:49: error: cannot maximize 'Q': it is not a dimension of the problem" },
		{ "{temporal: {maximize_dims: [M]}}", "{}", NULL,
		  "10:45: error: in 'architecture.nodes[2].constraints.temporal.maximize_dims': a "
		  "temporal 'maximize_dims' needs a 'maximize_dims_capacity'" },
		{ "{temporal: {factors: [M=2], factors_only: [M=4]}}", "{}", NULL,
		  "10:60: error: in 'architecture.nodes[2].constraints.temporal.factors_only': "
		  "'factors_only' makes M=4, but the factors give M=2" },
		{ "{temporal: {factors: [C=2], no_iteration_over_dataspaces: [Inputs]}}", "{}", NULL,
		  "'no_iteration_over_dataspaces' makes C=1, but the factors give C=2" },
		{ "{dataspace: {keep: [Weights], bypass_only: [Weights]}}", "{}", NULL,
		  "10:61: error: in 'architecture.nodes[2].constraints.dataspace.bypass_only': "
		  "'bypass_only' disagrees with the 'keep' and 'bypass' lists" },
		{ "{}", "{spatial: {permutation: [M, C]}}",
		  "constraints:\n  targets:\n  - {target: PE, type: spatial, permutation: [C, M]}\n",
		  "14:19: error: the spatial constraints of 'inter_PE_spatial' are given twice and "
		  "disagree: two different permutations\n29:5: note: the other ones are here" },
		{ "{temporal: {factors: [M=2]}}", "{}",
		  "constraints:\n  targets:\n  - {target: buf, type: temporal, factors: [M=4]}\n",
		  "10:19: error: the temporal constraints of 'buf' are given twice and disagree: "
		  "M=2 here, M=4 there\n29:5: note: the other ones are here" },
		{ "{dataspace: {keep: [Weights]}}", "{}",
		  "constraints:\n  targets:\n  - {target: buf, type: bypass, bypass: [Weights]}\n",
		  "disagree: 'Weights' is kept by one and bypassed by the other" },
		{ "{}", "{spatial: {split: 2}}",
		  "constraints:\n  targets:\n  - {target: PE, type: spatial, split: 3}\n",
		  "disagree: split 2 here, 3 there" },
		{ "{max_overbooked_proportion: {proportion: 0.1}}", "{}", NULL, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct row r = { rows[i].buf_con, rows[i].pe_con, 4, 16, 4, rows[i].extra, NULL,
				 SPEC_CON_TEMPORAL, NULL };
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_row(&r, &dl);
		if (rows[i].want) {
			st_assert_diag(s, &dl, true, i, rows[i].want);
		} else {
			st_assert_diag(s, &dl, false, i, "10:19: warning: in 'architecture.nodes[2]."
				       "constraints': 'max_overbooked_proportion' constraints are not "
				       "supported; ignored");
		}
	}
}

static CU_TestInfo macro_tests[] = {
	{ "macros and merging", test_macros },
	{ "errors", test_errors },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "macros", .pTests = macro_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
