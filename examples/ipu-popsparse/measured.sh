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
# About 30 s on one core.
# Usage: sh measured.sh [OUT.csv]   (FIBERLOOP=path/to/fiberloop to choose one)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/measured-static-model.csv}
fl=${FIBERLOOP:-fiberloop}

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
