/*
 * Embedded energy presets (preset_int.h). Every figure below is quoted from
 * docs/energy-presets.md, which gives its public source and marks the
 * interpolations; change both together.
 */
#include "model/preset_int.h"
#include "model/model.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[PRESET_COUNT + 1] = {
	[PRESET_HOROWITZ45] = "horowitz45",
	[PRESET_ACCELERGY45] = "accelergy45",
	[PRESET_EYERISS_NORM] = "eyeriss_norm",
	[PRESET_COUNT] = NULL,
};

static const char *const versions[PRESET_COUNT] = {
	[PRESET_HOROWITZ45] = "1",
	[PRESET_ACCELERGY45] = "1",
	[PRESET_EYERISS_NORM] = "1",
};

/* A published point: x is a width in bits or a capacity in bytes. */
struct fig {
	double x, y;
};

#define N_FIGS(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ horowitz45 */

/* Horowitz ISSCC 2014, 45 nm, pJ per operation, by operand width. */
static const struct fig h_int_mult[] = {{8, 0.2}, {16, 1.0}, {32, 3.1}};  /* 16: estimate */
static const struct fig h_int_add[] = {{8, 0.03}, {16, 0.05}, {32, 0.1}};
static const struct fig h_fp_mult[] = {{16, 1.1}, {32, 3.7}};
static const struct fig h_fp_add[] = {{16, 0.4}, {32, 0.9}};

/*
 * pJ per bit of a read, by capacity in bytes: a 32-bit register-file access
 * (1 pJ, at 1 KB and below), then 64-bit SRAM reads of 8 KB, 32 KB and 1 MB.
 */
static const struct fig h_sram_bit[] = {
	{1024, 1.0 / 32}, {8192, 10.0 / 64}, {32768, 20.0 / 64}, {1048576, 100.0 / 64}};
#define H_DRAM_BIT_PJ (1300.0 / 64)       /* low end of 1300-2600 pJ per 64 bits */
#define H_UNBOUNDED_SRAM_BYTES 1048576.0  /* largest published SRAM */

/* ----------------------------------------------------------- accelergy45 */

#define A_REG_BIT_PJ 0.009                /* Aladdin register read, pJ/bit */
#define A_REG_GATED_BIT_PJ (0.003 / 8)    /* gated 8-bit register: 0.003 pJ */
#define A_RF_BYTES 2048.0                 /* RF 2048 x 8b, 16 banks ... */
#define A_RF_BIT_PJ (1.68 / 8)            /* ... 1.66-1.68 pJ per 8-bit access */
#define A_SRAM_GATED_PJ 0.006             /* gated SRAM access, 0.002-0.006 pJ */
#define A_DRAM_BIT_PJ 8.0                 /* LPDDR4: 512 pJ per 64-bit access */
#define A_UNBOUNDED_SRAM_BYTES 262144.0
#define A_MAC8_PJ 0.56                    /* 8-bit int MAC, random operands */
#define A_MAC8_GATED_PJ 0.036             /* gated 8-bit MAC, 0.018-0.036 pJ */
#define A_MULT32_PJ 12.68                 /* Aladdin 32x32 multiplier, ~ width^2 */
#define A_ADD32_PJ 0.21                   /* Aladdin 32-bit adder, ~ width */

/* pJ per bit of an SRAM access, by capacity in bytes (512x8b, 16384x64b, 4096x512b). */
static const struct fig a_sram_read_bit[] = {
	{512, 0.43 / 8}, {131072, 32.3 / 64}, {262144, 286.0 / 512}};
static const struct fig a_sram_write_bit[] = {
	{512, 0.58 / 8}, {131072, 26.1 / 64}, {262144, 317.0 / 512}};

/* ---------------------------------------------------------- eyeriss_norm */

#define E_RF_KB 0.5          /* RF (0.5 KB) = 1 MAC per 16-bit access */
#define E_GLB_KB 100.0       /* 100 KB global buffer = 6 MACs */
#define E_GLB_COST 6.0
#define E_DRAM_COST 200.0    /* DRAM = 200 MACs per 16-bit access */

