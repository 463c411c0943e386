/*
 * A CACTI-like SRAM array model: what the CACTI plug-in asks CACTI for, an
 * SRAM's energy per read and per write, its leakage, area and cycle time,
 * computed from the same family of mechanisms CACTI uses (Thoziyoor, Muralimanohar,
 * Ahn, Jouppi, "CACTI 5.1", HP Labs HPL-2008-20; Muralimanohar, Balasubramonian,
 * Jouppi, "CACTI 6.0", HPL-2009-85), written for fiberloop; docs/energy.md,
 * "The SRAM model", describes it and how far it lands from CACTI.
 *
 * A bank is a grid of mats; a mat is 2 x 2 subarrays sharing a row decoder
 * strip (between the left and right subarrays) and a column strip (sense
 * amplifiers, multiplexers, precharge, output drivers, between the top and
 * bottom ones). The organization is searched as CACTI does (Ndwl and Ndbl
 * subarrays along a wordline and a bitline, Nspd the aspect, Ndcm the
 * bitline multiplexing, Ndsam1/2 the sense-amplifier multiplexing) and the
 * one minimizing delay^2 x read energy is kept (the plug-in's CACTI
 * configuration optimizes ED^2).
 *
 * Per access, in every activated mat (a read activates a whole mat):
 *   - the row predecoder lines and the four wordlines, each a buffer chain
 *     of stage effort 4 from a decoder gate to the wordline's load;
 *   - the bitline pairs of the four subarrays swing by the sense voltage
 *     (max(5% Vdd, 80 mV)) and are restored: 2 C_bl V_sense Vdd each;
 *   - precharge and equalization devices' gates, driven through a chain;
 *   - the column multiplexer select lines;
 *   - every sense amplifier's latch;
 *   - every output bit driven across the subarray on a repeated wire.
 * Across the bank, the address goes in and the data comes out on H-trees
 * of repeated wires; with several banks, the same routing to the bank.
 * A write is CACTI's convention: the read without the bitlines' read swing
 * and the sense amplifiers, with the written columns' full swing (2 C Vdd^2
 * per written bit) and the data going in instead of out.
 *
 * Repeated wires are CACTI's (minimum-width wires on the semi-global level)
 * with repeaters sized for minimum delay (Bakoglu), then relaxed to the
 * lowest energy within 30% more delay (the plug-in's "Global_30" wire).
 *
 * Leakage: subthreshold current of every off transistor (cells: one of the
 * two transistors of each inverter and half an access transistor per port,
 * on average), plus gate leakage of on transistors. Area: cells, the mat
 * strips (devices laid at 4F gate pitch, plus the wires that cross them at
 * the semi-global pitch), the bank's H-tree trunks.
 *
 * Technology: ITRS low-standby-power devices and the "conservative"
 * interconnect projection at 22, 32, 45, 65 and 90 nm, as tabulated in
 * CACTI 7's tech_params/<node>nm.dat (HewlettPackard/cacti); device widths
 * in multiples of the feature size F as CACTI sizes them.
 */
#include "energy/energy_int.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ the tables */

/* One node's low-standby-power devices and interconnect, at 300 K. */
struct node_params {
	int nm;
	double vdd;              /* V */
	double cg_ideal;         /* F/um, ideal gate capacitance */
	double c_fringe;         /* F/um */
	double c_junc;           /* F/um^2, drain junction (bottom) */
	double c_junc_sw;        /* F/um, drain junction sidewall */
	double r_mult;           /* NMOS effective-resistance multiplier */
	double i_on_n;           /* A/um */
	double i_off_n;          /* A/um, subthreshold */
	double i_g_on_n;         /* A/um, gate */
	double n2p;              /* NMOS to PMOS drive ratio */
	double sense_delay;      /* s */
	/* conservative interconnect, local and semi-global levels */
	double barrier;          /* um */
	double alpha_scatter;
	double horiz_k, vert_k;  /* dielectric constants */
	double ild;              /* um */
	double resistivity;      /* uOhm m */
};

