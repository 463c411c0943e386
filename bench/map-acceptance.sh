#!/bin/sh
# The mapper's acceptance measurement: for each conformance design searched
# by Timeloop's mapper, run 'fiberloop map input.yaml constraints.yaml
# ERT.yaml' (the design's own 'mapper' settings) on 1 and 2 threads, and
# compare the EDP of the mapping found with the EDP our model gives the
# reference mapping (map.yaml, Timeloop's choice).
#
# Usage: bench/map-acceptance.sh [FIBERLOOP [DATA_DIR [CASE...]]]
fl=${1:-./fiberloop}
data=${2:-$(dirname "$0")/../tests/data}
[ $# -ge 2 ] && shift 2 || set --
cases=${*:-"simple_output_stationary simple_weight_stationary eyeriss_like simba_like 04.2.2-eyeriss-like-gating-mapspace-search"}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

edp_of() {  # EDP column of 'fiberloop model --format csv'
	"$fl" model "$@" --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == "edp_j_cycles") c = i } NR == 2 { print $c }'
}

now() { date +%s.%N; }

printf '%-44s %12s %12s %8s %9s %9s %s\n' case ref_edp found_edp ratio 1thr_s 2thr_s same
for c in $cases; do
	d=$data/conformance/$c
	ref=$(edp_of "$d/input.yaml" "$d/map.yaml" "$d/ERT.yaml")
	for t in 1 2; do
		t0=$(now)
		"$fl" map "$d/input.yaml" "$d/constraints.yaml" "$d/ERT.yaml" --threads $t \
			-o "$tmp/$c-$t" >/dev/null 2>&1
		t1=$(now)
		eval "sec$t=\$(awk -v a=\"\$t0\" -v b=\"\$t1\" 'BEGIN { print b - a }')"
	done
	found=$(edp_of "$d/input.yaml" "$tmp/$c-1/fiberloop-mapper.map.yaml" "$d/ERT.yaml")
	same=no
	cmp -s "$tmp/$c-1/fiberloop-mapper.map.yaml" "$tmp/$c-2/fiberloop-mapper.map.yaml" && same=yes
	ratio=$(awk -v f="$found" -v r="$ref" 'BEGIN { printf "%.4f", f / r }')
	printf '%-44s %12s %12s %8s %9.2f %9.2f %s\n' "$c" "$ref" "$found" "$ratio" "$sec1" "$sec2" "$same"
done
