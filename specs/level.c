/*
 * Flattened components -> storage levels, the compute unit and networks:
 * classification by class name, attribute spellings and defaults, the
 * derivations of semantics 1.2 (docs/sources.md §2.1) (block and cluster size from width,
 * size from entries/depth/sizeKB, meshes, fanouts).
 */
#include "specs/specs_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckmath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define A(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct raw_comp *ld_comp_add(struct ld *ld)
{
	struct raw_comp *rc;
	XGROW(ld->comps, ld->n_comps + 1, ld->alloc_comps);
	rc = &ld->comps[ld->n_comps++];
	memset(rc, 0, sizeof(*rc));
	rc->level = -1;
	rc->instances = 1;
	return rc;
}

const struct raw_attr *ld_comp_attr(const struct raw_comp *rc, const char *key)
{
	size_t i;
	for (i = 0; i < rc->n_attrs; i++)
		if (ysrc_key_eq(rc->attrs[i].key, key))
			return &rc->attrs[i];
	return NULL;
}

/* Append attribute 'key' to 'rc'. */
static void comp_append_attr(struct ld *ld, struct raw_comp *rc, const char *key,
			     const struct ysrc_node *value, bool inherited)
{
	struct raw_attr *na;
	if (rc->n_attrs == rc->alloc_attrs) {   /* the arena's: grow by doubling */
		rc->alloc_attrs = rc->alloc_attrs ? 2 * rc->alloc_attrs : 16;
		na = arena_alloc(ld->a, rc->alloc_attrs * sizeof(*na));
		if (rc->n_attrs)
			memcpy(na, rc->attrs, rc->n_attrs * sizeof(*na));
		rc->attrs = na;
	}
	na = rc->attrs;
	na[rc->n_attrs].key = key;
	na[rc->n_attrs].value = value;
	na[rc->n_attrs].inherited = inherited;
	na[rc->n_attrs].loc = value->loc;
	rc->n_attrs++;
}

void ld_comp_add_attr(struct ld *ld, struct raw_comp *rc, const char *key,
		      const struct ysrc_node *value, bool inherited)
{
	if (!ld_comp_attr(rc, key))   /* the first (innermost) definition wins */
		comp_append_attr(ld, rc, key, value, inherited);
}

static unsigned key_hash(const char *key);

void ld_comp_add_attr_ix(struct ld *ld, struct raw_comp *rc, struct ld_attr_ix *ix,
			 const char *key, const struct ysrc_node *value, bool inherited)
{
	const size_t slots = sizeof(ix->slot);
	size_t h;

	if (rc->n_attrs >= slots / 2) {   /* too many to index: the scan */
		ld_comp_add_attr(ld, rc, key, value, inherited);
		return;
	}
	for (h = key_hash(key) & (slots - 1); ix->slot[h]; h = (h + 1) & (slots - 1))
		if (ysrc_key_eq(rc->attrs[ix->slot[h] - 1].key, key))
			return;   /* the first (innermost) definition wins */
	comp_append_attr(ld, rc, key, value, inherited);
	ix->slot[h] = (unsigned char)rc->n_attrs;
}

/* Every attribute spelling the model reads (for did-you-mean warnings). */
static const char *const known_attrs[] = {
	"word_bits", "word_width", "datawidth", "block_size", "n_words", "cluster_size",
	"width", "memory_width", "data_storage_width", "entries", "depth", "memory_depth",
	"data_storage_depth", "sizeKB", "metadata_block_size", "metadata_datawidth",
	"metadata_word_bits", "metadata_storage_width", "metadata_width",
	"metadata_storage_depth", "metadata_depth", "multiple_buffering", "min_utilization",
	"read_bandwidth", "write_bandwidth", "shared_bandwidth", "bandwidth",
	"per_dataspace_bandwidth_consumption_scale", "instances", "meshX", "meshY",
	"technology", "num_ports", "n_ports", "num_banks", "n_banks", "reduction_supported",
	"network_fill_latency", "network_drain_latency", "allow_overbooking",
	"concordant_compressed_tile_traversal", "decompression_supported",
	"compression_supported", "tile_partition_supported", "vector_access_energy",
	"addr_gen_energy", "cluster_area", "network_read", "network_fill", "network_update",
	"network_drain", "power_gated_at", "network_word_bits", "energy_per_hop",
	"router_energy", "energy-per-ingress", "wire_energy", "tile_width", "network_type",
	"energy", "area", "network_operand", "network_result", "concurrent_instances",
	"fill_latency", "serial_prologue_epilogue", "warp_registers",
};

/*
 * Attributes other tools (Accelergy and its plug-ins, the front end) use;
 * never warned about. An attribute a compound class declares is not warned
 * about either (docs/energy.md).
 */
static const char *const other_attrs[] = {
	"has_power_gating", "global_cycle_seconds", "version", "type", "n_rdwr_ports",
	"n_rw_ports", "n_rd_ports", "n_wr_ports", "latency", "metadata_counter_width",
	"multiplier_width", "adder_width", "enabled", "action_latency_cycles", "cycle_time",
	"n_bits", "precision", "area_scale", "energy_scale", "update_fifo_depth",
	"nports", "cycle_seconds", "n_instances", "voltage", "vdd", "width_a", "width_b",
	"datawidth_a", "datawidth_b", "exponent", "mantissa", "length", "n_inputs", "n_outputs",
	"associativity", "tag_size", "resolution", "plug_in", "min_accuracy",
	"minimum_accuracy", "shift_register_n_bits", "n_adder_tree_inputs",
};

/*
 * A reader of one component's attributes. A bad attribute value is reported
 * and the design fails to load, but only a bad mesh stops the checks that
 * depend on the structure (fanouts, the mapping), so that one run reports
 * everything.
 */
#define ATTR_SLOTS 128   /* a power of two, more than twice ATTR_MAX_HASHED */
#define ATTR_MAX_HASHED 60

struct attrs {
	struct ld *ld;
	const struct raw_comp *rc;
	struct kpath root, ap;
	int rc_;
	bool mesh_bad;   /* the instances or mesh are wrong: fanouts cannot be checked */
	/*
	 * The attributes by name (open addressing; index + 1, 0 empty), when
	 * there are at most ATTR_MAX_HASHED: a component is asked for ~40
	 * spellings, most of them absent.
	 */
	bool hashed;
	uint8_t slot[ATTR_SLOTS];
};