static const struct node_params nodes[] = {
	{ 22, 0.8, 3.22e-16, 8e-17, 0, 2.5e-16, 1.99, 7.276e-4, 2.43e-11, 4.51e-10, 2.0, 3e-11,
	  0.003, 1.05, 2.104, 3.9, 0.15, 0.022 },
	{ 32, 1.0, 4.58e-16, 5.3e-17, 1e-15, 2.5e-16, 1.99, 6.836e-4, 2.06e-11, 3.73e-11, 2.23, 3e-11,
	  0.003, 1.0, 2.214, 3.9, 0.21, 0.022 },
	{ 45, 1.1, 5.18e-16, 8e-17, 1e-15, 2.5e-16, 1.99, 6.662e-4, 1.01e-11, 9.47e-12, 2.23, 4e-11,
	  0.004, 1.0, 2.46, 3.9, 0.315, 0.022 },
	{ 65, 1.2, 6.14e-16, 8e-17, 1e-15, 2.5e-16, 1.96, 5.192e-4, 9.12e-12, 1.09e-10, 2.23, 2e-10,
	  0.006, 1.0, 2.734, 3.9, 0.405, 0.022 },
	{ 90, 1.3, 9.15e-16, 8e-17, 1e-15, 2.5e-16, 1.92, 5.036e-4, 2.81e-12, 3.87e-11, 2.44, 2.8e-10,
	  0.008, 1.0, 3.038, 3.9, 0.48, 0.022 },
};

#define EPS0 8.8542e-18          /* F/um */
#define MILLER 1.5               /* coupling to switching neighbours */
#define FRINGE_WIRE 1.15e-16     /* F/um, wire fringe */
#define V_SENSE_MIN 0.08         /* V, smallest bitline swing sensed */
#define STAGE_EFFORT 4.0
#define STRAP_COLS 16
#define I_SHORT 65e-6            /* A/um, a repeater's short-circuit current (Banerjee et al., IEEE TED 2001) */            /* a wordline strap every 16 columns, 7.5 F wide */

/* ---------------------------------------------------------- derived tech */

struct wire {
	double r, c, pitch;      /* Ohm/um, F/um, um */
};

/* A driver: energy per transition (J), delay (s), leakage (W), device width (um). */
struct chain {
	double e, t, leak, width;
};

struct tech {
	double F, vdd, vs;
	double cg, cov;          /* gate capacitance and overlap per um of width */
	double cj, cjsw;
	double rn, rp;           /* on-resistance x width, Ohm um */
	double ioff, ig;
	double n2p, sense_t;
	struct wire local, semi, rep;
	/* the cell */
	double cell_w, cell_h, a_w, n_w, p_w;
	/* peripheral device widths, um */
	double w_min, w_iso, w_sen, w_sep, w_seen, w_bmux, w_samux, w_pre, w_eq;
	/* the repeated wire per um: energy, delay, leakage */
	double rep_e, rep_t, rep_leak, rep_s;
	double w_max;            /* the widest NMOS a driver stage uses */
	double fo4;
	double cnand;            /* a NAND2's input */
	double e_sa;             /* a sense amplifier's latch, per read */
	double cd_bmux;          /* the two drains a column mux adds to a bitline pair */
	struct chain out, node;  /* a min-sized gate driving a repeated wire's first repeater */
};

static double gate_c(const struct tech *t, double w)
{
	return t->cg * w;
}

/*
 * A drain of a device of width 'w': junction over a 3F contact region, its
 * sidewalls, and the overlap. Devices wider than 'fold' are folded into
 * fingers sharing drains.
 */
static double drain_c_fold(const struct tech *t, double w, double fold)
{
	double d = 3 * t->F, fingers = fold > 0 ? ceil(w / fold) : 1;
	double wf = w / fingers, drains = floor((fingers + 1) / 2);

	return drains * (t->cj * wf * d + t->cjsw * (2 * d + wf)) + t->cov * w;
}

static double drain_c(const struct tech *t, double w)
{
	return drain_c_fold(t, w, 0);
}

