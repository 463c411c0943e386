#!/bin/sh
# MPI (a build with --with-mpi; skipped otherwise): 'mpirun -np 2' gives the
# same database rows as one process for a sweep and for a batch of mapper
# jobs (rank 0 hands out the work and is the only writer), the same map
# outputs byte for byte when the mapper's streams are shared out over 2 and
# 3 ranks, and the same network table for map --layers.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
if [ "${HAVE_MPI:-no}" != yes ]; then
	echo "SKIP: fiberloop is built without MPI (configure --with-mpi)"
	exit 77
fi
mpirun=${MPIRUN:-mpirun}
run() { # NP ARGS...
	np=$1
	shift
	"$mpirun" -np "$np" --oversubscribe --allow-run-as-root "$FIBERLOOP" "$@"
}
ex=$srcdir/examples/format-sweep
C=$TEST_DATA_DIR/conformance/eyeriss_like
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# a sweep: the same rows on 1 and 2 ranks
cp "$ex/problem.yaml" "$tmp/problem.yaml"
for np in 1 2; do
	run $np sweep --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/coord-skipping.yaml" "$tmp/problem.yaml" \
		--db "$tmp/s$np.db" --jobs 1 --axis 'density:problem.instance.densities.A.density=0.01:0.2:+0.01' \
		--axis 'bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=2,4,8' \
		2>"$tmp/err" || fail "sweep on $np ranks exits $?: $(cat "$tmp/err")"
	"$FIBERLOOP" results "$tmp/s$np.db" --format json >"$tmp/s$np.json"
done
grep -q 'on 1 thread x 2 ranks' "$tmp/err" || fail "the sweep did not run on 2 ranks: $(cat "$tmp/err")"
[ "$(grep -c '"status": "ok"' "$tmp/s1.json")" = 60 ] || fail "60 ok rows expected"
cmp -s "$tmp/s1.json" "$tmp/s2.json" || fail "the sweep's rows differ on 1 and 2 ranks"

# a batch of mapper jobs: the same rows
for np in 1 2; do
	run $np batch --energy accelergy45 "$TEST_DATA_DIR/batch/jobs.yaml" --db "$tmp/b$np.db" --jobs 1 >"$tmp/b$np.txt" \
		2>"$tmp/err" || fail "batch on $np ranks exits $?: $(cat "$tmp/err")"
	"$FIBERLOOP" results "$tmp/b$np.db" --format json >"$tmp/b$np.json"
done
cmp -s "$tmp/b1.json" "$tmp/b2.json" || fail "the batch's rows differ on 1 and 2 ranks"
cmp -s "$tmp/b1.txt" "$tmp/b2.txt" || fail "the batch's table differs on 1 and 2 ranks"

# the mapper's streams over 1, 2 and 3 ranks: the same files, byte for byte
for np in 1 2 3; do
	run $np map "$C/input.yaml" "$C/constraints.yaml" "$C/ERT.yaml" -o "$tmp/m$np" --threads 1 \
		>"$tmp/m$np.out" 2>"$tmp/err" || fail "map on $np ranks exits $?: $(cat "$tmp/err")"
done
grep -q 'streams on 3 threads of 3 MPI ranks' "$tmp/m3.out" || fail "map did not run on 3 ranks"
for np in 2 3; do
	for f in "$tmp"/m1/*; do
		cmp -s "$f" "$tmp/m$np/${f##*/}" || fail "map on $np ranks: ${f##*/} differs"
	done
	# the search's counts and the best mapping's summary, all but the rate and threads
	grep -v '^search:\|candidates.*/s)\|^wrote' "$tmp/m1.out" >"$tmp/m1.cmp"
	grep -v '^search:\|candidates.*/s)\|^wrote' "$tmp/m$np.out" >"$tmp/m$np.cmp"
	cmp -s "$tmp/m1.cmp" "$tmp/m$np.cmp" || fail "map on $np ranks prints other results"
	[ "$(grep -o '[0-9]* candidates ([0-9]* valid, [0-9]* model' "$tmp/m$np.out")" = \
	  "$(grep -o '[0-9]* candidates ([0-9]* valid, [0-9]* model' "$tmp/m1.out")" ] ||
		fail "map on $np ranks: other counts"
done

# a network's layers over 2 ranks
m="$TEST_DATA_DIR/mapper/matmul.yaml $TEST_DATA_DIR/network/mapper.yaml"
# shellcheck disable=SC2086
"$FIBERLOOP" map $m --layers "$TEST_DATA_DIR/network/layers" --format csv >"$tmp/n1.csv" 2>/dev/null
# shellcheck disable=SC2086
run 2 map $m --layers "$TEST_DATA_DIR/network/layers" --format csv >"$tmp/n2.csv" 2>/dev/null ||
	fail "map --layers on 2 ranks exits $?"
cmp -s "$tmp/n1.csv" "$tmp/n2.csv" || fail "map --layers differs on 2 ranks"
exit $status
