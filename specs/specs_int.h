/*
 * Internals of the YAML front end: the loader context shared by the
 * per-section parsers, key paths for messages, schema-checked value readers
 * and the intermediate list of architecture components that every dialect
 * is flattened into before levels are built.
 *
 * Every reader reports through ld_error()/ld_warning(), which prefix the
 * message with the key path ("in 'architecture.subtree[0].local[2]': ...").
 * Readers return 0 or -1 and keep going, so a run reports every problem.
 */
#ifndef SPECS_SPECS_INT_H
#define SPECS_SPECS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "specs/spec.h"
#include "specs/ysrc_int.h"

struct strbuf;

/* ---------------------------------------------------------- key paths */

/* A key path built on the stack: 'up' . key, or 'up' [index]. */
struct kpath {
	const struct kpath *up;
	const char *key;   /* NULL: an index */
	long index;
};

#define KP_KEY(up_, k_) ((struct kpath){ (up_), (k_), -1 })
#define KP_IDX(up_, i_) ((struct kpath){ (up_), NULL, (long)(i_) })

/* Append the rendering of 'p' ("a.b[2].c") to 'sb'. */
void ld_kpath_render(const struct kpath *p, struct strbuf *sb);

/* The rendering of 'p' as a string in the set's arena (it outlives the walk). */
const char *ld_kpath_strdup(struct ld *ld, const struct kpath *p);

/* ------------------------------------------- intermediate architecture */

enum comp_kind { COMP_STORAGE, COMP_COMPUTE, COMP_NETWORK, COMP_OTHER };

struct raw_attr {
	const char *key;
	const struct ysrc_node *value;
	bool inherited;                /* from an enclosing subtree/container */
	struct diag_loc loc;           /* of the key */
};

/* One architecture component, outermost first, after dialect flattening. */
struct raw_comp {
	const char *name;              /* without [a..b] */
	const char *class_name;
	const char *subclass;
	const char *path;              /* key path of its entry, for messages */
	struct diag_loc loc;
	uint64_t instances;            /* from [a..b] and enclosing counts */
	size_t n_attrs, alloc_attrs;
	struct raw_attr *attrs;        /* own attributes first */
	bool is_dummy;                 /* made from a spatial container */
	const struct ysrc_node *sparse;       /* node list: sparse_optimizations */
	const char *sparse_path;
	const struct ysrc_node *constraints;  /* node list: constraints */
	const char *constraints_path;
	enum comp_kind kind;           /* set by spec_arch_build() */
	int level;                     /* storage level index, or -1 */
	struct ld_flat_memo *flat;     /* the source's copy it was taken from (arch.c), or NULL */
};

#define FLAT_MAX_SCOPES 8
#define FLAT_MAX_PATH 24

/*
 * A 'local' entry flattened from nodes of the files alone, and everything
 * local_entry_read() read to make it: the entry, the enclosing attribute
 * maps, the instance count of the enclosing subtrees and the key path.
 */
struct ld_flat_memo {
	const struct ysrc_node *entry;
	const struct ysrc_node *scopes[FLAT_MAX_SCOPES];
	size_t n_scopes;
	uint64_t mult;
	struct kpath path[FLAT_MAX_PATH];    /* innermost first; keys in cc_arena */
	size_t n_path;
	struct raw_comp comp;                /* strings and attributes in cc_arena */
	int level_memo;                      /* level.c: its level's memo, or -1 (under cc_mu) */
	const struct spec_compute *compute;  /* level.c: its compute unit as read, or NULL (cc_mu) */
};

/* --------------------------------------------------- the loader context */

#define LD_MAX_FILES_PER_KEY 16

/* A top-level key and the value(s) the files gave it. */
struct ld_top {
	const char *key;
	size_t n;
	const struct ysrc_node *keys[LD_MAX_FILES_PER_KEY];
	const struct ysrc_node *values[LD_MAX_FILES_PER_KEY];
};

#define LD_MAX_TOP 32

/*
 * The parsed files of a design and their merged top-level keys (load.c).
 * Nodes and names live in 'arena'; nothing changes after the last file.
 */
