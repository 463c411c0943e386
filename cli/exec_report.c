#include "cli/exec_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "specs/spec.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const char *exec_retention_name(enum exec_retention r)
{
	return r == EXEC_RETAIN_OVERLAP ? "overlap" : "translation";
}

const char *exec_footprint_name(enum exec_footprint f)
{
	return f == EXEC_FOOTPRINT_EXACT ? "exact" : "timeloop";
}

/* Per-instance value of a total, rounded as Timeloop prints its integers. */
static unsigned long long per(uint64_t total, uint64_t instances)
{
	return (unsigned long long)llround((double)total / (double)(instances ? instances : 1));
}

static unsigned long long per_d(double total, uint64_t instances)
{
	return (unsigned long long)ceil(total / (double)(instances ? instances : 1) - 1e-9);
}

static bool level_keeps_any(const struct exec_result *r, unsigned l)
{
	unsigned t;
	for (t = 0; t < r->n_tensors; t++)
		if (exec_result_stats(r, l, t)->kept)
			return true;
	return false;
}

static void field(struct strbuf *out, int width, const char *label, unsigned long long v)
{
	strbuf_addf(out, "        %-*s: %llu\n", width, label, v);
}

static void compute_block(struct strbuf *out, const struct spec_set *s,
			  const struct exec_result *r)
{
	strbuf_addf(out, "Level 0\n-------\n=== %s ===\n\n    STATS\n    -----\n",
		    s->arch.compute.name ? s->arch.compute.name : "mac");
	if (!s->sparse.present) {
		strbuf_addf(out, "    Utilized instances      : %llu\n",
			    (unsigned long long)r->compute_instances);
		strbuf_addf(out, "    Computes (total)        : %llu\n\n",
			    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
		return;
	}
	strbuf_addf(out, "    Utilized instances (max)     : %llu\n",
		    (unsigned long long)(r->compute_busy_max ? r->compute_busy_max
							     : r->compute_instances));
	if (r->compute_busy_max)
		strbuf_addf(out, "    Utilized instances (average) : %llu\n",
			    (unsigned long long)r->compute_busy_avg);
	strbuf_addf(out, "    Algorithmic Computes (total) : %llu\n", (unsigned long long)r->computes);
	strbuf_addf(out, "    Actual Computes (total)      : %llu\n",
		    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
	strbuf_addf(out, "    Gated Computes (total)       : %llu\n",
		    (unsigned long long)r->computes_class[EXEC_GATED]);
	strbuf_addf(out, "    Skipped Computes (total)     : %llu\n\n",
		    (unsigned long long)r->computes_class[EXEC_SKIPPED]);
}

static void dense_tensor(struct strbuf *out, const struct exec_tensor_stats *st)
{
	uint64_t n = st->instances;
	field(out, 41, "Partition size", per(st->partition, n));
	field(out, 41, "Utilized capacity", st->tile_shape);
	field(out, 41, "Utilized instances (max)", n);
	field(out, 41, "Scalar reads (per-instance)", per(st->reads.algorithmic, n));
	field(out, 41, "Scalar fills (per-instance)", per(st->fills.algorithmic, n));
	field(out, 41, "Scalar updates (per-instance)", per(st->updates.algorithmic, n));
	field(out, 41, "Temporal reductions (per-instance)", per(st->temporal_reductions, n));
	field(out, 41, "Multicast copies (per-instance)", per(st->multicast_words, n));
	field(out, 41, "Link transfers (per-instance)", per(st->link_transfers, n));
	field(out, 41, "Spatial reductions (per-instance)", per(st->spatial_reductions, n));
}

static void rank_lines(struct strbuf *out, const char *label, unsigned R, const double *md,
		       const double *pl, uint64_t n, const char *sep)
{
	double sum = 0;
	int r;

	for (r = 0; r < (int)R; r++)
		sum += md[r] + pl[r];
	if (sum == 0) {
		strbuf_addf(out, "        %-60s: 0\n", label);
		return;
	}
	strbuf_addf(out, "        %-60s\n", label);
	for (r = (int)R - 1; r >= 0; r--)
		strbuf_addf(out, "            Rank %d (metadata, payload): (%llu,%s%llu)\n", r,
			    per_d(md[r], n), sep, per_d(pl[r], n));
}

static void sparse_access(struct strbuf *out, const char *what, const struct exec_access *a,
			  uint64_t n)
{
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	int k;

	snprintf(label, sizeof(label), "Algorithmic scalar %s (per-instance)", what);
	strbuf_addf(out, "        %-60s: %llu\n", label, per(a->algorithmic, n));
	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(label, sizeof(label), "%s scalar %s (per-instance)", cls[k], what);
		strbuf_addf(out, "        %-60s: %llu\n", label, per(a->n[k], n));
	}
}

static void sparse_format(struct strbuf *out, const char *what, const struct exec_format_access *fa,
			  unsigned R, uint64_t n)
{
	static const char *const cls[] = { "Actual", "Gated", "Skipped" };
	char label[96];
	int k;

	for (k = 0; k < EXEC_N_CLASSES; k++) {
		snprintf(label, sizeof(label), "%s scalar format %s (per-instance)", cls[k], what);
		rank_lines(out, label, R, fa->md_units[k], fa->pl_units[k], n, "  ");
	}
}

static void sparse_tensor(struct strbuf *out, const struct exec_tensor_stats *st, const char *fmt)
{
	uint64_t n = st->instances;
	strbuf_addf(out, "        %-60s: %llu\n", "Partition size", per(st->partition, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Data tile shape", (unsigned long long)st->tile_shape);
	strbuf_addf(out, "        %-60s: %llu\n", "Max utilized data storage capacity",
		    (unsigned long long)st->max_occupancy);
	strbuf_addf(out, "        %-60s: %s\n", "Representation format", fmt);
	if (st->has_format)
		rank_lines(out, "Max utilized Repr format storage capacity", st->n_format_ranks,
			   st->max_md_units, st->max_pl_units, 1, " ");
	else
		strbuf_addf(out, "        %-60s: 0\n", "Max utilized Repr format storage capacity");
	strbuf_addf(out, "        %-60s: %llu\n", "Utilized instances (max)", (unsigned long long)n);
	sparse_access(out, "reads", &st->reads, n);
	sparse_access(out, "fills", &st->fills, n);
	sparse_access(out, "updates", &st->updates, n);
	if (st->has_format) {
		sparse_format(out, "reads", &st->fmt_reads, st->n_format_ranks, n);
		sparse_format(out, "fills", &st->fmt_fills, st->n_format_ranks, n);
		sparse_format(out, "updates", &st->fmt_updates, st->n_format_ranks, n);
	}
	strbuf_addf(out, "        %-60s: %llu\n", "Temporal reductions (per-instance)",
		    per(st->temporal_reductions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Multicast copies (per-instance)",
		    per(st->multicast_words, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Link transfers (per-instance)",
		    per(st->link_transfers, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Spatial reductions (per-instance)",
		    per(st->spatial_reductions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Decompressions (per-instance)",
		    per(st->decompressions, n));
	strbuf_addf(out, "        %-60s: %llu\n", "Compressions (per-instance)",
		    per(st->compressions, n));
}

/* "uop cp " for the format of 't' at level 'l', or "none". */
static void format_names(const struct spec_set *s, unsigned l, unsigned t, char *buf, size_t size)
{
	unsigned i, j, r;
	size_t n = 0;

	snprintf(buf, size, "none");
	for (i = 0; i < s->sparse.n_targets; i++) {
		const struct spec_sparse_target *tg = &s->sparse.targets[i];
		for (j = 0; !tg->is_compute && tg->level == l && j < tg->n_formats; j++) {
			const struct spec_tensor_format *tf = &tg->formats[j];
			if (tf->tensor != t || !tf->n_ranks)
				continue;
			buf[0] = '\0';
			for (r = 0; r < tf->n_ranks && n < size; r++) {
				const char *nm = spec_fmt_kind_name(tf->ranks[r].kind);
				size_t k;
				for (k = 0; nm[k] && n + 2 < size; k++)
					buf[n++] = (char)(nm[k] | 0x20);
				buf[n++] = ' ';
				buf[n] = '\0';
			}
		}
	}
}

void exec_report_stats(struct strbuf *out, const struct spec_set *s, const struct exec_result *r)
{
	unsigned l, t;
	char fmt[128];

	strbuf_addstr(out, "Buffer and Arithmetic Levels\n----------------------------\n");
	compute_block(out, s, r);
	for (l = 0; l < r->n_levels; l++) {
		if (!level_keeps_any(r, l))
			continue;
		strbuf_addf(out, "Level %u\n-------\n=== %s ===\n\n    STATS\n    -----\n", l + 1,
			    s->arch.levels[l].name);
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (!st->kept)
				continue;
			strbuf_addf(out, "    %s:\n", s->workload.tensors[t].name);
			if (s->sparse.present) {
				format_names(s, l, t, fmt, sizeof(fmt));
				sparse_tensor(out, st, fmt);
			} else {
				dense_tensor(out, st);
			}
		}
		strbuf_addch(out, '\n');
	}
	strbuf_addf(out, "Summary Stats\n-------------\n");
	strbuf_addf(out, "%sComputes = %llu\n", s->sparse.present ? "Algorithmic " : "",
		    (unsigned long long)r->computes);
	if (s->sparse.present)
		strbuf_addf(out, "Actual Computes = %llu\n",
			    (unsigned long long)r->computes_class[EXEC_ACTUAL]);
	if (r->numeric_checked)
		strbuf_addf(out, "Numeric check: %s (%llu outputs, max abs error %.9g)\n",
			    r->numeric_ok ? "ok" : "FAILED", (unsigned long long)r->numeric_n_outputs,
			    r->numeric_max_abs_err);
}

/* ------------------------------------------------------------------- JSON */

static void json_str(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			strbuf_addf(out, "\\u%04x", (unsigned)*s);
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

static void json_access(struct strbuf *out, const char *name, const struct exec_access *a)
{
	strbuf_addf(out, "\"%s\": {\"algorithmic\": %llu, \"actual\": %llu, \"gated\": %llu, "
		    "\"skipped\": %llu}", name, (unsigned long long)a->algorithmic,
		    (unsigned long long)a->n[EXEC_ACTUAL], (unsigned long long)a->n[EXEC_GATED],
		    (unsigned long long)a->n[EXEC_SKIPPED]);
}

static void json_units(struct strbuf *out, unsigned R, const double *md, const double *pl)
{
	unsigned r;
	strbuf_addch(out, '[');
	for (r = 0; r < R; r++)
		strbuf_addf(out, "%s[%.17g, %.17g]", r ? ", " : "", md[r], pl[r]);
	strbuf_addch(out, ']');
}

static void json_format(struct strbuf *out, const char *name, const struct exec_format_access *fa,
			unsigned R)
{
	static const char *const cls[] = { "actual", "gated", "skipped" };
	int k;

	strbuf_addf(out, "\"%s\": {", name);
	for (k = 0; k < EXEC_N_CLASSES; k++) {
		strbuf_addf(out, "%s\"%s\": ", k ? ", " : "", cls[k]);
		json_units(out, R, fa->md_units[k], fa->pl_units[k]);
	}
	strbuf_addch(out, '}');
}

static void json_tensor(struct strbuf *out, const char *name, const struct exec_tensor_stats *st)
{
	strbuf_addstr(out, "        {\"name\": ");
	json_str(out, name);
	strbuf_addf(out, ", \"instances\": %llu, \"tile_shape\": %llu, \"max_occupancy\": %llu, "
		    "\"partition\": %llu,\n         ", (unsigned long long)st->instances,
		    (unsigned long long)st->tile_shape, (unsigned long long)st->max_occupancy,
		    (unsigned long long)st->partition);
	json_access(out, "reads", &st->reads);
	strbuf_addstr(out, ",\n         ");
	json_access(out, "fills", &st->fills);
	strbuf_addstr(out, ",\n         ");
	json_access(out, "updates", &st->updates);
	strbuf_addf(out, ",\n         \"temporal_reductions\": %llu, \"multicast_words\": %llu, "
		    "\"link_transfers\": %llu, \"spatial_reductions\": %llu, \"decompressions\": "
		    "%llu, \"compressions\": %llu",
		    (unsigned long long)st->temporal_reductions,
		    (unsigned long long)st->multicast_words, (unsigned long long)st->link_transfers,
		    (unsigned long long)st->spatial_reductions,
		    (unsigned long long)st->decompressions, (unsigned long long)st->compressions);
	if (st->has_format) {
		strbuf_addf(out, ",\n         \"format\": {\"ranks\": %u, \"max_units\": ",
			    st->n_format_ranks);
		json_units(out, st->n_format_ranks, st->max_md_units, st->max_pl_units);
		strbuf_addstr(out, ", ");
		json_format(out, "reads", &st->fmt_reads, st->n_format_ranks);
		strbuf_addstr(out, ", ");
		json_format(out, "fills", &st->fmt_fills, st->n_format_ranks);
		strbuf_addstr(out, ", ");
		json_format(out, "updates", &st->fmt_updates, st->n_format_ranks);
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, '}');
}

void exec_report_json(struct strbuf *out, const struct spec_set *s, const struct exec_result *r,
		      const struct exec_options *opt)
{
	unsigned l, t;
	bool first_level = true;

	strbuf_addf(out, "{\n  \"fiberloop_exec_version\": 1,\n  \"seed\": %llu,\n"
		    "  \"retention\": \"%s\",\n  \"footprint\": \"%s\",\n",
		    (unsigned long long)opt->seed, exec_retention_name(opt->retention),
		    exec_footprint_name(opt->footprint));
	strbuf_addf(out, "  \"computes\": {\"instances\": %llu, \"algorithmic\": %llu, "
		    "\"actual\": %llu, \"gated\": %llu, \"skipped\": %llu},\n",
		    (unsigned long long)r->compute_instances, (unsigned long long)r->computes,
		    (unsigned long long)r->computes_class[EXEC_ACTUAL],
		    (unsigned long long)r->computes_class[EXEC_GATED],
		    (unsigned long long)r->computes_class[EXEC_SKIPPED]);
	if (r->compute_busy_max)
		strbuf_addf(out, "  \"busy_units\": {\"max\": %llu, \"average\": %.17g},\n",
			    (unsigned long long)r->compute_busy_max, r->compute_busy_avg);
	strbuf_addf(out, "  \"numeric_check\": {\"checked\": %s, \"ok\": %s, \"outputs\": %llu, "
		    "\"max_abs_error\": %.17g},\n", r->numeric_checked ? "true" : "false",
		    r->numeric_ok ? "true" : "false", (unsigned long long)r->numeric_n_outputs,
		    r->numeric_max_abs_err);
	strbuf_addstr(out, "  \"levels\": [");
	for (l = 0; l < r->n_levels; l++) {
		bool first = true;
		if (!level_keeps_any(r, l))
			continue;
		strbuf_addf(out, "%s\n    {\"index\": %u, \"name\": ", first_level ? "" : ",", l);
		json_str(out, s->arch.levels[l].name);
		strbuf_addstr(out, ", \"tensors\": [\n");
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (!st->kept)
				continue;
			if (!first)
				strbuf_addstr(out, ",\n");
			json_tensor(out, s->workload.tensors[t].name, st);
			first = false;
		}
		strbuf_addstr(out, "]}");
		first_level = false;
	}
	strbuf_addstr(out, "\n  ]\n}\n");
}

/* ---------------------------------------------------------------- summary */

void exec_report_summary(FILE *fp, const struct spec_set *s, const struct exec_result *r,
			 const struct exec_options *opt)
{
	unsigned l, t;

	fprintf(fp, "Executed with seed %llu (retention %s, footprint %s)\n",
		(unsigned long long)opt->seed, exec_retention_name(opt->retention),
		exec_footprint_name(opt->footprint));
	fprintf(fp, "Computes: %llu algorithmic, %llu actual, %llu gated, %llu skipped on %llu "
		"units\n", (unsigned long long)r->computes,
		(unsigned long long)r->computes_class[EXEC_ACTUAL],
		(unsigned long long)r->computes_class[EXEC_GATED],
		(unsigned long long)r->computes_class[EXEC_SKIPPED],
		(unsigned long long)r->compute_instances);
	if (r->compute_busy_max)
		fprintf(fp, "Spatial skipping: at most %llu units have work at a step, %.2f on "
			"average\n", (unsigned long long)r->compute_busy_max, r->compute_busy_avg);
	fprintf(fp, "%-24s %-12s %5s %14s %14s %14s\n", "level", "tensor", "inst",
		"reads/inst", "fills/inst", "updates/inst");
	for (l = r->n_levels; l-- > 0;)
		for (t = 0; t < r->n_tensors; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			if (!st->kept)
				continue;
			fprintf(fp, "%-24s %-12s %5llu %14llu %14llu %14llu\n", s->arch.levels[l].name,
				s->workload.tensors[t].name, (unsigned long long)st->instances,
				per(st->reads.n[EXEC_ACTUAL], st->instances),
				per(st->fills.n[EXEC_ACTUAL], st->instances),
				per(st->updates.n[EXEC_ACTUAL], st->instances));
		}
	if (r->numeric_checked)
		fprintf(fp, "Numeric check against a dense evaluation: %s (%llu outputs)\n",
			r->numeric_ok ? "ok" : "FAILED", (unsigned long long)r->numeric_n_outputs);
}

/* ------------------------------------------------------------ command line */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	*out = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

static int parse_option(const struct cli_command *cmd, const char *a, const char *v,
			struct exec_cli *c, bool validate)
{
	uint64_t n;
	char *end;

	if (!strcmp(a, "--tensor")) {
		c->tensors[c->n_tensors++] = v;
	} else if (!strcmp(a, "--retention")) {
		if (!strcmp(v, "translation"))
			c->opt.retention = EXEC_RETAIN_TRANSLATION;
		else if (!strcmp(v, "overlap"))
			c->opt.retention = EXEC_RETAIN_OVERLAP;
		else
			return cli_usage_error(cmd, "unknown retention '%s' (translation or overlap)", v);
	} else if (!strcmp(a, "--footprint")) {
		if (!strcmp(v, "timeloop"))
			c->opt.footprint = EXEC_FOOTPRINT_HULL;
		else if (!strcmp(v, "exact"))
			c->opt.footprint = EXEC_FOOTPRINT_EXACT;
		else
			return cli_usage_error(cmd, "unknown footprint '%s' (timeloop or exact)", v);
	} else if (!validate && !strcmp(a, "--seed")) {
		if (parse_u64(v, &c->opt.seed) < 0)
			return cli_usage_error(cmd, "'--seed' needs a non-negative integer, got '%s'", v);
	} else if (!validate && !strcmp(a, "-o")) {
		c->out_dir = v;
	} else if (!validate && !strcmp(a, "--format")) {
		if (cli_parse_format(v, 3, &c->format) < 0)
			return cli_usage_error(cmd, "unknown format '%s' (text or json)", v);
	} else if (validate && !strcmp(a, "--seeds")) {
		if (parse_u64(v, &n) < 0 || n < 2 || n > 100000)
			return cli_usage_error(cmd, "'--seeds' needs an integer of at least 2, got '%s'",
					       v);
		c->seeds = (unsigned)n;
	} else if (validate && (!strcmp(a, "--tolerance") || !strcmp(a, "--sigmas"))) {
		double d = strtod(v, &end);
		if (*end || !(d >= 0))
			return cli_usage_error(cmd, "'%s' needs a non-negative number, got '%s'", a, v);
		*(!strcmp(a, "--tolerance") ? &c->tolerance : &c->sigmas) = d;
	} else {
		return cli_usage_error(cmd, "unknown option '%s'", a);
	}
	return 0;
}

int exec_cli_parse(const struct cli_command *cmd, int argc, char **argv, struct exec_cli *c,
		   bool validate)
{
	static const struct exec_options defaults = EXEC_OPTIONS_INIT;
	bool opts_done = false;
	int i, rc;

	memset(c, 0, sizeof(*c));
	c->opt = defaults;
	c->seeds = 30;
	c->tolerance = 0.01;
	c->sigmas = 3;
	c->files = xcalloc((size_t)argc + 1, sizeof(*c->files));
	c->tensors = xcalloc((size_t)argc + 1, sizeof(*c->tensors));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			if (i + 1 >= argc)
				return cli_usage_error(cmd, "'%s' needs a value", a);
			if ((rc = parse_option(cmd, a, argv[++i], c, validate)))
				return rc;
		} else {
			c->files[c->n_files++] = argv[i];
		}
	}
	if (!c->n_files)
		return cli_usage_error(cmd, "no input files");
	return 0;
}

void exec_cli_release(struct exec_cli *c)
{
	free(c->files);
	free(c->tensors);
}

/*
 * Check one "NAME=FILE" tensor file: its syntax, and, when the design
 * 'w' is known, that its shape is the tensor's. Prints its diagnostics.
 */
static bool tensor_file_ok(const char *arg, const struct spec_workload *w)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct arena a = ARENA_INIT;
	const char *eq = strchr(arg, '=');
	const struct spec_matrix *m;
	char name[256];
	bool ok;
	int t;

	if (!eq || eq == arg || !eq[1])
		return true;           /* the loader reports the malformed option */
	m = spec_matrix_load(&a, eq + 1, &dl);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if (m && w && (t = spec_tensor_find(w, name)) >= 0) {
		const struct spec_tensor *st = &w->tensors[t];
		struct diag_loc at = { eq + 1, m->shape_line, 0 };
		unsigned r;
		if (st->n_ranks != m->n_ranks) {
			diag_error(&dl, at, "tensor '%s' has %u ranks; this file gives %u", name,
				   st->n_ranks, m->n_ranks);
		} else {
			for (r = 0; r < m->n_ranks; r++)
				if (m->shape[r] != st->rank_extent[r]) {
					diag_error(&dl, at, "rank %u has %llu coordinates; tensor '%s' "
						   "needs %llu (its projection)", r,
						   (unsigned long long)m->shape[r], name,
						   (unsigned long long)st->rank_extent[r]);
					break;
				}
		}
	}
	diag_print(&dl, stderr);
	ok = !diag_has_errors(&dl);
	diag_list_release(&dl);
	arena_release(&a);
	return ok;
}

struct spec_set *exec_cli_load(const struct exec_cli *c)
{
	struct spec_load_options lo = { .require_mapping = true };
	struct spec_set *plain = NULL;
	bool ok = true;
	size_t i;

	if (c->n_tensors) {
		/* the design alone, to know the tensors' shapes (its errors come later) */
		struct diag_list dl = DIAG_LIST_INIT;
		plain = spec_set_load((const char *const *)c->files, c->n_files, &lo, &dl);
		diag_list_release(&dl);
	}
	for (i = 0; i < c->n_tensors; i++)
		ok &= tensor_file_ok(c->tensors[i], plain ? &plain->workload : NULL);
	spec_set_free(plain);
	if (!ok)
		return NULL;
	lo.tensor_files = c->tensors;
	lo.n_tensor_files = c->n_tensors;
	return cli_load_specs(c->files, c->n_files, &lo);
}
