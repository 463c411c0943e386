#!/bin/sh
# Model vs executor ('fiberloop validate': 30 seeds for sparse designs, one
# for deterministic ones) on the designs written for the executor's named
# formats, spatial skipping and link transfers (tests/data/exec/*.yaml) and
# on the examples that use them (format-sweep at two densities and
# tensor-core-2to4, with and without a register file that bypasses A, on 10
# seeds to keep make check fast; docs/executor.md gives the 30-seed runs),
# and on the N:M designs (the GPUs' fp16, int8 and tf32 tensor cores dense
# and N:M, the flexible N:M tensor core's 2:4, 2:6, 2:8, 1:4, RLE and
# dual-compressed variants), which must agree exactly. The fields outside
# tolerance must be exactly those listed in NAME.outside next to a design
# (docs/executor.md, section 5, explains each); a design without that file
# must agree everywhere.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
D=$TEST_DATA_DIR/exec
EX=$srcdir/examples
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
# Under the sanitizers (quickstart.sh sanitize sets FL_SANITIZED) each check runs fewer
# executor seeds (validate needs two): the same code, fewer executions under ASan's cost. The
# seeds are fixed (1, 2, ...), so a run with fewer is as repeatable as one with all.
# The checks that repeat one path on a second design (Fig. 1's second density) run once under
# them, and the 128 x 128 2:4 kernel's mapper search and 4-million-MAC execution (the longest
# check: its mapper and executor paths are the ones the other checks and run-map.sh run) is
# left to the plain suite. The int8 and tf32 blocks run on one GPU each (int8 on the A100,
# tf32 on the H100): the other GPU runs the same code on its own instruction shapes.
exact_seeds=3 seeds5=5 seeds10=10 fig1_densities="0.01 0.8" kernel_gpus="h100 a100"
int8_gpus="h100 a100" tf32_gpus="h100 a100"
[ -n "${FL_SANITIZED:-}" ] && exact_seeds=2 seeds5=3 seeds10=4 fig1_densities=0.01 kernel_gpus="" \
	int8_gpus=a100 tf32_gpus=h100

# check NAME EXPECTED-OUTSIDE-FILE VALIDATE-ARGS...
check() {
	name=$1 expected=$2
	shift 2
	"$FIBERLOOP" validate "$@" >"$tmp/out" 2>&1
	rc=$?
	if ! grep -q 'fields compared' "$tmp/out"; then
		echo "FAIL: $name: validate did not compare (exit $rc)"; cat "$tmp/out"
		status=1; return
	fi
	grep OUTSIDE "$tmp/out" | cut -c1-56 | sed 's/ *$//' | sort >"$tmp/got"
	if [ -n "$expected" ]; then
		grep -v '^#' "$expected" | sort >"$tmp/want"
	else
		: >"$tmp/want"
	fi
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL: $name: fields outside tolerance differ from the expected ones"
		diff "$tmp/want" "$tmp/got"
		grep OUTSIDE "$tmp/out"
		status=1; return
	fi
	[ -s "$tmp/want" ] && [ $rc -ne 1 ] && { echo "FAIL: $name: exit $rc"; status=1; return; }
	[ -s "$tmp/want" ] || [ $rc -eq 0 ] || { echo "FAIL: $name: exit $rc"; status=1; return; }
	echo "ok: $name ($(tail -1 "$tmp/out" | cut -d, -f1), $(wc -l <"$tmp/got") expected outside)"
}

