/*
 * spec_set_load() on the conformance corpus: every case loads, its levels,
 * kept tensors and loop nest agree with Timeloop's own rendering of the
 * mapping (ref.map.txt), and concrete parsed values match the inputs.
 */
#include "specs/spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/diag.h"

#define MAX_REF 64

/* One case: its folder and how many storage levels Timeloop shows. */
struct load_case {
	const char *dir;
	unsigned n_levels;
	const char *compute;
	bool sparse_present;
};

static const struct load_case cases[] = {
	{ "01.2.1-DUDU-dot-product", 1, "mac", false },
	{ "01.2.2-SUDU-dot-product", 1, "mac", true },
	{ "01.2.3-SCDU-dot-product", 1, "mac", true },
	{ "02.2.1-spMspM", 2, "mac", true },
	{ "02.2.2-spMspM-tiled", 2, "mac", true },
	{ "03.2.1-conv1d", 2, "mac", true },
	{ "03.2.2-conv1d+oc", 2, "mac", true },
	{ "03.2.3-conv1d+oc-spatial", 3, "mac", true },
	{ "04.2.1-eyeriss-like-gating", 7, "mac", true },
	{ "04.2.2-eyeriss-like-gating-mapspace-search", 7, "mac", true },
	{ "04.2.3-eyeriss-like-onchip-compression", 7, "mac", true },
	{ "eyeriss_like", 7, "mac", false },
	{ "simba_like", 9, "mac", false },
	{ "simple_output_stationary", 7, "mac", false },
	{ "simple_weight_stationary", 7, "mac", false },
	{ "sparse_tensor_core_like", 6, "mac", false },
};

/* Timeloop's rendering of a mapping: level headers and loops, outer first. */
struct ref_map {
	unsigned n_levels;
	char levels[MAX_REF][64];
	char kept[MAX_REF][256];     /* "Weights Inputs " */
	unsigned n_loops;
	char loop_dim[MAX_REF];
	unsigned long long loop_end[MAX_REF], loop_res[MAX_REF];
	int loop_st[MAX_REF];        /* enum spec_spacetime */
};

static void parse_header(struct ref_map *r, const char *line)
{
	const char *lb = strstr(line, " [ "), *p;
	size_t n = (size_t)(lb - line);
	memcpy(r->levels[r->n_levels], line, n);
	r->levels[r->n_levels][n] = '\0';
	r->kept[r->n_levels][0] = '\0';
	for (p = lb + 3; *p && *p != ']';) {
		const char *colon = strchr(p, ':');
		strncat(r->kept[r->n_levels], p, (size_t)(colon - p));
		strcat(r->kept[r->n_levels], " ");
		p = strchr(colon, ')') + 2;
	}
	r->n_levels++;
}

static void parse_loop(struct ref_map *r, const char *line)
{
	const char *f = strstr(line, "for ");
	unsigned long long e, res;
	char d;
	if (sscanf(f, "for %c in [0:%llu,%llu)", &d, &e, &res) != 3) {
		sscanf(f, "for %c in [0:%llu)", &d, &e);
		res = e;
	}
	r->loop_dim[r->n_loops] = d;
	r->loop_end[r->n_loops] = e;
	r->loop_res[r->n_loops] = res;
	r->loop_st[r->n_loops] = strstr(line, "(Spatial-X)") ? SPEC_SPATIAL_X :
				 strstr(line, "(Spatial-Y)") ? SPEC_SPATIAL_Y : SPEC_TEMPORAL;
	r->n_loops++;
}

static int read_ref_map(const char *path, struct ref_map *r)
{
	char line[1024];
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(line, " [ ") && line[0] != '|')
			parse_header(r, line);
		else if (line[0] == '|' && strstr(line, "for "))
			parse_loop(r, line);
	}
	fclose(fp);
	return 0;
}

static struct spec_set *load_case(const char *dir, const char *const *names, size_t n,
				  struct diag_list *dl)
{
	static char paths[8][1024];
	const char *ptrs[8];
	size_t i;
	for (i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s/%s", unit_conformance_dir(), dir, names[i]);
		ptrs[i] = paths[i];
	}
	return spec_set_load(ptrs, n, NULL, dl);
}

static struct spec_set *load_full(const char *dir, struct diag_list *dl)
{
	static const char *const names[] = {
		"input.yaml", "map.yaml", "ERT.yaml", "ART.yaml", "constraints.yaml",
	};
	return load_case(dir, names, 5, dl);
}

