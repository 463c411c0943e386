/*
 * libFuzzer harness: the Matrix Market and dense-text tensor reader. The
 * first byte chooses the name (.mtx or .txt, which picks the reader when the
 * text does not start with the Matrix Market banner); the rest is the file.
 * Every diagnostic must be located (fuzz/located.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/located.h"
#include "specs/spec.h"
#include "util/arena.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct arena a = ARENA_INIT;
	const char *name;

	if (size == 0)
		return 0;
	name = data[0] & 1 ? "t.mtx" : "t.txt";
	spec_matrix_parse(&a, name, (const char *)data + 1, size - 1, &dl);
	fuzz_require_located(&dl);
	arena_release(&a);
	diag_list_release(&dl);
	return 0;
}
