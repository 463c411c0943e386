#!/bin/sh
# Outputs that survive faults, for every command that writes files (model,
# map and its --log, exec, ipu, stpu: -o DIR; plot: -o FILE). Each output
# directory first holds the results of an earlier run; then a run with
# other inputs meets a fault and must exit 1 with a clear error, leaving the
# earlier results byte for byte and no other file:
#   - a read-only directory (chmod as a user; a read-only bind mount as root);
#   - a path that is a regular file, or under one;
#   - a parent that is missing (-o DIR makes it; a single file is an error);
#   - a full file system (a small tmpfs, as root; skipped otherwise);
#   - SIGKILL in the middle of map (while its --log is being written) and
#     of exec; the rerun then writes what an uninterrupted run writes; of
#     plot while gnuplot draws (no temporary script left behind).
# A symlink, a FIFO or a device is written through, never replaced.
# (The results database of sweep and batch: run-db-errors.sh, run-kill.sh.)
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
C=$TEST_DATA_DIR/conformance
M=$TEST_DATA_DIR/mapper
tmp=$(mktemp -d) || exit 99
mounts=
cleanup() {
	for m in $mounts; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
skip() { echo "SKIP: $*"; }

# ------------------------------------------------------------ one writer
# No source of the program opens a file for writing but util/fileio.c (the
# results database is SQLite's; specs/jinja.c points its helper's stderr at
# /dev/null): every output goes through the atomic writer.
for f in "$srcdir"/*/*.c; do
	case $f in */tests/* | */bench/* | */fuzz/* | */util/fileio.c) continue ;; esac
	grep -Hn 'fopen([^;]*"[wa]\|O_CREAT\|O_WRONLY\|O_RDWR\|freopen\|creat(' "$f" |
		grep -v 'specs/jinja.c:.*"/dev/null", O_WRONLY'
done >"$tmp/writers"
[ -s "$tmp/writers" ] && fail "files written around util/fileio.c: $(cat "$tmp/writers")"

# ------------------------------------------------------------ the commands
# run_CMD DIR old|new: the command writing into DIR; 'old' and 'new' give other bytes
run_model() {
	case $2 in old) mc=$C/01.2.1-DUDU-dot-product ;; *) mc=$C/simple_weight_stationary ;; esac
	"$FIBERLOOP" model "$mc/input.yaml" "$mc/map.yaml" -o "$1"
}
run_map() {
	case $2 in old) ms=1 ;; *) ms=2 ;; esac
	"$FIBERLOOP" map "$M/matmul.yaml" "$M/search.yaml" --threads 1 --seed $ms -o "$1" \
		--log "$1/search.csv"
}
run_exec() {
	case $2 in old) ec=$C/01.2.1-DUDU-dot-product ;; *) ec=$C/01.2.2-SUDU-dot-product ;; esac
	"$FIBERLOOP" exec "$ec/input.yaml" "$ec/map.yaml" -o "$1"
}
run_ipu() {
	case $2 in old) iz=1024 ;; *) iz=512 ;; esac
	"$FIBERLOOP" ipu "$srcdir/examples/ipu-popsparse/layer.yaml" --set "ipu.layer.z=$iz" -o "$1"
}
cat >"$tmp/stpu.yaml" <<'YAML'
stpu:
  array: {rows: 8, cols: 8, dtype: int8}
  matrix: {rows: 45, cols: 37, density: 0.08, seed: 2}
YAML
run_stpu() {
	case $2 in old) ss=2 ;; *) ss=3 ;; esac
	"$FIBERLOOP" stpu "$tmp/stpu.yaml" --set "stpu.matrix.seed=$ss" -o "$1"
}
ex=$srcdir/examples/format-sweep
cp "$ex/problem.yaml" "$tmp/problem.yaml"
"$FIBERLOOP" sweep --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/coord-skipping.yaml" "$tmp/problem.yaml" \
	--db "$tmp/s.db" --axis 'density:problem.instance.densities.A.density=0.01,0.1' \
	--axis 'bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=2,4' \
	2>/dev/null || fail "the sweep for plot exits $?"
