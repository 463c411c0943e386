/*
 * 'fiberloop check FILE...': load and validate a design and print it as
 * parsed (text or JSON on stdout). Diagnostics go to stderr; exit 1 when
 * any error was found. Nothing is written to files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "specs/spec.h"
#include "util/xalloc.h"

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
static void text_bw(const char *what, bool has, double v)
{
	if (has)
		printf(" %s %.9g", what, v);
	else
		printf(" %s -", what);
}

/* Which ERT and ART entries feed a component, or none. */
static void text_ert(const struct spec_ert_table *ert, const struct spec_art_entry *art)
{
	if (ert)
		printf("      ERT: '%s' (%zu actions)", ert->name, ert->n_actions);
	else
		printf("      ERT: none");
	if (art)
		printf("; ART: '%s', %.9g um^2\n", art->name, art->area_um2);
	else
		printf("; ART: none\n");
}

/* One storage level, over five lines. */
static void text_level(const struct spec_set *s, unsigned l)
{
	const struct spec_level *L = &s->arch.levels[l];

	printf("  [%u] %s: class %s%s%s, %s%s\n", l, L->name, L->class_name,
	       L->subclass ? "/" : "", L->subclass ? L->subclass : "",
	       L->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM", L->is_dummy ? ", dummy" : "");
	printf("      instances %llu (mesh %ux%u), fanout %ux%u\n",
	       (unsigned long long)L->instances, L->mesh_x, L->mesh_y, L->fanout_x, L->fanout_y);
	if (L->has_size)
		printf("      size %llu words", (unsigned long long)L->size_words);
	else
		printf("      size unbounded");
	printf(", word %u bits, block %u words, cluster %u", L->word_bits, L->block_size,
	       L->cluster_size);
	if (L->multiple_buffering != 1.0)
		printf(", multiple buffering %.9g", L->multiple_buffering);
	printf("\n      bandwidth (words/cycle):");
	text_bw("read", L->has_read_bw, L->read_bw_words_per_cycle);
	text_bw("write", L->has_write_bw, L->write_bw_words_per_cycle);
	text_bw("shared", L->has_shared_bw, L->shared_bw_words_per_cycle);
	printf("\n");
	if (L->metadata_storage_width || L->metadata_word_bits) {
		printf("      metadata: word %u bits, row %u bits, depth ", L->metadata_word_bits,
		       L->metadata_storage_width);
		if (L->has_metadata_storage_depth)
			printf("%llu\n", (unsigned long long)L->metadata_storage_depth);
		else
			printf("unbounded\n");
	}
	text_ert(L->ert, L->art);
}

/* Levels outermost first, the compute unit, networks. */
static void text_arch(const struct spec_set *s)
{
	const struct spec_compute *c = &s->arch.compute;
	unsigned l;
	size_t i;

	printf("Architecture (%s), storage levels outermost first:\n",
	       dialect_names[s->arch.dialect]);
	for (l = s->arch.n_levels; l-- > 0;)
		text_level(s, l);
	printf("  compute: %s: class %s, instances %llu (mesh %ux%u), word %u bits\n", c->name,
	       c->class_name, (unsigned long long)c->instances, c->mesh_x, c->mesh_y, c->word_bits);
	text_ert(c->ert, c->art);
	for (i = 0; i < s->arch.n_networks; i++)
		printf("  network: %s: class %s%s\n", s->arch.networks[i].name,
		       s->arch.networks[i].class_name, s->arch.networks[i].ert ? ", ERT" : "");
}

/* A density and its parameters. */
static void text_density(const struct spec_density *d)
{
	printf("density %s %.9g", spec_density_kind_name(d->kind), d->density);
	if (d->kind == SPEC_DENSITY_HYPERGEOMETRIC && d->workload_tensor_size)
		printf(" (tensor size %llu)", (unsigned long long)d->workload_tensor_size);
	if (d->kind == SPEC_DENSITY_BANDED)
		printf(" (band width %llu)", (unsigned long long)d->band_width);
	if (d->kind == SPEC_DENSITY_NM)
		printf(" (%u:%u)", d->nm_n, d->nm_m);
	if (d->kind == SPEC_DENSITY_ACTUAL && d->data)
		printf(" (%zu non-zeros from %s)", d->data->nnz, d->data->file);
	if (d->is_default)
		printf(" (default)");
}

/* Dimensions, coefficients, data spaces with projections and densities. */
static void text_workload(const struct spec_set *s)
{
	const struct spec_workload *w = &s->workload;
	unsigned d, t, r;
	char buf[256];

	if (w->shape_name)
		printf("Workload '%s':\n  dimensions:", w->shape_name);
	else
		printf("Workload:\n  dimensions:");
	for (d = 0; d < w->n_dims; d++)
		printf(" %s=%llu", w->dim_names[d], (unsigned long long)w->bounds[d]);
	printf("\n");
	if (w->n_coefs) {
		printf("  coefficients:");
		for (d = 0; d < w->n_coefs; d++)
			printf(" %s=%lld", w->coefs[d].name, (long long)w->coefs[d].value);
		printf("\n");
	}
	for (t = 0; t < w->n_tensors; t++) {
		const struct spec_tensor *ts = &w->tensors[t];
		printf("  %s", ts->name);
		for (r = 0; r < ts->n_ranks; r++) {
			rank_expr(w, ts, r, buf, sizeof(buf));
			printf("[%s]", buf);
		}
		printf("%s: size %llu, ", ts->read_write ? " (read-write)" : "",
		       (unsigned long long)ts->size);
		text_density(&ts->density);
		printf("\n");
	}
}

/* One loop, indented by its depth, Timeloop style. */
static void text_loop(const struct spec_set *s, const struct spec_loop *lp, unsigned depth)
{
	printf("    %*sfor %s in [0:%llu", (int)(2 * depth), "", s->workload.dim_names[lp->dim],
	       (unsigned long long)lp->end);
	if (lp->residual_end != lp->end)
		printf(",%llu", (unsigned long long)lp->residual_end);
	printf(")%s\n", lp->spacetime == SPEC_SPATIAL_X ? " (Spatial-X)" :
	       lp->spacetime == SPEC_SPATIAL_Y ? " (Spatial-Y)" : "");
}

/* The loop nest per level, outermost first, with kept and bypassed data. */
static void text_mapping(const struct spec_set *s)
{
	const struct spec_mapping *m = s->mapping;
	const struct spec_workload *w = &s->workload;
	unsigned depth = 0, l;
	uint32_t all = (1u << w->n_tensors) - 1;
	char keep[256], byp[256];
	int i;

	if (!s->has_mapping) {
		printf("Mapping: none given\n");
		return;
	}
	printf("Mapping (loop nest, outermost first):\n");
	for (l = m->n_levels; l-- > 0;) {
		printf("  %s: keeps %s; bypasses %s\n", level_name(s, l),
		       tensor_names(w, m->levels[l].keep_mask, keep, sizeof(keep)),
		       tensor_names(w, all & ~m->levels[l].keep_mask, byp, sizeof(byp)));
		for (i = (int)m->n_loops - 1; i >= 0; i--)
			if (m->loops[i].level == l && m->loops[i].end > 1)
				text_loop(s, &m->loops[i], depth++);
	}
	printf("    %*s<< compute >>\n", (int)(2 * depth), "");
}

/* The formats and optimizations of one component. */
static void text_target(const struct spec_set *s, const struct spec_sparse_target *tg)
{
	const struct spec_workload *w = &s->workload;
	unsigned i, k;
	char buf[256];

	printf("  %s%s:\n", tg->name, tg->is_compute ? " (compute)" : "");
	for (i = 0; i < tg->n_formats; i++) {
		const struct spec_tensor_format *f = &tg->formats[i];
		printf("    format of %s:", w->tensors[f->tensor].name);
		if (f->named != SPEC_NAMED_NONE)
			printf(" %s", spec_named_format_name(f->named));
		if (f->named == SPEC_NAMED_NM)
			printf(" %u:%u", f->nm_n, f->nm_m);
		for (k = 0; k < f->n_ranks; k++)
			printf(" %s", spec_fmt_kind_name(f->ranks[k].kind));
		printf("%s\n", f->inner_to_outer ? " (inner to outer)" : "");
	}
	for (i = 0; i < tg->n_groups; i++) {
		const struct spec_saf_group *g = &tg->groups[i];
		printf("    %s:", spec_saf_kind_name(g->kind));
		for (k = 0; k < g->n_options; k++)
			printf("%s %s on %s", k ? " |" : "", w->tensors[g->options[k].target].name,
			       tensor_names(w, g->options[k].condition_mask, buf, sizeof(buf)));
		printf("\n");
	}
	if (tg->compute_gating || tg->compute_skipping)
		printf("    compute:%s%s\n", tg->compute_gating ? " gating" : "",
		       tg->compute_skipping ? " skipping" : "");
}

/* Every component's sparse optimizations. */
static void text_sparse(const struct spec_set *s)
{
	unsigned i;
	if (!s->sparse.present) {
		printf("Sparse optimizations: none\n");
		return;
	}
	printf("Sparse optimizations:%s\n", s->sparse.n_targets ? "" : " (empty)");
	for (i = 0; i < s->sparse.n_targets; i++)
		text_target(s, &s->sparse.targets[i]);
}

/* One constraint with its factors, permutation, split and data spaces. */
static void text_constraint(const struct spec_set *s, const struct spec_constraint *c)
{
	const struct spec_workload *w = &s->workload;
	unsigned d;
	char keep[256], byp[256];

	printf("  %s: %s", level_name(s, c->level), con_kind_names[c->kind]);
	if (c->fixed_mask || c->max_mask) {
		printf(" factors");
		for (d = 0; d < w->n_dims; d++) {
			if (c->fixed_mask & (1u << d))
				printf(" %s=%llu", w->dim_names[d], (unsigned long long)c->factors[d]);
			if (c->max_mask & (1u << d))
				printf(" %s<=%llu", w->dim_names[d], (unsigned long long)c->max_factors[d]);
		}
	}
	if (c->n_perm) {
		printf(" permutation ");
		for (d = 0; d < c->n_perm; d++)
			printf("%s", w->dim_names[c->perm[d]]);
	}
	if (c->has_split)
		printf(" split %u", c->split);
	if (c->kind == SPEC_CON_BYPASS)
		printf(" keep %s bypass %s", tensor_names(w, c->keep_mask, keep, sizeof(keep)),
		       tensor_names(w, c->bypass_mask, byp, sizeof(byp)));
	if (c->kind == SPEC_CON_UTILIZATION)
		printf(" min %.9g", c->min_utilization);
	printf("\n");
}

/* The mapper settings and every constraint. */
static void text_mapper(const struct spec_set *s)
{
	const struct spec_mapper_settings *m = &s->mapper;
	unsigned i;

	printf("Mapper%s: algorithm %s, metrics", m->present ? "" : " (defaults)",
	       spec_search_name(m->algorithm));
	for (i = 0; i < m->n_metrics; i++)
		printf(" %s", spec_metric_name(m->metrics[i]));
	printf(", threads %u, timeout %llu, victory condition %llu\n", m->num_threads,
	       (unsigned long long)m->timeout, (unsigned long long)m->victory_condition);
	printf("Constraints: %u\n", s->constraints.n);
	for (i = 0; i < s->constraints.n; i++)
		text_constraint(s, &s->constraints.items[i]);
}

/* The whole design as text. */
/* An 'ipu:' design: the device after its preset and overrides, and the layer. */
static void text_ipu(const struct spec_set *s)
{
	const struct spec_ipu_device *d = &s->ipu->device;
	const struct spec_ipu_layer *l = &s->ipu->layer;
	unsigned p;

	printf("IPU device '%s': %llu tiles of %llu bytes, %u workers, %.4g Hz, exchange %u "
	       "bytes/cycle%s, AMP half %u / float %u MACs/cycle\n", d->preset,
	       (unsigned long long)d->tiles, (unsigned long long)d->bytes_per_tile, d->workers,
	       d->clock_hz, d->exchange_bytes_per_cycle,
	       d->exchange_bus_sharing ? " (bus sharing)" : "", d->amp_macs_per_cycle[SPEC_IPU_HALF],
	       d->amp_macs_per_cycle[SPEC_IPU_FLOAT]);
	printf("IPU layer: X %llu, Y %llu, Z %llu, block %u, %s (partials %s), %s sparsity, "
	       "passes", (unsigned long long)l->x, (unsigned long long)l->y,
	       (unsigned long long)l->z, l->block_size, spec_ipu_dtype_name(l->dtype),
	       spec_ipu_dtype_name(l->partials_type), spec_ipu_sparsity_name(l->sparsity));
	for (p = 0; p < SPEC_IPU_N_PASSES; p++)
		if ((l->passes >> p) & 1)
			printf(" %s", spec_ipu_pass_name((enum spec_ipu_pass)p));
	printf(", available memory %g, bucket oversize %g\n", l->available_memory_proportion,
	       l->meta_info_bucket_oversize_proportion);
}

static void print_text(const struct spec_set *s)
{
	size_t i;
	printf("Files:");
	for (i = 0; i < s->n_files; i++)
		printf(" %s", s->files[i]);
	printf("\n");
	if (s->ipu) {
		text_ipu(s);
		text_workload(s);
		return;
	}
	text_arch(s);
	if (s->workload.n_dims)
		text_workload(s);
	else
		printf("Workload: none given\n");
	text_mapping(s);
	text_sparse(s);
	text_mapper(s);
}

/* ---------------------------------------------------------------- JSON */

/* Write 's' as a JSON string (with quotes). */
static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/*
 * The JSON writers below print one member "key":value of an object; '*first'
 * says whether a comma is needed before it.
 */
static void json_key(const char *k, bool *first)
{
	printf("%s", *first ? "" : ",");
	*first = false;
	json_str(k);
	putchar(':');
}

static void json_num(const char *k, double v, bool *first)
{
	json_key(k, first);
	printf("%.17g", v);
}

static void json_u64(const char *k, uint64_t v, bool *first)
{
	json_key(k, first);
	printf("%llu", (unsigned long long)v);
}

static void json_bool(const char *k, bool v, bool *first)
{
	json_key(k, first);
	printf(v ? "true" : "false");
}

static void json_s(const char *k, const char *v, bool *first)
{
	json_key(k, first);
	if (v)
		json_str(v);
	else
		printf("null");
}

static void json_opt(const char *k, bool has, double v, bool *first)
{
	if (has) {
		json_num(k, v, first);
	} else {
		json_key(k, first);
		printf("null");
	}
}

static void json_tensor_list(const char *k, const struct spec_workload *w, uint32_t mask,
			     bool *first)
{
	unsigned t;
	bool f2 = true;
	json_key(k, first);
	putchar('[');
	for (t = 0; t < w->n_tensors; t++) {
		if (!(mask & (1u << t)))
			continue;
		printf("%s", f2 ? "" : ",");
		f2 = false;
		json_str(w->tensors[t].name);
	}
	putchar(']');
}

static void json_level(const struct spec_set *s, unsigned l)
{
	const struct spec_level *L = &s->arch.levels[l];
	bool f = true;

	putchar('{');
	json_u64("index", l, &f);
	json_s("name", L->name, &f);
	json_s("class", L->class_name, &f);
	json_s("subclass", L->subclass, &f);
	json_s("technology", L->technology == SPEC_TECH_DRAM ? "DRAM" : "SRAM", &f);
	json_bool("dummy", L->is_dummy, &f);
	json_u64("instances", L->instances, &f);
	json_u64("mesh_x", L->mesh_x, &f);
	json_u64("mesh_y", L->mesh_y, &f);
	json_u64("fanout_x", L->fanout_x, &f);
	json_u64("fanout_y", L->fanout_y, &f);
	json_opt("size_words", L->has_size, (double)L->size_words, &f);
	json_u64("word_bits", L->word_bits, &f);
	json_u64("block_size", L->block_size, &f);
	json_u64("cluster_size", L->cluster_size, &f);
	json_num("multiple_buffering", L->multiple_buffering, &f);
	json_opt("read_bw_words_per_cycle", L->has_read_bw, L->read_bw_words_per_cycle, &f);
	json_opt("write_bw_words_per_cycle", L->has_write_bw, L->write_bw_words_per_cycle, &f);
	json_opt("shared_bw_words_per_cycle", L->has_shared_bw, L->shared_bw_words_per_cycle, &f);
	json_u64("metadata_word_bits", L->metadata_word_bits, &f);
	json_u64("metadata_storage_width", L->metadata_storage_width, &f);
	json_u64("metadata_storage_depth", L->metadata_storage_depth, &f);
	json_s("ert", L->ert ? L->ert->name : NULL, &f);
	json_s("art", L->art ? L->art->name : NULL, &f);
	putchar('}');
}

static void json_arch(const struct spec_set *s)
{
	const struct spec_compute *c = &s->arch.compute;
	bool f = true, fc = true;
	unsigned l;

	putchar('{');
	json_s("dialect", dialect_names[s->arch.dialect], &f);
	json_key("levels", &f);
	putchar('[');
	for (l = s->arch.n_levels; l-- > 0;) {
		json_level(s, l);
		if (l)
			putchar(',');
	}
	putchar(']');
	json_key("compute", &f);
	putchar('{');
	json_s("name", c->name, &fc);
	json_s("class", c->class_name, &fc);
	json_u64("instances", c->instances, &fc);
	json_u64("mesh_x", c->mesh_x, &fc);
	json_u64("mesh_y", c->mesh_y, &fc);
	json_u64("word_bits", c->word_bits, &fc);
	json_s("ert", c->ert ? c->ert->name : NULL, &fc);
	json_s("art", c->art ? c->art->name : NULL, &fc);
	printf("}}");
}

static void json_tensor(const struct spec_workload *w, const struct spec_tensor *t)
{
	const struct spec_density *d = &t->density;
	bool f = true, fd = true;
	unsigned r;
	char buf[256];

	putchar('{');
	json_s("name", t->name, &f);
	json_key("ranks", &f);
	putchar('[');
	for (r = 0; r < t->n_ranks; r++) {
		rank_expr(w, t, r, buf, sizeof(buf));
		printf("%s", r ? "," : "");
		json_str(buf);
	}
	putchar(']');
	json_bool("read_write", t->read_write, &f);
	json_u64("size", t->size, &f);
	json_key("density", &f);
	putchar('{');
	json_s("distribution", spec_density_kind_name(d->kind), &fd);
	json_num("density", d->density, &fd);
	json_bool("default", d->is_default, &fd);
	if (d->kind == SPEC_DENSITY_NM) {
		json_u64("n", d->nm_n, &fd);
		json_u64("m", d->nm_m, &fd);
		json_s("dimension", w->dim_names[d->nm_dim], &fd);
	}
	if (d->kind == SPEC_DENSITY_BANDED)
		json_u64("band_width", d->band_width, &fd);
	if (d->kind == SPEC_DENSITY_ACTUAL && d->data)
		json_s("file", d->data->file, &fd);
	printf("}}");
}

static void json_workload(const struct spec_set *s)
{
	const struct spec_workload *w = &s->workload;
	bool f = true, fd = true;
	unsigned d, t;

	putchar('{');
	json_s("shape", w->shape_name, &f);
	json_key("dimensions", &f);
	putchar('{');
	for (d = 0; d < w->n_dims; d++)
		json_u64(w->dim_names[d], w->bounds[d], &fd);
	putchar('}');
	json_key("tensors", &f);
	putchar('[');
	for (t = 0; t < w->n_tensors; t++) {
		printf("%s", t ? "," : "");
		json_tensor(w, &w->tensors[t]);
	}
	printf("]}");
}

static void json_loops(const struct spec_set *s, unsigned l)
{
	const struct spec_mapping *m = s->mapping;
	bool first = true;
	int i;

	putchar('[');
	for (i = (int)m->n_loops - 1; i >= 0; i--) {
		const struct spec_loop *lp = &m->loops[i];
		bool f = true;
		if (lp->level != l || lp->end <= 1)
			continue;
		printf("%s{", first ? "" : ",");
		first = false;
		json_s("dimension", s->workload.dim_names[lp->dim], &f);
		json_u64("end", lp->end, &f);
		json_u64("residual_end", lp->residual_end, &f);
		json_s("kind", spec_spacetime_name((enum spec_spacetime)lp->spacetime), &f);
		putchar('}');
	}
	putchar(']');
}

static void json_mapping(const struct spec_set *s)
{
	unsigned l;
	if (!s->has_mapping) {
		printf("null");
		return;
	}
	putchar('[');
	for (l = s->mapping->n_levels; l-- > 0;) {
		bool f = true;
		putchar('{');
		json_s("level", level_name(s, l), &f);
		json_tensor_list("keep", &s->workload, s->mapping->levels[l].keep_mask, &f);
		json_key("loops", &f);
		json_loops(s, l);
		printf("}%s", l ? "," : "");
	}
	putchar(']');
}

static void json_target(const struct spec_set *s, const struct spec_sparse_target *tg)
{
	const struct spec_workload *w = &s->workload;
	bool f = true;
	unsigned i, k;

	putchar('{');
	json_s("target", tg->name, &f);
	json_bool("compute", tg->is_compute, &f);
	json_key("formats", &f);
	putchar('[');
	for (i = 0; i < tg->n_formats; i++) {
		const struct spec_tensor_format *fm = &tg->formats[i];
		bool ff = true;
		printf("%s{", i ? "," : "");
		json_s("tensor", w->tensors[fm->tensor].name, &ff);
		json_s("named", fm->named == SPEC_NAMED_NONE ? NULL :
		       spec_named_format_name(fm->named), &ff);
		json_key("ranks", &ff);
		putchar('[');
		for (k = 0; k < fm->n_ranks; k++) {
			printf("%s", k ? "," : "");
			json_str(spec_fmt_kind_name(fm->ranks[k].kind));
		}
		printf("]}");
	}
	putchar(']');
	json_key("action_optimizations", &f);
	putchar('[');
	for (i = 0; i < tg->n_groups; i++) {
		const struct spec_saf_group *g = &tg->groups[i];
		bool fg = true;
		printf("%s{", i ? "," : "");
		json_s("type", spec_saf_kind_name(g->kind), &fg);
		json_key("options", &fg);
		putchar('[');
		for (k = 0; k < g->n_options; k++) {
			bool fo = true;
			printf("%s{", k ? "," : "");
			json_s("target", w->tensors[g->options[k].target].name, &fo);
			json_tensor_list("condition_on", w, g->options[k].condition_mask, &fo);
			putchar('}');
		}
		printf("]}");
	}
	putchar(']');
	json_bool("compute_gating", tg->compute_gating, &f);
	json_bool("compute_skipping", tg->compute_skipping, &f);
	putchar('}');
}

/* The whole design as one JSON object. */
static void print_json(const struct spec_set *s)
{
	bool f = true;
	unsigned i;

	putchar('{');
	json_key("architecture", &f);
	json_arch(s);
	json_key("workload", &f);
	if (s->workload.n_dims)
		json_workload(s);
	else
		printf("null");
	json_key("mapping", &f);
	json_mapping(s);
	json_bool("sparse_present", s->sparse.present, &f);
	json_key("sparse_optimizations", &f);
	putchar('[');
	for (i = 0; i < s->sparse.n_targets; i++) {
		printf("%s", i ? "," : "");
		json_target(s, &s->sparse.targets[i]);
	}
	putchar(']');
	json_s("mapper_algorithm", spec_search_name(s->mapper.algorithm), &f);
	json_u64("constraints", s->constraints.n, &f);
	printf("}\n");
}

/* ----------------------------------------------------------- command */

extern const struct cli_command cmd_check;

/* check [--format F] [--tensor N=F]... FILE...: load, then print or fail. */
static int run(int argc, char **argv)
{
	struct spec_load_options opt = { .allow_no_problem = true };
	enum cli_format format = CLI_FORMAT_TEXT;
	const char **tensors = xcalloc((size_t)argc, sizeof(*tensors));
	char **files = xcalloc((size_t)argc, sizeof(*files));
	size_t n_files = 0;
	struct spec_set *s;
	int i, rc = CLI_EXIT_OK;
	bool opts_done = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && (!strcmp(a, "--format") || !strcmp(a, "--tensor"))) {
			if (i + 1 >= argc) {
				rc = cli_usage_error(&cmd_check, "'%s' needs a value", a);
				goto out;
			}
			if (!strcmp(a, "--tensor")) {
				tensors[opt.n_tensor_files++] = argv[++i];
			} else if (cli_parse_format(argv[++i], 3, &format) < 0) {
				rc = cli_usage_error(&cmd_check, "unknown format '%s' (text or json)",
						     argv[i]);
				goto out;
			}
		} else if (!opts_done && a[0] == '-' && a[1]) {
			rc = cli_usage_error(&cmd_check, "unknown option '%s'", a);
			goto out;
		} else {
			files[n_files++] = argv[i];
		}
	}
	if (!n_files) {
		rc = cli_usage_error(&cmd_check, "no input files");
		goto out;
	}
	opt.tensor_files = tensors;
	s = cli_load_specs(files, n_files, &opt);
	if (!s) {
		rc = CLI_EXIT_BAD_INPUT;
		goto out;
	}
	if (format == CLI_FORMAT_JSON)
		print_json(s);
	else
		print_text(s);
	spec_set_free(s);
out:
	free(tensors);
	free(files);
	return rc;
}

const struct cli_command cmd_check = {
	.name = "check",
	.summary = "Load and validate a design; print it as parsed.",
	.usage = "check [--format text|json] [--tensor NAME=FILE]... FILE...",
	.help =
		"Loads the YAML files (merged at the top level, as Timeloop does), checks\n"
		"every section and prints the design as fiberloop understood it: storage\n"
		"levels outermost first, the compute unit, tensors with their projections and\n"
		"densities, the mapping as a loop nest, sparse optimizations, which ERT entry\n"
		"feeds each component, the mapper settings and constraints. A mapping is\n"
		"optional. Every error is reported as file:line:col on stderr.\n"
		"\n"
		"Options:\n"
		"  --format text|json   output format (default text)\n"
		"  --tensor NAME=FILE   actual data for tensor NAME (Matrix Market or dense text)\n"
		"\n"
		"Exit status: 0 valid, 1 errors were found, 2 usage error.\n",
	.run = run,
};