struct spec_source {
	struct arena arena;
	size_t n_files, alloc_files;
	const char **files;            /* copies, or the caller's (spec_set_load) */
	bool borrow_names;             /* spec_set_load(): locations keep its paths */
	unsigned n_errors;             /* files with errors (nothing is built) */
	unsigned n_unparsed;           /* of which could not be parsed */
	struct diag_loc first_root;    /* the first file's top-level mapping, for errors
					  about the design as a whole ("no 'problem'") */
	size_t n_top;
	struct ld_top top[LD_MAX_TOP];
	const struct spec_kind *kinds[SPEC_MAX_KINDS + 1];   /* the default first, NULL-ended */
	const char *const *template_vars;  /* Jinja2 variables, borrowed while files are added */
	size_t n_template_vars;
	struct spec_jinja *jinja;      /* the caller's helper process, or NULL */
	/*
	 * The compound component classes, loaded by the first build whose
	 * overrides leave their keys as the files give them (components.c):
	 * the builds of a sweep share them. cc_state: 0 not tried, 1 loaded into
	 * cc (in cc_arena), -1 the load reported something (every build loads
	 * them itself, so that each reports it). Under cc_mu: builds run on
	 * several threads from one source.
	 */
	pthread_mutex_t cc_mu;
	int cc_state;
	struct arena cc_arena;
	struct spec_components cc;
	/*
	 * Every node of the files, and how inert it is (vars.c): pointer -> 1
	 * (the expression walk may change it, or does not walk it), 2 (it
	 * changes nothing in it whatever names are in scope, walked as a
	 * value), 3 (walked as an 'attributes' mapping too). Made by the first
	 * build (inert_state 1), under cc_mu; read-only after.
	 */
	int inert_state;
	size_t inert_cap;              /* a power of two; 0: none */
	const struct ysrc_node **inert_key;
	unsigned char *inert_val;
	/*
	 * Storage levels built from nodes of the files alone (level.c): a
	 * build whose component has the same class, instances and attribute
	 * nodes takes the level as built, without reading it again. Under
	 * cc_mu; the levels' strings in cc_arena. Only what was read without
	 * a word said (no diagnostic) is kept.
	 */
	struct ld_level_memo *levels_memo;
	size_t n_levels_memo, alloc_levels_memo;
	/* ERT tables read from nodes of the files, likewise (energy.c) */
	struct ld_table_memo *tables_memo;
	size_t n_tables_memo, alloc_tables_memo;
	/*
	 * Mappings read from nodes of the files (mapping.c), by what the read
	 * takes from the architecture and the workload (level names, spatial
	 * levels, dimensions, bounds, data space names): a build that reads the
	 * same takes the mapping as built (shared, never changed). A list in
	 * cc_arena, newest first, at most LD_MAX_MAP_MEMO; under cc_mu. Only
	 * a read that said nothing is kept.
	 */
	struct ld_map_memo *map_memo;
	unsigned n_map_memo;
	/*
	 * Overrides parsed once (override.c): by PATH and VALUE, the steps of
	 * a path that parsed and a scalar value that parsed with nothing said.
	 * An open-addressed table of ov_memo_cap slots (cc_arena); under cc_mu.
	 */
	struct ld_ov_memo **ov_memo;
	size_t ov_memo_cap, n_ov_memo;
	/*
	 * Workloads read from the 'problem' key (problem.c), by its nodes: the
	 * files' by pointer, those an override made by what they hold. A list
	 * in cc_arena, newest first, at most LD_MAX_PROBLEM_MEMO; under cc_mu.
	 */
	struct ld_problem_memo *problem_memo;
	unsigned n_problem_memo;
	/*
	 * The walk (vars.c): the bare names the
	 * files' walked values use that nothing of the files can bind (no key,
	 * node name or top-level key is spelt so): the 'free' names, at most 63;
	 * per node of the table above, the free names under it (walk_mask[2h]:
	 * walked as a value, [2h+1]: as an 'attributes' mapping), bit 63 when
	 * something under it may change whatever the names. A build skips a
	 * node that uses none of the names it can bind. Made with the table.
	 */
	uint64_t *walk_mask;
	unsigned n_free_names;
	const char *free_names[63];
	unsigned free_hash[63];          /* their hashes */
	unsigned char free_slot[128];    /* index + 1 by hash (open addressing), 0 empty */
	unsigned char free_bloom[256];   /* two bits per free name (name_bloom()) */
	/*
	 * The 'local' entries of the architecture tree flattened from nodes of
	 * the files alone (arch.c): an entry read again with the same enclosing
	 * attributes, instance count and key path is taken as flattened then.
	 * Under cc_mu; each in cc_arena (a build may hold it), with its strings.
	 */
	struct ld_flat_memo **flat_memo;
	size_t n_flat_memo, alloc_flat_memo;
};

