#!/bin/sh
# Real graphs from a Debian package, through the composable model: the network
# collection that python3-graph-tool ships (graph_tool/collection/*.gt.gz: power
# grid, co-authorship, e-mail, trust, Internet-router graphs), each converted
# to its symmetric adjacency matrix (gt2mtx.py) and given to 'fiberloop compose'
# as hyb(1, 4) for the SpMM and the SDDMM at 32, 128 and 512 features: the
# table's columns are the search's best decomposition for the graph and its
# speed-up over CSR on the A100 (docs/composable.md).
#
#   sh graphs.sh [GRAPH...]      FIBERLOOP=path/to/fiberloop (default: fiberloop on PATH)
#
# The collection is read from an installed python3-graph-tool, else from the
# package downloaded with 'apt-get download' (not installed) into a temporary
# directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
FIBERLOOP=${FIBERLOOP:-fiberloop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
col=/usr/lib/python3/dist-packages/graph_tool/collection
if [ ! -d "$col" ]; then
	(cd "$tmp" && apt-get download python3-graph-tool >/dev/null 2>&1) || {
		echo "graphs.sh: python3-graph-tool is neither installed nor downloadable" \
			"(apt-get update first?)" >&2
		exit 1
	}
	dpkg-deb -x "$tmp"/python3-graph-tool_*.deb "$tmp/deb"
	col=$tmp/deb$col
fi
[ $# -gt 0 ] || set -- power as-22july06 hep-th astro-ph cond-mat-2005 email-Enron pgp-strong-2009
echo "| graph | rows | non-zeros | longest row | op | features | CSR cycles | best decomposition | over CSR |"
echo "|---|---:|---:|---:|---|---:|---:|---|---:|"
for g in "$@"; do
	python3 "$here/gt2mtx.py" "$col/$g.gt.gz" "$tmp/$g.mtx"
	longest=$(awk 'NR > 2 { n[$1]++ } END { m = 0; for (r in n) if (n[r] > m) m = n[r]; print m }' \
		"$tmp/$g.mtx")
	for op in spmm sddmm; do
		for f in 32 128 512; do
			printf 'composable:\n  matrix: %s.mtx\n  op: %s\n  features: %s\n  hyb: {column_parts: 1, buckets: 4}\n' \
				"$g" "$op" "$f" >"$tmp/$g.yaml"
			"$FIBERLOOP" compose "$tmp/$g.yaml" >"$tmp/out" || {
				echo "graphs.sh: $g $op $f:" >&2
				cat "$tmp/out" >&2
				exit 1
			}
			awk -v g="$g" -v op="$op" -v f="$f" -v longest="$longest" '
				/^matrix / { rows = $2; nnz = $5 }
				/^best decomposition: plain CSR/ { best = "CSR"; csr = $5; x = "1.00" }
				/^best decomposition: hyb/ {
					best = $0; sub(/^best decomposition: /, "", best); sub(/, [0-9]+ cycles.*/, "", best)
					x = $0; sub(/.*cycles: /, "", x); sub(/x over.*/, "", x)
					csr = $0; sub(/.*over CSR \(/, "", csr); sub(/ cycles.*/, "", csr)
				}
				END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", g, rows, nnz, longest, op, f, csr, best, x }
			' "$tmp/out"
		done
	done
done
