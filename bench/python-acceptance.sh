#!/bin/sh
# The Python package's acceptance measurements (docs/library.md, Python):
# 1. one evaluation from Python against the same call in C: bench/bench_python.py and
#    bench/bench_lib run in turn PAIRS times (A B A B ...), each printing its best
#    microseconds per evaluation; the ratio is taken pair by pair, the median printed;
# 2. a sweep of POINTS points (default 10^4: 100 x 100 energies of the dot product of
#    tests/data/conformance/01.2.1-DUDU-dot-product) from Python (fiberloop.sweep into a
#    database; also with the rows read back, and as a DataFrame: see below) against
#    'fiberloop sweep' into a fresh database, whole processes (interpreter start, imports
#    included), wall seconds, in turn PAIRS times.
# Run from the build directory after 'make bench/bench_lib':
#   sh ../bench/python-acceptance.sh [PAIRS [POINTS]]   (PYTHON=, FIBERLOOP=, MODES= to choose;
#   EVAL=no: the sweep alone)
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

if [ "${EVAL:-yes}" != no ]; then
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
fi

# the sweep: two axes of n1 x n2 = POINTS values, in turn: the CLI into a fresh database, and
# from Python (whole processes: interpreter, imports) each of
#   db      fiberloop.sweep(files, axes, db=DB), its point count printed: the CLI's task (a
#           database written, a summary printed); the rows are not read;
#   columns the same, then the rows read back (len) and a column made a list;
#   df      fiberloop.sweep(files, axes) into a temporary database, then .df: the rows as a
#           pandas DataFrame (pandas imported), len printed: more than the CLI does.
# MODES= chooses (default "db columns df"); the db ratio is the acceptance figure.
n1=$(awk -v p="$points" 'BEGIN { n = int(sqrt(p)); while (p % n) n--; print n }')
n2=$((points / n1))
ax1="ERT.tables[0].actions[0].energy"   # the same paths in the Python below
ax2="ERT.tables[0].actions[1].energy"
modes=${MODES:-db columns df}
now() { date +%s.%N; }
fresh() { rm -f "$1" "$1-wal" "$1-shm"; }
i=0
while [ $i -lt "$pairs" ]; do
	fresh "$tmp/cli.db"
	t0=$(now)
	"$fl" sweep $files --axis "$ax1=1:$n1:1" --axis "$ax2=1:$n2:1" --db "$tmp/cli.db" 2>/dev/null
	t1=$(now)
	cli=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	line="sweep pair $((i + 1)): CLI $(printf '%.2f' "$cli") s"
	for m in $modes; do
		fresh "$tmp/py.db"
		t0=$(now)
		out=$(MODE=$m DB="$tmp/py.db" N1=$n1 N2=$n2 "$py" -c 'import fiberloop, os, sys
axes = {"ERT.tables[0].actions[0].energy": "1:%s:1" % os.environ["N1"],
        "ERT.tables[0].actions[1].energy": "1:%s:1" % os.environ["N2"]}
mode = os.environ["MODE"]
if mode == "df":
    df = fiberloop.sweep(sys.argv[1:], axes=axes).df
    print(len(df))
else:
    t = fiberloop.sweep(sys.argv[1:], axes=axes, db=os.environ["DB"])
    if mode == "columns":
        print(len(t), len(t.column("energy_pj")))
    else:
        print(t.points)' $files)
		t1=$(now)
		py_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
		echo "$m $py_s $cli" >>"$tmp/sweep"
		line="$line, python $m $(printf '%.2f' "$py_s") s ($(echo $out | cut -d' ' -f1) rows) ratio $(awk -v a="$py_s" -v b="$cli" 'BEGIN { printf "%.3f", a / b }')"
	done
	echo "$line"
	i=$((i + 1))
done
for m in $modes; do
	awk -v m="$m" '$1 == m { print $2 / $3 }' "$tmp/sweep" | median |
		awk -v p="$points" -v m="$m" '{ printf "sweep of %d points: python (%s) / CLI median wall ratio %.3f\n", p, m, $1 }'
done