/* -------------------------------------------------------- interpolation */

/*
 * Return y at "x" on the piecewise power law through the points "f" (sorted
 * by x): y = y0 (x / x0)^e on each segment. Beyond the ends, y scales as
 * x^"exp_out" from the nearest point.
 */
static double interp_power(const struct fig *f, size_t n, double x, double exp_out)
{
	size_t i;

	if (x <= f[0].x)
		return f[0].y * pow(x / f[0].x, exp_out);
	if (x >= f[n - 1].x)
		return f[n - 1].y * pow(x / f[n - 1].x, exp_out);
	for (i = 1; x > f[i].x; i++)
		;
	return f[i - 1].y * pow(x / f[i - 1].x, log(f[i].y / f[i - 1].y) / log(f[i].x / f[i - 1].x));
}

/*
 * Return y at "x" on the polyline through the points "f" (sorted by x) in
 * (log2 x, y): constant below the first point, the last segment extended
 * above the last one.
 */
static double interp_log2(const struct fig *f, size_t n, double x)
{
	size_t i;
	double t;

	if (x <= f[0].x)
		return f[0].y;
	for (i = 1; i + 1 < n && x > f[i].x; i++)
		;
	t = (log2(x) - log2(f[i - 1].x)) / (log2(f[i].x) - log2(f[i - 1].x));
	return f[i - 1].y + t * (f[i].y - f[i - 1].y);
}

/* --------------------------------------------------------------- names */

/* Whether "s" equals "name", ignoring case and the '-'/'_' spelling. */
static bool name_eq(const char *s, const char *name)
{
	for (; *s && *name; s++, name++) {
		int a = *s == '-' ? '_' : tolower((unsigned char)*s);
		int b = *name == '-' ? '_' : tolower((unsigned char)*name);
		if (a != b)
			return false;
	}
	return *s == *name;
}

/* Whether "hay" contains "needle" (lower case), ignoring the case of "hay". */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	for (; hay && *hay; hay++) {
		for (i = 0; i < n && tolower((unsigned char)hay[i]) == needle[i]; i++)
			;
		if (i == n)
			return true;
	}
	return false;
}

/* Whether "s" ends with "suffix" (lower case), ignoring the case of "s". */
static bool ends_ci(const char *s, const char *suffix)
{
	size_t ls = s ? strlen(s) : 0, lx = strlen(suffix);
	return ls >= lx && contains_ci(s + ls - lx, suffix);
}

int model_preset_find(const char *name)
{
	int i;

	for (i = 0; i < PRESET_COUNT; i++)
		if (name && name_eq(name, names[i]))
			return i;
	return -1;
}

const char *const *model_preset_names(void)
{
	return names;
}

const char *model_preset_name(int preset)
{
	assert(preset >= 0 && preset < PRESET_COUNT);
	return names[preset];
}

const char *model_preset_version(int preset)
{
	assert(preset >= 0 && preset < PRESET_COUNT);
	return versions[preset];
}

const char *model_preset_unit(int preset)
{
	assert(preset >= 0 && preset < PRESET_COUNT);
	return preset == PRESET_EYERISS_NORM ? "MAC16" : "pJ";
}

/* -------------------------------------------------------------- storage */

/* Per-bit energies of one level's accesses under one preset. */
struct storage_cost {
	double read_bit, write_bit;   /* per bit of the access width */
	bool has_gated;
	double gated_flat;            /* per gated access */
	double gated_bit;             /* plus per bit of the access width */
};

/* Whether "lvl" is priced as a register file: a small buffer or an RF class. */
static bool is_regfile(const struct spec_level *lvl, double bytes)
{
	const char *cls = lvl->class_name;

	return bytes < 1024 || contains_ci(cls, "regfile") || contains_ci(cls, "register") ||
	       ends_ci(cls, "_rf") || (cls && name_eq(cls, "rf"));
}