struct ld_override;

struct ld {
	struct spec_set *s;
	struct arena *a;
	struct diag_list *dl;
	struct diag_list *dl_out;      /* the caller's list, where 'dl' ends up (ld_intern) */
	const struct spec_load_options *opt;
	size_t n_top;
	struct ld_top top[LD_MAX_TOP];
	/* overrides applied to this build (override.c) */
	size_t n_ovr;
	struct ld_override *ovr;
	size_t n_ov_seen, alloc_ov_seen;
	struct diag_loc *ov_seen;      /* keys from overrides already reported */
	/* architecture in flattened form */
	size_t n_comps, alloc_comps;
	struct raw_comp *comps;
	bool problem_ok;               /* the workload parsed without errors */
	bool arch_ok;                  /* the architecture parsed without errors */
	/* gathered from a node list */
	bool nodes_sparse_present;
	/* expressions evaluated for readers (vars.c) */
	const struct ysrc_node *vars;  /* 'variables', merged and evaluated, or NULL */
	size_t n_deferred, alloc_deferred;
	struct ld_deferred *deferred;
};

/* The entry of top-level key 'key' (canonical spelling), or NULL. */
const struct ld_top *ld_top_get(const struct ld *ld, const char *key);

/* How the files' values of a top-level key are merged (top.c). */
enum top_merge {
	TOP_SINGLE,    /* at most one file may give it */
	TOP_LIST,      /* lists from several files are concatenated */
	TOP_TARGETS,   /* maps whose 'targets' / 'tables' lists are concatenated */
	TOP_IGNORED,   /* accepted and not used */
	TOP_MERGED,    /* maps from several files, merged key by key ('variables') */
	TOP_CLASSES,   /* maps whose 'classes' lists are concatenated (compound components) */
};

struct top_key {
	const char *name;       /* as written */
	const char *canonical;  /* the entry it fills */
	enum top_merge merge;
};

/* The known top-level key spelt 'name', or NULL (the kinds' own keys aside). */
const struct top_key *ld_top_key_find(const char *name);

/* Every known top-level spelling, for hints; sets '*n' (the kinds' own keys aside). */
const char *const *ld_top_key_names(size_t *n);

/*
 * The top-level key spelt 'name' among the table's and the own keys of the
 * kinds of 'src' (a kind's key is single-valued; it is described in '*buf'),
 * or NULL.
 */
const struct top_key *ld_top_key_of(const struct spec_source *src, const char *name,
				    struct top_key *buf);

/* "unknown top-level key 'NAME'" with a did-you-mean among every key 'src' knows, into 'sb'. */
void ld_top_key_unknown(const struct spec_source *src, const char *name, struct strbuf *sb);

/* The merged entry of canonical key 'canonical' in 'top[0..*n_top)', created on first use. */
struct ld_top *ld_top_slot(struct ld_top *top, size_t *n_top, const char *canonical);

/* ------------------------------------------------------ overrides (override.c) */

/*
 * Apply ov[0..n) to the merged top-level view of 'ld' (copying the nodes on
 * each path into ld->a). Errors go to ld->dl; returns 0 or -1.
 */
int spec_overrides_apply(struct ld *ld, const struct spec_override *ov, size_t n);

/*
 * Copy the diagnostics of 'from' (a build with overrides) to 'to': locations
 * in an override get the caller's origin string back, and each message about
 * an overridden node gets a note at the node it replaced (or at the override
 * that changed the mapping it is about).
 */
void spec_overrides_report(const struct ld *ld, const struct diag_list *from,
			   struct diag_list *to);

/* True when 'loc' lies in the text of an override of this build. */
bool ld_from_override(const struct ld *ld, struct diag_loc loc);

/*
 * True the first time it is asked about the location 'key_loc' of a key
 * that an override wrote: such a key must be known to its section parser,
 * where a key in a file may be ignored (free-form attributes, instance).
 */
bool ld_override_key_first(struct ld *ld, struct diag_loc key_loc);

/* ---------------------------------------- variables and expressions (vars.c) */

struct ld_deferred;

