/*
 * The metric vocabulary: every metric a job gives, declared once. The
 * results database's metric columns, the rows a sweep streams, 'results'
 * and 'plot' take their names here; each kind of design provides the
 * metrics its getters read (job/kinds.c), and the others stay NULL. The
 * summary of a job holds the values, and the levels' energies by name.
 */
#include "job/job.h"

#include <stdio.h>
#include <string.h>

#include "job/job_int.h"
#include "job/kind_int.h"
#include "util/xalloc.h"

#define CORE JOB_METRIC_CORE
#define STREAM JOB_METRIC_STREAM

static void set_real(struct job_summary *s, enum job_metric_id m, double v)
{
	s->value[m].real = v;
	s->has |= UINT64_C(1) << m;
}

/* Energy (J) x cycles. */
static void derive_edp(struct job_summary *s)
{
	if (job_summary_has(s, JOB_METRIC_ENERGY_PJ) && job_summary_has(s, JOB_METRIC_CYCLES))
		set_real(s, JOB_METRIC_EDP_J_CYCLES, (double)s->value[JOB_METRIC_CYCLES].count *
			 s->value[JOB_METRIC_ENERGY_PJ].real * 1e-12);
}

/* Energy / actual computes (0 without computes). */
static void derive_pj_per_compute(struct job_summary *s)
{
	uint64_t n = s->value[JOB_METRIC_ACTUAL_COMPUTES].count;

	if (job_summary_has(s, JOB_METRIC_ENERGY_PJ) &&
	    job_summary_has(s, JOB_METRIC_ACTUAL_COMPUTES))
		set_real(s, JOB_METRIC_PJ_PER_COMPUTE,
			 n ? s->value[JOB_METRIC_ENERGY_PJ].real / (double)n : 0);
}

/*
 * The first ten are the columns of the database's first schema, in its
 * order (the core: always a column); the others are added to a database
 * when a row first has them.
 */
