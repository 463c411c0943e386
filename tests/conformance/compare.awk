# Compare two field lists written by fields.awk: the reference (first file)
# and ours (second). Integers must be equal; decimals may differ by one unit
# of their printed precision (Timeloop rounds to 2 decimals, so do we);
# scientific values by one unit of their last printed digit. Prints
# "matched X of Y fields" and the first mismatches; exit status 1 on any.

function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/ }

function ulp(v,   d, e) {
	if (v ~ /e/) {
		e = v; sub(/^.*e/, "", e)
		d = v; sub(/e.*$/, "", d); sub(/^-?[0-9]*\.?/, "", d)
		return 10 ^ (e + 0 - length(d))
	}
	if (v !~ /\./) return 0
	d = v; sub(/^.*\./, "", d)
	return 10 ^ (-length(d))
}

function same(a, b,   u, diff) {
	if (a == b) return 1
	if (!isnum(a) || !isnum(b)) return 0
	u = ulp(a)
	if (u == 0 && ulp(b) == 0) return 0
	diff = a - b; if (diff < 0) diff = -diff
	return diff <= u * 1.0000001 + (a < 0 ? -a : a) * 1e-12
}

BEGIN { FS = "\t" }
FNR == NR { ref[$1] = $2; order[++n] = $1; next }
{ ours[$1] = $2 }
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		k = order[i]
		if ((k in ours) && same(ref[k], ours[k])) continue
		if (bad < 12)
			printf "    %s: expected '%s', got '%s'\n", k, ref[k], (k in ours) ? ours[k] : "(missing)"
		bad++
	}
	printf "matched %d of %d fields\n", n - bad, n
	exit bad ? 1 : 0
}
