#!/bin/sh
# 'fiberloop compose' (docs/composable.md): a good file prints every part's
# counts, the executor agreeing with the model and the search's choice (exit
# 0); parts that leave a gap of row lengths, column ranges that overlap and a
# misspelt key are located errors (file:line:col, key path, hint; exit 1); a
# missing matrix is named where the file names it.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
D=$TEST_DATA_DIR/compose
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$FIBERLOOP" compose "$D/coo.yaml" >"$tmp/out" 2>"$tmp/err" || { fail "coo.yaml exited $?"; cat "$tmp/err"; }
grep -q '^executor: every count of every part equal to the model' "$tmp/out" || fail "coo: executor"
grep -E -q '^singles \[0,512\) +coo ' "$tmp/out" || fail "coo: the COO part's row"
grep -q '^best decomposition: ' "$tmp/out" || fail "coo: search"

check_err() { # FILE EXPECTED-TEXT
	"$FIBERLOOP" compose "$D/$1" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st = 1 ] || fail "$1: exit $st, expected 1"
	grep -F -q -- "$2" "$tmp/err" || { fail "$1: expected '$2'"; cat "$tmp/err"; }
}
check_err gap.yaml "gap.yaml:6:7: error: in 'composable.parts[1]': no part holds the rows of length 3..3 in columns [0, 512) (hint: start this part at min_length 3)"
check_err overlap.yaml "overlap.yaml:6:7: error: in 'composable.parts[1]': columns [256, 512) overlap composable.parts[0]'s [0, 300)"
check_err typo.yaml "typo.yaml:3:3: error: in 'composable': unknown key 'featurs'; did you mean 'features'?"
sed 's/power-law.mtx/missing.mtx/' "$D/coo.yaml" >"$tmp/missing.yaml"
"$FIBERLOOP" compose "$tmp/missing.yaml" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "missing matrix: exit"
grep -q "missing.yaml:2:11" "$tmp/err" || { fail "missing matrix: location"; cat "$tmp/err"; }
exit $status
