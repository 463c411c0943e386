/*
 * The roofline view of a result (docs/model.md, "Roofline"): per storage
 * level the bytes it moves, the cycles they need at its bandwidth and the
 * cycles its tile fills wait for their data, against the compute cycles;
 * the largest of them bounds the run.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>

#include "util/json.h"

/* Index of the level that bounds the run, or -1: the compute units. */
static int bound_level(const struct model_result *r)
{
	uint64_t best = r->compute.cycles;
	int b = -1;
	unsigned l;

	for (l = 0; l < r->n_levels; l++)
		if (r->levels[l].cycles > best) {
			best = r->levels[l].cycles;
			b = (int)l;
		}
	return b;
}

/* What holds a level back: "bandwidth", "latency" or "-" (neither exceeds the compute). */
static const char *level_limit(const struct model_result *r, unsigned l)
{
	const struct model_level *ml = &r->levels[l];

	if (ml->cycles <= r->compute.cycles)
		return "-";
	return (double)ml->latency_cycles >= ml->bw_cycles ? "latency" : "bandwidth";
}

/* The level's bandwidths as "r/w/shared" words per cycle ("-" when unlimited). */
static void bandwidths(const struct spec_level *lvl, struct strbuf *sb)
{
	if (lvl->has_shared_bw)
		strbuf_addf(sb, "%.1f shared", lvl->shared_bw_words_per_cycle);
	if (lvl->has_read_bw)
		strbuf_addf(sb, "%s%.1f read", sb->len ? ", " : "", lvl->read_bw_words_per_cycle);
	if (lvl->has_write_bw)
		strbuf_addf(sb, "%s%.1f write", sb->len ? ", " : "", lvl->write_bw_words_per_cycle);
	if (!sb->len)
		strbuf_addstr(sb, "-");
}

static double bytes_of(const struct spec_set *s, const struct model_result *r, unsigned l)
{
	return r->levels[l].total_words * (double)s->arch.levels[l].word_bits / 8.0;
}

void report_roofline(const struct spec_set *s, const struct model_result *r, struct strbuf *out)
{
	struct strbuf bw = STRBUF_INIT;
	int b = bound_level(r);
	unsigned l;

	strbuf_addf(out, "Roofline (cycles; the largest bounds the run):\n");
	strbuf_addf(out, "    compute: %llu cycles", (unsigned long long)r->compute.cycles);
	if (r->compute.waves > 1)
		strbuf_addf(out, " = %llu per wave x %llu waves",
			    (unsigned long long)r->compute.cycles_per_wave,
			    (unsigned long long)r->compute.waves);
	strbuf_addf(out, ", %llu actual computes%s\n", (unsigned long long)r->actual_computes,
		    b < 0 ? "  <- bound" : "");
	if (r->compute.prologue_cycles + r->compute.epilogue_cycles)
		strbuf_addf(out, "    prologue + epilogue: (%llu + %llu) cycles x %llu tiles x %llu "
			    "waves = %llu cycles after the bound, not overlapped\n",
			    (unsigned long long)r->compute.prologue_cycles,
			    (unsigned long long)r->compute.epilogue_cycles,
			    (unsigned long long)r->compute.block_tiles,
			    (unsigned long long)r->compute.waves,
			    (unsigned long long)(r->compute.waves * r->compute.block_tiles *
						 (r->compute.prologue_cycles +
						  r->compute.epilogue_cycles)));
	for (l = r->n_levels; l-- > 0;)
		if (r->levels[l].warps)
			strbuf_addf(out, "    %s: %llu warps an instance (warp_registers)\n",
				    s->arch.levels[l].name, (unsigned long long)r->levels[l].warps);
	strbuf_addf(out, "    %-16s %14s %10s %-24s %14s %14s %14s  %s\n", "level", "bytes moved",
		    "MACs/byte", "bandwidth (words/cycle)", "at bandwidth", "fill latency",
		    "cycles", "limit");
	for (l = r->n_levels; l-- > 0;) {
		double bytes = bytes_of(s, r, l);
		strbuf_reset(&bw);
		bandwidths(&s->arch.levels[l], &bw);
		strbuf_addf(out, "    %-16s %14.4g %10.4g %-24s %14.0f %14llu %14llu  %s%s\n",
			    s->arch.levels[l].name, bytes,
			    bytes > 0 ? (double)r->actual_computes / bytes : 0.0, bw.buf,
			    r->levels[l].bw_cycles, (unsigned long long)r->levels[l].latency_cycles,
			    (unsigned long long)r->levels[l].cycles, level_limit(r, l),
			    (int)l == b ? "  <- bound" : "");
	}
	strbuf_addf(out, "Bound by: %s\n", b < 0 ? "compute" : s->arch.levels[b].name);
	strbuf_release(&bw);
}

void report_roofline_bound(const struct spec_set *s, const struct model_result *r,
			   struct strbuf *out)
{
	int b = bound_level(r);

	if (b < 0)
		strbuf_addstr(out, "compute");
	else
		strbuf_addf(out, "%s %s", s->arch.levels[b].name, level_limit(r, (unsigned)b));
}

