/*
 * The IPU model against the executor (exec/ipu.c, which shares no code with
 * accel/): on actual patterns, every bucket's fill, the propagation steps
 * and shifts of every pass and the busiest tile's blocks must be equal,
 * and the executor's numbers equal to a dense product; on density models,
 * the model's expected steps must lie within 3 standard errors of the
 * executor's mean over seeds. The seed's best case (a uniform pattern: no
 * step), worst case (everything in one X/Y partition: P_total - P_z steps)
 * and a skewed power-law pattern are among the actual patterns.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "tests/accel/ipu_fixture.h"
#include "tests/unit.h"
#include "util/rng.h"
#include "util/strbuf.h"

enum pattern { UNIFORM, RANDOM, POWER_LAW, ONE_PARTITION };

struct exact_row {
	const char *layer;          /* the layer without its density */
	unsigned rows, cols;        /* W in blocks */
	enum pattern pat;
	double density;
	uint64_t seed;
	int want_fwd_steps;         /* -1: not pinned */
	unsigned corner_r, corner_c;   /* ONE_PARTITION: the blocks of partition (0,0) */
};

static const struct exact_row exact_rows[] = {
	/* best case: the same count in every partition, spread evenly: no step */
	{ "x: 64, y: 64, z: 8, block_size: 4, partition: {x: 4, y: 4, z: 1}", 16, 16, UNIFORM,
	  0.25, 1, 0, 0, 0 },
	/* worst case: everything in partition (0,0): P_total - P_z steps */
	{ "x: 64, y: 64, z: 8, block_size: 4, partition: {x: 2, y: 2, z: 2}", 16, 16,
	  ONE_PARTITION, 0.1, 1, 8 - 2, 8, 8 },
	{ "x: 32, y: 32, z: 8, partition: {x: 2, y: 3, z: 1}", 32, 32, ONE_PARTITION, 0.05, 3,
	  6 - 1, 16, 11 },
	/* skewed power-law rows, every pass */
	{ "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a, grad_w], "
	  "partition: {x: 4, y: 2, z: 2}", 16, 16, POWER_LAW, 0.15, 5, -1, 0, 0 },
	{ "x: 128, y: 64, z: 16, block_size: 8, dtype: float, passes: [fwd, grad_a], "
	  "partition: {x: 4, y: 4, z: 2}", 16, 8, POWER_LAW, 0.2, 7, -1, 0, 0 },
	{ "x: 48, y: 40, z: 12, passes: [fwd, grad_a, grad_w], partition: {x: 3, y: 2, z: 3}",
	  48, 40, POWER_LAW, 0.1, 11, -1, 0, 0 },
	/* random patterns under the planner's own plans */
	{ "x: 64, y: 64, z: 8, block_size: 4", 16, 16, RANDOM, 0.25, 2, -1, 0, 0 },
	{ "x: 256, y: 128, z: 32, block_size: 16, passes: [fwd, grad_a, grad_w]", 16, 8, RANDOM,
	  0.3, 4, -1, 0, 0 },
	{ "x: 64, y: 96, z: 4, dtype: half, passes: [fwd, grad_a], "
	  "meta_info_bucket_oversize_proportion: 0.05", 64, 96, RANDOM, 0.08, 9, -1, 0, 0 },
	{ "x: 96, y: 64, z: 16, block_size: 8, partials_type: half, passes: [fwd, grad_w]", 12, 8,
	  RANDOM, 0.4, 13, -1, 0, 0 },
};