/* A hash of 'key' in which '-' and '_' are the same (ysrc_key_eq). */
static unsigned key_hash(const char *key)
{
	unsigned h = 2166136261u;
	for (; *key; key++)
		h = (h ^ (unsigned char)(*key == '-' ? '_' : *key)) * 16777619u;
	return h;
}

/* Start reading the attributes of 'rc'. */
static void attrs_init(struct attrs *at, struct ld *ld, const struct raw_comp *rc)
{
	size_t i;

	at->ld = ld;
	at->rc = rc;
	at->root = KP_KEY(NULL, rc->path);
	at->ap = KP_KEY(&at->root, "attributes");
	at->rc_ = 0;
	at->mesh_bad = false;
	at->hashed = rc->n_attrs <= ATTR_MAX_HASHED;
	if (!at->hashed)
		return;
	memset(at->slot, 0, sizeof(at->slot));
	for (i = 0; i < rc->n_attrs; i++) {
		unsigned h = key_hash(rc->attrs[i].key) & (ATTR_SLOTS - 1);
		while (at->slot[h] && !ysrc_key_eq(rc->attrs[at->slot[h] - 1].key, rc->attrs[i].key))
			h = (h + 1) & (ATTR_SLOTS - 1);
		if (!at->slot[h])             /* the first of a name, as ld_comp_attr finds */
			at->slot[h] = (uint8_t)(i + 1);
	}
}

/* ld_comp_attr() of the component being read. */
static const struct raw_attr *attr_named_in(const struct attrs *at, const char *key)
{
	unsigned h;

	if (!at->hashed)
		return ld_comp_attr(at->rc, key);
	for (h = key_hash(key) & (ATTR_SLOTS - 1); at->slot[h]; h = (h + 1) & (ATTR_SLOTS - 1))
		if (ysrc_key_eq(at->rc->attrs[at->slot[h] - 1].key, key))
			return &at->rc->attrs[at->slot[h] - 1];
	return NULL;
}

/* The first attribute among 'names' (NULL-terminated) that is given and not null. */
static const struct raw_attr *attr_any(const struct attrs *at, const char *const *names)
{
	for (; *names; names++) {
		const struct raw_attr *a = attr_named_in(at, *names);
		if (a && !ysrc_is_null(a->value))
			return a;
	}
	return NULL;
}

/* The first of 'names' as an integer in [lo, hi]; false when absent or bad. */
static bool get_uint(struct attrs *at, const char *const *names, uint64_t lo, uint64_t hi,
		     uint64_t *out)
{
	const struct raw_attr *a = attr_any(at, names);
	struct kpath kp;
	if (!a)
		return false;
	kp = KP_KEY(&at->ap, a->key);
	if (ld_uint(at->ld, a->value, &kp, lo, hi, out) < 0) {
		at->rc_ = -1;
		return false;
	}
	return true;
}

/* get_uint() into an unsigned. */
static bool get_u32(struct attrs *at, const char *const *names, unsigned lo, unsigned hi,
		    unsigned *out)
{
	uint64_t v;
	if (!get_uint(at, names, lo, hi, &v))
		return false;
	*out = (unsigned)v;
	return true;
}

/* The first of 'names' as a number in [lo, hi]; false when absent or bad. */
static bool get_double(struct attrs *at, const char *const *names, double lo, double hi,
		       double *out)
{
	const struct raw_attr *a = attr_any(at, names);
	struct kpath kp;
	if (!a)
		return false;
	kp = KP_KEY(&at->ap, a->key);
	if (ld_double(at->ld, a->value, &kp, lo, hi, out) < 0) {
		at->rc_ = -1;
		return false;
	}
	return true;
}

/* The first of 'names' as a boolean; false when absent or bad. */
static bool get_bool(struct attrs *at, const char *const *names, bool *out)
{
	const struct raw_attr *a = attr_any(at, names);
	struct kpath kp;
	if (!a)
		return false;
	kp = KP_KEY(&at->ap, a->key);
	if (ld_bool(at->ld, a->value, &kp, out) < 0) {
		at->rc_ = -1;
		return false;
	}
	return true;
}

/* The first of 'names' as a string (arena copy), or NULL. */
static const char *get_str(struct attrs *at, const char *const *names)
{
	const struct raw_attr *a = attr_any(at, names);
	struct kpath kp;
	const char *s;
	if (!a)
		return NULL;
	kp = KP_KEY(&at->ap, a->key);
	s = ld_str(at->ld, a->value, &kp);
	if (!s)
		at->rc_ = -1;
	return s;
}

/* Report a derivation error at attribute 'key' (or at the component). */
static int attr_error(struct attrs *at, const char *key, const char *fmt, const char *detail)
{
	const struct raw_attr *a = ld_comp_attr(at->rc, key);
	struct kpath kp = KP_KEY(&at->ap, key);
	at->rc_ = -1;
	if (a)
		return ld_error(at->ld, a->value, &kp, fmt, detail);
	return ld_error_at(at->ld, at->rc->loc, &at->root, fmt, detail);
}

/*
 * An attribute that an override wrote (or gave a value) and nothing reads:
 * an error at 'loc', not ignored.
 */
static void unknown_override_attr(struct attrs *at, const struct raw_attr *a,
				  struct diag_loc loc)
{
	struct strbuf sb = STRBUF_INIT;
	if (!a->inherited)
		strbuf_addf(&sb, "in '%s.attributes': ", at->rc->path);
	strbuf_addf(&sb, "unknown attribute '%s'", a->key);
	ld_add_hint(&sb, a->key, known_attrs, ARRAY_SIZE(known_attrs));
	at->rc_ = diag_error(at->ld->dl, loc, "%s", sb.buf);
	strbuf_release(&sb);
}

/* True when the compound class of 'rc' declares attribute 'key'. */
static bool class_declares(const struct ld *ld, const struct raw_comp *rc, const char *key)
{
	const struct spec_components *cc = &ld->s->components;
	const char *cls = rc->subclass ? rc->subclass : rc->class_name;
	size_t i, k;

	for (i = 0; i < cc->n_classes; i++) {
		if (strcmp(cc->classes[i].name, cls))
			continue;
		for (k = 0; k < cc->classes[i].n_attrs; k++)
			if (ysrc_key_eq(cc->classes[i].attrs[k].key, key))
				return true;
	}
	return false;
}