void report_roofline_json(struct json_writer *w, const struct spec_set *s,
			  const struct model_result *r)
{
	int b = bound_level(r);
	unsigned l;

	json_open(w, "roofline", '{');
	json_u64(w, "compute_cycles", r->compute.cycles);
	json_u64(w, "cycles_per_wave", r->compute.cycles_per_wave);
	json_u64(w, "waves", r->compute.waves);
	json_str(w, "bound", b < 0 ? "compute" : s->arch.levels[b].name);
	json_u64(w, "prologue_cycles", r->compute.prologue_cycles);
	json_u64(w, "epilogue_cycles", r->compute.epilogue_cycles);
	json_u64(w, "block_tiles", r->compute.block_tiles);
	json_open(w, "levels", '[');
	for (l = r->n_levels; l-- > 0;) {
		const struct model_level *ml = &r->levels[l];
		json_open(w, NULL, '{');
		json_str(w, "name", s->arch.levels[l].name);
		json_double(w, "bytes_moved", bytes_of(s, r, l));
		json_double(w, "read_words_per_instance", ml->read_words);
		json_double(w, "write_words_per_instance", ml->write_words);
		json_double(w, "bandwidth_cycles", ml->bw_cycles);
		json_u64(w, "latency_cycles", ml->latency_cycles);
		json_u64(w, "cycles", ml->cycles);
		json_u64(w, "warps", ml->warps);
		json_str(w, "limit", level_limit(r, l));
		json_close(w, '}');
	}
	json_close(w, ']');
	json_close(w, '}');
}

/* 's' as a gnuplot single-quoted string. */
static void gp_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\'');
		if (*s != '\n')
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void report_roofline_gnuplot(const struct spec_set *s, const struct model_result *r,
			     struct strbuf *out)
{
	double computes = (double)r->actual_computes;
	double perf = r->cycles ? computes / (double)r->cycles : 0;
	double peak = r->compute.cycles ? computes / (double)r->compute.cycles : perf;
	double lo = INFINITY, hi = -INFINITY;
	int b = bound_level(r);
	unsigned l, k = 0;

	strbuf_addstr(out, "# The roofline of one evaluation (fiberloop model --roofline): x the\n"
		      "# computes per byte each level moves, y computes per cycle; the compute\n"
		      "# roof and each level's bandwidth roof; the run where each level puts it.\n"
		      "set terminal svg size 900,600 noenhanced font 'Sans,12' background rgb 'white'\n"
		      "set encoding utf8\nset grid\nset key outside right top\nset logscale xy\n"
		      "set format x '%.1s%c'\nset format y '%.1s%c'\n"
		      "set xlabel 'operational intensity (computes/byte)'\n"
		      "set ylabel 'performance (computes/cycle)'\n");
	report_plot_palette(out);
	strbuf_addstr(out, "set title ");
	{
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "roofline: %.4g computes/cycle of a %.4g roof, bound by %s", perf,
			    peak, b < 0 ? "compute" : s->arch.levels[b].name);
		gp_quoted(out, t.buf);
		strbuf_release(&t);
	}
	strbuf_addstr(out, "\n$run << EOD\n");
	for (l = r->n_levels; l-- > 0;) {
		double bytes = bytes_of(s, r, l);
		if (bytes <= 0)
			continue;
		strbuf_addf(out, "%.17g %.17g \"%s\"\n", computes / bytes, perf, s->arch.levels[l].name);
		lo = fmin(lo, computes / bytes);
		hi = fmax(hi, computes / bytes);
	}
	strbuf_addstr(out, "EOD\n");
	if (!isfinite(lo)) {
		lo = 1;
		hi = 1;
	}
	strbuf_addf(out, "set xrange [%.17g:%.17g]\n", lo / 10, hi * 10);
	strbuf_addf(out, "set yrange [%.17g:%.17g]\n", fmin(perf, peak) / 100, peak * 3);
	strbuf_addf(out, "plot %.17g lt 1 lw 2 title 'compute roof'", peak);
	for (l = r->n_levels; l-- > 0;) {
		const struct model_level *ml = &r->levels[l];
		double bytes = bytes_of(s, r, l);
		if (bytes <= 0 || ml->bw_cycles <= 0)
			continue;
		/* its bandwidth in bytes per cycle times the intensity */
		strbuf_addf(out, ", \\\n     %.17g * x lt %u lw 1.5 title ", bytes / ml->bw_cycles,
			    2 + k++ % 9);
		{
			struct strbuf t = STRBUF_INIT;
			strbuf_addf(&t, "%s bandwidth", s->arch.levels[l].name);
			gp_quoted(out, t.buf);
			strbuf_release(&t);
		}
	}
	strbuf_addstr(out, ", \\\n     $run using 1:2 with points pt 7 ps 1.2 lc rgb '#000000' "
		      "title 'the run, at each level', \\\n     $run using 1:2:3 with labels rotate by 30 "
		      "left offset 0.5,0.5 notitle\n");
}
