#!/bin/sh
# The model beside the measured static FP16 speedups of measured-static.csv
# (the PopSparse paper's static grid: m = k = 512 ... 8192, n = 4 ... 1024,
# d = 1/4 ... 1/32, b = 1, 4, 8, 16; per n, as the figure): for each point
# the layer.yaml design, static sparsity, Fwd, half data, W hypergeometric
# at d, is evaluated at that m, n, b. Writes the points with the model's
# speedup beside the measured one to measured-static-model.csv (or $1) and
# prints how far the model is from the measurements: the median of
# model / measured, the median and 95th percentile of the factor
# max(r, 1/r), the share within 2x and within 1.25x, overall and per block.
# Then the best-batch figures of measured-best.csv (T6 and the paper's
# plots): each is the best non-zero FLOP rate over n = 1 ... 8192 (element-
# wise: multiples of the vector width) against the best dense rate times d,
# as t6.sh computes it (dynamic: Fwd and GradA planned, 64 draws, Fwd
# timed), printed as a table with the median model / measured per kind of
# sparsity. Then the dense baseline beside the measured dense rates of
# measured-dense.csv (the paper's dense figure), and which side of the
# static speedups is off: where the dense rate at a grid point's (m, n) was
# measured, the measured sparse cycles are the measured dense cycles over
# the measured speedup, beside the model's sparse cycles (median per block
# size and batch). About 3 minutes on one core.
# Usage: sh measured.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
# OUT.csv's columns: m, n, density, block, measured_speedup, model_speedup,
# status, model_sparse_cycles, model_dense_cycles (the Fwd pass's).
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/measured-static-model.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "m,n,density,block,measured_speedup,model_speedup,status,model_sparse_cycles,model_dense_cycles" >"$out"
grep -v '^#' "$here/measured-static.csv" | tail -n +2 | while IFS=, read -r m n d b meas; do
	row=$("$fl" ipu "$here/layer.yaml" --format csv --set ipu.layer.x=$m --set ipu.layer.y=$m \
		--set ipu.layer.z=$n --set ipu.layer.block_size=$b --set ipu.layer.sparsity=static \
		--set 'ipu.layer.passes=[fwd]' \
		--set "ipu.layer.density={distribution: hypergeometric, density: $d}" 2>/dev/null |
		tail -1) || true
	# CSV columns: 17 fwd_cycles, 20 fwd_dense_cycles, 21 fwd_speedup, 26 status
	echo "$row" | awk -F, -v p="$m,$n,$d,$b,$meas" '{ printf "%s,%s,%s,%s,%s\n", p, $21, $26, $17, $20 }' >>"$out"
done

# summary LABEL: the statistics of the ratios on stdin (one a line)
summary() {
	sort -g | awk -v label="$1" '{ r[NR] = $1; f[NR] = $1 < 1 ? 1 / $1 : $1 }
		END {
			n = NR; if (!n) exit
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (f[j] < f[i]) { t = f[i]; f[i] = f[j]; f[j] = t }
			w2 = 0; w125 = 0
			for (i = 1; i <= n; i++) { if (f[i] <= 2) w2++; if (f[i] <= 1.25) w125++ }
			mr = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			mf = n % 2 ? f[(n + 1) / 2] : (f[n / 2] + f[n / 2 + 1]) / 2
			p95 = f[int(0.95 * n + 0.999999)]
			printf "| %s | %d | %.2f | %.2f | %.2f | %.0f%% | %.0f%% |\n", label, n, mr, mf, p95,
			       100 * w2 / n, 100 * w125 / n
		}'
}
echo "| points | n | median model / measured | median factor | 95th percentile factor | within 2x | within 1.25x |"
echo "|---|---:|---:|---:|---:|---:|---:|"
awk -F, 'NR > 1 && $7 == "ok" && $6 > 0 { print $6 / $5 }' "$out" | summary all
for b in 1 4 8 16; do
	awk -F, -v b=$b 'NR > 1 && $7 == "ok" && $6 > 0 && $4 == b { print $6 / $5 }' "$out" | summary "b = $b"
done
echo
echo "$(awk -F, 'NR > 1 && $7 != "ok"' "$out" | wc -l) measured points have no plan that fits in the model."

# best SPARSITY DTYPE BLOCK DENSITY M: the model's best-batch speedup
best() {
	passes="[fwd, grad_a]"
	[ "$1" = static ] && passes="[fwd]"
	n=1
	[ "$3" = 1 ] && n=$([ "$2" = half ] && echo 4 || echo 2)
	: >"$tmp/rows"
	while [ $n -le 8192 ]; do
		"$fl" ipu "$here/layer.yaml" --format csv --samples 64 --set ipu.layer.x=$5 \
			--set ipu.layer.y=$5 --set ipu.layer.z=$n --set ipu.layer.dtype=$2 \
			--set ipu.layer.block_size=$3 --set ipu.layer.sparsity=$1 \
			--set "ipu.layer.passes=$passes" \
			--set "ipu.layer.density={distribution: hypergeometric, density: $4}" \
			2>/dev/null | tail -1 >>"$tmp/rows" || true
		n=$((n * 2))
	done
	# CSV columns: 4 z, 17 fwd_cycles, 20 fwd_dense_cycles, 26 status
	awk -F, '$26 == "ok" { s = $4 / $17; t = $4 / $20; if (s > bs) bs = s; if (t > bd) bd = t }
		END { if (bs > 0 && bd > 0) printf "%.3g\n", bs / bd }' "$tmp/rows"
}

