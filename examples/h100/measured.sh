#!/bin/sh
# The public measured dense-to-2:4 speedups of a GPU beside the model's.
#
#   usage: measured.sh GPU-DIR [CSV]       e.g. measured.sh ../a100
#
# Every row of GPU-DIR/measured.csv (or CSV) is one published measurement
# (its source in the row): a kernel timed alone, a framework's call of a
# linear layer, a training step of linear layers that prunes and compresses
# the weights every step, or a whole model. The script rebuilds each from
# the model: the kernels' cycles (fiberloop map, the kernel kinds below),
# what every call costs beyond its kernel (the design's 'per_call' key:
# host operators, per-call setup, copies, compressions, the dense stages
# of a model: docs/model.md, "Per call") and, for a model, the sum over
# its layers of the device's and the host's time, the run taking the
# longer (asynchronous launches). Nothing is fitted to a measured speedup:
# the costs and their sources are in GPU-DIR/README.md ("Beside the
# measurements") and below.
#
# Kernel kinds (the GPU-DIR files that fix them):
#   cublas    the mapper's fastest kernel (constraints.yaml): cuBLAS
#   nosplitk  the fastest without split-K (constraints-nosplitk.yaml): a
#             library's tile list, CUTLASS's profiler, cuSPARSELt as PyTorch
#             calls it (split_k = 1)
#   cutlass   PyTorch's CUTLASS 2:4 kernel, 128 x 128 tiles for every shape
#             (constraints-cutlass-2to4.yaml; M and N padded to 128)
#   lib       nosplitk with A pruned 2:4 (CUTLASS's sparse list, as its
#             profiler runs it)
#   cslt      cuSPARSELt as PyTorch calls it (alg_id 0, split_k 1): its
#             kernels are not public; the 128 x 128 x 64 tile of CUTLASS's
#             sparse list without split-K stands for its default algorithm
#             (the kernel of 'cutlass', the tokens padded to 32 first)
#   mapper    cublas with A pruned 2:4
# Call kinds: kernel (the kernel alone), pytorch (F.linear, or a linear
# module calling a 2:4 backend's one operator: 1 operator),
# pytorch-2to4 (the semi-structured subclass: 10 operators), and
# pytorch-2to4-uncached (that, plus cuSPARSELt's descriptors and plan made
# and destroyed every call).
#
# Output: a markdown table (measured, model, model / measured) and the
# count within 25% and on the right side of 1.0; the rows to stdout.
# Each kernel's search (fiberloop map) runs once per data type, kind and
# shape and is kept in a cache, MEASURED_CACHE (default
# ~/.cache/fiberloop-measured; empty: none, the run's temporary directory
# only), under a checksum of the fiberloop binary and of GPU-DIR's YAML
# files: a rerun with neither changed reuses every search and takes
# seconds; a new binary or a changed design searches again. A full run of
# the A100's rows without the cache takes about 20 minutes on 2 cores.
#
# MEASURED_ROWS (default: all) picks rows by id, separated by spaces or
# commas ("a19,a20" or "a19 a20"): only those are rebuilt, so a change
# that moves a few rows is checked without the slow searches of the
# others (a26-a28 and a40: tens of minutes on loaded cores). The counts
# below the table are then over the rows picked; an id that is not in
# the CSV is an error (exit 2).
set -e
dir=${1:?GPU directory}
csv=${2:-$dir/measured.csv}
FIBERLOOP=${FIBERLOOP:-$(dirname "$0")/../../_build/fiberloop}
clock=$(sed -n 's/.*Bandwidths are words per cycle at \([0-9]*\) MHz.*/\1/p' "$dir/arch.yaml")
tmp=$(mktemp -d)
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
MEASURED_CACHE=${MEASURED_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/fiberloop-measured}
if [ -n "$MEASURED_CACHE" ]; then
	stamp=$(cat "$FIBERLOOP" "$dir"/*.yaml | cksum | cut -d' ' -f1)
	maps=$MEASURED_CACHE/$(basename "$(cd "$dir" && pwd)")-$stamp
else
	maps=$tmp/map
fi
mkdir -p "$maps"

# Host time of one framework operator: the fixed overhead of an eager
# PyTorch operator, 4.5 us ("Micro-optimizations for the most micro of
# benchmarks", dev-discuss.pytorch.org, 2023: add1 on a tensor in eager mode).
HOST_US=4.5
# Operators the semi-structured subclass dispatches for one linear layer
# (torch/sparse/_semi_structured_ops.py: linear, view, t, t, addmm, the
# padding check and pad, t, the library call, t, slice, view).
SUBCLASS_OPS=10
# cuSPARSELt's matmul descriptor and plan, made and destroyed on every call
# before PyTorch cached them: 460 us between kernel launches on an H100
# (pytorch/pytorch#177866, Nsight trace).
CSLT_SETUP_US=460

# ------------------------------------------------------------------ kernels

# arch, ERT and mma files of a data type
files() {
	case $1 in
	fp16|bf16) echo "$dir/arch.yaml $dir/ERT.yaml fp16" ;;
	int8|fp8) echo "$dir/arch-int8.yaml $dir/ERT-int8.yaml int8" ;;
	*) echo "unknown dtype $1" >&2; exit 2 ;;
	esac
}

# shape KIND M K N: the problem sizes the kernel runs (padded as it pads)
shape() {
	case $1 in
	cutlass|cslt) echo "$(( ($2 + 127) / 128 * 128 )) $3 $(( ($4 + 127) / 128 * 128 ))" ;;
	*) echo "$(( ($2 + 15) / 16 * 16 )) $3 $(( $4 < 8 ? 8 : ($4 + 7) / 8 * 8 ))" ;;
	esac
}

# kernel DTYPE KIND M K N: map once per (kind, shape); prints the key of
# $maps/KEY.{yaml,args}, the mapping and the model's arguments (the .args
# file written last, by a rename: its presence means the search is done)
kernel() {
	k=$2
	[ "$k" = cslt ] && k=cutlass                      # the same kernel (above)
	set -- "$1" "$k" $(shape "$k" "$3" "$4" "$5")
	key="$1-$2-$3-$4-$5"
	if [ ! -f "$maps/$key.args" ]; then
		set -- $(files "$1") "$2" "$3" "$4" "$5"
		arch=$1 ert=$2 mt=$3 kind=$4
		case $kind in
		cublas) c="$dir/constraints.yaml $dir/mma-$mt.yaml" s= ;;
		nosplitk) c="$dir/constraints-nosplitk.yaml $dir/mma-$mt.yaml" s= ;;
		cutlass|cslt) c="$dir/constraints-cutlass-2to4.yaml $dir/mma-$mt-sparse.yaml" s=1 ;;
		lib) c="$dir/constraints-nosplitk.yaml $dir/mma-$mt-sparse.yaml" s=1 ;;
		mapper) c="$dir/constraints.yaml $dir/mma-$mt-sparse.yaml" s=1 ;;
		*) echo "unknown kernel kind $kind" >&2; exit 2 ;;
		esac
		a="$arch $ert $dir/problem.yaml --set problem.instance.M=$5"
		a="$a --set problem.instance.K=$6 --set problem.instance.N=$7"
		[ -n "$s" ] && a="$a $dir/sparse-2to4.yaml --prune A=2:4:K"
		# shellcheck disable=SC2086
		nice "$FIBERLOOP" map $a $c "$dir/mapper.yaml" --threads 2 -o "$tmp/$key.d" \
			>"$tmp/$key.out" 2>&1 ||
			{ echo "fiberloop map failed for $key:" >&2; cat "$tmp/$key.out" >&2; exit 1; }
		cp "$tmp/$key.d/fiberloop-mapper.map.yaml" "$maps/$key.yaml"
		# GPU-DIR's files by name alone: the cache serves any checkout
		for f in $a; do
			case $f in "$dir"/*) printf '%s\n' "${f#"$dir"/}" ;; *) printf '%s\n' "$f" ;; esac
		done >"$maps/$key.args.tmp"
		mv "$maps/$key.args.tmp" "$maps/$key.args"
	fi
	echo "$key"
}

# percall FILE OPS SETUP_US [key: value lines...]: a per_call file
percall() {
	f=$1 ops=$2 setup=$3
	shift 3
	{
		echo "per_call:"
		echo "  clock_mhz: $clock"
		echo "  host_us: $HOST_US"
		echo "  ops: $ops"
		echo "  setup_us: $setup"
		for l in "$@"; do echo "  $l"; done
	} >"$f"
}

# call KEY PERCALL-FILE: "device_us host_us" of one call of kernel KEY
call() {
	# shellcheck disable=SC2046
	"$FIBERLOOP" model $(sed "/\.yaml$/s|^|$dir/|" "$maps/$1.args") "$maps/$1.yaml" "$2" \
		>"$tmp/call.out" 2>&1 ||
		{ echo "fiberloop model failed for $1:" >&2; cat "$tmp/call.out" >&2; exit 1; }
	sed -n 's/^Per call: .* device \([0-9.]*\) us and host \([0-9.]*\) us.*/\1 \2/p' "$tmp/call.out"
}

