#!/bin/sh
# Every kind of design in one batch (examples/kinds/jobs.yaml: eyeriss_like,
# an IPU PopSparse layer, a Sparse-TPU matrix, the A100's 2:4 GEMM): the
# ranking by EDP ranks only the rows that have energy and notes the IPU's,
# each row carries its kind's own metrics and NULL for the others (not 0),
# 'results --format csv' has one column per metric (unique names, the
# vocabulary's), and sweep and batch take the kinds' own commands.
: "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
K=$srcdir/examples/kinds

"$FIBERLOOP" batch "$K/jobs.yaml" --db "$tmp/k.db" --roofline --jobs 2 --format csv \
	>"$tmp/rank.csv" 2>"$tmp/err" || fail "batch exits $?: $(cat "$tmp/err")"
# ranked by EDP: the three with energy; the IPU after them, without a rank, with a note
[ "$(cut -d, -f1,2 "$tmp/rank.csv" | tr '\n' ' ')" = \
  "rank,name 1,stpu-2000-0.005 2,eyeriss_like 3,a100-gemm-2to4 ,ipu-4096-1/16 " ] ||
	fail "the ranking: $(cut -d, -f1,2 "$tmp/rank.csv")"
grep -qx "fiberloop batch: 1 job not ranked: 'ipu-4096-1/16' gives no edp_j_cycles" "$tmp/err" ||
	fail "the note: $(cat "$tmp/err")"
head -1 "$tmp/rank.csv" | grep -q '^rank,name,kind,command,status,energy_pj,cycles,edp_j_cycles,utilization,area_um2,speedup,baseline_cycles,baseline_energy_pj,energy_ratio,scheme,packing_efficiency,estimated_packing_efficiency,propagation_steps,fwd_cycles,fwd_baseline_cycles,memory_bytes,seconds,bound,tags,error$' ||
	fail "the ranking's columns: $(head -1 "$tmp/rank.csv")"

"$FIBERLOOP" results "$tmp/k.db" --format csv >"$tmp/all.csv" || fail "results exits $?"
"$FIBERLOOP" help metrics >"$tmp/metrics" || fail "help metrics exits $?"
E=$srcdir/examples/eyeriss-like
"$FIBERLOOP" model "$E/input.yaml" "$E/map.yaml" "$E/ERT.yaml" "$E/ART.yaml" --format json \
	>"$tmp/eye.json" || fail "model --format json exits $?"
python3 - "$tmp/all.csv" "$tmp/metrics" "$tmp/eye.json" >"$tmp/py" 2>&1 <<'PY' || fail "the results' CSV: $(cat "$tmp/py")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
header = next(csv.reader(open(sys.argv[1], newline="")))
assert len(header) == len(set(header)), "a column twice"
known = {l.split()[0] for l in open(sys.argv[2]).read().split("\n\n", 1)[1].splitlines()[1:]}
metrics = [c for c in header if c in known]
assert metrics[:10] == ["energy_pj", "cycles", "edp_j_cycles", "utilization",
                        "algorithmic_computes", "actual_computes", "pj_per_compute",
                        "compute_energy_pj", "n_evaluated", "n_valid"], metrics
assert metrics[10] == "area_um2", metrics   # the first of the others
for m in ("speedup", "baseline_cycles", "scheme", "propagation_steps", "memory_bytes", "bound"):
    assert m in header, m
by = {r["name"]: r for r in rows}
ipu, stpu, eye, gpu = (by[n] for n in ("ipu-4096-1/16", "stpu-2000-0.005", "eyeriss_like",
                                       "a100-gemm-2to4"))
# each kind's own metrics, and nothing (not 0) where a kind has none
assert ipu["energy_pj"] == "" and ipu["edp_j_cycles"] == "" and ipu["utilization"] == ""
assert float(ipu["speedup"]) > 1 and float(ipu["baseline_cycles"]) > float(ipu["cycles"])
assert float(ipu["propagation_steps"]) > 0 and int(ipu["memory_bytes"]) > 0
assert stpu["scheme"] == "C1" and float(stpu["speedup"]) > 1
assert float(stpu["baseline_cycles"]) / float(stpu["cycles"]) == float(stpu["speedup"])
assert stpu["utilization"] == "" and stpu["propagation_steps"] == ""
assert float(stpu["energy_pj.TPU"]) == float(stpu["baseline_energy_pj"])
assert eye["speedup"] == "" and eye["scheme"] == "" and eye["bound"] == "compute"
assert float(eye["energy_pj.DRAM"]) > 0 and eye["energy_pj.HBM"] == ""
assert gpu["cycles"] == "589088" and gpu["bound"] == "SMEM bandwidth"
# the design's area (its ART here), as 'model' gives it; none for the IPU and the STPU
assert float(eye["area_um2"]) == json.load(open(sys.argv[3]))["summary"]["area_um2"] > 0
assert ipu["area_um2"] == "" and stpu["area_um2"] == ""
for r in rows:
    for m in metrics:
        if r[m] and m not in ("scheme", "bound"):
            float(r[m])
PY

# sweep and batch take the kinds' own commands; a design of another kind is refused
"$FIBERLOOP" sweep "$srcdir/examples/stpu/design.yaml" --command stpu --db "$tmp/s.db" \
	--axis stpu.packing.scheme=none,C0,C1,KMZ --format csv --jobs 1 >"$tmp/s.csv" 2>"$tmp/err" ||
	fail "sweep --command stpu exits $?: $(cat "$tmp/err")"
[ "$(sort "$tmp/s.csv" | cut -d, -f1,4,17 | tr '\n' ' ')" = \
  "0,none,none 1,C0,C0 2,C1,C1 3,KMZ,KMZ idx,stpu.packing.scheme,scheme " ] ||
	fail "a row per scheme: $(cut -d, -f1,4,17 "$tmp/s.csv")"
awk -F, 'NR > 1 && $4 == "none" && $13 != 1 { exit 1 }' "$tmp/s.csv" ||
	fail "the TPU is its own baseline: $(cat "$tmp/s.csv")"
"$FIBERLOOP" stpu "$srcdir/examples/ipu-popsparse/layer.yaml" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && grep -qx "fiberloop stpu: the input files hold no 'stpu' design alone" "$tmp/err" ||
	fail "stpu on an IPU design: $(cat "$tmp/err")"
exit $status
