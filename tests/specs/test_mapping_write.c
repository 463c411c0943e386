/*
 * spec_mapping_write_yaml(): every conformance mapping, written and loaded
 * again, gives the identical spec_mapping; residuals, masks and quoting too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static const char *const cases[] = {
	"01.2.1-DUDU-dot-product", "01.2.2-SUDU-dot-product", "01.2.3-SCDU-dot-product",
	"02.2.1-spMspM", "02.2.2-spMspM-tiled", "03.2.1-conv1d", "03.2.2-conv1d+oc",
	"03.2.3-conv1d+oc-spatial", "04.2.1-eyeriss-like-gating",
	"04.2.2-eyeriss-like-gating-mapspace-search", "04.2.3-eyeriss-like-onchip-compression",
	"eyeriss_like", "simba_like", "simple_output_stationary", "simple_weight_stationary",
	"sparse_tensor_core_like",
};

/* Load 'input' + 'map' (paths); NULL prints the diagnostics. */
static struct spec_set *load2(const char *input, const char *map)
{
	struct diag_list dl = DIAG_LIST_INIT;
	const char *paths[2] = { input, map };
	struct spec_set *s = spec_set_load(paths, 2, NULL, &dl);
	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}

static void round_trip(const char *input, const char *map)
{
	struct strbuf out = STRBUF_INIT;
	struct spec_set *a = load2(input, map), *b;
	const char *written;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_TRUE_FATAL(a->has_mapping);
	spec_mapping_write_yaml(a->mapping, &a->arch, &a->workload, &out);
	written = st_write("written.yaml", out.buf);
	b = load2(input, written);
	if (!b)
		fprintf(stderr, "%s", out.buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	st_assert_same_mapping(a->mapping, b->mapping);
	spec_set_free(a);
	spec_set_free(b);
	strbuf_release(&out);
}

static void test_conformance_round_trip(void)
{
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char input[1024], map[1024];
		snprintf(input, sizeof(input), "%s/%s/input.yaml", unit_conformance_dir(), cases[i]);
		snprintf(map, sizeof(map), "%s/%s/map.yaml", unit_conformance_dir(), cases[i]);
		round_trip(input, map);
	}
}

static const char design[] =
	"architecture:\n"
	"  subtree:\n"
	"  - name: sys\n"
	"    local:\n"
	"    - {name: \"Main Mem\", class: DRAM, attributes: {width: 64, datawidth: 8}}\n"
	"    - {name: 'buf[0..3]', class: SRAM, attributes: {depth: 64, datawidth: 8}}\n"
	"    - {name: 'mac[0..3]', class: intmac}\n"
	"problem:\n"
	"  shape:\n"
	"    dimensions: [M, K]\n"
	"    data_spaces:\n"
	"      - {name: \"A'x\", projection: [M, K]}\n"
	"      - {name: Z, projection: [M], read_write: true}\n"
	"  instance: {M: 23, K: 8}\n";

static const char mapping[] =
	"mapping:\n"
	"  - {target: Main Mem, type: spatial, factors: M=4 K=1, permutation: MK, split: 1,\n"
	"     no_reuse: [Z], no_link_transfer: [\"A'x\"]}\n"
	"  - {target: buf, type: temporal, factors: 'M=3,2 K=8', permutation: KM,\n"
	"     no_temporal_reuse: [Z], rmw_first_update: [Z]}\n"
	"  - {target: buf, type: datatype, keep: [Z], bypass: [\"A'x\"], no_coalesce: [Z]}\n"
	"  - {target: Main Mem, type: temporal, factors: M=2 K=1}\n";

static void test_residuals_masks_quoting(void)
{
	const char *input = st_write("design.yaml", design);
	char inbuf[512];
	const char *map;

	snprintf(inbuf, sizeof(inbuf), "%s", input);
	map = st_write("mapping.yaml", mapping);
	round_trip(inbuf, map);
}

static void test_written_text(void)
{
	static const char expected[] =
		"mapping:\n"
		"  - target: buf\n"
		"    type: datatype\n"
		"    keep: [Z]\n"
		"    bypass: ['A''x']\n"
		"    no_coalesce: [Z]\n"
		"  - target: 'Main Mem'\n"
		"    type: datatype\n"
		"    keep: ['A''x', Z]\n"
		"    bypass: []\n"
		"  - target: buf\n"
		"    type: temporal\n"
		"    factors: M3,2 K8\n"
		"    permutation: KM\n"
		"    no_temporal_reuse: [Z]\n"
		"    rmw_first_update: [Z]\n"
		"  - target: 'Main Mem'\n"
		"    type: spatial\n"
		"    factors: M4 K1\n"
		"    permutation: MK\n"
		"    split: 1\n"
		"    no_reuse: [Z]\n"
		"    no_link_transfer: ['A''x']\n"
		"  - target: 'Main Mem'\n"
		"    type: temporal\n"
		"    factors: M2 K1\n"
		"    permutation: MK\n";
	char inbuf[512];
	struct strbuf out = STRBUF_INIT;
	struct spec_set *s;

	snprintf(inbuf, sizeof(inbuf), "%s", st_write("design.yaml", design));
	s = load2(inbuf, st_write("mapping.yaml", mapping));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(s->mapping->is_imperfect);
	spec_mapping_write_yaml(s->mapping, &s->arch, &s->workload, &out);
	CU_ASSERT_STRING_EQUAL(out.buf, expected);
	strbuf_release(&out);
	spec_set_free(s);
}

static CU_TestInfo tests[] = {
	{ "conformance mappings round-trip", test_conformance_round_trip },
	{ "residuals, masks, quoted names round-trip", test_residuals_masks_quoting },
	{ "written text", test_written_text },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "mapping_write", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
