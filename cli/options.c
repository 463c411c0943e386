/*
 * The one option table of every fiberloop command (git's parse-options is
 * the model): each option is defined once, with its value's kind and range;
 * a command lists which options it takes. `--opt=value`, `--opt value` and
 * `-o value` / `-ovalue` work everywhere, and the same mistake gets the same
 * message whatever the command.
 */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum opt_kind {
	OPT_STRING,     /* any text */
	OPT_LIST,       /* any text, repeatable */
	OPT_PAIR,       /* NAME=VALUE with a non-empty NAME, repeatable */
	OPT_UINT,       /* an integer in [min, max] */
	OPT_NUMBER,     /* a finite number in [min, max] */
	OPT_CHOICE,     /* one of a list of names ('-' and '_' alike) */
	OPT_FLAG,       /* no value: on; '--no-NAME' turns a negatable one off */
};

struct cli_option {
	const char *name;              /* without the leading "--" */
	char short_name;               /* 0: none */
	enum opt_kind kind;
	const char *argh;              /* the value's placeholder in help: "DIR" */
	uint64_t umin, umax;           /* OPT_UINT */
	double dmin, dmax;             /* OPT_NUMBER */
	const char *const *(*choices)(void);  /* OPT_CHOICE: NULL-terminated names */
	const char *help;
	bool negatable;                /* OPT_FLAG: '--no-NAME' exists */
};

/* Indexed by enum job_format. */
static const char *const *format_choices(void)
{
	static const char *const names[] = { "text", "json", "csv", "table", "jsonl", NULL };
	return names;
}

/* The commands of job/ and of the kinds of design. */
static const char *const *command_choices(void)
{
	return job_command_names();
}

/* What --metric ranks by, as metric_ids[] says. */
static const char *const *metric_choices(void)
{
	static const char *const names[] = { "energy", "cycles", "edp", NULL };
	return names;
}

static const enum job_metric_id metric_ids[] = {
	JOB_METRIC_ENERGY_PJ, JOB_METRIC_CYCLES, JOB_METRIC_EDP_J_CYCLES,
};

/* Indexed by the CLI_LOG_* bits. */
static const char *const *logscale_choices(void)
{
	static const char *const names[] = { "none", "x", "y", "xy", NULL };
	return names;
}

static const char *const *footprint_choices(void)
{
	static const char *const names[] = { "timeloop", "exact", NULL };
	return names;
}

/* Indexed by enum job_residuals. */
static const char *const *residuals_choices(void)
{
	static const char *const names[] = { "exact", "timeloop", NULL };
	return names;
}

/* Indexed by enum spec_imperfect. */
static const char *const *imperfect_choices(void)
{
	static const char *const names[] = { "auto", "off", "on", NULL };
	_Static_assert(sizeof(names) / sizeof(names[0]) == SPEC_IMPERFECT_COUNT + 1,
		       "one name per imperfect setting");
	return names;
}

static const char *const *retention_choices(void)
{
	static const char *const names[] = { "translation", "overlap", NULL };
	return names;
}

/* Indexed by enum spec_search. */
static const char *const *algorithm_choices(void)
{
	static const char *const names[] = { "exhaustive", "random", "random-pruned",
					     "linear-pruned", "hybrid", NULL };
	_Static_assert(sizeof(names) / sizeof(names[0]) == SPEC_SEARCH_COUNT + 1,
		       "one name per search algorithm");
	return names;
}

#define STREAMS_MAX 65536

