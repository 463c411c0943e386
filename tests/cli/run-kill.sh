#!/bin/sh
# The fault test of sweeps: kill -9 in the middle of a sweep, then rerun it.
# Every row the killed run committed is still there, unchanged; the rerun
# runs only the rest; no row is lost or duplicated; and the final table is
# byte for byte the one of a run that was never interrupted. Then Ctrl-C
# (SIGINT): the sweep stops cleanly, keeps what finished, exits 130.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# 150 points, each a small mapper search (a few ms): slow enough to be killed midway
design="$TEST_DATA_DIR/mapper/matmul.yaml $TEST_DATA_DIR/network/mapper.yaml"
axis='seed:mapper.seed=1:150:+1'
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
[ "$(rows "$tmp/whole.db")" = 150 ] || fail "150 rows expected in the uninterrupted run"

killed=0
for attempt in 1 2 3; do
	rm -f "$tmp/cut.db" "$tmp/cut.db-wal" "$tmp/cut.db-shm"
	bg_sweep "$tmp/cut.db" /dev/null
	pid=$!
	n=0
	while kill -0 $pid 2>/dev/null; do
		n=$(rows "$tmp/cut.db")
		[ "$n" -ge 20 ] && break
		sleep 0.02
	done
	if kill -9 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		n=$(rows "$tmp/cut.db")
		if [ "$n" -lt 150 ]; then
			killed=1
			break
		fi
	fi
	wait $pid 2>/dev/null
done
if [ $killed = 0 ]; then
	echo "SKIP: the sweep finished before it could be killed (3 tries)"
	exit 77
fi
echo "killed with $n of 150 rows committed"
"$FIBERLOOP" results "$tmp/cut.db" --format json >"$tmp/cut.json" || fail "the killed run's database cannot be read"
# every row committed before the kill is in the uninterrupted run, identical
sed '1d;$d' "$tmp/cut.json" | sed 's/},$/}/' | sort >"$tmp/cut.rows"
sed '1d;$d' "$tmp/whole.json" | sed 's/},$/}/' | sort >"$tmp/whole.rows"
[ "$(comm -23 "$tmp/cut.rows" "$tmp/whole.rows" | wc -l)" = 0 ] ||
	fail "rows of the killed run differ from the uninterrupted run's"
sweep "$tmp/cut.db" 2>"$tmp/err" || fail "the rerun exits $?"
grep -q "^sweep: 150 points, $n finished before; $((150 - n)) run in " "$tmp/err" ||
	fail "the rerun: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/cut.db" --format json >"$tmp/final.json"
[ "$(rows "$tmp/cut.db")" = 150 ] || fail "after the rerun: $(rows "$tmp/cut.db") rows, not 150"
cmp -s "$tmp/whole.json" "$tmp/final.json" || {
	fail "the final table differs from the uninterrupted run's"
	diff "$tmp/whole.json" "$tmp/final.json" | head -4
}

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
if [ "$n" -lt 150 ]; then
	[ $rc = 130 ] || fail "SIGINT: exit $rc, not 130"
	grep -q "interrupted: $((150 - n)) of 150 left; run the same command again to finish" "$tmp/err" ||
		fail "SIGINT: $(cat "$tmp/err")"
	sweep "$tmp/int.db" 2>/dev/null
	"$FIBERLOOP" results "$tmp/int.db" --format json >"$tmp/int.json"
	cmp -s "$tmp/whole.json" "$tmp/int.json" || fail "after SIGINT and a rerun, the table differs"
fi
exit $status
