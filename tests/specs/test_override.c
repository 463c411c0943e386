/*
 * Spec sources and overrides (specs/load.c, specs/override.c): a set built
 * from a parsed source with "PATH=VALUE" overrides has exactly the values
 * they give, in every dialect and merge rule; bad overrides give located
 * errors with did-you-mean; building leaves the source unchanged, sets are
 * independent, and a set built with no overrides equals spec_set_load()'s.
 */
#include "specs/spec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"
#include "specs/specs_int.h"
#include "tests/specs/spec_test.h"
#include "tests/unit.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ------------------------------------------------------------- designs */

enum design {
	D_FLAT,      /* 02.2.1-spMspM: the front end's flattened v0.4 tree, sparse */
	D_NODES,     /* 02.2.1-spMspM/source: the v0.4 node list */
	D_TREE,      /* specs/good/tree_v03: nested v0.3 subtrees */
	D_EYERISS,   /* eyeriss_like with its ERT */
	D_NAMED,     /* exec/named-formats: named formats, one file */
	D_COUNT
};

struct design_files {
	const char *dir;         /* conformance case, or a folder of tests/data */
	bool conformance;
	const char *files[4];
	size_t n;
};

static const struct design_files designs[D_COUNT] = {
	[D_FLAT] = { "02.2.1-spMspM", true, { "input.yaml", "map.yaml" }, 2 },
	[D_NODES] = { "02.2.1-spMspM", true,
		      { "source/arch.yaml", "source/problem.yaml", "map.yaml" }, 3 },
	[D_TREE] = { "specs/good", false, { "tree_v03.yaml", "conv1d.yaml", "map_tree.yaml" }, 3 },
	[D_EYERISS] = { "eyeriss_like", true, { "input.yaml", "map.yaml", "ERT.yaml" }, 3 },
	[D_NAMED] = { "exec", false, { "named-formats.yaml" }, 1 },
};

/* The path of file 'i' of design 'd' (static buffer). */
static const char *design_path(enum design d, size_t i)
{
	static char buf[1024];
	const struct design_files *df = &designs[d];
	char rel[256];

	if (df->conformance) {
		snprintf(buf, sizeof(buf), "%s/%s/%s", unit_conformance_dir(), df->dir,
			 df->files[i]);
	} else {
		snprintf(rel, sizeof(rel), "%s/%s", df->dir, df->files[i]);
		snprintf(buf, sizeof(buf), "%s", unit_data_path(rel));
	}
	return buf;
}

static struct spec_source *sources[D_COUNT];

/* The source of design 'd', parsed once for the whole program. */
static const struct spec_source *source_of(enum design d)
{
	struct diag_list dl = DIAG_LIST_INIT;
	size_t i;

	if (sources[d])
		return sources[d];
	sources[d] = spec_source_new();
	for (i = 0; i < designs[d].n; i++)
		spec_source_add_file(sources[d], design_path(d, i), &dl);
	if (dl.n_errors)
		diag_print(&dl, stderr);
	CU_ASSERT_EQUAL_FATAL(dl.n_errors, 0);
	diag_list_release(&dl);
	return sources[d];
}

/* spec_set_load_overrides() of design 'd' (which borrows the path strings: static). */
static struct spec_set *load_design_with(enum design d, const struct spec_override *ov,
					 size_t n_ov, struct diag_list *dl)
{
	static char paths[D_COUNT][4][1024];
	const char *pp[4];
	size_t i;

	for (i = 0; i < designs[d].n; i++) {
		snprintf(paths[d][i], sizeof(paths[d][i]), "%s", design_path(d, i));
		pp[i] = paths[d][i];
	}
	return spec_set_load_overrides(pp, designs[d].n, ov, n_ov, NULL, dl);
}

/* spec_set_load() of design 'd'. */
static struct spec_set *load_design(enum design d, struct diag_list *dl)
{
	return load_design_with(d, NULL, 0, dl);
}

#define MAX_OV 3

/*
 * Build design 'd' with the overrides texts[0..) (NULL-terminated); parse
 * errors stop before the build. The overrides are released into 'ov'
 * storage the caller frees with release_all().
 */
static struct spec_set *build(enum design d, const char *const *texts, struct spec_override *ov,
			      struct diag_list *dl)
{
	size_t n = 0;
	int rc = 0;

	for (; n < MAX_OV && texts[n]; n++) {
		ov[n] = (struct spec_override)SPEC_OVERRIDE_INIT;
		if (spec_override_parse(texts[n], &ov[n], dl) < 0)
			rc = -1;
	}
	return rc < 0 ? NULL : spec_set_build(source_of(d), ov, n, NULL, dl);
}

static void release_all(struct spec_override *ov, const char *const *texts)
{
	size_t i;
	for (i = 0; i < MAX_OV && texts[i]; i++)
		spec_override_release(&ov[i]);
}

/*
 * Every diagnostic as "FILE:line:col: severity: message" lines, FILE being
 * the base name of a file (an override's origin as it is).
 */
static char *render(const struct diag_list *dl)
{
	static const char *const sev[] = { "error", "warning", "note" };
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		const char *f = d->loc.file ? d->loc.file : "";
		const char *slash = strncmp(f, "--set", 5) ? strrchr(f, '/') : NULL;
		if (d->loc.file)
			strbuf_addf(&sb, "%s:%u:%u: ", slash ? slash + 1 : f, d->loc.line, d->loc.col);
		strbuf_addf(&sb, "%s: %s\n", sev[d->severity], d->message);
	}
	return strbuf_detach(&sb, NULL);
}

/* --------------------------------------------------------- what is read */

