/*
 * 'fiberloop plot DB --x COLUMN --y COLUMN [--series COLUMN] -o FILE': a
 * picture of a results database. report/ writes the gnuplot script; this
 * runs gnuplot on it (a temporary file, gnuplot's standard output read
 * back) and writes the image atomically; '-o FILE.gp' writes the script.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

#define DEFAULT_OUT "fiberloop-plot.svg"

/* True when 'path' ends with 'ext'. */
static bool ends_with(const char *path, const char *ext)
{
	size_t n = strlen(path), m = strlen(ext);
	return n > m && !strcmp(path + n - m, ext);
}

/*
 * Run gnuplot on the script 'script'; its standard output into 'image'.
 * The script is a temporary file that is removed as soon as it is written
 * and read by gnuplot through /dev/fd, so that a process killed meanwhile
 * leaves nothing behind (where there is no /dev/fd, it is removed after).
 * Returns 0, or -1 with 'err' filled.
 */
static int run_gnuplot(const struct strbuf *script, struct strbuf *image, struct strbuf *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], buf[65536];
	bool by_fd = access("/dev/fd", X_OK) == 0;
	size_t n;
	FILE *p;
	int fd, st;

	snprintf(path, sizeof(path), "%s/fiberloop-plot.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		strbuf_addf(err, "cannot make a temporary file in %s: %s", dir ? dir : "/tmp",
			    strerror(errno));
		return -1;
	}
	if (write(fd, script->buf, script->len) != (ssize_t)script->len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	if (by_fd) {
		unlink(path);
		snprintf(buf, sizeof(buf), "gnuplot /dev/fd/%d", fd);
	} else {
		snprintf(buf, sizeof(buf), "gnuplot '%s'", path);
	}
	p = popen(buf, "r");
	if (!p) {
		strbuf_addf(err, "cannot run gnuplot: %s", strerror(errno));
		close(fd);
		if (!by_fd)
			unlink(path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(image, buf, n);
	st = pclose(p);
	close(fd);
	if (!by_fd)
		unlink(path);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		strbuf_addstr(err, "gnuplot is not installed (Debian: apt-get install gnuplot-nox), "
			      "or '-o FILE.gp' writes the script for gnuplot elsewhere");
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || image->len == 0) {
		strbuf_addstr(err, "gnuplot failed (its messages are above)");
		return -1;
	}
	return 0;
}

/* "NAME (UNIT)" from the metric vocabulary; a column it does not know: its name. */
static void axis_label(const char *col, struct strbuf *sb)
{
	const char *level = job_metric_get(JOB_METRIC_LEVEL_ENERGY_PJ)->name;
	size_t nl = strlen(level);
	int m = job_metric_find(col);
	const struct job_metric *d = m >= 0 ? job_metric_get((enum job_metric_id)m) : NULL;

	if (d && !strncmp(col, level, nl) && col[nl] == '.')
		strbuf_addf(sb, "energy of %s (%s)", col + nl + 1, d->unit);
	else if (d && *d->unit && strcmp(d->unit, "1") && strcmp(d->unit, col))
		strbuf_addf(sb, "%s (%s)", col, d->unit);
	else
		strbuf_addstr(sb, col);
}

/*
 * The series when --series is not given: the sweep's other axes (the
 * columns between 'name' and 'status' other than --x), so that a sweep of
 * several axes is never one line through every point.
 */
static size_t default_series(const struct table *t, const char *x, const char **out)
{
	long name = table_col(t, "name"), status = table_col(t, "status");
	size_t n = 0, c;

	for (c = name >= 0 ? (size_t)name + 1 : 0; status >= 0 && c < (size_t)status; c++)
		if (strcmp(t->cols[c], x))
			out[n++] = t->cols[c];
	return n;
}

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	static const char *const default_y[] = { "energy_pj" };
	const char *out = a->out_dir ? a->out_dir : DEFAULT_OUT;
	struct strbuf script = STRBUF_INIT, image = STRBUF_INIT, err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct report_plot p = {
		.x = a->x, .ys = a->n_ys ? a->ys : default_y, .n_ys = a->n_ys ? a->n_ys : 1,
		.series = a->series, .n_series = a->n_series, .logscale = a->logscale,
		.title = a->title,
		.image = ends_with(out, ".png") ? REPORT_IMAGE_PNG : REPORT_IMAGE_SVG,
		.level_metric = job_metric_get(JOB_METRIC_LEVEL_ENERGY_PJ)->name,
		.baseline = a->baseline,
	};
	bool script_only = ends_with(out, ".gp");
	struct strbuf xlabel = STRBUF_INIT, title = STRBUF_INIT;
	struct strbuf *ylabels = NULL;
	const char **ylabel_texts = NULL, **series = NULL;
	bool *higher = NULL;
	size_t i;
	int rc = CLI_EXIT_OK;

	if (a->n_files != 1)
		return cli_usage_error(cmd, "one database, not %zu files", a->n_files);
	if (!a->x)
		return cli_usage_error(cmd, "no --x COLUMN");
	if (!script_only && !ends_with(out, ".svg") && !ends_with(out, ".png"))
		return cli_usage_error(cmd, "'-o %s': the image is FILE.svg or FILE.png (or "
				       "FILE.gp for the gnuplot script)", out);
	if (job_results_query(a->files[0], a->wheres, a->n_wheres, &t, &err) < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
		table_release(&t);
		strbuf_release(&err);
		return CLI_EXIT_BAD_INPUT;
	}
	/* the labels with their units, the default series and title */
	if (!a->n_series) {
		series = xcalloc(t.n_cols + 1, sizeof(*series));
		p.series = series;
		p.n_series = default_series(&t, a->x, series);
	}
	axis_label(a->x, &xlabel);
	p.xlabel = xlabel.buf;
	ylabels = xcalloc(p.n_ys + 1, sizeof(*ylabels));
	ylabel_texts = xcalloc(p.n_ys + 1, sizeof(*ylabel_texts));
	higher = xcalloc(p.n_ys + 1, sizeof(*higher));
	for (i = 0; i < p.n_ys; i++) {
		int m = job_metric_find(p.ys[i]);
		strbuf_init(&ylabels[i], 0);
		higher[i] = m >= 0 && job_metric_get((enum job_metric_id)m)->better == JOB_BETTER_HIGHER;
		if (a->baseline)
			strbuf_addf(&ylabels[i], "speedup over %s by %s (x)", a->baseline, p.ys[i]);
		else
			axis_label(p.ys[i], &ylabels[i]);
		ylabel_texts[i] = ylabels[i].buf;
	}
	p.ylabels = ylabel_texts;
	p.higher = higher;
	if (!p.title) {
		bool parts = p.n_ys == 1 && (!strcmp(p.ys[0], "levels") || !strcmp(p.ys[0], "tensors"));
		if (parts)
			strbuf_addf(&title, "energy per %s by %s", p.ys[0][0] == 'l' ? "level" :
				    "tensor", a->x);
		else if (a->baseline)
			strbuf_addf(&title, "speedup over %s against %s", a->baseline, a->x);
		for (i = 0; !parts && !a->baseline && i < p.n_ys; i++)
			strbuf_addf(&title, "%s%s", i ? (i + 1 == p.n_ys ? " and " : ", ") : "", p.ys[i]);
		if (!parts && !a->baseline)
			strbuf_addf(&title, " against %s", a->x);
		for (i = 0; !parts && i < p.n_series; i++)
			strbuf_addf(&title, "%s%s", i ? ", " : ", by ", p.series[i]);
		p.title = title.buf;
	}
	if (report_plot_gnuplot(&t, &p, &script, &err) < 0 ||
	    (!script_only && run_gnuplot(&script, &image, &err) < 0) ||
	    fileio_write_atomic(out, script_only ? script.buf : image.buf,
			      script_only ? script.len : image.len, &err) < 0) {
		fprintf(stderr, "fiberloop %s: %s\n", cmd->name, err.buf);
		rc = CLI_EXIT_BAD_INPUT;
	} else {
		printf("wrote %s (%zu rows)\n", out, t.n_rows);
	}
	for (i = 0; ylabels && i < p.n_ys; i++)
		strbuf_release(&ylabels[i]);
	free(ylabels);
	free(ylabel_texts);
	free(higher);
	free(series);
	strbuf_release(&xlabel);
	strbuf_release(&title);
	table_release(&t);
	strbuf_release(&script);
	strbuf_release(&image);
	strbuf_release(&err);
	return rc;
}

