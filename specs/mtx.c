/*
 * Placeholder Matrix Market reader: replaced by the executor's issue.
 */
#include "specs/spec.h"

const struct spec_matrix *spec_matrix_load(struct arena *a, const char *path,
					   struct diag_list *dl)
{
	(void)a;
	diag_error(dl, (struct diag_loc){ path, 0, 0 }, "reading tensor files is not built yet");
	return NULL;
}