static const struct job_metric metrics[] = {
	[JOB_METRIC_ENERGY_PJ] = { "energy_pj", "pJ", JOB_VALUE_REAL, JOB_AGG_SUM,
		JOB_BETTER_LOWER, CORE | STREAM, "energy of the whole run", NULL },
	[JOB_METRIC_CYCLES] = { "cycles", "cycles", JOB_VALUE_COUNT, JOB_AGG_SUM,
		JOB_BETTER_LOWER, CORE | STREAM, "clock cycles of the whole run", NULL },
	[JOB_METRIC_EDP_J_CYCLES] = { "edp_j_cycles", "J*cycles", JOB_VALUE_REAL, JOB_AGG_DERIVED,
		JOB_BETTER_LOWER, CORE | STREAM, "energy-delay product: energy (J) x cycles",
		derive_edp },
	[JOB_METRIC_UTILIZATION] = { "utilization", "1", JOB_VALUE_REAL, JOB_AGG_CYCLE_MEAN,
		JOB_BETTER_HIGHER, CORE | STREAM, "busy fraction of the compute units", NULL },
	[JOB_METRIC_ALGORITHMIC_COMPUTES] = { "algorithmic_computes", "computes",
		JOB_VALUE_COUNT, JOB_AGG_SUM, JOB_BETTER_NONE, CORE | STREAM,
		"computes of the dense workload (an SpMV's non-zeros)", NULL },
	[JOB_METRIC_ACTUAL_COMPUTES] = { "actual_computes", "computes", JOB_VALUE_COUNT,
		JOB_AGG_SUM, JOB_BETTER_LOWER, CORE | STREAM,
		"computes performed (after gating and skipping)", NULL },
	[JOB_METRIC_PJ_PER_COMPUTE] = { "pj_per_compute", "pJ/compute", JOB_VALUE_REAL,
		JOB_AGG_DERIVED, JOB_BETTER_LOWER, CORE | STREAM, "energy per compute",
		derive_pj_per_compute },
	[JOB_METRIC_COMPUTE_ENERGY_PJ] = { "compute_energy_pj", "pJ", JOB_VALUE_REAL, JOB_AGG_SUM,
		JOB_BETTER_LOWER, CORE, "energy of the compute units", NULL },
	[JOB_METRIC_N_EVALUATED] = { "n_evaluated", "mappings", JOB_VALUE_COUNT, JOB_AGG_SUM,
		JOB_BETTER_NONE, CORE, "map: mappings the search visited", NULL },
	[JOB_METRIC_N_VALID] = { "n_valid", "mappings", JOB_VALUE_COUNT, JOB_AGG_SUM,
		JOB_BETTER_NONE, CORE, "map: valid mappings among them", NULL },
	[JOB_METRIC_AREA_UM2] = { "area_um2", "um^2", JOB_VALUE_REAL, JOB_AGG_SAME,
		JOB_BETTER_LOWER, 0, "area of the design: its levels' and compute unit's, times "
		"their instances (docs/energy.md)", NULL },
	[JOB_METRIC_SPEEDUP] = { "speedup", "x", JOB_VALUE_REAL, JOB_AGG_NONE, JOB_BETTER_HIGHER,
		STREAM, "baseline cycles / cycles (the IPU's dense matmul, the TPU)", NULL },
	[JOB_METRIC_BASELINE_CYCLES] = { "baseline_cycles", "cycles", JOB_VALUE_REAL,
		JOB_AGG_SUM, JOB_BETTER_NONE, STREAM,
		"cycles of the baseline on the same device (dense matmul, unpacked TPU)", NULL },
	[JOB_METRIC_BASELINE_ENERGY_PJ] = { "baseline_energy_pj", "pJ", JOB_VALUE_REAL,
		JOB_AGG_SUM, JOB_BETTER_NONE, STREAM, "energy of the baseline", NULL },
	[JOB_METRIC_ENERGY_RATIO] = { "energy_ratio", "x", JOB_VALUE_REAL, JOB_AGG_NONE,
		JOB_BETTER_HIGHER, STREAM, "baseline energy / energy", NULL },
	[JOB_METRIC_SCHEME] = { "scheme", "", JOB_VALUE_TEXT, JOB_AGG_NONE, JOB_BETTER_NONE,
		STREAM, "the scheme the row's figures are for (Sparse-TPU packing: C0, C1, KMZ, "
		"none)", NULL },
	[JOB_METRIC_PACKING_EFFICIENCY] = { "packing_efficiency", "x", JOB_VALUE_REAL,
		JOB_AGG_NONE, JOB_BETTER_HIGHER, STREAM, "columns / packed columns", NULL },
	[JOB_METRIC_ESTIMATED_PACKING_EFFICIENCY] = { "estimated_packing_efficiency", "x",
		JOB_VALUE_REAL, JOB_AGG_NONE, JOB_BETTER_HIGHER, STREAM,
		"STPU-C0's packing efficiency by the density-aware estimate (uniform matrices)", NULL },
	[JOB_METRIC_PROPAGATION_STEPS] = { "propagation_steps", "steps", JOB_VALUE_REAL,
		JOB_AGG_NONE, JOB_BETTER_LOWER, STREAM,
		"expected propagation steps of the forward pass (PopSparse)", NULL },
	[JOB_METRIC_FWD_CYCLES] = { "fwd_cycles", "cycles", JOB_VALUE_REAL, JOB_AGG_SUM,
		JOB_BETTER_LOWER, STREAM, "cycles of the forward pass alone (PopSparse)", NULL },
	[JOB_METRIC_FWD_BASELINE_CYCLES] = { "fwd_baseline_cycles", "cycles", JOB_VALUE_REAL,
		JOB_AGG_SUM, JOB_BETTER_NONE, STREAM,
		"cycles of the dense forward pass on the same device", NULL },
	[JOB_METRIC_MEMORY_BYTES] = { "memory_bytes", "bytes", JOB_VALUE_COUNT, JOB_AGG_NONE,
		JOB_BETTER_LOWER, STREAM, "bytes on the busiest tile", NULL },
	[JOB_METRIC_SECONDS] = { "seconds", "s", JOB_VALUE_REAL, JOB_AGG_SUM, JOB_BETTER_LOWER,
		STREAM, "time at the device's clock", NULL },
	[JOB_METRIC_BOUND] = { "bound", "", JOB_VALUE_TEXT, JOB_AGG_NONE, JOB_BETTER_NONE,
		STREAM, "what bounds the run (--roofline): compute, or a level and why", NULL },
	[JOB_METRIC_LEVEL_ENERGY_PJ] = { "energy_pj", "pJ", JOB_VALUE_REAL, JOB_AGG_SUM,
		JOB_BETTER_LOWER, JOB_METRIC_PER_LEVEL,
		"energy of one storage level (an STPU design: of one scheme): energy_pj.LEVEL", NULL },
};
_Static_assert(ARRAY_SIZE(metrics) == JOB_METRIC_COUNT, "one row per metric");
_Static_assert(JOB_METRIC_COUNT <= 64, "a summary keeps a bit per metric");
_Static_assert(sizeof(struct job_summary) < 16384, "a job summary stays under 16 KiB");

