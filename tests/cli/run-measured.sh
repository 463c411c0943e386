#!/bin/sh
# examples/h100/measured.sh's row filter (MEASURED_ROWS): only the rows
# picked are rebuilt and counted, ids separated by commas or spaces; an id
# the CSV does not have is an error (exit 2) before any search. The
# fiberloop it runs is a stub (its map writes an empty mapping, its model
# prints a call of 10 us dense and 5 us with a 2:4 operand), so the test
# checks the script's selection and arithmetic, not the model, in well
# under a second.
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
	while [ $# -gt 0 ]; do
		[ "$1" = -o ] && { mkdir -p "$2"; echo "mapping: []" >"$2/fiberloop-mapper.map.yaml"; }
		shift
	done ;;
model)
	case " $* " in
	*sparse-2to4.yaml*) d=5 ;;
	*) d=10 ;;
	esac
	echo "Per call: 1 operator, device $d us and host 1 us (stub)" ;;
esac
STUB
chmod +x "$tmp/fiberloop"
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

exit $status
