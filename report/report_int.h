/*
 * Formatting helpers shared by the report writers: Timeloop's label columns
 * ("<indent><label padded to width>: <value>") and its number formats.
 */
#ifndef REPORT_REPORT_INT_H
#define REPORT_REPORT_INT_H

#include <stdint.h>

#include "model/model.h"
#include "report/report.h"
#include "specs/spec.h"
#include "util/strbuf.h"

/* "<indent spaces><label left-justified in width>: " */
void report_label(struct strbuf *sb, unsigned indent, unsigned width, const char *label);

/* A label line with an integer value. */
void report_int(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    uint64_t v);

/* A label line with a two-decimal value and an optional unit (" pJ"...). */
void report_dbl(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    double v, const char *unit);

/* A label line with a text value. */
void report_str(struct strbuf *sb, unsigned indent, unsigned width, const char *label,
	    const char *v);

/* Energy source of level l ("ERT", "user", "PAT", "preset:<name>"). */
const char *report_level_source(const struct model_result *r, unsigned l, char *buf,
			    unsigned size);

/* Sum of a kept tile's energy over its instances (pJ), 0 when bypassed. */
double report_tile_energy(const struct model_tile *t);

/* The plots' colour-blind-safe palette as gnuplot linetypes 1, 2, ... (plot.c). */
void report_plot_palette(struct strbuf *sb);

/* Timeloop's lower-case name of rank format 'kind' ("uop", "cp", ...; ours: "u"). */
const char *report_fmt_name(unsigned kind);

/* Bits of a tile's metadata at its utilized capacity (ceiled units x word bits). */
uint64_t report_tile_metadata_bits(const struct model_tile *t);

/*
 * What a tile stores against its dense size: (utilized capacity x word
 * bits + metadata bits) / (shape x word bits); 0 for an empty tile.
 */
double report_tile_stored_fraction(const struct model_tile *t, unsigned word_bits);

struct json_writer;

/* The "per_call" object of the JSON document, when the design has a 'per_call' key. */
void report_per_call_json(struct json_writer *w, const struct spec_set *s,
			  const struct model_result *r);

/* The workload of 's' as text ('fiberloop check'; an IPU layer's too). */
void report_workload_text(const struct spec_set *s, struct strbuf *sb);

/* The "roofline" object of the JSON document (report_json_roofline()). */
void report_roofline_json(struct json_writer *w, const struct spec_set *s,
			  const struct model_result *r);

#endif
