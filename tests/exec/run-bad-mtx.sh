#!/bin/sh
# Malformed tensor files (tests/data/mtx/bad): each gets exactly the located
# diagnostics of its .expected file (every line "file:line:col: ..."), exit
# status 1, and nothing is written.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
design=../../conformance/02.2.1-spMspM
tmp=$(mktemp -d) || exit 99
status=0
n=0
cd "$TEST_DATA_DIR/mtx/bad" || exit 99
for f in *.mtx *.txt; do
	exp=${f%.*}.expected
	"$FIBERLOOP" exec --tensor "A=$f" -o "$tmp/out" "$design/input.yaml" "$design/map.yaml" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		echo "$f: exit status $rc, expected 1"
		status=1
	fi
	if ! cmp -s "$exp" "$tmp/err"; then
		echo "$f: diagnostics differ from $exp:"
		diff "$exp" "$tmp/err"
		status=1
	fi
	if grep -v -E "^.+:[0-9]+:[0-9]+: (error|warning|note): " "$exp"; then
		echo "$f: the diagnostics above are not located"
		status=1
	fi
	if [ -e "$tmp/out" ]; then
		echo "$f: something was written to -o"
		rm -rf "$tmp/out"
		status=1
	fi
	n=$((n + 1))
done
rm -rf "$tmp"
echo "$n malformed tensor files checked"
exit $status
