#!/bin/sh
# Packing efficiency against density for uniform matrices of dimension 1000
# and 5000 on the 128 x 128 array of design.yaml: STPU-C0, STPU-C1, KMZ and
# the density-aware estimate of STPU-C0. One sweep over the dimension, the
# density and the scheme (every point a row of a results database with its
# packing_efficiency and estimated_packing_efficiency), read back by column
# name; writes efficiency.csv and, with gnuplot, efficiency.svg beside this
# script (about a minute on 2 cores).
#
#   examples/stpu/plot.sh            (FIBERLOOP=path/to/fiberloop to choose the binary)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fl=${FIBERLOOP:-$here/../../_build/fiberloop}
csv=$here/efficiency.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

"$fl" sweep "$here/design.yaml" --command stpu --db "$tmp/stpu.db" \
	--axis dim:stpu.matrix.rows,stpu.matrix.cols=1000,5000 \
	--axis density:stpu.matrix.density=0.001,0.002,0.005,0.01,0.02,0.05,0.1,0.2,0.3,0.45 \
	--axis stpu.packing.scheme=C0,C1,KMZ >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; exit 1; }
# one line per (dim, density): each scheme's efficiency and C0's estimate
"$fl" results "$tmp/stpu.db" --format csv --where status=ok \
	--columns dim,density,scheme,packing_efficiency,estimated_packing_efficiency |
	awk -F, 'NR == 1 { print "dim,density,stpu_c0,stpu_c1,kmz,estimate_c0"; next }
		{ k = $1 "," $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  e[k, $3] = sprintf("%.9g", $4); if ($3 == "C0") est[k] = sprintf("%.9g", $5) }
		END { for (i = 1; i <= n; i++) { k = order[i]
			print k "," e[k, "C0"] "," e[k, "C1"] "," e[k, "KMZ"] "," est[k] } }' >"$csv"
gnuplot -e "csv='$csv'; out='$here/efficiency.svg'" "$here/plot.gp"
echo "wrote $csv and $here/efficiency.svg"
