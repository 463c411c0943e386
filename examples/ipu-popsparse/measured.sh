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
# sparsity. About 3 minutes on one core.
# Usage: sh measured.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/measured-static-model.csv}
fl=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "m,n,density,block,measured_speedup,model_speedup,status" >"$out"
grep -v '^#' "$here/measured-static.csv" | tail -n +2 | while IFS=, read -r m n d b meas; do
	row=$("$fl" ipu "$here/layer.yaml" --format csv --set ipu.layer.x=$m --set ipu.layer.y=$m \
		--set ipu.layer.z=$n --set ipu.layer.block_size=$b --set ipu.layer.sparsity=static \
		--set 'ipu.layer.passes=[fwd]' \
		--set "ipu.layer.density={distribution: hypergeometric, density: $d}" 2>/dev/null |
		tail -1) || true
	# CSV columns: 21 fwd_speedup, 26 status
	echo "$row" | awk -F, -v p="$m,$n,$d,$b,$meas" '{ printf "%s,%s,%s\n", p, $21, $26 }' >>"$out"
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
