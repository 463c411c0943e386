#include "tests/model/tb.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

void tb_init(struct tb *b)
{
	memset(b, 0, sizeof(*b));
	b->s.arch.levels = b->levels;
	b->s.workload.tensors = b->tensors;
	b->s.has_mapping = true;
	b->s.mapping = &b->m;
	b->s.workload.shape_name = "test";
}

unsigned tb_dim(struct tb *b, const char *name, uint64_t bound)
{
	struct spec_workload *w = &b->s.workload;
	w->dim_names[w->n_dims] = name;
	w->bounds[w->n_dims] = bound;
	return w->n_dims++;
}

static int dim_of(const struct tb *b, char c)
{
	unsigned d;
	for (d = 0; d < b->s.workload.n_dims; d++)
		if (b->s.workload.dim_names[d][0] == c)
			return (int)d;
	BUG("no dimension '%c'", c);
}

/* Rank extents and size of 't', as the spec loader sets them (non-negative coefficients). */
static void tensor_extents(const struct tb *b, struct spec_tensor *t)
{
	uint64_t n = 1;
	unsigned r, k;
	for (r = 0; r < t->n_ranks; r++) {
		int64_t hi = 0;
		for (k = 0; k < t->ranks[r].n_terms; k++)
			hi += t->ranks[r].terms[k].coef *
			      (int64_t)(b->s.workload.bounds[t->ranks[r].terms[k].dim] - 1);
		t->rank_extent[r] = (uint64_t)hi + 1;
		n *= t->rank_extent[r];
	}
	t->size = n;
}

unsigned tb_tensor(struct tb *b, const char *name, bool read_write, const char *proj)
{
	struct spec_tensor *t = &b->tensors[b->s.workload.n_tensors];
	const char *p = proj;

	t->name = name;
	t->read_write = read_write;
	t->density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
	t->density.density = 1.0;
	t->density.is_default = true;
	while (*p) {
		struct spec_rank_proj *rp = &t->ranks[t->n_ranks++];
		for (;;) {
			struct spec_term *term = &rp->terms[rp->n_terms++];
			int64_t c = 1;
			if (isdigit((unsigned char)*p)) {
				c = strtoll(p, (char **)&p, 10);
				p++; /* '*' */
			}
			term->dim = (unsigned)dim_of(b, *p++);
			term->coef = c;
			term->coef_idx = -1;
			t->dim_mask |= 1u << term->dim;
			if (*p != '+')
				break;
			p++;
		}
		if (*p == ',')
			p++;
	}
	tensor_extents(b, t);
	return b->s.workload.n_tensors++;
}

struct spec_level *tb_level(struct tb *b, const char *name, unsigned depth,
			    unsigned width_bits, unsigned word_bits, unsigned mesh_x,
			    unsigned mesh_y)
{
	unsigned l = b->s.arch.n_levels++;
	struct spec_level *lvl = &b->levels[l];
	unsigned t;

	lvl->name = name;
	lvl->class_name = "storage";
	lvl->technology = depth ? SPEC_TECH_SRAM : SPEC_TECH_DRAM;
	lvl->mesh_x = mesh_x;
	lvl->mesh_y = mesh_y;
	lvl->instances = (uint64_t)mesh_x * mesh_y;
	lvl->word_bits = word_bits;
	lvl->width_bits = width_bits;
	lvl->has_width = true;
	lvl->block_size = width_bits / word_bits;
	lvl->cluster_size = 1;
	lvl->has_size = depth != 0;
	lvl->size_words = (uint64_t)depth * lvl->block_size;
	lvl->effective_size_words = lvl->size_words;
	lvl->multiple_buffering = 1.0;
	lvl->metadata_block_size = 1;
	lvl->num_ports = 2;
	lvl->num_banks = 2;
	lvl->reduction_supported = true;
	lvl->addr_gen_energy_pj = -0.1;
	lvl->power_gated_at = l;
	for (t = 0; t < SPEC_MAX_TENSORS; t++)
		lvl->bw_consumption_scale[t] = 1.0;
	b->m.levels[l].keep_mask = 0;
	tb_temporal(b, l, "", "");
	return lvl;
}

void tb_compute(struct tb *b, const char *name, unsigned mesh_x, unsigned mesh_y)
{
	struct spec_compute *c = &b->s.arch.compute;
	c->name = name;
	c->class_name = "intmac";
	c->mesh_x = mesh_x;
	c->mesh_y = mesh_y;
	c->instances = (uint64_t)mesh_x * mesh_y;
	c->word_bits = 16;
}