/* strcmp() with '-' and '_' equal (the order of ysrc_key_eq's equality). */
static int key_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = *a == '-' ? '_' : (unsigned char)*a, y = *b == '-' ? '_' : (unsigned char)*b;
		if (x != y || !x)
			return x - y;
	}
}

static int key_cmp_p(const void *a, const void *b)
{
	return key_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* known_attrs and other_attrs, sorted by key_cmp (made once: every component looks each key up). */
static const char *sorted_attrs[ARRAY_SIZE(known_attrs) + ARRAY_SIZE(other_attrs)];
static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

static void sort_attrs(void)
{
	memcpy(sorted_attrs, known_attrs, sizeof(known_attrs));
	memcpy(sorted_attrs + ARRAY_SIZE(known_attrs), other_attrs, sizeof(other_attrs));
	qsort(sorted_attrs, ARRAY_SIZE(sorted_attrs), sizeof(sorted_attrs[0]), key_cmp_p);
}

/* True when 'key' is an attribute the model reads or another tool uses. */
static bool attr_named(const char *key)
{
	pthread_once(&sorted_once, sort_attrs);
	return bsearch(&key, sorted_attrs, ARRAY_SIZE(sorted_attrs), sizeof(sorted_attrs[0]),
		       key_cmp_p) != NULL;
}

/*
 * Warn about own attributes that look like a misspelt known one; an
 * unknown attribute that an override wrote is an error.
 */
static void warn_misspelt_one(struct attrs *at, const struct raw_attr *a)
{
	struct diag_loc ov = ld_from_override(at->ld, a->loc) ? a->loc : a->value->loc;
	bool from_override = ld_from_override(at->ld, ov), known = false;
	const char *hint;

	if (a->inherited && !from_override)
		return;
	known = attr_named(a->key) || class_declares(at->ld, at->rc, a->key);
	if (!known && ld_override_key_first(at->ld, ov))
		unknown_override_attr(at, a, ov);
	if (from_override)
		return;
	hint = known ? NULL : diag_suggest(a->key, known_attrs, ARRAY_SIZE(known_attrs));
	if (hint)
		diag_warning(at->ld->dl, a->loc, "in '%s.attributes': unknown attribute '%s' "
			     "is ignored; did you mean '%s'?", at->rc->path, a->key, hint);
}

static void warn_misspelt(struct attrs *at)
{
	size_t i;
	for (i = 0; i < at->rc->n_attrs; i++)
		warn_misspelt_one(at, &at->rc->attrs[i]);
}

/* word_bits, block_size, cluster_size and width (semantics 1.2.1). */
static void parse_word_block(struct attrs *at, struct spec_level *L)
{
	uint64_t width, word = 16, block = 0, cluster = 0;
	bool has_block, has_cluster;
	char buf[160];

	get_uint(at, A("word_bits", "word_width", "datawidth"), 1, 4096, &word);
	has_block = get_uint(at, A("block_size", "n_words"), 1, 1u << 24, &block);
	has_cluster = get_uint(at, A("cluster_size"), 1, 1u << 24, &cluster);
	L->word_bits = (unsigned)word;
	L->has_width = get_uint(at, A("width", "memory_width", "data_storage_width"), 1,
				UINT64_MAX, &width);
	if (!L->has_width) {
		L->block_size = has_block ? (unsigned)block : 1;
		L->cluster_size = has_cluster ? (unsigned)cluster : 1;
		return;
	}
	L->width_bits = (unsigned)width;
	if (!has_block && !has_cluster)
		cluster = 1;
	if (has_block && has_cluster) {
		if (block * word * cluster != width) {
			snprintf(buf, sizeof(buf), "block_size %llu x word_bits %llu x cluster_size "
				 "%llu = %llu", (unsigned long long)block, (unsigned long long)word,
				 (unsigned long long)cluster, (unsigned long long)(block * word * cluster));
			attr_error(at, "width", "width must equal %s", buf);
		}
	} else if (has_block) {
		snprintf(buf, sizeof(buf), "width %llu must be a multiple of word_bits x block_size "
			 "(%llu x %llu)", (unsigned long long)width, (unsigned long long)word,
			 (unsigned long long)block);
		if (width % (word * block))
			attr_error(at, "width", "%s", buf);
		else
			cluster = width / (word * block);
	} else if (width % (word * cluster) || width < word * cluster) {
		snprintf(buf, sizeof(buf), "width %llu must be a multiple of word_bits x cluster_size "
			 "(%llu x %llu)", (unsigned long long)width, (unsigned long long)word,
			 (unsigned long long)cluster);
		attr_error(at, "width", "%s", buf);
	} else {
		block = width / cluster / word;
	}
	L->block_size = block ? (unsigned)block : 1;
	L->cluster_size = cluster ? (unsigned)cluster : 1;
}

/*
 * floor(size / multiple_buffering) (semantics 1.2.1) into '*out': exact
 * when multiple_buffering is 1; false when the quotient does not fit in 64
 * bits (a large size with multiple_buffering < 1).
 */
static bool effective_size(uint64_t size, double multiple_buffering, uint64_t *out)
{
	double q;
	if (multiple_buffering == 1.0) {
		*out = size;
		return true;
	}
	q = floor((double)size / multiple_buffering);
	if (!(q < 18446744073709551616.0))
		return false;
	*out = (uint64_t)q;
	return true;
}

/* Report that 'size' ('unit') / multiple_buffering does not fit in 64 bits. */
static void effective_size_error(struct attrs *at, const struct spec_level *L, const char *what,
				 uint64_t size, const char *unit)
{
	char buf[200];
	snprintf(buf, sizeof(buf), "%s (%llu %s / multiple_buffering %g) is more than 2^64 - 1 %s",
		 what, (unsigned long long)size, unit, L->multiple_buffering, unit);
	attr_error(at, "multiple_buffering", "out of range: the effective %s", buf);
}

/*
 * The spellings of a level's size, in the order parse_size() tries them;
 * size_attr() reads the same lists.
 */
static const char *const size_entries_keys[] = { "entries", NULL };
static const char *const size_depth_keys[] = {
	"depth", "memory_depth", "data_storage_depth", NULL,
};
static const char *const size_kb_keys[] = { "sizeKB", NULL };
static const char *const *const size_key_lists[] = {
	size_entries_keys, size_depth_keys, size_kb_keys,
};

/* size from entries, depth or sizeKB; effective size. */
static void parse_size(struct attrs *at, struct spec_level *L)
{
	uint64_t v;

	L->multiple_buffering = 1.0;
	get_double(at, A("multiple_buffering"), 1e-9, HUGE_VAL, &L->multiple_buffering);
	get_double(at, A("min_utilization"), 0.0, 1.0, &L->min_utilization);
	if (get_uint(at, size_entries_keys, 0, UINT64_MAX, &v)) {
		L->has_size = true;
		L->size_words = v;
	} else if (get_uint(at, size_depth_keys, 0, UINT64_MAX, &v)) {
		L->has_size = true;
		if (!ck_mul_u64(v, L->block_size, &L->size_words))
			attr_error(at, "depth", "depth x block_size overflows%s", "");
	} else if (get_uint(at, size_kb_keys, 0, UINT64_MAX / 8192, &v)) {
		L->has_size = true;
		L->size_words = v * 1024 * 8 / L->word_bits;
	}
	if (L->has_size && !effective_size(L->size_words, L->multiple_buffering,
					   &L->effective_size_words))
		effective_size_error(at, L, "size", L->size_words, "words");
}

/* Metadata storage: block size, word bits, row width, depth and sizes. */
static void parse_metadata(struct attrs *at, struct spec_level *L)
{
	uint64_t depth;

	L->metadata_block_size = 1;
	get_u32(at, A("metadata_block_size"), 1, 1u << 24, &L->metadata_block_size);
	get_u32(at, A("metadata_datawidth", "metadata_word_bits"), 0, 4096,
		&L->metadata_word_bits);
	get_u32(at, A("metadata_storage_width", "metadata_width"), 0, 1u << 24,
		&L->metadata_storage_width);
	L->has_metadata_storage_depth = get_uint(at, A("metadata_storage_depth", "metadata_depth"),
						 0, UINT64_MAX / (1u << 24), &depth);
	if (L->has_metadata_storage_depth) {
		L->metadata_storage_depth = depth;
		L->metadata_size_words = depth * L->metadata_block_size;
		L->metadata_size_bits = depth * L->metadata_storage_width;
		if (!effective_size(L->metadata_size_bits, L->multiple_buffering,
				    &L->effective_metadata_size_bits))
			effective_size_error(at, L, "metadata size", L->metadata_size_bits, "bits");
	}
	if (L->metadata_storage_width && L->metadata_word_bits &&
	    L->metadata_storage_width % (L->metadata_word_bits * L->metadata_block_size))
		attr_error(at, "metadata_storage_width", "metadata_storage_width must be a multiple "
			   "of metadata word bits x metadata_block_size%s", "");
}

/* per_dataspace_bandwidth_consumption_scale: { tensor: scale }. */
static void parse_bw_scale(struct attrs *at, struct spec_level *L)
{
	const struct raw_attr *a = attr_any(at, A("per_dataspace_bandwidth_consumption_scale"));
	struct kpath kp;
	size_t i;

	for (i = 0; i < SPEC_MAX_TENSORS; i++)
		L->bw_consumption_scale[i] = 1.0;
	if (!a)
		return;
	kp = KP_KEY(&at->ap, a->key);
	if (ld_want_map(at->ld, a->value, &kp) < 0) {
		at->rc_ = -1;
		return;
	}
	for (i = 0; i < a->value->n && at->ld->problem_ok; i++) {
		const struct ysrc_pair *pr = &a->value->pairs[i];
		struct kpath tp = KP_KEY(&kp, pr->key->str);
		int t = ld_tensor_index(at->ld, pr->key, &kp, pr->key->str);
		if (t < 0 || ld_double(at->ld, pr->value, &tp, 0.0, HUGE_VAL,
				       &L->bw_consumption_scale[t]) < 0)
			at->rc_ = -1;
	}
}

/* read/write/shared bandwidth (the deprecated 'bandwidth' splits in two). */
static void parse_bandwidths(struct attrs *at, struct spec_level *L)
{
	double bw;
	L->has_read_bw = get_double(at, A("read_bandwidth"), 0.0, HUGE_VAL,
				    &L->read_bw_words_per_cycle);
	L->has_write_bw = get_double(at, A("write_bandwidth"), 0.0, HUGE_VAL,
				     &L->write_bw_words_per_cycle);
	L->has_shared_bw = get_double(at, A("shared_bandwidth"), 0.0, HUGE_VAL,
				      &L->shared_bw_words_per_cycle);
	if (get_double(at, A("bandwidth"), 0.0, HUGE_VAL, &bw)) {
		if (!L->has_read_bw) {
			L->has_read_bw = true;
			L->read_bw_words_per_cycle = bw / 2;
		}
		if (!L->has_write_bw) {
			L->has_write_bw = true;
			L->write_bw_words_per_cycle = bw / 2;
		}
	}
	parse_bw_scale(at, L);
}

/* Parameters of the network Timeloop infers below a level. */
static void parse_network_params(struct attrs *at, struct spec_network_params *np)
{
	get_u32(at, A("network_word_bits"), 1, 4096, &np->network_word_bits);
	np->has_energy_per_hop = get_double(at, A("energy_per_hop"), 0.0, HUGE_VAL,
					    &np->energy_per_hop_pj);
	get_double(at, A("router_energy"), 0.0, HUGE_VAL, &np->router_energy_pj);
	get_double(at, A("energy-per-ingress"), 0.0, HUGE_VAL, &np->ingress_energy_pj);
	np->has_wire_energy = get_double(at, A("wire_energy"), 0.0, HUGE_VAL, &np->wire_energy_pj);
	get_double(at, A("tile_width"), 0.0, HUGE_VAL, &np->tile_width_mm);
	np->network_type = get_str(at, A("network_type"));
}

/* Technology, reduction support, sparse capabilities, ports and banks. */
static void parse_flags(struct attrs *at, struct spec_level *L)
{
	const char *tech = get_str(at, A("technology"));
	bool tp = false;

	L->technology = (tech && !strcmp(tech, "DRAM")) || strstr(L->class_name, "DRAM") ?
		SPEC_TECH_DRAM : SPEC_TECH_SRAM;
	L->reduction_supported = L->technology != SPEC_TECH_DRAM;
	get_bool(at, A("reduction_supported"), &L->reduction_supported);
	get_bool(at, A("allow_overbooking"), &L->allow_overbooking);
	get_bool(at, A("concordant_compressed_tile_traversal"),
		 &L->concordant_compressed_tile_traversal);
	get_bool(at, A("decompression_supported"), &L->decompression_supported);
	get_bool(at, A("compression_supported"), &L->compression_supported);
	if (get_bool(at, A("tile_partition_supported"), &tp) && tp)
		attr_error(at, "tile_partition_supported", "tile partitioning is not supported%s", "");
	L->num_ports = 2;
	L->num_banks = 2;
	get_u32(at, A("num_ports", "n_ports"), 1, 1u << 20, &L->num_ports);
	get_u32(at, A("num_banks", "n_banks"), 1, 1u << 20, &L->num_banks);
}

/* Energy and area overrides, network latencies and user network names. */
static void parse_storage_misc(struct attrs *at, struct spec_level *L)
{
	L->has_vector_access_energy = get_double(at, A("vector_access_energy"), 0.0, HUGE_VAL,
						 &L->vector_access_energy_pj);
	L->addr_gen_energy_pj = -0.1;
	get_double(at, A("addr_gen_energy"), -HUGE_VAL, HUGE_VAL, &L->addr_gen_energy_pj);
	L->has_cluster_area = get_double(at, A("cluster_area"), 0.0, HUGE_VAL, &L->cluster_area_um2);
	get_uint(at, A("network_fill_latency"), 0, UINT64_MAX, &L->network_fill_latency_cycles);
	get_uint(at, A("network_drain_latency"), 0, UINT64_MAX, &L->network_drain_latency_cycles);
	L->network_read = get_str(at, A("network_read"));
	L->network_fill = get_str(at, A("network_fill"));
	L->network_update = get_str(at, A("network_update"));
	L->network_drain = get_str(at, A("network_drain"));
	parse_network_params(at, &L->network);
}

/* instances, meshX, meshY (Timeloop's ValidateTopology). */
static void parse_mesh(struct attrs *at, uint64_t *instances, unsigned *mx, unsigned *my)
{
	uint64_t n = at->rc->instances, x = 0, y = 0;
	unsigned errors_before = at->ld->dl->n_errors;
	bool hx, hy;
	char buf[128];

	get_uint(at, A("instances"), 1, UINT64_MAX, &n);
	hx = get_uint(at, A("meshX"), 1, 1u << 30, &x);
	hy = get_uint(at, A("meshY"), 1, 1u << 30, &y);
	if (hx && hy && x * y != n) {
		snprintf(buf, sizeof(buf), "meshX %llu x meshY %llu = %llu, but there are %llu "
			 "instances", (unsigned long long)x, (unsigned long long)y,
			 (unsigned long long)(x * y), (unsigned long long)n);
		attr_error(at, "meshX", "%s", buf);
	} else if (hx && !hy) {
		snprintf(buf, sizeof(buf), "meshX (%llu) must divide the number of instances (%llu)",
			 (unsigned long long)x, (unsigned long long)n);
		if (n % x)
			attr_error(at, "meshX", "%s", buf);
		y = n / x;
	} else if (hy && !hx) {
		snprintf(buf, sizeof(buf), "meshY (%llu) must divide the number of instances (%llu)",
			 (unsigned long long)y, (unsigned long long)n);
		if (n % y)
			attr_error(at, "meshY", "%s", buf);
		x = n / y;
	} else if (!hx && !hy) {
		x = n;
		y = 1;
	}
	if (x > UINT32_MAX || y > UINT32_MAX)
		attr_error(at, "meshX", "the mesh is too large%s", "");
	if (at->ld->dl->n_errors != errors_before)
		at->mesh_bad = true;
	*instances = n;
	*mx = (unsigned)x;
	*my = (unsigned)y;
}

/*
 * concurrent_instances (at most the instances: the others run in waves),
 * fill_latency (cycles), serial_prologue_epilogue and warp_registers,
 * fiberloop's GPU attributes (docs/yaml-reference.md).
 */
static void parse_waves_latency(struct attrs *at, struct spec_level *L)
{
	if (!at->mesh_bad)
		get_uint(at, A("concurrent_instances"), 1, L->instances, &L->concurrent_instances);
	get_uint(at, A("fill_latency"), 0, UINT32_MAX, &L->fill_latency_cycles);
	get_bool(at, A("serial_prologue_epilogue"), &L->serial_prologue_epilogue);
	get_uint(at, A("warp_registers"), 1, UINT32_MAX, &L->warp_registers);
}

/* The display copy of scalar attribute 'a'. */
static void copy_attr(struct ld *ld, const struct raw_attr *a, struct spec_attr *v)
{
	v->key = arena_strdup(ld->a, a->key);
	v->value = arena_strdup(ld->a, a->value->str);
	v->loc = a->value->loc;
	v->is_quoted = a->value->style == YSRC_QUOTED;
	v->is_inherited = a->inherited;
}

/* Display copies of the scalar attributes. */
static void copy_attrs(struct ld *ld, const struct raw_comp *rc, size_t *n_out,
		       const struct spec_attr **out)
{
	struct spec_attr *v = arena_calloc(ld->a, rc->n_attrs + 1, sizeof(*v));
	size_t i, n = 0;
	for (i = 0; i < rc->n_attrs; i++)
		if (rc->attrs[i].value->kind == YSRC_SCALAR)
			copy_attr(ld, &rc->attrs[i], &v[n++]);
	*n_out = n;
	*out = v;
}

/* One storage level; -1 only when its mesh is wrong. */
static int build_storage(struct ld *ld, const struct raw_comp *rc, struct spec_level *L)
{
	struct attrs at;

	attrs_init(&at, ld, rc);
	L->name = rc->name;
	L->class_name = rc->class_name;
	L->subclass = rc->subclass;
	L->loc = rc->loc;
	L->is_dummy = strstr(rc->class_name, "dummy_storage") != NULL;
	parse_word_block(&at, L);
	parse_size(&at, L);
	parse_metadata(&at, L);
	parse_bandwidths(&at, L);
	parse_flags(&at, L);
	parse_storage_misc(&at, L);
	parse_mesh(&at, &L->instances, &L->mesh_x, &L->mesh_y);
	parse_waves_latency(&at, L);
	copy_attrs(ld, rc, &L->n_attrs, &L->attrs);
	warn_misspelt(&at);
	return at.mesh_bad ? -1 : 0;
}

/* ------------------------------------------- levels built once per source */

/* A storage level built from nodes of the files alone, and what it was built from. */
struct ld_level_memo {
	const char *class_name, *subclass;   /* copies (cc_arena) */
	uint64_t instances;
	size_t n_attrs;
	const struct raw_attr *attrs;        /* copies; keys and values the files' (a size
						attribute's NULL: each build reads its own) */
	struct spec_level level;             /* strings in cc_arena; name, loc: the build's */
};

#define LEVELS_MEMO_MAX 64

/*
 * True when the level of 'rc' reads nothing but nodes of the files: with
 * the source's shared classes (memo_classes), its build depends on nothing
 * else. A map-valued attribute (per data space) reads the problem too: never.
 */
static bool memo_worthy(const struct ld *ld, const struct raw_comp *rc, size_t *odd)
{
	const struct spec_source *src = ld->s->source;
	size_t i;

	*odd = SIZE_MAX;
	if (!src)
		return false;
	for (i = 0; i < rc->n_attrs; i++) {
		if (rc->attrs[i].value->kind == YSRC_SCALAR &&
		    (rc->flat || ld_files_node(src, rc->attrs[i].value)))
			continue;       /* flattened from nodes of the files alone: theirs */
		if (*odd != SIZE_MAX || rc->attrs[i].value->kind != YSRC_SCALAR)
			*odd = SIZE_MAX - 1;     /* two, or one that is no scalar: nothing */
		else
			*odd = i;
	}
	return *odd == SIZE_MAX;
}

/*
 * Attributes parse_size() alone reads (through attr_any: the first of the
 * spellings given), and nothing else of the level depends on but its
 * display copy: a level that differs from a kept one in one of them alone
 * is the kept one with its size read again (a sweep's depth axis).
 */
static bool size_attr(const char *key)
{
	size_t l, k;

	for (l = 0; l < ARRAY_SIZE(size_key_lists); l++)
		for (k = 0; size_key_lists[l][k]; k++)
			if (ysrc_key_eq(key, size_key_lists[l][k]))
				return true;
	return false;
}

/* The build reads the source's shared classes (which say whether a class declares a key). */
static bool memo_classes(const struct ld *ld, const struct spec_source *src)
{
	return src->cc_state == 1 && ld->s->components.classes == src->cc.classes;   /* cc_mu */
}

/* True when 'm' was built from what 'rc' holds, but for the value of attribute 'odd'. */
static bool memo_matches_but(const struct ld_level_memo *m, const struct raw_comp *rc, size_t odd)
{
	size_t i;

	if (m->n_attrs != rc->n_attrs || m->instances != rc->instances ||
	    !ld_same_text(m->class_name, rc->class_name) ||
	    !ld_same_text(m->subclass, rc->subclass))
		return false;
	for (i = 0; i < rc->n_attrs; i++)
		if ((m->attrs[i].value != rc->attrs[i].value && i != odd) ||
		    m->attrs[i].inherited != rc->attrs[i].inherited ||
		    !ld_same_text(m->attrs[i].key, rc->attrs[i].key))
			return false;
	return true;
}

/* A copy of display attributes 'attrs' in cc_arena. */
static const struct spec_attr *memo_attrs(struct spec_source *src, size_t n,
					  const struct spec_attr *attrs)
{
	struct spec_attr *v = arena_calloc(&src->cc_arena, n + 1, sizeof(*v));
	size_t i;
	for (i = 0; i < n; i++) {
		v[i] = attrs[i];
		v[i].key = arena_strdup(&src->cc_arena, attrs[i].key);
		v[i].value = arena_strdup(&src->cc_arena, attrs[i].value);
	}
	return v;
}

/*
 * Keep level 'L', just built from 'rc' with nothing said, for later
 * builds; but for size attribute 'odd' (SIZE_MAX: none), whose value it
 * does not keep: a build takes it only to read its own size.
 */
static void memo_put(struct spec_source *src, const struct raw_comp *rc, size_t odd,
		     const struct spec_level *L)
{
	struct ld_level_memo *m;
	struct raw_attr *ra;
	size_t i;

	XGROW(src->levels_memo, src->n_levels_memo + 1, src->alloc_levels_memo);
	m = &src->levels_memo[src->n_levels_memo];
	m->class_name = arena_strdup(&src->cc_arena, rc->class_name);
	m->subclass = arena_strdup(&src->cc_arena, rc->subclass);
	m->instances = rc->instances;
	m->n_attrs = rc->n_attrs;
	ra = arena_memdup(&src->cc_arena, rc->attrs, rc->n_attrs * sizeof(*ra));
	for (i = 0; i < rc->n_attrs; i++)
		ra[i].key = arena_strdup(&src->cc_arena, rc->attrs[i].key);
	if (odd < rc->n_attrs)
		ra[odd].value = NULL;     /* a node of this build, matched by none */
	m->attrs = ra;
	m->level = *L;
	m->level.network_read = arena_strdup(&src->cc_arena, L->network_read);
	m->level.network_fill = arena_strdup(&src->cc_arena, L->network_fill);
	m->level.network_update = arena_strdup(&src->cc_arena, L->network_update);
	m->level.network_drain = arena_strdup(&src->cc_arena, L->network_drain);
	m->level.network.network_type = arena_strdup(&src->cc_arena, L->network.network_type);
	m->level.attrs = memo_attrs(src, L->n_attrs, L->attrs);
	src->n_levels_memo++;
}

/*
 * The kept level 'L' (a copy of one built from what 'rc' holds but for the
 * value of size attribute 'odd', with nothing said) with its size read
 * from 'rc': what build_storage() makes of 'rc', and says (parse_size()'s
 * words, then those about attribute 'odd'; the others said nothing then).
 */
static void reread_size(struct ld *ld, const struct raw_comp *rc, size_t odd, struct spec_level *L)
{
	struct spec_attr *attrs = arena_memdup(ld->a, L->attrs, (L->n_attrs + 1) * sizeof(*attrs));
	struct attrs at;

	attrs_init(&at, ld, rc);
	L->has_size = false;
	L->size_words = 0;
	L->effective_size_words = 0;
	L->min_utilization = 0;
	parse_size(&at, L);
	copy_attr(ld, &rc->attrs[odd], &attrs[odd]);   /* every attribute a scalar: same index */
	L->attrs = attrs;
	warn_misspelt_one(&at, &rc->attrs[odd]);
}

/*
 * build_storage(), or the level an earlier build of the source made from
 * the same nodes (a sweep's points mostly change one level, or none), or
 * from the same nodes but for a size attribute (then its size is read).
 */
static int build_storage_memo(struct ld *ld, const struct raw_comp *rc, struct spec_level *L)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	size_t i, said, odd;
	bool worthy = memo_worthy(ld, rc, &odd), found = false;
	bool resize = !worthy && odd < rc->n_attrs && size_attr(rc->attrs[odd].key);
	int r;

	if (worthy || resize) {
		pthread_mutex_lock(&src->cc_mu);
		if (!memo_classes(ld, src)) {
			worthy = resize = false;
		} else if (rc->flat && rc->flat->level_memo >= 0) {   /* the same nodes as then */
			*L = src->levels_memo[rc->flat->level_memo].level;
			found = true;
		}
		for (i = 0; (worthy || resize) && i < src->n_levels_memo && !found; i++)
			if (memo_matches_but(&src->levels_memo[i], rc, odd)) {
				*L = src->levels_memo[i].level;
				found = true;
				if (worthy && rc->flat)
					rc->flat->level_memo = (int)i;
			}
		pthread_mutex_unlock(&src->cc_mu);
	}
	if (found) {
		L->name = rc->name;
		L->class_name = rc->class_name;
		L->subclass = rc->subclass;
		L->loc = rc->loc;
		if (resize)
			reread_size(ld, rc, odd, L);
		return 0;
	}
	said = ld_said(ld);
	r = build_storage(ld, rc, L);
	if ((worthy || resize) && r == 0 && ld_said(ld) == said) {
		pthread_mutex_lock(&src->cc_mu);
		for (i = 0; i < src->n_levels_memo && !found; i++)
			found = memo_matches_but(&src->levels_memo[i], rc, odd);
		if (!found && src->n_levels_memo < LEVELS_MEMO_MAX) {
			if (worthy && rc->flat)
				rc->flat->level_memo = (int)src->n_levels_memo;
			memo_put(src, rc, odd, L);
		}
		pthread_mutex_unlock(&src->cc_mu);
	}
	return r;
}

