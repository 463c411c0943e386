/*
 * energy: what Accelergy computes, embedded. energy_estimate() takes each
 * storage level and the compute unit of a design, expands its compound
 * component class (attribute expressions, subcomponents and their [a..b]
 * ranges, action trees, area and energy scales, as Accelergy v0.3/v0.4
 * does) into primitive components, prices every primitive action and area
 * with a model of the family Accelergy's standard plug-ins use (a CACTI-like
 * SRAM, DRAM per type, the component library's and Aladdin's 40/45 nm
 * tables, NeuroSim's adder, technology scaling between nodes), and returns
 * per-action energies and per-instance areas shaped like a parsed ERT/ART.
 * docs/energy.md gives every model and the source of every constant.
 *
 * A user's ERT table or ART entry always wins: by default only what the
 * design's tables lack is estimated. The tables own their memory; the spec
 * set is borrowed while they are built (diagnostics point into its files).
 * Energies are in pJ per action, areas in um^2 per instance.
 */
#ifndef ENERGY_ENERGY_H
#define ENERGY_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"
#include "util/arena.h"
#include "util/diag.h"

struct strbuf;

/* The estimator families, as Accelergy names its plug-ins in ERT_summary. */
enum energy_family {
	ENERGY_FAMILY_CACTI_SRAM,      /* "CactiSRAM": the CACTI-like SRAM model */
	ENERGY_FAMILY_CACTI_DRAM,      /* "CactiDRAM": DRAM energy per bit by type */
	ENERGY_FAMILY_LIBRARY,         /* "Library": the component library's tables */
	ENERGY_FAMILY_ALADDIN,         /* "Aladdin_table": Aladdin's 40/45 nm tables */
	ENERGY_FAMILY_NEUROSIM,        /* "Neurosim Plug-In": NeuroSim's adder model */
	ENERGY_FAMILY_DUMMY,           /* "dummy_table": technology -1 */
	ENERGY_FAMILY_COUNT
};

/* One primitive of a component (for ERT_summary and ART_summary). */
struct energy_primitive {
	const char *name;              /* "storage.comparator[1..8192]", as Accelergy names it */
	const char *class_name;
	enum energy_family family;     /* who priced its area */
	double count;                  /* instances of it in one component */
	double area_um2;               /* one instance, area_scale applied */
};

/* One priced action of a component. */
struct energy_action {
	const char *name;
	double energy_pj;
	double family_pj[ENERGY_FAMILY_COUNT];   /* what each family contributed */
};

/* A storage level or the compute unit, estimated. */
struct energy_component {
	const char *name;              /* "system_top_level.GLB[1..16]" (the ERT's name) */
	const char *component;         /* the level's or the compute unit's name */
	const char *class_name;        /* its class (the subclass when given) */
	int level;                     /* storage level index, -1 for the compute unit */
	uint64_t instances;
	bool has_energy;               /* its actions were estimated */
	bool has_area;                 /* its area was estimated */
	size_t n_actions;
	const struct energy_action *actions;
	struct spec_ert_table ert;     /* the same actions as a parsed ERT table */
	double area_um2;               /* per instance */
	double area_family_um2[ENERGY_FAMILY_COUNT];
	size_t n_prims;
	const struct energy_primitive *prims;   /* for the area (ART_summary) */
	size_t n_used;
	const struct energy_primitive *used;    /* as its actions name them (ERT_summary) */
};

/* What energy_estimate() made. */
struct energy_tables {
	struct arena arena;            /* owns everything below */
	size_t n_components;
	const struct energy_component *components;   /* outermost level first, compute last */
	const struct energy_component *level[SPEC_MAX_LEVELS];   /* by level; NULL: none */
	const struct energy_component *compute;      /* NULL: none */
	uint64_t key;                  /* energy_design_key() of the design */
};

struct energy_options {
	bool all;                      /* estimate every component, even one the user's
					  ERT/ART covers (the 'energy' command) */
};

#define ENERGY_OPTIONS_INIT { false }

/*
 * Estimate the components of 's' that its ERT/ART do not cover (all of them
 * with o->all). 'o' may be NULL. Every problem goes to 'dl', located in the
 * design's files (an unknown class, a missing 'must_specify' attribute, an
 * attribute expression that fails, a technology outside a model's range);
 * returns the tables, or NULL after an error. Dummy levels (spatial
 * containers) get an area and no actions.
 */
struct energy_tables *energy_estimate(const struct spec_set *s, const struct energy_options *o,
				      struct diag_list *dl);

/* True when 's' has a component that energy_estimate() would price. */
bool energy_needed(const struct spec_set *s, const struct energy_options *o);

/* Free 't'; energy_tables_free(NULL) is a no-op. */
void energy_tables_free(struct energy_tables *t);

/* The name of family 'f' as Accelergy writes it ("CactiSRAM", "Library", ...). */
const char *energy_family_name(enum energy_family f);

/* The action named 'name' of 'c', or NULL. */
const struct energy_action *energy_component_action(const struct energy_component *c,
						    const char *name);

/*
 * Accelergy's output files for 't' into 'sb': ERT.yaml, ERT_summary.yaml
 * (each component's primitives with the estimator that priced them),
 * ART.yaml and ART_summary.yaml. Numbers are rounded to 6 decimals, as
 * Accelergy rounds them.
 */
void energy_write_ert(const struct energy_tables *t, struct strbuf *sb);
void energy_write_ert_summary(const struct energy_tables *t, struct strbuf *sb);
void energy_write_art(const struct energy_tables *t, struct strbuf *sb);
void energy_write_art_summary(const struct energy_tables *t, struct strbuf *sb);

/*
 * A hash of everything energy_estimate() reads from 's' (the components'
 * classes and attributes, the compound classes, the variables, the user's
 * tables' coverage, 'o'): two sets with the same key get the same tables.
 */
uint64_t energy_design_key(const struct spec_set *s, const struct energy_options *o);

/*
 * A cache of tables by design key, for the points of a sweep or the jobs of
 * a batch: tables are built once per distinct architecture. Thread-safe.
 */
struct energy_cache;

struct energy_cache *energy_cache_new(void);

/*
 * The tables of 's' (built on first use, then shared; owned by the cache,
 * valid until energy_cache_free()), or NULL with the problems in 'dl'.
 */
const struct energy_tables *energy_cache_get(struct energy_cache *c, const struct spec_set *s,
					     const struct energy_options *o,
					     struct diag_list *dl);

/* Free the cache and its tables; energy_cache_free(NULL) is a no-op. */
void energy_cache_free(struct energy_cache *c);

#endif