/* A min-sized inverter scaled by 's': input and output capacitance. */
static double inv_cin(const struct tech *t, double s)
{
	return gate_c(t, s * t->w_min * (1 + t->n2p));
}

/* Logic gates sit in a 50F-high cell: NMOS fingers up to 41F/3, PMOS 2 x 41F/3. */
static double inv_cout(const struct tech *t, double s)
{
	double h = (50 - 4 - 5) * t->F;

	return drain_c_fold(t, s * t->w_min, h / 3) +
	       drain_c_fold(t, s * t->w_min * t->n2p, 2 * h / 3);
}

static double inv_r(const struct tech *t, double s)
{
	return (t->rn / (s * t->w_min) + t->rp / (s * t->w_min * t->n2p)) / 2;
}

/* Subthreshold and gate leakage of an inverter, averaged over its input. */
static double inv_leak(const struct tech *t, double wn, double wp)
{
	return t->vdd * ((wn + wp) * t->ioff / 2 + (wn + wp) * t->ig / 2);
}

/* A wire level's resistance and capacitance per um: width and spacing half the pitch. */
static struct wire wire_level(const struct node_params *p, double pitch, double aspect)
{
	struct wire w;
	double width = pitch / 2, space = pitch / 2, height = width * aspect;

	w.pitch = pitch;
	w.r = p->alpha_scatter * p->resistivity /
	      ((height - p->barrier) * (width - 2 * p->barrier));
	w.c = EPS0 * (2 * MILLER * p->horiz_k * height / space + 2 * p->vert_k * width / p->ild) +
	      FRINGE_WIRE;
	return w;
}

/*
 * The wire CACTI routes H-trees and output lines on: on the semi-global
 * level, width and spacing of one feature size, twice as thick, coupling
 * (with the Miller factor) to a neighbour on one side and to the level
 * below, 5% more resistance for scattering.
 */
static struct wire repeated_level(const struct node_params *p, double F)
{
	struct wire w;
	double height = 2 * F;

	w.pitch = 4 * F;
	w.r = 1.05 * p->resistivity / (height * F);
	w.c = EPS0 * (MILLER * p->horiz_k * height / F + MILLER * p->vert_k * F / p->ild) +
	      FRINGE_WIRE;
	return w;
}

/* A repeated segment of length 'l' um with repeaters of size 's': delay, energy. */
static void segment(const struct tech *t, double s, double l, double *delay, double *energy)
{
	double rd = inv_r(t, s), ci = inv_cin(t, s), co = inv_cout(t, s);
	double rw = t->rep.r * l, cw = t->rep.c * l;

	double tc = rd * (co + cw + ci) + rw * ci + 0.55 * rw * cw;

	*delay = 0.69 * tc;
	/* switching, and the short-circuit current while the input slews (Banerjee et al.) */
	*energy = (ci + co + cw) * t->vdd * t->vdd +
		  t->vdd * s * t->w_min * I_SHORT * 1.0986 * tc;
}

/*
 * The semi-global repeated wire: Bakoglu's delay-optimal size and spacing,
 * then, among smaller and sparser repeaters, the lowest energy within 30%
 * more delay per length.
 */
static void repeated_wire(struct tech *t)
{
	double rd1 = inv_r(t, 1), ci1 = inv_cin(t, 1), co1 = inv_cout(t, 1);
	double s_opt = sqrt(rd1 * t->rep.c / (t->rep.r * ci1));
	double l_opt = sqrt(2 * rd1 * (ci1 + co1) / (t->rep.r * t->rep.c));
	double d0, e0, best_e, s, l;

	segment(t, s_opt, l_opt, &d0, &e0);
	d0 /= l_opt;
	t->rep_t = d0;
	t->rep_s = s_opt;
	t->rep_e = best_e = e0 / l_opt;
	t->rep_leak = inv_leak(t, s_opt * t->w_min, s_opt * t->w_min * t->n2p) / l_opt;
	for (s = s_opt; s >= 1; s *= 0.95) {
		for (l = l_opt; l <= 4 * l_opt; l *= 1.02) {
			double d, e;

			segment(t, s, l, &d, &e);
			if (d / l > 1.3 * d0 || e / l >= best_e)
				continue;
			best_e = e / l;
			t->rep_t = d / l;
			t->rep_e = e / l;
			t->rep_s = s;
			t->rep_leak = inv_leak(t, s * t->w_min, s * t->w_min * t->n2p) / l;
		}
	}
}

