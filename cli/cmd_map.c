/*
 * 'fiberloop map FILE...': search the mapspace of a design under its
 * constraints and write the best mapping found. Progress goes to stderr
 * when it is a terminal; SIGINT or --time-limit stops the search and the
 * best mapping so far is written. Exit 3 when no valid mapping was found.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mapper/mapper.h"
#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define OUT_PREFIX "fiberloop-mapper"

extern const struct cli_command cmd_map;

static atomic_int stop_flag;

static void on_sigint(int sig)
{
	(void)sig;
	atomic_store(&stop_flag, 1);
}

/* Stop on the first SIGINT; a second one ends the process as usual. */
static void install_sigint(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

struct map_args {
	char **files;
	size_t n_files;
	const char **tensors;
	size_t n_tensors;
	const char *out_dir;
	const char *log_path;
	const char *algorithm;
	const char *threads, *streams, *seed, *time_limit, *search_size, *timeout, *victory;
	const char *refine;
	const char *energy, *footprint;
	struct model_options model;
};

/* Parse an unsigned option value; -1 with a usage message when it is not one. */
static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (!s || !*s || *s == '-')
		return cli_usage_error(&cmd_map, "'%s' needs a non-negative integer", opt), -1;
	v = strtoull(s, &end, 10);
	if (*end)
		return cli_usage_error(&cmd_map, "'%s' needs a non-negative integer, got '%s'", opt, s),
		       -1;
	*out = v;
	return 0;
}

static int parse_algorithm(const char *s, enum spec_search *out)
{
	static const char *const names[] = { "exhaustive", "random", "random-pruned",
					     "linear-pruned", "hybrid" };
	static const enum spec_search kinds[] = { SPEC_SEARCH_EXHAUSTIVE, SPEC_SEARCH_RANDOM,
						  SPEC_SEARCH_RANDOM_PRUNED,
						  SPEC_SEARCH_LINEAR_PRUNED, SPEC_SEARCH_HYBRID };
	char buf[32];
	size_t i;

	snprintf(buf, sizeof(buf), "%s", s);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = '-';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(buf, names[i])) {
			*out = kinds[i];
			return 0;
		}
	}
	{
		const char *hint = diag_suggest(s, names, sizeof(names) / sizeof(names[0]));
		if (hint)
			return cli_usage_error(&cmd_map, "unknown algorithm '%s'; did you mean '%s'?",
					       s, hint), -1;
		return cli_usage_error(&cmd_map, "unknown algorithm '%s' (exhaustive, random, "
				       "random-pruned, linear-pruned, hybrid)", s), -1;
	}
}

