#!/bin/sh
# --prune and --roofline on the command line: a dense A pruned 2:4 along K
# gives the model exactly the output of the structured_nm design; the
# executor prunes, packs and unpacks real values and checks the product;
# --roofline adds the roofline to the summary and the JSON, takes no value,
# and belongs to model and map only; neither goes with map --layers.
: "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
T=$srcdir/examples/tensor-core-2to4
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

sed 's/      A: {distribution: structured_nm, n: 2, m: 4, dimension: K}/      A: 1.0/' \
	"$T/problem.yaml" >"$tmp/dense.yaml"
grep -q 'A: 1.0' "$tmp/dense.yaml" || fail "could not make the dense problem"

# the model sees the pruned tensor's structured_nm density
"$FIBERLOOP" model --energy accelergy45 "$T/arch.yaml" "$T/problem.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	>"$tmp/nm.out" 2>&1 || fail "model of the 2:4 design exits $?"
"$FIBERLOOP" model --energy accelergy45 "$T/arch.yaml" "$tmp/dense.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--prune A=2:4:K >"$tmp/pruned.out" 2>&1 || fail "model --prune exits $?"
cmp -s "$tmp/nm.out" "$tmp/pruned.out" || { fail "model --prune differs from structured_nm";
	diff "$tmp/nm.out" "$tmp/pruned.out"; }

# the executor prunes real values, packs them and checks the product
"$FIBERLOOP" exec "$T/arch.yaml" "$tmp/dense.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--prune A=2:4 >"$tmp/exec.out" 2>&1 || fail "exec --prune exits $?"
grep -q '^Pruned A: 2:4 along K by magnitude, 2048 of 4096 values kept (0 groups short of 2); packed as 2048 values + 2048 2-bit indices = 36864 of 65536 bits at 16-bit values (56.25% of dense); unpacked exactly$' \
	"$tmp/exec.out" || { fail "exec --prune: no pruning line"; cat "$tmp/exec.out"; }
grep -q '^Numeric check against the dense product of the pruned tensors: ok (4096 outputs)$' \
	"$tmp/exec.out" || fail "exec --prune: numeric check"
"$FIBERLOOP" exec "$T/arch.yaml" "$tmp/dense.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--prune A=2:4:K --format json >"$tmp/exec.json" 2>&1 || fail "exec --prune --format json exits $?"
grep -q '"pruned": \[' "$tmp/exec.json" && grep -q '"round_trip_ok": true' "$tmp/exec.json" ||
	fail "exec --prune: no pruned[] in the JSON"

# --roofline: summary and JSON
"$FIBERLOOP" model --energy accelergy45 "$T/arch.yaml" "$T/problem.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--roofline >"$tmp/rl.out" 2>&1 || fail "model --roofline exits $?"
head -n "$(wc -l <"$tmp/nm.out")" "$tmp/rl.out" | cmp -s - "$tmp/nm.out" ||
	fail "model --roofline changes the summary above the roofline"
grep -q '^    compute: 8192 cycles, 131072 actual computes  <- bound$' "$tmp/rl.out" &&
	grep -q '^Bound by: compute$' "$tmp/rl.out" || { fail "model --roofline"; cat "$tmp/rl.out"; }
"$FIBERLOOP" model --energy accelergy45 "$T/arch.yaml" "$T/problem.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--roofline --format json >"$tmp/rl.json" 2>&1 || fail "model --roofline --format json exits $?"
grep -q '"roofline": {' "$tmp/rl.json" || fail "model --roofline: no roofline in the JSON"
"$FIBERLOOP" model --energy accelergy45 "$T/arch.yaml" "$T/problem.yaml" "$T/map-sparse.yaml" "$T/sparse.yaml" \
	--format json >"$tmp/plain.json" 2>&1
grep -q '"roofline"' "$tmp/plain.json" && fail "model without --roofline writes a roofline"

# usage errors: exit 2
"$FIBERLOOP" model --roofline=yes "$T/arch.yaml" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "^fiberloop model: '--roofline' takes no value$" "$tmp/err" ||
	{ fail "--roofline=yes"; cat "$tmp/err"; }
"$FIBERLOOP" exec --roofline "$T/arch.yaml" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "^fiberloop exec: '--roofline' is not an option of 'exec' (it is one of 'model', 'map', 'sweep', 'batch')$" \
	"$tmp/err" || { fail "exec --roofline"; cat "$tmp/err"; }
# a network's layers replace the problem: neither goes with --layers
for opt in "--prune A=2:4:K" --roofline; do
	"$FIBERLOOP" map $opt --layers "$T/problem.yaml" "$T/arch.yaml" >"$tmp/out" 2>"$tmp/err"
	[ $? = 2 ] && grep -q "^fiberloop map: '${opt%% *}' does not go with --layers$" "$tmp/err" ||
		{ fail "map $opt --layers"; cat "$tmp/err"; }
done
exit $status
