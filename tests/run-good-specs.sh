#!/bin/sh
# Good specs: for every tests/data/specs/good/<name>.args, run 'fiberloop
# check' on the listed files (from inside that directory) and require exit
# status 0, no diagnostics, stdout equal to <name>.expected, and valid JSON
# from '--format json' (checked with python3 when it is installed).
srcdir=${srcdir:-.}
FIBERLOOP=${FIBERLOOP:-./fiberloop}
case $FIBERLOOP in /*) ;; *) FIBERLOOP=$(pwd)/$FIBERLOOP ;; esac
dir=${TEST_DATA_DIR:-$srcdir/tests/data}/specs/good
cd "$dir" || exit 99

out=$(mktemp) || exit 99
err=$(mktemp) || exit 99
trap 'rm -f "$out" "$err"' EXIT
have_python=no
command -v python3 >/dev/null 2>&1 && have_python=yes
fail=0
n=0
for args_file in *.args; do
	name=${args_file%.args}
	args=$(cat "$args_file")
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$FIBERLOOP" check $args >"$out" 2>"$err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$err" ]; then
		echo "FAIL $name: exit status $rc, diagnostics:"
		cat "$err"
		fail=1
	fi
	if ! diff -u "$name.expected" "$out"; then
		echo "FAIL $name: output differs (above: - expected, + got)"
		fail=1
	fi
	# shellcheck disable=SC2086
	"$FIBERLOOP" check --format json $args >"$out" 2>"$err" || fail=1
	if [ $have_python = yes ] && ! python3 -m json.tool "$out" >/dev/null; then
		echo "FAIL $name: invalid JSON"
		fail=1
	fi
done
echo "$n good specs checked (JSON validated: $have_python)"
[ $n -gt 0 ] || exit 99
exit $fail
