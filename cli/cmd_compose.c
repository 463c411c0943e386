/*
 * 'fiberloop compose FILE...': composable formats (docs/composable.md).
 */
#include "cli/cli.h"

#include <stdio.h>

#include "job/compose.h"

static int run(const struct cli_command *cmd, struct cli_args *a)
{
	size_t i;
	int rc = CLI_EXIT_OK;

	(void)cmd;
	for (i = 0; i < a->n_files; i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct strbuf out = STRBUF_INIT;
		int st = job_compose_run(a->files[i], &out, &dl);
		diag_print(&dl, stderr);
		fwrite(out.buf, 1, out.len, stdout);
		if (st != 0)
			rc = CLI_EXIT_BAD_INPUT;
		strbuf_release(&out);
		diag_list_release(&dl);
	}
	return rc;
}

const struct cli_command cmd_compose = {
	.name = "compose",
	.summary = "Cost an SpMM or SDDMM whose sparse matrix is stored as parts of several formats.",
	.usage = "compose FILE...",
	.help =
	"Loads FILE... (each a 'composable' file: a Matrix Market matrix, the operation (op: spmm, the default, or sddmm) and its features, and its parts by hand or as SparseTIR's hyb(c, k); docs/composable.md), counts every part's data and metadata reads, B reads (SDDMM: Y and X), MACs (padding included) and writes of the output C (SpMM: shared, with atomic read-backs) with the model, runs the same split on the matrix with the executor and compares every count, prints the kernel's cycles on the A100 (or the H100: gpu: h100), and the best decomposition the search over hyb(c, k) and a BSR block size finds for the matrix.\n",
	.epilogue = "Exit status: 0 success, 1 bad input (parts that leave a gap or overlap, a bad key) or the executor disagreeing with the model, 2 usage error.\n",
	.run = run,
	.job = JOB_MODEL,
};
