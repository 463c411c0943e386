#!/bin/sh
# fiberloop sweep and results: every point equals 'fiberloop model --set' of
# its values; rows come out in point order whatever the thread count; a
# rerun skips every finished point and a changed design is run again; a
# value that makes a bad spec is a row with its located error; CSV and JSON
# lines stream as points finish; --where filters; bad axes are located
# errors (exit 1) and a sweep without axes is a usage error (exit 2).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

cp "$ex/problem.yaml" "$tmp/problem.yaml"
design="$ex/arch.yaml $ex/map.yaml $ex/coord-skipping.yaml $tmp/problem.yaml"
dens='density:problem.instance.densities.A.density,problem.instance.densities.B.density=0.01:0.08:x2,0.3'
fmt='format:sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=A].format,sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=A].format=COO,bitmask'

# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --axis "$fmt" --db "$tmp/a.db" --jobs 2 \
	2>"$tmp/err" || fail "sweep exits $?: $(cat "$tmp/err")"
grep -q '^sweep: 10 points; 10 run in ' "$tmp/err" || fail "the summary: $(cat "$tmp/err")"
cols=idx,density,format,status,energy_pj,cycles,key
"$FIBERLOOP" results "$tmp/a.db" --format csv --columns $cols >"$tmp/a.csv" || fail "results exits $?"
[ "$(wc -l <"$tmp/a.csv")" = 11 ] || fail "10 rows expected: $(wc -l <"$tmp/a.csv") lines"
# point order: density slowest, format fastest
cut -d, -f1-3 "$tmp/a.csv" | tr '\n' ' ' >"$tmp/order"
[ "$(cat "$tmp/order")" = "idx,density,format 0,0.01,COO 1,0.01,bitmask 2,0.02,COO 3,0.02,bitmask 4,0.04,COO 5,0.04,bitmask 6,0.08,COO 7,0.08,bitmask 8,0.3,COO 9,0.3,bitmask " ] ||
	fail "the rows' order: $(cat "$tmp/order")"

# each point is what 'model --set' gives: compare energy and cycles of points 3 and 8
fpath='sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=A].format'
bpath='sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=A].format'
for p in "3 0.02 bitmask" "8 0.3 COO"; do
	set -- $p
	# shellcheck disable=SC2086
	"$FIBERLOOP" model --energy accelergy45 $design --format csv \
		--set "problem.instance.densities.A.density=$2" --set "problem.instance.densities.B.density=$2" \
		--set "$fpath=$3" --set "$bpath=$3" | tail -1 | cut -d, -f2,3 >"$tmp/want"
	awk -F, -v i="$1" '$1 == i { print $5 "," $6 }' "$tmp/a.csv" >"$tmp/got"
	paste -d, "$tmp/want" "$tmp/got" | awk -F, '{ d = $1 - $3; if (d < 0) d = -d;
		exit !(NF == 4 && $2 == $4 && d <= 1e-6 * $1) }' ||
		fail "point $1: sweep $(cat "$tmp/got"), model $(cat "$tmp/want")"
done

# one thread gives the same rows
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --axis "$fmt" --db "$tmp/b.db" --jobs 1 2>/dev/null
"$FIBERLOOP" results "$tmp/b.db" --format csv --columns $cols >"$tmp/b.csv"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "1 and 2 threads give different rows"
"$FIBERLOOP" results "$tmp/a.db" --format json >"$tmp/a.json"
"$FIBERLOOP" results "$tmp/b.db" --format json >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "1 and 2 threads give different rows (JSON, every column)"

# a rerun runs nothing; --no-resume runs everything and duplicates nothing
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --axis "$fmt" --db "$tmp/a.db" 2>"$tmp/err"
grep -q '^sweep: 10 points, 10 finished before; 0 run' "$tmp/err" || fail "resume: $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --axis "$fmt" --db "$tmp/a.db" --no-resume 2>"$tmp/err"
grep -q '^sweep: 10 points; 10 run' "$tmp/err" || fail "--no-resume: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/a.db" --format json >"$tmp/a2.json"
cmp -s "$tmp/a.json" "$tmp/a2.json" || fail "--no-resume changed the rows"

# a changed design is not a finished one
sed 's/read_bandwidth: 4/read_bandwidth: 2/' "$ex/arch.yaml" >"$tmp/arch.yaml"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 "$tmp/arch.yaml" $ex/map.yaml $ex/coord-skipping.yaml "$tmp/problem.yaml" \
	--axis "$dens" --axis "$fmt" --db "$tmp/a.db" 2>"$tmp/err"
grep -q '^sweep: 10 points; 10 run' "$tmp/err" || fail "a changed design was skipped: $(cat "$tmp/err")"
[ "$("$FIBERLOOP" results "$tmp/a.db" --format csv --columns key | wc -l)" = 21 ] || fail "20 rows expected"

