#!/bin/sh
# The PopSparse paper's speedups over dense at m = k = 4096, density 1/16
# (docs/sources.md §4.1, T6), from the model: for each data type,
# block size and kind of sparsity, the layer.yaml design is evaluated at
# batch n = Z = 1, 2, 4, ... 8192 as the benchmark swept it (two sweeps
# into one results database: element-wise sparsity takes multiples of the
# vector width only, so its first batches are rows with an error); the
# speedup is, as in the paper's analysis, the best non-zero FLOP rate over
# n divided by the best dense FLOP rate over n times the density. Dynamic
# sparsity is planned for Fwd and GradA (the dynamic MatMul API), static
# for Fwd; the forward pass is timed (the rows' fwd_cycles and
# fwd_baseline_cycles). Plans that do not fit a tile are left out. 64
# patterns are drawn per point (the best batches of the dynamic rows draw
# no spill: none is possible in practice). Writes t6.csv (or $1) from
# 'fiberloop results' and prints the comparison table.
# Usage: sh t6.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/t6.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for sp in static dynamic; do
	passes="[fwd, grad_a]"
	[ $sp = static ] && passes="[fwd]"
	"$fl" sweep "$here/layer.yaml" --command ipu --samples 64 --db "$tmp/t6.db" \
		--set "ipu.layer.passes=$passes" --axis sparsity:ipu.layer.sparsity=$sp \
		--axis dtype:ipu.layer.dtype=half,float --axis block:ipu.layer.block_size=16,1 \
		--axis n:ipu.layer.z=1:8192:x2 2>"$tmp/err" >/dev/null ||
		# points without a plan are rows too (the sweep says so and exits 1 or 3)
		grep -q ' did not succeed$' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
done
# one line per point that has a plan (the columns by name), in the table's order
"$fl" results "$tmp/t6.db" --format csv --where 'status!=bad-input' \
	--columns dtype,block,sparsity,n,status,fwd_cycles,fwd_baseline_cycles,propagation_steps |
	awk -F, 'NR == 1 { print "dtype,block,sparsity,n,status,fwd_cycles,fwd_dense_cycles,fwd_steps_expected"; next }
		{ k = ($1 == "half" ? 0 : 4) + ($2 == 16 ? 0 : 2) + ($3 == "static" ? 0 : 1)
		  line[k, ++nk[k]] = sprintf("%s,%s,%s,%s,%s,%s,%s,%s", $1, $2, $3, $4, $5,
			$6 == "" ? "" : sprintf("%.6g", $6), $7 == "" ? "" : sprintf("%.6g", $7),
			$8 == "" ? "" : sprintf("%.6g", $8)) }
		END { for (k = 0; k < 8; k++) for (i = 1; i <= nk[k]; i++) print line[k, i] }' >"$out"

awk -F, 'NR == 1 { next }
	$5 == "ok" {
		k = $1 "," $2 "," $3
		s = $4 / $6; d = $4 / $7
		if (s > bs[k]) { bs[k] = s; bn[k] = $4 }
		if (d > bd[k]) { bd[k] = d; dn[k] = $4 }
	}
	END {
		pub["half,16,static"] = 4.9; pub["half,16,dynamic"] = 1.9
		pub["half,1,static"] = 0.7; pub["half,1,dynamic"] = 0.4
		pub["float,16,static"] = 5.6; pub["float,16,dynamic"] = 3.8
		pub["float,1,static"] = 1.4; pub["float,1,dynamic"] = 0.9
		print "| data | block | sparsity | published (T6) | model | model / published | best n sparse | best n dense |"
		print "|---|---|---|---|---|---|---|---|"
		split("half,16,static half,16,dynamic half,1,static half,1,dynamic float,16,static float,16,dynamic float,1,static float,1,dynamic", ks, " ")
		for (i = 1; i <= 8; i++) {
			k = ks[i]; split(k, f, ",")
			sp = bs[k] / bd[k]
			printf "| %s | %s | %s | %.1fx | %.2fx | %.2f | %d | %d |\n", f[1] == "half" ? "FP16" : "FP32",
			       f[2], f[3], pub[k], sp, sp / pub[k], bn[k], dn[k]
		}
	}' "$out"
