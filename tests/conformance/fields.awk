# Turn a Timeloop stats.txt into "key<TAB>value" lines, one per printed field.
# The key is section/component/tensor/label (plus the enclosing label for the
# per-rank lines); the value loses its unit. POSIX awk.

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

function unit(v) {
	v = trim(v)
	sub(/ (pJ|uJ|words\/cycle|um\^2|mm\^2)$/, "", v)
	sub(/%$/, "", v)
	return v
}

function emit(label, value,   key) {
	key = sect "/" comp "/" tensor "/" (parent != "" ? parent "/" : "") trim(label)
	n = ++seen[key]
	if (n > 1) key = key "#" n
	printf "%s\t%s\n", key, unit(value)
}

BEGIN { sect = "top"; comp = ""; tensor = ""; parent = ""; skip = 0 }

/^Buffer and Arithmetic Levels$/ { sect = "levels"; next }
/^Networks$/ { sect = "networks"; comp = ""; tensor = ""; next }
/^Operational Intensity Stats$/ { sect = "opint"; comp = ""; tensor = ""; next }
/^Summary Stats$/ { sect = "summary"; comp = ""; tensor = ""; next }
/^fJ\// { sect = $0; comp = ""; tensor = ""; next }
/^-+$/ || /^$/ || /^Level [0-9]+$/ { next }
/^=== .* ===$/ { comp = substr($0, 5, length($0) - 8); tensor = ""; parent = ""; next }
/^    MAPPING$/ { skip = 1; next }
/^    STATS$/ { skip = 0; parent = ""; next }
/^    SPECS$/ { parent = ""; next }
skip { next }
/^    [^ ].*:$/ && !/ : / { tensor = trim(substr($0, 1, length($0) - 1)); parent = ""; next }
/^[A-Za-z].* = [0-9]+$/ {
	i = index($0, " = "); sect = trim(substr($0, 1, i - 1)); emit("value", substr($0, i + 3))
	next
}
/^    [^ ].* = / && sect ~ /^fJ/ {
	i = index($0, "= "); emit(substr($0, 1, i - 1), substr($0, i + 2)); next
}
/^ +Rank [0-9]+ \(metadata, payload\): / || /^ +Breakdown / {
	i = index($0, ": "); emit(substr($0, 1, i - 1), substr($0, i + 2)); next
}
/: / {
	i = index($0, ": ")
	label = substr($0, 1, i - 1)
	if (match($0, /^        [^ ]/) || match($0, /^    [^ ]/) || match($0, /^[^ ]/))
		parent = ""
	emit(label, substr($0, i + 2))
	next
}
/^ +[^ ].*[^ :]$/ { parent = trim($0); next }
