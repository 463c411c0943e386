#!/bin/sh
# The Python package's acceptance measurements (docs/library.md, Python):
# 1. one evaluation from Python against the same call in C: bench/bench_python.py and
#    bench/bench_lib run in turn PAIRS times (A B A B ...), each printing its best
#    microseconds per evaluation; the ratio is taken pair by pair, the median printed;
# 2. a sweep of POINTS points (default 10^4: 100 x 100 energies of the dot product of
#    tests/data/conformance/01.2.1-DUDU-dot-product) from Python (fiberloop.sweep, rows
#    read back into a DataFrame) against 'fiberloop sweep' into a fresh database, whole
#    processes (interpreter start, imports included), wall seconds, in turn PAIRS times.
# Run from the build directory after 'make bench/bench_lib':
#   sh ../bench/python-acceptance.sh [PAIRS [POINTS]]   (PYTHON=, FIBERLOOP= to choose)
set -e
pairs=${1:-3}
points=${2:-10000}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
fl=${FIBERLOOP:-./fiberloop}
d=$here/../tests/data/conformance/01.2.1-DUDU-dot-product
files="$d/input.yaml $d/map.yaml $d/ERT.yaml"
PYTHONPATH=$(pwd)/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

i=0
while [ $i -lt "$pairs" ]; do
	a=$("$py" "$here/bench_python.py" $files | awk '{ print $2 }')
	b=$(./bench/bench_lib $files | awk '{ print $2 }')
	echo "pair $((i + 1)): python $a us, C $b us, ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
	echo "$a $b" >>"$tmp/eval"
	i=$((i + 1))
done
awk '{ print $1 / $2 }' "$tmp/eval" | median | awk '{ printf "evaluation: python / C median ratio %.3f\n", $1 }'
awk '{ print $1 }' "$tmp/eval" | median | awk '{ printf "  python median %.2f us per evaluation\n", $1 }'
awk '{ print $2 }' "$tmp/eval" | median | awk '{ printf "  C median %.2f us per evaluation\n", $1 }'

# the sweep: two axes of n1 x n2 = POINTS values
n1=$(awk -v p="$points" 'BEGIN { n = int(sqrt(p)); while (p % n) n--; print n }')
n2=$((points / n1))
ax1="ERT.tables[0].actions[0].energy"   # the same paths in the Python below
ax2="ERT.tables[0].actions[1].energy"
now() { date +%s.%N; }
i=0
while [ $i -lt "$pairs" ]; do
	rm -f "$tmp/cli.db" "$tmp/cli.db-wal" "$tmp/cli.db-shm"
	t0=$(now)
	"$fl" sweep $files --axis "$ax1=1:$n1:1" --axis "$ax2=1:$n2:1" --db "$tmp/cli.db" 2>/dev/null
	t1=$(now)
	rows=$(N1=$n1 N2=$n2 "$py" -c 'import fiberloop, os, sys
df = fiberloop.sweep(sys.argv[1:], axes={"ERT.tables[0].actions[0].energy": "1:%s:1" % os.environ["N1"],
                                         "ERT.tables[0].actions[1].energy": "1:%s:1" % os.environ["N2"]})
print(len(df))' $files)
	t2=$(now)
	awk -v a="$t0" -v b="$t1" -v c="$t2" -v r="$rows" -v k=$((i + 1)) 'BEGIN {
		printf "sweep pair %d: python %.2f s (%d rows), CLI %.2f s, ratio %.3f\n", k, c - b, r, b - a, (c - b) / (b - a) }'
	echo "$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { print c - b, b - a }')" >>"$tmp/sweep"
	i=$((i + 1))
done
awk '{ print $1 / $2 }' "$tmp/sweep" | median | awk -v p="$points" '{ printf "sweep of %d points: python / CLI median wall ratio %.3f\n", p, $1 }'