static const struct cli_option options[CLI_OPT_COUNT] = {
	[CLI_OPT_OUTPUT] = { "output", 'o', OPT_STRING, "DIR", .help =
		"directory of the output files (created if missing)" },
	[CLI_OPT_FORMAT] = { "format", 0, OPT_CHOICE, "FMT", .choices = format_choices, .help =
		"what to print on stdout" },
	[CLI_OPT_TENSOR] = { "tensor", 0, OPT_PAIR, "NAME=FILE", .help =
		"actual data for tensor NAME (Matrix Market or dense text); repeatable" },
	[CLI_OPT_SET] = { "set", 0, OPT_PAIR, "PATH=VALUE", .help =
		"override a spec value before validation, e.g. problem.instance.M=512; repeatable, applied in order (docs/yaml-reference.md, Overrides)" },
	[CLI_OPT_VAR] = { "var", 0, OPT_PAIR, "NAME=VALUE", .help =
		"a Jinja2 variable for template design files (top.yaml.jinja2); the value is "
		"YAML (a number, a string, a list); repeatable" },
	[CLI_OPT_ENERGY] = { "energy", 0, OPT_CHOICE, "PRESET", .choices = job_energy_presets,
		.help = "how to price components without an ERT entry: 'estimate' (the default) as Accelergy would from their classes and technology, or a preset (accelergy45, horowitz45, eyeriss_norm; a warning per component it prices); a user ERT/ART always wins" },
	[CLI_OPT_FOOTPRINT] = { "footprint", 0, OPT_CHOICE, "MODE", .choices = footprint_choices,
		.help = "timeloop (convex hull per rank, holes of strided projections count; the default) or exact (only the tensor points touched)" },
	[CLI_OPT_SEED] = { "seed", 0, OPT_UINT, "N", 0, UINT64_MAX, .help = "random seed" },
	[CLI_OPT_RETENTION] = { "retention", 0, OPT_CHOICE, "R", .choices = retention_choices,
		.help = "translation (default: a buffer keeps the overlap with its previous tile only while consecutive tiles move by the same translation, as Timeloop) or overlap (keeps any overlap)" },
	[CLI_OPT_SEEDS] = { "seeds", 0, OPT_UINT, "K", 2, 100000, .help =
		"executions with seeds 1..K (default 30)" },
	[CLI_OPT_TOLERANCE] = { "tolerance", 0, OPT_NUMBER, "R", .dmin = 0, .dmax = 1e9, .help =
		"relative tolerance (default 0.01)" },
	[CLI_OPT_SIGMAS] = { "sigmas", 0, OPT_NUMBER, "S", .dmin = 0, .dmax = 1e9, .help =
		"standard errors allowed (default 3)" },
	[CLI_OPT_LOG] = { "log", 0, OPT_STRING, "FILE.csv", .help =
		"every candidate visited, with its metrics" },
	[CLI_OPT_ALGORITHM] = { "algorithm", 0, OPT_CHOICE, "A", .choices = algorithm_choices,
		.help = "search algorithm" },
	[CLI_OPT_THREADS] = { "threads", 0, OPT_UINT, "N", 0, SPEC_MAX_THREADS, .help =
		"worker threads (0 = all cores; 'num_threads')" },
	[CLI_OPT_STREAMS] = { "streams", 0, OPT_UINT, "N", 1, STREAMS_MAX, .help =
		"independent searches (default 32); the result depends on the seed and the streams, not on the threads" },
	[CLI_OPT_REFINE] = { "refine", 0, OPT_UINT, "N", 0, STREAMS_MAX, .help =
		"refine the best mappings of N streams by steepest descent afterwards (default 32; 0 = Timeloop's search only)" },
	[CLI_OPT_TIME_LIMIT] = { "time-limit", 0, OPT_NUMBER, "S", .dmin = 0, .dmax = 1e9, .help =
		"stop after S seconds and keep the best so far" },
	[CLI_OPT_SEARCH_SIZE] = { "search-size", 0, OPT_UINT, "N", 0, UINT64_MAX, .help =
		"valid mappings to evaluate over all streams" },
	[CLI_OPT_TIMEOUT] = { "timeout", 0, OPT_UINT, "N", 0, UINT64_MAX, .help =
		"a stream stops after N invalid mappings in a row" },
	[CLI_OPT_VICTORY] = { "victory", 0, OPT_UINT, "N", 0, UINT64_MAX, .help =
		"a stream stops after N valid mappings without improvement" },
	[CLI_OPT_SAMPLES] = { "samples", 0, OPT_UINT, "N", 1, 1u << 20, .help =
		"patterns drawn from the density model (default 256)" },
	[CLI_OPT_PERCENTILE] = { "percentile", 0, OPT_NUMBER, "P", .dmin = 0.01, .dmax = 100, .help =
		"percentile of the distribution reported (default 99)" },
	[CLI_OPT_AXIS] = { "axis", 0, OPT_LIST, "[NAME:]PATH[,PATH...]=V1,V2,...", .help =
		"sweep the spec value(s) at PATH over the values; a value may be a range A:B:STEP (STEP +D or D adds D, xF or *F multiplies by F; e.g. 0.01:0.8:x2, 64:1024:*2); every PATH takes each value; NAME names the column (default: the paths); repeatable (docs/sweep.md)" },
	[CLI_OPT_ZIP] = { "zip", 0, OPT_FLAG, "", .help =
		"take the axes' values together (the i-th point has the i-th value of every axis) instead of their cartesian product" },
	[CLI_OPT_COMMAND] = { "command", 0, OPT_CHOICE, "CMD", .choices = command_choices,
		.help = "what each point runs (default model)" },
	[CLI_OPT_DB] = { "db", 0, OPT_STRING, "FILE", .help =
		"the results database (SQLite; default fiberloop.db): one row per point, committed as each finishes" },
	[CLI_OPT_RESUME] = { "resume", 0, OPT_FLAG, "", .negatable = true, .help =
		"skip what the database already holds (the default; --no-resume runs everything, keeping the rows that are there)" },
	[CLI_OPT_JOBS] = { "jobs", 'j', OPT_UINT, "N", 0, SPEC_MAX_THREADS, .help =
		"worker threads of each process (0: the cores, shared by the MPI ranks of a node; the default)" },
	[CLI_OPT_METRIC] = { "metric", 0, OPT_CHOICE, "M", .choices = metric_choices, .help =
		"what the final table ranks by (default edp)" },
	[CLI_OPT_WHERE] = { "where", 0, OPT_LIST, "COND", .help =
		"keep the rows where COLUMN OP VALUE holds (OP one of = != < <= > >= and ~ for SQL LIKE; a number compares as a number); repeatable, all must hold" },
	[CLI_OPT_X] = { "x", 0, OPT_STRING, "COLUMN", .help = "the column on the x axis" },
	[CLI_OPT_Y] = { "y", 0, OPT_LIST, "COLUMN", .help =
		"a column on the y axis (default energy_pj), or 'levels' for the energy per level as stacked bars; repeatable: one panel each" },
	[CLI_OPT_SERIES] = { "series", 0, OPT_LIST, "COLUMN", .help =
		"one line per value of COLUMN; repeatable: one line per combination" },
	[CLI_OPT_LOGSCALE] = { "logscale", 0, OPT_CHOICE, "AXES", .choices = logscale_choices,
		.help = "logarithmic axes" },
	[CLI_OPT_TITLE] = { "title", 0, OPT_STRING, "TEXT", .help = "the plot's title" },
	[CLI_OPT_COLUMNS] = { "columns", 0, OPT_STRING, "A,B,...", .help =
		"only these columns, in this order" },
	[CLI_OPT_LAYERS] = { "layers", 0, OPT_LIST, "DIR|FILE", .help =
		"map every layer of a network: each FILE (or each *.yaml of DIR, in name order) gives a 'problem' that replaces the design's; prints one row per layer and the network's totals; repeatable" },
	[CLI_OPT_ROOFLINE] = { "roofline", 0, OPT_FLAG, "", .help =
		"also show the roofline: per level the bytes moved, the cycles at its bandwidth and fill latency, against the compute cycles, and what bounds the run (in the summary and the JSON)" },
	[CLI_OPT_BEST] = { "best", 0, OPT_STRING, "METRIC", .help =
		"the best row of each group (--by) by METRIC, lower or higher as 'fiberloop help metrics' says, with the runner-up of another series and the margin (how many times better)" },
	[CLI_OPT_BY] = { "by", 0, OPT_STRING, "A,B,...", .help =
		"the columns whose values make the groups of --best (default: one group)" },
	[CLI_OPT_PIVOT] = { "pivot", 0, OPT_STRING, "A,B,...", .help =
		"a row per --x value, a column per --y metric and value of these columns (the series; default the other axes), and the best series per metric" },
	[CLI_OPT_CROSSOVERS] = { "crossovers", 0, OPT_FLAG, "", .help =
		"with --pivot and --x: each x where, between two series, the better one changes (per --y metric)" },
	[CLI_OPT_AT] = { "at", 0, OPT_STRING, "V1,V2,...", .help =
		"the --x values a pivot keeps (numbers compare as numbers)" },
	[CLI_OPT_BASELINE] = { "baseline", 0, OPT_STRING, "SERIES|X", .help =
		"plot the speedup over this series (or this value of a text --x: a design): its y over each y, for a metric where lower is better (each y over its y where higher is)" },
	[CLI_OPT_PRUNE] = { "prune", 0, OPT_LIST, "NAME=N:M[:DIM]", .help =
		"prune dense tensor NAME to N:M by magnitude along dimension DIM (default: the first dimension of its innermost rank); the model sees its structured_nm density, the executor prunes and compresses the real values; repeatable" },
	[CLI_OPT_RESIDUALS] = { "residuals", 0, OPT_CHOICE, "MODE", .choices = residuals_choices,
		.help = "how a mapping's residual (imperfect) iterations count: exact (as they happen, the executor's counts; the default) or timeloop (Timeloop's extrapolation: the last tile delivered as a full one, the temporal iterations' product as cycles)" },
	[CLI_OPT_IMPERFECT] = { "imperfect", 0, OPT_CHOICE, "WHICH", .choices = imperfect_choices,
		.help = "imperfect factors in the mapspace: auto (dimensions with a prime factor above 7; the default), off, or on (every dimension); 'imperfect' in the mapper settings" },
};