/*
 * Evaluate the v0.4 front end's variables and expressions in the merged
 * view of 'ld' (after overrides, before the section parsers): replaced
 * values go into ld->a, outcomes for readers into ld->deferred. Errors that
 * must be reported now go to ld->dl; returns 0 or -1.
 */
int spec_expressions_apply(struct ld *ld);

/*
 * True when 'n' is a node of the source's files (the table the first
 * build's walk made): a value no override or expression of this build
 * made, and one no freed set's node can alias.
 */
bool ld_files_node(const struct spec_source *src, const struct ysrc_node *n);

/*
 * How many diagnostics the build has said so far, kept or not: the same
 * before and after a read that said nothing (the reads kept per source).
 */
static inline size_t ld_said(const struct ld *ld)
{
	return ld->dl->n + ld->dl->n_errors + ld->dl->n_warnings;
}

/* Equal texts, either NULL (the keys of the reads kept per source). */
static inline bool ld_same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * For a reader that wants a number and got text 'n': 1 with '*text' set to
 * the value of the expression 'n' is; 0 when 'n' is no expression; -1 after
 * reporting the expression's error (at 'p').
 */
int ld_expr_value(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		  const char **text);

/* The expression whose value node 'n' holds (for messages), or NULL. */
const char *ld_expr_text(const struct ld *ld, const struct ysrc_node *n);

/*
 * Where an error about the design as a whole (a section no file gives) is
 * reported: the first file's top-level mapping.
 */
struct diag_loc ld_design_loc(const struct ld *ld);

