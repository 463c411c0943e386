/*
 * Aladdin's 40/45 nm component tables ("Aladdin_table" plug-in): dynamic
 * energy, idle energy and area of 32-bit (64-bit for double precision)
 * components synthesized at cycle times of 0.5 to 10 ns, from Shao et al.,
 * "Aladdin: a pre-RTL, power-performance accelerator simulator enabling large
 * design space exploration of customized architectures", ISCA 2014, as the
 * Accelergy plug-in tabulates them. A component is priced from the row of its
 * cycle time and scaled to its width: linearly (adders, comparators,
 * counters), quadratically (multipliers); a register file is a row of
 * registers plus one comparator per entry. docs/energy.md, "Aladdin".
 */
#include "energy/energy_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One row: cycle time (ns), dynamic and idle energy (pJ), area (um^2). */
struct arow {
	double ns, dyn_pj, idle_pj, area_um2;
};

struct atable {
	const char *name;
	size_t n;
	const struct arow *rows;
};

#define TABLE(name_, ...) \
	static const struct arow name_##_rows[] = { __VA_ARGS__ }; \
	static const struct atable name_ = { #name_, ARRAY_SIZE(name_##_rows), name_##_rows }

TABLE(t_adder,
      { 0.5, 0.142, 0.0016, 379 }, { 1, 0.21, 0.0023, 278 }, { 2, 0.0858, 0.0048, 179 },
      { 3, 0.0859, 0.0071, 179 }, { 4, 0.0857, 0.0095, 179 }, { 5, 0.0857, 0.0119, 179 },
      { 6, 0.0857, 0.0143, 179 }, { 10, 0.0853, 0.0238, 179 });
TABLE(t_bitwise,
      { 1, 0.0181, 0.001, 50.4 }, { 2, 0.018, 0.001, 50.4 }, { 3, 0.018, 0.002, 50.4 },
      { 4, 0.018, 0.002, 50.4 }, { 5, 0.018, 0.003, 50.4 }, { 6, 0.018, 0.004, 50.4 },
      { 10, 0.0181, 0.006, 50.4 });
TABLE(t_comparator,
      { 0.5, 0.03052, 1.37e-05, 71.5 }, { 1, 0.02947, 2.51e-05, 71 },
      { 2, 0.028966, 4.84e-05, 70 }, { 3, 0.02898, 7.27e-05, 70 },
      { 4, 0.02898, 9.69e-05, 70 }, { 5, 0.029015, 0.0001211, 70 },
      { 6, 0.02898, 0.00014532, 70 }, { 10, 0.02898, 0.0002422, 70 });
TABLE(t_counter,
      { 0.5, 0.2751, 0.000216649, 584 }, { 1, 0.25074, 0.0003213, 495.5 },
      { 2, 0.21462, 0.0001932, 259 }, { 3, 0.21441, 0.0002625, 255 },
      { 4, 0.211092, 0.0003303, 251.5 }, { 5, 0.206325, 0.000406, 250.5 },
      { 6, 0.206682, 0.0004053, 225 }, { 10, 0.20678, 0.0006377, 214.5 });
TABLE(t_crossbar,
      { 2, 0.6804, 0.0003206, 569.5 }, { 3, 0.6804, 0.0004809, 569.5 },
      { 4, 0.68068, 0.0006412, 569.5 }, { 5, 0.68215, 0.0008015, 569.5 },
      { 6, 0.67914, 0.000961, 569.5 }, { 10, 0.6811, 0.001603, 569.5 });
TABLE(t_fp_dp_adder,
      { 0.5, 20.552, 0.264, 12900 }, { 1, 43.754, 0.4, 9880 }, { 2, 26.147, 0.27, 6130 },
      { 3, 25.787, 0.368, 5980 }, { 4, 23.243, 0.419, 5120 }, { 5, 23.269, 0.526, 5120 },
      { 6, 23.902, 0.689, 5120 }, { 10, 17.779, 0.905, 3990 });
TABLE(t_fp_dp_multiplier,
      { 0.5, 69.769, 0.527, 28600 }, { 1, 113.763, 0.829, 8970 },
      { 2, 103.936, 1.169, 6150 }, { 3, 95.553, 1.379, 5700 }, { 4, 94.905, 1.814, 5220 },
      { 5, 92.938, 2.103, 4910 }, { 6, 90.596, 2.427, 4890 }, { 10, 86.565, 3.697, 5420 });
TABLE(t_fp_sp_adder,
      { 1, 16.679, 0.159, 4360 }, { 2, 11.026, 0.129, 3010 }, { 3, 10.584, 0.182, 2960 },
      { 4, 7.894, 0.189, 2120 }, { 5, 7.928, 0.228, 2060 }, { 6, 7.928, 0.273, 2060 },
      { 10, 7.701, 0.458, 2060 });
TABLE(t_fp_sp_multiplier,
      { 1, 35.3, 0.3595236, 4360 }, { 2, 29.7, 0.3565266, 3010 },
      { 3, 27.8, 0.44451243, 2960 }, { 4, 25.2, 0.54034944, 2120 },
      { 5, 24.4, 0.63237915, 2060 }, { 6, 24.2, 0.75571938, 2060 },
      { 10, 26.6, 1.3429701, 2060 });
TABLE(t_multiplier,
      { 0.5, 18.94, 0.15, 8340 }, { 1, 12.68, 0.08, 6350 }, { 2, 9.55, 0.1, 5140 },
      { 3, 8.8, 0.14, 4970 }, { 4, 8.66, 0.19, 4620 }, { 5, 8.63, 0.24, 4600 },
      { 6, 8.63, 0.29, 4600 }, { 10, 8.8, 0.48, 4600 });
TABLE(t_reg,
      { 1, 0.009, 7e-05, 5.98 }, { 2, 0.00901, 0.00015, 5.98 }, { 3, 0.00901, 0.00022, 5.98 },
      { 4, 0.009, 0.0003, 5.98 }, { 5, 0.009, 0.00037, 5.98 }, { 6, 0.00901, 0.00044, 5.98 },
      { 10, 0.00554, 0.00074, 5.98 });

/* The cycle time the plug-in reads areas at when the component gives no 'latency' (ns). */
#define AREA_DEFAULT_NS 5.0

/*
 * The row for a latency of 'ns': rounded up to whole ns (0.5 ns below
 * 0.75 ns), 6 ns for 6-10 ns, 10 ns beyond; the first row when the table has
 * no such row.
 */
static const struct arow *row_at(const struct atable *t, double ns)
{
	double want;
	size_t i;

	ns = floor(ns * 1e6 + 0.5) / 1e6;      /* 1e-9 s x 1e9 is 1, not 1.0000000000000002 */
	want = ns > 0.75 ? ceil(ns) : 0.5;
	if (want > 10)
		want = 10;
	else if (want > 6)
		want = 6;
	for (i = 0; i < t->n; i++)
		if (t->rows[i].ns == want)
			return &t->rows[i];
	return &t->rows[0];
}

/* What one query reads: its cycle time and action. */
struct aq {
	double cycle_s;                /* global_cycle_seconds x action_latency_cycles */
	double gcs;                    /* global_cycle_seconds */
	const char *action;            /* NULL: area */
	double area_ns;                /* the latency areas are read at */
};

/* The energy (or area) of table 't' for query 'a'. */
static double table_value(const struct atable *t, const struct aq *a)
{
	const struct arow *r;

	if (!a->action)
		return row_at(t, a->area_ns)->area_um2;
	r = row_at(t, a->cycle_s * 1e9);
	if (!strcasecmp(a->action, "leak"))
		return r->idle_pj * a->gcs / (r->ns * 1e-9);
	return r->dyn_pj;
}

static bool need(const struct equery *q, const char *key, double *v, struct strbuf *why)
{
	if (eattrs_number(q->attrs, key, v))
		return true;
	strbuf_addf(why, "Aladdin's '%s' needs a numeric '%s'", q->class_name, key);
	return false;
}

/* A comparator of 'bits' bits. */
static double comparator(const struct aq *a, double bits)
{
	return table_value(&t_comparator, a) * bits / 32.0;
}

/* A register file (and a small SRAM): one register's energy plus a comparator per entry. */
static int regfile(const struct equery *q, const struct aq *a, double *v, struct strbuf *why)
{
	double width, depth, bits;
	double data = 1, address = 1;

	if (!need(q, "width", &width, why) || !need(q, "depth", &depth, why))
		return -1;
	if (depth == 0)
		return *v = 0, 0;
	bits = ceil(log2(depth));
	if (!a->action)
		return *v = table_value(&t_reg, a) + comparator(a, bits) * depth, 0;
	if (q->args && strcasecmp(a->action, "leak")) {
		eattrs_number(q->args, "data_delta", &data);
		eattrs_number(q->args, "address_delta", &address);
	}
	*v = (data != 0 ? table_value(&t_reg, a) : 0) + (address != 0 ? comparator(a, bits) : 0) * depth;
	return 0;
}

/* A multiplier action: gated is the idle energy, reused 0.85 of a random one. */
static double multiplier(const struct atable *t, const struct aq *a, double scale)
{
	struct aq m = *a;
	double e;

	if (a->action && !strcasecmp(a->action, "mult_gated"))
		m.action = "leak";
	e = table_value(t, &m) * scale;
	if (a->action && !strcasecmp(a->action, "mult_reused"))
		e *= 0.85;
	return e;
}

/* The multiplier action a MAC action stands for. */
static const char *mac_to_mult(const char *action)
{
	if (!action)
		return NULL;
	if (!strcasecmp(action, "mac_gated"))
		return "mult_gated";
	if (!strcasecmp(action, "mac_reused"))
		return "mult_reused";
	if (!strcasecmp(action, "leak"))
		return "leak";
	return "mult_random";
}

/* Floating point: 'exponent' + 'mantissa' bits on the single or double precision table. */
static int fp_bits(const struct equery *q, double *bits, bool *is_sp, struct strbuf *why)
{
	double e, m;

	if (!need(q, "exponent", &e, why) || !need(q, "mantissa", &m, why))
		return -1;
	*bits = e + m;
	*is_sp = *bits <= 32;
	return 0;
}

/* A wire: width x activity 0.2 x 1.627 fF/um x length x (1 V)^2 per transfer. */
static int wire(struct ectx *c, const struct equery *q, const struct aq *a, double *v,
		struct strbuf *why)
{
	const char *len;
	double width, um;
	char *end;

	if (!a->action)
		return *v = 0, 0;
	if (strcasecmp(a->action, "transfer") && strcasecmp(a->action, "transfer_random"))
		return *v = 0, 0;
	if (!need(q, "width", &width, why))
		return -1;
	len = eattrs_text(c, q->attrs, "length");
	if (!len) {
		strbuf_addstr(why, "Aladdin's 'wire' needs a 'length'");
		return -1;
	}
	um = strtod(len, &end);
	if (end == len) {
		strbuf_addf(why, "Aladdin's 'wire' cannot read length '%s'", len);
		return -1;
	}
	if (!strcmp(end, "mm"))
		um *= 1e3;
	else if (!strcmp(end, "nm"))
		um *= 1e-3;
	*v = width * 0.2 * 1.627e-15 * um * 1e12;
	return 0;
}

static int intadder_value(const struct equery *q, const struct aq *a, double *v,
			  struct strbuf *why)
{
	double w;

	if (!need(q, "width", &w, why))
		return -1;
	*v = table_value(&t_adder, a) * w / 32.0;
	return 0;
}

static int intmult_value(const struct equery *q, const struct aq *a, double *v,
			 struct strbuf *why)
{
	double w;

	if (!need(q, "width", &w, why))
		return -1;
	*v = multiplier(&t_multiplier, a, (w / 32.0) * (w / 32.0));
	return 0;
}

static int fpadder_value(const struct equery *q, const struct aq *a, double *v,
			 struct strbuf *why)
{
	double bits;
	bool sp;

	if (fp_bits(q, &bits, &sp, why) < 0)
		return -1;
	*v = table_value(sp ? &t_fp_sp_adder : &t_fp_dp_adder, a) * bits / (sp ? 32.0 : 64.0);
	return 0;
}

static int fpmult_value(const struct equery *q, const struct aq *a, double *v,
			struct strbuf *why)
{
	double bits, r;
	bool sp;

	if (fp_bits(q, &bits, &sp, why) < 0)
		return -1;
	r = bits / (sp ? 32.0 : 64.0);
	*v = multiplier(sp ? &t_fp_sp_multiplier : &t_fp_dp_multiplier, a, r * r);
	return 0;
}

/* The value of a query on a supported class: 0, or -1 with 'why'. */
static int value(struct ectx *c, const struct equery *q, const struct aq *a, double *v,
		 struct strbuf *why)
{
	const char *k = q->class_name;
	double w, d, x, y;

	if (!strcasecmp(k, "regfile") || !strcasecmp(k, "SRAM"))
		return regfile(q, a, v, why);
	if (!strcasecmp(k, "reg")) {
		if (!need(q, "width", &w, why))
			return -1;
		return *v = table_value(&t_reg, a) * w, 0;
	}
	if (!strcasecmp(k, "FIFO")) {
		if (!need(q, "width", &w, why) || !need(q, "depth", &d, why))
			return -1;
		if (d == 0)
			return *v = 0, 0;
		return *v = table_value(&t_reg, a) * w + comparator(a, log2(d)), 0;
	}
	if (!strcasecmp(k, "crossbar")) {
		if (!need(q, "n_inputs", &x, why) || !need(q, "n_outputs", &y, why) ||
		    !need(q, "width", &w, why))
			return -1;
		return *v = table_value(&t_crossbar, a) * x * (y / 4.0) * (w / 32.0), 0;
	}
	if (!strcasecmp(k, "counter") || !strcasecmp(k, "comparator")) {
		if (!need(q, "width", &w, why))
			return -1;
		return *v = table_value(!strcasecmp(k, "counter") ? &t_counter : &t_comparator, a) *
			    w / 32.0, 0;
	}
	if (!strcasecmp(k, "bitwise")) {
		if (!need(q, "width", &w, why))
			return -1;
		return *v = table_value(&t_bitwise, a) * (a->action ? 1.0 : w), 0;
	}
	if (!strcasecmp(k, "wire"))
		return wire(c, q, a, v, why);
	if (!strcasecmp(k, "intadder"))
		return intadder_value(q, a, v, why);
	if (!strcasecmp(k, "intmultiplier"))
		return intmult_value(q, a, v, why);
	if (!strcasecmp(k, "fpadder"))
		return fpadder_value(q, a, v, why);
	if (!strcasecmp(k, "fpmultiplier"))
		return fpmult_value(q, a, v, why);
	if (!strcasecmp(k, "intmac") || !strcasecmp(k, "fpmac")) {
		bool is_int = !strcasecmp(k, "intmac");
		struct aq m = *a;
		m.action = mac_to_mult(a->action);
		if ((is_int ? intadder_value(q, a, &x, why) : fpadder_value(q, a, &x, why)) < 0 ||
		    (is_int ? intmult_value(q, &m, &y, why) : fpmult_value(q, &m, &y, why)) < 0)
			return -1;
		return *v = x + y, 0;
	}
	BUG("Aladdin class '%s'", k);
}

static const char *const classes[] = {
	"regfile", "SRAM", "counter", "comparator", "crossbar", "wire", "FIFO", "bitwise",
	"intadder", "intmultiplier", "intmac", "fpadder", "fpmultiplier", "fpmac", "reg",
};

/* The plug-in prices its classes at 40 and 45 nm; small SRAMs only. */
static int aladdin_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	const struct eattr *t = eattrs_get(q->attrs, "technology");
	double nm, w = 0, d = 0;
	bool known = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(classes); i++)
		known = known || !strcasecmp(q->class_name, classes[i]);
	if (!known)
		return 0;
	if (!t || !energy_tech_nm(&t->v, &nm) || (nm != 40 && nm != 45)) {
		strbuf_addf(why, "Aladdin's tables are for 40 and 45 nm, not %s",
			    t ? eattrs_value_text(c, &t->v) : "no technology");
		return 0;
	}
	if (!strcasecmp(q->class_name, "SRAM")) {
		eattrs_number(q->attrs, "width", &w);
		eattrs_number(q->attrs, "depth", &d);
		if (d > 128 || w > (q->action ? 32 : 16)) {
			strbuf_addf(why, "Aladdin prices SRAMs of up to 128 x %d bits only",
				    q->action ? 32 : 16);
			return 0;
		}
	}
	return 70;
}

static int aladdin_estimate(struct ectx *c, const struct equery *q, double *v, struct strbuf *why)
{
	struct aq a;
	double alc = 1, lat;

	memset(&a, 0, sizeof(a));
	a.action = q->action;
	if (!need(q, "global_cycle_seconds", &a.gcs, why))
		return -1;
	if (q->args)
		eattrs_number(q->args, "action_latency_cycles", &alc);
	a.cycle_s = a.gcs * alc;
	a.area_ns = eattrs_number(q->attrs, "latency", &lat) ? lat : AREA_DEFAULT_NS;
	return value(c, q, &a, v, why);
}

const struct estimator energy_est_aladdin = {
	"Aladdin_table", ENERGY_FAMILY_ALADDIN, aladdin_accuracy, aladdin_estimate,
};
