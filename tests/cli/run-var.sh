#!/bin/sh
# --var NAME=VALUE: the Jinja2 variables of Timeloop's template entry points,
# on the command line. Every example design loads through top.yaml.jinja2
# with 'fiberloop check --var architecture=NAME', and a missing variable or a
# malformed one is a clear error. Skipped when Jinja2 cannot run.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
E=$TEST_DATA_DIR/exercises/example_designs/example_designs
top=$E/top.yaml.jinja2
command -v "${FIBERLOOP_PYTHON:-python3}" >/dev/null 2>&1 &&
	"${FIBERLOOP_PYTHON:-python3}" -c 'import jinja2' 2>/dev/null ||
	{ echo "skip: python3 with jinja2 is not installed (apt-get install python3-jinja2)"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
n=0
for d in "$E"/*/ "$E"/sparseloop/*/; do
	name=${d%/}
	name=${name#"$E"/}
	[ -f "$d/arch.yaml" ] || continue
	n=$((n + 1))
	if ! "$FIBERLOOP" check --var "architecture=$name" "$top" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: check --var architecture=$name:"; head -3 "$tmp/err"; status=1
	elif ! grep -q '^Architecture (v0.4 node list)' "$tmp/out"; then
		echo "FAIL: $name: not loaded as a node list"; status=1
	fi
done
[ $n -ge 16 ] || { echo "FAIL: only $n designs found"; status=1; }
# --var=NAME=VALUE works as --var NAME VALUE does, and the variable is used
"$FIBERLOOP" check --var=architecture=simba_like "$top" 2>/dev/null | grep -q '] PEWeightBuffer: ' ||
	{ echo "FAIL: --var=architecture=simba_like did not pick simba_like"; status=1; }
# a template whose variable is not given: a located error, exit 1
"$FIBERLOOP" check "$top" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: a missing variable exits $rc"; status=1; }
grep -q "top.yaml.jinja2:20:36: error: .*'architecture' is undefined" "$tmp/err" ||
	{ echo "FAIL: a missing variable:"; cat "$tmp/err"; status=1; }
# a malformed --var is a usage error, as a malformed --tensor or --set
for o in var tensor set; do
	"$FIBERLOOP" check --$o architecture "$top" >/dev/null 2>"$tmp/err"
	[ $? = 2 ] || { echo "FAIL: a malformed --$o is not a usage error"; status=1; }
	grep -q "^fiberloop check: '--$o' needs [A-Z]*=[A-Z]*, got 'architecture'$" "$tmp/err" ||
		{ echo "FAIL: a malformed --$o:"; cat "$tmp/err"; status=1; }
done
echo "$n designs loaded through top.yaml.jinja2"
exit $status