static struct chain drive(const struct tech *t, double cin, double load);

static void tech_init(const struct node_params *p, int ports, struct tech *t)
{
	double F = p->nm / 1000.0;

	memset(t, 0, sizeof(*t));
	t->F = F;
	t->vdd = p->vdd;
	t->vs = fmax(0.05 * p->vdd, V_SENSE_MIN);
	t->cov = 0.2 * p->cg_ideal;
	t->cg = p->cg_ideal + t->cov + 3 * p->c_fringe;
	t->cj = p->c_junc;
	t->cjsw = p->c_junc_sw;
	t->rn = p->r_mult * p->vdd / p->i_on_n;
	t->rp = t->rn * p->n2p;
	t->ioff = p->i_off_n;
	t->ig = p->i_g_on_n;
	t->n2p = p->n2p;
	t->sense_t = p->sense_delay;
	t->local = wire_level(p, 2.5 * F, 2.0);
	t->semi = wire_level(p, 4 * F, 2.0);
	t->rep = repeated_level(p, F);
	/* the 6T cell: 146 F^2 at aspect 1.46; each port past the first adds two wire tracks */
	t->cell_w = 10 * F + 2 * t->local.pitch * (ports - 1);
	t->cell_h = 14.6 * F + 2 * t->local.pitch * (ports - 1);
	t->a_w = 1.31 * F;
	t->p_w = 1.23 * F;
	t->n_w = 2.08 * F;
	t->w_min = 1.5 * F;
	t->w_iso = 12.5 * F;
	t->w_sen = 3.75 * F;
	t->w_sep = 7.5 * F;
	t->w_seen = 5 * F;
	t->w_bmux = 6 * t->w_min;
	t->w_samux = 6 * t->w_min;
	t->w_pre = 6 * t->n2p * t->w_min;
	t->w_eq = t->w_pre / 6;
	t->w_max = 100 * F;
	t->fo4 = 0.69 * inv_r(t, 1) * (4 * inv_cin(t, 1) + inv_cout(t, 1));
	repeated_wire(t);
	t->cnand = gate_c(t, 2 * t->w_min + t->n2p * t->w_min);
	t->cd_bmux = 2 * drain_c(t, t->w_bmux);
	t->e_sa = t->vdd * t->vdd *
		  (gate_c(t, t->w_sep + t->w_sen) + drain_c(t, t->w_sen) + drain_c(t, t->w_sep) +
		   drain_c(t, t->w_iso) + drain_c(t, t->w_samux));
	/* the first repeater belongs to the wire's energy, not to its driver's */
	t->out = drive(t, inv_cin(t, 1), inv_cin(t, t->rep_s));
	t->out.e -= inv_cin(t, t->rep_s) * t->vdd * t->vdd;
	t->node = t->out;
}

/* ------------------------------------------------------------ circuits */

/*
 * A buffer chain of stage effort 4 from an input capacitance 'cin' to
 * 'load', no stage wider than w_max: energy per transition (J), delay (s),
 * leakage (W), device width (um, for area).
 */
static struct chain drive(const struct tech *t, double cin, double load)
{
	struct chain c = { 0, 0, 0, 0 };
	double n = fmax(1, ceil(log(fmax(load / cin, 1)) / log(STAGE_EFFORT)));
	double f = pow(fmax(load / cin, 1), 1 / n), s0 = cin / inv_cin(t, 1);
	double s_max = t->w_max / t->w_min, caps = load, size = s0;
	int i;

