#!/bin/sh
# --set PATH=VALUE on the command line: each override must give exactly the
# output of the same edit made in the YAML by hand (a density, a format, an
# instance size, a bandwidth, a buffer depth), on model, check and exec;
# a bad path is a located error with a hint, exit 1, nothing written.
: "${TEST_DATA_DIR:?}" "${FIBERLOOP:?}"
srcdir=${srcdir:-.}
ex=$srcdir/examples/format-sweep
C=$TEST_DATA_DIR/conformance
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

cp "$ex/problem.yaml" "$tmp/p01.yaml"
sed 's/density: 0.1}/density: 0.3}/' "$ex/problem.yaml" >"$tmp/p03.yaml"
base="$ex/arch.yaml $ex/map.yaml"

# same OUTPUT-NAME "EDITED FILES" "FILES" --set ...: the two runs print the same
# (on the preset: the design names no technology; its warnings name the files)
same() {
	name=$1 edited=$2 files=$3
	shift 3
	# shellcheck disable=SC2086
	"$FIBERLOOP" model --energy accelergy45 $edited >"$tmp/$name.want" 2>"$tmp/$name.want.err" ||
		fail "$name: the edited design exits $?: $(cat "$tmp/$name.want.err")"
	# shellcheck disable=SC2086
	"$FIBERLOOP" model --energy accelergy45 "$@" $files >"$tmp/$name.got" 2>"$tmp/$name.got.err" ||
		fail "$name: --set exits $?: $(cat "$tmp/$name.got.err")"
	cmp -s "$tmp/$name.want" "$tmp/$name.got" || { fail "$name: --set differs from the edit";
		diff "$tmp/$name.want" "$tmp/$name.got" | head -5; }
	cmp -s "$tmp/$name.want" "$tmp/base.out" && fail "$name: the override changed nothing"
}
"$FIBERLOOP" model --energy accelergy45 $base "$tmp/p01.yaml" "$ex/coord-skipping.yaml" >"$tmp/base.out" \
	2>/dev/null

# a density (both tensors, as the edited file has it)
same density "$base $tmp/p03.yaml $ex/coord-skipping.yaml" "$base $tmp/p01.yaml $ex/coord-skipping.yaml" \
	--set problem.instance.densities.A.density=0.3 --set problem.instance.densities.B.density=0.3
# a format, by name, at both levels
sed 's/format: COO/format: bitmask/' "$ex/coord-skipping.yaml" >"$tmp/coord-bitmask.yaml"
same format "$base $tmp/p01.yaml $tmp/coord-bitmask.yaml" "$base $tmp/p01.yaml $ex/coord-skipping.yaml" \
	--set 'sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=A].format=bitmask' \
	--set 'sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=B].format=bitmask' \
	--set 'sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=A].format=bitmask' \
	--set 'sparse_optimizations.targets[name=Buffer].representation_format.data_spaces[name=B].format=bitmask'
# a bandwidth and a buffer depth
sed 's/read_bandwidth: 4/read_bandwidth: 2/; s/depth: 32768/depth: 16384/' "$ex/arch.yaml" >"$tmp/arch-bw.yaml"
same bandwidth "$tmp/arch-bw.yaml $ex/map.yaml $tmp/p01.yaml $ex/coord-skipping.yaml" \
	"$base $tmp/p01.yaml $ex/coord-skipping.yaml" \
	--set 'architecture.subtree[0].local[name=Buffer].attributes.read_bandwidth=2' \
	--set 'architecture.subtree[0].local[name=Buffer].attributes.depth=16384'
# an instance size, with the mapping's factor that must follow it
sed 's/    M: 64/    M: 128/' "$tmp/p01.yaml" >"$tmp/p01-m128.yaml"
sed 's/K64 N64 M64/K64 N64 M128/' "$ex/map.yaml" >"$tmp/map-m128.yaml"
cmp -s "$ex/map.yaml" "$tmp/map-m128.yaml" && fail "the example's mapping has no factor M64 to edit"
same instance "$ex/arch.yaml $tmp/map-m128.yaml $tmp/p01-m128.yaml $ex/coord-skipping.yaml" \
	"$ex/arch.yaml $ex/map.yaml $tmp/p01.yaml $ex/coord-skipping.yaml" \
	--set problem.instance.M=128 --set 'mapping[target=Buffer,type=temporal].factors=K64 N64 M128'

# exec and check take --set too
"$FIBERLOOP" check --set problem.instance.densities.A.density=0.3 $base "$tmp/p01.yaml" \
	"$ex/coord-skipping.yaml" | grep -q 'A\[M\]\[K\]: size 4096, density hypergeometric 0.3$' ||
	fail "check --set: the density is not 0.3"
"$FIBERLOOP" exec --seed 2 --set problem.instance.densities.A.density=0.3 \
	--set problem.instance.densities.B.density=0.3 $base "$tmp/p01.yaml" >"$tmp/exec.got" 2>&1
"$FIBERLOOP" exec --seed 2 $base "$tmp/p03.yaml" >"$tmp/exec.want" 2>&1
cmp -s "$tmp/exec.want" "$tmp/exec.got" || fail "exec --set differs from the edit"

# a path that does not exist: located, with a hint, exit 1, nothing written
"$FIBERLOOP" model -o "$tmp/out" --set problem.instanse.M=32 $base "$tmp/p01.yaml" 2>"$tmp/err" >/dev/null
rc=$?
[ $rc = 1 ] || fail "a bad path exits $rc, not 1"
grep -q "^--set 'problem.instanse.M=32':1:9: error: no key 'instanse' in 'problem'; did you mean 'instance'?" \
	"$tmp/err" || { fail "a bad path:"; cat "$tmp/err"; }
grep -q "p01.yaml:[0-9]*:[0-9]*: note: 'problem' is given here" "$tmp/err" || fail "no note at the file"
[ -e "$tmp/out" ] && fail "a bad --set wrote outputs"
"$FIBERLOOP" model --set problem.instance.M=-5 $base "$tmp/p01.yaml" 2>"$tmp/err" >/dev/null
grep -q "^--set 'problem.instance.M=-5':1:20: error: in 'problem.instance.M': expected an integer >= 1, got '-5'" \
	"$tmp/err" || { fail "a bad value:"; cat "$tmp/err"; }
"$FIBERLOOP" model --set 'architecture.subtree[0].local[name=Bufer].attributes.depth=8' $base \
	"$tmp/p01.yaml" 2>"$tmp/err" >/dev/null
grep -q "did you mean 'Buffer'" "$tmp/err" || { fail "a bad selector:"; cat "$tmp/err"; }
exit $status