# gemm DTYPE KERNEL CALL M K N EXTRA_OPS [per_call lines...]: "device host"
# of a call, EXTRA_OPS more host operators riding on it
gemm() {
	dt=$1 kk=$2 cc=$3 m=$4 k=$5 n=$6 xo=$7
	shift 7
	case $kk in
	cutlass|cslt|lib|mapper) n=$(( (n + 31) / 32 * 32 )) ;;   # PyTorch pads the tokens to 32 for fp16
	esac
	key=$(kernel "$dt" "$kk" "$m" "$k" "$n")
	case $cc in
	kernel) ops=0 setup=0 ;;
	pytorch) ops=1 setup=0 ;;
	pytorch-2to4) ops=$SUBCLASS_OPS setup=0 ;;
	pytorch-2to4-uncached) ops=$SUBCLASS_OPS setup=$CSLT_SETUP_US ;;
	ops=*) ops=${cc#ops=} setup=0 ;;
	*) echo "unknown call kind $cc" >&2; exit 2 ;;
	esac
	percall "$tmp/pc.yaml" $((ops + xo)) "$setup" "$@"
	call "$key" "$tmp/pc.yaml"
	[ -n "$DEBUG" ] && { cat "$tmp/pc.yaml" >&2; grep -A8 "^Per call" "$tmp/call.out" >&2; } || true
}