void tb_ert(struct tb *b, int l, const char *actions)
{
	unsigned slot = l < 0 ? SPEC_MAX_LEVELS : (unsigned)l;
	struct spec_ert_table *t = &b->tables[slot];
	const char *p = actions;

	t->actions = b->actions[slot];
	t->n_actions = 0;
	while (*p) {
		char *name = b->action_names[slot][t->n_actions];
		struct spec_ert_action *a = &b->actions[slot][t->n_actions++];
		const char *eq = strchr(p, '=');
		snprintf(name, sizeof(b->action_names[0][0]), "%.*s", (int)(eq - p), p);
		a->name = name;
		a->energy_pj = strtod(eq + 1, (char **)&p);
		a->n_variants = 1;
		while (*p == ' ')
			p++;
	}
	if (l < 0)
		b->s.arch.compute.ert = t;
	else
		b->levels[l].ert = t;
}

void tb_keep(struct tb *b, unsigned l, const char *names)
{
	unsigned pv;
	for (pv = 0; pv < b->s.workload.n_tensors; pv++) {
		const char *n = b->tensors[pv].name, *hit = strstr(names, n);
		size_t len = strlen(n);
		while (hit && ((hit > names && hit[-1] != ' ') ||
			       (hit[len] && hit[len] != ' ')))
			hit = strstr(hit + 1, n);
		if (hit)
			b->m.levels[l].keep_mask |= 1u << pv;
	}
}

static void parse_factors(const struct tb *b, const char *s, uint64_t *f, uint64_t *res)
{
	unsigned d;
	for (d = 0; d < b->s.workload.n_dims; d++)
		f[d] = res[d] = 1;
	while (*s) {
		int dim;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		dim = dim_of(b, *s++);
		f[dim] = res[dim] = strtoull(s, (char **)&s, 10);
		if (*s == ',')
			res[dim] = strtoull(s + 1, (char **)&s, 10);
	}
}

static void parse_perm(const struct tb *b, const char *s, uint8_t *perm)
{
	unsigned n = 0, d, k;
	for (; *s; s++)
		perm[n++] = (uint8_t)dim_of(b, *s);
	for (d = 0; d < b->s.workload.n_dims; d++) {
		for (k = 0; k < n && perm[k] != d; k++)
			;
		if (k == n)
			perm[n++] = (uint8_t)d;
	}
}

void tb_temporal(struct tb *b, unsigned l, const char *factors, const char *perm)
{
	struct spec_map_level *ml = &b->m.levels[l];
	parse_factors(b, factors, ml->temporal_factors, ml->temporal_residuals);
	parse_perm(b, perm, ml->temporal_perm);
}

void tb_spatial(struct tb *b, unsigned l, const char *factors, const char *perm,
		unsigned split)
{
	struct spec_map_level *ml = &b->m.levels[l];
	ml->has_spatial = true;
	parse_factors(b, factors, ml->spatial_factors, ml->spatial_residuals);
	parse_perm(b, perm, ml->spatial_perm);
	ml->split = split;
}

static int tensor_of(const struct tb *b, const char *name, size_t len)
{
	unsigned pv;

	for (pv = 0; pv < b->s.workload.n_tensors; pv++)
		if (strlen(b->tensors[pv].name) == len && !strncmp(b->tensors[pv].name, name, len))
			return (int)pv;
	BUG("no tensor '%.*s'", (int)len, name);
}

void tb_density(struct tb *b, const char *name, double density)
{
	struct spec_tensor *t = &b->tensors[tensor_of(b, name, strlen(name))];

	t->density.kind = SPEC_DENSITY_FIXED_STRUCTURED;
	t->density.density = density;
	t->density.is_default = false;
}

/* The sparse target of level l (SPEC_MAX_LEVELS: the compute unit). */
static struct spec_sparse_target *target_of(struct tb *b, unsigned l)
{
	struct spec_sparse_target *tg = &b->targets[l];

	b->s.sparse.present = true;
	if (!tg->name) {
		tg->name = l < SPEC_MAX_LEVELS ? b->levels[l].name : b->s.arch.compute.name;
		tg->is_compute = l == SPEC_MAX_LEVELS;
		tg->level = l;
		tg->formats = b->formats[l];
		tg->groups = b->groups[l];
	}
	return tg;
}

