/*
 * Sweeps (job/sweep.c) run every point on its worker's kept memory (one
 * workspace and result per worker, job_scratch; the sparse analysis' part
 * kept too): each row must be the row of the point built and run alone on
 * fresh memory, for axes of each kind (a density, a representation format,
 * an architecture attribute, an energy table entry, and a compound
 * component class: the builds of a source share the classes it loaded once,
 * and a point whose override changes them loads its own), and each axis must
 * change the rows (an override that were not applied would leave them), but
 * the class's: the design's ERT prices every action, so no class does.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define N_AXES 5
#define N_POINTS 32              /* 2 x 2 x 2 x 2 x 2 */
#define CLASS_AXIS 3

static const char *const axis_texts[N_AXES] = {
	"density:problem.instance.densities.Inputs.density=0.1,0.4",
	"fmt:sparse_optimizations.targets[name=DRAM].representation_format.data_spaces"
	"[name=Inputs].ranks[1].format=RLE,UOP",
	"depth:architecture.subtree[0].local[name=shared_glb].attributes.depth=12800,64",
	"cls:compound_components.classes[0].attributes.adder_width=16,8",
	"ert:ERT.tables[0].actions[1].energy=512,300",
};

struct rows {
	struct job_summary sum[N_POINTS];
	unsigned seen[N_POINTS];
};

static void take_row(void *arg, const struct job_row *row)
{
	struct rows *r = arg;

	if (row->idx < N_POINTS) {
		r->sum[row->idx] = *row->sum;
		r->seen[row->idx]++;
	}
}

/* Two summaries of one point agree: status, error, every metric, every level. */
static unsigned summary_diffs(const struct job_summary *a, const struct job_summary *b)
{
	unsigned m, l, bad = a->status != b->status || strcmp(a->error, b->error) != 0 ||
			     a->has != b->has || a->n_levels != b->n_levels ||
			     strcmp(a->mapping, b->mapping) != 0;

	for (m = 0; !bad && m < JOB_METRIC_COUNT; m++) {
		const char *ta = job_summary_text(a, m), *tb = job_summary_text(b, m);
		bad += job_summary_real(a, m) != job_summary_real(b, m) ||
		       (ta || tb ? !ta || !tb || strcmp(ta, tb) != 0 : 0);
	}
	for (l = 0; !bad && l < a->n_levels; l++)
		bad += a->level_energy_pj[l] != b->level_energy_pj[l] ||
		       strcmp(job_summary_level_name(a, l), job_summary_level_name(b, l)) != 0;
	return bad;
}

static void test_rows_as_alone(void)
{
	static struct rows got;
	static const char *const names[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	const char *data = getenv("TEST_DATA_DIR");
	char files[3][512];
	const char *fp[3];
	struct job_axis axes[N_AXES];
	struct diag_list dl = DIAG_LIST_INIT;
	struct job_options o, q;
	struct job_run_result res;
	struct job_runner rn;
	struct job_sweep sw;
	struct spec_source *src;
	struct spec_load_options lo = { .require_mapping = true };
	struct job_hash h;
	struct job_design d;
	unsigned i, a, bad = 0, changed[N_AXES] = { 0 }, pairs[N_AXES] = { 0 }, ok = 0, failed = 0;

	for (i = 0; i < 3; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/conformance/04.2.1-eyeriss-like-gating/%s",
			 data ? data : "tests/data", names[i]);
		fp[i] = files[i];
	}
	for (a = 0; a < N_AXES; a++)
		CU_ASSERT_EQUAL_FATAL(job_axis_parse(axis_texts[a], &axes[a], &dl), 0);
	d = (struct job_design){ .files = fp, .n_files = 3, .command = JOB_MODEL };
	job_options_init(&o, JOB_MODEL);
	sw = (struct job_sweep){ &d, axes, N_AXES, false, &o };
	memset(&rn, 0, sizeof(rn));
	rn.n_workers = 1;            /* one worker: every point on the same kept memory */
	rn.on_row = take_row;
	rn.row_arg = &got;
	CU_ASSERT_EQUAL_FATAL(job_sweep_run(&sw, &rn, &res, &dl), 0);
	CU_ASSERT_EQUAL(res.n_done, N_POINTS);

	/*
	 * each point alone: its own source (nothing loaded before), its own spec
	 * set, a fresh workspace (no scratch, no energy cache)
	 */
	job_quiet_options(&o, NULL, &q);
	for (i = 0; i < N_POINTS; i++) {
		struct spec_override ov[N_AXES];
		size_t vi[N_AXES];
		struct job_summary *alone = xcalloc(1, sizeof(*alone));

		CU_ASSERT_EQUAL_FATAL(job_design_source(&d, &src, &h, &dl), 0);
		CU_ASSERT_EQUAL(got.seen[i], 1);
		job_sweep_point(axes, N_AXES, false, i, vi);
		for (a = 0; a < N_AXES; a++) {
			ov[a] = (struct spec_override)SPEC_OVERRIDE_INIT;
			job_axis_override(&axes[a], vi[a], 0, &ov[a]);
		}
		job_run_built(src, &lo, ov, N_AXES, &q, NULL, alone);
		bad += summary_diffs(&got.sum[i], alone);
		ok += got.sum[i].status == JOB_OK;
		failed += got.sum[i].status == JOB_INFEASIBLE;
		for (a = 0; a < N_AXES; a++) {   /* one step along axis a from a feasible point */
			size_t step = 1, b;
			for (b = a + 1; b < N_AXES; b++)
				step *= axes[b].n_values;
			if (vi[a] != 0 || got.sum[i].status != JOB_OK)
				continue;
			pairs[a]++;
			changed[a] += summary_diffs(&got.sum[i], &got.sum[i + step]) != 0;
		}
		for (a = 0; a < N_AXES; a++)
			spec_override_release(&ov[a]);
		free(alone);
		spec_source_free(src);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(ok, N_POINTS / 2);       /* a 64-word buffer holds no tile */
	CU_ASSERT_EQUAL(failed, N_POINTS / 2);
	for (a = 0; a < N_AXES; a++) {         /* every step of every axis changes the row */
		CU_ASSERT(pairs[a] >= 4);
		CU_ASSERT_EQUAL(changed[a], a == CLASS_AXIS ? 0 : pairs[a]);
	}
	for (a = 0; a < N_AXES; a++)
		job_axis_release(&axes[a]);
	diag_list_release(&dl);
}

static CU_TestInfo sweep_tests[] = {
	{ "rows as each point alone", test_rows_as_alone },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "sweep", .pTests = sweep_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
