#!/bin/sh
# Dense vs N:M on a GPU design for the GEMMs of real models: for every
# shape and batch the mapper finds the fastest dense kernel and the
# fastest sparse one (the weights A pruned N:M along K: a job's 'prune'),
# and the table gives their cycles, time at the design's clock, what bounds
# each (compute or a level's bandwidth or fill latency: the roofline's
# 'bound'), the speedup and the energy ratio.
#
#   usage: speedup.sh GPU-DIR DTYPE [SHAPES]      e.g. speedup.sh ../h100 fp16
#
# DTYPE is fp16 (2:4), int8 (2:4) or tf32 (1:2). M (output features) is
# padded to the mma's m16 and N (tokens) to its n8: a GEMV (batch 1) runs
# as N = 8, its padding computed as zeros, as the hardware does. For fp16
# and int8 a third kernel is mapped: the 2:4 kernel with the fixed tiling
# of PyTorch's CUTLASS backend (GPU-DIR/constraints-cutlass-2to4.yaml:
# 128 x 128 thread blocks, no split-K), M and N padded to its 128 x 128
# tile as that kernel computes them. SHAPES is a file of "name M K" lines
# (default: the models below). Every search is a job of one batch file
# (written here, run with 'fiberloop batch --roofline'); the table is read
# from the results database by column name ('fiberloop results --format
# csv --columns name,cycles,energy_pj,bound'). The searches keep to the
# kernel structure of GPU-DIR/constraints.yaml with the settings of
# GPU-DIR/mapper.yaml (3000 mappings without improvement per stream, 32
# streams, seed 1): the 96 searches of the default shapes take about 3
# minutes on 2 cores, and the tables are the same on every run.
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
dir=$(cd "$dir" && pwd)
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
lib=$dir/constraints-cutlass-2to4.yaml
[ "$dtype" != tf32 ] && [ -f "$lib" ] || lib=

# job NAME M N K PRUNE FILES...: one map job of the batch file
job() {
	printf '  - name: %s\n    command: map\n' "$1"
	printf '    set: {problem.instance.M: %s, problem.instance.N: %s, problem.instance.K: %s}\n' \
		"$2" "$3" "$4"
	[ -z "$5" ] || printf '    prune: [%s]\n' "$5"
	shift 5
	printf '    files: [%s]\n' "$(echo "$@" | sed 's/ /, /g')"
}

echo "jobs:" >"$tmp/jobs.yaml"
while read -r name m k; do
	[ -n "$name" ] || continue
	mp=$(( (m + 15) / 16 * 16 ))
	for n in 1 16 256 4096; do
		np=$(( n < 8 ? 8 : (n + 7) / 8 * 8 ))
		job "$name/$n/d" $mp $np $k "" "$dir/$arch" "$dir/$ert" "$dir/constraints.yaml" \
			"$dir/mma-$dtype.yaml" "$dir/problem.yaml" "$dir/mapper.yaml"
		job "$name/$n/s" $mp $np $k "A=$nm:K" "$dir/$arch" "$dir/$ert" "$dir/constraints.yaml" \
			"$dir/mma-$dtype-sparse.yaml" "$dir/$sp" "$dir/problem.yaml" "$dir/mapper.yaml"
		[ -z "$lib" ] || job "$name/$n/l" $(( (m + 127) / 128 * 128 )) $(( (n + 127) / 128 * 128 )) \
			$k "A=$nm:K" "$dir/$arch" "$dir/$ert" "$lib" "$dir/mma-$dtype-sparse.yaml" \
			"$dir/$sp" "$dir/problem.yaml" "$dir/mapper.yaml"
	done
done <"$shapes" >>"$tmp/jobs.yaml"
"$FIBERLOOP" batch "$tmp/jobs.yaml" --db "$tmp/gpu.db" --roofline >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; exit 1; }
"$FIBERLOOP" results "$tmp/gpu.db" --where 'status!=ok' --columns name,status,error >"$tmp/bad"
[ "$(wc -l <"$tmp/bad")" -le 1 ] || { echo "searches that failed:" >&2; cat "$tmp/bad" >&2; exit 1; }

if [ -n "$lib" ]; then
	echo "| GEMM (M x K) | N | dense cycles | dense us | dense bound | $nm cycles | $nm us | $nm bound | speedup | energy $nm/dense | 128x128 $nm cycles | 128x128 bound | 128x128 speedup |"
	echo "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|"
else
	echo "| GEMM (M x K) | N | dense cycles | dense us | dense bound | $nm cycles | $nm us | $nm bound | speedup | energy $nm/dense |"
	echo "|---|---:|---:|---:|---|---:|---:|---|---:|---:|"
fi
# the rows by name ("SHAPE/N/d|s|l"), in the batch's order; the shapes give M and K
"$FIBERLOOP" results "$tmp/gpu.db" --format csv --columns name,cycles,energy_pj,bound |
	awk -F, -v clock=$clock_mhz -v shapes="$shapes" -v lib="$lib" '
	BEGIN { while ((getline l < shapes) > 0) { split(l, f, " "); if (f[1] != "") { M[f[1]] = f[2]; K[f[1]] = f[3] } } }
	NR == 1 { next }
	{ split($1, p, "/"); key = p[1] "/" p[2]; c[key, p[3]] = $2; e[key, p[3]] = $3; b[key, p[3]] = $4
	  if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, "/")
			printf "| %s (%d x %d) | %d | %d | %.2f | %s | %d | %.2f | %s | %.2fx | %.2f |", p[1],
				M[p[1]], K[p[1]], p[2], c[k, "d"], c[k, "d"] / clock, b[k, "d"], c[k, "s"],
				c[k, "s"] / clock, b[k, "s"], c[k, "d"] / c[k, "s"], e[k, "s"] / e[k, "d"]
			if (lib != "")
				printf " %d | %s | %.2fx |", c[k, "l"], b[k, "l"], c[k, "d"] / c[k, "l"]
			printf "\n"
		}
	}'