# ---------------------------------------------------------- whole models
#
# A model is a list of lines "G DTYPE KERNEL CALL M K N COUNT EXTRA_OPS
# [per_call lines]" (COUNT calls of a GEMM a layer) that model_time LAYERS
# adds up: the device's and the host's time separately over all calls,
# the run taking the longer. A layer's dense stages and its operators
# other than the GEMMs ride on its first GEMM's call (EXTRA_OPS, 'stages').

model_time() {
	dev=0 host=0 layers=$1
	while read -r tag dt kk cc m k n count xo rest; do
		[ "$tag" = G ] || continue
		count=$((count * layers))
		# shellcheck disable=SC2086
		eval "set -- $rest"
		r=$(gemm "$dt" "$kk" "$cc" "$m" "$k" "$n" "$xo" "$@")
		dev=$(echo "$dev $r $count" | awk '{ printf "%.6f", $1 + $2 * $4 }')
		host=$(echo "$host $r $count" | awk '{ printf "%.6f", $1 + $3 * $4 }')
	done
	echo "$dev $host" | awk '{ printf "%.6f", ($1 > $2 ? $1 : $2) }'
}

# A stage line for per_call: NAME BYTES FLOPS [COUNT]
st() {
	printf "'  - {name: %s, bytes: %s, flops: %s, count: %s}'" "$1" "$2" "$3" "${4:-1}"
}