/* ------------------------------------------------------------- messages */

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "fiberloop %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: fiberloop %s\n", cmd->usage);
	fprintf(stderr, "Try 'fiberloop help %s' for more information.\n", cmd->name);
	return CLI_EXIT_USAGE;
}

/* "; did you mean 'X'?" for the nearest of 'names', or "". */
static const char *hint(const char *word, const char *const *names, size_t n, char *buf,
			size_t size)
{
	const char *h = diag_suggest(word, names, n);
	if (!h)
		return "";
	snprintf(buf, size, "; did you mean '%s'?", h);
	return buf;
}

/* "a, b, c" for the names of 'choices' (those the command allows). */
static void list_choices(const struct cli_command *cmd, enum cli_opt id, char *buf, size_t size)
{
	const char *const *names = options[id].choices();
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; names[i] && n < size; i++) {
		if (id == CLI_OPT_FORMAT && !(cmd->formats & (1u << i)))
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", names[i]);
	}
}

/* ---------------------------------------------------------------- values */

/* Case-sensitive name comparison with '-' and '_' alike. */
static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

/* The index of 'v' among the (allowed) choices of option 'id', or -1 after an error. */
static int parse_choice(const struct cli_command *cmd, enum cli_opt id, const char *v)
{
	const char *const *names = options[id].choices();
	const char *allowed[16];
	char list[256], buf[96];
	size_t i, n = 0;

	for (i = 0; names[i]; i++) {
		if (id == CLI_OPT_FORMAT && !(cmd->formats & (1u << i)))
			continue;
		if (name_eq(v, names[i]))
			return (int)i;
		if (n < sizeof(allowed) / sizeof(allowed[0]))
			allowed[n++] = names[i];
	}
	list_choices(cmd, id, list, sizeof(list));
	cli_usage_error(cmd, "unknown value '%s' for '--%s' (%s)%s", v, options[id].name, list,
			hint(v, allowed, n, buf, sizeof(buf)));
	return -1;
}