/* Tensor names kept at level 'l', in data-space order, each followed by a space. */
static void kept_names(const struct spec_set *s, unsigned l, char *out)
{
	unsigned t;
	out[0] = '\0';
	for (t = 0; t < s->workload.n_tensors; t++) {
		if (!(s->mapping->levels[l].keep_mask & (1u << t)))
			continue;
		strcat(out, s->workload.tensors[t].name);
		strcat(out, " ");
	}
}

static void check_against_ref(const struct load_case *c, const struct spec_set *s)
{
	static struct ref_map r;
	char path[1024], kept[256];
	const struct spec_mapping *m = s->mapping;
	unsigned i, k = 0;
	int li;

	snprintf(path, sizeof(path), "%s/%s/ref.map.txt", unit_conformance_dir(), c->dir);
	CU_ASSERT_FATAL(read_ref_map(path, &r) == 0);
	CU_ASSERT_EQUAL(r.n_levels, s->arch.n_levels);
	for (i = 0; i < r.n_levels && i < s->arch.n_levels; i++) {
		unsigned l = s->arch.n_levels - 1 - i;
		CU_ASSERT_STRING_EQUAL(s->arch.levels[l].name, r.levels[i]);
		kept_names(s, l, kept);
		CU_ASSERT_STRING_EQUAL(kept, r.kept[i]);
	}
	for (li = (int)m->n_loops - 1; li >= 0; li--) {
		const struct spec_loop *lp = &m->loops[li];
		if (lp->end <= 1)
			continue;
		CU_ASSERT_FATAL(k < r.n_loops);
		CU_ASSERT_EQUAL(s->workload.dim_names[lp->dim][0], r.loop_dim[k]);
		CU_ASSERT_EQUAL(lp->end, r.loop_end[k]);
		CU_ASSERT_EQUAL(lp->residual_end, r.loop_res[k]);
		CU_ASSERT_EQUAL(lp->spacetime, r.loop_st[k]);
		k++;
	}
	CU_ASSERT_EQUAL(k, r.n_loops);
}

