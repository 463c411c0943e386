#!/bin/sh
# The fast nest analysis against the walk on real designs: with
# FIBERLOOP_NEST=check every mapping the fast path takes is walked too, and
# the program stops (BUG, exit 134) at the first nest record in which they
# differ. Covered: the reference mapping of every conformance case, short
# searches of three cases with a mapspace, and resnet18 layers on the
# exercises' eyeriss_like (most of their convolutions' mappings have link
# transfers between PEs; skipped without Python 3 and Jinja2). And
# FIBERLOOP_NEST=walk gives what the fast path gives (three cases).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
C=$TEST_DATA_DIR/conformance
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
search="--search-size 24 --streams 4 --refine 0 --threads 1"

n=0
for d in "$C"/*/; do
	[ -f "$d/map.yaml" ] || continue
	files="$d/input.yaml $d/map.yaml $d/ERT.yaml"
	[ -f "$d/ART.yaml" ] && files="$files $d/ART.yaml"
	# shellcheck disable=SC2086
	FIBERLOOP_NEST=check "$FIBERLOOP" model $files >"$tmp/check" 2>"$tmp/err" ||
		fail "$d: exit $?: $(tail -3 "$tmp/err")"
	case $d in
	*/eyeriss_like/ | */simba_like/ | */tutorial2024-dse/)
		# shellcheck disable=SC2086
		FIBERLOOP_NEST=walk "$FIBERLOOP" model $files >"$tmp/walk" 2>/dev/null
		cmp -s "$tmp/check" "$tmp/walk" || fail "$d: the walk's result differs";;
	esac
	n=$((n + 1))
done
[ "$n" -ge 20 ] || fail "only $n conformance cases"

for c in eyeriss_like simba_like 04.2.2-eyeriss-like-gating-mapspace-search; do
	d=$C/$c
	# shellcheck disable=SC2086
	FIBERLOOP_NEST=check "$FIBERLOOP" map "$d/input.yaml" "$d/constraints.yaml" "$d/ERT.yaml" \
		$search -o "$tmp/$c" >/dev/null 2>"$tmp/err" || fail "map $c: exit $?: $(tail -3 "$tmp/err")"
done

FIBERLOOP_NEST=wlak "$FIBERLOOP" model "$C/eyeriss_like/input.yaml" "$C/eyeriss_like/map.yaml" \
	"$C/eyeriss_like/ERT.yaml" >/dev/null 2>"$tmp/err" && fail "FIBERLOOP_NEST=wlak accepted"
grep -q "FIBERLOOP_NEST='wlak': expected 'walk' or 'check'" "$tmp/err" ||
	fail "FIBERLOOP_NEST=wlak: $(cat "$tmp/err")"

if python3 -c 'import jinja2' 2>/dev/null; then
	E=$TEST_DATA_DIR/exercises/example_designs
	L=$E/layer_shapes/resnet18
	# shellcheck disable=SC2086
	FIBERLOOP_NEST=check "$FIBERLOOP" map --energy accelergy45 "$E/example_designs/eyeriss_like/arch.yaml" \
		"$E/example_designs/_include/mapper.yaml" $search --layers "$L/00.yaml" \
		--layers "$L/07.yaml" >/dev/null 2>"$tmp/err" ||
		fail "map --layers: exit $?: $(tail -3 "$tmp/err")"
else
	echo "note: no Python 3 with Jinja2: the network layers are not checked"
fi
exit $status
