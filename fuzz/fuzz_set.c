/*
 * libFuzzer harness: --set PATH=VALUE overrides. Each input line is one
 * override, applied in order to a fixed design (the directory named by
 * FIBERLOOP_FUZZ_DESIGN, default tests/data/conformance/04.2.1-eyeriss-like-
 * gating: input.yaml, map.yaml, ERT.yaml) loaded once into a source; the
 * set is rebuilt and, when valid, evaluated by the model. Every diagnostic
 * must be located (fuzz/located.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/located.h"
#include "model/model.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/xalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct spec_source *source;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	const char *dir = getenv("FIBERLOOP_FUZZ_DESIGN");
	struct diag_list dl = DIAG_LIST_INIT;
	static char paths[3][1024];
	size_t i;

	(void)argc;
	(void)argv;
	if (!dir)
		dir = "tests/data/conformance/04.2.1-eyeriss-like-gating";
	source = spec_source_new();
	for (i = 0; i < 3; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, files[i]);
		spec_source_add_file(source, paths[i], &dl);
	}
	if (diag_has_errors(&dl)) {
		diag_print(&dl, stderr);
		abort();
	}
	diag_list_release(&dl);
	return 0;
}

#define MAX_OVERRIDES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec_override ov[MAX_OVERRIDES];
	struct diag_list dl = DIAG_LIST_INIT;
	char *text = xmalloc(size + 1), *line, *save = NULL;
	struct spec_set *s = NULL;
	size_t n = 0, i;
	int bad = 0;

	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line && n < MAX_OVERRIDES;
	     line = strtok_r(NULL, "\n", &save)) {
		ov[n] = (struct spec_override)SPEC_OVERRIDE_INIT;
		if (spec_override_parse(line, &ov[n++], &dl) < 0)
			bad = 1;
	}
	if (!bad)
		s = spec_set_build(source, ov, n, NULL, &dl);
	if (s && s->has_mapping) {
		struct model_result *r = xmalloc(sizeof(*r));
		struct model_ws *ws = model_ws_new(s, NULL, NULL);
		if (ws)
			model_eval(ws, s->mapping, r);
		model_ws_free(ws);
		free(r);
	}
	fuzz_require_located(&dl);
	spec_set_free(s);
	diag_list_release(&dl);
	for (i = 0; i < n; i++)
		spec_override_release(&ov[i]);
	free(text);
	return 0;
}
