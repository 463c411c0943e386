#!/bin/sh
# The conformance comparison is not vacuous: fields.awk finds the fields of a
# stats.txt and compare.awk fails on any count off by one, a 2-decimal value
# off by more than its last digit, or a missing field, and accepts a value
# within its printed precision.
srcdir=${srcdir:-.}
here=$srcdir/tests/conformance
ref=${TEST_DATA_DIR:-$srcdir/tests/data}/conformance/simple_weight_stationary/ref.stats.txt
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

expect() {   # expect STATUS DESCRIPTION SED-SCRIPT
	sed "$3" "$ref" >"$tmp/ours.txt"
	awk -f "$here/fields.awk" "$ref" >"$tmp/a"
	awk -f "$here/fields.awk" "$tmp/ours.txt" >"$tmp/b"
	awk -f "$here/compare.awk" "$tmp/a" "$tmp/b" >"$tmp/out"
	st=$?
	if [ "$st" -eq "$1" ]; then echo "ok: $2"; else echo "FAIL: $2"; cat "$tmp/out"; fail=1; fi
}

n=$(awk -f "$here/fields.awk" "$ref" | wc -l)
if [ "$n" -ge 390 ]; then echo "ok: $n fields found"; else echo "FAIL: only $n fields"; fail=1; fi
awk -f "$here/fields.awk" "$ref" | grep -q '^levels/shared_glb/Inputs/Scalar fills (per-instance)	151875$' &&
	echo "ok: keys carry level and tensor" || { echo "FAIL: keys"; fail=1; }
expect 0 "identical files match" 's/x/x/'
expect 1 "a count off by one fails" 's/: 151875$/: 151876/'
expect 1 "an energy off by 0.02 fails" 's/: 22925078.11 pJ/: 22925078.13 pJ/'
expect 0 "an energy off by one last digit passes" 's/: 22925078.11 pJ/: 22925078.12 pJ/'
expect 1 "a missing field fails" '/Temporal reductions (per-instance)/d'
expect 1 "a summary value off fails" 's/^Cycles: 903168$/Cycles: 903169/'
expect 1 "an fJ/Compute entry off fails" 's/= 6712.38$/= 6712.48/'
expect 1 "a wrong EDP exponent fails" 's/1.37e+02/1.37e+03/'

# The Sparseloop 2022 references (version-differences.txt) are compared on every
# count and energy of their storage levels' tensors: Sparseloop reads the bitmask
# metadata of B at BackingStorage once per non-zero (1664 = 0.1015625 x 16384 at
# density 0.1), and the left-out patterns match no field of a tensor at BackingStorage
# or Buffer but the printing-only ones (bandwidth breakdown, distribution name).
fig1=${TEST_DATA_DIR:-$srcdir/tests/data}/conformance/sparseloop-fig1-bitmask-0.1/ref.stats.txt
awk -f "$here/fields.awk" "$fig1" >"$tmp/fig1"
grep -q '^levels/BackingStorage/B/Rank 0 (metadata, payload)#2	(1664,  0)$' "$tmp/fig1" &&
	echo "ok: fig1 bitmask B metadata reads at BackingStorage" ||
	{ echo "FAIL: fig1 B metadata field"; fail=1; }
grep -v '^#' "$here/version-differences.txt" | awk -F '\t' 'NF >= 3 { print $2 }' >"$tmp/res"
left=$(awk -F '\t' 'FNR == NR { re[++n] = $0; next }
	$1 ~ /^levels\/(BackingStorage|Buffer)\/[^\/]+\// && $1 !~ /\/(Breakdown|Tile density distribution)/ {
		for (i = 1; i <= n; i++) if ($1 ~ re[i]) { print $1; next } }' "$tmp/res" "$tmp/fig1" | wc -l)
if [ "$left" -eq 0 ]; then echo "ok: no tensor count of fig1's storage levels left out"
else echo "FAIL: $left tensor fields of fig1's storage levels left out"; fail=1; fi
exit $fail
