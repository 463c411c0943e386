/*
 * 'fiberloop results DB': the rows of a results database (sweep, batch,
 * map --layers --db) as CSV, JSON or a text table, in run and index order,
 * filtered by --where.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/*
 * The columns named in 'list' ("a,b,c") into cols[] (room for t->n_cols + 1
 * per name); their number, or -1 after an error with a hint.
 */
static long pick_columns(const struct cli_command *cmd, const struct table *t, const char *list,
			 size_t **cols)
{
	size_t n = 0, alloc = 0;
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		char *name = xstrndup(p, len);
		long c = table_col(t, name);
		if (c < 0) {
			const char *h = diag_suggest(name, t->cols, t->n_cols);
			fprintf(stderr, "fiberloop %s: --columns: no column '%s' in the results%s%s%s\n",
				cmd->name, name, h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
			free(name);
			return -1;
		}
		free(name);
		XGROW(*cols, n + 1, alloc);
		(*cols)[n++] = (size_t)c;
		if (!p[len])
			break;
		p += len + 1;
	}
	return (long)n;
}

/* Replace the rows of 't' by the answer --best, --pivot or --crossovers asks for. */
static int answer(const struct cli_command *cmd, const struct cli_args *a, struct table *t)
{
	struct job_results_view v = {
		.best = a->best, .by = a->by, .pivot = a->pivot, .x = a->x,
		.ys = a->ys, .n_ys = a->n_ys, .crossovers = a->crossovers, .at = a->at,
	};
	struct table out = TABLE_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = job_results_view(t, &v, &out, &err);

	if (rc < 0)
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
	table_release(t);
	*t = out;
	strbuf_release(&err);
	return rc;
}

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	size_t *cols = NULL;
	long n = 0;
	int rc = CLI_EXIT_OK;

	if (a->n_files != 1)
		return cli_usage_error(cmd, "one database, not %zu files", a->n_files);
	if (job_results_query(a->files[0], a->wheres, a->n_wheres, &t, &err) < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
		rc = CLI_EXIT_BAD_INPUT;
	} else if ((a->best || a->pivot || a->crossovers) && answer(cmd, a, &t) < 0) {
		rc = CLI_EXIT_BAD_INPUT;
	} else if (a->columns && (n = pick_columns(cmd, &t, a->columns, &cols)) < 0) {
		rc = CLI_EXIT_BAD_INPUT;
	} else if (a->job.format == JOB_FORMAT_CSV) {
		report_table_csv(&t, cols, (size_t)n, &out);
	} else if (a->job.format == JOB_FORMAT_JSON) {
		report_table_json(&t, cols, (size_t)n, &out);
	} else {
		if (!cols && !(a->best || a->pivot || a->crossovers)) {
			cols = xcalloc(t.n_cols + 1, sizeof(*cols));
			n = (long)job_results_brief(&t, cols);
		}
		report_table_text(&t, cols, (size_t)n, &out);
	}
	free(cols);
	fwrite(out.buf, 1, out.len, stdout);
	table_release(&t);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

const struct cli_command cmd_results = {
	.name = "results",
	.summary = "Show or export the rows of a results database.",
	.usage = "results [OPTION]... DB",
	.help =
	"Prints the rows of the results database DB (written by sweep, batch and map --layers --db), in run and index order: as a table of the main columns (the default), or every column as CSV or JSON. The columns are described in docs/sweep.md: run, idx, kind, name, one per sweep axis, status, the metrics (the core ones, then those some row of the database has: a Timeloop design's area, a Sparse-TPU row's scheme and TPU baseline, an IPU row's speedup, ...), energy_pj.LEVEL per storage level, error, mapping, tags, parent, command, design_hash, overrides and key; a metric a row's design does not provide is empty (null). The database may be read while a run writes it.\nAnswers instead of rows (of the rows whose status is ok, after --where): --best METRIC [--by A,B] gives per group the best row by METRIC (lower or higher, as 'fiberloop help metrics' says), its series (the other axes' values joined by '/'), the runner-up of another series and the margin (how many times better); --pivot A,B --x COL --y METRIC... gives a row per x (numeric order) and a column per metric and series (A/B's values), with the best series per metric, --at V1,V2,... keeping some x; --crossovers (with --x, --pivot and --y) gives each x where, between two series, the better one changes: 'from' was better at x_before, 'to' is at x. The answer is written as the rows are, in the --format asked.\n",
	.epilogue = "Exit status: 0 success, 1 not a results database or a bad filter, 2 usage error.\n",
	.run = run,
	.job = JOB_CHECK,
	.no_files = true,
	.options = CLI_OPT_BIT(CLI_OPT_FORMAT) | CLI_OPT_BIT(CLI_OPT_WHERE) |
		   CLI_OPT_BIT(CLI_OPT_COLUMNS) | CLI_OPT_BIT(CLI_OPT_BEST) | CLI_OPT_BIT(CLI_OPT_BY) |
		   CLI_OPT_BIT(CLI_OPT_PIVOT) | CLI_OPT_BIT(CLI_OPT_X) | CLI_OPT_BIT(CLI_OPT_Y) |
		   CLI_OPT_BIT(CLI_OPT_CROSSOVERS) | CLI_OPT_BIT(CLI_OPT_AT),
	.formats = 1u << JOB_FORMAT_TABLE | 1u << JOB_FORMAT_CSV | 1u << JOB_FORMAT_JSON,
	.opt_help = (const char *const[CLI_OPT_COUNT]){
		[CLI_OPT_FORMAT] = "table (the main columns, aligned; the default), csv or json (every column)",
		[CLI_OPT_WHERE] = "keep the rows where COLUMN OP VALUE holds, e.g. 'density<0.1', 'status!=ok', 'format=CSR', 'name~conv%' (OP one of = != < <= > >= and ~ for SQL LIKE; a number compares as a number); repeatable, all must hold",
	},
};