enum probe {
	P_BOUND,          /* name: dimension */
	P_DENSITY,        /* name: tensor */
	P_DENSITY_KIND,
	P_SIZE,           /* name: level */
	P_EFFECTIVE_SIZE,
	P_WORD_BITS,
	P_READ_BW,
	P_NAMED_FORMAT,   /* name: level, name2: tensor */
	P_N_RANKS,
	P_MAP_FACTOR,     /* name: level, name2: dimension (temporal) */
	P_HAS_MAPPING,
	P_SEARCH_SIZE,
	P_ERT_ENERGY,     /* name: level, name2: action */
};

/* The format of tensor 'tensor' at the sparse target 'target', or NULL. */
static const struct spec_tensor_format *format_of(const struct spec_set *s, const char *target,
						   const char *tensor)
{
	int t = spec_tensor_find(&s->workload, tensor);
	unsigned i, f;
	for (i = 0; i < s->sparse.n_targets; i++) {
		const struct spec_sparse_target *tg = &s->sparse.targets[i];
		for (f = 0; !strcmp(tg->name, target) && f < tg->n_formats; f++)
			if ((int)tg->formats[f].tensor == t)
				return &tg->formats[f];
	}
	return NULL;
}

/* The value 'p' names in 's' (-1 when it does not exist). */
static double probe(const struct spec_set *s, enum probe p, const char *name, const char *name2)
{
	int l = name ? spec_level_find(&s->arch, name) : -1;
	int t = name ? spec_tensor_find(&s->workload, name) : -1;
	const struct spec_level *L = l >= 0 ? &s->arch.levels[l] : NULL;
	const struct spec_tensor_format *tf;
	size_t i;

	switch (p) {
	case P_BOUND:
		return (double)s->workload.bounds[spec_dim_find(&s->workload, name)];
	case P_DENSITY:
		return s->workload.tensors[t].density.density;
	case P_DENSITY_KIND:
		return s->workload.tensors[t].density.kind;
	case P_SIZE:
		return L ? (double)L->size_words : -1;
	case P_EFFECTIVE_SIZE:
		return L ? (double)L->effective_size_words : -1;
	case P_WORD_BITS:
		return L ? (double)L->word_bits : -1;
	case P_READ_BW:
		return L ? L->read_bw_words_per_cycle : -1;
	case P_NAMED_FORMAT:
		tf = format_of(s, name, name2);
		return tf ? (double)tf->named : -1;
	case P_N_RANKS:
		tf = format_of(s, name, name2);
		return tf ? (double)tf->n_ranks : -1;
	case P_MAP_FACTOR:
		return (double)s->mapping->levels[l].temporal_factors[spec_dim_find(&s->workload,
									       name2)];
	case P_HAS_MAPPING:
		return s->has_mapping;
	case P_SEARCH_SIZE:
		return (double)s->mapper.search_size;
	case P_ERT_ENERGY:
		for (i = 0; L && L->ert && i < L->ert->n_actions; i++)
			if (!strcmp(L->ert->actions[i].name, name2))
				return L->ert->actions[i].energy_pj;
		return -1;
	}
	return -1;
}

/* --------------------------------------------------------- good overrides */

struct good_row {
	const char *what;
	enum design d;
	const char *ov[MAX_OV + 1];
	enum probe p;
	const char *name, *name2;
	double before, after;     /* without the overrides, with them */
};