	for (i = 0; i < (int)n; i++) {
		double s = fmin(size, s_max), cd = inv_cout(t, s);
		double next = i + 1 < (int)n ? inv_cin(t, fmin(size * f, s_max)) : load;

		if (i > 0)
			caps += inv_cin(t, s);
		caps += cd;
		c.t += 0.69 * inv_r(t, s) * (cd + next);
		c.leak += inv_leak(t, s * t->w_min, s * t->w_min * t->n2p);
		c.width += s * t->w_min * (1 + t->n2p);
		size *= f;
	}
	c.e = caps * t->vdd * t->vdd;
	return c;
}

/* The footprint of devices of total width 'w' um laid at a 4F gate pitch. */
static double dev_area(const struct tech *t, double w)
{
	return w * 4 * t->F;
}

/* ------------------------------------------------------- organizations */

struct org {
	int ndwl, ndbl, ndcm, ndsam1, ndsam2;
	double nspd;
	/* derived */
	long rows, cols;
	long mats_h, mats_v, do_mat, act_mats;
};

struct eval {
	double read, write, leak, area, access, cycle;
	double bank_w, bank_h;
	/* the parts, for the model's tests and docs */
	double e_dec, e_wl, e_pre, e_mux, e_blr, e_blw, e_sa, e_out, e_hin, e_hout;
	double t_in, t_dec, t_bl, t_sa, t_out, mat_w, mat_h;
	struct org o;
};

static int ilog2(double x)
{
	return x <= 1 ? 0 : (int)ceil(log2(x));
}

/*
 * Rows and columns of a subarray, the output bits of a mat and the mats
 * a read activates; false when the partition is not a valid one.
 */
static bool org_valid(double bank_bytes, double block_bytes, struct org *o)
{
	long out_bits = (long)(block_bytes * 8);

	o->rows = (long)ceil(bank_bytes / (block_bytes * o->ndbl * o->nspd));
	o->cols = (long)ceil(8 * block_bytes * o->nspd / o->ndwl);
	if (o->rows < 16 || o->rows > 262144 || o->cols < 2 || o->cols > 262144)
		return false;
	o->mats_h = o->ndwl / 2;
	o->mats_v = o->ndbl / 2;
	o->do_mat = 4 * o->cols / ((long)o->ndcm * o->ndsam1 * o->ndsam2);
	if (o->do_mat < 4)
		return false;
	o->act_mats = out_bits / o->do_mat;
	return o->act_mats >= 1 && o->act_mats <= o->mats_h;
}

/* What depends only on a subarray's rows and columns, shared by the partitions that have them. */
struct rc_parts {
	double R, C, sub_h, sub_w, c_bl, r_bl, c_wl, r_wl;
	double fanout_e, t_pd, pred_w, pd_leak;    /* the row predecoder */
	int lines;                                  /* predecode lines */
	struct chain wl, pre;                       /* a wordline's and a precharge driver */
};

static void rc_parts_init(const struct tech *t, long rows, long cols, struct rc_parts *p)
{
	double R = (double)rows, C = (double)cols;
	int addr_row = ilog2(R), k, blocks;

	memset(p, 0, sizeof(*p));
	p->R = R;
	p->C = C;
	p->sub_h = R * t->cell_h;
	p->sub_w = C * t->cell_w + floor(C / STRAP_COLS) * 7.5 * t->F;
	p->c_bl = R * (drain_c(t, t->a_w) / 2 + t->cell_h * t->local.c);
	p->r_bl = R * t->cell_h * t->local.r;
	/* the row predecoder: blocks of up to 3 bits, one line of each switches */
	blocks = (addr_row + 2) / 3;
	for (k = 0; k < blocks; k++) {
		int bits = addr_row / blocks + (k < addr_row % blocks);
		double n_lines = ldexp(1, bits);
		double load = 2 * R / n_lines * t->cnand + 2 * p->sub_h * t->semi.c;  /* both halves */
		struct chain pd = drive(t, inv_cin(t, 1), load);

		p->lines += (int)n_lines;
		p->t_pd = fmax(p->t_pd, pd.t);
		p->fanout_e += pd.e;
		p->pred_w += pd.width * n_lines;
		p->pd_leak += pd.leak * n_lines;
	}
	/* a wordline: two access gates and a cell width of wire per column */
	p->c_wl = C * (2 * gate_c(t, t->a_w) + t->cell_w * t->local.c);
	p->r_wl = p->sub_w * t->local.r;
	p->wl = drive(t, t->cnand, p->c_wl);
	/* precharge and equalization */
	p->pre = drive(t, inv_cin(t, 1),
		       C * (2 * gate_c(t, t->w_pre) + gate_c(t, t->w_eq)) + p->sub_w * t->local.c);
}

