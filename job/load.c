/*
 * Loading a design for a command. For exec and validate, the tensor files
 * given as NAME=FILE are read and checked first, so that a malformed one is
 * reported at its own file:line (and its shape against the tensor's); then
 * the spec set is loaded with them as actual data.
 */
#include "job/job.h"

#include <stdio.h>
#include <string.h>

#include "util/arena.h"

/*
 * Check one "NAME=FILE" tensor file: its syntax, and, when the workload
 * 'w' is known, that its shape is the tensor's. Diagnostics go to 'dl'.
 */
static void check_tensor_file(const char *arg, const struct spec_workload *w,
			      struct diag_list *dl)
{
	struct arena a = ARENA_INIT;
	const char *eq = strchr(arg, '=');
	const struct spec_matrix *m;
	char name[256];
	int t;

	if (!eq || eq == arg || !eq[1])
		return;                /* the loader reports the malformed option */
	m = spec_matrix_load(&a, eq + 1, dl);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if (m && w && (t = spec_tensor_find(w, name)) >= 0) {
		const struct spec_tensor *st = &w->tensors[t];
		struct diag_loc at = { eq + 1, m->shape_line, 0 };
		unsigned r;
		if (st->n_ranks != m->n_ranks) {
			diag_error(dl, at, "tensor '%s' has %u ranks; this file gives %u", name,
				   st->n_ranks, m->n_ranks);
		} else {
			for (r = 0; r < m->n_ranks; r++)
				if (m->shape[r] != st->rank_extent[r]) {
					diag_error(dl, at, "rank %u has %llu coordinates; tensor '%s' "
						   "needs %llu (its projection)", r,
						   (unsigned long long)m->shape[r], name,
						   (unsigned long long)st->rank_extent[r]);
					break;
				}
		}
	}
	arena_release(&a);
}

struct spec_set *job_load(const struct job_design *d, struct diag_list *dl)
{
	struct spec_load_options lo = {
		.require_mapping = d->command == JOB_MODEL || d->command == JOB_EXEC ||
				   d->command == JOB_VALIDATE,
		.allow_no_problem = d->command == JOB_CHECK,
	};
	unsigned errors_before = dl->n_errors;

	lo.template_vars = d->vars;
	lo.n_template_vars = d->n_vars;
	size_t i;

	if (d->n_tensors && (d->command == JOB_EXEC || d->command == JOB_VALIDATE)) {
		/* the design alone, to know the tensors' shapes (its errors come later) */
		struct diag_list tmp = DIAG_LIST_INIT;
		struct spec_set *plain = spec_set_load_overrides(d->files, d->n_files, d->overrides,
								 d->n_overrides, &lo, &tmp);
		diag_list_release(&tmp);
		for (i = 0; i < d->n_tensors; i++)
			check_tensor_file(d->tensors[i], plain ? &plain->workload : NULL, dl);
		spec_set_free(plain);
		if (dl->n_errors != errors_before)
			return NULL;
	}
	lo.tensor_files = d->tensors;
	lo.n_tensor_files = d->n_tensors;
	lo.prunes = d->prunes;
	lo.n_prunes = d->n_prunes;
	return spec_set_load_overrides(d->files, d->n_files, d->overrides, d->n_overrides, &lo, dl);
}