# a bad value: a row with the located error, and the sweep goes on (exit 1 at the end)
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --db "$tmp/c.db" --axis 'problem.instance.densities.A.density=0.5,1.5' \
	2>"$tmp/err"
[ $? = 1 ] || fail "a bad point: exit 1 expected: $(cat "$tmp/err")"
grep -q '^sweep: 2 points; 2 run in .*; 1 did not succeed$' "$tmp/err" ||
	fail "a bad point stopped the sweep: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/c.db" --where 'status!=ok' --format json >"$tmp/c.json"
grep -q "\"error\": \"--axis 'problem.instance.densities.A.density=0.5,1.5':1:42: error: in 'problem.instance.densities.A.density': expected a number in \[0, 1\], got '1.5'" \
	"$tmp/c.json" || fail "the bad point's error: $(cat "$tmp/c.json")"
grep -q '"problem.instance.densities.A.density": 1.5' "$tmp/c.json" || fail "the bad point's input"

# streaming: CSV header then one row per point; JSON lines
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --db "$tmp/d.db" --format csv >"$tmp/d.csv" 2>/dev/null
head -1 "$tmp/d.csv" | grep -q '^idx,kind,name,density,status,energy_pj,cycles,' || fail "CSV header"
[ "$(wc -l <"$tmp/d.csv")" = 6 ] || fail "CSV stream: $(wc -l <"$tmp/d.csv") lines"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis "$dens" --db "$tmp/e.db" --format jsonl >"$tmp/e.jsonl" 2>/dev/null
[ "$(grep -c '^{"idx":[0-9]*,"kind":"point",.*"inputs":{"density":"[0-9.]*"},"status":"ok","energy_pj":' "$tmp/e.jsonl")" = 5 ] ||
	fail "JSON lines: $(head -2 "$tmp/e.jsonl")"

# --where: numbers compare as numbers, several conditions all hold
n=$("$FIBERLOOP" results "$tmp/b.db" --format csv --columns idx --where 'density<0.05' --where 'format=COO' | wc -l)
[ "$n" = 4 ] || fail "--where density<0.05 format=COO: $n lines"
"$FIBERLOOP" results "$tmp/b.db" --where 'densty<1' 2>"$tmp/err" >/dev/null
[ $? = 1 ] || fail "an unknown column exits 0"
grep -q "no column 'densty' to filter on; did you mean 'density'?" "$tmp/err" || fail "hint: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/b.db" --where 'density' 2>"$tmp/err" >/dev/null
grep -q "expected COLUMN OP VALUE" "$tmp/err" || fail "a bad filter: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/b.db" >"$tmp/table"
head -1 "$tmp/table" | grep -q '^idx  density  format   status  *energy_pj  *cycles  *edp_j_cycles$' ||
	fail "text table header: $(head -1 "$tmp/table")"

# errors: a bad axis (located, exit 1), no axis (usage, exit 2), a bad zip (exit 1)
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --axis 'problem.instance.M=1:8:y' --db "$tmp/f.db" 2>"$tmp/err"
[ $? = 1 ] || fail "a bad axis: exit not 1"
grep -q "^--axis 'problem.instance.M=1:8:y':1:24: error: the step of a range must be +D, D, xF or \*F, got 'y'" \
	"$tmp/err" || fail "a bad axis: $(cat "$tmp/err")"
[ -e "$tmp/f.db" ] && fail "a bad axis made a database"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --db "$tmp/f.db" 2>"$tmp/err"
[ $? = 2 ] || fail "no axis: exit not 2"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --zip --axis 'a=1,2' --axis 'b=1,2,3' --db "$tmp/f.db" 2>"$tmp/err"
grep -q "^--axis 'b=1,2,3':1:1: error: --zip takes axes of one length: 'a' has 2 values, 'b' has 3" "$tmp/err" ||
	fail "zip: $(cat "$tmp/err")"
# --zip takes the values together
# shellcheck disable=SC2086
"$FIBERLOOP" sweep --energy accelergy45 $design --zip --db "$tmp/g.db" --axis 'da:problem.instance.densities.A.density=0.1,0.2' \
	--axis 'db:problem.instance.densities.B.density=0.3,0.4' 2>/dev/null
[ "$("$FIBERLOOP" results "$tmp/g.db" --format csv --columns da,db | tr '\n' ' ')" = "da,db 0.1,0.3 0.2,0.4 " ] ||
	fail "zip: $("$FIBERLOOP" results "$tmp/g.db" --format csv --columns da,db)"
"$FIBERLOOP" results "$tmp/g.db" --columns da,dv 2>"$tmp/err"
grep -q "no column 'dv' in the results; did you mean 'da'?" "$tmp/err" || fail "--columns: $(cat "$tmp/err")"
exit $status
