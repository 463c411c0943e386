#!/bin/sh
# Dense vs N:M on a GPU design for the GEMMs of real models: for every
# shape and batch the mapper finds the fastest dense kernel and the
# fastest sparse one (the weights A pruned N:M along K with --prune), and
# the table gives their cycles, time at the design's clock, what bounds
# each (compute or a level's bandwidth or fill latency: the roofline),
# the speedup and the energy ratio.
#
#   usage: speedup.sh GPU-DIR DTYPE [SHAPES]      e.g. speedup.sh ../h100 fp16
#
# DTYPE is fp16 (2:4), int8 (2:4) or tf32 (1:2). M (output features) is
# padded to the mma's m16 and N (tokens) to its n8: a GEMV (batch 1) runs
# as N = 8, its padding computed as zeros, as the hardware does. For fp16
# and int8 a third kernel is mapped: the 2:4 kernel with the fixed tiling
# of PyTorch's CUTLASS backend (GPU-DIR/constraints-cutlass-2to4.yaml:
# 128 x 128 thread blocks, no split-K), M and N padded to its 128 x 128
# tile as that kernel computes them. SHAPES is
# a file of "name M K" lines (default: the models below). The searches
# keep to the kernel structure of GPU-DIR/constraints.yaml with the
# settings of GPU-DIR/mapper.yaml (3000 mappings without improvement per
# stream, 32 streams, seed 1): the 64 searches of the default shapes take
# about 3 minutes on 2 cores, and the tables are the same on every run.
set -e
dir=${1:?GPU directory}
dtype=${2:-fp16}
shapes=${3:-}
FIBERLOOP=${FIBERLOOP:-$(dirname "$0")/../../_build/fiberloop}
case $dtype in
fp16) arch=arch.yaml ert=ERT.yaml nm=2:4 sp=sparse-2to4.yaml ;;
int8) arch=arch-int8.yaml ert=ERT-int8.yaml nm=2:4 sp=sparse-2to4.yaml ;;
tf32) arch=arch-tf32.yaml ert=ERT-tf32.yaml nm=1:2 sp=sparse-1to2.yaml ;;
*) echo "unknown dtype $dtype" >&2; exit 2 ;;
esac
clock_mhz=$(sed -n 's/.*Bandwidths are words per cycle at \([0-9]*\) MHz.*/\1/p' "$dir/arch.yaml")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$shapes" ]; then
	shapes=$tmp/shapes
	cat >"$shapes" <<'SHAPES'
BERT-large.attn-out 1024 1024
BERT-large.ffn1 4096 1024
BERT-large.ffn2 1024 4096
GPT-2-XL.ffn1 6400 1600
LLaMA-7B.qkvo 4096 4096
LLaMA-7B.up 11008 4096
LLaMA-7B.down 4096 11008
ResNet-50.fc 1000 2048
SHAPES
fi

# run NAME FILES...: map, and print "cycles energy_pj bound"
run() {
	name=$1
	shift
	"$FIBERLOOP" map "$@" --threads 2 --roofline -o "$tmp/$name" >"$tmp/$name.out" 2>&1 ||
		{ echo "fiberloop map failed for $name:" >&2; cat "$tmp/$name.out" >&2; exit 1; }
	cyc=$(sed -n 's/^  delay *\([0-9]*\) cycles/\1/p' "$tmp/$name.out")
	en=$(sed -n 's/^  energy *\([0-9.e+]*\) pJ/\1/p' "$tmp/$name.out")
	bound=$(sed -n 's/^Bound by: //p' "$tmp/$name.out")
	limit=$(sed -n 's/.* \([a-z]*\)  <- bound$/\1/p' "$tmp/$name.out" | head -1)
	[ "$bound" = compute ] || bound="$bound $limit"
	echo "$cyc $en $bound"
}

lib=$dir/constraints-cutlass-2to4.yaml
[ "$dtype" != tf32 ] && [ -f "$lib" ] || lib=
if [ -n "$lib" ]; then
	echo "| GEMM (M x K) | N | dense cycles | dense us | dense bound | $nm cycles | $nm us | $nm bound | speedup | energy $nm/dense | 128x128 $nm cycles | 128x128 bound | 128x128 speedup |"
	echo "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|"
else
	echo "| GEMM (M x K) | N | dense cycles | dense us | dense bound | $nm cycles | $nm us | $nm bound | speedup | energy $nm/dense |"
	echo "|---|---:|---:|---:|---|---:|---:|---|---:|---:|"
fi
while read -r name m k; do
	[ -n "$name" ] || continue
	mp=$(( (m + 15) / 16 * 16 ))
	for n in 1 16 256 4096; do
		np=$(( n < 8 ? 8 : (n + 7) / 8 * 8 ))
		set -- --set problem.instance.M=$mp --set problem.instance.N=$np --set problem.instance.K=$k
		d=$(run "$name-$n-d" "$dir/$arch" "$dir/$ert" "$dir/constraints.yaml" "$dir/mma-$dtype.yaml" \
			"$dir/problem.yaml" "$dir/mapper.yaml" "$@")
		s=$(run "$name-$n-s" "$dir/$arch" "$dir/$ert" "$dir/constraints.yaml" \
			"$dir/mma-$dtype-sparse.yaml" "$dir/$sp" "$dir/problem.yaml" "$dir/mapper.yaml" \
			--prune A=$nm:K "$@")
		l=
		if [ -n "$lib" ]; then
			set -- --set problem.instance.M=$(( (m + 127) / 128 * 128 )) \
				--set problem.instance.N=$(( (n + 127) / 128 * 128 )) --set problem.instance.K=$k
			l=$(run "$name-$n-l" "$dir/$arch" "$dir/$ert" "$lib" "$dir/mma-$dtype-sparse.yaml" \
				"$dir/$sp" "$dir/problem.yaml" "$dir/mapper.yaml" --prune A=$nm:K "$@")
		fi
		echo "$name $m $k $n $clock_mhz $d | $s | $l" | awk '{
			split($0, h, "|"); split(h[1], a, " "); split(h[2], b, " "); nl = split(h[3], c, " ")
			db = a[8]; for (i = 9; i <= length(a); i++) db = db " " a[i]
			sb = b[3]; for (i = 4; i <= length(b); i++) sb = sb " " b[i]
			printf "| %s (%d x %d) | %d | %d | %.2f | %s | %d | %.2f | %s | %.2fx | %.2f |",
				a[1], a[2], a[3], a[4], a[6], a[6] / a[5], db, b[1], b[1] / a[5], sb,
				a[6] / b[1], b[2] / a[7]
			if (nl) {
				lb = c[3]; for (i = 4; i <= nl; i++) lb = lb " " c[i]
				printf " %d | %s | %.2fx |", c[1], lb, a[6] / c[1]
			}
			printf "\n" }'
	done
done <"$shapes"
