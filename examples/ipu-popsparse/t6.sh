#!/bin/sh
# The PopSparse paper's speedups over dense at m = k = 4096, density 1/16
# (docs/reference-figures.md, T6), from the model: for each data type,
# block size and kind of sparsity, the layer.yaml design is evaluated at
# batch n = Z = 1, 2, 4, ... 8192 (element-wise sparsity: multiples of the
# vector width only, 4 for half, 2 for float) as the benchmark swept it;
# the speedup is, as in the paper's analysis, the best non-zero FLOP rate
# over n divided by the best dense FLOP rate over n times the density.
# Dynamic sparsity is planned for Fwd and GradA (the dynamic MatMul API),
# static for Fwd; the forward pass is timed. Plans that do not fit a tile
# are left out. 64 patterns are drawn per point (the best batches of the
# dynamic rows draw no spill: none is possible in practice). Writes t6.csv
# (or $1) and prints the comparison table.
# Usage: sh t6.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/t6.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "dtype,block,sparsity,n,status,fwd_cycles,fwd_dense_cycles,fwd_steps_expected" >"$out"
for dtype in half float; do
	for b in 16 1; do
		for sp in static dynamic; do
			passes="[fwd, grad_a]"
			[ $sp = static ] && passes="[fwd]"
			n=1
			[ $b = 1 ] && n=$([ $dtype = half ] && echo 4 || echo 2)
			while [ $n -le 8192 ]; do
				"$fl" ipu "$here/layer.yaml" --format csv --samples 64 --set ipu.layer.dtype=$dtype \
					--set ipu.layer.block_size=$b --set ipu.layer.sparsity=$sp \
					--set "ipu.layer.passes=$passes" --set ipu.layer.z=$n \
					>"$tmp/row.csv" 2>"$tmp/err" || true
				# CSV columns: 17 fwd_cycles, 18 fwd_steps_expected, 20 fwd_dense_cycles, 26 status
				if [ -s "$tmp/row.csv" ]; then
					tail -1 "$tmp/row.csv" | awk -F, -v d=$dtype -v b=$b -v s=$sp -v n=$n \
						'{ printf "%s,%s,%s,%s,%s,%s,%s,%s\n", d, b, s, n, $26, $17, $20, $18 }' >>"$out"
				else
					echo "$dtype,$b,$sp,$n,no plan,,," >>"$out"
				fi
				n=$((n * 2))
			done
		done
	done
done

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
