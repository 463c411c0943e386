/*
 * 'fiberloop results DB': the rows of a results database (sweep, batch,
 * map --layers --db) as CSV, JSON or a text table, in run and index order,
 * filtered by --where.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	int rc = CLI_EXIT_OK;

	if (a->n_files != 1)
		return cli_usage_error(cmd, "one database, not %zu files", a->n_files);
	if (job_results_query(a->files[0], a->wheres, a->n_wheres, &t, &err) < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
		rc = CLI_EXIT_BAD_INPUT;
	} else if (a->job.format == JOB_FORMAT_CSV) {
		report_table_csv(&t, &out);
	} else if (a->job.format == JOB_FORMAT_JSON) {
		report_table_json(&t, &out);
	} else {
		size_t *cols = xcalloc(t.n_cols + 1, sizeof(*cols));
		size_t n = job_results_brief(&t, cols);
		report_table_text(&t, cols, n, &out);
		free(cols);
	}
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
	"Prints the rows of the results database DB (written by sweep, batch and map --layers --db), in run and index order: as a table of the main columns (the default), or every column as CSV or JSON. The columns are described in docs/sweep.md: run, idx, kind, name, one per sweep axis, status, the metrics, energy_pj[LEVEL] per storage level, error, mapping, tags, parent, command, design_hash, overrides and key. The database may be read while a run writes it.\n",
	.epilogue = "Exit status: 0 success, 1 not a results database or a bad filter, 2 usage error.\n",
	.run = run,
	.job = JOB_CHECK,
	.no_files = true,
	.options = CLI_OPT_BIT(CLI_OPT_FORMAT) | CLI_OPT_BIT(CLI_OPT_WHERE),
	.formats = 1u << JOB_FORMAT_TABLE | 1u << JOB_FORMAT_CSV | 1u << JOB_FORMAT_JSON,
	.opt_help = (const char *const[CLI_OPT_COUNT]){
		[CLI_OPT_FORMAT] = "table (the main columns, aligned; the default), csv or json (every column)",
		[CLI_OPT_WHERE] = "keep the rows where COLUMN OP VALUE holds, e.g. 'density<0.1', 'status!=ok', 'format=CSR', 'name~conv%' (OP one of = != < <= > >= and ~ for SQL LIKE; a number compares as a number); repeatable, all must hold",
	},
};
