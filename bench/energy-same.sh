#!/bin/sh
# energy-same.sh OLD NEW [CONFORMANCE-DIR]: do two fiberloop binaries estimate the same tables?
#
# For every conformance case whose design the estimator prices (fiberloop energy succeeds),
# compares, byte for byte, what OLD and NEW write: `energy -o DIR` (ERT.yaml, ERT_summary.yaml,
# ART.yaml, ART_summary.yaml) and, when the case has a mapping, `model ... --format json` with
# the estimated tables. Written for speed work on the estimator (issue 21's SRAM search), which
# must not change a single figure. Exit 0 when all agree, 1 at the first difference.
set -u
old=$1 new=$2
dir=${3:-$(dirname "$0")/../tests/data/conformance}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for case in "$dir"/*/; do
	case=${case%/}
	name=$(basename "$case")
	[ -f "$case/input.yaml" ] || continue
	for bin in old new; do
		eval "exe=\$$bin"
		mkdir -p "$tmp/$bin/$name"
		"$exe" energy "$case/input.yaml" -o "$tmp/$bin/$name" >"$tmp/$bin/$name/stdout" 2>&1
		echo "rc=$?" >>"$tmp/$bin/$name/stdout"
		if [ -f "$case/map.yaml" ]; then
			"$exe" model "$case/input.yaml" "$case/map.yaml" --format json \
				>"$tmp/$bin/$name/model.json" 2>"$tmp/$bin/$name/model.err"
			echo "rc=$?" >>"$tmp/$bin/$name/model.err"
		fi
	done
	grep -q '^rc=0$' "$tmp/old/$name/stdout" || continue   # not a design the estimator prices
	n=$((n + 1))
	if ! diff -r "$tmp/old/$name" "$tmp/new/$name" >"$tmp/diff" 2>&1; then
		echo "energy-same: $name differs:"; head -n 20 "$tmp/diff"; bad=1
	else
		echo "energy-same: $name: same ($(ls "$tmp/new/$name" | tr '\n' ' '))"
	fi
done
echo "energy-same: $n estimated cases compared"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