/* The compute unit; -1 only when its mesh is wrong. */
static int build_compute(struct ld *ld, const struct raw_comp *rc, struct spec_compute *c)
{
	struct attrs at;
	uint64_t word = 16;

	attrs_init(&at, ld, rc);
	c->name = rc->name;
	c->class_name = rc->class_name;
	c->subclass = rc->subclass;
	c->loc = rc->loc;
	get_uint(&at, A("word_bits", "datawidth", "word_width"), 1, 4096, &word);
	c->word_bits = (unsigned)word;
	c->has_energy = get_double(&at, A("energy"), 0.0, HUGE_VAL, &c->energy_pj);
	c->has_area = get_double(&at, A("area"), 0.0, HUGE_VAL, &c->area_um2);
	c->network_operand = get_str(&at, A("network_operand"));
	c->network_result = get_str(&at, A("network_result"));
	parse_mesh(&at, &c->instances, &c->mesh_x, &c->mesh_y);
	copy_attrs(ld, rc, &c->n_attrs, &c->attrs);
	warn_misspelt(&at);
	return at.mesh_bad ? -1 : 0;
}

/*
 * build_compute(), or the compute unit an earlier build of the source read
 * from the component flattened from the same nodes of the files.
 */
static int build_compute_memo(struct ld *ld, const struct raw_comp *rc, struct spec_compute *c)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	bool keep = rc->flat != NULL, found = false;
	size_t said;
	int r;

	if (keep) {
		pthread_mutex_lock(&src->cc_mu);
		keep = memo_classes(ld, src);
		if (keep && rc->flat->compute) {
			*c = *rc->flat->compute;
			found = true;
		}
		pthread_mutex_unlock(&src->cc_mu);
	}
	if (found) {
		c->name = rc->name;
		c->class_name = rc->class_name;
		c->subclass = rc->subclass;
		c->loc = rc->loc;
		return 0;
	}
	said = ld_said(ld);
	r = build_compute(ld, rc, c);
	if (keep && r == 0 && ld_said(ld) == said) {
		pthread_mutex_lock(&src->cc_mu);
		if (!rc->flat->compute) {
			struct spec_compute *m = arena_memdup(&src->cc_arena, c, sizeof(*m));
			m->network_operand = arena_strdup(&src->cc_arena, c->network_operand);
			m->network_result = arena_strdup(&src->cc_arena, c->network_result);
			m->attrs = memo_attrs(src, c->n_attrs, c->attrs);
			rc->flat->compute = m;
		}
		pthread_mutex_unlock(&src->cc_mu);
	}
	return r;
}

