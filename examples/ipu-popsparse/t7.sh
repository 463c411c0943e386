#!/bin/sh
# The trends of the PopSparse paper's empirical fit (docs/sources.md §4.1,
# T7: static block-sparse FP16 over dense, speedup ~ 0.0013 m^0.59 d^-0.54
# b^0.50, most points within 2x): the model's speedup (best non-zero FLOP
# rate over the batch n divided by the best dense rate times d, as in t6.sh)
# at m = k = 256 ... 8192, d = 1/4 ... 1/32 and b = 1, 4, 8, 16, static
# sparsity, half data, forward pass (one sweep over m, d, b and n into a
# results database); then a least-squares fit of
# log(speedup) on log m, log d and log b. Writes t7.csv (or $1) and prints
# the fit beside T7's and how many points lie within 2x of T7's formula.
# Usage: sh t7.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/t7.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

"$fl" sweep "$here/layer.yaml" --command ipu --db "$tmp/t7.db" --set ipu.layer.sparsity=static \
	--set 'ipu.layer.passes=[fwd]' --axis m:ipu.layer.x,ipu.layer.y=256:8192:x2 \
	--axis d:ipu.layer.density.density=0.25,0.125,0.0625,0.03125 \
	--axis b:ipu.layer.block_size=1,4,8,16 --axis n:ipu.layer.z=1:8192:x2 \
	2>"$tmp/err" >/dev/null ||
	# points without a plan are rows too (the sweep says so and exits 1 or 3)
	grep -q ' did not succeed$' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
# per (m, d, b), in the sweep's order, the best sparse and dense rates over n (the columns by name)
"$fl" results "$tmp/t7.db" --format csv --where status=ok --columns m,d,b,n,fwd_cycles,fwd_baseline_cycles |
	awk -F, 'NR == 1 { print "m,density,block,speedup,best_n_sparse,best_n_dense"; next }
		{ k = $1 "," $2 "," $3
		  if (!(k in bs)) order[++nk] = k
		  s = $4 / $5; t = $4 / $6
		  if (s > bs[k]) { bs[k] = s; bn[k] = $4 }
		  if (t > bd[k]) { bd[k] = t; dn[k] = $4 } }
		END { for (i = 1; i <= nk; i++) { k = order[i]
			if (bs[k] > 0 && bd[k] > 0) printf "%s,%.6g,%d,%d\n", k, bs[k] / bd[k], bn[k], dn[k] } }' >"$out"

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