/* The blocks of a pattern of 'r' x 'c' blocks, 'n' of them at most. */
static size_t make_pattern(const struct exact_row *row, unsigned (*out)[2], size_t cap)
{
	unsigned r, c;
	size_t n = 0;
	struct rng g;
	uint8_t *used = calloc((size_t)row->rows * row->cols, 1);
	size_t want = (size_t)ceil(row->density * row->rows * row->cols);

	rng_seed(&g, row->seed);
	switch (row->pat) {
	case UNIFORM:          /* row r holds columns (r + k step) mod cols */
		for (r = 0; r < row->rows; r++)
			for (c = 0; c < row->cols; c++)
				if ((r + c) % (unsigned)lround(1.0 / row->density) == 0)
					used[r * row->cols + c] = 1;
		break;
	case RANDOM:
		while (n < want) {
			uint64_t k = rng_below(&g, (uint64_t)row->rows * row->cols);
			if (!used[k]) {
				used[k] = 1;
				n++;
			}
		}
		break;
	case POWER_LAW: {      /* row r gets a share proportional to (r + 1)^-1.5 */
		double total = 0;
		for (r = 0; r < row->rows; r++)
			total += pow(r + 1.0, -1.5);
		for (r = 0; r < row->rows; r++) {
			unsigned k = (unsigned)ceil(want * pow(r + 1.0, -1.5) / total), placed = 0;
			if (k > row->cols)
				k = row->cols;
			while (placed < k) {
				c = (unsigned)rng_below(&g, row->cols);
				if (!used[r * row->cols + c]) {
					used[r * row->cols + c] = 1;
					placed++;
				}
			}
		}
		break;
	}
	case ONE_PARTITION:    /* every block in partition (0,0) */
		if (want > (size_t)row->corner_r * row->corner_c)
			want = (size_t)row->corner_r * row->corner_c;
		while (n < want) {
			uint64_t k = rng_below(&g, (uint64_t)row->corner_r * row->corner_c);
			uint64_t i = (k / row->corner_c) * row->cols + k % row->corner_c;
			if (!used[i]) {
				used[i] = 1;
				n++;
			}
		}
		break;
	}
	n = 0;
	for (r = 0; r < row->rows; r++)
		for (c = 0; c < row->cols; c++)
			if (used[r * row->cols + c] && n < cap) {
				out[n][0] = r;
				out[n][1] = c;
				n++;
			}
	free(used);
	return n;
}

/* The model's layout for the plan it chose ('r'). */
static struct ipu_layout *model_layout(const struct spec_set *s, const struct accel_ipu_result *r)
{
	struct ipu_layer L;
	struct ipu_method ms[4], m;
	struct ipu_geom g;
	struct ipu_sizes z;
	struct ipu_row **rows;
	uint32_t *n_rows;
	struct ipu_part_cfg c;
	struct ipu_layout *lay;
	unsigned k, n;

	ipu_layer_init(&L, s);
	n = ipu_methods(&L, ms);
	m = ms[0];
	for (k = 0; k < n; k++)
		if (ms[k].gz == r->plan.gz && ms[k].grad_w_exch == r->plan.grad_w_exchange_buckets)
			m = ms[k];
	ipu_geom_init(&L, &m, r->plan.px, r->plan.py, r->plan.pz, &g);
	ipu_sizes_init(&L, &m, &g, false, &z);
	CU_ASSERT_EQUAL(z.nz_elems, r->buckets.nz_elems_per_bucket);
	ipu_rows_actual(s, &L, &g, &rows, &n_rows);
	c = ipu_part_cfg_of(&L, &m, &g, &z);
	lay = ipu_partition(&c, rows, n_rows);
	ipu_rows_free(rows, n_rows, (uint64_t)g.px * g.py);
	return lay;
}

static void exec_config(const struct spec_set *s, const struct accel_ipu_result *r, uint64_t seed,
			struct exec_ipu_config *c)
{
	memset(c, 0, sizeof(*c));
	c->px = r->plan.px;
	c->py = r->plan.py;
	c->pz = r->plan.pz;
	c->kernel_block = r->plan.kernel_block;
	c->z_grain = r->plan.gz;
	c->bucket_groups = r->buckets.nz_elems_per_bucket /
			   ((uint64_t)r->plan.kernel_block * r->plan.kernel_block);
	c->bucket_meta_words = r->buckets.meta_words_per_bucket;
	c->workers = s->ipu->device.workers;
	c->seed = seed;
}

