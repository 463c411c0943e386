#!/bin/sh
# fiberloop batch: every job is a row (a network's layers too, plus the
# network's totals), jobs with a bad spec record their located error and
# the batch goes on, the final table ranks the jobs by the metric with the
# failed ones last, a rerun skips every finished job, the rows are the same
# on one thread and two; a bad batch file gives located errors (exit 1);
# map --layers prints the layers and the totals, identical layers mapped once.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
jobs=$TEST_DATA_DIR/batch/jobs.yaml

"$FIBERLOOP" batch --energy accelergy45 "$jobs" --db "$tmp/a.db" --jobs 2 --format csv >"$tmp/rank.csv" 2>"$tmp/err" ||
	fail "batch exits $?: $(cat "$tmp/err")"
grep -q '^batch: 9 jobs to run .*; 9 run in .*; 2 did not succeed$' "$tmp/err" ||
	fail "the summary: $(cat "$tmp/err")"
# ranked by EDP, failed jobs last in file order
[ "$(cut -d, -f1,2 "$tmp/rank.csv" | grep -v '^"\|^/' | tr '\n' ' ')" = "rank,name 1,matmul-map 2,matmul-net 3,coord-0.1 4,bitmask-0.1 5,coord-0.4 ,bad-density ,missing-file " ] ||
	fail "the ranking: $(cut -d, -f1,2 "$tmp/rank.csv")"
"$FIBERLOOP" batch --energy accelergy45 "$jobs" --db "$tmp/a.db" --metric cycles --format csv 2>"$tmp/err" >"$tmp/rank2.csv"
grep -q '^batch: 9 jobs to run .*, 9 finished before; 0 run' "$tmp/err" || fail "resume: $(cat "$tmp/err")"
[ "$(cut -d, -f2 "$tmp/rank2.csv" | sed -n 2,6p | tr '\n' ' ')" = "matmul-map matmul-net coord-0.1 coord-0.4 bitmask-0.1 " ] ||
	fail "the ranking by cycles: $(cut -d, -f2 "$tmp/rank2.csv")"

# the located errors of the jobs that cannot run
"$FIBERLOOP" results "$tmp/a.db" --format json --where 'status!=ok' >"$tmp/bad.json"
grep -q "\"name\": \"bad-density\", .*\"error\": \"[^\"]*/batch/jobs.yaml:24:49: error: in 'problem.instance.densities.A.density': expected a number in \[0, 1\], got '1.5'" \
	"$tmp/bad.json" || fail "bad-density's error"
grep -q "\"name\": \"missing-file\", .*\"error\": \"[^\"]*/no-such-file.yaml: error: cannot open" "$tmp/bad.json" ||
	fail "missing-file's error"

# the network: 4 layer rows (two identical layers mapped once), its totals add them
"$FIBERLOOP" results "$tmp/a.db" --format csv --columns kind,name,energy_pj,cycles \
	--where 'kind~%' >"$tmp/all.csv"
[ "$(grep -c '^layer,layers/0[0-3],' "$tmp/all.csv")" = 4 ] || fail "4 layer rows: $(cat "$tmp/all.csv")"
awk -F, '$1 == "layer" { e += $3; c += $4 } $1 == "network" { ne = $3; nc = $4 }
	END { d = e - ne; if (d < 0) d = -d; exit !(c == nc && d <= 1e-9 * e && nc > 0) }' "$tmp/all.csv" ||
	fail "the network's totals are not the sums of its layers: $(cat "$tmp/all.csv")"
[ "$(grep '^layer,layers/00,' "$tmp/all.csv" | cut -d, -f3-)" = "$(grep '^layer,layers/02,' "$tmp/all.csv" | cut -d, -f3-)" ] ||
	fail "identical layers differ"

# one thread: the same rows
"$FIBERLOOP" batch --energy accelergy45 "$jobs" --db "$tmp/b.db" --jobs 1 >/dev/null 2>&1
"$FIBERLOOP" results "$tmp/a.db" --format json >"$tmp/a.json"
"$FIBERLOOP" results "$tmp/b.db" --format json >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "1 and 2 threads give different rows"

# a bad batch file
"$FIBERLOOP" batch --energy accelergy45 "$TEST_DATA_DIR/batch/bad.yaml" --db "$tmp/c.db" 2>"$tmp/err" >/dev/null
[ $? = 1 ] || fail "a bad batch file: exit not 1"
for want in "bad.yaml:3:9: error: in 'defaults.name': a name is given per job, not in the defaults" \
	"bad.yaml:7:5: error: in 'jobs\[0\]': unknown key 'comand'; did you mean 'command'?" \
	"bad.yaml:8:11: error: in 'jobs\[1\]': two jobs are named 'a'" \
	"bad.yaml:5:11: note: 'a' first given here" \
	"bad.yaml:10:5: error: in 'jobs\[2\]': a job with 'layers' maps them: its command must be 'map', not 'model'" \
	"bad.yaml:14:5: error: in 'jobs\[3\]': the job has no 'files' (nor the defaults)" \
	"bad.yaml:17:14: error: in 'jobs\[4\].command': unknown command 'mapp'; did you mean 'map'?" \
	"bad.yaml:18:11: error: in 'jobs\[4\].seed': expected an integer >= 0, got '-1'"; do
	grep -q "$want" "$tmp/err" || fail "missing: $want"
done
[ -e "$tmp/c.db" ] && fail "a bad batch file made a database"

# map --layers: per layer and the totals; identical layers mapped once
m="$TEST_DATA_DIR/mapper/matmul.yaml $TEST_DATA_DIR/network/mapper.yaml"
# shellcheck disable=SC2086
"$FIBERLOOP" map --energy accelergy45 $m --layers "$TEST_DATA_DIR/network/layers" --format csv >"$tmp/net.csv" 2>"$tmp/err" ||
	fail "map --layers exits $?: $(cat "$tmp/err")"
grep -q '^map: 3 distinct layers; 3 run' "$tmp/err" || fail "map --layers: $(cat "$tmp/err")"
[ "$(cut -d, -f1,2 "$tmp/net.csv" | tr '\n' ' ')" = "layer,status layers/00,ok layers/01,ok layers/02,ok layers/03,ok total,ok " ] ||
	fail "map --layers rows: $(cat "$tmp/net.csv")"
# the same totals as the batch's network row
[ "$(grep '^total,' "$tmp/net.csv" | cut -d, -f3,4)" = "$(grep '^network,' "$tmp/all.csv" | cut -d, -f3,4)" ] ||
	fail "map --layers and batch give other totals"
# a layer gives what 'map' gives on the architecture with that layer's problem
sed '/^problem:/,$d' "$TEST_DATA_DIR/mapper/matmul.yaml" >"$tmp/arch.yaml"
"$FIBERLOOP" map --energy accelergy45 "$tmp/arch.yaml" "$TEST_DATA_DIR/network/mapper.yaml" \
	"$TEST_DATA_DIR/network/layers/01.yaml" --format csv -o "$tmp/one" 2>/dev/null | tail -1 |
	cut -d, -f2,3 >"$tmp/want"
grep '^layers/01,' "$tmp/net.csv" | cut -d, -f3,4 >"$tmp/got"
paste -d, "$tmp/want" "$tmp/got" | awk -F, '{ d = $1 - $3; if (d < 0) d = -d;
	exit !(NF == 4 && $2 == $4 && d <= 1e-6 * $1) }' ||
	fail "layer 01: map --layers $(cat "$tmp/got"), map $(cat "$tmp/want")"
# a bad layer: its located error, the others mapped, exit 1
# shellcheck disable=SC2086
"$FIBERLOOP" map --energy accelergy45 $m --layers "$TEST_DATA_DIR/network/bad" >"$tmp/bad.txt" 2>/dev/null
[ $? = 1 ] || fail "a bad layer: exit not 1"
grep -q "^bad/01  *bad-input  .*bad/01.yaml:11:17: error: in 'problem.instance.M': expected an integer >= 1, got '-16'" \
	"$tmp/bad.txt" || fail "a bad layer: $(cat "$tmp/bad.txt")"
grep -q '^bad/02  *ok ' "$tmp/bad.txt" || fail "the layer after a bad one did not run"
exit $status