# BERT-base on SQuAD (the PyTorch semi-structured tutorial): 12 layers,
# hidden 768, 12 heads of 64, FFN 3072, sequences of 384, batch B. Dense:
# fp32 weights under autocast (every linear casts its weight, and its
# input where a fp32 LayerNorm feeds it; softmax and LayerNorm in fp32),
# cuBLAS. Sparse: fp16, every linear of the layers 2:4 (PyTorch's CUTLASS
# kernel). MODE eager: every operator dispatched (HF's BertLayer: 23
# besides the linears, 28 under autocast); compiled: the elementwise work
# fused (scale, mask and softmax one pass; residual and LayerNorm one),
# one host operator a kernel, the subclass traced away.
bert_base() {
	b=$1 mode=$2 run=$3
	t=$(( b * 384 )) d=768 f=3072 s=$(( b * 12 * 384 * 384 ))
	if [ "$run" = dense ]; then kk=cublas e=4 c=6; else kk=cutlass e=2 c=0; fi
	# compiled, the casts fuse into the kernels that produce their inputs
	# and the fused softmax writes fp16; only the weights' casts stay
	[ "$mode" = compiled ] && e=2
	attn_flops=$(( 2 * s * 64 ))
	if [ "$mode" = eager ]; then
		if [ "$run" = dense ]; then lin=ops=3 other=28; else lin=pytorch-2to4 other=23; fi
		stages="$(st scores $(( 4 * t * d + 2 * s )) $attn_flops) $(st scale $(( 4 * s )) 0) \
$(st mask $(( 4 * s )) 0) $(st softmax $(( (2 + e) * s )) 0) \
$(st context $(( 2 * s + 4 * t * d )) $attn_flops) $(st permute $(( 4 * t * d )) 0) \
$(st residual $(( (4 + e) * t * d )) 0 2) $(st layernorm $(( 2 * e * t * d )) 0 2) \
$(st gelu $(( 4 * t * f )) 0)"
	else
		if [ "$run" = dense ]; then lin=pytorch other=8; else lin=pytorch other=7; fi
		stages="$(st scores $(( 4 * t * d + 2 * s )) $attn_flops) \
$(st softmax $(( (2 + e) * s )) 0) $(st context $(( 2 * s + 4 * t * d )) $attn_flops) \
$(st residual-layernorm $(( (4 + 2 * e) * t * d )) 0 2) $(st gelu $(( 4 * t * f )) 0)"
	fi
	casts=
	[ $c -gt 0 ] && casts="$(st weight-casts $(( c * (4 * d * d + 2 * d * f) )) 0)"
	[ $c -gt 0 ] && [ "$mode" = eager ] && casts="$casts $(st input-casts $(( c * 4 * t * d )) 0)"
	echo "G fp16 $kk $lin $d $d $t 1 $other 'stages:' $stages $casts"
	echo "G fp16 $kk $lin $d $d $t 3 0"
	echo "G fp16 $kk $lin $f $d $t 1 0"
	echo "G fp16 $kk $lin $d $f $t 1 0"
}

# SAM's ViT-h image encoder (segment-anything-fast through torchao, bf16,
# torch.compile max-autotune: no host overhead): 32 blocks of width 1280,
# 16 heads of 80, MLP 5120, 64 x 64 = 4096 tokens an image, batch B. 28
# blocks attend within 14 x 14 windows (the grid padded to 70 x 70: 4900
# tokens an image through qkv and proj), 4 globally; attention runs
# flash-style (Q, K, V read, the output written; its flops at the tensor
# cores' peak). Dense, the compiler fuses GELU and the residual adds into
# the GEMMs' epilogues; it cannot fuse into the 2:4 matmul (torchao's
# README), so a sparse linear's epilogue is a pass of its own. WHICH is
# mlp (lin1, lin2 2:4) or all (qkv and proj too).
sam_vit_h() {
	b=$1 which=$2 run=$3 global=$4
	d=1280 f=5120 t=$(( b * 4096 ))
	if [ "$global" = 1 ]; then tw=$t; else tw=$(( b * 4900 )); fi
	if [ "$global" = 1 ]; then
		af=$(( 4 * b * 16 * 4096 * 4096 * 80 ))
	else
		af=$(( 4 * b * 25 * 16 * 196 * 196 * 80 ))
	fi
	ka=cublas km=cublas extra=
	if [ "$run" = sparse ]; then
		km=cslt extra="$(st gelu $(( 4 * t * f )) 0) $(st residual-mlp $(( 6 * t * d )) 0)"
		[ "$which" = all ] && ka=cslt extra="$extra $(st residual-attn $(( 6 * t * d )) 0) \
$(st qkv-heads $(( 4 * tw * 3 * d )) 0)"
	fi
	part=
	[ "$global" = 1 ] || part="$(st window-partition $(( 4 * tw * d )) 0 2)"
	stages="$(st layernorm $(( 4 * t * d )) 0 2) $(st attention $(( 8 * tw * d )) $af) $part $extra"
	echo "G bf16 $ka kernel $(( 3 * d )) $d $tw 1 0 'stages:' $stages"
	echo "G bf16 $ka kernel $d $d $tw 1 0"
	echo "G bf16 $km kernel $f $d $t 1 0"
	echo "G bf16 $km kernel $d $f $t 1 0"
}

