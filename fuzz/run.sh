#!/bin/sh
# fuzz/run.sh SECONDS [TARGET...]: run each libFuzzer harness (default: all)
# for SECONDS on its seed corpus, from a build tree configured with
# --enable-fuzz CC=clang (run it from that tree: ./quickstart.sh fuzz does).
# Fails on any finding (crash, sanitizer report, leak, timeout, out of
# memory); the reproducer is left in fuzz-findings/ of the build tree.
# Seeds come from the test data; the working corpora grow in fuzz-corpus/.
# The harnesses run FUZZ_JOBS at a time (default: one a processor).
set -u
secs=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
src=$(cd "$(dirname "$0")/.." && pwd)
targets=${*:-fuzz_specs fuzz_mtx fuzz_set fuzz_expr fuzz_batch}
data=$src/tests/data
status=0
mkdir -p fuzz-findings

# seeds TARGET DIR: fill DIR with the seed inputs of TARGET
seeds() {
	mkdir -p "$2"
	case $1 in
	fuzz_specs)
		for f in "$data"/specs/good/*.yaml "$data"/specs/bad/*.yaml "$data"/model/*.yaml \
			"$data"/conformance/*/input.yaml "$data"/conformance/*/map.yaml; do
			cp "$f" "$2/$(echo "$f" | cksum | cut -d' ' -f1).yaml"
		done
		# whole designs as one input: input + map + ERT, joined by the separator
		for d in "$data"/conformance/*/; do
			[ -f "$d/map.yaml" ] || continue
			{ cat "$d/input.yaml"; printf '\n%%%%FILE%%%%\n'; cat "$d/map.yaml"; } \
				>"$2/design-$(basename "$d").yaml"
		done ;;
	fuzz_mtx)
		for f in "$data"/mtx/*.mtx "$data"/mtx/bad/* "$data"/exec/*.mtx; do
			[ -f "$f" ] || continue
			{ printf '\001'; cat "$f"; } >"$2/$(echo "$f" | cksum | cut -d' ' -f1)"
		done ;;
	fuzz_expr)
		n=0
		for e in 'x * 3 + 1' 'min(x, 4) // 2' 'ceil(log2(1024)) if x > 2 else 0' \
			"len(s) + 1" '2 ** 10 % 7' 'f * 1e3 < 300 and not x == 3' 'round(f, 2)' \
			'int(\"12\") - y' 'max([1, 2, 3])' '1 < x <= 3'; do
			n=$((n + 1))
			printf '%s' "$e" >"$2/e$n"
		done ;;
	fuzz_batch)
		# the tests' batch files, the bad corpus's, and axes after a batch
		for f in "$data"/batch/*.yaml "$data"/specs/bad/batch_*.yaml; do
			[ -f "$f" ] || continue
			cp "$f" "$2/$(echo "$f" | cksum | cut -d' ' -f1).yaml"
		done
		n=0
		for a in 'problem.instance.M=1,2,4' 'density:p.A.density,p.B.density=0.01:0.8:x2' \
			'a=10:1:-4,0.1:0.5:+0.1' "m[target=Buffer,type=temporal].factors=K64 N64,'p,q'" \
			'a=-8900000000000000000:-8800000000000000000:+8900000000000000000'; do
			n=$((n + 1))
			{ printf 'jobs:\n  - {name: a, files: [x.yaml], set: {p.M: 4}}\n%%%%AXES%%%%\n'
			  printf '%s\nb=1,2,3\n' "$a"; } >"$2/axes$n"
		done ;;
	fuzz_set)
		printf 'problem.instance.M=512\n' >"$2/m"
		printf 'problem.instance.densities.Inputs.density=0.1\n' >"$2/d"
		printf 'architecture.subtree[0].local[name=shared_glb].attributes.depth=2048\n' >"$2/depth"
		printf "mapping[target=shared_glb,type=temporal].factors=C1 M2\n" >"$2/map"
		printf 'sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=Weights].format=CSR\n' >"$2/fmt" ;;
	esac
}

# run TARGET: run one harness; its output goes to fuzz-TARGET.log, its exit status to
# fuzz-TARGET.rc
run() {
	dict=$src/fuzz/${1#fuzz_}.dict      # its own dictionary, else the spec language's
	[ -f "$dict" ] || dict=$src/fuzz/specs.dict
	FIBERLOOP_FUZZ_DESIGN=$data/conformance/04.2.1-eyeriss-like-gating \
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	"./fuzz/$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-dict="$dict" -artifact_prefix="fuzz-findings/$1-" -print_final_stats=1 \
		"fuzz-corpus/$1" "fuzz-seeds/$1" >"fuzz-$1.log" 2>&1
	echo $? >"fuzz-$1.rc"
}

# each harness is one process of one thread: FUZZ_JOBS of them at a time
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in ""|*[!0-9]*|0) echo "fuzz/run.sh: FUZZ_JOBS must be a whole number >= 1" >&2; exit 2 ;; esac
n=0
for t in $targets; do
	[ -x "fuzz/$t" ] || { echo "fuzz/run.sh: fuzz/$t is not built (make fuzz)" >&2; exit 2; }
	seeds "$t" "fuzz-seeds/$t"
	mkdir -p "fuzz-corpus/$t"
	rm -f "fuzz-$t.rc"
	run "$t" &
	n=$((n + 1))
	[ $((n % jobs)) -eq 0 ] && wait
done
wait
for t in $targets; do
	echo "== $t: $secs s"
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "fuzz-$t.log" | sed "s/^/  /"
	rc=$(cat "fuzz-$t.rc" 2>/dev/null || echo 99)
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $t found a problem (exit $rc); the log is fuzz-$t.log:"
		grep -E 'ERROR|SUMMARY|Test unit written' "fuzz-$t.log" | head -5
		status=1
	fi
done
exit $status
