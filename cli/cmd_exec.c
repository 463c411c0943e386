/*
 * 'fiberloop exec FILE...': run the design's mapping on real tensors with
 * the reference executor and report every count it made. With -o DIR the
 * stats.txt-layout file and the JSON are written there atomically, and
 * nothing is written when anything fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/exec_report.h"
#include "exec/exec.h"
#include "specs/spec.h"
#include "util/fileio.h"
#include "util/strbuf.h"

extern const struct cli_command cmd_exec;

/* Write both report files into 'dir'. Returns 0, or -1 after printing. */
static int write_outputs(const char *dir, const struct spec_set *s, const struct exec_result *r,
			 const struct exec_options *opt)
{
	static const char *const names[2] = {
		"fiberloop-exec.stats.txt", "fiberloop-exec.stats.json",
	};
	struct strbuf stats = STRBUF_INIT, json = STRBUF_INIT, err = STRBUF_INIT;
	const struct strbuf *bufs[2] = { &stats, &json };
	int rc;

	exec_report_stats(&stats, s, r);
	exec_report_json(&json, s, r, opt);
	rc = fileio_write_files_atomic(dir, names, bufs, 2, &err);
	if (rc < 0)
		fprintf(stderr, "fiberloop exec: %s\n", err.buf);
	strbuf_release(&stats);
	strbuf_release(&json);
	strbuf_release(&err);
	return rc;
}

static int run(int argc, char **argv)
{
	struct exec_cli c;
	struct exec_result r;
	struct spec_set *s;
	int rc;

	if ((rc = exec_cli_parse(&cmd_exec, argc, argv, &c, false))) {
		exec_cli_release(&c);
		return rc;
	}
	c.opt.all_partitions = true;       /* the report prints every partition */
	s = exec_cli_load(&c);
	if (!s) {
		exec_cli_release(&c);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = CLI_EXIT_BAD_INPUT;
	if (exec_run(s, &c.opt, &r) < 0) {
		fprintf(stderr, "fiberloop exec: cannot execute this design: %s\n", r.reason);
	} else if (r.numeric_checked && !r.numeric_ok) {
		fprintf(stderr, "fiberloop exec: BUG: the executed Einsum differs from the dense "
			"evaluation (max abs error %.9g)\n", r.numeric_max_abs_err);
	} else if (!c.out_dir || write_outputs(c.out_dir, s, &r, &c.opt) == 0) {
		if (c.format == CLI_FORMAT_JSON) {
			struct strbuf sb = STRBUF_INIT;
			exec_report_json(&sb, s, &r, &c.opt);
			fputs(sb.buf, stdout);
			strbuf_release(&sb);
		} else {
			exec_report_summary(stdout, s, &r, &c.opt);
		}
		rc = CLI_EXIT_OK;
	}
	exec_result_release(&r);
	spec_set_free(s);
	exec_cli_release(&c);
	return rc;
}

const struct cli_command cmd_exec = {
	.name = "exec",
	.summary = "Run the mapping on real tensors with the reference executor.",
	.usage = "exec [--seed N] [--tensor NAME=FILE]... [-o DIR] [--format text|json]\n"
		 "                      [--retention translation|overlap] [--footprint timeloop|exact] FILE...",
	.help =
		"Executes the design's mapping tile by tile on tensors generated from each\n"
		"tensor's density model (seeded by --seed, one random stream per tensor) or\n"
		"read from Matrix Market / dense text files, in their representation formats,\n"
		"and counts every read, fill and update per level and tensor (algorithmic,\n"
		"actual, gated, skipped), metadata and payload accesses per format rank,\n"
		"multicast and spatial reductions, and computes. The Einsum result is checked\n"
		"against a plain dense evaluation.\n"
		"\n"
		"Options:\n"
		"  --seed N            seed of the generated tensors (default 1)\n"
		"  --tensor NAME=FILE  actual data for tensor NAME (.mtx or dense text)\n"
		"  -o DIR              write DIR/fiberloop-exec.stats.txt (Timeloop's layout)\n"
		"                      and DIR/fiberloop-exec.stats.json\n"
		"  --format text|json  what to print on stdout (default text)\n"
		"  --retention R       translation (default: a buffer keeps the overlap with its\n"
		"                      previous tile only while consecutive tiles move by the same\n"
		"                      translation, as Timeloop) or overlap (keeps any overlap)\n"
		"  --footprint F       timeloop (default: convex hull per rank, holes of strided\n"
		"                      projections count) or exact (touched points only)\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a design the executor cannot run, 2 usage.\n",
	.run = run,
};
