#!/bin/sh
# Every kind of 'fiberloop plot' picture, drawn by gnuplot as SVG and read
# back (tests/cli/svg-facts.py: its plotted items, their colours and key
# texts, every other text): lines with the default series (one per other
# axis value, not one line through every point), bars per design (a text x:
# clustered bars from 0, never lines), the energy per level and per tensor
# (stacked bars from 0, a distinct colour each), the speedup over a design
# and over a series along density, and the roofline of one evaluation; each
# with its title and its axis labels with units. Skipped (77) without
# gnuplot or python3.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
facts=$srcdir/tests/cli/svg-facts.py
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
command -v gnuplot >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || {
	echo "SKIP: gnuplot or python3 missing"; exit 77; }

t=sparse_optimizations.targets
"$FIBERLOOP" sweep --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/coord-skipping.yaml" \
	"$ex/problem.yaml" --db "$tmp/s.db" \
	--axis 'density:problem.instance.densities.A.density,problem.instance.densities.B.density=0.02:0.64:x2' \
	--axis "format:$t[name=DRAM].representation_format.data_spaces[name=A].format,$t[name=DRAM].representation_format.data_spaces[name=B].format,$t[name=Buffer].representation_format.data_spaces[name=A].format,$t[name=Buffer].representation_format.data_spaces[name=B].format=COO,bitmask" \
	--axis "saf:$t[name=Buffer].action_optimization[0].type,$t[name=Buffer].action_optimization[1].type,$t[name=Buffer].action_optimization[2].type,$t[name=mac].compute_optimization[0].type=skipping,gating" \
	2>/dev/null || fail "the sweep exits $?"
"$FIBERLOOP" batch --energy accelergy45 "$TEST_DATA_DIR/batch/jobs.yaml" --db "$tmp/b.db" >/dev/null 2>&1

# draw NAME ARGS...: the picture as $tmp/NAME.svg, its script as NAME.gp, its facts as NAME.facts
draw() {
	n=$1; shift
	"$FIBERLOOP" plot "$@" -o "$tmp/$n.svg" >/dev/null 2>"$tmp/err" &&
	"$FIBERLOOP" plot "$@" -o "$tmp/$n.gp" >/dev/null 2>&1 &&
	python3 "$facts" "$tmp/$n.svg" >"$tmp/$n.facts" || fail "$n: plot exits: $(cat "$tmp/err")"
}
has() { grep -qxF "$2" "$tmp/$1.facts" || fail "$1: no '$2' in the picture: $(tr '\n' '|' <"$tmp/$1.facts")"; }
count() { [ "$(grep -c "$2" "$tmp/$1.facts")" = "$3" ] || fail "$1: $3 x '$2' expected: $(tr '\n' '|' <"$tmp/$1.facts")"; }
# the distinct colours of the items whose key matches $2
colours() { grep "^item [0-9]* [^ ]* $2" "$tmp/$1.facts" | cut -d' ' -f3 | sort -u | wc -l; }

# lines, the default series: 4 per panel (format x saf), each its colour; units; no e-notation
draw lines "$tmp/s.db" --x density --y energy_pj --y cycles --logscale xy
has lines 'plot 8'
for k in 'COO skipping' 'COO gating' 'bitmask skipping' 'bitmask gating'; do
	count lines "^item [0-9]* [^ ]* $k\$" 2
done
[ "$(grep '^item [1-4] ' "$tmp/lines.facts" | cut -d' ' -f3 | sort -u | wc -l)" = 4 ] ||
	fail "lines: the 4 series share colours"
has lines 'text energy_pj (pJ)'
has lines 'text cycles'
has lines 'text density'
has lines 'text energy_pj and cycles against density, by format, saf'
grep -q '^text .*e[+-][0-9]' "$tmp/lines.facts" && fail "lines: e-notation on an axis"
grep -q 'with linespoints' "$tmp/lines.gp" || fail "lines: not lines"

# bars per design (a text x): from 0, the designs as categories, not joined
draw bars "$tmp/b.db" --x name --y utilization --where kind=job
has bars 'plot 1'
has bars 'text utilization'
has bars 'text coord-0.1'
has bars 'text matmul-map'
has bars 'text 0'
grep -q '^set style data histograms' "$tmp/bars.gp" && grep -q '^set yrange \[0:\*\]' "$tmp/bars.gp" ||
	fail "bars: not bars from 0"
