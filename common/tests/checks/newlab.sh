#!/usr/bin/env bash
# make new-lab, end to end in a scratch copy of the suite: the new lab
# builds, its stub scores 0, its reference, both correct alternatives and
# its promise map pass, its wrong solution is caught; a taken id and a bad
# name are refused.  Prints PASS/FAIL lines (see common/tests/check.sh).
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -uo pipefail
cd "$(dirname "$0")/../../.."
tmp=${TMP:-$(mktemp -d)}/newlab
rm -rf "$tmp" && mkdir -p "$tmp"

pass() { printf 'PASS new-lab: %s\n' "$*"; }
fail() { printf 'FAIL new-lab: %s\n' "$*"; }
m() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$tmp" BUILD=build "$@"; }

# The suite as committed or edited (tracked and untracked, not ignored).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null | tar -xf - -C "$tmp"
else
	tar -cf - --exclude=./build --exclude=./dist . | tar -xf - -C "$tmp"
fi

if m new-lab NAME=ex99_sample >"$tmp/new.log" 2>&1; then
	pass "make new-lab NAME=ex99_sample made a lab"
else
	cat "$tmp/new.log"
	fail "make new-lab NAME=ex99_sample failed"
	exit 0
fi
m new-lab NAME=ex99_again >/dev/null 2>&1
[ $? -ne 0 ] && pass "a second lab with a taken id (ex99) is refused" ||
	fail "a second ex99 lab was made"
m new-lab NAME=Ex9-bad >/dev/null 2>&1
[ $? -ne 0 ] && pass "a name that is not exNN_topic is refused" ||
	fail "new-lab accepted the name Ex9-bad"

m grade LAB=ex99 >"$tmp/stub.log" 2>&1
grep -q 'ex99_sample *0/100' "$tmp/stub.log" && pass "its stub scores 0/100" ||
	fail "its stub: $(grep ex99_sample "$tmp/stub.log" | head -1)"
m grade LAB=ex99 SOL=1 >"$tmp/sol.log" 2>&1 && grep -q 'ex99_sample *100/100' "$tmp/sol.log" &&
	pass "its reference scores 100/100" || fail "its reference: $(tail -3 "$tmp/sol.log" | tr '\n' ' ')"
for alt in counts_down recursive; do
	g=build/grader/alt/ex99_sample/$alt
	m "$g" >/dev/null 2>&1 && (cd "$tmp" && "$g" --out build/alt-$alt >/dev/null 2>&1) &&
		pass "its correct alternative $alt gets full marks" || fail "its correct alternative $alt lost points"
done
g=build/grader/wrong/ex99_sample/counts_one_too_far
if m "$g" >/dev/null 2>&1; then
	(cd "$tmp" && "$g" --out build/wrong >"$tmp/wrong.log" 2>&1)
	[ $? -eq 1 ] && grep -q 'counts_up_to_n' "$tmp/wrong.log" &&
		pass "its wrong solution is rejected" || fail "its wrong solution was not rejected"
else
	fail "its wrong solution did not build"
fi
(cd "$tmp" && LAB=ex99 bash common/tests/checks/promises.sh) | grep -q '^PASS ex99_sample' &&
	pass "its promise map holds" || fail "its promise map does not hold"
(cd "$tmp" && python3 common/docs/tables.py --check) >"$tmp/docs.log" 2>&1
! grep -q '^FAIL' "$tmp/docs.log" && grep -q '^PASS' "$tmp/docs.log" &&
	pass "the guides' generated tables already list it (make check-docs passes)" ||
	fail "the generated tables do not list the new lab: $(grep '^FAIL' "$tmp/docs.log" | head -2 | tr '\n' ' ')"