static void compare_exact(size_t i, const struct spec_set *s, const struct accel_ipu_result *r,
			  const struct ipu_layout *lay, const struct exec_ipu_result *e)
{
	uint64_t t, dist, sum, skipped, steps;
	unsigned p;

	CU_ASSERT_EQUAL_FATAL(e->n_buckets, lay->n_buckets);
	CU_ASSERT_EQUAL(e->overflow, lay->overflow);
	for (t = 0; t < lay->n_buckets; t++) {
		if (e->bucket_groups[t] != lay->buckets[t].nz || e->bucket_meta[t] != lay->buckets[t].meta ||
		    e->bucket_subgroups[t] != lay->buckets[t].n)
			fprintf(stderr, "row %zu bucket %llu: model %llu/%llu/%u, executor %llu/%llu/%llu\n",
				i, (unsigned long long)t, (unsigned long long)lay->buckets[t].nz,
				(unsigned long long)lay->buckets[t].meta, lay->buckets[t].n,
				(unsigned long long)e->bucket_groups[t],
				(unsigned long long)e->bucket_meta[t],
				(unsigned long long)e->bucket_subgroups[t]);
		CU_ASSERT_EQUAL(e->bucket_groups[t], lay->buckets[t].nz);
		CU_ASSERT_EQUAL(e->bucket_meta[t], lay->buckets[t].meta);
		CU_ASSERT_EQUAL(e->bucket_subgroups[t], lay->buckets[t].n);
	}
	CU_ASSERT_EQUAL(e->n_subgroups, r->n_subgroups);
	CU_ASSERT_EQUAL(e->n_spilled, r->n_spilled_subgroups);
	CU_ASSERT_EQUAL(e->spilled_groups, r->spilled_groups);
	for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
		if (!((s->ipu->layer.passes >> p) & 1))
			continue;
		CU_ASSERT(e->passes[p].run);
		CU_ASSERT(e->passes[p].numeric_ok);
		CU_ASSERT(r->passes[p].steps.is_exact);
		steps = ipu_layout_steps(lay, p == SPEC_IPU_GRAD_A, &skipped);
		CU_ASSERT_EQUAL(r->passes[p].steps.exact, steps);
		if (e->passes[p].steps != steps)
			fprintf(stderr, "row %zu pass %u: model %llu steps, executor %llu\n", i, p,
				(unsigned long long)steps, (unsigned long long)e->passes[p].steps);
		CU_ASSERT_EQUAL(e->passes[p].steps, steps);
		CU_ASSERT_EQUAL(e->passes[p].exchanges, steps + skipped);
		CU_ASSERT_EQUAL(e->passes[p].skipped_outer, skipped);
		ipu_layout_work(lay, (enum spec_ipu_pass)p, &dist, &sum);
		CU_ASSERT_EQUAL(e->passes[p].dist_max_groups, dist);
		CU_ASSERT_EQUAL(e->passes[p].step_max_groups_sum, sum);
	}
}

static void test_exact(void)
{
	size_t i;

	for (i = 0; i < sizeof(exact_rows) / sizeof(exact_rows[0]); i++) {
		const struct exact_row *row = &exact_rows[i];
		unsigned (*blocks)[2] = calloc((size_t)row->rows * row->cols, sizeof(*blocks));
		size_t n = make_pattern(row, blocks, (size_t)row->rows * row->cols);
		char name[32], layer[512];
		struct spec_set *s;
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		struct exec_ipu_result e;
		struct exec_ipu_config c;
		struct ipu_layout *lay;
		struct strbuf err = STRBUF_INIT;

		snprintf(name, sizeof(name), "w%zu.mtx", i);
		snprintf(layer, sizeof(layer), "%s, density: {distribution: actual_data, file: %s}",
			 row->layer, ipf_mtx(name, row->rows, row->cols, (const unsigned (*)[2])blocks, n));
		s = ipf_load("bow", layer);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		if (accel_ipu_eval(s, NULL, r, &err) < 0)
			fprintf(stderr, "row %zu: %s\n", i, err.buf);
		CU_ASSERT_EQUAL(r->status, ACCEL_IPU_OK);
		lay = model_layout(s, r);
		exec_config(s, r, 1, &c);
		CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &e), 0);
		CU_ASSERT_EQUAL(e.nz_blocks, n * (uint64_t)(s->ipu->layer.block_size / r->plan.kernel_block) *
				(s->ipu->layer.block_size / r->plan.kernel_block));
		compare_exact(i, s, r, lay, &e);
		if (row->want_fwd_steps >= 0) {
			if (r->passes[SPEC_IPU_FWD].steps.exact != (uint64_t)row->want_fwd_steps)
				fprintf(stderr, "row %zu: %llu steps, want %d\n", i,
					(unsigned long long)r->passes[SPEC_IPU_FWD].steps.exact,
					row->want_fwd_steps);
			CU_ASSERT_EQUAL(r->passes[SPEC_IPU_FWD].steps.exact, (uint64_t)row->want_fwd_steps);
			CU_ASSERT(row->want_fwd_steps == 0 ||
				  r->passes[SPEC_IPU_FWD].steps.exact == r->passes[SPEC_IPU_FWD].steps.worst);
		} else if (row->pat == POWER_LAW) {
			/* skewed: something spills, at most the worst case */
			fprintf(stderr, "row %zu: %llu steps of at most %llu\n", i,
				(unsigned long long)r->passes[SPEC_IPU_FWD].steps.exact,
				(unsigned long long)r->passes[SPEC_IPU_FWD].steps.worst);
			CU_ASSERT(r->passes[SPEC_IPU_FWD].steps.exact > 0);
			CU_ASSERT(r->passes[SPEC_IPU_FWD].steps.exact <=
				  r->passes[SPEC_IPU_FWD].steps.worst);
		}
		exec_ipu_result_release(&e);
		ipu_layout_free(lay);
		spec_set_free(s);
		free(r);
		free(blocks);
	}
}

