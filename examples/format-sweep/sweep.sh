#!/bin/sh
# The spMspM design of this directory with A and B as coordinate lists or
# as bitmasks, with skipping or gating, at densities 0.01 to 0.8 in steps
# of 0.01: one 'fiberloop sweep' of 320 points into OUT/sweep.db, then
# 'fiberloop results' writes OUT/sweep.csv and 'fiberloop plot' draws
# OUT/sweep.svg (energy and cycles against density). Prints the README's
# tables, each one 'fiberloop results' command: the designs side by side
# (a pivot) and where one starts to beat another (the crossovers).
# Usage: sh sweep.sh [OUT]   (OUT defaults to this directory;
#                             FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
fl=${FIBERLOOP:-fiberloop}
db=$out/sweep.db
t=sparse_optimizations.targets
rm -f "$db" "$db-wal" "$db-shm"

"$fl" sweep --energy accelergy45 "$here/arch.yaml" "$here/map.yaml" "$here/coord-skipping.yaml" "$here/problem.yaml" \
	--db "$db" \
	--axis "density:problem.instance.densities.A.density,problem.instance.densities.B.density=0.01:0.8:+0.01" \
	--axis "format:$t[name=DRAM].representation_format.data_spaces[name=A].format,$t[name=DRAM].representation_format.data_spaces[name=B].format,$t[name=Buffer].representation_format.data_spaces[name=A].format,$t[name=Buffer].representation_format.data_spaces[name=B].format=COO,bitmask" \
	--axis "saf:$t[name=Buffer].action_optimization[0].type,$t[name=Buffer].action_optimization[1].type,$t[name=Buffer].action_optimization[2].type,$t[name=mac].compute_optimization[0].type=skipping,gating" \
	2>/dev/null

# energies to the picojoule's hundredth, as the committed CSV has them
"$fl" results "$db" --format csv --where 'status=ok' \
	--columns density,format,saf,energy_pj,cycles,actual_computes,pj_per_compute |
	awk -F, 'NR == 1 { print; next } { printf "%s,%s,%s,%.2f,%s,%s,%.3f\n", $1, $2, $3, $4, $5, $6, $7 }' \
	>"$out/sweep.csv"
"$fl" plot "$db" --x density --y energy_pj --y cycles --series format --series saf --logscale xy \
	--title 'Z = A B, 64 x 64 x 64: energy and cycles against the density of A and B' \
	-o "$out/sweep.svg" >/dev/null

# the README's table: the four designs side by side at some densities, the best of each row
"$fl" results "$db" --pivot format,saf --x density --y energy_pj --y cycles \
	--at 0.01,0.02,0.04,0.08,0.1,0.11,0.2,0.4,0.6,0.77,0.78,0.8
echo
# where one design starts to beat another, along the density (energy, then cycles)
"$fl" results "$db" --pivot format,saf --x density --y energy_pj --y cycles --crossovers
