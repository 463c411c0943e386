/*
 * Tests of mapper/eval_model.c: searches with the analytical model on
 * conformance designs. The best mapping, written as YAML and loaded again
 * with the design (as 'fiberloop model' does), evaluates to exactly the
 * metrics the search reported; the reference mapping's own metrics
 * through the evaluator equal the model's; and the mapper's capacity
 * pre-check agrees with the model, with hull and exact footprints.
 */
#include "mapper/mapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapper/mapspace_int.h"
#include "model/model.h"
#include "tests/unit.h"
#include "util/rng.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Load "<case>/<f>" for each name of 'files'. */
static struct spec_set *load_case(const char *name, const char *const *files, size_t n)
{
	return unit_load_case(name, files, n, false);
}

static void test_roundtrip(void)
{
	static const char *const cases[] = { "simple_weight_stationary", "eyeriss_like" };
	static const char *const search_files[] = { "input.yaml", "constraints.yaml", "ERT.yaml" };
	static const enum spec_search algs[] = { SPEC_SEARCH_RANDOM_PRUNED, SPEC_SEARCH_HYBRID };
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(unit_conformance_dir());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spec_set *s = load_case(cases[i], search_files, 3), *back;
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;
		struct mapper_model_ctx mc;
		struct mapper_evaluator ev;
		struct mapper_options o;
		struct mapper_result *r = xmalloc(sizeof(*r));
		struct model_result *mr = xmalloc(sizeof(*mr));
		struct strbuf yaml = STRBUF_INIT, err = STRBUF_INIT;
		char tmp[] = "/tmp/fiberloop-mapper-testXXXXXX";
		const char *files[3];
		double metrics[SPEC_METRIC_COUNT];
		struct model_ws *ws;
		int fd;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		ms = mapper_space_new(s, NULL, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		mc.spec = s;
		mc.options = NULL;
		mapper_evaluator_model(&ev, &mc);
		mapper_options_init(&o, &s->mapper);
		o.algorithm = algs[i];
		o.n_threads = 2;
		o.search_size = 64;
		o.seed = 3;
		CU_ASSERT_EQUAL_FATAL(mapper_run(ms, &ev, &o, r), 0);
		CU_ASSERT_TRUE_FATAL(r->found);

		spec_mapping_write_yaml(&r->best, &s->arch, &s->workload, &yaml);
		fd = mkstemp(tmp);
		CU_ASSERT_TRUE_FATAL(fd >= 0);
		close(fd);
		CU_ASSERT_EQUAL_FATAL(fileio_write_atomic(tmp, yaml.buf, yaml.len, &err), 0);
		files[0] = "input.yaml";
		files[1] = "ERT.yaml";
		{
			const char *dir = unit_conformance_dir();
			char p0[1024], p1[1024];
			const char *argv[3] = { p0, p1, tmp };
			snprintf(p0, sizeof(p0), "%s/%s/%s", dir, cases[i], files[0]);
			snprintf(p1, sizeof(p1), "%s/%s/%s", dir, cases[i], files[1]);
			back = spec_set_load(argv, 3, NULL, &dl);
		}
		remove(tmp);
		CU_ASSERT_PTR_NOT_NULL_FATAL(back);
		CU_ASSERT_TRUE_FATAL(back->has_mapping);
		ws = model_ws_new(back, NULL, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
		CU_ASSERT_EQUAL(model_eval(ws, back->mapping, mr), 0);
		mapper_metrics_of_result(mr, metrics);
		CU_ASSERT_EQUAL(memcmp(metrics, r->best_eval.metrics, sizeof(metrics)), 0);
		CU_ASSERT_EQUAL(mr->cycles, (uint64_t)r->best_eval.metrics[SPEC_METRIC_DELAY]);
		model_ws_free(ws);
		spec_set_free(back);
		strbuf_release(&yaml);
		strbuf_release(&err);
		free(mr);
		free(r);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/* The evaluator reports the model's metrics and its failures. */
static void test_evaluator(void)
{
	static const char *const files[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	struct spec_set *s = load_case("eyeriss_like", files, 3);
	struct mapper_model_ctx mc;
	struct mapper_evaluator ev;
	struct model_result *mr = xmalloc(sizeof(*mr));
	struct spec_mapping *m = xmalloc(sizeof(*m));
	struct mapper_eval out;
	struct model_ws *ws;
	void *ews;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	mc.spec = s;
	mc.options = NULL;
	mapper_evaluator_model(&ev, &mc);
	ews = ev.ws_new(ev.ctx);
	ev.eval(ews, s->mapping, &out);
	ws = model_ws_new(s, NULL, NULL);
	CU_ASSERT_EQUAL(model_eval(ws, s->mapping, mr), 0);
	CU_ASSERT_EQUAL(out.status, MAPPER_OK);
	CU_ASSERT_EQUAL(out.metrics[SPEC_METRIC_ENERGY], mr->energy_pj);
	CU_ASSERT_EQUAL(out.metrics[SPEC_METRIC_DELAY], (double)mr->cycles);
	CU_ASSERT_EQUAL(out.metrics[SPEC_METRIC_EDP], mr->edp_j_cycles);
	CU_ASSERT_EQUAL(out.metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES], (double)mr->last_level_accesses);

	/* psum_spad (level 0) holds 16 words: a 32-output tile does not fit */
	*m = *s->mapping;
	m->levels[0].temporal_factors[1] = m->levels[0].temporal_residuals[1] = 32;   /* M */
	m->levels[6].temporal_factors[1] = m->levels[6].temporal_residuals[1] = 1;
	CU_ASSERT_EQUAL_FATAL(spec_mapping_derive(m, &s->workload), 0);
	ev.eval(ews, m, &out);
	CU_ASSERT_EQUAL(out.status, MAPPER_FAIL_CAPACITY);
	CU_ASSERT_EQUAL(out.fail_level, 0);
	ev.ws_free(ews);
	model_ws_free(ws);
	free(m);
	free(mr);
	spec_set_free(s);
}

/* A design for the pre-check: a conformance case or a file of tests/data/mapper. */
struct precheck_case {
	const char *name;             /* conformance case, or NULL */
	const char *file;             /* tests/data/mapper file when 'name' is NULL */
	enum model_footprint footprint;
	unsigned min_pruned, min_passed;
};

static struct spec_set *load_precheck_case(const struct precheck_case *c)
{
	static const char *const files[] = { "input.yaml", "constraints.yaml", "ERT.yaml" };

	if (c->name)
		return load_case(c->name, files, 3);
	return unit_load_files(unit_data_path("mapper"), &c->file, 1, false);
}

/*
 * The mapper's capacity pre-check agrees with the model, with hull and
 * exact footprints: it never prunes a mapping the model accepts, and what
 * it passes the model does not reject for capacity.
 */
static void test_precheck_agrees(void)
{
	static const struct precheck_case cases[] = {
		{ "simple_output_stationary", NULL, MODEL_FOOTPRINT_TIMELOOP, 100, 100 },
		{ "simple_weight_stationary", NULL, MODEL_FOOTPRINT_TIMELOOP, 100, 100 },
		{ "eyeriss_like", NULL, MODEL_FOOTPRINT_TIMELOOP, 100, 100 },
		{ "simba_like", NULL, MODEL_FOOTPRINT_TIMELOOP, 100, 100 },
		{ NULL, "strided.yaml", MODEL_FOOTPRINT_TIMELOOP, 100, 100 },
		{ NULL, "strided.yaml", MODEL_FOOTPRINT_EXACT, 100, 100 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spec_set *s = load_precheck_case(&cases[i]);
		struct diag_list dl = DIAG_LIST_INIT;
		struct model_options opt = MODEL_OPTIONS_INIT;
		struct mapper_space *ms;
		struct model_result *mr = xmalloc(sizeof(*mr));
		struct spec_mapping *m = xmalloc(sizeof(*m));
		struct model_ws *ws;
		struct ms_if fi;
		struct rng r;
		unsigned n, lvl, pruned = 0, passed = 0, disagree = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		opt.footprint = cases[i].footprint;
		ms = mapper_space_new(s, &opt, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		ws = model_ws_new(s, &opt, NULL);
		ms_if_init(&fi, ms);
		rng_seed(&r, 17);
		for (n = 0; n < 3000; n++) {
			struct ms_point p;
			enum mapper_fail pre;
			int rc;
			memset(&p, 0, sizeof(p));
			ms_random_choice(ms, &r, p.choice);
			if (ms_if_load(ms, p.choice, &fi, &lvl) != MAPPER_OK ||
			    ms_if_keep_sets(ms, &fi, false, &lvl) != MAPPER_OK)
				continue;
			ms_random_keep(ms, &fi, &r, &p);
			if (!ms_random_orders(ms, &fi, &r, &p))
				continue;
			pre = ms_keep_check(ms, &fi, p.keep, &lvl);
			ms_point_mapping(ms, &fi, &p, m);
			rc = model_eval(ws, m, mr);
			if (pre == MAPPER_OK) {
				passed++;
				disagree += rc < 0 && (mr->status == EVAL_OVER_CAPACITY ||
						       mr->status == EVAL_UNDER_UTILIZATION);
			} else {
				pruned++;
				disagree += rc == 0 || (unsigned)mr->fail_level != lvl;
			}
		}
		if (disagree || pruned < cases[i].min_pruned || passed < cases[i].min_passed)
			fprintf(stderr, "case %zu: %u disagree, %u pruned, %u passed\n", i, disagree,
				pruned, passed);
		CU_ASSERT_EQUAL(disagree, 0);
		CU_ASSERT_TRUE(pruned >= cases[i].min_pruned);
		CU_ASSERT_TRUE(passed >= cases[i].min_passed);
		ms_if_release(&fi);
		model_ws_free(ws);
		free(m);
		free(mr);
		mapper_space_free(ms);
		spec_set_free(s);
		diag_list_release(&dl);
	}
}

/*
 * strided.yaml's own mapping holds every tile at Buffer: 112 words as
 * hulls, 68 exactly, in 80 words. The pre-check prunes it with hull
 * footprints and passes it with exact ones, as model_eval() judges it.
 */
static void test_precheck_exact_fits(void)
{
	static const struct {
		enum model_footprint footprint;
		uint64_t inputs_words;    /* need of Inputs at Buffer */
		enum mapper_fail pre;
		enum model_status status;
	} rows[] = {
		{ MODEL_FOOTPRINT_TIMELOOP, 4 * 23, MAPPER_FAIL_CAPACITY, EVAL_OVER_CAPACITY },
		{ MODEL_FOOTPRINT_EXACT, 4 * 12, MAPPER_OK, EVAL_OK },
	};
	static const char *const files[] = { "strided.yaml" };
	struct spec_set *s = unit_load_files(unit_data_path("mapper"), files, 1, true);
	struct model_result *mr = xmalloc(sizeof(*mr));
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct model_options opt = MODEL_OPTIONS_INIT;
		struct diag_list dl = DIAG_LIST_INIT;
		struct mapper_space *ms;
		struct model_ws *ws;
		struct ms_point p;
		struct ms_if fi;
		unsigned lvl = 99;
		int inputs = spec_tensor_find(&s->workload, "Inputs");

		opt.footprint = rows[i].footprint;
		ms = mapper_space_new(s, &opt, &dl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
		ms_if_init(&fi, ms);
		memset(&p, 0, sizeof(p));
		CU_ASSERT_EQUAL_FATAL(ms_point_from_mapping(ms, &fi, s->mapping, &p), 0);
		CU_ASSERT_EQUAL(fi.need[0][inputs], rows[i].inputs_words);
		CU_ASSERT_EQUAL(ms_keep_check(ms, &fi, p.keep, &lvl), rows[i].pre);
		ws = model_ws_new(s, &opt, NULL);
		CU_ASSERT_EQUAL(model_eval(ws, s->mapping, mr), rows[i].status == EVAL_OK ? 0 : -1);
		CU_ASSERT_EQUAL(mr->status, rows[i].status);
		if (rows[i].pre != MAPPER_OK) {
			CU_ASSERT_EQUAL(lvl, 0);
			CU_ASSERT_EQUAL(mr->fail_level, 0);
		} else {
			CU_ASSERT_EQUAL(mr->tiles[0][inputs].utilized_capacity, rows[i].inputs_words);
		}
		model_ws_free(ws);
		ms_if_release(&fi);
		mapper_space_free(ms);
		diag_list_release(&dl);
	}
	free(mr);
	spec_set_free(s);
}

static CU_TestInfo eval_tests[] = {
	{ "model evaluator", test_evaluator },
	{ "capacity pre-check agrees with the model", test_precheck_agrees },
	{ "exact footprints pass what hulls prune", test_precheck_exact_fits },
	{ "written best mapping evaluates the same", test_roundtrip },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "eval_model", .pTests = eval_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