/* Capacity of "lvl" in bytes; "unbounded" when it has no size. */
static double level_bytes(const struct spec_level *lvl, double unbounded)
{
	return lvl->has_size ? (double)lvl->size_words * lvl->word_bits / 8 : unbounded;
}

/* Eyeriss normalized cost of a 16-bit access to a "kb"-KB SRAM (>= 1). */
static double eyeriss_sram16(double kb)
{
	if (kb <= E_RF_KB)
		return 1;
	return 1 + (E_GLB_COST - 1) * (kb - E_RF_KB) / (E_GLB_KB - E_RF_KB);
}

/*
 * accelergy45 register-file energy per bit: linear in capacity from one
 * register holding one access ("width_bits") to the 2 KB RF, flat beyond.
 */
static double accelergy_rf_bit(double bytes, double width_bits)
{
	double reg_bytes = width_bits / 8;

	if (bytes <= reg_bytes || reg_bytes >= A_RF_BYTES)
		return bytes <= reg_bytes ? A_REG_BIT_PJ : A_RF_BIT_PJ;
	if (bytes >= A_RF_BYTES)
		return A_RF_BIT_PJ;
	return A_REG_BIT_PJ +
	       (A_RF_BIT_PJ - A_REG_BIT_PJ) * (bytes - reg_bytes) / (A_RF_BYTES - reg_bytes);
}

/* Fill "sc" for level "lvl" (access width "width_bits") under "preset". */
static void storage_cost(int preset, const struct spec_level *lvl, double width_bits,
			 struct storage_cost *sc)
{
	double bytes;

	memset(sc, 0, sizeof(*sc));
	if (lvl->is_dummy)
		return;
	switch (preset) {
	case PRESET_HOROWITZ45:
		if (lvl->technology == SPEC_TECH_DRAM) {
			sc->read_bit = H_DRAM_BIT_PJ;
		} else {
			bytes = level_bytes(lvl, H_UNBOUNDED_SRAM_BYTES);
			sc->read_bit = interp_log2(h_sram_bit, N_FIGS(h_sram_bit), bytes);
		}
		sc->write_bit = sc->read_bit;
		break;
	case PRESET_ACCELERGY45:
		if (lvl->technology == SPEC_TECH_DRAM) {
			sc->read_bit = sc->write_bit = A_DRAM_BIT_PJ;
			break;
		}
		bytes = level_bytes(lvl, A_UNBOUNDED_SRAM_BYTES);
		sc->has_gated = true;
		if (is_regfile(lvl, bytes)) {
			sc->read_bit = sc->write_bit = accelergy_rf_bit(bytes, width_bits);
			sc->gated_bit = A_REG_GATED_BIT_PJ;
		} else {
			sc->read_bit = interp_log2(a_sram_read_bit, N_FIGS(a_sram_read_bit), bytes);
			sc->write_bit = interp_log2(a_sram_write_bit, N_FIGS(a_sram_write_bit), bytes);
			sc->gated_flat = A_SRAM_GATED_PJ;
		}
		break;
	case PRESET_EYERISS_NORM:
		if (lvl->technology == SPEC_TECH_DRAM)
			sc->read_bit = E_DRAM_COST / 16;
		else
			sc->read_bit = eyeriss_sram16(level_bytes(lvl, E_GLB_KB * 1024) / 1024) / 16;
		sc->write_bit = sc->read_bit;
		break;
	default:
		assert(!"unknown preset");
	}
}

/* Bits of one metadata access of "lvl", or 0 when it declares no metadata. */
static double metadata_width_bits(const struct spec_level *lvl)
{
	if (lvl->metadata_storage_width > 0)
		return lvl->metadata_storage_width;
	return (double)lvl->metadata_word_bits *
	       (lvl->metadata_block_size ? lvl->metadata_block_size : 1);
}

