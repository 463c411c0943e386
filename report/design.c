/*
 * The design as fiberloop understood it ('fiberloop check'): storage levels
 * outermost first, the compute unit, tensors with projections and densities,
 * the mapping as a loop nest, sparse optimizations, mapper settings and
 * constraints; as text or as one line of JSON.
 */
#include "report/report.h"

#include <stdio.h>

#include "report/report_int.h"
#include "specs/spec.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char *const dialect_names[] = {
	[SPEC_DIALECT_V03_TREE] = "v0.3 tree",
	[SPEC_DIALECT_V04_FLAT] = "v0.4 flattened tree",
	[SPEC_DIALECT_V04_NODES] = "v0.4 node list",
};

static const char *const con_kind_names[] = {
	[SPEC_CON_TEMPORAL] = "temporal", [SPEC_CON_SPATIAL] = "spatial",
	[SPEC_CON_BYPASS] = "bypass", [SPEC_CON_UTILIZATION] = "utilization",
};

/* ------------------------------------------------------------- shared */

/* "Weights Inputs" for the tensors of 'mask' (or "-"), into 'buf'. */
static const char *tensor_names(const struct spec_workload *w, uint32_t mask, char *buf,
				size_t size)
{
	unsigned t;
	size_t n = 0;
	buf[0] = '\0';
	for (t = 0; t < w->n_tensors; t++)
		if (mask & (1u << t))
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " " : "",
					      w->tensors[t].name);
	if (!n)
		snprintf(buf, size, "-");
	return buf;
}

/* The projection of rank 'r' of 't' as "R*Wdilation+P*Wstride". */
static void rank_expr(const struct spec_workload *w, const struct spec_tensor *t, unsigned r,
		      char *buf, size_t size)
{
	unsigned k;
	size_t n = 0;
	buf[0] = '\0';
	for (k = 0; k < t->ranks[r].n_terms; k++) {
		const struct spec_term *tm = &t->ranks[r].terms[k];
		const char *sep = k ? "+" : "";
		if (tm->coef_idx >= 0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s*%s", sep,
					      w->dim_names[tm->dim], w->coefs[tm->coef_idx].name);
		else if (tm->coef != 1)
			n += (size_t)snprintf(buf + n, size - n, "%s%s*%lld", sep,
					      w->dim_names[tm->dim], (long long)tm->coef);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, w->dim_names[tm->dim]);
		if (n >= size)
			break;
	}
}

/* The name of storage level 'l'. */
static const char *level_name(const struct spec_set *s, unsigned l)
{
	return s->arch.levels[l].name;
}

/* ---------------------------------------------------------------- text */

/* " read 16" or " read -". */
static void text_bw(struct strbuf *sb, const char *what, bool has, double v)
{
	if (has)
		strbuf_addf(sb, " %s %.9g", what, v);
	else
		strbuf_addf(sb, " %s -", what);
}

/* Which ERT and ART entries feed a component, or none. */
static void text_ert(struct strbuf *sb, const struct spec_ert_table *ert, const struct spec_art_entry *art)
{
	if (ert)
		strbuf_addf(sb, "      ERT: '%s' (%zu actions)", ert->name, ert->n_actions);
	else
		strbuf_addf(sb, "      ERT: none");
	if (art)
		strbuf_addf(sb, "; ART: '%s', %.9g um^2\n", art->name, art->area_um2);
	else
		strbuf_addf(sb, "; ART: none\n");
}

