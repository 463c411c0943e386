#!/bin/sh
# The fault test of sweeps and batches: kill -9 in the middle of a sweep,
# then rerun it. Every row the killed run committed is still there,
# unchanged; the rerun runs only the rest; no row is lost or duplicated; and
# the final table is byte for byte the one of a run that was never
# interrupted. The same for a batch of mapper jobs with a bad job among them
# (its row keeps its located error), whose ranked table is compared too.
# Then Ctrl-C (SIGINT): the sweep stops cleanly, keeps what finished, exits 130.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# P points, each a small mapper search (a few ms): slow enough to be killed midway (at 20
# rows). Under the sanitizers (quickstart.sh sanitize sets FL_SANITIZED), where each search is
# several times slower, fewer points and batch jobs: the same kill, resume and comparison.
P=150 J=100
[ -n "${FL_SANITIZED:-}" ] && P=60 J=40
design="$TEST_DATA_DIR/mapper/matmul.yaml $TEST_DATA_DIR/network/mapper.yaml"
axis="seed:mapper.seed=1:$P:+1"
sweep() { # DB [OPTIONS]
	db=$1
	shift
	# shellcheck disable=SC2086
	"$FIBERLOOP" sweep $design --command map --axis "$axis" --db "$db" --jobs 2 "$@"
}
rows() { "$FIBERLOOP" results "$1" --format csv --columns idx 2>/dev/null | sed 1d | wc -l; }
# the sweep in the background, as the process $! itself (so that kill reaches it)
bg_sweep() { # DB ERRFILE
	# shellcheck disable=SC2086
	( exec "$FIBERLOOP" sweep $design --command map --axis "$axis" --db "$1" --jobs 2 2>"$2" ) &
}

sweep "$tmp/whole.db" 2>/dev/null || fail "the uninterrupted sweep exits $?"
"$FIBERLOOP" results "$tmp/whole.db" --format json >"$tmp/whole.json"
[ "$(rows "$tmp/whole.db")" = $P ] || fail "$P rows expected in the uninterrupted run"

# kill_midway DB ERRFILE CMD...: run CMD (writing DB) in the background and
# kill -9 it once DB holds 20 rows (of $total); $n gets the rows it
# committed. Exits 77 (skipped) when the run finished first three times.
kill_midway() {
	kdb=$1 kerr=$2
	shift 2
	for attempt in 1 2 3; do
		rm -f "$kdb" "$kdb-wal" "$kdb-shm"
		( exec "$@" >/dev/null 2>"$kerr" ) &
		pid=$!
		n=0
		while kill -0 $pid 2>/dev/null; do
			n=$(rows "$kdb")
			[ "$n" -ge 20 ] && break
			sleep 0.02
		done
		if kill -9 $pid 2>/dev/null; then
			wait $pid 2>/dev/null
			n=$(rows "$kdb")
			[ "$n" -lt "$total" ] && return 0
		fi
		wait $pid 2>/dev/null
	done
	echo "SKIP: '$2' finished before it could be killed (3 tries)"
	exit 77
}
# every row of the killed run's DB is one of the uninterrupted run's WHOLE.json, identical
rows_kept() { # DB WHOLE.json
	"$FIBERLOOP" results "$1" --format json >"$tmp/cut.json" || fail "the killed run's database cannot be read"
	sed '1d;$d' "$tmp/cut.json" | sed 's/},$/}/' | sort >"$tmp/cut.rows"
	sed '1d;$d' "$2" | sed 's/},$/}/' | sort >"$tmp/whole.rows"
	[ "$(comm -23 "$tmp/cut.rows" "$tmp/whole.rows" | wc -l)" = 0 ] ||
		fail "rows of the killed run differ from the uninterrupted run's"
}

total=$P
# shellcheck disable=SC2086
kill_midway "$tmp/cut.db" /dev/null "$FIBERLOOP" sweep $design --command map --axis "$axis" \
	--db "$tmp/cut.db" --jobs 2