echo
echo "| figure | data | sparsity | b | d | m | measured | model | model / measured |"
echo "|---|---|---|---:|---|---:|---:|---:|---:|"
: >"$tmp/ratios"
grep -v '^#' "$here/measured-best.csv" | tail -n +2 | while IFS=, read -r fig dt sp b d m meas; do
	model=$(best "$sp" "$dt" "$b" "$d" "$m")
	echo "$sp $model $meas" >>"$tmp/ratios"
	echo "$fig $dt $sp $b $d $m $meas $model" | awk '{
		printf "| %s | %s | %s | %s | 1/%d | %s | %sx | %sx | %.2f |\n", $1, $2 == "half" ? "FP16" : "FP32",
		       $3, $4, 1 / $5 + 0.5, $6, $7, $8, $8 / $7 }'
done
for sp in static dynamic; do
	awk -v sp=$sp '$1 == sp { print $2 / $3 }' "$tmp/ratios" | sort -g |
		awk -v sp=$sp '{ r[NR] = $1 } END { printf "\n%s: median model / measured %.2f over %d figures\n", sp,
			NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2, NR }'
done

# The dense baseline beside the measured dense rates (model / measured, median over n per m).
# $tmp/dense: dtype, m, n, measured and model TFLOP/s, measured dense cycles.
clock=$("$fl" ipu "$here/layer.yaml" --format json --set 'ipu.layer.passes=[fwd]' 2>/dev/null |
	awk '/^  "total_cycles"/ { c = $2 + 0 } /^  "seconds"/ { s = $2 + 0 } END { if (s > 0) printf "%.6g", c / s }')
: >"$tmp/dense"
grep -v '^#' "$here/measured-dense.csv" | tail -n +2 | while IFS=, read -r dt m n meas; do
	"$fl" ipu "$here/layer.yaml" --format csv --set ipu.layer.x=$m --set ipu.layer.y=$m \
		--set ipu.layer.z=$n --set ipu.layer.dtype=$dt --set ipu.layer.dense_partials_type=$dt \
		--set ipu.layer.sparsity=static --set 'ipu.layer.passes=[fwd]' 2>/dev/null | tail -1 |
		awk -F, -v dt=$dt -v m=$m -v n=$n -v meas=$meas -v hz="$clock" '$20 > 0 {
			printf "%s %s %s %s %.4g %.10g\n", dt, m, n, meas, 2 * m * m * n / ($20 / hz) / 1e12,
			       2 * m * m * n / (meas * 1e12) * hz }' >>"$tmp/dense"
done
echo
echo "Dense baseline (measured-dense.csv, $(wc -l <"$tmp/dense") of $(grep -v '^#' "$here/measured-dense.csv" | tail -n +2 | wc -l) points; model at $clock Hz): model / measured FLOP rate"
echo
echo "| data | m = k | points | median | smallest | largest |"
echo "|---|---:|---:|---:|---:|---:|"
for dt in half float; do
	for m in 1024 2048 4096 8192 all; do
		awk -v dt=$dt -v m=$m '$1 == dt && (m == "all" || $2 == m) { print $5 / $4 }' "$tmp/dense" | sort -g |
			awk -v dt=$dt -v m=$m '{ r[NR] = $1 } END { if (NR) printf "| %s | %s | %d | %.2f | %.2f | %.2f |\n",
				dt == "half" ? "FP16" : "FP32", m, NR, NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2,
				r[1], r[NR] }'
	done
done

# Which side is off: measured sparse cycles = measured dense cycles / measured speedup.
echo
echo "Static grid, sparse side (FP16 points whose (m, n) has a measured dense rate): median of"
echo "measured / model sparse cycles (above 1: the model's sparse matmul is too fast)"
echo
echo "| b | n = 4 | 16 | 64 | 256 | 1024 |"
echo "|---:|---:|---:|---:|---:|---:|"
awk 'NR == FNR { if ($1 == "half") d[$2 "," $3] = $6; next }
	FNR > 1 && $7 == "ok" && $8 > 0 && (($1 "," $2) in d) { print $4, $2, d[$1 "," $2] / $5 / $8 }' \
	"$tmp/dense" FS=, "$out" | sort -k1,1n -k2,2n -k3,3g |
	awk '{ k = $1 " " $2; v[k, ++c[k]] = $3 }
		END {
			split("1 4 8 16", bs, " "); split("4 16 64 256 1024", ns, " ")
			for (i = 1; i <= 4; i++) {
				line = "| " bs[i] " |"
				for (j = 1; j <= 5; j++) {
					k = bs[i] " " ns[j]; n = c[k]
					line = line (n ? sprintf(" %.2f |", n % 2 ? v[k, (n + 1) / 2] : (v[k, n / 2] + v[k, n / 2 + 1]) / 2) : " - |")
				}
				print line
			}
		}'

# The grid's median factor with the measured dense (or sparse) cycles in place of the model's
# where the dense rate was measured: which side the error is on.
for side in dense sparse; do
	awk -v side=$side 'NR == FNR { if ($1 == "half") d[$2 "," $3] = $6; next }
		FNR > 1 && $7 == "ok" && $8 > 0 {
			r = $6 / $5; k = $1 "," $2
			if (k in d) r = side == "dense" ? d[k] / $8 / $5 : ($9 / (d[k] / $5)) / $5
			print r < 1 ? 1 / r : r }' "$tmp/dense" FS=, "$out" | sort -g |
		awk -v side=$side '{ f[NR] = $1 } END { printf "%sgrid median factor with the measured %s cycles where known: %.4f\n",
			side == "dense" ? "\n" : "", side, NR % 2 ? f[(NR + 1) / 2] : (f[NR / 2] + f[NR / 2 + 1]) / 2 }'
done
