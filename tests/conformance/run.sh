#!/bin/sh
# Conformance against Timeloop/Sparseloop: for every case of the corpus, run
# 'fiberloop model input.yaml map.yaml ERT.yaml [ART.yaml] -o DIR' (the ART
# when the case has one), turn our stats.txt and the reference
# (ref-head.stats.txt when present, else ref.stats.txt) into field lists,
# and compare them field by field. The map.txt is compared line by line too.
# A mismatch fails, except for the cases listed in expected-failures.txt
# (which must only shrink: a listed case that passes fails the run too, so
# that it gets removed).
srcdir=${srcdir:-.}
data=${TEST_DATA_DIR:-$srcdir/tests/data}/conformance
here=$srcdir/tests/conformance
fl=${FIBERLOOP:-./fiberloop}
xfail_file=$here/expected-failures.txt
vdiff_file=$here/version-differences.txt

[ -d "$data" ] || { echo "no conformance corpus at $data"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# version_filter CASE: the lines of version-differences.txt for CASE as
# "KEY-REGEX" lines (empty when the case has none).
version_filter() {
	[ -f "$vdiff_file" ] || return 0
	while IFS='	' read -r pat re why; do
		case $pat in '#'*|'') continue ;; esac
		# shellcheck disable=SC2254
		case $1 in $pat) printf '%s\n' "$re" ;; esac
	done <"$vdiff_file"
}

expected_failure() {
	[ -f "$xfail_file" ] && awk -v c="$1" '$1 == c { f = 1 } END { exit !f }' "$xfail_file"
}

status=0
for dir in "$data"/*/; do
	case=$(basename "$dir")
	[ -f "$dir/input.yaml" ] || continue
	ref=$dir/ref.stats.txt
	[ -f "$dir/ref-head.stats.txt" ] && ref=$dir/ref-head.stats.txt
	out=$tmp/$case
	set -- "$dir/input.yaml" "$dir/map.yaml" "$dir/ERT.yaml"
	[ -f "$dir/ART.yaml" ] && set -- "$@" "$dir/ART.yaml"
	if ! "$fl" model "$@" -o "$out" >"$tmp/stdout" 2>"$tmp/stderr"; then
		result="model failed: $(head -3 "$tmp/stderr" | tr '\n' ' ')"
		ok=no
	else
		awk -f "$here/fields.awk" "$ref" >"$tmp/ref.fields"
		awk -f "$here/fields.awk" "$out/fiberloop-model.stats.txt" >"$tmp/our.fields"
		awk 'FNR == NR { print "map:" FNR "\t" $0; next }' "$dir/ref.map.txt" \
			>>"$tmp/ref.fields"
		awk '{ print "map:" FNR "\t" $0 }' "$out/fiberloop-model.map.txt" \
			>>"$tmp/our.fields"
		# An older release's reference: leave out the fields it prints
		# differently (version-differences.txt gives each reason).
		version_filter "$case" >"$tmp/vdiff"
		left_out=""
		if [ -s "$tmp/vdiff" ]; then
			n0=$(wc -l <"$tmp/ref.fields")
			awk -F '\t' 'FNR == NR { re[++n] = $0; next }
				{ for (i = 1; i <= n; i++) if ($1 ~ re[i]) next; print }' \
				"$tmp/vdiff" "$tmp/ref.fields" >"$tmp/ref.kept"
			mv "$tmp/ref.kept" "$tmp/ref.fields"
			left_out=" ($((n0 - $(wc -l <"$tmp/ref.fields"))) fields of an older release left out: version-differences.txt)"
		fi
		if awk -f "$here/compare.awk" "$tmp/ref.fields" "$tmp/our.fields" >"$tmp/cmp"; then
			ok=yes
		else
			ok=no
		fi
		result=$(tail -1 "$tmp/cmp")$left_out
	fi
	if expected_failure "$case"; then
		if [ $ok = yes ]; then
			echo "$case: $result (XPASS: remove it from expected-failures.txt)"
			status=1
		else
			echo "$case: $result (expected failure)"
		fi
	else
		echo "$case: $result"
		if [ $ok = no ]; then
			[ -f "$tmp/cmp" ] && sed '$d' "$tmp/cmp"
			status=1
		fi
	fi
	rm -f "$tmp/cmp"
done
exit $status
