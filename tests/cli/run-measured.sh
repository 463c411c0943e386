#!/bin/sh
# examples/h100/measured.sh's row filter (MEASURED_ROWS): only the rows
# picked are rebuilt and counted, ids separated by commas or spaces; an id
# the CSV does not have is an error (exit 2) before any search; a training
# step's GEMMs and per-call costs. The fiberloop it runs is a stub (its map
# writes an empty mapping and logs the GEMM's M K N, its model logs the
# per-call file it is given and prints a call of 10 us dense and 5 us with
# a 2:4 operand), so the test checks the script, not the model.
srcdir=${srcdir:-.}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
S=$srcdir/examples/h100/measured.sh

cat >"$tmp/fiberloop" <<'STUB'
#!/bin/sh
cmd=$1; shift
case $cmd in
map)
	echo "map $*" | sed 's/.*instance.M=\([0-9]*\).*instance.K=\([0-9]*\).*instance.N=\([0-9]*\).*/map \1 \2 \3/' \
		>>"$STUB_LOG"
	while [ $# -gt 0 ]; do
		[ "$1" = -o ] && { mkdir -p "$2"; echo "mapping: []" >"$2/fiberloop-mapper.map.yaml"; }
		shift
	done ;;
model)
	for f; do :; done
	cat "$f" >>"$STUB_LOG"
	case " $* " in
	*sparse-2to4.yaml*) d=5 ;;
	*) d=10 ;;
	esac
	echo "Per call: 1 operator, device $d us and host 1 us (stub)" ;;
esac
STUB
chmod +x "$tmp/fiberloop"
STUB_LOG=$tmp/log
export STUB_LOG
run() { FIBERLOOP=$tmp/fiberloop MEASURED_CACHE= sh "$S" "$srcdir/examples/a100"; }

MEASURED_ROWS="a2,a9" run >"$tmp/out" 2>"$tmp/err" || fail "a2,a9: exit $?: $(cat "$tmp/err")"
[ "$(grep -c '^| a' "$tmp/out")" = 2 ] || fail "a2,a9: rows $(grep '^| a' "$tmp/out")"
# 2.00x against 1.09x (0.55 of 1.835: out of 25%) and 1.62x (1.23: within)
grep -q '^| a2 | 1.09x | .* | 2.00x | 1.83 | no | yes |$' "$tmp/out" || fail "a2: $(cat "$tmp/out")"
grep -q '^| a9 | 1.62x | .* | 2.00x | 1.23 | yes | yes |$' "$tmp/out" || fail "a9: $(cat "$tmp/out")"
grep -qx '1 of 2 within 25% of the measured (0.75 to 1.25 times), 2 of 2 on the right side of 1.0' \
	"$tmp/out" || fail "a2,a9 count: $(tail -1 "$tmp/out")"

MEASURED_ROWS=" a14  a2 " run >"$tmp/out" 2>"$tmp/err" || fail "spaces: exit $?"
[ "$(grep '^| a' "$tmp/out" | cut -d'|' -f2 | tr -d ' \n')" = a2a14 ] ||
	fail "spaces: rows in the CSV's order: $(grep '^| a' "$tmp/out")"
grep -q '^| a14 | 0.111x | .* | 2.00x | 18.02 | no | no |$' "$tmp/out" || fail "a14: $(cat "$tmp/out")"

MEASURED_ROWS="a2,a99" run >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || fail "a99: exit $rc, expected 2"
grep -qx "measured.sh: MEASURED_ROWS: no row 'a99' in $srcdir/examples/a100/measured.csv" "$tmp/err" ||
	fail "a99: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "a99: output before the error: $(cat "$tmp/out")"

# A training step (a21: xFormers' w24, an MLP 2048 -> 6144 -> 2048 at 16384 tokens): the
# second layer is 6144 -> 2048 (its GEMMs 2048 x 6144 x 16384, 6144 x 2048 x 16384 and the
# weight gradient 2048 x 16384 x 6144); a layer's W^T written as stored once (9/8 bytes a
# weight: 9 * 2048 * 6144 / 8 = 14155776) and, w24 only, its weight gradient masked (4 bytes
# a weight: 50331648), in the 2:4 run only, once a layer.
: >"$STUB_LOG"
MEASURED_ROWS=a21 run >"$tmp/out" 2>"$tmp/err" || fail "a21: exit $?: $(cat "$tmp/err")"
for g in "2048 6144 16384" "6144 2048 16384" "2048 16384 6144"; do
	grep -qx "map $g" "$STUB_LOG" || fail "a21: no GEMM $g: $(grep '^map' "$STUB_LOG" | tr '\n' ';')"
done
grep -q '^map 6144 6144 ' "$STUB_LOG" && fail "a21: a 6144 x 6144 GEMM (the second layer as HID -> HID)"
[ "$(grep -c 'name: sparsify-transposed, bytes: 14155776,' "$STUB_LOG")" = 2 ] ||
	fail "a21: sparsify-transposed: $(grep sparsify-transposed "$STUB_LOG")"
[ "$(grep -c 'name: mask-weight-gradient, bytes: 50331648,' "$STUB_LOG")" = 2 ] ||
	fail "a21: mask-weight-gradient: $(grep mask-weight-gradient "$STUB_LOG")"
[ "$(grep -c 'compress: \[A\]' "$STUB_LOG")" = 2 ] || fail "a21: compressions: $(grep -c compress "$STUB_LOG")"
# torchao's SemiSparseLinear (a27, 1024 -> 4096): the gradient passes through
: >"$STUB_LOG"
MEASURED_ROWS=a27 run >"$tmp/out" 2>"$tmp/err" || fail "a27: exit $?: $(cat "$tmp/err")"
grep -q mask-weight-gradient "$STUB_LOG" && fail "a27: a masked gradient"
grep -q 'name: sparsify-transposed, bytes: 4718592,' "$STUB_LOG" ||
	fail "a27: sparsify-transposed: $(grep sparsify-transposed "$STUB_LOG")"

exit $status
