/*
 * The CACTI plug-in's SRAM and DRAM ("CactiSRAM", "CactiDRAM").
 *
 * SRAM: the plug-in rounds a request up to what CACTI organizes (width a
 * multiple of 8 bits and at least 32, depth at least 64 per bank, banks a
 * power of two), asks CACTI for that memory at the nodes it has parameters
 * for (22, 32, 45, 65 and 90 nm) and interpolates linearly between them,
 * then scales back: access energies by (0.7 w + 0.3) d^0.78 for the width
 * and depth fractions w and d (CACTI's 2x depth -> 1.56x energy), leakage
 * and area by w d. Below 22 nm energies scale as the square root of the node
 * and areas linearly (IRDS 2022), leakage also by 0.79 (FinFETs, Parvais et
 * al., VLSI-TSA 2009); above 90 nm everything scales as the node squared.
 * An access is 70% data, 30% address (the plug-in's split for its
 * address_delta / data_delta arguments). The CACTI computation itself is our
 * CACTI-like model (sram.c).
 *
 * DRAM: an access of 'width' bits costs the type's energy per bit; no area,
 * no leakage. docs/energy.md, "CACTI" and "DRAM", give the sources.
 */
#include "energy/energy_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ----------------------------------------------------------------- DRAM */

/* Energy per bit of a DRAM access by type (pJ/bit); docs/energy.md cites each. */
static const struct {
	const char *type;
	double pj_per_bit;
} dram_types[] = {
	{ "LPDDR4", 8 },       /* the CACTI plug-in: "public data" (Accelergy's table) */
	{ "LPDDR", 40 },       /* Malladi et al., ISCA 2012 */
	{ "DDR3", 70 },        /* Chatterjee et al., MICRO 2017 */
	{ "GDDR5", 14 },       /* O'Connor et al., MICRO 2017 */
	{ "GDDR6", 7.5 },      /* Micron's GDDR6/GDDR6X/HBM2E comparison: device power 7.5 pJ/bit */
	{ "HBM2", 3.9 },       /* O'Connor et al., MICRO 2017 */
	{ "HMC", 4.2 },        /* the CACTI plug-in, after doi:10.1145/3093336.3037702 */
};

bool energy_is_dram(const char *cls)
{
	return !strcmp(cls, "DRAM") || !strcmp(cls, "dram");
}

/* An integer attribute > 0, as the plug-in asserts. */
static int want_int(const struct equery *q, const char *key, double dflt, double *v,
		    struct strbuf *why)
{
	const struct eattr *a = eattrs_get(q->attrs, key);

	if (!a) {
		if (dflt <= 0) {
			strbuf_addf(why, "CACTI needs '%s'", key);
			return -1;
		}
		*v = dflt;
		return 0;
	}
	if (!spec_value_number(&a->v, v) || *v != floor(*v) || *v <= 0) {
		strbuf_addf(why, "CACTI needs '%s' to be an integer > 0", key);
		return -1;
	}
	return 0;
}

static int dram_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	(void)c;
	(void)why;
	return energy_is_dram(q->class_name) ? 80 : 0;
}

static int dram_estimate(struct ectx *c, const struct equery *q, double *v, struct strbuf *why)
{
	const char *type = eattrs_text(c, q->attrs, "type");
	double width;
	size_t i;

	if (!type)
		type = "LPDDR4";
	if (want_int(q, "width", 0, &width, why) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(dram_types); i++) {
		if (strcmp(type, dram_types[i].type))
			continue;
		if (!q->action || !strcasecmp(q->action, "leak"))
			*v = 0;
		else
			*v = dram_types[i].pj_per_bit * width;
		return 0;
	}
	strbuf_addf(why, "DRAM type '%s' is not one CACTI's DRAM model knows (", type);
	for (i = 0; i < ARRAY_SIZE(dram_types); i++)
		strbuf_addf(why, "%s%s", i ? ", " : "", dram_types[i].type);
	strbuf_addch(why, ')');
	return -1;
}

const struct estimator energy_est_cacti_dram = {
	"CactiDRAM", ENERGY_FAMILY_CACTI_DRAM, dram_accuracy, dram_estimate,
};

/* ----------------------------------------------------------------- SRAM */

/* CACTI's model at one node, memoized in the context. */
static int sram_at(struct ectx *c, double size, double block, int nm, int banks, int ports,
		   struct sram_result *r)
{
	size_t i;

	for (i = 0; i < c->n_sram; i++) {
		const struct sram_memo *m = &c->sram[i];
		if (m->size_bytes == size && m->block_bytes == block && m->tech_nm == nm &&
		    m->n_banks == banks && m->n_ports == ports) {
			*r = m->r;
			return 0;
		}
	}
	if (energy_sram_model(size, block, nm, banks, ports, r) < 0)
		return -1;
	XGROW(c->sram, c->n_sram + 1, c->alloc_sram);
	c->sram[c->n_sram].size_bytes = size;
	c->sram[c->n_sram].block_bytes = block;
	c->sram[c->n_sram].tech_nm = nm;
	c->sram[c->n_sram].n_banks = banks;
	c->sram[c->n_sram].n_ports = ports;
	c->sram[c->n_sram].r = *r;
	c->n_sram++;
	return 0;
}

