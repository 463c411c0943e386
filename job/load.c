/*
 * Loading a design for a command. For exec and validate, the tensor files
 * given as NAME=FILE are read and checked first, so that a malformed one is
 * reported at its own file:line (and its shape against the tensor's); then
 * the spec set is loaded with them as actual data.
 */
#include "job/job.h"

#include <stdio.h>
#include <string.h>

#include "job/kind_int.h"
#include "util/arena.h"

/*
 * Check one "NAME=FILE" tensor file: its syntax, and, when the workload
 * 'w' is known, that its shape is the tensor's. Diagnostics go to 'dl',
 * located in the file, or in the option ("--tensor 'NAME=FILE':1:COL")
 * when the file cannot be read.
 */
static void check_tensor_file(const char *arg, const struct spec_workload *w,
			      struct diag_list *dl)
{
	struct diag_list tmp = DIAG_LIST_INIT;
	struct arena a = ARENA_INIT;
	const char *eq = strchr(arg, '=');
	const struct spec_matrix *m;
	struct strbuf origin = STRBUF_INIT;
	char name[256];
	size_t i;
	int t;

	if (!eq || eq == arg || !eq[1])
		return;                /* the loader reports the malformed option */
	m = spec_matrix_load(&a, eq + 1, &tmp);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if (m && w && (t = spec_tensor_find(w, name)) >= 0)
		spec_matrix_check_shape(m, eq + 1, &w->tensors[t], &tmp);
	strbuf_addf(&origin, "--tensor '%s'", arg);
	for (i = 0; i < tmp.n; i++) {
		struct diag_loc loc = tmp.items[i].loc;
		if (!loc.line)
			loc = (struct diag_loc){ diag_list_strdup(dl, origin.buf), 1,
						 (unsigned)(eq - arg) + 2 };
		diag_copy(dl, &tmp.items[i], loc);
	}
	strbuf_release(&origin);
	diag_list_release(&tmp);
	arena_release(&a);
}

struct spec_set *job_load(const struct job_design *d, struct diag_list *dl)
{
	struct spec_load_options lo = {
		.require_mapping = !d->kind && (d->command == JOB_MODEL || d->command == JOB_EXEC ||
						d->command == JOB_VALIDATE),
		.allow_no_problem = d->command == JOB_CHECK || d->command == JOB_ENERGY,
		.kinds = job_spec_kinds(),
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
