/*
 * Ragged workloads in the executor: every parent coordinate is executed as
 * its own dense workload (specs/ragged.c, spec_ragged_view_init) with its
 * own extents, listed or drawn (a uniform distribution: drawn per parent
 * coordinate from a stream of the run's seed), and the counts are summed.
 * The model groups equal extents and weighs them, or takes the expectation
 * of a distribution; the executor does neither.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The stream of the extents' draws (tensor streams are the tensor ids). */
#define RAGGED_STREAM 0x7261676765640000ull

/* Add the counts of 'r' into 'out'. */
static void accumulate(struct exec_ragged_result *out, const struct exec_result *r)
{
	unsigned l, t;

	out->computes += r->computes;
	out->actual_computes += r->computes_class[0];
	for (l = 0; l < r->n_levels && l < SPEC_MAX_LEVELS; l++)
		for (t = 0; t < r->n_tensors && t < SPEC_MAX_TENSORS; t++) {
			const struct exec_tensor_stats *st = exec_result_stats(r, l, t);
			out->reads[l][t] += st->reads.algorithmic;
			out->fills[l][t] += st->fills.algorithmic;
			out->updates[l][t] += st->updates.algorithmic;
		}
}

int exec_run_ragged(const struct spec_set *s, const struct exec_options *opt,
		    struct exec_ragged_result *out)
{
	const struct spec_workload *w = &s->workload;
	struct exec_options o = EXEC_OPTIONS_INIT;
	struct spec_ragged_view *v = xmalloc(sizeof(*v));
	struct strbuf why = STRBUF_INIT;
	struct rng rg;
	uint64_t k, pb, extent[SPEC_MAX_DIMS];
	unsigned r;
	int rc = 0;

	if (opt)
		o = *opt;
	memset(out, 0, sizeof(*out));
	out->n_levels = s->arch.n_levels;
	out->n_tensors = w->n_tensors;
	if (spec_ragged_check_mapping(w, s->mapping, &why) < 0) {
		snprintf(out->reason, sizeof(out->reason), "%s", why.buf);
		rc = -1;
		goto done;
	}
	rng_seed_stream(&rg, o.seed, RAGGED_STREAM);
	pb = w->bounds[w->ragged[0].parent];
	for (k = 0; k < pb && rc == 0; k++) {
		struct exec_result res;
		for (r = 0; r < w->n_ragged; r++) {
			const struct spec_ragged *rd = &w->ragged[r];
			extent[r] = rd->source == SPEC_RAGGED_LIST ? rd->lengths[k]
				: rd->min + rng_below(&rg, rd->max - rd->min + 1);
			out->elements[r] += extent[r];
		}
		spec_ragged_view_init(v, s, extent);
		if (spec_ragged_view_map(v, s, s->mapping) < 0) {
			snprintf(out->reason, sizeof(out->reason), "the factors cannot tile a ragged "
				 "extent");
			rc = -1;
			break;
		}
		o.seed = opt ? opt->seed + k : 1 + k;
		if (exec_run(&v->set, &o, &res) < 0) {
			memcpy(out->reason, res.reason, sizeof(out->reason) < sizeof(res.reason) ?
			       sizeof(out->reason) : sizeof(res.reason));
			out->reason[sizeof(out->reason) - 1] = '\0';
			rc = -1;
		} else {
			accumulate(out, &res);
		}
		exec_result_release(&res);
	}
done:
	free(v);
	strbuf_release(&why);
	return rc;
}