static const struct good_row good_rows[] = {
	{ "a density", D_FLAT, { "problem.instance.densities.A.density=0.1" },
	  P_DENSITY, "A", NULL, 0.25, 0.1 },
	{ "a whole-map value (density model)", D_FLAT,
	  { "problem.instance.densities.A={distribution: hypergeometric, density: 0.3}" },
	  P_DENSITY_KIND, "A", NULL, SPEC_DENSITY_FIXED_STRUCTURED, SPEC_DENSITY_HYPERGEOMETRIC },
	{ "an instance size, with the mapping to match", D_FLAT,
	  { "problem.instance.M=4", "mapping[target=Buffer,type=temporal].factors=M4 N8 K8" },
	  P_BOUND, "M", NULL, 8, 4 },
	{ "a mapping directive by target and type", D_FLAT,
	  { "problem.instance.M=4", "mapping[target=Buffer,type=temporal].factors=M4 N8 K8" },
	  P_MAP_FACTOR, "Buffer", "M", 8, 4 },
	{ "a named format (the issue's form)", D_NAMED,
	  { "sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=A]"
	    ".format=bitmask" },
	  P_NAMED_FORMAT, "Buffer", "A", SPEC_NAMED_CSR, SPEC_NAMED_BITMASK },
	{ "a named format instead of ranks", D_FLAT,
	  { "sparse_optimizations.targets[name=BackingStorage].representation_format"
	    ".data_spaces[name=A].format=CSR",
	    "sparse_optimizations.targets[name=BackingStorage].representation_format"
	    ".data_spaces[name=A].ranks=null" },
	  P_NAMED_FORMAT, "BackingStorage", "A", SPEC_NAMED_NONE, SPEC_NAMED_CSR },
	{ "a buffer depth ([name=...] matches 'Buffer[1..1]')", D_FLAT,
	  { "architecture.subtree[0].local[name=Buffer].attributes.depth=2048" },
	  P_SIZE, "Buffer", NULL, 128, 2048 },
	{ "an added attribute (entries wins over depth)", D_FLAT,
	  { "architecture.subtree[0].local[name=Buffer].attributes.entries=100" },
	  P_SIZE, "Buffer", NULL, 128, 100 },
	{ "a key spelt with '-' replaces the '_' one", D_FLAT,
	  { "architecture.subtree[0].local[name=Buffer].attributes.read-bandwidth=9" },
	  P_READ_BW, "Buffer", NULL, 5, 9 },
	{ "a bandwidth", D_EYERISS,
	  { "architecture.subtree[0].local[name=shared_glb].attributes.read_bandwidth=32" },
	  P_READ_BW, "shared_glb", NULL, 16, 32 },
	{ "word bits", D_EYERISS, { "architecture.subtree[0].local[name=DRAM].attributes.datawidth=16" },
	  P_WORD_BITS, "DRAM", NULL, 8, 16 },
	{ "multiple buffering", D_EYERISS,
	  { "architecture.subtree[0].local[name=shared_glb].attributes.multiple_buffering=2" },
	  P_EFFECTIVE_SIZE, "shared_glb", NULL, 131072, 65536 },
	{ "an ERT entry ([name=X] matches 'system_top_level.X[1..1]')", D_EYERISS,
	  { "ERT.tables[name=shared_glb].actions[name=read].energy=20" },
	  P_ERT_ENERGY, "shared_glb", "read", 18.183829, 20 },
	{ "v0.3 tree: index path", D_TREE,
	  { "architecture.subtree[0].subtree[0].subtree[0].subtree[0].local[0].attributes.depth=64" },
	  P_SIZE, "RF", NULL, 32, 64 },
	{ "v0.3 tree: [name=PE] matches 'PE[0..3]'", D_TREE,
	  { "architecture.subtree[0].subtree[0].subtree[0].subtree[name=PE].local[name=RF]"
	    ".attributes.depth=48" },
	  P_SIZE, "RF", NULL, 32, 48 },
	{ "v0.3 tree: an inherited attribute", D_TREE,
	  { "architecture.subtree[0].subtree[0].subtree[name=row].attributes.datawidth=8" },
	  P_WORD_BITS, "RF", NULL, 16, 8 },
	{ "node list: a buffer depth", D_NODES,
	  { "architecture.nodes[name=Buffer].attributes.depth=2048" },
	  P_SIZE, "Buffer", NULL, 128, 2048 },
	{ "node list: a component's sparse format, whole-map value", D_NODES,
	  { "architecture.nodes[name=Buffer].sparse_optimizations.representation_format"
	    ".data_spaces[name=B]={name: B, format: CSC}" },
	  P_NAMED_FORMAT, "Buffer", "B", SPEC_NAMED_NONE, SPEC_NAMED_CSC },
	{ "by name at any depth (an attribute: psum_spad.attributes.depth)", D_EYERISS,
	  { "psum_spad.depth=32" }, P_SIZE, "psum_spad", NULL, 16, 32 },
	{ "by name: of two components named Buffer, the one with the key", D_FLAT,
	  { "Buffer.depth=2048" }, P_SIZE, "Buffer", NULL, 128, 2048 },
	{ "by name inside a node list", D_NODES,
	  { "Buffer.depth=2048" }, P_SIZE, "Buffer", NULL, 128, 2048 },
	{ "a wildcard: every component with the key", D_EYERISS,
	  { "*.read_bandwidth=64" }, P_READ_BW, "shared_glb", NULL, 16, 64 },
	{ "a wildcard: every component with the key (another)", D_EYERISS,
	  { "*.read_bandwidth=64" }, P_READ_BW, "psum_spad", NULL, 2, 64 },
	{ "a whole top-level key", D_FLAT, { "mapping=[]" }, P_HAS_MAPPING, NULL, NULL, 1, 0 },
	{ "a top-level key no file gives", D_FLAT, { "mapper={search_size: 10}" },
	  P_SEARCH_SIZE, NULL, NULL, 0, 10 },
	{ "later overrides see earlier ones", D_FLAT,
	  { "problem.instance.densities.A.density=0.1", "problem.instance.densities.A.density=0.2" },
	  P_DENSITY, "A", NULL, 0.25, 0.2 },
};

