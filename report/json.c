/*
 * The JSON document of a model run (docs/json-schema.md, version
 * REPORT_JSON_VERSION). Numbers are written with %.17g (doubles) so they
 * round-trip; counts are integers. Keys are never omitted: a value that does
 * not apply is null.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>

#include "util/json.h"

/* (metadata, payload) units as a two-element array on one line. */
static void json_pair(struct json_writer *w, const char *key, const uint64_t *v)
{
	json_open_inline(w, key, '[');
	json_u64(w, NULL, v[0]);
	json_u64(w, NULL, v[1]);
	json_close(w, ']');
}

static void summary(struct json_writer *w, const struct model_result *r)
{
	json_open(w, "summary", '{');
	json_double(w, "energy_pj", r->energy_pj);
	json_u64(w, "cycles", r->cycles);
	json_double(w, "utilization", r->utilization);
	json_u64(w, "algorithmic_computes", r->algorithmic_computes);
	json_u64(w, "actual_computes", r->actual_computes);
	if (r->padded) {
		json_u64(w, "useful_computes", r->useful_computes);
		json_double(w, "useful_utilization", r->useful_utilization);
	}
	json_double(w, "pj_per_compute", r->pj_per_compute);
	json_double(w, "edp_j_cycles", r->edp_j_cycles);
	json_double(w, "gflops", r->gflops);
	json_u64(w, "last_level_accesses", r->last_level_accesses);
	json_u64(w, "total_ops", r->total_ops);
	json_u64(w, "total_memory_accesses", r->total_memory_accesses);
	json_double(w, "optimal_op_per_byte", r->optimal_op_per_byte);
	json_double(w, "area_um2", r->area_total_um2);
	json_close(w, '}');
}

static void compute(struct json_writer *w, const struct spec_set *s, const struct model_result *r)
{
	const struct model_compute *c = &r->compute;

	json_open(w, "compute", '{');
	json_str(w, "name", s->arch.compute.name);
	json_u64(w, "instances", s->arch.compute.instances);
	json_u64(w, "utilized_instances", c->max_x * c->max_y);
	json_double(w, "average_utilized_instances", c->avg_replication);
	json_u64(w, "cycles", c->cycles);
	json_u64(w, "algorithmic_computes", c->algorithmic);
	json_u64(w, "actual_computes", c->random);
	json_u64(w, "gated_computes", c->gated);
	json_u64(w, "skipped_computes", c->skipped);
	json_double(w, "energy_per_compute_pj", c->op_energy_pj[MODEL_COMPUTE_RANDOM]);
	json_str(w, "energy_source", model_energy_source_name(c->energy_source));
	json_double(w, "energy_pj", c->energy_pj);
	json_double(w, "area_um2", c->area_um2 * (double)s->arch.compute.instances);
	json_close(w, '}');
}

static void actions(struct json_writer *w, const struct model_tile *t)
{
	unsigned op;

	json_open(w, "actions", '{');
	for (op = 0; op < MODEL_OP_LEAK; op++)
		json_u64(w, model_op_name(op), t->actions[op]);
	json_close(w, '}');
}

/* One format rank: its format, word bits, capacity and accesses per class. */
static void format_rank(struct json_writer *w, const struct model_tile *t, unsigned r)
{
	static const char *const ops[] = { "reads", "fills", "updates" };
	static const char *const cls[] = { "actual", "gated", "skipped" };
	unsigned op, c;

	json_open(w, NULL, '{');
	json_u64(w, "rank", r);
	json_str(w, "format", report_fmt_name(t->fmt_kind[r]));
	json_u64(w, "metadata_word_bits", t->fmt_md_bits[r]);
	json_u64(w, "payload_word_bits", t->fmt_pl_bits[r]);
	json_pair(w, "capacity", t->fmt_capacity[r]);
	for (op = 0; op < MODEL_FMT_OP_COUNT; op++) {
		json_open(w, ops[op], '{');
		for (c = 0; c < MODEL_FMT_CLASS_COUNT; c++)
			json_pair(w, cls[c], t->fmt_access[op][c][r]);
		json_close(w, '}');
	}
	json_close(w, '}');
}

/* The sparse view of a tile (dense values in a dense run). */
static void sparse_part(struct json_writer *w, const struct model_tile *t, unsigned word_bits)
{
	unsigned r;

	json_open(w, "sparse", '{');
	json_str(w, "density_distribution", t->density_name);
	json_double(w, "expected_density", t->expected_density);
	json_bool(w, "compressed", t->is_compressed);
	json_double(w, "confidence", t->confidence);
	json_double(w, "vector_ratio", t->vector_ratio);
	json_u64(w, "metadata_bits", report_tile_metadata_bits(t));
	json_double(w, "stored_fraction", report_tile_stored_fraction(t, word_bits));
	json_open(w, "representation_format", '[');
	for (r = t->n_fmt_ranks; r-- > 0;)
		json_str(w, NULL, report_fmt_name(t->fmt_kind[r]));
	json_close(w, ']');
	json_open(w, "ranks", '[');
	for (r = t->n_fmt_ranks; r-- > 0;)
		format_rank(w, t, r);
	json_close(w, ']');
	json_close(w, '}');
}

