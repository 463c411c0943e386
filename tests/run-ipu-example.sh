#!/bin/sh
# examples/ipu-popsparse: rerun t6.sh and t7.sh and compare their CSV files
# with the committed ones (every point is a regression test); then check the
# acceptance of the IPU model on the tables: within 2x of every T6 entry,
# static above dynamic, 16 x 16 blocks above element-wise, FP32 above FP16
# (as measured), and T7's signs (speedup grows with m and b, falls with d).
srcdir=${srcdir:-.}
FIBERLOOP=${FIBERLOOP:-$PWD/fiberloop}
export FIBERLOOP
ex=$srcdir/examples/ipu-popsparse
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

sh "$ex/t6.sh" "$tmp/t6.csv" >"$tmp/t6.md" || { echo "FAIL: t6.sh"; exit 1; }
sh "$ex/t7.sh" "$tmp/t7.csv" >"$tmp/t7.md" || { echo "FAIL: t7.sh"; exit 1; }
for t in t6 t7; do
	if ! diff -u "$ex/$t.csv" "$tmp/$t.csv"; then
		echo "FAIL: $t.csv differs from the committed one"
		fail=1
	fi
done
# | data | block | sparsity | published | model | ratio | ...
awk -F'|' 'NR > 2 {
		gsub(/ /, ""); k = $2 "," $3 "," $4; m[k] = $6 + 0; r = $7 + 0
		if (r < 0.5 || r > 2) { print "FAIL: " k " is " r " x the published speedup"; bad = 1 }
	}
	END {
		split("FP16 FP32", ds, " "); split("16 1", bs, " "); split("static dynamic", ss, " ")
		for (i = 1; i <= 2; i++) for (j = 1; j <= 2; j++) {
			if (!(m[ds[i] "," bs[j] ",static"] > m[ds[i] "," bs[j] ",dynamic"])) {
				print "FAIL: static not above dynamic for " ds[i] " b" bs[j]; bad = 1 }
			if (!(m[ds[i] ",16," ss[j]] > m[ds[i] ",1," ss[j]])) {
				print "FAIL: b16 not above b1 for " ds[i] " " ss[j]; bad = 1 }
			if (!(m["FP32," bs[i] "," ss[j]] > m["FP16," bs[i] "," ss[j]])) {
				print "FAIL: FP32 not above FP16 for b" bs[i] " " ss[j]; bad = 1 }
		}
		exit bad
	}' "$tmp/t6.md" || fail=1
grep '^| model |' "$tmp/t7.md" | awk -F'|' '{ if (!($4 > 0 && $5 < 0 && $6 > 0)) {
		print "FAIL: T7 signs: m " $4 ", d " $5 ", b " $6; exit 1 } }' || fail=1
[ $fail = 0 ] && echo "PASS: ipu-popsparse (T6 $(($(wc -l <"$tmp/t6.csv") - 1)) points, T7 $(($(wc -l <"$tmp/t7.csv") - 1)))"
exit $fail
