#!/bin/sh
# examples/format-sweep: rerun sweep.sh (fiberloop sweep, results, plot) and
# compare its CSV with the committed one (every point of the sweep is a
# regression test); then check the README's table against one 'results
# --pivot' command on the sweep's database, read where coordinate lists +
# skipping stop winning against bitmasks + gating (energy, cycles) from
# 'results --crossovers', and the best design per density from '--best'.
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

# the README's table is one 'fiberloop results' command on the database
sed -n '/^    density  energy_pj /,/^$/p' "$ex/README.md" | sed '/^$/d; s/^    //' >"$tmp/readme.table"
[ "$(wc -l <"$tmp/readme.table")" -ge 10 ] || fail "the README's table is missing"
"$FIBERLOOP" results "$tmp/sweep.db" --pivot format,saf --x density --y energy_pj --y cycles \
	--at 0.01,0.02,0.04,0.08,0.1,0.11,0.2,0.4,0.6,0.77,0.78,0.8 >"$tmp/pivot" ||
	fail "results --pivot exits $?"
diff -u "$tmp/readme.table" "$tmp/pivot" || fail "the README's table is not the database's"
# the crossovers, from results: coordinates + skipping against bitmask + gating
"$FIBERLOOP" results "$tmp/sweep.db" --pivot format,saf --x density --y energy_pj --y cycles \
	--crossovers --format csv >"$tmp/cross.csv" || fail "results --crossovers exits $?"
head -1 "$tmp/cross.csv" | grep -qx 'metric,series,against,x_before,density,from,to' ||
	fail "crossovers header: $(head -1 "$tmp/cross.csv")"
pair() { grep "^$1,COO/skipping,bitmask/gating," "$tmp/cross.csv"; }
[ "$(pair energy_pj | wc -l)" = 1 ] && [ "$(pair cycles | wc -l)" = 1 ] ||
	fail "one crossover each expected (never back): $(cat "$tmp/cross.csv")"
energy_x=$(pair energy_pj | cut -d, -f5)
cycles_x=$(pair cycles | cut -d, -f5)
pair energy_pj | grep -q ',COO/skipping,bitmask/gating$' || fail "energy: coordinates win first"
[ -n "$energy_x" ] && [ -n "$cycles_x" ] || fail "no crossover in the database"
grep -q "^Coordinate lists + skipping stop winning on energy at density $energy_x and on cycles at density $cycles_x\.$" \
	"$ex/README.md" || fail "the README's crossovers are not the database's: energy $energy_x, cycles $cycles_x"
# --best: per density and optimization, the better format by energy and its margin
"$FIBERLOOP" results "$tmp/sweep.db" --best energy_pj --by density,saf --format csv >"$tmp/best.csv" ||
	fail "results --best exits $?"
head -1 "$tmp/best.csv" | grep -qx 'density,saf,best,energy_pj,runner_up,runner_up_energy_pj,margin' ||
	fail "--best header: $(head -1 "$tmp/best.csv")"
grep -q '^0.5,skipping,bitmask,[0-9]*,COO,[0-9]*,1\.2[0-9]*$' "$tmp/best.csv" ||
	fail "--best at 0.5: $(grep '^0.5,' "$tmp/best.csv")"
grep -q '^0.05,gating,COO,[0-9]*,bitmask,[0-9]*,1\.0[0-9]*$' "$tmp/best.csv" ||
	fail "--best at 0.05: $(grep '^0.05,' "$tmp/best.csv")"
[ "$(wc -l <"$tmp/best.csv")" = 161 ] || fail "--best: 160 groups expected"
exit $status
