#!/bin/sh
# map --layers on the Timeloop exercises as users have them: layer shapes
# of resnet18 (Jinja2 templates with include_text() and '<<<' merges) on
# eyeriss_like (a v0.4 node list), a short search each: every layer a row,
# the identical ones mapped once, the totals the sums of the rows, and a
# layer the same as mapping the design with that layer's file as its
# problem. Skipped (77) without Python 3 and Jinja2.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
if ! python3 -c 'import jinja2' 2>/dev/null; then
	echo "SKIP: the exercises' templates need Python 3 and Jinja2 (python3-jinja2)"
	exit 77
fi
E=$TEST_DATA_DIR/exercises/example_designs
D=$E/example_designs
L=$E/layer_shapes/resnet18
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
search="--search-size 64 --refine 0"

# shellcheck disable=SC2086
"$FIBERLOOP" map --energy accelergy45 "$D/eyeriss_like/arch.yaml" "$D/_include/mapper.yaml" $search --format csv \
	--layers "$L/00.yaml" --layers "$L/01.yaml" --layers "$L/02.yaml" --layers "$L/20.yaml" \
	>"$tmp/net.csv" 2>"$tmp/err" || fail "map --layers exits $?: $(cat "$tmp/err")"
grep -q '^map: 3 distinct layers; 3 run' "$tmp/err" || fail "01 and 02 are one layer: $(cat "$tmp/err")"
[ "$(cut -d, -f1,2 "$tmp/net.csv" | tr '\n' ' ')" = "layer,status resnet18/00,ok resnet18/01,ok resnet18/02,ok resnet18/20,ok total,ok " ] ||
	fail "the rows: $(cat "$tmp/net.csv")"
[ "$(grep '^resnet18/01,' "$tmp/net.csv" | cut -d, -f3-)" = "$(grep '^resnet18/02,' "$tmp/net.csv" | cut -d, -f3-)" ] ||
	fail "identical layers differ"
awk -F, '$1 ~ /^resnet18/ { e += $3; c += $4; n += $8 } $1 == "total" { te = $3; tc = $4; tn = $8 }
	END { d = e - te; if (d < 0) d = -d; exit !(c == tc && n == tn && d <= 1e-9 * e) }' "$tmp/net.csv" ||
	fail "the totals are not the sums of the layers"
# layer 20 as the design's problem, mapped alone: the same row
# shellcheck disable=SC2086
"$FIBERLOOP" map --energy accelergy45 "$D/eyeriss_like/arch.yaml" "$D/_include/mapper.yaml" "$L/20.yaml" $search \
	--format csv -o "$tmp/one" 2>/dev/null | tail -1 | cut -d, -f2,3 >"$tmp/want"
grep '^resnet18/20,' "$tmp/net.csv" | cut -d, -f3,4 >"$tmp/got"
paste -d, "$tmp/want" "$tmp/got" | awk -F, '{ d = $1 - $3; if (d < 0) d = -d;
	exit !(NF == 4 && $2 == $4 && d <= 1e-6 * $1) }' ||
	fail "layer 20: map --layers $(cat "$tmp/got"), map $(cat "$tmp/want")"
exit $status