void tb_format(struct tb *b, unsigned l, const char *name, const char *ranks)
{
	static const char *const kinds[FMT_COUNT] = {
		[FMT_U] = "U", [FMT_UOP] = "UOP", [FMT_CP] = "CP",
		[FMT_B] = "B", [FMT_RLE] = "RLE", [FMT_UB] = "UB",
	};
	static const char *const named[SPEC_NAMED_COUNT] = {
		[SPEC_NAMED_CSR] = "CSR", [SPEC_NAMED_CSC] = "CSC", [SPEC_NAMED_COO] = "COO",
		[SPEC_NAMED_BITMASK] = "bitmask", [SPEC_NAMED_CSF] = "CSF",
	};
	struct spec_sparse_target *tg = target_of(b, l);
	struct spec_tensor_format *f = &b->formats[l][tg->n_formats++];
	const char *p = ranks;
	unsigned k, n, m;

	memset(f, 0, sizeof(*f));
	f->tensor = (unsigned)tensor_of(b, name, strlen(name));
	f->named_metadata_word_bits = -1;
	if (sscanf(ranks, "%u:%u", &n, &m) == 2) {
		f->named = SPEC_NAMED_NM;
		f->nm_n = n;
		f->nm_m = m;
		return;
	}
	for (k = 1; k < SPEC_NAMED_COUNT; k++)
		if (named[k] && !strcmp(ranks, named[k])) {
			f->named = (enum spec_named_format)k;
			return;
		}
	while (*p) {
		size_t len = strcspn(p, " ");
		struct spec_rank_format *rf = &f->ranks[f->n_ranks++];
		rf->metadata_word_bits = rf->payload_word_bits = -1;
		for (k = 0; k < FMT_COUNT; k++)
			if (strlen(kinds[k]) == len && !strncmp(p, kinds[k], len))
				rf->kind = (enum fmt_kind)k;
		p += len;
		while (*p == ' ')
			p++;
	}
}

void tb_saf(struct tb *b, unsigned l, enum spec_saf_kind kind, const char *target,
	    const char *conditions)
{
	struct spec_sparse_target *tg = target_of(b, l);
	unsigned g = tg->n_groups++;
	struct spec_saf_group *grp = &b->groups[l][g];
	struct spec_saf_option *o = &b->options[l][g];
	const char *p = conditions;

	memset(o, 0, sizeof(*o));
	o->target = (unsigned)tensor_of(b, target, strlen(target));
	while (*p) {
		size_t len = strcspn(p, " ");
		unsigned c = (unsigned)tensor_of(b, p, len);
		o->conditions[o->n_conditions++] = (uint8_t)c;
		o->condition_mask |= 1u << c;
		p += len;
		while (*p == ' ')
			p++;
	}
	grp->kind = kind;
	grp->n_options = 1;
	grp->options = o;
}

void tb_compute_opt(struct tb *b, bool gating, bool skipping)
{
	struct spec_sparse_target *tg = target_of(b, SPEC_MAX_LEVELS);

	tg->compute_gating = gating;
	tg->compute_skipping = skipping;
}

/* Gather the sparse targets into the spec set. */
static void finish_sparse(struct tb *b)
{
	unsigned l, n = 0;

	for (l = 0; l <= SPEC_MAX_LEVELS; l++)
		if (b->targets[l].name)
			b->target_list[n++] = b->targets[l];
	b->s.sparse.n_targets = n;
	b->s.sparse.targets = b->target_list;
}

int tb_finish(struct tb *b)
{
	struct spec_arch *a = &b->s.arch;
	unsigned l, d;

	for (l = 0; l < a->n_levels; l++) {
		unsigned ix = l ? b->levels[l - 1].mesh_x : a->compute.mesh_x;
		unsigned iy = l ? b->levels[l - 1].mesh_y : a->compute.mesh_y;
		b->levels[l].fanout_x = ix / b->levels[l].mesh_x;
		b->levels[l].fanout_y = iy / b->levels[l].mesh_y;
		if (!b->m.levels[l].has_spatial)
			for (d = 0; d < SPEC_MAX_DIMS; d++)
				b->m.levels[l].spatial_factors[d] =
					b->m.levels[l].spatial_residuals[d] = 1;
	}
	b->m.levels[a->n_levels - 1].keep_mask = (1u << b->s.workload.n_tensors) - 1;
	finish_sparse(b);
	b->m.n_levels = a->n_levels;
	b->m.n_dims = b->s.workload.n_dims;
	return spec_mapping_derive(&b->m, &b->s.workload);
}