/* One bank of partition 'o' (its subarrays' parts 'p'), 'out_bits' per access. */
static void evaluate(const struct tech *t, const struct org *o, const struct rc_parts *p,
		     long out_bits, struct eval *ev)
{
	double v2 = t->vdd * t->vdd;
	double R = p->R, C = p->C, sub_h = p->sub_h, sub_w = p->sub_w, c_bl = p->c_bl;
	double sa_per_sub = ceil(C / o->ndcm);
	double n_sa = 4 * sa_per_sub;
	double e_mat = 0, e_blr, e_blw, e_sa, leak_mat = 0, e_htree_in, e_htree_out;
	double t_dec, t_bl, t_sa, t_out, t_in;
	double col_strip, row_strip, mat_w, mat_h, c_mux;
	double cd_bmux = o->ndcm > 1 ? t->cd_bmux : 0;
	int addr_row = ilog2(R), addr_bits;
	struct chain wl = p->wl, pre = p->pre, mux, out = t->out;

	/* --- row decode and the four wordlines */
	e_mat += p->fanout_e + 4 * wl.e;
	leak_mat += p->pd_leak + 4 * R * wl.leak;
	t_dec = p->t_pd + t->fo4 + wl.t + 0.38 * p->r_wl * p->c_wl;   /* predecode, NAND, driver, wire */

	/* --- bitlines */
	e_blr = 4 * C * (c_bl + cd_bmux) * 2 * t->vs * t->vdd;
	e_blw = (double)out_bits * (c_bl + cd_bmux) * 2 * v2;

	/* --- precharge and equalization */
	e_mat += 4 * pre.e;
	leak_mat += 4 * pre.leak;

	/* --- column multiplexers' select lines */
	c_mux = 0;
	if (o->ndcm > 1)
		c_mux += sa_per_sub * 2 * gate_c(t, t->w_bmux) + sub_w * t->local.c;
	if (o->ndsam1 > 1)
		c_mux += sa_per_sub / o->ndsam1 * gate_c(t, t->w_samux) + sub_w * t->local.c;
	if (o->ndsam2 > 1)
		c_mux += sa_per_sub / o->ndsam1 / o->ndsam2 * gate_c(t, t->w_samux) +
			 sub_w * t->local.c;
	memset(&mux, 0, sizeof(mux));
	if (c_mux > 0) {
		mux = drive(t, inv_cin(t, 1), fmax(c_mux, inv_cin(t, 1)));
		e_mat += 4 * mux.e;
		leak_mat += 4 * mux.leak * (o->ndcm + o->ndsam1 + o->ndsam2);
	}

	/* --- sense amplifiers */
	e_sa = n_sa * t->e_sa;
	leak_mat += n_sa * t->vdd * (t->w_seen * t->ioff + t->w_seen * t->ig) / 2;
	t_bl = ((t->rn / t->n_w + t->rn / t->a_w) * (c_bl + cd_bmux) + p->r_bl * c_bl / 2) *
	       log(t->vdd / (t->vdd - t->vs));
	t_sa = t->sense_t;

	/* --- output drivers: each output bit across the subarray on a repeated wire */
	out.e += t->rep_e * sub_w;
	e_mat += (double)o->do_mat * out.e;
	leak_mat += (double)o->do_mat * (out.leak + t->rep_leak * sub_w);
	t_out = out.t + t->rep_t * sub_w;

	/* --- cells */
	leak_mat += 4 * R * C * t->vdd *
		    ((t->n_w + t->p_w) * t->ioff + t->a_w * t->ioff / 2 + (t->n_w + t->p_w) * t->ig / 2);

	/* --- area: strips between the subarrays */
	col_strip = ((double)o->do_mat + ilog2(o->ndcm) + ilog2(o->ndsam1 * o->ndsam2)) *
		    t->semi.pitch +
		    2 * (dev_area(t, C * (2 * t->w_pre + t->w_eq + (o->ndcm > 1 ? 2 * t->w_bmux : 0)) +
			       sa_per_sub * (2 * t->w_iso + 2 * (t->w_sen + t->w_sep) + t->w_seen +
					     t->w_samux) +
			       (double)o->do_mat / 4 * out.width + pre.width + mux.width) /
			 sub_w);
	row_strip = p->lines * t->semi.pitch + 2 * dev_area(t, R * wl.width + p->pred_w / 2) / sub_h;
	mat_w = 2 * sub_w + row_strip;
	mat_h = 2 * sub_h + col_strip;

	/*
	 * --- the bank: H-trees between the bank's edge and the mats. As CACTI
	 * lays them, each level of the tree along the wordlines has a link
	 * spanning half the region it serves, along the bitlines a quarter.
	 */
	addr_bits = addr_row + ilog2(o->ndcm) + ilog2(o->ndsam1 * o->ndsam2) +
		    ilog2((double)(o->mats_h * o->mats_v / o->act_mats));
	ev->bank_w = o->mats_h * mat_w + (o->mats_v > 1 ? (2.0 * out_bits + addr_bits) * t->semi.pitch : 0);
	ev->bank_h = o->mats_v * mat_h + (o->mats_h > 1 ? (2.0 * out_bits + addr_bits) * t->semi.pitch : 0);
	{
		double path = 0, w = ev->bank_w / 2, h = ev->bank_h / 4;
		int lh = ilog2((double)o->mats_h), lv = ilog2((double)o->mats_v);

		int levels = lh + lv;
		struct chain node = t->node;

		for (; lh > 0; lh--, w /= 2)
			path += w;
		for (; lv > 0; lv--, h /= 2)
			path += h;
		/* a buffer at each node of the tree drives the next link's first repeater */
		e_htree_in = addr_bits * levels * node.e;
		e_htree_out = (double)out_bits * levels * node.e;
		t_in = levels * node.t;
		t_out += levels * node.t;
		e_htree_in += addr_bits * t->rep_e * path;
		e_htree_out += (double)out_bits * t->rep_e * path;
		t_in += t->rep_t * path;
		t_out += t->rep_t * path;
		ev->leak = o->mats_h * o->mats_v * leak_mat +
			   t->rep_leak * (addr_bits + 2.0 * out_bits) * path;
	}

	ev->o = *o;
	ev->e_dec = o->act_mats * p->fanout_e;
	ev->e_wl = o->act_mats * 4 * wl.e;
	ev->e_pre = o->act_mats * 4 * pre.e;
	ev->e_mux = c_mux > 0 ? o->act_mats * 4 * mux.e : 0;
	ev->e_blr = o->act_mats * e_blr;
	ev->e_blw = e_blw;
	ev->e_sa = o->act_mats * e_sa;
	ev->e_out = o->act_mats * (double)o->do_mat * out.e;
	ev->e_hin = e_htree_in;
	ev->e_hout = e_htree_out;
	ev->t_in = t_in;
	ev->t_dec = t_dec;
	ev->t_bl = t_bl;
	ev->t_sa = t_sa;
	ev->t_out = t_out;
	ev->mat_w = mat_w;
	ev->mat_h = mat_h;
	ev->read = o->act_mats * (e_mat + e_blr + e_sa) + e_htree_in + e_htree_out;
	ev->write = o->act_mats * e_mat + e_blw + e_htree_in + e_htree_out;  /* data in = data out */
	ev->access = t_in + t_dec + t_bl + t_sa + t_out;
	ev->cycle = t_dec + 2 * t_bl + t_sa;
	ev->area = ev->bank_w * ev->bank_h * 1e-12;
}