/* A user-declared network component. */
static int build_network(struct ld *ld, const struct raw_comp *rc, struct spec_network *nw)
{
	struct attrs at;

	attrs_init(&at, ld, rc);
	nw->name = rc->name;
	nw->class_name = rc->class_name;
	nw->loc = rc->loc;
	parse_network_params(&at, &nw->params);
	copy_attrs(ld, rc, &nw->n_attrs, &nw->attrs);
	warn_misspelt(&at);
	return 0;
}

enum comp_kind spec_classify(const char *cls)
{
	static const char *const storage[] = { "DRAM", "SRAM", "regfile", "smartbuffer", "storage" };
	static const char *const compute[] = { "mac", "intmac", "fpmac", "compute" };
	static const char *const network[] = { "XY_NoC", "Legacy", "ReductionTree",
					       "SimpleMulticast" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(storage); i++)
		if (strstr(cls, storage[i]))
			return COMP_STORAGE;
	for (i = 0; i < ARRAY_SIZE(compute); i++)
		if (strstr(cls, compute[i]))
			return COMP_COMPUTE;
	for (i = 0; i < ARRAY_SIZE(network); i++)
		if (strstr(cls, network[i]))
			return COMP_NETWORK;
	return COMP_OTHER;
}

/* Classify every component; count the storage levels and networks. */
static int classify_all(struct ld *ld, unsigned *n_storage, size_t *n_net, int *i_compute)
{
	size_t i;
	int rc = 0;

	*n_storage = 0;
	*n_net = 0;
	*i_compute = -1;
	for (i = 0; i < ld->n_comps; i++) {
		struct raw_comp *c = &ld->comps[i];
		c->kind = spec_classify(c->class_name);
		if (c->kind == COMP_STORAGE)
			(*n_storage)++;
		else if (c->kind == COMP_NETWORK)
			(*n_net)++;
		else if (c->kind == COMP_OTHER)
			diag_warning(ld->dl, c->loc, "in '%s': class '%s' is neither storage, compute "
				     "nor network; the component is ignored", c->path, c->class_name);
		if (c->kind != COMP_COMPUTE)
			continue;
		if (*i_compute >= 0) {
			rc = diag_error(ld->dl, c->loc, "in '%s': a second compute unit '%s' "
					"(only one is supported)", c->path, c->name);
			diag_note(ld->dl, ld->comps[*i_compute].loc, "the first one is '%s'",
				  ld->comps[*i_compute].name);
			continue;
		}
		*i_compute = (int)i;
	}
	return rc;
}

