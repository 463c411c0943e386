#!/bin/sh
# A results database that cannot be written gives a clear error and exit 1:
# a read-only file, a read-only file system, a full disk (a small tmpfs,
# when run as root; skipped otherwise, with the reason), a directory that
# does not exist, a file that is not a database; what was committed before
# the disk filled up stays readable.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
mnt=$tmp/mnt
cleanup() {
	if [ -n "$mounted" ]; then umount "$mnt" 2>/dev/null; fi
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
mounted=
trap cleanup EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

cp "$ex/problem.yaml" "$tmp/problem.yaml"
design="$ex/arch.yaml $ex/map.yaml $ex/coord-skipping.yaml $tmp/problem.yaml"
sweep() { # DB VALUES (of the buffer's read bandwidth)
	# shellcheck disable=SC2086
	"$FIBERLOOP" sweep $design --db "$1" \
		--axis "bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=$2"
}

# a directory that does not exist
sweep "$tmp/none/x.db" 4 2>"$tmp/err"
[ $? = 1 ] || fail "a missing directory: exit not 1"
grep -q "^fiberloop sweep: $tmp/none/x.db: cannot open: unable to open database file" "$tmp/err" ||
	fail "a missing directory: $(cat "$tmp/err")"
# not a database
echo "density,energy" >"$tmp/text.db"
sweep "$tmp/text.db" 4 2>"$tmp/err"
[ $? = 1 ] || fail "a text file: exit not 1"
grep -q "^fiberloop sweep: $tmp/text.db: .*file is not a database" "$tmp/err" ||
	fail "a text file: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/text.db" 2>"$tmp/err"
[ $? = 1 ] || fail "results of a text file: exit not 1"

if [ "$(id -u)" != 0 ]; then
	# a read-only file in a read-only directory (root would write it anyway)
	mkdir "$tmp/ro"
	sweep "$tmp/ro/r.db" 4 2>/dev/null || fail "making the database"
	chmod a-w "$tmp/ro/r.db" "$tmp/ro"
	sweep "$tmp/ro/r.db" 2 2>"$tmp/err"
	[ $? = 1 ] || fail "a read-only database: exit not 1"
	grep -q "^fiberloop sweep: $tmp/ro/r.db: .*read-only" "$tmp/err" ||
		fail "a read-only database: $(cat "$tmp/err")"
	echo "SKIP: the full disk and read-only file system cases need root (a tmpfs mount)"
	exit $status
fi

mkdir "$mnt"
if ! mount -t tmpfs -o size=192k tmpfs "$mnt" 2>/dev/null; then
	echo "SKIP: cannot mount a tmpfs (no CAP_SYS_ADMIN): the full disk case is not run"
	exit $status
fi
mounted=1
# a full disk: the sweep stops with SQLite's "full" and our explanation, exit 1
sweep "$mnt/full.db" '1:20000:+1' 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "a full disk: exit $rc, not 1"
grep -q "^fiberloop sweep: $mnt/full.db: .*database or disk is full (no space left for the database)" \
	"$tmp/err" || fail "a full disk: $(cat "$tmp/err")"
# what was committed before is there and readable
n=$("$FIBERLOOP" results "$mnt/full.db" --format csv --columns idx 2>"$tmp/err2" | sed 1d | wc -l)
[ "$n" -gt 0 ] || fail "nothing readable after the disk filled up: $(cat "$tmp/err2")"
# the same file system read-only
mount -o remount,ro "$mnt" || fail "remount read-only"
sweep "$mnt/full.db" 3 2>"$tmp/err"
[ $? = 1 ] || fail "a read-only file system: exit not 1"
grep -q "^fiberloop sweep: $mnt/full.db: .*read-only" "$tmp/err" ||
	fail "a read-only file system: $(cat "$tmp/err")"
exit $status