/* Append the action "name" with energy "pj" to "actions" ("*n" entries). */
static void add_action(struct spec_ert_action *actions, size_t *n, const char *name, double pj,
		       struct diag_loc loc)
{
	assert(*n < PRESET_MAX_ACTIONS);
	actions[(*n)++] = (struct spec_ert_action){
		.name = name, .energy_pj = pj, .n_variants = 1, .loc = loc};
}

void model_preset_level_table(int preset, const struct spec_level *lvl,
			      struct spec_ert_table *out,
			      struct spec_ert_action actions[PRESET_MAX_ACTIONS])
{
	double width = (double)lvl->word_bits * (lvl->block_size ? lvl->block_size : 1);
	double md = lvl->is_dummy ? 0 : metadata_width_bits(lvl);
	struct storage_cost sc;
	size_t n = 0;

	assert(preset >= 0 && preset < PRESET_COUNT);
	storage_cost(preset, lvl, width, &sc);
	add_action(actions, &n, "read", sc.read_bit * width, lvl->loc);
	add_action(actions, &n, "write", sc.write_bit * width, lvl->loc);
	add_action(actions, &n, "update", sc.write_bit * width, lvl->loc);
	add_action(actions, &n, "leak", 0, lvl->loc);   /* no public leakage figure */
	if (md > 0) {
		add_action(actions, &n, "metadata_read", sc.read_bit * md, lvl->loc);
		add_action(actions, &n, "metadata_write", sc.write_bit * md, lvl->loc);
		add_action(actions, &n, "metadata_update", sc.write_bit * md, lvl->loc);
	}
	if (sc.has_gated) {
		double g = sc.gated_flat + sc.gated_bit * width;
		double gm = sc.gated_flat + sc.gated_bit * md;

		add_action(actions, &n, "gated_read", g, lvl->loc);
		add_action(actions, &n, "gated_write", g, lvl->loc);
		add_action(actions, &n, "gated_update", g, lvl->loc);
		if (md > 0) {
			add_action(actions, &n, "gated_metadata_read", gm, lvl->loc);
			add_action(actions, &n, "gated_metadata_write", gm, lvl->loc);
			add_action(actions, &n, "gated_metadata_update", gm, lvl->loc);
		}
	}
	*out = (struct spec_ert_table){
		.name = lvl->name, .component = lvl->name, .n_actions = n, .actions = actions,
		.loc = lvl->loc};
}

/* -------------------------------------------------------------- compute */

/*
 * The width given by attribute "key" of "c" (a positive integer up to 1024),
 * else "dflt".
 */
static unsigned attr_width(const struct spec_compute *c, const char *key, unsigned dflt)
{
	size_t i;

	for (i = 0; i < c->n_attrs; i++) {
		const char *v = c->attrs[i].value;
		char *end;
		unsigned long w;

		if (!name_eq(c->attrs[i].key, key) || !v)
			continue;
		w = strtoul(v, &end, 10);
		if (end != v && *end == '\0' && w >= 1 && w <= 1024)
			return (unsigned)w;
	}
	return dflt;
}

/* Horowitz MAC energy (pJ): multiplier of "wm" bits plus adder of "wa" bits. */
static double horowitz_mac(bool fp, double wm, double wa)
{
	if (fp)
		return interp_power(h_fp_mult, N_FIGS(h_fp_mult), wm, 2) +
		       interp_power(h_fp_add, N_FIGS(h_fp_add), wa, 1);
	return interp_power(h_int_mult, N_FIGS(h_int_mult), wm, 2) +
	       interp_power(h_int_add, N_FIGS(h_int_add), wa, 1);
}

/* Aladdin's width law of an int MAC: 32x32 multiplier ~ width^2, adder ~ width. */
static double aladdin_mac(double wm, double wa)
{
	return A_MULT32_PJ * (wm / 32) * (wm / 32) + A_ADD32_PJ * (wa / 32);
}

/*
 * accelergy45 MAC energy (pJ): the 45 nm 8-bit MAC scaled by Aladdin's width
 * law; floating point takes Horowitz's fp/int ratio at the same widths.
 */
