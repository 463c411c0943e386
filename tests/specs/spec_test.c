#include "tests/specs/spec_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"

static char tmpdir[256];
static char paths[8][512];
static char written[64][64];     /* names written into tmpdir, removed at exit */
static unsigned n_written;

/* Remove every file written and the temporary directory. */
static void cleanup(void)
{
	char path[512];
	unsigned i;
	for (i = 0; i < n_written; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, written[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

static const char *dir(void)
{
	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/fiberloop-specs-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(cleanup);
	}
	return tmpdir;
}

/* Remember 'name' for cleanup(). */
static void remember(const char *name)
{
	unsigned i;
	for (i = 0; i < n_written; i++)
		if (!strcmp(written[i], name))
			return;
	if (n_written < 64)
		snprintf(written[n_written++], sizeof(written[0]), "%s", name);
}

const char *st_write(const char *name, const char *text)
{
	static char path[8][512];
	static unsigned next;
	char *p = path[next++ % 8];
	FILE *fp;

	snprintf(p, 512, "%s/%s", dir(), name);
	remember(name);
	fp = fopen(p, "w");
	if (!fp) {
		perror(p);
		abort();
	}
	fputs(text, fp);
	fclose(fp);
	return p;
}

const char *st_path(size_t i)
{
	return paths[i];
}

struct spec_set *st_load(const char *const *texts, size_t n, const struct spec_load_options *opt,
			 struct diag_list *dl)
{
	struct spec_load_options o = { .kinds = unit_spec_kinds };
	const char *ptrs[8];
	size_t i;

	if (opt) {
		o = *opt;
		if (!o.kinds)
			o.kinds = unit_spec_kinds;
	}
	for (i = 0; i < n && i < 8; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%zu.yaml", i);
		snprintf(paths[i], sizeof(paths[i]), "%s", st_write(name, texts[i]));
		ptrs[i] = paths[i];
	}
	return spec_set_load(ptrs, n, &o, dl);
}

char *st_diags(const struct diag_list *dl)
{
	static const char *const sev[] = { "error", "warning", "note" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	for (i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		fprintf(fp, "%u:%u: %s: %s\n", d->loc.line, d->loc.col, sev[d->severity], d->message);
	}
	fclose(fp);
	return buf;
}

void st_assert_diag(struct spec_set *s, struct diag_list *dl, bool must_fail, size_t row,
		    const char *expected)
{
	char *got = st_diags(dl);
	if (must_fail)
		CU_ASSERT_PTR_NULL(s);
	if (!strstr(got, expected))
		fprintf(stderr, "row %zu: expected '%s', got\n%s", row, expected, got);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, expected));
	free(got);
	spec_set_free(s);
	diag_list_release(dl);
}

char *st_errors_of(const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s = st_load(&text, 1, NULL, &dl);
	char *out = s ? NULL : st_diags(&dl);
	spec_set_free(s);
	diag_list_release(&dl);
	return out;
}

#define SAME(field) CU_ASSERT_EQUAL(a->field, b->field)
#define SAME_D(field) CU_ASSERT_DOUBLE_EQUAL(a->field, b->field, 1e-12)

static void same_str(const char *x, const char *y)
{
	if (!x || !y) {
		CU_ASSERT_PTR_EQUAL(x, y);
	} else {
		CU_ASSERT_STRING_EQUAL(x, y);
	}
}

static void same_network(const struct spec_network_params *a, const struct spec_network_params *b)
{
	SAME(network_word_bits);
	SAME(has_energy_per_hop);
	SAME_D(energy_per_hop_pj);
	SAME_D(router_energy_pj);
	SAME_D(ingress_energy_pj);
	SAME(has_wire_energy);
	SAME_D(wire_energy_pj);
	SAME_D(tile_width_mm);
	same_str(a->network_type, b->network_type);
}

static void same_level(const struct spec_level *a, const struct spec_level *b)
{
	unsigned t;
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	CU_ASSERT_STRING_EQUAL(a->class_name, b->class_name);
	same_str(a->subclass, b->subclass);
	SAME(technology); SAME(is_dummy); SAME(instances); SAME(mesh_x); SAME(mesh_y);
	SAME(fanout_x); SAME(fanout_y); SAME(word_bits); SAME(block_size); SAME(cluster_size);
	SAME(has_width); SAME(width_bits); SAME(has_size); SAME(size_words);
	SAME(effective_size_words); SAME(metadata_block_size); SAME(metadata_word_bits);
	SAME(metadata_storage_width); SAME(has_metadata_storage_depth);
	SAME(metadata_storage_depth); SAME(metadata_size_words); SAME(metadata_size_bits);
	SAME(effective_metadata_size_bits); SAME_D(multiple_buffering); SAME_D(min_utilization);
	SAME(has_read_bw); SAME(has_write_bw); SAME(has_shared_bw);
	SAME_D(read_bw_words_per_cycle); SAME_D(write_bw_words_per_cycle);
	SAME_D(shared_bw_words_per_cycle);
	for (t = 0; t < SPEC_MAX_TENSORS; t++)
		SAME_D(bw_consumption_scale[t]);
	SAME(num_ports); SAME(num_banks); SAME(reduction_supported);
	SAME(network_fill_latency_cycles); SAME(network_drain_latency_cycles);
	SAME(allow_overbooking); SAME(concordant_compressed_tile_traversal);
	SAME(decompression_supported); SAME(compression_supported);
	SAME(has_vector_access_energy); SAME_D(vector_access_energy_pj);
	SAME_D(addr_gen_energy_pj); SAME(power_gated_at); SAME(has_cluster_area);
	SAME_D(cluster_area_um2);
	same_str(a->network_read, b->network_read);
	same_str(a->network_fill, b->network_fill);
	same_str(a->network_update, b->network_update);
	same_str(a->network_drain, b->network_drain);
	same_network(&a->network, &b->network);
	CU_ASSERT_EQUAL(a->ert == NULL, b->ert == NULL);
	if (a->ert && b->ert) {
		CU_ASSERT_STRING_EQUAL(a->ert->component, b->ert->component);
	}
}

static void same_compute(const struct spec_compute *a, const struct spec_compute *b)
{
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	CU_ASSERT_STRING_EQUAL(a->class_name, b->class_name);
	SAME(instances); SAME(mesh_x); SAME(mesh_y); SAME(word_bits); SAME(has_energy);
	SAME_D(energy_pj); SAME(has_area); SAME_D(area_um2);
	CU_ASSERT_EQUAL(a->ert == NULL, b->ert == NULL);
}

static void same_tensor(const struct spec_tensor *a, const struct spec_tensor *b)
{
	unsigned r, k;
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	SAME(n_ranks); SAME(read_write); SAME(dim_mask); SAME(size);
	for (r = 0; r < a->n_ranks && r < b->n_ranks; r++) {
		SAME(ranks[r].n_terms);
		for (k = 0; k < a->ranks[r].n_terms; k++) {
			SAME(ranks[r].terms[k].dim);
			SAME(ranks[r].terms[k].coef);
		}
	}
	SAME(density.kind); SAME_D(density.density); SAME(density.workload_tensor_size);
	SAME(density.band_width); SAME(density.nm_n); SAME(density.nm_m); SAME(density.nm_dim);
}

static void same_workload(const struct spec_workload *a, const struct spec_workload *b)
{
	unsigned d, t;
	SAME(n_dims); SAME(n_coefs); SAME(n_tensors);
	for (d = 0; d < a->n_dims && d < b->n_dims; d++) {
		CU_ASSERT_STRING_EQUAL(a->dim_names[d], b->dim_names[d]);
		SAME(bounds[d]);
	}
	for (t = 0; t < a->n_tensors && t < b->n_tensors; t++)
		same_tensor(&a->tensors[t], &b->tensors[t]);
}

static void same_mapping(const struct spec_mapping *a, const struct spec_mapping *b)
{
	unsigned l, i;
	SAME(n_levels); SAME(n_dims); SAME(n_loops); SAME(n_complete); SAME(is_imperfect);
	for (l = 0; l < a->n_levels && l < b->n_levels; l++) {
		const struct spec_map_level *x = &a->levels[l], *y = &b->levels[l];
		CU_ASSERT_EQUAL(memcmp(x->temporal_factors, y->temporal_factors,
				       sizeof(x->temporal_factors)), 0);
		CU_ASSERT_EQUAL(memcmp(x->spatial_factors, y->spatial_factors,
				       sizeof(x->spatial_factors)), 0);
		CU_ASSERT_EQUAL(memcmp(x->temporal_perm, y->temporal_perm, sizeof(x->temporal_perm)), 0);
		CU_ASSERT_EQUAL(memcmp(x->spatial_perm, y->spatial_perm, sizeof(x->spatial_perm)), 0);
		CU_ASSERT_EQUAL(x->split, y->split);
		CU_ASSERT_EQUAL(x->has_spatial, y->has_spatial);
		CU_ASSERT_EQUAL(memcmp(x->temporal_residuals, y->temporal_residuals,
				       sizeof(x->temporal_residuals)), 0);
		CU_ASSERT_EQUAL(memcmp(x->spatial_residuals, y->spatial_residuals,
				       sizeof(x->spatial_residuals)), 0);
		CU_ASSERT_EQUAL(x->keep_mask, y->keep_mask);
		CU_ASSERT_EQUAL(x->no_temporal_reuse_mask, y->no_temporal_reuse_mask);
		CU_ASSERT_EQUAL(x->no_multicast_mask, y->no_multicast_mask);
		CU_ASSERT_EQUAL(x->no_link_transfer_mask, y->no_link_transfer_mask);
		CU_ASSERT_EQUAL(x->rmw_first_update_mask, y->rmw_first_update_mask);
		CU_ASSERT_EQUAL(x->no_coalesce_mask, y->no_coalesce_mask);
		SAME(boundary[l]);
	}
	for (i = 0; i < a->n_loops && i < b->n_loops; i++)
		CU_ASSERT_EQUAL(memcmp(&a->loops[i], &b->loops[i], sizeof(a->loops[i])), 0);
	for (i = 0; i < a->n_complete && i < b->n_complete; i++)
		CU_ASSERT_EQUAL(memcmp(&a->complete[i], &b->complete[i], sizeof(a->complete[i])), 0);
}

static void same_format(const struct spec_tensor_format *a, const struct spec_tensor_format *b)
{
	unsigned r;
	SAME(tensor); SAME(inner_to_outer); SAME(named); SAME(n_ranks);
	for (r = 0; r < a->n_ranks && r < b->n_ranks; r++) {
		SAME(ranks[r].kind); SAME(ranks[r].metadata_word_bits);
		SAME(ranks[r].payload_word_bits); SAME(ranks[r].n_flatten_groups);
		CU_ASSERT_EQUAL(memcmp(a->ranks[r].flatten_groups, b->ranks[r].flatten_groups,
				       sizeof(a->ranks[r].flatten_groups)), 0);
	}
}

static void same_target(const struct spec_sparse_target *a, const struct spec_sparse_target *b)
{
	unsigned i, k;
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	SAME(is_compute); SAME(level); SAME(n_formats); SAME(n_groups);
	SAME(compute_gating); SAME(compute_skipping);
	for (i = 0; i < a->n_formats && i < b->n_formats; i++)
		same_format(&a->formats[i], &b->formats[i]);
	for (i = 0; i < a->n_groups && i < b->n_groups; i++) {
		SAME(groups[i].kind); SAME(groups[i].n_options);
		for (k = 0; k < a->groups[i].n_options && k < b->groups[i].n_options; k++) {
			SAME(groups[i].options[k].target);
			SAME(groups[i].options[k].condition_mask);
			SAME(groups[i].options[k].n_conditions);
		}
	}
}

static void same_constraint(const struct spec_constraint *a, const struct spec_constraint *b)
{
	SAME(kind); SAME(level); SAME(fixed_mask); SAME(max_mask); SAME(n_perm);
	SAME(has_split); SAME(split); SAME(keep_mask); SAME(bypass_mask);
	CU_ASSERT_EQUAL(memcmp(a->factors, b->factors, sizeof(a->factors)), 0);
	CU_ASSERT_EQUAL(memcmp(a->max_factors, b->max_factors, sizeof(a->max_factors)), 0);
	CU_ASSERT_EQUAL(memcmp(a->perm, b->perm, a->n_perm < b->n_perm ? a->n_perm : b->n_perm), 0);
}

void st_assert_same_mapping(const struct spec_mapping *a, const struct spec_mapping *b)
{
	same_mapping(a, b);
}

void st_assert_same_design(const struct spec_set *a, const struct spec_set *b,
			   bool with_constraints)
{
	unsigned l, i;
	CU_ASSERT_EQUAL_FATAL(a->arch.n_levels, b->arch.n_levels);
	for (l = 0; l < a->arch.n_levels; l++)
		same_level(&a->arch.levels[l], &b->arch.levels[l]);
	same_compute(&a->arch.compute, &b->arch.compute);
	same_workload(&a->workload, &b->workload);
	CU_ASSERT_EQUAL_FATAL(a->has_mapping, b->has_mapping);
	if (a->has_mapping)
		same_mapping(a->mapping, b->mapping);
	SAME(sparse.present);
	CU_ASSERT_EQUAL_FATAL(a->sparse.n_targets, b->sparse.n_targets);
	for (i = 0; i < a->sparse.n_targets; i++)
		same_target(&a->sparse.targets[i], &b->sparse.targets[i]);
	if (!with_constraints)
		return;
	CU_ASSERT_EQUAL_FATAL(a->constraints.n, b->constraints.n);
	for (i = 0; i < a->constraints.n; i++)
		same_constraint(&a->constraints.items[i], &b->constraints.items[i]);
}
