#!/bin/sh
# Limits that hold (the robustness findings F1-F12 of issue 28): every size
# an input controls is refused with a located error, or bounded, before the
# work or memory it implies; concurrent writers of one new database both
# succeed; results print raw database bytes safely. Each case would fail
# without its fix (the finding it pins is named).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/dense-preset
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
design="$ex/arch.yaml $ex/problem.yaml $ex/map.yaml"

# F3: sweeps started together on a database that does not exist yet all succeed
# (the schema is checked and created inside one transaction, not before it)
for try in 1 2 3 4; do
	rm -f "$tmp"/f3.db*
	pids=
	for k in 1 2 3; do
		# shellcheck disable=SC2086
		"$FIBERLOOP" sweep $design --db "$tmp/f3.db" --command check -j1 \
			--axis "problem.instance.P=56,28,14" >"$tmp/f3.$k.out" 2>&1 &
		pids="$pids $!"
	done
	k=0
	for p in $pids; do
		k=$((k + 1))
		wait "$p" || fail "F3 try $try: sweep $k exits $?: $(cat "$tmp/f3.$k.out")"
	done
	n=$("$FIBERLOOP" results "$tmp/f3.db" --columns idx --format csv | wc -l)
	[ "$n" = 4 ] || fail "F3 try $try: $n lines of results, not a header and 3 rows"
done

exit $status