struct expect_row {
	const char *layer;
	unsigned n_seeds;
};

/* Density models whose patterns spill: the model's draws against the executor's seeds. */
static const struct expect_row expect_rows[] = {
	{ "x: 64, y: 64, z: 8, block_size: 4, "
	  "density: {distribution: hypergeometric, density: 0.25}", 200 },
	{ "x: 64, y: 64, z: 8, block_size: 4, partition: {x: 4, y: 4, z: 2}, "
	  "density: {distribution: hypergeometric, density: 0.25}", 300 },
	{ "x: 64, y: 64, z: 8, block_size: 8, meta_info_bucket_oversize_proportion: 0.1, "
	  "partition: {x: 2, y: 4, z: 1}, density: {distribution: hypergeometric, density: 0.3}", 300 },
	{ "x: 32, y: 32, z: 8, meta_info_bucket_oversize_proportion: 0.1, partition: {x: 2, y: 2, z: 2}, "
	  "density: {distribution: hypergeometric, density: 0.2}", 300 },
	/* skewed: power-law rows, in Zipf order and permuted */
	{ "x: 64, y: 64, z: 8, block_size: 4, passes: [fwd, grad_a], "
	  "density: {distribution: power_law, density: 0.2, exponent: 1.2}", 300 },
	{ "x: 256, y: 128, z: 16, block_size: 8, passes: [fwd, grad_a], partition: {x: 4, y: 4, z: 2}, "
	  "density: {distribution: power_law, density: 0.15, exponent: 1.0, permute_rows: true}", 300 },
};

static void test_expected(void)
{
	size_t i;

	for (i = 0; i < sizeof(expect_rows) / sizeof(expect_rows[0]); i++) {
		const struct expect_row *row = &expect_rows[i];
		struct spec_set *s = ipf_load("bow", row->layer);
		struct accel_ipu_options o = ACCEL_IPU_OPTIONS_INIT;
		struct accel_ipu_result *r = calloc(1, sizeof(*r));
		double s1 = 0, s2 = 0, mean, se, lim;
		const struct accel_ipu_steps *st;
		unsigned k, p;
		struct strbuf err = STRBUF_INIT;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		o.n_samples = 2000;
		CU_ASSERT_EQUAL_FATAL(accel_ipu_eval(s, &o, r, &err), 0);
		for (p = 0; p < SPEC_IPU_N_PASSES; p++) {
			if (!r->passes[p].present)
				continue;
			st = &r->passes[p].steps;
			CU_ASSERT(!st->is_exact);
			CU_ASSERT(st->p_spill > 0.1);
			s1 = s2 = 0;
			for (k = 0; k < row->n_seeds; k++) {
				struct exec_ipu_config c;
				struct exec_ipu_result e;
				exec_config(s, r, k + 1, &c);
				CU_ASSERT_EQUAL_FATAL(exec_ipu_run(s, &c, &e), 0);
				CU_ASSERT(e.passes[p].numeric_ok);
				s1 += (double)e.passes[p].steps;
				s2 += (double)e.passes[p].steps * (double)e.passes[p].steps;
				exec_ipu_result_release(&e);
			}
			mean = s1 / row->n_seeds;
			se = sqrt((s2 - row->n_seeds * mean * mean) / (row->n_seeds - 1) / row->n_seeds);
			lim = 3 * sqrt(se * se + st->std_error * st->std_error);
			fprintf(stderr, "row %zu pass %u: model %.4g (se %.2g), executor %.4g (se %.2g)\n", i,
				p, st->expected, st->std_error, mean, se);
			CU_ASSERT(mean > 0);
			CU_ASSERT(fabs(st->expected - mean) <= lim);
		}
		spec_set_free(s);
		free(r);
	}
}

static CU_TestInfo tests[] = {
	{ "actual patterns: exact fills, steps and work", test_exact },
	{ "density models: expected steps within 3 standard errors", test_expected },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "ipu_vs_exec", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