const struct job_metric *job_metric_get(enum job_metric_id m)
{
	if ((unsigned)m >= JOB_METRIC_COUNT)
		BUG("no metric %d", (int)m);
	return &metrics[m];
}

int job_metric_find(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name);
	int m;

	for (m = 0; m < JOB_METRIC_COUNT; m++)
		if (!strncmp(metrics[m].name, name, len) && !metrics[m].name[len] &&
		    !(metrics[m].flags & JOB_METRIC_PER_LEVEL) == !dot)
			return m;
	return -1;
}

/* ------------------------------------------------------------- summaries */

bool job_summary_has(const struct job_summary *s, enum job_metric_id m)
{
	return (unsigned)m < JOB_METRIC_COUNT && (s->has >> m & 1);
}

double job_summary_real(const struct job_summary *s, enum job_metric_id m)
{
	if (!job_summary_has(s, m))
		return 0;
	return metrics[m].type == JOB_VALUE_COUNT ? (double)s->value[m].count : s->value[m].real;
}

uint64_t job_summary_count(const struct job_summary *s, enum job_metric_id m)
{
	return job_summary_has(s, m) && metrics[m].type == JOB_VALUE_COUNT ? s->value[m].count : 0;
}

const char *job_summary_text(const struct job_summary *s, enum job_metric_id m)
{
	if (!job_summary_has(s, m) || metrics[m].type != JOB_VALUE_TEXT)
		return NULL;
	return s->texts + s->value[m].text;
}

const char *job_summary_level_name(const struct job_summary *s, unsigned l)
{
	if (l >= s->n_levels)
		BUG("level %u of %u", l, s->n_levels);
	return s->level_names + s->level_name_at[l];
}

void job_summary_set(struct job_summary *sum, enum job_metric_id m,
		     const struct job_metric_value *v)
{
	const struct job_metric *d = job_metric_get(m);
	size_t len;

	switch (d->type) {
	case JOB_VALUE_REAL:
		sum->value[m].real = v->real;
		break;
	case JOB_VALUE_COUNT:
		sum->value[m].count = v->count;
		break;
	case JOB_VALUE_TEXT:
		len = strlen(v->text) + 1;
		if (sum->texts_len + len > sizeof(sum->texts)) {
			job_fail(sum, JOB_SYSTEM, "the value of '%s' is too long for a summary (%zu "
				 "bytes)", d->name, len - 1);
			return;
		}
		memcpy(sum->texts + sum->texts_len, v->text, len);
		sum->value[m].text = sum->texts_len;
		sum->texts_len += (uint32_t)len;
		break;
	}
	sum->has |= UINT64_C(1) << m;
}

