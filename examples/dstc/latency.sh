#!/bin/sh
# DSTC latency at A and B densities against the DSTC paper's (Wang et al.,
# ISCA 2021, Fig. 21, as the Sparseloop artifact's ground_truth.yaml gives
# it), both normalized to A = B = 1.0.
set -e
here=$(cd "$(dirname "$0")" && pwd)
FIBERLOOP=${FIBERLOOP:-$here/../../_build/fiberloop}
cycles() {
	"$FIBERLOOP" model "$here/arch.yaml" "$here/map.yaml" "$here/problem.yaml" \
		"$here/sparse.yaml" --set problem.instance.densities.A.density="$1" \
		--set problem.instance.densities.B.density="$2" | sed -n 's/^Cycles: *//p'
}
dense=$(cycles 1.0 1.0)
echo "| A density | B density | fiberloop cycles | fiberloop / dense | DSTC paper / dense | difference |"
echo "|---:|---:|---:|---:|---:|---:|"
for row in "1.0 1.0 4600" "1.0 0.4 2500" "0.9 1.0 4163" "0.9 0.4 2300" "0.7 1.0 3300" \
	   "0.7 0.4 1820" "0.5 1.0 2690" "0.5 0.4 1480" "0.3 1.0 1930" "0.3 0.4 1100"; do
	set -- $row
	c=$(cycles "$1" "$2")
	echo "$1 $2 $c $dense $3" | awk '{ m = $3 / $4; p = $5 / 4600;
		printf "| %s | %s | %d | %.3f | %.3f | %+.1f%% |\n", $1, $2, $3, m, p, 100 * (m - p) / p }'
done
