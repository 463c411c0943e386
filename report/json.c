/*
 * The JSON document of a model run (docs/json-schema.md, version
 * REPORT_JSON_VERSION). Numbers are written with %.17g (doubles) so they
 * round-trip; counts are integers. Keys are never omitted: a value that does
 * not apply is null.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>

struct jw {
	struct strbuf *sb;
	unsigned depth;
	bool first;
};

static void jw_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

/* Start a member: separator, newline and indentation, then "key": */
static void jw_key(struct jw *w, const char *key)
{
	if (!w->first)
		strbuf_addch(w->sb, ',');
	strbuf_addch(w->sb, '\n');
	strbuf_addchars(w->sb, ' ', 2 * w->depth);
	if (key) {
		jw_str(w->sb, key);
		strbuf_addstr(w->sb, ": ");
	}
	w->first = false;
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_key(w, key);
	strbuf_addch(w->sb, c);
	w->depth++;
	w->first = true;
}

static void jw_close(struct jw *w, char c)
{
	w->depth--;
	strbuf_addch(w->sb, '\n');
	strbuf_addchars(w->sb, ' ', 2 * w->depth);
	strbuf_addch(w->sb, c);
	w->first = false;
}

static void jw_int(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	strbuf_addf(w->sb, "%llu", (unsigned long long)v);
}

static void jw_sint(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	strbuf_addf(w->sb, "%lld", (long long)v);
}

static void jw_dbl(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (isfinite(v))
		strbuf_addf(w->sb, "%.17g", v);
	else
		strbuf_addstr(w->sb, "null");
}

static void jw_text(struct jw *w, const char *key, const char *v)
{
	jw_key(w, key);
	if (v)
		jw_str(w->sb, v);
	else
		strbuf_addstr(w->sb, "null");
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	strbuf_addstr(w->sb, v ? "true" : "false");
}

static void summary(struct jw *w, const struct model_result *r)
{
	jw_open(w, "summary", '{');
	jw_dbl(w, "energy_pj", r->energy_pj);
	jw_int(w, "cycles", r->cycles);
	jw_dbl(w, "utilization", r->utilization);
	jw_int(w, "algorithmic_computes", r->algorithmic_computes);
	jw_int(w, "actual_computes", r->actual_computes);
	jw_dbl(w, "pj_per_compute", r->pj_per_compute);
	jw_dbl(w, "edp_j_cycles", r->edp_j_cycles);
	jw_dbl(w, "gflops", r->gflops);
	jw_int(w, "last_level_accesses", r->last_level_accesses);
	jw_int(w, "total_ops", r->total_ops);
	jw_int(w, "total_memory_accesses", r->total_memory_accesses);
	jw_dbl(w, "optimal_op_per_byte", r->optimal_op_per_byte);
	jw_close(w, '}');
}

static void compute(struct jw *w, const struct spec_set *s, const struct model_result *r)
{
	const struct model_compute *c = &r->compute;

	jw_open(w, "compute", '{');
	jw_text(w, "name", s->arch.compute.name);
	jw_int(w, "instances", s->arch.compute.instances);
	jw_int(w, "utilized_instances", c->max_x * c->max_y);
	jw_dbl(w, "average_utilized_instances", c->avg_replication);
	jw_int(w, "cycles", c->cycles);
	jw_int(w, "algorithmic_computes", c->algorithmic);
	jw_int(w, "actual_computes", c->random);
	jw_int(w, "gated_computes", c->gated);
	jw_int(w, "skipped_computes", c->skipped);
	jw_dbl(w, "energy_per_compute_pj", c->op_energy_pj[MODEL_COMPUTE_RANDOM]);
	jw_text(w, "energy_source", model_energy_source_name(c->energy_source));
	jw_dbl(w, "energy_pj", c->energy_pj);
	jw_dbl(w, "area_um2", c->area_um2 * (double)s->arch.compute.instances);
	jw_close(w, '}');
}

static void actions(struct jw *w, const struct model_tile *t)
{
	unsigned op;

	jw_open(w, "actions", '{');
	for (op = 0; op < MODEL_OP_LEAK; op++)
		jw_int(w, model_op_name(op), t->actions[op]);
	jw_close(w, '}');
}

