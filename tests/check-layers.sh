#!/bin/sh
# Layering check (ARCHITECTURE.md): a module may include only the modules
# below it. exec/ is the independent reference and never sees formats/, saf/,
# model/ or poly/. Only specs/ includes <yaml.h>; only poly/ includes <isl/...>;
# only store/ includes <sqlite3.h>; only job/ includes <mpi.h>.
#
# Within a module, files form no circle either: no two headers include each
# other (directly or round a loop), and no two source files call each other
# (a call from x.c to a function or table of y.c is an edge x -> y, read
# from the objects with nm; a loop of edges is refused). The objects are
# looked for under the build directory (the current one when 'make check'
# runs this); without them only the includes are checked.
builddir=$(pwd)
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99
NM=${NM:-nm}

allowed() {
	case $1 in
	util)    echo "util" ;;
	specs)   echo "util specs" ;;
	poly)    echo "util specs poly" ;;
	formats) echo "util specs formats" ;;
	density) echo "util specs density" ;;
	saf)     echo "util specs formats density saf" ;;
	model)   echo "util specs poly formats density saf model" ;;
	mapper)  echo "util specs poly formats density saf model mapper" ;;
	accel)   echo "util specs formats density model accel" ;;
	report)  echo "util specs model exec accel report" ;;
	exec)    echo "util specs exec" ;;
	store)   echo "util store" ;;
	job)     echo "util specs poly formats density saf model mapper exec accel report store job" ;;
	cli)     echo "util specs report job cli" ;;
	lib)     echo "util specs job lib" ;;
	bench)   echo "*" ;;
	esac
}

status=0
errs=$(mktemp) || exit 99
for mod in util specs poly formats density saf model mapper accel report exec store job cli lib; do
	[ -d "$mod" ] || continue
	ok=$(allowed "$mod")
	for f in $(find "$mod" -name '*.[ch]' | sort); do
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$f" |
		while IFS= read -r line; do
			lineno=${line%%:*}
			inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p')
			case $inc in
			\<yaml.h\>) [ "$mod" = specs ] || { echo "$f:$lineno: '$mod' may not include <yaml.h> (only specs/ may)"; echo x >&3; } ;;
			\<sqlite3.h\>) [ "$mod" = store ] || { echo "$f:$lineno: '$mod' may not include <sqlite3.h> (only store/ may)"; echo x >&3; } ;;
			\<mpi.h\>) [ "$mod" = job ] || { echo "$f:$lineno: '$mod' may not include <mpi.h> (only job/ may)"; echo x >&3; } ;;
			\<isl/*) [ "$mod" = poly ] || { echo "$f:$lineno: '$mod' may not include $inc (only poly/ may)"; echo x >&3; } ;;
			\"*/*\")
				path=${inc#\"}; path=${path%\"}
				target=${path%%/*}
				[ "$target" = config.h ] && continue
				good=no
				for a in $ok; do
					case $a in
					*/*) case $path in "$a".h|"$a"/*|"$a"_int.h) good=yes ;; esac ;;
					*) [ "$target" = "$a" ] && good=yes ;;
					esac
				done
				if [ $good = no ]; then
					echo "$f:$lineno: '$mod' may not include '$path'"
					echo x >&3
				fi ;;
			esac
		done
	done
done 3>"$errs"

# circles MOD WHAT: read "A B" edges (A depends on B) on stdin; report each loop.
circles() {
	edges=$(sort -u)
	[ -n "$edges" ] || return 0
	loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: \([^-][^:]*\)$/\1/p')
	[ -n "$loops" ] || return 0
	echo "$1/: $2 circle between $(printf '%s\n' $loops | sort -u | tr '\n' ' ' | sed 's/ $//')"
	echo x >&3
}

# Include circles: header A includes header B of the same module.
for mod in util specs poly formats density saf model mapper accel report exec store job cli lib; do
	[ -d "$mod" ] || continue
	for f in $(find "$mod" -name '*.h' | sort); do
		sed -n "s|^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\($mod/[^\"]*\.h\)\".*|\1|p" "$f" |
		while IFS= read -r inc; do
			[ "$inc" = "$f" ] || echo "$f $inc"
		done
	done | circles "$mod" include
done 3>>"$errs"

# Call circles: x.o uses a symbol that y.o defines (same module).
objs_found=no
for mod in util specs poly formats density saf model mapper accel report exec store job cli lib; do
	[ -d "$mod" ] || continue
	set -- "$builddir/$mod"/*.o
	[ -f "$1" ] || continue
	objs_found=yes
	for o in "$@"; do
		f=${o##*/}; f=${f%.o}; f=${f#*-}
		"$NM" "$o" | awk -v f="$f" '$2 ~ /^[TDRBGSV]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
	done | awk '$1 == "D" { def[$3] = $2; next } { use[++n] = $2 " " $3 }
		END { for (i = 1; i <= n; i++) { split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1]) print u[1] ".c " def[u[2]] ".c" } }' |
	sed "s|^|$mod/|; s| | $mod/|" | circles "$mod" call
done 3>>"$errs"
[ $objs_found = yes ] || echo "check-layers: no objects under $builddir: call circles not checked" >&2

if [ -s "$errs" ]; then status=1; fi
rm -f "$errs"
exit $status
