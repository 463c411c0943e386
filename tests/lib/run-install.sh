#!/bin/sh
# 'make install' into a temporary root (DESTDIR) gives a usable library: the
# C example (examples/c/model.c) builds against it with
# 'pkg-config --cflags --libs fiberloop' alone and prints the metrics the
# command line's JSON gives; with the Python package built, 'import
# fiberloop' works from the installed tree and evaluates the same design.
srcdir=${srcdir:-.}
top=${top_builddir:-.}
fl=${FIBERLOOP:-$top/fiberloop}
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/root

# a make of its own (not the jobserver of the 'make check' running this)
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" install DESTDIR="$root" \
	>"$tmp/install.log" 2>&1; then
	echo "FAIL: make install"; tail -20 "$tmp/install.log"; exit 1
fi
for f in "$FL_LIBDIR/libfiberloop.so" "$FL_LIBDIR/libfiberloop.a" \
	 "$FL_INCLUDEDIR/fiberloop.h" "$FL_LIBDIR/pkgconfig/fiberloop.pc"; do
	[ -e "$root$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done

flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$root$FL_LIBDIR/pkgconfig \
	pkg-config --cflags --libs fiberloop) || { echo "FAIL: pkg-config fiberloop"; exit 1; }
echo "pkg-config --cflags --libs fiberloop: $flags"
# shellcheck disable=SC2086
if ! ${FL_CC:-cc} $FL_SAN_CFLAGS -o "$tmp/model" "$srcdir/examples/c/model.c" $flags \
	>"$tmp/cc.log" 2>&1; then
	echo "FAIL: the example does not build against the installed library"; cat "$tmp/cc.log"
	exit 1
fi
ex=$srcdir/examples/eyeriss-like
set -- "$ex/input.yaml" "$ex/map.yaml" "$ex/ERT.yaml" "$ex/ART.yaml"
LD_LIBRARY_PATH=$root$FL_LIBDIR "$tmp/model" "$@" >"$tmp/out" 2>&1 ||
	{ echo "FAIL: the example"; cat "$tmp/out"; exit 1; }
"$fl" model "$@" --format json >"$tmp/cli.json" || exit 99
status=0
# each summary figure of the CLI's JSON, as the example prints it (17 digits both)
for k in energy_pj cycles utilization actual_computes pj_per_compute edp_j_cycles; do
	want=$(sed -n "/\"summary\"/,/}/s/^ *\"$k\": \([^,]*\),*$/\1/p" "$tmp/cli.json")
	got=$(sed -n "s/^$k = \([^ ]*\) .*/\1/p" "$tmp/out")
	if [ -z "$want" ] || [ "$(awk -v a="$want" -v b="$got" 'BEGIN { print (a + 0 == b + 0) }')" != 1 ]; then
		echo "FAIL: $k: example $got, CLI $want"; status=1
	fi
done
grep -q '^energy_pj.DRAM = ' "$tmp/out" || { echo "FAIL: no per-level energy"; status=1; }
grep -q '^libfiberloop 0\.1\.0 (header 0\.1\.0)' "$tmp/out" ||
	{ echo "FAIL: versions"; head -1 "$tmp/out"; status=1; }

# the instrumented extension cannot load in an uninstrumented python3 (tests/python/run-pytest.sh)
case " $FL_SAN_CFLAGS " in *-fsanitize=*) echo "python part skipped under the sanitizers"; FL_PYTHON= ;; esac
if [ -n "$FL_PYTHON" ] && [ -d "$srcdir/python/fiberloop" ]; then
	if ! PYTHONPATH=$root$FL_PYTHONDIR:$root$FL_PYEXECDIR LD_LIBRARY_PATH=$root$FL_LIBDIR \
		"$FL_PYTHON" -c '
import sys, fiberloop
assert fiberloop.__file__.startswith(sys.argv[1]), fiberloop.__file__
r = fiberloop.load(*sys.argv[2:]).model()
print("python: installed", fiberloop.__file__, "energy_pj", repr(r.energy_pj))
' "$root" "$@" >"$tmp/py.out" 2>&1; then
		echo "FAIL: the installed Python package"; cat "$tmp/py.out"; status=1
	else
		cat "$tmp/py.out"
		want=$(sed -n "s/^energy_pj = \([^ ]*\) .*/\1/p" "$tmp/out")
		got=$(sed -n 's/.*energy_pj \(.*\)$/\1/p' "$tmp/py.out")
		[ "$(awk -v a="$want" -v b="$got" 'BEGIN { print (a + 0 == b + 0) }')" = 1 ] ||
			{ echo "FAIL: python energy $got, C $want"; status=1; }
	fi
fi
[ $status = 0 ] && echo "ok: installed library, pkg-config, example$([ -n "$FL_PYTHON" ] && echo ", python")"
exit $status