static void test_good(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good_rows); i++) {
		const struct good_row *r = &good_rows[i];
		const char *const none[] = { NULL };
		struct spec_override ov[MAX_OV];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s0 = build(r->d, none, ov, &dl);
		struct spec_set *s = build(r->d, r->ov, ov, &dl);
		if (!s0 || !s || dl.n_errors) {
			char *got = render(&dl);
			fprintf(stderr, "row %zu (%s):\n%s", i, r->what, got);
			free(got);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_DOUBLE_EQUAL(probe(s0, r->p, r->name, r->name2), r->before, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(probe(s, r->p, r->name, r->name2), r->after, 1e-9);
		spec_set_free(s);
		spec_set_free(s0);
		release_all(ov, r->ov);
		diag_list_release(&dl);
	}
}

/* ------------------------------------------------------- bad overrides */

struct bad_row {
	const char *what;
	enum design d;
	const char *ov[MAX_OV + 1];
	const char *expected;     /* every diagnostic, as render() writes them */
};

static const struct bad_row bad_rows[] = {
	{ "missing '='", D_FLAT, { "problem.instance.M" },
	  "--set 'problem.instance.M':1:19: error: expected PATH=VALUE: no '=' after the path\n" },
	{ "empty path", D_FLAT, { "=5" },
	  "--set '=5':1:1: error: the path before '=' is empty\n" },
	{ "empty key", D_FLAT, { "problem..M=5" },
	  "--set 'problem..M=5':1:9: error: expected a key after '.'\n" },
	{ "unclosed selector", D_FLAT, { "mapping[target=Buffer=1" },
	  "--set 'mapping[target=Buffer=1':1:8: error: '[' is not closed\n" },
	{ "empty selector", D_FLAT, { "mapping[]=1" },
	  "--set 'mapping[]=1':1:8: error: expected [N] or [KEY=VALUE,...], got '[]'\n" },
	{ "a selector that is neither", D_FLAT, { "mapping[Buffer]=1" },
	  "--set 'mapping[Buffer]=1':1:9: error: expected [N] or [KEY=VALUE,...], got '[Buffer]'\n" },
	{ "text after ']'", D_FLAT, { "mapping[0]factors=1" },
	  "--set 'mapping[0]factors=1':1:11: error: expected '.' or '[' after ']'\n" },
	{ "unknown top-level key", D_FLAT, { "problm.instance.M=5" },
	  "--set 'problm.instance.M=5':1:1: error: unknown top-level key 'problm'; did you mean "
	  "'problem'?\n" },
	{ "a name no component has, near one", D_EYERISS, { "psum_spd.depth=8" },
	  "--set 'psum_spd.depth=8':1:1: error: unknown top-level key 'psum_spd', nor a "
	  "component's name; did you mean 'psum_spad'?\n" },
	{ "a name several components have", D_FLAT, { "A.density=0.3" },
	  "--set 'A.density=0.3':1:1: error: 'A' names 3 components (problem.shape."
	  "data_spaces[0], sparse_optimizations.targets[0].representation_format.data_spaces[0], "
	  "sparse_optimizations.targets[1].representation_format.data_spaces[1]); write the path "
	  "of the one meant\n" },
	{ "a wildcard that matches nothing", D_FLAT, { "*.colour=red" },
	  "--set '*.colour=red':1:1: error: '*' matches no component with 'colour' (itself or in "
	  "its attributes)\n" },
	{ "an ignored top-level key", D_FLAT, { "globals.x=1" },
	  "--set 'globals.x=1':1:1: error: 'globals' is accepted and ignored: an override of it "
	  "would change nothing\n" },
	{ "a top-level key no file gives, with a path below it", D_FLAT, { "mapper.search_size=5" },
	  "--set 'mapper.search_size=5':1:1: error: no file gives 'mapper' (only the last key of a "
	  "path may be new)\n" },
	{ "unknown key: the nearest key", D_FLAT, { "problem.instanc.M=5" },
	  "--set 'problem.instanc.M=5':1:9: error: no key 'instanc' in 'problem'; did you mean "
	  "'instance'?\n"
	  "input.yaml:82:5: note: 'problem' is given here\n" },
	{ "unknown key: where densities live", D_FLAT, { "problem.densities.A.density=0.1" },
	  "--set 'problem.densities.A.density=0.1':1:9: error: no key 'densities' in 'problem'; did "
	  "you mean 'problem.instance.densities.A.density'?\n"
	  "input.yaml:82:5: note: 'problem' is given here\n" },
	{ "unknown key, nothing near", D_FLAT, { "problem.instance.densities.Inputs.density=0.1" },
	  "--set 'problem.instance.densities.Inputs.density=0.1':1:28: error: no key 'Inputs' in "
	  "'problem.instance.densities' (only the last key of a path may be new)\n"
	  "input.yaml:111:13: note: 'problem.instance.densities' is given here\n" },
	{ "index out of range", D_FLAT, { "architecture.subtree[3].local=[]" },
	  "--set 'architecture.subtree[3].local=[]':1:21: error: index 3 is out of range: "
	  "'architecture.subtree' has 1 item\n" },
	{ "no list item with that name", D_FLAT,
	  { "architecture.subtree[0].local[name=Bufer].attributes.depth=5" },
	  "--set 'architecture.subtree[0].local[name=Bufer].attributes.depth=5':1:30: error: no item "
	  "of 'architecture.subtree[0].local' has name=Bufer; did you mean 'Buffer'? (values of "
	  "'name': BackingStorage[1..1], Buffer[1..1], mac[1..1])\n"
	  "input.yaml:13:11: note: 'architecture.subtree[0].local' is given here\n" },
	{ "no item with both conditions", D_FLAT,
	  { "mapping[target=Buffer,type=spatial].factors=M8" },
	  "--set 'mapping[target=Buffer,type=spatial].factors=M8':1:8: error: no item of 'mapping' "
	  "has target=Buffer,type=spatial (values of 'type': datatype, temporal)\n"
	  "map.yaml:2:3: note: 'mapping' is given here\n" },
	{ "several items match", D_FLAT, { "mapping[target=Buffer].factors=M8" },
	  "--set 'mapping[target=Buffer].factors=M8':1:8: error: 'mapping[target=Buffer]' matches "
	  "2 items ([0], [2]); add a condition to pick one\n" },
	{ "a selector on a non-list", D_FLAT, { "problem.instance[0]=5" },
	  "--set 'problem.instance[0]=5':1:17: error: 'problem.instance' is a mapping, not a list: "
	  "'[0]' needs a list\n" },
	{ "a key on a list", D_FLAT, { "mapping.factors=M8" },
	  "--set 'mapping.factors=M8':1:9: error: 'mapping' is a list, not a mapping: pick an item "
	  "with [N] or [KEY=VALUE]\n" },
	{ "a key on a scalar", D_FLAT, { "problem.instance.M.x=5" },
	  "--set 'problem.instance.M.x=5':1:20: error: 'problem.instance.M' is a scalar, not a "
	  "mapping\n" },
	{ "an added misspelt instance key", D_FLAT, { "problem.instance.MM=5" },
	  "--set 'problem.instance.MM=5':1:18: error: in 'problem.instance': 'MM' is neither a "
	  "dimension nor a coefficient; did you mean 'M'?\n"
	  "input.yaml:107:9: note: the override adds 'MM' to the mapping given here\n" },
	{ "an added misspelt attribute", D_FLAT,
	  { "architecture.subtree[0].local[name=Buffer].attributes.deptth=2048" },
	  "--set 'architecture.subtree[0].local[name=Buffer].attributes.deptth=2048':1:55: error: "
	  "in 'architecture.subtree[0].local[1].attributes': unknown attribute 'deptth'; did you "
	  "mean 'depth'?\n"
	  "input.yaml:43:17: note: the override adds 'deptth' to the mapping given here\n"
	  "input.yaml:513:23: warning: the format of 'A' at 'Buffer' is unused: the mapping "
	  "bypasses 'A' there\n" },
	{ "an added unknown attribute, inherited by every level (one error)", D_TREE,
	  { "architecture.subtree[0].attributes.colour=red" },
	  "--set 'architecture.subtree[0].attributes.colour=red':1:36: error: unknown attribute "
	  "'colour'\n"
	  "tree_v03.yaml:9:7: note: the override adds 'colour' to the mapping given here\n" },
	{ "an added misspelt key in a closed schema", D_FLAT, { "problem.shape.nmae=x" },
	  "--set 'problem.shape.nmae=x':1:15: error: in 'problem.shape': unknown key 'nmae'; did you "
	  "mean 'name'?\n"
	  "input.yaml:84:9: note: the override adds 'nmae' to the mapping given here\n" },
	{ "a new value for an instance key nothing reads", D_EYERISS, { "problem.instance.Wpad=2" },
	  "--set 'problem.instance.Wpad=2':1:23: error: in 'problem.instance': 'Wpad' is neither a "
	  "dimension nor a coefficient\n"
	  "input.yaml:201:15: note: the override replaces the value given here\n" },
	{ "a bad value", D_FLAT, { "problem.instance.M=-5" },
	  "--set 'problem.instance.M=-5':1:20: error: in 'problem.instance.M': expected an integer "
	  ">= 1, got '-5'\n"
	  "input.yaml:107:12: note: the override replaces the value given here\n" },
	{ "a bad value inside a whole-map value", D_FLAT,
	  { "problem.instance.densities.A={distribution: hypergeometric, density: 2}" },
	  "--set 'problem.instance.densities.A={distribution: hypergeometric, density: 2}':1:70: "
	  "error: in 'problem.instance.densities.A.density': expected a number in [0, 1], got "
	  "'2'\n"
	  "input.yaml:112:17: note: the override replaces the value given here\n" },
	{ "a value that is not YAML", D_FLAT, { "problem.instance.M=[1" },
	  "--set 'problem.instance.M=[1':1:22: error: YAML syntax error: did not find expected ',' "
	  "or ']'\n"
	  "--set 'problem.instance.M=[1':1:20: note: while parsing a flow sequence\n" },
	{ "a named format beside ranks", D_FLAT,
	  { "sparse_optimizations.targets[name=BackingStorage].representation_format"
	    ".data_spaces[name=A].format=CSR" },
	  "input.yaml:498:17: error: in 'sparse_optimizations.targets[0].representation_format"
	  ".data_spaces[0]': give either 'ranks' or a named 'format', not both; to replace the "
	  "ranks by a named format, also set 'ranks' to null\n"
	  "--set 'sparse_optimizations.targets[name=BackingStorage].representation_format"
	  ".data_spaces[name=A].format=CSR':1:93: note: 'format' is set by this override\n" },
	{ "every bad override is reported", D_FLAT,
	  { "problem.instanc.M=5", "problem.instance.K=0" },
	  "--set 'problem.instanc.M=5':1:9: error: no key 'instanc' in 'problem'; did you mean "
	  "'instance'?\n"
	  "input.yaml:82:5: note: 'problem' is given here\n" },
};

static void test_bad(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_rows); i++) {
		const struct bad_row *r = &bad_rows[i];
		struct spec_override ov[MAX_OV];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = build(r->d, r->ov, ov, &dl);
		char *got = render(&dl);
		if (strcmp(got, r->expected))
			fprintf(stderr, "row %zu (%s): expected\n%sgot\n%s", i, r->what, r->expected,
				got);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_STRING_EQUAL(got, r->expected);
		free(got);
		spec_set_free(s);
		release_all(ov, r->ov);
		diag_list_release(&dl);
	}
}

