/*
 * NeuroSim's adder ("Neurosim Plug-In", class intadder): an n-bit ripple-
 * carry adder of 9 NAND2 gates per bit, as NeuroSim models it (DNN_NeuroSim
 * V1.3, Peng et al., IEDM 2019, its Adder and formula models) with the
 * device parameters of the PTM low-power models it uses per node
 * (ptm.asu.edu). Per addition, counting the 0->1 transitions of the
 * calibration pattern (A=11..1, B=10..0, Cin=1):
 *
 *   E = delta V^2 [Cin (1 + 13 n) + 7 n Cout]      delta = 0.15 (switching activity)
 *
 * with Cin the gate capacitance of a NAND2 input and Cout its drain
 * capacitance, both from transistors enlarged to fill a 28 F cell height;
 * area 9 n NAND2s of 28 F x 11.4 F; leakage 9 n NAND2s of 0.48 x 2 PMOS
 * widths x I_off x V. Nodes between NeuroSim's are interpolated linearly
 * (as the plug-in does); below 22 nm (NeuroSim's FinFET models, not
 * carried here) the 22 nm figures are scaled by Stillmaker & Baas
 * (tech.c). docs/energy.md, "NeuroSim".
 */
#include "energy/energy_int.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* The PTM low-power device parameters NeuroSim uses at one node. */
struct ptm {
	double nm, vdd;
	double cap_ideal_gate, cap_fringe;     /* F per m of gate width */
	double ion_n, ion_p;                   /* on currents (uA/um), for the P/N sizing */
	double ioff_p;                         /* PMOS off current at 300 K (A/m) */
};

static const struct ptm nodes[] = {
	{ 130, 1.3, 1.8574e-9, 9.530642e-10, 300.70, 150.70, 100.20e-6 },
	{ 90, 1.2, 1.5413e-10, 9.601334e-10, 346.30, 200.30, 100.30e-6 },
	{ 65, 1.1, 1.1926e-9, 9.62148e-10, 400.00, 238.70, 100.20e-6 },
	{ 45, 1.0, 8.930709e-10, 8.849901e-10, 500.20, 300.00, 100.20e-6 },
	{ 32, 0.9, 8.375279e-10, 6.856677e-10, 600.20, 400.00, 100.10e-6 },
	{ 22, 0.85, 5.245e-10, 8.004e-10, 791.90, 600.20, 100.00e-6 },
};

/* NeuroSim's layout rules, in units of the feature size F. */
#define MIN_NMOS_SIZE 2.0
#define MAX_TRANSISTOR_HEIGHT 28.0
#define MIN_GAP_BET_P_AND_N_DIFFS 3.5
#define MIN_POLY_EXT_DIFF 1.0
#define MIN_GAP_BET_FIELD_POLY 1.6
#define MIN_GAP_BET_GATE_POLY 2.8
#define POLY_WIDTH 1.0
#define AVG_RATIO_LEAK_2INPUT_NAND 0.48
#define SWITCHING_ACTIVITY 0.15        /* NeuroSim's 'delta' for validated adders */

/* BSIM4 junction capacitances NeuroSim takes, at zero bias. */
#define CJ_BOTTOM 1e-3                 /* F/m^2 */
#define CJ_SIDEWALL 2.5e-10            /* F/m */
#define CJ_GATE_EDGE 0.5e-10           /* F/m */
#define BUILT_IN_POTENTIAL 0.9
#define MJ_BOTTOM 0.5
#define MJ_SIDEWALL 0.33

/* One adder bit and its gates at a node: energy per add and per bit, leakage, area. */
struct adder {
	double e_const_j, e_bit_j;     /* E = e_const + e_bit n */
	double leak_bit_w, area_bit_m2;
};

static void adder_at(const struct ptm *p, double vdd, struct adder *a)
{
	double f = p->nm * 1e-9, pn = p->ion_n / p->ion_p;
	double wn = 2 * MIN_NMOS_SIZE * f, wp = pn * MIN_NMOS_SIZE * f;
	double h = MAX_TRANSISTOR_HEIGHT * f;
	double ratio = wp / (wp + wn);
	double usable = h - MIN_GAP_BET_P_AND_N_DIFFS * f -
			(MIN_POLY_EXT_DIFF + MIN_GAP_BET_FIELD_POLY / 2) * 2 * f;
	double max_p = ratio * usable, max_n = max_p / ratio * (1 - ratio);
	double cap_gate = p->cap_ideal_gate * 1.2 + p->cap_fringe;   /* overlap = 0.2 ideal */
	double bias = 1 + vdd / BUILT_IN_POTENTIAL;
	double cj = CJ_BOTTOM / pow(bias, MJ_BOTTOM), csw = CJ_SIDEWALL / pow(bias, MJ_SIDEWALL);
	double cgd = CJ_GATE_EDGE / pow(bias, MJ_SIDEWALL);
	double drain = MIN_GAP_BET_GATE_POLY * f, cin, cout, wnand;

	if (wp < max_p && wn < max_n) {        /* enlarged to the cell height */
		wp = max_p;
		wn = max_n;
	}
	cin = cap_gate * (wn + wp);
	/* NAND2 output: one shared PMOS drain, two series NMOS drains */
	cout = drain * wp * cj + 2 * drain * wn * cj + (2 * drain) * csw +
	       (2 * 2 * drain + wn) * csw + wn * cgd + wp * cgd;
	a->e_const_j = SWITCHING_ACTIVITY * vdd * vdd * cin;
	a->e_bit_j = SWITCHING_ACTIVITY * vdd * vdd * (13 * cin + 7 * cout);
	a->leak_bit_w = 9 * AVG_RATIO_LEAK_2INPUT_NAND * wp * p->ioff_p * 2 * vdd;
	wnand = 2 * 2 * (POLY_WIDTH + MIN_GAP_BET_GATE_POLY) * f -
		(POLY_WIDTH + MIN_GAP_BET_GATE_POLY) * f;
	a->area_bit_m2 = 9 * h * wnand;
}

