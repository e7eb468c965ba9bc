#!/usr/bin/env bash
# check_csv.sh FILE: a yieldlab CSV is '#' lines (date, machine, kernel,
# libevent and at least one run), then one header row (units belong in the
# column names: worst_lag_ms), then data rows with as many fields as it.
set -euo pipefail
f=$1
fail() { echo "make plots: $f: $*" >&2; exit 1; }
[ -f "$f" ] || fail "missing (run 'make data' to measure it)"
for key in date machine kernel libevent run; do
	grep -q "^# $key: " "$f" || fail "no '# $key:' line in its header"
done
header=$(awk '!/^#/ { print; exit }' "$f")
[ -n "$header" ] || fail "no header row"
cols=$(awk -F, '{ print NF }' <<<"$header")
rows=$(awk '/^#/ { next } seen++ && /./ { n++ } END { print n + 0 }' "$f")
[ "$rows" -ge 1 ] || fail "no data rows under the header"
# Rows count from the header (row 1), '#' lines aside.
bad=$(awk -F, -v n="$cols" '/^#/ { next } { row++ } row > 1 && NF != n { print row; exit }' "$f")
[ -z "$bad" ] || fail "data row $bad has a different number of fields than the header ($cols)"
exit 0
