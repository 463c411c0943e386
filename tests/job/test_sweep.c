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

/*
 * Sweep axes[0..n_axes) (their texts) of 04.2.1 with the design override
 * 'set' (or none) on one worker; check every row against the point built
 * and run alone from a source of its own. Per axis: in how many pairs of
 * rows one step along it from a point that succeeded changed the row
 * (changed[]), of pairs[]; the statuses counted into n_status[].
 */
static void sweep_vs_alone(const char *const *texts, size_t n_axes, const char *set,
			   unsigned *changed, unsigned *pairs, unsigned n_status[JOB_STATUS_COUNT])
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
	struct spec_override set_ov = SPEC_OVERRIDE_INIT;
	struct job_hash h;
	struct job_design d;
	unsigned i, a, bad = 0, n_points = 1;

	memset(&got, 0, sizeof(got));
	for (i = 0; i < 3; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/conformance/04.2.1-eyeriss-like-gating/%s",
			 data ? data : "tests/data", names[i]);
		fp[i] = files[i];
	}
	for (a = 0; a < n_axes; a++) {
		CU_ASSERT_EQUAL_FATAL(job_axis_parse(texts[a], &axes[a], &dl), 0);
		n_points *= (unsigned)axes[a].n_values;
	}
	CU_ASSERT_FATAL(n_points <= N_POINTS);
	d = (struct job_design){ .files = fp, .n_files = 3, .command = JOB_MODEL };
	if (set) {
		CU_ASSERT_EQUAL_FATAL(spec_override_parse(set, &set_ov, &dl), 0);
		d.overrides = &set_ov;
		d.n_overrides = 1;
	}
	job_options_init(&o, JOB_MODEL);
	sw = (struct job_sweep){ &d, axes, n_axes, false, &o };
	memset(&rn, 0, sizeof(rn));
	rn.n_workers = 1;            /* one worker: every point on the same kept memory */
	rn.on_row = take_row;
	rn.row_arg = &got;
	CU_ASSERT_EQUAL_FATAL(job_sweep_run(&sw, &rn, &res, &dl), 0);
	CU_ASSERT_EQUAL(res.n_done, n_points);

	/*
	 * each point alone: its own source (nothing loaded before), its own spec
	 * set, a fresh workspace (no scratch, no energy cache)
	 */
	job_quiet_options(&o, NULL, &q);
	for (i = 0; i < n_points; i++) {
		struct spec_override ov[N_AXES + 1];
		size_t vi[N_AXES], k = 0;
		struct job_summary *alone = xcalloc(1, sizeof(*alone));

		CU_ASSERT_EQUAL_FATAL(job_design_source(&d, &src, &h, &dl), 0);
		CU_ASSERT_EQUAL(got.seen[i], 1);
		job_sweep_point(axes, n_axes, false, i, vi);
		if (set)
			ov[k++] = set_ov;
		for (a = 0; a < n_axes; a++) {
			ov[k] = (struct spec_override)SPEC_OVERRIDE_INIT;
			job_axis_override(&axes[a], vi[a], 0, &ov[k++]);
		}
		job_run_built(src, &lo, ov, k, &q, NULL, alone);
		bad += summary_diffs(&got.sum[i], alone);
		n_status[got.sum[i].status]++;
		for (a = 0; a < n_axes; a++) {   /* one step along axis a from a feasible point */
			size_t step = 1, b;
			for (b = a + 1; b < n_axes; b++)
				step *= axes[b].n_values;
			if (vi[a] != 0 || got.sum[i].status != JOB_OK)
				continue;
			pairs[a]++;
			changed[a] += summary_diffs(&got.sum[i], &got.sum[i + step]) != 0;
		}
		for (k = set ? 1 : 0, a = 0; a < n_axes; a++)
			spec_override_release(&ov[k++]);
		free(alone);
		spec_source_free(src);
	}
	CU_ASSERT_EQUAL(bad, 0);
	for (a = 0; a < n_axes; a++)
		job_axis_release(&axes[a]);
	spec_override_release(&set_ov);
	diag_list_release(&dl);
}

static void test_rows_as_alone(void)
{
	unsigned changed[N_AXES] = { 0 }, pairs[N_AXES] = { 0 }, n[JOB_STATUS_COUNT] = { 0 }, a;

	sweep_vs_alone(axis_texts, N_AXES, NULL, changed, pairs, n);
	CU_ASSERT_EQUAL(n[JOB_OK], N_POINTS / 2);       /* a 64-word buffer holds no tile */
	CU_ASSERT_EQUAL(n[JOB_INFEASIBLE], N_POINTS / 2);
	for (a = 0; a < N_AXES; a++) {         /* every step of every axis changes the row */
		CU_ASSERT(pairs[a] >= 4);
		CU_ASSERT_EQUAL(changed[a], a == CLASS_AXIS ? 0 : pairs[a]);
	}
}

/*
 * The parts of a build a source keeps for later builds (specs/: levels and
 * ERT tables read from nodes of the files, the expression walk's table of
 * inert nodes) and a worker keeps for its next point (the overrides of the
 * axes that did not change): a mapping axis, a level's attribute given by
 * an expression of a variable, the variable itself (--set, then an axis),
 * an attribute every level inherits, and a bad value that fails its points
 * with the error a build alone reports.
 */
static void test_rows_as_alone_kept_parts(void)
{
	static const char *const texts[] = {
		"perm:mapping[target=weights_spad,type=temporal].permutation=CRMSNPQ,RCMSNPQ",
		"x:variables.x=1,2",
		"spad:architecture.subtree[0].local[name=ifmap_spad].attributes.depth=12,(x*12)",
		"tech:architecture.subtree[0].attributes.technology=45nm,DRAM",
		"glb:architecture.subtree[0].local[name=shared_glb].attributes.depth=12800,-3",
	};
	unsigned changed[N_AXES] = { 0 }, pairs[N_AXES] = { 0 }, n[JOB_STATUS_COUNT] = { 0 }, a;

	sweep_vs_alone(texts, 5, "variables={x: 1}", changed, pairs, n);
	CU_ASSERT_EQUAL(n[JOB_BAD_INPUT], N_POINTS / 2);     /* depth -3: every such point */
	CU_ASSERT_EQUAL(n[JOB_OK], N_POINTS / 2);
	for (a = 0; a < 4; a++)
		CU_ASSERT(pairs[a] >= 8);
	CU_ASSERT_EQUAL(changed[0], pairs[0]);   /* the permutation changes every row */
	/*
	 * x, the spad's depth and the technology leave these rows as they are
	 * (the ERT prices every action; no tile is bounded by 12 words): what
	 * they check is each row against the point built alone
	 */
}

static CU_TestInfo sweep_tests[] = {
	{ "rows as each point alone", test_rows_as_alone },
	{ "rows as each point alone: the parts kept between builds", test_rows_as_alone_kept_parts },
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