void tb_simple_weight_stationary(struct tb *b)
{
	struct spec_level *lv;

	tb_init(b);
	tb_dim(b, "C", 3);
	tb_dim(b, "M", 32);
	tb_dim(b, "R", 3);
	tb_dim(b, "S", 3);
	tb_dim(b, "N", 1);
	tb_dim(b, "P", 112);
	tb_dim(b, "Q", 112);
	tb_tensor(b, "Weights", false, "C,M,R,S");
	tb_tensor(b, "Inputs", false, "N,C,R+2*P,S+2*Q");
	tb_tensor(b, "Outputs", true, "N,M,Q,P");
	tb_compute(b, "mac", 16, 16);
	tb_ert(b, -1, "compute=0.315 leak=0.0036");
	tb_level(b, "output_activation_reg", 1, 16, 16, 16, 16);
	tb_level(b, "input_activation_reg", 1, 16, 16, 16, 16);
	tb_level(b, "weight_reg", 1, 16, 16, 16, 16);
	tb_level(b, "pe_spad", 192, 16, 16, 16, 16);
	lv = tb_level(b, "inter_PE_spatial", 1, 1, 1, 1, 1);
	lv->is_dummy = true;
	lv->class_name = "dummy_storage";
	lv = tb_level(b, "shared_glb", 16384, 64, 16, 1, 1);
	lv->has_read_bw = lv->has_write_bw = true;
	lv->read_bw_words_per_cycle = lv->write_bw_words_per_cycle = 16;
	lv = tb_level(b, "DRAM", 0, 64, 16, 1, 1);
	lv->class_name = "DRAM";
	tb_ert(b, 0, "leak=0 update=0 write=0 read=0.144");
	tb_ert(b, 1, "leak=0 update=0 write=0 read=0.144");
	tb_ert(b, 2, "leak=0 update=0 write=0 read=0.144");
	tb_ert(b, 3, "write=1.582678 read=0.680237 leak=0.001165 update=1.582678");
	tb_ert(b, 5, "write=26.156875 read=32.377775 leak=0.005353 update=26.156875");
	tb_ert(b, 6, "leak=0 update=512 write=512 read=512");
	tb_keep(b, 0, "Outputs");
	tb_keep(b, 1, "Inputs");
	tb_keep(b, 2, "Weights");
	tb_keep(b, 3, "Weights");
	tb_keep(b, 5, "Weights Inputs Outputs");
	tb_keep(b, 6, "Weights Inputs Outputs");
	tb_temporal(b, 0, "", "CMRSNPQ");
	tb_temporal(b, 1, "", "CMRSNPQ");
	tb_temporal(b, 2, "P28 Q4", "QPCMRSN");
	tb_temporal(b, 3, "R3 P2 Q2", "PQRCMSN");
	tb_spatial(b, 4, "C3 M4", "CMRSNPQ", 0);
	tb_temporal(b, 4, "", "CMRSNPQ");
	tb_temporal(b, 5, "M8 S3 P2", "MPSCRNQ");
	tb_temporal(b, 6, "Q14", "QCMRSNP");
	if (tb_finish(b) < 0)
		BUG("simple_weight_stationary: factors do not multiply out");
}

/* The prime factors of n, in 'out' (at most 64). */
static unsigned prime_factors(uint64_t n, uint64_t *out)
{
	unsigned k = 0;
	uint64_t p;

	for (p = 2; n > 1 && k < 64; p++)
		while (n % p == 0 && k < 64) {
			out[k++] = p;
			n /= p;
		}
	return k;
}