# LLaMA decode, one token (batch 1) a step: q, k, v, o, gate, up, down of
# every layer, their 2:4 kernels as PyTorch calls cuSPARSELt (the token
# padded to 32, no split-K), the output head dense in both runs, run
# compiled with CUDA graphs (no host operators); attention reads a cache
# of 256 tokens. ARGS: the model (llama-7b, llama3-8b).
llama_decode() {
	name=$1 run=$2
	case $name in
	llama-7b) d=4096 kv=4096 f=11008 vocab=32000 ;;
	llama3-8b) d=4096 kv=1024 f=14336 vocab=128256 ;;
	esac
	k=cublas
	[ "$run" = sparse ] && k=cslt
	echo "G fp16 $k kernel $d $d 1 2 0 'stages:' $(st kv-cache $(( 2 * 2 * 256 * kv )) 0)"
	echo "G fp16 $k kernel $kv $d 1 2 0"
	echo "G fp16 $k kernel $f $d 1 2 0"
	echo "G fp16 $k kernel $d $f 1 1 0"
}

# Training a linear layer T x IN -> OUT forward and backward: Y = X W^T,
# dX = dY W, dW = dY^T X. Dense: three cuBLAS GEMMs. 2:4 with the weights
# pruned and compressed every step (xFormers' sparsify24, torchao's
# SemiSparseLinear): the forward and the input gradient on the compressed
# W and W^T (cuSPARSELt), the weight gradient dense. One kernel a step
# sparsifies W both ways (xFormers' sparse24_sparsify_both_ways, torchao's
# _sparse_semi_structured_tile: the packed W and W^T and their metadata
# from one read of W): the forward's call compresses W (reads it dense,
# writes it as stored) and the input gradient's writes W^T as stored
# once more (a stage of 9/8 bytes a weight: half the fp16 values and a
# 2-bit index for each, sparse-2to4.yaml). GRAD is what the backward does
# to the weight gradient: 'ste' passes it through (torchao's
# _SparsifyFunc.backward returns it as it comes), 'mask' masks it to the
# step's 2:4 pattern in a pass of its own (xFormers' benchmark_sp24
# LinearW24 sparsifies with gradient "24dense": _Sparsify24Func.backward
# runs sparse24_apply_dense_output, reading dW and writing it masked, 4
# bytes a weight). HID > 0: an MLP, IN -> HID -> OUT, GELU between
# (forward: read and write T x HID; backward: read two, write one).
train() {
	t=$1 in=$2 hid=$3 out=$4 run=$5 grad=$6
	if [ "$hid" -gt 0 ]; then
		train_linear $t $in $hid $run $grad \
			"$(st gelu-forward $(( 4 * t * hid )) 0) $(st gelu-backward $(( 6 * t * hid )) 0)"
		train_linear $t $hid $out $run $grad ""
	else
		train_linear $t $in $out $run $grad ""
	fi
}

# train_linear T IN OUT RUN GRAD STAGES: the GEMM lines of one linear layer.
# Its variables are its own (lt_*): train() still needs its IN, HID and
# OUT after the first layer's call (sh has no local variables).
train_linear() {
	lt_t=$1 lt_in=$2 lt_out=$3 lt_run=$4 lt_grad=$5 lt_more=$6
	[ -n "$lt_more" ] && lt_more="'stages:' $lt_more"
	if [ "$lt_run" = dense ]; then
		echo "G fp16 cublas pytorch $lt_out $lt_in $lt_t 1 0 $lt_more"
		echo "G fp16 cublas pytorch $lt_in $lt_out $lt_t 1 0"
		echo "G fp16 cublas pytorch $lt_out $lt_t $lt_in 1 0"
		return
	fi
	echo "G fp16 cslt pytorch-2to4 $lt_out $lt_in $lt_t 1 1 'compress: [A]' $lt_more"
	echo "G fp16 cslt pytorch-2to4 $lt_in $lt_out $lt_t 1 0 'stages:'" \
		"$(st sparsify-transposed $(( 9 * lt_in * lt_out / 8 )) 0)"
	if [ "$lt_grad" = mask ]; then
		echo "G fp16 cublas pytorch $lt_out $lt_t $lt_in 1 0 'stages:'" \
			"$(st mask-weight-gradient $(( 4 * lt_in * lt_out )) 0)"
	else
		echo "G fp16 cublas pytorch $lt_out $lt_t $lt_in 1 0"
	fi
}