/* The adder at 'nm', interpolated between NeuroSim's nodes; false outside 22-130 nm. */
static bool adder_node(double nm, double vdd_override, struct adder *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		const struct ptm *hi = &nodes[i], *lo = i + 1 < ARRAY_SIZE(nodes) ? &nodes[i + 1] : hi;
		struct adder a, b;
		double f;
		if (nm > hi->nm || nm < lo->nm)
			continue;
		adder_at(hi, vdd_override > 0 ? vdd_override : hi->vdd, &a);
		adder_at(lo, vdd_override > 0 ? vdd_override : lo->vdd, &b);
		f = hi->nm == lo->nm ? 0 : (hi->nm - nm) / (hi->nm - lo->nm);
		out->e_const_j = a.e_const_j * (1 - f) + b.e_const_j * f;
		out->e_bit_j = a.e_bit_j * (1 - f) + b.e_bit_j * f;
		out->leak_bit_w = a.leak_bit_w * (1 - f) + b.leak_bit_w * f;
		out->area_bit_m2 = a.area_bit_m2 * (1 - f) + b.area_bit_m2 * f;
		return true;
	}
	return false;
}

/* The plug-in's technology range (its permitted nodes run from 7 to 130 nm). */
#define NS_MIN_NM 7.0
#define NS_MAX_NM 130.0

static int ns_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	static const char *const reads[] = { "read", "mac_random", "mac_reused", "compute", "add",
					     "shift_add", "convert" };
	static const char *const others[] = { "write", "set", "erase", "update", "leak" };
	size_t i;

	(void)c;
	if (strcasecmp(q->class_name, "intadder"))
		return 0;
	if (!q->action)
		return 70;
	for (i = 0; i < ARRAY_SIZE(reads); i++)
		if (!strcasecmp(q->action, reads[i]))
			return 70;
	for (i = 0; i < ARRAY_SIZE(others); i++)
		if (!strcasecmp(q->action, others[i]))
			return 70;
	strbuf_addf(why, "NeuroSim's adder has no action '%s'", q->action);
	return 0;
}

static int ns_estimate(struct ectx *c, const struct equery *q, double *v, struct strbuf *why)
{
	const struct eattr *t = eattrs_get(q->attrs, "technology");
	double nm, bits = 8, vdd = 0, gcs = 1e-9, scale_e = 1, scale_a = 1;
	struct adder a;

	(void)c;
	if (!t || !energy_tech_nm(&t->v, &nm)) {
		strbuf_addstr(why, "NeuroSim needs a 'technology' in nm");
		return -1;
	}
	if (nm < NS_MIN_NM || nm > NS_MAX_NM) {
		strbuf_addf(why, "technology %g nm is outside the %g-%g nm NeuroSim's adder covers",
			    nm, NS_MIN_NM, NS_MAX_NM);
		return -1;
	}
	if (!eattrs_number(q->attrs, "n_bits", &bits))
		eattrs_number(q->attrs, "precision", &bits);
	if (bits < 1 || bits != floor(bits)) {
		strbuf_addf(why, "NeuroSim's adder needs 'n_bits' >= 1, got %g", bits);
		return -1;
	}
	eattrs_number(q->attrs, "voltage", &vdd);
	eattrs_number(q->attrs, "global_cycle_seconds", &gcs);
	if (nm < 22) {
		energy_tech_energy_scale(22, nm, vdd, &scale_e);
		energy_tech_area_scale(22, nm, &scale_a);
		nm = 22;
	}
	if (!adder_node(nm, vdd, &a))
		BUG("NeuroSim node %g nm", nm);
	if (!q->action)
		*v = a.area_bit_m2 * bits * 1e12 * scale_a;
	else if (!strcasecmp(q->action, "leak"))
		*v = a.leak_bit_w * bits * gcs * 1e12 * scale_e;
	else if (!strcasecmp(q->action, "write") || !strcasecmp(q->action, "set") ||
		 !strcasecmp(q->action, "erase") || !strcasecmp(q->action, "update"))
		*v = 0;
	else
		*v = (a.e_const_j + a.e_bit_j * bits) * 1e12 * scale_e;
	return 0;
}

const struct estimator energy_est_neurosim = {
	"Neurosim Plug-In", ENERGY_FAMILY_NEUROSIM, ns_accuracy, ns_estimate,
};