/* The command line into 'a'; -1 after a usage message. */
static int parse_args(int argc, char **argv, struct map_args *a)
{
	static const struct {
		const char *name;
		size_t off;
	} valued[] = {
		{ "-o", offsetof(struct map_args, out_dir) },
		{ "--output", offsetof(struct map_args, out_dir) },
		{ "--log", offsetof(struct map_args, log_path) },
		{ "--algorithm", offsetof(struct map_args, algorithm) },
		{ "--threads", offsetof(struct map_args, threads) },
		{ "--streams", offsetof(struct map_args, streams) },
		{ "--seed", offsetof(struct map_args, seed) },
		{ "--time-limit", offsetof(struct map_args, time_limit) },
		{ "--search-size", offsetof(struct map_args, search_size) },
		{ "--timeout", offsetof(struct map_args, timeout) },
		{ "--victory", offsetof(struct map_args, victory) },
		{ "--refine", offsetof(struct map_args, refine) },
		{ "--energy", offsetof(struct map_args, energy) },
		{ "--footprint", offsetof(struct map_args, footprint) },
	};
	bool opts_done = false;
	int i;
	size_t k;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts_done || s[0] != '-' || !s[1]) {
			a->files[a->n_files++] = argv[i];
			continue;
		}
		if (!strcmp(s, "--")) {
			opts_done = true;
			continue;
		}
		if (!strcmp(s, "--tensor")) {
			if (i + 1 >= argc)
				return cli_usage_error(&cmd_map, "'%s' needs a value", s), -1;
			a->tensors[a->n_tensors++] = argv[++i];
			continue;
		}
		for (k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
			size_t n = strlen(valued[k].name);
			if (!strncmp(s, valued[k].name, n) && (!s[n] || s[n] == '='))
				break;
		}
		if (k == sizeof(valued) / sizeof(valued[0]))
			return cli_usage_error(&cmd_map, "unknown option '%s'", s), -1;
		if (s[strlen(valued[k].name)] == '=') {
			*(const char **)((char *)a + valued[k].off) = s + strlen(valued[k].name) + 1;
			continue;
		}
		if (i + 1 >= argc)
			return cli_usage_error(&cmd_map, "'%s' needs a value", s), -1;
		*(const char **)((char *)a + valued[k].off) = argv[++i];
	}
	if (!a->n_files)
		return cli_usage_error(&cmd_map, "no input files"), -1;
	a->model = (struct model_options)MODEL_OPTIONS_INIT;
	if (a->footprint) {
		if (!strcmp(a->footprint, "timeloop"))
			a->model.footprint = MODEL_FOOTPRINT_TIMELOOP;
		else if (!strcmp(a->footprint, "exact"))
			a->model.footprint = MODEL_FOOTPRINT_EXACT;
		else
			return cli_usage_error(&cmd_map, "unknown footprint '%s' (timeloop or exact)",
					       a->footprint), -1;
	}
	a->model.energy_preset = a->energy;
	return 0;
}

/* Command-line overrides on top of the YAML settings. */
static int apply_overrides(const struct map_args *a, struct mapper_options *o)
{
	uint64_t v;
	char *end;

	if (a->algorithm && parse_algorithm(a->algorithm, &o->algorithm) < 0)
		return -1;
	if (a->threads) {
		if (parse_u64("--threads", a->threads, &v) < 0)
			return -1;
		o->n_threads = v > 4096 ? 4096 : (unsigned)v;
	}
	if (a->streams) {
		if (parse_u64("--streams", a->streams, &v) < 0)
			return -1;
		if (v == 0 || v > 65536)
			return cli_usage_error(&cmd_map, "'--streams' must be in [1, 65536]"), -1;
		o->n_streams = (unsigned)v;
	}
	if (a->seed && parse_u64("--seed", a->seed, &o->seed) < 0)
		return -1;
	if (a->search_size && parse_u64("--search-size", a->search_size, &o->search_size) < 0)
		return -1;
	if (a->timeout && parse_u64("--timeout", a->timeout, &o->timeout) < 0)
		return -1;
	if (a->victory && parse_u64("--victory", a->victory, &o->victory_condition) < 0)
		return -1;
	if (a->refine) {
		if (parse_u64("--refine", a->refine, &v) < 0)
			return -1;
		o->refine = v > 65536 ? 65536 : (unsigned)v;
	}
	if (a->time_limit) {
		o->time_limit_s = strtod(a->time_limit, &end);
		if (*end || end == a->time_limit || o->time_limit_s < 0)
			return cli_usage_error(&cmd_map, "'--time-limit' needs seconds, got '%s'",
					       a->time_limit), -1;
	}
	return 0;
}

/* ------------------------------------------------------------ progress */

struct progress_state {
	bool printed;
};

static void on_progress(void *arg, const struct mapper_progress *p)
{
	struct progress_state *ps = arg;
	fprintf(stderr, "\r%llu evaluated, %llu valid, ",
		(unsigned long long)p->n_evaluated, (unsigned long long)p->n_valid);
	if (p->has_best)
		fprintf(stderr, "best %.4g uJ %.0f cycles EDP %.4g, ",
			p->best[SPEC_METRIC_ENERGY] * 1e-6, p->best[SPEC_METRIC_DELAY],
			p->best[SPEC_METRIC_EDP]);
	fprintf(stderr, "%.0f/s, %.1f s, %u streams left   ", p->per_s, p->elapsed_s,
		p->n_streams_active);
	ps->printed = true;
}