static void test_every_case_matches_ref_map(void)
{
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_full(cases[i].dir, &dl);
		if (!s) {
			fprintf(stderr, "case %s:\n", cases[i].dir);
			diag_print(&dl, stderr);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(dl.n_errors, 0);
		CU_ASSERT_EQUAL(s->arch.n_levels, cases[i].n_levels);
		CU_ASSERT_STRING_EQUAL(s->arch.compute.name, cases[i].compute);
		CU_ASSERT_EQUAL(s->sparse.present, cases[i].sparse_present);
		CU_ASSERT_TRUE_FATAL(s->has_mapping);
		CU_ASSERT_EQUAL(s->arch.dialect, SPEC_DIALECT_V04_FLAT);
		check_against_ref(&cases[i], s);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* input.yaml + map.yaml + ERT.yaml alone (the reference's own command line). */
static void test_minimal_file_set(void)
{
	static const char *const names[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = load_case(cases[i].dir, names, 3, &dl);
		CU_ASSERT_PTR_NOT_NULL(s);
		if (s) {
			CU_ASSERT_FALSE(s->mapper.present);
			CU_ASSERT_EQUAL(s->constraints.n, 0);
			CU_ASSERT_FALSE(s->energy.has_art);
		}
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static const struct spec_level *level(const struct spec_set *s, const char *name)
{
	int l = spec_level_find(&s->arch, name);
	CU_ASSERT_FATAL(l >= 0);
	return &s->arch.levels[l];
}

static double ert_energy(const struct spec_ert_table *t, const char *action)
{
	size_t i;
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (i = 0; i < t->n_actions; i++)
		if (!strcmp(t->actions[i].name, action))
			return t->actions[i].energy_pj;
	return NAN;
}

static void test_eyeriss_values(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_full("eyeriss_like", &dl);
	const struct spec_level *L;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	L = level(s, "psum_spad");
	CU_ASSERT_EQUAL(L->size_words, 16);
	CU_ASSERT_EQUAL(L->block_size, 1);
	CU_ASSERT_EQUAL(L->word_bits, 16);
	L = level(s, "weights_spad");
	CU_ASSERT_EQUAL(L->block_size, 2);
	CU_ASSERT_EQUAL(L->size_words, 384);
	CU_ASSERT_EQUAL(L->cluster_size, 1);
	CU_ASSERT_DOUBLE_EQUAL(L->read_bw_words_per_cycle, 2.0, 0);
	CU_ASSERT_EQUAL(L->instances, 168);
	CU_ASSERT_EQUAL(L->mesh_x, 14);
	CU_ASSERT_EQUAL(L->mesh_y, 12);
	L = level(s, "shared_glb");
	CU_ASSERT_EQUAL(L->block_size, 8);
	CU_ASSERT_EQUAL(L->size_words, 131072);
	CU_ASSERT_EQUAL(L->num_banks, 32);
	CU_ASSERT_EQUAL(L->technology, SPEC_TECH_SRAM);
	CU_ASSERT_DOUBLE_EQUAL(ert_energy(L->ert, "read"), 18.183829, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ert_energy(L->ert, "leak"), 0.005652, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(L->art->area_um2, 217363.36892, 1e-9);
	L = level(s, "DRAM");
	CU_ASSERT_FALSE(L->has_size);
	CU_ASSERT_EQUAL(L->technology, SPEC_TECH_DRAM);
	CU_ASSERT_TRUE(L->reduction_supported);
	CU_ASSERT_DOUBLE_EQUAL(ert_energy(L->ert, "read"), 512.0, 0);
	L = level(s, "inter_PE_spatial");
	CU_ASSERT_TRUE(L->is_dummy);
	CU_ASSERT_EQUAL(L->fanout_x, 1);
	CU_ASSERT_EQUAL(L->fanout_y, 12);
	CU_ASSERT_EQUAL(L->instances, 14);
	CU_ASSERT_PTR_NULL(L->ert);
	L = level(s, "inter_PE_column_spatial");
	CU_ASSERT_EQUAL(L->fanout_x, 14);
	CU_ASSERT_EQUAL(L->fanout_y, 1);
	CU_ASSERT_TRUE(s->mapping->levels[4].has_spatial);
	CU_ASSERT_FALSE(s->mapping->levels[5].has_spatial);
	CU_ASSERT_EQUAL(s->arch.compute.instances, 168);
	CU_ASSERT_EQUAL(s->arch.compute.word_bits, 16);
	CU_ASSERT_DOUBLE_EQUAL(ert_energy(s->arch.compute.ert, "compute"), 0.207692, 1e-12);
	CU_ASSERT_EQUAL(s->workload.n_dims, 7);
	CU_ASSERT_EQUAL(s->workload.bounds[spec_dim_find(&s->workload, "P")], 112);
	CU_ASSERT_EQUAL(s->workload.tensors[1].size, 3 * 225 * 225);
	CU_ASSERT_EQUAL(s->workload.tensors[1].ranks[2].terms[1].coef, 2);
	CU_ASSERT_TRUE(s->workload.tensors[2].read_write);
	CU_ASSERT_TRUE(s->workload.tensors[0].density.is_default);
	CU_ASSERT_EQUAL(s->mapper.algorithm, SPEC_SEARCH_RANDOM);
	CU_ASSERT_EQUAL(s->mapper.metrics[0], SPEC_METRIC_EDP);
	CU_ASSERT_EQUAL(s->mapper.timeout, 10000);
	CU_ASSERT_EQUAL(s->mapper.victory_condition, 100);
	CU_ASSERT_EQUAL(s->mapper.num_threads, 4);
	CU_ASSERT_EQUAL(s->constraints.n, 15);
	spec_set_free(s);
	diag_list_release(&dl);
}

static const struct spec_sparse_target *sparse_target(const struct spec_set *s, const char *name)
{
	unsigned i;
	for (i = 0; i < s->sparse.n_targets; i++)
		if (!strcmp(s->sparse.targets[i].name, name))
			return &s->sparse.targets[i];
	CU_FAIL_FATAL("no such sparse target");
	return NULL;
}

static void test_spmspm_values(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_full("02.2.1-spMspM", &dl);
	const struct spec_sparse_target *t;
	const struct spec_level *L;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	L = level(s, "Buffer");
	CU_ASSERT_EQUAL(L->metadata_word_bits, 4);
	CU_ASSERT_EQUAL(L->metadata_storage_width, 4);
	CU_ASSERT_EQUAL(L->metadata_storage_depth, 128);
	CU_ASSERT_EQUAL(L->metadata_size_bits, 512);
	CU_ASSERT_DOUBLE_EQUAL(L->write_bw_words_per_cycle, 5.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[0].density.density, 0.25, 0);
	CU_ASSERT_EQUAL(s->workload.tensors[0].density.kind, SPEC_DENSITY_FIXED_STRUCTURED);
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[1].density.density, 0.5, 0);
	CU_ASSERT_EQUAL(s->sparse.n_targets, 2);
	t = sparse_target(s, "BackingStorage");
	CU_ASSERT_EQUAL(t->level, 1);
	CU_ASSERT_EQUAL(t->n_formats, 2);
	CU_ASSERT_EQUAL(t->formats[0].tensor, 0);
	CU_ASSERT_EQUAL(t->formats[0].n_ranks, 2);
	CU_ASSERT_EQUAL(t->formats[0].ranks[0].kind, FMT_UOP);
	CU_ASSERT_EQUAL(t->formats[0].ranks[1].kind, FMT_CP);
	CU_ASSERT_EQUAL(t->formats[0].ranks[1].metadata_word_bits, -1);
	t = sparse_target(s, "Buffer");
	CU_ASSERT_EQUAL(t->level, 0);
	CU_ASSERT_EQUAL(t->formats[0].tensor, 1);
	CU_ASSERT_EQUAL(t->n_groups, 3);
	CU_ASSERT_EQUAL(t->groups[2].kind, SPEC_SAF_SKIPPING);
	CU_ASSERT_EQUAL(t->groups[2].options[0].target, 2);
	CU_ASSERT_EQUAL(t->groups[2].options[0].n_conditions, 2);
	CU_ASSERT_EQUAL(t->groups[2].options[0].condition_mask, 3);
	CU_ASSERT_EQUAL(s->mapping->levels[0].keep_mask, 6);
	CU_ASSERT_EQUAL(s->mapping->levels[1].keep_mask, 7);
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_flattened_ranks_and_constraints(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_full("04.2.3-eyeriss-like-onchip-compression", &dl);
	const struct spec_sparse_target *t;
	const struct spec_constraint *c;
	unsigned i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	t = sparse_target(s, "DRAM");
	CU_ASSERT_EQUAL(t->formats[0].n_ranks, 3);
	CU_ASSERT_EQUAL(t->formats[0].ranks[2].kind, FMT_RLE);
	CU_ASSERT_EQUAL(t->formats[0].ranks[2].n_flatten_groups, 1);
	CU_ASSERT_EQUAL(t->formats[0].ranks[2].flatten_groups[0], 0x7f);
	CU_ASSERT_EQUAL(level(s, "DRAM")->metadata_storage_width, 60);
	CU_ASSERT_EQUAL(level(s, "DRAM")->metadata_word_bits, 5);
	t = sparse_target(s, "weights_spad");
	CU_ASSERT_EQUAL(t->groups[0].kind, SPEC_SAF_SKIPPING);
	CU_ASSERT_EQUAL(t->groups[0].options[0].target, 0);
	CU_ASSERT_EQUAL(t->groups[0].options[0].conditions[0], 1);
	CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[0].density.density, 0.446133, 0);
	/* inter_PE_spatial: split 4, factors N=1,P=1,Q=1,R=1, permutation NPQRSCM */
	for (i = 0, c = NULL; i < s->constraints.n; i++)
		if (s->constraints.items[i].kind == SPEC_CON_SPATIAL &&
		    s->constraints.items[i].level == 3)
			c = &s->constraints.items[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_TRUE(c->has_split);
	CU_ASSERT_EQUAL(c->split, 4);
	CU_ASSERT_EQUAL(c->n_perm, 7);
	CU_ASSERT_EQUAL(c->perm[0], spec_dim_find(&s->workload, "N"));
	CU_ASSERT_EQUAL(c->perm[6], spec_dim_find(&s->workload, "M"));
	CU_ASSERT_EQUAL(c->fixed_mask, (1u << spec_dim_find(&s->workload, "N")) |
		(1u << spec_dim_find(&s->workload, "P")) | (1u << spec_dim_find(&s->workload, "Q")) |
		(1u << spec_dim_find(&s->workload, "R")));
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_max_factor_constraints(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_full("sparse_tensor_core_like", &dl);
	const struct spec_constraint *c = NULL;
	unsigned i;
	int m, n, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	m = spec_dim_find(&s->workload, "M");
	n = spec_dim_find(&s->workload, "N");
	k = spec_dim_find(&s->workload, "K");
	for (i = 0; i < s->constraints.n; i++)
		if (s->constraints.items[i].kind == SPEC_CON_TEMPORAL &&
		    s->constraints.items[i].level == (unsigned)spec_level_find(&s->arch, "SMEM"))
			c = &s->constraints.items[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->fixed_mask, 1u << k);
	CU_ASSERT_EQUAL(c->factors[k], 1);
	CU_ASSERT_EQUAL(c->max_mask, (1u << m) | (1u << n));
	CU_ASSERT_EQUAL(c->max_factors[m], 8);
	CU_ASSERT_EQUAL(c->n_perm, 2);
	CU_ASSERT_EQUAL(c->perm[0], n);
	CU_ASSERT_EQUAL(c->perm[1], k);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* Diagnostics of a failed load point at the caller's path strings. */
static void test_locations_use_caller_paths(void)
{
	char path[1024];
	const char *paths[2];
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	size_t i;

	snprintf(path, sizeof(path), "%s", unit_data_path("specs/bad/multi_error.yaml"));
	paths[0] = path;
	paths[1] = path;     /* the same file twice: every key is given twice */
	s = spec_set_load(paths, 1, NULL, &dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_TRUE(dl.n > 0);
	for (i = 0; i < dl.n; i++)
		CU_ASSERT_PTR_EQUAL(dl.items[i].loc.file, path);
	diag_list_release(&dl);
	s = spec_set_load(paths, 2, NULL, &dl);
	CU_ASSERT_PTR_NULL(s);
	for (i = 0; i < dl.n; i++)
		CU_ASSERT_PTR_EQUAL(dl.items[i].loc.file, path);
	diag_list_release(&dl);
}

/*
 * A network's layer (spec_source_add_layer): its 'problem' replaces the
 * design's, and the set has the layer's bounds; the same file added as a
 * plain file clashes with the design's problem.
 */
static void test_layer_replaces_problem(void)
{
	static const struct {
		const char *layer;
		unsigned m, k, n;
	} layers[] = {
		{ "network/layers/00.yaml", 8, 16, 8 },
		{ "network/layers/01.yaml", 16, 16, 4 },
		{ "network/layers/03.yaml", 4, 32, 8 },
	};
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_source *src = spec_source_new();
		struct spec_set *s;
		char design[4096];

		snprintf(design, sizeof(design), "%s", unit_data_path("mapper/matmul.yaml"));
		CU_ASSERT_EQUAL(spec_source_add_file(src, design, &dl), 0);
		CU_ASSERT_EQUAL(spec_source_add_layer(src, unit_data_path(layers[i].layer), &dl), 0);
		s = spec_set_build(src, NULL, 0, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->workload.bounds[spec_dim_find(&s->workload, "M")], layers[i].m);
		CU_ASSERT_EQUAL(s->workload.bounds[spec_dim_find(&s->workload, "K")], layers[i].k);
		CU_ASSERT_EQUAL(s->workload.bounds[spec_dim_find(&s->workload, "N")], layers[i].n);
		CU_ASSERT_EQUAL(s->arch.n_levels, 3);      /* the design's architecture stays */
		spec_set_free(s);
		spec_source_free(src);
		CU_ASSERT_FALSE(diag_has_errors(&dl));
		diag_list_release(&dl);
	}
	{
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_source *src = spec_source_new();
		char design[4096];
		snprintf(design, sizeof(design), "%s", unit_data_path("mapper/matmul.yaml"));
		CU_ASSERT_EQUAL(spec_source_add_file(src, design, &dl), 0);
		CU_ASSERT_EQUAL(spec_source_add_file(src, unit_data_path("network/layers/00.yaml"), &dl),
				-1);
		CU_ASSERT_TRUE(dl.n_errors == 1 &&
			       strstr(dl.items[0].message, "'problem' is given twice"));
		spec_source_free(src);
		diag_list_release(&dl);
	}
}

static CU_TestInfo load_tests[] = {
	{ "a layer's problem replaces the design's", test_layer_replaces_problem },
	{ "diagnostics use the caller's paths", test_locations_use_caller_paths },
	{ "every case matches ref.map.txt", test_every_case_matches_ref_map },
	{ "input + map + ERT alone", test_minimal_file_set },
	{ "eyeriss_like values", test_eyeriss_values },
	{ "02.2.1 sparse values", test_spmspm_values },
	{ "04.2.3 flattened ranks, constraints", test_flattened_ranks_and_constraints },
	{ "<= factor constraints", test_max_factor_constraints },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "load", .pTests = load_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
