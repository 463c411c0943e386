#!/bin/sh
# The Sparse-TPU commands end to end: 'fiberloop stpu' (and 'model') on an
# 'stpu' design, its three formats and -o file, 'exec' and 'validate' on it
# (the model and the simulation exact on every scheme), 'check', --set
# overrides and their errors, and what is refused: 'map' on an STPU design,
# 'stpu' on a design without one.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

cat >"$tmp/d.yaml" <<'YAML'
stpu:
  array: {rows: 8, cols: 8, dtype: int8}
  matrix: {rows: 45, cols: 37, density: 0.08, seed: 2}
YAML

"$FIBERLOOP" stpu "$tmp/d.yaml" >"$tmp/out" 2>&1 || fail "stpu exit $?"
grep -q '^  cycles  ' "$tmp/out" || fail "stpu: no cycles row"
grep -q '^Density-aware estimate (STPU-C0): ' "$tmp/out" || fail "stpu: no estimate"
"$FIBERLOOP" model "$tmp/d.yaml" >"$tmp/model" 2>&1 || fail "model exit $?"
cmp -s "$tmp/out" "$tmp/model" || fail "model and stpu differ on an STPU design"

"$FIBERLOOP" stpu --format csv "$tmp/d.yaml" >"$tmp/csv" || fail "csv exit $?"
[ "$(wc -l <"$tmp/csv")" -eq 2 ] || fail "csv: not a header and a row"
[ "$(head -1 "$tmp/csv" | tr ',' '\n' | wc -l)" -eq "$(tail -1 "$tmp/csv" | tr ',' '\n' | wc -l)" ] ||
	fail "csv: header and row widths differ"
"$FIBERLOOP" stpu --format json -o "$tmp/o" "$tmp/d.yaml" >"$tmp/json" || fail "json exit $?"
grep -q '"stpu_json_version": 1' "$tmp/json" || fail "json: no version"
cmp -s "$tmp/json" "$tmp/o/fiberloop-stpu.json" || fail "-o: the JSON file differs from stdout"

"$FIBERLOOP" validate "$tmp/d.yaml" >"$tmp/val" 2>&1 || fail "validate exit $?"
[ "$(grep -c '^    exact$' "$tmp/val")" -eq 4 ] || { fail "validate: not exact on every scheme"; cat "$tmp/val"; }
"$FIBERLOOP" exec --seed 7 "$tmp/d.yaml" >"$tmp/exec" 2>&1 || fail "exec exit $?"
grep -q '^  wrong outputs  *0  *0  *0  *0$' "$tmp/exec" || { fail "exec: wrong outputs"; cat "$tmp/exec"; }

"$FIBERLOOP" check "$tmp/d.yaml" >"$tmp/check" 2>&1 || fail "check exit $?"
grep -q '^  array: 8 x 8 PEs, int8$' "$tmp/check" || fail "check: no STPU design"

"$FIBERLOOP" stpu --set stpu.matrix.density=0.5 --format csv "$tmp/d.yaml" >"$tmp/set" ||
	fail "--set exit $?"
tail -1 "$tmp/set" | grep -q '^45,37,833,' || fail "--set: not 833 non-zeros (0.5 x 45 x 37)"
"$FIBERLOOP" stpu --set stpu.matrix.density=2 "$tmp/d.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "a density of 2 is not bad input"
grep -q "error: in 'stpu.matrix.density': expected a number in \[0, 1\], got '2'" "$tmp/err" ||
	{ fail "--set density 2: message"; cat "$tmp/err"; }

# a matrix file given with --set is read relative to the working directory
mkdir "$tmp/sub"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 1\n3 4\n' >"$tmp/sub/m.mtx"
(cd "$tmp" && "$FIBERLOOP" stpu --format csv --set 'stpu.matrix={file: sub/m.mtx}' d.yaml) \
	>"$tmp/file" 2>&1 || { fail "--set matrix file exit $?"; cat "$tmp/file"; }
tail -1 "$tmp/file" | grep -q '^3,4,2,' || fail "--set matrix file: not the 3 x 4 file"

"$FIBERLOOP" map "$tmp/d.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "map on an STPU design is not bad input"
grep -q "an STPU design has no mapping to search" "$tmp/err" || fail "map: message"
E=$TEST_DATA_DIR/conformance/simple_weight_stationary
"$FIBERLOOP" stpu "$E/input.yaml" "$E/map.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "stpu on a design without 'stpu' is not bad input"
grep -q "no 'stpu' design alone" "$tmp/err" || fail "stpu without a design: message"

[ $status -eq 0 ] && echo "stpu commands: ok"
exit $status
