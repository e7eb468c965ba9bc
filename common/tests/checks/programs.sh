#!/usr/bin/env bash
# make check, programs: every lab's program (the reference build) answers a
# bad argument with what was wrong and the usage on stderr, exit 2, and
# --help with the usage on stdout, exit 0.  Prints PASS/FAIL lines.
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../../.."
B=${BUILD:-build}
tmp=${TMP:-$(mktemp -d)}/programs
mkdir -p "$tmp"
for id in $(make -s --no-print-directory BUILD="$B" labs-info LAB= | awk 'NR > 1 { print $1 }'); do
	p="$B/bin/$id-sol"
	if [ ! -x "$p" ]; then
		printf 'FAIL programs: %s was not built\n' "$p"
		continue
	fi
	"$p" --no-such-option >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc = 2 ] && grep -q "^$id: " "$tmp/err" && grep -q '^usage: ' "$tmp/err"; then
		printf 'PASS programs: %s: a bad argument says what was wrong, prints the usage, exits 2\n' "$id"
	else
		printf 'FAIL programs: %s: a bad argument gave exit %s: %s\n' "$id" "$rc" "$(head -2 "$tmp/err" | tr '\n' ' ')"
	fi
	if "$p" --help >"$tmp/out" 2>&1 </dev/null && grep -q '^usage: ' "$tmp/out"; then
		printf 'PASS programs: %s: --help prints the usage, exits 0\n' "$id"
	else
		printf 'FAIL programs: %s: --help did not print the usage with exit 0\n' "$id"
	fi
done
