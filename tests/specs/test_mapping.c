/*
 * mapping.c: factor strings in every form, permutations (innermost first,
 * missing dimensions appended), split, targets by name, container or
 * index, keep/bypass and the reuse masks, mapping lists from two files.
 * Uses tests/data/specs/bad/base.yaml (dims M=8 N=8 K=16; levels PE, GLB,
 * DRAM, GLB with a fanout of 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_mapping(const char *const *maps, size_t n, struct diag_list *dl)
{
	static char base[1024], paths[4][1024];
	const char *ptrs[5];
	size_t i;
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	ptrs[0] = base;
	for (i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "map%zu.yaml", i);
		snprintf(paths[i], sizeof(paths[i]), "%s", st_write(name, maps[i]));
		ptrs[i + 1] = paths[i];
	}
	return spec_set_load(ptrs, n + 1, NULL, dl);
}

struct factor_row {
	const char *glb, *dram;      /* factors of GLB and DRAM temporal directives */
	uint64_t glb_f[3], glb_r[3];
	bool imperfect;
};

static const struct factor_row factor_rows[] = {
	{ "M8 N8 K16", "M1 N1 K1", { 8, 8, 16 }, { 8, 8, 16 }, false },
	{ "M=8 N=8 K=16", "M=1", { 8, 8, 16 }, { 8, 8, 16 }, false },
	{ "M=8,N=8,K=16", "", { 8, 8, 16 }, { 8, 8, 16 }, false },
	{ "M = 8  N==8\tK16  # the rest is a comment K=3", "", { 8, 8, 16 }, { 8, 8, 16 }, false },
	{ "M0 N0 K0", "", { 8, 8, 16 }, { 8, 8, 16 }, false },
	{ "M=4 K=6,4", "M=2 N=8 K=3", { 4, 1, 6 }, { 4, 1, 4 }, true },
	{ "K=16", "M8 N8", { 1, 1, 16 }, { 1, 1, 16 }, false },
};