/* ----------------------------------------------------------------- log */

struct log_state {
	const struct spec_set *s;
	struct atomic_file af;
	struct strbuf line;
};

/* The loops of 'm' level by level, outermost first ("DRAM:Q2 P8 M4[W I O]"). */
static void describe_mapping(const struct spec_set *s, const struct spec_mapping *m,
			     struct strbuf *sb)
{
	int l;
	unsigned i, t;

	for (l = (int)m->n_levels - 1; l >= 0; l--) {
		bool first = true;
		strbuf_addf(sb, "%s%s:", l == (int)m->n_levels - 1 ? "" : " | ",
			    s->arch.levels[l].name);
		for (i = m->n_loops; i-- > 0;) {
			const struct spec_loop *lp = &m->loops[i];
			if (lp->level != (unsigned)l || lp->end <= 1)
				continue;
			strbuf_addf(sb, "%s%s%llu%s", first ? "" : " ", s->workload.dim_names[lp->dim],
				    (unsigned long long)lp->end,
				    lp->spacetime == SPEC_SPATIAL_X ? "x" :
				    lp->spacetime == SPEC_SPATIAL_Y ? "y" : "");
			first = false;
		}
		strbuf_addstr(sb, "[");
		first = true;
		for (t = 0; t < s->workload.n_tensors; t++) {
			if (!(m->levels[l].keep_mask & (1u << t)))
				continue;
			strbuf_addf(sb, "%s%s", first ? "" : " ", s->workload.tensors[t].name);
			first = false;
		}
		strbuf_addstr(sb, "]");
	}
}

static void on_candidate(void *arg, const struct mapper_candidate *c)
{
	struct log_state *ls = arg;
	struct strbuf *sb = &ls->line;

	strbuf_reset(sb);
	strbuf_addf(sb, "%u,%llu,%s,", c->stream, (unsigned long long)c->seq,
		    mapper_fail_name(c->eval.status));
	if (c->eval.status != MAPPER_OK)
		strbuf_addf(sb, "%s,,,,,0,", ls->s->arch.levels[c->eval.fail_level].name);
	else
		strbuf_addf(sb, ",%.17g,%.17g,%.17g,%.17g,%d,", c->eval.metrics[SPEC_METRIC_ENERGY],
			    c->eval.metrics[SPEC_METRIC_DELAY], c->eval.metrics[SPEC_METRIC_EDP],
			    c->eval.metrics[SPEC_METRIC_LAST_LEVEL_ACCESSES], c->is_best);
	if (c->mapping)
		describe_mapping(ls->s, c->mapping, sb);
	strbuf_addch(sb, '\n');
	fwrite(sb->buf, 1, sb->len, ls->af.fp);
}

/* Open the candidate log 'path' with its header and hook it into 'o'. */
static int open_log(const struct spec_set *s, const char *path, struct log_state *ls,
		    struct mapper_options *o)
{
	struct strbuf err = STRBUF_INIT;

	ls->s = s;
	strbuf_init(&ls->line, 256);
	if (atomic_file_open(&ls->af, path, &err) < 0) {
		fprintf(stderr, "fiberloop map: %s\n", err.buf);
		strbuf_release(&err);
		return -1;
	}
	fprintf(ls->af.fp, "stream,seq,status,fail_level,energy_pj,cycles,edp,"
		"last_level_accesses,is_best,mapping\n");
	o->on_candidate = on_candidate;
	o->candidate_arg = ls;
	return 0;
}

/* -------------------------------------------------------------- output */

