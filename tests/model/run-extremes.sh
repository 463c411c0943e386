#!/bin/sh
# Huge and degenerate workloads end to end ('fiberloop model --format json'),
# every expected value computed by hand in the comment beside it: a 10^15-MAC
# convolution with a dimension of 10^6, counts near 2^63, a mapping whose
# counts could pass 2^64 - 1 (too-large), a level's cycles past 2^64 - 1,
# densities 0 and 1, every dimension 1, levels of no capacity, format word
# bits past a byte and format bits past 2^64 - 1.
srcdir=${srcdir:-.}
fl=${FIBERLOOP:-./fiberloop}
data=${TEST_DATA_DIR:-$srcdir/tests/data}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# jv FILE LEVEL TENSOR KEY: a value of the JSON report. LEVEL '-' is the
# summary; TENSOR '-' is the level itself; TENSOR/OBJECT reads KEY in one of
# the tensor's objects ("Weights/actions", "A/sparse").
jv() {
	awk -v lvl="$2" -v ten="$3" -v key="$4" '
	{ match($0, /^ */); ind = RLENGTH
	  k = $0; sub(/^ *"/, "", k); sub(/".*/, "", k)
	  v = $0; sub(/^[^:]*: /, "", v); sub(/,$/, "", v) }
	/^  "summary": / { S = 1 }
	/^  [}]/ { S = 0 }
	ind == 6 && k == "name" { gsub(/"/, "", v); L = v; T = "" }
	ind == 10 && k == "name" { gsub(/"/, "", v); T = v }
	ind == 10 && v == "{" { O = T "/" k }
	lvl == "-" && S && ind == 4 && k == key { print v; exit }
	lvl == L && ten == "-" && ind == 6 && k == key { print v; exit }
	lvl == L && ten == T && ind == 10 && k == key { print v; exit }
	lvl == L && ten == O && ind == 12 && k == key { print v; exit }
	' "$1"
}

# expect FILE LEVEL TENSOR KEY VALUE WHY
expect() {
	got=$(jv "$1" "$2" "$3" "$4")
	if [ "$got" = "$5" ]; then
		echo "ok: $6"
	else
		echo "FAIL: $6: $2 $3 $4 is '$got', expected $5"
		fail=1
	fi
}

model() {   # model OUT ARGS...: fiberloop model --format json into OUT
	out=$1
	shift
	$fl model "$@" --energy horowitz45 --format json >"$out" 2>"$out.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: fiberloop model $* exited $rc:"
		cat "$out.err"
		fail=1
	fi
}

# --- a 10^15-MAC convolution: C = M = R = 10^3, P = 10^6. The buffer holds
# C10 x R1000 under DRAM's C100 M1000 P10^6 (C innermost): 10^11 DRAM
# iterations, each refetching a 10^4-word weight tile (C and M change) and a
# 10^4-word input tile (10 x (1000 + 1 - 1)); the output tile (1 word) stays
# across C, so DRAM sees each of the 10^9 outputs once.
j=$tmp/conv.json
model "$j" "$data/model/conv-1e15.yaml"
expect "$j" - - algorithmic_computes 1000000000000000 "10^15 computes"
expect "$j" - - cycles 1000000000000000 "one MAC: 10^15 cycles"
expect "$j" Buffer Weights tile_shape 10000 "weight tile C10 x R1000"
expect "$j" Buffer Weights fills 1000000000000000 "weight fills 10^11 x 10^4"
expect "$j" Buffer Weights reads 1000000000000000 "weight reads, one per compute"
expect "$j" Buffer Inputs tile_shape 10000 "input tile 10 x (1000 + 1 - 1)"
expect "$j" Buffer Inputs fills 1000000000000000 "input fills 10^11 x 10^4"
expect "$j" Buffer Outputs updates 1000000000000000 "output updates, one per compute"
expect "$j" Buffer Outputs reads 999999000000000 "output reads 10^15 - 10^9 (first updates read nothing)"
expect "$j" Buffer - total_scalar_accesses 5999999000000000 "buffer accesses 6 x 10^15 - 10^9"
expect "$j" DRAM Inputs tile_shape 1000999000 "the input tensor 10^3 x (10^6 + 10^3 - 1)"
expect "$j" DRAM Weights reads 1000000000000000 "DRAM weight reads = buffer fills"
expect "$j" DRAM Outputs updates 1000000000 "each of the 10^9 outputs written once"
expect "$j" DRAM - total_scalar_accesses 2000001000000000 "DRAM accesses 2 x 10^15 + 10^9"
expect "$j" - - last_level_accesses 2000001000000000 "the last level's accesses"

# --- 2^61 computes from DRAM alone: 2^61 reads of each operand, 2^61
# updates and 2^61 - 2^40 reads of the 2^40 outputs: 2^63 - 2^40 accesses.
j=$tmp/near.json
model "$j" "$data/model/near-2e64.yaml"
expect "$j" - - algorithmic_computes 2305843009213693952 "2^61 computes"
expect "$j" DRAM Weights reads 2305843009213693952 "2^61 weight reads"
expect "$j" DRAM Outputs reads 2305841909702066176 "2^61 - 2^40 output reads"
expect "$j" DRAM - total_scalar_accesses 9223370937343148032 "2^63 - 2^40 accesses, exact"

# --- four times the computes (C 2^23): 2^65 - 2^40 accesses, which would
# wrap; the bound, 2 x (3 x 2^63 + the tensors' sizes) words, is past
# 2^64 - 1, so the mapping is refused rather than counted.
$fl model "$data/model/near-2e64.yaml" --energy horowitz45 --set problem.instance.C=8388608 \
	--set 'mapping[target=DRAM].factors=C8388608 M1048576 R1 P1048576' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && grep -q "^fiberloop model: infeasible mapping (too-large): its counts could exceed 2^64 - 1 (up to 5.53e+19 words moved for 9.22e+18 loop iterations)" "$tmp/err"; then
	echo "ok: 2^63 computes are too large"
else
	echo "FAIL: 2^63 computes: exit $rc"
	cat "$tmp/err"
	fail=1
fi

# --- a buffer read at 10^-6 words per cycle: 3 x 10^15 reads take 3 x 10^21
# cycles, more than 2^64 - 1, so the mapping is refused (not wrapped).
$fl model "$data/model/conv-1e15.yaml" --energy horowitz45 \
	--set 'architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=0.000001' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "infeasible mapping (too-large): 'Buffer' would take more than 2^64 - 1 cycles" "$tmp/err"; then
	echo "ok: cycles past 2^64 - 1 are too large"
else
	echo "FAIL: cycles past 2^64 - 1: exit $rc"
	cat "$tmp/err"
	fail=1
fi

# --- every dimension 1: one compute; Reg reads each operand once and is
# filled once; the output's only update reads nothing. Buffer has depth 0
# and keeps nothing, so it is feasible and moves nothing.
j=$tmp/ones.json
model "$j" "$data/model/ones.yaml"
expect "$j" - - algorithmic_computes 1 "one compute"
expect "$j" - - cycles 1 "one cycle"
expect "$j" Reg Weights reads 1 "one weight read"
expect "$j" Reg Weights fills 1 "one weight fill"
expect "$j" Reg Outputs reads 0 "no output read"
expect "$j" Reg Outputs updates 1 "one output update"
expect "$j" DRAM Inputs reads 1 "one input read from DRAM"
expect "$j" DRAM Outputs updates 1 "one output written to DRAM"
expect "$j" Buffer - size_words 0 "the buffer holds 0 words"
expect "$j" Buffer - total_scalar_accesses 0 "the buffer moves nothing"

# --- the zero-capacity buffer keeping the weights: one word does not fit in 0.
$fl model "$data/model/ones.yaml" --energy horowitz45 \
	--set 'mapping[target=Buffer,type=datatype].keep=[Weights]' \
	--set 'mapping[target=Buffer,type=datatype].bypass=[Inputs, Outputs]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "infeasible mapping (over-capacity): tiles at 'Buffer' need 1 words (the largest, 'Weights', 1), it holds 0" "$tmp/err"; then
	echo "ok: a zero-capacity level cannot keep a tensor"
else
	echo "FAIL: zero-capacity level keeping a tensor: exit $rc"
	cat "$tmp/err"
	fail=1
fi

# --- densities 0 and 1 of A in 01.2.3 (Z[m] += A[k] B[k], K16, A in CP,
# B and Z skipped on A's zeros). Density 0: no compute is done, B's 16
# reads, Z's 15 reads and 16 updates are all skipped, nothing costs energy.
scdu=$data/conformance/01.2.3-SCDU-dot-product
j=$tmp/d0.json
model "$j" "$scdu/input.yaml" "$scdu/map.yaml" "$scdu/ERT.yaml" \
	--set problem.instance.densities.A.density=0
expect "$j" - - actual_computes 0 "density 0: no compute"
expect "$j" - - cycles 0 "density 0: no cycle"
expect "$j" - - energy_pj 0 "density 0: no energy"
expect "$j" Buffer B/actions skipped_read 16 "density 0: B's 16 reads skipped"
expect "$j" Buffer Z/actions skipped_read 15 "density 0: Z's 15 reads skipped"
expect "$j" Buffer Z/actions skipped_update 16 "density 0: Z's 16 updates skipped"
expect "$j" Buffer A/actions random_read 0 "density 0: A is never read"
if grep -qiE 'nan|inf' "$j"; then
	echo "FAIL: density 0: the report holds a NaN or an infinity"
	fail=1
fi
# Density 1: the dense counts (16 reads of A and B, 15 reads and 16 updates
# of Z), nothing skipped; A's CP coordinates (4 bits each, 16 of them) are 64
# bits beside 16 x 8 data bits: 1.5 times the dense size.
j=$tmp/d1.json
model "$j" "$scdu/input.yaml" "$scdu/map.yaml" "$scdu/ERT.yaml" \
	--set problem.instance.densities.A.density=1
expect "$j" - - actual_computes 16 "density 1: every compute"
expect "$j" - - cycles 16 "density 1: 16 cycles"
expect "$j" Buffer A/actions random_read 16 "density 1: A read 16 times"
expect "$j" Buffer B/actions skipped_read 0 "density 1: nothing skipped"
expect "$j" Buffer Z/actions random_read 15 "density 1: Z read 15 times"
expect "$j" Buffer Z/actions random_update 16 "density 1: Z updated 16 times"
expect "$j" Buffer A/sparse metadata_bits 64 "density 1: 16 coordinates of 4 bits"

# --- 2^50 coordinates of A in CP at DRAM, 4096-bit metadata words (more
# than a byte can hold): 2^62 bits of metadata, exact. At 2^53 coordinates
# the format would hold 2^65 bits: refused.
j=$tmp/fmt.json
model "$j" "$data/model/format-bits.yaml"
expect "$j" DRAM A/sparse metadata_bits 4611686018427387904 "2^50 coordinates x 4096 bits"
if grep -q '"metadata_word_bits": 4096,' "$j"; then
	echo "ok: 4096-bit metadata words"
else
	echo "FAIL: the metadata words are not 4096 bits"
	fail=1
fi
$fl model "$data/model/format-bits.yaml" --energy horowitz45 --set problem.instance.K=9007199254740992 \
	--set 'mapping[target=DRAM].factors=K9007199254740992' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "infeasible mapping (too-large): the format of 'A' at 'DRAM' would hold or move more than 2^64 - 1 bits" "$tmp/err"; then
	echo "ok: 2^65 bits of metadata are too large"
else
	echo "FAIL: 2^65 bits of metadata: exit $rc"
	cat "$tmp/err"
	fail=1
fi

exit $fail
