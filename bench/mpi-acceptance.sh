#!/bin/sh
# The MPI acceptance measurement: a batch of mapper jobs (four conformance
# designs searched with their own 'mapper' settings, seeds 1..SEEDS each)
# run by 'mpirun -np 1' and 'mpirun -np 2', one worker thread per rank
# (--jobs 1): the wall times, their ratio, and whether the two databases
# hold the same rows. Needs a build with --with-mpi.
#
# Usage: bench/mpi-acceptance.sh [FIBERLOOP [DATA_DIR [SEEDS]]]
fl=${1:-./fiberloop}
data=${2:-$(dirname "$0")/../tests/data}
seeds=${3:-4}
mpirun=${MPIRUN:-mpirun}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
case $data in /*) ;; *) data=$(pwd)/$data ;; esac

{
	echo "jobs:"
	for c in simple_output_stationary simple_weight_stationary eyeriss_like simba_like; do
		d=$data/conformance/$c
		for s in $(seq 1 "$seeds"); do
			echo "  - {name: $c-$s, command: map, seed: $s,"
			echo "     files: [$d/input.yaml, $d/constraints.yaml, $d/ERT.yaml]}"
		done
	done
} >"$tmp/jobs.yaml"

now() { date +%s.%N; }
for np in 1 2; do
	t0=$(now)
	"$mpirun" -np $np --oversubscribe --allow-run-as-root "$fl" batch "$tmp/jobs.yaml" \
		--db "$tmp/np$np.db" --jobs 1 >"$tmp/np$np.txt" 2>"$tmp/np$np.err" ||
		{ echo "np $np failed:"; cat "$tmp/np$np.err"; exit 1; }
	t1=$(now)
	eval "wall$np=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
	"$fl" results "$tmp/np$np.db" --format json >"$tmp/np$np.json"
done
same=no
cmp -s "$tmp/np1.json" "$tmp/np2.json" && same=yes
jobs=$(grep -c '"kind": "job"' "$tmp/np1.json")
echo "batch of $jobs mapper jobs, one worker thread per rank"
printf '  1 rank:  %6.2f s\n  2 ranks: %6.2f s\n  speed-up %.2f; identical rows: %s\n' \
	"$wall1" "$wall2" "$(awk -v a="$wall1" -v b="$wall2" 'BEGIN { print a / b }')" "$same"
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
sed -n '1,5p' "$tmp/np2.txt"