static void shuffle(uint8_t *a, unsigned n, struct rng *r)
{
	unsigned i;
	for (i = n; i > 1; i--) {
		unsigned j = (unsigned)rng_below(r, i);
		uint8_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* Spatial capacity left on each axis of level l's fan-out. */
struct room { uint64_t x, y; };

int tb_random_mapping(struct tb *b, struct rng *r)
{
	struct spec_workload *w = &b->s.workload;
	unsigned nl = b->s.arch.n_levels, l, d, i;
	struct room room[SPEC_MAX_LEVELS];
	uint64_t f[64];

	for (l = 0; l < nl; l++) {
		struct spec_map_level *ml = &b->m.levels[l];
		room[l].x = b->levels[l].fanout_x;
		room[l].y = b->levels[l].fanout_y;
		ml->has_spatial = room[l].x * room[l].y > 1;
		ml->split = (unsigned)rng_below(r, w->n_dims + 1);
		for (d = 0; d < w->n_dims; d++) {
			ml->temporal_factors[d] = ml->temporal_residuals[d] = 1;
			ml->spatial_factors[d] = ml->spatial_residuals[d] = 1;
			ml->temporal_perm[d] = ml->spatial_perm[d] = (uint8_t)d;
		}
		shuffle(ml->temporal_perm, w->n_dims, r);
		shuffle(ml->spatial_perm, w->n_dims, r);
		ml->keep_mask = l + 1 == nl ? (1u << w->n_tensors) - 1 :
			(uint32_t)rng_below(r, 1u << w->n_tensors);
		if (b->levels[l].is_dummy)
			ml->keep_mask = 0;
	}
	for (d = 0; d < w->n_dims; d++) {
		unsigned n = prime_factors(w->bounds[d], f);
		for (i = 0; i < n; i++) {
			struct spec_map_level *ml;
			l = (unsigned)rng_below(r, nl);
			ml = &b->m.levels[l];
			if (ml->has_spatial && rng_below(r, 2)) {
				unsigned pos = 0, k;
				bool x;
				for (k = 0; k < w->n_dims; k++)
					if (ml->spatial_perm[k] == d)
						pos = k;
				x = pos < ml->split;
				if ((x ? room[l].x : room[l].y) % f[i] == 0) {
					ml->spatial_factors[d] *= f[i];
					ml->spatial_residuals[d] = ml->spatial_factors[d];
					if (x)
						room[l].x /= f[i];
					else
						room[l].y /= f[i];
					continue;
				}
			}
			ml->temporal_factors[d] *= f[i];
			ml->temporal_residuals[d] = ml->temporal_factors[d];
		}
	}
	return spec_mapping_derive(&b->m, &b->s.workload);
}

void tb_mini(struct tb *b)
{
	tb_init(b);
	tb_dim(b, "C", 4);
	tb_dim(b, "M", 6);
	tb_dim(b, "P", 12);
	tb_dim(b, "R", 3);
	tb_tensor(b, "Weights", false, "C,M,R");
	tb_tensor(b, "Inputs", false, "C,P+R");
	tb_tensor(b, "Outputs", true, "M,P");
	tb_compute(b, "mac", 8, 8);
	tb_ert(b, -1, "compute=1");
	tb_level(b, "rf", 64, 16, 16, 4, 4);
	tb_level(b, "spad", 256, 16, 16, 4, 4);
	tb_level(b, "glb", 4096, 64, 16, 1, 1);
	tb_level(b, "dram", 0, 64, 16, 1, 1);
	tb_ert(b, 0, "read=0.1 write=0.2 update=0.2 leak=0.001");
	tb_ert(b, 1, "read=1 write=1.5 update=1.5 leak=0.01");
	tb_ert(b, 2, "read=10 write=12 update=12 leak=0.1");
	tb_ert(b, 3, "read=200 write=200 update=200");
	tb_keep(b, 3, "Weights Inputs Outputs");
	tb_temporal(b, 3, "C4 M6 P12 R3", "");
	if (tb_finish(b) < 0)
		BUG("mini: factors do not multiply out");
}

/* Metadata storage of a level: 'depth' rows of 'width' bits, 'bits' per word. */
static void metadata(struct spec_level *lvl, unsigned depth, unsigned width, unsigned bits)
{
	lvl->metadata_storage_width = width;
	lvl->metadata_word_bits = bits;
	lvl->has_metadata_storage_depth = true;
	lvl->metadata_storage_depth = depth;
	lvl->metadata_size_words = depth;
	lvl->metadata_size_bits = lvl->effective_metadata_size_bits = (uint64_t)depth * width;
}

void tb_spmspm(struct tb *b)
{
	struct spec_level *lv;

	tb_init(b);
	tb_dim(b, "M", 8);
	tb_dim(b, "N", 8);
	tb_dim(b, "K", 8);
	tb_tensor(b, "A", false, "M,K");
	tb_tensor(b, "B", false, "N,K");
	tb_tensor(b, "Z", true, "M,N");
	tb_density(b, "A", 0.25);
	tb_density(b, "B", 0.5);
	tb_compute(b, "mac", 1, 1);
	tb_ert(b, -1, "compute=0.315 leak=0");
	lv = tb_level(b, "Buffer", 64, 8, 8, 1, 1);
	metadata(lv, 64, 4, 4);
	lv = tb_level(b, "BackingStorage", 512, 32, 8, 1, 1);
	metadata(lv, 128, 4, 4);
	tb_ert(b, 0, "read=1.060977 write=0.988977 update=0.988977 metadata_read=0.553457 "
		     "metadata_write=0.517458 metadata_update=0.517458 leak=0.003217");
	tb_ert(b, 1, "read=2.290882 write=2.694173 update=2.694173 metadata_read=0.373885 "
		     "metadata_write=0.726887 metadata_update=0.726887 leak=0.002378");
	tb_keep(b, 0, "B Z");
	tb_temporal(b, 0, "M8 N2 K8", "MNK");
	tb_temporal(b, 1, "N4", "NMK");
}
