#!/usr/bin/env bash
# check_csv.sh FILE: a yieldlab CSV is '#' lines (date, machine, kernel,
# libevent and at least one run), then one header row (units belong in the
# column names: worst_lag_ms), then data rows with as many fields as it.
set -u
f=$1
fail() { echo "make plots: $f: $*" >&2; exit 1; }
[ -f "$f" ] || fail "missing (run 'make data' to measure it)"
for key in date machine kernel libevent run; do
	grep -q "^# $key: " "$f" || fail "no '# $key:' line in its header"
done
header=$(grep -v '^#' "$f" | head -1)
[ -n "$header" ] || fail "no header row"
cols=$(awk -F, '{ print NF }' <<<"$header")
rows=$(grep -v '^#' "$f" | tail -n +2 | grep -c .)
[ "$rows" -ge 1 ] || fail "no data rows under the header"
bad=$(grep -v '^#' "$f" | tail -n +2 | awk -F, -v n="$cols" 'NF != n { print NR + 1; exit }')
[ -z "$bad" ] || fail "data row $bad has a different number of fields than the header ($cols)"
exit 0
