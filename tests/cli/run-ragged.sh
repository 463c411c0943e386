#!/bin/sh
# Ragged workloads on the command line (tests/data/ragged/batched.yaml, four
# sequences of 5, 12, 16 and 1 tokens): 'model' and 'exec' print the same
# totals, 816 computes and W read 144 times from DRAM (6 DRAM tiles of S x 2
# halves of N x 12 words); 'map' with a small search keeps the batch loop
# outermost at DRAM and prints the ragged totals of its best mapping; JSON
# and validate say they do not handle ragged workloads yet (exit 1).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
D=$TEST_DATA_DIR/ragged
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$FIBERLOOP" model --energy accelergy45 "$D/batched.yaml" >"$tmp/model" 2>"$tmp/err" ||
	{ fail "model exited $?"; cat "$tmp/err"; }
"$FIBERLOOP" exec "$D/batched.yaml" >"$tmp/exec" 2>"$tmp/err" ||
	{ fail "exec exited $?"; cat "$tmp/err"; }
grep -q '^Computes: 816.00$' "$tmp/model" || fail "model: computes"
grep -q '^Computes: 816$' "$tmp/exec" || fail "exec: computes"
grep -q '^Extents run (S): 34$' "$tmp/exec" || fail "exec: 34 tokens"
grep -E -q '^DRAM +W +144.00 ' "$tmp/model" || fail "model: W from DRAM"
# the per level and tensor rows are the same
grep -E '^(DRAM|GLB|PE) ' "$tmp/model" >"$tmp/m.rows"
grep -E '^(DRAM|GLB|PE) ' "$tmp/exec" >"$tmp/e.rows"
[ "$(wc -l <"$tmp/m.rows")" -ge 8 ] || fail "model: too few rows"
cmp -s "$tmp/m.rows" "$tmp/e.rows" || { fail "model and exec rows differ"; diff "$tmp/m.rows" "$tmp/e.rows"; }

# the uniform lengths: expected computes 4 x 9.5 x 4 x 6
"$FIBERLOOP" model --energy accelergy45 "$D/uniform.yaml" 2>/dev/null |
	grep -q '^Computes: 912.00$' || fail "uniform: expected computes"

printf 'mapper: {search_size: 20, victory_condition: 5, num_threads: 1, timeout: 200}\n' \
	>"$tmp/mapper.yaml"
"$FIBERLOOP" map --energy accelergy45 "$D/batched.yaml" "$tmp/mapper.yaml" >"$tmp/map" 2>"$tmp/err" ||
	{ fail "map exited $?"; cat "$tmp/err"; }
grep -q '^Computes: 816.00$' "$tmp/map" || fail "map: computes"
grep -q '^Ragged: S by B: 4 listed extents in \[1, 16\]$' "$tmp/map" || fail "map: ragged line"

"$FIBERLOOP" model --energy accelergy45 --format json "$D/batched.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'text summary only' "$tmp/err" || fail "model --format json"
"$FIBERLOOP" validate "$D/batched.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'does not compare ragged' "$tmp/err" || fail "validate"
exit $status
