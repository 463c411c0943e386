/*
 * per_call.c: the 'per_call' key, its defaults, tensor lists, stages with
 * expressions of the design's variables, and the GPU level attributes
 * (serial_prologue_epilogue, warp_registers) it goes with. Bad input is
 * in the corpus (tests/data/specs/bad/per_call_*, gpu_kernel_fields).
 * Uses tests/data/specs/bad/base.yaml (tensors A, B, Z).
 */
#include <stdio.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "tests/unit.h"

static struct spec_set *load_extra(const char *text, struct diag_list *dl)
{
	static char base[1024], path[1024];
	const char *ptrs[2];
	snprintf(base, sizeof(base), "%s", unit_data_path("specs/bad/base.yaml"));
	snprintf(path, sizeof(path), "%s", st_write("extra.yaml", text));
	ptrs[0] = base;
	ptrs[1] = path;
	return spec_set_load(ptrs, 2, NULL, dl);
}

static void test_absent(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra("model: {verbose: true}\n", &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_FALSE(s->per_call.present);
	CU_ASSERT_EQUAL(s->per_call.n_stages, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

static void test_fields(void)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = load_extra(
		"variables: {T: 384, H: 12}\n"
		"per_call:\n"
		"  clock_mhz: 1410\n"
		"  host_us: 4.5\n"
		"  ops: 7\n"
		"  setup_us: 460\n"
		"  launch_us: 2\n"
		"  copy: [B, Z]\n"
		"  compress: A\n"
		"  stages:\n"
		"  - {name: softmax, bytes: 4*H*T*T, count: 2}\n"
		"  - {name: scores, bytes: 0, flops: 2*H*T*T*64}\n", &dl);
	const struct spec_per_call *pc;
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	pc = &s->per_call;
	CU_ASSERT_TRUE(pc->present);
	CU_ASSERT_DOUBLE_EQUAL(pc->clock_mhz, 1410, 0);
	CU_ASSERT_DOUBLE_EQUAL(pc->host_us, 4.5, 0);
	CU_ASSERT_EQUAL(pc->ops, 7);
	CU_ASSERT_DOUBLE_EQUAL(pc->setup_us, 460, 0);
	CU_ASSERT_DOUBLE_EQUAL(pc->launch_us, 2, 0);
	CU_ASSERT_EQUAL(pc->copy_mask, (1u << 1) | (1u << 2));
	CU_ASSERT_EQUAL(pc->compress_mask, 1u << 0);
	CU_ASSERT_EQUAL_FATAL(pc->n_stages, 2);
	CU_ASSERT_STRING_EQUAL(pc->stages[0].name, "softmax");
	CU_ASSERT_DOUBLE_EQUAL(pc->stages[0].bytes, 4.0 * 12 * 384 * 384, 0);
	CU_ASSERT_DOUBLE_EQUAL(pc->stages[0].flops, 0, 0);
	CU_ASSERT_EQUAL(pc->stages[0].count, 2);
	CU_ASSERT_DOUBLE_EQUAL(pc->stages[1].flops, 2.0 * 12 * 384 * 384 * 64, 0);
	CU_ASSERT_EQUAL(pc->stages[1].count, 1);
	spec_set_free(s);
	diag_list_release(&dl);

	s = load_extra("per_call: {clock_mhz: 1830}\n", &dl);    /* defaults */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(s->per_call.present);
	CU_ASSERT_EQUAL(s->per_call.ops, 1);
	CU_ASSERT_DOUBLE_EQUAL(s->per_call.host_us, 0, 0);
	CU_ASSERT_EQUAL(s->per_call.copy_mask, 0);
	spec_set_free(s);
	diag_list_release(&dl);
}

static CU_TestInfo tests[] = {
	{ "no per_call key", test_absent },
	{ "per_call fields, defaults and stages", test_fields },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "per_call", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