/* (metadata, payload) units as a two-element array. */
static void jw_pair(struct jw *w, const char *key, const uint64_t *v)
{
	jw_key(w, key);
	strbuf_addf(w->sb, "[%llu, %llu]", (unsigned long long)v[0], (unsigned long long)v[1]);
}

/* One format rank: its format, word bits, capacity and accesses per class. */
static void format_rank(struct jw *w, const struct model_tile *t, unsigned r)
{
	static const char *const ops[] = { "reads", "fills", "updates" };
	static const char *const cls[] = { "actual", "gated", "skipped" };
	unsigned op, c;

	jw_open(w, NULL, '{');
	jw_int(w, "rank", r);
	jw_text(w, "format", rp_fmt_name(t->fmt_kind[r]));
	jw_int(w, "metadata_word_bits", t->fmt_md_bits[r]);
	jw_int(w, "payload_word_bits", t->fmt_pl_bits[r]);
	jw_pair(w, "capacity", t->fmt_capacity[r]);
	for (op = 0; op < MODEL_FMT_OP_COUNT; op++) {
		jw_open(w, ops[op], '{');
		for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
			jw_pair(w, cls[c], t->fmt_access[op][c][r]);
		jw_close(w, '}');
	}
	jw_close(w, '}');
}

/* The sparse view of a tile (dense values in a dense run). */
static void sparse_part(struct jw *w, const struct model_tile *t, unsigned word_bits)
{
	unsigned r;

	jw_open(w, "sparse", '{');
	jw_text(w, "density_distribution", t->density_name);
	jw_dbl(w, "expected_density", t->expected_density);
	jw_bool(w, "compressed", t->is_compressed);
	jw_dbl(w, "confidence", t->confidence);
	jw_dbl(w, "vector_ratio", t->vector_ratio);
	jw_int(w, "metadata_bits", rp_tile_metadata_bits(t));
	jw_dbl(w, "stored_fraction", rp_tile_stored_fraction(t, word_bits));
	jw_open(w, "representation_format", '[');
	for (r = t->n_fmt_ranks; r-- > 0;)
		jw_text(w, NULL, rp_fmt_name(t->fmt_kind[r]));
	jw_close(w, ']');
	jw_open(w, "ranks", '[');
	for (r = t->n_fmt_ranks; r-- > 0;)
		format_rank(w, t, r);
	jw_close(w, ']');
	jw_close(w, '}');
}

static void tensor(struct jw *w, const struct spec_set *s, const struct model_tile *t,
		   unsigned pv, unsigned word_bits)
{
	jw_open(w, NULL, '{');
	jw_text(w, "name", s->workload.tensors[pv].name);
	jw_int(w, "partition_size", t->partition_size);
	jw_int(w, "tile_shape", t->shape);
	jw_int(w, "utilized_capacity", t->utilized_capacity);
	jw_dbl(w, "expected_occupancy", t->expected_occupancy);
	jw_int(w, "utilized_instances", t->max_x * t->max_y);
	jw_dbl(w, "average_utilized_instances", t->avg_replication);
	jw_int(w, "utilized_clusters", t->utilized_clusters);
	jw_int(w, "reads", t->reads);
	jw_int(w, "fills", t->fills);
	jw_int(w, "updates", t->updates);
	actions(w, t);
	jw_int(w, "temporal_reductions", t->temporal_reductions);
	jw_int(w, "address_generations", t->address_generations);
	jw_dbl(w, "energy_per_instance_pj", t->energy_pj);
	jw_dbl(w, "energy_pj", rp_tile_energy(t));
	jw_dbl(w, "read_bw", t->read_bw);
	jw_dbl(w, "write_bw", t->write_bw);
	jw_dbl(w, "shared_bw", t->shared_bw);
	sparse_part(w, t, word_bits);
	jw_close(w, '}');
}

