/*
 * level.c: attribute spellings, defaults and derivations of a storage level
 * (semantics 1.2.1), one row per attribute set; meshes and fanouts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

struct level_row {
	const char *cls;
	const char *attrs;
	unsigned word_bits, block, cluster;
	bool has_size;
	uint64_t size, effective;
	enum spec_tech tech;
	bool reduction;
};

static const struct level_row rows[] = {
	{ "SRAM", "{}", 16, 1, 1, false, 0, 0, SPEC_TECH_SRAM, true },
	{ "SRAM", "{width: 64, datawidth: 8, depth: 100}", 8, 8, 1, true, 800, 800, SPEC_TECH_SRAM, true },
	{ "SRAM", "{width: 64, datawidth: 8, cluster_size: 2, depth: 10}", 8, 4, 2, true, 40, 40,
	  SPEC_TECH_SRAM, true },
	{ "SRAM", "{width: 64, datawidth: 8, block_size: 2, depth: 10}", 8, 2, 4, true, 20, 20,
	  SPEC_TECH_SRAM, true },
	{ "SRAM", "{memory_width: 64, word_bits: 8, n_words: 4, cluster_size: 2, memory_depth: 10}",
	  8, 4, 2, true, 40, 40, SPEC_TECH_SRAM, true },
	{ "SRAM", "{entries: 100, depth: 5, width: 64, datawidth: 8}", 8, 8, 1, true, 100, 100,
	  SPEC_TECH_SRAM, true },
	{ "SRAM", "{sizeKB: 2, word-bits: 16}", 16, 1, 1, true, 1024, 1024, SPEC_TECH_SRAM, true },
	{ "SRAM", "{depth: 10, multiple_buffering: 3}", 16, 1, 1, true, 10, 3, SPEC_TECH_SRAM, true },
	{ "regfile", "{technology: DRAM, data_storage_depth: 4}", 16, 1, 1, true, 4, 4,
	  SPEC_TECH_DRAM, false },
	{ "DRAM", "{width: 64, datawidth: 8}", 8, 8, 1, false, 0, 0, SPEC_TECH_DRAM, false },
	{ "DRAM", "{reduction_supported: true}", 16, 1, 1, false, 0, 0, SPEC_TECH_DRAM, true },
	{ "smartbuffer_SRAM", "{reduction_supported: false, word_width: 4}", 4, 1, 1, false, 0, 0,
	  SPEC_TECH_SRAM, false },
	{ "dummy_storage", "{width: 1, depth: 1, datawidth: 1, technology: -1}", 1, 1, 1, true, 1, 1,
	  SPEC_TECH_SRAM, true },
	/* fuzz finding 2: sizes near 2^64 are exact (no trip through a double) */
	{ "SRAM", "{entries: 18446744073709551615, width: 8, datawidth: 8}", 8, 1, 1, true,
	  UINT64_MAX, UINT64_MAX, SPEC_TECH_SRAM, true },
	{ "SRAM", "{depth: 18446744073709551615}", 16, 1, 1, true, UINT64_MAX, UINT64_MAX,
	  SPEC_TECH_SRAM, true },
	{ "SRAM", "{entries: 18446744073709551615, multiple_buffering: 2}", 16, 1, 1, true,
	  UINT64_MAX, 9223372036854775808u, SPEC_TECH_SRAM, true },
};

static const char prob[] =
	"problem:\n"
	"  shape: {dimensions: [K], data_spaces: [{name: A, projection: [K]},\n"
	"          {name: B, projection: [K]}]}\n"
	"  instance: {K: 4}\n";

/* Load a design whose only storage level is class 'cls' with 'attrs'. */
static struct spec_set *one_level(const char *cls, const char *attrs, struct diag_list *dl)
{
	char arch[1024];
	const char *texts[2] = { arch, prob };
	snprintf(arch, sizeof(arch),
		 "architecture:\n"
		 "  subtree:\n"
		 "  - name: sys\n"
		 "    local:\n"
		 "    - {name: L, class: %s, attributes: %s}\n"
		 "    - {name: noc, class: XY_NoC}\n"
		 "    - {name: mac, class: intmac}\n", cls, attrs);
	return st_load(texts, 2, NULL, dl);
}

