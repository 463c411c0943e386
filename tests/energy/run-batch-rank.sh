#!/bin/sh
# fiberloop batch on the four dense example designs of the conformance
# corpus, each with its reference mapping and no ERT/ART (every component
# estimated): ranked by energy they come in Timeloop's order (ref.stats.txt:
# eyeriss_like 59.28 uJ < simple_output_stationary 118.46 < simple_weight_
# stationary 151.67 < simba_like 239.15), and each row's energy is within
# 3% of Timeloop's. The first line of a design's report names the source of
# each level's energy.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
c=$TEST_DATA_DIR/conformance

{
	echo "jobs:"
	for d in simba_like simple_weight_stationary eyeriss_like simple_output_stationary; do
		echo "  - {name: $d, command: model, files: [$c/$d/input.yaml, $c/$d/map.yaml]}"
	done
} >"$tmp/jobs.yaml"
"$FIBERLOOP" batch "$tmp/jobs.yaml" --db "$tmp/r.db" --metric energy --format csv \
	>"$tmp/rank.csv" 2>"$tmp/err" || fail "batch exits $?: $(cat "$tmp/err")"
[ "$(cut -d, -f2 "$tmp/rank.csv" | sed -n '2,5p' | tr '\n' ' ')" = \
	"eyeriss_like simple_output_stationary simple_weight_stationary simba_like " ] ||
	fail "the ranking: $(cat "$tmp/rank.csv")"
"$FIBERLOOP" results "$tmp/r.db" --format csv --columns name,energy_pj >"$tmp/e.csv"
awk -F, 'BEGIN { ref["eyeriss_like"] = 59.28e6; ref["simple_output_stationary"] = 118.46e6
		 ref["simple_weight_stationary"] = 151.67e6; ref["simba_like"] = 239.15e6 }
	$1 in ref { n++; d = ($2 - ref[$1]) / ref[$1]; if (d < 0) d = -d; if (d > 0.03) bad = bad " " $1 }
	END { if (bad != "" || n != 4) { print "off by more than 3%:" bad; exit 1 } }' "$tmp/e.csv" ||
	fail "energies: $(cat "$tmp/e.csv")"

# the report's first line: every level's source
"$FIBERLOOP" model "$c/eyeriss_like/input.yaml" "$c/eyeriss_like/map.yaml" >"$tmp/out" 2>&1 ||
	fail "model exits $?: $(cat "$tmp/out")"
head -1 "$tmp/out" | grep -q '^Energy: .*, source estimate: DRAM shared_glb ifmap_spad weights_spad psum_spad mac$' ||
	fail "first line: $(head -1 "$tmp/out")"
exit $status
