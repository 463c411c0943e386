#!/bin/sh
# Determinism: the same inputs give the same bytes.
#   - across runs: every command twice (check, model, map with its --log,
#     exec, validate, ipu, stpu): stdout and every file of -o, byte for byte
#     (only map's rate and thread count, and the directory it names, differ);
#   - across thread counts: map --threads 1, 2, 4 (files, log, what it
#     prints); sweep, batch and map --layers --jobs 1, 2, 4 (the database's
#     rows, the printed tables, the streamed rows once sorted);
#   - across ranks, when built with MPI: a sweep of mapper searches on 1 rank
#     x 1 thread and 2 ranks x 2 threads, a mapper search on 1 rank and on
#     2 ranks x 2 threads (skipped with the reason otherwise; run-mpi.sh
#     compares 1, 2 and 3 ranks of one thread).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
C=$TEST_DATA_DIR/conformance
M=$TEST_DATA_DIR/mapper
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# What a directory holds, each file with its checksum.
snap() {
	(cd "$1" && for f in *; do [ -e "$f" ] && echo "$f $(cksum <"$f")"; done)
}
# map's stdout without what depends on time, threads or the output directory
steady() {
	sed -e '/^search: /d' -e 's/ in [0-9.]* s ([0-9]*\/s)$//' -e 's/^wrote [^ ]*\//wrote /' "$1"
}
# same WHAT A B: files A and B are equal
same() {
	cmp -s "$2" "$3" || { fail "$1"; diff "$2" "$3" | head -6; }
}

# ------------------------------------------------------------ across runs
cat >"$tmp/stpu.yaml" <<'YAML'
stpu:
  array: {rows: 8, cols: 8, dtype: int8}
  matrix: {rows: 45, cols: 37, density: 0.08, seed: 2}
YAML
sws=$C/simple_weight_stationary
sudu=$C/01.2.2-SUDU-dot-product
cmd_check() { "$FIBERLOOP" check "$sws/input.yaml" "$sws/map.yaml" --format json; }
cmd_model() { "$FIBERLOOP" model "$sws/input.yaml" "$sws/map.yaml" -o "$1"; }
cmd_map() {
	"$FIBERLOOP" map "$sws/input.yaml" "$sws/constraints.yaml" "$sws/ERT.yaml" --search-size 300 \
		--threads 2 -o "$1" --log "$1/search.csv"
}
cmd_exec() { "$FIBERLOOP" exec "$sudu/input.yaml" "$sudu/map.yaml" --seed 3 --format json -o "$1"; }
cmd_validate() { "$FIBERLOOP" validate "$sudu/input.yaml" "$sudu/map.yaml" --seeds 5; }
cmd_ipu() { "$FIBERLOOP" ipu "$srcdir/examples/ipu-popsparse/layer.yaml" --seed 2 -o "$1"; }
cmd_stpu() { "$FIBERLOOP" stpu "$tmp/stpu.yaml" --format csv -o "$1"; }
for c in check model map exec validate ipu stpu; do
	for run in 1 2; do
		mkdir -p "$tmp/runs/$c$run"
		"cmd_$c" "$tmp/runs/$c$run" >"$tmp/runs/$c$run.out" 2>"$tmp/err" ||
			fail "$c, run $run: exit $?: $(cat "$tmp/err")"
		steady "$tmp/runs/$c$run.out" >"$tmp/runs/$c$run.txt"
		snap "$tmp/runs/$c$run" >"$tmp/runs/$c$run.snap"
	done
	same "$c prints other bytes on a second run" "$tmp/runs/${c}1.txt" "$tmp/runs/${c}2.txt"
	same "$c writes other files on a second run" "$tmp/runs/${c}1.snap" "$tmp/runs/${c}2.snap"
done
[ "$(wc -l <"$tmp/runs/map1.snap")" = 5 ] || fail "map: 4 files and a log expected: $(cat "$tmp/runs/map1.snap")"

# ------------------------------------------------------------ across threads
# map --threads 1, 2, 4: the same search (its streams do not depend on the threads)
for t in 1 2 4; do
	mkdir "$tmp/map$t" "$tmp/hyb$t"
	"$FIBERLOOP" map "$sws/input.yaml" "$sws/constraints.yaml" "$sws/ERT.yaml" --search-size 300 \
		--threads $t -o "$tmp/map$t" --log "$tmp/map$t/search.csv" >"$tmp/map$t.out" 2>/dev/null ||
		fail "map --threads $t: exit $?"
	"$FIBERLOOP" map "$M/matmul.yaml" "$M/search.yaml" --algorithm hybrid --seed 4 --threads $t \
		-o "$tmp/hyb$t" --log "$tmp/hyb$t/search.csv" >"$tmp/hyb$t.out" 2>/dev/null ||
		fail "map --algorithm hybrid --threads $t: exit $?"
	for d in map hyb; do
		snap "$tmp/$d$t" >"$tmp/$d$t.snap"
		steady "$tmp/$d$t.out" >"$tmp/$d$t.txt"
	done
done
grep -q '^search: random, 32 streams on 4 threads' "$tmp/map4.out" || fail "map did not run on 4 threads"
for t in 2 4; do
	for d in map hyb; do
		same "$d: --threads $t writes other files than --threads 1" "$tmp/${d}1.snap" "$tmp/$d$t.snap"
		same "$d: --threads $t prints other results than --threads 1" "$tmp/${d}1.txt" "$tmp/$d$t.txt"
	done
