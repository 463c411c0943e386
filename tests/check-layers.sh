#!/bin/sh
# Layering check (docs/ARCHITECTURE.md): a module may include only the modules
# below it (energy/ sits between specs/ and model/). exec/ is the independent
# reference and never sees formats/, saf/, model/ or poly/. Only specs/ includes <yaml.h>; only poly/ includes <isl/...>;
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
	energy)  echo "util specs energy" ;;
	poly)    echo "util specs poly" ;;
	formats) echo "util specs formats" ;;
	density) echo "util specs density" ;;
	saf)     echo "util specs formats density saf" ;;
	model)   echo "util specs energy poly formats density saf model" ;;
	mapper)  echo "util specs energy poly formats density saf model mapper" ;;
	accel)   echo "util specs energy formats density model accel" ;;
	report)  echo "util specs energy model exec accel report" ;;
	exec)    echo "util specs exec" ;;
	store)   echo "util store" ;;
	job)     echo "util specs energy poly formats density saf model mapper exec accel report store job" ;;
	cli)     echo "util specs report job cli" ;;
	lib)     echo "util specs job lib" ;;
	bench)   echo "*" ;;
	esac
}

status=0
errs=$(mktemp) || exit 99
# Every #include of every file in one pass (a fork per line took minutes on a
# loaded machine): FILE:LINE:TEXT lines, checked against allowed() in awk.
mods="util specs energy poly formats density saf model mapper accel report exec store job cli lib"
rules=""
for mod in $mods; do
	[ -d "$mod" ] && rules="$rules$mod=$(allowed "$mod" | tr ' ' ',');"
done
files=$(for mod in $mods; do [ -d "$mod" ] && find "$mod" -name '*.[ch]'; done | sort)
if [ -n "$files" ]; then
	# shellcheck disable=SC2086
	grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' $files /dev/null |
	awk -v rules="$rules" '
	BEGIN {
		n = split(rules, r, ";")
		for (i = 1; i <= n; i++)
			if (r[i] != "") { split(r[i], kv, "="); ok[kv[1]] = kv[2] }
	}
	{
		f = $0; sub(/:.*/, "", f)
		rest = substr($0, length(f) + 2); lineno = rest; sub(/:.*/, "", lineno)
		text = substr(rest, length(lineno) + 2)
		mod = f; sub(/\/.*/, "", mod)
		if (!match(text, /include[[:space:]]*[<"][^>"]*[>"]/)) next
		inc = substr(text, RSTART, RLENGTH); sub(/^include[[:space:]]*/, "", inc)
		if (inc == "<yaml.h>") { if (mod != "specs") bad(f, lineno, "\047" mod "\047 may not include <yaml.h> (only specs/ may)"); next }
		if (inc == "<sqlite3.h>") { if (mod != "store") bad(f, lineno, "\047" mod "\047 may not include <sqlite3.h> (only store/ may)"); next }
		if (inc == "<mpi.h>") { if (mod != "job") bad(f, lineno, "\047" mod "\047 may not include <mpi.h> (only job/ may)"); next }
		if (inc ~ /^<isl\//) { if (mod != "poly") bad(f, lineno, "\047" mod "\047 may not include " inc " (only poly/ may)"); next }
		if (inc !~ /^".*\/.*"$/) next
		path = substr(inc, 2, length(inc) - 2)
		target = path; sub(/\/.*/, "", target)
		if (target == "config.h") next
		good = 0
		na = split(ok[mod], al, ",")
		for (i = 1; i <= na; i++) {
			a = al[i]
			if (a ~ /\//) { if (path == a ".h" || index(path, a "/") == 1 || path == a "_int.h") good = 1 }
			else if (target == a) good = 1
		}
		if (!good) bad(f, lineno, "\047" mod "\047 may not include \047" path "\047")
	}
	function bad(f, l, msg) { print f ":" l ": " msg; print "x" > "/dev/fd/3" }'
fi 3>"$errs"

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
for mod in $mods; do
	[ -d "$mod" ] || continue
	hdrs=$(find "$mod" -name '*.h' | sort)
	[ -n "$hdrs" ] || continue
	# shellcheck disable=SC2086
	grep -H "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$mod/[^\"]*\.h\"" $hdrs /dev/null |
	sed "s|^\([^:]*\):.*\"\($mod/[^\"]*\.h\)\".*|\1 \2|" |
	awk '$1 != $2' | circles "$mod" include
done 3>>"$errs"

# Call circles: x.o uses a symbol that y.o defines (same module).
objs_found=no
for mod in $mods; do
	[ -d "$mod" ] || continue
	set -- "$builddir/$mod"/*.o
	[ -f "$1" ] || continue
	objs_found=yes
	# one nm for the module's objects: "OBJECT:VALUE TYPE NAME", "OBJECT:  U NAME"
	"$NM" -A "$@" | awk '{ o = $1; sub(/:.*/, "", o); sub(/.*\//, "", o); sub(/\.o$/, "", o)
		sub(/^[^-]*-/, "", o)
		if ($2 == "U") print "U", o, $3; else if ($2 ~ /^[TDRBGSV]$/) print "D", o, $3 }' | awk '$1 == "D" { def[$3] = $2; next } { use[++n] = $2 " " $3 }
		END { for (i = 1; i <= n; i++) { split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1]) print u[1] ".c " def[u[2]] ".c" } }' |
	sed "s|^|$mod/|; s| | $mod/|" | circles "$mod" call
done 3>>"$errs"
[ $objs_found = yes ] || echo "check-layers: no objects under $builddir: call circles not checked" >&2

if [ -s "$errs" ]; then status=1; fi
rm -f "$errs"
exit $status
