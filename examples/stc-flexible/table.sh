#!/bin/sh
# Sparseloop's STC case study (MICRO 2022, Fig. 15) on fiberloop: energy
# and cycles of six tensor-core designs against the dense tensor core, for
# weights (A) at densities 1.0, 0.5, 0.33 and 0.25 (N:M 2:4, 2:6, 2:8; 1:4
# as well), activations (B) at 0.44. The mapper finds each mapping.
#
#   usage: table.sh            (prints a markdown table; about a minute)
set -e
here=$(cd "$(dirname "$0")" && pwd)
FIBERLOOP=${FIBERLOOP:-$here/../../_build/fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sparse NAME A-FORMAT [B]: the optimizations of an STC design with A in
# A-FORMAT (2:4, RLE, ...) and, with B, B compressed as a bitmask too
sparse() {
	a="{name: A, format: '$2'}"
	if [ "$2" = RLE ]; then a="{name: A, format: RLE, metadata_word_bits: 3}"; fi
	b=
	if [ -n "$3" ]; then b=", {name: B, format: bitmask}"; fi
	cat >"$tmp/$1.yaml" <<YAML
sparse_optimizations:
  targets:
  - name: DRAM
    representation_format: {data_spaces: [$a$b]}
  - name: SMEM
    representation_format: {data_spaces: [$a$b]}
  - name: LRF
    representation_format: {data_spaces: [$a]}
  - name: RF
    action_optimization:
    - {type: skipping_spatial, target: B, condition_on: [A]}
    - {type: skipping_spatial, target: Z, condition_on: [A]}
YAML
}

# dualb: the dense tensor core with B compressed (dualCompress at dense weights)
cat >"$tmp/dualb.yaml" <<YAML
sparse_optimizations:
  targets:
  - name: DRAM
    representation_format: {data_spaces: [{name: B, format: bitmask}]}
  - name: SMEM
    representation_format: {data_spaces: [{name: B, format: bitmask}]}
YAML

# run FILES...: "energy_pj cycles" of the best mapping
run() {
	"$FIBERLOOP" map "$@" --threads 2 -o "$tmp/out" >"$tmp/log" 2>&1 ||
		{ echo "fiberloop map failed: $*" >&2; cat "$tmp/log" >&2; exit 1; }
	e=$(sed -n 's/^  energy *\([0-9.e+]*\) pJ/\1/p' "$tmp/log")
	c=$(sed -n 's/^  delay *\([0-9]*\) cycles/\1/p' "$tmp/log")
	echo "$e $c"
}

stc="$here/arch.yaml $here/constraints.yaml $here/problem.yaml"
dstc="$here/arch-dstc.yaml $here/constraints-dstc.yaml $here/problem.yaml $here/dstc.yaml"
base=$(run $stc "$here/pe-k16.yaml")
set -- $base
E0=$1 C0=$2

# row DESIGN WD NM CELL: one table cell "energy / cycles" normalized to the dense TC
cell() {
	echo "$1" | awk -v e0="$E0" -v c0="$C0" '{ printf "%.2f / %.2f", $1 / e0, $2 / c0 }'
}

echo "| design | weight density (N:M) | energy / TC | cycles / TC |"
echo "|---|---|---:|---:|"
for wd in "1.0 -" "0.5 2:4" "0.33 2:6" "0.25 2:8" "0.25 1:4"; do
	set -- $wd
	d=$1 nm=$2
	k=16 prune=
	if [ "$nm" != - ]; then k=$(( 16 * ${nm#*:} / ${nm%:*} )) prune="--prune A=$nm:K"; fi
	# TC: dense hardware, weights stored and computed dense
	tc=$(run $stc "$here/pe-k16.yaml")
	# STC: 2:4 only; sparser weights are stored as 2:4 with explicit zeros
	if [ "$nm" = - ]; then stc24=$tc; else
		sparse s24 2:4; stc24=$(run $stc "$here/pe-k32.yaml" "$tmp/s24.yaml" --prune A=2:4:K); fi
	# STC-flexible (N:M with ceil(log2 M)-bit indices), its RLE-indexed variant, and
	# the RLE variant with B compressed too
	if [ "$nm" = - ]; then flex=$tc; rle=$tc; dual=$(run $stc "$here/pe-k16.yaml" "$tmp/dualb.yaml"); else
		sparse sf "$nm"; flex=$(run $stc "$here/pe-k$k.yaml" "$tmp/sf.yaml" $prune)
		sparse sr RLE; rle=$(run $stc "$here/pe-k$k.yaml" "$tmp/sr.yaml" $prune)
		sparse sd RLE B; dual=$(run $stc "$here/pe-k$k.yaml" "$tmp/sd.yaml" $prune); fi
	ds=$(run $dstc $prune)
	for row in "TC=$tc" "STC (2:4 only)=$stc24" "STC-flexible=$flex" "STC-flexible-RLE=$rle" \
		   "STC-flexible-dualCompress-RLE=$dual" "DSTC=$ds"; do
		name=${row%%=*}
		v=${row#*=}
		echo "| $name | $d ($nm) | $(cell "$v" | sed 's| / | \| |') |"
	done
done
