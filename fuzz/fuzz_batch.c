/*
 * libFuzzer harness: the job files of 'fiberloop batch' (specs/batch.c:
 * defaults, jobs, their files, overrides, variables, commands, tags,
 * layers, seeds) and the axes of 'fiberloop sweep' (job/axis.c: paths,
 * values, ranges, names) with the count of their points. The input is a
 * batch file, then optionally a line "%%AXES%%" and one axis text per
 * line. Nothing is run: every job is checked for what the batch relies on
 * (a name, files, a command; overrides that parse where the file writes
 * them) and every axis for its values. Every diagnostic must be located
 * (fuzz/located.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/located.h"
#include "job/job.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AXES_MARK "\n%%AXES%%\n"
#define MAX_AXES 8

/* A batch that loaded keeps the promises job/batch.c relies on. */
static void check_batch(const struct spec_batch *b)
{
	size_t i, k;

	if (!b->n_jobs)
		abort();
	for (i = 0; i < b->n_jobs; i++) {
		const struct spec_batch_job *j = &b->jobs[i];
		enum job_command cmd;
		const char *kind;
		if (!j->name || !j->n_files || job_command_parse(j->command, &cmd, &kind) < 0 ||
		    (j->n_layers && cmd != JOB_MAP))
			abort();
		for (k = 0; k < j->n_files; k++)
			if (!j->files[k] || !j->files[k][0])
				abort();
		for (k = 0; k < j->n_vars; k++)
			if (!strchr(j->vars[k], '=') || j->vars[k][0] == '=')
				abort();
		for (k = 0; k < j->n_sets; k++) {
			struct spec_override ov = SPEC_OVERRIDE_INIT;
			struct diag_list dl = DIAG_LIST_INIT;
			ov.at = j->set_at[2 * k];
			ov.value_at = j->set_at[2 * k + 1];
			if (!ov.at.line || spec_override_parse(j->sets[k], &ov, &dl) < 0)
				abort();       /* checked when the file was read */
			spec_override_release(&ov);
			diag_list_release(&dl);
		}
		for (k = 0; k < i; k++)
			if (!strcmp(b->jobs[k].name, j->name))
				abort();
	}
}

/* The axes, one a line of text[0..len), and their points. */
static void fuzz_axes(const char *text, size_t len)
{
	struct job_axis axes[MAX_AXES];
	struct diag_list dl = DIAG_LIST_INIT;
	size_t n = 0, i;
	char *copy = xmalloc(len + 1), *line, *save = NULL;
	int rc = 0;

	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = strtok_r(copy, "\n", &save); line && n < MAX_AXES;
	     line = strtok_r(NULL, "\n", &save)) {
		if (job_axis_parse(line, &axes[n], &dl) < 0)
			rc = -1;
		n++;
	}
	if (rc == 0 && n) {
		uint64_t points;
		size_t vi[MAX_AXES];
		bool zip = n > 1 && axes[0].n_values == axes[1].n_values;
		if (job_sweep_count(axes, n, zip, &points, &dl) == 0 && points) {
			job_sweep_point(axes, n, zip, points - 1, vi);
			for (i = 0; i < n; i++)
				if (vi[i] >= axes[i].n_values)
					abort();
		}
	}
	fuzz_require_located(&dl);
	for (i = 0; i < n; i++)
		job_axis_release(&axes[i]);
	diag_list_release(&dl);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *mark = NULL;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_batch *b;
	size_t n = size, i;

	for (i = 0; i + sizeof(AXES_MARK) - 1 <= size; i++)
		if (!memcmp(text + i, AXES_MARK, sizeof(AXES_MARK) - 1)) {
			mark = text + i;
			n = i;
			break;
		}
	b = spec_batch_load_text("fuzz/jobs.yaml", text, n, job_command_names(), &dl);
	fuzz_require_located(&dl);
	if (b)
		check_batch(b);
	else if (!diag_has_errors(&dl))
		abort();               /* refused without saying why */
	spec_batch_free(b);
	diag_list_release(&dl);
	if (mark)
		fuzz_axes(mark + sizeof(AXES_MARK) - 1,
			  size - (size_t)(mark - text) - (sizeof(AXES_MARK) - 1));
	return 0;
}
