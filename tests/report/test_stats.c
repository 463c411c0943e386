/*
 * report/stats.c: Timeloop's stats.txt, byte for byte. The dense layout of
 * the dense conformance designs equals Timeloop's own file (head's layout:
 * the reference's per-level MAPPING blocks are dropped before comparing);
 * so do the sparse-module layouts of the eleven Sparseloop designs, and the
 * sparse-module layout's labels and quirks are checked line by line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "tests/unit.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct model_result res_;

static struct spec_set *load_case(const char *name)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml", "ART.yaml" };
	return unit_load_case(name, files, 4, true);
}

/* The reference without its "MAPPING ... Loop nest:" blocks (head's layout). */
static void strip_mapping(const char *in, struct strbuf *out)
{
	const char *p = in;
	bool skip = false;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (!strncmp(p, "    MAPPING\n", 12))
			skip = true;
		if (!skip)
			strbuf_add(out, p, len);
		else if (len == 1)
			skip = false;        /* the blank line that ends the block */
		p += len;
	}
}

/* Our stats.txt of 'name' equals 'ref' (a file of the case). */
static void compare_case(const char *name, const char *ref)
{
	struct strbuf want = STRBUF_INIT, raw = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct spec_set *s = load_case(name);
	struct model_ws *ws;
	char path[1024];

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	snprintf(path, sizeof(path), "%s/%s/%s", unit_conformance_dir(), name, ref);
	CU_ASSERT_EQUAL_FATAL(fileio_read(path, &raw, &err), 0);
	strip_mapping(raw.buf, &want);
	ws = model_ws_new(s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, &res_), 0);
	report_stats_txt(s, &res_, &got);
	if (strcmp(got.buf, want.buf)) {
		size_t i = 0;
		while (got.buf[i] && got.buf[i] == want.buf[i])
			i++;
		fprintf(stderr, "%s: first difference at byte %zu: ...%.60s\n", name, i,
			got.buf + (i > 20 ? i - 20 : 0));
	}
	CU_ASSERT_STRING_EQUAL(got.buf, want.buf);
	model_ws_free(ws);
	spec_set_free(s);
	strbuf_release(&want);
	strbuf_release(&raw);
	strbuf_release(&got);
	strbuf_release(&err);
}

static void test_simple_weight_stationary(void)
{
	compare_case("simple_weight_stationary", "ref.stats.txt");
}

static void test_eyeriss_like(void)
{
	compare_case("eyeriss_like", "ref-head.stats.txt");
}

static void test_simba_like(void)
{
	compare_case("simba_like", "ref.stats.txt");
}

static void test_dot_product(void)
{
	compare_case("01.2.1-DUDU-dot-product", "ref.stats.txt");
}

/* Every Sparseloop design of the corpus equals Sparseloop's stats.txt. */
static void test_sparse_cases(void)
{
	static const char *const cases[] = {
		"01.2.2-SUDU-dot-product", "01.2.3-SCDU-dot-product", "02.2.1-spMspM",
		"02.2.2-spMspM-tiled", "03.2.1-conv1d", "03.2.2-conv1d+oc",
		"03.2.3-conv1d+oc-spatial", "04.2.1-eyeriss-like-gating",
		"04.2.2-eyeriss-like-gating-mapspace-search",
		"04.2.3-eyeriss-like-onchip-compression",
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		compare_case(cases[i], "ref.stats.txt");
}

/* The sparse-module layout: labels, widths, quirks. */
static void test_sparse_layout(void)
{
	static const char *const lines[] = {
		"    Utilized instances (max)     : 1\n",
		"    Utilized instances (average) : 1\n",
		"    Algorithmic Computes (total) : 512\n",
		"    Area (total)                 : 417.00 um^2\n\n\nLevel 1\n",
		"        Data storage size               : 128\n",
		"        Metadata storage width(bits)    : 4\n",
		"        Vector metadata read energy     : 0.55 pJ\n",
		"        Tile density distribution                                   : fixed_structured\n",
		"        Representation format                                       : none\n",
		"        Max utilized Repr format storage capacity                   : 0\n",
		"        Skipped scalar updates (per-instance)                       : 0\n",
		"            Breakdown (Data, Format): (1.00%, 0.00%\n",
		"            Breakdown (Data, Format): (1.00%, 0.00%)\n",
		"        Utilized instances (average)                                : 1.00\n",
		"Algorithmic Computes = 512\nfJ/Algorithmic-Compute\n",
		"\nActual Computes = 64\nfJ/Compute\n",
		"            Rank 1 (metadata, payload): (0, 9)\n",
		"            Rank 0 (metadata, payload): (64,  0)\n",
		"            Breakdown (Data, Format): (-38.05%, 39.05%)\n",
	};
	struct spec_set *s = load_case("02.2.1-spMspM");
	struct strbuf got = STRBUF_INIT;
	struct model_ws *ws;
	unsigned i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ws = model_ws_new(s, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(model_eval(ws, s->mapping, &res_), 0);
	CU_ASSERT(res_.is_sparse_layout);
	report_stats_txt(s, &res_, &got);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		if (!strstr(got.buf, lines[i]))
			fprintf(stderr, "missing: %s", lines[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(got.buf, lines[i]));
	}
	model_ws_free(ws);
	spec_set_free(s);
	strbuf_release(&got);
}

static CU_TestInfo tests[] = {
	{ "simple_weight_stationary equals Timeloop's", test_simple_weight_stationary },
	{ "eyeriss_like equals Timeloop head's", test_eyeriss_like },
	{ "simba_like equals Timeloop's", test_simba_like },
	{ "01.2.1 dot product equals Timeloop's", test_dot_product },
	{ "sparse-module layout", test_sparse_layout },
	{ "Sparseloop designs equal Sparseloop's", test_sparse_cases },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "stats", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
