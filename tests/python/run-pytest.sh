#!/bin/sh
# The Python package's pytest suite (tests/python), on the package of the build tree.
# Arguments go to pytest (-k leak -s: one test, its output shown).
top=${top_builddir:-.}
srcdir=${srcdir:-.}
[ -n "$FL_PYTHON" ] || { echo "the Python package is not built (no python3-dev)"; exit 77; }
[ -f "$top/python/fiberloop/_fiberloop.so" ] || { echo "no extension built"; exit 77; }
"$FL_PYTHON" -c 'import pytest, pandas' 2>/dev/null ||
	{ echo "pytest or pandas missing (python3-pytest, python3-pandas)"; exit 77; }
case " $FL_SAN_CFLAGS " in *-fsanitize=*)
	# Skipped under ASan+UBSan, on purpose: an instrumented extension in Debian's
	# uninstrumented interpreter needs the sanitizer runtimes preloaded into python3, which
	# then runs CPython, numpy and pandas through ASan's allocator, slowly, with leak
	# detection off (the interpreter's own allocations would be reported). The library's code
	# under the package is covered under the sanitizers by tests/lib/test_api (the C API) and
	# the CLI tests; this suite runs in the plain build.
	echo "skipped under the sanitizers: the Python suite runs in the plain build; the library's paths are covered here by tests/lib/test_api"
	exit 77 ;;
esac
PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH} \
	exec "$FL_PYTHON" -m pytest -q -p no:cacheprovider "$srcdir/tests/python" "$@"