static const char *const metric_units[] = {
	[SPEC_METRIC_ENERGY] = "pJ", [SPEC_METRIC_DELAY] = "cycles",
	[SPEC_METRIC_EDP] = "J*cycle", [SPEC_METRIC_LAST_LEVEL_ACCESSES] = "accesses",
};

static void print_summary(const struct mapper_options *o, const struct mapper_result *r)
{
	unsigned i;

	printf("search: %s, %u streams on %u threads, seed %llu\n",
	       spec_search_name(o->algorithm), o->n_streams, r->n_threads,
	       (unsigned long long)o->seed);
	printf("  %llu candidates (%llu valid, %llu model evaluations) in %.2f s (%.0f/s)\n",
	       (unsigned long long)r->n_evaluated, (unsigned long long)r->n_valid,
	       (unsigned long long)r->n_model_calls, r->elapsed_s,
	       r->elapsed_s > 0 ? (double)r->n_evaluated / r->elapsed_s : 0.0);
	printf("  streams stopped by:");
	for (i = 0; i < MAPPER_STOP_COUNT; i++)
		if (r->stream_stops[i])
			printf(" %s %u;", mapper_stop_name(i), r->stream_stops[i]);
	printf("\n");
	if (r->refined)
		printf("  refinement: %llu evaluations, %llu steps; %s %.9g before\n",
		       (unsigned long long)r->n_refine_evals, (unsigned long long)r->n_refine_steps,
		       spec_metric_name(o->metrics[0]), r->searched_eval.metrics[o->metrics[0]]);
	if (!r->found)
		return;
	printf("best mapping (stream %u):\n", r->best_stream);
	for (i = 0; i < SPEC_METRIC_COUNT; i++)
		printf("  %-20s %.9g %s\n", spec_metric_name(i), r->best_eval.metrics[i],
		       metric_units[i]);
	printf("\n");
}

/* Why no candidate was valid, by reason and level, to stderr. */
static void print_failures(const struct spec_set *s, const struct mapper_result *r)
{
	unsigned f, l;

	fprintf(stderr, "fiberloop map: no valid mapping among %llu candidates:\n",
		(unsigned long long)r->n_evaluated);
	for (f = 1; f < MAPPER_FAIL_COUNT; f++)
		for (l = 0; l < s->arch.n_levels; l++)
			if (r->fail_counts[f][l])
				fprintf(stderr, "  %s of '%s': %llu\n", mapper_fail_name(f),
					s->arch.levels[l].name,
					(unsigned long long)r->fail_counts[f][l]);
}

/* The outputs of the best mapping, in the order they are written. */
enum { OUT_YAML, OUT_STATS, OUT_MAP, OUT_JSON, OUT_COUNT };
static const char *const out_names[OUT_COUNT] = {
	OUT_PREFIX ".map.yaml", OUT_PREFIX ".stats.txt", OUT_PREFIX ".map.txt",
	OUT_PREFIX ".stats.json",
};

/* Write every buffer into 'dir' atomically. Returns 0, or -1 after printing. */
static int write_files(const char *dir, struct strbuf *bufs)
{
	const struct strbuf *ptrs[OUT_COUNT];
	struct strbuf err = STRBUF_INIT;
	int i, rc;

	for (i = 0; i < OUT_COUNT; i++)
		ptrs[i] = &bufs[i];
	rc = fileio_write_files_atomic(dir, out_names, ptrs, OUT_COUNT, &err);
	if (rc < 0)
		fprintf(stderr, "fiberloop map: %s\n", err.buf);
	strbuf_release(&err);
	return rc;
}

/*
 * Evaluate the best mapping once more for the full report, print its
 * summary and write the outputs into 'dir'. Returns 0 or -1 (printed).
 */
