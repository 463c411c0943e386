#!/bin/sh
# examples/format-sweep: rerun sweep.sh and compare its CSV with the
# committed one (every point of the sweep is a regression test).
srcdir=${srcdir:-.}
FIBERLOOP=${FIBERLOOP:-$PWD/fiberloop}
export FIBERLOOP
ex=$srcdir/examples/format-sweep
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
sh "$ex/sweep.sh" "$tmp/sweep.csv" >"$tmp/table.md" || { echo "FAIL: sweep.sh"; exit 1; }
if diff -u "$ex/sweep.csv" "$tmp/sweep.csv"; then
	echo "PASS: format-sweep ($(($(wc -l <"$tmp/sweep.csv") - 1)) points)"
else
	echo "FAIL: format-sweep differs from the committed sweep.csv"
	exit 1
fi
grep -q '| 0.8 | .* | bitmask | [0-9]* | [0-9]* | bitmask |' "$tmp/table.md" ||
	{ echo "FAIL: the table"; exit 1; }
