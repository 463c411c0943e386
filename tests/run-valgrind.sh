#!/bin/sh
# make check-valgrind: a sample of the suite under valgrind's memcheck, which
# must find no invalid access, no use of uninitialised memory and no leak
# (definite or indirect): CUnit programs of every module but the slowest
# (poly/ and density/ take half a minute each under valgrind, exec's walk
# three minutes), and fiberloop itself on small examples of every command,
# their error paths included (a bad spec, a bad sweep point, an output that
# cannot be written, an infeasible design), as many at once as there are
# cores (VG_JOBS). Prints each run's time and the total. Needs valgrind (Debian: apt-get install valgrind; './quickstart.sh
# valgrind' installs it and runs this).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "check-valgrind: valgrind is not installed (Debian: apt-get install valgrind;" \
		"./quickstart.sh valgrind installs it)" >&2
	exit 1
fi
VALGRIND=${VALGRIND:-valgrind}
VG_ERROR=42
set -- -q --error-exitcode=$VG_ERROR --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --child-silent-after-fork=yes
vg_opts="$*"
jobs=${VG_JOBS:-$(nproc 2>/dev/null || echo 2)}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n_runs=0
pids=
start=$(date +%s%N)

# run_one N WANT NAME CMD...: CMD under valgrind must exit WANT with no
# memcheck error; the verdict on stdout
run_one() {
	n=$1 want=$2 name=$3
	shift 3
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	$VALGRIND $vg_opts "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	rc=$?
	t1=$(date +%s%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	if [ $rc = $VG_ERROR ]; then
		echo "FAIL: $name: memcheck errors ($secs s):"
		grep '^==' "$tmp/$n.err" | head -40
	elif [ $rc != "$want" ]; then
		echo "FAIL: $name: exit $rc, not $want ($secs s):"
		tail -20 "$tmp/$n.err"
	else
		echo "ok   $name ($secs s)"
	fi
}

# vg WANT NAME CMD...: run_one in the background, at most $jobs at a time
vg() {
	n_runs=$((n_runs + 1))
	run_one $n_runs "$@" >"$tmp/$n_runs.verdict" &
	pids="$pids $!"
	# shellcheck disable=SC2086
	set -- $pids
	if [ $# -ge "$jobs" ]; then
		wait "$1"
		shift
		pids="$*"
	fi
}

# vg_wait: wait for every run started
vg_wait() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && wait $pids
	pids=
}

# CUnit programs: one or more per module
for t in util/test_diag util/test_fileio util/test_json util/test_hashmap \
	specs/test_load specs/test_override specs/test_expr specs/test_batch specs/test_mtx \
	formats/test_format saf/test_prob model/test_eval model/test_sparse \
	mapper/test_search mapper/test_run exec/test_fibertree exec/test_actual \
	accel/test_ipu_plan accel/test_stpu job/test_job job/test_axis job/test_hash \
	report/test_json report/test_plot store/test_store; do
	if [ -x "$top_builddir/tests/$t" ]; then
		vg 0 "tests/$t" "$top_builddir/tests/$t"
	else
		echo "skip tests/$t (not built: CUnit missing?)"
	fi
done

# fiberloop on small examples
D=$TEST_DATA_DIR
C=$D/conformance
ex=$srcdir/examples/format-sweep
eye=$C/eyeriss_like
sudu=$C/01.2.2-SUDU-dot-product
cp "$ex/problem.yaml" "$tmp/problem.yaml"
F=$FIBERLOOP
vg 0 "check" "$F" check "$eye/input.yaml" "$eye/map.yaml" --format json
printf 'stpu:\n  array: {rows: 8, colls: 8}\n  matrix: {rows: 45, cols: 37, density: 1.5}\n' \
	>"$tmp/bad.yaml"
vg 1 "check (a bad spec)" "$F" check "$tmp/bad.yaml"
vg 0 "model -o" "$F" model "$eye/input.yaml" "$eye/map.yaml" "$eye/ERT.yaml" -o "$tmp/model"
vg 1 "model -o (cannot be written)" "$F" model "$eye/input.yaml" "$eye/map.yaml" -o /proc/none
vg 0 "map -o --log (2 threads)" "$F" map "$D/mapper/matmul.yaml" "$D/mapper/search.yaml" \
	--threads 2 -o "$tmp/map" --log "$tmp/map.csv"
vg 3 "map (infeasible)" "$F" map "$D/mapper/matmul-tight.yaml"
vg 0 "exec -o" "$F" exec "$sudu/input.yaml" "$sudu/map.yaml" -o "$tmp/exec"
vg 0 "validate" "$F" validate "$sudu/input.yaml" "$sudu/map.yaml" --seeds 3
vg 1 "sweep (a bad point among them: exit 1)" "$F" sweep "$ex/arch.yaml" "$ex/map.yaml" \
	"$ex/coord-skipping.yaml" "$tmp/problem.yaml" --db "$tmp/s.db" --jobs 2 \
	--axis 'density:problem.instance.densities.A.density=0.01,0.1,1.5' \
	--axis 'bw:architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=2,4'
vg 0 "sweep --command map" "$F" sweep "$D/mapper/matmul.yaml" "$D/network/mapper.yaml" \
	--command map --axis 'seed:mapper.seed=1:4:+1' --db "$tmp/sm.db" --jobs 2
vg 0 "batch" "$F" batch "$D/batch/jobs.yaml" --db "$tmp/b.db" --jobs 2
vg 0 "map --layers" "$F" map "$D/mapper/matmul.yaml" "$D/network/mapper.yaml" \
	--layers "$D/network/layers" --jobs 2
vg 0 "ipu -o" "$F" ipu "$srcdir/examples/ipu-popsparse/layer.yaml" -o "$tmp/ipu"
cat >"$tmp/stpu.yaml" <<'YAML'
stpu:
  array: {rows: 8, cols: 8, dtype: int8}
  matrix: {rows: 45, cols: 37, density: 0.08, seed: 2}
YAML
vg 0 "stpu -o" "$F" stpu "$tmp/stpu.yaml" -o "$tmp/stpu"
vg_wait                                 # the databases of the sweep and the batch
vg 0 "results" "$F" results "$tmp/b.db" --format csv
vg 0 "plot -o FILE.gp" "$F" plot "$tmp/s.db" --x density --series bw -o "$tmp/p.gp"
vg_wait

end=$(date +%s%N)
i=1
status=0
while [ $i -le $n_runs ]; do
	cat "$tmp/$i.verdict"
	grep -q '^FAIL' "$tmp/$i.verdict" && status=1
	i=$((i + 1))
done
echo "check-valgrind: $n_runs runs in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", (b - a) / 1e9 }') s, $jobs at a time"
exit $status
