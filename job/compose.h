/*
 * 'fiberloop compose FILE': a composable-format file (docs/composable.md)
 * modelled part by part on the A100, run by the executor, and compared; then
 * the decomposition search over hyb(c, k) and a block size for its matrix.
 */
#ifndef FIBERLOOP_JOB_COMPOSE_H
#define FIBERLOOP_JOB_COMPOSE_H

#include "util/diag.h"
#include "util/strbuf.h"

/*
 * Run 'path' and print the table to 'out'. Returns 0, -1 after reporting bad
 * input to 'dl', or 1 when the executor disagrees with the model (said in 'out').
 */
int job_compose_run(const char *path, struct strbuf *out, struct diag_list *dl);

#endif
