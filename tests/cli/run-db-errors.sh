#!/bin/sh
# A results database that cannot be written gives a clear error and exit 1,
# for sweep, batch and map --layers alike, and leaves what was committed
# before as it was: a directory that does not exist or is a file, a file
# that is not a database, a read-only directory and a read-only database
# file (chmod as a user; read-only bind mounts as root), a full disk (a
# small tmpfs, as root; skipped otherwise, with the reason: the rows
# committed before the disk filled up stay readable, and a database that
# could not be set up is not left behind) and a read-only file system.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
mnt=$tmp/mnt
mounts=
cleanup() {
	for m in $mounts; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

cp "$ex/problem.yaml" "$tmp/problem.yaml"
design="$ex/arch.yaml $ex/map.yaml $ex/coord-skipping.yaml $tmp/problem.yaml"
sweep() { # DB VALUES (of the buffer's read bandwidth)
	# shellcheck disable=SC2086
	"$FIBERLOOP" sweep --energy accelergy45 $design --db "$1" \
		--axis "bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=$2"
}
batch() { # DB
	"$FIBERLOOP" batch --energy accelergy45 "$TEST_DATA_DIR/batch/jobs.yaml" --db "$1" --format csv
}
layers() { # DB
	"$FIBERLOOP" map "$TEST_DATA_DIR/mapper/matmul.yaml" "$TEST_DATA_DIR/network/mapper.yaml" \
		--layers "$TEST_DATA_DIR/network/layers" --db "$1"
}
rows() { "$FIBERLOOP" results "$1" --format json 2>&1; }

# refused CASE PATTERN DB: sweep, batch and map --layers on DB exit 1 with
# "fiberloop CMD: PATTERN" on stderr; the rows DB held are still there
refused() {
	rows "$3" >"$tmp/before"
	for cmd in sweep batch layers; do
		case $cmd in
		sweep) sweep "$3" 99999 ;;
		*) $cmd "$3" ;;
		esac >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 1 ] || fail "$1, $cmd: exit $rc, not 1"
		name=$cmd
		[ $cmd = layers ] && name=map
		grep -q "^fiberloop $name: $2" "$tmp/err" || fail "$1, $cmd: $(cat "$tmp/err")"
	done
	rows "$3" | cmp -s - "$tmp/before" || fail "$1: the rows changed"
}

# read_only PATH: PATH (a directory or a file) cannot be written; the reason in $ro_why
read_only() {
	if [ "$(id -u)" != 0 ]; then
		chmod a-w "$1" && ro_why="Permission denied"
	elif mount --bind "$1" "$1" 2>/dev/null; then
		mounts="$1 $mounts"
		mount -o remount,bind,ro "$1" && ro_why="Read-only file system"
	else
		return 1
	fi
}

# a directory that does not exist, or is a file
refused "a missing directory" "$tmp/none/x.db: cannot create the database: No such file or directory$" \
	"$tmp/none/x.db"
echo "a file" >"$tmp/file"
refused "under a file" "$tmp/file/x.db: cannot create the database: Not a directory$" "$tmp/file/x.db"
[ ! -e "$tmp/none" ] && [ "$(cat "$tmp/file")" = "a file" ] || fail "something was made"
# not a database
echo "density,energy" >"$tmp/text.db"
refused "a text file" "$tmp/text.db: .*file is not a database" "$tmp/text.db"
[ "$(cat "$tmp/text.db")" = "density,energy" ] || fail "the text file changed"
"$FIBERLOOP" results "$tmp/text.db" 2>"$tmp/err"
[ $? = 1 ] || fail "results of a text file: exit not 1"

# a new database in a read-only directory; an existing one in a read-only file
mkdir "$tmp/rodir" "$tmp/ro"
sweep "$tmp/ro/r.db" 4 2>/dev/null || fail "making the database"
[ -e "$tmp/ro/r.db-wal" ] && fail "the WAL files are left after a clean close"
if read_only "$tmp/rodir" && read_only "$tmp/ro/r.db"; then
	refused "a read-only directory" "$tmp/rodir/x.db: cannot create the database: $ro_why$" \
		"$tmp/rodir/x.db"
	refused "a read-only database" "$tmp/ro/r.db: the database is read-only (cannot write results into it)$" \
		"$tmp/ro/r.db"
	[ "$(rows "$tmp/ro/r.db" | grep -c '"status": "ok"')" = 1 ] || fail "a read-only database: its row cannot be read"
else
	echo "SKIP: cannot make a read-only bind mount as root: the read-only directory and file cases are not run"
fi

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the full disk and read-only file system cases need root (a tmpfs mount)"
	exit $status
fi
mkdir "$mnt"
if ! mount -t tmpfs -o size=192k tmpfs "$mnt" 2>/dev/null; then
	echo "SKIP: cannot mount a tmpfs (no CAP_SYS_ADMIN): the full disk case is not run"
	exit $status
fi
mounts="$mnt $mounts"
# a full disk: the sweep stops with SQLite's "full" and our explanation, exit 1
sweep "$mnt/full.db" '1:20000:+1' 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "a full disk: exit $rc, not 1"
grep -q "^fiberloop sweep: $mnt/full.db: .*database or disk is full (no space left for the database)" \
	"$tmp/err" || fail "a full disk: $(cat "$tmp/err")"
# what was committed before is there and readable
n=$("$FIBERLOOP" results "$mnt/full.db" --format csv --columns idx 2>"$tmp/err2" | sed 1d | wc -l)
[ "$n" -gt 0 ] || fail "nothing readable after the disk filled up: $(cat "$tmp/err2")"
# more rows on the full disk: refused, the rows kept. The failed
# transaction's frames stay allocated in the WAL, and a small transaction
# could reuse them without new space (how many depends on where the sweep
# stopped). So: room first, then a sweep with nothing to add (its point was
# committed before the disk filled up) closes the database cleanly, its WAL
# checkpointed and removed, and a filler takes every free page: the disk is
# full whatever the timing
mount -o remount,size=4m "$mnt" || fail "remount with room"
sweep "$mnt/full.db" 1 >/dev/null 2>"$tmp/err" || fail "a sweep with nothing to add: $(cat "$tmp/err")"
[ -e "$mnt/full.db-wal" ] && fail "the WAL is left after a clean close: $(ls "$mnt")"
dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
# (SQLite reports it as "full", or, when the WAL's index cannot be made, as
# an I/O error whose cause we add)
refused "a full disk" "$mnt/full.db: .*\(database or disk is full (no space left for the database)\|disk I/O error (No space left on device)\)$" "$mnt/full.db"
# a new database on the full disk: refused, and no empty file left behind
refused "a new database on a full disk" "$mnt/new.db: .*database or disk is full" "$mnt/new.db"
[ -e "$mnt/new.db" ] && fail "a database that could not be set up was left: $(ls "$mnt")"
# the same file system read-only
mount -o remount,ro "$mnt" || fail "remount read-only"
refused "a read-only file system" "$mnt/full.db: .*read-only" "$mnt/full.db"
exit $status