/*
 * The best organization of one bank of 'bank_bytes' at technology 't'
 * (ED^2); false if none. The loops stop early where org_valid() would
 * refuse every partition further on (subarrays too short, too narrow, a
 * mat's output too small), so that only plausible partitions cost time.
 */
static bool search(const struct tech *t, double bank_bytes, double block_bytes, struct eval *best)
{
	long out_bits = (long)(block_bytes * 8);
	double best_cost = HUGE_VAL, nspd;
	int a, b, c, d, e;

	for (nspd = 1; nspd <= 256; nspd *= 2)
		for (b = 1; b <= 9; b++) {
			if (ceil(bank_bytes / (block_bytes * (1 << b) * nspd)) < 16)
				break;                  /* rows only shrink with Ndbl */
			for (a = 1; a <= 9; a++) {
				double cols = ceil(8 * block_bytes * nspd / (1 << a));
				struct org o0 = { 1 << a, 1 << b, 1, 1, 1, nspd, 0, 0, 0, 0, 0, 0 };
				struct rc_parts rc;

				if (cols < 2)
					break;          /* columns only shrink with Ndwl */
				org_valid(bank_bytes, block_bytes, &o0);
				if (o0.rows < 16 || o0.rows > 262144 || o0.cols > 262144)
					continue;
				rc_parts_init(t, o0.rows, o0.cols, &rc);
				for (c = 0; c <= 8; c++)
					for (d = 0; d <= 8; d++)
						for (e = 0; e <= 8; e++) {
							struct org o = { 1 << a, 1 << b, 1 << c, 1 << d,
									 1 << e, nspd, 0, 0, 0, 0, 0, 0 };
							struct eval ev;
							double cost;

							if (4 * (long)cols < (1L << (c + d + e)) * 4)
								break;  /* a mat's output only shrinks */
							if (!org_valid(bank_bytes, block_bytes, &o))
								continue;
							evaluate(t, &o, &rc, out_bits, &ev);
							cost = ev.access * ev.access * ev.read;
							if (cost < best_cost) {
								best_cost = cost;
								*best = ev;
							}
						}
			}
		}
	return best_cost < HUGE_VAL;
}

