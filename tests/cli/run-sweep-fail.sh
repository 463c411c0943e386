#!/bin/sh
# fiberloop sweep when things go wrong, and on long runs: an axis path that
# matches nothing (a misspelt key, at the end or inside the path) fails
# before any point runs, naming the axis with a did-you-mean; points that
# fail are counted by distinct reason on stderr (the most frequent first)
# and the sweep exits 1; a point's error is stored whole (not cut at 511
# bytes); progress lines go to stderr when it is not a terminal, the rate
# of slow points as s/point;
# a design with global_cycle_seconds gets a 'seconds' column.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
# (the example has no compound classes to estimate from: the preset its own sweep.sh uses)
design="--energy accelergy45 $ex/arch.yaml $ex/map.yaml $ex/coord-skipping.yaml $ex/problem.yaml"

# A misspelt last key and a misspelt key inside the path: exit 1, no point run (no database).
for c in 'problem.instance.densities.A.densty=0.1,0.2|densty|density' \
	 'd:problem.instance.densitis.A.density=0.1,0.2|densitis|densities'; do
	axis=${c%%|*} rest=${c#*|} bad=${rest%%|*} good=${rest#*|}
	rm -f "$tmp/m.db"
	# shellcheck disable=SC2086
	"$FIBERLOOP" sweep $design --axis "$axis" --db "$tmp/m.db" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "misspelt axis '$axis': exit $rc, 1 expected"
	grep -q "^--axis '$axis':1:[0-9]*: error: .*'$bad'.*did you mean '$good'?" "$tmp/err" ||
		fail "misspelt axis '$axis': no located error with a did-you-mean: $(cat "$tmp/err")"
	grep -q "note: axis '${axis%%=*}': its path '.*' matches nothing in the design; no point was run" \
		"$tmp/err" || grep -q "note: axis '${axis%%:*}'" "$tmp/err" ||
		fail "misspelt axis '$axis': the axis is not named: $(cat "$tmp/err")"
	grep -q 'points;' "$tmp/err" && fail "misspelt axis '$axis': points ran: $(cat "$tmp/err")"
	[ -e "$tmp/m.db" ] && fail "misspelt axis '$axis': a database was made"
done

# An axis by component name: ambiguous fails fast (located, the paths listed); a unique one runs.
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --axis 'A.density=0.1,0.2' --db "$tmp/n.db" 2>"$tmp/err"
[ $? = 1 ] && grep -q "^--axis 'A.density=0.1,0.2':1:1: error: 'A' names 3 components (.*problem.shape.data_spaces\[0\]" \
	"$tmp/err" && [ ! -e "$tmp/n.db" ] || fail "an ambiguous name: $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --axis 'Buffer.depth=8192,16384' --axis '*.read_bandwidth=2,4' --db "$tmp/n.db" \
	2>"$tmp/err" || fail "an axis by name: $(cat "$tmp/err")"
grep -q '^sweep: 4 points; 4 run in' "$tmp/err" || fail "an axis by name: $(cat "$tmp/err")"

# A file per value: each file's top-level keys replace the design's (named values name the rows);
# each point equals the model run on that file
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --axis "sparse=bm=@$ex/bitmask-gating.yaml,cp=@$ex/coord-skipping.yaml" \
	--axis 'problem.instance.densities.A.density=0.3' --db "$tmp/w.db" 2>"$tmp/err" ||
	fail "a file axis: $(cat "$tmp/err")"
for c in "bm bitmask-gating" "cp coord-skipping"; do
	e=$("$FIBERLOOP" results "$tmp/w.db" --where "sparse=${c% *}" --format csv --columns energy_pj | sed 1d)
	m=$("$FIBERLOOP" model --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/${c#* }.yaml" "$ex/problem.yaml" \
		--set problem.instance.densities.A.density=0.3 --format csv | sed 1d | cut -d, -f2)
	awk -v a="$e" -v b="$m" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' ||
		fail "the '${c% *}' file's point ($e pJ) is not the model on ${c#* }.yaml ($m pJ)"
done
# a file at a path (its key of the path's last key), and a file that is not there
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --axis "sp:sparse_optimizations=@$ex/bitmask-gating.yaml" \
	--axis 'problem.instance.densities.A.density=0.3' --db "$tmp/w2.db" \
	2>"$tmp/err" || fail "a file at a path: $(cat "$tmp/err")"
[ "$("$FIBERLOOP" results "$tmp/w2.db" --format csv --columns energy_pj | sed 1d)" = \
  "$("$FIBERLOOP" results "$tmp/w.db" --where sparse=bm --format csv --columns energy_pj | sed 1d)" ] ||
	fail "a file at a path differs from the same file whole"
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --axis "sparse=@$tmp/nosuch.yaml" --db "$tmp/w3.db" 2>"$tmp/err"
[ $? = 1 ] && grep -q "nosuch.yaml" "$tmp/err" || fail "a missing file: $(cat "$tmp/err")"

# Points that fail: distinct reasons with counts, exit 1; the long error stored whole.
t=sparse_optimizations.targets
long="fmt:$t[name=DRAM].representation_format.data_spaces[name=A].format,$t[name=DRAM].representation_format.data_spaces[name=B].format,$t[name=Buffer].representation_format.data_spaces[name=A].format,$t[name=Buffer].representation_format.data_spaces[name=B].format=COO,BOGUS"
# shellcheck disable=SC2086
FIBERLOOP_PROGRESS_SECONDS=0 "$FIBERLOOP" sweep $design --db "$tmp/f.db" --jobs 1 --axis "$long" \
	--axis 'problem.instance.M=64,-1,0' 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "failing points: exit $rc, 1 expected"
grep -q '^sweep: 6 points; 6 run in .*; 5 did not succeed$' "$tmp/err" || fail "summary: $(cat "$tmp/err")"
grep -q "^  1 x bad-input: in 'sparse_optimizations.targets\[0\].representation_format.data_spaces\[0\].format': unknown named format 'BOGUS'" \
	"$tmp/err" || fail "the format's reason is not counted once: $(cat "$tmp/err")"
grep -q "^  2 x bad-input: in 'problem.instance.M': expected an integer >= 1, got '-1'$" "$tmp/err" &&
grep -q "^  2 x bad-input: in 'problem.instance.M': expected an integer >= 1, got '0'$" "$tmp/err" ||
	fail "M's reasons are not counted: $(cat "$tmp/err")"
# the reasons in an order of their own, not the order a worker met them: the most frequent
# first, equal counts by text ('0' is met first here)
# shellcheck disable=SC2086
"$FIBERLOOP" sweep $design --db "$tmp/o.db" --jobs 1 --axis 'problem.instance.M=0,64,-1,-1,-2' 2>"$tmp/err2"
grep '^  [0-9]* x ' "$tmp/err2" | sed 's/.*, got //' | tr '\n' ' ' >"$tmp/order"
[ "$(cat "$tmp/order")" = "'-1' '-2' '0' " ] || fail "the reasons' order: $(cat "$tmp/order") ($(cat "$tmp/err2"))"
# not a terminal: progress lines, each whole on its own line
grep -q '^sweep: [0-9]*/6 done (.*failed), [0-9.]*\(/s\| s/point\), [0-9.]* s' "$tmp/err" ||
	fail "no progress line in the log: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/f.db" --format csv --columns error --where 'fmt=BOGUS' --where 'problem.instance.M=64' |
	sed 1d >"$tmp/long"
n=$(wc -c <"$tmp/long")
[ "$n" -gt 1024 ] || fail "the stored error is $n bytes: cut?"
grep -q "unknown named format 'BOGUS'" "$tmp/long" || fail "the stored error lost its message"

# seconds beside cycles where the design gives global_cycle_seconds (1e-9 here)
d=$TEST_DATA_DIR/conformance/01.2.1-DUDU-dot-product
"$FIBERLOOP" sweep "$d/input.yaml" "$d/map.yaml" "$d/ERT.yaml" --db "$tmp/s.db" \
	--axis 'cs:architecture.subtree[0].attributes.global_cycle_seconds=1e-9,2.5e-9' 2>"$tmp/err" ||
	fail "seconds sweep: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/s.db" --format csv --columns cs,cycles,seconds >"$tmp/s.csv"
awk -F, 'NR > 1 { if ($3 == "" || ($1 * $2 - $3) ^ 2 > 1e-30) bad = 1; n++ }
	END { exit bad || n != 2 }' "$tmp/s.csv" || fail "seconds are not cycles x the cycle's seconds: $(cat "$tmp/s.csv")"
"$FIBERLOOP" model "$d/input.yaml" "$d/map.yaml" "$d/ERT.yaml" | grep -q '^Cycles: *16 (1.6e-08 s at 1e-09 s a cycle)$' ||
	fail "the model's summary has no seconds beside its cycles"
exit $status
