#!/bin/sh
# fiberloop plot: a sweep's energy and cycles against density, one line per
# format, as a PNG and an SVG that are valid, non-empty images; the level
# bars of a batch; the gnuplot script itself with -o FILE.gp (no gnuplot
# needed), holding every point; a column the results lack is an error with
# a hint. Skipped (77) without gnuplot, after the script checks.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

cp "$ex/problem.yaml" "$tmp/problem.yaml"
fa='sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=A].format'
fb='sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=A].format'
"$FIBERLOOP" sweep --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/coord-skipping.yaml" "$tmp/problem.yaml" \
	--db "$tmp/s.db" --axis 'density:problem.instance.densities.A.density=0.01:0.64:x2' \
	--axis "format:$fa,$fb=COO,bitmask" 2>/dev/null || fail "the sweep exits $?"

# the script: one data block per format, 7 points each, two panels
"$FIBERLOOP" plot "$tmp/s.db" --x density --y energy_pj --y cycles --series format \
	--logscale xy -o "$tmp/s.gp" >/dev/null || fail "plot -o FILE.gp exits $?"
[ "$(grep -c '^\$p[01]s[01] << EOD$' "$tmp/s.gp")" = 4 ] || fail "4 data blocks expected"
[ "$(grep -c '^0\.[0-9]* [0-9.e+]*$' "$tmp/s.gp")" = 28 ] || fail "28 points expected"
grep -q "^set multiplot layout 2,1" "$tmp/s.gp" || fail "two panels expected"
grep -q "title 'COO'" "$tmp/s.gp" && grep -q "title 'bitmask'" "$tmp/s.gp" || fail "series titles"
"$FIBERLOOP" plot "$tmp/s.db" --x densty -o "$tmp/x.gp" 2>"$tmp/err"
[ $? = 1 ] || fail "an unknown column: exit not 1"
grep -q "^fiberloop plot: --x: no column 'densty' in the results; did you mean 'density'?" "$tmp/err" ||
	fail "an unknown column: $(cat "$tmp/err")"
"$FIBERLOOP" plot "$tmp/s.db" --x density -o "$tmp/x.pdf" 2>/dev/null
[ $? = 2 ] || fail "-o x.pdf: exit not 2"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: gnuplot is not installed (Debian: gnuplot-nox); the images are not checked"
	[ $status = 0 ] && exit 77
	exit $status
fi
"$FIBERLOOP" plot "$tmp/s.db" --x density --y energy_pj --y cycles --series format \
	--logscale xy -o "$tmp/s.png" >/dev/null || fail "plot -o FILE.png exits $?"
# a PNG: its 8-byte signature, then an IHDR chunk; more than a header's worth of bytes
[ "$(head -c 16 "$tmp/s.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a0000000d49484452" ] ||
	fail "not a PNG: $(head -c 16 "$tmp/s.png" | od -An -tx1)"
[ "$(wc -c <"$tmp/s.png")" -gt 10000 ] || fail "a PNG of $(wc -c <"$tmp/s.png") bytes"
# its size: 900 x 840 (two panels)
[ "$(head -c 24 "$tmp/s.png" | tail -c 8 | od -An -tx1 | tr -d ' \n')" = "0000038400000348" ] ||
	fail "PNG size: $(head -c 24 "$tmp/s.png" | tail -c 8 | od -An -tx1)"
"$FIBERLOOP" plot "$tmp/s.db" --x density --series format --where 'format=COO' -o "$tmp/s.svg" \
	>/dev/null || fail "plot -o FILE.svg exits $?"
head -1 "$tmp/s.svg" | grep -q '^<?xml' && grep -q '^<svg' "$tmp/s.svg" && tail -3 "$tmp/s.svg" | grep -q '</svg>' ||
	fail "not an SVG"
grep -q '>COO<' "$tmp/s.svg" || fail "the SVG has no 'COO' series"
grep -q '>bitmask<' "$tmp/s.svg" && fail "--where format=COO kept bitmask"

# a batch's level energies as bars
"$FIBERLOOP" batch --energy accelergy45 "$TEST_DATA_DIR/batch/jobs.yaml" --db "$tmp/b.db" >/dev/null 2>&1
"$FIBERLOOP" plot "$tmp/b.db" --x name --y levels --where 'kind!=layer' -o "$tmp/b.svg" >/dev/null ||
	fail "plot --y levels exits $?"
for level in DRAM Buffer RegFile compute; do
	grep -q ">$level<" "$tmp/b.svg" || fail "the level bars have no '$level'"
done
exit $status