static const struct node_params *node_at(int nm)
{
	size_t i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (nodes[i].nm == nm)
			return &nodes[i];
	return NULL;
}

int energy_sram_model(double size_bytes, double block_bytes, int tech_nm, int n_banks,
		      int n_ports, struct sram_result *out)
{
	const struct node_params *p = node_at(tech_nm);
	long out_bits = (long)(block_bytes * 8);
	struct eval best = { 0 };
	struct tech t;

	if (!p || size_bytes <= 0 || block_bytes <= 0 || n_banks < 1)
		return -1;
	tech_init(p, n_ports < 1 ? 1 : n_ports, &t);
	if (!search(&t, size_bytes / n_banks, block_bytes, &best))
		return -1;
	if (n_banks > 1) {
		/* banks on a near-square grid; address and data routed to a bank's edge */
		int cols_b = 1 << ((ilog2(n_banks) + 1) / 2), rows_b = n_banks / cols_b;
		double w = cols_b * best.bank_w, h = rows_b * best.bank_h;
		double l = (w - best.bank_w) / 2 + (h - best.bank_h) / 2;
		double bits = 2.0 * out_bits + ilog2(size_bytes / block_bytes);
		double e_route = (out_bits + ilog2(size_bytes / block_bytes)) * t.rep_e * l;

		best.read += e_route;
		best.write += e_route;
		best.access += t.rep_t * l;
		best.leak = best.leak * n_banks + t.rep_leak * bits * l;
		best.area = (w + (cols_b > 1 ? bits * t.semi.pitch : 0)) *
			    (h + (rows_b > 1 ? bits * t.semi.pitch : 0)) * 1e-12;
	}
	out->read_j = best.read;
	out->write_j = best.write;
	out->leak_w = best.leak;
	out->area_m2 = best.area;
	out->cycle_s = best.cycle;
	return 0;
}
