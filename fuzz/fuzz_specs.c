/*
 * libFuzzer harness: whole spec sets. The input is up to four YAML files
 * separated by lines "%%FILE%%"; they are loaded as one design from memory,
 * validated, and when a mapping is given, evaluated by the model. Any crash,
 * sanitizer report, leak or hang is a finding: bad input must only ever give
 * diagnostics, and each of them located (fuzz/located.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/located.h"
#include "job/job.h"
#include "model/model.h"
#include "specs/spec.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEP "\n%%FILE%%\n"

/* The first SEP in [p, end), or NULL. */
static const char *find_sep(const char *p, const char *end)
{
	size_t n = strlen(SEP);
	for (; (size_t)(end - p) >= n; p++)
		if (!memcmp(p, SEP, n))
			return p;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[4] = { "f0.yaml", "f1.yaml", "f2.yaml", "f3.yaml" };
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_load_options lo = { .allow_no_problem = true, .kinds = job_spec_kinds() };
	struct spec_source *src = spec_source_new();
	const char *p = (const char *)data, *end = p + size;
	struct spec_set *s;
	unsigned n = 0;

	spec_source_set_kinds(src, lo.kinds);
	while (n < 4) {
		const char *q = n < 3 ? find_sep(p, end) : NULL;
		size_t len = q ? (size_t)(q - p) : (size_t)(end - p);
		spec_source_add_text(src, names[n++], p, len, &dl);
		if (!q)
			break;
		p = q + strlen(SEP);
	}
	s = diag_has_errors(&dl) ? NULL : spec_set_build(src, NULL, 0, &lo, &dl);
	if (s && s->has_mapping) {
		struct model_result *r = malloc(sizeof(*r));
		struct model_ws *ws = model_ws_new(s, NULL, NULL);
		if (ws && r)
			model_eval(ws, s->mapping, r);
		model_ws_free(ws);
		free(r);
	}
	fuzz_require_located(&dl);
	spec_set_free(s);
	spec_source_free(src);
	diag_list_release(&dl);
	return 0;
}