static void level(struct jw *w, const struct spec_set *s, const struct model_result *r,
		  unsigned l)
{
	const struct spec_level *lvl = &s->arch.levels[l];
	const struct model_level *ml = &r->levels[l];
	char buf[64];
	unsigned pv;

	jw_open(w, NULL, '{');
	jw_text(w, "name", lvl->name);
	jw_int(w, "index", l);
	jw_int(w, "instances", lvl->instances);
	if (lvl->has_size)
		jw_int(w, "size_words", lvl->size_words);
	else
		jw_text(w, "size_words", NULL);
	jw_text(w, "energy_source", rp_level_source(r, l, buf, sizeof(buf)));
	jw_dbl(w, "vector_access_energy_pj", ml->vector_access_energy_pj);
	jw_int(w, "cycles", ml->cycles);
	jw_dbl(w, "bandwidth_throttling", ml->slowdown);
	jw_dbl(w, "leakage_energy_pj", ml->leakage_energy_pj);
	jw_dbl(w, "energy_pj", ml->energy_pj);
	jw_int(w, "total_scalar_accesses", ml->total_scalar_accesses);
	jw_dbl(w, "area_um2", ml->area_um2);
	jw_open(w, "tensors", '[');
	for (pv = 0; pv < r->n_tensors; pv++)
		if (r->tiles[l][pv].is_kept)
			tensor(w, s, &r->tiles[l][pv], pv, lvl->word_bits);
	jw_close(w, ']');
	jw_close(w, '}');
}

static void energy_by_tensor(struct jw *w, const struct spec_set *s,
			     const struct model_result *r)
{
	unsigned l, pv;

	jw_open(w, "energy_by_tensor_pj", '{');
	for (pv = 0; pv < r->n_tensors; pv++) {
		double e = 0;
		for (l = 0; l < r->n_levels; l++)
			e += rp_tile_energy(&r->tiles[l][pv]);
		jw_dbl(w, s->workload.tensors[pv].name, e);
	}
	jw_close(w, '}');
}

static void networks(struct jw *w, const struct spec_set *s, const struct model_result *r)
{
	char name[160];
	unsigned l;

	jw_open(w, "networks", '[');
	for (l = 0; l < r->n_levels; l++) {
		snprintf(name, sizeof(name), "%s <==> %s", s->arch.levels[l].name,
			 l ? s->arch.levels[l - 1].name : s->arch.compute.name);
		jw_open(w, NULL, '{');
		jw_text(w, "name", name);
		jw_dbl(w, "ingresses", r->networks[l].ingresses);
		jw_dbl(w, "energy_pj", r->networks[l].energy_pj);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void header(struct jw *w, const struct model_result *r, const char *const *files,
		   size_t n_files)
{
	struct strbuf src = STRBUF_INIT;
	size_t i;

	jw_text(w, "schema", "fiberloop-model");
	jw_int(w, "version", REPORT_JSON_VERSION);
	jw_open(w, "inputs", '[');
	for (i = 0; i < n_files; i++)
		jw_text(w, NULL, files[i]);
	jw_close(w, ']');
	jw_text(w, "status", model_status_name(r->status));
	jw_text(w, "reason", r->status == EVAL_OK ? NULL : r->reason);
	jw_sint(w, "fail_level", r->fail_level);
	report_energy_source(r, &src);
	jw_text(w, "energy_source", src.buf);
	jw_text(w, "energy_preset", r->energy_preset);
	jw_text(w, "footprint", r->footprint == MODEL_FOOTPRINT_EXACT ? "exact" : "timeloop");
	jw_bool(w, "sparse_layout", r->is_sparse_layout);
	strbuf_release(&src);
}

void report_json(const struct spec_set *s, const struct spec_mapping *m,
		 const struct model_result *r, const char *const *files, size_t n_files,
		 struct strbuf *out)
{
	struct jw w = { out, 0, true };
	unsigned l;

	(void)m;
	strbuf_addch(out, '{');
	w.depth = 1;
	header(&w, r, files, n_files);
	if (r->status == EVAL_OK) {
		summary(&w, r);
		energy_by_tensor(&w, s, r);
		compute(&w, s, r);
		jw_open(&w, "levels", '[');
		for (l = 0; l < r->n_levels; l++)
			level(&w, s, r, l);
		jw_close(&w, ']');
		networks(&w, s, r);
	}
	w.depth = 0;
	strbuf_addstr(out, "\n}\n");
}