/* An unsigned decimal integer, digits only, in [min, max]. */
static int parse_uint(const struct cli_command *cmd, enum cli_opt id, const char *v,
		      uint64_t *out)
{
	const struct cli_option *o = &options[id];
	unsigned long long x;
	char *end;

	errno = 0;
	if (*v >= '0' && *v <= '9') {
		x = strtoull(v, &end, 10);
		if (!*end && errno != ERANGE && x >= o->umin && x <= o->umax) {
			*out = x;
			return 0;
		}
	}
	cli_usage_error(cmd, "'--%s' needs an integer in [%llu, %llu], got '%s'", o->name,
			(unsigned long long)o->umin, (unsigned long long)o->umax, v);
	return -1;
}

/* A finite decimal number in [min, max]. */
static int parse_number(const struct cli_command *cmd, enum cli_opt id, const char *v,
			double *out)
{
	const struct cli_option *o = &options[id];
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (*v && !strchr(" \t\n", *v) && !*end && errno != ERANGE && isfinite(x) &&
	    x >= o->dmin && x <= o->dmax) {
		*out = x;
		return 0;
	}
	cli_usage_error(cmd, "'--%s' needs a number in [%g, %g], got '%s'", o->name, o->dmin,
			o->dmax, v);
	return -1;
}

