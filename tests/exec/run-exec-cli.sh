#!/bin/sh
# 'fiberloop exec' and 'fiberloop validate' end to end: the stats.txt written
# by exec -o holds Timeloop's counts for a dense design (every count field the
# two files share is equal), the JSON is there, a bad option is a usage
# error, and validate finds the model and the executor equal on dense designs
# and within tolerance on sparse ones (model vs executor, 30 seeds).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
C=$TEST_DATA_DIR/conformance
tmp=$(mktemp -d) || exit 99
status=0
fail() { echo "FAIL: $*"; status=1; }

# Count fields "Label : integer" per level and tensor, as "level|tensor|label value".
fields() {
	awk '/^=== /{ lvl=$2; t=""; next }
	     /^    [A-Za-z_]+:$/ { t=$1; next }
	     / : [0-9]+$/ { lab=$0; sub(/ *:.*/, "", lab); sub(/^ */, "", lab); gsub(/ /, "_", lab);
			    print lvl "|" t "|" lab " " $NF }' "$1" | sort
}

for c in 01.2.1-DUDU-dot-product simple_weight_stationary; do
	if ! "$FIBERLOOP" exec -o "$tmp/$c" "$C/$c/input.yaml" "$C/$c/map.yaml" >"$tmp/out" 2>&1; then
		fail "$c: exec failed"; cat "$tmp/out"; continue
	fi
	[ -s "$tmp/$c/fiberloop-exec.stats.json" ] || fail "$c: no JSON written"
	grep -q '"fiberloop_exec_version": 1' "$tmp/$c/fiberloop-exec.stats.json" ||
		fail "$c: JSON without its version"
	fields "$tmp/$c/fiberloop-exec.stats.txt" >"$tmp/mine"
	fields "$C/$c/ref.stats.txt" >"$tmp/ref"
	shared=$(join -o 1.2,2.2 "$tmp/mine" "$tmp/ref" | wc -l)
	differ=$(join -o 1.1,1.2,2.2 "$tmp/mine" "$tmp/ref" | awk '$2 != $3' | wc -l)
	[ "$shared" -ge 10 ] || fail "$c: only $shared fields shared with the reference"
	if [ "$differ" -ne 0 ]; then
		fail "$c: $differ of $shared fields differ from Timeloop:"
		join -o 1.1,1.2,2.2 "$tmp/mine" "$tmp/ref" | awk '$2 != $3'
	fi
	echo "$c: $shared fields equal to Timeloop's"
	if ! "$FIBERLOOP" validate "$C/$c/input.yaml" "$C/$c/map.yaml" >"$tmp/val" 2>&1; then
		fail "$c: validate found differences"; grep OUTSIDE "$tmp/val"
	fi
	grep -q ' 0 outside tolerance' "$tmp/val" || fail "$c: validate summary missing"
done

# Sparse designs: the model within tolerance of the executor's 30-seed means.
for c in 01.2.3-SCDU-dot-product 02.2.1-spMspM 03.2.3-conv1d+oc-spatial; do
	if ! "$FIBERLOOP" validate "$C/$c/input.yaml" "$C/$c/map.yaml" >"$tmp/val" 2>&1; then
		fail "$c: the model departs from the executor:"; grep OUTSIDE "$tmp/val"
	fi
done

"$FIBERLOOP" exec --format json "$C/01.2.1-DUDU-dot-product/input.yaml" \
	"$C/01.2.1-DUDU-dot-product/map.yaml" | head -1 | grep -q '^{$' || fail "--format json"
"$FIBERLOOP" exec --retention sideways "$C/01.2.1-DUDU-dot-product/input.yaml" 2>/dev/null
[ $? -eq 2 ] || fail "an unknown retention is not a usage error"
"$FIBERLOOP" validate --seeds 1 "$C/01.2.1-DUDU-dot-product/input.yaml" 2>/dev/null
[ $? -eq 2 ] || fail "--seeds 1 is not a usage error"
rm -rf "$tmp"
exit $status