# model NAME ARGS... RUN: the time of one run of a model
model() {
	case $1 in
	bert-base) bert_base "$2" "$3" "$4" | model_time 12 ;;
	sam-vit-h)
		a=$( sam_vit_h "$2" "$3" "$4" 0 | model_time 28 )
		g=$( sam_vit_h "$2" "$3" "$4" 1 | model_time 4 )
		echo "$a $g" | awk '{ printf "%.6f", $1 + $2 }' ;;
	llama-7b|llama3-8b)
		case $1 in llama-7b) l=32 v=32000 ;; *) l=32 v=128256 ;; esac
		a=$( llama_decode "$1" "$2" | model_time $l )
		h=$(gemm fp16 cublas kernel $v 4096 1 0 | awk '{ print $1 }')
		echo "$a $h" | awk '{ printf "%.6f", $1 + $2 }' ;;
	train) train "$2" "$3" "$4" "$5" "$6" ste | model_time 1 ;;
	train-w24) train "$2" "$3" "$4" "$5" "$6" mask | model_time 1 ;;
	*) echo "unknown model $1" >&2; exit 2 ;;
	esac
}

# ------------------------------------------------------------------ rows

# picked ID: is row ID among MEASURED_ROWS (all when unset or empty)?
rows=$(printf '%s' "${MEASURED_ROWS:-}" | tr ',' ' ')
for r in $rows; do
	cut -d'|' -f1 "$csv" | grep -qx "$r" ||
		{ echo "measured.sh: MEASURED_ROWS: no row '$r' in $csv" >&2; exit 2; }
done
picked() {
	[ -z "$rows" ] && return 0
	for r in $rows; do [ "$r" = "$1" ] && return 0; done
	return 1
}

echo "| # | measured | source | GPU, dtype | what | model | model / measured | within 25% | right side of 1 |"
echo "|---|---:|---|---|---|---:|---:|:---:|:---:|"
n=0 ok=0 side=0
while IFS='|' read -r id src dt kind what dense sparse meas note; do
	case $id in ''|'#'*|id) continue ;; esac
	picked "$id" || continue
	case $kind in
	gemm)
		set -- $what
		d=$(gemm "$dt" "${dense%%:*}" "${dense#*:}" "$1" "$2" "$3" 0 | awk '{ print ($1 > $2 ? $1 : $2) }')
		s=$(gemm "$dt" "${sparse%%:*}" "${sparse#*:}" "$1" "$2" "$3" 0 | awk '{ print ($1 > $2 ? $1 : $2) }')
		;;
	model)
		set -- $what
		d=$(model "$@" dense)
		s=$(model "$@" sparse)
		;;
	*) echo "unknown row kind $kind" >&2; exit 2 ;;
	esac
	m=$(echo "$d $s" | awk '{ printf "%.2f", $1 / $2 }')
	n=$((n + 1))
	set -- $(echo "$m $meas" | awk '{ r = $1 / $2; w = (r >= 0.75 && r <= 1.25); s = (($1 >= 1) == ($2 >= 1));
		printf "%.2f %d %d", r, w, s }')
	ok=$((ok + $2)) side=$((side + $3))
	w=no; [ "$2" = 1 ] && w=yes
	sd=no; [ "$3" = 1 ] && sd=yes
	echo "| $id | ${meas}x | $src | $dt | $note | ${m}x | $1 | $w | $sd |"
done <"$csv"
echo
echo "$ok of $n within 25% of the measured (0.75 to 1.25 times), $side of $n on the right side of 1.0"