grep -q 'linespoints' "$tmp/bars.gp" && fail "bars: designs joined by lines"

# energy per level and per tensor: stacked from 0, a colour each
draw levels "$tmp/b.db" --x name --y levels --where kind=job
has levels 'plot 4'
for k in DRAM Buffer RegFile compute; do count levels "^item [0-9]* [^ ]* $k\$" 1; done
[ "$(colours levels '')" = 4 ] || fail "levels: the levels share colours"
has levels 'text energy (pJ)'
has levels 'text energy per level by name'
has levels 'text 0.0'
draw tensors "$tmp/b.db" --x name --y tensors --where kind=job
has tensors 'plot 3'
for k in A B Z; do count tensors "^item [0-9]* [^ ]* $k\$" 1; done
[ "$(colours tensors '')" = 3 ] || fail "tensors: the tensors share colours"
has tensors 'text energy per tensor by name'
# the tensors' energies add up to the levels' (the computes apart), design by design
awk '/^\$levels << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { s = 0; for (i = 2; i <= NF; i++) s += $i; print $1, s }' \
	"$tmp/tensors.gp" >"$tmp/t.sum"
awk '/^\$levels << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { s = 0; for (i = 2; i < NF; i++) s += $i; print $1, s }' \
	"$tmp/levels.gp" >"$tmp/l.sum"
paste -d' ' "$tmp/t.sum" "$tmp/l.sum" | awk '{ d = $2 - $4; if (d < 0) d = -d; if ($1 != $3 || d > 1e-6 * $2) exit 1 }' ||
	fail "tensors: their energies do not add up to the levels': $(paste -d' ' "$tmp/t.sum" "$tmp/l.sum")"

# speedup over a design: its cycles over each design's (coord-0.1: 87479 / 2945 = 29.70)
draw speedup "$tmp/b.db" --x name --y cycles --where kind=job --baseline bitmask-0.1
has speedup 'text speedup over bitmask-0.1 by cycles (x)'
has speedup 'text speedup over bitmask-0.1 against name'
grep -q '^"bitmask-0.1" 1$' "$tmp/speedup.gp" || fail "speedup: the baseline is not 1"
grep -q '^"coord-0.1" 29\.70' "$tmp/speedup.gp" || fail "speedup: coord-0.1 is not 29.70x: $(grep coord-0.1 "$tmp/speedup.gp")"
# ... and over a series along density
draw speedup-density "$tmp/s.db" --x density --y cycles --baseline 'bitmask gating' --logscale x
has speedup-density 'plot 4'
has speedup-density 'text speedup over bitmask gating by cycles (x)'
awk '/^\$p0s3 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on && $2 != 1 { exit 1 }' "$tmp/speedup-density.gp" ||
	fail "speedup-density: the baseline series is not 1 everywhere"
"$FIBERLOOP" plot "$tmp/s.db" --x density --baseline nosuch -o "$tmp/x.gp" 2>"$tmp/err"
[ $? = 1 ] && grep -q "baseline: 'nosuch' is neither a series nor a value of --x" "$tmp/err" ||
	fail "an unknown baseline: $(cat "$tmp/err")"

# the roofline of one evaluation: the compute roof, a bandwidth roof per level, the run
d=$srcdir/examples/eyeriss-like
"$FIBERLOOP" model "$d/input.yaml" "$d/map.yaml" "$d/ERT.yaml" "$d/ART.yaml" --roofline -o "$tmp/rl" \
	>/dev/null || fail "model --roofline -o exits $?"
gnuplot "$tmp/rl/fiberloop-model.roofline.gp" >"$tmp/roofline.svg" 2>"$tmp/err" &&
	python3 "$facts" "$tmp/roofline.svg" >"$tmp/roofline.facts" || fail "roofline: $(cat "$tmp/err")"
has roofline 'plot 7'
for k in 'compute roof' 'shared_glb bandwidth' 'psum_spad bandwidth' 'the run, at each level'; do
	count roofline "^item [0-9]* [^ ]* $k\$" 1
done
has roofline 'text operational intensity (computes/byte)'
has roofline 'text performance (computes/cycle)'
has roofline 'text roofline: 126 computes/cycle of a 126 roof, bound by compute'
exit $status