void job_summary_add_level(struct job_summary *sum, const char *name, double energy_pj)
{
	size_t len = strlen(name) + 1;

	if (sum->n_levels == JOB_MAX_PARTS)
		BUG("more than %d levels and tensors", JOB_MAX_PARTS);
	if (sum->level_names_len + len > sizeof(sum->level_names)) {
		job_fail(sum, JOB_SYSTEM, "the level names are too long for a summary (more than "
			 "%zu bytes)", sizeof(sum->level_names));
		return;
	}
	memcpy(sum->level_names + sum->level_names_len, name, len);
	sum->level_name_at[sum->n_levels] = (uint16_t)sum->level_names_len;
	sum->level_energy_pj[sum->n_levels++] = energy_pj;
	sum->level_names_len += (uint32_t)len;
	sum->has |= UINT64_C(1) << JOB_METRIC_LEVEL_ENERGY_PJ;
}

void job_summary_fill(struct job_summary *sum, const struct job_metric_set *set,
		      const struct spec_set *s, const void *result)
{
	size_t i;

	for (i = 0; i < set->n_gets; i++) {
		struct job_metric_value v = { 0, 0, NULL, "" };
		if (set->gets[i].get(s, result, &v))
			job_summary_set(sum, set->gets[i].id, &v);
	}
	if (set->levels)
		set->levels(s, result, sum);
}

/* Level 'name' of 't' (added when new, outermost names last); its index, or -1 (full). */
static int level_of(struct job_summary *t, const char *name)
{
	unsigned l;

	for (l = 0; l < t->n_levels; l++)
		if (!strcmp(job_summary_level_name(t, l), name))
			return (int)l;
	if (t->n_levels == JOB_MAX_PARTS)
		return -1;
	job_summary_add_level(t, name, 0);
	return t->n_levels == l + 1 ? (int)l : -1;
}

void job_summary_combine(struct job_summary *t, const struct job_summary *const *sums, size_t n)
{
	size_t i;
	unsigned l;
	int m;

	for (m = 0; m < JOB_METRIC_COUNT; m++) {
		const struct job_metric *d = &metrics[m];
		double weighted = 0;
		bool all = n > 0;

		for (i = 0; i < n; i++)
			all = all && job_summary_has(sums[i], (enum job_metric_id)m) &&
			      (d->agg != JOB_AGG_CYCLE_MEAN ||
			       job_summary_has(sums[i], JOB_METRIC_CYCLES));
		if (!all || d->type == JOB_VALUE_TEXT || (d->flags & JOB_METRIC_PER_LEVEL))
			continue;
		if (d->agg == JOB_AGG_SUM) {
			for (i = 0; i < n; i++) {
				if (d->type == JOB_VALUE_COUNT)
					t->value[m].count += sums[i]->value[m].count;
				else
					t->value[m].real += sums[i]->value[m].real;
			}
			t->has |= UINT64_C(1) << m;
		}
		if (d->agg == JOB_AGG_SAME) {   /* one design's: kept only when every row agrees */
			for (i = 1; i < n && all; i++)
				all = d->type == JOB_VALUE_COUNT ?
				      sums[i]->value[m].count == sums[0]->value[m].count :
				      sums[i]->value[m].real == sums[0]->value[m].real;
			if (all) {
				t->value[m] = sums[0]->value[m];
				t->has |= UINT64_C(1) << m;
			}
		}
		if (d->agg == JOB_AGG_CYCLE_MEAN) {
			uint64_t cycles = 0;
			for (i = 0; i < n; i++) {
				weighted += sums[i]->value[m].real *
					    (double)sums[i]->value[JOB_METRIC_CYCLES].count;
				cycles += sums[i]->value[JOB_METRIC_CYCLES].count;
			}
			set_real(t, (enum job_metric_id)m, cycles ? weighted / (double)cycles : 0);
		}
	}
	for (m = 0; m < JOB_METRIC_COUNT; m++)
		if (metrics[m].agg == JOB_AGG_DERIVED && metrics[m].derive)
			metrics[m].derive(t);
	for (i = 0; i < n; i++)
		for (l = 0; l < sums[i]->n_levels; l++) {
			int k = level_of(t, job_summary_level_name(sums[i], l));
			if (k >= 0)
				t->level_energy_pj[k] += sums[i]->level_energy_pj[l];
		}
}