/* Store the value 'v' of option 'id' into 'a'. Returns 0 or -1 (printed). */
static int store(const struct cli_command *cmd, enum cli_opt id, const char *v,
		 struct cli_args *a)
{
	struct job_options *j = &a->job;
	struct job_map_options *m = &j->map;
	uint64_t u = 0;
	double d = 0;
	int c = 0;

	switch (options[id].kind) {
	case OPT_UINT:
		if (parse_uint(cmd, id, v, &u) < 0)
			return -1;
		break;
	case OPT_NUMBER:
		if (parse_number(cmd, id, v, &d) < 0)
			return -1;
		break;
	case OPT_CHOICE:
		if ((c = parse_choice(cmd, id, v)) < 0)
			return -1;
		break;
	case OPT_PAIR:   /* a file name cannot be empty; --set and --var values can */
		if (!strchr(v, '=') || *v == '=' ||
		    (id == CLI_OPT_TENSOR && !strchr(v, '=')[1])) {
			cli_usage_error(cmd, "'--%s' needs %s, got '%s'", options[id].name,
					options[id].argh, v);
			return -1;
		}
		break;
	case OPT_FLAG:
		c = v != NULL;         /* NULL: the '--no-' form */
		break;
	default:
		if (!*v) {
			cli_usage_error(cmd, "'--%s' needs a non-empty value (%s)", options[id].name,
					options[id].argh);
			return -1;
		}
		break;
	}
	switch (id) {
	case CLI_OPT_OUTPUT: a->out_dir = v; break;
	case CLI_OPT_FORMAT: j->format = (enum job_format)c; break;
	case CLI_OPT_TENSOR: a->tensors[a->n_tensors++] = v; break;
	case CLI_OPT_SET: a->sets[a->n_sets++] = v; break;
	case CLI_OPT_VAR: a->vars[a->n_vars++] = v; break;
	case CLI_OPT_ENERGY: j->energy_preset = job_energy_presets()[c]; break;
	case CLI_OPT_FOOTPRINT: j->footprint = (enum job_footprint)c; break;
	case CLI_OPT_RESIDUALS: j->residuals = (enum job_residuals)c; break;
	case CLI_OPT_IMPERFECT: m->imperfect = (enum spec_imperfect)c; m->has_imperfect = true; break;
	case CLI_OPT_SEED: j->seed = u; j->has_seed = true; break;
	case CLI_OPT_RETENTION: j->retention = (enum job_retention)c; break;
	case CLI_OPT_SEEDS: j->seeds = (unsigned)u; j->has_seeds = true; break;
	case CLI_OPT_TOLERANCE: j->tolerance = d; break;
	case CLI_OPT_SIGMAS: j->sigmas = d; break;
	case CLI_OPT_LOG: a->log_path = v; break;
	case CLI_OPT_ALGORITHM: m->algorithm = (enum spec_search)c; m->has_algorithm = true; break;
	case CLI_OPT_THREADS: m->threads = (unsigned)u; m->has_threads = true; break;
	case CLI_OPT_STREAMS: m->streams = (unsigned)u; m->has_streams = true; break;
	case CLI_OPT_REFINE: m->refine = u; m->has_refine = true; break;
	case CLI_OPT_TIME_LIMIT: m->time_limit_s = d; m->has_time_limit = true; break;
	case CLI_OPT_SEARCH_SIZE: m->search_size = u; m->has_search_size = true; break;
	case CLI_OPT_TIMEOUT: m->timeout = u; m->has_timeout = true; break;
	case CLI_OPT_VICTORY: m->victory = u; m->has_victory = true; break;
	case CLI_OPT_SAMPLES: j->samples = (unsigned)u; break;
	case CLI_OPT_PERCENTILE: j->percentile = d / 100.0; break;
	case CLI_OPT_AXIS: a->axes[a->n_axes++] = v; break;
	case CLI_OPT_ZIP: a->zip = c; break;
	case CLI_OPT_COMMAND: a->command = job_command_names()[c]; break;
	case CLI_OPT_DB: a->db_path = v; break;
	case CLI_OPT_RESUME: a->resume = c; break;
	case CLI_OPT_JOBS: a->jobs = (unsigned)u; break;
	case CLI_OPT_METRIC: a->metric = metric_ids[c]; break;
	case CLI_OPT_WHERE: a->wheres[a->n_wheres++] = v; break;
	case CLI_OPT_X: a->x = v; break;
	case CLI_OPT_Y: a->ys[a->n_ys++] = v; break;
	case CLI_OPT_SERIES: a->series[a->n_series++] = v; break;
	case CLI_OPT_LOGSCALE: a->logscale = (unsigned)c; break;
	case CLI_OPT_TITLE: a->title = v; break;
	case CLI_OPT_LAYERS: a->layers[a->n_layers++] = v; break;
	case CLI_OPT_COLUMNS: a->columns = v; break;
	case CLI_OPT_BEST: a->best = v; break;
	case CLI_OPT_BY: a->by = v; break;
	case CLI_OPT_PIVOT: a->pivot = v; break;
	case CLI_OPT_CROSSOVERS: a->crossovers = c; break;
	case CLI_OPT_AT: a->at = v; break;
	case CLI_OPT_BASELINE: a->baseline = v; break;
	case CLI_OPT_ROOFLINE: j->roofline = c; break;
	case CLI_OPT_PRUNE: a->prunes[a->n_prunes++] = v; break;
	default: BUG("option %d has no storage", (int)id);
	}
	return 0;
}

