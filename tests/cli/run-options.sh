#!/bin/sh
# The one option table: --opt=value and --opt value on every command, the
# same message for the same mistake, values out of range refused (exit 2,
# nothing run), and outputs at a device node or a symlink written through,
# never replaced (fuzz findings 1, 4, 5, 6 and 7).
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
C=$TEST_DATA_DIR/conformance
dot="$C/01.2.1-DUDU-dot-product/input.yaml $C/01.2.1-DUDU-dot-product/map.yaml"
sws="$C/simple_weight_stationary/input.yaml $C/simple_weight_stationary/map.yaml $C/simple_weight_stationary/ERT.yaml"
spm="$C/02.2.1-spMspM/input.yaml $C/02.2.1-spMspM/map.yaml"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# run EXPECTED-STATUS COMMAND...: stdout to $tmp/out, stderr to $tmp/err
run() {
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want: $(head -1 "$tmp/err")"
}

# --opt=value and --opt value give the same outputs
run 0 "$FIBERLOOP" exec --seed=3 $spm
cp "$tmp/out" "$tmp/seed3-eq"
run 0 "$FIBERLOOP" exec --seed 3 $spm
cmp -s "$tmp/out" "$tmp/seed3-eq" || fail "exec --seed=3 and --seed 3 differ"
grep -q '^Executed with seed 3 ' "$tmp/out" || fail "exec --seed=3 did not use seed 3"
run 0 "$FIBERLOOP" check --format=json $dot
head -c 16 "$tmp/out" | grep -q '^{"architecture":' || fail "check --format=json is not JSON"
run 0 "$FIBERLOOP" model --format=csv $sws
grep -q '^ok,151669736\.' "$tmp/out" || fail "model --format=csv"
run 0 "$FIBERLOOP" model -o"$tmp/attached" $dot
[ -s "$tmp/attached/fiberloop-model.stats.txt" ] || fail "-oDIR wrote nothing"

# model --tensor: actual data for a tensor changes the model's density
printf '%%%%MatrixMarket matrix coordinate real general\n8 8 2\n1 1 1.0\n2 2 1.0\n' >"$tmp/a.mtx"
run 0 "$FIBERLOOP" model --tensor A="$tmp/a.mtx" --format json $spm
grep -q '"density_distribution": "actual_data"' "$tmp/out" || fail "model --tensor ignored"

# the same mistake, the same message, whatever the command
for c in model exec validate map; do
	"$FIBERLOOP" $c --footprint hull $dot 2>&1 >/dev/null | head -1 |
		sed "s/^fiberloop $c: //" >"$tmp/msg.$c"
done
for c in exec validate map; do
	cmp -s "$tmp/msg.model" "$tmp/msg.$c" || fail "'--footprint hull': model and $c differ"
done
grep -qx "unknown value 'hull' for '--footprint' (timeloop, exact)" "$tmp/msg.model" ||
	fail "--footprint hull: $(cat "$tmp/msg.model")"
run 2 "$FIBERLOOP" exec --seeds 3 $dot
grep -q "'--seeds' is not an option of 'exec' (it is one of 'validate', 'ipu', 'sweep')" "$tmp/err" ||
	fail "exec --seeds: $(head -1 "$tmp/err")"
run 2 "$FIBERLOOP" model --fotprint exact $dot
grep -q "unknown option '--fotprint'; did you mean '--footprint'?" "$tmp/err" ||
	fail "a misspelt option gets no hint: $(head -1 "$tmp/err")"
run 2 "$FIBERLOOP" model --format $dot
grep -q "unknown value '.*input.yaml' for '--format'" "$tmp/err" || fail "--format FILE"
run 2 "$FIBERLOOP" model $dot --energy
grep -q "'--energy' needs a value (PRESET)" "$tmp/err" || fail "a missing value"
run 2 "$FIBERLOOP" check --format csv $dot
grep -q "unknown value 'csv' for '--format' (text, json)" "$tmp/err" || fail "check --format csv"

# out-of-range values are refused before anything runs (findings 6 and 7)
for a in --threads=4096 --threads=18446744073709551616 "--threads= -1" --threads=-1 \
	--seed=99999999999999999999999 --search-size=18446744073709551616 --time-limit=nan \
	--time-limit=1e400 --time-limit=-1 --time-limit=inf --refine=70000 --streams=0; do
	run 2 "$FIBERLOOP" map "$a" -o "$tmp/none" $sws
	[ -e "$tmp/none" ] && fail "map $a wrote outputs"
	grep -q "needs an integer in \[\|needs a number in \[" "$tmp/err" || fail "map $a: $(head -1 "$tmp/err")"
done
run 2 "$FIBERLOOP" validate --seeds=1 $dot
run 2 "$FIBERLOOP" validate --tolerance=-0.1 $dot
run 2 "$FIBERLOOP" validate --sigmas=nan $dot

# a malformed NAME=FILE is a usage error like any bad option value (exit 2, not 1)
for a in A= =a.mtx a.mtx; do
	run 2 "$FIBERLOOP" check --tensor "$a" $spm
	grep -q "'--tensor' needs NAME=FILE, got '$a'" "$tmp/err" || fail "--tensor $a: $(head -1 "$tmp/err")"
done

# an empty output path is a usage error, not an overflow (finding 1)
for c in model exec map; do
	run 2 "$FIBERLOOP" $c -o '' $dot
	grep -q "'--output' needs a non-empty value (DIR)" "$tmp/err" || fail "$c -o ''"
done

# --log at a device node or a symlink is written through, never replaced (finding 5)
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	run 0 "$FIBERLOOP" map --log "$tmp/null" --search-size 5 -o "$tmp/m1" $sws
	[ -c "$tmp/null" ] || fail "--log replaced a character device by a regular file"
else
	echo "skip: mknod needs root (the device case)"
fi
echo keep >"$tmp/target.csv"
ln -s target.csv "$tmp/link.csv"
run 0 "$FIBERLOOP" map --log "$tmp/link.csv" --search-size 5 -o "$tmp/m2" $sws
[ -L "$tmp/link.csv" ] || fail "--log replaced a symlink by a regular file"
head -1 "$tmp/target.csv" | grep -q '^stream,seq,status' || fail "--log did not write through the symlink"
run 0 "$FIBERLOOP" map --log - --search-size 5 -o "$tmp/m3" $sws
grep -q '^stream,seq,status' "$tmp/out" || fail "--log - did not write to stdout"
# a log that cannot be created: exit 1, nothing written (finding 4's path)
run 1 "$FIBERLOOP" map --log "$tmp/no/such/dir/log.csv" --search-size 5 -o "$tmp/m4" $sws
[ -e "$tmp/m4" ] && fail "map wrote outputs although its log could not be opened"

# -o onto a symlinked output file writes through it
mkdir "$tmp/o"
echo old >"$tmp/elsewhere.txt"
ln -s ../elsewhere.txt "$tmp/o/fiberloop-model.stats.txt"
run 0 "$FIBERLOOP" model -o "$tmp/o" $dot
[ -L "$tmp/o/fiberloop-model.stats.txt" ] || fail "-o replaced a symlinked output"
grep -q '^Buffer and Arithmetic Levels' "$tmp/elsewhere.txt" || fail "-o did not write through"

exit $status
