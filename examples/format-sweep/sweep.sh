#!/bin/sh
# The spMspM design of this directory with A and B as coordinate lists or
# as bitmasks, with skipping or gating, at densities 0.01 to 0.8 in steps
# of 0.01: one 'fiberloop sweep' of 320 points into OUT/sweep.db, then
# 'fiberloop results' writes OUT/sweep.csv and 'fiberloop plot' draws
# OUT/sweep.svg (energy and cycles against density). Prints the README's
# table: coordinates + skipping against bitmask + gating, and where the
# coordinates stop winning.
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

awk -F, 'NR == 1 { next }
	$2 == "COO" && $3 == "skipping" { ce[$1] = $4; cc[$1] = $5; order[++n] = $1 }
	$2 == "bitmask" && $3 == "gating" { be[$1] = $4; bc[$1] = $5 }
	END {
		print "| density | energy (uJ) coord+skipping | energy (uJ) bitmask+gating | energy winner | cycles coord+skipping | cycles bitmask+gating | cycles winner |"
		print "|---|---|---|---|---|---|---|"
		split("0.01 0.02 0.04 0.08 0.1 0.11 0.2 0.4 0.6 0.77 0.78 0.8", shown, " ")
		for (i = 1; i in shown; i++) {
			d = shown[i]
			printf "| %s | %.3f | %.3f | %s | %d | %d | %s |\n", d, ce[d] / 1e6, be[d] / 1e6,
			       be[d] < ce[d] ? "bitmask" : "coordinates", cc[d], bc[d],
			       bc[d] < cc[d] ? "bitmask" : "coordinates"
		}
		for (i = 1; i <= n; i++) {
			d = order[i]
			if (!e && be[d] < ce[d]) e = d
			if (!c && bc[d] < cc[d]) c = d
		}
		printf "\nCoordinate lists + skipping stop winning on energy at density %s and on cycles at density %s.\n", e, c
	}' "$out/sweep.csv"
