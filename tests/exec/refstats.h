/*
 * A reader for Timeloop's stats.txt files, for comparing the executor's
 * counts with the reference outputs: every "Label : value" line is kept
 * under the level ("=== name ===") and tensor ("    Name:") it belongs to.
 */
#ifndef TESTS_EXEC_REFSTATS_H
#define TESTS_EXEC_REFSTATS_H

#include <stdbool.h>
#include <stddef.h>

struct refstat {
	char level[64], tensor[64], label[96], value[64];
};

struct refstats {
	size_t n;
	struct refstat *v;
};

/* Read 'path'; returns 0, or -1 when the file cannot be read. */
int refstats_load(struct refstats *rs, const char *path);

/* The value of 'label' for (level, tensor) (tensor "" for level fields), or NULL. */
const char *refstats_get(const struct refstats *rs, const char *level, const char *tensor,
			 const char *label);

void refstats_release(struct refstats *rs);

#endif
