#!/bin/sh
# The mapper on layers whose extents perfect factors split badly, on the
# Timeloop exercises' eyeriss_like (14 x 12 PEs) with their mapper settings
# (random search, victory 100, timeout 10000; 32 streams, refinement):
# the best mapping with perfect factors ('exact'), with imperfect ones, and
# with the prime dimension padded up to the next 7-smooth extent and to the
# next multiple of 16 (the better of the two: 'padded', its utilization
# counting only the useful computes). Prints the table of docs/mapper.md.
#
#   usage: bench/imperfect-table.sh [FIBERLOOP [DATA_DIR]]
set -e
FIBERLOOP=${1:-./_build/fiberloop}
DATA=${2:-$(dirname "$0")/../tests/data}
E=$DATA/exercises/example_designs
A="$E/example_designs/eyeriss_like/arch.yaml $E/example_designs/_include/mapper.yaml"
L=$E/layer_shapes

# run NAME LAYER ARGS...: "edp utilization cycles energy" of the best mapping
# (the design has no compound classes: the energy preset the table was made with)
run() {
	out=$("$FIBERLOOP" map $A "$@" --energy accelergy45 --threads 2 --format json 2>/dev/null) ||
		{ echo "map failed: $*" >&2; exit 1; }
	echo "$out" | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print(s["edp_j_cycles"], s.get("useful_utilization", s["utilization"]), s["cycles"], s["energy_pj"])'
}

# smooth7 N: the smallest number >= N whose prime factors are at most 7
smooth7() {
	python3 -c '
import sys
n = int(sys.argv[1])
def ok(m):
    for p in (2, 3, 5, 7):
        while m % p == 0: m //= p
    return m == 1
while not ok(n): n += 1
print(n)' "$1"
}

echo "| layer | bound | exact EDP | exact util. | padded to | padded EDP | padded util. (useful) | imperfect EDP | imperfect util. | imperfect / exact EDP |"
echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|"
while read -r name file dims imperfect; do
	[ -n "$name" ] || continue
	case $file in /*) ;; *) file=$L/$file ;; esac
	[ -f "$file" ] || file=$DATA/imperfect/$(basename "$file")
	ex=$(run "$file" --imperfect off)
	im=$(run "$file" --imperfect "$imperfect")
	first=${dims%%,*}
	b=$("$FIBERLOOP" check $A "$file" --format json 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["workload"]["dimensions"][sys.argv[1]])' "$first")
	best=
	for pad in $(smooth7 $((b + 1))) $(( b / 8 * 8 + 8 )) $(( b / 16 * 16 + 16 )); do
		set --
		for d in $(echo "$dims" | tr , ' '); do
			set -- "$@" --set "problem.instance.$d=$pad"
		done
		p=$(run "$file" --imperfect off "$@")
		useful=$(python3 -c "import sys; print(float(sys.argv[1]) * (float(sys.argv[2]) / float(sys.argv[3])) ** $(echo "$dims" | tr , '\n' | wc -l))" \
			"$(echo "$p" | cut -d' ' -f2)" "$b" "$pad")
		e=$(echo "$p" | cut -d' ' -f1)
		if [ -z "$best" ] || python3 -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$e" "$(echo "$best" | cut -d' ' -f1)"; then
			best="$e $useful $pad"
		fi
	done
	echo "$name $b $ex | $best | $im" | awk '{
		split($0, h, "|"); split(h[1], a, " "); split(h[2], p, " "); split(h[3], i, " ")
		printf "| %s | %s | %.4g | %.1f%% | %s | %.4g | %.1f%% | %.4g | %.1f%% | %.3f |\n",
			a[1], a[2], a[3], 100 * a[4], p[3], p[1], 100 * p[2], i[1], 100 * i[2], i[1] / a[3] }'
done <<'LAYERS'
ViT-B/16.qkv vision_transformer/01.yaml P auto
MLP-13008 mlp-13008.yaml P auto
GPT-2.vocab gpt2/144.yaml M auto
resnet18.7x7 resnet18/18.yaml P,Q on
LAYERS
