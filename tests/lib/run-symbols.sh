#!/bin/sh
# libfiberloop exports its interface and nothing else: the dynamic symbols
# of libfiberloop.so are exactly the functions declared FIBERLOOP_API in
# lib/fiberloop.h (the documented list), no more (an internal function
# leaking out) and no fewer (a declared one missing).
srcdir=${srcdir:-.}
top=${top_builddir:-.}
so=$top/.libs/libfiberloop.so
NM=${NM:-nm}
[ -f "$so" ] || { echo "no shared library at $so (configure --disable-shared?)"; exit 77; }
command -v "${NM%% *}" >/dev/null 2>&1 || { echo "no nm"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# the declarations: "FIBERLOOP_API <type> [*]NAME(" (one per declaration, maybe split lines)
tr '\n' ' ' <"$srcdir/lib/fiberloop.h" | sed -e 's/#define FIBERLOOP_API[^#]*//g' -e 's/FIBERLOOP_API/\n&/g' |
	sed -n 's/^FIBERLOOP_API[^(]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' | sort -u >"$tmp/declared"
$NM -D --defined-only "$so" | awk '$2 ~ /^[TDBRVWiu]$/ { print $3 }' |
	grep -v '^_\(init\|fini\|edata\|end\|_bss_start\)$' | sort -u >"$tmp/exported"
n=$(wc -l <"$tmp/declared")
[ "$n" -ge 50 ] || { echo "FAIL: only $n declarations read from lib/fiberloop.h"; exit 1; }
if ! diff -u "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
	echo "FAIL: exported symbols (+) differ from lib/fiberloop.h's FIBERLOOP_API list (-):"
	sed -n '/^[-+][a-z_]/p' "$tmp/diff"
	exit 1
fi
echo "ok: $n symbols exported, each declared in lib/fiberloop.h"