static int write_outputs(const struct spec_set *s, const struct map_args *a,
			 const struct mapper_result *r)
{
	struct strbuf bufs[OUT_COUNT], summary = STRBUF_INIT;
	struct model_result *mr = xmalloc(sizeof(*mr));
	struct model_ws *ws = model_ws_new(s, &a->model, NULL, 0);
	double metrics[SPEC_METRIC_COUNT];
	int i, rc = 0;

	if (!ws || model_eval(ws, &r->best, mr) < 0)
		BUG("the best mapping no longer evaluates");
	mapper_metrics_of_result(mr, metrics);
	if (memcmp(metrics, r->best_eval.metrics, sizeof(metrics)))
		BUG("the model gives the best mapping other metrics on a second evaluation");
	for (i = 0; i < OUT_COUNT; i++)
		strbuf_init(&bufs[i], 0);
	spec_mapping_write_yaml(&r->best, &s->arch, &s->workload, &bufs[OUT_YAML]);
	report_stats_txt(s, mr, &bufs[OUT_STATS]);
	report_map_txt(s, &r->best, mr, &bufs[OUT_MAP]);
	report_json(s, &r->best, mr, (const char *const *)a->files, a->n_files, &bufs[OUT_JSON]);
	report_summary(s, mr, &summary);
	fwrite(summary.buf, 1, summary.len, stdout);
	if (write_files(a->out_dir ? a->out_dir : ".", bufs) < 0)
		rc = -1;
	else
		printf("wrote %s/%s (and .stats.txt, .map.txt, .stats.json)\n",
		       a->out_dir ? a->out_dir : ".", out_names[OUT_YAML]);
	for (i = 0; i < OUT_COUNT; i++)
		strbuf_release(&bufs[i]);
	strbuf_release(&summary);
	model_ws_free(ws);
	free(mr);
	return rc;
}

/* A model workspace must be possible before threads ask for one each. */
static int check_model(const struct spec_set *s, const struct model_options *mo)
{
	char err[256];
	struct model_ws *ws = model_ws_new(s, mo, err, sizeof(err));
	if (!ws) {
		fprintf(stderr, "fiberloop map: %s\n", err);
		return -1;
	}
	model_ws_free(ws);
	return 0;
}

static int search(const struct spec_set *s, const struct map_args *a)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct mapper_space *ms;
	struct mapper_model_ctx mc = { s, &a->model };
	struct mapper_evaluator ev;
	struct mapper_options o;
	struct mapper_result *r;
	struct progress_state ps = { false };
	struct log_state ls;
	struct sigaction old;
	struct strbuf err = STRBUF_INIT;
	int rc = CLI_EXIT_OK;

	mapper_options_init(&o, &s->mapper);
	if (apply_overrides(a, &o) < 0)
		return CLI_EXIT_USAGE;
	ms = mapper_space_new(s, &a->model, &dl);
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	if (!ms)
		return CLI_EXIT_BAD_INPUT;
	if (check_model(s, &a->model) < 0) {
		mapper_space_free(ms);
		return CLI_EXIT_BAD_INPUT;
	}
	memset(&ls, 0, sizeof(ls));
	if (a->log_path && open_log(s, a->log_path, &ls, &o) < 0) {
		mapper_space_free(ms);
		return CLI_EXIT_BAD_INPUT;
	}
	if (isatty(STDERR_FILENO)) {
		o.on_progress = on_progress;
		o.progress_arg = &ps;
		o.progress_interval_s = 0.25;
	}
	mapper_evaluator_model(&ev, &mc);
	atomic_store(&stop_flag, 0);
	o.stop = &stop_flag;
	install_sigint(&old);
	r = xmalloc(sizeof(*r));
	if (mapper_run(ms, &ev, &o, r) < 0) {
		sigaction(SIGINT, &old, NULL);
		fprintf(stderr, "fiberloop map: %s\n", r->error);
		if (a->log_path)
			atomic_file_abort(&ls.af);
		strbuf_release(&ls.line);
		free(r);
		mapper_space_free(ms);
		return CLI_EXIT_BAD_INPUT;
	}
	sigaction(SIGINT, &old, NULL);
	if (ps.printed)
		fprintf(stderr, "\n");
	if (a->log_path && atomic_file_commit(&ls.af, &err) < 0) {
		fprintf(stderr, "fiberloop map: %s\n", err.buf);
		rc = CLI_EXIT_BAD_INPUT;
	}
	print_summary(&o, r);
	if (!r->found) {
		print_failures(s, r);
		rc = CLI_EXIT_INFEASIBLE;
	} else if (write_outputs(s, a, r) < 0) {
		rc = CLI_EXIT_BAD_INPUT;
	}
	strbuf_release(&ls.line);
	strbuf_release(&err);
	free(r);
	mapper_space_free(ms);
	return rc;
}

