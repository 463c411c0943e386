#!/bin/sh
# Layering check (ARCHITECTURE.md): a module may include only the modules
# below it (energy/ sits between specs/ and model/). exec/ is the independent reference and never sees formats/, saf/,
# model/ or poly/. Only specs/ includes <yaml.h>; only poly/ includes <isl/...>;
# only store/ includes <sqlite3.h>; only job/ includes <mpi.h>.
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99

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
	bench)   echo "*" ;;
	esac
}

status=0
errs=$(mktemp) || exit 99
for mod in util specs energy poly formats density saf model mapper accel report exec store job cli; do
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
if [ -s "$errs" ]; then status=1; fi
rm -f "$errs"
exit $status