/* ---------------------------------------------------------------- parsing */

/* The option spelt 'name' ('len' characters, without "--"), or -1. */
static int find_long(const char *name, size_t len)
{
	int i;
	for (i = 0; i < CLI_OPT_COUNT; i++)
		if (strlen(options[i].name) == len && !strncmp(options[i].name, name, len))
			return i;
	return -1;
}

static int find_short(char c)
{
	int i;
	for (i = 0; i < CLI_OPT_COUNT; i++)
		if (options[i].short_name == c)
			return i;
	return -1;
}

/* The commands of all[] that take option 'id', as "'a' and 'b'". */
static void commands_of(const struct cli_command *const *all, enum cli_opt id, char *buf,
			size_t size)
{
	size_t i, n = 0;
	buf[0] = '\0';
	for (i = 0; all[i] && n < size; i++)
		if (all[i]->options & CLI_OPT_BIT(id))
			n += (size_t)snprintf(buf + n, size - n, "%s'%s'", n ? ", " : "",
					      all[i]->name);
}

/* "unknown option '--x'" with the nearest option of the command. */
static int unknown_option(const struct cli_command *cmd, const char *arg, size_t len)
{
	const char *names[CLI_OPT_COUNT], *near;
	char word[64];
	size_t n = 0;
	int i;

	for (i = 0; i < CLI_OPT_COUNT; i++)
		if (cmd->options & CLI_OPT_BIT(i))
			names[n++] = options[i].name;
	snprintf(word, sizeof(word), "%.*s", (int)(len - 2), arg + 2);
	near = diag_suggest(word, names, n);
	if (near)
		return cli_usage_error(cmd, "unknown option '%.*s'; did you mean '--%s'?", (int)len,
				       arg, near);
	return cli_usage_error(cmd, "unknown option '%.*s'", (int)len, arg);
}

