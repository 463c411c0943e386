#!/bin/sh
# Command-line tests of 'fiberloop map': the outputs, their agreement with
# 'fiberloop model' on the written mapping, results and logs that do not
# depend on the thread count, the exit status of an infeasible design, usage
# errors, and stopping on SIGINT or a time limit with the best so far.
srcdir=${srcdir:-.}
: "${FIBERLOOP:=./fiberloop}"
: "${TEST_DATA_DIR:=$srcdir/tests/data}"
D=$TEST_DATA_DIR/mapper
C=$TEST_DATA_DIR/conformance/simple_weight_stationary
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

fail() {
	echo "FAIL: $*"
	status=1
}

# map, then model on the written mapping: identical stats.txt and map.txt
check_roundtrip() {
	name=$1
	shift
	"$FIBERLOOP" map "$@" -o "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
		{ fail "$name: map exited $?"; cat "$tmp/$name.err"; return; }
	for f in map.yaml stats.txt map.txt stats.json; do
		[ -s "$tmp/$name/fiberloop-mapper.$f" ] || fail "$name: no fiberloop-mapper.$f"
	done
}

check_roundtrip small "$D/matmul.yaml" "$D/search.yaml" --threads 1 --seed 5 --log "$tmp/small.csv"
"$FIBERLOOP" model "$D/matmul.yaml" "$tmp/small/fiberloop-mapper.map.yaml" -o "$tmp/small-model" \
	>/dev/null || fail "model of the written mapping exited $?"
cmp -s "$tmp/small/fiberloop-mapper.stats.txt" "$tmp/small-model/fiberloop-model.stats.txt" ||
	fail "stats.txt of map and model differ"
cmp -s "$tmp/small/fiberloop-mapper.map.txt" "$tmp/small-model/fiberloop-model.map.txt" ||
	fail "map.txt of map and model differ"

# the same search on 2 threads: the same mapping, stats and log
check_roundtrip small2 "$D/matmul.yaml" "$D/search.yaml" --threads 2 --seed 5 --log "$tmp/small2.csv"
cmp -s "$tmp/small/fiberloop-mapper.map.yaml" "$tmp/small2/fiberloop-mapper.map.yaml" ||
	fail "1 and 2 threads chose different mappings"
cmp -s "$tmp/small.csv" "$tmp/small2.csv" || fail "1 and 2 threads logged differently"
rows=$(($(wc -l <"$tmp/small.csv") - 1))
grep -q "^  [0-9]* candidates" "$tmp/small.out" || fail "no candidate count printed"
cands=$(sed -n 's/^  \([0-9]*\) candidates.*/\1/p' "$tmp/small.out")
[ "$rows" = "$cands" ] || fail "log has $rows rows for $cands candidates"
head -1 "$tmp/small.csv" | grep -q '^stream,seq,status,fail_level,energy_pj,cycles,edp' ||
	fail "log header"

# a conformance design (Timeloop's own input files), options overriding the YAML
check_roundtrip sws "$C/input.yaml" "$C/constraints.yaml" "$C/ERT.yaml" \
	--algorithm hybrid --search-size 300 --seed 2 --threads 2
grep -q "^search: hybrid" "$tmp/sws.out" || fail "--algorithm did not override the YAML"
"$FIBERLOOP" model "$C/input.yaml" "$tmp/sws/fiberloop-mapper.map.yaml" "$C/ERT.yaml" \
	-o "$tmp/sws-model" >/dev/null || fail "model of the sws mapping exited $?"
cmp -s "$tmp/sws/fiberloop-mapper.stats.txt" "$tmp/sws-model/fiberloop-model.stats.txt" ||
	fail "sws: stats.txt of map and model differ"

# no valid mapping: exit 3, failures counted by reason and level
"$FIBERLOOP" map "$D/matmul-tight.yaml" "$D/search.yaml" -o "$tmp/tight" >"$tmp/tight.out" \
	2>"$tmp/tight.err"
rc=$?
[ $rc = 3 ] || fail "infeasible design exited $rc, not 3"
grep -q "no valid mapping among" "$tmp/tight.err" || fail "no failure summary"
grep -q "capacity of 'RegFile': [0-9]" "$tmp/tight.err" || fail "no capacity count"
[ -e "$tmp/tight/fiberloop-mapper.map.yaml" ] && fail "an infeasible search wrote a mapping"

# usage errors exit 2
for args in "--algorithm nope $D/matmul.yaml" "--threads x $D/matmul.yaml" "--streams 0 $D/matmul.yaml" \
	"--bogus $D/matmul.yaml" ""; do
	# shellcheck disable=SC2086
	"$FIBERLOOP" map $args >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || fail "'map $args' exited $rc, not 2"
done
"$FIBERLOOP" map --algorithm hybird "$D/matmul.yaml" 2>&1 | grep -q "did you mean 'hybrid'" ||
	fail "no suggestion for a misspelled algorithm"

# an endless search stops on SIGINT or a time limit and writes the best so far
"$FIBERLOOP" map "$D/matmul.yaml" "$D/search.yaml" --algorithm random --victory 0 --timeout 0 \
	--search-size 0 --time-limit 0.3 -o "$tmp/tl" >"$tmp/tl.out" 2>&1 || fail "time limit exited $?"
grep -q "time limit 32" "$tmp/tl.out" || fail "streams did not stop on the time limit"
[ -s "$tmp/tl/fiberloop-mapper.map.yaml" ] || fail "no mapping after the time limit"
"$FIBERLOOP" map "$D/matmul.yaml" "$D/search.yaml" --algorithm random --victory 0 --timeout 0 \
	--search-size 0 -o "$tmp/int" >"$tmp/int.out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] || fail "interrupted search exited $rc"
grep -q "interrupted 32" "$tmp/int.out" || fail "streams did not stop on SIGINT"
[ -s "$tmp/int/fiberloop-mapper.map.yaml" ] || fail "no mapping after SIGINT"

exit $status
