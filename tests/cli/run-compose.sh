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

# examples/sparsetir-hyb/gt2mtx.py (graphs.sh's converter of graph-tool's collection): an
# undirected 3-vertex path 0-1-2 written in the gt format (magic, version 1, little-endian, a
# comment, undirected, N = 3, each vertex's neighbour count and one-byte neighbours, as
# graph-tool stores each edge once) becomes the symmetric 3 x 3 adjacency of 4 entries
python3 - "$tmp/path.gt" <<'PY' || fail "could not write the gt file"
import struct, sys
d = b"\xe2\x9b\xbe gt\x01\x00" + struct.pack("<Q", 4) + b"test" + b"\x00" + struct.pack("<Q", 3)
for nb in ([1], [2], []):
    d += struct.pack("<Q", len(nb)) + bytes(nb)
open(sys.argv[1], "wb").write(d)
PY
srcdir=${srcdir:-.}
python3 "$srcdir/examples/sparsetir-hyb/gt2mtx.py" "$tmp/path.gt" "$tmp/path.mtx" ||
	fail "gt2mtx.py exited $?"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 1\n2 3\n3 2\n' >"$tmp/want.mtx"
cmp -s "$tmp/path.mtx" "$tmp/want.mtx" || { fail "gt2mtx.py: the path graph's matrix"; cat "$tmp/path.mtx"; }
printf 'composable:\n  matrix: path.mtx\n  op: sddmm\n  features: 2\n  hyb: {column_parts: 1, buckets: 1}\n' \
	>"$tmp/path.yaml"
"$FIBERLOOP" compose "$tmp/path.yaml" >"$tmp/out" 2>"$tmp/err" || { fail "path.yaml exited $?"; cat "$tmp/err"; }
grep -q '^matrix 3 x 3, 4 non-zeros; SDDMM with 2 features' "$tmp/out" || { fail "path.yaml: header"; cat "$tmp/out"; }
grep -q 'every output equal to A\[i, j\] \* X\[i, :\] . Y\[j, :\]' "$tmp/out" || fail "path.yaml: executor"
exit $status
