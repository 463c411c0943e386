/*
 * Internals of energy/: attribute dictionaries in Accelergy's order and
 * evaluation rules (attrs.c), the estimation context, the estimator table
 * (estimators.c) and the models behind it (library.c, aladdin.c, cacti.c,
 * sram.c, neurosim.c, tech.c).
 */
#ifndef ENERGY_ENERGY_INT_H
#define ENERGY_ENERGY_INT_H

#include "energy/energy.h"

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---------------------------------------------------- attribute dictionaries */

/* One attribute: a name and its evaluated value, with where it was written. */
struct eattr {
	const char *key;
	struct spec_value v;
	struct diag_loc loc;           /* file 0: made here (a default, a propagated key) */
};

/* An ordered dictionary of attributes (Python dict semantics: an update keeps the place). */
struct eattrs {
	size_t n, cap;
	struct eattr *v;               /* in the context's arena */
};

#define EATTRS_INIT { 0, 0, NULL }

struct ectx;

/* The attribute 'key' of 'a', or NULL. */
const struct eattr *eattrs_get(const struct eattrs *a, const char *key);

/* Set 'key' to 'v' (in place when present, else appended). */
void eattrs_set(struct ectx *c, struct eattrs *a, const char *key, const struct spec_value *v,
		struct diag_loc loc);

/* A copy of 'a' in the context's arena. */
void eattrs_copy(struct ectx *c, struct eattrs *dst, const struct eattrs *src);

/* Attribute 'key' as a number; false when absent or not a number. */
bool eattrs_number(const struct eattrs *a, const char *key, double *out);

/* Attribute 'key' as text (a string, or a number as Python prints it); NULL when absent. */
const char *eattrs_text(struct ectx *c, const struct eattrs *a, const char *key);

/* Python's str() of 'v' in the context's arena. */
const char *eattrs_value_text(struct ectx *c, const struct spec_value *v);

/* A technology value ("45nm", 45, "0.045um") in nm; false when it is none. */
bool energy_tech_nm(const struct spec_value *v, double *nm);

/* ------------------------------------------------------------ the context */

/* The SRAM model's result for one organization query, memoized per estimate. */
struct sram_result {
	double read_j, write_j;        /* per access */
	double leak_w;                 /* standby leakage, all banks */
	double area_m2;
	double cycle_s;                /* random cycle time */
};

struct sram_memo {
	double size_bytes, block_bytes, tech_nm, n_banks, n_ports;
	struct sram_result r;
};

struct ectx {
	const struct spec_set *s;
	struct arena *a;               /* the tables' */
	struct diag_list *dl;
	int rc;                        /* -1 once an error was reported */
	size_t n_sram, alloc_sram;
	struct sram_memo *sram;        /* xmalloc'ed; freed with the context */
	/*
	 * The library's answer to the query being priced: its accuracy looks the
	 * entry up, its estimate takes the value found (energy_price() clears it
	 * before asking, so it never outlives one query).
	 */
	const struct equery *lib_q;
	double lib_value;
};

/* ---------------------------------------------------------------- queries */

/* A question to the estimators: the energy of an action, or (action NULL) an area. */
struct equery {
	const char *class_name;
	const struct eattrs *attrs;    /* the primitive's, required keys propagated */
	const char *action;            /* NULL: the area */
	const struct eattrs *args;     /* the action's arguments; may be NULL */
};

/* An estimator: one of Accelergy's standard plug-ins, as a model of ours. */
struct estimator {
	const char *name;              /* as Accelergy names the plug-in */
	enum energy_family family;
	/*
	 * Its accuracy for 'q' (0: it does not price it), as the plug-in reports;
	 * for a class it knows but a query it cannot price, the reason goes to
	 * 'why'.
	 */
	int (*accuracy)(struct ectx *c, const struct equery *q, struct strbuf *why);
	/*
	 * The energy (pJ) or area (um^2) of 'q': 0, or -1 with the reason in
	 * 'why' (the next estimator is tried, as Accelergy does).
	 */
	int (*estimate)(struct ectx *c, const struct equery *q, double *value, struct strbuf *why);
};

extern const struct estimator energy_est_library, energy_est_aladdin, energy_est_cacti_sram,
	energy_est_cacti_dram, energy_est_neurosim, energy_est_dummy;

/*
 * Price 'q' with the most accurate estimator that can (ties: Accelergy's
 * order of its plug-ins). Returns 0 with '*value' and '*family', or -1 with
 * every estimator's reason in 'why'.
 */
int energy_price(struct ectx *c, const struct equery *q, double *value,
		 enum energy_family *family, struct strbuf *why);

/*
 * True when some estimator prices primitive class 'cls' (case ignored);
 * sets the list of every such class, for hints.
 */
bool energy_primitive_known(const char *cls, size_t *n, const char *const **names);

/* True for the DRAM classes: CACTI's DRAM model prices them by type alone, with no technology. */
bool energy_is_dram(const char *cls);

/* ----------------------------------------------------- expansion (expand.c) */

/*
 * Expand and price one component of the architecture into 'ec' (whose name
 * and component are set): class 'class_name' (a compound class of the
 * design, else a primitive), located at 'loc', with the attributes
 * attrs[0..n_attrs) (own, then inherited). A dummy level gets an area only.
 * Returns 0, or -1 after reporting to c->dl.
 */
int energy_expand_component(struct ectx *c, struct energy_component *ec, const char *class_name,
			    struct diag_loc loc, size_t n_attrs, const struct spec_attr *attrs,
			    bool is_storage, bool is_dummy, bool want_energy, bool want_area);

/* ------------------------------------------------ technology scaling (tech.c) */

/*
 * The factor from node 'from_nm' to 'to_nm' for energy (supply voltage
 * 'vdd' V; <= 0: 0.8 V) and for area, from Stillmaker & Baas's scaling
 * equations (docs/energy.md); false when a node is outside 7-130 nm.
 */
bool energy_tech_energy_scale(double from_nm, double to_nm, double vdd, double *out);
bool energy_tech_area_scale(double from_nm, double to_nm, double *out);

/* ---------------------------------------------------- the SRAM model (sram.c) */

/*
 * The CACTI-like model of an SRAM of 'size_bytes' with accesses of
 * 'block_bytes', 'n_banks' banks and 'n_ports' read/write ports at a node
 * CACTI has parameters for (22, 32, 45, 65 or 90 nm). Returns 0, or -1 for
 * a size it cannot organize.
 */
int energy_sram_model(double size_bytes, double block_bytes, int tech_nm, int n_banks,
		      int n_ports, struct sram_result *out);

/* An SRAM bank's partition: Nspd, Ndwl, Ndbl, Ndcm, Ndsam1, Ndsam2 (CACTI's names). */
struct sram_org {
	double nspd;
	int ndwl, ndbl, ndcm, ndsam1, ndsam2;
};

/*
 * energy_sram_model(), also giving the partition chosen ('org' may be NULL);
 * 'exhaustive' evaluates every partition (and every repeater of the wires)
 * instead of pruning by lower bounds: the same choice, bit for bit, ~35x
 * slower; for the model's tests.
 */
int energy_sram_organize(double size_bytes, double block_bytes, int tech_nm, int n_banks,
			 int n_ports, bool exhaustive, struct sram_result *out, struct sram_org *org);

#endif