run_plot() { # DIR old|new: DIR/plot.gp
	case $2 in old) px=density ;; *) px=bw ;; esac
	"$FIBERLOOP" plot "$tmp/s.db" --x $px -o "$1/plot.gp"
}
COMMANDS="model map exec ipu stpu plot"

# What DIR holds: every entry with its type and checksum, sorted.
snap() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"
		elif [ -d "$f" ]; then echo "$f/"
		elif [ -f "$f" ]; then echo "$f $(cksum <"$f")"
		else echo "$f (special)"; fi
	done)
}

# earlier DIR CMD: the 'old' results of CMD in DIR, and their snapshot in DIR.snap
earlier() {
	mkdir -p "$1"
	"run_$2" "$1" old >/dev/null 2>"$tmp/err" || fail "$2: the earlier run exits $?: $(cat "$tmp/err")"
	snap "$1" >"$1.snap"
}

# faulty CASE CMD DIR PATTERN [SNAPDIR]: the 'new' run into DIR exits 1 with
# PATTERN on stderr, and SNAPDIR (default DIR) holds what SNAPDIR.snap says
faulty() {
	sd=${5:-$3}
	"run_$2" "$3" new >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "$1, $2: exit $rc, not 1"
	grep -q "^fiberloop $2: $4" "$tmp/err" || fail "$1, $2: stderr: $(cat "$tmp/err")"
	snap "$sd" | cmp -s - "$sd.snap" || {
		fail "$1, $2: the earlier results changed"
		snap "$sd" | diff "$sd.snap" - | head -5
	}
}

# the outputs of an uninterrupted 'new' run of each command, for comparisons
for c in $COMMANDS; do
	mkdir -p "$tmp/ref/$c"
	"run_$c" "$tmp/ref/$c" new >/dev/null 2>"$tmp/err" || fail "$c: the reference run exits $?: $(cat "$tmp/err")"
	snap "$tmp/ref/$c" >"$tmp/ref/$c.snap"
done

# ------------------------------------------------------ a read-only directory
# read_only DIR: DIR and what is under it cannot be written (the reason in $ro_why)
read_only() {
	if [ "$(id -u)" != 0 ]; then
		chmod -R a-w "$1" && ro_why="Permission denied"
	elif mount --bind "$1" "$1" 2>/dev/null; then
		mounts="$1 $mounts"
		mount -o remount,bind,ro "$1" && ro_why="Read-only file system"
	else
		return 1
	fi
}
ro_ok=yes
for c in $COMMANDS; do
	earlier "$tmp/ro/$c" $c
	if ! read_only "$tmp/ro/$c"; then
		ro_ok=no
		break
	fi
	faulty "a read-only directory" $c "$tmp/ro/$c" "cannot write '$tmp/ro/$c/.*': $ro_why$"
done
[ $ro_ok = yes ] || skip "root cannot make a read-only bind mount here: the read-only directory cases are not run"

# ------------------------------------------------- a path that is a file
for c in $COMMANDS; do
	d=$tmp/file/$c
	mkdir -p "$d"
	echo "not a directory" >"$d/f"
	snap "$d" >"$d.snap"
	case $c in
	plot) faulty "under a file" $c "$d/f" "cannot write '$d/f/plot.gp': Not a directory$" "$d" ;;
	map)  faulty "-o a file" $c "$d/f" "cannot write '$d/f/search.csv': Not a directory$" "$d" ;;
	*)    faulty "-o a file" $c "$d/f" "cannot create directory '$d/f': Not a directory$" "$d"
	      faulty "-o under a file" $c "$d/f/sub" "cannot create directory '$d/f/sub': Not a directory$" "$d" ;;
	esac
done

# ------------------------------------------------- a missing parent
# -o DIR makes DIR and its parents: the files of an uninterrupted run
for c in model exec ipu stpu; do
	"run_$c" "$tmp/none/$c/a/b" new >/dev/null 2>"$tmp/err" || fail "-o with missing parents, $c: exit $?"
	snap "$tmp/none/$c/a/b" | cmp -s - "$tmp/ref/$c.snap" || fail "-o with missing parents, $c: other files"