echo "sweep killed with $n of $P rows committed"
rows_kept "$tmp/cut.db" "$tmp/whole.json"
sweep "$tmp/cut.db" 2>"$tmp/err" || fail "the rerun exits $?"
grep -q "^sweep: $P points, $n finished before; $((P - n)) run in " "$tmp/err" ||
	fail "the rerun: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/cut.db" --format json >"$tmp/final.json"
[ "$(rows "$tmp/cut.db")" = $P ] || fail "after the rerun: $(rows "$tmp/cut.db") rows, not $P"
cmp -s "$tmp/whole.json" "$tmp/final.json" || {
	fail "the final table differs from the uninterrupted run's"
	diff "$tmp/whole.json" "$tmp/final.json" | head -4
}

# a batch: J + 1 mapper jobs, one with a bad override, killed midway and run again
d=$TEST_DATA_DIR
{
	echo "defaults:"
	echo "  files: [$d/mapper/matmul.yaml, $d/network/mapper.yaml]"
	echo "  command: map"
	echo "jobs:"
	i=1
	while [ $i -le $J ]; do
		echo "  - {name: s$i, seed: $i}"
		[ $i = $((J * 2 / 5)) ] && echo '  - {name: bad, set: ["mapper.search_size=-3"]}'
		i=$((i + 1))
	done
} >"$tmp/jobs.yaml"
"$FIBERLOOP" batch "$tmp/jobs.yaml" --db "$tmp/bwhole.db" --jobs 2 >"$tmp/bwhole.txt" 2>/dev/null
[ $? = 0 ] || fail "the uninterrupted batch exits $?"
"$FIBERLOOP" results "$tmp/bwhole.db" --format json >"$tmp/bwhole.json"
total=$((J + 1))
[ "$(rows "$tmp/bwhole.db")" = $total ] || fail "$total rows expected in the uninterrupted batch"
kill_midway "$tmp/bcut.db" /dev/null "$FIBERLOOP" batch "$tmp/jobs.yaml" --db "$tmp/bcut.db" --jobs 2
echo "batch killed with $n of $total rows committed"
rows_kept "$tmp/bcut.db" "$tmp/bwhole.json"
"$FIBERLOOP" batch "$tmp/jobs.yaml" --db "$tmp/bcut.db" --jobs 2 >"$tmp/bfinal.txt" 2>"$tmp/err" ||
	fail "the batch's rerun exits $?"
grep -q "^batch: $total jobs to run .*, $n finished before; $((total - n)) run in [^;]*\(; 1 did not succeed\)\{0,1\}$" "$tmp/err" ||
	fail "the batch's rerun: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/bcut.db" --format json >"$tmp/bfinal.json"
cmp -s "$tmp/bwhole.json" "$tmp/bfinal.json" || fail "the batch's final rows differ from the uninterrupted run's"
cmp -s "$tmp/bwhole.txt" "$tmp/bfinal.txt" || fail "the batch's ranked table differs from the uninterrupted run's"
grep -q '"name": "bad", .*"status": "bad-input", .*"error": "[^"]*jobs.yaml:[0-9]*:[0-9]*: error: in '"'"'mapper.search_size'"'"': expected an integer >= 0, got '"'"'-3'"'"'' \
	"$tmp/bfinal.json" || fail "the bad job's located error"

# Ctrl-C: a clean stop, what finished kept, exit 130, then the rest
bg_sweep "$tmp/int.db" "$tmp/err"
pid=$!
while kill -0 $pid 2>/dev/null && [ "$(rows "$tmp/int.db")" -lt 10 ]; do
	sleep 0.02
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
n=$(rows "$tmp/int.db")
if [ "$n" -lt $P ]; then
	[ $rc = 130 ] || fail "SIGINT: exit $rc, not 130"
	grep -q "interrupted: $((P - n)) of $P left; run the same command again to finish" "$tmp/err" ||
		fail "SIGINT: $(cat "$tmp/err")"
	sweep "$tmp/int.db" 2>/dev/null
	"$FIBERLOOP" results "$tmp/int.db" --format json >"$tmp/int.json"
	cmp -s "$tmp/whole.json" "$tmp/int.json" || fail "after SIGINT and a rerun, the table differs"
fi
exit $status