static int run(int argc, char **argv)
{
	struct spec_load_options opt = { 0 };
	struct map_args a;
	struct spec_set *s;
	int rc;

	memset(&a, 0, sizeof(a));
	a.files = xcalloc((size_t)argc, sizeof(*a.files));
	a.tensors = xcalloc((size_t)argc, sizeof(*a.tensors));
	if (parse_args(argc, argv, &a) < 0) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	opt.tensor_files = a.tensors;
	opt.n_tensor_files = a.n_tensors;
	s = cli_load_specs(a.files, a.n_files, &opt);
	if (!s) {
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	rc = search(s, &a);
	spec_set_free(s);
out:
	free(a.files);
	free(a.tensors);
	return rc;
}

const struct cli_command cmd_map = {
	.name = "map",
	.summary = "Search the mapspace of a design for the best mapping.",
	.usage = "map [-o DIR] [--algorithm A] [--threads N] [--seed S] [--time-limit S]\n"
		 "                     [--search-size N] [--log FILE.csv] FILE...",
	.help =
		"Searches the mappings of the design in FILE... (architecture, problem,\n"
		"ERT, 'architecture_constraints' / 'mapspace', 'mapper' settings) and writes\n"
		"the best one by the 'optimization_metrics' of the 'mapper' key (default edp)\n"
		"to DIR/" OUT_PREFIX ".map.yaml, loadable by 'fiberloop model', with its\n"
		"evaluation as DIR/" OUT_PREFIX ".stats.txt, .map.txt (Timeloop's layouts)\n"
		"and .stats.json.\n"
		"A 'mapping' key in FILE... is ignored.\n"
		"\n"
		"Options (they override the 'mapper' key):\n"
		"  -o, --output DIR     directory of the outputs (default .)\n"
		"  --algorithm A        exhaustive, random, random-pruned, linear-pruned, hybrid\n"
		"  --threads N          worker threads (0 = all cores; 'num_threads')\n"
		"  --streams N          independent searches (default 32); the result depends\n"
		"                       on the seed and the streams, not on the threads\n"
		"  --refine N           refine the best mappings of N streams by steepest\n"
		"                       descent afterwards (default 32; 0 = Timeloop's search only)\n"
		"  --seed S             random seed (default 0)\n"
		"  --time-limit S       stop after S seconds and keep the best so far\n"
		"  --search-size N      valid mappings to evaluate over all streams\n"
		"  --timeout N          a stream stops after N invalid mappings in a row\n"
		"  --victory N          a stream stops after N valid mappings without improvement\n"
		"  --log FILE.csv       every candidate visited, with its metrics\n"
		"  --tensor NAME=FILE   actual non-zero pattern of tensor NAME\n"
		"  --energy PRESET      energy preset for levels without an ERT entry\n"
		"  --footprint F        timeloop (convex hulls, default) or exact tile footprints\n"
		"\n"
		"A progress line is shown on stderr when it is a terminal. Ctrl-C stops the\n"
		"search within a second and writes the best mapping so far (a second Ctrl-C\n"
		"ends the program). Exit status 3 when no valid mapping was found; the\n"
		"reasons (capacity or fan-out of which level) are counted on stderr.\n",
	.run = run,
};
