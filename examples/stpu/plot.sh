#!/bin/sh
# Packing efficiency against density for uniform matrices of dimension 1000
# and 5000 on the 128 x 128 array of design.yaml: STPU-C0, STPU-C1, KMZ and
# the density-aware estimate of STPU-C0. Writes efficiency.csv and, with
# gnuplot, efficiency.svg beside this script (about a minute).
#
#   examples/stpu/plot.sh            (FIBERLOOP=path/to/fiberloop to choose the binary)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fl=${FIBERLOOP:-$here/../../_build/fiberloop}
csv=$here/efficiency.csv

echo "dim,density,stpu_c0,stpu_c1,kmz,estimate_c0" >"$csv"
for dim in 1000 5000; do
	for d in 0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.3 0.45; do
		# CSV columns: 4 density, 8 the estimate's efficiency, then 7 per
		# scheme (TPU, STPU-C0, STPU-C1, KMZ), efficiency first.
		"$fl" stpu --format csv --set stpu.matrix.rows=$dim --set stpu.matrix.cols=$dim \
			--set stpu.matrix.density=$d "$here/design.yaml" |
			awk -F, -v dim=$dim 'NR == 2 { print dim "," $4 "," $16 "," $23 "," $30 "," $8 }' \
			>>"$csv"
	done
done
gnuplot -e "csv='$csv'; out='$here/efficiency.svg'" "$here/plot.gp"
echo "wrote $csv and $here/efficiency.svg"
