#!/bin/sh
# The repository is self-contained: no file of it refers to anything outside
# it (a sibling ../shared directory, a machine's /work/ paths, or the source
# notes the project was started from). What users need is in docs/ in our
# words; docs/sources.md names every public source. The files checked are
# the tracked ones when this is a git work tree, else every file of the
# source tree (a release tarball), this script excepted.
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99
self=tests/check-self-contained.sh
pattern='\.\./shared|/work/|reference-figures|timeloop-semantics|ipu-popsparse\.md'

list=$(mktemp) || exit 99
hits=$(mktemp) || exit 99
trap 'rm -f "$list" "$hits"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files -z | tr '\0' '\n' >"$list"
else
	find . \( -name '.git' -o -name '_build*' -o -name 'autom4te.cache' \) -prune -o \
		-type f -print | sed 's|^\./||' >"$list"
fi
[ -s "$list" ] || { echo "check-self-contained: no files found in $srcdir" >&2; exit 99; }

# The pattern must catch what it is meant to (else this test would pass on anything).
for probe in 'see ../shared/docs/x.md' '/work/shared/seeds' 'docs/reference-figures.md' \
	'timeloop-semantics §2' 'docs/ipu-popsparse.md §3'; do
	printf '%s\n' "$probe" | grep -Eq "$pattern" || {
		echo "check-self-contained: the pattern misses '$probe'" >&2; exit 1; }
done
printf '%s\n' 'examples/ipu-popsparse/t6.sh' 'docs/sources.md §6.1' | grep -Eq "$pattern" && {
	echo "check-self-contained: the pattern refuses a file of the repository" >&2; exit 1; }

# One grep over every regular file (a process per file took a minute on a
# loaded machine); symlinks are skipped (their targets are checked as files).
grep -v -x -F "$self" "$list" | while IFS= read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] && printf '%s\0' "$f"
done | xargs -0 -r grep -I -n -E "$pattern" /dev/null >"$hits"
if [ -s "$hits" ]; then
	echo "check-self-contained: these lines refer outside the repository (write what users" >&2
	echo "need into docs/, with its public source in docs/sources.md):" >&2
	cat "$hits" >&2
	exit 1
fi
echo "check-self-contained: $(wc -l <"$list") files, none refers outside the repository"