/* ------------------------------------------------ sources and sets */

/* Every node under 'n', with its location, into 'sb' (a fingerprint of the tree). */
static void dump(const struct ysrc_node *n, struct strbuf *sb)
{
	size_t i;
	strbuf_addf(sb, "<%d %u:%u %s", (int)n->kind, n->loc.line, n->loc.col,
		    n->kind == YSRC_SCALAR ? n->str : "");
	for (i = 0; i < n->n; i++) {
		if (n->kind == YSRC_MAP) {
			strbuf_addf(sb, " %s=", n->pairs[i].key->str);
			dump(n->pairs[i].value, sb);
		} else {
			dump(n->items[i], sb);
		}
	}
	strbuf_addch(sb, '>');
}

/* The fingerprint of every top-level value of 'src'. */
static char *fingerprint(const struct spec_source *src)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;
	for (i = 0; i < src->n_top; i++)
		for (j = 0; j < src->top[i].n; j++) {
			strbuf_addf(&sb, "%s:", src->top[i].key);
			dump(src->top[i].values[j], &sb);
		}
	return strbuf_detach(&sb, NULL);
}

/* Two builds from one source are independent, and the source does not change. */
static void test_independent(void)
{
	static const char *const one[] = {
		"problem.instance.densities.A.density=0.1",
		"architecture.subtree[0].local[name=Buffer].attributes={depth: 64, width: 8, "
		"datawidth: 8}", NULL };
	static const char *const two[] = { "problem.instance.densities.A.density=0.2", NULL };
	static const char *const none[] = { NULL };
	const struct spec_source *src = source_of(D_FLAT);
	char *before = fingerprint(src), *after;
	struct spec_override ov1[MAX_OV], ov2[MAX_OV], ov0[MAX_OV];
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s1 = build(D_FLAT, one, ov1, &dl);
	struct spec_set *s2 = build(D_FLAT, two, ov2, &dl);
	struct spec_set *s0 = build(D_FLAT, none, ov0, &dl);
	struct spec_set *loaded = load_design(D_FLAT, &dl);

	CU_ASSERT_EQUAL(dl.n_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(loaded);
	CU_ASSERT_DOUBLE_EQUAL(probe(s1, P_DENSITY, "A", NULL), 0.1, 0);
	CU_ASSERT_DOUBLE_EQUAL(probe(s1, P_SIZE, "Buffer", NULL), 64, 0);
	CU_ASSERT_DOUBLE_EQUAL(probe(s1, P_READ_BW, "Buffer", NULL), 0, 0);  /* gone with the map */
	spec_set_free(s1);        /* s2 and s0 do not depend on s1 */
	CU_ASSERT_DOUBLE_EQUAL(probe(s2, P_DENSITY, "A", NULL), 0.2, 0);
	CU_ASSERT_DOUBLE_EQUAL(probe(s2, P_SIZE, "Buffer", NULL), 128, 0);
	CU_ASSERT_DOUBLE_EQUAL(probe(s0, P_DENSITY, "A", NULL), 0.25, 0);
	st_assert_same_design(s0, loaded, true);
	spec_set_free(loaded);
	loaded = load_design_with(D_FLAT, ov2, 1, &dl);     /* a set that owns its source */
	CU_ASSERT_PTR_NOT_NULL_FATAL(loaded);
	CU_ASSERT_TRUE(loaded->owns_source);
	st_assert_same_design(s2, loaded, true);
	CU_ASSERT_EQUAL(s0->n_files, loaded->n_files);
	after = fingerprint(src);
	CU_ASSERT_STRING_EQUAL(before, after);
	free(before);
	free(after);
	spec_set_free(s2);
	spec_set_free(s0);
	spec_set_free(loaded);
	release_all(ov1, one);
	release_all(ov2, two);
	diag_list_release(&dl);
}

/* The JSON report of the model's evaluation of the mapping of 's' (caller frees). */
static char *json_of(const struct spec_set *s)
{
	struct model_options opt = MODEL_OPTIONS_INIT;
	struct model_result *r = xmalloc(sizeof(*r));
	struct strbuf out = STRBUF_INIT;
	struct model_ws *ws = model_ws_new(s, &opt, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
	model_eval(ws, s->mapping, r);
	report_json(s, s->mapping, r, s->files, s->n_files, &out);
	model_ws_free(ws);
	free(r);
	return strbuf_detach(&out, NULL);
}

/*
 * With no overrides a build equals spec_set_load() in every design: the
 * same parsed design, warnings, and JSON report of the model's evaluation.
 */
static void test_same_as_load(void)
{
	unsigned d;
	for (d = 0; d < D_COUNT; d++) {
		struct diag_list dl = DIAG_LIST_INIT, dl2 = DIAG_LIST_INIT;
		struct spec_set *b = spec_set_build(source_of(d), NULL, 0, NULL, &dl);
		struct spec_set *l = load_design(d, &dl2);
		char *w1 = render(&dl), *w2 = render(&dl2);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(l);
		st_assert_same_design(b, l, true);
		CU_ASSERT_STRING_EQUAL(w1, w2);        /* the same warnings too */
		if (b->has_mapping) {
			char *j1 = json_of(b), *j2 = json_of(l);
			CU_ASSERT_STRING_EQUAL(j1, j2);
			free(j1);
			free(j2);
		}
		CU_ASSERT_TRUE(l->owns_source);
		CU_ASSERT_FALSE(b->owns_source);
		free(w1);
		free(w2);
		spec_set_free(b);
		spec_set_free(l);
		diag_list_release(&dl);
		diag_list_release(&dl2);
	}
}

/* A source from in-memory text: its name in locations, its files relative to it. */
static void test_text_source(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = spec_source_new();
	struct spec_override ov = SPEC_OVERRIDE_INIT;
	struct spec_set *s, *bad, *loaded;
	char *got;

	CU_ASSERT_EQUAL_FATAL(fileio_read(design_path(D_NAMED, 0), &text, &err), 0);
	CU_ASSERT_EQUAL(spec_source_add_text(src, "mem/named.yaml", text.buf, text.len, &dl), 0);
	strbuf_release(&text);       /* the source keeps nothing of the caller's text */
	s = spec_set_build(src, NULL, 0, NULL, &dl);
	loaded = load_design(D_NAMED, &dl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(loaded);
	st_assert_same_design(s, loaded, true);
	CU_ASSERT_STRING_EQUAL(s->files[0], "mem/named.yaml");
	CU_ASSERT_EQUAL(spec_override_parse("problem.instance.N=0", &ov, &dl), 0);
	bad = spec_set_build(src, &ov, 1, NULL, &dl);
	CU_ASSERT_PTR_NULL(bad);
	got = render(&dl);
	CU_ASSERT_STRING_EQUAL(got,
		"--set 'problem.instance.N=0':1:20: error: in 'problem.instance.N': expected an "
		"integer >= 1, got '0'\n"
		"named.yaml:30:8: note: the override replaces the value given here\n");
	CU_ASSERT_STRING_EQUAL(dl.items[1].loc.file, "mem/named.yaml");
	CU_ASSERT_PTR_EQUAL(dl.items[0].loc.file, ov.origin);
	free(got);
	spec_set_free(s);
	spec_set_free(loaded);
	spec_source_free(src);
	spec_override_release(&ov);
	strbuf_release(&err);
	diag_list_release(&dl);
}

/*
 * An attribute that nothing reads is ignored in a file, but a value that an
 * override gives it is an error (once, though every level inherits it).
 */
static void test_unread_attribute(void)
{
	static const char text[] =
		"architecture:\n"
		"  subtree:\n"
		"  - name: sys\n"
		"    attributes: {vendor: acme}\n"
		"    local:\n"
		"    - {name: L, class: SRAM, attributes: {depth: 8, vendor: acme}}\n"
		"    - {name: mac, class: intmac}\n";
	static const char *const texts[] = { "architecture.subtree[0].local[name=L].attributes"
					     ".vendor=other", "architecture.subtree[0]"
					     ".attributes.vendor=other" };
	static const char *const expected[] = {
		"--set 'architecture.subtree[0].local[name=L].attributes.vendor=other':1:57: error: "
		"in 'architecture.subtree[0].local[0].attributes': unknown attribute 'vendor'\n"
		"d.yaml:6:61: note: the override replaces the value given here\n",
		"--set 'architecture.subtree[0].attributes.vendor=other':1:43: error: unknown "
		"attribute 'vendor'\n"
		"d.yaml:4:26: note: the override replaces the value given here\n",
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = spec_source_new();
	struct spec_set *s;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(spec_source_add_text(src, "d.yaml", text, strlen(text), &dl), 0);
	s = spec_set_build(src, NULL, 0, (&(struct spec_load_options){ .allow_no_problem = true }),
			   &dl);
	CU_ASSERT_PTR_NOT_NULL(s);            /* the file's own 'vendor' is accepted */
	CU_ASSERT_EQUAL(dl.n, 0);
	spec_set_free(s);
	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list dl2 = DIAG_LIST_INIT;
		char *got;
		spec_override_parse(texts[i], &ov, &dl2);
		s = spec_set_build(src, &ov, 1, (&(struct spec_load_options){
					.allow_no_problem = true }), &dl2);
		got = render(&dl2);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_STRING_EQUAL(got, expected[i]);
		free(got);
		spec_override_release(&ov);
		diag_list_release(&dl2);
	}
	spec_source_free(src);
	diag_list_release(&dl);
}

/* A source whose files have errors builds nothing, and says so. */
static void test_broken_source(void)
{
	static const char bad_yaml[] = "problem: [\n";
	static const char unknown[] = "problm: {}\n";
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_source *src = spec_source_new(), *empty = spec_source_new();

	CU_ASSERT_EQUAL(spec_source_add_text(src, "a.yaml", bad_yaml, strlen(bad_yaml), &dl), -1);
	CU_ASSERT_EQUAL(spec_source_add_text(src, "b.yaml", unknown, strlen(unknown), &dl), -1);
	CU_ASSERT_EQUAL(dl.n_errors, 2);
	CU_ASSERT_PTR_NULL(spec_set_build(src, NULL, 0, NULL, &dl));
	CU_ASSERT_PTR_NULL(spec_set_build(empty, NULL, 0, NULL, &dl));
	CU_ASSERT_EQUAL_FATAL(dl.n, 5);    /* the syntax error has a note */
	CU_ASSERT_STRING_EQUAL(dl.items[3].message, "the design's files have errors; no spec set "
			       "is built from them");
	CU_ASSERT_STRING_EQUAL(dl.items[4].message, "no input files");
	spec_source_free(src);
	spec_source_free(empty);
	spec_source_free(NULL);
	diag_list_release(&dl);
}

/* spec_override_parse(): the parts of "PATH=VALUE" and their columns. */
static void test_parse(void)
{
	static const struct {
		const char *text, *path, *value;
		unsigned value_col;
	} rows[] = {
		{ "problem.instance.M=512", "problem.instance.M", "512", 20 },
		{ "mapping[target=Buffer,type=temporal].factors=M4 N8",
		  "mapping[target=Buffer,type=temporal].factors", "M4 N8", 46 },
		{ "a.b={x: 1, y: [2, 3]}", "a.b", "{x: 1, y: [2, 3]}", 5 },
		{ "a.b=", "a.b", "", 5 },
		{ "a.b=x=y", "a.b", "x=y", 5 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list dl = DIAG_LIST_INIT;
		char origin[256];
		CU_ASSERT_EQUAL(spec_override_parse(rows[i].text, &ov, &dl), 0);
		CU_ASSERT_STRING_EQUAL(ov.text, rows[i].text);
		CU_ASSERT_STRING_EQUAL(ov.path, rows[i].path);
		CU_ASSERT_STRING_EQUAL(ov.value, rows[i].value);
		CU_ASSERT_EQUAL(ov.value_col, rows[i].value_col);
		snprintf(origin, sizeof(origin), "--set '%s'", rows[i].text);
		CU_ASSERT_STRING_EQUAL(ov.origin, origin);
		spec_override_release(&ov);
		CU_ASSERT_PTR_NULL(ov.buf_);
		diag_list_release(&dl);
	}
}

/*
 * Overrides read from a file (a batch job's 'set') are located where they
 * are written: "PATH=VALUE" from 'at' on; PATH: VALUE at 'at' and
 * 'value_at'; a value's error and a path's, at their own columns.
 */
static void test_placed(void)
{
	static const struct {
		const char *text;
		struct diag_loc at, value_at;
		const char *expected;
	} rows[] = {
		{ "problem.instance.densities.B.density=1.5", { "jobs.yaml", 7, 12 }, { NULL, 0, 0 },
		  "jobs.yaml:7:49: error: in 'problem.instance.densities.B.density': expected a "
		  "number in [0, 1], got '1.5'\n"
		  "input.yaml:118:26: note: the override replaces the value given here\n" },
		{ "problem.instance.densities.B.density=1.5", { "jobs.yaml", 6, 7 },
		  { "jobs.yaml", 6, 46 },
		  "jobs.yaml:6:46: error: in 'problem.instance.densities.B.density': expected a "
		  "number in [0, 1], got '1.5'\n"
		  "input.yaml:118:26: note: the override replaces the value given here\n" },
		{ "problem..instance.M=3", { "jobs.yaml", 3, 5 }, { "jobs.yaml", 4, 9 },
		  "jobs.yaml:3:13: error: expected a key after '.'\n" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = NULL;
		char *got;
		ov.at = rows[i].at;
		ov.value_at = rows[i].value_at;
		if (spec_override_parse(rows[i].text, &ov, &dl) == 0)
			s = spec_set_build(source_of(D_FLAT), &ov, 1, NULL, &dl);
		got = render(&dl);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_STRING_EQUAL(got, rows[i].expected);
		if (strcmp(got, rows[i].expected))
			fprintf(stderr, "row %zu: got\n%s", i, got);
		free(got);
		spec_set_free(s);
		spec_override_release(&ov);
		diag_list_release(&dl);
	}
}

/* ------------------------------------------------------------- threads */

struct worker {
	const struct spec_source *src;
	unsigned id;
	unsigned n_ok;
};

/* Build sets with this worker's own densities and check each. */
static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned i;

	for (i = 0; i < 40; i++) {
		char text[96];
		double want = (double)(w->id * 40 + i + 1) / 1000.0;
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s;
		snprintf(text, sizeof(text), "problem.instance.densities.B.density=%g", want);
		spec_override_parse(text, &ov, &dl);
		s = spec_set_build(w->src, &ov, 1, NULL, &dl);
		if (s && s->workload.tensors[1].density.density == want && !dl.n_errors)
			w->n_ok++;
		spec_set_free(s);
		spec_override_release(&ov);
		diag_list_release(&dl);
	}
	return NULL;
}

/* Several threads build from one source at once. */
static void test_threads(void)
{
	struct worker w[2] = { { source_of(D_FLAT), 0, 0 }, { source_of(D_FLAT), 1, 0 } };
	pthread_t t[2];
	unsigned i;

	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, work, &w[i]), 0);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(w[0].n_ok, 40);
	CU_ASSERT_EQUAL(w[1].n_ok, 40);
}

static void free_sources(void)
{
	unsigned d;
	for (d = 0; d < D_COUNT; d++)
		spec_source_free(sources[d]);
}

/*
 * A PATH=VALUE is parsed once per source (specs/override.c): each build
 * with it gets the value, located in its own override at the value's
 * column; another value of the same path, or the same value at another
 * column, is parsed anew; a value that does not parse is reported by
 * every build.
 */
struct once_row {
	const char *text;
	double density;              /* of A; < 0: the build fails */
	const char *error;
};

static const struct once_row once_rows[] = {
	{ "problem.instance.densities.A.density=0.1", 0.1, NULL },
	{ "problem.instance.densities.A.density=0.3", 0.3, NULL },
	{ "problem.instance.densities.A.density=0.1", 0.1, NULL },
	{ "problem.instance.densities.A.density= 0.1", 0.1, NULL },
	{ "problem.instance.densities.A.density=[0.1", -1, "YAML syntax error" },
	{ "problem.instance.densities.A.density=[0.1", -1, "YAML syntax error" },
	{ "problem.instance.densities.A.density=1.5", -1, "expected a number in [0, 1]" },
	{ "problem.instance.densities.A.density=1.5", -1, "expected a number in [0, 1]" },
	{ "problem.instance.densities.A.density=0.3", 0.3, NULL },
};

static void test_parsed_once(void)
{
	size_t i, t;

	for (i = 0; i < sizeof(once_rows) / sizeof(once_rows[0]); i++) {
		const struct once_row *r = &once_rows[i];
		const char *texts[] = { r->text, NULL };
		struct spec_override ov[MAX_OV];
		struct diag_list dl = DIAG_LIST_INIT;
		struct spec_set *s = build(D_FLAT, texts, ov, &dl);
		char *got = st_diags(&dl);
		CU_ASSERT_EQUAL(s != NULL, r->density >= 0);
		if (r->error)
			CU_ASSERT_PTR_NOT_NULL(strstr(got, r->error));
		for (t = 0; s && t < s->workload.n_tensors; t++)
			if (!strcmp(s->workload.tensors[t].name, "A"))
				CU_ASSERT_DOUBLE_EQUAL(s->workload.tensors[t].density.density,
						       r->density, 0);
		if (r->error) {   /* a message at the value of this build's override */
			unsigned col = ov[0].value_col + (r->text[strlen(r->text) - 4] == ' ');
			bool at = false;
			size_t k;
			for (k = 0; k < dl.n; k++)
				at |= dl.items[k].loc.file &&
				      !strcmp(dl.items[k].loc.file, ov[0].origin) &&
				      dl.items[k].loc.line == 1 && dl.items[k].loc.col >= col &&
				      dl.items[k].loc.col <= col + 1;
			CU_ASSERT_TRUE(at);
		}
		free(got);
		spec_set_free(s);
		release_all(ov, texts);
		diag_list_release(&dl);
	}
}

static CU_TestInfo tests[] = {
	{ "overrides give their values, in every dialect", test_good },
	{ "bad overrides: exact diagnostics", test_bad },
	{ "independent sets, unchanged source", test_independent },
	{ "no overrides: the same as spec_set_load", test_same_as_load },
	{ "a source from text", test_text_source },
	{ "a source with errors builds nothing", test_broken_source },
	{ "an override of an attribute nothing reads", test_unread_attribute },
	{ "PATH=VALUE", test_parse },
	{ "overrides located where a file wrote them", test_placed },
	{ "threads share a source", test_threads },
	{ "a PATH=VALUE parsed once", test_parsed_once },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "override", .pTests = tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	int rc;
	if (!unit_conformance_dir()) {
		fprintf(stderr, "conformance corpus not found\n");
		return 77;
	}
	rc = unit_main(suites);
	free_sources();
	return rc;
}