done
# a single file in a directory that is not there: an error, nothing made
mkdir -p "$tmp/none/single"
run_plot "$tmp/none/single/x" new >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "plot -o in a missing directory: exit not 1"
grep -q "^fiberloop plot: cannot write '$tmp/none/single/x/plot.gp': No such file or directory$" "$tmp/err" ||
	fail "plot -o in a missing directory: $(cat "$tmp/err")"
"$FIBERLOOP" map "$M/matmul.yaml" "$M/search.yaml" -o "$tmp/none/single/m" \
	--log "$tmp/none/single/x/log.csv" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "map --log in a missing directory: exit not 1"
grep -q "^fiberloop map: cannot write '$tmp/none/single/x/log.csv': No such file or directory$" "$tmp/err" ||
	fail "map --log in a missing directory: $(cat "$tmp/err")"
[ -z "$(ls "$tmp/none/single")" ] || fail "a failed single-file output left $(ls "$tmp/none/single")"

# ------------------------------------------------- written through, never replaced
mkdir -p "$tmp/through/real"
ln -s real "$tmp/through/dir"                       # -o a symlink to a directory
run_model "$tmp/through/dir" new >/dev/null 2>&1 || fail "-o a symlink to a directory: exit $?"
[ -L "$tmp/through/dir" ] || fail "-o a symlink to a directory: the link was replaced"
snap "$tmp/through/real" | cmp -s - "$tmp/ref/model.snap" || fail "-o a symlink to a directory: other files"
mkdir "$tmp/through/o"                              # an output file that is a symlink
ln -s ../elsewhere.txt "$tmp/through/o/fiberloop-model.stats.txt"
run_model "$tmp/through/o" new >/dev/null 2>&1 || fail "an output symlink: exit $?"
[ -L "$tmp/through/o/fiberloop-model.stats.txt" ] || fail "an output symlink was replaced"
cmp -s "$tmp/through/elsewhere.txt" "$tmp/ref/model/fiberloop-model.stats.txt" ||
	fail "an output symlink: its target is not the stats"
"$FIBERLOOP" map "$M/matmul.yaml" "$M/search.yaml" --seed 2 -o "$tmp/through/m" --log /dev/null \
	>/dev/null 2>&1 || fail "map --log /dev/null: exit $?"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
mkdir "$tmp/through/fifo"                           # a FIFO: read while plot writes it
mkfifo "$tmp/through/fifo/plot.gp"
cat "$tmp/through/fifo/plot.gp" >"$tmp/through/read.gp" &
reader=$!
run_plot "$tmp/through/fifo" new >/dev/null 2>&1 || fail "plot -o a FIFO: exit $?"
wait $reader
[ -p "$tmp/through/fifo/plot.gp" ] || fail "plot -o a FIFO: the FIFO was replaced"
cmp -s "$tmp/through/read.gp" "$tmp/ref/plot/plot.gp" || fail "plot -o a FIFO: other bytes read"

# ------------------------------------------------- a full file system
if [ "$(id -u)" != 0 ]; then
	skip "the full file system cases need root (a tmpfs mount)"
elif ! { mkdir "$tmp/full" && mount -t tmpfs -o size=1m tmpfs "$tmp/full" 2>/dev/null; }; then
	skip "cannot mount a tmpfs (no CAP_SYS_ADMIN): the full file system cases are not run"
else
	mounts="$tmp/full $mounts"
	for c in $COMMANDS; do
		earlier "$tmp/full/$c" $c
	done
	dd if=/dev/zero of="$tmp/full/filler" bs=4k 2>/dev/null
	for c in $COMMANDS; do
		faulty "a full file system" $c "$tmp/full/$c" "cannot write '$tmp/full/$c/.*': No space left on device$"
	done
fi

