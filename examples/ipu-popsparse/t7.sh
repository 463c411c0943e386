#!/bin/sh
# The trends of the PopSparse paper's empirical fit (docs/reference-figures.md,
# T7: static block-sparse FP16 over dense, speedup ~ 0.0013 m^0.59 d^-0.54
# b^0.50, most points within 2x): the model's speedup (best non-zero FLOP
# rate over the batch n divided by the best dense rate times d, as in t6.sh)
# at m = k = 256 ... 8192, d = 1/4 ... 1/32 and b = 1, 4, 8, 16, static
# sparsity, half data, forward pass; then a least-squares fit of
# log(speedup) on log m, log d and log b. Writes t7.csv (or $1) and prints
# the fit beside T7's and how many points lie within 2x of T7's formula.
# Usage: sh t7.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/t7.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "m,density,block,speedup,best_n_sparse,best_n_dense" >"$out"
for m in 256 512 1024 2048 4096 8192; do
	for d in 0.25 0.125 0.0625 0.03125; do
		for b in 1 4 8 16; do
			n=1
			[ $b = 1 ] && n=4
			: >"$tmp/rows"
			while [ $n -le 8192 ]; do
				"$fl" ipu "$here/layer.yaml" --format csv --set ipu.layer.x=$m \
					--set ipu.layer.y=$m --set ipu.layer.z=$n --set ipu.layer.block_size=$b \
					--set ipu.layer.sparsity=static --set 'ipu.layer.passes=[fwd]' \
					--set "ipu.layer.density={distribution: hypergeometric, density: $d}" \
					2>/dev/null | tail -1 >>"$tmp/rows" || true
				n=$((n * 2))
			done
			# CSV columns: 4 z, 17 fwd_cycles, 20 fwd_dense_cycles, 26 status
			awk -F, -v m=$m -v d=$d -v b=$b '$26 == "ok" {
				s = $4 / $17; t = $4 / $20
				if (s > bs) { bs = s; bn = $4 }
				if (t > bd) { bd = t; dn = $4 }
			} END { if (bs > 0 && bd > 0) printf "%s,%s,%s,%.6g,%d,%d\n", m, d, b, bs / bd, bn, dn }' \
				"$tmp/rows" >>"$out"
		done
	done
done

awk -F, 'NR == 1 { next }
	{
		x[1] = 1; x[2] = log($1); x[3] = log($2); x[4] = log($3); y = log($4)
		for (i = 1; i <= 4; i++) { v[i] += x[i] * y; for (j = 1; j <= 4; j++) a[i, j] += x[i] * x[j] }
		fit = 0.0013 * $1 ^ 0.59 * $2 ^ -0.54 * $3 ^ 0.50
		n++; if ($4 / fit >= 0.5 && $4 / fit <= 2) within++
	}
	END {
		for (i = 1; i <= 4; i++) {            # Gaussian elimination, partial pivoting
			p = i
			for (r = i + 1; r <= 4; r++) if ((a[r, i] < 0 ? -a[r, i] : a[r, i]) > (a[p, i] < 0 ? -a[p, i] : a[p, i])) p = r
			for (j = 1; j <= 4; j++) { t = a[i, j]; a[i, j] = a[p, j]; a[p, j] = t }
			t = v[i]; v[i] = v[p]; v[p] = t
			for (r = 1; r <= 4; r++) if (r != i) {
				f = a[r, i] / a[i, i]
				for (j = 1; j <= 4; j++) a[r, j] -= f * a[i, j]
				v[r] -= f * v[i]
			}
		}
		for (i = 1; i <= 4; i++) c[i] = v[i] / a[i, i]
		print "| fit of speedup | constant | m | d | b |"
		print "|---|---|---|---|---|"
		printf "| T7 (published) | 0.0013 | 0.59 | -0.54 | 0.50 |\n"
		printf "| model | %.3g | %.2f | %.2f | %.2f |\n", exp(c[1]), c[2], c[3], c[4]
		printf "\n%d of %d model points lie within 2x of T7'"'"'s formula.\n", within, n
	}' "$out"