for y in "$D"/*.yaml; do
	n=$(basename "$y" .yaml)
	o=$D/$n.outside
	[ -f "$o" ] || o=
	check "$n" "$o" "$y"
done

for d in 0.1 0.6; do
	sed "s/density: 0.1}/density: $d}/" "$EX/format-sweep/problem.yaml" >"$tmp/problem.yaml"
	for v in bitmask-gating coord-skipping; do
		check "format-sweep $v $d" "" --seeds $seeds10 "$EX/format-sweep/arch.yaml" "$tmp/problem.yaml" \
			"$EX/format-sweep/map.yaml" "$EX/format-sweep/$v.yaml"
	done
done

# Sparseloop's Fig. 1 bitmask design (three levels, gating; conformance corpus):
# the executor stores B at BackingStorage as UOP(N) UOP(K) B over one-element
# fibers and reads one bit per non-empty fiber, as the model and Sparseloop count
# (192 at density 0.01, 13120 at 0.8; docs/sparse.md, "Bitmask metadata").
for d in $fig1_densities; do
	F=$TEST_DATA_DIR/conformance/sparseloop-fig1-bitmask-$d
	check "Sparseloop fig1 bitmask $d" "" --seeds $seeds5 "$F/input.yaml" "$F/map.yaml" "$F/ERT.yaml"
done

T=$EX/tensor-core-2to4
check "tensor-core-2to4 dense" "" "$T/arch.yaml" "$T/problem.yaml" "$T/map-dense.yaml"
printf '%s\n' "SMEM B reads actual" "SMEM B reads skipped" >"$tmp/tc.outside"
check "tensor-core-2to4 2:4" "$tmp/tc.outside" --seeds $seeds10 "$T/arch.yaml" "$T/problem.yaml" \
	"$T/map-sparse.yaml" "$T/sparse.yaml"
printf '%s\n' "RF B reads actual" "RF B reads skipped" >"$tmp/tc-rf.outside"
check "tensor-core-2to4 2:4, RF bypassing A" "$tmp/tc-rf.outside" --seeds $seeds10 \
	"$TEST_DATA_DIR/model/tensor-core-2to4-rf.yaml" "$T/problem.yaml"

# The GPU designs (examples/h100, examples/a100) on a small fp16 GEMM, dense
# and with A pruned 2:4 by --prune (the executor prunes real values by
# magnitude, packs and unpacks them): exact on every count (no relative
# tolerance, no standard errors).
for g in h100 a100; do
	for v in dense sparse; do
		k=64 extra=
		[ $v = sparse ] && k=128 extra="$EX/$g/sparse-2to4.yaml --prune A=2:4:K"
		# shellcheck disable=SC2086
		check "$g $v GEMM 128 x 32 x $k" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
			"$EX/$g/arch.yaml" "$EX/$g/ERT.yaml" "$EX/$g/problem.yaml" \
			"$TEST_DATA_DIR/model/$g-gemm-small-$v.yaml" $extra --set problem.instance.M=128 \
			--set problem.instance.N=32 --set problem.instance.K=$k
	done
done

# The 2:4 kernel with PyTorch's CUTLASS tiling (GPU-DIR/constraints-cutlass-2to4.yaml):
# the mapper, held to it, must give 128 x 128 thread blocks of 2 x 2 warps of
# 4 x 8 mmas, 2 mma.sp of K per stage and no split-K, and its mapping two
# such blocks (M256 x N128 x K128) agrees exactly with the executor.
for g in $kernel_gpus; do
	set -- "$EX/$g/arch.yaml" "$EX/$g/ERT.yaml" "$EX/$g/problem.yaml" "$EX/$g/sparse-2to4.yaml" \
		--prune A=2:4:K --set problem.instance.M=256 --set problem.instance.N=128 \
		--set problem.instance.K=128
	if ! "$FIBERLOOP" map "$@" "$EX/$g/constraints-cutlass-2to4.yaml" "$EX/$g/mma-fp16-sparse.yaml" \
		"$EX/$g/mapper.yaml" --threads 1 -o "$tmp/lib-$g" >"$tmp/lib.out" 2>&1; then
		echo "FAIL: $g: map with constraints-cutlass-2to4.yaml"; cat "$tmp/lib.out"; status=1
		continue
	fi
	m=$tmp/lib-$g/fiberloop-mapper.map.yaml
	got=$(awk '/target:/ { t = $3 } /type:/ { y = $2 } /factors:/ { $1 = ""; print t, y $0 }' "$m" |
		grep -v '^HBM' | tr '\n' ';')
	want="TC spatial M16 N8 K4;TC temporal M1 N1 K8;RF temporal M4 N8 K1;SMEM spatial M2 N2 K1;"
	want="${want}SMEM temporal M1 N1 K2;L2 spatial M2 N1 K1;"
	[ $g = h100 ] && want=$(echo "$want" | sed 's/K4;TC temporal M1 N1 K8/K8;TC temporal M1 N1 K4/')
	case $got in
	"$want"*) ;;
	*) echo "FAIL: $g: the 128 x 128 kernel's factors"; echo " got: $got"; echo "want: $want"
		status=1 ;;
	esac
	check "$g 2:4 128 x 128 kernel GEMM 256 x 128 x 128" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
		"$@" "$m"
done

# The same blocks for int8 (2:4) and tf32 (1:2): the tensor core's two
# directives come from the design's mma-DTYPE[-sparse].yaml (the
# instruction's shape), the rest of the mapping is the fp16 one; K is four
# of the instruction's K (one RF, two SMEM and two L2 steps).
# with_mma MMA-FILE MAPPING OUT: the mapping with the tensor core's factors of MMA-FILE
with_mma() {
	sp=$(sed -n 's/.*target: TC, type: spatial, factors: \([^,]*\),.*/\1/p' "$1" | tr -d =)
	te=$(sed -n 's/.*target: TC, type: temporal, factors: \([^,]*\),.*/\1/p' "$1" | tr -d =)
	sed -e "s/\(target: TC, type: spatial, factors:\) [^,]*,/\1 $sp,/" \
		-e "s/\(target: TC, type: temporal, factors:\) [^,]*,/\1 $te,/" "$2" >"$3"
	ks=${sp##*K} kt=${te##*K}
	echo $((ks * kt * 4))
}
for g in h100 a100; do
	for dt in "int8 2 4 sparse-2to4" "tf32 1 2 sparse-1to2"; do
		# shellcheck disable=SC2086
		set -- $dt
		t=$1 n=$2 m=$3 sp=$4
		eval "gpus=\$${t}_gpus"
		case " $gpus " in *" $g "*) ;; *) continue ;; esac
		for v in dense sparse; do
			mma=$EX/$g/mma-$t.yaml extra=
			[ $v = sparse ] && mma=$EX/$g/mma-$t-sparse.yaml extra="$EX/$g/$sp.yaml --prune A=$n:$m:K"
			k=$(with_mma "$mma" "$TEST_DATA_DIR/model/$g-gemm-small-$v.yaml" "$tmp/map.yaml")
			# shellcheck disable=SC2086
			check "$g $t $v GEMM 128 x 32 x $k" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
				"$EX/$g/arch-$t.yaml" "$EX/$g/ERT-$t.yaml" "$EX/$g/problem.yaml" \
				"$tmp/map.yaml" $extra --set problem.instance.M=128 \
				--set problem.instance.N=32 --set problem.instance.K=$k
		done
	done
