/*
 * Mapper options (Timeloop's defaults, then the 'mapper:' key), the order
 * of evaluations by a metric priority list, and names for messages.
 */
#include "mapper/mapper.h"

#include <math.h>
#include <string.h>

#include "util/xalloc.h"

void mapper_options_init(struct mapper_options *o, const struct spec_mapper_settings *s)
{
	memset(o, 0, sizeof(*o));
	o->algorithm = MAPPER_DEFAULT_ALGORITHM;
	o->n_streams = MAPPER_DEFAULT_STREAMS;
	o->n_metrics = 1;
	o->metrics[0] = SPEC_METRIC_EDP;
	o->timeout = MAPPER_DEFAULT_TIMEOUT;
	o->victory_condition = MAPPER_DEFAULT_VICTORY;
	o->max_permutations_per_if_visit = MAPPER_DEFAULT_MAX_PERMS;
	o->refine = MAPPER_DEFAULT_REFINE;
	if (!s || !s->present)
		return;
	o->algorithm = s->algorithm;
	o->n_threads = s->num_threads;
	if (s->n_metrics) {
		o->n_metrics = s->n_metrics;
		memcpy(o->metrics, s->metrics, sizeof(o->metrics[0]) * s->n_metrics);
	}
	o->search_size = s->search_size;
	o->timeout = s->timeout;
	o->victory_condition = s->victory_condition;
	if (s->max_permutations_per_if_visit)
		o->max_permutations_per_if_visit = s->max_permutations_per_if_visit;
	o->seed = s->seed;
	o->time_limit_s = s->time_limit_s;
}

/* The 0.1% bucket of a metric value: floor(log_{1.001} v); NaN sorts last. */
static double bucket(double v)
{
	if (isnan(v))
		return INFINITY;
	if (v <= 0)
		return -INFINITY;
	return floor(log(v) / log1p(1e-3));
}

static int cmp_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a < b ? -1 : a > b;
}

int mapper_eval_compare(const struct mapper_eval *a, const struct mapper_eval *b,
			const enum spec_metric *metrics, unsigned n_metrics)
{
	unsigned i;
	int c;

	for (i = 0; i < n_metrics; i++)
		if ((c = cmp_double(bucket(a->metrics[metrics[i]]), bucket(b->metrics[metrics[i]]))))
			return c;
	for (i = 0; i < n_metrics; i++)
		if ((c = cmp_double(a->metrics[metrics[i]], b->metrics[metrics[i]])))
			return c;
	return 0;
}

static const char *const fail_names[] = {
	[MAPPER_OK] = "valid",
	[MAPPER_FAIL_CAPACITY] = "capacity",
	[MAPPER_FAIL_FANOUT] = "fan-out",
	[MAPPER_FAIL_OTHER] = "other",
};
_Static_assert(ARRAY_SIZE(fail_names) == MAPPER_FAIL_COUNT, "one name per failure");

static const char *const stop_names[] = {
	[MAPPER_STOP_DONE] = "mapspace exhausted",
	[MAPPER_STOP_SEARCH_SIZE] = "search_size reached",
	[MAPPER_STOP_VICTORY] = "victory_condition",
	[MAPPER_STOP_TIMEOUT] = "timeout",
	[MAPPER_STOP_TIME_LIMIT] = "time limit",
	[MAPPER_STOP_INTERRUPTED] = "interrupted",
};
_Static_assert(ARRAY_SIZE(stop_names) == MAPPER_STOP_COUNT, "one name per stop reason");

const char *mapper_fail_name(enum mapper_fail f)
{
	if ((unsigned)f >= MAPPER_FAIL_COUNT)
		BUG("mapper failure %d", (int)f);
	return fail_names[f];
}

const char *mapper_stop_name(enum mapper_stop s)
{
	if ((unsigned)s >= MAPPER_STOP_COUNT)
		BUG("mapper stop %d", (int)s);
	return stop_names[s];
}