static void tensor(struct json_writer *w, const struct spec_set *s, const struct model_tile *t,
		   unsigned pv, unsigned word_bits)
{
	json_open(w, NULL, '{');
	json_str(w, "name", s->workload.tensors[pv].name);
	json_u64(w, "partition_size", t->partition_size);
	json_u64(w, "tile_shape", t->shape);
	json_u64(w, "utilized_capacity", t->utilized_capacity);
	json_double(w, "expected_occupancy", t->expected_occupancy);
	json_u64(w, "utilized_instances", t->max_x * t->max_y);
	json_double(w, "average_utilized_instances", t->avg_replication);
	json_u64(w, "utilized_clusters", t->utilized_clusters);
	json_u64(w, "reads", t->reads);
	json_u64(w, "fills", t->fills);
	json_u64(w, "updates", t->updates);
	actions(w, t);
	json_u64(w, "temporal_reductions", t->temporal_reductions);
	json_u64(w, "address_generations", t->address_generations);
	json_double(w, "energy_per_instance_pj", t->energy_pj);
	json_double(w, "energy_pj", report_tile_energy(t));
	json_double(w, "read_bw", t->read_bw);
	json_double(w, "write_bw", t->write_bw);
	json_double(w, "shared_bw", t->shared_bw);
	sparse_part(w, t, word_bits);
	json_close(w, '}');
}

static void level(struct json_writer *w, const struct spec_set *s, const struct model_result *r,
		  unsigned l)
{
	const struct spec_level *lvl = &s->arch.levels[l];
	const struct model_level *ml = &r->levels[l];
	char buf[64];
	unsigned pv;

	json_open(w, NULL, '{');
	json_str(w, "name", lvl->name);
	json_u64(w, "index", l);
	json_u64(w, "instances", lvl->instances);
	if (lvl->has_size)
		json_u64(w, "size_words", lvl->size_words);
	else
		json_str(w, "size_words", NULL);
	json_str(w, "energy_source", report_level_source(r, l, buf, sizeof(buf)));
	json_double(w, "vector_access_energy_pj", ml->vector_access_energy_pj);
	json_u64(w, "cycles", ml->cycles);
	json_double(w, "bandwidth_throttling", ml->slowdown);
	json_double(w, "leakage_energy_pj", ml->leakage_energy_pj);
	json_double(w, "energy_pj", ml->energy_pj);
	json_u64(w, "total_scalar_accesses", ml->total_scalar_accesses);
	json_double(w, "area_um2", ml->area_um2);
	json_open(w, "tensors", '[');
	for (pv = 0; pv < r->n_tensors; pv++)
		if (r->tiles[l][pv].is_kept)
			tensor(w, s, &r->tiles[l][pv], pv, lvl->word_bits);
	json_close(w, ']');
	json_close(w, '}');
}

static void energy_by_tensor(struct json_writer *w, const struct spec_set *s,
			     const struct model_result *r)
{
	unsigned l, pv;

	json_open(w, "energy_by_tensor_pj", '{');
	for (pv = 0; pv < r->n_tensors; pv++) {
		double e = 0;
		for (l = 0; l < r->n_levels; l++)
			e += report_tile_energy(&r->tiles[l][pv]);
		json_double(w, s->workload.tensors[pv].name, e);
	}
	json_close(w, '}');
}

static void networks(struct json_writer *w, const struct spec_set *s, const struct model_result *r)
{
	char name[160];
	unsigned l;

	json_open(w, "networks", '[');
	for (l = 0; l < r->n_levels; l++) {
		snprintf(name, sizeof(name), "%s <==> %s", s->arch.levels[l].name,
			 l ? s->arch.levels[l - 1].name : s->arch.compute.name);
		json_open(w, NULL, '{');
		json_str(w, "name", name);
		json_double(w, "ingresses", r->networks[l].ingresses);
		json_double(w, "energy_pj", r->networks[l].energy_pj);
		json_close(w, '}');
	}
	json_close(w, ']');
}

static void header(struct json_writer *w, const struct model_result *r, const char *const *files,
		   size_t n_files)
{
	struct strbuf src = STRBUF_INIT;
	size_t i;

	json_str(w, "schema", "fiberloop-model");
	json_u64(w, "version", REPORT_JSON_VERSION);
	json_open(w, "inputs", '[');
	for (i = 0; i < n_files; i++)
		json_str(w, NULL, files[i]);
	json_close(w, ']');
	json_str(w, "status", model_status_name(r->status));
	json_str(w, "reason", r->status == EVAL_OK ? NULL : r->reason);
	json_i64(w, "fail_level", r->fail_level);
	report_energy_source(r, &src);
	json_str(w, "energy_source", src.buf);
	json_str(w, "energy_preset", r->energy_preset);
	json_str(w, "footprint", r->footprint == MODEL_FOOTPRINT_EXACT ? "exact" : "timeloop");
	json_bool(w, "sparse_layout", r->is_sparse_layout);
	strbuf_release(&src);
}

/* The document, with the roofline object when 'roofline'. */
static void document(const struct spec_set *s, const struct model_result *r,
		     const char *const *files, size_t n_files, bool roofline, struct strbuf *out)
{
	struct json_writer w;
	unsigned l;

	json_init(&w, out, JSON_PRETTY);
	json_open(&w, NULL, '{');
	header(&w, r, files, n_files);
	if (r->status == EVAL_OK) {
		summary(&w, r);
		energy_by_tensor(&w, s, r);
		compute(&w, s, r);
		json_open(&w, "levels", '[');
		for (l = 0; l < r->n_levels; l++)
			level(&w, s, r, l);
		json_close(&w, ']');
		networks(&w, s, r);
		if (roofline)
			report_roofline_json(&w, s, r);
		report_per_call_json(&w, s, r);
	}
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}

void report_json(const struct spec_set *s, const struct spec_mapping *m,
		 const struct model_result *r, const char *const *files, size_t n_files,
		 struct strbuf *out)
{
	(void)m;
	document(s, r, files, n_files, false, out);
}

void report_json_roofline(const struct spec_set *s, const struct spec_mapping *m,
			  const struct model_result *r, const char *const *files, size_t n_files,
			  struct strbuf *out)
{
	(void)m;
	document(s, r, files, n_files, true, out);
}
