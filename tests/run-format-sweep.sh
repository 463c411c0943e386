#!/bin/sh
# examples/format-sweep: rerun sweep.sh (fiberloop sweep, results, plot) and
# compare its CSV with the committed one (every point of the sweep is a
# regression test); then read back from the sweep's database where
# coordinate lists + skipping stop winning against bitmasks + gating, on
# energy and on cycles, and check the crossovers and every row of the
# README's table against it.
srcdir=${srcdir:-.}
FIBERLOOP=${FIBERLOOP:-$PWD/fiberloop}
export FIBERLOOP
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

sh "$ex/sweep.sh" "$tmp" >"$tmp/table.md" || { echo "FAIL: sweep.sh"; exit 1; }
if diff -u "$ex/sweep.csv" "$tmp/sweep.csv" >"$tmp/diff"; then
	echo "PASS: format-sweep ($(($(wc -l <"$tmp/sweep.csv") - 1)) points)"
else
	head -20 "$tmp/diff"
	fail "format-sweep differs from the committed sweep.csv"
fi
[ -s "$tmp/sweep.svg" ] || command -v gnuplot >/dev/null 2>&1 || echo "(no gnuplot: no picture)"

# the two designs of the table, straight from the database, joined by density
q() { # FORMAT SAF
	"$FIBERLOOP" results "$tmp/sweep.db" --format csv --columns density,energy_pj,cycles \
		--where "format=$1" --where "saf=$2" --where 'status=ok' | sed 1d
}
q COO skipping >"$tmp/coord.csv"
q bitmask gating >"$tmp/bitmask.csv"
[ "$(wc -l <"$tmp/coord.csv")" = 80 ] && [ "$(wc -l <"$tmp/bitmask.csv")" = 80 ] ||
	fail "80 densities expected for each design"
paste -d, "$tmp/coord.csv" "$tmp/bitmask.csv" >"$tmp/both.csv"
awk -F, '$1 != $4 { exit 1 }' "$tmp/both.csv" || fail "the two designs' densities differ"
# the first density where bitmask + gating wins, on energy and on cycles
energy_x=$(awk -F, '$5 < $2 { print $1; exit }' "$tmp/both.csv")
cycles_x=$(awk -F, '$6 < $3 { print $1; exit }' "$tmp/both.csv")
[ -n "$energy_x" ] && [ -n "$cycles_x" ] || fail "no crossover in the database"
# ... and never the coordinates again after it
awk -F, -v x="$energy_x" '$1 >= x && $5 >= $2 { exit 1 }' "$tmp/both.csv" ||
	fail "coordinates win on energy again after $energy_x"
awk -F, -v x="$cycles_x" '$1 >= x && $6 >= $3 { exit 1 }' "$tmp/both.csv" ||
	fail "coordinates win on cycles again after $cycles_x"
grep -q "^Coordinate lists + skipping stop winning on energy at density $energy_x and on cycles at density $cycles_x\.$" \
	"$ex/README.md" || fail "the README's crossovers are not the database's: energy $energy_x, cycles $cycles_x"
# every row of the README's table, from the database
grep '^| 0\.[0-9]* |' "$ex/README.md" >"$tmp/readme.rows"
[ "$(wc -l <"$tmp/readme.rows")" -ge 10 ] || fail "the README's table is missing"
while IFS='|' read -r _ d ce be ew cc bc cw _; do
	d=$(echo $d) ce=$(echo $ce) be=$(echo $be) ew=$(echo $ew) cc=$(echo $cc) bc=$(echo $bc) cw=$(echo $cw)
	awk -F, -v d="$d" -v ce="$ce" -v be="$be" -v ew="$ew" -v cc="$cc" -v bc="$bc" -v cw="$cw" '
		$1 == d { found = 1
			ok = sprintf("%.3f", $2 / 1e6) == ce && sprintf("%.3f", $5 / 1e6) == be &&
			     $3 == cc && $6 == bc &&
			     ($5 < $2 ? "bitmask" : "coordinates") == ew &&
			     ($6 < $3 ? "bitmask" : "coordinates") == cw }
		END { exit !(found && ok) }' "$tmp/both.csv" || fail "README row at density $d disagrees with the database"
done <"$tmp/readme.rows"
exit $status