static void test_derivations(void)
{
	size_t i;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct level_row *r = &rows[i];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = one_level(r->cls, r->attrs, &dl);
		const struct spec_level *L;
		if (!s) {
			fprintf(stderr, "row %zu:\n", i);
			diag_print(&dl, stderr);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		L = &s->arch.levels[0];
		CU_ASSERT_EQUAL(L->word_bits, r->word_bits);
		CU_ASSERT_EQUAL(L->block_size, r->block);
		CU_ASSERT_EQUAL(L->cluster_size, r->cluster);
		CU_ASSERT_EQUAL(L->has_size, r->has_size);
		CU_ASSERT_EQUAL(L->size_words, r->size);
		CU_ASSERT_EQUAL(L->effective_size_words, r->effective);
		CU_ASSERT_EQUAL(L->technology, r->tech);
		CU_ASSERT_EQUAL(L->reduction_supported, r->reduction);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

static void test_other_attributes(void)
{
	static const char attrs[] =
		"{metadata_storage_width: 16, metadata_storage_depth: 8, metadata_datawidth: 4,"
		" multiple_buffering: 2, depth: 8, bandwidth: 4, shared_bandwidth: 3, n_ports: 1,"
		" num_banks: 4, addr_gen_energy: 0.5, vector_access_energy: 2, cluster_area: 7,"
		" per_dataspace_bandwidth_consumption_scale: {B: 0.5}, min_utilization: 0.25,"
		" network_fill_latency: 3, allow_overbooking: true, energy-per-ingress: 0.125,"
		" network_read: noc, tile_width: 0.1}";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = one_level("SRAM", attrs, &dl);
	const struct spec_level *L;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	L = &s->arch.levels[0];
	CU_ASSERT_EQUAL(L->metadata_word_bits, 4);
	CU_ASSERT_EQUAL(L->metadata_size_words, 8);
	CU_ASSERT_EQUAL(L->metadata_size_bits, 128);
	CU_ASSERT_EQUAL(L->effective_metadata_size_bits, 64);
	CU_ASSERT_EQUAL(L->effective_size_words, 4);
	CU_ASSERT_TRUE(L->has_read_bw && L->has_write_bw && L->has_shared_bw);
	CU_ASSERT_DOUBLE_EQUAL(L->read_bw_words_per_cycle, 2.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->write_bw_words_per_cycle, 2.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->shared_bw_words_per_cycle, 3.0, 0);
	CU_ASSERT_EQUAL(L->num_ports, 1);
	CU_ASSERT_EQUAL(L->num_banks, 4);
	CU_ASSERT_DOUBLE_EQUAL(L->addr_gen_energy_pj, 0.5, 0);
	CU_ASSERT_TRUE(L->has_vector_access_energy);
	CU_ASSERT_DOUBLE_EQUAL(L->vector_access_energy_pj, 2.0, 0);
	CU_ASSERT_TRUE(L->has_cluster_area);
	CU_ASSERT_DOUBLE_EQUAL(L->bw_consumption_scale[0], 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->bw_consumption_scale[1], 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->min_utilization, 0.25, 0);
	CU_ASSERT_EQUAL(L->network_fill_latency_cycles, 3);
	CU_ASSERT_TRUE(L->allow_overbooking);
	CU_ASSERT_DOUBLE_EQUAL(L->network.ingress_energy_pj, 0.125, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->network.tile_width_mm, 0.1, 0);
	CU_ASSERT_STRING_EQUAL(L->network_read, "noc");
	CU_ASSERT_PTR_NULL(L->network_fill);
	CU_ASSERT_EQUAL(L->power_gated_at, 0);
	CU_ASSERT_EQUAL(s->arch.n_networks, 1);
	CU_ASSERT_STRING_EQUAL(s->arch.networks[0].class_name, "XY_NoC");
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_defaults_of_unset(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = one_level("SRAM", "{depth: 4}", &dl);
	const struct spec_level *L;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	L = &s->arch.levels[0];
	CU_ASSERT_DOUBLE_EQUAL(L->multiple_buffering, 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(L->addr_gen_energy_pj, -0.1, 0);
	CU_ASSERT_EQUAL(L->num_ports, 2);
	CU_ASSERT_EQUAL(L->num_banks, 2);
	CU_ASSERT_EQUAL(L->metadata_block_size, 1);
	CU_ASSERT_FALSE(L->has_read_bw);
	CU_ASSERT_FALSE(L->has_metadata_storage_depth);
	CU_ASSERT_EQUAL(s->arch.compute.word_bits, 16);
	CU_ASSERT_EQUAL(s->arch.compute.instances, 1);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* power_gated_at names another level; meshes from instances and meshX/meshY. */
static void test_power_gating_and_meshes(void)
{
	static const char arch[] =
		"architecture:\n"
		"  subtree:\n"
		"  - name: sys\n"
		"    local:\n"
		"    - {name: GLB, class: SRAM, attributes: {depth: 64}}\n"
		"    - {name: 'RF[1..12]', class: regfile, attributes: {depth: 4, meshY: 3,"
		" power_gated_at: GLB}}\n"
		"    - {name: 'mac[1..24]', class: intmac, attributes: {meshX: 4, meshY: 6}}\n";
	const char *texts[2] = { arch, prob };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(texts, 2, NULL, &dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->arch.levels[0].power_gated_at, 1);
	CU_ASSERT_EQUAL(s->arch.levels[1].power_gated_at, 1);
	CU_ASSERT_EQUAL(s->arch.levels[0].mesh_x, 4);
	CU_ASSERT_EQUAL(s->arch.levels[0].mesh_y, 3);
	CU_ASSERT_EQUAL(s->arch.levels[0].fanout_x, 1);
	CU_ASSERT_EQUAL(s->arch.levels[0].fanout_y, 2);
	CU_ASSERT_EQUAL(s->arch.levels[1].fanout_x, 4);
	CU_ASSERT_EQUAL(s->arch.levels[1].fanout_y, 3);
	spec_set_free(s);
	diag_list_release(&dl);
}

struct error_row {
	const char *cls, *attrs, *expected;
};

static const struct error_row error_rows[] = {
	{ "SRAM", "{width: 64, datawidth: 8, block_size: 2, cluster_size: 2}",
	  "in 'architecture.subtree[0].local[0].attributes.width': width must equal block_size 2 "
	  "x word_bits 8 x cluster_size 2 = 32" },
	{ "SRAM", "{width: 64, datawidth: 8, block_size: 3}",
	  "width 64 must be a multiple of word_bits x block_size (8 x 3)" },
	{ "SRAM", "{metadata_storage_width: 10, metadata_datawidth: 4}",
	  "metadata_storage_width must be a multiple of metadata word bits x metadata_block_size" },
	{ "SRAM", "{instances: 4, meshX: 2, meshY: 3}",
	  "meshX 2 x meshY 3 = 6, but there are 4 instances" },
	{ "SRAM", "{tile_partition_supported: true}", "tile partitioning is not supported" },
	{ "SRAM", "{power_gated_at: GBL}", "unknown storage level 'GBL'" },
	{ "SRAM", "{per_dataspace_bandwidth_consumption_scale: {C: 1}}",
	  "unknown data space 'C'; did you mean 'A'?" },
	{ "SRAM", "{multiple_buffering: 0}", "expected a number >= 1e-09, got '0'" },
	{ "SRAM", "{allow_overbooking: perhaps}", "expected true or false, got 'perhaps'" },
	/* fuzz finding 2: an effective size beyond 64 bits is out of range, not wrapped */
	{ "SRAM", "{entries: 10000000000000000000, multiple_buffering: 0.5}",
	  "5:94: error: in 'architecture.subtree[0].local[0].attributes.multiple_buffering': out of "
	  "range: the effective size (10000000000000000000 words / multiple_buffering 0.5) is more "
	  "than 2^64 - 1 words" },
	{ "SRAM", "{metadata_storage_depth: 1099511627775, metadata_storage_width: 16777216, "
		  "multiple_buffering: 1e-9}",
	  "in 'architecture.subtree[0].local[0].attributes.multiple_buffering': out of range: the "
	  "effective metadata size (18446744073692774400 bits / multiple_buffering 1e-09) is more "
	  "than 2^64 - 1 bits" },
};

static void test_errors(void)
{
	size_t i;
	for (i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = one_level(error_rows[i].cls, error_rows[i].attrs, &dl);
		st_assert_diag(s, &dl, true, i, error_rows[i].expected);
	}
}

/*
 * Only a close misspelling of a known attribute warns; Accelergy's do not, in
 * either spelling of '-' and '_', nor do names far from any (before the first
 * known name and after the last).
 */
static void test_attribute_warnings(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = one_level("SRAM", "{dpth: 4, n_rdwr_ports: 2, global_cycle_seconds: 1e-9,"
				       " metadata_counter_width: 4, vendor: acme, datawdth: 8,"
				       " n-rd-ports: 1, energy_per_ingress: 1, aaa: 1, zzz: 1,"
				       " adder-width: 8, warp-registers: 2}", &dl);
	char *got = st_diags(&dl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(dl.n_warnings, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "unknown attribute 'dpth' is ignored; did you mean 'depth'?"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "unknown attribute 'datawdth' is ignored; did you mean "
				      "'datawidth'?"));
	free(got);
	spec_set_free(s);
	diag_list_release(&dl);
}

/* The architecture of the designs below up to their first level (a DRAM). */
#define SYS_DRAM \
	"architecture:\n" \
	"  subtree:\n" \
	"  - name: sys\n" \
	"    attributes: {technology: 45nm}\n" \
	"    local:\n" \
	"    - {name: DRAM, class: DRAM, attributes: {width: 64, datawidth: 8}}\n"

/*
 * The builds of one source take a level read from nodes of the files alone
 * as the first build read it (specs/level.c): the same display attributes
 * (pointer-equal), the right values; a level an override or an expression
 * changes is read again by every build; a level whose read says something
 * (a misspelt attribute's warning) is read, and warns, every time.
 */
static void test_levels_once(void)
{
	static const char design[] =
		"variables: {d: 5}\n"
		SYS_DRAM
		"    - {name: buf, class: SRAM, attributes: {depth: 100, datawidth: 8, wdith: 8}}\n"
		"    - {name: reg, class: regfile, attributes: {depth: 10, datawidth: 8}}\n"
		"    - {name: mac, class: intmac}\n";
	static const char *const ov_text[] = {
		"architecture.subtree[0].local[name=reg].attributes.depth=20",
		"architecture.subtree[0].local[name=reg].attributes.depth=(d * 2)",
		"variables.d=7",
		"architecture.subtree[0].attributes.technology=DRAM",
	};
	/*
	 * per build (none, then each override): reg's size, and whether reg's
	 * and DRAM's levels are the ones the first build read ('20' and
	 * 'd * 2' make reg's node a copy; a changed inherited attribute makes
	 * every level's attributes others)
	 */
	static const uint64_t reg_size[] = { 10, 20, 10, 10, 10 };
	static const bool dram_same[] = { true, true, true, true, false };
	static const bool reg_same[] = { true, false, false, true, false };
	struct spec_source *src = spec_source_new();
	struct spec_override ov[4];
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *first, *again = NULL, *s;
	size_t i, k, warned = 0;

	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "d.yaml", design, strlen(design), &dl), 0);
	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "p.yaml", prob, strlen(prob), &dl), 0);
	for (i = 0; i < 4; i++) {
		ov[i] = (struct spec_override)SPEC_OVERRIDE_INIT;
		CU_ASSERT_EQUAL_FATAL(spec_override_parse(ov_text[i], &ov[i], &dl), 0);
	}
	first = spec_set_build(src, NULL, 0, NULL, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	CU_ASSERT_EQUAL_FATAL(first->arch.n_levels, 3);
	for (i = 0; i < 5; i++) {
		s = spec_set_build(src, i ? &ov[i - 1] : NULL, i ? 1 : 0, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->arch.levels[0].size_words, reg_size[i]);
		if (!again)    /* the first build read them; later ones take what it read */
			again = s;
		CU_ASSERT_EQUAL(s->arch.levels[0].attrs == again->arch.levels[0].attrs, reg_same[i]);
		CU_ASSERT_EQUAL(s->arch.levels[2].attrs == again->arch.levels[2].attrs, dram_same[i]);
		if (s != again)   /* buf warns: read by every build */
			CU_ASSERT_PTR_NOT_EQUAL(s->arch.levels[1].attrs, again->arch.levels[1].attrs);
		CU_ASSERT_EQUAL(s->arch.levels[0].technology, i == 4 ? SPEC_TECH_DRAM : SPEC_TECH_SRAM);
		CU_ASSERT_STRING_EQUAL(s->arch.levels[0].name, "reg");
		CU_ASSERT_EQUAL(s->arch.levels[1].size_words, 100);
		if (s != again)
			spec_set_free(s);
	}
	spec_set_free(again);
	for (k = 0; k < dl.n; k++)          /* buf's 'wdith': once a build, six builds */
		warned += strstr(dl.items[k].message, "'wdith'") != NULL;
	CU_ASSERT_EQUAL(warned, 6);
	CU_ASSERT_EQUAL(dl.n_errors, 0);
	spec_set_free(first);
	for (i = 0; i < 4; i++)
		spec_override_release(&ov[i]);
	diag_list_release(&dl);
	spec_source_free(src);
}

/* The display value of attribute 'key' of level 'L', or NULL. */
static const char *shown(const struct spec_level *L, const char *key)
{
	size_t i;
	for (i = 0; i < L->n_attrs; i++)
		if (!strcmp(L->attrs[i].key, key))
			return L->attrs[i].value;
	return NULL;
}

/*
 * The keys of what builds of one source take from earlier ones (specs/
 * arch.c, level.c, vars.c): a 'local' entry flattened by an earlier build
 * is taken only under the same instance count (the enclosing subtree's
 * name[1..2] doubles it); a level differing from a kept one in its depth
 * alone gets its own size (depth x block size), display value and error,
 * one differing in another attribute is read whole; the compute unit is
 * read again when its attributes change; a bare name no file
 * binds is evaluated in a build whose override binds it (a variable).
 */
static void test_kept_keys(void)
{
	static const char design[] =
		SYS_DRAM
		"    - {name: buf, class: SRAM, attributes: {depth: 100, width: 64, datawidth: 8}}\n"
		"    - name: reg\n"
		"      class: regfile\n"
		"      attributes: {depth: 10, datawidth: 8, n_rdwr_ports: ports}\n"
		"      required_actions: [write, read]\n"
		"    - {name: mac, class: intmac, attributes: {datawidth: 16}}\n";
	static const struct {
		const char *ov;            /* NULL: none */
		uint64_t instances;        /* of every level */
		uint64_t buf_size;         /* words; 0: the build fails */
		const char *buf_depth;     /* shown */
		const char *ports;         /* reg's n_rdwr_ports shown */
	} builds[] = {
		{ NULL, 1, 800, "100", "ports" },
		{ "architecture.subtree[0].name=sys[1..2]", 2, 800, "100", "ports" },
		{ "architecture.subtree[0].local[name=buf].attributes.depth=300", 1, 2400, "300",
		  "ports" },
		{ "architecture.subtree[0].local[name=buf].attributes.depth=400", 1, 3200, "400",
		  "ports" },
		{ "architecture.subtree[0].local[name=buf].attributes.datawidth=16", 1, 400, "100",
		  "ports" },
		{ "architecture.subtree[0].local[name=buf].attributes.depth=-3", 1, 0, NULL, NULL },
		{ "variables={ports: 3}", 1, 800, "100", "3" },
		{ "architecture.subtree[0].local[name=mac].attributes.datawidth=4", 1, 800, "100",
		  "ports" },
		{ NULL, 1, 800, "100", "ports" },
	};
	struct spec_source *src = spec_source_new();
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "d.yaml", design, strlen(design), &dl), 0);
	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "p.yaml", prob, strlen(prob), &dl), 0);
	for (i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list bl = DIAG_LIST_INIT;
		struct spec_set *s;
		if (builds[i].ov)
			CU_ASSERT_EQUAL_FATAL(spec_override_parse(builds[i].ov, &ov, &bl), 0);
		s = spec_set_build(src, builds[i].ov ? &ov : NULL, builds[i].ov ? 1 : 0, NULL, &bl);
		if (!builds[i].buf_size) {
			CU_ASSERT_PTR_NULL(s);
			CU_ASSERT_EQUAL(bl.n_errors, 1);
			CU_ASSERT(bl.n && strstr(bl.items[0].message, "'-3'") != NULL);
		} else {
			CU_ASSERT_PTR_NOT_NULL_FATAL(s);
			CU_ASSERT_EQUAL(bl.n_errors, 0);
			CU_ASSERT_EQUAL_FATAL(s->arch.n_levels, 3);
			CU_ASSERT_EQUAL(s->arch.levels[0].instances, builds[i].instances);
			CU_ASSERT_EQUAL(s->arch.levels[1].instances, builds[i].instances);
			CU_ASSERT_EQUAL(s->arch.levels[2].instances, builds[i].instances);
			CU_ASSERT_EQUAL(s->arch.compute.instances, builds[i].instances);
			CU_ASSERT_EQUAL(s->arch.compute.word_bits, i == 7 ? 4 : 16);
			CU_ASSERT_EQUAL(s->arch.levels[1].size_words, builds[i].buf_size);
			CU_ASSERT_EQUAL(s->arch.levels[1].effective_size_words, builds[i].buf_size);
			CU_ASSERT_STRING_EQUAL(shown(&s->arch.levels[1], "depth"), builds[i].buf_depth);
			CU_ASSERT_STRING_EQUAL(shown(&s->arch.levels[0], "n_rdwr_ports"), builds[i].ports);
			CU_ASSERT_EQUAL(s->arch.levels[0].size_words, 10);
		}
		spec_set_free(s);
		spec_override_release(&ov);
		diag_list_release(&bl);
	}
	diag_list_release(&dl);
	spec_source_free(src);
}

static CU_TestInfo tests[] = {
	{ "word, block, cluster, size, technology", test_derivations },
	{ "other attributes", test_other_attributes },
	{ "defaults", test_defaults_of_unset },
	{ "power gating and meshes", test_power_gating_and_meshes },
	{ "attribute errors", test_errors },
	{ "misspelt attributes warn", test_attribute_warnings },
	{ "levels read once for the builds of a source", test_levels_once },
	{ "what builds take from earlier ones, and when not", test_kept_keys },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "level", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
