#!/bin/sh
# fiberloop quick start: install what is missing, build, then run.
#
#   ./quickstart.sh demo    build and evaluate the bundled example design
#   ./quickstart.sh test    build and run the whole test suite (make check)
#   ./quickstart.sh sanitize  build with ASan+UBSan in _build-san and run the suite
#   ./quickstart.sh valgrind  install valgrind, build in _build and run a sample of the
#                             suite under it (make check-valgrind, about 2 minutes)
#   ./quickstart.sh fuzz      build the libFuzzer harnesses with clang in _build-fuzz and run
#                             each for FUZZ_SECONDS (default 60); any finding fails
#   ./quickstart.sh sanitize-fuzz  both in one clang build (_build-fuzz: ASan+UBSan and
#                             libFuzzer's coverage): the suite, then the harnesses (one build
#                             fewer, but its suite runs slower than sanitize's: CI keeps the two)
#
# Works as root on a fresh Debian 12 machine (apt-get update runs only when a
# package is missing). Build trees: _build/ (and _build-san/), out of the source.
set -eu
cd "$(dirname "$0")"
top=$(pwd)
mode=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

PKGS="gcc make autoconf automake libtool pkg-config libyaml-dev libisl-dev libcunit1-dev libsqlite3-dev"
PKGS="$PKGS python3-jinja2"
# The Python package (docs/library.md): its C extension, DataFrames, tests, the examples' figures.
PKGS="$PKGS python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib"
# Optional: gnuplot draws 'fiberloop plot'; Open MPI spreads sweeps, batches and the mapper
# over the ranks of mpirun (the test build uses it when present: configure --with-mpi).
PKGS="$PKGS gnuplot-nox libopenmpi-dev openmpi-bin"

install_missing() {
	missing=""
	for p in $PKGS; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && return 0
	echo "quickstart: installing$missing"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

# build DIR CONFIGURE-ARGS...: configure and build in DIR. The configure options are
# remembered in DIR/.quickstart-options: a tree configured with other options (say
# 'demo' without MPI, then 'test' with it) or by hand is configured again.
build() {
	dir=$1; shift
	[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	# Debian's python3, for which the packages above are installed
	py=""; [ -x /usr/bin/python3 ] && py=PYTHON=/usr/bin/python3
	opts="--enable-werror $py $*"
	if [ ! -f Makefile ] || [ "$(cat .quickstart-options 2>/dev/null)" != "$opts" ]; then
		[ -f Makefile ] && echo "quickstart: configuring $dir again with: $opts"
		rm -f .quickstart-options
		"$top/configure" --enable-werror $py "$@"
		printf '%s\n' "$opts" >.quickstart-options
	fi
	make -j"$jobs" ${target:-}
}

# check: run the suite, showing the logs of failures. The test programs' own code is compiled
# at -O0 (make-time CFLAGS reach only what is not built yet: 'build' has made the library and
# the program with the tree's flags): about 4x faster to compile than -O2, and a test program
# spends its time in the library it tests, not in its own code.
check() {
	if ! make -j"$jobs" check CFLAGS="-g -O0"; then
		for f in $(find . -name '*.log' ! -name test-suite.log); do
			grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "${f%.log}.trs" 2>/dev/null && {
				echo "==== $f"; tail -n 60 "$f"; }
		done
		exit 1
	fi
}

# build_main: _build, with MPI when Open MPI is there (so that the suite runs the MPI test
# too); demo, test and valgrind share it.
build_main() {
	if command -v mpicc >/dev/null 2>&1; then build _build --with-mpi; else build _build; fi
}

install_missing
case $mode in
demo)
	build_main
	(cd "$top/examples/eyeriss-like" && "$top/_build/fiberloop" model input.yaml map.yaml ERT.yaml ART.yaml)
	;;
test)
	build_main
	check
	;;
sanitize)
	# -O1, as AddressSanitizer's documentation advises: a fifth less to compile than -O2
	build _build-san --enable-sanitizers CFLAGS="-g -O1"
	# FL_SANITIZED: the slowest tests run fewer repetitions of the same paths (one executor
	# seed where a comparison is exact); the plain suite runs them all
	FL_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 check
	;;
valgrind)
	PKGS="valgrind"
	install_missing
	build_main
	make check-valgrind
	;;
fuzz|sanitize-fuzz)
	PKGS="clang libclang-rt-14-dev"
	install_missing
	# fuzz builds the harnesses only (not the program, the shared library or the Python
	# module), at -O1 as libFuzzer's documentation suggests
	if [ "$mode" = fuzz ]; then
		target=fuzz build _build-fuzz CC=clang --enable-fuzz CFLAGS="-g -O1"
	else
		build _build-fuzz CC=clang --enable-fuzz
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 check
	fi
	make -j"$jobs" fuzz
	"$top/fuzz/run.sh" "${FUZZ_SECONDS:-60}"
	;;
*)
	echo "usage: $0 demo|test|sanitize|valgrind|fuzz|sanitize-fuzz" >&2
	exit 2
	;;
esac
