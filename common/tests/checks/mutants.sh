#!/usr/bin/env bash
# Checks of make mutants (common/mutants/): the generator changes code and
# only code, the driver classifies every mutant of a seeded sample, and the
# committed data/mutation_score.csv was measured on today's references.
# Prints PASS/FAIL lines (see common/tests/check.sh).
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../../.."
B=${BUILD:-build}
tmp=${TMP:-$(mktemp -d)}/mutants
rm -rf "$tmp" && mkdir -p "$tmp"

pass() { printf 'PASS mutants: %s\n' "$*"; }
fail() { printf 'FAIL mutants: %s\n' "$*"; }

# The generator on a fixture: the changes we expect, and none in comments,
# strings or preprocessor lines.
python3 common/mutants/mutate.py common/mutants/tests/sample.c sample.c "$tmp" >"$tmp/list.txt"
for want in 'rel .*<= limit.*-> .*< limit' 'logic .*&&.*-> .*||' \
	'delete k++; -> ;' 'arith k++; -> k--;' 'rel .*!= -1.*-> .*== -1'; do
	grep -q -- "$want" "$tmp/list.txt" && pass "generator makes '$want'" ||
		fail "generator did not make '$want'"
done
if grep -qE '^[a-z]+-[0-9a-f]+ (1|2) |-> .*(a <= b|a >= b|#include)' "$tmp/list.txt"; then
	fail "generator changed a comment, a string or a preprocessor line"
else
	pass "generator leaves comments, strings and preprocessor lines alone"
fi
n=$(wc -l <"$tmp/list.txt")
python3 common/mutants/mutate.py common/mutants/tests/sample.c sample.c "$tmp" >"$tmp/again.txt"
cmp -s "$tmp/list.txt" "$tmp/again.txt" && pass "generator is deterministic ($n mutants of the fixture)" ||
	fail "generator gave different mutants on a second run"
ok=1
for p in "$tmp"/*.patch; do
	patch --quiet --dry-run --fuzz=0 common/mutants/tests/sample.c <"$p" >/dev/null || ok=0
done
[ $ok = 1 ] && pass "every mutant is a patch that applies to its source" ||
	fail "a mutant patch does not apply to its source"

# The driver on a seeded sample of ex01: every mutant classified.
BUILD="$B" bash common/mutants/run.sh -j 2 -n 4 -s 7 ex01 >"$tmp/run.log" 2>&1
rc=$?
res="$B/mutants/ex01_round_robin/results.txt"
if [ $rc -le 1 ] && [ "$(wc -l <"$res" 2>/dev/null)" = 4 ] &&
	! grep -qvE ' (killed|survived|notbuilt)$' "$res"; then
	pass "driver grades a seeded sample of 4 ex01 mutants ($(grep -c killed "$res") killed)"
else
	cat "$tmp/run.log"
	fail "driver: exit $rc, results: $(tr '\n' ' ' <"$res" 2>/dev/null)"
fi

# The committed score was measured on the references of today.
csv=data/mutation_score.csv
if [ ! -f "$csv" ]; then
	fail "$csv is missing: run make mutants"
else
	stale=
	while read -r _ _ f _ sum; do
		[ "$(sha256sum "$f" 2>/dev/null | cut -c1-16)" = "$sum" ] || stale+=" $f"
	done < <(grep '^# reference: ' "$csv")
	[ -z "$stale" ] && pass "$csv was measured on the current references" ||
		fail "$csv is stale for$stale: run make mutants"
fi
for f in solutions/mutants/*.equiv; do
	[ -f "$f" ] || continue
	bad=$(grep -vE '^\s*(#|$)|^[a-z]+-[0-9a-f]{8} .{10,}' "$f" || true)
	[ -z "$bad" ] && pass "$f: every line is '<id> <reason>'" ||
		fail "$f: lines without an id and a reason: $bad"
done