/* Resolve power_gated_at names to level indexes. */
static int resolve_power_gating(struct ld *ld, struct spec_level *levels, unsigned n)
{
	unsigned l;
	int rc = 0;

	for (l = 0; l < n; l++) {
		const struct raw_comp *c = NULL;
		const struct raw_attr *a;
		size_t i;
		int k;
		levels[l].power_gated_at = l;
		for (i = 0; i < ld->n_comps; i++)
			if (ld->comps[i].level == (int)l)
				c = &ld->comps[i];
		a = c ? ld_comp_attr(c, "power_gated_at") : NULL;
		if (!a || ysrc_is_null(a->value))
			continue;
		{
			struct kpath root = KP_KEY(NULL, c->path), ap = KP_KEY(&root, "attributes");
			struct kpath kp = KP_KEY(&ap, a->key);
			if (ld_want_scalar(ld, a->value, &kp) < 0) {
				rc = -1;
				continue;
			}
			k = ld_level_index(ld, a->value, &kp, a->value->str);
		}
		if (k < 0)
			rc = -1;
		else
			levels[l].power_gated_at = (unsigned)k;
	}
	return rc;
}

/*
 * At most one level runs its instances in waves, and only that level may
 * serialize its instances' prologue and epilogue.
 */
static int check_concurrent(struct ld *ld, const struct spec_level *levels, unsigned n)
{
	unsigned l, first = n;
	int rc = 0;

	for (l = n; l-- > 0;) {
		if (levels[l].serial_prologue_epilogue && !levels[l].concurrent_instances)
			rc = diag_error(ld->dl, levels[l].loc, "'%s' sets 'serial_prologue_epilogue' "
					"without 'concurrent_instances': only the level whose "
					"instances run in waves (a GPU's thread blocks) has them",
					levels[l].name);
		if (!levels[l].concurrent_instances)
			continue;
		if (first == n) {
			first = l;
			continue;
		}
		rc = diag_error(ld->dl, levels[l].loc, "'%s' sets 'concurrent_instances', and so "
				"does '%s': only one level may run its instances in waves",
				levels[l].name, levels[first].name);
		diag_note(ld->dl, levels[first].loc, "'%s' is defined here", levels[first].name);
	}
	return rc;
}

