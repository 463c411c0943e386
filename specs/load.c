/*
 * Placeholder loader: replaced by the YAML front end (issue: foundation).
 */
#include "specs/spec.h"

#include <stdlib.h>
#include <string.h>

struct spec_set *spec_set_load(const char *const *paths, size_t n_paths,
			       const struct spec_load_options *opt, struct diag_list *dl)
{
	(void)paths;
	(void)n_paths;
	(void)opt;
	diag_error(dl, DIAG_LOC_NONE, "the YAML loader is not built yet");
	return NULL;
}

void spec_set_free(struct spec_set *s)
{
	if (!s)
		return;
	arena_release(&s->arena);
	free(s);
}

int spec_level_find(const struct spec_arch *arch, const char *name)
{
	unsigned i;
	for (i = 0; i < arch->n_levels; i++)
		if (!strcmp(arch->levels[i].name, name))
			return (int)i;
	return -1;
}

int spec_tensor_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_tensors; i++)
		if (!strcmp(w->tensors[i].name, name))
			return (int)i;
	return -1;
}

int spec_dim_find(const struct spec_workload *w, const char *name)
{
	unsigned i;
	for (i = 0; i < w->n_dims; i++)
		if (!strcmp(w->dim_names[i], name))
			return (int)i;
	return -1;
}
