#!/bin/sh
# The bad-input corpus: for every tests/data/specs/bad/<name>.expected, run
# 'fiberloop check' on <name>.yaml (or on the files listed in <name>.args),
# or the command line of <name>.cmd (after 'fiberloop', read by the shell:
# quotes work, and $tmp is an empty directory for outputs), from inside that
# directory, and require exit status 1, nothing on stdout and exactly the
# expected diagnostics on stderr. Every expected line must be located,
# "file:line:col: error|warning|note: ..." (a command-line operand that
# cannot be opened, "FILE: error: cannot open 'FILE'", has no line), and the
# corpus must hold at least 100 cases.
srcdir=${srcdir:-.}
FIBERLOOP=${FIBERLOOP:-./fiberloop}
case $FIBERLOOP in /*) ;; *) FIBERLOOP=$(pwd)/$FIBERLOOP ;; esac
dir=${TEST_DATA_DIR:-$srcdir/tests/data}/specs/bad
cd "$dir" || exit 99

out=$(mktemp) || exit 99
err=$(mktemp) || exit 99
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$out" "$err" "$tmp"' EXIT
fail=0
n=0
for exp in *.expected; do
	name=${exp%.expected}
	if [ -f "$name.cmd" ]; then
		eval "set -- $(cat "$name.cmd")"
	elif [ -f "$name.args" ]; then
		# shellcheck disable=SC2046
		set -- check $(cat "$name.args")
	else
		set -- check "$name.yaml"
	fi
	n=$((n + 1))
	"$FIBERLOOP" "$@" >"$out" 2>"$err"
	rc=$?
	if [ $rc -ne 1 ]; then
		echo "FAIL $name: exit status $rc, expected 1"
		fail=1
	fi
	if [ -s "$out" ]; then
		echo "FAIL $name: wrote to stdout"
		fail=1
	fi
	if ! diff -u "$exp" "$err"; then
		echo "FAIL $name: diagnostics differ (above: - expected, + got)"
		fail=1
	fi
	if grep -v -E "^.+:[0-9]+:[0-9]+: (error|warning|note): " "$exp" |
		grep -v -E "^([^:]+): error: cannot open '\1': "; then
		echo "FAIL $name: the diagnostics above are not located"
		fail=1
	fi
done
echo "$n bad specs checked"
[ $n -gt 0 ] || exit 99
[ $n -ge 100 ] || { echo "FAIL: only $n cases (the corpus keeps at least 100)"; fail=1; }
exit $fail