/* The plug-in's rounding of a request to what CACTI organizes, at node 'nm'. */
static int sram_sized(struct ectx *c, double width, double depth, double banks, double ports,
		      int nm, struct sram_result *r)
{
	double sbanks = pow(2.0, ceil(log2(banks)));
	double swidth = fmax(ceil(width / 8.0) * 8.0, 32.0);
	double sdepth = fmax(depth, 64.0 * banks);
	double ws = width / swidth, ds = depth / sdepth;
	double dyn = (ws * 0.7 + 0.3) * pow(ds, 1.56 / 2.0);

	if (sram_at(c, floor(swidth * sdepth / 8.0), floor(swidth / 8.0), nm, (int)sbanks,
		    (int)ports, r) < 0)
		return -1;
	r->read_j *= dyn;
	r->write_j *= dyn;
	r->leak_w *= ws * ds;
	r->area_m2 *= ws * ds;
	return 0;
}

static void blend(struct sram_result *r, const struct sram_result *lo,
		  const struct sram_result *hi, double f)
{
	r->read_j = lo->read_j * (1 - f) + hi->read_j * f;
	r->write_j = lo->write_j * (1 - f) + hi->write_j * f;
	r->leak_w = lo->leak_w * (1 - f) + hi->leak_w * f;
	r->area_m2 = lo->area_m2 * (1 - f) + hi->area_m2 * f;
	r->cycle_s = lo->cycle_s * (1 - f) + hi->cycle_s * f;
}

/* The plug-in's use of the nodes CACTI knows for node 'nm'. */
static int sram_tech(struct ectx *c, double width, double depth, double banks, double ports,
		     double nm, struct sram_result *r)
{
	static const int known[] = { 22, 32, 45, 65, 90 };
	struct sram_result lo, hi;
	size_t i;

	if (nm < known[0]) {
		double s = nm / known[0];
		if (sram_sized(c, width, depth, banks, ports, known[0], r) < 0)
			return -1;
		r->read_j *= sqrt(s);
		r->write_j *= sqrt(s);
		r->area_m2 *= s;
		r->leak_w *= sqrt(s) * 0.79;
		return 0;
	}
	if (nm > known[ARRAY_SIZE(known) - 1]) {
		double s = nm / known[ARRAY_SIZE(known) - 1];
		if (sram_sized(c, width, depth, banks, ports, known[ARRAY_SIZE(known) - 1], r) < 0)
			return -1;
		r->read_j *= s * s;
		r->write_j *= s * s;
		r->leak_w *= s * s;
		r->area_m2 *= s * s;
		r->cycle_s *= s * s;
		return 0;
	}
	for (i = 0; i + 1 < ARRAY_SIZE(known); i++) {
		if (nm == known[i])
			return sram_sized(c, width, depth, banks, ports, known[i], r);
		if (nm > known[i] && nm < known[i + 1]) {
			if (sram_sized(c, width, depth, banks, ports, known[i], &lo) < 0 ||
			    sram_sized(c, width, depth, banks, ports, known[i + 1], &hi) < 0)
				return -1;
			blend(r, &lo, &hi, (nm - known[i]) / (known[i + 1] - known[i]));
			return 0;
		}
	}
	return sram_sized(c, width, depth, banks, ports, known[ARRAY_SIZE(known) - 1], r);
}

/* The lowest and highest technology the SRAM model takes (nm). */
#define SRAM_MIN_NM 5.0
#define SRAM_MAX_NM 180.0

static int sram_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	(void)c;
	(void)why;
	return !strcmp(q->class_name, "SRAM") || !strcmp(q->class_name, "sram") ? 80 : 0;
}

static int sram_estimate(struct ectx *c, const struct equery *q, double *v, struct strbuf *why)
{
	const struct eattr *t = eattrs_get(q->attrs, "technology");
	double width, depth, ports, banks, nm, gcs, data = 1, addr = 1;
	struct sram_result r;

	if (want_int(q, "width", 0, &width, why) < 0 || want_int(q, "depth", 0, &depth, why) < 0 ||
	    want_int(q, "n_rw_ports", 1, &ports, why) < 0 ||
	    want_int(q, "n_banks", 1, &banks, why) < 0)
		return -1;
	if (!t || !energy_tech_nm(&t->v, &nm)) {
		strbuf_addstr(why, "CACTI needs a 'technology' in nm");
		return -1;
	}
	if (nm < SRAM_MIN_NM || nm > SRAM_MAX_NM) {
		strbuf_addf(why, "technology %g nm is outside the %g-%g nm CACTI's SRAM model "
			    "scales to", nm, SRAM_MIN_NM, SRAM_MAX_NM);
		return -1;
	}
	if (sram_tech(c, width, depth, banks, ports, nm, &r) < 0) {
		strbuf_addf(why, "CACTI cannot organize a %gx%g SRAM", width, depth);
		return -1;
	}
	if (!q->action)
		return *v = r.area_m2 * 1e12, 0;
	if (!strcasecmp(q->action, "leak")) {
		if (!eattrs_number(q->args ? q->args : q->attrs, "global_cycle_seconds", &gcs) &&
		    !eattrs_number(q->attrs, "global_cycle_seconds", &gcs))
			gcs = 1e-9;
		return *v = r.leak_w * gcs * 1e12, 0;
	}
	if (q->args) {
		eattrs_number(q->args, "data_delta", &data);
		eattrs_number(q->args, "address_delta", &addr);
	}
	if (!strcasecmp(q->action, "read"))
		*v = r.read_j;
	else if (!strcasecmp(q->action, "write") || !strcasecmp(q->action, "update"))
		*v = r.write_j;
	else if (!strcasecmp(q->action, "idle"))
		*v = 0;
	else {
		strbuf_addf(why, "CACTI's SRAM has no action '%s' (read, write, update, leak)",
			    q->action);
		return -1;
	}
	*v *= (0.7 * (data != 0) + 0.3 * (addr != 0)) * 1e12;
	return 0;
}

const struct estimator energy_est_cacti_sram = {
	"CactiSRAM", ENERGY_FAMILY_CACTI_SRAM, sram_accuracy, sram_estimate,
};