/* One storage level, over five lines. */
static void text_level(struct strbuf *sb, const struct spec_set *s, unsigned l)
{
	const struct spec_level *L = &s->arch.levels[l];

	strbuf_addf(sb, "  [%u] %s: class %s%s%s, %s%s\n", l, L->name, L->class_name,
	       L->subclass ? "/" : "", L->subclass ? L->subclass : "",
	       L->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM", L->is_dummy ? ", dummy" : "");
	strbuf_addf(sb, "      instances %llu (mesh %ux%u), fanout %ux%u\n",
	       (unsigned long long)L->instances, L->mesh_x, L->mesh_y, L->fanout_x, L->fanout_y);
	if (L->has_size)
		strbuf_addf(sb, "      size %llu words", (unsigned long long)L->size_words);
	else
		strbuf_addf(sb, "      size unbounded");
	strbuf_addf(sb, ", word %u bits, block %u words, cluster %u", L->word_bits, L->block_size,
	       L->cluster_size);
	if (L->multiple_buffering != 1.0)
		strbuf_addf(sb, ", multiple buffering %.9g", L->multiple_buffering);
	strbuf_addf(sb, "\n      bandwidth (words/cycle):");
	text_bw(sb, "read", L->has_read_bw, L->read_bw_words_per_cycle);
	text_bw(sb, "write", L->has_write_bw, L->write_bw_words_per_cycle);
	text_bw(sb, "shared", L->has_shared_bw, L->shared_bw_words_per_cycle);
	strbuf_addch(sb, '\n');
	if (L->concurrent_instances)
		strbuf_addf(sb, "      waves: %llu instances at once\n",
			    (unsigned long long)L->concurrent_instances);
	if (L->fill_latency_cycles)
		strbuf_addf(sb, "      fill latency: %llu cycles\n",
			    (unsigned long long)L->fill_latency_cycles);
	if (L->metadata_storage_width || L->metadata_word_bits) {
		strbuf_addf(sb, "      metadata: word %u bits, row %u bits, depth ", L->metadata_word_bits,
		       L->metadata_storage_width);
		if (L->has_metadata_storage_depth)
			strbuf_addf(sb, "%llu\n", (unsigned long long)L->metadata_storage_depth);
		else
			strbuf_addf(sb, "unbounded\n");
	}
	text_ert(sb, L->ert, L->art);
}

/* Levels outermost first, the compute unit, networks. */
static void text_arch(struct strbuf *sb, const struct spec_set *s)
{
	const struct spec_compute *c = &s->arch.compute;
	unsigned l;
	size_t i;

	strbuf_addf(sb, "Architecture (%s), storage levels outermost first:\n",
	       dialect_names[s->arch.dialect]);
	for (l = s->arch.n_levels; l-- > 0;)
		text_level(sb, s, l);
	strbuf_addf(sb, "  compute: %s: class %s, instances %llu (mesh %ux%u), word %u bits\n", c->name,
	       c->class_name, (unsigned long long)c->instances, c->mesh_x, c->mesh_y, c->word_bits);
	text_ert(sb, c->ert, c->art);
	for (i = 0; i < s->arch.n_networks; i++)
		strbuf_addf(sb, "  network: %s: class %s%s\n", s->arch.networks[i].name,
		       s->arch.networks[i].class_name, s->arch.networks[i].ert ? ", ERT" : "");
}

/* A density and its parameters (dimension names from 'w'). */
static void text_density(struct strbuf *sb, const struct spec_workload *w,
			 const struct spec_density *d)
{
	unsigned r;

	strbuf_addf(sb, "density %s %.9g", spec_density_kind_name(d->kind), d->density);
	if (d->kind == SPEC_DENSITY_HYPERGEOMETRIC && d->workload_tensor_size)
		strbuf_addf(sb, " (tensor size %llu)", (unsigned long long)d->workload_tensor_size);
	if (d->kind == SPEC_DENSITY_BANDED)
		strbuf_addf(sb, " (band width %llu)", (unsigned long long)d->band_width);
	if (d->kind == SPEC_DENSITY_NM)
		strbuf_addf(sb, " (%u:%u)", d->nm_n, d->nm_m);
	if (d->kind == SPEC_DENSITY_ACTUAL && d->data)
		strbuf_addf(sb, " (%zu non-zeros from %s)", d->data->nnz, d->data->file);
	if (d->kind == SPEC_DENSITY_BLOCK) {
		strbuf_addf(sb, " (blocks ");
		for (r = 0; r < SPEC_MAX_TENSOR_RANKS && d->block_shape[r]; r++)
			strbuf_addf(sb, "%s%llu", r ? "x" : "", (unsigned long long)d->block_shape[r]);
		strbuf_addch(sb, ')');
	}
	if (d->kind == SPEC_DENSITY_POWER_LAW)
		strbuf_addf(sb, " (exponent %.9g, rows along %s%s)", d->exponent,
			    w->dim_names[d->row_dim], d->permute_rows ? ", permuted" : "");
	if (d->is_default)
		strbuf_addf(sb, " (default)");
}

/* Dimensions, coefficients, data spaces with projections and densities. */
void report_workload_text(const struct spec_set *s, struct strbuf *sb)
{
	const struct spec_workload *w = &s->workload;
	unsigned d, t, r;
	char buf[256];

	if (w->shape_name)
		strbuf_addf(sb, "Workload '%s':\n  dimensions:", w->shape_name);
	else
		strbuf_addf(sb, "Workload:\n  dimensions:");
	for (d = 0; d < w->n_dims; d++)
		strbuf_addf(sb, " %s=%llu", w->dim_names[d], (unsigned long long)w->bounds[d]);
	strbuf_addch(sb, '\n');
	if (w->n_coefs) {
		strbuf_addf(sb, "  coefficients:");
		for (d = 0; d < w->n_coefs; d++)
			strbuf_addf(sb, " %s=%lld", w->coefs[d].name, (long long)w->coefs[d].value);
		strbuf_addch(sb, '\n');
	}
	for (t = 0; t < w->n_tensors; t++) {
		const struct spec_tensor *ts = &w->tensors[t];
		strbuf_addf(sb, "  %s", ts->name);
		for (r = 0; r < ts->n_ranks; r++) {
			rank_expr(w, ts, r, buf, sizeof(buf));
			strbuf_addf(sb, "[%s]", buf);
		}
		strbuf_addf(sb, "%s: size %llu, ", ts->read_write ? " (read-write)" : "",
		       (unsigned long long)ts->size);
		text_density(sb, w, &ts->density);
		strbuf_addch(sb, '\n');
	}
}

/* One loop, indented by its depth, Timeloop style. */
static void text_loop(struct strbuf *sb, const struct spec_set *s, const struct spec_loop *lp, unsigned depth)
{
	strbuf_addf(sb, "    %*sfor %s in [0:%llu", (int)(2 * depth), "", s->workload.dim_names[lp->dim],
	       (unsigned long long)lp->end);
	if (lp->residual_end != lp->end)
		strbuf_addf(sb, ",%llu", (unsigned long long)lp->residual_end);
	strbuf_addf(sb, ")%s\n", lp->spacetime == SPEC_SPATIAL_X ? " (Spatial-X)" :
	       lp->spacetime == SPEC_SPATIAL_Y ? " (Spatial-Y)" : "");
}

/* The loop nest per level, outermost first, with kept and bypassed data. */
static void text_mapping(struct strbuf *sb, const struct spec_set *s)
{
	const struct spec_mapping *m = s->mapping;
	const struct spec_workload *w = &s->workload;
	unsigned depth = 0, l;
	uint32_t all = (1u << w->n_tensors) - 1;
	char keep[256], byp[256];
	int i;

	if (!s->has_mapping) {
		strbuf_addf(sb, "Mapping: none given\n");
		return;
	}
	strbuf_addf(sb, "Mapping (loop nest, outermost first):\n");
	for (l = m->n_levels; l-- > 0;) {
		strbuf_addf(sb, "  %s: keeps %s; bypasses %s\n", level_name(s, l),
		       tensor_names(w, m->levels[l].keep_mask, keep, sizeof(keep)),
		       tensor_names(w, all & ~m->levels[l].keep_mask, byp, sizeof(byp)));
		for (i = (int)m->n_loops - 1; i >= 0; i--)
			if (m->loops[i].level == l && m->loops[i].end > 1)
				text_loop(sb, s, &m->loops[i], depth++);
	}
	strbuf_addf(sb, "    %*s<< compute >>\n", (int)(2 * depth), "");
}

/* The formats and optimizations of one component. */
static void text_target(struct strbuf *sb, const struct spec_set *s, const struct spec_sparse_target *tg)
{
	const struct spec_workload *w = &s->workload;
	unsigned i, k;
	char buf[256];

	strbuf_addf(sb, "  %s%s:\n", tg->name, tg->is_compute ? " (compute)" : "");
	for (i = 0; i < tg->n_formats; i++) {
		const struct spec_tensor_format *f = &tg->formats[i];
		strbuf_addf(sb, "    format of %s:", w->tensors[f->tensor].name);
		if (f->named != SPEC_NAMED_NONE)
			strbuf_addf(sb, " %s", spec_named_format_name(f->named));
		if (f->named == SPEC_NAMED_NM)
			strbuf_addf(sb, " %u:%u", f->nm_n, f->nm_m);
		for (k = 0; k < f->n_ranks; k++)
			strbuf_addf(sb, " %s", spec_fmt_kind_name(f->ranks[k].kind));
		strbuf_addf(sb, "%s\n", f->inner_to_outer ? " (inner to outer)" : "");
	}
	for (i = 0; i < tg->n_groups; i++) {
		const struct spec_saf_group *g = &tg->groups[i];
		strbuf_addf(sb, "    %s:", spec_saf_kind_name(g->kind));
		for (k = 0; k < g->n_options; k++)
			strbuf_addf(sb, "%s %s on %s", k ? " |" : "", w->tensors[g->options[k].target].name,
			       tensor_names(w, g->options[k].condition_mask, buf, sizeof(buf)));
		strbuf_addch(sb, '\n');
	}
	if (tg->compute_gating || tg->compute_skipping)
		strbuf_addf(sb, "    compute:%s%s\n", tg->compute_gating ? " gating" : "",
		       tg->compute_skipping ? " skipping" : "");
}

/* Every component's sparse optimizations. */
static void text_sparse(struct strbuf *sb, const struct spec_set *s)
{
	unsigned i;
	if (!s->sparse.present) {
		strbuf_addf(sb, "Sparse optimizations: none\n");
		return;
	}
	strbuf_addf(sb, "Sparse optimizations:%s\n", s->sparse.n_targets ? "" : " (empty)");
	for (i = 0; i < s->sparse.n_targets; i++)
		text_target(sb, s, &s->sparse.targets[i]);
}

/* One constraint with its factors, permutation, split and data spaces. */
static void text_constraint(struct strbuf *sb, const struct spec_set *s, const struct spec_constraint *c)
{
	const struct spec_workload *w = &s->workload;
	unsigned d;
	char keep[256], byp[256];

	strbuf_addf(sb, "  %s: %s", level_name(s, c->level), con_kind_names[c->kind]);
	if (c->fixed_mask || c->max_mask) {
		strbuf_addf(sb, " factors");
		for (d = 0; d < w->n_dims; d++) {
			if (c->fixed_mask & (1u << d))
				strbuf_addf(sb, " %s=%llu", w->dim_names[d], (unsigned long long)c->factors[d]);
			if (c->max_mask & (1u << d))
				strbuf_addf(sb, " %s<=%llu", w->dim_names[d], (unsigned long long)c->max_factors[d]);
		}
	}
	if (c->n_perm) {
		strbuf_addf(sb, " permutation ");
		for (d = 0; d < c->n_perm; d++)
			strbuf_addf(sb, "%s", w->dim_names[c->perm[d]]);
	}
	if (c->has_split)
		strbuf_addf(sb, " split %u", c->split);
	if (c->kind == SPEC_CON_BYPASS)
		strbuf_addf(sb, " keep %s bypass %s", tensor_names(w, c->keep_mask, keep, sizeof(keep)),
		       tensor_names(w, c->bypass_mask, byp, sizeof(byp)));
	if (c->kind == SPEC_CON_UTILIZATION)
		strbuf_addf(sb, " min %.9g", c->min_utilization);
	strbuf_addch(sb, '\n');
}

/* The mapper settings and every constraint. */
static void text_mapper(struct strbuf *sb, const struct spec_set *s)
{
	const struct spec_mapper_settings *m = &s->mapper;
	unsigned i;

	strbuf_addf(sb, "Mapper%s: algorithm %s, metrics", m->present ? "" : " (defaults)",
	       spec_search_name(m->algorithm));
	for (i = 0; i < m->n_metrics; i++)
		strbuf_addf(sb, " %s", spec_metric_name(m->metrics[i]));
	strbuf_addf(sb, ", threads %u, timeout %llu, victory condition %llu\n", m->num_threads,
	       (unsigned long long)m->timeout, (unsigned long long)m->victory_condition);
	strbuf_addf(sb, "Constraints: %u\n", s->constraints.n);
	for (i = 0; i < s->constraints.n; i++)
		text_constraint(sb, s, &s->constraints.items[i]);
}

void report_design_files(const struct spec_set *s, struct strbuf *sb)
{
	size_t i;
	strbuf_addf(sb, "Files:");
	for (i = 0; i < s->n_files; i++)
		strbuf_addf(sb, " %s", s->files[i]);
	strbuf_addch(sb, '\n');
}

void report_design_text(const struct spec_set *s, struct strbuf *sb)
{
	text_arch(sb, s);
	if (s->workload.n_dims)
		report_workload_text(s, sb);
	else
		strbuf_addf(sb, "Workload: none given\n");
	text_mapping(sb, s);
	text_sparse(sb, s);
	text_mapper(sb, s);
}


/* ---------------------------------------------------------------- JSON */

static void json_tensor_list(struct json_writer *w, const char *k, const struct spec_workload *wl,
			     uint32_t mask)
{
	unsigned t;

	json_open(w, k, '[');
	for (t = 0; t < wl->n_tensors; t++)
		if (mask & (1u << t))
			json_str(w, NULL, wl->tensors[t].name);
	json_close(w, ']');
}

static void json_level(struct json_writer *w, const struct spec_set *s, unsigned l)
{
	const struct spec_level *L = &s->arch.levels[l];

	json_open(w, NULL, '{');
	json_u64(w, "index", l);
	json_str(w, "name", L->name);
	json_str(w, "class", L->class_name);
	json_str(w, "subclass", L->subclass);
	json_str(w, "technology", L->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM");
	json_bool(w, "dummy", L->is_dummy);
	json_u64(w, "instances", L->instances);
	json_u64(w, "mesh_x", L->mesh_x);
	json_u64(w, "mesh_y", L->mesh_y);
	json_u64(w, "fanout_x", L->fanout_x);
	json_u64(w, "fanout_y", L->fanout_y);
	json_opt_double(w, "size_words", L->has_size, (double)L->size_words);
	json_u64(w, "word_bits", L->word_bits);
	json_u64(w, "block_size", L->block_size);
	json_u64(w, "cluster_size", L->cluster_size);
	json_double(w, "multiple_buffering", L->multiple_buffering);
	json_opt_double(w, "read_bw_words_per_cycle", L->has_read_bw, L->read_bw_words_per_cycle);
	json_opt_double(w, "write_bw_words_per_cycle", L->has_write_bw, L->write_bw_words_per_cycle);
	json_opt_double(w, "shared_bw_words_per_cycle", L->has_shared_bw,
			L->shared_bw_words_per_cycle);
	json_u64(w, "metadata_word_bits", L->metadata_word_bits);
	json_u64(w, "metadata_storage_width", L->metadata_storage_width);
	json_u64(w, "metadata_storage_depth", L->metadata_storage_depth);
	json_str(w, "ert", L->ert ? L->ert->name : NULL);
	json_str(w, "art", L->art ? L->art->name : NULL);
	json_close(w, '}');
}

static void json_arch(struct json_writer *w, const struct spec_set *s)
{
	const struct spec_compute *c = &s->arch.compute;
	unsigned l;

	json_open(w, "architecture", '{');
	json_str(w, "dialect", dialect_names[s->arch.dialect]);
	json_open(w, "levels", '[');
	for (l = s->arch.n_levels; l-- > 0;)
		json_level(w, s, l);
	json_close(w, ']');
	json_open(w, "compute", '{');
	json_str(w, "name", c->name);
	json_str(w, "class", c->class_name);
	json_u64(w, "instances", c->instances);
	json_u64(w, "mesh_x", c->mesh_x);
	json_u64(w, "mesh_y", c->mesh_y);
	json_u64(w, "word_bits", c->word_bits);
	json_str(w, "ert", c->ert ? c->ert->name : NULL);
	json_str(w, "art", c->art ? c->art->name : NULL);
	json_close(w, '}');
	json_close(w, '}');
}

static void json_tensor(struct json_writer *w, const struct spec_workload *wl,
			const struct spec_tensor *t)
{
	const struct spec_density *d = &t->density;
	unsigned r;
	char buf[256];

	json_open(w, NULL, '{');
	json_str(w, "name", t->name);
	json_open(w, "ranks", '[');
	for (r = 0; r < t->n_ranks; r++) {
		rank_expr(wl, t, r, buf, sizeof(buf));
		json_str(w, NULL, buf);
	}
	json_close(w, ']');
	json_bool(w, "read_write", t->read_write);
	json_u64(w, "size", t->size);
	json_open(w, "density", '{');
	json_str(w, "distribution", spec_density_kind_name(d->kind));
	json_double(w, "density", d->density);
	json_bool(w, "default", d->is_default);
	if (d->kind == SPEC_DENSITY_NM) {
		json_u64(w, "n", d->nm_n);
		json_u64(w, "m", d->nm_m);
		json_str(w, "dimension", wl->dim_names[d->nm_dim]);
	}
	if (d->kind == SPEC_DENSITY_BANDED)
		json_u64(w, "band_width", d->band_width);
	if (d->kind == SPEC_DENSITY_ACTUAL && d->data)
		json_str(w, "file", d->data->file);
	if (d->kind == SPEC_DENSITY_BLOCK) {
		json_open_inline(w, "block_shape", '[');
		for (r = 0; r < t->n_ranks; r++)
			json_u64(w, NULL, d->block_shape[r]);
		json_close(w, ']');
	}
	if (d->kind == SPEC_DENSITY_POWER_LAW) {
		json_double(w, "exponent", d->exponent);
		json_str(w, "dimension", wl->dim_names[d->row_dim]);
		json_bool(w, "permute_rows", d->permute_rows);
	}
	json_close(w, '}');
	json_close(w, '}');
}

static void json_workload(struct json_writer *w, const struct spec_set *s)
{
	const struct spec_workload *wl = &s->workload;
	unsigned d, t;

	if (!wl->n_dims) {
		json_null(w, "workload");
		return;
	}
	json_open(w, "workload", '{');
	json_str(w, "shape", wl->shape_name);
	json_open(w, "dimensions", '{');
	for (d = 0; d < wl->n_dims; d++)
		json_u64(w, wl->dim_names[d], wl->bounds[d]);
	json_close(w, '}');
	json_open(w, "tensors", '[');
	for (t = 0; t < wl->n_tensors; t++)
		json_tensor(w, wl, &wl->tensors[t]);
	json_close(w, ']');
	json_close(w, '}');
}

static void json_loops(struct json_writer *w, const struct spec_set *s, unsigned l)
{
	const struct spec_mapping *m = s->mapping;
	int i;

	json_open(w, "loops", '[');
	for (i = (int)m->n_loops - 1; i >= 0; i--) {
		const struct spec_loop *lp = &m->loops[i];
		if (lp->level != l || lp->end <= 1)
			continue;
		json_open(w, NULL, '{');
		json_str(w, "dimension", s->workload.dim_names[lp->dim]);
		json_u64(w, "end", lp->end);
		json_u64(w, "residual_end", lp->residual_end);
		json_str(w, "kind", spec_spacetime_name((enum spec_spacetime)lp->spacetime));
		json_close(w, '}');
	}
	json_close(w, ']');
}

static void json_mapping(struct json_writer *w, const struct spec_set *s)
{
	unsigned l;

	if (!s->has_mapping) {
		json_null(w, "mapping");
		return;
	}
	json_open(w, "mapping", '[');
	for (l = s->mapping->n_levels; l-- > 0;) {
		json_open(w, NULL, '{');
		json_str(w, "level", level_name(s, l));
		json_tensor_list(w, "keep", &s->workload, s->mapping->levels[l].keep_mask);
		json_loops(w, s, l);
		json_close(w, '}');
	}
	json_close(w, ']');
}

static void json_target(struct json_writer *w, const struct spec_set *s,
			const struct spec_sparse_target *tg)
{
	const struct spec_workload *wl = &s->workload;
	unsigned i, k;

	json_open(w, NULL, '{');
	json_str(w, "target", tg->name);
	json_bool(w, "compute", tg->is_compute);
	json_open(w, "formats", '[');
	for (i = 0; i < tg->n_formats; i++) {
		const struct spec_tensor_format *fm = &tg->formats[i];
		json_open(w, NULL, '{');
		json_str(w, "tensor", wl->tensors[fm->tensor].name);
		json_str(w, "named", fm->named == SPEC_NAMED_NONE ? NULL :
			 spec_named_format_name(fm->named));
		json_open(w, "ranks", '[');
		for (k = 0; k < fm->n_ranks; k++)
			json_str(w, NULL, spec_fmt_kind_name(fm->ranks[k].kind));
		json_close(w, ']');
		json_close(w, '}');
	}
	json_close(w, ']');
	json_open(w, "action_optimizations", '[');
	for (i = 0; i < tg->n_groups; i++) {
		const struct spec_saf_group *g = &tg->groups[i];
		json_open(w, NULL, '{');
		json_str(w, "type", spec_saf_kind_name(g->kind));
		json_open(w, "options", '[');
		for (k = 0; k < g->n_options; k++) {
			json_open(w, NULL, '{');
			json_str(w, "target", wl->tensors[g->options[k].target].name);
			json_tensor_list(w, "condition_on", wl, g->options[k].condition_mask);
			json_close(w, '}');
		}
		json_close(w, ']');
		json_close(w, '}');
	}
	json_close(w, ']');
	json_bool(w, "compute_gating", tg->compute_gating);
	json_bool(w, "compute_skipping", tg->compute_skipping);
	json_close(w, '}');
}

void report_design_json(const struct spec_set *s, struct strbuf *out)
{
	struct json_writer w;
	unsigned i;

	json_init(&w, out, JSON_COMPACT);
	json_open(&w, NULL, '{');
	json_arch(&w, s);
	json_workload(&w, s);
	json_mapping(&w, s);
	json_bool(&w, "sparse_present", s->sparse.present);
	json_open(&w, "sparse_optimizations", '[');
	for (i = 0; i < s->sparse.n_targets; i++)
		json_target(&w, s, &s->sparse.targets[i]);
	json_close(&w, ']');
	json_str(&w, "mapper_algorithm", spec_search_name(s->mapper.algorithm));
	json_u64(&w, "constraints", s->constraints.n);
	json_close(&w, '}');
	strbuf_addch(out, '\n');
}
