#!/bin/sh
# Cascades of Einsums (--cascade, job/cascade.c, docs/workloads.md) on
# examples/cascade (SDDMM, then the sparse softmax's row max, exp, row sum
# and divide over a 16 x 16 mask with 4 non-zeros a row): the model's
# computes and the traffic of the intermediates between stages, the
# executor agreeing exactly with the model stage by stage, the mapper
# searching every stage, and the located errors of bad cascades.
: "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/cascade
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
ok() { echo "ok: $*"; }

# model: 512 SDDMM computes (64 non-zeros x K = 8, the rest skipped on the
# mask) and 64 for each softmax stage; P is written once per non-zero by
# the SDDMM and read once per non-zero by the row max and the exp, at DRAM.
"$FIBERLOOP" model "$ex/arch.yaml" --cascade "$ex/softmax.yaml" --energy accelergy45 >"$tmp/model" 2>&1 ||
	fail "model exit $?"
grep -q '^Computes: *2048 algorithmic, 512 actual' "$tmp/model" &&
	ok "SDDMM computes at the mask's non-zeros" || fail "SDDMM computes"
[ "$(grep -c '^Computes: *256 algorithmic, 64 actual' "$tmp/model")" -eq 4 ] &&
	ok "each softmax stage computes at the 64 non-zeros" || fail "softmax computes"
grep -q 'actual computes 768$' "$tmp/model" && ok "totals add the stages" || fail "totals"
for row in "P  *sddmm  *writes  *DRAM  *64.00  *81.00" "P  *rowmax  *reads  *DRAM  *64.00  *81.00" \
	"x  *rowmax  *writes  *DRAM  *16.00  *0.00" "x  *exp  *reads  *DRAM  *16.00" \
	"E  *exp  *writes  *DRAM  *64.00  *81.00" "s  *divide  *reads  *DRAM  *16.00"; do
	grep -q "^    $row" "$tmp/model" || fail "traffic row '$row'"
done
ok "intermediates written by one stage and read by the next at DRAM"

# validate: the executor's counts equal the model's, every stage (no tolerance)
"$FIBERLOOP" validate "$ex/arch.yaml" --cascade "$ex/softmax.yaml" --energy accelergy45 --tolerance 0 \
	--sigmas 0 >"$tmp/val" 2>&1 || fail "validate exit $?"
[ "$(grep -c ' fields compared, 0 outside tolerance' "$tmp/val")" -eq 5 ] &&
	ok "model = executor on the five stages" || { fail "validate"; cat "$tmp/val"; }

# map: every stage searched, five stages and the totals
"$FIBERLOOP" map "$ex/arch.yaml" --cascade "$ex/softmax.yaml" --energy accelergy45 >"$tmp/map" 2>&1 ||
	fail "map exit $?"
[ "$(grep -c '^== stage' "$tmp/map")" -eq 5 ] && grep -q '^Cascade totals' "$tmp/map" &&
	ok "map searches each stage" || fail "map"

# bad cascades: located errors, exit 1
cp -r "$ex" "$tmp/c"
expect_error() {   # expect_error NAME EXPECTED-LINE
	"$FIBERLOOP" model "$tmp/c/arch.yaml" --cascade "$tmp/c/softmax.yaml" --energy accelergy45 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$2" "$tmp/err"; then ok "$1"
	else fail "$1 (exit $rc)"; cat "$tmp/err"; fi
	rm -rf "$tmp/c"; cp -r "$ex" "$tmp/c"
}
sed -i 's/name: x,/name: m,/; s/target: x,/target: m,/; s/\[P, x, E\]/[P, m, E]/' "$tmp/c/stages/exp.yaml"
expect_error "a stage reads a tensor nobody writes" \
	"stages/exp.yaml:8:14: error: stage 'exp' reads tensor 'm', which no earlier stage writes and which is not an input of the cascade ($tmp/c/softmax.yaml); did you mean 'P'?"
sed -i 's/    M: 16/    M: 8/; s/factors: M16 N1/factors: M8 N1/' "$tmp/c/stages/divide.yaml"
expect_error "a shape mismatch" \
	"stages/divide.yaml:7:14: error: shape mismatch: stage 'divide' has tensor 'E' as 8 x 16, but the stage that writes it has it as 16 x 16"
sed -i 's/  structure:/  structur:/' "$tmp/c/softmax.yaml"
expect_error "a misspelt key" "softmax.yaml:7:3: error: in 'cascade': unknown key 'structur'; did you mean 'structure'?"
sed -i 's/{name: rowsum, file: stages\/rowsum.yaml}/{name: rowsum}/' "$tmp/c/softmax.yaml"
expect_error "a stage without its file" "softmax.yaml:12:5: error: in 'cascade.stages[3]': a stage needs its 'file'"
sed -i 's/  inputs: \[S, A, B\]/  inputs: [S, A]/' "$tmp/c/softmax.yaml"
expect_error "an input not declared" "stage 'sddmm' reads tensor 'B', which no earlier stage writes"
sed -i 's/{P: S, E: S, Y: S}/{P: Q, E: S, Y: S}/' "$tmp/c/softmax.yaml"
expect_error "a structure source nobody has" "error: 'P' keeps the non-zeros of 'Q', which no stage before 'sddmm' has"
"$FIBERLOOP" model "$ex/arch.yaml" --cascade "$tmp/none.yaml" --energy accelergy45 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q "none.yaml: error: cannot open" "$tmp/err" &&
	ok "a missing cascade file" || fail "a missing cascade file (exit $rc)"
exit $status