done

# The flexible sparse tensor core (examples/stc-flexible) with A pruned 2:8
# (K64 logical columns on 16 physical ones, B multicast over the 4
# sub-partitions and the 16 rows of each): exact on every count, SMEM's B
# reads included (a skip removes a multicast read only when every child it
# serves is idle).
S=$EX/stc-flexible
check "stc-flexible 2:8 GEMM 64 x 8 x 128" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
	"$S/arch.yaml" "$S/problem.yaml" "$TEST_DATA_DIR/model/stc-flexible-2to8.yaml" \
	--prune A=2:8:K --set problem.instance.M=64 --set problem.instance.N=8 \
	--set problem.instance.K=128 --set problem.instance.densities.B.density=1.0
# ... its other N:M (K16 x M / N logical columns, K two steps of them), the
# RLE-indexed variant and, with B at the layer's 0.44 in a bitmask at DRAM
# and SMEM, the dual-compressed one: exact too.
for nm in 2:4 2:6 1:4; do
	n=${nm%:*} m=${nm#*:}
	k=$((16 * m / n))
	sed -e "s/M16 N1 K64/M16 N1 K$k/" -e "s/'2:8'/'$nm'/g" \
		"$TEST_DATA_DIR/model/stc-flexible-2to8.yaml" >"$tmp/stc.yaml"
	check "stc-flexible $nm GEMM 64 x 8 x $((2 * k))" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
		"$S/arch.yaml" "$S/problem.yaml" "$tmp/stc.yaml" --prune A=$nm:K \
		--set problem.instance.M=64 --set problem.instance.N=8 \
		--set problem.instance.K=$((2 * k)) --set problem.instance.densities.B.density=1.0
done
rle="{name: A, format: RLE, metadata_word_bits: 3}"
sed "s/{name: A, format: '2:8'}/$rle/" "$TEST_DATA_DIR/model/stc-flexible-2to8.yaml" >"$tmp/rle.yaml"
check "stc-flexible-RLE 2:8 GEMM 64 x 8 x 128" "" --seeds $exact_seeds --tolerance 0 --sigmas 0 \
	"$S/arch.yaml" "$S/problem.yaml" "$tmp/rle.yaml" --prune A=2:8:K \
	--set problem.instance.M=64 --set problem.instance.N=8 \
	--set problem.instance.K=128 --set problem.instance.densities.B.density=1.0
sed "/name: \(DRAM\|SMEM\)$/{n;s/$rle]/$rle, {name: B, format: bitmask}]/;}" "$tmp/rle.yaml" \
	>"$tmp/dual.yaml"
[ "$(grep -c 'name: B, format: bitmask' "$tmp/dual.yaml")" = 2 ] ||
	{ echo "FAIL: could not make the dual-compressed design"; status=1; }
check "stc-flexible-dualCompress-RLE 2:8, B 0.44, GEMM 64 x 8 x 128" "" --seeds $exact_seeds --tolerance 0 \
	--sigmas 0 "$S/arch.yaml" "$S/problem.yaml" "$tmp/dual.yaml" --prune A=2:8:K \
	--set problem.instance.M=64 --set problem.instance.N=8 --set problem.instance.K=128
exit $status
