#include "tests/accel/stpu_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/diag.h"

static char tmpdir[256];
static char written[32][64];
static unsigned n_written;

static void cleanup(void)
{
	char path[512];
	unsigned i;
	for (i = 0; i < n_written; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, written[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

const char *sf_write(const char *name, const char *text)
{
	static char path[4][512];
	static unsigned next;
	char *p = path[next++ % 4];
	FILE *fp;
	unsigned i;

	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/fiberloop-stpu-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(cleanup);
	}
	for (i = 0; i < n_written && strcmp(written[i], name); i++)
		;
	if (i == n_written && n_written < 32)
		snprintf(written[n_written++], sizeof(written[0]), "%s", name);
	snprintf(p, 512, "%s/%s", tmpdir, name);
	fp = fopen(p, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0) {
		perror(p);
		abort();
	}
	return p;
}

const struct spec_matrix *sf_matrix(struct arena *a, uint64_t rows, uint64_t cols,
				    const char *entries)
{
	struct spec_matrix *m = arena_calloc(a, 1, sizeof(*m));
	size_t n = 0, i;
	const char *s;
	uint64_t *coords;
	double *values;
	unsigned long long r, c;
	int used;

	for (s = entries; sscanf(s, " %llu,%llu%n", &r, &c, &used) == 2; s += used)
		n++;
	coords = arena_calloc(a, 2 * n + 1, sizeof(*coords));
	values = arena_calloc(a, n + 1, sizeof(*values));
	for (s = entries, i = 0; sscanf(s, " %llu,%llu%n", &r, &c, &used) == 2; s += used, i++) {
		coords[2 * i] = r;
		coords[2 * i + 1] = c;
		values[i] = 1.0;
	}
	m->file = "(test)";
	m->n_ranks = 2;
	m->shape[0] = rows;
	m->shape[1] = cols;
	m->nnz = n;
	m->coords = coords;
	m->values = values;
	return m;
}

struct spec_set *sf_load(const char *yaml)
{
	const char *path = sf_write("design.yaml", yaml);
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_load_options lo = { .kinds = unit_spec_kinds };
	struct spec_set *s = spec_set_load(&path, 1, &lo, &dl);

	if (!s)
		diag_print(&dl, stderr);
	diag_list_release(&dl);
	return s;
}