done

# sweep --jobs 1, 2, 4: a model sweep and a sweep of mapper searches
cp "$ex/problem.yaml" "$tmp/problem.yaml"
for j in 1 2 4; do
	"$FIBERLOOP" sweep --energy accelergy45 "$ex/arch.yaml" "$ex/map.yaml" "$ex/coord-skipping.yaml" "$tmp/problem.yaml" \
		--db "$tmp/s$j.db" --jobs $j --format csv \
		--axis 'density:problem.instance.densities.A.density=0.01:0.64:x2' \
		--axis 'bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=2,4,8' \
		>"$tmp/s$j.csv" 2>/dev/null || fail "sweep --jobs $j: exit $?"
	"$FIBERLOOP" sweep "$M/matmul.yaml" "$TEST_DATA_DIR/network/mapper.yaml" --command map \
		--axis 'seed:mapper.seed=1:24:+1' --db "$tmp/sm$j.db" --jobs $j 2>/dev/null ||
		fail "sweep --command map --jobs $j: exit $?"
	for d in s sm; do
		"$FIBERLOOP" results "$tmp/$d$j.db" --format json >"$tmp/$d$j.json"
	done
	sort "$tmp/s$j.csv" >"$tmp/s$j.sorted"
done
[ "$(grep -c '"status": "ok"' "$tmp/s1.json")" = 21 ] || fail "21 ok rows expected in the sweep"
[ "$(grep -c '"status": "ok"' "$tmp/sm1.json")" = 24 ] || fail "24 ok rows expected in the mapper sweep"
for j in 2 4; do
	same "sweep --jobs $j: other rows than --jobs 1" "$tmp/s1.json" "$tmp/s$j.json"
	same "sweep --command map --jobs $j: other rows than --jobs 1" "$tmp/sm1.json" "$tmp/sm$j.json"
	same "sweep --jobs $j: other streamed rows than --jobs 1" "$tmp/s1.sorted" "$tmp/s$j.sorted"
done

# batch and map --layers --jobs 1, 2, 4
for j in 1 2 4; do
	"$FIBERLOOP" batch "$TEST_DATA_DIR/batch/jobs.yaml" --db "$tmp/b$j.db" --jobs $j >"$tmp/b$j.txt" \
		2>/dev/null || fail "batch --jobs $j: exit $?"
	"$FIBERLOOP" results "$tmp/b$j.db" --format json >"$tmp/b$j.json"
	"$FIBERLOOP" map "$M/matmul.yaml" "$TEST_DATA_DIR/network/mapper.yaml" --layers \
		"$TEST_DATA_DIR/network/layers" --jobs $j --format csv >"$tmp/n$j.csv" 2>/dev/null ||
		fail "map --layers --jobs $j: exit $?"
done
for j in 2 4; do
	same "batch --jobs $j: other rows than --jobs 1" "$tmp/b1.json" "$tmp/b$j.json"
	same "batch --jobs $j: another ranking than --jobs 1" "$tmp/b1.txt" "$tmp/b$j.txt"
	same "map --layers --jobs $j: another table than --jobs 1" "$tmp/n1.csv" "$tmp/n$j.csv"
done

# ------------------------------------------------------------ across ranks
if [ "${HAVE_MPI:-no}" != yes ]; then
	echo "SKIP: fiberloop is built without MPI (configure --with-mpi): ranks are not compared"
	exit $status
fi
mpirun=${MPIRUN:-mpirun}
"$mpirun" -np 2 --oversubscribe --allow-run-as-root "$FIBERLOOP" sweep "$M/matmul.yaml" \
	"$TEST_DATA_DIR/network/mapper.yaml" --command map --axis 'seed:mapper.seed=1:24:+1' \
	--db "$tmp/smr.db" --jobs 2 2>"$tmp/err" || fail "sweep on 2 ranks: exit $?: $(cat "$tmp/err")"
grep -q 'on 2 threads x 2 ranks' "$tmp/err" || fail "the sweep did not run on 2 ranks x 2 threads: $(cat "$tmp/err")"
"$FIBERLOOP" results "$tmp/smr.db" --format json >"$tmp/smr.json"
same "sweep on 2 ranks x 2 threads: other rows than 1 rank x 1 thread" "$tmp/sm1.json" "$tmp/smr.json"
"$mpirun" -np 2 --oversubscribe --allow-run-as-root "$FIBERLOOP" map "$sws/input.yaml" \
	"$sws/constraints.yaml" "$sws/ERT.yaml" --search-size 300 --threads 2 -o "$tmp/mapr" \
	>"$tmp/mapr.out" 2>"$tmp/err" || fail "map on 2 ranks: exit $?: $(cat "$tmp/err")"
grep -q 'streams on 4 threads of 2 MPI ranks' "$tmp/mapr.out" || fail "map did not run on 2 ranks x 2 threads"
rm -f "$tmp/map1/search.csv"
snap "$tmp/mapr" >"$tmp/mapr.snap"
snap "$tmp/map1" >"$tmp/map1.snap"
same "map on 2 ranks x 2 threads: other files than on 1 thread" "$tmp/map1.snap" "$tmp/mapr.snap"
exit $status
