/*
 * The harnesses' second oracle besides the sanitizers: every error and
 * warning a bad input gets is located (file, line and column), so that
 * "a bad input gets a located error" is checked on every input the fuzzer
 * makes, not only on the bad-spec corpus. A diagnostic without a place is
 * printed and the run aborts, which libFuzzer reports as a finding.
 */
#ifndef FUZZ_LOCATED_H
#define FUZZ_LOCATED_H

#include <stdio.h>
#include <stdlib.h>

#include "util/diag.h"

static inline void fuzz_require_located(const struct diag_list *dl)
{
	size_t i;

	for (i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		if (d->severity == DIAG_NOTE || (d->loc.file && d->loc.line && d->loc.col))
			continue;
		fprintf(stderr, "fuzz: a diagnostic without a location (%s:%u:%u): %s\n",
			d->loc.file ? d->loc.file : "(no file)", d->loc.line, d->loc.col,
			d->message);
		abort();
	}
}

#endif
