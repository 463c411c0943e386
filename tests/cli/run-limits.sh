#!/bin/sh
# Limits that hold (the robustness findings F1-F12 of issue 28): every size
# an input controls is refused with a located error, or bounded, before the
# work or memory it implies; concurrent writers of one new database both
# succeed; results print raw database bytes safely. Each case would fail
# without its fix (the finding it pins is named).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/dense-preset
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
design="$ex/arch.yaml $ex/problem.yaml $ex/map.yaml"

# F3: sweeps started together on a database that does not exist yet all succeed
# (the schema is checked and created inside one transaction, not before it)
for try in 1 2 3 4; do
	rm -f "$tmp"/f3.db*
	pids=
	for k in 1 2 3; do
		# shellcheck disable=SC2086
		"$FIBERLOOP" sweep $design --db "$tmp/f3.db" --command check -j1 \
			--axis "problem.instance.P=56,28,14" >"$tmp/f3.$k.out" 2>&1 &
		pids="$pids $!"
	done
	k=0
	for p in $pids; do
		k=$((k + 1))
		# P=28 and 14 do not fit the mapping: rows with their errors, the sweep exits 1
		# (one or both: a sweep skips the points another one stored first)
		wait "$p" || grep -q '; [12] did not succeed$' "$tmp/f3.$k.out" ||
			fail "F3 try $try: sweep $k fails: $(cat "$tmp/f3.$k.out")"
	done
	n=$("$FIBERLOOP" results "$tmp/f3.db" --columns idx --format csv | wc -l)
	[ "$n" = 4 ] || fail "F3 try $try: $n lines of results, not a header and 3 rows"
done

# F4: axis names meet SQLite's column names, which ignore case
sweep1() { # DB AXIS...: a check sweep of the design
	db=$1
	shift
	for ax in "$@"; do set -- "$@" --axis "$ax"; shift; done
	# shellcheck disable=SC2086
	"$FIBERLOOP" sweep $design --db "$db" --command check "$@"
}
for name in Status ID KEY Energy_PJ; do
	sweep1 "$tmp/f4.db" "$name:problem.instance.P=56" >/dev/null 2>"$tmp/f4.err"
	rc=$?
	[ $rc = 1 ] || fail "F4 '$name': exit $rc, not 1"
	grep -q "the input '$name' has the name of a result column" "$tmp/f4.err" ||
		fail "F4 '$name': $(cat "$tmp/f4.err")"
done
rm -f "$tmp"/f4.db*
sweep1 "$tmp/f4.db" "width:problem.instance.P=56" >/dev/null 2>&1 || fail "F4: 'width' exits $?"
sweep1 "$tmp/f4.db" "Width:problem.instance.P=28,14" >/dev/null 2>"$tmp/f4.err" ||
	grep -q '; 2 did not succeed$' "$tmp/f4.err" ||   # P=28, 14: rows with their errors
	fail "F4: 'Width' after 'width' fails: $(cat "$tmp/f4.err")"
got=$("$FIBERLOOP" results "$tmp/f4.db" --columns run,width --format csv | tr '\n' ' ')
[ "$got" = "run,width 1,56 2,28 2,14 " ] || fail "F4: 'Width' rows in 'width': $got"
sweep1 "$tmp/f4b.db" "a:problem.instance.P=28" "A:problem.instance.C=2" >/dev/null 2>"$tmp/f4.err"
rc=$?
[ $rc = 1 ] && grep -q "two axes are named 'A', one database column" "$tmp/f4.err" ||
	fail "F4: axes 'a' and 'A': exit $rc, $(cat "$tmp/f4.err")"

# F8: an input file has a size limit, checked before it is read (a sparse file of 300 MiB)
truncate -s 300M "$tmp/huge.yaml"
"$FIBERLOOP" check "$tmp/huge.yaml" >/dev/null 2>"$tmp/f8.err"
rc=$?
[ $rc = 1 ] || fail "F8: exit $rc, not 1"
[ "$(cat "$tmp/f8.err")" = "$tmp/huge.yaml: error: '$tmp/huge.yaml' is larger than 256 MiB, the limit of an input file" ] ||
	fail "F8: $(cat "$tmp/f8.err")"

# F12: raw database bytes (from an axis value) never reach the output raw:
# JSON stays UTF-8 (U+FFFD), the table escapes ESC and BEL
sweep1 "$tmp/f12.db" "$(printf 'v:problem.instance.P=a\377b,\033[31mRED\007')" >/dev/null 2>&1
got=$("$FIBERLOOP" results "$tmp/f12.db" --columns v --format json | tr -d '\n')
[ "$got" = '[  {"v": "a\ufffdb"},  {"v": "\u001b[31mRED\u0007"}]' ] || fail "F12: JSON $got"
"$FIBERLOOP" results "$tmp/f12.db" --columns v,status >"$tmp/f12.txt"
tr -d '\033\007\377' <"$tmp/f12.txt" | cmp -s - "$tmp/f12.txt" || fail "F12: raw bytes in the table"
grep -q '^\\x1b\[31mRED\\x07 ' "$tmp/f12.txt" || fail "F12: table $(cat "$tmp/f12.txt")"

exit $status
