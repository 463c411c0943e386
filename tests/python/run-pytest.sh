#!/bin/sh
# The Python package's pytest suite (tests/python), on the package of the build tree.
top=${top_builddir:-.}
srcdir=${srcdir:-.}
[ -n "$FL_PYTHON" ] || { echo "the Python package is not built (no python3-dev)"; exit 77; }
[ -f "$top/python/fiberloop/_fiberloop.so" ] || { echo "no extension built"; exit 77; }
"$FL_PYTHON" -c 'import pytest, pandas' 2>/dev/null ||
	{ echo "pytest or pandas missing (python3-pytest, python3-pandas)"; exit 77; }
case " $FL_SAN_CFLAGS " in *-fsanitize=*)
	# an instrumented extension in an uninstrumented interpreter: load the runtimes first
	LD_PRELOAD="$($FL_CC -print-file-name=libasan.so) $($FL_CC -print-file-name=libubsan.so)"
	ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	PYTHONMALLOC=malloc
	export LD_PRELOAD ASAN_OPTIONS PYTHONMALLOC ;;
esac
PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH} \
	exec "$FL_PYTHON" -m pytest -q -p no:cacheprovider "$srcdir/tests/python"