/*
 * Option argv[*i] of 'cmd': find it, take its value (after '=', attached to
 * a short option, or the next argument) and store it. A flag takes no
 * value; '--no-NAME' is the negatable flag NAME turned off.
 */
static int parse_one(const struct cli_command *const *all, const struct cli_command *cmd,
		     int argc, char **argv, int *i, struct cli_args *a)
{
	const char *arg = argv[*i], *v = NULL, *eq;
	bool negated = false;
	char shown[80];
	size_t len;
	int id;

	if (arg[1] == '-') {
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		id = find_long(arg + 2, len - 2);
		if (id < 0 && len > 5 && !strncmp(arg + 2, "no-", 3)) {
			id = find_long(arg + 5, len - 5);
			if (id >= 0 && !options[id].negatable)
				id = -1;
			negated = id >= 0;
		}
		if (id < 0)
			return unknown_option(cmd, arg, len);
		if (eq)
			v = eq + 1;
		snprintf(shown, sizeof(shown), "--%s%s", negated ? "no-" : "", options[id].name);
	} else {
		id = find_short(arg[1]);
		if (id < 0)
			return cli_usage_error(cmd, "unknown option '%s'", arg);
		if (arg[2])
			v = arg[2] == '=' ? arg + 3 : arg + 2;
		snprintf(shown, sizeof(shown), "-%c", arg[1]);
	}
	if (!(cmd->options & CLI_OPT_BIT(id))) {
		char cmds[160];
		commands_of(all, (enum cli_opt)id, cmds, sizeof(cmds));
		return cli_usage_error(cmd, "'%s' is not an option of '%s' (it is one of %s)", shown,
				       cmd->name, cmds);
	}
	if (options[id].kind == OPT_FLAG) {
		if (v)
			return cli_usage_error(cmd, "'%s' takes no value", shown);
		return store(cmd, (enum cli_opt)id, negated ? NULL : "", a) < 0 ? CLI_EXIT_USAGE : 0;
	}
	if (!v) {
		if (*i + 1 >= argc)
			return cli_usage_error(cmd, "'%s' needs a value (%s)", shown,
					       options[id].argh);
		v = argv[++*i];
	}
	return store(cmd, (enum cli_opt)id, v, a) < 0 ? CLI_EXIT_USAGE : 0;
}

int cli_parse(const struct cli_command *const *all, const struct cli_command *cmd, int argc,
	      char **argv, struct cli_args *a)
{
	bool opts_done = false;
	int i, rc;

	memset(a, 0, sizeof(*a));
	job_options_init(&a->job, cmd->job);
	a->job.kind = cmd->kind;
	if (cmd->job == JOB_MAP)
		a->job.seed = 0;       /* the mapper's default seed */
	a->argc = argc;
	a->argv = argv;
	a->resume = true;
	a->metric = JOB_METRIC_EDP_J_CYCLES;
	a->files = xcalloc((size_t)argc + 1, sizeof(*a->files));
	a->tensors = xcalloc((size_t)argc + 1, sizeof(*a->tensors));
	a->sets = xcalloc((size_t)argc + 1, sizeof(*a->sets));
	a->axes = xcalloc((size_t)argc + 1, sizeof(*a->axes));
	a->wheres = xcalloc((size_t)argc + 1, sizeof(*a->wheres));
	a->ys = xcalloc((size_t)argc + 1, sizeof(*a->ys));
	a->series = xcalloc((size_t)argc + 1, sizeof(*a->series));
	a->layers = xcalloc((size_t)argc + 1, sizeof(*a->layers));
	a->vars = xcalloc((size_t)argc + 1, sizeof(*a->vars));
	a->prunes = xcalloc((size_t)argc + 1, sizeof(*a->prunes));
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts_done || s[0] != '-' || !s[1]) {
			a->files[a->n_files++] = s;
		} else if (!strcmp(s, "--")) {
			opts_done = true;
		} else if ((rc = parse_one(all, cmd, argc, argv, &i, a))) {
			return rc;
		}
	}
	if (!a->n_files)
		return cli_usage_error(cmd, cmd->no_files ? "no database given" : "no input files");
	a->job.files = a->files;
	a->job.n_files = a->n_files;
	return 0;
}