static double accelergy_mac(bool fp, double wm, double wa)
{
	double e = A_MAC8_PJ * aladdin_mac(wm, wa) / aladdin_mac(8, 8);

	if (fp)
		e *= horowitz_mac(true, wm, wa) / horowitz_mac(false, wm, wa);
	return e;
}

void model_preset_compute_table(int preset, const struct spec_compute *c,
				struct spec_ert_table *out,
				struct spec_ert_action actions[PRESET_MAX_ACTIONS])
{
	unsigned w = c->word_bits ? c->word_bits : 16;
	double wm = attr_width(c, "multiplier_width", w), wa = attr_width(c, "adder_width", w);
	bool fp = contains_ci(c->class_name, "fp") || contains_ci(c->class_name, "float");
	size_t n = 0;
	double e;

	assert(preset >= 0 && preset < PRESET_COUNT);
	switch (preset) {
	case PRESET_HOROWITZ45:
		e = horowitz_mac(fp, wm, wa);
		break;
	case PRESET_ACCELERGY45:
		e = accelergy_mac(fp, wm, wa);
		break;
	default:
		e = (wm / 16) * (wm / 16);   /* Eyeriss: (bitsA/16)(bitsB/16), adders 0 */
		break;
	}
	add_action(actions, &n, "compute", e, c->loc);
	if (preset == PRESET_ACCELERGY45)
		add_action(actions, &n, "compute_gated", e * A_MAC8_GATED_PJ / A_MAC8_PJ, c->loc);
	*out = (struct spec_ert_table){
		.name = c->name, .component = c->name, .n_actions = n, .actions = actions,
		.loc = c->loc};
}

/* ------------------------------------------------------------ descriptions */

/* "64 KiB", "384 B": a capacity for messages. */
static void bytes_text(double bytes, char *buf, size_t size)
{
	if (bytes >= 1024 && fmod(bytes, 1024) == 0)
		snprintf(buf, size, "%.0f KiB", bytes / 1024);
	else
		snprintf(buf, size, "%.0f B", bytes);
}

/* What 'preset' prices level 'lvl' as. */
static void describe_level(int preset, const struct spec_level *lvl, char *buf, size_t size)
{
	char cap[32];
	double bytes;

	if (lvl->technology == SPEC_TECH_DRAM) {
		snprintf(buf, size, "DRAM (per bit of a %u-bit access)",
			 lvl->word_bits * (lvl->block_size ? lvl->block_size : 1));
		return;
	}
	bytes = level_bytes(lvl, preset == PRESET_HOROWITZ45 ? H_UNBOUNDED_SRAM_BYTES :
				 preset == PRESET_ACCELERGY45 ? A_UNBOUNDED_SRAM_BYTES :
								E_GLB_KB * 1024);
	bytes_text(bytes, cap, sizeof(cap));
	if (preset == PRESET_ACCELERGY45 && is_regfile(lvl, bytes))
		snprintf(buf, size, "a register file of %s", cap);
	else
		snprintf(buf, size, "an SRAM of %s%s", cap, lvl->has_size ? "" : " (no size given)");
}

void model_energy_preset_describe(const char *preset, const struct spec_set *s, int level,
				  char *buf, size_t size)
{
	int p = model_preset_find(preset ? preset : model_preset_name(PRESET_DEFAULT));

	if (p < 0) {
		snprintf(buf, size, "?");
		return;
	}
	if (level >= 0) {
		describe_level(p, &s->arch.levels[level], buf, size);
	} else {
		const struct spec_compute *c = &s->arch.compute;
		unsigned w = c->word_bits ? c->word_bits : 16;
		double wm = attr_width(c, "multiplier_width", w);
		double wa = attr_width(c, "adder_width", w);
		bool fp = contains_ci(c->class_name, "fp") || contains_ci(c->class_name, "float");
		snprintf(buf, size, "a %.0fx%.0f-bit %s MAC", wm, wa, fp ? "floating-point"
									  : "integer");
	}
}