/* Report an error at 'n' (or 'loc' when n is NULL) prefixed by the key path. */
int ld_error(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int ld_error_at(struct ld *ld, struct diag_loc loc, const struct kpath *p,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ld_warning(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ld_note(struct ld *ld, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A copy of 's' that lives as long as the caller's diagnostics: for the
 * names of files outside the spec source that locations point into.
 */
const char *ld_intern(struct ld *ld, const char *s);

/* Append "; did you mean 'X'?" to 'sb' when a candidate is close to 'word'. */
void ld_add_hint(struct strbuf *sb, const char *word, const char *const *cands, size_t n);

/* --------------------------------------------------------- value readers */

/* The value of 'key' in 'map', or NULL when absent or written as null. */
const struct ysrc_node *ld_get(const struct ysrc_node *map, const char *key);

/*
 * True for a key that holds the word "ignore" (between '_' or '-'): the v0.4
 * front end ignores it wherever it is (anchor holders).
 */
bool ld_ignored_key(const char *key);

/*
 * Report every key of 'map' not in 'known[0..n)' (did-you-mean), except the
 * ignored ones (ld_ignored_key). Returns the count.
 */
int ld_check_keys(struct ld *ld, const struct ysrc_node *map, const struct kpath *p,
		  const char *const *known, size_t n_known);

/* Errors unless 'n' is a mapping / a list / a scalar; return 0 or -1. */
int ld_want_map(struct ld *ld, const struct ysrc_node *n, const struct kpath *p);
int ld_want_seq(struct ld *ld, const struct ysrc_node *n, const struct kpath *p);
int ld_want_scalar(struct ld *ld, const struct ysrc_node *n, const struct kpath *p);

/* Parse 'n' as an unsigned integer in [lo, hi] (integral floats allowed). */
int ld_uint(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	    uint64_t lo, uint64_t hi, uint64_t *out);
/* Parse 'n' as a signed integer. */
int ld_int(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, int64_t *out);
/* Parse 'n' as a finite number in [lo, hi]. */
int ld_double(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	      double lo, double hi, double *out);
/* Parse 'n' as a boolean (true/false, yes/no, on/off). */
int ld_bool(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, bool *out);
/* The text of scalar 'n' (copied into the set's arena), or NULL after an error. */
const char *ld_str(struct ld *ld, const struct ysrc_node *n, const struct kpath *p);

/* Text-only parsers (no diagnostics): 0 on success. */
int spec_parse_u64(const char *s, uint64_t *out);
int spec_parse_double(const char *s, double *out);
int spec_parse_bool(const char *s, bool *out);

/*
 * Look up the name 'name' in 'names[0..n)' and return its index; otherwise
 * report "unknown WHAT 'name'" with a did-you-mean hint and return -1.
 */
int ld_lookup(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
	      const char *what, const char *name, const char *const *names, size_t n_names);

/* ld_lookup() for keywords: '-' and '_' are the same (Timeloop rewrites them). */
int ld_lookup_keyword(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      const char *what, const char *name, const char *const *names,
		      size_t n_names);

/* Names of the levels, tensors and dimensions, for lookups. */
int ld_level_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   const char *name);
int ld_tensor_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    const char *name);
int ld_dim_index(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		 const char *name);

/*
 * A list of tensor names (or one name) -> bit mask; every name is checked.
 * Returns 0 or -1. Items go to 'order' (when not NULL, with count '*n_order').
 */
int ld_tensor_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		   uint32_t *mask, uint8_t *order, unsigned *n_order);

/* -------------------------------------------------- the section parsers */

/* problem.c: fill s->workload from the 'problem' key. */
int spec_problem_load(struct ld *ld);

/* density.c: densities of 'problem.instance' ('inst' may be NULL) and options. */
int spec_densities_load(struct ld *ld, const struct ysrc_node *inst, const struct kpath *p);

/*
 * density.c: the density node 'n' of a bare 2-D matrix of 'rows' x 'cols'
 * named 'name' (no workload needed; structured_nm is refused). 0 or -1.
 */
int spec_density_parse_matrix(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			      const char *name, uint64_t rows, uint64_t cols,
			      struct spec_density *d);

/*
 * density.c: load the matrix 'file' (Matrix Market or dense text); what the
 * reader reports is located at 'at' with the key path 'p'. NULL on error.
 */
const struct spec_matrix *spec_matrix_load_at(struct ld *ld, const char *file, struct diag_loc at,
					      const struct kpath *p);

/* stpu.c: the 'stpu' key. */
int spec_stpu_load(struct ld *ld);

/*
 * density.c: the density node 'n' of data space 't' of the loaded workload
 * (a number or a map, any kind), and the "NAME=FILE" load options; for
 * sections that build their own workload (ipu.c).
 */
int spec_density_parse(struct ld *ld, const struct ysrc_node *n, const struct kpath *p, unsigned t);
int spec_density_apply_files(struct ld *ld);

/* ipu.c: the 'ipu' key (device and sparse layer, and the layer's workload). */
int spec_ipu_load(struct ld *ld);

/* arch.c: v0.3 tree / v0.4 flattened tree -> ld->comps; dialect in s->arch. */
int spec_arch_tree_load(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p);
/* arch_nodes.c: v0.4 node list -> ld->comps (+ per-component sparse/constraints). */
int spec_arch_nodes_load(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p);
/*
 * level.c: ld->comps -> s->arch levels, compute and networks. 'partial':
 * some entries were dropped after errors; check what is there, but skip
 * the checks that the dropped entries would falsify (counts, fanouts).
 */
int spec_arch_build(struct ld *ld, bool partial);
/* arch.c: the whole 'architecture' key. */
int spec_arch_load(struct ld *ld);

/* raw component helpers (level.c; spec_split_range in arch.c) */
struct raw_comp *ld_comp_add(struct ld *ld);
void ld_comp_add_attr(struct ld *ld, struct raw_comp *rc, const char *key,
		      const struct ysrc_node *value, bool inherited);
const struct raw_attr *ld_comp_attr(const struct raw_comp *rc, const char *key);
/* The names of a component's attributes while they are added (zeroed before the first). */
struct ld_attr_ix {
	unsigned char slot[128];       /* index + 1 by hash, 0 empty */
};
/* ld_comp_add_attr() without its scan of the attributes there ('ix' indexes them). */
void ld_comp_add_attr_ix(struct ld *ld, struct raw_comp *rc, struct ld_attr_ix *ix,
			 const char *key, const struct ysrc_node *value, bool inherited);
enum comp_kind spec_classify(const char *class_name);
/* Split "name[a..b]" into name and count; -1 on a malformed range. */
int spec_split_range(struct arena *a, const char *text, const char **name, uint64_t *count);

/* energy.c: ERT and ART into s->energy, linked to levels/compute/networks. */
int spec_energy_load(struct ld *ld);

/*
 * components.c: Accelergy's compound component classes ('compound_components',
 * 'components') into s->components, and the scalar variables into
 * s->variables.
 */
int spec_components_load(struct ld *ld);

/* sparse.c: the 'sparse_optimizations' key and node-list component entries. */
int spec_sparse_load(struct ld *ld);

/*
 * axis.c: a rank {axis: KIND, name, parent, n_col} (SparseTIR's axis kinds)
 * into 'rf' (kind, axis, n_col; parent left -1): 0 or -1.
 */
int spec_axis_parse_rank(struct ld *ld, const struct ysrc_node *r, const struct kpath *p,
			 struct spec_rank_format *rf);
/*
 * axis.c: after every rank of 'ranks' (at key path 'p') is parsed: check
 * the axis names, bind each dense_variable axis to its parent rank and give
 * the ranks the offsets the variable axes imply (U -> UOP). 0 or -1.
 */
int spec_axis_resolve(struct ld *ld, const struct ysrc_node *ranks, const struct kpath *p,
		      struct spec_tensor_format *tf);

/*
 * ragged.c: 'problem.ragged' ('n' may be NULL) under problem path 'p', after
 * the bounds: ragged dimensions into the workload. 0 or -1.
 */
int spec_ragged_load(struct ld *ld, const struct ysrc_node *n, const struct kpath *p);

/*
 * mapping.c: give the loops of dimension 'd' of 'm' the residuals that cover
 * 'bound' with its factors as tile sizes (the '+' rule of
 * docs/yaml-reference.md). 0, or -1 when the factors cannot cover it.
 */
int spec_mapping_fit_dim(struct spec_mapping *m, unsigned d, uint64_t bound);

/* mapping.c: the 'mapping' key. */
int spec_mapping_load(struct ld *ld);

/*
 * mapping.c: parse a factor string ("K=16 M=1", "K16,M1", "D=8,5" with a
 * residual, "D=8+" with the residual left to the bound, list of "K=1"
 * strings; '#' starts a comment). For constraints 'allow_max' accepts
 * "M<=8". Calls 'fn' for each factor. Returns 0 or -1.
 */
struct factor_item {
	unsigned dim;
	uint64_t value;          /* 0 in YAML is already replaced by the bound */
	uint64_t residual;       /* == value unless ",R" was given; 0 with '+' */
	bool derive;             /* "K=16+": the residual follows from the bound */
	bool is_max;             /* "<=" */
	struct diag_loc loc;
};
int spec_parse_factors(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       bool allow_max, struct factor_item *items, unsigned *n_items);
/* A dimension name or a list of them (e.g. 'pad: [M, N]') as a mask; 0 or -1. */
int spec_parse_dim_list(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			uint32_t *mask);
/* Parse a permutation string or list, innermost first; returns count or -1. */
int spec_parse_perm(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    uint8_t *perm);

/*
 * macros.c: the v0.4 front end's constraint macros and merging. A
 * constraint keeps the entries it was made from (several once merged).
 */
#define CON_MAX_SOURCES 8
struct con_extra {
	size_t n;
	const struct ysrc_node *entries[CON_MAX_SOURCES];
	const char *paths[CON_MAX_SOURCES];     /* their key paths */
};

/* Record entry 'e' (at 'p') as the only source of a new constraint. */
void spec_con_source(struct ld *ld, const struct ysrc_node *e, const struct kpath *p,
		     struct con_extra *x);

/*
 * Merge v[0..n) (with their sources x[]) so that each level has at most one
 * constraint of each kind, as the front end combines them; the new count.
 * Sets '*rc' to -1 after reporting a disagreement.
 */
size_t spec_con_merge(struct ld *ld, struct spec_constraint *v, struct con_extra *x, size_t n,
		      int *rc);

/*
 * Apply the macros of the merged constraints v[0..n): factors_only,
 * no_iteration_over_dataspaces, must_iterate_over_dataspaces, keep_only,
 * bypass_only, then maximize_dims (spatial, then temporal, innermost level
 * first). Returns 0 or -1.
 */
int spec_con_macros(struct ld *ld, struct spec_constraint *v, struct con_extra *x, size_t n);

/* mapper.c: 'mapper' settings and every constraint source. */
int spec_mapper_load(struct ld *ld);

/* per_call.c: s->per_call from the 'per_call' key (after the problem). */
int spec_per_call_load(struct ld *ld);
int spec_constraints_load(struct ld *ld);

/* check.c: cross-section checks run after everything loaded. */
int spec_check_all(struct ld *ld);

#endif