void cli_args_release(struct cli_args *a)
{
	size_t i;

	for (i = 0; i < a->n_overrides; i++)
		spec_override_release(&a->overrides[i]);
	free(a->overrides);
	free(a->files);
	free(a->tensors);
	free(a->sets);
	free(a->axes);
	free(a->wheres);
	free(a->ys);
	free(a->series);
	free(a->layers);
	free(a->vars);
	free(a->prunes);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------------ help */

/*
 * Print 'text', the cursor being at column 'indent', wrapping words at
 * column 78; every new line (a wrap, or a '\n' in the text) starts at
 * column 'indent'.
 */
static void print_wrapped(const char *text, unsigned indent)
{
	const char *p = text;
	unsigned col = indent;
	bool bol = true;

	while (*p) {
		size_t word;
		if (*p == '\n') {
			printf("\n%*s", (int)indent, "");
			col = indent;
			bol = true;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		word = strcspn(p, " \n");
		if (!bol && col + 1 + word > 78) {
			printf("\n%*s", (int)indent, "");
			col = indent;
			bol = true;
		}
		if (!bol) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)word, p);
		col += (unsigned)word;
		bol = false;
		p += word;
	}
}

/* One option's line(s) in the help of 'cmd'. */
static void print_option(const struct cli_command *cmd, enum cli_opt i)
{
	const struct cli_option *o = &options[i];
	const char *help = cmd->opt_help && cmd->opt_help[i] ? cmd->opt_help[i] : o->help;
	char head[64], list[256];

	if (o->kind == OPT_FLAG)
		snprintf(head, sizeof(head), "--%s%s", o->negatable ? "[no-]" : "", o->name);
	else if (o->short_name)
		snprintf(head, sizeof(head), "-%c, --%s %s", o->short_name, o->name, o->argh);
	else
		snprintf(head, sizeof(head), "--%s %s", o->name, o->argh);
	printf("  %-22s ", head);
	if (strlen(head) > 22)
		printf("\n  %-22s ", "");
	if (o->kind == OPT_CHOICE) {
		struct strbuf sb = STRBUF_INIT;
		list_choices(cmd, i, list, sizeof(list));
		strbuf_addf(&sb, "%s (%s)", help, list);
		print_wrapped(sb.buf, 25);
		strbuf_release(&sb);
	} else {
		print_wrapped(help, 25);
	}
	putchar('\n');
}

void cli_print_help(const struct cli_command *cmd)
{
	int i;

	printf("usage: fiberloop %s\n\n%s\n", cmd->usage, cmd->summary);
	if (cmd->help && *cmd->help) {
		putchar('\n');
		print_wrapped(cmd->help, 0);
	}
	if (cmd->options)
		printf("\nOptions:\n");
	for (i = 0; i < CLI_OPT_COUNT; i++)
		if (cmd->options & CLI_OPT_BIT(i))
			print_option(cmd, (enum cli_opt)i);
	if (cmd->epilogue && *cmd->epilogue) {
		putchar('\n');
		print_wrapped(cmd->epilogue, 0);
	}
}

bool cli_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}
