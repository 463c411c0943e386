/*
 * 'fiberloop compose FILE' (job/compose.h): the model's counts of every part,
 * the executor's beside them, the kernel's cycles on the A100, and the best
 * decomposition the search finds for the same matrix.
 */
#include "job/compose.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec/compose.h"
#include "model/compose.h"
#include "specs/compose.h"
#include "util/xalloc.h"

/* The most words of B and C the executor allocates (each a double, C twice). */
#define EXEC_MAX_WORDS (1u << 27)

static void print_choice(struct strbuf *out, const struct compose_choice *b,
			 const struct compose_time *csr)
{
	if (!b->column_parts) {
		strbuf_addf(out, "best decomposition: plain CSR, %.0f cycles\n", csr->cycles);
		return;
	}
	strbuf_addf(out, "best decomposition: hyb(c %u, k %u)", b->column_parts, b->buckets);
	if (b->block)
		strbuf_addf(out, " after BSR blocks of %llu", (unsigned long long)b->block);
	strbuf_addf(out, ", %.0f cycles: %.2fx over CSR (%.0f cycles)\n", b->time.cycles,
		    csr->cycles / b->time.cycles, csr->cycles);
}

/* The columns printed: SpMM reads no X (every count is still compared). */
static bool shown(enum compose_op op, size_t f)
{
	return op == COMPOSE_SDDMM || f != COMPOSE_X_READS;
}

int job_compose_run(const char *path, struct strbuf *out, struct diag_list *dl)
{
	static const unsigned cs[] = { 1, 2, 4, 8, 16 };
	static const uint64_t blocks[] = { 2, 4, 8, 16 };
	struct spec_compose *c = spec_compose_load(path, dl);
	struct compose_matrix cm;
	struct compose_lengths l;
	struct compose_counts *mc, *ec;
	struct compose_time t;
	struct compose_choice best;
	struct compose_time csr;
	char err[256] = "";
	size_t p, f, bad = 0;
	bool run_exec;
	int rc = 0;

	if (!c)
		return -1;
	if (compose_matrix_init(&cm, c->matrix) < 0 ||
	    compose_lengths_build(&l, &cm, c->parts, c->n_parts) < 0) {
		diag_error(dl, (struct diag_loc){ c->path, 1, 1 }, "no part of '%s' holds columns",
			   c->path);
		spec_compose_free(c);
		return -1;
	}
	mc = xcalloc(c->n_parts, sizeof(*mc));
	ec = xcalloc(c->n_parts, sizeof(*ec));
	compose_model_counts(&l, c->parts, c->n_parts, c->op, c->features, mc);
	compose_model_time(compose_gpu_of(c->gpu), c->parts, mc, c->n_parts, c->op, cm.rows,
			   cm.cols, c->features, &t);
	strbuf_addf(out, "matrix %llu x %llu, %llu non-zeros; %s with %llu features; %zu parts\n",
		    (unsigned long long)cm.rows, (unsigned long long)cm.cols,
		    (unsigned long long)cm.nnz, c->op == COMPOSE_SDDMM ? "SDDMM" : "SpMM",
		    (unsigned long long)c->features, c->n_parts);
	strbuf_addf(out, "%-22s %-6s", "part", "format");
	for (f = 0; f < COMPOSE_N_COUNTS; f++)
		if (shown(c->op, f))
			strbuf_addf(out, " %11s", compose_count_names[f]);
	strbuf_addstr(out, "\n");
	/* the executor holds B and C twice as doubles: keep it to a few GB */
	run_exec = (double)(cm.rows + cm.cols) * (double)c->features <= (double)EXEC_MAX_WORDS;
	if (run_exec && exec_compose_run(c->matrix, c->parts, c->n_parts, c->op, c->features, ec,
					 err, sizeof(err)) < 0) {
		strbuf_addf(out, "executor: %s\n", err);
		rc = 1;
	}
	for (p = 0; p < c->n_parts; p++) {
		uint64_t a[COMPOSE_N_COUNTS], b[COMPOSE_N_COUNTS];
		char name[64];
		compose_counts_fields(&mc[p], a);
		compose_counts_fields(&ec[p], b);
		snprintf(name, sizeof(name), "%s", c->parts[p].name);
		if (c->parts[p].format != COMPOSE_BSR)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " [%llu,%llu)",
				 (unsigned long long)c->parts[p].col_lo,
				 (unsigned long long)c->parts[p].col_hi);
		strbuf_addf(out, "%-22s %-6s", name, compose_format_name(c->parts[p].format));
		for (f = 0; f < COMPOSE_N_COUNTS; f++)
			if (shown(c->op, f))
				strbuf_addf(out, " %11llu", (unsigned long long)a[f]);
		strbuf_addstr(out, "\n");
		for (f = 0; run_exec && f < COMPOSE_N_COUNTS; f++)
			if (a[f] != b[f]) {
				strbuf_addf(out, "  executor differs on %s: %llu\n", compose_count_names[f],
					    (unsigned long long)b[f]);
				bad++;
			}
	}
	if (bad)
		rc = 1;
	if (!run_exec)
		strbuf_addf(out, "executor: not run (B and C would hold %.0f words; the limit is %u)\n",
			    (double)(cm.rows + cm.cols) * (double)c->features, EXEC_MAX_WORDS);
	else
		strbuf_addf(out, "executor: %s\n", rc ? "DIFFERS from the model (above)"
			    : c->op == COMPOSE_SDDMM
			    ? "every count of every part equal to the model's; every output equal to "
			      "A[i, j] * X[i, :] . Y[j, :]"
			    : "every count of every part equal to the model's; C equal to the product");
	strbuf_addf(out, "%s: %.0f cycles (compute %.0f, L2 %.0f, DRAM %.0f, longest unit %.0f)\n",
		    c->gpu == COMPOSE_GPU_H100 ? "H100" : "A100", t.cycles, t.compute, t.l2, t.dram,
		    t.unit);
	compose_search(&cm, compose_gpu_of(c->gpu), c->op, c->features, cs,
		       sizeof(cs) / sizeof(cs[0]), 10, blocks, sizeof(blocks) / sizeof(blocks[0]),
		       &best, &csr);
	print_choice(out, &best, &csr);
	free(mc);
	free(ec);
	compose_lengths_release(&l);
	compose_matrix_release(&cm);
	spec_compose_free(c);
	return rc;
}
