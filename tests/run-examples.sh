#!/bin/sh
# Examples are regression tests: for every examples/<name>/ holding 'args'
# and 'expected.txt', run 'fiberloop $(cat args)' in that directory and
# compare its standard output with expected.txt.
srcdir=${srcdir:-.}
fl=${FIBERLOOP:-$PWD/fiberloop}
status=0
found=0
for dir in "$srcdir"/examples/*/; do
	[ -f "$dir/args" ] && [ -f "$dir/expected.txt" ] || continue
	found=1
	name=$(basename "$dir")
	out=$(cd "$dir" && "$fl" $(cat args) 2>&1)
	if printf '%s\n' "$out" | diff -u "$dir/expected.txt" - >/dev/null; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		printf '%s\n' "$out" | diff -u "$dir/expected.txt" - | head -20
		status=1
	fi
done
[ $found = 1 ] || { echo "no examples found"; exit 77; }
exit $status