# ------------------------------------------------- SIGKILL while running
# the process's open file under DIR (a temporary being written), if any
open_under() { # PID DIR
	for fd in /proc/"$1"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in "$2"/*) echo "$fd"; return 0 ;; esac
	done
	return 1
}
# CPU time of PID in clock ticks (user + system)
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat 2>/dev/null || echo 0; }

if [ ! -d /proc/self/fd ]; then
	skip "no /proc: the SIGKILL cases are not run"
else
	# map, killed while its log is half written; a long search, so that it is
	earlier "$tmp/kill/map" map
	( exec "$FIBERLOOP" map "$M/matmul.yaml" "$M/search.yaml" --threads 1 --seed 2 \
		--search-size 1000000 --victory 0 --timeout 0 -o "$tmp/kill/map" \
		--log "$tmp/kill/map/search.csv" >/dev/null 2>&1 ) &
	pid=$!
	fd=
	while kill -0 $pid 2>/dev/null; do
		fd=$(open_under $pid "$tmp/kill/map") &&
			[ "$(stat -L -c %s "$fd" 2>/dev/null || echo 0)" -gt 0 ] && break
		sleep 0.01
	done
	kill -9 $pid 2>/dev/null
	wait $pid
	rc=$?
	if [ $rc != 137 ]; then
		fail "map was not killed in the middle of its search (exit $rc)"
	else
		snap "$tmp/kill/map" | cmp -s - "$tmp/kill/map.snap" || {
			fail "map killed while writing its log: the earlier results changed"
			snap "$tmp/kill/map" | diff "$tmp/kill/map.snap" - | head -5
		}
	fi
	run_map "$tmp/kill/map" new >/dev/null 2>&1 || fail "map after the kill: exit $?"
	snap "$tmp/kill/map" | cmp -s - "$tmp/ref/map.snap" || fail "map after the kill: not the files of an uninterrupted run"

	# exec of a design that takes a second or two, killed once it has run a while
	c=$C/eyeriss_like
	earlier "$tmp/kill/exec" exec
	( exec "$FIBERLOOP" exec "$c/input.yaml" "$c/map.yaml" -o "$tmp/kill/exec" >/dev/null 2>&1 ) &
	pid=$!
	while kill -0 $pid 2>/dev/null && [ "$(cpu_ticks $pid)" -lt 10 ]; do sleep 0.01; done
	kill -9 $pid 2>/dev/null
	wait $pid
	rc=$?
	if [ $rc != 137 ]; then
		skip "exec finished before it could be killed (exit $rc)"
	else
		snap "$tmp/kill/exec" | cmp -s - "$tmp/kill/exec.snap" || fail "exec killed: the earlier results changed"
	fi
	for d in exec exec-ref; do
		"$FIBERLOOP" exec "$c/input.yaml" "$c/map.yaml" -o "$tmp/kill/$d" >/dev/null 2>&1 ||
			fail "exec after the kill: exit $?"
	done
	[ "$(snap "$tmp/kill/exec")" = "$(snap "$tmp/kill/exec-ref")" ] ||
		fail "exec after the kill: not the files of an uninterrupted run"

	# plot, killed while gnuplot draws: no temporary script left in TMPDIR
	mkdir "$tmp/plottmp"
	if ! command -v gnuplot >/dev/null 2>&1; then
		skip "no gnuplot: plot is not killed while it draws"
	else
		( TMPDIR=$tmp/plottmp exec "$FIBERLOOP" plot "$tmp/s.db" --x density -o "$tmp/kill/p.svg" \
			>/dev/null 2>&1 ) &
		pid=$!
		kids=
		while kill -0 $pid 2>/dev/null; do
			kids=$(cat /proc/$pid/task/$pid/children 2>/dev/null) && [ -n "$kids" ] && break
			sleep 0.01
		done
		kill -9 $pid 2>/dev/null
		wait $pid
		rc=$?
		if [ $rc != 137 ] || [ -z "$kids" ]; then
			skip "plot was not killed while gnuplot drew (exit $rc)"
		else
			[ -z "$(ls "$tmp/plottmp")" ] || fail "plot killed: left $(ls "$tmp/plottmp") in TMPDIR"
			# killed after gnuplot ended, it may have written the picture: whole, then
			if [ -e "$tmp/kill/p.svg" ] && ! tail -c 16 "$tmp/kill/p.svg" | grep -q '</svg>'; then
				fail "plot killed: a partial picture was written"
			fi
		fi
	fi
fi
exit $status
