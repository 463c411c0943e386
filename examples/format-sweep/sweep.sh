#!/bin/sh
# Evaluate the spMspM design of this directory at densities 0.01 to 0.8,
# once with bitmask + gating and once with coordinate lists + skipping.
# Writes sweep.csv (or the file given as $1) and prints a markdown table
# with the winner in energy and in cycles at each density.
# Usage: sh sweep.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/sweep.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "density,design,energy_pj,cycles,actual_computes,pj_per_compute" >"$out"
for d in 0.01 0.02 0.04 0.08 0.1 0.2 0.4 0.6 0.8; do
	sed "s/@DENSITY@/$d/" "$here/problem.yaml.in" >"$tmp/problem.yaml"
	for design in bitmask-gating coord-skipping; do
		"$fl" model "$here/arch.yaml" "$tmp/problem.yaml" "$here/map.yaml" \
			"$here/$design.yaml" --format csv >"$tmp/row.csv"
		# CSV columns: status, energy_pj, cycles, utilization, algorithmic_computes,
		# actual_computes, pj_per_compute, ...
		tail -1 "$tmp/row.csv" | awk -F, -v d="$d" -v n="$design" \
			'$1 != "ok" { print "infeasible at " d ": " $0 > "/dev/stderr"; exit 1 }
			 { printf "%s,%s,%.2f,%s,%s,%.3f\n", d, n, $2, $3, $6, $7 }' >>"$out"
	done
done

awk -F, 'NR == 1 { next }
	$2 == "bitmask-gating" { be[$1] = $3; bc[$1] = $4; order[++n] = $1 }
	$2 == "coord-skipping" { ce[$1] = $3; cc[$1] = $4 }
	END {
		print "| density | energy (uJ) bitmask+gating | energy (uJ) coord+skipping | energy winner | cycles bitmask+gating | cycles coord+skipping | cycles winner |"
		print "|---|---|---|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			d = order[i]
			printf "| %s | %.3f | %.3f | %s | %d | %d | %s |\n", d, be[d] / 1e6, ce[d] / 1e6,
			       be[d] < ce[d] ? "bitmask" : "coordinates", bc[d], cc[d],
			       bc[d] < cc[d] ? "bitmask" : "coordinates"
		}
	}' "$out"
