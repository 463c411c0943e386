#!/bin/sh
# 'fiberloop model' end to end: outputs, formats, exit codes, atomic -o.
srcdir=${srcdir:-.}
fl=${FIBERLOOP:-./fiberloop}
data=${TEST_DATA_DIR:-$srcdir/tests/data}
conf=$data/conformance/simple_weight_stationary
design="$conf/input.yaml $conf/map.yaml $conf/ERT.yaml $conf/ART.yaml"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

check() {   # check DESCRIPTION COMMAND...: the command must succeed
	desc=$1
	shift
	if "$@"; then echo "ok: $desc"; else echo "FAIL: $desc"; fail=1; fi
}

# -o DIR: the three files, byte-identical on a second run
$fl model $design -o "$tmp/a" >"$tmp/out1" 2>"$tmp/err1"
check "exit 0 on a feasible design" test $? -eq 0
for f in fiberloop-model.stats.txt fiberloop-model.map.txt fiberloop-model.stats.json; do
	check "-o writes $f" test -s "$tmp/a/$f"
done
check "stats.txt starts like Timeloop's" grep -q '^Buffer and Arithmetic Levels$' "$tmp/a/fiberloop-model.stats.txt"
check "map.txt is Timeloop's rendering" cmp -s "$tmp/a/fiberloop-model.map.txt" "$conf/ref.map.txt"
check "no temporary files are left" test "$(ls "$tmp/a" | wc -l)" -eq 3
$fl model $design -o "$tmp/b" >"$tmp/out2" 2>/dev/null
check "outputs are deterministic" cmp -s "$tmp/a/fiberloop-model.stats.json" "$tmp/b/fiberloop-model.stats.json"
check "summary names the energy source" grep -q 'source ERT' "$tmp/out1"
check "summary gives the energy by tensor" grep -q '^Energy by tensor:' "$tmp/out1"

# --format csv: one header row and one data row with the same columns
$fl model $design --format csv >"$tmp/csv" 2>/dev/null
check "csv has two lines" test "$(wc -l <"$tmp/csv")" -eq 2
check "csv rows have the same number of columns" \
	test "$(awk -F, 'NR == 1 { h = NF } NR == 2 { print (NF == h) }' "$tmp/csv")" = 1
check "csv data row is ok" grep -q '^ok,151669736\.' "$tmp/csv"

# --format json
$fl model $design --format json >"$tmp/json" 2>/dev/null
check "json names its schema" grep -q '"schema": "fiberloop-model"' "$tmp/json"

# an infeasible mapping: exit 3, the reason, nothing written
$fl model "$data/model/infeasible.yaml" --energy accelergy45 -o "$tmp/c" >"$tmp/out3" 2>"$tmp/err3"
check "exit 3 on an infeasible mapping" test $? -eq 3
check "the reason names the level and sizes" \
	grep -q "infeasible mapping (over-capacity): tiles at 'RF' need 49 words (the largest, 'Weights', 48), it holds 16" "$tmp/err3"
check "nothing is written on an infeasible mapping" test ! -e "$tmp/c"
check "nothing is printed on stdout then" test ! -s "$tmp/out3"

# usage errors
$fl model $design --energy accelergy46 >/dev/null 2>"$tmp/err4"
check "exit 2 on an unknown preset" test $? -eq 2
check "an unknown preset gets a hint" grep -q "did you mean 'accelergy45'" "$tmp/err4"
$fl model $design --footprint hull >/dev/null 2>&1
check "exit 2 on an unknown footprint mode" test $? -eq 2
$fl model >/dev/null 2>&1
check "exit 2 without files" test $? -eq 2
$fl model "$tmp/missing.yaml" >/dev/null 2>&1
check "exit 1 on a missing file" test $? -eq 1

# an unwritable output directory: exit 1, stdout empty
touch "$tmp/file"
$fl model $design -o "$tmp/file/sub" >"$tmp/out5" 2>"$tmp/err5"
check "exit 1 when -o cannot be written" test $? -eq 1
check "nothing printed when -o fails" test ! -s "$tmp/out5"

# a preset instead of the ERT
$fl model $conf/input.yaml $conf/map.yaml --energy horowitz45 >"$tmp/out6" 2>/dev/null
check "without an ERT the preset is used and named" grep -q 'source preset horowitz45' "$tmp/out6"

exit $fail