/* One fanout ratio: inner mesh over own mesh, which must divide. */
static int fanout_of(struct ld *ld, const struct spec_level *L, const char *axis,
		     unsigned inner, unsigned own, const char *inner_name, unsigned *out)
{
	if (own == 0 || inner % own) {
		return diag_error(ld->dl, L->loc, "the %s mesh of '%s' (%u) does not divide the %s "
				  "mesh of its inner neighbour '%s' (%u)", axis, L->name, own, axis,
				  inner_name, inner);
	}
	*out = inner / own;
	return 0;
}

/* The fanout of every level over its inner neighbour (semantics 1.2.1). */
static int compute_fanouts(struct ld *ld, struct spec_arch *sa, struct spec_level *levels)
{
	unsigned l;
	int rc = 0;

	for (l = 0; l < sa->n_levels; l++) {
		struct spec_level *L = &levels[l];
		unsigned ix = l ? levels[l - 1].mesh_x : sa->compute.mesh_x;
		unsigned iy = l ? levels[l - 1].mesh_y : sa->compute.mesh_y;
		const char *iname = l ? levels[l - 1].name : sa->compute.name;
		if (fanout_of(ld, L, "X", ix, L->mesh_x, iname, &L->fanout_x) < 0 ||
		    fanout_of(ld, L, "Y", iy, L->mesh_y, iname, &L->fanout_y) < 0)
			rc = -1;
	}
	return rc;
}