static void test_factor_forms(void)
{
	size_t i;
	for (i = 0; i < sizeof(factor_rows) / sizeof(factor_rows[0]); i++) {
		const struct factor_row *r = &factor_rows[i];
		char map[512];
		const char *maps[1] = { map };
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		unsigned d;
		snprintf(map, sizeof(map),
			 "mapping:\n"
			 "  - {target: GLB, type: temporal, factors: '%s'}\n"
			 "  - {target: DRAM, type: temporal, factors: '%s'}\n", r->glb, r->dram);
		s = load_mapping(maps, 1, &dl);
		if (!s) {
			fprintf(stderr, "row %zu:\n", i);
			diag_print(&dl, stderr);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (d = 0; d < 3; d++) {
			CU_ASSERT_EQUAL(s->mapping->levels[1].temporal_factors[d], r->glb_f[d]);
			CU_ASSERT_EQUAL(s->mapping->levels[1].temporal_residuals[d], r->glb_r[d]);
		}
		CU_ASSERT_EQUAL(s->mapping->is_imperfect, r->imperfect);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_list_factors_and_permutations(void)
{
	static const char map[] =
		"mapping:\n"
		"  - target: GLB\n"
		"    type: temporal\n"
		"    factors: [M=8, 'N=8 K=4']\n"
		"    permutation: KM\n"
		"  - {target: 2, type: temporal, factors: K4, permutation: [N]}\n"
		"  - {target: GLB, type: spatial, factors: M1, permutation: ' N K ', split: 999}\n";
	const char *maps[1] = { map };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_mapping(maps, 1, &dl);
	const struct spec_map_level *glb, *dram;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	glb = &s->mapping->levels[1];
	dram = &s->mapping->levels[2];
	CU_ASSERT_EQUAL(glb->temporal_factors[2], 4);
	CU_ASSERT_EQUAL(glb->temporal_perm[0], 2);     /* K */
	CU_ASSERT_EQUAL(glb->temporal_perm[1], 0);     /* M */
	CU_ASSERT_EQUAL(glb->temporal_perm[2], 1);     /* N appended */
	CU_ASSERT_EQUAL(dram->temporal_factors[2], 4);
	CU_ASSERT_EQUAL(dram->temporal_perm[0], 1);
	CU_ASSERT_EQUAL(dram->temporal_perm[1], 0);
	CU_ASSERT_EQUAL(dram->temporal_perm[2], 2);
	CU_ASSERT_TRUE(glb->has_spatial);
	CU_ASSERT_FALSE(dram->has_spatial);
	CU_ASSERT_FALSE(s->mapping->levels[0].has_spatial);
	CU_ASSERT_EQUAL(glb->split, 3);                /* clamped to the dimension count */
	CU_ASSERT_EQUAL(glb->spatial_perm[0], 1);
	CU_ASSERT_EQUAL(glb->spatial_perm[1], 2);
	CU_ASSERT_EQUAL(glb->spatial_perm[2], 0);
	CU_ASSERT_EQUAL(s->mapping->levels[0].split, 3);   /* default: all X */
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_keep_bypass_and_masks(void)
{
	static const char map[] =
		"mapping:\n"
		"  - {target: PE, type: datatype, keep: [A], bypass: [B], no_coalesce: [Z],\n"
		"     stream: [A]}\n"
		"  - {target: GLB, type: bypass, bypass: [A, Z]}\n"
		"  - {target: GLB, type: temporal, factors: M8 N8 K16, no_reuse: [A],\n"
		"     no_temporal_reuse: [B], rmw_first_update: [Z]}\n"
		"  - {target: GLB, type: spatial, no_reuse: [B], no_link_transfer: [A, Z]}\n";
	const char *maps[1] = { map };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_mapping(maps, 1, &dl);
	const struct spec_mapping *m;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	m = s->mapping;
	CU_ASSERT_EQUAL(m->levels[0].keep_mask, 0x5);      /* A kept, B bypassed, Z default */
	CU_ASSERT_EQUAL(m->levels[0].no_coalesce_mask, 0x4);
	CU_ASSERT_EQUAL(m->levels[1].keep_mask, 0x2);
	CU_ASSERT_EQUAL(m->levels[2].keep_mask, 0x7);      /* outermost keeps all */
	CU_ASSERT_EQUAL(m->levels[1].no_temporal_reuse_mask, 0x3);
	CU_ASSERT_EQUAL(m->levels[1].rmw_first_update_mask, 0x4);
	CU_ASSERT_EQUAL(m->levels[1].no_multicast_mask, 0x2);
	CU_ASSERT_EQUAL(m->levels[1].no_link_transfer_mask, 0x5);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Mapping lists from several files are concatenated. */
static void test_two_files(void)
{
	const char *maps[2] = {
		"mapping:\n  - {target: GLB, type: temporal, factors: M8 N8}\n",
		"mapping:\n  - {target: DRAM, type: temporal, factors: K16}\n"
		"  - {target: DRAM, type: datatype, keep: [A]}\n",
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_mapping(maps, 2, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->mapping->levels[1].temporal_factors[0], 8);
	CU_ASSERT_EQUAL(s->mapping->levels[2].temporal_factors[2], 16);
	spec_set_free(s);
	diag_list_release(&dl);
	maps[1] = "mapping:\n  - {target: GLB, type: temporal, factors: K16}\n";
	s = load_mapping(maps, 2, &dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(dl.items[0].message,
				      "in 'mapping[1]': a second temporal directive for level 'GLB'"));
	diag_list_release(&dl);
}

/*
 * A mapping of a v0.4 node list: a spatial container is a level of its own,
 * which the front end completes (all factors 1, every data space bypassed)
 * unless the mapping says otherwise.
 */
static void test_container_levels(void)
{
	static const char arch[] =
		"architecture:\n"
		"  version: 0.4\n"
		"  nodes:\n"
		"  - !Container {name: sys}\n"
		"  - !Component {name: DRAM, class: DRAM, attributes: {datawidth: 8, width: 64}}\n"
		"  - !Container {name: row, spatial: {meshX: 2}}\n"
		"  - !Container {name: col, spatial: {meshY: 2}}\n"
		"  - !Component {name: reg, class: regfile, attributes: {datawidth: 8, width: 8, depth: 64}}\n"
		"  - !Component {name: mac, class: intmac}\n"
		"problem:\n"
		"  version: 0.4\n"
		"  shape:\n"
		"    name: mm\n"
		"    dimensions: [M, K]\n"
		"    data_spaces:\n"
		"    - {name: A, projection: [[[M]], [[K]]]}\n"
		"    - {name: Z, projection: [[[M]]], read_write: true}\n"
		"  instance: {M: 4, K: 8}\n"
		"mapping:\n"
		"  - {target: DRAM, type: temporal, factors: M1 K4}\n"
		"  - {target: row, type: spatial, factors: M2 K1}\n"
		"  - {target: col, type: spatial, factors: M2 K1}\n"
		"  - {target: col, type: datatype, keep: [A], bypass: [Z]}\n"
		"  - {target: reg, type: temporal, factors: M1 K2}\n";
	const char *texts[1] = { arch };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 1, NULL, &dl);
	int row, col;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	row = spec_level_find(&s->arch, "inter_row_spatial");
	col = spec_level_find(&s->arch, "inter_col_spatial");
	CU_ASSERT_FATAL(row >= 0 && col >= 0);
	CU_ASSERT_EQUAL(s->mapping->levels[row].keep_mask, 0);     /* completed: bypass all */
	CU_ASSERT_EQUAL(s->mapping->levels[col].keep_mask, 0x1);   /* as the mapping says */
	CU_ASSERT_EQUAL(s->mapping->levels[row].temporal_factors[0], 1);
	CU_ASSERT_EQUAL(s->mapping->levels[row].spatial_factors[0], 2);
	CU_ASSERT_EQUAL(s->mapping->levels[spec_level_find(&s->arch, "reg")].keep_mask, 0x3);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* An empty mapping list is no mapping at all. */
static void test_empty_mapping(void)
{
	const char *maps[1] = { "mapping: []\n" };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_mapping(maps, 1, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_FALSE(s->has_mapping);
	CU_ASSERT_PTR_NULL(s->mapping);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* 'model' and 'exec' ask for a mapping. */
static void test_required_mapping(void)
{
	struct spec_load_options opt = { .require_mapping = true };
	const char *paths[1] = { unit_data_path("specs/bad/base.yaml") };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = spec_set_load(paths, 1, &opt, &dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL_FATAL(dl.n, 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].message, "no 'mapping' given in any file");
	diag_list_release(&dl);
}

/*
 * The builds of one source take the mapping an earlier one read when the
 * mapping's nodes are the files' and what it reads of the architecture and
 * the workload is the same (specs/mapping.c); each value the key covers,
 * changed by an override, gives the new mapping (or the error it must).
 */
struct memo_row {
	const char *ov;              /* NULL: none */
	bool ok, same;               /* builds; the very mapping the second build took */
	uint64_t glb_m;              /* GLB's temporal factor of M */
	const char *error;           /* when !ok */
};

static const struct memo_row memo_rows[] = {
	{ NULL, true, false, 8, NULL },                            /* read and kept */
	{ NULL, true, true, 8, NULL },                             /* taken */
	{ "problem.instance.M=4", true, false, 4, NULL },          /* a bound */
	{ "problem.instance.M=4", true, false, 4, NULL },          /* taken, with M=4 */
	{ "problem.instance.M=8", true, true, 8, NULL },           /* the files' bound again */
	{ "architecture.subtree[0].local[name=GLB].attributes.depth=64", true, true, 8, NULL },
	{ "problem.shape.data_spaces[name=Z].name=Y", false, false, 0,
	  "unknown data space 'Z'" },                              /* a data space's name */
	{ "architecture.subtree[0].local[name=GLB].name=L2", false, false, 0,
	  "unknown storage level 'GLB'" },                         /* a level's name */
	{ "mapping[0].factors=M0 N0 K0", true, false, 8, NULL },   /* an override's node */
};

/* A source of base.yaml and the mapping file 'map'. */
static struct spec_source *base_source_with(const char *map, struct diag_list *dl)
{
	struct spec_source *src = spec_source_new();

	CU_ASSERT_EQUAL_FATAL(spec_source_add_file(src, unit_data_path("specs/bad/base.yaml"),
						   dl), 0);
	CU_ASSERT_EQUAL_FATAL(spec_source_add_file(src, st_write("memo.yaml", map), dl), 0);
	return src;
}

static void test_read_once(void)
{
	static const char map[] =
		"mapping:\n"
		"  - {target: GLB, type: temporal, factors: 'M0 N0 K0', permutation: KMN}\n"
		"  - {target: GLB, type: datatype, bypass: [Z]}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = base_source_with(map, &dl);
	struct spec_set *taken = NULL, *s;
	size_t i;

	for (i = 0; i < sizeof(memo_rows) / sizeof(memo_rows[0]); i++) {
		const struct memo_row *r = &memo_rows[i];
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list bl = DIAG_LIST_INIT;
		char *got;
		if (r->ov)
			CU_ASSERT_EQUAL_FATAL(spec_override_parse(r->ov, &ov, &dl), 0);
		s = spec_set_build(src, &ov, r->ov ? 1 : 0, NULL, &bl);
		got = st_diags(&bl);
		CU_ASSERT_EQUAL(s != NULL, r->ok);
		if (r->error)
			CU_ASSERT_PTR_NOT_NULL(strstr(got, r->error));
		if (s) {
			CU_ASSERT_EQUAL(bl.n, 0);
			CU_ASSERT_EQUAL(s->mapping->levels[1].temporal_factors[0], r->glb_m);
			CU_ASSERT_EQUAL(s->mapping->levels[1].keep_mask, 3);
			CU_ASSERT_EQUAL(s->mapping->levels[1].temporal_perm[0], 2);
			if (taken)
				CU_ASSERT_EQUAL(s->mapping == taken->mapping, r->same);
		}
		if (i == 1)
			taken = s;
		else
			spec_set_free(s);
		free(got);
		diag_list_release(&bl);
		spec_override_release(&ov);
	}
	spec_set_free(taken);
	spec_source_free(src);
	diag_list_release(&dl);
}

/* A mapping whose read says something is read (and says it) again by every build. */
static void test_warning_read_again(void)
{
	static const char map[] =
		"mapping:\n"
		"  - {target: GLB, type: temporal, factors: 'M0 N0 K0'}\n"
		"  - {target: GLB, type: skew, terms: []}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = base_source_with(map, &dl);
	struct spec_set *a, *b;

	a = spec_set_build(src, NULL, 0, NULL, &dl);
	b = spec_set_build(src, NULL, 0, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(dl.n_warnings, 2);
	CU_ASSERT_PTR_NOT_EQUAL(a->mapping, b->mapping);
	spec_set_free(a);
	spec_set_free(b);
	spec_source_free(src);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "factor forms", test_factor_forms },
	{ "list factors, permutations, split", test_list_factors_and_permutations },
	{ "keep, bypass and reuse masks", test_keep_bypass_and_masks },
	{ "mapping lists from two files", test_two_files },
	{ "a v0.4 container's level", test_container_levels },
	{ "empty mapping", test_empty_mapping },
	{ "required mapping", test_required_mapping },
	{ "mappings read once for the builds of a source", test_read_once },
	{ "a mapping that warns is read again", test_warning_read_again },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "mapping", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