const struct cli_command cmd_plot = {
	.name = "plot",
	.summary = "Draw the rows of a results database (SVG or PNG, with gnuplot).",
	.usage = "plot [OPTION]... DB --x COLUMN [--y COLUMN]... [--series COLUMN]... [-o FILE]",
	.help =
	"Draws the rows of the results database DB (the columns of 'fiberloop results'): each --y column against --x, one panel per --y, one line per combination of the --series columns' values (by default the sweep's other axes; points sorted by x), for instance energy or cycles against density with one line per format. A text x column (designs by name) is laid out as categories, drawn as bars from 0, a cluster per category. '--y levels' draws the energy of every storage level as stacked bars, one bar per row labelled by --x (a batch's jobs by name), '--y tensors' the energy of every tensor. --baseline SERIES (or a value of a text --x) draws the speedup over it. Each series has its colour (a colour-blind-safe palette), the axes their units (fiberloop help metrics), the picture a title (--title to change it). Rows without a value are left out; --where keeps some rows. gnuplot (Debian gnuplot-nox) draws the picture.\n",
	.epilogue = "Exit status: 0 success, 1 not a results database, an unknown column, or gnuplot missing or failing, 2 usage error.\n",
	.run = run,
	.job = JOB_CHECK,
	.no_files = true,
	.options = CLI_OPT_BIT(CLI_OPT_OUTPUT) | CLI_OPT_BIT(CLI_OPT_X) | CLI_OPT_BIT(CLI_OPT_Y) |
		   CLI_OPT_BIT(CLI_OPT_SERIES) | CLI_OPT_BIT(CLI_OPT_WHERE) |
		   CLI_OPT_BIT(CLI_OPT_LOGSCALE) | CLI_OPT_BIT(CLI_OPT_TITLE) |
		   CLI_OPT_BIT(CLI_OPT_BASELINE),
	.opt_help = (const char *const[CLI_OPT_COUNT]){
		[CLI_OPT_OUTPUT] = "the picture: FILE.svg (the default, fiberloop-plot.svg), FILE.png, or FILE.gp for the gnuplot script itself",
	},
};