int spec_arch_build(struct ld *ld, bool partial)
{
	struct spec_arch *sa = &ld->s->arch;
	struct spec_level *levels;
	struct spec_network *nets;
	unsigned n_storage, k = 0;
	size_t n_net, i, j = 0;
	int i_compute, rc;

	rc = classify_all(ld, &n_storage, &n_net, &i_compute);
	if (n_storage > SPEC_MAX_LEVELS)
		return diag_error(ld->dl, sa->loc, "at most %d storage levels are supported, got %u",
				  SPEC_MAX_LEVELS, n_storage);
	if (partial && (n_storage == 0 || i_compute < 0))
		return -1;
	if (n_storage == 0)
		rc = diag_error(ld->dl, sa->loc, "the architecture has no storage level");
	if (i_compute < 0)
		rc = diag_error(ld->dl, sa->loc, "the architecture has no compute unit (a component "
				"whose class contains 'mac' or 'compute')");
	if (rc < 0)
		return -1;
	levels = arena_calloc(ld->a, n_storage, sizeof(*levels));
	nets = arena_calloc(ld->a, n_net ? n_net : 1, sizeof(*nets));
	for (i = 0; i < ld->n_comps; i++) {
		struct raw_comp *c = &ld->comps[i];
		if (c->kind == COMP_STORAGE) {
			c->level = (int)(n_storage - 1 - k++);
			if (build_storage_memo(ld, c, &levels[c->level]) < 0)
				rc = -1;
		} else if (c->kind == COMP_NETWORK && build_network(ld, c, &nets[j++]) < 0) {
			rc = -1;
		}
	}
	if (build_compute_memo(ld, &ld->comps[i_compute], &sa->compute) < 0)
		rc = -1;
	sa->n_levels = n_storage;
	sa->levels = levels;
	sa->n_networks = n_net;
	sa->networks = nets;
	if (rc == 0 && !partial && (resolve_power_gating(ld, levels, n_storage) < 0 ||
				    check_concurrent(ld, levels, n_storage) < 0 ||
				    compute_fanouts(ld, sa, levels) < 0))
		rc = -1;
	return partial ? -1 : rc;
}
